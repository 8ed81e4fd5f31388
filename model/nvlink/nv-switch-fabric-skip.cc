// SPDX-License-Identifier: GPL-2.0-only
// NvSwitchFabric's fast-forward: whole rounds of the uplinks' point-to-point chunks let
// through while the fabric is periodic (the class description says when and how).
#include "nv-switch-fabric.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvSwitchFabricSkip");

void
NvSwitchFabric::NoteChange()
{
    if (!m_ff || m_disposed)
    {
        return;
    }
    m_lastChange = Simulator::Now();
    if (m_skippingUplinks > 0)
    {
        CutSkip();
    }
    // Two windows after the last change: the first for the new state to set in, the
    // second to watch it. One try pending at a time; it waits longer if more changes came.
    if (m_ffTry.IsExpired())
    {
        m_ffTry = Simulator::Schedule(QuietTime(), &NvSwitchFabric::TrySkip, this);
    }
}

void
NvSwitchFabric::NoteDrained()
{
    if (m_ff && IsDrained() && !m_ffTry.IsExpired())
    {
        // Nothing left to skip: a try pending now would fire on the next transfers at a
        // time set by these, so the fabric's state would depend on its past.
        NS_LOG_LOGIC("fabric drained: its pending skip try is cancelled");
        m_ffTry.Cancel();
    }
}

Time
NvSwitchFabric::QuietTime() const
{
    return LongestRound() * (2 * static_cast<int64_t>(m_ffRounds));
}

void
NvSwitchFabric::NoteIrregular()
{
    if (m_ff)
    {
        m_lastIrregular = Simulator::Now();
    }
}

Time
NvSwitchFabric::LongestRound() const
{
    std::size_t flows = 1;
    for (const Uplink& up : m_uplinks)
    {
        flows = std::max(flows, up.ring.size());
    }
    Time chunk;
    for (const Ptr<NvLinkPort>& port : m_ports)
    {
        chunk = std::max(chunk, port->GetTransmissionTime(m_chunkBytes, GetEfficiency(false)));
    }
    return chunk * static_cast<int64_t>(flows);
}

void
NvSwitchFabric::TrySkip()
{
    if (m_disposed || m_skippingUplinks > 0)
    {
        return;
    }
    const Time now = Simulator::Now();
    const Time quiet = QuietTime();
    if (now - m_lastChange < quiet)
    {
        m_ffTry = Simulator::Schedule(m_lastChange + quiet - now, &NvSwitchFabric::TrySkip, this);
        return;
    }
    if (!m_ops.empty())
    {
        NS_LOG_LOGIC("NVLS operations in flight: no skip");
        return;
    }
    const Time window = LongestRound() * static_cast<int64_t>(m_ffRounds);
    if (m_lastIrregular >= now - window)
    {
        NS_LOG_LOGIC("a credit stall or a downlink queue within the last window: no skip");
        return;
    }
    // Every uplink with work must be sending full chunks of point-to-point flows, back to
    // back; the skip ends when the first flow nears the end of its transfer.
    Time end = Time::Max();
    bool any = false;
    for (uint32_t g = 0; g < m_nGpus; ++g)
    {
        const Uplink& up = m_uplinks[g];
        if (up.ring.empty())
        {
            continue;
        }
        if (!m_ports[g]->IsUplinkBusy() || !up.lastFull)
        {
            NS_LOG_LOGIC("GPU " << g << " is not sending full chunks: no skip");
            return;
        }
        uint64_t maxRounds = UINT64_MAX;
        for (const auto& it : up.ring)
        {
            const Job& job = it->second.front();
            if (std::get<0>(it->first) != KEY_P2P || job.kind != Kind::P2P)
            {
                return;
            }
            const uint64_t left = ChunkCount(job.remaining);
            if (left <= m_ffEndChunks + 1)
            {
                NS_LOG_LOGIC("GPU " << g << ": a transfer near its end: no skip");
                return;
            }
            maxRounds = std::min<uint64_t>(maxRounds, left - m_ffEndChunks - 1);
        }
        const Time round = up.lastSer * static_cast<int64_t>(up.ring.size());
        end = std::min(end, up.lastStart + up.lastSer + round * static_cast<int64_t>(maxRounds));
        any = true;
    }
    if (!any || end - now < window)
    {
        NS_LOG_LOGIC("no skip of a window or more");
        return;
    }
    ++m_ffSkips;
    for (uint32_t g = 0; g < m_nGpus; ++g)
    {
        Uplink& up = m_uplinks[g];
        if (up.ring.empty())
        {
            continue;
        }
        up.skipping = true;
        up.extra = 0;
        up.skipFrom = up.lastStart + up.lastSer;
        up.skipFlows = up.ring.size();
        up.round = up.lastSer * static_cast<int64_t>(up.skipFlows);
        up.rounds =
            static_cast<uint64_t>((end - up.skipFrom).GetTimeStep() / up.round.GetTimeStep());
        const Time resumeAt = up.skipFrom + up.round * static_cast<int64_t>(up.rounds);
        up.resume = Simulator::Schedule(resumeAt - now, &NvSwitchFabric::ResumeUplink, this, g);
        ++m_skippingUplinks;
        NS_LOG_INFO("GPU " << g << ": " << up.rounds << " rounds of " << up.ring.size()
                           << " flows skipped, to " << resumeAt.As(Time::US));
    }
}

