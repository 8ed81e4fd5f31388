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
    struct Vertex
    {
        uint32_t sw;
        uint32_t port;
        uint8_t priority;
    };

    std::vector<Vertex> vertices;
    Time next = m_interval;                    // the next check, while paused queues persist
    std::map<uint32_t, uint32_t> switchOfNode; // node id -> index in m_switches
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        Ptr<RoceSwitch> sw = m_switches[s];
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
                if (pausedFor >= m_persist)
                {
                    vertices.push_back({s, p, q});
                }
                else
                {
                    next = std::min(next, m_persist - pausedFor); // when it will count
                }
            }
        }
    }
    NS_LOG_LOGIC(vertices.size() << " persistently paused queues");
    if (vertices.empty())
    {
        if (next < m_interval)
        {
            ScheduleCheck(next); // paused queues that will count soon
        }
        return; // otherwise the next XOFF schedules the next check
    }
    // Edges: X = (A, p), p cabled to B, waits for B's buffer, which B's egress queues of
    // the priority free as they drain. If one of them holds frames and is not paused, B
    // drains and X will move; otherwise X waits for every paused queue of B (the buffer
    // is shared: whichever drains first frees room).
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    Graph graph(vertices.size());
    std::vector<bool> selfLoop(vertices.size(), false);
    for (uint32_t x = 0; x < vertices.size(); ++x)
    {
        Ptr<RoceNetDevice> dev = m_switches[vertices[x].sw]->GetPort(vertices[x].port);
        Ptr<RoceNetDevice> peer = dev->GetRoceChannel()->GetPeer(dev);
        auto it = switchOfNode.find(peer->GetNode()->GetId());
        if (it == switchOfNode.end())
        {
            continue; // paused by a host: not part of a switch cycle
        }
        Ptr<RoceSwitch> b = m_switches[it->second];
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
        // One cycle through the component's first queue: breadth-first from it, within
        // the component, back to it.
        const uint32_t start = scc.front();
        const uint32_t comp = component[start];
        std::vector<int64_t> parent(vertices.size(), -1);
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
        std::vector<uint64_t> key;
        PfcDeadlock deadlock;
        deadlock.detectedAt = now;
        for (uint32_t v : path)
        {
            const Vertex& vx = vertices[v];
            Ptr<RoceNetDevice> dev = m_switches[vx.sw]->GetPort(vx.port);
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
