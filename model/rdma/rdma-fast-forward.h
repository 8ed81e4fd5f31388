// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_FAST_FORWARD_H
#define RDMA_FAST_FORWARD_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/roce-net-device.h"
#include "ns3/traced-callback.h"

#include <map>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RdmaNic;
class RdmaQueuePair;
class RoceSwitch;

/**
 * \ingroup ai-fabric
 * Steady-state fast-forward of the RDMA fabric.
 *
 * Queue pairs with data in flight are grouped by the ports their data and ACKs cross (two
 * queue pairs that share a port, in either direction, are in one group, and so on
 * transitively): a group's traffic cannot change another's. When every queue pair of a
 * group has sent at a constant pace, with a constant RTT and no congestion signal, for
 * SteadyWindow, and none of the group's ports has received a PFC frame for as long, the
 * group's queue pairs stop sending and their packets are counted as sent, forwarded and
 * received, one per gap, until the first of them reaches the last EndPackets packets of
 * its message; then they send again, packet by packet, at the slot the skipped packets
 * leave them. Anything that could change a group's outcome ends its skip at once: a queue
 * pair starting to send over one of its ports (a new flow), a PFC frame on one of its
 * ports, a congestion signal reaching one of its queue pairs (a CNP, ECN echo, NAK,
 * timeout or rate change answering packets sent before the skip), a link going down or up
 * anywhere; and while a queue pair whose path cannot be traced is active, no skip runs.
 *
 * What a skip keeps as if the packets had been sent: the queue pairs' PSNs, bytes and
 * packet counts at both ends, the ports' byte and frame counters along each path (the
 * data, and the ACKs back), the timing of every later packet. What it does not produce:
 * per-packet traces (MacTx, DataTx, pcap) of skipped packets. Only congestion controls
 * that say their rate is steady (RoceCongestionControl::IsRateSteady: DCQCN at line rate,
 * none) are ever skipped.
 */
