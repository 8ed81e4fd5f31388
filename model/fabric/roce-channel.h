// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_CHANNEL_H
#define ROCE_CHANNEL_H

#include "roce-frame-info.h"

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

namespace ns3
{

class RoceNetDevice;

/**
 * \ingroup ai-fabric
 * A full-duplex point-to-point Ethernet cable between two RoceNetDevices.
 *
 * Each direction is independent; the channel only adds the propagation delay. The sending
 * device owns serialization (it knows the rate and the frame's size on the wire).
 */
class RoceChannel : public Channel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoceChannel();

    /**
     * Attach a device; a channel takes exactly two (aborts on a third).
     * \param device one end of the cable
     */
    virtual void Attach(Ptr<RoceNetDevice> device);
    /**
     * Carry a frame from src to the other end: it arrives after txTime + delay.
     * \param packet the frame (no FCS)
     * \param src the sending device
     * \param txTime serialization time of the frame at the sender
     * \param info the frame's fields (ParseRoceFrame of its bytes), handed to the receiver
     */
    virtual void TransmitStart(Ptr<Packet> packet,
                       Ptr<RoceNetDevice> src,
                       Time txTime,
                       const RoceFrameInfo& info);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;
    /// \param i 0 or 1 \return that end of the cable
    Ptr<RoceNetDevice> GetRoceDevice(std::size_t i) const;
    /**
     * \param device one end of the cable
     * \return the device at the other end
     */
    Ptr<RoceNetDevice> GetPeer(Ptr<const RoceNetDevice> device) const;
    /// \return the one-way propagation delay (the Delay attribute)
    Time GetDelay() const;

    /**
     * Cut or mend the cable. A cut loses the frames on it (the receiver drops what
     * arrives while the cable is cut) and every frame sent while it is down.
     * \param up false to cut, true to mend
     */
    void SetUp(bool up);

    /// \return whether the cable carries frames
    bool IsUp() const
    {
        return m_up; // inline: every arriving frame asks
    }

    /// \return whether frames reach their node through RoceArrivalOrder (the
    /// OrderSimultaneousArrivals attribute)
    bool GetOrderSimultaneousArrivals() const;
    /**
     * A frame reached device: hold it for its node's delivery of this instant
     * (RoceArrivalOrder).
     * \param device the receiving end
     * \param packet the frame
     * \param info its fields
     */
    static void ArriveInOrder(Ptr<RoceNetDevice> device, Ptr<Packet> packet, RoceFrameInfo info);

    /// \return frames lost because the cable was cut (in flight, or sent while down)
    uint64_t GetLostFrames() const;
    /// A device received a frame while the cable was cut: count it lost.
    void CountLostFrame();

  protected:
    void DoDispose() override;

  private:
    Time m_delay;
    Ptr<RoceNetDevice> m_devices[2];
    uint32_t m_nDevices{0};
    bool m_up{true};    //!< IsUp
    bool m_orderArrivals{false}; //!< OrderSimultaneousArrivals
    uint64_t m_lost{0}; //!< GetLostFrames
};

} // namespace ns3

#endif
