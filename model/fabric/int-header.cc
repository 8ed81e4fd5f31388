// SPDX-License-Identifier: GPL-2.0-only
#include "int-header.h"

#include "roce-frame-info.h"

#include "ns3/abort.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/udp-header.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IntHeader);

namespace
{
constexpr uint64_t TIMESTAMP_MASK = (1ull << int_telemetry::TIMESTAMP_BITS) - 1;
constexpr uint64_t TX_MASK = (1ull << int_telemetry::TX_BITS) - 1;
constexpr uint64_t QUEUE_MASK = (1ull << int_telemetry::QUEUE_BITS) - 1;
constexpr uint32_t TX_SHIFT = int_telemetry::TIMESTAMP_BITS;
constexpr uint32_t QUEUE_SHIFT = TX_SHIFT + int_telemetry::TX_BITS;
constexpr uint32_t RATE_SHIFT = QUEUE_SHIFT + int_telemetry::QUEUE_BITS;
} // namespace

Time
IntTimeDelta(const RoceIntHop& newer, const RoceIntHop& older)
{
    const uint64_t a = static_cast<uint64_t>(newer.timestamp.GetNanoSeconds());
    const uint64_t b = static_cast<uint64_t>(older.timestamp.GetNanoSeconds());
    return NanoSeconds(static_cast<int64_t>((a - b) & TIMESTAMP_MASK));
}

uint64_t
IntBytesDelta(const RoceIntHop& newer, const RoceIntHop& older)
{
    return (newer.txBytes - older.txBytes) & ((TX_MASK + 1) * int_telemetry::TX_UNIT_BYTES - 1);
}

int
IntRateCode(uint64_t rateBps)
{
    for (std::size_t i = 0; i < int_telemetry::RATE_GBPS.size(); ++i)
    {
        if (rateBps == static_cast<uint64_t>(int_telemetry::RATE_GBPS[i]) * 1000000000ull)
        {
            return static_cast<int>(i);
        }
    }
    return -1;
}

std::string
IntRateList()
{
    std::string text;
    const auto& rates = int_telemetry::RATE_GBPS;
    for (std::size_t i = 0; i < rates.size(); ++i)
    {
        text += (i == 0 ? "" : i + 1 == rates.size() ? " or " : ", ") + std::to_string(rates[i]);
    }
    return text + " Gb/s";
}

uint64_t
EncodeIntHop(Time now, uint64_t txWireBytes, uint64_t queueBytes, int rateCode)
{
    const uint64_t ts = static_cast<uint64_t>(now.GetNanoSeconds()) & TIMESTAMP_MASK;
    const uint64_t tx = (txWireBytes / int_telemetry::TX_UNIT_BYTES) & TX_MASK;
    const uint64_t q = std::min<uint64_t>(queueBytes / int_telemetry::QUEUE_UNIT_BYTES, QUEUE_MASK);
    return static_cast<uint64_t>(rateCode & 0x7) << RATE_SHIFT | q << QUEUE_SHIFT | tx << TX_SHIFT |
           ts;
}

RoceIntHop
DecodeIntHop(uint64_t word)
{
    RoceIntHop hop;
    hop.timestamp = NanoSeconds(static_cast<int64_t>(word & TIMESTAMP_MASK));
    hop.txBytes = ((word >> TX_SHIFT) & TX_MASK) * int_telemetry::TX_UNIT_BYTES;
    hop.queueBytes = static_cast<uint32_t>(((word >> QUEUE_SHIFT) & QUEUE_MASK) *
                                           int_telemetry::QUEUE_UNIT_BYTES);
    hop.linkRateBps =
        static_cast<uint64_t>(int_telemetry::RATE_GBPS[(word >> RATE_SHIFT) & 0x7]) * 1000000000ull;
    return hop;
}

TypeId
IntHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IntHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<IntHeader>();
    return tid;
}

TypeId
IntHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
IntHeader::GetSerializedSize() const
{
    return int_telemetry::FIXED_BYTES + m_capacity * int_telemetry::HOP_BYTES;
}

void
IntHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(static_cast<uint8_t>(int_telemetry::VERSION << 4 | (m_flags & 0x0F)));
    start.WriteU8(static_cast<uint8_t>(m_hops << 4 | m_capacity));
    start.WriteHtonU16(roce::UDP_DEST_PORT);
    for (uint8_t i = 0; i < m_capacity; ++i)
    {
        start.WriteHtonU64(i < m_hops ? m_words[i] : 0);
    }
}

uint32_t
IntHeader::Deserialize(Buffer::Iterator start)
{
    m_flags = start.ReadU8() & 0x0F;
    const uint8_t counts = start.ReadU8();
    m_capacity = std::min<uint8_t>(counts & 0x0F, int_telemetry::MAX_HOPS);
    m_hops = std::min<uint8_t>(counts >> 4, m_capacity);
    m_port = start.ReadNtohU16();
    for (uint8_t i = 0; i < m_capacity; ++i)
    {
        m_words[i] = start.ReadNtohU64();
    }
    return GetSerializedSize();
}

void
IntHeader::Print(std::ostream& os) const
{
    os << "INT " << +m_hops << "/" << +m_capacity << " hops" << (IsEcho() ? " echo" : "");
    for (uint8_t i = 0; i < m_hops; ++i)
    {
        RoceIntHop h = DecodeIntHop(m_words[i]);
        os << " [ts=" << h.timestamp.GetNanoSeconds() << "ns tx=" << h.txBytes
           << " q=" << h.queueBytes << " rate=" << h.linkRateBps / 1000000000ull << "G]";
    }
}

void
IntHeader::SetCapacity(uint8_t capacity)
{
    NS_ABORT_MSG_IF(capacity == 0 || capacity > int_telemetry::MAX_HOPS,
                    "IntHeader: capacity " << +capacity << " outside 1.."
                                           << int_telemetry::MAX_HOPS);
    m_capacity = capacity;
    m_hops = std::min(m_hops, m_capacity);
}

uint8_t
IntHeader::GetCapacity() const
{
    return m_capacity;
}

void
IntHeader::SetEcho(bool echo)
{
    m_flags = static_cast<uint8_t>(echo ? m_flags | int_telemetry::FLAG_ECHO
                                        : m_flags & ~int_telemetry::FLAG_ECHO);
}

bool
IntHeader::IsEcho() const
{
    return (m_flags & int_telemetry::FLAG_ECHO) != 0;
}

uint8_t
IntHeader::GetHopCount() const
{
    return m_hops;
}

uint64_t
IntHeader::GetHop(uint8_t index) const
{
    return index < m_hops ? m_words[index] : 0;
}

void
IntHeader::PushHop(uint64_t word)
{
    if (m_hops < m_capacity)
    {
        m_words[m_hops++] = word;
    }
}

void
IntHeader::SetHops(const uint64_t* words, uint8_t n)
{
    m_hops = std::min(n, m_capacity);
    std::copy(words, words + m_hops, m_words.begin());
}

void
StampIntHop(const Ptr<Packet>& frame, uint64_t word)
{
    EthernetHeader eth(false);
    frame->RemoveHeader(eth);
    Ipv4Header ip;
    frame->RemoveHeader(ip);
    UdpHeader udp;
    frame->RemoveHeader(udp);
    IntHeader telemetry;
    frame->RemoveHeader(telemetry);
    telemetry.PushHop(word);
    frame->AddHeader(telemetry);
    frame->AddHeader(udp);
    ip.EnableChecksum();
    frame->AddHeader(ip);
    frame->AddHeader(eth);
}

} // namespace ns3
