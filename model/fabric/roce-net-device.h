// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_NET_DEVICE_H
#define ROCE_NET_DEVICE_H

#include "roce-frame-info.h"

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <vector>

namespace ns3
{

class RoceChannel;

/**
 * \ingroup ai-fabric
 * A frame waiting in an egress queue, with what the owner needs back when it leaves.
 */
struct RoceQueueItem
{
    Ptr<Packet> packet;      //!< the frame (Ethernet header included, no FCS)
    uint32_t ingressPort{0}; //!< owner's bookkeeping (switch ingress port)
    uint32_t bytes{0};       //!< frame bytes (no FCS), cached
    uint8_t priority{0};     //!< the priority (queue) it waits in
    bool intStamp{false};    //!< owner's bookkeeping: stamp telemetry as it leaves
    /// The frame's fields as its owner parsed them on arrival (valid when parsed): they
    /// travel with the frame to the next port, which then need not read its bytes again.
    /// An owner that changes the bytes (an ECN mark, a telemetry record) clears parsed.
    RoceFrameInfo info;
    bool parsed{false}; //!< info holds the frame's fields

    /**
     * Fill the item for a frame about to be queued.
     * \param frame the frame (bytes is set to its size)
     * \param prio the priority it waits in
     * \param ingress the owner's bookkeeping (UINT32_MAX: none)
     * \param fields the frame's parsed fields, or nullptr (then parsed is false)
     */
    void Set(Ptr<Packet> frame, uint8_t prio, uint32_t ingress, const RoceFrameInfo* fields)
    {
        bytes = frame->GetSize();
        packet = std::move(frame);
        ingressPort = ingress;
        priority = prio;
        parsed = fields != nullptr;
        if (parsed)
        {
            info = *fields;
        }
    }
};

/**
 * \ingroup ai-fabric
 * Frames a fast-forward lets through a port without simulating them (RdmaFastForward):
 * one every periodPs picoseconds after the last simulated frame of the stream, at most
 * maxFrames. The queue pair that owns the stream advances by the same count.
 */
struct RoceSkippedFrames
{
    Time last;                   //!< start of the stream's last simulated frame at its source
    double periodPs{0};          //!< one frame every this many picoseconds
    uint32_t frameBytes{0};      //!< each frame's size (no FCS)
    uint64_t maxFrames{0};       //!< the most frames the skip lets through
    Time delay;                  //!< from the source to this port (cables, store and forward)
    const void* source{nullptr}; //!< who skips the stream (SettleSkippedFrames names it)

    /// \param t a time \return frames of the stream that started after last, up to t
    uint64_t FramesBy(Time t) const;
    /// \param t a time \return frames of the stream that reached this port by t
    uint64_t FramesHereBy(Time t) const;
    /// \param frames a frame count \return when the last of them starts
    Time StartOf(uint64_t frames) const;
};

/**
 * \ingroup ai-fabric
 * A full-duplex Ethernet port with 8 priority queues and IEEE 802.1Qbb PFC.
 *
 * Serialization counts the whole frame on the wire: the frame, its FCS, preamble/SFD and
 * the inter-frame gap (roce::WireBytes). Control frames (PFC, and what the owner queues as
 * control: ACK, NAK, CNP) are served ahead of data unless ControlFirst is false, in which
 * case they share the round robin in their priority. Data priorities are served round
 * robin or by deficit-weighted round robin.
 *
 * PFC: a received pause of q quanta stops priority p for q × 512 bit times; a new frame
 * restarts (refreshes) the timer and zero quanta (XON) resumes at once. The frame being
 * serialized when a pause arrives is completed. Sending pauses is the owner's decision
 * (a switch's MMU); SendPfc() queues the frame in a PFC queue served before everything.
 *
 * The owner (RoceSwitch or RdmaNic) receives frames through a callback carrying the
 * decoded RoceFrameInfo, is told when a queued frame starts transmission (so it can release
 * buffer and mark ECN), and a NIC can act as a pull source of data frames.
 */
class RoceNetDevice : public NetDevice
{
  public:
    /// Priorities (and queues) per port: the eight of IEEE 802.1Qbb.
    static constexpr uint8_t N_PRIORITIES = 8;

