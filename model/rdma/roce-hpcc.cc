// SPDX-License-Identifier: GPL-2.0-only
#include "roce-hpcc.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceHpcc");
NS_OBJECT_ENSURE_REGISTERED(RoceHpcc);

namespace
{
/// Telemetry older than this is not compared with a new stamp: the 24-bit nanosecond
/// timestamps wrap every 16.8 ms.
const Time STALE = MilliSeconds(8);
/// Bytes after which the 20-bit, 128-byte-unit counter wraps.
constexpr double TX_WRAP_BYTES =
    static_cast<double>((1ull << int_telemetry::TX_BITS) * int_telemetry::TX_UNIT_BYTES);
} // namespace

TypeId
RoceHpcc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceHpcc")
            .SetParent<RoceCongestionControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<RoceHpcc>()
            .AddAttribute("TargetUtilization",
                          "η, the utilisation of the most loaded link HPCC steers to (paper: "
                          "0.95).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&RoceHpcc::m_eta),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("MaxStage",
                          "maxStage: additive-increase rounds before a multiplicative "
                          "adjustment is forced (paper: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RoceHpcc::m_maxStage),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("RateAi",
                          "Additive increase as a rate: W_AI = RateAi × T (HPCC simulator's "
                          "configuration: 50 Mb/s).",
                          DataRateValue(DataRate("50Mbps")),
                          MakeDataRateAccessor(&RoceHpcc::m_rateAi),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "The window never goes below MinRate × T (HPCC simulator: 100 Mb/s).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RoceHpcc::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("FastReact",
                          "React to every ACK (from the reference window, which moves once "
                          "per RTT); false: once per RTT only (paper: true).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceHpcc::m_fastReact),
                          MakeBooleanChecker())
            .AddAttribute("BaseRtt",
                          "T, the base RTT the window is a fraction of; 0: the smallest RTT "
                          "the queue pair measures (the first round trip goes at line rate).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&RoceHpcc::m_baseRttAttr),
                          MakeTimeChecker(Seconds(0), Seconds(1)))
            .AddTraceSource("Utilization",
                            "U, the normalised inflight, after an ACK's update.",
                            MakeTraceSourceAccessor(&RoceHpcc::m_uTrace),
                            "ns3::RoceHpcc::UtilizationTracedCallback");
    return tid;
}

RoceHpcc::RoceHpcc()
{
    NS_LOG_FUNCTION(this);
}

RoceHpcc::~RoceHpcc()
{
    NS_LOG_FUNCTION(this);
}

RoceSignalNeeds
RoceHpcc::GetSignalNeeds() const
{
    RoceSignalNeeds needs;
    needs.intTelemetry = true;
    needs.ackEveryPacket = true;
    return needs;
}

double
RoceHpcc::GetUtilization() const
{
    return m_u;
}

double
RoceHpcc::GetWindow() const
{
    return m_w;
}

Time
RoceHpcc::GetBaseRtt() const
{
    return m_t;
}

void
RoceHpcc::Start(uint64_t lineRateBps)
{
    RoceCongestionControl::Start(lineRateBps);
    if (m_baseRttAttr.IsStrictlyPositive())
    {
        SetBaseRtt(m_baseRttAttr);
    }
}

void
RoceHpcc::SetBaseRtt(Time rtt)
{
    const bool first = m_t.IsZero();
    m_t = rtt;
    const double seconds = rtt.GetSeconds();
    m_wMax = static_cast<double>(GetLineRateBps()) * seconds / 8;
    m_wAi = static_cast<double>(m_rateAi.GetBitRate()) * seconds / 8;
    m_wMin = std::min(m_wMax, static_cast<double>(m_minRate.GetBitRate()) * seconds / 8);
    if (first)
    {
        m_w = m_wMax; // the first window: line rate for one base RTT
        m_wc = m_w;
    }
    m_w = std::clamp(m_w, m_wMin, m_wMax);
    m_wc = std::clamp(m_wc, m_wMin, m_wMax);
    NS_LOG_LOGIC("T = " << rtt.As(Time::US) << ": W_max " << m_wMax << " B, W_AI " << m_wAi
                        << " B");
    Apply();
}

