// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-transport.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame-info.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"

#include <deque>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaTransport");
NS_OBJECT_ENSURE_REGISTERED(RdmaTransport);

TypeId
RdmaTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaTransport")
                            .SetParent<CollectiveTransport>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RdmaTransport>();
    return tid;
}

RdmaTransport::RdmaTransport()
{
    NS_LOG_FUNCTION(this);
}

RdmaTransport::~RdmaTransport()
{
    NS_LOG_FUNCTION(this);
    // Dropped without Dispose: the queue pairs must still not call into freed connections.
    CloseConnections();
}

void
RdmaTransport::CloseConnections()
{
    // The queue pairs belong to the NICs and outlive this transport: unhook them before
    // their connections (bound into the callbacks) go away.
    for (auto& [key, connection] : m_connections)
    {
        connection->receiver->SetReceiveCompleteCallback(RdmaQueuePair::MessageCallback());
    }
    m_connections.clear();
}

void
RdmaTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    CloseConnections();
    m_nics.clear();
    CollectiveTransport::DoDispose();
}

void
RdmaTransport::SetNics(const std::vector<Ptr<RdmaNic>>& nics)
{
    NS_LOG_FUNCTION(this << nics.size());
    for (std::size_t r = 0; r < nics.size(); ++r)
    {
        NS_ABORT_MSG_IF(!nics[r], "RdmaTransport::SetNics: rank " << r << " has no NIC");
    }
    m_nics = nics;
}

Ptr<RdmaNic>
RdmaTransport::GetNic(uint32_t rank) const
{
    NS_ABORT_MSG_IF(rank >= m_nics.size(),
                    "RdmaTransport::GetNic: rank " << rank << " of " << m_nics.size());
    return m_nics[rank];
}

uint32_t
RdmaTransport::GetNRanks() const
{
    return static_cast<uint32_t>(m_nics.size());
}

uint32_t
RdmaTransport::GetNConnections() const
{
    return static_cast<uint32_t>(m_connections.size());
}

RdmaTransport::Connection&
RdmaTransport::GetConnection(uint32_t src, uint32_t dst, uint32_t channel)
{
    auto key = std::make_tuple(src, dst, channel);
    auto it = m_connections.find(key);
    if (it != m_connections.end())
    {
        return *it->second;
    }
    NS_LOG_LOGIC("rank " << src << " -> " << dst << ", channel " << channel
                         << ": opens a connection (" << m_connections.size() + 1 << " in all)");
    auto connection = std::make_unique<Connection>();
    std::tie(connection->sender, connection->receiver) = RdmaNic::Connect(m_nics[src], m_nics[dst]);
    connection->receiver->SetReceiveCompleteCallback(
        MakeBoundCallback(&RdmaTransport::MessageReceived, connection.get()));
    Connection& ref = *connection;
    m_connections.emplace(key, std::move(connection));
    return ref;
}

void
RdmaTransport::Send(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t channel, DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << dst << bytes << channel);
    NS_ABORT_MSG_IF(src >= m_nics.size() || dst >= m_nics.size(),
                    "RdmaTransport::Send: rank " << (src >= m_nics.size() ? src : dst)
                                                 << " outside the " << m_nics.size()
                                                 << " ranks this transport connects");
    NS_ABORT_MSG_IF(src != dst && m_nics[src] == m_nics[dst],
                    "RdmaTransport::Send: ranks " << src << " and " << dst
                                                  << " share one NIC; RDMA cannot move data "
                                                     "between them (give each rank its own "
                                                     "NIC, or route it over NVLink)");
    if (bytes == 0 || src == dst)
    {
        // Nothing crosses the fabric: an empty message, or data already in place.
        NS_LOG_LOGIC("rank " << src << " -> " << dst << ": nothing crosses the fabric");
        Simulator::ScheduleNow(&RdmaTransport::Invoke, done);
        return;
    }
    Connection& connection = GetConnection(src, dst, channel);
    connection.pending.push_back(done);
    connection.sender->PostWrite(bytes);
}

void
RdmaTransport::Invoke(DoneCallback done)
{
    done();
}

void
RdmaTransport::MessageReceived(Connection* connection, Ptr<RdmaQueuePair>, uint64_t, uint64_t)
{
    NS_ABORT_MSG_IF(connection->pending.empty(),
                    "RdmaTransport: a message arrived on QP "
                        << connection->receiver->GetQpn() << " that this transport did not send");
    NS_LOG_DEBUG("QP " << connection->receiver->GetQpn() << ": transfer complete, "
                       << connection->pending.size() - 1 << " more in flight");
    DoneCallback done = connection->pending.front();
    connection->pending.pop_front();
    done();
}

const RdmaTransport::Reach&
RdmaTransport::GetReach(Ptr<Node> node) const
{
    auto it = m_reach.find(node->GetId());
    if (it != m_reach.end())
    {
        return it->second;
    }
    Reach& reach = m_reach[node->GetId()];
    std::deque<Ptr<Node>> frontier{node};
    reach.byNode[node->GetId()] = {0, Time(0)};
    while (!frontier.empty())
    {
        Ptr<Node> n = frontier.front();
        frontier.pop_front();
        const auto [links, delay] = reach.byNode[n->GetId()];
        for (uint32_t i = 0; i < n->GetNDevices(); ++i)
        {
            Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(n->GetDevice(i));
            Ptr<RoceChannel> ch = dev ? DynamicCast<RoceChannel>(dev->GetChannel()) : nullptr;
            Ptr<RoceNetDevice> peer = ch ? ch->GetPeer(dev) : nullptr;
            if (!peer || reach.byNode.count(peer->GetNode()->GetId()))
            {
                continue;
            }
            reach.byNode[peer->GetNode()->GetId()] = {links + 1, delay + ch->GetDelay()};
            frontier.push_back(peer->GetNode());
        }
    }
    return reach;
}

CarrierPath
RdmaTransport::DescribePath(uint32_t src, uint32_t dst) const
{
    NS_ABORT_MSG_IF(src >= m_nics.size() || dst >= m_nics.size(),
                    "RdmaTransport::DescribePath: rank " << std::max(src, dst) << " of "
                                                         << m_nics.size());
    Ptr<RoceNetDevice> a = m_nics[src]->GetDevice();
    Ptr<RoceNetDevice> b = m_nics[dst]->GetDevice();
    CarrierPath path;
    path.txPort = 2 * uint64_t{a->GetNode()->GetId()};
    path.rxPort = 2 * uint64_t{b->GetNode()->GetId()} + 1;
    const uint32_t payload = m_nics[src]->GetPayloadMtu();
    const uint32_t wire = roce::WireBytes(payload + roce::DATA_HEADER_BYTES + roce::ICRC_BYTES);
    const double rate =
        std::min(a->GetDataRate().GetBitRate(), b->GetDataRate().GetBitRate()) / 8.0;
    path.bytesPerSecond = rate * payload / wire;
    const Reach& reach = GetReach(a->GetNode());
    auto it = reach.byNode.find(b->GetNode()->GetId());
    if (it != reach.byNode.end() && it->second.first > 0)
    {
        path.latency = it->second.second;
        path.forwardHops = it->second.first - 1;
        path.forwardUnit = payload;
    }
    return path;
}

} // namespace ns3