    /// How the data priorities share the port (the DataScheduler attribute).
    enum DataScheduler
    {
        ROUND_ROBIN, //!< one frame per backlogged, unpaused priority in turn
        DWRR         //!< deficit-weighted round robin (DwrrQuantum, DwrrWeights)
    };

    /// Owner's receive hook: device, frame, decoded fields.
    typedef Callback<void, Ptr<RoceNetDevice>, Ptr<Packet>, const RoceFrameInfo&> RxCallback;
    /// Called when a data item is taken from a queue for transmission.
    typedef Callback<void, Ptr<RoceNetDevice>, RoceQueueItem&> DequeueCallback;
    /// Pull source of data frames for a NIC: argument is the bitmask of paused priorities.
    typedef Callback<Ptr<Packet>, uint8_t> PullCallback;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoceNetDevice();
    ~RoceNetDevice() override;

    // ---------------------------------------------------------------- wiring
    /**
     * Connect this port to one end of a link. Aborts if DataRate is 0.
     * \param channel the link
     */
    void Attach(Ptr<RoceChannel> channel);
    /// \return the link this port is attached to (null before Attach)
    Ptr<RoceChannel> GetRoceChannel() const;
    /// \param cb where every frame received intact goes (PFC frames are handled here)
    void SetRoceReceiveCallback(RxCallback cb);
    /// \param cb called as each queued data frame starts transmission; a callback that
    ///        changes the frame's bytes (a CE mark, a telemetry record) clears the item's
    ///        parsed flag, so the port parses the frame again before it sends it
    void SetDequeueCallback(DequeueCallback cb);
    /**
     * Make the port pull data frames from its owner (a NIC) when its queues are empty.
     * \param cb returns the next frame given the bitmask of paused priorities, or null
     */
    void SetPullCallback(PullCallback cb);

    // ---------------------------------------------------------------- transmit
    /**
     * Queue a data frame on a priority.
     * \param packet the frame (Ethernet header included, no FCS)
     * \param priority 0 to 7
     * \param ingressPort owner's bookkeeping, handed back in the dequeue callback
     * \param intStamp owner's bookkeeping, handed back in the dequeue callback
     * \param info the frame's fields if the owner has them (ParseRoceFrame of its bytes
     *        as they are now), else null: the port parses the frame as it sends it
     */
    void EnqueueData(Ptr<Packet> packet,
                     uint8_t priority,
                     uint32_t ingressPort,
                     bool intStamp = false,
                     const RoceFrameInfo* info = nullptr);
    /**
     * Queue a control frame (ACK, NAK, CNP) ahead of data (in its priority's queue when
     * ControlFirst is false).
     * \param packet the frame (Ethernet header included, no FCS)
     * \param priority 0 to 7
     * \param info the frame's fields if the owner has them, else null (as EnqueueData)
     */
    void EnqueueControl(Ptr<Packet> packet, uint8_t priority, const RoceFrameInfo* info = nullptr);
    /**
     * Send a PFC frame for one priority, ahead of everything queued.
     * \param priority the priority to pause or resume
     * \param quanta pause time in units of 512 bit times (0 = XON)
     */
    void SendPfc(uint8_t priority, uint16_t quanta);
    /// A pull source has data again: start transmitting if idle.
    void NotifyDataAvailable();

