// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_ROUTE_H
#define RDMA_ROUTE_H

#include "rdma-queue-pair.h"

#include "ns3/roce-net-device.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// Switches a route may cross before TraceQueuePairRoute gives up (a routing loop).
constexpr uint32_t MAX_ROUTE_HOPS = 64;

/**
 * \ingroup ai-fabric
 * The ports a queue pair's data frames cross, as the switches route them now (each
 * switch's ECMP choice for the frame's addresses and UDP ports, as RoceSwitch makes it).
 * \param qp the sender
 * \param path set to the ports, the sender's NIC port first, the last switch's egress
 *        towards the receiver last
 * \return false if a cable on the way is down or a switch has no route
 */
bool TraceQueuePairRoute(const RdmaQueuePair* qp, std::vector<Ptr<RoceNetDevice>>& path);

} // namespace ns3

#endif // RDMA_ROUTE_H
