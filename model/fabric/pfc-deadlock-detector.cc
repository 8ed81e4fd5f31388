// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-deadlock-detector.h"

#include "roce-channel.h"

#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <map>
#include <queue>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcDeadlockDetector");
NS_OBJECT_ENSURE_REGISTERED(PfcDeadlockDetector);

namespace
{

/// A vertex of the wait-for graph: a persistently paused egress queue that holds frames.
struct Vertex
{
    uint32_t sw;      //!< the switch's index in the detector's list
    uint32_t port;    //!< the egress port
    uint8_t priority; //!< the paused priority
};

/// The wait-for graph: an edge from each vertex to every vertex it waits for.
using WaitForGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

/**
 * Find the vertices: the switches' egress queues that hold frames and have been paused
 * without a break for at least persist.
 * \param switches the watched switches
 * \param now the time of the check
 * \param persist PersistTime
 * \param vertices receives the queues
 * \param next lowered to when the first queue paused for less than persist will count
 * \param switchOfNode receives each switch's index in switches, by node id
 */
void
FindPausedQueues(const std::vector<Ptr<RoceSwitch>>& switches,
                 const Time& now,
                 const Time& persist,
                 std::vector<Vertex>& vertices,
                 Time& next,
                 std::map<uint32_t, uint32_t>& switchOfNode)
{
    for (uint32_t s = 0; s < switches.size(); ++s)
    {
        Ptr<RoceSwitch> sw = switches[s];
        switchOfNode[sw->GetPort(0)->GetNode()->GetId()] = s;
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            Ptr<RoceNetDevice> dev = sw->GetPort(p);
            for (uint8_t q = 0; q < RoceNetDevice::N_PRIORITIES; ++q)
            {
                if (!dev->IsPaused(q) || dev->GetQueuePackets(q) == 0)
                {
                    continue;
                }
                const Time pausedFor = now - dev->GetPausedSince(q);
                if (pausedFor >= persist)
                {
                    vertices.push_back({s, p, q});
                }
                else
                {
                    next = std::min(next, persist - pausedFor); // when it will count
                }
            }
        }
    }
}

/**
 * Add the edges of the wait-for graph. X = (A, p), p cabled to B, waits for B's buffer,
 * which B's egress queues of the priority free as they drain. If one of them holds
 * frames and is not paused, B drains and X will move; otherwise X waits for every paused
 * queue of B (the buffer is shared: whichever drains first frees room).
 * \param switches the watched switches
 * \param vertices the graph's vertices
 * \param switchOfNode each switch's index in switches, by node id
 * \param graph receives the edges
 * \param selfLoop set for the vertices that wait for themselves
 */
void
AddWaitForEdges(const std::vector<Ptr<RoceSwitch>>& switches,
                const std::vector<Vertex>& vertices,
                const std::map<uint32_t, uint32_t>& switchOfNode,
                WaitForGraph& graph,
                std::vector<bool>& selfLoop)
{
    for (uint32_t x = 0; x < vertices.size(); ++x)
    {
        Ptr<RoceNetDevice> dev = switches[vertices[x].sw]->GetPort(vertices[x].port);
        Ptr<RoceNetDevice> peer = dev->GetRoceChannel()->GetPeer(dev);
        auto it = switchOfNode.find(peer->GetNode()->GetId());
        if (it == switchOfNode.end())
        {
            continue; // paused by a host: not part of a switch cycle
        }
        Ptr<RoceSwitch> b = switches[it->second];
        const uint8_t prio = vertices[x].priority;
        bool draining = false;
        for (uint32_t q = 0; q < b->GetNPorts() && !draining; ++q)
        {
            Ptr<RoceNetDevice> out = b->GetPort(q);
            draining = out->GetQueuePackets(prio) > 0 && !out->IsPaused(prio);
        }
        if (draining)
        {
            continue;
        }
        for (uint32_t y = 0; y < vertices.size(); ++y)
        {
            if (vertices[y].sw == it->second && vertices[y].priority == prio)
            {
                boost::add_edge(x, y, graph);
                selfLoop[x] = selfLoop[x] || x == y;
            }
        }
    }
}

