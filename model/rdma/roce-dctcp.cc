// SPDX-License-Identifier: GPL-2.0-only
#include "roce-dctcp.h"

#include "../fabric/ai-fabric-compat.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceDctcp");
NS_OBJECT_ENSURE_REGISTERED(RoceDctcp);

TypeId
RoceDctcp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceDctcp")
            .SetParent<RoceCongestionControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<RoceDctcp>()
            .AddAttribute("G",
                          "Gain g of the alpha estimator, in (0, 1] (DCTCP paper: 1/16).",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&RoceDctcp::m_g),
                          MakeDoubleChecker<double>(std::numeric_limits<double>::min(), 1.0))
            .AddAttribute("Mode",
                          "Rate: cut and increase the sending rate (the RoCE flavour of the "
                          "HPCC simulator); Window: a congestion window, as TCP's DCTCP.",
                          EnumValue(RoceDctcp::RATE),
                          aifabric::MakeEnumAccessorCompat<RoceDctcp::Mode>(&RoceDctcp::m_mode),
                          MakeEnumChecker(RoceDctcp::RATE, "Rate", RoceDctcp::WINDOW, "Window"))
            .AddAttribute("RateAi",
                          "Rate mode: additive increase per window of data without a cut "
                          "(HPCC simulator: 1000 Mb/s).",
                          DataRateValue(DataRate("1000Mbps")),
                          MakeDataRateAccessor(&RoceDctcp::m_rateAi),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Rate mode: a cut never takes the rate below this (HPCC simulator: "
                          "100 Mb/s).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RoceDctcp::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("InitialAlpha",
                          "Alpha before the first update (RFC 8257: 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RoceDctcp::m_initialAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialWindow",
                          "Window mode: the first congestion window in bytes; 0: the "
                          "bandwidth-delay product of the first RTT sample at line rate.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceDctcp::m_initialWindow),
                          MakeUintegerChecker<uint64_t>(0, uint64_t{1} << 40))
            .AddTraceSource("Alpha",
                            "Alpha after the update at the end of a window of data.",
                            MakeTraceSourceAccessor(&RoceDctcp::m_alphaTrace),
                            "ns3::RoceDctcp::AlphaTracedCallback");
    return tid;
}

RoceDctcp::RoceDctcp()
{
    NS_LOG_FUNCTION(this);
}

RoceDctcp::~RoceDctcp()
{
    NS_LOG_FUNCTION(this);
}

RoceSignalNeeds
RoceDctcp::GetSignalNeeds() const
{
    RoceSignalNeeds needs;
    needs.exactEcnEcho = true;
    return needs;
}

void
RoceDctcp::Start(uint64_t lineRateBps)
{
    RoceCongestionControl::Start(lineRateBps);
    m_alpha = m_initialAlpha;
    if (m_mode == WINDOW && m_initialWindow > 0)
    {
        m_cwnd = static_cast<double>(m_initialWindow);
        SetWindowBytes(m_initialWindow);
    }
}

double
RoceDctcp::GetAlpha() const
{
    return m_alpha;
}

double
RoceDctcp::GetCongestionWindow() const
{
    return m_cwnd;
}

void
RoceDctcp::BeginWindow(uint64_t inflightBytes)
{
    m_windowStarted = true;
    m_windowEnd = m_acked + inflightBytes;
    m_windowBytes = 0;
    m_windowMarked = 0;
}

void
RoceDctcp::OnAck(const RoceAckSignal& signal)
{
    if (signal.ackedPackets > 0)
    {
        m_mss = signal.ackedBytes / signal.ackedPackets;
    }
    if (m_mode == WINDOW && m_cwnd == 0 && !signal.rtt.IsZero())
    {
        m_cwnd = std::max<double>(m_mss, GetLineRateBps() * signal.rtt.GetSeconds() / 8);
        SetWindowBytes(static_cast<uint64_t>(m_cwnd));
        NS_LOG_LOGIC("first RTT " << signal.rtt.As(Time::US) << ": window " << m_cwnd << " B");
    }
    m_acked += signal.ackedBytes;
    m_lastInflight = signal.inflightBytes;
    bool windowEnded = false;
    if (!m_windowStarted)
    {
        BeginWindow(signal.inflightBytes);
    }
    else
    {
        m_windowBytes += signal.ackedBytes;
        m_windowMarked += signal.ecnEcho ? signal.ackedBytes : 0;
        if (m_acked >= m_windowEnd)
        {
            const double f =
                m_windowBytes ? static_cast<double>(m_windowMarked) / m_windowBytes : 0.0;
            m_alpha = (1 - m_g) * m_alpha + m_g * f;
            NS_LOG_LOGIC("window of " << m_windowBytes << " B, " << m_windowMarked
                                      << " marked: alpha " << m_alpha);
            m_alphaTrace(m_alpha);
            windowEnded = true;
            BeginWindow(signal.inflightBytes);
        }
    }
    const bool cutting = m_acked < m_cutEnd;
    if (signal.ecnEcho && !cutting)
    {
        Cut(1 - m_alpha / 2);
        return;
    }
    if (cutting)
    {
        return;
    }
    if (m_mode == RATE && windowEnded)
    {
        SetRateBps(GetRateBps() + m_rateAi.GetBitRate());
    }
    else if (m_mode == WINDOW && m_cwnd > 0 && signal.ackedBytes > 0)
    {
        m_cwnd += static_cast<double>(m_mss) * signal.ackedBytes / m_cwnd;
        SetWindowBytes(static_cast<uint64_t>(m_cwnd));
    }
}

void
RoceDctcp::Cut(double factor)
{
    if (m_mode == RATE)
    {
        const double rate =
            std::max(GetRateBps() * factor, static_cast<double>(m_minRate.GetBitRate()));
        NS_LOG_LOGIC("cut by " << factor << ": rate " << GetRateBps() << " -> " << rate);
        SetRateBps(rate);
    }
    else
    {
        const double base = m_cwnd > 0 ? m_cwnd : static_cast<double>(m_lastInflight);
        m_cwnd = std::max<double>(std::max<uint64_t>(m_mss, 1), base * factor);
        NS_LOG_LOGIC("cut by " << factor << ": window " << base << " -> " << m_cwnd);
        SetWindowBytes(static_cast<uint64_t>(m_cwnd));
    }
    m_cutEnd = m_acked + m_lastInflight; // what is in flight now sees this cut already
}

void
RoceDctcp::OnNak()
{
    if (m_acked >= m_cutEnd)
    {
        NS_LOG_LOGIC("NAK: halve");
        Cut(0.5);
    }
}

void
RoceDctcp::OnTimeout()
{
    if (m_acked >= m_cutEnd)
    {
        NS_LOG_LOGIC("timeout: halve");
        Cut(0.5);
    }
}

} // namespace ns3
