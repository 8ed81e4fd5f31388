// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_QUEUE_PAIR_H
#define RDMA_QUEUE_PAIR_H

#include "roce-congestion-control.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"

#include <array>
#include <cstdint>
#include <deque>
#include <memory>

namespace ns3
{

class RdmaFastForward;
class RdmaNic;
class RdmaQueuePair;
struct RoceFrameInfo;
struct RoceSkippedFrames;

/**
 * \ingroup ai-fabric
 * What a queue pair reads of its NIC's configuration, handed to it once, at
 * RdmaQueuePair::Bind (the NIC's attributes when the queue pair is created).
 */
struct RdmaQpConfig
{
    uint32_t payloadMtu{0};    //!< RDMA payload bytes per packet (RdmaNic::Mtu)
    uint32_t ackInterval{0};   //!< in-order packets per ACK (AckInterval)
    Time ackCoalescingTime;    //!< longest wait of an ACK (AckCoalescingTime)
    Time cnpInterval;          //!< least time between two CNPs (CnpInterval)
    Time rto;                  //!< initial retransmission timeout (RetransmitTimeout)
    Time rtoMax;               //!< ceiling of the RTO backoff (MaxRetransmitTimeout)
    uint8_t intHopCapacity{0}; //!< room for hop records in INT headers (IntHopCapacity)
};

/**
 * \ingroup ai-fabric
 * What a queue pair may ask of its NIC: the only calls from RdmaQueuePair into RdmaNic,
 * which implements them.
 *
 * The NIC drives its queue pairs (creates and binds them, pulls their data frames, hands
 * them the frames it receives); a queue pair only asks, through this interface, when its
 * own state changes: it has data, it sends a control frame, it needs its frames' headers.
 */
class RdmaQpServices
{
  public:
    virtual ~RdmaQpServices() = default;

    /**
     * Put Ethernet, IPv4 and UDP headers in front of a BTH-headed packet.
     * \param packet the packet
     * \param dst destination NIC address
     * \param srcPort UDP source port
     * \param control true for ACK/NAK/CNP (control priority), false for data
     * \param dstPort UDP destination port: RoCEv2's (roce::UDP_DEST_PORT), or
     *        int_telemetry::UDP_PORT in front of an INT header
     */
    virtual void AddIpHeaders(Ptr<Packet> packet,
                              Ipv4Address dst,
                              uint16_t srcPort,
                              bool control,
                              uint16_t dstPort) = 0;
    /// \param packet an ACK, NAK or CNP, headers included, to send ahead of data
    virtual void SendControl(Ptr<Packet> packet) = 0;
    /// \param qpn a queue pair that may have data to send (the NIC schedules it)
    virtual void NotifyHasData(uint32_t qpn) = 0;
    /// \param qp the queue pair that sent a CNP
    virtual void NotifyCnpSent(Ptr<RdmaQueuePair> qp) = 0;
};

/**
 * \ingroup ai-fabric
 * A reliable-connected (RC) queue pair carrying RDMA WRITE messages.
 *
 * Sending side: messages of any size (64-bit byte counts) are cut into MTU-sized packets
 * with consecutive PSNs (24 bits on the wire, 64 bits inside, so the sequence wraps
 * correctly); a message larger than a WRITE can describe (2 GiB) is sent as several WRITE
 * operations, and the last one carries the message id as immediate data, which is how the
 * receiver learns that a message is complete. Loss recovery is go-back-N, on a NAK or on a
 * retransmission timeout with exponential backoff. The rate comes from the queue pair's
 * congestion control.
 *
 * Receiving side: in-order delivery, coalesced ACKs (every AckInterval packets and at the
 * end of each message), one NAK per sequence gap, and CNPs for CE-marked packets at most
 * once per CnpInterval.
 *
 * Its NIC drives it (Bind, HasDataToSend, GetNextSendTime, BuildNextDataPacket,
 * ReceiveData, ReceiveAck, ReceiveCnp); it asks the NIC for nothing but the
 * RdmaQpServices, and reads the NIC's configuration from the RdmaQpConfig of Bind.
 */
class RdmaQueuePair : public Object
{
  public:
    /// Message completion: queue pair, message id, message bytes.
    typedef Callback<void, Ptr<RdmaQueuePair>, uint64_t, uint64_t> MessageCallback;

