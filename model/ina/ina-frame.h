// SPDX-License-Identifier: GPL-2.0-only
#ifndef INA_FRAME_H
#define INA_FRAME_H

#include "ina-header.h"

#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"
#include "ns3/packet.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Where an INA frame goes and how it is marked: the fields of its Ethernet and IPv4
 * headers.
 */
struct InaFrameAddress
{
    Mac48Address srcMac;   //!< sending port
    Mac48Address dstMac;   //!< the port at the other end of the link
    Ipv4Address srcIp;     //!< sender (worker NIC or engine)
    Ipv4Address dstIp;     //!< worker NIC or the job's group address
    uint8_t priority{3};   //!< traffic class: DSCP = 8 × priority
    bool ecnCapable{true}; //!< ECT(0), so switches may mark CE
};

/**
 * Build an INA frame: Ethernet, IPv4, UDP (both ports ina::UDP_PORT), the INA header and
 * header.GetValueBytes() bytes of values (zero-filled: the simulation carries their size
 * only).
 * \param header the INA header
 * \param address the Ethernet and IPv4 fields
 * \return the frame, without FCS
 */
Ptr<Packet> MakeInaFrame(const InaHeader& header, const InaFrameAddress& address);

/**
 * Read the INA header of a frame built by MakeInaFrame (Ethernet, IPv4 without options,
 * UDP), without copying the packet.
 * \param frame the frame
 * \param header set to its INA header
 * \return false if the frame is too short to hold one
 */
bool ReadInaHeader(const Ptr<const Packet>& frame, InaHeader& header);

/**
 * \param job a job id
 * \return its group address, 239.255.(job >> 8).(job & 255)
 */
Ipv4Address InaGroupAddress(uint16_t job);

/**
 * \param address an IPv4 address
 * \return whether it is a job's group address (239.255.0.0/16): the packets switches
 *         aggregate, rather than forward to a host
 */
bool IsInaGroupAddress(Ipv4Address address);

} // namespace ns3

#endif /* INA_FRAME_H */
