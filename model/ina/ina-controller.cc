// SPDX-License-Identifier: GPL-2.0-only
#include "ina-controller.h"

#include "../fabric/ai-fabric-compat.h"

#include "ns3/abort.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame-info.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <limits>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("InaController");
NS_OBJECT_ENSURE_REGISTERED(InaController);

namespace
{
/// The switch graph: a vertex per switch, an edge per cable (its ports at both ends).
struct Cable
{
    uint32_t portAtSource{0}; //!< port of the edge's source switch
};

using SwitchGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, Cable>;

/// The node at the other end of a port's link.
Ptr<Node>
PeerNode(Ptr<RoceNetDevice> device)
{
    Ptr<RoceChannel> channel = device->GetRoceChannel();
    return channel ? channel->GetPeer(device)->GetNode() : nullptr;
}

/// Hop counts from source to every vertex (max for unreachable).
std::vector<uint32_t>
HopCounts(const SwitchGraph& graph, uint32_t source, std::vector<uint32_t>* parent)
{
    const auto n = boost::num_vertices(graph);
    std::vector<uint32_t> hops(n, std::numeric_limits<uint32_t>::max());
    std::vector<uint32_t> pred(n, std::numeric_limits<uint32_t>::max());
    hops[source] = 0;
    pred[source] = source;
    boost::breadth_first_search(
        graph,
        boost::vertex(source, graph),
        boost::visitor(boost::make_bfs_visitor(
            std::make_pair(boost::record_distances(hops.data(), boost::on_tree_edge()),
                           boost::record_predecessors(pred.data(), boost::on_tree_edge())))));
    if (parent)
    {
        *parent = std::move(pred);
    }
    return hops;
}

/// The switches reachable from a job's workers' first switches, and the cables between them.
struct FabricView
{
    std::map<Ptr<Node>, uint32_t> vertexOf; //!< vertex of each switch's node
    std::vector<Ptr<RoceSwitch>> switchOf;  //!< switch of each vertex
    SwitchGraph graph;                      //!< the cables between the switches
    std::vector<uint32_t> leafOf;           //!< by worker: vertex of its first switch
    std::vector<uint32_t> leafPort;         //!< by worker: its port on that switch

    /// \return the vertex of node's switch, added on first use
    uint32_t Vertex(Ptr<Node> node)
    {
        auto it = vertexOf.find(node);
        if (it != vertexOf.end())
        {
            return it->second;
        }
        const auto v = static_cast<uint32_t>(boost::add_vertex(graph));
        vertexOf.emplace(node, v);
        switchOf.push_back(node->GetObject<RoceSwitch>());
        return v;
    }
};

/// The switch graph reachable from the workers' first switches (aborts on a bad NIC).
FabricView
MapFabric(const std::vector<Ptr<RdmaNic>>& nics)
{
    FabricView fabric;
    fabric.leafOf.resize(nics.size());
    fabric.leafPort.resize(nics.size());
    std::set<Ptr<RdmaNic>> seen;
    for (uint32_t w = 0; w < nics.size(); ++w)
    {
        NS_ABORT_MSG_IF(!seen.insert(nics[w]).second,
                        "InaController::CreateJob: NIC " << nics[w]->GetAddress()
                                                         << " given twice");
        Ptr<RoceNetDevice> device = nics[w]->GetDevice();
        Ptr<Node> peer = PeerNode(device);
        NS_ABORT_MSG_IF(!peer || !peer->GetObject<RoceSwitch>(),
                        "InaController::CreateJob: NIC " << nics[w]->GetAddress()
                                                         << " is not cabled to a RoceSwitch");
        fabric.leafOf[w] = fabric.Vertex(peer);
        fabric.leafPort[w] = device->GetRoceChannel()->GetPeer(device)->GetIfIndex();
    }
    for (uint32_t v = 0; v < fabric.switchOf.size(); ++v) // grows as switches are found
    {
        Ptr<RoceSwitch> sw = fabric.switchOf[v];
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            Ptr<Node> peer = PeerNode(sw->GetPort(p));
            if (peer && peer->GetObject<RoceSwitch>())
            {
                const uint32_t u = fabric.Vertex(peer);
                boost::add_edge(v, u, Cable{p}, fabric.graph);
            }
        }
    }
    return fabric;
}

