// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_UDP_PORT_DISPATCH_H
#define RDMA_UDP_PORT_DISPATCH_H

#include "ns3/callback.h"
#include "ns3/packet.h"
#include "ns3/roce-frame-info.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The UDP port an RdmaNic shares with another protocol (e.g. in-network aggregation):
 * IPv4/UDP frames to the NIC's address and to that port that are not RoCE go to one
 * receiver instead of the node's protocol stack. A plain value held by the NIC.
 */
class RdmaUdpPortDispatch
{
  public:
    /// Takes a frame to the port: frame, decoded fields.
    typedef Callback<void, Ptr<Packet>, const RoceFrameInfo&> ReceiveCallback;

    /**
     * Hand the frames to udpPort to callback.
     * \param udpPort the UDP destination port
     * \param callback the receiver (null: none, the frames are not taken)
     */
    void SetReceiveCallback(uint16_t udpPort, ReceiveCallback callback);

    /// Forget the receiver (and what its callback holds); the frames are no longer taken.
    void Clear();

    /**
     * Give a received frame that is not RoCE for this NIC to the receiver if it is
     * IPv4/UDP to the port and to the NIC's address.
     * \param packet the frame
     * \param info its decoded fields
     * \param localIp the NIC's IPv4 address (Ipv4Address::Get())
     * \return true if the receiver took it
     */
    bool Deliver(const Ptr<Packet>& packet, const RoceFrameInfo& info, uint32_t localIp) const;

  private:
    uint16_t m_port{0};        //!< the port of SetReceiveCallback
    ReceiveCallback m_receive; //!< its receiver, if any
};

} // namespace ns3

#endif
