// SPDX-License-Identifier: GPL-2.0-only
// NvSwitchFabric's data path: transfers cut into chunks, the GPUs' uplinks, the switch
// (unicast, in-switch reduction, multicast), the ports down and their credits.
#include "nv-switch-fabric.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

// The class's log component ("NvSwitchFabric"), defined in nv-switch-fabric.cc: NS_LOG
// finds it under this name.
LogComponent& NvSwitchFabricLogComponent();
static LogComponent& g_log = NvSwitchFabricLogComponent();

void
NvSwitchFabric::Send(uint32_t src,
                     uint32_t dst,
                     uint64_t bytes,
                     uint32_t channel,
                     DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << dst << bytes << channel);
    NS_ABORT_MSG_IF(m_disposed, "NvSwitchFabric::Send: the fabric has been disposed");
    NS_ABORT_MSG_IF(src >= m_nGpus || dst >= m_nGpus,
                    "NvSwitchFabric::Send: GPU "
                        << std::max(src, dst) << " is out of range (NGpus is " << m_nGpus << ")");
    NS_ABORT_MSG_IF(src == dst, "NvSwitchFabric::Send: GPU " << src << " sends to itself");
    NS_LOG_LOGIC("GPU " << src << " -> " << dst << ": " << ChunkCount(bytes)
                        << " chunks on channel " << channel);
    NotePost();
    ++m_transfersSent;
    AddJob(src, FlowKey{KEY_P2P, dst, channel}, Job{Kind::P2P, dst, bytes, 0, 0, done});
    TryStartUplink(src);
}

void
NvSwitchFabric::AddJob(uint32_t gpu, const FlowKey& key, Job job)
{
    NoteChange();
    Uplink& up = m_uplinks[gpu];
    auto it = up.flows.try_emplace(key).first;
    if (it->second.empty())
    {
        // A flow is in the ring exactly while it has jobs.
        up.ring.push_back(it);
    }
    it->second.push_back(std::move(job));
    if (!m_ports[gpu]->IsUplinkBusy())
    {
        SetWaiting(gpu, true);
    }
}

void
NvSwitchFabric::SetWaiting(uint32_t gpu, bool waiting)
{
    Uplink& up = m_uplinks[gpu];
    if (up.waiting != waiting)
    {
        up.waiting = waiting;
        m_nWaiting += waiting ? 1 : -1;
    }
}

bool
NvSwitchFabric::Eligible(const Job& job) const
{
    switch (job.kind)
    {
    case Kind::P2P:
        return m_switch->HasCredit(job.dst);
    case Kind::MCAST: {
        // A multicast copy lands in every member's egress buffer at once, so it needs a
        // credit at all of them.
        const SwitchOp& op = m_ops.at(job.op);
        return std::all_of(op.members.begin(), op.members.end(), [this](uint32_t g) {
            return m_switch->HasCredit(g);
        });
    }
    default:
        // Contributions were admitted when their reduction slot was taken.
        return true;
    }
}

void
NvSwitchFabric::TryStartUplink(uint32_t gpu)
{
    Uplink& up = m_uplinks[gpu];
    const Ptr<NvLinkPort>& port = m_ports[gpu];
    if (port->IsUplinkBusy() || up.skipping)
    {
        return;
    }
    for (size_t tries = up.ring.size(); tries > 0; --tries)
    {
        const auto it = up.ring.front();
        up.ring.pop_front();
        Job& job = it->second.front();
        if (!Eligible(job))
        {
            NoteIrregular();
            up.ring.push_back(it);
            continue;
        }
        Chunk c{job.kind, gpu, ANY, 0, job.op, job.index, true, DoneCallback()};
        bool jobDone = true;
        switch (job.kind)
        {
        case Kind::P2P:
            c.dst = job.dst;
            c.bytes = std::min(job.remaining, m_chunkBytes);
            job.remaining -= c.bytes;
            c.last = job.remaining == 0;
            jobDone = c.last;
            if (c.last)
            {
                c.done = job.done;
            }
            m_switch->TakeCredit(c.dst);
            break;
        case Kind::MCAST:
            c.bytes = std::min(job.remaining, m_chunkBytes);
            job.remaining -= c.bytes;
            jobDone = job.remaining == 0;
            for (uint32_t g : m_ops.at(job.op).members)
            {
                m_switch->TakeCredit(g);
            }
            break;
        default:
            c.bytes = ChunkSize(m_ops.at(job.op).bytes, job.index);
            break;
        }
        if (jobDone)
        {
            it->second.pop_front();
            NoteChange();
        }
        if (it->second.empty())
        {
            up.flows.erase(it);
        }
        else
        {
            up.ring.push_back(it); // round-robin per chunk
        }
        SetWaiting(gpu, false);
        m_chunkSentTrace(c.src, c.dst, c.bytes);
        const Time ser = port->StartUplink(c.bytes, GetEfficiency(c.kind != Kind::P2P));
        if (m_ff)
        {
            up.lastStart = Simulator::Now();
            up.lastSer = ser;
            up.lastFull = c.bytes == m_chunkBytes;
        }
        Simulator::Schedule(ser, &NvSwitchFabric::UplinkDone, Ptr<NvSwitchFabric>(this), gpu);
        Simulator::Schedule(ser + port->GetLatency(),
                            &NvSwitchFabric::ArriveSwitch,
                            Ptr<NvSwitchFabric>(this),
                            std::move(c));
        return;
    }
    // Nothing eligible: the uplink idles until a credit returns (KickUplinks).
    SetWaiting(gpu, !up.ring.empty());
    if (!up.ring.empty())
    {
        NoteIrregular();
        NS_LOG_LOGIC("GPU " << gpu << ": " << up.ring.size()
                            << " flows wait for egress credits (credit stall)");
    }
}

