// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_NETWORK_H
#define FLOW_NETWORK_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A flow-level network: directed links of fixed capacity, and flows that each follow a
 * fixed path of them and share every link max-min fairly (progressive filling: the most
 * constrained link's flows get its fair share, which is taken off their other links, and
 * so on). No packets, queues, PFC, ECN or congestion control: a flow runs at its
 * max-min share from the instant it starts to the instant it ends.
 *
 * A flow is a pipe of messages served first in, first out (as a queue pair serves its
 * WRITEs): it holds a share while it has a message to send. When its head message's last
 * byte has left, that message's callback runs and the next message takes over the same
 * share, without a new allocation. When a flow starts sending or goes idle the rates are
 * recomputed, once for the changes made at one instant before the allocation runs (it is
 * scheduled after the events already queued for that instant), over the flows connected
 * to the changed links through shared links (the only flows whose max-min share can
 * change): flows elsewhere keep their rates and their scheduled ends. Ends fall on the
 * simulator's time steps, rounded up; the next message of the flow is credited with the
 * rounding.
 *
 * Units are whatever the caller chooses, consistently: bytes on the wire and bytes per
 * second for the carrier of this module.
 */
class FlowNetwork : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    FlowNetwork();
    ~FlowNetwork() override;

    /// Called when a message's last byte has left its flow's path.
    typedef Callback<void> SentCallback;

    /**
     * Add a link.
     * \param bytesPerSecond its capacity (positive)
     * \param granuleBytes the unit in which the link serves the flows that start on it
     *        round robin (a NIC's frame), or 0 (none): flows that start on it and would
     *        end their messages together (at equal rates, within a granule) end them one
     *        granule's time apart instead, in the order they joined the round robin (a
     *        flow joins at the back each time it starts sending), the last when the
     *        fluid would, as a packet round robin does
     * \return its id (0, 1, ... in the order added)
     */
    uint32_t AddLink(double bytesPerSecond, double granuleBytes = 0);
    /**
     * Add a flow (idle until a message is pushed to it).
     * \param links its path: link ids, each at most once (at least one)
     * \param weights what the flow takes of each link per byte it sends (empty: 1 on
     *        every link; a flow's acknowledgements on the reverse path take a small
     *        fraction): the shares are weighted max-min fair, a link's capacity C split
     *        so that sum(weight x rate) <= C
     * \return its id (0, 1, ... in the order added)
     */
    uint32_t AddFlow(const std::vector<uint32_t>& links, const std::vector<double>& weights = {});
    /**
     * Queue a message on a flow: it is sent after the flow's earlier messages.
     * \param flow a flow id
     * \param bytes its size (positive)
     * \param sent called once its last byte has left
     */
    void Push(uint32_t flow, double bytes, SentCallback sent);

    /// \param link a link id \return its capacity
    double GetCapacity(uint32_t link) const;
    /// \param flow a flow id \return its rate now (0 while idle)
    double GetRate(uint32_t flow) const;
    /// \param link a link id \return what its flows take of it now (their weighted rates)
    double GetLoad(uint32_t link) const;
    /// \return links added
    uint32_t GetNLinks() const;
    /// \return flows added
    uint32_t GetNFlows() const;
    /// \return flows sending now
    uint32_t GetNActiveFlows() const;
    /// \return the bytes every flow's messages sent so far, finished messages' and the
    ///         head messages' progress (exact at each allocation, estimated in between)
    double GetBytesSent() const;
    /// \return allocations made so far (one per instant with a start or an end)
    uint64_t GetNAllocations() const;
    /// \return flows whose rate those allocations computed, summed over them
    uint64_t GetNFlowsAllocated() const;
    /// \return messages sent so far
    uint64_t GetNMessagesSent() const;

    /**
     * TracedCallback signature of an allocation.
     * \param flows flows whose rates were computed
     * \param links links they cross
     */
    typedef void (*AllocationTracedCallback)(uint32_t flows, uint32_t links);

  protected:
    void DoDispose() override;

  private:
    /// A queued message.
    struct Message
    {
        double bytes{0};
        SentCallback sent;
    };

    struct Link
    {
        double capacity{0};
        double granule{0};            //!< round-robin unit of the flows starting on it
        uint64_t joins{0};            //!< flows that joined its round robin so far
        std::vector<uint32_t> active; //!< flows sending over it (unordered)
        // Scratch of an allocation:
        double left{0};       //!< capacity not yet handed out
        uint32_t unfixed{0};  //!< its flows whose rate is not fixed yet
        double weight{0};     //!< their weights on it, summed
        uint64_t mark{0};     //!< allocation that collected it
        uint64_t boundary{0}; //!< allocation that had it on its boundary
        uint64_t version{0};  //!< bumps when left/unfixed change (stale heap entries)
        bool dirty{false};    //!< a flow started or stopped on it since the last allocation
    };

    struct Flow
    {
        std::vector<uint32_t> links;
        std::vector<double> weights; //!< per link, as links
        std::vector<uint32_t> slot;  //!< its index in each link's active list
        std::deque<Message> queue;   //!< head first
        double left{0};              //!< bytes of the head message still to send
        double rate{0};              //!< bytes per second now
        double share{0};             //!< the rate the allocation under way gives it
        double overshoot{0};         //!< seconds its scheduled end is after the exact one
        Time since;                  //!< when left was last brought up to date
        EventId end;                 //!< the head message's end at the current rate
        uint64_t mark{0};            //!< allocation that collected it
        uint64_t turn{0};            //!< its place in its first link's round robin
        bool settled{false};         //!< its message's end placed in a round robin's last round
        bool fixed{false};           //!< its rate fixed in the allocation under way
        bool active{false};          //!< sending (in its links' active lists)
    };

    void Activate(uint32_t flow);
    void Deactivate(uint32_t flow);
    void RequestAllocation();
    /// Progressive filling over the flows connected to the dirty links (through saturated
    /// links).
    void Allocate();
    /// \param link a link \return whether its flows' rates fill it (within SATURATION)
    bool IsSaturated(uint32_t link) const;
    /// \param f a flow \param link one of its links \return its weight on that link
    static double WeightOn(const Flow& f, uint32_t link);
    /// A link is full when its flows leave less than this share of its capacity.
    static constexpr double SATURATION = 1e-9;
    /// Bring a flow's head message up to now at its current rate.
    void Advance(Flow& f);
    /// (Re)schedule the end of a flow's head message at its rate (and its first link's
    /// round robin).
    void ScheduleEnd(uint32_t flow);
    /// Place the ends of messages that would end together on a round-robin link.
    /// \param changed flows whose rates were just computed
    void SettleRoundRobins(const std::vector<uint32_t>& changed);
    /// The head message of a flow has been sent.
    void HeadSent(uint32_t flow);

    std::vector<Link> m_links;
    std::vector<Flow> m_flows;
    std::vector<uint32_t> m_dirty; //!< links changed since the last allocation
    EventId m_allocation;          //!< the pending allocation of this instant
    uint64_t m_mark{0};            //!< allocations so far (the scratch marks)
    uint32_t m_nActive{0};
    double m_bytesDone{0}; //!< bytes of finished messages
    uint64_t m_flowsAllocated{0};
    uint64_t m_messagesSent{0};
    /// Fires at every allocation (the flows and links it covered).
    TracedCallback<uint32_t, uint32_t> m_allocationTrace;
};

} // namespace ns3

#endif
