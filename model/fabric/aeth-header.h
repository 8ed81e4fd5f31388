// SPDX-License-Identifier: GPL-2.0-only

#ifndef AETH_HEADER_H
#define AETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand ACK Extended Transport Header (AETH).
 *
 * 4 bytes, network byte order: Syndrome (8) | MSN (24).
 *
 * The top 3 bits of the syndrome select the kind: 000 = ACK (low 5 bits are the
 * credit count, 11111 = "invalid"/no credit information), 001 = RNR NAK,
 * 011 = NAK (low 5 bits are the NAK code, 00000 = PSN sequence error).
 */
class AethHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 4;                              //!< Serialized size in bytes
    static constexpr uint8_t SYNDROME_ACK = 0x1F;                    //!< ACK, credit field invalid
    static constexpr uint8_t SYNDROME_NAK_PSN_SEQUENCE_ERROR = 0x60; //!< NAK: PSN sequence error
    static constexpr uint8_t SYNDROME_TYPE_MASK = 0xE0; //!< Syndrome bits 7:5: ACK, RNR NAK or NAK
    static constexpr uint8_t SYNDROME_TYPE_NAK = 0x60;  //!< Syndrome type bits of a NAK

    AethHeader();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /** \brief Set the syndrome. \param syndrome the syndrome byte */
    void SetSyndrome(uint8_t syndrome);
    /** \brief Get the syndrome. \return the syndrome byte */
    uint8_t GetSyndrome() const;

    /** \brief Set the message sequence number (masked to 24 bits). \param msn the MSN */
    void SetMsn(uint32_t msn);
    /** \brief Get the message sequence number. \return the 24-bit MSN */
    uint32_t GetMsn() const;

    /** \brief Whether the syndrome is an ACK. \return true if the top 3 bits are 000 */
    bool IsAck() const;
    /** \brief Whether the syndrome is a NAK. \return true if the top 3 bits are 011 */
    bool IsNak() const;

  private:
    uint8_t m_syndrome; //!< Syndrome
    uint32_t m_msn;     //!< Message sequence number (24 bits)
};

} // namespace ns3

#endif /* AETH_HEADER_H */
