// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-transport.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame-info.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/shared-buffer-mmu.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaTransport");

namespace
{
/// NCCL rounds each queue pair's share of a split request up to this (IB_WRITE_CHUNK_ALIGNMENT).
constexpr uint64_t SPLIT_ALIGNMENT = 128;
} // namespace

NS_OBJECT_ENSURE_REGISTERED(RdmaTransport);

TypeId
RdmaTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaTransport")
                            .SetParent<CollectiveTransport>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RdmaTransport>()
                            .AddAttribute("QpsPerConnection",
                                          "Queue pairs per connection, each with its own UDP "
                                          "source port (NCCL_IB_QPS_PER_CONNECTION; NCCL's "
                                          "default is 1).",
                                          UintegerValue(1),
                                          MakeUintegerAccessor(&RdmaTransport::m_qpsPerConnection),
                                          MakeUintegerChecker<uint32_t>(1, MAX_QPS_PER_CONNECTION))
                            .AddAttribute("SplitDataOnQps",
                                          "Split every transfer evenly over the connection's "
                                          "queue pairs (NCCL_IB_SPLIT_DATA_ON_QPS=1); false "
                                          "(NCCL's default) sends each request of "
                                          "RequestBytes on one queue pair, round robin.",
                                          BooleanValue(false),
                                          MakeBooleanAccessor(&RdmaTransport::m_splitDataOnQps),
                                          MakeBooleanChecker())
                            .AddAttribute("RequestBytes",
                                          "Size of NCCL's network requests, which take the "
                                          "queue pairs in turn without SplitDataOnQps: "
                                          "NCCL_BUFFSIZE / NCCL_STEPS, 4 MiB / 8 for the Simple "
                                          "protocol (NCCL 2.30).",
                                          UintegerValue(512 * 1024),
                                          MakeUintegerAccessor(&RdmaTransport::m_requestBytes),
                                          MakeUintegerChecker<uint64_t>(4096, uint64_t{1} << 40));
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
        for (Lane& lane : connection->lanes)
        {
            lane.receiver->SetReceiveCompleteCallback(RdmaQueuePair::MessageCallback());
        }
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
                         << ": opens a connection of " << m_qpsPerConnection << " queue pair(s) ("
                         << m_connections.size() + 1 << " in all)");
    auto connection = std::make_unique<Connection>();
    connection->lanes.resize(m_qpsPerConnection);
    for (Lane& lane : connection->lanes)
    {
        std::tie(lane.sender, lane.receiver) = RdmaNic::Connect(m_nics[src], m_nics[dst]);
        lane.receiver->SetReceiveCompleteCallback(
            MakeBoundCallback(&RdmaTransport::MessageReceived, &lane));
    }
    Connection& ref = *connection;
    m_connections.emplace(key, std::move(connection));
    return ref;
}

bool
RdmaTransport::CompletesLocally(uint32_t src,
                                uint32_t dst,
                                uint64_t bytes,
                                const DoneCallback& done) const
{
    NS_ABORT_MSG_IF(src >= m_nics.size() || dst >= m_nics.size(),
                    GetInstanceTypeId().GetName()
                        << "::Send: rank " << (src >= m_nics.size() ? src : dst) << " outside the "
                        << m_nics.size() << " ranks this transport connects");
    NS_ABORT_MSG_IF(src != dst && m_nics[src] == m_nics[dst],
                    GetInstanceTypeId().GetName()
                        << "::Send: ranks " << src << " and " << dst
                        << " share one NIC; RDMA cannot move data between them (give each "
                           "rank its own NIC, or route it over NVLink)");
    if (bytes == 0 || src == dst)
    {
        // Nothing crosses the fabric: an empty message, or data already in place.
        NS_LOG_LOGIC("rank " << src << " -> " << dst << ": nothing crosses the fabric");
        Simulator::ScheduleNow(&RdmaTransport::Invoke, done);
        return true;
    }
    return false;
}

std::vector<std::pair<uint32_t, uint64_t>>
RdmaTransport::SplitTransfer(uint64_t bytes, uint64_t& nextRequest) const
{
    const uint32_t n = m_qpsPerConnection;
    // The queue pair of the first request first, as NCCL posts them.
    const uint32_t first = m_splitDataOnQps ? 0 : nextRequest % n;
    const std::vector<uint64_t> shares =
        SpreadOverQps(bytes, n, m_splitDataOnQps, m_requestBytes, nextRequest);
    std::vector<std::pair<uint32_t, uint64_t>> parts;
    for (uint32_t k = 0; k < n; ++k)
    {
        const uint32_t q = (first + k) % n;
        if (shares[q] > 0)
        {
            parts.emplace_back(q, shares[q]);
        }
    }
    return parts;
}

