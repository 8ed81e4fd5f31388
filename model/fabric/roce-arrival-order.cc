// SPDX-License-Identifier: GPL-2.0-only
#include "roce-arrival-order.h"

#include "roce-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceArrivalOrder");
NS_OBJECT_ENSURE_REGISTERED(RoceArrivalOrder);

TypeId
RoceArrivalOrder::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceArrivalOrder")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RoceArrivalOrder>();
    return tid;
}

RoceArrivalOrder::RoceArrivalOrder() = default;

Ptr<RoceArrivalOrder>
RoceArrivalOrder::Get(Ptr<Node> node)
{
    Ptr<RoceArrivalOrder> order = node->GetObject<RoceArrivalOrder>();
    if (!order)
    {
        order = CreateObject<RoceArrivalOrder>();
        node->AggregateObject(order);
    }
    return order;
}

void
RoceArrivalOrder::Arrive(Ptr<RoceNetDevice> device, Ptr<Packet> packet, const RoceFrameInfo& info)
{
    if (m_held.empty())
    {
        // After every event already due now: those are every arrival of this instant.
        Simulator::ScheduleNow(&RoceArrivalOrder::Deliver, Ptr<RoceArrivalOrder>(this));
    }
    m_held.push_back(Arrival{device->GetIfIndex(), device, packet, info});
}

void
RoceArrivalOrder::Deliver()
{
    m_delivering.swap(m_held); // a frame arriving meanwhile (a zero-delay cable) waits
    ++m_deliveries;
    if (m_delivering.size() > 1)
    {
        ++m_simultaneousDeliveries;
        // Port order; a port's own frames (only with zero-delay cables) in arrival order.
        std::stable_sort(m_delivering.begin(),
                         m_delivering.end(),
                         [](const Arrival& a, const Arrival& b) { return a.port < b.port; });
        NS_LOG_LOGIC("node " << m_delivering.front().device->GetNode()->GetId() << ": "
                             << m_delivering.size() << " simultaneous frames, first to port "
                             << m_delivering.front().port);
    }
    for (Arrival& a : m_delivering)
    {
        a.device->Receive(a.packet, a.info);
    }
    m_delivering.clear();
}

uint64_t
RoceArrivalOrder::GetDeliveries() const
{
    return m_deliveries;
}

uint64_t
RoceArrivalOrder::GetSimultaneousDeliveries() const
{
    return m_simultaneousDeliveries;
}

void
RoceArrivalOrder::DoDispose()
{
    m_held.clear();
    m_delivering.clear();
    Object::DoDispose();
}

} // namespace ns3
