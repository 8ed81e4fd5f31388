// SPDX-License-Identifier: GPL-2.0-only
#include "roce-swift.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwift");
NS_OBJECT_ENSURE_REGISTERED(RoceSwift);

TypeId
RoceSwift::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceSwift")
            .SetParent<RoceCongestionControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<RoceSwift>()
            .AddAttribute("Ai",
                          "Additive increment, packets per RTT below the target.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RoceSwift::m_ai),
                          MakeDoubleChecker<double>(1e-6, 1000))
            .AddAttribute("Beta",
                          "Multiplicative-decrease constant: the cut is Beta × (delay − "
                          "target) / delay.",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&RoceSwift::m_beta),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("MaxMdf",
                          "Largest multiplicative decrease: cwnd never falls below (1 − "
                          "MaxMdf) × cwnd in one cut.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&RoceSwift::m_maxMdf),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("BaseTarget",
                          "Target delay of a one-hop path with a large window.",
                          TimeValue(MicroSeconds(25)),
                          MakeTimeAccessor(&RoceSwift::m_baseTarget),
                          MakeTimeChecker(NanoSeconds(1), Seconds(1)))
            .AddAttribute("PerHopScaling",
                          "Target added per switch on the path (topology scaling).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&RoceSwift::m_perHop),
                          MakeTimeChecker(Seconds(0), Seconds(1)))
            .AddAttribute("Hops",
                          "Switches on the path, for PerHopScaling (the module's switches do "
                          "not decrement the TTL Swift counts them with).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceSwift::m_hops),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddAttribute("FsRange",
                          "Flow scaling: the target added at FsMinCwnd packets (none at "
                          "FsMaxCwnd), so small windows get a larger target.",
                          TimeValue(MicroSeconds(25)),
                          MakeTimeAccessor(&RoceSwift::m_fsRange),
                          MakeTimeChecker(Seconds(0), Seconds(1)))
            .AddAttribute("FsMinCwnd",
                          "Flow scaling: window (packets) that gets the whole FsRange.",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&RoceSwift::m_fsMinCwnd),
                          MakeDoubleChecker<double>(1e-6, 1e6))
            .AddAttribute("FsMaxCwnd",
                          "Flow scaling: window (packets) from which no range is added.",
                          DoubleValue(100),
                          MakeDoubleAccessor(&RoceSwift::m_fsMaxCwnd),
                          MakeDoubleChecker<double>(1e-6, 1e6))
            .AddAttribute("MinCwnd",
                          "Smallest window, packets (below 1 the queue pair paces).",
                          DoubleValue(0.001),
                          MakeDoubleAccessor(&RoceSwift::m_minCwnd),
                          MakeDoubleChecker<double>(1e-6, 1))
            .AddAttribute("RetxResetThreshold",
                          "Timeouts in a row after which the window drops to MinCwnd.",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RoceSwift::m_retxReset),
                          MakeUintegerChecker<uint32_t>(1, 1000))
            .AddTraceSource("Cwnd",
                            "Window in packets after a change.",
                            MakeTraceSourceAccessor(&RoceSwift::m_cwndTrace),
                            "ns3::RoceSwift::CwndTracedCallback");
    return tid;
}

RoceSwift::RoceSwift()
{
    NS_LOG_FUNCTION(this);
}

RoceSwift::~RoceSwift()
{
    NS_LOG_FUNCTION(this);
}

RoceSignalNeeds
RoceSwift::GetSignalNeeds() const
{
    RoceSignalNeeds needs;
    needs.rttPerAck = true;
    return needs;
}

bool
RoceSwift::CheckConfiguration(std::string* error) const
{
    if (m_fsMaxCwnd <= m_fsMinCwnd)
    {
        std::ostringstream os;
        os << "ns3::RoceSwift::FsMaxCwnd: " << m_fsMaxCwnd << " must exceed FsMinCwnd ("
           << m_fsMinCwnd << ")";
        *error = os.str();
        return false;
    }
    return true;
}

