// SPDX-License-Identifier: GPL-2.0-only
#ifndef NV_SWITCH_H
#define NV_SWITCH_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * An NVSwitch: one egress buffer per GPU port, and a reduction engine for NVLS.
 *
 * Lossless by credits: a chunk may leave a GPU toward port p only while p's egress
 * buffer has a free credit (CreditChunks per port); the credit is taken then and given
 * back when the chunk has left the switch and the credit crossed the link back, so the
 * switch never drops. The reduction engine (NVLS, multimem.ld_reduce) is one FIFO server
 * of NvlsThroughput reduced bytes per second over all ports; each GPU may have at most
 * CreditChunks reductions outstanding (its reduction slots).
 *
 * The switch keeps the state; NvSwitchFabric moves chunks through it.
 */
class NvSwitch : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NvSwitch();

    /**
     * Set the number of GPU ports (forgets all credits and slots in use).
     * \param n GPU ports
     */
    void SetNPorts(uint32_t n);
    /// \return the number of GPU ports
    uint32_t GetNPorts() const;

    /**
     * \param port a GPU port
     * \return true if port's egress buffer has a free credit
     */
    bool HasCredit(uint32_t port) const;
    /**
     * Take one of port's credits (a chunk toward it left its GPU).
     * \param port a GPU port
     */
    void TakeCredit(uint32_t port);
    /**
     * Give one of port's credits back (the chunk left, the credit crossed the link).
     * \param port a GPU port
     */
    void ReturnCredit(uint32_t port);
    /// \return the most credits ever in use at one port (never above CreditChunks)
    uint32_t GetMaxEgressOccupancy() const;

    /**
     * \param gpu a GPU of the switch
     * \return true if gpu may issue another reduction chunk
     */
    bool HasReductionSlot(uint32_t gpu) const;
    /**
     * gpu issues a reduction chunk: it holds one more slot.
     * \param gpu a GPU of the switch
     */
    void TakeReductionSlot(uint32_t gpu);
    /**
     * gpu has received a reduced chunk: its slot is free again.
     * \param gpu a GPU of the switch
     */
    void ReleaseReductionSlot(uint32_t gpu);

    /**
     * All contributions of a chunk of bytes are in: queue it on the reduction engine.
     * \param bytes the chunk's payload (one copy)
     * \return the delay until the reduced chunk is ready to go down
     */
    Time Reduce(uint64_t bytes);

    /// \return true when no credit and no reduction slot is in use and the reduction
    ///         engine is idle: nothing left of past traffic
    bool IsIdle() const;

  private:
    uint32_t m_creditChunks;
    DataRate m_nvlsThroughput;
    std::vector<uint32_t> m_creditsUsed; //!< per port
    std::vector<uint32_t> m_slotsUsed;   //!< per GPU
    uint32_t m_maxOccupancy{0};
    Time m_reduceFree; //!< when the reduction engine becomes idle
};

} // namespace ns3

#endif // NV_SWITCH_H
