// SPDX-License-Identifier: GPL-2.0-only
// NvSwitchFabric's NVLS operations: switch reductions and multicasts (the chunk path they
// share with point-to-point transfers is in nv-switch-fabric.cc). The class has one log
// component, "NvSwitchFabric", defined in nv-switch-fabric.cc; functions here that log reach
// it through NS_LOG_STATIC_TEMPLATE_DEFINE (a name can be defined only once).
#include "nv-switch-fabric.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

void
NvSwitchFabric::FinishSwitchChunk(uint64_t opId)
{
    auto it = m_ops.find(opId);
    if (--it->second.left > 0)
    {
        return;
    }
    NS_LOG_STATIC_TEMPLATE_DEFINE("NvSwitchFabric");
    NS_LOG_DEBUG("switch operation " << opId << " of GPU " << it->second.owner << ", "
                                     << it->second.bytes << " B: complete");
    DoneCallback done = std::move(it->second.done);
    m_ops.erase(it);
    ++m_switchOpsDone;
    NoteChange(); // the fast-forward may find a periodic state without it
    NoteDrained();
    if (!done.IsNull())
    {
        done();
    }
}

void
NvSwitchFabric::IssueReductions(uint32_t owner)
{
    // The owner asks for its next chunks (ld_reduce) while it has reduction slots, in
    // the order its reductions were posted; every member then pushes its contribution,
    // in issue order on its one contribution flow.
    std::deque<uint64_t>& queue = m_reduceQueue[owner];
    while (m_switch->HasReductionSlot(owner) && !queue.empty())
    {
        SwitchOp& op = m_ops.at(queue.front());
        m_switch->TakeReductionSlot(owner);
        const uint32_t index = op.next++;
        for (uint32_t g : op.members)
        {
            AddJob(g,
                   FlowKey{KEY_CONTRIB, 0, 0},
                   Job{Kind::CONTRIB, ANY, 0, queue.front(), index, DoneCallback()});
        }
        if (op.next == op.arrivals.size())
        {
            queue.pop_front();
        }
    }
}

void
NvSwitchFabric::CheckMembers(const char* what, const std::vector<uint32_t>& members) const
{
    NS_ABORT_MSG_IF(m_disposed, "NvSwitchFabric::" << what << ": the fabric has been disposed");
    NS_ABORT_MSG_IF(!m_nvlsSupported,
                    "NvSwitchFabric::" << what
                                       << ": this switch has no NVLS (NvlsSupported is false)");
    NS_ABORT_MSG_IF(members.empty(), "NvSwitchFabric::" << what << ": no members");
    std::vector<bool> seen(m_nGpus, false);
    for (uint32_t g : members)
    {
        NS_ABORT_MSG_IF(g >= m_nGpus,
                        "NvSwitchFabric::" << what << ": GPU " << g << " is out of range (NGpus is "
                                           << m_nGpus << ")");
        NS_ABORT_MSG_IF(seen[g], "NvSwitchFabric::" << what << ": GPU " << g << " listed twice");
        seen[g] = true;
    }
}

bool
NvSwitchFabric::CanReduceInSwitch(const std::vector<uint32_t>& members) const
{
    NS_LOG_STATIC_TEMPLATE_DEFINE("NvSwitchFabric");
    if (!m_nvlsSupported)
    {
        NS_LOG_LOGIC("no NVLS on this switch (NvlsSupported false)");
        return false;
    }
    if (members.size() < 2)
    {
        return false; // one GPU has nothing to reduce; a switch round trip would be waste
    }
    std::vector<bool> seen(m_nGpus, false);
    for (uint32_t g : members)
    {
        if (g >= m_nGpus || seen[g])
        {
            return false;
        }
        seen[g] = true;
    }
    return true;
}

