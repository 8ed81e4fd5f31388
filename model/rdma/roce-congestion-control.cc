// SPDX-License-Identifier: GPL-2.0-only
#include "roce-congestion-control.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(RoceCongestionControl);

TypeId
RoceCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceCongestionControl")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddAttribute("WindowLimit",
                          "Cap on the bytes in flight, whatever the algorithm (HPCC's and "
                          "IRN's bandwidth-delay-product window); 0: none.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceCongestionControl::m_windowLimit),
                          MakeUintegerChecker<uint64_t>(0, uint64_t{1} << 40))
            .AddTraceSource("RateChange",
                            "The sending rate of the queue pair changed (bit/s).",
                            MakeTraceSourceAccessor(&RoceCongestionControl::m_rateTrace),
                            "ns3::RoceCongestionControl::RateTracedCallback");
    return tid;
}

RoceCongestionControl::RoceCongestionControl() = default;
RoceCongestionControl::~RoceCongestionControl() = default;

void
RoceCongestionControl::Start(uint64_t lineRateBps)
{
    m_lineRateBps = lineRateBps;
    m_rateBps = static_cast<double>(lineRateBps);
}

void
RoceCongestionControl::OnAck(const RoceAckSignal&)
{
}

void
RoceCongestionControl::OnCnp()
{
}

void
RoceCongestionControl::OnNak()
{
}

void
RoceCongestionControl::OnTimeout()
{
}

void
RoceCongestionControl::OnSend(uint32_t)
{
}

void
RoceCongestionControl::OnIdle()
{
}

void
RoceCongestionControl::OnActive()
{
}

double
RoceCongestionControl::GetRateBps() const
{
    return m_rateBps;
}

RoceSignalNeeds
RoceCongestionControl::GetSignalNeeds() const
{
    return RoceSignalNeeds();
}

bool
RoceCongestionControl::CheckConfiguration(std::string* /* error */) const
{
    return true;
}

uint64_t
RoceCongestionControl::GetWindowBytes() const
{
    if (m_windowLimit == 0 || (m_windowBytes != 0 && m_windowBytes < m_windowLimit))
    {
        return m_windowBytes;
    }
    return m_windowLimit;
}

uint64_t
RoceCongestionControl::GetLineRateBps() const
{
    return m_lineRateBps;
}

void
RoceCongestionControl::SetRateBps(double bps)
{
    double clamped = std::clamp(bps, 1.0, static_cast<double>(m_lineRateBps));
    if (clamped != m_rateBps)
    {
        double old = m_rateBps;
        m_rateBps = clamped;
        m_rateTrace(old, clamped);
    }
}

void
RoceCongestionControl::SetWindowBytes(uint64_t bytes)
{
    m_windowBytes = bytes;
}

} // namespace ns3
