// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_TRANSPORT_H
#define COLLECTIVE_TRANSPORT_H

#include "ns3/callback.h"
#include "ns3/object.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * What the collective engine asks of a carrier: move bytes between two ranks.
 *
 * Carriers: an ideal one (fixed rate and latency, no packets), RDMA queue pairs over the
 * RoCE fabric, NVLink through an NVSwitch. The engine knows nothing of packets; the
 * carrier knows nothing of collectives.
 *
 * Carriers with a switch that computes (NVSwitch SHARP, "NVLS") also reduce and multicast
 * in the switch; the others say so through CanReduceInSwitch and abort if asked anyway.
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

    /**
     * \param members ranks of a would-be multicast group
     * \return true if SwitchReduce and SwitchMulticast work over exactly these ranks (they
     * share a switch that reduces). The default: false.
     */
    virtual bool CanReduceInSwitch(const std::vector<uint32_t>& members) const;

    /**
     * In-switch reduction (multimem.ld_reduce): every member sends its copy of bytes up,
     * the switch adds them and delivers the sum to dst. The default aborts, naming the
     * carrier: it has no such switch.
     * \param members contributing ranks (dst usually among them)
     * \param dst rank that receives the sum and issues the operation
     * \param bytes size of one copy
     * \param channel NCCL-style channel
     * \param done called when the whole sum has arrived at dst
     */
    virtual void SwitchReduce(const std::vector<uint32_t>& members,
                              uint32_t dst,
                              uint64_t bytes,
                              uint32_t channel,
                              DoneCallback done);

    /**
     * In-switch multicast (multimem.st): src sends bytes up once and the switch writes
     * them to every member. The default aborts, as SwitchReduce.
     * \param src sending rank
     * \param members receiving ranks (src may be among them: its copy comes back)
     * \param bytes payload
     * \param channel NCCL-style channel
     * \param done called when every member has the last byte
     */
    virtual void SwitchMulticast(uint32_t src,
                                 const std::vector<uint32_t>& members,
                                 uint64_t bytes,
                                 uint32_t channel,
                                 DoneCallback done);
};

} // namespace ns3

#endif
