// SPDX-License-Identifier: GPL-2.0-only
#include "rank-map-transport.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RankMapTransport");
NS_OBJECT_ENSURE_REGISTERED(RankMapTransport);

TypeId
RankMapTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RankMapTransport")
                            .SetParent<CollectiveTransport>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RankMapTransport>();
    return tid;
}

RankMapTransport::RankMapTransport() = default;
RankMapTransport::~RankMapTransport() = default;

void
RankMapTransport::DoDispose()
{
    m_carrier = nullptr;
    CollectiveTransport::DoDispose();
}

void
RankMapTransport::Setup(Ptr<CollectiveTransport> carrier, const std::vector<uint32_t>& ranks)
{
    NS_LOG_FUNCTION(this << carrier << ranks.size());
    NS_ABORT_MSG_IF(!carrier, "RankMapTransport::Setup: no carrier");
    std::set<uint32_t> seen;
    for (uint32_t r : ranks)
    {
        NS_ABORT_MSG_IF(r >= carrier->GetNRanks(),
                        "RankMapTransport::Setup: rank " << r << " of a carrier of "
                                                         << carrier->GetNRanks());
        NS_ABORT_MSG_IF(!seen.insert(r).second,
                        "RankMapTransport::Setup: carrier rank " << r << " given twice");
    }
    m_carrier = carrier;
    m_ranks = ranks;
}

const std::vector<uint32_t>&
RankMapTransport::GetRanks() const
{
    return m_ranks;
}

Ptr<CollectiveTransport>
RankMapTransport::GetCarrier() const
{
    return m_carrier;
}

uint32_t
RankMapTransport::Map(uint32_t rank) const
{
    NS_ABORT_MSG_IF(rank >= m_ranks.size(),
                    "RankMapTransport: rank " << rank << " of " << m_ranks.size());
    return m_ranks[rank];
}

std::vector<uint32_t>
RankMapTransport::Map(const std::vector<uint32_t>& members) const
{
    std::vector<uint32_t> out;
    out.reserve(members.size());
    for (uint32_t m : members)
    {
        out.push_back(Map(m));
    }
    return out;
}

void
RankMapTransport::Send(uint32_t src,
                       uint32_t dst,
                       uint64_t bytes,
                       uint32_t channel,
                       DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << dst << bytes << channel);
    m_carrier->Send(Map(src), Map(dst), bytes, channel, done);
}

uint32_t
RankMapTransport::GetNRanks() const
{
    return static_cast<uint32_t>(m_ranks.size());
}

Ptr<CollectiveTransport>
RankMapTransport::GetIsolatedCarrier(const std::vector<uint32_t>& ranks) const
{
    return m_carrier->GetIsolatedCarrier(Map(ranks));
}

bool
RankMapTransport::CanReduceInSwitch(const std::vector<uint32_t>& members) const
{
    return m_carrier->CanReduceInSwitch(Map(members));
}

void
RankMapTransport::SwitchReduce(const std::vector<uint32_t>& members,
                               uint32_t dst,
                               uint64_t bytes,
                               uint32_t channel,
                               DoneCallback done)
{
    m_carrier->SwitchReduce(Map(members), Map(dst), bytes, channel, done);
}

void
RankMapTransport::SwitchMulticast(uint32_t src,
                                  const std::vector<uint32_t>& members,
                                  uint64_t bytes,
                                  uint32_t channel,
                                  DoneCallback done)
{
    m_carrier->SwitchMulticast(Map(src), Map(members), bytes, channel, done);
}

bool
RankMapTransport::CanAllReduceInNetwork(const std::vector<uint32_t>& members) const
{
    return m_carrier->CanAllReduceInNetwork(Map(members));
}

void
RankMapTransport::SwitchAllReduce(const std::vector<uint32_t>& members,
                                  uint64_t bytes,
                                  uint32_t channel,
                                  DoneCallback done)
{
    m_carrier->SwitchAllReduce(Map(members), bytes, channel, done);
}

bool
RankMapTransport::CanReduceInNetwork(const std::vector<uint32_t>& members) const
{
    return m_carrier->CanReduceInNetwork(Map(members));
}

void
RankMapTransport::NetworkReduce(const std::vector<uint32_t>& members,
                                uint32_t dst,
                                uint64_t bytes,
                                uint32_t channel,
                                DoneCallback done)
{
    m_carrier->NetworkReduce(Map(members), Map(dst), bytes, channel, done);
}

void
RankMapTransport::NetworkMulticast(uint32_t src,
                                   const std::vector<uint32_t>& members,
                                   uint64_t bytes,
                                   uint32_t channel,
                                   DoneCallback done)
{
    m_carrier->NetworkMulticast(Map(src), Map(members), bytes, channel, done);
}

CarrierPath
RankMapTransport::DescribePath(uint32_t src, uint32_t dst) const
{
    return m_carrier->DescribePath(Map(src), Map(dst));
}

LinkHardware
RankMapTransport::GetLinkHardware(uint32_t src, uint32_t dst) const
{
    return m_carrier->GetLinkHardware(Map(src), Map(dst));
}

uint32_t
RankMapTransport::GetComputeCapability() const
{
    return m_carrier->GetComputeCapability();
}

CarrierSwitchPath
RankMapTransport::DescribeSwitchPath(const std::vector<uint32_t>& members) const
{
    return m_carrier->DescribeSwitchPath(Map(members));
}

} // namespace ns3
