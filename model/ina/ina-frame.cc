// SPDX-License-Identifier: GPL-2.0-only
#include "ina-frame.h"

#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/roce-frame-info.h"
#include "ns3/udp-header.h"

namespace ns3
{

Ptr<Packet>
MakeInaFrame(const InaHeader& header, const InaFrameAddress& address)
{
    Ptr<Packet> packet = Create<Packet>(header.GetValueBytes());
    packet->AddHeader(header);
    UdpHeader udp;
    udp.SetSourcePort(ina::UDP_PORT);
    udp.SetDestinationPort(ina::UDP_PORT);
    packet->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(address.srcIp);
    ip.SetDestination(address.dstIp);
    ip.SetProtocol(roce::IP_PROTOCOL_UDP);
    ip.SetTtl(64);
    ip.SetPayloadSize(packet->GetSize());
    ip.SetDontFragment();
    const uint8_t ecn = address.ecnCapable ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT;
    ip.SetTos(static_cast<uint8_t>((address.priority << 3) << 2 | ecn));
    ip.EnableChecksum();
    packet->AddHeader(ip);
    EthernetHeader eth(false);
    eth.SetSource(address.srcMac);
    eth.SetDestination(address.dstMac);
    eth.SetLengthType(roce::ETHERTYPE_IPV4);
    packet->AddHeader(eth);
    return packet;
}

bool
ReadInaHeader(const Ptr<const Packet>& frame, InaHeader& header)
{
    constexpr uint32_t offset =
        roce::ETHERNET_HEADER_BYTES + roce::IPV4_HEADER_BYTES + roce::UDP_HEADER_BYTES;
    if (frame->GetSize() < offset + ina::HEADER_BYTES)
    {
        return false;
    }
    uint8_t bytes[offset + ina::HEADER_BYTES];
    frame->CopyData(bytes, sizeof(bytes));
    Buffer buffer;
    buffer.AddAtStart(ina::HEADER_BYTES);
    buffer.Begin().Write(bytes + offset, ina::HEADER_BYTES);
    header.Deserialize(buffer.Begin());
    return true;
}

Ipv4Address
InaGroupAddress(uint16_t job)
{
    return Ipv4Address(ina::GROUP_PREFIX | job);
}

bool
IsInaGroupAddress(Ipv4Address address)
{
    return (address.Get() & 0xFFFF0000u) == ina::GROUP_PREFIX;
}

} // namespace ns3