    // ---------------------------------------------------------------- state
    /// \return the line rate (the DataRate attribute)
    DataRate GetDataRate() const;
    /**
     * \param frameBytes frame size without FCS
     * \return the time to serialize it on this port, FCS, preamble and gap included
     */
    Time GetTransmissionTime(uint32_t frameBytes) const;
    /**
     * \param quanta a PFC pause time in units of 512 bit times
     * \return that time at this port's rate
     */
    Time QuantaToTime(uint16_t quanta) const;
    /**
     * \param priority 0 to 7
     * \return whether the peer's pause of that priority is in force now
     */
    bool IsPaused(uint8_t priority) const;
    /// \return the paused priorities now, bit p for priority p
    uint8_t GetPausedMask() const;
    /// \return whether a frame is being serialized now
    bool IsTransmitting() const;
    /**
     * \param priority 0 to 7
     * \return bytes of data frames queued on it (no FCS)
     */
    uint32_t GetQueueBytes(uint8_t priority) const;
    /**
     * \param priority 0 to 7
     * \return data frames queued on it
     */
    uint32_t GetQueuePackets(uint8_t priority) const;
    /// \return frame bytes sent (no FCS)
    uint64_t GetTxBytes() const;
    /// \return frames sent, control and PFC included
    uint64_t GetTxFrames() const;
    /// \return of GetTxFrames, those a fast-forward let through without simulating them
    ///         (AddSkippedFrames): the rest were sent as packets, one event each or more
    uint64_t GetSkippedTxFrames() const;
    /// \return bytes sent on the wire: frames with FCS, preamble, SFD and inter-frame gap
    ///         (what makes a link's utilisation 1; the module sends no frame short enough
    ///         to be padded)
    uint64_t GetTxWireBytes() const;
    /// \return PFC frames sent (XOFF and XON)
    uint64_t GetPfcPausesSent() const;
    /**
     * A fast-forward lets a stream of frames through this port without simulating them:
     * until SettleSkippedFrames, GetTxBytes, GetTxFrames and GetTxWireBytes count the
     * stream's frames up to the current time (RoceSkippedFrames::FramesBy).
     * \param frames the stream
     */
    void AddSkippedFrames(const RoceSkippedFrames& frames);
    /**
     * The fast-forward of a source ended: its streams stop at the frames it skipped (those
     * still on their way count as they would have reached this port).
     * \param source the streams' RoceSkippedFrames::source
     * \param frames frames the source skipped in all
     */
    void SettleSkippedFrames(const void* source, uint64_t frames);
    /// \return whether a fast-forward's stream still has frames to count on this port
    bool HasSkippedFramesPending() const;
    /**
     * Call cb once, at this port's next activity: a frame it starts to send, a data frame
     * queued on it, or a fast-forward's stream added to it (AddSkippedFrames). One shot:
     * a watcher that wants the next one asks again. Nothing else raises GetTxBytes or the
     * queues, so a watcher that asks while the queues are empty and no stream is pending
     * (HasSkippedFramesPending) sees them unchanged until it is called; a stream already
     * added keeps counting, and dequeues shrink the queues, without a call. Several
     * watchers may ask; each is called once. While nobody asks, the cost is one test per
     * frame.
     * \param cb the callback
     */
    void NotifyOnActivity(Callback<void> cb);
    /// Take back a NotifyOnActivity that has not fired (no effect if it has).
    /// \param cb the callback given to it
    void CancelActivityNotification(const Callback<void>& cb);

    /// \return PFC frames received (XOFF and XON)
    uint64_t GetPfcPausesReceived() const;
    /// \return frames dropped on receipt by the ReceiveErrorModel
    uint64_t GetRxErrorDrops() const;

    // ------------------------------------------------ PFC pathologies (PfcWatchdog)
    /**
     * \param priority 0 to 7
     * \return since when the peer has paused it without a break (valid while IsPaused)
     */
    Time GetPausedSince(uint8_t priority) const;
    /**
     * Ignore (or honour again) the peer's pauses of a priority; ignoring ends a pause in
     * force at once.
     * \param priority 0 to 7
     * \param ignored true to ignore
     */
    void SetPauseIgnored(uint8_t priority, bool ignored);
    /**
     * Drop (or queue again) the data frames the owner queues on a priority; each is
     * handed to the dequeue callback first, so the owner releases its buffer.
     * \param priority 0 to 7
     * \param drop true to drop
     */
    void SetDropArrivals(uint8_t priority, bool drop);
    /**
     * Drop every data frame queued on a priority, handing each to the dequeue callback.
     * \param priority 0 to 7
     * \return frames dropped
     */
    uint32_t DropQueued(uint8_t priority);
    /// \return data frames dropped by DropQueued and SetDropArrivals
    uint64_t GetStormDrops() const;

