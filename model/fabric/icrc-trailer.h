// SPDX-License-Identifier: GPL-2.0-only

#ifndef ICRC_TRAILER_H
#define ICRC_TRAILER_H

#include "ns3/trailer.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Compute the RoCEv2 (IPv4) Invariant CRC.
 *
 * CRC-32 (Ethernet polynomial, reflected, init 0xFFFFFFFF, final xor 0xFFFFFFFF;
 * i.e. ns3::CRC32Calculate) over, in order:
 *  - 8 bytes of 0xFF (stand-in for the IB LRH),
 *  - the IPv4 header (length from its IHL field) with TOS (DSCP+ECN), TTL and
 *    header checksum replaced by all ones,
 *  - the UDP header with its checksum replaced by all ones,
 *  - the BTH with byte 4 (FECN | BECN | resv6) replaced by all ones,
 *  - the rest: extended transport headers and payload including its pad bytes
 *    (not the ICRC itself).
 *
 * This is the same computation as Linux rxe (rxe_icrc.c). The input bytes are not
 * modified. Aborts (in all builds) if the length cannot hold IPv4 (per IHL) + UDP
 * + BTH, or if IHL < 5.
 *
 * \param ipv4Start first byte of the IPv4 header
 * \param lengthFromIpv4ToEndOfPayloadWithoutIcrc bytes from the IPv4 header to the
 *        end of the payload, excluding the 4-byte ICRC (must cover at least
 *        IPv4 + UDP + BTH)
 * \return the ICRC value (transmit it with WriteRoceIcrc / IcrcTrailer)
 */
uint32_t ComputeRoceIcrc(const uint8_t* ipv4Start,
                         uint32_t lengthFromIpv4ToEndOfPayloadWithoutIcrc);

/**
 * \ingroup ai-fabric
 * \brief Write an ICRC value in RoCEv2 wire order.
 *
 * Like the Ethernet FCS, the ICRC is transmitted least-significant byte first:
 * out[0] = bits 0..7, ..., out[3] = bits 24..31. (This is what Linux rxe does:
 * it stores the little-endian u32.) With this order, CRC32Calculate over the
 * protected bytes followed by the 4 ICRC bytes yields the CRC-32 residue constant
 * 0x2144DF1C.
 *
 * \param icrc the value returned by ComputeRoceIcrc
 * \param out the 4 output bytes
 */
void WriteRoceIcrc(uint32_t icrc, uint8_t out[4]);

/**
 * \ingroup ai-fabric
 * \brief Read an ICRC value written by WriteRoceIcrc (least-significant byte first).
 * \param in the 4 wire bytes
 * \return the ICRC value
 */
uint32_t ReadRoceIcrc(const uint8_t in[4]);

/**
 * \ingroup ai-fabric
 * \brief The 4-byte RoCEv2 ICRC trailer (serialized least-significant byte first,
 *        as WriteRoceIcrc).
 */
class IcrcTrailer : public Trailer
{
  public:
    static constexpr uint32_t SIZE = 4; //!< Serialized size in bytes

    IcrcTrailer();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator end) override;
    void Print(std::ostream& os) const override;

    /** \brief Set the ICRC value. \param icrc the value */
    void SetIcrc(uint32_t icrc);
    /** \brief Get the ICRC value. \return the value */
    uint32_t GetIcrc() const;

  private:
    uint32_t m_icrc; //!< ICRC value
};

} // namespace ns3

#endif /* ICRC_TRAILER_H */
