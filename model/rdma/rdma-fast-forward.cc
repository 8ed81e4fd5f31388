// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-fast-forward.h"

#include "rdma-nic.h"
#include "rdma-queue-pair.h"

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

namespace
{
/// An ACK frame without FCS: Ethernet, IPv4, UDP, BTH, AETH and ICRC.
constexpr uint32_t ACK_FRAME_BYTES = roce::DATA_HEADER_BYTES + roce::AETH_BYTES + roce::ICRC_BYTES;
/// Switches a path may cross before TracePath gives up (a routing loop).
constexpr uint32_t MAX_HOPS = 64;
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
                          "the fabric must have been free of pauses, marks and drops, before "
                          "a skip; a few RTTs.",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&RdmaFastForward::m_window),
                          MakeTimeChecker(NanoSeconds(100), Seconds(1)))
            .AddAttribute("MinSkip",
                          "Skips that would end sooner than this are not started (each one "
                          "costs the queue pairs a new SteadyWindow afterwards).",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&RdmaFastForward::m_minSkip),
                          MakeTimeChecker(Seconds(0), Seconds(1)))
            .AddAttribute("EndPackets",
                          "Packets at the end of every message (and of every WRITE of a "
                          "message) that are always sent for real, so that completions, "
                          "opcodes and the ACKs around them are simulated.",
                          UintegerValue(16),
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
    m_endEvent.Cancel();
    m_retryEvent.Cancel();
    m_skipped.clear();
    m_active.clear();
    m_activeIndex.clear();
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
        sw->TraceConnectWithoutContext("Drop", MakeCallback(&RdmaFastForward::OnDrop, this));
        sw->TraceConnectWithoutContext("EcnMark",
                                       MakeCallback(&RdmaFastForward::OnFrameLost, this));
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            ports.push_back(sw->GetPort(p));
        }
    }
    for (const Ptr<RoceNetDevice>& port : ports)
    {
        port->TraceConnectWithoutContext("PfcReceived",
                                         MakeCallback(&RdmaFastForward::OnPfc, this));
        port->TraceConnectWithoutContext("PhyRxDrop",
                                         MakeCallback(&RdmaFastForward::OnFrameLost, this));
        port->AddLinkChangeCallback(MakeCallback(&RdmaFastForward::Disturb, this));
    }
    m_quietSince = Simulator::Now();
}

Time
RdmaFastForward::GetSteadyWindow() const
{
    return m_window;
}

