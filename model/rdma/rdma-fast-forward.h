// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_FAST_FORWARD_H
#define RDMA_FAST_FORWARD_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/roce-net-device.h"
#include "ns3/traced-callback.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

class RdmaNic;
class RdmaQueuePair;
class RoceSwitch;

/**
 * \ingroup ai-fabric
 * Steady-state fast-forward of the RDMA fabric: when every queue pair with data in flight
 * has sent at a constant pace, with a constant RTT and no congestion signal, for
 * SteadyWindow, and nothing in the fabric has paused, marked or dropped a frame for as
 * long, the queue pairs stop sending and their packets are counted as sent, forwarded and
 * received, one per gap, until the first of them reaches the last EndPackets packets of
 * its message; then they send again, packet by packet, at the slot the skipped packets
 * leave them. Anything that could change the outcome ends a skip at once: a queue pair
 * posting data (a new flow), a PFC frame, an ECN mark, a drop, a link going down or up.
 *
 * What a skip keeps as if the packets had been sent: the queue pairs' PSNs, bytes and
 * packet counts at both ends, the ports' byte and frame counters along each path (the
 * data, and one ACK per AckInterval packets back), the timing of every later packet.
 * What it does not produce: per-packet traces (MacTx, DataTx, pcap) of skipped packets.
 * Only congestion controls that say their rate is steady (RoceCongestionControl::
 * IsRateSteady: DCQCN at line rate, none) are ever skipped.
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
     * Watch the queue pairs of these NICs (present and future) and the fabric's ports and
     * switches for what ends a skip.
     * \param nics the NICs
     * \param switches the switches
     */
    void Install(const std::vector<Ptr<RdmaNic>>& nics,
                 const std::vector<Ptr<RoceSwitch>>& switches);

    Time GetSteadyWindow() const;            //!< \return the SteadyWindow attribute
    uint64_t GetSkips() const;               //!< \return skips started
    uint64_t GetInterruptedSkips() const;    //!< \return skips ended before their plan
    uint64_t GetSkippedPackets() const;      //!< \return data packets skipped
    uint64_t GetSkippedPayloadBytes() const; //!< \return their payload bytes
    Time GetSkippedTime() const;             //!< \return simulated time spent in skips

    // ------------------------------------------------ called by RdmaQueuePair
    /// \param qp posted data: it joins the watched queue pairs, and any skip ends now
    void NotifyActive(RdmaQueuePair* qp);
    /// \param qp every byte it posted is acknowledged
    void NotifyIdle(RdmaQueuePair* qp);
    /// \param qp its sending became steady (true) or stopped being so (false)
    /// \param steady which
    void NotifySteady(RdmaQueuePair* qp, bool steady);
    /// \param qp it is being disposed
    void NotifyGone(RdmaQueuePair* qp);

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
    /// One queue pair in a skip: its plan and the ports its data and ACKs cross.
    struct Skipped
    {
        RdmaQueuePair* qp;
        RoceSkippedFrames plan;
        std::vector<Ptr<RoceNetDevice>> dataPath; //!< sender's port first
        std::vector<Ptr<RoceNetDevice>> ackPath;  //!< receiver's port first
    };

    /// Something in the fabric changed (pause, mark, drop, link): not quiet from now.
    void Disturb();
    /// \param priority PFC priority \param quanta pause quanta (trace adaptor)
    void OnPfc(uint8_t priority, uint16_t quanta);
    /// \param packet dropped frame (trace adaptor)
    void OnFrameLost(Ptr<const Packet> packet);
    /// \param packet dropped frame \param reason why (trace adaptor)
    void OnDrop(Ptr<const Packet> packet, uint32_t reason);
    /// \param qp joined or left the watched queue pairs: the others on its NIC restart
    ///        their steadiness windows
    void ResetPortSharers(const RdmaQueuePair* qp);
    /// Schedule TryStart now (once).
    void ScheduleTry();
    /// Start a skip if every watched queue pair is steady and the fabric quiet.
    void TryStart();
    /// End the skip under way. \param interrupted ended before its plan
    void End(bool interrupted);
    /**
     * The ports a queue pair's frames cross, as the switches route them.
     * \param qp the sender
     * \param path set to the ports, the sender's first
     * \return false if a cable on the way is down or a switch has no route
     */
    static bool TracePath(const RdmaQueuePair* qp, std::vector<Ptr<RoceNetDevice>>& path);
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
    Time m_minSkip;        //!< MinSkip attribute
    uint32_t m_endPackets; //!< EndPackets attribute

    std::vector<RdmaQueuePair*> m_active; //!< queue pairs with unacknowledged data
    std::unordered_map<RdmaQueuePair*, std::size_t> m_activeIndex; //!< their places
    std::size_t m_steady{0};        //!< of them, steady
    Time m_quietSince;              //!< the last disturbance
    bool m_tryPending{false};       //!< TryStart is scheduled
    EventId m_retryEvent;           //!< TryStart once the fabric has been quiet long enough
    std::vector<Skipped> m_skipped; //!< the skip under way (empty: none)
    Time m_skipStart;
    EventId m_endEvent;

    uint64_t m_skips{0};
    uint64_t m_interrupted{0};
    uint64_t m_skippedPackets{0};
    uint64_t m_skippedBytes{0};
    Time m_skippedTime;
    TracedCallback<uint32_t, Time> m_skipStartedTrace;
    TracedCallback<Time, uint64_t, bool> m_skipEndedTrace;
};

} // namespace ns3

#endif
