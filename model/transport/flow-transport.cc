// SPDX-License-Identifier: GPL-2.0-only
#include "flow-transport.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/int-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/roce-frame-info.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowTransport");

NS_OBJECT_ENSURE_REGISTERED(FlowTransport);

namespace
{
/// No fabric we build has a longer path: a route longer than this is a loop.
constexpr uint32_t MAX_HOPS = 16;
} // namespace

TypeId
FlowTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowTransport")
            .SetParent<RdmaTransport>()
            .SetGroupName("AiFabric")
            .AddConstructor<FlowTransport>()
            .AddAttribute("RoundRobinEnds",
                          "Messages of a NIC's queue pairs that would end at the same instant "
                          "at equal rates end one frame apart, in the order of the NIC's round "
                          "robin, as its packets do (false: together, the fluid limit; "
                          "multi-channel rings then stay in lockstep).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FlowTransport::m_roundRobinEnds),
                          MakeBooleanChecker());
    return tid;
}

FlowTransport::FlowTransport()
    : m_network(CreateObject<FlowNetwork>())
{
    NS_LOG_FUNCTION(this);
}

FlowTransport::~FlowTransport()
{
    NS_LOG_FUNCTION(this);
}

void
FlowTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_network)
    {
        m_network->Dispose();
        m_network = nullptr;
    }
    m_connections.clear();
    m_linkOf.clear();
    m_hostLinkOf.clear();
    RdmaTransport::DoDispose();
}

Ptr<FlowNetwork>
FlowTransport::GetNetwork() const
{
    return m_network;
}

uint32_t
FlowTransport::GetNFlowConnections() const
{
    return static_cast<uint32_t>(m_connections.size());
}

std::vector<uint16_t>
FlowTransport::GetSourcePorts(uint32_t src, uint32_t dst, uint32_t channel) const
{
    std::vector<uint16_t> ports;
    auto it = m_connections.find(ConnectionKey(src, dst, channel));
    if (it != m_connections.end())
    {
        for (const Lane& lane : it->second->lanes)
        {
            ports.push_back(lane.srcPort);
        }
    }
    return ports;
}

uint64_t
FlowTransport::GetBytesDelivered() const
{
    return m_bytesDelivered;
}

double
FlowTransport::WireBytesOf(uint64_t payloadBytes, uint32_t mtu)
{
    const uint32_t overhead = roce::DATA_HEADER_BYTES + roce::ICRC_BYTES;
    const uint64_t full = payloadBytes / mtu;
    const auto rest = static_cast<uint32_t>(payloadBytes % mtu);
    // The first frame also carries the RETH (the WRITE's address and length).
    return static_cast<double>(full) * roce::WireBytes(mtu + overhead) +
           (rest > 0 ? roce::WireBytes(rest + overhead) : 0) + roce::RETH_BYTES;
}

std::vector<Ptr<RoceNetDevice>>
FlowTransport::Route(uint32_t src, uint32_t dst, uint16_t srcPort, uint16_t dstPort) const
{
    Ptr<RdmaNic> a = GetNic(src);
    Ptr<RdmaNic> b = GetNic(dst);
    RoceFrameInfo info;
    info.srcIp = a->GetAddress().Get();
    info.dstIp = b->GetAddress().Get();
    info.protocol = roce::IP_PROTOCOL_UDP;
    info.srcPort = srcPort;
    info.dstPort = dstPort;
    const uint64_t key = info.FlowKey();
    const Ptr<Node> target = b->GetDevice()->GetNode();
    std::vector<Ptr<RoceNetDevice>> path;
    Ptr<RoceNetDevice> device = a->GetDevice();
    for (uint32_t hop = 0; hop < MAX_HOPS; ++hop)
    {
        path.push_back(device);
        Ptr<RoceChannel> cable = device->GetRoceChannel();
        NS_ABORT_MSG_IF(!cable,
                        "FlowTransport: port " << device->GetIfIndex() << " of node "
                                               << device->GetNode()->GetId() << " has no cable");
        Ptr<Node> node = cable->GetPeer(device)->GetNode();
        if (node == target)
        {
            return path;
        }
        Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
        NS_ABORT_MSG_IF(!sw,
                        "FlowTransport: rank " << src << " -> " << dst << " reaches node "
                                               << node->GetId()
                                               << ", a host that is not the receiver");
        const uint32_t port = sw->GetRoutingTable().SelectPort(info.dstIp, key, sw->GetEcmpSalt());
        NS_ABORT_MSG_IF(port == UINT32_MAX,
                        "FlowTransport: switch node " << node->GetId() << " has no route to rank "
                                                      << dst << " (" << b->GetAddress() << ")");
        NS_LOG_LOGIC("switch node " << node->GetId() << ": port " << port << " for "
                                    << a->GetAddress() << ":" << srcPort << " -> "
                                    << b->GetAddress());
        device = sw->GetPort(port);
    }
    NS_ABORT_MSG("FlowTransport: rank " << src << " -> " << dst << " takes more than " << MAX_HOPS
                                        << " links (a routing loop)");
    return path;
}

