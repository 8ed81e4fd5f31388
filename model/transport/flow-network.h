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
 * scheduled after the events already queued for that instant). An allocation computes the
 * flows that have just started, and takes in only the flows whose rates the new shares
 * would no longer leave max-min fair: every flow keeps a bottleneck, a full link on which
 * no flow has a higher rate (the max-min condition); a flow whose bottleneck the new
 * shares leave full and itself the highest there, or that has another such link, keeps
 * its rate and its scheduled end, unless it exceeds a computed flow's rate on that flow's
 * bottleneck. Ends fall on the simulator's time steps, rounded up; the next message of
 * the flow is credited with the rounding.
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
    /// \return flows whose rate those allocations changed (their ends rescheduled), summed
    uint64_t GetNRatesChanged() const;
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

    /// A flow sending over a link: its id, the link's index on its path and the flow's
    /// weight there (a copy, so that a link's loop over its flows reads one array).
    struct Member
    {
        uint32_t flow{0};  //!< the flow
        uint32_t index{0}; //!< the link's place on the flow's path (links, weights, slot)
        double weight{1};  //!< the flow's weight on the link (its weights[index])
    };

    struct Link
    {
        double capacity{0};
        double granule{0};          //!< round-robin unit of the flows starting on it
        uint64_t joins{0};          //!< flows that joined its round robin so far
        std::vector<Member> active; //!< flows sending over it (unordered)
        // Scratch of an allocation:
        double left{0};      //!< capacity not yet handed out
        double weight{0};    //!< its unfixed flows' weights on it, summed
        double load{0};      //!< what its flows take of it at the round's shares
        double highest{0};   //!< the highest of its flows' rates at the round's shares
        uint64_t mark{0};    //!< allocation that checks it (changed, or crossed by its flows)
        uint64_t gaveWay{0}; //!< round that took in the flows above its computed flows
        uint64_t round{0};   //!< round whose shares load and highest are of
        uint32_t unfixed{0}; //!< its flows whose rate is not fixed yet
        bool dirty{false};   //!< a flow started or stopped on it since the last allocation
    };

    struct Flow
    {
        // What an allocation reads of every flow on a link it looks at, first (47 bytes
        // together, where the vectors below would put them apart).
        double rate{0};                  //!< bytes per second now
        double share{0};                 //!< the rate the allocation under way gives it
        uint64_t mark{0};                //!< allocation that computes its rate
        uint64_t checked{0};             //!< round that checked it (outside the allocation)
        uint64_t taken{0};               //!< round that took it into the allocation
        uint32_t bottleneck{UINT32_MAX}; //!< a full link where no flow has a higher rate
                                         //!< (UINT32_MAX: idle, or started since)
        bool fixed{false};               //!< its rate fixed in the allocation under way
        bool active{false};              //!< sending (in its links' active lists)
        bool settled{false};             //!< its message's end placed in a round robin's last round
        std::vector<uint32_t> links;
        std::vector<double> weights;  //!< per link, as links
        std::vector<uint32_t> slot;   //!< its index in each link's active list
        std::deque<Message> queue;    //!< head first
        double left{0};               //!< bytes of the head message still to send
        double overshoot{0};          //!< seconds its scheduled end is after the exact one
        Time since;                   //!< when left was last brought up to date
        int64_t endAt{-1};            //!< time step its head message ends (-1: none)
        uint64_t endSeq{0};           //!< when that end was computed (ties: in that order)
        uint32_t endSlot{UINT32_MAX}; //!< its slot in the queue of ends (none: UINT32_MAX)
        uint64_t turn{0};             //!< its place in its first link's round robin
    };

    void Activate(uint32_t flow);
    void Deactivate(uint32_t flow);
    void RequestAllocation();
    /// Progressive filling over the flows that have just started, widened to the flows the
    /// new shares would leave without a bottleneck or above a computed flow on its
    /// bottleneck, until there are none.
    void Allocate();
    /// Progressive filling of the flows of the allocation under way (those marked with
    /// it), every other flow keeping its rate.
    /// \param links the links they cross
    void Fill(const std::vector<uint32_t>& links);
    /// \param member a flow on a link \return its rate at the round's shares
    double RoundRate(const Member& member) const
    {
        const Flow& f = m_flows[member.flow];
        return f.mark == m_mark ? f.share : f.rate;
    }
    /// Bring a link's load and highest rate up to the round's shares.
    /// \param link a link \return it
    const Link& Measure(uint32_t link);
    /// \param flow a flow outside the allocation \param link one of its links
    /// \return whether that link is its bottleneck at the round's shares (full, and no
    ///         flow on it has a higher rate)
    bool IsBottleneckOf(const Flow& flow, uint32_t link);
    /// \param flow a flow outside the allocation under way
    /// \return whether one of its links is its bottleneck at the round's shares (its
    ///         bottleneck is set to that link)
    bool KeepsABottleneck(Flow& flow);
    /// Take into the allocation under way the flows outside it above a share on a link.
    /// \param link the link \param share the share of the computed flows it fixed
    void TakeInAbove(uint32_t link, double share);
    /// A link is full when its flows leave less than this share of its capacity; a flow's
    /// rate is the highest on a link when no other exceeds it by more than this share.
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

    /// \param a a flow \param b another, both with ends \return whether a's comes first
    ///        (the earlier time step, or at the same one the end computed first)
    bool EndsBefore(uint32_t a, uint32_t b) const;
    /// Put a flow in a slot of the queue of ends. \param slot the slot \param flow the flow
    void SetEndSlot(uint32_t slot, uint32_t flow);
    /// Put a flow's (new) end in its place in the queue of ends. \param flow the flow
    void PlaceEnd(uint32_t flow);
    /// Take a flow's end out of the queue of ends (if it has one). \param flow the flow
    void RemoveEnd(uint32_t flow);
    /// Keep the one simulator event of the ends at the earliest end in the queue.
    void ArmTimer();
    /// The earliest ends are due: send their messages' last bytes.
    void EndsDue();

    std::vector<Link> m_links;
    std::vector<Flow> m_flows;
    std::vector<uint32_t> m_dirty; //!< links changed since the last allocation
    EventId m_allocation;          //!< the pending allocation of this instant
    /// The flows with a head message's end, a heap (earliest first): one simulator event
    /// for all of them instead of one per flow, moved whenever a rate changes.
    std::vector<uint32_t> m_ends;
    uint64_t m_endSeq{0};    //!< ends computed so far
    EventId m_timer;         //!< the event of the earliest end
    int64_t m_timerAt{-1};   //!< its time step
    bool m_holdTimer{false}; //!< ends are being placed (EndsDue, Allocate): the timer is
                             //!< moved once they are
    uint64_t m_mark{0};      //!< allocations so far (the scratch marks)
    uint64_t m_round{0};     //!< rounds of those allocations so far
    /// A link's share when it entered the progressive filling's heap, and the link.
    typedef std::pair<double, uint32_t> Entry;
    std::vector<Entry> m_heap; //!< the progressive filling's heap (kept for its capacity)
    // An allocation's lists, kept for their capacity:
    std::vector<uint32_t> m_computed;  //!< the flows whose rates it computes
    std::vector<uint32_t> m_crossed;   //!< the links they cross, and the changed links
    std::vector<uint32_t> m_newcomers; //!< flows a round takes in
    std::vector<uint32_t> m_changed;   //!< flows whose rates it changed
    std::vector<uint32_t> m_settling;  //!< of those, the ones on round-robin links
    uint32_t m_nActive{0};
    double m_bytesDone{0};        //!< bytes of finished messages
    uint64_t m_flowsAllocated{0}; //!< GetNFlowsAllocated
    uint64_t m_ratesChanged{0};   //!< GetNRatesChanged
    uint64_t m_messagesSent{0};
    /// Fires at every allocation (the flows and links it covered).
    TracedCallback<uint32_t, uint32_t> m_allocationTrace;
};

} // namespace ns3

#endif
