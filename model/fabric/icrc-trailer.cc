// SPDX-License-Identifier: GPL-2.0-only

#include "icrc-trailer.h"

#include "ai-fabric-compat.h"

#include "ns3/abort.h"
#include "ns3/crc32.h"

#include <cstring>
#include <vector>

namespace ns3
{

namespace
{
constexpr uint32_t LRH_MASK_BYTES = 8;  //!< Leading ones standing for the IB LRH
constexpr uint32_t UDP_HEADER_SIZE = 8; //!< UDP header size
constexpr uint32_t BTH_SIZE = 12;       //!< BTH size
} // namespace

uint32_t
ComputeRoceIcrc(const uint8_t* ipv4Start, uint32_t lengthFromIpv4ToEndOfPayloadWithoutIcrc)
{
    // Checked in all builds: callers must validate lengths before asking for the ICRC.
    NS_ABORT_MSG_IF(ipv4Start == nullptr, "ComputeRoceIcrc: null input");
    const uint32_t len = lengthFromIpv4ToEndOfPayloadWithoutIcrc;
    NS_ABORT_MSG_IF(len < 20, "ComputeRoceIcrc: input shorter than an IPv4 header");
    const uint32_t ihl = static_cast<uint32_t>(ipv4Start[0] & 0x0F) * 4;
    NS_ABORT_MSG_IF(ihl < 20, "ComputeRoceIcrc: bad IPv4 IHL");
    NS_ABORT_MSG_IF(len < ihl + UDP_HEADER_SIZE + BTH_SIZE,
                    "ComputeRoceIcrc: input shorter than IPv4 + UDP + BTH");

    std::vector<uint8_t> buf(LRH_MASK_BYTES + len);
    std::memset(buf.data(), 0xFF, LRH_MASK_BYTES);
    std::memcpy(buf.data() + LRH_MASK_BYTES, ipv4Start, len);

    uint8_t* ip = buf.data() + LRH_MASK_BYTES;
    ip[1] = 0xFF;  // TOS (DSCP + ECN)
    ip[8] = 0xFF;  // TTL
    ip[10] = 0xFF; // header checksum
    ip[11] = 0xFF;

    uint8_t* udp = ip + ihl;
    udp[6] = 0xFF; // UDP checksum
    udp[7] = 0xFF;

    uint8_t* bth = udp + UDP_HEADER_SIZE;
    bth[4] = 0xFF; // FECN | BECN | resv6

    return CRC32Calculate(buf.data(), static_cast<int>(buf.size()));
}

void
WriteRoceIcrc(uint32_t icrc, uint8_t out[4])
{
    out[0] = static_cast<uint8_t>(icrc & 0xFF);
    out[1] = static_cast<uint8_t>((icrc >> 8) & 0xFF);
    out[2] = static_cast<uint8_t>((icrc >> 16) & 0xFF);
    out[3] = static_cast<uint8_t>((icrc >> 24) & 0xFF);
}

uint32_t
ReadRoceIcrc(const uint8_t in[4])
{
    return static_cast<uint32_t>(in[0]) | (static_cast<uint32_t>(in[1]) << 8) |
           (static_cast<uint32_t>(in[2]) << 16) | (static_cast<uint32_t>(in[3]) << 24);
}

NS_OBJECT_ENSURE_REGISTERED(IcrcTrailer);

IcrcTrailer::IcrcTrailer()
    : m_icrc(0)
{
}

TypeId
IcrcTrailer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IcrcTrailer")
                            .SetParent<Trailer>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<IcrcTrailer>();
    return tid;
}

TypeId
IcrcTrailer::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
IcrcTrailer::GetSerializedSize() const
{
    return SIZE;
}

void
IcrcTrailer::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.Prev(SIZE);
    aifabric::WriteU32LsbFirst(i, m_icrc); // like WriteRoceIcrc
}

uint32_t
IcrcTrailer::Deserialize(Buffer::Iterator end)
{
    Buffer::Iterator i = end;
    i.Prev(SIZE);
    m_icrc = aifabric::ReadU32LsbFirst(i);
    return SIZE;
}

void
IcrcTrailer::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "ICRC=0x" << std::hex << m_icrc;
    os.flags(flags);
}

void
IcrcTrailer::SetIcrc(uint32_t icrc)
{
    m_icrc = icrc;
}

uint32_t
IcrcTrailer::GetIcrc() const
{
    return m_icrc;
}

} // namespace ns3