/**
 * One cycle through a component's first vertex: breadth-first from it, within the
 * component, back to it.
 * \param graph the wait-for graph
 * \param component each vertex's strongly connected component
 * \param start the component's first vertex
 * \return the cycle's vertices, start first
 */
std::vector<uint32_t>
FindCycle(const WaitForGraph& graph, const std::vector<uint32_t>& component, uint32_t start)
{
    const uint32_t comp = component[start];
    std::vector<int64_t> parent(component.size(), -1);
    std::queue<uint32_t> frontier;
    frontier.push(start);
    int64_t last = -1;
    while (!frontier.empty() && last < 0)
    {
        const uint32_t u = frontier.front();
        frontier.pop();
        for (auto [e, end] = boost::out_edges(u, graph); e != end; ++e)
        {
            const uint32_t w = static_cast<uint32_t>(boost::target(*e, graph));
            if (component[w] != comp)
            {
                continue;
            }
            if (w == start)
            {
                last = u;
                break;
            }
            if (parent[w] < 0)
            {
                parent[w] = u;
                frontier.push(w);
            }
        }
    }
    std::vector<uint32_t> path;
    for (int64_t v = last; v >= 0 && static_cast<uint32_t>(v) != start;
         v = parent[static_cast<uint32_t>(v)])
    {
        path.push_back(static_cast<uint32_t>(v));
    }
    path.push_back(start);
    std::reverse(path.begin(), path.end());
    return path;
}

/**
 * \param switches the watched switches
 * \param vertices the wait-for graph's vertices
 * \param path a cycle of vertices
 * \param now the time of the check
 * \param key receives the cycle's vertex keys (node, port, priority), unsorted
 * \return the deadlock the cycle is
 */
PfcDeadlock
DescribeCycle(const std::vector<Ptr<RoceSwitch>>& switches,
              const std::vector<Vertex>& vertices,
              const std::vector<uint32_t>& path,
              const Time& now,
              std::vector<uint64_t>& key)
{
    PfcDeadlock deadlock;
    deadlock.detectedAt = now;
    for (uint32_t v : path)
    {
        const Vertex& vx = vertices[v];
        Ptr<RoceNetDevice> dev = switches[vx.sw]->GetPort(vx.port);
        Ptr<Node> node = dev->GetNode();
        std::string name = Names::FindName(node);
        if (name.empty())
        {
            name = "node " + std::to_string(node->GetId());
        }
        deadlock.cycle.push_back({node->GetId(), name, vx.port, vx.priority});
        deadlock.formedAt = std::max(deadlock.formedAt, dev->GetPausedSince(vx.priority));
        key.push_back(uint64_t{node->GetId()} << 32 | vx.port << 8 | vx.priority);
    }
    return deadlock;
}

} // namespace

std::string
PfcDeadlock::Describe() const
{
    std::ostringstream os;
    for (const auto& q : cycle)
    {
        os << q.name << " port " << q.port << " prio " << +q.priority << " -> ";
    }
    if (!cycle.empty())
    {
        os << cycle.front().name << " port " << cycle.front().port;
    }
    return os.str();
}

TypeId
PfcDeadlockDetector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PfcDeadlockDetector")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<PfcDeadlockDetector>()
            .AddAttribute("PersistTime",
                          "A queue counts in the wait-for graph once its port has been paused "
                          "without a break this long; a PFC XOFF schedules a check after it.",
                          TimeValue(MicroSeconds(200)),
                          MakeTimeAccessor(&PfcDeadlockDetector::m_persist),
                          MakeTimeChecker(NanoSeconds(1), Seconds(10)))
            .AddAttribute("CheckInterval",
                          "Time between checks while paused queues persist.",
                          TimeValue(MicroSeconds(200)),
                          MakeTimeAccessor(&PfcDeadlockDetector::m_interval),
                          MakeTimeChecker(NanoSeconds(1), Seconds(10)))
            .AddTraceSource("Deadlock",
                            "A cycle of paused queues was found.",
                            MakeTraceSourceAccessor(&PfcDeadlockDetector::m_deadlockTrace),
                            "ns3::PfcDeadlockDetector::DeadlockTracedCallback");
    return tid;
}