    static constexpr uint32_t PSN_MASK = 0xFFFFFF; //!< PSNs are 24 bits on the wire
    /// Largest WRITE operation: RETH's DMA length is 32 bits; NICs cap it at 2^31.
    static constexpr uint64_t MAX_WRITE_BYTES = uint64_t(1) << 31;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RdmaQueuePair();
    ~RdmaQueuePair() override;

    /**
     * Post an RDMA WRITE of bytes to the peer.
     * \param bytes message length (1 to MAX_WRITE_BYTES)
     * \return the message id (also carried as immediate data)
     */
    uint64_t PostWrite(uint64_t bytes);
    /// \param cb called at the sender when the last byte of a message is acknowledged
    void SetSendCompleteCallback(MessageCallback cb);
    /// \param cb called at the receiver when the last byte of a message arrived in order
    void SetReceiveCompleteCallback(MessageCallback cb);

    uint32_t GetQpn() const;            //!< \return this queue pair's number
    uint32_t GetPeerQpn() const;        //!< \return the peer's QP number
    Ipv4Address GetPeerAddress() const; //!< \return the peer NIC's address
    uint16_t GetUdpSourcePort() const;  //!< \return the UDP source port (ECMP entropy)
    Ptr<RoceCongestionControl> GetCongestionControl() const; //!< \return the sender's CC
    Ptr<RdmaNic> GetNic() const; //!< \return the NIC (null once disposed)

    uint64_t GetBytesPosted() const;          //!< \return payload bytes posted
    uint64_t GetBytesAcked() const;           //!< \return payload bytes acknowledged
    uint64_t GetBytesReceived() const;        //!< \return payload bytes delivered in order
    uint64_t GetPacketsSent() const;          //!< \return data packets, retransmissions included
    uint64_t GetPacketsRetransmitted() const; //!< \return data packets sent more than once
    uint64_t GetTimeouts() const;             //!< \return retransmission timeouts fired
    uint64_t GetNaksReceived() const;         //!< \return NAKs (PSN sequence errors) received
    uint64_t GetCnpsReceived() const;         //!< \return CNPs received (as the sender)
    uint64_t GetCnpsSent() const;             //!< \return CNPs sent (as the receiver)
    /// \return true when every posted byte has been acknowledged
    bool IsIdle() const;

    // ------------------------------------------------------- called by RdmaNic
    /**
     * Bind to a NIC with a local QPN and congestion control.
     * \param nic the NIC (the queue pair's RdmaQpServices)
     * \param config the NIC's configuration, kept for the queue pair's life
     * \param qpn this queue pair's number
     * \param udpSourcePort UDP source port of its packets (ECMP entropy)
     * \param cc the sender's congestion control
     */
    void Bind(Ptr<RdmaNic> nic,
              const RdmaQpConfig& config,
              uint32_t qpn,
              uint16_t udpSourcePort,
              Ptr<RoceCongestionControl> cc);
    /**
     * Set the remote end.
     * \param peer its address
     * \param peerQpn its QP number
     * \param peerInitialPsn the first PSN it will send
     */
    void Connect(Ipv4Address peer, uint32_t peerQpn, uint32_t peerInitialPsn);
    /// \param psn first PSN this side sends (RC starts at a random PSN); before any post
    void SetInitialPsn(uint32_t psn);
    uint32_t GetInitialPsn() const; //!< \return the first PSN this side sends
    /// \return true when data is waiting and the window allows sending (pacing aside), or
    ///         while the fast-forward skips its packets (it keeps its place in the round)
    bool HasDataToSend() const;
    /// \return the earliest time the pacer allows the next packet (Time::Max() while the
    ///         fast-forward skips its packets)
    Time GetNextSendTime() const;
    /// Build the next data frame and advance; paces and arms the timer. \return the frame
    Ptr<Packet> BuildNextDataPacket();
    /**
     * A data frame for this QP arrived (receiver role).
     * \param info the frame, as parsed
     * \param telemetry its info.intHops hop records, or null when it carries none
     */
    void ReceiveData(const RoceFrameInfo& info, const uint64_t* telemetry = nullptr);
    /**
     * An ACK or NAK for this QP arrived (sender role).
     * \param info the frame, as parsed
     * \param telemetry the info.intHops hop records it echoes, or null
     */
    void ReceiveAck(const RoceFrameInfo& info, const uint64_t* telemetry = nullptr);
    /// A CNP for this QP arrived (sender role).
    void ReceiveCnp();
    /// \param peer the queue pair at the other end, when both are in this simulation
    ///        (RdmaNic::Connect); a fast-forward needs it to count skipped packets there
    void SetPeerQueuePair(Ptr<RdmaQueuePair> peer);
    /// \return the queue pair at the other end (null if not known)
    Ptr<RdmaQueuePair> GetPeerQueuePair() const;