uint32_t
RdmaTransport::GetQpsPerConnection() const
{
    return m_qpsPerConnection;
}

void
RdmaTransport::Send(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t channel, DoneCallback done)
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
                         << " B over " << transfer->parts << " of " << connection.lanes.size()
                         << " queue pairs");
    for (const auto& [q, share] : parts)
    {
        connection.lanes[q].pending.push_back(transfer);
        connection.lanes[q].sender->PostWrite(share);
    }
}

std::vector<uint64_t>
RdmaTransport::SpreadOverQps(uint64_t bytes,
                             uint32_t nQps,
                             bool split,
                             uint64_t requestBytes,
                             uint64_t& nextRequest)
{
    std::vector<uint64_t> shares(nQps, 0);
    if (bytes == 0 || nQps == 0)
    {
        return shares; // nothing to spread
    }
    if (split)
    {
        // Each queue pair takes ceil(bytes / n) rounded up to the alignment, the last ones
        // what is left (possibly nothing).
        const uint64_t share =
            ((bytes + nQps - 1) / nQps + SPLIT_ALIGNMENT - 1) / SPLIT_ALIGNMENT * SPLIT_ALIGNMENT;
        uint64_t left = bytes;
        for (uint64_t& s : shares)
        {
            s = std::min(share, left);
            left -= s;
        }
        return shares;
    }
    const uint64_t requests = (bytes + requestBytes - 1) / requestBytes;
    const uint64_t last = bytes - (requests - 1) * requestBytes;
    // Request r of this transfer goes to queue pair (nextRequest + r) mod n: each queue
    // pair gets every n-th request.
    for (uint32_t k = 0; k < nQps && k < requests; ++k)
    {
        const uint64_t count = (requests - k + nQps - 1) / nQps; // requests k, k + n, ...
        shares[(nextRequest + k) % nQps] = count * requestBytes;
    }
    // The last request is short.
    shares[(nextRequest + requests - 1) % nQps] -= requestBytes - last;
    nextRequest += requests;
    return shares;
}

std::vector<Ptr<RdmaQueuePair>>
RdmaTransport::GetSenders(uint32_t src, uint32_t dst, uint32_t channel) const
{
    std::vector<Ptr<RdmaQueuePair>> senders;
    auto it = m_connections.find(std::make_tuple(src, dst, channel));
    if (it != m_connections.end())
    {
        for (const Lane& lane : it->second->lanes)
        {
            senders.push_back(lane.sender);
        }
    }
    return senders;
}

void
RdmaTransport::Invoke(DoneCallback done)
{
    done();
}

void
RdmaTransport::MessageReceived(Lane* lane, Ptr<RdmaQueuePair>, uint64_t, uint64_t)
{
    NS_ABORT_MSG_IF(lane->pending.empty(),
                    "RdmaTransport: a message arrived on QP "
                        << lane->receiver->GetQpn() << " that this transport did not send");
    std::shared_ptr<Transfer> transfer = std::move(lane->pending.front());
    lane->pending.pop_front();
    NS_LOG_DEBUG("QP " << lane->receiver->GetQpn() << ": part complete, " << transfer->parts - 1
                       << " more of its transfer, " << lane->pending.size()
                       << " more messages on the queue pair");
    if (--transfer->parts == 0)
    {
        transfer->done();
    }
}

