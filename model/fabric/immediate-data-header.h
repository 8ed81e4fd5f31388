// SPDX-License-Identifier: GPL-2.0-only

#ifndef IMMEDIATE_DATA_HEADER_H
#define IMMEDIATE_DATA_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand Immediate Data extended header (ImmDt): 4 bytes, network byte order.
 */
class ImmediateDataHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 4; //!< Serialized size in bytes

    ImmediateDataHeader();

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

    /** \brief Set the immediate value. \param imm the immediate value */
    void SetImmediate(uint32_t imm);
    /** \brief Get the immediate value. \return the immediate value */
    uint32_t GetImmediate() const;

  private:
    uint32_t m_immediate; //!< Immediate data
};

} // namespace ns3

#endif /* IMMEDIATE_DATA_HEADER_H */
