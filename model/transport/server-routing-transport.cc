// SPDX-License-Identifier: GPL-2.0-only
#include "server-routing-transport.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ServerRoutingTransport");

NS_OBJECT_ENSURE_REGISTERED(ServerRoutingTransport);

TypeId
ServerRoutingTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ServerRoutingTransport")
                            .SetParent<CollectiveTransport>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<ServerRoutingTransport>();
    return tid;
}

ServerRoutingTransport::ServerRoutingTransport()
{
    NS_LOG_FUNCTION(this);
}

ServerRoutingTransport::~ServerRoutingTransport()
{
    NS_LOG_FUNCTION(this);
}

void
ServerRoutingTransport::SetGroup(const CommGroup& group, Ptr<CollectiveTransport> scaleOut)
{
    // Ranks pass through unchanged, so the scale-out carrier must number exactly the
    // group's ranks (a sub-group needs a carrier built for it).
    NS_ABORT_MSG_IF(scaleOut && scaleOut->GetNRanks() != group.GetSize(),
                    "ServerRoutingTransport::Setup: the group has "
                        << group.GetSize() << " ranks but the scale-out carrier connects "
                        << scaleOut->GetNRanks());
    m_group = group;
    m_scaleOut = scaleOut;
}

void
ServerRoutingTransport::Setup(const CommGroup& group,
                              const std::vector<Ptr<CollectiveTransport>>& scaleUp,
                              Ptr<CollectiveTransport> scaleOut)
{
    NS_LOG_FUNCTION(this << scaleUp.size() << scaleOut);
    NS_ABORT_MSG_IF(scaleUp.size() != group.GetNServers(),
                    "ServerRoutingTransport::Setup: " << scaleUp.size() << " scale-up carriers for "
                                                      << group.GetNServers() << " servers");
    SetGroup(group, scaleOut);
    m_scaleUp = scaleUp;
    m_sharedScaleUp = false;
    // Server ids may be sparse (a sub-group keeps the cluster's numbers): carrier i
    // serves the i-th server of the group.
    m_carrierOfServer.clear();
    const std::vector<uint32_t> ids = group.GetServers();
    for (uint32_t i = 0; i < ids.size(); ++i)
    {
        // A server of one rank (a CPU host) never talks to itself: it needs no carrier.
        NS_ABORT_MSG_IF(!scaleUp[i] && group.GetRanksOnServer(ids[i]).size() > 1,
                        "ServerRoutingTransport::Setup: server " << ids[i]
                                                                 << " has no scale-up carrier");
        m_carrierOfServer[ids[i]] = i;
        if (!scaleUp[i])
        {
            continue;
        }
        for (uint32_t rank : group.GetRanksOnServer(ids[i]))
        {
            NS_ABORT_MSG_IF(group.GetLocalIndex(rank) >= scaleUp[i]->GetNRanks(),
                            "ServerRoutingTransport::Setup: rank "
                                << rank << " is GPU " << group.GetLocalIndex(rank) << " of server "
                                << ids[i] << ", whose carrier has " << scaleUp[i]->GetNRanks()
                                << " GPUs");
        }
    }
}

void
ServerRoutingTransport::SetupShared(const CommGroup& group,
                                    Ptr<CollectiveTransport> scaleUp,
                                    Ptr<CollectiveTransport> scaleOut)
{
    NS_LOG_FUNCTION(this << scaleUp << scaleOut);
    NS_ABORT_MSG_IF(!scaleUp, "ServerRoutingTransport::SetupShared: no scale-up carrier");
    NS_ABORT_MSG_IF(scaleUp->GetNRanks() != group.GetSize(),
                    "ServerRoutingTransport::SetupShared: the group has "
                        << group.GetSize() << " ranks but the shared scale-up carrier connects "
                        << scaleUp->GetNRanks());
    SetGroup(group, scaleOut);
    m_scaleUp = {scaleUp};
    m_sharedScaleUp = true;
    m_carrierOfServer.clear();
}

uint32_t
ServerRoutingTransport::CarrierIndex(uint32_t rank) const
{
    return m_sharedScaleUp ? 0 : m_carrierOfServer.at(m_group.GetServer(rank));
}

