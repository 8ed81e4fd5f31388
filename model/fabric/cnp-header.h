// SPDX-License-Identifier: GPL-2.0-only

#ifndef CNP_HEADER_H
#define CNP_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Body of a RoCEv2 Congestion Notification Packet (CNP).
 *
 * A CNP is BTH (opcode BthHeader::CNP, BECN set) followed by 16 reserved bytes
 * and the ICRC. This header models those 16 reserved bytes: they are written as
 * zero and skipped on reception.
 */
class CnpHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 16; //!< Serialized size in bytes

    CnpHeader();

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
};

} // namespace ns3

#endif /* CNP_HEADER_H */
