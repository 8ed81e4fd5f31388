// SPDX-License-Identifier: GPL-2.0-only
// NvSwitchFabric's side of call replay: when the fabric is quiet, what it has done so far,
// and a replayed call's work counted without its chunks.
#include "nv-switch-fabric.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

// The class's log component ("NvSwitchFabric"), defined in nv-switch-fabric.cc.
LogComponent& NvSwitchFabricLogComponent();
static LogComponent& g_log = NvSwitchFabricLogComponent();

NvSwitchFabric::Work
NvSwitchFabric::GetWork() const
{
    Work w;
    w.transfers = m_transfersDone;
    w.switchOps = m_switchOpsDone;
    w.chunks = m_chunksDelivered;
    w.bytes = m_bytesDelivered;
    w.skips = m_ffSkips;
    w.skippedChunks = m_ffChunks;
    w.posts = m_posts;
    w.portSent.reserve(m_ports.size());
    w.portReceived.reserve(m_ports.size());
    for (const Ptr<NvLinkPort>& port : m_ports)
    {
        w.portSent.push_back(port->GetBytesSent());
        w.portReceived.push_back(port->GetBytesReceived());
    }
    return w;
}

NvSwitchFabric::Work
NvSwitchFabric::Difference(const Work& after, const Work& before)
{
    NS_ABORT_MSG_IF(after.portSent.size() != before.portSent.size(),
                    "NvSwitchFabric::Difference: counters of fabrics with "
                        << before.portSent.size() << " and " << after.portSent.size() << " GPUs");
    Work d;
    d.transfers = after.transfers - before.transfers;
    d.switchOps = after.switchOps - before.switchOps;
    d.chunks = after.chunks - before.chunks;
    d.bytes = after.bytes - before.bytes;
    d.skips = after.skips - before.skips;
    d.skippedChunks = after.skippedChunks - before.skippedChunks;
    d.posts = after.posts - before.posts;
    d.portSent.resize(after.portSent.size());
    d.portReceived.resize(after.portReceived.size());
    for (size_t g = 0; g < after.portSent.size(); ++g)
    {
        d.portSent[g] = after.portSent[g] - before.portSent[g];
        d.portReceived[g] = after.portReceived[g] - before.portReceived[g];
    }
    return d;
}

bool
NvSwitchFabric::IsDrained() const
{
    return GetTransfersInFlight() == 0 && m_emptyOpsInFlight == 0;
}

uint64_t
NvSwitchFabric::GetPosts() const
{
    return m_posts;
}

bool
NvSwitchFabric::IsQuiet() const
{
    const Time now = Simulator::Now();
    if (!IsDrained() || m_skippingUplinks != 0 || now < m_replayUntil || !m_ffTry.IsExpired() ||
        !m_switch->IsIdle())
    {
        return false;
    }
    return std::none_of(m_ports.begin(), m_ports.end(), [](const Ptr<NvLinkPort>& p) {
        return p->IsUplinkBusy() || p->IsDownlinkBusy();
    });
}

void
NvSwitchFabric::Replay(const Work& work, Time hold)
{
    NS_LOG_FUNCTION(this << work.transfers << work.switchOps << work.chunks << hold);
    NS_ABORT_MSG_IF(work.portSent.size() != m_ports.size(),
                    "NvSwitchFabric::Replay: counters of a fabric with "
                        << work.portSent.size() << " GPUs, this one has " << m_ports.size());
    m_transfersSent += work.transfers;
    m_transfersDone += work.transfers;
    m_switchOpsStarted += work.switchOps;
    m_switchOpsDone += work.switchOps;
    m_chunksDelivered += work.chunks;
    m_bytesDelivered += work.bytes;
    m_ffSkips += work.skips;
    m_ffChunks += work.skippedChunks;
    m_posts += work.posts;
    for (size_t g = 0; g < m_ports.size(); ++g)
    {
        m_ports[g]->CountSkippedBytes(work.portSent[g], work.portReceived[g]);
    }
    m_replayUntil = std::max(m_replayUntil, Simulator::Now() + hold);
    ++m_replays;
    m_replayedChunks += work.chunks - work.skippedChunks;
    NS_LOG_LOGIC("replayed a call: " << work.chunks << " chunks, fabric held until "
                                     << m_replayUntil.As(Time::US));
}

void
NvSwitchFabric::NotePost()
{
    ++m_posts;
    if (Simulator::Now() < m_replayUntil)
    {
        ++m_replayOverlaps;
        NS_LOG_LOGIC("a post while a replayed call holds the fabric (until "
                     << m_replayUntil.As(Time::US) << "): it runs as if the call were not there");
    }
}

uint64_t
NvSwitchFabric::GetReplays() const
{
    return m_replays;
}

uint64_t
NvSwitchFabric::GetReplayedChunks() const
{
    return m_replayedChunks;
}

uint64_t
NvSwitchFabric::GetReplayOverlaps() const
{
    return m_replayOverlaps;
}

} // namespace ns3
