// SPDX-License-Identifier: GPL-2.0-only

#ifndef BTH_HEADER_H
#define BTH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand Base Transport Header (BTH), as carried by RoCEv2.
 *
 * 12 bytes, network byte order:
 * \verbatim
   0                   1                   2                   3
   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
  |    OpCode     |S|M|Pad| TVer  |            P_Key              |
  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
  |F|B|   resv    |                  DestQP                       |
  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
  |A|   resv7     |                    PSN                        |
  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
  \endverbatim
 *
 * Reserved bits are written as zero and ignored on reception.
 */
class BthHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 12; //!< Serialized size in bytes

    // Opcodes (RC transport unless noted)
    static constexpr uint8_t RC_SEND_FIRST = 0x00;                     //!< RC SEND First
    static constexpr uint8_t RC_SEND_MIDDLE = 0x01;                    //!< RC SEND Middle
    static constexpr uint8_t RC_SEND_LAST = 0x02;                      //!< RC SEND Last
    static constexpr uint8_t RC_SEND_ONLY = 0x04;                      //!< RC SEND Only
    static constexpr uint8_t RC_RDMA_WRITE_FIRST = 0x06;               //!< RC RDMA WRITE First
    static constexpr uint8_t RC_RDMA_WRITE_MIDDLE = 0x07;              //!< RC RDMA WRITE Middle
    static constexpr uint8_t RC_RDMA_WRITE_LAST = 0x08;                //!< RC RDMA WRITE Last
    static constexpr uint8_t RC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09; //!< Last w/ Immediate
    static constexpr uint8_t RC_RDMA_WRITE_ONLY = 0x0A;                //!< RC RDMA WRITE Only
    static constexpr uint8_t RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0B; //!< Only w/ Immediate
    static constexpr uint8_t RC_ACKNOWLEDGE = 0x11;                    //!< RC Acknowledge
    static constexpr uint8_t CNP = 0x81; //!< RoCEv2 Congestion Notification Packet

    static constexpr uint16_t DEFAULT_PKEY = 0xFFFF; //!< Default (full member) partition key

    BthHeader();

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

    /** \brief Set the opcode. \param opcode the opcode */
    void SetOpcode(uint8_t opcode);
    /** \brief Get the opcode. \return the opcode */
    uint8_t GetOpcode() const;

    /** \brief Set the Solicited Event bit. \param se the bit value */
    void SetSolicitedEvent(bool se);
    /** \brief Get the Solicited Event bit. \return the bit value */
    bool GetSolicitedEvent() const;

    /** \brief Set the MigReq bit. \param migReq the bit value */
    void SetMigReq(bool migReq);
    /** \brief Get the MigReq bit. \return the bit value */
    bool GetMigReq() const;

    /** \brief Set the pad count (masked to 2 bits). \param padCount the pad count */
    void SetPadCount(uint8_t padCount);
    /** \brief Get the pad count. \return the pad count (0..3) */
    uint8_t GetPadCount() const;

    /** \brief Set the transport header version (masked to 4 bits). \param tver the version */
    void SetTransportVersion(uint8_t tver);
    /** \brief Get the transport header version. \return the version (0..15) */
    uint8_t GetTransportVersion() const;

    /** \brief Set the partition key. \param pkey the partition key */
    void SetPKey(uint16_t pkey);
    /** \brief Get the partition key. \return the partition key */
    uint16_t GetPKey() const;

    /** \brief Set the FECN bit. \param fecn the bit value */
    void SetFecn(bool fecn);
    /** \brief Get the FECN bit. \return the bit value */
    bool GetFecn() const;

    /** \brief Set the BECN bit. \param becn the bit value */
    void SetBecn(bool becn);
    /** \brief Get the BECN bit. \return the bit value */
    bool GetBecn() const;

    /** \brief Set the destination QP (masked to 24 bits). \param destQp the QP number */
    void SetDestQp(uint32_t destQp);
    /** \brief Get the destination QP. \return the 24-bit QP number */
    uint32_t GetDestQp() const;

    /** \brief Set the AckReq bit. \param ackReq the bit value */
    void SetAckRequest(bool ackReq);
    /** \brief Get the AckReq bit. \return the bit value */
    bool GetAckRequest() const;

    /** \brief Set the packet sequence number (masked to 24 bits). \param psn the PSN */
    void SetPsn(uint32_t psn);
    /** \brief Get the packet sequence number. \return the 24-bit PSN */
    uint32_t GetPsn() const;

  private:
    uint8_t m_opcode;  //!< OpCode
    bool m_se;         //!< Solicited Event
    bool m_migReq;     //!< Migration request
    uint8_t m_padCnt;  //!< Pad count (2 bits)
    uint8_t m_tver;    //!< Transport header version (4 bits)
    uint16_t m_pkey;   //!< Partition key
    bool m_fecn;       //!< Forward ECN
    bool m_becn;       //!< Backward ECN
    uint32_t m_destQp; //!< Destination QP (24 bits)
    bool m_ackReq;     //!< Acknowledge request
    uint32_t m_psn;    //!< Packet sequence number (24 bits)
};

} // namespace ns3

#endif /* BTH_HEADER_H */