uint64_t
NvSwitchFabric::NewSwitchOp(Kind kind,
                            const std::vector<uint32_t>& members,
                            uint32_t owner,
                            uint64_t bytes,
                            DoneCallback done)
{
    NoteChange();
    const uint64_t id = m_nextOp++;
    SwitchOp& op = m_ops[id];
    op.members = members;
    op.owner = owner;
    op.bytes = bytes;
    op.done = std::move(done);
    const uint32_t chunks = ChunkCount(bytes);
    if (kind == Kind::CONTRIB)
    {
        op.arrivals.assign(chunks, 0);
        op.left = chunks;
    }
    else
    {
        op.left = static_cast<uint64_t>(chunks) * members.size();
    }
    ++m_switchOpsStarted;
    return id;
}

void
NvSwitchFabric::SwitchReduce(const std::vector<uint32_t>& members,
                             uint32_t dst,
                             uint64_t bytes,
                             uint32_t channel,
                             DoneCallback done)
{
    NS_LOG_STATIC_TEMPLATE_DEFINE("NvSwitchFabric");
    NS_LOG_FUNCTION(this << members.size() << dst << bytes << channel);
    CheckMembers("SwitchReduce", members);
    NS_ABORT_MSG_IF(dst >= m_nGpus,
                    "NvSwitchFabric::SwitchReduce: GPU " << dst << " is out of range (NGpus is "
                                                         << m_nGpus << ")");
    NotePost();
    if (bytes == 0)
    {
        // Nothing to reduce: the request and the empty answer still cross the switch.
        ++m_emptyOpsInFlight;
        Simulator::Schedule(2 * m_ports[dst]->GetLatency(),
                            &NvSwitchFabric::RunDone,
                            Ptr<NvSwitchFabric>(this),
                            done);
        return;
    }
    const uint64_t id = NewSwitchOp(Kind::CONTRIB, members, dst, bytes, std::move(done));
    NS_LOG_LOGIC("NVLS reduction " << id << ": " << members.size() << " GPUs into GPU " << dst
                                   << ", " << ChunkCount(bytes) << " chunks");
    m_reduceQueue[dst].push_back(id);
    IssueReductions(dst);
    KickUplinks();
}

void
NvSwitchFabric::SwitchMulticast(uint32_t src,
                                const std::vector<uint32_t>& members,
                                uint64_t bytes,
                                uint32_t channel,
                                DoneCallback done)
{
    NS_LOG_STATIC_TEMPLATE_DEFINE("NvSwitchFabric");
    NS_LOG_FUNCTION(this << src << members.size() << bytes << channel);
    CheckMembers("SwitchMulticast", members);
    NS_ABORT_MSG_IF(src >= m_nGpus,
                    "NvSwitchFabric::SwitchMulticast: GPU " << src << " is out of range (NGpus is "
                                                            << m_nGpus << ")");
    NotePost();
    if (bytes == 0)
    {
        // Up the source's link, down the slowest member's.
        Time down;
        for (uint32_t g : members)
        {
            down = std::max(down, m_ports[g]->GetLatency());
        }
        ++m_emptyOpsInFlight;
        Simulator::Schedule(m_ports[src]->GetLatency() + down,
                            &NvSwitchFabric::RunDone,
                            Ptr<NvSwitchFabric>(this),
                            done);
        return;
    }
    const uint64_t id = NewSwitchOp(Kind::MCAST, members, src, bytes, std::move(done));
    NS_LOG_LOGIC("NVLS multicast " << id << ": GPU " << src << " to " << members.size() << " GPUs, "
                                   << ChunkCount(bytes) << " chunks");
    // One multicast flow per source: its multicasts leave in the order they were posted.
    AddJob(src, FlowKey{KEY_MCAST, 0, 0}, Job{Kind::MCAST, ANY, bytes, id, 0, DoneCallback()});
    TryStartUplink(src);
}

void
NvSwitchFabric::RunDone(DoneCallback done)
{
    --m_emptyOpsInFlight;
    NoteDrained();
    if (!m_disposed && !done.IsNull())
    {
        done();
    }
}

} // namespace ns3
