// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_TRANSPORT_H
#define COLLECTIVE_TRANSPORT_H

#include "ns3/callback.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * What the collective engine asks of a carrier: move bytes between two ranks.
 *
 * Carriers: an ideal one (fixed rate and latency, no packets), RDMA queue pairs over the
 * RoCE fabric, NVLink through an NVSwitch. The engine knows nothing of packets; the
 * carrier knows nothing of collectives.
 */
class CollectiveTransport : public Object
{
  public:
    /// Called once the last byte of a transfer has arrived at its destination.
    typedef Callback<void> DoneCallback;

    static TypeId GetTypeId();

    /**
     * Move bytes from rank src to rank dst. Transfers between the same pair on the same
     * channel are delivered in the order they were sent; a zero-byte transfer completes
     * as soon as the carrier can say so (after its latency).
     * \param src sending rank
     * \param dst receiving rank
     * \param bytes payload bytes
     * \param channel NCCL-style channel; carriers may map channels to separate connections
     * \param done called when the last byte arrived at dst
     */
    virtual void Send(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t channel, DoneCallback done) = 0;

    /// Number of ranks this carrier connects.
    virtual uint32_t GetNRanks() const = 0;
};

} // namespace ns3

#endif
