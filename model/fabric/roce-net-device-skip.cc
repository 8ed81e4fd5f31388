// SPDX-License-Identifier: GPL-2.0-only
// RoceNetDevice: the frames a fast-forward lets through a port without simulating them
// (RoceSkippedFrames streams), and the port's transmit counters, which count them.
#include "roce-frame-info.h"
#include "roce-net-device.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

// The class's log component ("RoceNetDevice"), defined in roce-net-device.cc: NS_LOG
// finds it under this name.
LogComponent& RoceNetDeviceLogComponent();
static LogComponent& g_log = RoceNetDeviceLogComponent();

uint64_t
RoceSkippedFrames::FramesBy(Time t) const
{
    if (t <= last)
    {
        return 0;
    }
    const auto frames = static_cast<uint64_t>((t - last).GetPicoSeconds() / periodPs);
    return std::min(frames, maxFrames);
}

uint64_t
RoceSkippedFrames::FramesHereBy(Time t) const
{
    return t < delay ? 0 : FramesBy(t - delay);
}

Time
RoceSkippedFrames::StartOf(uint64_t frames) const
{
    // Rounded up to the clock's step, so that FramesBy(StartOf(k)) counts the k-th frame.
    const int64_t psPerStep = std::max<int64_t>(TimeStep(1).GetPicoSeconds(), 1);
    const auto ps = static_cast<int64_t>(std::ceil(static_cast<double>(frames) * periodPs));
    return last + TimeStep((ps + psPerStep - 1) / psPerStep);
}

uint64_t
RoceNetDevice::SkippedSoFar(uint64_t& bytes) const
{
    uint64_t frames = 0;
    bytes = 0;
    const Time now = Simulator::Now();
    for (const RoceSkippedFrames& s : m_skipped)
    {
        const uint64_t n = s.FramesHereBy(now);
        frames += n;
        bytes += n * s.frameBytes;
    }
    return frames;
}

void
RoceNetDevice::AddSkippedFrames(const RoceSkippedFrames& frames)
{
    NS_LOG_FUNCTION(this);
    PruneSkippedFrames();
    m_skipped.push_back(frames);
    NoteActivity();
}

bool
RoceNetDevice::HasSkippedFramesPending() const
{
    const Time now = Simulator::Now();
    return std::any_of(m_skipped.begin(), m_skipped.end(), [now](const RoceSkippedFrames& s) {
        return s.FramesHereBy(now) < s.maxFrames;
    });
}

void
RoceNetDevice::SettleSkippedFrames(const void* source, uint64_t frames)
{
    NS_LOG_FUNCTION(this << source << frames);
    // The source stopped; the frames it skipped still reach this port over its delay,
    // and count as they do.
    for (RoceSkippedFrames& s : m_skipped)
    {
        if (s.source == source)
        {
            s.maxFrames = std::min(s.maxFrames, frames);
        }
    }
    PruneSkippedFrames();
}

void
RoceNetDevice::PruneSkippedFrames()
{
    const Time now = Simulator::Now();
    auto done = [this, now](const RoceSkippedFrames& s) {
        if (s.FramesHereBy(now) < s.maxFrames)
        {
            return false;
        }
        m_txFrames += s.maxFrames;
        m_skippedTxFrames += s.maxFrames;
        m_txBytes += s.maxFrames * s.frameBytes;
        return true;
    };
    m_skipped.erase(std::remove_if(m_skipped.begin(), m_skipped.end(), done), m_skipped.end());
}

uint64_t
RoceNetDevice::GetTxBytes() const
{
    NS_LOG_FUNCTION(this);
    if (m_skipped.empty())
    {
        return m_txBytes;
    }
    uint64_t bytes = 0;
    SkippedSoFar(bytes);
    return m_txBytes + bytes;
}

uint64_t
RoceNetDevice::GetTxFrames() const
{
    NS_LOG_FUNCTION(this);
    if (m_skipped.empty())
    {
        return m_txFrames;
    }
    uint64_t bytes = 0;
    return m_txFrames + SkippedSoFar(bytes);
}

uint64_t
RoceNetDevice::GetSkippedTxFrames() const
{
    NS_LOG_FUNCTION(this);
    if (m_skipped.empty())
    {
        return m_skippedTxFrames;
    }
    uint64_t bytes = 0;
    return m_skippedTxFrames + SkippedSoFar(bytes);
}

uint64_t
RoceNetDevice::GetTxWireBytes() const
{
    NS_LOG_FUNCTION(this);
    return GetTxBytes() + uint64_t{roce::FCS_BYTES + roce::PREAMBLE_AND_IFG_BYTES} * GetTxFrames();
}

} // namespace ns3
