// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_FRAME_INFO_H
#define ROCE_FRAME_INFO_H

#include "ns3/packet.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Constants of the RoCEv2 wire format: port and EtherType numbers, and the sizes of what a
 * frame carries, in bytes.
 */
namespace roce
{
constexpr uint16_t UDP_DEST_PORT = 4791;           //!< RoCEv2's UDP destination port (IANA)
constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;        //!< EtherType of IPv4
constexpr uint16_t ETHERTYPE_MAC_CONTROL = 0x8808; //!< EtherType of MAC control (PFC)
/// IPv4 protocol number of UDP (IANA "Assigned Internet Protocol Numbers").
constexpr uint8_t IP_PROTOCOL_UDP = 17;
constexpr uint32_t ETHERNET_HEADER_BYTES = 14; //!< Ethernet II header, no VLAN tag
constexpr uint32_t IPV4_HEADER_BYTES = 20;     //!< IPv4 header without options
constexpr uint32_t UDP_HEADER_BYTES = 8;       //!< UDP header
constexpr uint32_t BTH_BYTES = 12;             //!< InfiniBand Base Transport Header
constexpr uint32_t RETH_BYTES = 16;            //!< RDMA Extended Transport Header
constexpr uint32_t AETH_BYTES = 4;             //!< ACK Extended Transport Header
constexpr uint32_t IMMEDIATE_BYTES = 4;        //!< immediate data
constexpr uint32_t CNP_RESERVED_BYTES = 16;    //!< reserved bytes after a CNP's BTH
constexpr uint32_t ICRC_BYTES = 4;             //!< invariant CRC trailer of RoCEv2
constexpr uint32_t FCS_BYTES = 4;              //!< Ethernet frame check sequence
/// Preamble + start-of-frame delimiter (8) + minimum inter-frame gap (12).
constexpr uint32_t PREAMBLE_AND_IFG_BYTES = 20;
/// Ethernet frames are padded to 60 bytes before the FCS.
constexpr uint32_t MIN_FRAME_BYTES_WITHOUT_FCS = 60;
/// Headers in front of a WRITE MIDDLE payload: Ethernet + IPv4 + UDP + BTH.
constexpr uint32_t DATA_HEADER_BYTES =
    ETHERNET_HEADER_BYTES + IPV4_HEADER_BYTES + UDP_HEADER_BYTES + BTH_BYTES;
/// An ACK (or NAK) frame without FCS: Ethernet + IPv4 + UDP + BTH + AETH + ICRC.
constexpr uint32_t ACK_FRAME_BYTES = DATA_HEADER_BYTES + AETH_BYTES + ICRC_BYTES;

/**
 * \param frameBytesWithoutFcs a frame's size as captured (no FCS)
 * \return the bytes it occupies on the wire: padded to the minimum, FCS, preamble, SFD
 *         and inter-frame gap
 */
inline uint32_t
WireBytes(uint32_t frameBytesWithoutFcs)
{
    uint32_t padded = frameBytesWithoutFcs < MIN_FRAME_BYTES_WITHOUT_FCS
                          ? MIN_FRAME_BYTES_WITHOUT_FCS
                          : frameBytesWithoutFcs;
    return padded + FCS_BYTES + PREAMBLE_AND_IFG_BYTES;
}
} // namespace roce

/**
 * \ingroup ai-fabric
 * The fields of a frame that switches and NICs act on, decoded once from the raw bytes.
 *
 * Decoding copies at most the first 78 bytes of the packet (more only past an INT header) and never
 * deserializes header objects: this is the per-hop hot path.
 */
struct RoceFrameInfo
{
    /// What the frame is.
    enum Kind : uint8_t
    {
        OTHER, //!< not something this module understands
        PFC,   //!< 802.1Qbb MAC-control frame
        ROCE,  //!< IPv4/UDP 4791 with a BTH
        IPV4   //!< IPv4, not RoCE
    };

