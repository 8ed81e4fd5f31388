// SPDX-License-Identifier: GPL-2.0-only
#ifndef INT_HEADER_H
#define INT_HEADER_H

#include "ns3/header.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"

#include <array>
#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Constants of the in-band network telemetry (INT) wire format.
 *
 * A RoCEv2 frame with telemetry carries the INT header between its UDP header and its
 * BTH and goes to UDP port int_telemetry::UDP_PORT; the header keeps RoCEv2's port 4791
 * (INT over UDP with the original destination port in the shim, as the INT data-plane
 * specification v2.1, section 5.6, carries it). Each hop record is one 64-bit word in the
 * encoding of the HPCC simulator (Li et al., SIGCOMM 2019): 3 bits link-rate code, 17
 * bits queue length in 80-byte units, 20 bits transmitted bytes in 128-byte units, 24
 * bits egress timestamp in nanoseconds; so five hops cost 44 bytes (the paper: 42).
 */
namespace int_telemetry
{
/// UDP destination port of RoCEv2 frames carrying telemetry (dynamic range, RFC 6335;
/// next to ina::UDP_PORT).
constexpr uint16_t UDP_PORT = 49569;
constexpr uint8_t VERSION = 1;            //!< version in the first nibble
constexpr uint8_t FLAG_ECHO = 0x1;        //!< an ACK echoing a data frame's stack: not stamped
constexpr uint32_t FIXED_BYTES = 4;       //!< header bytes before the hop records
constexpr uint32_t HOP_BYTES = 8;         //!< bytes of one hop record
constexpr uint32_t MAX_HOPS = 8;          //!< most hop records a header has room for
constexpr uint32_t QUEUE_UNIT_BYTES = 80; //!< unit of the queue-length field
constexpr uint32_t TX_UNIT_BYTES = 128;   //!< unit of the transmitted-bytes field
constexpr uint32_t TIMESTAMP_BITS = 24;   //!< width of the timestamp field (ns)
constexpr uint32_t TX_BITS = 20;          //!< width of the transmitted-bytes field
constexpr uint32_t QUEUE_BITS = 17;       //!< width of the queue-length field
/// The link rates a hop record can name, in Gb/s, by code (3 bits).
constexpr std::array<uint32_t, 8> RATE_GBPS = {10, 25, 40, 50, 100, 200, 400, 800};
} // namespace int_telemetry

/**
 * \ingroup ai-fabric
 * One hop of in-band telemetry as a switch stamped it, decoded. The timestamp and the byte
 * counter wrap (2^24 ns, 2^27 bytes): compare two stamps of the same hop with
 * IntTimeDelta and IntBytesDelta.
 */
struct RoceIntHop
{
    Time timestamp;          //!< when the packet left the hop, modulo 2^24 ns
    uint64_t txBytes{0};     //!< bytes the egress port had sent by then (wire bytes, wraps)
    uint32_t queueBytes{0};  //!< egress queue length (80-byte resolution, saturates)
    uint64_t linkRateBps{0}; //!< egress link rate
};

/**
 * \param newer a later stamp of a hop
 * \param older an earlier stamp of the same hop
 * \return the time between them, less than 2^24 ns (16.8 ms)
 */
Time IntTimeDelta(const RoceIntHop& newer, const RoceIntHop& older);
/**
 * \param newer a later stamp of a hop
 * \param older an earlier stamp of the same hop
 * \return the bytes the port sent between them, less than 2^27
 */
uint64_t IntBytesDelta(const RoceIntHop& newer, const RoceIntHop& older);

/**
 * \param rateBps a link rate in bit/s
 * \return its 3-bit code, or -1 when hop records cannot name it
 */
int IntRateCode(uint64_t rateBps);

/// \return the rates hop records can name, as text: "10, 25, … or 800 Gb/s"
std::string IntRateList();

/**
 * \param now the egress time
 * \param txWireBytes bytes the port has sent (wire bytes, this frame included)
 * \param queueBytes the egress queue's length as the frame leaves
 * \param rateCode the port's IntRateCode
 * \return the hop record
 */
uint64_t EncodeIntHop(Time now, uint64_t txWireBytes, uint64_t queueBytes, int rateCode);
/// \param word a hop record \return its fields
RoceIntHop DecodeIntHop(uint64_t word);

/**
 * \ingroup ai-fabric
 * \brief The INT header: version and flags, hop count, room, RoCEv2's UDP port, and room
 * for Capacity hop records (unused ones are zero, so the frame keeps its size on the way).
 *
 * \verbatim
 *  byte 0: version (high nibble), flags (low nibble: 0x1 echo)
 *  byte 1: hops stamped (high nibble), capacity (low nibble)
 *  bytes 2-3: original UDP destination port (4791)
 *  then capacity x 8 bytes: hop records, the first switch's first
 * \endverbatim
 */
class IntHeader : public Header
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /// \param capacity hop records the header has room for, 1 to int_telemetry::MAX_HOPS
    void SetCapacity(uint8_t capacity);
    uint8_t GetCapacity() const; //!< \return room for hop records
    void SetEcho(bool echo);     //!< \param echo an ACK's copy of a data frame's stack
    bool IsEcho() const;         //!< \return whether this is an ACK's copy
    uint8_t GetHopCount() const; //!< \return hop records stamped
    /**
     * \param index below GetHopCount()
     * \return the record
     */
    uint64_t GetHop(uint8_t index) const;
    /// Append a hop record (no effect when full). \param word the record
    void PushHop(uint64_t word);
    /**
     * Copy the stamped records of another stack (the ACK's echo of a data frame).
     * \param words records
     * \param n how many (at most the capacity)
     */
    void SetHops(const uint64_t* words, uint8_t n);

  private:
    uint8_t m_flags{0};
    uint8_t m_capacity{0};
    uint8_t m_hops{0};
    uint16_t m_port{0};
    std::array<uint64_t, int_telemetry::MAX_HOPS> m_words{};
};

/**
 * Append a hop record to a frame's INT stack in place (the frame keeps its size).
 * \param frame an Ethernet II frame (no FCS) of RoCEv2 with an INT header with room
 * \param word the record
 */
void StampIntHop(const Ptr<Packet>& frame, uint64_t word);

} // namespace ns3

#endif /* INT_HEADER_H */