uint32_t
ServerRoutingTransport::CarrierRank(uint32_t rank) const
{
    return m_sharedScaleUp ? rank : m_group.GetLocalIndex(rank);
}

uint64_t
ServerRoutingTransport::ScaleUpPort(uint32_t index, uint64_t port) const
{
    return 2 * (port * m_scaleUp.size() + index);
}

ServerRoutingTransport::ScaleUpHop
ServerRoutingTransport::ScaleUp(const std::vector<uint32_t>& ranks) const
{
    ScaleUpHop hop;
    const uint32_t n = m_group.GetSize();
    if (ranks.empty() || m_scaleUp.empty() ||
        std::any_of(ranks.begin(), ranks.end(), [&](uint32_t r) {
            return r >= n || !m_group.SameServer(ranks[0], r);
        }))
    {
        return hop;
    }
    hop.index = CarrierIndex(ranks[0]);
    hop.carrier = m_scaleUp[hop.index];
    if (!hop.carrier)
    {
        return hop; // a host without a scale-up carrier
    }
    for (uint32_t r : ranks)
    {
        hop.ranks.push_back(CarrierRank(r));
    }
    return hop;
}

void
ServerRoutingTransport::Send(uint32_t src,
                             uint32_t dst,
                             uint64_t bytes,
                             uint32_t channel,
                             DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << dst << bytes << channel);
    NS_ABORT_MSG_IF(m_scaleUp.empty(), "ServerRoutingTransport::Send before Setup");
    NS_ABORT_MSG_IF(src >= m_group.GetSize() || dst >= m_group.GetSize(),
                    "ServerRoutingTransport::Send: rank " << std::max(src, dst) << " of "
                                                          << m_group.GetSize());
    if (m_group.SameServer(src, dst))
    {
        const uint32_t index = CarrierIndex(src);
        NS_LOG_LOGIC("rank " << src << " -> " << dst << ", " << bytes << " B: scale-up (server "
                             << m_group.GetServer(src) << ")");
        m_intraBytes += bytes;
        m_scaleUp[index]->Send(CarrierRank(src), CarrierRank(dst), bytes, channel, done);
        return;
    }
    NS_ABORT_MSG_IF(!m_scaleOut,
                    "ServerRoutingTransport::Send: ranks "
                        << src << " and " << dst
                        << " are on different servers and there is no scale-out carrier");
    NS_LOG_LOGIC("rank " << src << " -> " << dst << ", " << bytes << " B: scale-out (server "
                         << m_group.GetServer(src) << " -> " << m_group.GetServer(dst) << ")");
    m_interBytes += bytes;
    m_scaleOut->Send(src, dst, bytes, channel, done);
}

Ptr<CollectiveTransport>
ServerRoutingTransport::GetIsolatedCarrier(const std::vector<uint32_t>& ranks) const
{
    if (m_sharedScaleUp)
    {
        return nullptr; // one carrier for every server: not isolated
    }
    const ScaleUpHop hop = ScaleUp(ranks);
    return hop.carrier ? hop.carrier->GetIsolatedCarrier(hop.ranks) : nullptr;
}

bool
ServerRoutingTransport::CanReduceInSwitch(const std::vector<uint32_t>& members) const
{
    const ScaleUpHop hop = ScaleUp(members);
    const bool can = hop.carrier && hop.carrier->CanReduceInSwitch(hop.ranks);
    NS_LOG_LOGIC(members.size() << " ranks: " << (can ? "" : "no ") << "switch reduction");
    return can;
}

void
ServerRoutingTransport::SwitchReduce(const std::vector<uint32_t>& members,
                                     uint32_t dst,
                                     uint64_t bytes,
                                     uint32_t channel,
                                     DoneCallback done)
{
    NS_LOG_FUNCTION(this << members.size() << dst << bytes << channel);
    const ScaleUpHop hop = ScaleUp(members);
    NS_ABORT_MSG_IF(!hop.carrier || dst >= m_group.GetSize() ||
                        !m_group.SameServer(members[0], dst) ||
                        !hop.carrier->CanReduceInSwitch(hop.ranks),
                    "ServerRoutingTransport::SwitchReduce: the "
                        << members.size() << " ranks and rank " << dst
                        << " do not share one server that reduces in its switch");
    m_intraBytes += bytes * members.size();
    hop.carrier->SwitchReduce(hop.ranks, CarrierRank(dst), bytes, channel, done);
}

