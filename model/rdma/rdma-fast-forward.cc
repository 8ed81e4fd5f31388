// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-fast-forward.h"

#include "rdma-nic.h"
#include "rdma-queue-pair.h"
#include "rdma-route.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame-info.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaFastForward");
NS_OBJECT_ENSURE_REGISTERED(RdmaFastForward);

/// The RdmaFastForward log component, for the class's other source file (its skips).
LogComponent&
RdmaFastForwardLogComponent()
{
    return g_log;
}

namespace
{
} // namespace

TypeId
RdmaFastForward::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaFastForward")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<RdmaFastForward>()
            .AddAttribute("SteadyWindow",
                          "How long a queue pair must have sent at a constant gap, with a "
                          "constant RTT (at least two samples) and no congestion signal, and "
                          "the ports of its group must have received no PFC frame, before a "
                          "skip; a few RTTs (and never less than two RTT samples; see "
                          "WarmWindow for the group of a skip that ended as planned).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&RdmaFastForward::m_window),
                          MakeTimeChecker(NanoSeconds(100), Seconds(1)))
            .AddAttribute("WarmWindow",
                          "The steadiness window of a queue pair whose last skip ended as "
                          "planned, with nothing since that could change its pace (a "
                          "congestion signal, a rate change, a timeout, a PFC frame on its "
                          "ports, a link change): one RTT sample closes it, and it holds if "
                          "its mean gap is that skip's period (0.5 %) and its RTTs those since "
                          "its last full window. A skip on warm windows needs the group of "
                          "that skip again (the same queue pairs: a ring's next step, say); "
                          "any other group measures a full SteadyWindow. At most "
                          "SteadyWindow (more is SteadyWindow).",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&RdmaFastForward::m_warmWindow),
                          MakeTimeChecker(NanoSeconds(100), Seconds(1)))
            .AddAttribute("MinSkip",
                          "Skips that would end sooner than this are not started (each one "
                          "costs the queue pairs a new window afterwards).",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&RdmaFastForward::m_minSkip),
                          MakeTimeChecker(Seconds(0), Seconds(1)))
            .AddAttribute("EndPackets",
                          "Packets at the end of every message (and of every WRITE of a "
                          "message) that are always sent for real, so that completions, "
                          "opcodes and the ACKs around them are simulated (4: one of the "
                          "receiver's default ACK intervals).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&RdmaFastForward::m_endPackets),
                          MakeUintegerChecker<uint32_t>(1, 1u << 20))
            .AddTraceSource("SkipStarted",
                            "A skip started: queue pairs, planned end.",
                            MakeTraceSourceAccessor(&RdmaFastForward::m_skipStartedTrace),
                            "ns3::RdmaFastForward::SkipStartedTracedCallback")
            .AddTraceSource("SkipEnded",
                            "A skip ended: duration, data packets skipped, interrupted.",
                            MakeTraceSourceAccessor(&RdmaFastForward::m_skipEndedTrace),
                            "ns3::RdmaFastForward::SkipEndedTracedCallback");
    return tid;
}

RdmaFastForward::RdmaFastForward()
{
    NS_LOG_FUNCTION(this);
}

RdmaFastForward::~RdmaFastForward() = default;

void
RdmaFastForward::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& [id, skip] : m_skips)
    {
        skip.end.Cancel();
    }
    m_skips.clear();
    m_rerouteEvent.Cancel();
    m_watched.clear();
    m_order.clear();
    m_users.clear();
    m_pending.clear();
    Object::DoDispose();
}

void
RdmaFastForward::Install(const std::vector<Ptr<RdmaNic>>& nics,
                         const std::vector<Ptr<RoceSwitch>>& switches)
{
    NS_LOG_FUNCTION(this << nics.size() << switches.size());
    std::vector<Ptr<RoceNetDevice>> ports;
    for (const Ptr<RdmaNic>& nic : nics)
    {
        nic->SetFastForward(this);
        ports.push_back(nic->GetDevice());
    }
    for (const Ptr<RoceSwitch>& sw : switches)
    {
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            ports.push_back(sw->GetPort(p));
        }
    }
    for (const Ptr<RoceNetDevice>& port : ports)
    {
        port->TraceConnectWithoutContext(
            "PfcReceived",
            MakeCallback(&RdmaFastForward::OnPfc, this)
                .Bind(static_cast<const RoceNetDevice*>(PeekPointer(port))));
        port->AddLinkChangeCallback(MakeCallback(&RdmaFastForward::Disturb, this));
    }
    m_quietSince = Simulator::Now() - m_window;
    // It lives as long as the fabric it watches: Simulator::Destroy() disposes it.
    Simulator::ScheduleDestroy(&RdmaFastForward::Dispose, Ptr<RdmaFastForward>(this));
}

Time
RdmaFastForward::GetSteadyWindow() const
{
    return m_window;
}

Time
RdmaFastForward::GetWarmWindow() const
{
    return std::min(m_warmWindow, m_window);
}

uint64_t
RdmaFastForward::GetSkips() const
{
    NS_LOG_FUNCTION(this);
    return m_nSkips;
}