/// The aggregation-capable switches with the least largest hop count to the leaves
/// (that hop count in *best, max if there are none).
std::vector<uint32_t>
RootCandidates(const FabricView& fabric, const std::set<uint32_t>& leaves, uint32_t* best)
{
    std::vector<uint32_t> candidates;
    *best = std::numeric_limits<uint32_t>::max();
    for (uint32_t v = 0; v < fabric.switchOf.size(); ++v)
    {
        if (!fabric.switchOf[v]->GetPort(0)->GetNode()->GetObject<InaAggregationEngine>())
        {
            continue;
        }
        const std::vector<uint32_t> hops = HopCounts(fabric.graph, v, nullptr);
        uint32_t worst = 0;
        for (uint32_t leaf : leaves)
        {
            worst = std::max(worst, hops[leaf]);
        }
        if (worst < *best)
        {
            *best = worst;
            candidates.clear();
        }
        if (worst == *best)
        {
            candidates.push_back(v);
        }
    }
    return candidates;
}

/// A switch of a job's tree.
struct Place
{
    InaJobConfig config; //!< the job's configuration on it
};

/// A job's tree: its switches (by vertex) and the order they were added in (root first).
struct JobTree
{
    std::map<uint32_t, Place> places; //!< by vertex
    std::vector<uint32_t> order;      //!< root first

    /// \return the place of vertex v, added on first use
    Place& PlaceOf(uint32_t v)
    {
        auto [it, added] = places.emplace(v, Place());
        if (added)
        {
            order.push_back(v);
        }
        return it->second;
    }
};

/// Ports of the cable between v and up, at v (*portUp) and at up (*portDown).
void
CablePorts(const SwitchGraph& graph, uint32_t v, uint32_t up, uint32_t* portUp, uint32_t* portDown)
{
    for (auto [e, end] = boost::out_edges(v, graph); e != end; ++e)
    {
        if (boost::target(*e, graph) == up)
        {
            *portUp = graph[*e].portAtSource;
            break;
        }
    }
    for (auto [e, end] = boost::out_edges(up, graph); e != end; ++e)
    {
        if (boost::target(*e, graph) == v)
        {
            *portDown = graph[*e].portAtSource;
            break;
        }
    }
}

/// Add to tree the paths from the leaves up to the root (parent: the root's BFS tree).
void
AddPaths(JobTree& tree,
         const SwitchGraph& graph,
         const std::set<uint32_t>& leaves,
         uint32_t root,
         const std::vector<uint32_t>& parent,
         uint16_t jobId)
{
    for (uint32_t leaf : leaves)
    {
        for (uint32_t v = leaf; v != root; v = parent[v])
        {
            const uint32_t up = parent[v];
            if (tree.places.count(v) &&
                tree.places.at(v).config.parentPort != InaJobConfig::NO_PARENT)
            {
                break; // the rest of the path is in the tree already
            }
            // Ports of the cable between v and up, at both ends.
            uint32_t portUp = 0;
            uint32_t portDown = 0;
            CablePorts(graph, v, up, &portUp, &portDown);
            Place& child = tree.PlaceOf(v);
            child.config.parentPort = portUp;
            Place& above = tree.PlaceOf(up);
            child.config.indexAtParent = static_cast<uint16_t>(above.config.childPorts.size());
            above.config.childPorts.push_back(portDown);
            above.config.childAddresses.push_back(InaGroupAddress(jobId));
        }
    }
}

/// Add the workers to tree: each is a child of its leaf, and below every switch on the
/// way to the root.
void
AddWorkerChildren(JobTree& tree,
                  const FabricView& fabric,
                  const std::vector<Ptr<RdmaNic>>& nics,
                  uint32_t root,
                  const std::vector<uint32_t>& parent)
{
    for (auto& [v, place] : tree.places)
    {
        place.config.rankChild.assign(nics.size(), -1);
    }
    for (uint32_t w = 0; w < nics.size(); ++w)
    {
        // The worker is a child of its leaf, and below every switch on the way to the root.
        Place& leaf = tree.PlaceOf(fabric.leafOf[w]);
        leaf.config.rankChild[w] = static_cast<int32_t>(leaf.config.childPorts.size());
        leaf.config.childPorts.push_back(fabric.leafPort[w]);
        leaf.config.childAddresses.push_back(nics[w]->GetAddress());
        for (uint32_t v = fabric.leafOf[w]; v != root; v = parent[v])
        {
            tree.places.at(parent[v]).config.rankChild[w] = tree.places.at(v).config.indexAtParent;
        }
    }
}