double
RoceSwift::GetCwnd() const
{
    return m_cwnd;
}

Time
RoceSwift::GetTargetDelay(double cwnd) const
{
    const double range = m_fsRange.GetSeconds();
    const double alpha = range / (1 / std::sqrt(m_fsMinCwnd) - 1 / std::sqrt(m_fsMaxCwnd));
    const double betaPrime = -alpha / std::sqrt(m_fsMaxCwnd);
    const double flow =
        std::max(0.0, std::min(alpha / std::sqrt(std::max(cwnd, 1e-9)) + betaPrime, range));
    return m_baseTarget + m_perHop * static_cast<int64_t>(m_hops) + Seconds(flow);
}

void
RoceSwift::Apply()
{
    m_cwnd = std::max(m_cwnd, m_minCwnd);
    SetWindowBytes(static_cast<uint64_t>(std::max(m_cwnd, 1.0) * m_mss));
    if (m_cwnd < 1 && m_rtt.IsStrictlyPositive())
    {
        // Below a packet per RTT: one packet in flight, spaced RTT / cwnd apart.
        SetRateBps(m_cwnd * m_mss * 8 / m_rtt.GetSeconds());
    }
    else
    {
        SetRateBps(static_cast<double>(GetLineRateBps()));
    }
    m_cwndTrace(m_cwnd);
}

void
RoceSwift::Decrease(double factor)
{
    const Time now = Simulator::Now();
    if (m_decreased && now - m_lastDecrease < m_rtt)
    {
        return; // at most once per RTT
    }
    NS_LOG_LOGIC("cut by " << factor << ": cwnd " << m_cwnd << " -> " << m_cwnd * factor);
    m_cwnd *= factor;
    m_lastDecrease = now;
    m_decreased = true;
    Apply();
}

void
RoceSwift::OnAck(const RoceAckSignal& signal)
{
    m_retxCount = 0;
    if (signal.ackedPackets > 0)
    {
        m_mss = signal.ackedBytes / signal.ackedPackets;
    }
    if (!signal.rtt.IsStrictlyPositive() || m_mss == 0)
    {
        return;
    }
    m_rtt = signal.rtt;
    if (m_cwnd == 0)
    {
        m_cwnd = std::max(1.0, GetLineRateBps() * m_rtt.GetSeconds() / 8 / m_mss);
        NS_LOG_LOGIC("first RTT " << m_rtt.As(Time::US) << ": cwnd " << m_cwnd << " packets");
        Apply();
        return;
    }
    const Time target = GetTargetDelay(m_cwnd);
    if (m_rtt < target)
    {
        m_cwnd += m_cwnd >= 1 ? m_ai / m_cwnd * signal.ackedPackets : m_ai * signal.ackedPackets;
        Apply();
    }
    else
    {
        const double over = (m_rtt - target).GetSeconds() / m_rtt.GetSeconds();
        NS_LOG_LOGIC("delay " << m_rtt.As(Time::US) << " over target " << target.As(Time::US));
        Decrease(std::max(1 - m_beta * over, 1 - m_maxMdf));
    }
}

void
RoceSwift::OnNak()
{
    m_retxCount = 0;
    if (m_cwnd > 0)
    {
        NS_LOG_LOGIC("NAK: fast recovery");
        Decrease(1 - m_maxMdf);
    }
}

void
RoceSwift::OnTimeout()
{
    if (m_cwnd == 0)
    {
        return;
    }
    if (++m_retxCount >= m_retxReset)
    {
        NS_LOG_LOGIC(m_retxCount << " timeouts in a row: cwnd " << m_minCwnd);
        m_cwnd = m_minCwnd;
        m_lastDecrease = Simulator::Now();
        m_decreased = true;
        Apply();
        return;
    }
    Decrease(1 - m_maxMdf);
}

} // namespace ns3
