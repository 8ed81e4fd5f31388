// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-route.h"

#include "rdma-nic.h"

#include "ns3/node.h"
#include "ns3/roce-frame-info.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-switch.h"

namespace ns3
{

bool
TraceQueuePairRoute(const RdmaQueuePair* qp, std::vector<Ptr<RoceNetDevice>>& path)
{
    const Ptr<RdmaNic> nic = qp->GetNic();
    Ptr<RoceNetDevice> port = nic->GetDevice();
    RoceFrameInfo info;
    info.srcIp = nic->GetAddress().Get();
    info.dstIp = qp->GetPeerAddress().Get();
    info.protocol = roce::IP_PROTOCOL_UDP;
    info.srcPort = qp->GetUdpSourcePort();
    info.dstPort = roce::UDP_DEST_PORT;
    const uint64_t key = info.FlowKey();
    path.clear();
    for (uint32_t hop = 0; hop < MAX_ROUTE_HOPS; ++hop)
    {
        path.push_back(port);
        const Ptr<RoceChannel> cable = port->GetRoceChannel();
        if (!cable || !cable->IsUp())
        {
            return false;
        }
        const Ptr<RoceSwitch> sw = cable->GetPeer(port)->GetNode()->GetObject<RoceSwitch>();
        if (!sw)
        {
            return true; // a host: the peer's NIC
        }
        const uint32_t out = sw->GetRoutingTable().SelectPort(info.dstIp, key, sw->GetEcmpSalt());
        if (out == UINT32_MAX)
        {
            return false;
        }
        port = sw->GetPort(out);
    }
    return false;
}

} // namespace ns3
