// SPDX-License-Identifier: GPL-2.0-only
#include "roce-remote-channel.h"

#include "roce-net-device.h"

#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceRemoteChannel");
NS_OBJECT_ENSURE_REGISTERED(RoceRemoteChannel);

TypeId
RoceRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceRemoteChannel")
                            .SetParent<RoceChannel>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RoceRemoteChannel>();
    return tid;
}

RoceRemoteChannel::RoceRemoteChannel() = default;

void
RoceRemoteChannel::Attach(Ptr<RoceNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    RoceChannel::Attach(device);
    if (!device->GetObject<MpiReceiver>())
    {
        Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
        // The callback holds the device; MpiReceiver::DoDispose drops it when the device
        // (and with it its aggregate) is disposed.
        receiver->SetReceiveCallback(
            MakeBoundCallback(&RoceRemoteChannel::ReceiveFromOtherRank, device));
        device->AggregateObject(receiver);
    }
}

void
RoceRemoteChannel::TransmitStart(Ptr<Packet> packet,
                                 Ptr<RoceNetDevice> src,
                                 Time txTime,
                                 const RoceFrameInfo& info)
{
    Ptr<RoceNetDevice> dst = GetPeer(src);
    if (dst->GetNode()->GetSystemId() == MpiInterface::GetSystemId())
    {
        RoceChannel::TransmitStart(packet, src, txTime, info);
        return;
    }
    if (!IsUp())
    {
        CountLostFrame();
        return;
    }
    ++m_framesToOtherRank;
    const Time arrival = Simulator::Now() + txTime + GetDelay();
    NS_LOG_LOGIC("frame of " << packet->GetSize() << " B to node " << dst->GetNode()->GetId()
                             << " on rank " << dst->GetNode()->GetSystemId() << " at "
                             << arrival.As(Time::NS));
    MpiInterface::SendPacket(packet, arrival, dst->GetNode()->GetId(), dst->GetIfIndex());
}

uint64_t
RoceRemoteChannel::GetFramesToOtherRank() const
{
    return m_framesToOtherRank;
}

void
RoceRemoteChannel::ReceiveFromOtherRank(Ptr<RoceNetDevice> device, Ptr<Packet> packet)
{
    RoceFrameInfo info;
    ParseRoceFrame(packet, info);
    if (device->GetRoceChannel()->GetOrderSimultaneousArrivals())
    {
        ArriveInOrder(device, packet, info);
        return;
    }
    device->Receive(packet, info);
}

} // namespace ns3
