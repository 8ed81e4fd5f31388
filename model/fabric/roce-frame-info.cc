// SPDX-License-Identifier: GPL-2.0-only
#include "roce-frame-info.h"

#include "bth-header.h"
#include "int-header.h"

#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"

#include <algorithm>

namespace ns3
{

namespace
{
inline uint16_t
Read16(const uint8_t* p)
{
    return static_cast<uint16_t>(p[0] << 8 | p[1]);
}

inline uint32_t
Read24(const uint8_t* p)
{
    return static_cast<uint32_t>(p[0]) << 16 | static_cast<uint32_t>(p[1]) << 8 | p[2];
}

inline uint32_t
Read32(const uint8_t* p)
{
    return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
           static_cast<uint32_t>(p[2]) << 8 | p[3];
}

constexpr uint32_t PARSE_WINDOW = roce::DATA_HEADER_BYTES + roce::RETH_BYTES + 8;
/// The window past the largest INT header.
constexpr uint32_t INT_PARSE_WINDOW =
    PARSE_WINDOW + int_telemetry::FIXED_BYTES + int_telemetry::MAX_HOPS * int_telemetry::HOP_BYTES;

// The parts of ParseRoceFrame, each called once from it: static inline so that the
// per-packet path stays one function after inlining.

/// Decode the fields of the IPv4 header at ip (kind IPV4).
static inline void
ParseIpv4Header(const uint8_t* ip, RoceFrameInfo& info)
{
    info.kind = RoceFrameInfo::IPV4;
    info.dscp = ip[1] >> 2;
    info.ecn = ip[1] & 0x3;
    info.protocol = ip[9];
    info.srcIp = Read32(ip + 12);
    info.dstIp = Read32(ip + 16);
}

/**
 * Read past the INT header at bth, between UDP and BTH (a second, longer copy of the
 * packet into buf; n becomes its length).
 * \return false if the frame ends the parse here (not RoCE with a valid INT header);
 *         true with the INT fields set and bth moved past the INT header
 */
static inline bool
ParseTelemetryHeader(const Ptr<const Packet>& packet,
                     uint32_t size,
                     uint8_t* buf,
                     uint32_t& n,
                     const uint8_t*& bth,
                     RoceFrameInfo& info)
{
    const uint8_t* telemetry = bth;
    if (telemetry + int_telemetry::FIXED_BYTES > buf + n ||
        Read16(telemetry + 2) != roce::UDP_DEST_PORT ||
        (telemetry[0] >> 4) != int_telemetry::VERSION)
    {
        return false;
    }
    const uint8_t room = telemetry[1] & 0x0F;
    const uint32_t intBytes = int_telemetry::FIXED_BYTES + room * int_telemetry::HOP_BYTES;
    if (room == 0 || room > int_telemetry::MAX_HOPS)
    {
        return false;
    }
    n = packet->CopyData(buf, size < INT_PARSE_WINDOW ? size : INT_PARSE_WINDOW);
    if (static_cast<uint32_t>(telemetry - buf) + intBytes + roce::BTH_BYTES > n)
    {
        return false; // too short for its own header
    }
    info.intOffset = static_cast<uint16_t>(telemetry - buf);
    info.intRoom = room;
    info.intHops = std::min<uint8_t>(telemetry[1] >> 4, room);
    info.intEcho = (telemetry[0] & int_telemetry::FLAG_ECHO) != 0;
    // The original port stands for the frame (ECMP hashes it): a flow takes the same
    // path with telemetry as without.
    info.dstPort = roce::UDP_DEST_PORT;
    bth += intBytes;
    return true;
}

/// Decode the fields of the BTH at bth (kind ROCE).
static inline void
ParseBthHeader(const uint8_t* bth, RoceFrameInfo& info)
{
    info.kind = RoceFrameInfo::ROCE;
    info.opcode = bth[0];
    info.becn = (bth[4] & 0x40) != 0;
    info.destQp = Read24(bth + 5);
    info.ackRequest = (bth[8] & 0x80) != 0;
    info.psn = Read24(bth + 9);
}

/// Decode the extended transport headers at ext, in the n bytes copied to buf, and the
/// payload size of the frame of size bytes.
static inline void
ParseExtendedHeaders(const uint8_t* buf,
                     uint32_t n,
                     uint32_t size,
                     const uint8_t* ext,
                     RoceFrameInfo& info)
{
    uint32_t headerBytes = static_cast<uint32_t>(ext - buf);
    info.aethSyndrome = 0;
    info.aethMsn = 0;
    info.immediate = 0;
    info.rethLength = 0;
    if (info.opcode == BthHeader::RC_ACKNOWLEDGE)
    {
        if (ext + roce::AETH_BYTES <= buf + n)
        {
            info.aethSyndrome = ext[0];
            info.aethMsn = Read24(ext + 1);
        }
        info.payloadBytes = 0;
        return;
    }
    if (info.opcode == BthHeader::CNP)
    {
        info.payloadBytes = 0;
        return;
    }
    if (OpcodeHasReth(info.opcode) && ext + roce::RETH_BYTES <= buf + n)
    {
        info.rethLength = Read32(ext + 12);
        ext += roce::RETH_BYTES;
        headerBytes += roce::RETH_BYTES;
    }
    if (OpcodeHasImmediate(info.opcode) && ext + roce::IMMEDIATE_BYTES <= buf + n)
    {
        info.immediate = Read32(ext);
        headerBytes += roce::IMMEDIATE_BYTES;
    }
    uint32_t overhead = headerBytes + roce::ICRC_BYTES;
    info.payloadBytes = size > overhead ? size - overhead : 0;
}
} // namespace

bool
OpcodeHasReth(uint8_t opcode)
{
    return opcode == BthHeader::RC_RDMA_WRITE_FIRST || opcode == BthHeader::RC_RDMA_WRITE_ONLY ||
           opcode == BthHeader::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
}

bool
OpcodeHasImmediate(uint8_t opcode)
{
    return opcode == BthHeader::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE ||
           opcode == BthHeader::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
}

bool
OpcodeEndsMessage(uint8_t opcode)
{
    return opcode == BthHeader::RC_RDMA_WRITE_LAST ||
           opcode == BthHeader::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE ||
           opcode == BthHeader::RC_RDMA_WRITE_ONLY ||
           opcode == BthHeader::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
}

bool
ParseRoceFrame(const Ptr<const Packet>& packet, RoceFrameInfo& info)
{
    uint8_t buf[INT_PARSE_WINDOW];
    uint32_t size = packet->GetSize();
    uint32_t n = packet->CopyData(buf, size < PARSE_WINDOW ? size : PARSE_WINDOW);
    info.kind = RoceFrameInfo::OTHER;
    if (n < roce::ETHERNET_HEADER_BYTES)
    {
        return false;
    }
    uint16_t etherType = Read16(buf + 12);
    if (etherType == roce::ETHERTYPE_MAC_CONTROL)
    {
        info.kind = RoceFrameInfo::PFC;
        return true;
    }
    if (etherType != roce::ETHERTYPE_IPV4 ||
        n < roce::ETHERNET_HEADER_BYTES + roce::IPV4_HEADER_BYTES)
    {
        return true;
    }
    const uint8_t* ip = buf + roce::ETHERNET_HEADER_BYTES;
    ParseIpv4Header(ip, info);
    uint32_t ipHeaderBytes = (ip[0] & 0xF) * 4u;
    const uint8_t* udp = ip + ipHeaderBytes;
    if (info.protocol != roce::IP_PROTOCOL_UDP || udp + roce::UDP_HEADER_BYTES > buf + n)
    {
        return true;
    }
    info.srcPort = Read16(udp);
    info.dstPort = Read16(udp + 2);
    const uint8_t* bth = udp + roce::UDP_HEADER_BYTES;
    info.intOffset = 0;
    if (info.dstPort == int_telemetry::UDP_PORT)
    {
        // Telemetry between UDP and BTH: read past it (a second, longer copy).
        if (!ParseTelemetryHeader(packet, size, buf, n, bth, info))
        {
            return true;
        }
    }
    else if (info.dstPort != roce::UDP_DEST_PORT)
    {
        return true;
    }
    if (bth + roce::BTH_BYTES > buf + n)
    {
        return true;
    }
    ParseBthHeader(bth, info);
    ParseExtendedHeaders(buf, n, size, bth + roce::BTH_BYTES, info);
    return true;
}

void
MarkCongestionExperienced(const Ptr<Packet>& packet)
{
    EthernetHeader eth(false);
    packet->RemoveHeader(eth);
    Ipv4Header ip;
    packet->RemoveHeader(ip);
    ip.SetEcn(Ipv4Header::ECN_CE);
    ip.EnableChecksum();
    packet->AddHeader(ip);
    packet->AddHeader(eth);
}

} // namespace ns3