RdmaTransport::Reach
RdmaTransport::GetReach(Ptr<Node> from, Ptr<Node> to) const
{
    const uint64_t key = (uint64_t{from->GetId()} << 32) | to->GetId();
    if (auto it = m_reach.find(key); it != m_reach.end())
    {
        return it->second;
    }
    CableGraph& g = m_cables;
    const uint32_t nodes = NodeList::GetNNodes();
    if (g.begin.size() != nodes + 1)
    {
        // Every node's RoCE cables, in device index order: once, or again when nodes
        // were added since (their pairs' reach computed again too). Cables are laid when
        // the cluster is built, before a carrier describes a path.
        g = CableGraph{};
        m_reach.clear();
        g.begin.reserve(nodes + 1);
        for (uint32_t id = 0; id < nodes; ++id)
        {
            g.begin.push_back(static_cast<uint32_t>(g.peer.size()));
            Ptr<Node> n = NodeList::GetNode(id);
            for (uint32_t i = 0; i < n->GetNDevices(); ++i)
            {
                Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(n->GetDevice(i));
                Ptr<RoceChannel> ch = dev ? DynamicCast<RoceChannel>(dev->GetChannel()) : nullptr;
                Ptr<RoceNetDevice> peer = ch ? ch->GetPeer(dev) : nullptr;
                if (peer)
                {
                    g.peer.push_back(peer->GetNode()->GetId());
                    g.delay.push_back(ch->GetDelay().GetTimeStep());
                }
            }
        }
        g.begin.push_back(static_cast<uint32_t>(g.peer.size()));
        g.links.assign(nodes, 0);
        g.reached.assign(nodes, 0);
    }
    // Breadth first from one node until the other is reached; links count from 1 here
    // (0: not reached).
    const uint32_t src = from->GetId();
    const uint32_t dst = to->GetId();
    Reach reach{0, Time(0)};
    g.frontier.assign(1, src);
    g.links[src] = 1;
    for (std::size_t head = 0; head < g.frontier.size() && src != dst && g.links[dst] == 0; ++head)
    {
        const uint32_t n = g.frontier[head];
        for (uint32_t c = g.begin[n]; c < g.begin[n + 1]; ++c)
        {
            const uint32_t peer = g.peer[c];
            if (g.links[peer] == 0)
            {
                g.links[peer] = g.links[n] + 1;
                g.reached[peer] = g.reached[n] + g.delay[c];
                g.frontier.push_back(peer);
            }
        }
    }
    if (g.links[dst] != 0)
    {
        reach = {g.links[dst] - 1, Time(g.reached[dst])};
    }
    for (uint32_t n : g.frontier)
    {
        g.links[n] = 0;
        g.reached[n] = 0;
    }
    m_reach.emplace(key, reach);
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
    const double rate =
        std::min(a->GetDataRate().GetBitRate(), b->GetDataRate().GetBitRate()) / 8.0;
    path.bytesPerSecond = PayloadRate(src, rate);
    if (const auto [links, delay] = GetReach(a->GetNode(), b->GetNode()); links > 0)
    {
        path.latency = delay;
        path.forwardHops = links - 1;
        path.forwardUnit = m_nics[src]->GetPayloadMtu();
    }
    path.fabric = GetBundles(src, dst);
    path.lanes = m_qpsPerConnection;
    path.laneRequestBytes = m_splitDataOnQps ? 0 : m_requestBytes;
    path.queue = DescribeQueue(src, dst);
    return path;
}

CarrierQueue
RdmaTransport::DescribeQueue(uint32_t src, uint32_t dst) const
{
    CarrierQueue q;
    auto known = m_dcqcn.find(src);
    if (known == m_dcqcn.end())
    {
        // The figures a new queue pair of this NIC would get: its CongestionControl's
        // attributes as configured.
        ObjectFactory factory(m_nics[src]->GetCongestionControlType().GetName());
        Ptr<RoceDcqcn> cc = DynamicCast<RoceDcqcn>(factory.Create<Object>());
        known = m_dcqcn.emplace(src, cc ? std::optional(cc->GetFigures()) : std::nullopt).first;
    }
    Ptr<RoceNetDevice> b = m_nics[dst]->GetDevice();
    Ptr<RoceChannel> cable = DynamicCast<RoceChannel>(b->GetChannel());
    Ptr<RoceNetDevice> egress = cable ? cable->GetPeer(b) : nullptr;
    Ptr<RoceSwitch> sw = egress ? egress->GetNode()->GetObject<RoceSwitch>() : nullptr;
    if (!known->second || !sw || !sw->GetMmu()->IsEcnEnabled() || !m_nics[src]->IsEcnCapable())
    {
        return q;
    }
    Ptr<SharedBufferMmu> mmu = sw->GetMmu();
    const uint32_t port = egress->GetIfIndex();
    q.buffer = (uint64_t{1} << 61) + egress->GetNode()->GetId(); // above every port id
    q.kminBytes = mmu->GetKmin(port);
    q.kmaxBytes = mmu->GetKmax(port);
    q.pmax = mmu->GetEcnPmax();
    if (mmu->IsLossless(m_nics[src]->GetDataPriority()))
    {
        q.pfcAlpha = mmu->GetAlpha();
        q.sharedBytes = static_cast<double>(mmu->GetSharedBufferSize());
    }
    q.cnpInterval = m_nics[dst]->GetCnpInterval().GetSeconds();
    q.packetBytes = m_nics[src]->GetPayloadMtu();
    q.lineBps = static_cast<double>(m_nics[src]->GetDevice()->GetDataRate().GetBitRate());
    q.dcqcn = known->second;
    return q;
}