/// Place the job on every switch of tree (root first), or on none: on failure, take it
/// off the switches it was placed on, set *reason and return false.
bool
PlaceOnSwitches(JobTree& tree,
                const std::vector<Ptr<RoceSwitch>>& switchOf,
                uint16_t jobId,
                uint32_t poolSlots,
                uint8_t priority,
                InaProtocol protocol,
                const std::vector<Ipv4Address>& addresses,
                std::vector<Ptr<InaAggregationEngine>>* placed,
                std::string* reason)
{
    const bool streaming = protocol == InaProtocol::STREAMING;
    for (uint32_t v : tree.order)
    {
        Place& place = tree.places.at(v);
        place.config.job = jobId;
        place.config.poolSlots = streaming ? 0 : poolSlots;
        place.config.priority = priority;
        place.config.protocol = protocol;
        if (streaming)
        {
            place.config.workers = addresses;
        }
        Ptr<InaAggregationEngine> engine =
            switchOf[v]->GetPort(0)->GetNode()->GetObject<InaAggregationEngine>();
        std::string why;
        if (!engine)
        {
            why = "a switch of the tree has no aggregation engine";
        }
        if (!engine || !engine->AddJob(place.config, &why))
        {
            for (const auto& e : *placed)
            {
                e->RemoveJob(jobId);
            }
            *reason = why;
            return false;
        }
        placed->push_back(engine);
    }
    return true;
}
} // namespace

TypeId
InaController::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::InaController")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<InaController>()
            .AddAttribute("PoolSlots",
                          "Slots of each new job's pool (its workers' window); a job takes "
                          "2 x PoolSlots on every switch of its tree. 512: the bandwidth-"
                          "delay product of 400 Gb/s over a 10 us round trip in 1 KiB slots.",
                          UintegerValue(512),
                          MakeUintegerAccessor(&InaController::m_poolSlots),
                          MakeUintegerChecker<uint32_t>(1, 1u << 23))
            .AddAttribute("Priority",
                          "Traffic class of the jobs' packets (DSCP = 8 x priority).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&InaController::m_priority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute(
                "Protocol",
                std::string("How new jobs aggregate: ") + InaProtocolName(InaProtocol::STREAMING) +
                    " (ATP/SHARP-like: shared hash-addressed aggregators, full-MTU fragments, "
                    "a fallback host, an ECN-driven window; its window holds as many bytes "
                    "as PoolSlots slots) or " +
                    InaProtocolName(InaProtocol::SWITCHML) +
                    " (SwitchML: a pool of PoolSlots slots per job, two copies each).",
                aifabric::MakeEnumValueCompat(InaProtocol::STREAMING),
                aifabric::MakeEnumMemberAccessor(&InaController::m_protocol),
                aifabric::MakeEnumCheckerCompat(InaProtocol::STREAMING,
                                                InaProtocolName(InaProtocol::STREAMING),
                                                InaProtocol::SWITCHML,
                                                InaProtocolName(InaProtocol::SWITCHML)));
    return tid;
}

InaController::InaController()
{
    m_workerFactory.SetTypeId("ns3::InaWorker");
}

void
InaController::DoDispose()
{
    m_workers.clear();
    Object::DoDispose();
}

void
InaController::SetWorkerAttribute(const std::string& name, const AttributeValue& value)
{
    m_workerFactory.Set(name, value);
}

Ptr<InaWorker>
InaController::WorkerOf(Ptr<RdmaNic> nic)
{
    auto it = m_workers.find(nic);
    if (it != m_workers.end())
    {
        return it->second;
    }
    Ptr<InaWorker> worker = m_workerFactory.Create<InaWorker>();
    worker->SetNic(nic);
    Ptr<Node> node = nic->GetDevice()->GetNode();
    if (node && !node->GetObject<InaWorker>())
    {
        node->AggregateObject(worker);
    }
    else
    {
        Simulator::ScheduleDestroy(&InaWorker::Dispose, worker);
    }
    m_workers.emplace(nic, worker);
    return worker;
}

