// SPDX-License-Identifier: GPL-2.0-only
#include "roce-remote-channel.h"

#include "roce-net-device.h"

#include "ns3/abort.h"
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
    // The other rank may already have run the instant now + Delay (the end of the window
    // it was granted): a frame must take longer than that to arrive.
    NS_ABORT_MSG_IF(!txTime.IsStrictlyPositive(),
                    "RoceRemoteChannel: a frame of "
                        << packet->GetSize() << " B to node " << dst->GetNode()->GetId()
                        << " serializes in no time at this time resolution; a frame sent "
                           "to another rank must arrive after the lookahead (slower links, or "
                           "in a script of your own Time::SetResolution(Time::PS) before "
                           "anything else)");
    // ns-3.37's granted-time-window engine receives messages of at most
    // MAX_MPI_MSG_SIZE = 2000 bytes (granted-time-window-mpi-interface.h), 16 of them its
    // own header; a frame's payload is a zero area and serializes in a few bytes.
    NS_ABORT_MSG_IF(packet->GetSerializedSize() + 16 > 2000,
                    "RoceRemoteChannel: a frame of "
                        << packet->GetSize() << " B serializes in "
                        << packet->GetSerializedSize()
                        << " B, more than ns-3's distributed engine carries (1984 B)");
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
