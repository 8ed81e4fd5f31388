// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_CHANNEL_H
#define ROCE_CHANNEL_H

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
    static TypeId GetTypeId();
    RoceChannel();

    /// Attach a device; a channel takes exactly two.
    void Attach(Ptr<RoceNetDevice> device);
    /**
     * Carry a frame from src to the other end: it arrives after txTime + delay.
     * \param packet the frame (no FCS)
     * \param src the sending device
     * \param txTime serialization time of the frame at the sender
     */
    void TransmitStart(Ptr<Packet> packet, Ptr<RoceNetDevice> src, Time txTime);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;
    Ptr<RoceNetDevice> GetRoceDevice(std::size_t i) const;
    /// The device at the other end of the cable from device.
    Ptr<RoceNetDevice> GetPeer(Ptr<const RoceNetDevice> device) const;
    Time GetDelay() const;

  protected:
    void DoDispose() override;

  private:
    Time m_delay;
    Ptr<RoceNetDevice> m_devices[2];
    uint32_t m_nDevices{0};
};

} // namespace ns3

#endif