    // ------------------------------------------- called by RdmaFastForward
    /**
     * Let a fast-forward watch this queue pair: from now on it measures whether its
     * sending is steady and tells the controller (RdmaFastForward::NotifySteady).
     * \param controller the fast-forward (null: none)
     */
    void SetFastForward(RdmaFastForward* controller);
    /**
     * \param now the current time
     * \return true if the sending side has been steady for the controller's window and
     *         still is: data to send, a constant gap between its packets, a constant RTT,
     *         no congestion signal, a congestion control whose rate is steady, nothing
     *         retransmitted, and no earlier skip still unacknowledged
     */
    bool IsSteady(Time now) const;
    /// \return when the current steadiness window began (fast-forward only)
    Time GetWindowStart() const;
    /**
     * \return when this queue pair's load on its ports last changed (fast-forward only):
     *         it began sending after a pause, or its congestion control or a congestion
     *         signal changed its pace
     */
    Time GetLoadSince() const;
    /**
     * How this queue pair's data would go on if it kept its pace: its last packet, the
     * gap between packets, their size, and how many packets may be skipped (the ones
     * before the last endPackets of the current message or WRITE).
     * \param endPackets packets at the end of each message always sent for real
     * \param plan set to the stream of skippable packets
     * \return false if there is nothing to skip
     */
    bool PlanSkip(uint32_t endPackets, RoceSkippedFrames& plan) const;
    /**
     * Another queue pair started or stopped sharing a port: measure the pace anew, in a
     * window that starts once its data and ACKs have reached (or left) every port.
     * \param notBefore the window starts no sooner
     */
    void ResetSteadiness(Time notBefore);
    /**
     * Its last skip ended as planned (skip != 0), or something may have changed its pace
     * since (skip == 0: a congestion signal, a rate change, a timeout, a skip ended early,
     * a group that is not that skip's). While it is set, its steadiness window is the
     * controller's WarmWindow: the same queue pairs on the same ports settle to the pace
     * they had.
     * \param skip that skip's id (0: none)
     * \param members that skip's queue pairs
     * \param periodPs its period in that skip: a warm window's mean gap must be this
     */
    void SetWarm(uint64_t skip, uint32_t members, double periodPs);
    /// \return the skip SetWarm last named (0: none; always 0 without a fast-forward)
    uint64_t GetWarmSkip() const;
    /// \return how many queue pairs that skip had
    uint32_t GetWarmMembers() const;
    /// Stop sending: a skip of the packets of PlanSkip starts.
    void BeginSkip();
    /**
     * The skip ends: count packets of the plan as sent (and, at the peer, as received
     * once the packets sent before them have arrived), and send the next packet from
     * resumeAt on, in the queue pair's turn of its NIC's round robin (it kept its place
     * there while it skipped).
     * \param plan the plan of BeginSkip
     * \param packets packets skipped (at most plan.maxFrames)
     * \param resumeAt no packet before this (the next round of the NIC's queue pairs)
     * \param pathDelay from the start of a packet at this NIC to its arrival at the peer's
     * \param ackEvery the peer acknowledges one in this many packets
     * \param tail the skip ended as planned, this queue pair within a few packets of its
     *        message's end: no window is judged until it has sent that message
     * \return the peer's ACKs of the skipped packets that arrived by now (the rest, still on
     *         their way, the peer sends as they arrive)
     */
    uint64_t EndSkip(const RoceSkippedFrames& plan,
                     uint64_t packets,
                     Time resumeAt,
                     Time pathDelay,
                     uint64_t ackEvery,
                     bool tail);
    /**
     * The peer skipped packets [firstPsn, firstPsn + packets) of its PSN sequence (the
     * receiving side): count them as received, in order, once every packet before them
     * has arrived. If they have, the ACKs of the ones still on their way (the peer's plan
     * and pathDelay say when each arrives) are sent as they arrive, every ackEvery
     * packets counted on from the packets received so far.
     * \param firstPsn the first skipped PSN (64-bit count since the initial PSN)
     * \param packets skipped packets
     * \param bytes their payload
     * \param plan the peer's plan
     * \param pathDelay from the start of a packet at the peer's NIC to its arrival here
     * \param ackEvery one ACK per this many packets
     * \return the ACKs of the skipped packets that arrived by now
     */
    uint64_t ExpectSkippedPackets(uint64_t firstPsn,
                                  uint64_t packets,
                                  uint64_t bytes,
                                  const RoceSkippedFrames& plan,
                                  Time pathDelay,
                                  uint64_t ackEvery);
    /// The ACK of a skipped packet that arrives now (ExpectSkippedPackets). \param psn its PSN
    void SendSkippedAck(uint64_t psn);