class RdmaFastForward : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RdmaFastForward();
    ~RdmaFastForward() override;

    /**
     * Watch the queue pairs of these NICs (present and future) and the fabric's ports for
     * what ends a skip.
     * \param nics the NICs
     * \param switches the switches
     */
    void Install(const std::vector<Ptr<RdmaNic>>& nics,
                 const std::vector<Ptr<RoceSwitch>>& switches);

    Time GetSteadyWindow() const; //!< \return the SteadyWindow attribute
    Time GetWarmWindow() const;   //!< \return the WarmWindow attribute, at most SteadyWindow
    uint64_t GetSkips() const;    //!< \return skips started (one per group)
    uint64_t GetInterruptedSkips() const;    //!< \return skips ended before their plan
    uint64_t GetSkippedPackets() const;      //!< \return data packets skipped
    uint64_t GetSkippedPayloadBytes() const; //!< \return their payload bytes

    // ------------------------------------------------ called by RdmaQueuePair
    /// \param qp posted data: it joins the watched queue pairs; skips over its ports end
    void NotifyActive(RdmaQueuePair* qp);
    /// \param qp every byte it posted is acknowledged
    void NotifyIdle(RdmaQueuePair* qp);
    /// \param qp its sending became steady (true) or stopped being so (false)
    /// \param steady which
    void NotifySteady(RdmaQueuePair* qp, bool steady);
    /// \param qp it is being disposed
    void NotifyGone(RdmaQueuePair* qp);
    /**
     * A queue pair sent again after a pause (or began to send): the load on its ports
     * changes within its base RTT, so the windows of the queue pairs sharing them start
     * after that (as LoadSettled would require at the next try).
     * \param qp the queue pair
     */
    void NotifyResumed(RdmaQueuePair* qp);

    /**
     * Signature of the SkipStarted trace.
     * \param queuePairs queue pairs skipped
     * \param plannedEnd when the skip ends unless something interrupts it
     */
    typedef void (*SkipStartedTracedCallback)(uint32_t queuePairs, Time plannedEnd);
    /**
     * Signature of the SkipEnded trace.
     * \param duration simulated time skipped
     * \param packets data packets skipped
     * \param interrupted true if something ended it before its plan
     */
    typedef void (*SkipEndedTracedCallback)(Time duration, uint64_t packets, bool interrupted);

  protected:
    void DoDispose() override;

  private:
    /// A watched queue pair: its ports and, while it is skipped, its skip.
    struct Watched
    {
        std::vector<Ptr<RoceNetDevice>> dataPath; //!< sender's port first
        std::vector<Ptr<RoceNetDevice>> ackPath;  //!< receiver's port first
        bool routed{false};                       //!< both paths traced
        bool steady{false};                       //!< as the queue pair last said
        uint64_t skip{0};                         //!< the skip it is in (0: none)
        RoceSkippedFrames plan;                   //!< that skip's plan for it
        uint64_t ackEvery{1};                     //!< its receiver's ACKs: one per this many
        Time dataDelay; //!< that skip's: from its NIC to its peer's (cables, store and forward)
        Time baseRtt;   //!< data there and ACK back, no queues
        std::size_t order{0}; //!< its place in m_order
    };

    /**
     * The members of a skip that share one NIC: its port serves them in turn, one packet
     * each per round, so they skip whole rounds and resume where the round robin stands.
     */
    struct Round
    {
        const RdmaNic* nic{nullptr}; //!< their NIC
        /// they, the next in the round (the one that sent longest ago) first
        std::vector<RdmaQueuePair*> members;
        uint64_t maxRounds{0}; //!< rounds before one of them nears its end
    };

    /**
     * Every member's window must have begun after the load on its ports settled (each
     * queue pair's start plus its base RTT); a member whose window began sooner measures
     * again.
     * \param members a group
     * \return true if every window is good
     */
    bool LoadSettled(const std::vector<RdmaQueuePair*>& members);
    /**
     * Set every member's period to its NIC's round as the port's load gives it (its queue
     * pairs' data frames and the ACKs of the flows into it).
     * \param rounds a skip's rounds (Rounds; their members' plans made)
     * \return false if a measured round is not what its port's load gives (no skip)
     */
    bool PaceRounds(const std::vector<Round>& rounds);
    /// \param members a skip's queue pairs (their plans made) \return their NICs' rounds
    std::vector<Round> Rounds(const std::vector<RdmaQueuePair*>& members);

    /// A skip under way: its queue pairs, start and planned end.
    struct Skip
    {
        std::vector<RdmaQueuePair*> members; //!< the group
        Time start;                          //!< when it started
        EventId end;                         //!< its planned end
    };

    /// Something changed the whole fabric (a link): every skip ends, routes are traced anew.
    void Disturb();
    /**
     * A port received a PFC frame: skips over it end, none starts for SteadyWindow.
     * \param port the port
     * \param priority the priority (any)
     * \param quanta the pause (any, XON included)
     */
    void OnPfc(const RoceNetDevice* port, uint8_t priority, uint16_t quanta);
    /// \param qp trace its paths and register it on their ports
    void Register(RdmaQueuePair* qp);
    /// Trace every watched queue pair's paths anew (after a link change), and try skips.
    void Reroute();
    /// \param qp leave its ports
    void Unregister(RdmaQueuePair* qp);
    /// \param qp a watched queue pair \return the others on its ports, each once
    std::vector<RdmaQueuePair*> Sharers(const RdmaQueuePair* qp);
    /// \param qp restart the steadiness windows of the queue pairs sharing its ports
    void ResetSharers(const RdmaQueuePair* qp);
    /// \param qp end the skips of the queue pairs on its ports (not its own)
    void EndSkipsOnPorts(const RdmaQueuePair* qp);
    /// \param qp try a skip of its group soon (once per instant)
    void ScheduleTry(RdmaQueuePair* qp);
    /// Try a skip for each group with a queue pair that turned steady.
    void TryPending();
    /**
     * Start a skip of qp's group if every member is steady and ready.
     * \param qp a queue pair
     * \param visited queue pairs already looked at in this round (they are marked)
     */
    void TryStart(RdmaQueuePair* qp, std::unordered_map<RdmaQueuePair*, bool>& visited);
    /**
     * \param qp a watched queue pair
     * \param visited marks the queue pairs of the group (and of groups looked at before)
     * \param paused set if a port of the group received a PFC frame within SteadyWindow
     * \return qp's group: every watched queue pair reachable over shared ports, qp first
     */
    std::vector<RdmaQueuePair*> CollectGroup(RdmaQueuePair* qp,
                                             std::unordered_map<RdmaQueuePair*, bool>& visited,
                                             bool& paused);
    /**
     * A group with warm members (their windows were WarmWindow long) may skip only if it
     * is their last skip's group again: every member warm from the same skip, as many
     * as that skip had, and no link changed since. Otherwise the warm members measure a
     * full SteadyWindow.
     * \param members a group, every one steady
     * \return true if no member is warm or the group is its last skip's
     */
    bool WarmGroupHolds(const std::vector<RdmaQueuePair*>& members);
    /**
     * Start a skip of a group whose queue pairs have their plans.
     * \param members the group
     * \param end the planned end (the first member's last skippable packet)
     */
    void StartSkip(std::vector<RdmaQueuePair*> members, Time end);
    /// End a skip. \param id the skip \param interrupted ended before its plan
    void End(uint64_t id, bool interrupted);
    /**
     * \param receiver the receiving NIC
     * \param periodPs packets arrive one every this many picoseconds
     * \return in-order packets per ACK at that pace
     */
    static uint64_t AckEvery(const RdmaNic* receiver, double periodPs);
    /**
     * \param port a port
     * \param frameBytes a frame's size (no FCS)
     * \return from the frame's start at port to its start at the next one
     */
    static Time HopDelay(const Ptr<RoceNetDevice>& port, uint32_t frameBytes);

    Time m_window;         //!< SteadyWindow attribute
    Time m_warmWindow;     //!< WarmWindow attribute
    Time m_minSkip;        //!< MinSkip attribute
    uint32_t m_endPackets; //!< EndPackets attribute

    /// The queue pairs with unacknowledged data, in the order they became active (for
    /// determinism every walk goes through m_order, never through a hash map's order).
    std::unordered_map<RdmaQueuePair*, Watched> m_watched;
    std::vector<RdmaQueuePair*> m_order; //!< the watched queue pairs, for walks
    std::unordered_map<const RoceNetDevice*, std::vector<RdmaQueuePair*>> m_users; //!< by port
    std::unordered_map<const RoceNetDevice*, Time> m_lastPfc;                      //!< by port
    std::vector<RdmaQueuePair*> m_pending; //!< turned steady since the last TryPending
    bool m_tryScheduled{false};
    uint32_t m_unrouted{0};           //!< watched queue pairs whose paths could not be traced
    Time m_quietSince;                //!< the last link change
    EventId m_rerouteEvent;           //!< Reroute, SteadyWindow after a link change
    std::map<uint64_t, Skip> m_skips; //!< skips under way, by id
    uint64_t m_nextSkip{1};
    uint64_t m_warmFloor{1}; //!< skips before this one (a link changed since) warm no one

    uint64_t m_nSkips{0};                                  //!< GetSkips
    uint64_t m_interrupted{0};                             //!< GetInterruptedSkips
    uint64_t m_skippedPackets{0};                          //!< GetSkippedPackets
    uint64_t m_skippedBytes{0};                            //!< GetSkippedPayloadBytes
    TracedCallback<uint32_t, Time> m_skipStartedTrace;     //!< SkipStarted
    TracedCallback<Time, uint64_t, bool> m_skipEndedTrace; //!< SkipEnded
};

} // namespace ns3

#endif
