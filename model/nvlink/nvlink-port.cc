// SPDX-License-Identifier: GPL-2.0-only
#include "nvlink-port.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvLinkPort");

NS_OBJECT_ENSURE_REGISTERED(NvLinkPort);

TypeId
NvLinkPort::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NvLinkPort")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<NvLinkPort>()
            .AddAttribute("LinkCount",
                          "NVLinks between the GPU and the switch (H100: 18).",
                          UintegerValue(18),
                          MakeUintegerAccessor(&NvLinkPort::m_linkCount),
                          MakeUintegerChecker<uint32_t>(1, 72))
            .AddAttribute("PerLinkRate",
                          "Rate of one NVLink, per direction (NVLink4: 25 GB/s).",
                          DataRateValue(DataRate("200Gbps")),
                          MakeDataRateAccessor(&NvLinkPort::m_perLinkRate),
                          MakeDataRateChecker())
            .AddAttribute("Latency",
                          "Per hop (GPU -> switch, switch -> GPU, a credit going back).",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&NvLinkPort::m_latency),
                          MakeTimeChecker(Seconds(0), MilliSeconds(1)));
    return tid;
}

NvLinkPort::NvLinkPort()
{
    NS_LOG_FUNCTION(this);
}

DataRate
NvLinkPort::GetRate() const
{
    return DataRate(m_perLinkRate.GetBitRate() * m_linkCount);
}

Time
NvLinkPort::GetLatency() const
{
    return m_latency;
}

Time
NvLinkPort::GetTransmissionTime(uint64_t bytes, double efficiency) const
{
    const uint64_t rateBps = GetRate().GetBitRate();
    for (const TxTime& t : m_txTimes)
    {
        if (t.bytes == bytes && t.efficiency == efficiency && t.rateBps == rateBps)
        {
            return t.time;
        }
    }
    // In double: DataRate::CalculateBytesTxTime takes 32 bits and rounds the rate product.
    const double rate = static_cast<double>(rateBps) * efficiency;
    NS_ABORT_MSG_IF(rate <= 0, "NvLinkPort: the port rate must be positive");
    const Time time = Seconds(static_cast<double>(bytes) * 8.0 / rate);
    m_txTimes[m_txNext] = TxTime{bytes, efficiency, rateBps, time};
    m_txNext ^= 1;
    return time;
}

bool
NvLinkPort::IsUplinkBusy() const
{
    return m_uplinkBusy;
}

Time
NvLinkPort::StartUplink(uint64_t bytes, double efficiency)
{
    NS_LOG_FUNCTION(this << bytes << efficiency);
    NS_ABORT_MSG_IF(m_uplinkBusy, "NvLinkPort: uplink started while busy");
    m_uplinkBusy = true;
    m_bytesSent += bytes;
    return GetTransmissionTime(bytes, efficiency);
}

void
NvLinkPort::EndUplink()
{
    NS_LOG_FUNCTION(this);
    m_uplinkBusy = false;
}

Time
NvLinkPort::QueueDownlink(uint64_t bytes, double efficiency)
{
    NS_LOG_FUNCTION(this << bytes << efficiency);
    const Time now = Simulator::Now();
    if (m_downlinkFree > now)
    {
        NS_LOG_LOGIC("downlink busy for " << (m_downlinkFree - now).As(Time::NS)
                                          << ": the chunk queues");
    }
    m_downlinkFree = std::max(now, m_downlinkFree) + GetTransmissionTime(bytes, efficiency);
    m_bytesReceived += bytes;
    return m_downlinkFree - now;
}

bool
NvLinkPort::IsDownlinkBusy() const
{
    return m_downlinkFree > Simulator::Now();
}

Time
NvLinkPort::GetDownlinkFree() const
{
    return m_downlinkFree;
}

void
NvLinkPort::CountSkippedBytes(uint64_t sent, uint64_t received)
{
    NS_LOG_FUNCTION(this << sent << received);
    m_bytesSent += sent;
    m_bytesReceived += received;
}

uint64_t
NvLinkPort::GetBytesSent() const
{
    return m_bytesSent;
}

uint64_t
NvLinkPort::GetBytesReceived() const
{
    return m_bytesReceived;
}

} // namespace ns3
