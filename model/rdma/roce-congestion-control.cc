// SPDX-License-Identifier: GPL-2.0-only
#include "roce-congestion-control.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iostream>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(RoceCongestionControl);

namespace
{
/// A name that is not a TypeId name of a congestion control.
struct CcAlias
{
    const char* name;     //!< what users may write
    const char* typeName; //!< the TypeId it stands for
    bool deprecated;      //!< an old name: works, with a warning
};

/// Every such name, once: "none", and the names before the Roce prefix (ns-3's flat
/// namespace has TcpDctcp; ns3::Dctcp or ns3::Swift could collide with another module).
const CcAlias CC_ALIASES[] = {
    {"none", "ns3::NoCongestionControl", false},
    {"ns3::Dcqcn", "ns3::RoceDcqcn", true},
    {"ns3::Dctcp", "ns3::RoceDctcp", true},
    {"ns3::Timely", "ns3::RoceTimely", true},
    {"ns3::Hpcc", "ns3::RoceHpcc", true},
    {"ns3::Swift", "ns3::RoceSwift", true},
};

/// The TypeId name an alias stands for (warning once per process for a deprecated one).
std::string
Resolve(const std::string& name)
{
    for (const CcAlias& a : CC_ALIASES)
    {
        if (name == a.name)
        {
            static std::set<std::string> warned;
            if (a.deprecated && warned.insert(name).second)
            {
                std::cerr << "warning: " << a.name << " is deprecated; use " << a.typeName
                          << " (the same congestion control)\n";
            }
            return a.typeName;
        }
    }
    return name;
}
} // namespace

std::string
RoceCongestionControl::ResolveAttributePath(const std::string& path)
{
    const std::size_t split = path.rfind("::");
    if (split == std::string::npos || path.rfind("ns3::", 0) != 0)
    {
        return path;
    }
    const std::string typeName = path.substr(0, split);
    for (const CcAlias& a : CC_ALIASES)
    {
        if (a.deprecated && typeName == a.name)
        {
            return Resolve(typeName) + path.substr(split);
        }
    }
    return path;
}

bool
RoceCongestionControl::LookupByName(const std::string& name, TypeId* tid)
{
    const std::string typeName = Resolve(name);
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
    std::set<std::string> registered; // sorted: the same message whatever the link order
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId t = TypeId::GetRegistered(i);
        if (t != GetTypeId() && t.IsChildOf(GetTypeId()) && t.HasConstructor())
        {
            registered.insert(t.GetName());
        }
    }
    std::string names;
    for (const std::string& n : registered)
    {
        names += (names.empty() ? "" : ", ") + n;
    }
    std::string hint = "a congestion-control TypeId (" + names + ")";
    for (const CcAlias& a : CC_ALIASES)
    {
        if (!a.deprecated)
        {
            hint += std::string(" or ") + a.name;
        }
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
RoceCongestionControl::IsRateSteady() const
{
    return false;
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
