// SPDX-License-Identifier: GPL-2.0-only
#include "server-aware-transport.h"

#include "ns3/abort.h"

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
    NS_ABORT_MSG_IF(intraServer->GetNRanks() != group.GetSize() ||
                        interServer->GetNRanks() != group.GetSize(),
                    "ServerAwareTransport::Setup: the group has "
                        << group.GetSize() << " ranks but the carriers connect "
                        << intraServer->GetNRanks() << " (intra-server) and "
                        << interServer->GetNRanks() << " (inter-server)");
    m_group = group;
    m_intra = intraServer;
    m_inter = interServer;
}

void
ServerAwareTransport::Send(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t channel, DoneCallback done)
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

} // namespace ns3