uint32_t
FlowTransport::LinkOf(Ptr<RoceNetDevice> device)
{
    auto it = m_linkOf.find(PeekPointer(device));
    if (it != m_linkOf.end())
    {
        return it->second;
    }
    // A NIC's port serves its queue pairs round robin, a frame per turn (RdmaNic): its
    // flows' messages that would end together end a frame apart. A switch's port serves
    // its queue in arrival order.
    double granule = 0;
    if (const Ptr<RdmaNic> nic = device->GetNode()->GetObject<RdmaNic>();
        nic && !device->GetNode()->GetObject<RoceSwitch>() && m_roundRobinEnds)
    {
        granule =
            roce::WireBytes(nic->GetPayloadMtu() + roce::DATA_HEADER_BYTES + roce::ICRC_BYTES);
    }
    const uint32_t link = m_network->AddLink(device->GetDataRate().GetBitRate() / 8.0, granule);
    m_linkOf.emplace(PeekPointer(device), link);
    return link;
}

uint32_t
FlowTransport::HostLinkOf(uint32_t rank)
{
    DataRateValue value;
    GetNic(rank)->GetAttribute("ReceiveRate", value);
    const DataRate rate = value.Get();
    if (rate.GetBitRate() == 0)
    {
        return UINT32_MAX;
    }
    auto it = m_hostLinkOf.find(rank);
    if (it == m_hostLinkOf.end())
    {
        it = m_hostLinkOf.emplace(rank, m_network->AddLink(rate.GetBitRate() / 8.0)).first;
    }
    return it->second;
}

uint16_t
FlowTransport::DestinationPort(uint32_t rank) const
{
    // A queue pair whose congestion control reads in-band telemetry sends its frames (and
    // its ACKs with echoes) to the telemetry port, which ECMP hashes too.
    TypeIdValue cc;
    GetNic(rank)->GetAttribute("CongestionControl", cc);
    auto [it, added] = m_telemetryOf.try_emplace(cc.Get().GetUid(), false);
    if (added)
    {
        ObjectFactory factory(cc.Get().GetName());
        it->second = factory.Create<RoceCongestionControl>()->GetSignalNeeds().intTelemetry;
    }
    return it->second ? int_telemetry::UDP_PORT : roce::UDP_DEST_PORT;
}

uint64_t
FlowTransport::ConnectionKey(uint32_t src, uint32_t dst, uint32_t channel)
{
    // 24 bits a rank, 16 the channel.
    NS_ABORT_MSG_IF(src >= (1u << 24) || dst >= (1u << 24) || channel >= (1u << 16),
                    "FlowTransport: rank " << src << " -> " << dst << ", channel " << channel
                                           << ": ranks up to 2^24 and channels up to 2^16");
    return (static_cast<uint64_t>(src) << 40) | (static_cast<uint64_t>(dst) << 16) | channel;
}