void
ServerRoutingTransport::SwitchMulticast(uint32_t src,
                                        const std::vector<uint32_t>& members,
                                        uint64_t bytes,
                                        uint32_t channel,
                                        DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << members.size() << bytes << channel);
    const ScaleUpHop hop = ScaleUp(members);
    NS_ABORT_MSG_IF(!hop.carrier || src >= m_group.GetSize() ||
                        !m_group.SameServer(members[0], src) ||
                        !hop.carrier->CanReduceInSwitch(hop.ranks),
                    "ServerRoutingTransport::SwitchMulticast: the "
                        << members.size() << " ranks and rank " << src
                        << " do not share one server that multicasts in its switch");
    m_intraBytes += bytes;
    hop.carrier->SwitchMulticast(CarrierRank(src), hop.ranks, bytes, channel, done);
}

bool
ServerRoutingTransport::CanAllReduceInNetwork(const std::vector<uint32_t>& members) const
{
    const bool can = AcrossServers(members) && m_scaleOut->CanAllReduceInNetwork(members);
    NS_LOG_LOGIC(members.size() << " ranks: " << (can ? "" : "no ") << "in-network all-reduce");
    return can;
}

void
ServerRoutingTransport::SwitchAllReduce(const std::vector<uint32_t>& members,
                                        uint64_t bytes,
                                        uint32_t channel,
                                        DoneCallback done)
{
    NS_LOG_FUNCTION(this << members.size() << bytes << channel);
    NS_ABORT_MSG_IF(!CanAllReduceInNetwork(members),
                    "ServerRoutingTransport::SwitchAllReduce: the scale-out carrier does not "
                    "aggregate these "
                        << members.size() << " ranks in the network");
    m_interBytes += bytes * members.size();
    m_scaleOut->SwitchAllReduce(members, bytes, channel, done);
}

bool
ServerRoutingTransport::AcrossServers(const std::vector<uint32_t>& members) const
{
    // Ranks that share a server have their NVSwitch: aggregation trees of the scale-out
    // fabric are for groups across servers (as NCCL uses SHARP for inter-node only).
    return !members.empty() && !ScaleUp(members).carrier && m_scaleOut;
}

bool
ServerRoutingTransport::CanReduceInNetwork(const std::vector<uint32_t>& members) const
{
    const bool can = AcrossServers(members) && m_scaleOut->CanReduceInNetwork(members);
    NS_LOG_LOGIC(members.size() << " ranks: " << (can ? "" : "no ")
                                << "in-network reduce and multicast");
    return can;
}

void
ServerRoutingTransport::NetworkReduce(const std::vector<uint32_t>& members,
                                      uint32_t dst,
                                      uint64_t bytes,
                                      uint32_t channel,
                                      DoneCallback done)
{
    NS_LOG_FUNCTION(this << members.size() << dst << bytes << channel);
    NS_ABORT_MSG_IF(!CanReduceInNetwork(members),
                    "ServerRoutingTransport::NetworkReduce: the scale-out carrier does not "
                    "reduce these "
                        << members.size() << " ranks in the network");
    m_interBytes += bytes * members.size();
    m_scaleOut->NetworkReduce(members, dst, bytes, channel, done);
}

void
ServerRoutingTransport::NetworkMulticast(uint32_t src,
                                         const std::vector<uint32_t>& members,
                                         uint64_t bytes,
                                         uint32_t channel,
                                         DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << members.size() << bytes << channel);
    NS_ABORT_MSG_IF(!CanReduceInNetwork(members),
                    "ServerRoutingTransport::NetworkMulticast: the scale-out carrier does not "
                    "multicast to these "
                        << members.size() << " ranks in the network");
    m_interBytes += bytes;
    m_scaleOut->NetworkMulticast(src, members, bytes, channel, done);
}