    Kind kind{OTHER}; //!< what the frame is; the fields below are valid as far as it goes
    // IPv4 / UDP
    uint32_t srcIp{0};   //!< IPv4 source address
    uint32_t dstIp{0};   //!< IPv4 destination address
    uint8_t dscp{0};     //!< DSCP (priority = DSCP >> 3)
    uint8_t ecn{0};      //!< ECN field (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE)
    uint8_t protocol{0}; //!< IPv4 protocol number
    uint16_t srcPort{0}; //!< UDP source port
    uint16_t dstPort{0}; //!< UDP destination port (RoCEv2's for frames with telemetry,
                         //!< whose UDP header names int_telemetry::UDP_PORT)
    // BTH
    uint8_t opcode{0};      //!< BTH opcode
    bool becn{false};       //!< BTH BECN bit (set in CNPs)
    bool ackRequest{false}; //!< BTH AckReq bit
    uint32_t destQp{0};     //!< BTH destination QP (24 bits)
    uint32_t psn{0};        //!< BTH packet sequence number (24 bits)
    // extended transport headers, valid per opcode
    uint8_t aethSyndrome{0}; //!< AETH syndrome (ACK, NAK) of an acknowledgement
    uint32_t aethMsn{0};     //!< AETH message sequence number
    uint32_t immediate{0};   //!< immediate data, for the WITH_IMMEDIATE opcodes
    uint32_t rethLength{0};  //!< RETH DMA length, for the opcodes that carry a RETH
    /// Bytes of RDMA payload (zero for ACK, NAK and CNP).
    uint32_t payloadBytes{0};
    // in-band telemetry (IntHeader), for RoCE frames to int_telemetry::UDP_PORT
    uint16_t intOffset{0}; //!< offset of the INT header in the frame; 0: none
    uint8_t intHops{0};    //!< hop records stamped
    uint8_t intRoom{0};    //!< hop records it has room for
    bool intEcho{false};   //!< an ACK's echo (switches do not stamp it)

    /// \param o other fields \return true if every field is the same
    bool operator==(const RoceFrameInfo& o) const
    {
        return kind == o.kind && srcIp == o.srcIp && dstIp == o.dstIp && dscp == o.dscp &&
               ecn == o.ecn && protocol == o.protocol && srcPort == o.srcPort &&
               dstPort == o.dstPort && opcode == o.opcode && becn == o.becn &&
               ackRequest == o.ackRequest && destQp == o.destQp && psn == o.psn &&
               aethSyndrome == o.aethSyndrome && aethMsn == o.aethMsn && immediate == o.immediate &&
               rethLength == o.rethLength && payloadBytes == o.payloadBytes &&
               intOffset == o.intOffset && intHops == o.intHops && intRoom == o.intRoom &&
               intEcho == o.intEcho;
    }

    /// \return the 5-tuple hash input for ECMP
    uint64_t FlowKey() const
    {
        return (static_cast<uint64_t>(srcIp) << 32 | dstIp) ^
               (static_cast<uint64_t>(srcPort) << 16 | dstPort) ^
               (static_cast<uint64_t>(protocol) << 56);
    }
};

/**
 * Decode the fields of an Ethernet II frame (no FCS) that this module acts on.
 *
 * Copies at most the first 78 bytes (plus the INT header's size when the frame carries
 * one: IntHeader). Sets info.kind first and then only the fields that
 * kind has (IPv4/UDP fields for IPV4, those and the BTH fields and extended headers for
 * ROCE); the other fields keep their previous values. payloadBytes is the frame's size
 * minus its headers (IPv4 options included) and the 4-byte ICRC.
 * \param packet an Ethernet II frame without FCS
 * \param info receives the decoded fields
 * \return false when the packet is shorter than an Ethernet header (info.kind is OTHER
 *         then); true otherwise, whatever the kind
 */
bool ParseRoceFrame(const Ptr<const Packet>& packet, RoceFrameInfo& info);

/**
 * \param opcode a BTH opcode
 * \return true for the RDMA WRITE opcodes that carry a RETH (FIRST, ONLY, ONLY with
 *         immediate)
 */
bool OpcodeHasReth(uint8_t opcode);
/**
 * \param opcode a BTH opcode
 * \return true for the RDMA WRITE opcodes that carry immediate data (LAST and ONLY with
 *         immediate)
 */
bool OpcodeHasImmediate(uint8_t opcode);
/**
 * \param opcode a BTH opcode
 * \return true for the RDMA WRITE opcodes that end a message (LAST and ONLY, with or
 *         without immediate)
 */
bool OpcodeEndsMessage(uint8_t opcode);

/**
 * Set the ECN field of the IPv4 header of a RoCE frame to CE (0b11) in place and fix the
 * IPv4 header checksum. Only called for frames that are marked, so it may rebuild headers.
 * \param packet an Ethernet II frame (no FCS) carrying IPv4; the caller checks that its
 *        ECN field is ECT(0) or ECT(1)
 */
void MarkCongestionExperienced(const Ptr<Packet>& packet);

} // namespace ns3

#endif
