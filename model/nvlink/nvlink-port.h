// SPDX-License-Identifier: GPL-2.0-only
#ifndef NVLINK_PORT_H
#define NVLINK_PORT_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The NVLink device of one GPU and its links to the NVSwitch: LinkCount links of
 * PerLinkRate each, per direction, with Latency per hop. NCCL stripes a transfer over all
 * links of a GPU, so they act as one port of LinkCount x PerLinkRate.
 *
 * Two directions, each a FIFO of whole chunks: the uplink (GPU -> switch) serializes one
 * chunk at a time and is told by its owner what to send next (the owner's scheduler
 * decides, since it knows the switch's credits); the downlink (switch -> GPU) never
 * blocks, because a GPU always accepts what arrives, so a clock of when it becomes idle
 * is all its queue needs. Serialization runs at the port rate times an efficiency the
 * caller gives (protocol overheads live above the link).
 */
class NvLinkPort : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NvLinkPort();

    /// \return LinkCount x PerLinkRate: the line rate of the port, per direction
    DataRate GetRate() const;
    /// \return the per-hop latency
    Time GetLatency() const;
    /**
     * \param bytes chunk payload
     * \param efficiency fraction of the line rate the payload gets (0..1]
     * \return time to serialize bytes at rate x efficiency
     */
    Time GetTransmissionTime(uint64_t bytes, double efficiency) const;

    /// \return true while a chunk is being serialized toward the switch
    bool IsUplinkBusy() const;
    /**
     * Start serializing a chunk toward the switch.
     * \param bytes chunk payload
     * \param efficiency fraction of the line rate the payload gets (0..1]
     * \return its serialization time; the chunk reaches the switch GetLatency() later
     */
    Time StartUplink(uint64_t bytes, double efficiency);
    /// The uplink finished its chunk and may start another.
    void EndUplink();

    /**
     * Queue a chunk on the downlink now (FIFO behind what is queued).
     * \param bytes chunk payload
     * \param efficiency fraction of the line rate the payload gets (0..1]
     * \return the delay until its last bit has left the switch (queueing and
     *         serialization); the GPU has it GetLatency() later
     */
    Time QueueDownlink(uint64_t bytes, double efficiency);

    /// \return whether a chunk queued on the downlink now would wait for one before it
    bool IsDownlinkBusy() const;
    /// \return when the downlink has sent everything queued on it (the past when idle)
    Time GetDownlinkFree() const;

    /**
     * Count chunks a fast-forward let through, or a replayed call moved, without
     * simulating them.
     * \param sent payload bytes that went up
     * \param received payload bytes that came down
     */
    void CountSkippedBytes(uint64_t sent, uint64_t received);

    /// \return payload bytes sent up toward the switch so far
    uint64_t GetBytesSent() const;
    /// \return payload bytes received down from the switch so far
    uint64_t GetBytesReceived() const;

  private:
    uint32_t m_linkCount;
    DataRate m_perLinkRate;
    Time m_latency;
    bool m_uplinkBusy{false};
    Time m_downlinkFree; //!< when the downlink becomes idle
    uint64_t m_bytesSent{0};
    uint64_t m_bytesReceived{0};

    /// A transmission time computed before: chunks are nearly all ChunkBytes long, at one
    /// of two efficiencies (point to point, NVLS), and the double-to-Time conversion is a
    /// visible part of a large run's forward pass.
    struct TxTime
    {
        uint64_t bytes{0};
        double efficiency{0};
        uint64_t rateBps{0};
        Time time;
    };

    mutable TxTime m_txTimes[2]; //!< the last two, for GetTransmissionTime
    mutable uint8_t m_txNext{0}; //!< which of them the next new one replaces
};

} // namespace ns3

#endif // NVLINK_PORT_H