uint64_t
RdmaFastForward::GetInterruptedSkips() const
{
    NS_LOG_FUNCTION(this);
    return m_interrupted;
}

uint64_t
RdmaFastForward::GetSkippedPackets() const
{
    NS_LOG_FUNCTION(this);
    return m_skippedPackets;
}

uint64_t
RdmaFastForward::GetSkippedPayloadBytes() const
{
    NS_LOG_FUNCTION(this);
    return m_skippedBytes;
}

void
RdmaFastForward::Register(RdmaQueuePair* qp)
{
    Watched& w = m_watched[qp];
    w.order = m_order.size();
    m_order.push_back(qp);
    const Ptr<RdmaQueuePair> peer = qp->GetPeerQueuePair();
    w.routed = peer && TraceQueuePairRoute(qp, w.dataPath) &&
               TraceQueuePairRoute(PeekPointer(peer), w.ackPath);
    if (!w.routed)
    {
        NS_LOG_LOGIC("QP " << qp->GetQpn() << ": no path known: no skip while it is active");
        w.dataPath.clear();
        w.ackPath.clear();
        ++m_unrouted;
        return;
    }
    w.baseRtt = Time();
    for (const auto* path : {&w.dataPath, &w.ackPath})
    {
        const uint32_t frameBytes =
            path == &w.dataPath ? qp->GetNic()->GetPayloadMtu() : roce::ACK_FRAME_BYTES;
        for (const Ptr<RoceNetDevice>& port : *path)
        {
            std::vector<RdmaQueuePair*>& users = m_users[PeekPointer(port)];
            if (users.empty() || users.back() != qp)
            {
                users.push_back(qp);
            }
            w.baseRtt += HopDelay(port, frameBytes);
        }
    }
}

void
RdmaFastForward::Unregister(RdmaQueuePair* qp)
{
    auto it = m_watched.find(qp);
    Watched& w = it->second;
    for (const auto* path : {&w.dataPath, &w.ackPath})
    {
        for (const Ptr<RoceNetDevice>& port : *path)
        {
            std::vector<RdmaQueuePair*>& users = m_users[PeekPointer(port)];
            users.erase(std::remove(users.begin(), users.end(), qp), users.end());
        }
    }
    if (!w.routed)
    {
        --m_unrouted;
    }
    const std::size_t index = w.order;
    if (index + 1 != m_order.size())
    {
        m_order[index] = m_order.back();
        m_watched[m_order[index]].order = index;
    }
    m_order.pop_back();
    m_watched.erase(it);
}

std::vector<RdmaQueuePair*>
RdmaFastForward::Sharers(const RdmaQueuePair* qp)
{
    const Watched& w = m_watched.at(const_cast<RdmaQueuePair*>(qp));
    std::vector<RdmaQueuePair*> sharers;
    for (const auto* path : {&w.dataPath, &w.ackPath})
    {
        for (const Ptr<RoceNetDevice>& port : *path)
        {
            for (RdmaQueuePair* other : m_users[PeekPointer(port)])
            {
                if (other != qp &&
                    std::find(sharers.begin(), sharers.end(), other) == sharers.end())
                {
                    sharers.push_back(other);
                }
            }
        }
    }
    return sharers;
}

void
RdmaFastForward::ResetSharers(const RdmaQueuePair* qp)
{
    // One more or one less queue pair on a port changes the pace of the others there, once
    // its data and its ACKs have reached (or left) the ports: within its RTT. A window that
    // began sooner would measure the pace without the reverse flow's ACKs on the port.
    const Time notBefore = Simulator::Now() + m_watched.at(const_cast<RdmaQueuePair*>(qp)).baseRtt;
    for (RdmaQueuePair* other : Sharers(qp))
    {
        other->ResetSteadiness(notBefore);
    }
}

void
RdmaFastForward::EndSkipsOnPorts(const RdmaQueuePair* qp)
{
    std::vector<uint64_t> ids;
    for (RdmaQueuePair* other : Sharers(qp))
    {
        const uint64_t id = m_watched.at(other).skip;
        if (id != 0 && std::find(ids.begin(), ids.end(), id) == ids.end())
        {
            ids.push_back(id);
        }
    }
    for (uint64_t id : ids)
    {
        NS_LOG_LOGIC("QP " << qp->GetQpn() << " starts over the ports of skip " << id
                           << ": it ends");
        End(id, true);
    }
}

void
RdmaFastForward::NotifyActive(RdmaQueuePair* qp)
{
    NS_LOG_FUNCTION(this << qp);
    if (m_watched.count(qp))
    {
        // More data for a queue pair already sending: its pace does not change (a skipped
        // one keeps its plan, which ends before the message it is in).
        return;
    }
    Register(qp);
    if (m_unrouted > 0)
    {
        // Where it goes is unknown: it may cross any skip.
        while (!m_skips.empty())
        {
            End(m_skips.begin()->first, true);
        }
        return;
    }
    EndSkipsOnPorts(qp);
    ResetSharers(qp);
}

