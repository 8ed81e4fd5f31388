// SPDX-License-Identifier: GPL-2.0-only
#include "server-aware-transport.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ServerAwareTransport);

TypeId
ServerAwareTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ServerAwareTransport")
                            .SetParent<CollectiveTransport>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<ServerAwareTransport>();
    return tid;
}

void
ServerAwareTransport::Setup(const CommGroup& group,
                            Ptr<CollectiveTransport> intraServer,
                            Ptr<CollectiveTransport> interServer)
{
    NS_ABORT_MSG_IF(!intraServer || !interServer,
                    "ServerAwareTransport::Setup: both carriers are needed");
    // Ranks pass through unchanged, so both carriers must number exactly the group's
    // ranks (a sub-group needs carriers built for it).
    NS_ABORT_MSG_IF(
        intraServer->GetNRanks() != group.GetSize() || interServer->GetNRanks() != group.GetSize(),
        "ServerAwareTransport::Setup: the group has "
            << group.GetSize() << " ranks but the carriers connect " << intraServer->GetNRanks()
            << " (intra-server) and " << interServer->GetNRanks() << " (inter-server)");
    m_group = group;
    m_intra = intraServer;
    m_inter = interServer;
}

void
ServerAwareTransport::Send(uint32_t src,
                           uint32_t dst,
                           uint64_t bytes,
                           uint32_t channel,
                           DoneCallback done)
{
    NS_ABORT_MSG_IF(!m_intra, "ServerAwareTransport::Send before Setup");
    if (m_group.SameServer(src, dst))
    {
        m_intraBytes += bytes;
        m_intra->Send(src, dst, bytes, channel, done);
    }
    else
    {
        m_interBytes += bytes;
        m_inter->Send(src, dst, bytes, channel, done);
    }
}

bool
ServerAwareTransport::OneServer(const std::vector<uint32_t>& members) const
{
    const uint32_t n = m_group.GetSize();
    return !members.empty() && std::all_of(members.begin(), members.end(), [&](uint32_t r) {
        return r < n && members[0] < n && m_group.SameServer(members[0], r);
    });
}

bool
ServerAwareTransport::CanReduceInSwitch(const std::vector<uint32_t>& members) const
{
    return m_intra && OneServer(members) && m_intra->CanReduceInSwitch(members);
}

void
ServerAwareTransport::SwitchReduce(const std::vector<uint32_t>& members,
                                   uint32_t dst,
                                   uint64_t bytes,
                                   uint32_t channel,
                                   DoneCallback done)
{
    NS_ABORT_MSG_IF(!CanReduceInSwitch(members),
                    "ServerAwareTransport::SwitchReduce: the "
                        << members.size()
                        << " ranks do not share one server that reduces in its switch");
    m_intraBytes += bytes * members.size();
    m_intra->SwitchReduce(members, dst, bytes, channel, done);
}

void
ServerAwareTransport::SwitchMulticast(uint32_t src,
                                      const std::vector<uint32_t>& members,
                                      uint64_t bytes,
                                      uint32_t channel,
                                      DoneCallback done)
{
    NS_ABORT_MSG_IF(!CanReduceInSwitch(members),
                    "ServerAwareTransport::SwitchMulticast: the "
                        << members.size()
                        << " ranks do not share one server that multicasts in its switch");
    m_intraBytes += bytes;
    m_intra->SwitchMulticast(src, members, bytes, channel, done);
}

uint32_t
ServerAwareTransport::GetNRanks() const
{
    return m_group.GetSize();
}

uint64_t
ServerAwareTransport::GetIntraServerBytes() const
{
    return m_intraBytes;
}

uint64_t
ServerAwareTransport::GetInterServerBytes() const
{
    return m_interBytes;
}

void
ServerAwareTransport::DoDispose()
{
    m_intra = nullptr;
    m_inter = nullptr;
    CollectiveTransport::DoDispose();
}

CarrierPath
ServerAwareTransport::DescribePath(uint32_t src, uint32_t dst) const
{
    NS_ABORT_MSG_IF(!m_intra, "ServerAwareTransport::DescribePath before Setup");
    const bool intra = m_group.SameServer(src, dst);
    CarrierPath path = (intra ? m_intra : m_inter)->DescribePath(src, dst);
    path.txPort = 2 * path.txPort + (intra ? 0 : 1);
    path.rxPort = 2 * path.rxPort + (intra ? 0 : 1);
    return path;
}

CarrierSwitchPath
ServerAwareTransport::DescribeSwitchPath(const std::vector<uint32_t>& members) const
{
    NS_ABORT_MSG_IF(!m_intra, "ServerAwareTransport::DescribeSwitchPath before Setup");
    CarrierSwitchPath sw = m_intra->DescribeSwitchPath(members);
    for (auto* ports : {&sw.txPorts, &sw.rxPorts})
    {
        for (auto& p : *ports)
        {
            p = 2 * p;
        }
    }
    return sw;
}

} // namespace ns3