bool
RoceHpcc::MeasureInflight(const RoceAckSignal& signal)
{
    const Time now = Simulator::Now();
    const bool comparable = m_lastHops == signal.nHops && now - m_lastAckTime < STALE;
    double u = 0;
    Time tau;
    if (comparable)
    {
        const double t = m_t.GetSeconds();
        for (uint32_t i = 0; i < signal.nHops; ++i)
        {
            const RoceIntHop& hop = signal.hops[i];
            const Time dt = IntTimeDelta(hop, m_last[i]);
            const double rate = static_cast<double>(hop.linkRateBps);
            if (!dt.IsStrictlyPositive() || rate * dt.GetSeconds() / 8 >= TX_WRAP_BYTES)
            {
                continue; // no time between the stamps, or the byte counter may have wrapped
            }
            const double txRate =
                static_cast<double>(IntBytesDelta(hop, m_last[i])) * 8 / dt.GetSeconds();
            const double queue = std::min(hop.queueBytes, m_last[i].queueBytes);
            const double ui = queue * 8 / (rate * t) + txRate / rate;
            if (ui > u)
            {
                u = ui;
                tau = dt;
            }
        }
    }
    else
    {
        NS_LOG_LOGIC("telemetry of " << signal.nHops << " hops kept as the reference (previous: "
                                     << m_lastHops << " hops)");
    }
    std::copy(signal.hops, signal.hops + signal.nHops, m_last.begin());
    m_lastHops = signal.nHops;
    m_lastAckTime = now;
    if (!tau.IsStrictlyPositive())
    {
        return false;
    }
    const double f = std::min(tau, m_t).GetSeconds() / m_t.GetSeconds();
    m_u = (1 - f) * m_u + f * u;
    m_uTrace(m_u);
    return true;
}

double
RoceHpcc::ComputeWindow(bool updateReference)
{
    double w;
    if (m_u >= m_eta || m_incStage >= m_maxStage)
    {
        w = m_wc / (m_u / m_eta) + m_wAi;
        if (updateReference)
        {
            m_incStage = 0;
        }
    }
    else
    {
        w = m_wc + m_wAi;
        if (updateReference)
        {
            ++m_incStage;
        }
    }
    w = std::clamp(w, m_wMin, m_wMax);
    if (updateReference)
    {
        m_wc = w;
    }
    return w;
}

void
RoceHpcc::Apply()
{
    SetWindowBytes(std::max<uint64_t>(static_cast<uint64_t>(m_w), 1));
    SetRateBps(m_w * 8 / m_t.GetSeconds());
}

void
RoceHpcc::OnAck(const RoceAckSignal& signal)
{
    m_acked += signal.ackedBytes;
    if (m_baseRttAttr.IsZero() && signal.rtt.IsStrictlyPositive() &&
        (m_t.IsZero() || signal.rtt < m_t))
    {
        SetBaseRtt(signal.rtt);
    }
    if (m_t.IsZero() || signal.nHops == 0)
    {
        return;
    }
    if (!MeasureInflight(signal))
    {
        return;
    }
    if (m_acked > m_lastUpdate)
    {
        m_w = ComputeWindow(true);
        m_lastUpdate = m_acked + signal.inflightBytes;
        NS_LOG_LOGIC("per-RTT update: U " << m_u << ", W = W_c " << m_w << " B, stage "
                                          << m_incStage);
    }
    else if (m_fastReact)
    {
        m_w = ComputeWindow(false);
        NS_LOG_LOGIC("fast react: U " << m_u << ", W " << m_w << " B");
    }
    else
    {
        return;
    }
    Apply();
}

} // namespace ns3
