// SPDX-License-Identifier: GPL-2.0-only
// RoceNetDevice's ns3::NetDevice interface: index, address, MTU, link state, and the
// frames it exchanges with the node's protocol stack (the RoCE path does not use them).
#include "roce-channel.h"
#include "roce-net-device.h"

#include "ns3/ethernet-header.h"
#include "ns3/log.h"
#include "ns3/node.h"

namespace ns3
{

// The class's log component ("RoceNetDevice"), defined in roce-net-device.cc: NS_LOG
// finds it under this name.
LogComponent& RoceNetDeviceLogComponent();
static LogComponent& g_log = RoceNetDeviceLogComponent();

void
RoceNetDevice::SetIfIndex(const uint32_t index)
{
    NS_LOG_FUNCTION(this);
    m_ifIndex = index;
}

uint32_t
RoceNetDevice::GetIfIndex() const
{
    NS_LOG_FUNCTION(this);
    return m_ifIndex;
}

Ptr<Channel>
RoceNetDevice::GetChannel() const
{
    NS_LOG_FUNCTION(this);
    return m_channel;
}

void
RoceNetDevice::SetAddress(Address address)
{
    NS_LOG_FUNCTION(this);
    m_address = Mac48Address::ConvertFrom(address);
}

Address
RoceNetDevice::GetAddress() const
{
    NS_LOG_FUNCTION(this);
    return m_address;
}

bool
RoceNetDevice::SetMtu(const uint16_t mtu)
{
    NS_LOG_FUNCTION(this);
    m_mtu = mtu;
    return true;
}

uint16_t
RoceNetDevice::GetMtu() const
{
    NS_LOG_FUNCTION(this);
    return m_mtu;
}

bool
RoceNetDevice::IsLinkUp() const
{
    NS_LOG_FUNCTION(this);
    return m_channel && m_channel->IsUp();
}

void
RoceNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    NS_LOG_FUNCTION(this);
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

void
RoceNetDevice::NotifyLinkChange()
{
    NS_LOG_FUNCTION(this);
    NS_LOG_INFO("link " << (IsLinkUp() ? "up" : "down"));
    m_linkChangeCallbacks();
}

bool
RoceNetDevice::DeliverUp(Ptr<Packet> frame)
{
    NS_LOG_FUNCTION(this << frame);
    if (m_stackRxCallback.IsNull() && m_promiscRxCallback.IsNull())
    {
        return false;
    }
    Ptr<Packet> p = frame->Copy();
    EthernetHeader eth(false);
    if (p->GetSize() < eth.GetSerializedSize())
    {
        return false;
    }
    p->RemoveHeader(eth);
    const uint16_t protocol = eth.GetLengthType();
    NS_LOG_DEBUG("to the stack: " << p->GetSize() << " B of EtherType 0x" << std::hex << protocol
                                  << std::dec);
    if (!m_promiscRxCallback.IsNull())
    {
        m_promiscRxCallback(this,
                            p,
                            protocol,
                            eth.GetSource(),
                            eth.GetDestination(),
                            eth.GetDestination() == m_address ? PACKET_HOST : PACKET_OTHERHOST);
    }
    if (!m_stackRxCallback.IsNull())
    {
        m_stackRxCallback(this, p, protocol, eth.GetSource());
    }
    return true;
}

bool
RoceNetDevice::IsBroadcast() const
{
    NS_LOG_FUNCTION(this);
    return false;
}

Address
RoceNetDevice::GetBroadcast() const
{
    NS_LOG_FUNCTION(this);
    return Mac48Address::GetBroadcast();
}

bool
RoceNetDevice::IsMulticast() const
{
    NS_LOG_FUNCTION(this);
    return false;
}

Address
RoceNetDevice::GetMulticast(Ipv4Address) const
{
    NS_LOG_FUNCTION(this);
    return Mac48Address::GetMulticast(Ipv4Address("224.0.0.0"));
}

Address
RoceNetDevice::GetMulticast(Ipv6Address addr) const
{
    NS_LOG_FUNCTION(this);
    return Mac48Address::GetMulticast(addr);
}

bool
RoceNetDevice::IsPointToPoint() const
{
    NS_LOG_FUNCTION(this);
    return true;
}

bool
RoceNetDevice::IsBridge() const
{
    NS_LOG_FUNCTION(this);
    return false;
}

bool
RoceNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this);
    return SendFrom(packet, m_address, dest, protocolNumber);
}

bool
RoceNetDevice::SendFrom(Ptr<Packet> packet,
                        const Address& source,
                        const Address& dest,
                        uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this);
    EthernetHeader eth(false);
    eth.SetSource(Mac48Address::ConvertFrom(source));
    eth.SetDestination(Mac48Address::ConvertFrom(dest));
    eth.SetLengthType(protocolNumber);
    packet->AddHeader(eth);
    EnqueueData(packet, 0, UINT32_MAX);
    return true;
}

Ptr<Node>
RoceNetDevice::GetNode() const
{
    NS_LOG_FUNCTION(this);
    return m_node;
}

void
RoceNetDevice::SetNode(Ptr<Node> node)
{
    NS_LOG_FUNCTION(this);
    m_node = node;
}

bool
RoceNetDevice::NeedsArp() const
{
    NS_LOG_FUNCTION(this);
    return false;
}

void
RoceNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    NS_LOG_FUNCTION(this);
    m_stackRxCallback = cb;
}

void
RoceNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback cb)
{
    NS_LOG_FUNCTION(this);
    m_promiscRxCallback = cb;
}

bool
RoceNetDevice::SupportsSendFrom() const
{
    NS_LOG_FUNCTION(this);
    return true;
}

} // namespace ns3
