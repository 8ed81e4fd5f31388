// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_REMOTE_CHANNEL_H
#define ROCE_REMOTE_CHANNEL_H

#include "roce-channel.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A RoceChannel whose two ends live on different ranks of ns-3's distributed engine (the
 * mpi module; built only when ns-3 is configured with --enable-mpi).
 *
 * The pattern is point-to-point's PointToPointRemoteChannel: a frame bound for the end on
 * this rank is scheduled as RoceChannel does; one bound for the other rank goes to it
 * with MpiInterface::SendPacket, stamped with its arrival time (now + serialization +
 * Delay), and the receiving rank's MpiReceiver (aggregated to each end by Attach) hands it
 * to RoceNetDevice::Receive with its fields parsed again from its bytes, the same fields
 * the sending port had (the frame's bytes are its whole state: data, ACK/NAK, CNP, PFC,
 * INA and telemetry frames alike). The distributed engine's lookahead is the smallest
 * Delay of the cables that cross ranks.
 */
class RoceRemoteChannel : public RoceChannel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoceRemoteChannel();

    /**
     * Attach a device and aggregate to it the MpiReceiver through which frames from the
     * other rank arrive.
     * \param device one end of the cable
     */
    void Attach(Ptr<RoceNetDevice> device) override;
    /**
     * Carry a frame from src to the other end: scheduled here if that end is on this
     * rank, sent to its rank otherwise.
     * \param packet the frame (no FCS)
     * \param src the sending device
     * \param txTime serialization time of the frame at the sender
     * \param info the frame's fields (ParseRoceFrame of its bytes)
     */
    void TransmitStart(Ptr<Packet> packet,
                       Ptr<RoceNetDevice> src,
                       Time txTime,
                       const RoceFrameInfo& info) override;

    /// \return frames this rank sent over the cable to the other rank
    uint64_t GetFramesToOtherRank() const;

  private:
    /**
     * A frame from the other rank arrived at device: parse its fields and receive it.
     * \param device the receiving end
     * \param packet the frame
     */
    static void ReceiveFromOtherRank(Ptr<RoceNetDevice> device, Ptr<Packet> packet);

    uint64_t m_framesToOtherRank{0}; //!< GetFramesToOtherRank
};

} // namespace ns3

#endif // ROCE_REMOTE_CHANNEL_H
