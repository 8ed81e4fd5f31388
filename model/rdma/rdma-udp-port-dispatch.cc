// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-udp-port-dispatch.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaUdpPortDispatch");

void
RdmaUdpPortDispatch::SetReceiveCallback(uint16_t udpPort, ReceiveCallback callback)
{
    NS_LOG_FUNCTION(this << udpPort);
    m_port = udpPort;
    m_receive = callback;
}

void
RdmaUdpPortDispatch::Clear()
{
    NS_LOG_FUNCTION(this);
    m_receive = ReceiveCallback();
}

bool
RdmaUdpPortDispatch::Deliver(const Ptr<Packet>& packet,
                             const RoceFrameInfo& info,
                             uint32_t localIp) const
{
    if (info.kind == RoceFrameInfo::IPV4 && info.dstPort == m_port && info.dstIp == localIp &&
        !m_receive.IsNull())
    {
        m_receive(packet, info);
        return true;
    }
    return false;
}

} // namespace ns3