InaJob
InaController::CreateJob(uint16_t jobId, const std::vector<Ptr<RdmaNic>>& nics)
{
    NS_LOG_FUNCTION(this << jobId << nics.size());
    InaJob job;
    job.info.job = jobId;
    job.info.workers = static_cast<uint16_t>(nics.size());
    job.info.poolSlots = m_poolSlots;
    job.info.priority = m_priority;
    job.info.protocol = m_protocol;
    NS_ABORT_MSG_IF(nics.size() < 2 || nics.size() > UINT16_MAX,
                    "InaController::CreateJob: a job has 2 to 65535 workers, got " << nics.size());
    const bool streaming = m_protocol == InaProtocol::STREAMING;
    std::vector<Ipv4Address> addresses; // the workers' by rank
    for (const auto& nic : nics)
    {
        addresses.push_back(nic->GetAddress());
    }
    if (streaming && nics.size() > ina::MAX_STREAMING_WORKERS)
    {
        job.reason = "a streaming job has at most " + std::to_string(ina::MAX_STREAMING_WORKERS) +
                     " workers, this one " + std::to_string(nics.size());
        return job;
    }

    // The switch graph reachable from the workers' first switches.
    const FabricView fabric = MapFabric(nics);
    const std::set<uint32_t> leaves(fabric.leafOf.begin(), fabric.leafOf.end());

    // Root: an aggregation-capable switch with the least largest hop count to the leaves.
    uint32_t best = std::numeric_limits<uint32_t>::max();
    const std::vector<uint32_t> candidates = RootCandidates(fabric, leaves, &best);
    if (candidates.empty() || best == std::numeric_limits<uint32_t>::max())
    {
        job.reason = "no aggregation-capable switch reaches every worker";
        return job;
    }
    const uint32_t root = candidates[jobId % candidates.size()];
    std::vector<uint32_t> parent;
    HopCounts(fabric.graph, root, &parent);

    // The tree: the paths from the leaves up to the root.
    JobTree tree;
    tree.PlaceOf(root);
    AddPaths(tree, fabric.graph, leaves, root, parent, jobId);
    AddWorkerChildren(tree, fabric, nics, root, parent);

    // Place the job on every switch of the tree, or on none.
    std::vector<Ptr<InaAggregationEngine>> placed;
    std::string why;
    if (!PlaceOnSwitches(tree,
                         fabric.switchOf,
                         jobId,
                         m_poolSlots,
                         m_priority,
                         m_protocol,
                         addresses,
                         &placed,
                         &why))
    {
        job.reason = why;
        NS_LOG_LOGIC("job " << jobId << " not in-network: " << why);
        return job;
    }
    job.inNetwork = true;
    job.switches = placed;
    job.levels = best + 1;
    SizeFragments(job, nics, addresses);
    AddJobToWorkers(job, nics);
    NS_LOG_LOGIC("job " << jobId << ": " << nics.size() << " workers, " << placed.size()
                        << " switches in " << job.levels << " levels, "
                        << InaProtocolName(m_protocol) << ", " << job.info.fragmentBytes
                        << " B fragments, window " << job.info.poolSlots);
    return job;
}

void
InaController::SizeFragments(InaJob& job,
                             const std::vector<Ptr<RdmaNic>>& nics,
                             const std::vector<Ipv4Address>& addresses) const
{
    const bool streaming = m_protocol == InaProtocol::STREAMING;
    // Fragments: what every switch of the tree holds, and what every worker's port
    // carries (IPv4 + UDP + INA header + values within its MTU).
    uint32_t slotBytes = UINT32_MAX;
    uint32_t fragmentBytes = UINT32_MAX;
    for (const auto& e : job.switches)
    {
        slotBytes = std::min(slotBytes, e->GetSlotBytes());
        fragmentBytes =
            std::min(fragmentBytes, streaming ? e->GetStreamingBytes() : e->GetSlotBytes());
    }
    for (const auto& nic : nics)
    {
        const uint32_t overhead =
            roce::IPV4_HEADER_BYTES + roce::UDP_HEADER_BYTES + ina::HEADER_BYTES;
        const uint32_t mtu = nic->GetDevice()->GetMtu();
        fragmentBytes = std::min(fragmentBytes, mtu > overhead ? mtu - overhead : 1);
    }
    job.info.fragmentBytes = fragmentBytes;
    if (streaming)
    {
        // The window holds the bytes of a SwitchML pool of PoolSlots slots.
        const uint64_t bytes = static_cast<uint64_t>(m_poolSlots) * slotBytes;
        job.info.poolSlots = static_cast<uint32_t>(
            std::max<uint64_t>(1, (bytes + fragmentBytes - 1) / fragmentBytes));
        job.info.addresses = addresses;
    }
}

void
InaController::AddJobToWorkers(InaJob& job, const std::vector<Ptr<RdmaNic>>& nics)
{
    for (uint32_t w = 0; w < nics.size(); ++w)
    {
        Ptr<InaWorker> worker = WorkerOf(nics[w]);
        InaJobInfo info = job.info;
        info.rank = static_cast<uint16_t>(w);
        worker->AddJob(info);
        job.workers.push_back(worker);
    }
}

void
InaController::RemoveJob(const InaJob& job)
{
    for (const auto& engine : job.switches)
    {
        engine->RemoveJob(job.info.job);
    }
}

} // namespace ns3
