// SPDX-License-Identifier: GPL-2.0-only
#include "roce-channel.h"

#include "roce-arrival-order.h"
#include "roce-net-device.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceChannel");
NS_OBJECT_ENSURE_REGISTERED(RoceChannel);

TypeId
RoceChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceChannel")
                            .SetParent<Channel>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RoceChannel>()
                            .AddAttribute("Delay",
                                          "One-way propagation delay of the cable.",
                                          TimeValue(MicroSeconds(1)),
                                          MakeTimeAccessor(&RoceChannel::m_delay),
                                          MakeTimeChecker(Seconds(0), Seconds(1)))
            .AddAttribute("OrderSimultaneousArrivals",
                          "Hand frames that reach a node at the same instant to its ports in "
                          "port order, after the other events of that instant "
                          "(RoceArrivalOrder), instead of in the order their senders "
                          "happened to schedule them: a run on ns-3's distributed engine then "
                          "equals the sequential one. One more event per instant with "
                          "arrivals; false (the default) costs nothing.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceChannel::m_orderArrivals),
                          MakeBooleanChecker());
    return tid;
}

RoceChannel::RoceChannel() = default;

void
RoceChannel::Attach(Ptr<RoceNetDevice> device)
{
    NS_ABORT_MSG_IF(m_nDevices >= 2, "RoceChannel: a cable connects exactly two devices");
    m_devices[m_nDevices++] = device;
}

void
RoceChannel::TransmitStart(Ptr<Packet> packet,
                           Ptr<RoceNetDevice> src,
                           Time txTime,
                           const RoceFrameInfo& info)
{
    Ptr<RoceNetDevice> dst = (m_devices[0] == src) ? m_devices[1] : m_devices[0];
    if (!m_up)
    {
        ++m_lost;
        return;
    }
    // The receiver drops it if the cable is cut by the time it arrives (IsUp).
    if (m_orderArrivals)
    {
        Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                       txTime + m_delay,
                                       &RoceChannel::ArriveInOrder,
                                       dst,
                                       packet,
                                       info);
        return;
    }
    Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                   txTime + m_delay,
                                   &RoceNetDevice::Receive,
                                   dst,
                                   packet,
                                   info);
}

void
RoceChannel::ArriveInOrder(Ptr<RoceNetDevice> device, Ptr<Packet> packet, RoceFrameInfo info)
{
    RoceArrivalOrder::Get(device->GetNode())->Arrive(device, packet, info);
}

bool
RoceChannel::GetOrderSimultaneousArrivals() const
{
    return m_orderArrivals;
}

void
RoceChannel::CountLostFrame()
{
    ++m_lost;
}

void
RoceChannel::SetUp(bool up)
{
    NS_LOG_FUNCTION(this << up);
    if (m_up == up)
    {
        return;
    }
    m_up = up;
    // ns-3's NetDevice contract: a cut or mended cable is a link change at both ends.
    for (std::size_t i = 0; i < m_nDevices; ++i)
    {
        m_devices[i]->NotifyLinkChange();
    }
}

uint64_t
RoceChannel::GetLostFrames() const
{
    return m_lost;
}

std::size_t
RoceChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
RoceChannel::GetDevice(std::size_t i) const
{
    return m_devices[i];
}

Ptr<RoceNetDevice>
RoceChannel::GetRoceDevice(std::size_t i) const
{
    return m_devices[i];
}

Ptr<RoceNetDevice>
RoceChannel::GetPeer(Ptr<const RoceNetDevice> device) const
{
    return m_devices[0] == device ? m_devices[1] : m_devices[0];
}

Time
RoceChannel::GetDelay() const
{
    return m_delay;
}

void
RoceChannel::DoDispose()
{
    m_devices[0] = nullptr;
    m_devices[1] = nullptr;
    Channel::DoDispose();
}

} // namespace ns3
