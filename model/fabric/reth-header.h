// SPDX-License-Identifier: GPL-2.0-only

#ifndef RETH_HEADER_H
#define RETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand RDMA Extended Transport Header (RETH).
 *
 * 16 bytes, network byte order: VirtualAddress (64) | R_Key (32) | DMA Length (32).
 * Carried by the first (or only) packet of an RDMA WRITE / RDMA READ request.
 */
class RethHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 16; //!< Serialized size in bytes

    RethHeader();

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

    /** \brief Set the remote virtual address. \param va the virtual address */
    void SetVirtualAddress(uint64_t va);
    /** \brief Get the remote virtual address. \return the virtual address */
    uint64_t GetVirtualAddress() const;

    /** \brief Set the remote key. \param rkey the R_Key */
    void SetRKey(uint32_t rkey);
    /** \brief Get the remote key. \return the R_Key */
    uint32_t GetRKey() const;

    /** \brief Set the DMA length in bytes. \param length the DMA length */
    void SetDmaLength(uint32_t length);
    /** \brief Get the DMA length in bytes. \return the DMA length */
    uint32_t GetDmaLength() const;

  private:
    uint64_t m_virtualAddress; //!< Remote virtual address
    uint32_t m_rkey;           //!< Remote key
    uint32_t m_dmaLength;      //!< DMA length in bytes
};

} // namespace ns3

#endif /* RETH_HEADER_H */