uint64_t
NvSwitchFabric::ChunkSize(uint64_t bytes, uint32_t index) const
{
    return std::min(m_chunkBytes, bytes - static_cast<uint64_t>(index) * m_chunkBytes);
}

uint32_t
NvSwitchFabric::ChunkCount(uint64_t bytes) const
{
    return static_cast<uint32_t>(bytes / m_chunkBytes + (bytes % m_chunkBytes ? 1 : 0));
}

void
NvSwitchFabric::KickUplinks()
{
    // Uplinks that are busy start their next chunk when they are done; idle ones with
    // no work have nothing to start: only the waiting ones can do anything here.
    for (uint32_t g = 0; g < m_nGpus && m_nWaiting > 0; ++g)
    {
        if (m_uplinks[g].waiting)
        {
            TryStartUplink(g);
        }
    }
}

void
NvSwitchFabric::UplinkDone(uint32_t gpu)
{
    if (m_disposed)
    {
        return;
    }
    m_ports[gpu]->EndUplink();
    TryStartUplink(gpu);
}

void
NvSwitchFabric::ArriveSwitch(Chunk chunk)
{
    if (m_disposed)
    {
        return;
    }
    switch (chunk.kind)
    {
    case Kind::P2P:
        EnqueueDown(chunk.dst, std::move(chunk));
        break;
    case Kind::MCAST:
        MulticastDown(std::move(chunk));
        break;
    case Kind::CONTRIB: {
        SwitchOp& op = m_ops.at(chunk.op);
        if (++op.arrivals[chunk.index] == op.members.size())
        {
            Simulator::Schedule(m_switch->Reduce(chunk.bytes),
                                &NvSwitchFabric::ReduceDone,
                                Ptr<NvSwitchFabric>(this),
                                chunk.op,
                                chunk.index);
        }
        break;
    }
    default:
        NS_ABORT_MSG("NvSwitchFabric: unexpected chunk kind at the switch");
    }
}

void
NvSwitchFabric::ReduceDone(uint64_t opId, uint32_t index)
{
    if (m_disposed)
    {
        return;
    }
    const SwitchOp& op = m_ops.at(opId);
    EnqueueDown(op.owner,
                Chunk{Kind::RESULT,
                      op.owner,
                      op.owner,
                      ChunkSize(op.bytes, index),
                      opId,
                      index,
                      true,
                      DoneCallback()});
}

void
NvSwitchFabric::EnqueueDown(uint32_t port, Chunk chunk)
{
    // The chunk reaches the GPU one hop of the receiver's link after it has left the
    // switch; the egress credit it held reaches its sender one hop of the sender's link
    // after that. With equal links (the usual case) both happen in one event.
    if (m_ff && m_ports[port]->IsDownlinkBusy())
    {
        NoteIrregular();
    }
    const Time leave =
        m_ports[port]->QueueDownlink(chunk.bytes, GetEfficiency(chunk.kind != Kind::P2P));
    const Time toReceiver = m_ports[port]->GetLatency();
    const bool holdsCredit = chunk.kind == Kind::P2P || chunk.kind == Kind::MCAST;
    const Time toSender = holdsCredit ? m_ports[chunk.src]->GetLatency() : toReceiver;
    const bool together = holdsCredit && toSender == toReceiver;
    if (holdsCredit && !together)
    {
        Simulator::Schedule(leave + toSender,
                            &NvSwitchFabric::CreditBack,
                            Ptr<NvSwitchFabric>(this),
                            port);
    }
    Simulator::Schedule(leave + toReceiver,
                        &NvSwitchFabric::AfterDown,
                        Ptr<NvSwitchFabric>(this),
                        port,
                        std::move(chunk),
                        together);
}

