// SPDX-License-Identifier: GPL-2.0-only
#include "roce-congestion-control.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(RoceCongestionControl);

namespace
{
/// Names that are not TypeId names: (name, TypeId name).
const std::pair<const char*, const char*> CC_ALIASES[] = {
    {"none", "ns3::NoCongestionControl"},
};
} // namespace

bool
RoceCongestionControl::LookupByName(const std::string& name, TypeId* tid)
{
    std::string typeName = name;
    for (const auto& [alias, target] : CC_ALIASES)
    {
        if (name == alias)
        {
            typeName = target;
        }
    }
    TypeId found;
    if (!TypeId::LookupByNameFailSafe(typeName, &found) || !found.IsChildOf(GetTypeId()))
    {
        return false;
    }
    NS_LOG_LOGIC("congestion control \"" << name << "\" is " << found.GetName());
    *tid = found;
    return true;
}

std::string
RoceCongestionControl::GetNameHint()
{
    // Every registered algorithm, from ns-3's TypeId registry (the module's and a user's).
    std::string names;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId t = TypeId::GetRegistered(i);
        if (t != GetTypeId() && t.IsChildOf(GetTypeId()) && t.HasConstructor())
        {
            names += (names.empty() ? "" : ", ") + t.GetName();
        }
    }
    std::string hint = "a congestion-control TypeId (" + names + ")";
    for (const auto& [alias, target] : CC_ALIASES)
    {
        hint += std::string(" or ") + alias;
    }
    return hint;
}

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