uint32_t
ServerRoutingTransport::GetNRanks() const
{
    return m_group.GetSize();
}

uint64_t
ServerRoutingTransport::GetIntraServerBytes() const
{
    return m_intraBytes;
}

uint64_t
ServerRoutingTransport::GetInterServerBytes() const
{
    return m_interBytes;
}

void
ServerRoutingTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    // The carriers belong to whoever built them (GpuCluster keeps its fabrics): only let go.
    m_scaleUp.clear();
    m_carrierOfServer.clear();
    m_scaleOut = nullptr;
    CollectiveTransport::DoDispose();
}

uint32_t
ServerRoutingTransport::GetComputeCapability() const
{
    NS_ABORT_MSG_IF(m_scaleUp.empty(), "ServerRoutingTransport::GetComputeCapability before Setup");
    return m_scaleUp.front()->GetComputeCapability();
}

LinkHardware
ServerRoutingTransport::GetLinkHardware(uint32_t src, uint32_t dst) const
{
    NS_ABORT_MSG_IF(m_scaleUp.empty(), "ServerRoutingTransport::GetLinkHardware before Setup");
    if (m_group.SameServer(src, dst))
    {
        return m_scaleUp[CarrierIndex(src)]->GetLinkHardware(CarrierRank(src), CarrierRank(dst));
    }
    return m_scaleOut ? m_scaleOut->GetLinkHardware(src, dst) : LinkHardware::NET;
}

CarrierPath
ServerRoutingTransport::DescribePath(uint32_t src, uint32_t dst) const
{
    NS_ABORT_MSG_IF(m_scaleUp.empty(), "ServerRoutingTransport::DescribePath before Setup");
    NS_ABORT_MSG_IF(src >= m_group.GetSize() || dst >= m_group.GetSize(),
                    "ServerRoutingTransport::DescribePath: rank " << std::max(src, dst) << " of "
                                                                  << m_group.GetSize());
    if (m_group.SameServer(src, dst))
    {
        const uint32_t index = CarrierIndex(src);
        CarrierPath path = m_scaleUp[index]->DescribePath(CarrierRank(src), CarrierRank(dst));
        path.txPort = ScaleUpPort(index, path.txPort);
        path.rxPort = ScaleUpPort(index, path.rxPort);
        return path;
    }
    NS_ABORT_MSG_IF(!m_scaleOut,
                    "ServerRoutingTransport::DescribePath: ranks "
                        << src << " and " << dst
                        << " are on different servers and there is no scale-out carrier");
    CarrierPath path = m_scaleOut->DescribePath(src, dst);
    path.txPort = 2 * path.txPort + 1;
    path.rxPort = 2 * path.rxPort + 1;
    return path;
}

CarrierSwitchPath
ServerRoutingTransport::DescribeSwitchPath(const std::vector<uint32_t>& members) const
{
    const ScaleUpHop hop = ScaleUp(members);
    if (!hop.carrier && (CanAllReduceInNetwork(members) || CanReduceInNetwork(members)))
    {
        // An aggregation tree of the scale-out fabric: its NIC ports.
        CarrierSwitchPath sw = m_scaleOut->DescribeSwitchPath(members);
        for (auto* ports : {&sw.txPorts, &sw.rxPorts})
        {
            for (auto& p : *ports)
            {
                p = 2 * p + 1;
            }
        }
        return sw;
    }
    NS_ABORT_MSG_IF(!hop.carrier,
                    "ServerRoutingTransport::DescribeSwitchPath: the "
                        << members.size()
                        << " ranks are not all on one server, and the scale-out carrier does "
                           "not aggregate them");
    CarrierSwitchPath sw = hop.carrier->DescribeSwitchPath(hop.ranks);
    for (auto* ports : {&sw.txPorts, &sw.rxPorts})
    {
        for (auto& p : *ports)
        {
            p = ScaleUpPort(hop.index, p);
        }
    }
    sw.engine = ScaleUpPort(hop.index, sw.engine);
    return sw;
}

} // namespace ns3
