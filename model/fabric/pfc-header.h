// SPDX-License-Identifier: GPL-2.0-only

#ifndef PFC_HEADER_H
#define PFC_HEADER_H

#include "ns3/header.h"
#include "ns3/mac48-address.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief IEEE 802.1Qbb Priority-based Flow Control (PFC) MAC-control payload.
 *
 * Follows an Ethernet II header with EtherType ETHERTYPE (0x8808) and destination
 * GetMulticastAddress() (01:80:c2:00:00:01). Layout, network byte order:
 * \verbatim
   offset  0: MAC control opcode (16) = 0x0101
   offset  2: priority-enable vector (16); bit n (LSB = bit 0) = class n, bits 8..15 zero
   offset  4: time[0] .. time[7] (8 x 16), pause quanta (1 quantum = 512 bit times)
   offset 20: 26 bytes of zero padding
 \endverbatim
 * Serialized size is 46 bytes, so that with the 14-byte Ethernet header the frame
 * is the 60-byte minimum (64 bytes with FCS).
 *
 * A pause time of 0 with the enable bit set means "resume" (XON) for that class.
 * The reserved upper 8 bits of the enable vector are written as zero and masked
 * off on reception.
 * Deserialize does not abort on a foreign MAC-control opcode: it still consumes
 * 46 bytes and IsValid() returns false.
 */
class PfcHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 46;          //!< Serialized size in bytes
    static constexpr uint16_t ETHERTYPE = 0x8808; //!< MAC control EtherType
    static constexpr uint16_t OPCODE = 0x0101;    //!< PFC MAC control opcode
    static constexpr uint8_t NUM_CLASSES = 8;     //!< Number of priority classes

    PfcHeader();

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

    /**
     * \brief Set the pause time of a class and set its enable bit.
     * \param priority the class (0..7; aborts otherwise)
     * \param quanta the pause time in quanta (0 = resume)
     */
    void SetPauseTime(uint8_t priority, uint16_t quanta);
    /**
     * \brief Clear the enable bit of a class and zero its pause time.
     * \param priority the class (0..7; aborts otherwise)
     */
    void ClearClass(uint8_t priority);
    /**
     * \brief Whether the enable bit of a class is set.
     * \param priority the class (0..7; false for any other value)
     * \return true if enabled
     */
    bool IsEnabled(uint8_t priority) const;
    /**
     * \brief Get the pause time of a class.
     * \param priority the class (0..7; 0 is returned for any other value)
     * \return the pause time in quanta (as stored, whether or not enabled)
     */
    uint16_t GetPauseTime(uint8_t priority) const;
    /** \brief Get the priority-enable vector. \return the vector (bit n = class n) */
    uint16_t GetEnableVector() const;
    /**
     * \brief Whether the last deserialized opcode was OPCODE (always true if built locally).
     * \return true if valid
     */
    bool IsValid() const;
    /** \brief Get the opcode (as read by Deserialize, or OPCODE). \return the opcode */
    uint16_t GetOpcode() const;

    /** \brief Get the PFC destination address. \return 01:80:c2:00:00:01 */
    static Mac48Address GetMulticastAddress();

  private:
    uint16_t m_opcode;                             //!< MAC control opcode
    uint16_t m_enableVector;                       //!< Priority-enable vector
    std::array<uint16_t, NUM_CLASSES> m_pauseTime; //!< Pause time per class
};

} // namespace ns3

#endif /* PFC_HEADER_H */