  protected:
    void DoDispose() override;

  private:
    struct Message
    {
        uint64_t id;
        uint64_t bytes;
        uint64_t firstPsn;
        uint64_t endPsn; //!< one past the last PSN
    };

    /// Where the next data packet lies in its RDMA WRITE (a message is one or more WRITEs
    /// of at most MAX_WRITE_BYTES) and the opcode that says so.
    struct WriteSegment
    {
        uint8_t opcode;   //!< BthHeader opcode
        uint64_t opStart; //!< the WRITE's first byte in the message
        uint64_t opBytes; //!< the WRITE's length
        bool lastPacket;  //!< last packet of the message
    };

    /// \return the segment of the packet of payload bytes at offset of msg
    WriteSegment LocateInWrite(const Message& msg, uint64_t offset, uint32_t payload) const;
    /// Put the RoCEv2 headers (immediate, RETH, BTH, INT, UDP, IPv4, Ethernet) on p.
    void AddDataHeaders(Ptr<Packet> p, const Message& msg, const WriteSegment& segment);
    /// Sender state after data packet p left: PSNs, counters, RTT probe, CC, timer.
    void OnDataPacketBuilt(Ptr<const Packet> p);
    /// Fill the congestion control's ACK signal: telemetry and the RTT sample.
    void FillAckSignal(RoceAckSignal& signal,
                       const RoceFrameInfo& info,
                       const uint64_t* telemetry,
                       uint64_t ackedPackets);
    void CompleteAckedMessages();
    /// A data packet left (fast-forward only): extend or restart the steadiness window.
    void TrackSteadiness(uint32_t frameBytes, bool retransmission);
    /// \param now the last send of a full window \return its halves' mean gaps agree
    bool HalvesAgree(Time now) const;
    /// \return true if the queue pair's windows are warm ones: its last skip began on a
    ///         warm window or a full one and no full window has been asked for since
    bool IsWarm() const;
    /// \return the index in m_messages of the message holding m_sndNxt (m_messages.size()
    ///         if none does)
    std::size_t CurrentMessage() const;
    /// \return how far apart two RTT samples of a steady pace may be (an ACK waits for
    ///         up to AckInterval packets)
    Time RttTolerance() const;
    /**
     * A warm window's mean gap is the pace of its last skip, and its RTT samples lie
     * within the RTTs measured since its last full window; if not, the queue pair is not
     * warm any more.
     * \param now the last send of the window
     * \return true if it is
     */
    bool WarmPaceHolds(Time now);
    /// An RTT sample (fast-forward only): a change restarts the steadiness window.
    void TrackRtt(Time rtt);
    /// A congestion signal or a rate change (fast-forward only): not steady any more.
    void Disturb();
    /// Restart the steadiness window (no send in it yet), telling the controller if the
    /// queue pair was steady.
    void RestartWindow();
    /// Receiving side: count the peer's skipped packets, now in order.
    void ApplySkippedPackets();
    /// \return packets sent and not acknowledged, skipped ones aside
    uint64_t OutstandingPackets() const;
    void OnRateChange(double oldBps, double newBps);
    void ArmRetransmitTimer();
    void OnRetransmitTimer();
    void SendAck(uint64_t lastInOrderPsn, uint8_t syndrome);
    void SendCnp();