    // ---------------------------------------------------------------- NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

    /**
     * Called by the channel when a frame has fully arrived, with the fields the sending
     * port had for it (ParseRoceFrame of the same bytes).
     * \param packet the frame (no FCS)
     * \param info its fields
     */
    void Receive(Ptr<Packet> packet, const RoceFrameInfo& info);

    /// What CheckCarriedFields found: frames checked, and among them those whose carried
    /// fields differed from a parse of their bytes, and those marked CE or carrying
    /// telemetry records (so a check can show it saw changed frames).
    struct CarriedFieldsCheck
    {
        uint64_t frames{0};     //!< frames received while checking
        uint64_t mismatches{0}; //!< carried fields that differed from the bytes'
        uint64_t marked{0};     //!< of the frames, those marked CE
        uint64_t stamped{0};    //!< of the frames, those with telemetry records
    };

    /**
     * A debugging aid for tests: while on, every port parses each frame it receives and
     * compares the result with the fields the sender carried (counted in
     * GetCarriedFieldsCheck; a mismatch is also logged). Off by default (it costs a
     * parse per frame); the counts restart when it is switched on.
     * \param on whether to check
     */
    static void CheckCarriedFields(bool on);
    /// \return the counts since CheckCarriedFields(true)
    static CarriedFieldsCheck GetCarriedFieldsCheck();

    /**
     * Hand a received frame that the model does not take (not RoCE, PFC or in-network
     * aggregation for this node: ARP, IPv4 that is not RoCE, any other EtherType) to the
     * protocol stack through NetDevice's receive callbacks (SetReceiveCallback,
     * SetPromiscReceiveCallback), without its Ethernet header, as ns-3's devices do. The
     * NIC calls it for such frames; switches forward by IPv4 address and never call it.
     * \param frame the frame (Ethernet II, no FCS)
     * \return true if a receive callback took it (false: nothing is installed)
     */
    bool DeliverUp(Ptr<Packet> frame);

    /**
     * Called by the channel when its cable is cut or mended (RoceChannel::SetUp): fires
     * the link-change callbacks (AddLinkChangeCallback).
     */
    void NotifyLinkChange();

    /**
     * Signature of the PfcSent / PfcReceived traces.
     * \param priority the priority paused or resumed
     * \param quanta pause time in units of 512 bit times (0 = XON)
     */
    typedef void (*PfcTracedCallback)(uint8_t priority, uint16_t quanta);

  protected:
    void DoDispose() override;

  private:
    static bool s_checkCarriedFields;               //!< CheckCarriedFields
    static CarriedFieldsCheck s_carriedFieldsCheck; //!< its counts
    /// Something may be sent: transmit now if the port is free, else at its end of frame.
    void Kick();
    void ScheduleTransmitComplete();
    void TryTransmit();
    void TransmitComplete();
    /// \param packet the frame to send \param info its fields if known, else null
    void StartTransmission(Ptr<Packet> packet, const RoceFrameInfo* info);
    Time NextTransmissionTime(uint32_t frameBytes);
    bool DequeueData(RoceQueueItem& item);
    void HandlePfc(Ptr<Packet> packet);
    void OnPauseExpired();
    /// \param weights one DWRR weight per priority (the DwrrWeights attribute)
    void SetDwrrWeights(const std::vector<uint32_t>& weights);
    /// \return the DWRR weight of each priority
    std::vector<uint32_t> GetDwrrWeights() const;

