// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_NET_DEVICE_H
#define ROCE_NET_DEVICE_H

#include "roce-frame.h"

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
    Ptr<Packet> packet;
    uint32_t ingressPort{0}; //!< owner's bookkeeping (switch ingress port)
    uint32_t bytes{0};       //!< frame bytes (no FCS), cached
    uint8_t priority{0};
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
    static constexpr uint8_t N_PRIORITIES = 8;

    enum DataScheduler
    {
        ROUND_ROBIN,
        DWRR
    };

    /// Owner's receive hook: device, frame, decoded fields.
    typedef Callback<void, Ptr<RoceNetDevice>, Ptr<Packet>, const RoceFrameInfo&> RxCallback;
    /// Called when a data item is taken from a queue for transmission.
    typedef Callback<void, Ptr<RoceNetDevice>, RoceQueueItem&> DequeueCallback;
    /// Pull source of data frames for a NIC: argument is the bitmask of paused priorities.
    typedef Callback<Ptr<Packet>, uint8_t> PullCallback;

    static TypeId GetTypeId();
    RoceNetDevice();
    ~RoceNetDevice() override;

    // ---------------------------------------------------------------- wiring
    void Attach(Ptr<RoceChannel> channel);
    Ptr<RoceChannel> GetRoceChannel() const;
    void SetRoceReceiveCallback(RxCallback cb);
    void SetDequeueCallback(DequeueCallback cb);
    void SetPullCallback(PullCallback cb);

    // ---------------------------------------------------------------- transmit
    /// Queue a data frame (Ethernet header included) on a priority.
    void EnqueueData(Ptr<Packet> packet, uint8_t priority, uint32_t ingressPort);
    /// Queue a control frame (ACK, NAK, CNP) ahead of data.
    void EnqueueControl(Ptr<Packet> packet, uint8_t priority);
    /// Send a PFC frame for one priority (quanta 0 = XON), ahead of everything queued.
    void SendPfc(uint8_t priority, uint16_t quanta);
    /// A pull source has data again: start transmitting if idle.
    void NotifyDataAvailable();

    // ---------------------------------------------------------------- state
    DataRate GetDataRate() const;
    /// Seconds to serialize a frame of this size (no FCS) on this port.
    Time GetTransmissionTime(uint32_t frameBytes) const;
    /// PFC pause duration of q quanta on this port.
    Time QuantaToTime(uint16_t quanta) const;
    bool IsPaused(uint8_t priority) const;
    uint8_t GetPausedMask() const;
    bool IsTransmitting() const;
    uint32_t GetQueueBytes(uint8_t priority) const;
    uint32_t GetQueuePackets(uint8_t priority) const;
    uint64_t GetTxBytes() const;  //!< frame bytes sent (no FCS)
    uint64_t GetTxFrames() const; //!< frames sent, control included
    uint64_t GetPfcPausesSent() const;
    uint64_t GetPfcPausesReceived() const;
    uint64_t GetRxErrorDrops() const;

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

    /// Called by the channel when a frame has fully arrived.
    void Receive(Ptr<Packet> packet);

    /// Signature of the PfcSent / PfcReceived traces.
    typedef void (*PfcTracedCallback)(uint8_t priority, uint16_t quanta);

  protected:
    void DoDispose() override;

  private:
    /// Something may be sent: transmit now if the port is free, else at its end of frame.
    void Kick();
    void ScheduleTransmitComplete();
    void TryTransmit();
    void TransmitComplete();
    void StartTransmission(Ptr<Packet> packet);
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
    EventId m_pauseExpiryEvent;

    RxCallback m_rxCallback;
    DequeueCallback m_dequeueCallback;
    PullCallback m_pullCallback;

    uint64_t m_txBytes{0};
    uint64_t m_txFrames{0};
    uint64_t m_pfcSent{0};
    uint64_t m_pfcReceived{0};
    uint64_t m_rxErrorDrops{0};

    TracedCallback<Ptr<const Packet>> m_snifferTrace;
    TracedCallback<Ptr<const Packet>> m_macTxTrace;
    TracedCallback<Ptr<const Packet>> m_macRxTrace;
    TracedCallback<Ptr<const Packet>> m_phyRxDropTrace;
    TracedCallback<uint8_t, uint16_t> m_pfcSentTrace;
    TracedCallback<uint8_t, uint16_t> m_pfcReceivedTrace;
};

} // namespace ns3

#endif