void
NvSwitchFabric::MulticastDown(Chunk chunk)
{
    // EnqueueDown for every member, in member order. When every copy's credit returns
    // with the copy (equal link latencies, the usual case), the copies that reach their
    // GPUs at the same time are delivered by one event, in member order: events due at the
    // same time run in the order they were scheduled, so nothing could run between the
    // separate events, and what they schedule runs after the last of them.
    const std::vector<uint32_t>& members = m_ops.at(chunk.op).members;
    const Time toSender = m_ports[chunk.src]->GetLatency();
    if (!std::all_of(members.begin(), members.end(), [this, toSender](uint32_t g) {
            return m_ports[g]->GetLatency() == toSender;
        }))
    {
        for (uint32_t g : members)
        {
            Chunk copy = chunk;
            copy.dst = g;
            EnqueueDown(g, std::move(copy));
        }
        return;
    }
    // Group the members by arrival, each group in member order.
    const double efficiency = GetEfficiency(true);
    std::vector<std::pair<Time, std::vector<uint32_t>>> groups;
    for (uint32_t g : members)
    {
        const Time at = m_ports[g]->QueueDownlink(chunk.bytes, efficiency) + toSender;
        auto it = std::find_if(groups.begin(), groups.end(), [at](const auto& group) {
            return group.first == at;
        });
        if (it == groups.end())
        {
            groups.emplace_back(at, std::vector<uint32_t>{g});
        }
        else
        {
            it->second.push_back(g);
        }
    }
    NS_LOG_LOGIC("multicast chunk of op " << chunk.op << ": " << members.size()
                                          << " copies arrive at " << groups.size() << " times");
    for (auto& [at, gpus] : groups)
    {
        Simulator::Schedule(at,
                            &NvSwitchFabric::AfterMulticastDown,
                            Ptr<NvSwitchFabric>(this),
                            chunk,
                            std::move(gpus));
    }
}

void
NvSwitchFabric::AfterMulticastDown(Chunk chunk, std::vector<uint32_t> gpus)
{
    for (uint32_t g : gpus)
    {
        if (m_disposed)
        {
            return; // a completion callback tore the fabric down
        }
        Chunk copy = chunk;
        copy.dst = g;
        AfterDown(g, std::move(copy), true);
    }
}

void
NvSwitchFabric::CreditBack(uint32_t port)
{
    if (m_disposed)
    {
        return;
    }
    NS_LOG_LOGIC("credit of port " << port << " back at its senders");
    m_switch->ReturnCredit(port);
    KickUplinks();
}

void
NvSwitchFabric::AfterDown(uint32_t port, Chunk chunk, bool returnCredit)
{
    if (m_disposed)
    {
        return;
    }
    ++m_chunksDelivered;
    m_chunkDeliveredTrace(chunk.src, port, chunk.bytes);
    switch (chunk.kind)
    {
    case Kind::P2P:
        if (returnCredit)
        {
            m_switch->ReturnCredit(port);
        }
        m_bytesDelivered += chunk.bytes;
        if (chunk.last)
        {
            NS_LOG_DEBUG("GPU " << chunk.src << " -> " << port << ": transfer complete");
            ++m_transfersDone;
            NoteDrained();
            if (!chunk.done.IsNull())
            {
                chunk.done();
            }
        }
        break;
    case Kind::RESULT:
        // The owner holds the reduced chunk: its reduction slot is free again.
        m_switch->ReleaseReductionSlot(port);
        FinishSwitchChunk(chunk.op);
        if (!m_disposed)
        {
            IssueReductions(port);
        }
        break;
    case Kind::MCAST:
        if (returnCredit)
        {
            m_switch->ReturnCredit(port);
        }
        FinishSwitchChunk(chunk.op);
        break;
    default:
        NS_ABORT_MSG("NvSwitchFabric: unexpected chunk kind at a GPU");
    }
    if (m_disposed)
    {
        return; // a completion callback tore the fabric down
    }
    KickUplinks();
}

uint64_t
NvSwitchFabric::GetChunksDelivered() const
{
    return m_chunksDelivered + SkippedSoFar();
}

uint64_t
NvSwitchFabric::GetBytesDelivered() const
{
    return m_bytesDelivered + SkippedSoFar() * m_chunkBytes;
}

uint64_t
NvSwitchFabric::GetTransfersInFlight() const
{
    return m_transfersSent - m_transfersDone + m_switchOpsStarted - m_switchOpsDone;
}

uint32_t
NvSwitchFabric::GetMaxEgressOccupancy() const
{
    return m_switch ? m_switch->GetMaxEgressOccupancy() : 0;
}

uint64_t
NvSwitchFabric::GetChunkBytes() const
{
    return m_chunkBytes;
}

} // namespace ns3