    Ptr<Node> m_node;
    Ptr<RoceChannel> m_channel;
    Mac48Address m_address;
    uint32_t m_ifIndex{0};
    uint16_t m_mtu{9000};
    DataRate m_rate;
    double m_secondsPerByte{0};
    bool m_controlFirst{true};
    DataScheduler m_scheduler{ROUND_ROBIN};
    uint32_t m_dwrrQuantum{0};
    std::array<uint32_t, N_PRIORITIES> m_dwrrWeight{};
    std::array<int64_t, N_PRIORITIES> m_deficit{};
    bool m_dwrrVisitFresh{true}; //!< the current priority has not earned this visit's quantum
    Ptr<ErrorModel> m_receiveErrorModel;

    std::deque<RoceQueueItem> m_pfc;
    std::deque<RoceQueueItem> m_control;
    std::array<std::deque<RoceQueueItem>, N_PRIORITIES> m_queues;
    std::array<uint32_t, N_PRIORITIES> m_queueBytes{};
    uint8_t m_nextPriority{0};
    Time m_busyUntil;    //!< end of the frame on the wire
    Time m_txCompleteAt; //!< time of the pending TransmitComplete
    bool m_inPull{false};
    uint32_t m_queuedDataFrames{0};
    int64_t m_psPerStep{0};
    uint64_t m_txCarryPs{0};
    EventId m_txCompleteEvent;

    std::array<Time, N_PRIORITIES> m_pausedUntil{};
    std::array<Time, N_PRIORITIES> m_pausedSince{}; //!< start of the unbroken pause
    uint8_t m_pauseIgnoredMask{0};                  //!< SetPauseIgnored
    uint8_t m_dropArrivalsMask{0};                  //!< SetDropArrivals
    uint64_t m_stormDrops{0};                       //!< GetStormDrops
    EventId m_pauseExpiryEvent;

    /// Drop a frame for the watchdog, telling the owner through the dequeue callback.
    void DropItem(RoceQueueItem& item);

    RxCallback m_rxCallback;
    DequeueCallback m_dequeueCallback;
    PullCallback m_pullCallback;

    uint64_t m_txBytes{0};
    uint64_t m_txFrames{0};
    uint64_t m_skippedTxFrames{0}; //!< of m_txFrames, the settled streams' frames
    std::vector<RoceSkippedFrames> m_skipped; //!< streams of a fast-forward under way
    std::vector<Callback<void>> m_onActivity; //!< NotifyOnActivity, one shot each

    /// The port is active (a frame sent or queued, a stream added): tell the watchers.
    void NoteActivity()
    {
        if (!m_onActivity.empty())
        {
            FireActivity();
        }
    }

    /// Call and clear m_onActivity (out of line: the hot path only tests it).
    void FireActivity();
    /// Count the streams whose every frame has reached this port as sent, and drop them.
    void PruneSkippedFrames();
    /// \param bytes set to the frame bytes of the skipped streams so far
    /// \return their frames so far
    uint64_t SkippedSoFar(uint64_t& bytes) const;
    uint64_t m_pfcSent{0};
    uint64_t m_pfcReceived{0};
    uint64_t m_rxErrorDrops{0};

    TracedCallback<Ptr<const Packet>> m_snifferTrace;
    TracedCallback<Ptr<const Packet>> m_macTxTrace;
    TracedCallback<Ptr<const Packet>> m_macRxTrace;
    TracedCallback<Ptr<const Packet>> m_phyRxDropTrace;
    TracedCallback<uint8_t, uint16_t> m_pfcSentTrace;
    TracedCallback<uint8_t, uint16_t> m_pfcReceivedTrace;

    // Cold: the NetDevice contract toward a protocol stack, after the packet path's state.
    NetDevice::ReceiveCallback m_stackRxCallback;          //!< SetReceiveCallback
    NetDevice::PromiscReceiveCallback m_promiscRxCallback; //!< SetPromiscReceiveCallback
    TracedCallback<> m_linkChangeCallbacks;                //!< AddLinkChangeCallback
};

} // namespace ns3

#endif