void
NvSwitchFabric::CutSkip()
{
    // Each uplink resumes at its first chunk boundary from now on, its round robin where
    // it would stand: the whole rounds and the chunks of the round under way before it
    // count as sent.
    const Time now = Simulator::Now();
    for (uint32_t g = 0; g < m_nGpus; ++g)
    {
        Uplink& up = m_uplinks[g];
        if (!up.skipping)
        {
            continue;
        }
        const int64_t elapsed = (now - up.skipFrom).GetTimeStep();
        const int64_t step = up.lastSer.GetTimeStep();
        const auto chunks =
            elapsed <= 0 ? uint64_t{0} : static_cast<uint64_t>((elapsed + step - 1) / step);
        if (chunks >= up.rounds * up.skipFlows)
        {
            continue; // it ends by then anyway
        }
        up.rounds = chunks / up.skipFlows;
        up.extra = chunks % up.skipFlows;
        up.resume.Cancel();
        const Time resumeAt = up.skipFrom + up.lastSer * static_cast<int64_t>(chunks);
        up.resume = Simulator::Schedule(resumeAt - now, &NvSwitchFabric::ResumeUplink, this, g);
        NS_LOG_INFO("GPU " << g << ": the skip is cut to " << up.rounds << " rounds and "
                           << up.extra << " chunks, to " << resumeAt.As(Time::US));
    }
}

void
NvSwitchFabric::ResumeUplink(uint32_t gpu)
{
    if (m_disposed)
    {
        return;
    }
    Uplink& up = m_uplinks[gpu];
    if (!up.skipping)
    {
        return;
    }
    // Whole rounds: each of the skip's flows sent as many full chunks (flows posted during
    // the skip are behind them in the ring: not theirs). A cut skip's first extra flows
    // sent one chunk more and go behind the others, as the round robin moves a flow that
    // sent.
    for (std::size_t i = 0; i < up.skipFlows; ++i)
    {
        const uint64_t bytes = (up.rounds + (i < up.extra ? 1 : 0)) * m_chunkBytes;
        Job& job = up.ring[i]->second.front();
        job.remaining -= bytes;
        m_ports[job.dst]->CountSkippedBytes(0, bytes);
    }
    std::rotate(up.ring.begin(),
                up.ring.begin() + static_cast<std::ptrdiff_t>(up.extra),
                up.ring.begin() + static_cast<std::ptrdiff_t>(up.skipFlows));
    const uint64_t chunks = up.rounds * up.skipFlows + up.extra;
    m_ports[gpu]->CountSkippedBytes(chunks * m_chunkBytes, 0);
    m_chunksDelivered += chunks;
    m_bytesDelivered += chunks * m_chunkBytes;
    m_ffChunks += chunks;
    up.skipping = false;
    up.extra = 0;
    --m_skippingUplinks;
    TryStartUplink(gpu);
}

uint64_t
NvSwitchFabric::SkippedSoFar() const
{
    if (m_skippingUplinks == 0)
    {
        return 0;
    }
    const Time now = Simulator::Now();
    uint64_t chunks = 0;
    for (const Uplink& up : m_uplinks)
    {
        if (up.skipping && now > up.skipFrom)
        {
            const auto rounds =
                static_cast<uint64_t>((now - up.skipFrom).GetTimeStep() / up.round.GetTimeStep());
            chunks += std::min(rounds, up.rounds) * up.skipFlows;
        }
    }
    return chunks;
}

uint64_t
NvSwitchFabric::GetSkips() const
{
    return m_ffSkips;
}

uint64_t
NvSwitchFabric::GetSkippedChunks() const
{
    return m_ffChunks;
}

} // namespace ns3
