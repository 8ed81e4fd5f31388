// SPDX-License-Identifier: GPL-2.0-only
#include "roce-timely.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceTimely");
NS_OBJECT_ENSURE_REGISTERED(RoceTimely);

TypeId
RoceTimely::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceTimely")
            .SetParent<RoceCongestionControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<RoceTimely>()
            .AddAttribute("Alpha",
                          "EWMA weight of a new RTT difference, in (0, 1] (HPCC simulator: "
                          "0.875).",
                          DoubleValue(0.875),
                          MakeDoubleAccessor(&RoceTimely::m_alpha),
                          MakeDoubleChecker<double>(1e-9, 1.0))
            .AddAttribute("Beta",
                          "Multiplicative decrease factor, in (0, 1] (TIMELY: 0.8).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&RoceTimely::m_beta),
                          MakeDoubleChecker<double>(1e-9, 1.0))
            .AddAttribute("TLow",
                          "Below this RTT the rate grows whatever the gradient (TIMELY: 50 us).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RoceTimely::m_tLow),
                          MakeTimeChecker(Seconds(0), Seconds(1)))
            .AddAttribute("THigh",
                          "Above this RTT the rate is cut whatever the gradient (TIMELY: "
                          "500 us); must exceed TLow.",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&RoceTimely::m_tHigh),
                          MakeTimeChecker(NanoSeconds(1), Seconds(1)))
            .AddAttribute("MinRtt",
                          "Normalises the RTT gradient (TIMELY: 20 us).",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&RoceTimely::m_minRtt),
                          MakeTimeChecker(NanoSeconds(1), Seconds(1)))
            .AddAttribute("RateAi",
                          "Additive increase step delta (TIMELY: 10 Mb/s).",
                          DataRateValue(DataRate("10Mbps")),
                          MakeDataRateAccessor(&RoceTimely::m_rateAi),
                          MakeDataRateChecker())
            .AddAttribute("HaiThreshold",
                          "Consecutive non-positive gradients before hyper-active increase "
                          "(TIMELY: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RoceTimely::m_haiThreshold),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddAttribute("HaiMultiplier",
                          "N: steps of delta per update in hyper-active increase (TIMELY: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RoceTimely::m_haiMultiplier),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddAttribute("MinRate",
                          "A cut never takes the rate below this (HPCC simulator: 100 Mb/s).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RoceTimely::m_minRate),
                          MakeDataRateChecker())
            .AddTraceSource("Rtt",
                            "The RTT an update used.",
                            MakeTraceSourceAccessor(&RoceTimely::m_rttTrace),
                            "ns3::RoceTimely::RttTracedCallback");
    return tid;
}

RoceTimely::RoceTimely()
{
    NS_LOG_FUNCTION(this);
}

RoceTimely::~RoceTimely()
{
    NS_LOG_FUNCTION(this);
}

RoceSignalNeeds
RoceTimely::GetSignalNeeds() const
{
    RoceSignalNeeds needs;
    needs.rttPerAck = true;
    return needs;
}

bool
RoceTimely::CheckConfiguration(std::string* error) const
{
    if (m_tHigh > m_tLow)
    {
        return true;
    }
    std::ostringstream os;
    os << "ns3::RoceTimely::THigh: " << m_tHigh.As(Time::US) << " must exceed TLow ("
       << m_tLow.As(Time::US) << ")";
    *error = os.str();
    return false;
}

void
RoceTimely::Start(uint64_t lineRateBps)
{
    std::string why;
    NS_ABORT_MSG_IF(!CheckConfiguration(&why), why);
    RoceCongestionControl::Start(lineRateBps);
}

double
RoceTimely::GetRttDiff() const
{
    return m_rttDiff;
}

Time
RoceTimely::GetLastRtt() const
{
    return m_lastRtt;
}

void
RoceTimely::OnAck(const RoceAckSignal& signal)
{
    m_acked += signal.ackedBytes;
    if (signal.rtt.IsZero() || m_acked < m_updateAt)
    {
        return;
    }
    m_updateAt = m_acked + signal.inflightBytes; // the next update: one window of data on
    const Time rtt = signal.rtt;
    m_rttTrace(rtt);
    if (!m_haveRtt)
    {
        m_haveRtt = true;
        m_lastRtt = rtt;
        return;
    }
    // Differences of seconds, not of Times: a negative Time converts with a signed shift.
    const double newDiff = rtt.GetSeconds() - m_lastRtt.GetSeconds();
    m_lastRtt = rtt;
    m_rttDiff = (1 - m_alpha) * m_rttDiff + m_alpha * newDiff;
    const double gradient = m_rttDiff / m_minRtt.GetSeconds();
    const double rate = GetRateBps();
    const double delta = static_cast<double>(m_rateAi.GetBitRate());
    const double floor = static_cast<double>(m_minRate.GetBitRate());
    if (rtt < m_tLow)
    {
        m_increases = 0;
        SetRateBps(rate + delta);
    }
    else if (rtt > m_tHigh)
    {
        m_increases = 0;
        SetRateBps(
            std::max(floor, rate * (1 - m_beta * (1 - m_tHigh.GetSeconds() / rtt.GetSeconds()))));
    }
    else if (gradient <= 0)
    {
        ++m_increases;
        const uint32_t n = m_increases >= m_haiThreshold ? m_haiMultiplier : 1;
        SetRateBps(rate + n * delta);
    }
    else
    {
        m_increases = 0;
        SetRateBps(std::max(floor, rate * (1 - m_beta * gradient)));
    }
    NS_LOG_LOGIC("rtt " << rtt.As(Time::US) << " gradient " << gradient << ": rate " << rate
                        << " -> " << GetRateBps());
}

} // namespace ns3