PfcDeadlockDetector::PfcDeadlockDetector() = default;
PfcDeadlockDetector::~PfcDeadlockDetector() = default;

void
PfcDeadlockDetector::DoDispose()
{
    m_checkEvent.Cancel();
    m_switches.clear();
    Object::DoDispose();
}

void
PfcDeadlockDetector::Install(const std::vector<Ptr<RoceSwitch>>& switches)
{
    NS_LOG_FUNCTION(this << switches.size());
    for (const auto& sw : switches)
    {
        m_switches.push_back(sw);
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            sw->GetPort(p)->TraceConnectWithoutContext(
                "PfcReceived",
                MakeCallback(&PfcDeadlockDetector::OnPfc, this));
        }
    }
    Simulator::ScheduleDestroy(&PfcDeadlockDetector::Dispose, Ptr<PfcDeadlockDetector>(this));
}

const std::vector<PfcDeadlock>&
PfcDeadlockDetector::GetDeadlocks() const
{
    return m_deadlocks;
}

void
PfcDeadlockDetector::OnPfc(uint8_t /* priority */, uint16_t quanta)
{
    if (quanta != 0)
    {
        ScheduleCheck(m_persist);
    }
}

void
PfcDeadlockDetector::ScheduleCheck(Time delay)
{
    if (m_checkEvent.IsExpired())
    {
        m_checkEvent = Simulator::Schedule(delay, &PfcDeadlockDetector::Check, this);
    }
}

void
PfcDeadlockDetector::Check()
{
    const Time now = Simulator::Now();

    // Vertices: persistently paused egress queues that hold frames.
    std::vector<Vertex> vertices;
    Time next = m_interval;                    // the next check, while paused queues persist
    std::map<uint32_t, uint32_t> switchOfNode; // node id -> index in m_switches
    FindPausedQueues(m_switches, now, m_persist, vertices, next, switchOfNode);
    NS_LOG_LOGIC(vertices.size() << " persistently paused queues");
    if (vertices.empty())
    {
        if (next < m_interval)
        {
            ScheduleCheck(next); // paused queues that will count soon
        }
        return; // otherwise the next XOFF schedules the next check
    }
    WaitForGraph graph(vertices.size());
    std::vector<bool> selfLoop(vertices.size(), false);
    AddWaitForEdges(m_switches, vertices, switchOfNode, graph, selfLoop);
    std::vector<uint32_t> component(vertices.size());
    const uint32_t nComponents = boost::strong_components(graph, component.data());
    std::vector<std::vector<uint32_t>> members(nComponents);
    for (uint32_t v = 0; v < vertices.size(); ++v)
    {
        members[component[v]].push_back(v);
    }
    for (const auto& scc : members)
    {
        if (scc.empty() || (scc.size() == 1 && !selfLoop[scc[0]]))
        {
            continue;
        }
        const std::vector<uint32_t> path = FindCycle(graph, component, scc.front());
        std::vector<uint64_t> key;
        PfcDeadlock deadlock = DescribeCycle(m_switches, vertices, path, now, key);
        std::sort(key.begin(), key.end());
        if (!m_reported.insert(key).second)
        {
            continue;
        }
        NS_LOG_WARN("PFC deadlock at " << now.As(Time::US) << " (formed by "
                                       << deadlock.formedAt.As(Time::US)
                                       << "): " << deadlock.Describe());
        m_deadlocks.push_back(deadlock);
        m_deadlockTrace(m_deadlocks.back());
    }
    ScheduleCheck(next);
}

} // namespace ns3