    /**
     * Expand a wire PSN to the 64-bit count since initialPsn, at or after reference.
     * \return false if it lies behind reference (a duplicate or stale PSN)
     */
    static bool ExpandPsn(uint32_t psn24, uint32_t initialPsn, uint64_t reference, uint64_t& psn)
    {
        // In the header: the requester's ACK path and the responder's data path, in two
        // files, both call it per packet.
        const uint64_t delta = (psn24 - initialPsn - reference) & PSN_MASK;
        if (delta >= (PSN_MASK + 1) / 2)
        {
            return false;
        }
        psn = reference + delta;
        return true;
    }

    Ptr<RdmaNic> m_nic;           //!< for GetNic() only: every call goes to m_services
    RdmaQpServices* m_services{}; //!< the NIC, as far as the queue pair may ask it
    RdmaQpConfig m_config;        //!< the NIC's configuration, from Bind
    Ptr<RoceCongestionControl> m_cc;
    uint32_t m_qpn{0};
    uint32_t m_peerQpn{0};
    Ipv4Address m_peer;
    uint16_t m_udpSourcePort{0};
    uint32_t m_localInitialPsn{0};
    uint32_t m_peerInitialPsn{0};
    MessageCallback m_sendComplete;
    MessageCallback m_receiveComplete;

    // sender
    std::deque<Message> m_messages; //!< posted, not yet fully acknowledged
    std::size_t m_sendCursor{0};    //!< index in m_messages of the message holding m_sndNxt
    uint64_t m_nextMessageId{0};
    uint64_t m_psnAssigned{0}; //!< one past the last PSN of the posted messages
    uint64_t m_sndNxt{0};
    uint64_t m_sndUna{0};
    uint64_t m_sndMax{0}; //!< one past the highest PSN ever sent
    Time m_lastSendTime;
    uint32_t m_lastSendWireBytes{0};
    Time m_rto;
    Time m_rtoDeadline;
    EventId m_rtoEvent;
    bool m_rttProbeActive{false};
    uint64_t m_rttProbePsn{0};
    Time m_rttProbeSent;
    RoceSignalNeeds m_needs;      //!< what the algorithm asked for (at Bind)
    std::deque<Time> m_sendTimes; //!< rttPerAck: send time of PSNs m_sendTimesBase...
    uint64_t m_sendTimesBase{0};  //!< PSN of m_sendTimes.front()

    /// What intTelemetry needs, allocated only for algorithms that ask for it.
    struct Telemetry
    {
        /// receiver: the hop records of the last data frame, for the next ACK
        std::array<uint64_t, int_telemetry::MAX_HOPS> echoWords{};
        uint8_t echoHops{0};   //!< records in echoWords
        bool echoValid{false}; //!< a data frame with telemetry arrived
        /// sender: the hop records of the last ACK, decoded
        std::array<RoceIntHop, int_telemetry::MAX_HOPS> ackHops{};
    };