void
RdmaFastForward::NotifyIdle(RdmaQueuePair* qp)
{
    NS_LOG_FUNCTION(this << qp);
    auto it = m_watched.find(qp);
    if (it == m_watched.end())
    {
        return;
    }
    if (it->second.skip != 0)
    {
        End(it->second.skip, true);
    }
    ResetSharers(qp);
    Unregister(qp);
}

void
RdmaFastForward::NotifyGone(RdmaQueuePair* qp)
{
    NS_LOG_FUNCTION(this << qp);
    m_pending.erase(std::remove(m_pending.begin(), m_pending.end(), qp), m_pending.end());
    NotifyIdle(qp);
}

void
RdmaFastForward::NotifyResumed(RdmaQueuePair* qp)
{
    NS_LOG_FUNCTION(this << qp);
    auto it = m_watched.find(qp);
    if (it == m_watched.end() || !it->second.routed)
    {
        return;
    }
    // Every queue pair on its ports (one on several of them more than once: resetting a
    // window twice is resetting it once), without collecting them: this runs at every
    // pause of every watched queue pair.
    const Time notBefore = Simulator::Now() + it->second.baseRtt;
    for (const auto* path : {&it->second.dataPath, &it->second.ackPath})
    {
        for (const Ptr<RoceNetDevice>& port : *path)
        {
            for (RdmaQueuePair* other : m_users[PeekPointer(port)])
            {
                // A skipping queue pair has no sharer outside its skip; the check keeps
                // it so.
                if (other != qp && m_watched.at(other).skip == 0)
                {
                    other->ResetSteadiness(notBefore);
                }
            }
        }
    }
}

void
RdmaFastForward::NotifySteady(RdmaQueuePair* qp, bool steady)
{
    NS_LOG_FUNCTION(this << qp << steady);
    auto it = m_watched.find(qp);
    if (it == m_watched.end())
    {
        return; // it counts once it posts
    }
    it->second.steady = steady;
    if (steady)
    {
        ScheduleTry(qp);
    }
    else if (it->second.skip != 0)
    {
        // A congestion signal (CNP, ECN echo, NAK, timeout, rate change) reached a skipped
        // queue pair, answering packets sent before the skip: its pace may change now.
        NS_LOG_LOGIC("QP " << qp->GetQpn() << " is not steady any more: skip " << it->second.skip
                           << " ends");
        End(it->second.skip, true);
    }
}

void
RdmaFastForward::OnPfc(const RoceNetDevice* port, uint8_t /* priority */, uint16_t /* quanta */)
{
    m_lastPfc[port] = Simulator::Now();
    auto it = m_users.find(port);
    if (it == m_users.end())
    {
        return;
    }
    for (RdmaQueuePair* qp : std::vector<RdmaQueuePair*>(it->second))
    {
        if (qp->GetWarmSkip() != 0)
        {
            // A pause: its pace is measured anew, in a full window (a warm one that
            // closed already would otherwise count as full).
            qp->SetWarm(0, 0, 0);
            qp->ResetSteadiness(Simulator::Now());
        }
        auto w = m_watched.find(qp);
        if (w != m_watched.end() && w->second.skip != 0)
        {
            NS_LOG_LOGIC("PFC on a port of skip " << w->second.skip << ": it ends");
            End(w->second.skip, true);
        }
    }
}

void
RdmaFastForward::Disturb()
{
    NS_LOG_FUNCTION(this);
    NS_LOG_LOGIC("a link changed: every skip ends, routes are traced again in "
                 << m_window.As(Time::US));
    m_quietSince = Simulator::Now();
    m_warmFloor = m_nextSkip; // the paths may differ: no warm window counts
    while (!m_skips.empty())
    {
        End(m_skips.begin()->first, true);
    }
    m_rerouteEvent.Cancel();
    m_rerouteEvent = Simulator::Schedule(m_window, &RdmaFastForward::Reroute, this);
}

void
RdmaFastForward::Reroute()
{
    NS_LOG_FUNCTION(this);
    const std::vector<RdmaQueuePair*> order = m_order;
    std::vector<bool> steady;
    for (RdmaQueuePair* qp : order)
    {
        steady.push_back(m_watched.at(qp).steady);
        Unregister(qp);
    }
    for (std::size_t i = 0; i < order.size(); ++i)
    {
        Register(order[i]);
        m_watched.at(order[i]).steady = steady[i];
        if (steady[i])
        {
            ScheduleTry(order[i]);
        }
    }
}

void
RdmaFastForward::ScheduleTry(RdmaQueuePair* qp)
{
    m_pending.push_back(qp);
    if (!m_tryScheduled)
    {
        m_tryScheduled = true;
        Simulator::ScheduleNow(&RdmaFastForward::TryPending, this);
    }
}

void
RdmaFastForward::TryPending()
{
    m_tryScheduled = false;
    std::vector<RdmaQueuePair*> pending;
    pending.swap(m_pending);
    std::unordered_map<RdmaQueuePair*, bool> visited;
    for (RdmaQueuePair* qp : pending)
    {
        if (m_watched.count(qp) && !visited[qp])
        {
            TryStart(qp, visited);
        }
    }
}


} // namespace ns3
