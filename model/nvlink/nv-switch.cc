// SPDX-License-Identifier: GPL-2.0-only
#include "nv-switch.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvSwitch");

NS_OBJECT_ENSURE_REGISTERED(NvSwitch);

TypeId
NvSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NvSwitch")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<NvSwitch>()
            .AddAttribute("CreditChunks",
                          "Egress buffer per port, in chunks (credits); also the NVLS "
                          "reduction slots per GPU.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&NvSwitch::m_creditChunks),
                          MakeUintegerChecker<uint32_t>(1, 1u << 16))
            .AddAttribute("NvlsThroughput",
                          "Reduction engine, in reduced (output) bytes per second over all "
                          "ports.",
                          DataRateValue(DataRate("28800Gbps")),
                          MakeDataRateAccessor(&NvSwitch::m_nvlsThroughput),
                          MakeDataRateChecker());
    return tid;
}

NvSwitch::NvSwitch()
{
    NS_LOG_FUNCTION(this);
}

void
NvSwitch::SetNPorts(uint32_t n)
{
    NS_LOG_FUNCTION(this << n);
    m_creditsUsed.assign(n, 0);
    m_slotsUsed.assign(n, 0);
}

uint32_t
NvSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_creditsUsed.size());
}

bool
NvSwitch::HasCredit(uint32_t port) const
{
    return m_creditsUsed[port] < m_creditChunks;
}

void
NvSwitch::TakeCredit(uint32_t port)
{
    NS_LOG_FUNCTION(this << port);
    ++m_creditsUsed[port];
    m_maxOccupancy = std::max(m_maxOccupancy, m_creditsUsed[port]);
    if (m_creditsUsed[port] == m_creditChunks)
    {
        NS_LOG_LOGIC("port " << port << ": egress buffer full (" << m_creditChunks << " credits)");
    }
}

void
NvSwitch::ReturnCredit(uint32_t port)
{
    NS_LOG_FUNCTION(this << port);
    NS_ABORT_MSG_IF(m_creditsUsed[port] == 0, "NvSwitch: credit returned twice at port " << port);
    --m_creditsUsed[port];
}

uint32_t
NvSwitch::GetMaxEgressOccupancy() const
{
    return m_maxOccupancy;
}

bool
NvSwitch::HasReductionSlot(uint32_t gpu) const
{
    return m_slotsUsed[gpu] < m_creditChunks;
}

void
NvSwitch::TakeReductionSlot(uint32_t gpu)
{
    NS_LOG_FUNCTION(this << gpu);
    ++m_slotsUsed[gpu];
    if (m_slotsUsed[gpu] == m_creditChunks)
    {
        NS_LOG_LOGIC("GPU " << gpu << ": every reduction slot in use");
    }
}

void
NvSwitch::ReleaseReductionSlot(uint32_t gpu)
{
    NS_LOG_FUNCTION(this << gpu);
    NS_ABORT_MSG_IF(m_slotsUsed[gpu] == 0,
                    "NvSwitch: reduction slot released twice by GPU " << gpu);
    --m_slotsUsed[gpu];
}

Time
NvSwitch::Reduce(uint64_t bytes)
{
    NS_ABORT_MSG_IF(m_nvlsThroughput.GetBitRate() == 0,
                    "NvSwitch: NvlsThroughput must be positive");
    // The engine is one FIFO server; a clock is all its queue needs.
    const Time now = Simulator::Now();
    const Time service = Seconds(static_cast<double>(bytes) * 8.0 /
                                 static_cast<double>(m_nvlsThroughput.GetBitRate()));
    NS_LOG_FUNCTION(this << bytes);
    m_reduceFree = std::max(now, m_reduceFree) + service;
    NS_LOG_LOGIC("reduction engine busy until " << m_reduceFree.As(Time::US));
    return m_reduceFree - now;
}

bool
NvSwitch::IsIdle() const
{
    const auto zero = [](uint32_t n) { return n == 0; };
    return std::all_of(m_creditsUsed.begin(), m_creditsUsed.end(), zero) &&
           std::all_of(m_slotsUsed.begin(), m_slotsUsed.end(), zero) &&
           m_reduceFree <= Simulator::Now();
}

} // namespace ns3