uint64_t
RdmaFastForward::GetSkips() const
{
    NS_LOG_FUNCTION(this);
    return m_skips;
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

Time
RdmaFastForward::GetSkippedTime() const
{
    NS_LOG_FUNCTION(this);
    return m_skippedTime;
}

void
RdmaFastForward::NotifyActive(RdmaQueuePair* qp)
{
    NS_LOG_FUNCTION(this << qp);
    if (!m_skipped.empty())
    {
        NS_LOG_LOGIC("QP " << qp->GetQpn() << " posted data: the skip ends");
        End(true);
    }
    if (m_activeIndex.emplace(qp, m_active.size()).second)
    {
        m_active.push_back(qp);
        ResetPortSharers(qp);
    }
}

void
RdmaFastForward::NotifyIdle(RdmaQueuePair* qp)
{
    NS_LOG_FUNCTION(this << qp);
    auto it = m_activeIndex.find(qp);
    if (it == m_activeIndex.end())
    {
        return;
    }
    const std::size_t index = it->second;
    m_activeIndex.erase(it);
    if (index + 1 != m_active.size())
    {
        m_active[index] = m_active.back();
        m_activeIndex[m_active[index]] = index;
    }
    m_active.pop_back();
    ResetPortSharers(qp);
    ScheduleTry(); // the others may all be steady
}

void
RdmaFastForward::ResetPortSharers(const RdmaQueuePair* qp)
{
    // The NIC serves its queue pairs in turn: one more or one less changes their pace.
    const Ptr<RdmaNic> nic = qp->GetNic();
    for (RdmaQueuePair* other : m_active)
    {
        if (other != qp && other->GetNic() == nic)
        {
            other->ResetSteadiness();
        }
    }
}

void
RdmaFastForward::NotifyGone(RdmaQueuePair* qp)
{
    NS_LOG_FUNCTION(this << qp);
    for (Skipped& s : m_skipped)
    {
        if (s.qp == qp)
        {
            End(true);
            break;
        }
    }
    NotifyIdle(qp);
}

void
RdmaFastForward::NotifySteady(RdmaQueuePair* qp, bool steady)
{
    NS_LOG_FUNCTION(this << qp << steady);
    if (!m_activeIndex.count(qp))
    {
        return; // it counts once it posts
    }
    if (steady)
    {
        ++m_steady;
        ScheduleTry();
    }
    else
    {
        NS_ASSERT(m_steady > 0);
        --m_steady;
    }
}

void
RdmaFastForward::OnPfc(uint8_t /* priority */, uint16_t /* quanta */)
{
    Disturb();
}

void
RdmaFastForward::OnFrameLost(Ptr<const Packet> /* packet */)
{
    Disturb();
}

void
RdmaFastForward::OnDrop(Ptr<const Packet> /* packet */, uint32_t /* reason */)
{
    Disturb();
}

void
RdmaFastForward::Disturb()
{
    NS_LOG_FUNCTION(this);
    m_quietSince = Simulator::Now();
    if (!m_skipped.empty())
    {
        NS_LOG_LOGIC("a pause, mark, drop or link change: the skip ends");
        End(true);
    }
}

void
RdmaFastForward::ScheduleTry()
{
    if (!m_tryPending && m_skipped.empty() && !m_active.empty() && m_steady >= m_active.size())
    {
        m_tryPending = true;
        Simulator::ScheduleNow(&RdmaFastForward::TryStart, this);
    }
}

void
RdmaFastForward::TryStart()
{
    NS_LOG_FUNCTION(this);
    m_tryPending = false;
    if (!m_skipped.empty() || m_active.empty() || m_steady < m_active.size())
    {
        return;
    }
    const Time now = Simulator::Now();
    if (now - m_quietSince < m_window)
    {
        NS_LOG_LOGIC("all " << m_active.size() << " queue pairs steady, the fabric quiet only since "
                            << m_quietSince.As(Time::US));
        if (m_retryEvent.IsExpired())
        {
            m_retryEvent = Simulator::Schedule(m_quietSince + m_window - now,
                                               &RdmaFastForward::TryStart,
                                               this);
        }
        return;
    }
    std::vector<Skipped> skip;
    skip.reserve(m_active.size());
    Time end = Time::Max();
    for (RdmaQueuePair* qp : m_active)
    {
        Skipped s{qp, RoceSkippedFrames(), {}, {}};
        if (!qp->IsSteady(now) || !qp->PlanSkip(m_endPackets, s.plan))
        {
            NS_LOG_LOGIC("QP " << qp->GetQpn() << " is not steady now, or near its end: no skip");
            return;
        }
        end = std::min(end, s.plan.StartOf(s.plan.maxFrames));
        skip.push_back(std::move(s));
    }
    if (end - now < m_minSkip)
    {
        NS_LOG_LOGIC("a skip would end at " << end.As(Time::US) << ": too short");
        return;
    }
    for (Skipped& s : skip)
    {
        if (!TracePath(s.qp, s.dataPath) || !TracePath(PeekPointer(s.qp->GetPeerQueuePair()), s.ackPath))
        {
            NS_LOG_LOGIC("QP " << s.qp->GetQpn() << ": no path: no skip");
            return;
        }
    }
    for (Skipped& s : skip)
    {
        s.qp->BeginSkip();
        // The data on its way, then one ACK every AckEvery packets on the way back; each
        // port sees a stream later than the one before (cable, store and forward).
        RoceSkippedFrames here = s.plan;
        for (const Ptr<RoceNetDevice>& port : s.dataPath)
        {
            port->AddSkippedFrames(here);
            here.delay += HopDelay(port, here.frameBytes);
        }
        const uint64_t every = AckEvery(PeekPointer(s.qp->GetPeerQueuePair()->GetNic()),
                                        s.plan.periodPs);
        here.periodPs = s.plan.periodPs * static_cast<double>(every);
        here.frameBytes = ACK_FRAME_BYTES;
        here.maxFrames = s.plan.maxFrames / every;
        for (const Ptr<RoceNetDevice>& port : s.ackPath)
        {
            port->AddSkippedFrames(here);
            here.delay += HopDelay(port, here.frameBytes);
        }
    }
    NS_LOG_INFO("skip of " << skip.size() << " queue pairs from " << now.As(Time::US) << " to "
                           << end.As(Time::US));
    m_skipped = std::move(skip);
    m_skipStart = now;
    ++m_skips;
    m_endEvent = Simulator::Schedule(end - now, &RdmaFastForward::End, this, false);
    m_skipStartedTrace(static_cast<uint32_t>(m_skipped.size()), end);
}

void
RdmaFastForward::End(bool interrupted)
{
    NS_LOG_FUNCTION(this << interrupted);
    const Time now = Simulator::Now();
    m_endEvent.Cancel();
    // Out of m_skipped first: ending a queue pair's skip may make its NIC send at once.
    std::vector<Skipped> skipped;
    skipped.swap(m_skipped);
    uint64_t packets = 0;
    for (Skipped& s : skipped)
    {
        const uint64_t k = s.plan.FramesBy(now);
        const Ptr<RdmaNic> nic = s.qp->GetNic();
        for (const Ptr<RoceNetDevice>& port : s.dataPath)
        {
            port->SettleSkippedFrames(now);
        }
        for (const Ptr<RoceNetDevice>& port : s.ackPath)
        {
            port->SettleSkippedFrames(now);
        }
        nic->CountSkippedPackets(k);
        packets += k;
        m_skippedBytes += k * nic->GetPayloadMtu();
        s.qp->EndSkip(s.plan, k);
    }
    m_skippedPackets += packets;
    m_skippedTime += now - m_skipStart;
    m_interrupted += interrupted ? 1 : 0;
    NS_LOG_INFO("skip ended at " << now.As(Time::US) << (interrupted ? " (interrupted)" : "")
                                 << ": " << packets << " packets of " << skipped.size()
                                 << " queue pairs");
    m_skipEndedTrace(now - m_skipStart, packets, interrupted);
}

Time
RdmaFastForward::HopDelay(const Ptr<RoceNetDevice>& port, uint32_t frameBytes)
{
    return port->GetRoceChannel()->GetDelay() +
           port->GetDataRate().CalculateBytesTxTime(roce::WireBytes(frameBytes));
}

uint64_t
RdmaFastForward::AckEvery(const RdmaNic* receiver, double periodPs)
{
    // The receiver acknowledges after AckInterval packets, or at the first packet that
    // comes AckCoalescingTime or more after its last ACK.
    const double coalescingPs = static_cast<double>(receiver->GetAckCoalescingTime().GetPicoSeconds());
    const auto byTime = static_cast<uint64_t>(std::max(1.0, std::ceil(coalescingPs / periodPs)));
    return std::min<uint64_t>(receiver->GetAckInterval(), byTime);
}

bool
RdmaFastForward::TracePath(const RdmaQueuePair* qp, std::vector<Ptr<RoceNetDevice>>& path)
{
    const Ptr<RdmaNic> nic = qp->GetNic();
    Ptr<RoceNetDevice> port = nic->GetDevice();
    RoceFrameInfo info;
    info.srcIp = nic->GetAddress().Get();
    info.dstIp = qp->GetPeerAddress().Get();
    info.protocol = roce::IP_PROTOCOL_UDP;
    info.srcPort = qp->GetUdpSourcePort();
    info.dstPort = roce::UDP_DEST_PORT;
    const uint64_t key = info.FlowKey();
    path.clear();
    for (uint32_t hop = 0; hop < MAX_HOPS; ++hop)
    {
        path.push_back(port);
        const Ptr<RoceChannel> cable = port->GetRoceChannel();
        if (!cable || !cable->IsUp())
        {
            return false;
        }
        const Ptr<RoceSwitch> sw = cable->GetPeer(port)->GetNode()->GetObject<RoceSwitch>();
        if (!sw)
        {
            return true; // a host: the peer's NIC
        }
        const uint32_t out = sw->GetRoutingTable().SelectPort(info.dstIp, key, sw->GetEcmpSalt());
        if (out == UINT32_MAX)
        {
            return false;
        }
        port = sw->GetPort(out);
    }
    return false;
}

} // namespace ns3