double
RdmaTransport::PayloadRate(uint32_t rank, double rate) const
{
    const uint32_t payload = m_nics[rank]->GetPayloadMtu();
    const uint32_t wire = roce::WireBytes(payload + roce::DATA_HEADER_BYTES + roce::ICRC_BYTES);
    return rate * payload / wire;
}

const std::vector<CarrierBundle>&
RdmaTransport::GetBundles(uint32_t src, uint32_t dst) const
{
    Ptr<RoceNetDevice> a = m_nics[src]->GetDevice();
    Ptr<Node> target = m_nics[dst]->GetDevice()->GetNode();
    const uint32_t dstIp = m_nics[dst]->GetAddress().Get();
    const auto key = std::make_tuple(a->GetNode()->GetId(), a->GetIfIndex(), dstIp);
    auto cached = m_bundles.find(key);
    if (cached != m_bundles.end())
    {
        return cached->second;
    }
    std::vector<CarrierBundle>& bundles = m_bundles[key];
    // The stage's switches: at first the sender's; then every switch the previous stage's
    // ports lead to. A fabric deeper than this is not one we build.
    constexpr uint32_t MAX_STAGES = 16;
    Ptr<RoceChannel> cable = DynamicCast<RoceChannel>(a->GetChannel());
    Ptr<RoceNetDevice> first = cable ? cable->GetPeer(a) : nullptr;
    std::map<uint32_t, Ptr<Node>> stage; // by node id: a deterministic order
    if (first && first->GetNode()->GetObject<RoceSwitch>())
    {
        stage.emplace(first->GetNode()->GetId(), first->GetNode());
    }
    for (uint32_t depth = 0; depth < MAX_STAGES && !stage.empty(); ++depth)
    {
        std::vector<std::pair<uint32_t, uint32_t>> links;
        std::map<uint32_t, Ptr<Node>> next;
        double rate = std::numeric_limits<double>::max();
        bool reached = false;
        for (const auto& [nodeId, node] : stage)
        {
            Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
            const std::vector<uint32_t>* ports = sw->GetRoutingTable().Lookup(dstIp);
            if (!ports)
            {
                continue;
            }
            for (uint32_t port : *ports)
            {
                Ptr<RoceNetDevice> dev = sw->GetPort(port);
                Ptr<RoceChannel> link = DynamicCast<RoceChannel>(dev->GetChannel());
                Ptr<RoceNetDevice> peer = link ? link->GetPeer(dev) : nullptr;
                if (!peer)
                {
                    continue;
                }
                if (peer->GetNode() == target || !peer->GetNode()->GetObject<RoceSwitch>())
                {
                    reached = true; // the last hop: the receiver's port
                    continue;
                }
                links.emplace_back(nodeId, port);
                next.emplace(peer->GetNode()->GetId(), peer->GetNode());
                rate = std::min(rate, dev->GetDataRate().GetBitRate() / 8.0);
            }
        }
        if (reached || links.empty())
        {
            break;
        }
        std::sort(links.begin(), links.end());
        auto id = m_bundleIds.find(links);
        if (id == m_bundleIds.end())
        {
            // Above every port id (2 x node id + 0 or 1).
            id = m_bundleIds.emplace(links, (uint64_t{1} << 62) + m_bundleIds.size()).first;
        }
        bundles.push_back(
            {id->second, static_cast<uint32_t>(links.size()), PayloadRate(src, rate)});
        stage = std::move(next);
    }
    NS_LOG_LOGIC("rank " << src << " -> " << dst << ": " << bundles.size()
                         << " shared link set(s) in the fabric");
    return bundles;
}

} // namespace ns3
