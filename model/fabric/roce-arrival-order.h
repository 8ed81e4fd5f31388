// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_ARRIVAL_ORDER_H
#define ROCE_ARRIVAL_ORDER_H

#include "roce-frame-info.h"

#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <vector>

namespace ns3
{

class Node;
class RoceNetDevice;

/**
 * \ingroup ai-fabric
 * Frames that reach a node's ports at the same instant, handed to the ports in port
 * order after every other event of that instant (RoceChannel's OrderSimultaneousArrivals).
 *
 * ns-3 runs events of equal time in the order they were scheduled. Across the cables of a
 * node that order is the order in which the senders happened to start their frames, and
 * on ns-3's distributed engine a frame from another rank is scheduled only when the ranks
 * exchange messages, later than in a sequential run: two frames reaching a switch at the
 * same picosecond could queue in either order, and the runs differ. Here the first frame
 * of an instant schedules one delivery at that instant, after the events already due
 * then (every arrival of the instant among them: cables have a delay, so each was
 * scheduled earlier, on any rank), and the delivery hands the instant's frames over
 * sorted by port (ifIndex). A node's result then depends on its own events only, not on
 * how events of other nodes were interleaved. One more event per instant with arrivals.
 * Aggregated to the node on first use (Get).
 */
class RoceArrivalOrder : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoceArrivalOrder();

    /**
     * \param node a node
     * \return the node's instance, aggregated to it if it had none
     */
    static Ptr<RoceArrivalOrder> Get(Ptr<Node> node);

    /**
     * A frame reached device now: hold it for the instant's delivery.
     * \param device the receiving port (on this node)
     * \param packet the frame (no FCS)
     * \param info its fields
     */
    void Arrive(Ptr<RoceNetDevice> device, Ptr<Packet> packet, const RoceFrameInfo& info);

    /// \return deliveries made (instants with at least one arrival)
    uint64_t GetDeliveries() const;
    /// \return deliveries that held more than one frame (whose order this decided)
    uint64_t GetSimultaneousDeliveries() const;

  protected:
    void DoDispose() override;

  private:
    /// One held frame.
    struct Arrival
    {
        uint32_t port;              //!< the receiving device's ifIndex
        Ptr<RoceNetDevice> device;  //!< the receiving device
        Ptr<Packet> packet;         //!< the frame
        RoceFrameInfo info;         //!< its fields
    };

    /// Hand the instant's frames to their ports, in port order.
    void Deliver();

    std::vector<Arrival> m_held;           //!< this instant's frames, in arrival order
    std::vector<Arrival> m_delivering;     //!< the batch being delivered (reused)
    uint64_t m_deliveries{0};              //!< GetDeliveries
    uint64_t m_simultaneousDeliveries{0};  //!< GetSimultaneousDeliveries
};

} // namespace ns3

#endif // ROCE_ARRIVAL_ORDER_H