FlowTransport::Connection&
FlowTransport::GetConnection(uint32_t src, uint32_t dst, uint32_t channel)
{
    const uint64_t key = ConnectionKey(src, dst, channel);
    auto it = m_connections.find(key);
    if (it != m_connections.end())
    {
        return *it->second;
    }
    auto connection = std::make_unique<Connection>();
    connection->mtu = GetNic(src)->GetPayloadMtu();
    connection->lanes.resize(GetQpsPerConnection());
    // The receiver acknowledges every AckInterval packets: an ACK frame on the reverse
    // path per AckInterval full frames of data.
    UintegerValue ackInterval;
    GetNic(dst)->GetAttribute("AckInterval", ackInterval);
    const double ackWeight =
        roce::WireBytes(roce::ACK_FRAME_BYTES) /
        (static_cast<double>(ackInterval.Get()) *
         roce::WireBytes(connection->mtu + roce::DATA_HEADER_BYTES + roce::ICRC_BYTES));
    const uint16_t dataPort = DestinationPort(src);
    const uint16_t ackPort = DestinationPort(dst);
    for (Lane& lane : connection->lanes)
    {
        // The draws of RdmaNic::Connect: the sender's queue pair, then the receiver's.
        const RdmaNic::QpIdentity sender = GetNic(src)->DrawQpIdentity();
        const RdmaNic::QpIdentity receiver = GetNic(dst)->DrawQpIdentity();
        lane.srcPort = sender.srcPort;
        std::vector<uint32_t> links;
        for (const Ptr<RoceNetDevice>& device : Route(src, dst, sender.srcPort, dataPort))
        {
            if (!links.empty())
            {
                lane.storeSeconds += 8.0 / device->GetDataRate().GetBitRate();
            }
            lane.delay += device->GetRoceChannel()->GetDelay();
            links.push_back(LinkOf(device));
        }
        if (const uint32_t host = HostLinkOf(dst); host != UINT32_MAX)
        {
            links.push_back(host);
        }
        std::vector<double> weights(links.size(), 1.0);
        // The ACKs go back from the receiver's queue pair's UDP port.
        for (const Ptr<RoceNetDevice>& device : Route(dst, src, receiver.srcPort, ackPort))
        {
            const uint32_t link = LinkOf(device);
            if (std::find(links.begin(), links.end(), link) == links.end())
            {
                links.push_back(link);
                weights.push_back(ackWeight);
            }
        }
        lane.flow = m_network->AddFlow(links, weights);
        NS_LOG_LOGIC("rank " << src << " -> " << dst << ", channel " << channel << ": flow "
                             << lane.flow << " from UDP port " << sender.srcPort << " over "
                             << links.size() << " links, " << lane.delay.GetNanoSeconds()
                             << " ns of cable");
    }
    Connection& ref = *connection;
    m_connections.emplace(key, std::move(connection));
    return ref;
}

void
FlowTransport::Send(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t channel, DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << dst << bytes << channel);
    if (CompletesLocally(src, dst, bytes, done))
    {
        return;
    }
    Connection& connection = GetConnection(src, dst, channel);
    auto transfer = std::make_shared<Transfer>();
    transfer->done = std::move(done);
    const auto parts = SplitTransfer(bytes, connection.nextRequest);
    transfer->parts = static_cast<uint32_t>(parts.size());
    NS_LOG_LOGIC("rank " << src << " -> " << dst << ", channel " << channel << ": " << bytes
                         << " B as " << parts.size() << " flow message(s)");
    for (const auto& [q, share] : parts)
    {
        const Lane& lane = connection.lanes[q];
        const double wire = WireBytesOf(share, connection.mtu);
        // Each switch stores the message's last frame before it forwards it.
        const uint64_t rest = share % connection.mtu;
        const double last = roce::WireBytes((rest > 0 ? rest : connection.mtu) +
                                            roce::DATA_HEADER_BYTES + roce::ICRC_BYTES);
        const Time latency = lane.delay + Seconds(last * lane.storeSeconds);
        const uint64_t part = share;
        m_network->Push(lane.flow,
                        wire,
                        FlowNetwork::SentCallback([this, transfer, latency, part]() {
                            PartSent(transfer, latency, part);
                        }));
    }
}

void
FlowTransport::PartSent(std::shared_ptr<Transfer> transfer, Time latency, uint64_t bytes)
{
    // The event holds the carrier: an arrival after Dispose finds no network and is
    // dropped.
    Simulator::Schedule(latency,
                        &FlowTransport::PartArrived,
                        Ptr<FlowTransport>(this),
                        transfer,
                        bytes);
}

void
FlowTransport::PartArrived(std::shared_ptr<Transfer> transfer, uint64_t bytes)
{
    if (!m_network)
    {
        return; // disposed
    }
    m_bytesDelivered += bytes;
    if (--transfer->parts == 0)
    {
        NS_LOG_LOGIC("a transfer has arrived");
        transfer->done();
    }
}

} // namespace ns3