    std::unique_ptr<Telemetry> m_telemetry; //!< intTelemetry only

    /// What a fast-forward needs, allocated only under one (SetFastForward).
    struct SkipState
    {
        RdmaFastForward* controller{nullptr};
        // the sending side's steadiness window
        Time first;             //!< first send of the window
        uint64_t sends{0};      //!< sends in the window
        Time mid;               //!< the first send past half the window
        uint64_t midSends{0};   //!< sends up to it (0: not there yet)
        int64_t minGap{0};      //!< shortest gap between two of them, in time steps
        int64_t maxGap{0};      //!< longest gap
        uint32_t frameBytes{0}; //!< their frame size
        Time minRtt;            //!< smallest RTT sample in the window
        Time maxRtt;            //!< largest
        uint32_t rttSamples{0}; //!< RTT samples in the window
        /// PSN and send time of one new packet in every AckInterval: each ACK times the
        /// newest it covers (a congestion control's single probe gives one sample per
        /// RTT, and a window needs two); those before probesHead are used
        std::vector<std::pair<uint64_t, Time>> probes;
        std::size_t probesHead{0}; //!< the oldest probe not yet covered by an ACK
        uint64_t warmSkip{0};      //!< SetWarm's skip (0: none)
        uint32_t warmMembers{0};   //!< its queue pairs
        double warmPeriodPs{0};    //!< its period in that skip
        Time warmMinRtt;           //!< the smallest RTT since its last full window
        Time warmMaxRtt;           //!< the largest
        /// A warm window found the queue pair faster than its last skip (a queue pair on
        /// its port between messages): full windows until one starts on its ports again
        /// (ResetSteadiness), the warm skip kept for the group's next check
        bool warmSuspended{false};
        /// After EndSkip: the end PSN of the message the skip ended in (0: none). Until the
        /// queue pair sends it, its pace changes as the NIC's other queue pairs finish one
        /// by one: no window is judged (a failed warm judgement would clear the warm state).
        uint64_t tailEnd{0};
        bool steady{false};   //!< the controller was told so
        bool skipping{false}; //!< between BeginSkip and EndSkip
        // sending side: skipped PSNs [from, to), counted as acknowledged with the
        // packets before them; from == to when none is pending
        uint64_t from{0};
        uint64_t to{0};
        Time resumeAt;      //!< no packet before this (the slot after the skipped ones)
        Time notBefore;     //!< no window starts before this (ResetSteadiness)
        Time loadSince;     //!< GetLoadSince
        int64_t lastGap{0}; //!< the gap before the last send, in time steps
        // receiving side: the peer's skipped PSNs [jumpFrom, jumpFrom + jumpPackets)
        uint64_t jumpFrom{0};
        uint64_t jumpPackets{0};
        uint64_t jumpBytes{0}; //!< their payload
    };

    std::unique_ptr<SkipState> m_skip; //!< fast-forward only
    Ptr<RdmaQueuePair> m_peerQp;       //!< the other end, when known
    uint64_t m_bytesPosted{0};
    uint64_t m_bytesAcked{0};
    uint64_t m_packetsSent{0};
    uint64_t m_packetsRetransmitted{0};
    uint64_t m_timeouts{0};
    uint64_t m_naksReceived{0};
    uint64_t m_cnpsReceived{0};

    // receiver
    uint64_t m_rcvExpected{0};
    uint64_t m_rcvMessageBytes{0};
    uint64_t m_bytesReceived{0};
    uint32_t m_rcvMsn{0};
    uint32_t m_unackedPackets{0};
    bool m_ceUnacked{false}; //!< some packet not yet acknowledged arrived CE-marked
    Time m_lastAckTime;
    bool m_nakOutstanding{false};
    bool m_cnpEverSent{false};
    Time m_lastCnpTime;
    uint64_t m_cnpsSent{0};
};

} // namespace ns3

#endif
