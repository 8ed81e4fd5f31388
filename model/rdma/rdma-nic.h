// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_NIC_H
#define RDMA_NIC_H

#include "rdma-fast-forward.h"
#include "rdma-queue-pair.h"
#include "rdma-receive-buffer.h"
#include "rdma-udp-port-dispatch.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/roce-frame-info.h"
#include "ns3/roce-net-device.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A RoCEv2 RDMA NIC with one Ethernet port.
 *
 * Owns the queue pairs of its host, shares the port among those that have data (round
 * robin, each paced at its congestion control's rate), dispatches received frames to
 * queue pairs by destination QP number and sends their ACKs, NAKs and CNPs on the control
 * queue. Data uses DataPriority (DSCP = 8 × priority, ECN-capable), control frames
 * ControlPriority.
 *
 * The NIC drives its queue pairs: it creates and binds them (handing each an RdmaQpConfig
 * of its attributes), pulls their data frames when the port asks and hands them the
 * frames it receives. A queue pair calls back only through RdmaQpServices, which the NIC
 * implements. With ReceiveRate > 0 received frames wait in an RdmaReceiveBuffer (which
 * sends the host's PFC) before the dispatch; frames to a shared UDP port go to an
 * RdmaUdpPortDispatch.
 */
class RdmaNic : public Object, public RdmaQpServices
{
  public:
    /// QP numbers start here (0 and 1 are special in InfiniBand).
    static constexpr uint32_t FIRST_QPN = 0x100;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RdmaNic();
    ~RdmaNic() override;

    /**
     * Attach the port: checks that its MTU carries a full data packet, takes its receive
     * and pull callbacks, and puts the NIC on the port's node.
     * \param device the host's port
     */
    void SetDevice(Ptr<RoceNetDevice> device);
    Ptr<RoceNetDevice> GetDevice() const; //!< \return the port (null once disposed)
    /// \param address this NIC's IPv4 address (source of its packets)
    void SetAddress(Ipv4Address address);
    Ipv4Address GetAddress() const; //!< \return this NIC's IPv4 address

    /**
     * Create a queue pair with the next QPN, a random first PSN and a UDP source port;
     * connect it with RdmaQueuePair::Connect (or open both ends with RdmaNic::Connect).
     * \return the new queue pair
     */
    Ptr<RdmaQueuePair> CreateQueuePair();

    /// What a new queue pair draws from the NIC's random stream.
    struct QpIdentity
    {
        uint16_t srcPort{0};    //!< UDP source port (ECMP entropy), 49152..65535
        uint32_t initialPsn{0}; //!< first packet sequence number
    };

    /**
     * Draw the UDP source port and first PSN of the next queue pair, as CreateQueuePair
     * does (it calls this): a flow-level carrier that opens no queue pairs draws them too,
     * so that its flows hash onto the paths the packets of the same connections would
     * take and the stream stays where the packet model leaves it.
     * \return the draws
     */
    QpIdentity DrawQpIdentity();

    /**
     * Open a reliable connection: a queue pair on each NIC, each told the other's address,
     * QPN and first PSN (a's queue pair is created first).
     * \param a one end
     * \param b the other end
     * \return the queue pairs on a and on b
     */
    static std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> Connect(Ptr<RdmaNic> a,
                                                                     Ptr<RdmaNic> b);
    /**
     * Let a fast-forward watch this NIC's queue pairs, present and future
     * (RdmaFastForward::Install calls it).
     * \param controller the fast-forward (null: none)
     */
    void SetFastForward(Ptr<RdmaFastForward> controller);
    /// \param packets data packets a fast-forward counted as sent (GetDataPacketsSent)
    void CountSkippedPackets(uint64_t packets);
    uint32_t GetNQueuePairs() const; //!< \return how many queue pairs the NIC holds
    /// \param index 0 to GetNQueuePairs() - 1 \return that queue pair
    Ptr<RdmaQueuePair> GetQueuePair(uint32_t index) const;

    /**
     * Receives the IPv4/UDP frames to this NIC's address and to one UDP port that are not
     * RoCE (another protocol sharing the port, e.g. in-network aggregation): frame,
     * decoded fields.
     */
    typedef RdmaUdpPortDispatch::ReceiveCallback UdpReceiveCallback;

    /**
     * Hand the frames to udpPort to callback instead of dropping them.
     * \param udpPort the UDP destination port (not 4791, RoCEv2's)
     * \param callback the receiver (null to stop)
     */
    void SetUdpReceiveCallback(uint16_t udpPort, UdpReceiveCallback callback);

    uint32_t GetPayloadMtu() const;    //!< \return RDMA payload bytes per packet (Mtu)
    uint8_t GetIntHopCapacity() const; //!< \return room for INT hop records (IntHopCapacity)
    uint32_t GetAckInterval() const;   //!< \return in-order packets per ACK
    Time GetAckCoalescingTime() const; //!< \return the ACK coalescing timer
    Time GetCnpInterval() const;       //!< \return least time between CNPs of one QP
    uint8_t GetDataPriority() const;   //!< \return the priority data frames use
    bool IsEcnCapable() const;         //!< \return whether data is sent ECN-capable
    /// \return the congestion control each queue pair gets (CongestionControl)
    TypeId GetCongestionControlType() const;
    Time GetRetransmitTimeout() const;    //!< \return the initial RTO
    Time GetMaxRetransmitTimeout() const; //!< \return the RTO's upper bound after backoff
    uint64_t GetRxUnknownQpDrops() const; //!< \return packets dropped for an unknown QPN
    /// \return frames dropped because the receive buffer was full (ReceiveRate > 0)
    uint64_t GetReceiveDrops() const;
    /// \return the most bytes the receive buffer held (ReceiveRate > 0)
    uint32_t GetReceiveBufferPeak() const;
    uint64_t GetDataPacketsSent() const; //!< \return data packets sent by all QPs

    /**
     * Fix the random streams (first PSNs, UDP source ports).
     * \param stream first stream number
     * \return the number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    // ------------------------------------ RdmaQpServices: what its queue pairs ask of it
    /**
     * Put Ethernet, IPv4 and UDP headers in front of a BTH-headed packet.
     * \param packet the packet
     * \param dst destination NIC address
     * \param srcPort UDP source port
     * \param control true for ACK/NAK/CNP (control priority), false for data
     * \param dstPort UDP destination port: RoCEv2's (roce::UDP_DEST_PORT), or
     *        int_telemetry::UDP_PORT in front of an INT header
     */
    void AddIpHeaders(Ptr<Packet> packet,
                      Ipv4Address dst,
                      uint16_t srcPort,
                      bool control,
                      uint16_t dstPort) override;
    /// \param packet an ACK, NAK or CNP to send ahead of data (control priority)
    void SendControl(Ptr<Packet> packet) override;
    /// \param qpn a queue pair that may have data to send (the NIC schedules it)
    void NotifyHasData(uint32_t qpn) override;
    /// \param qp the queue pair that sent a CNP (fires the CnpSent trace)
    void NotifyCnpSent(Ptr<RdmaQueuePair> qp) override;

    /**
     * Signature of the queue-pair traces.
     * \param qp the queue pair concerned
     */
    typedef void (*QueuePairTracedCallback)(Ptr<RdmaQueuePair> qp);

  protected:
    void DoDispose() override;

  private:
    Ptr<Packet> PullData(uint8_t pausedMask);
    void Receive(Ptr<RoceNetDevice> device, Ptr<Packet> packet, const RoceFrameInfo& info);
    /// Hand a received frame to its queue pair (or the UDP port dispatch).
    void Dispatch(Ptr<Packet> packet, const RoceFrameInfo& info);
    void Wake();
    /// \return the configuration a new queue pair reads (from the attributes)
    RdmaQpConfig MakeQpConfig() const;

    // ReceiveRate, ReceiveBufferSize, ReceivePauseQuanta: kept by the receive buffer
    void SetReceiveRate(DataRate rate);          //!< \param rate ReceiveRate
    DataRate GetReceiveRate() const;             //!< \return ReceiveRate
    void SetReceiveBufferSize(uint32_t bytes);   //!< \param bytes ReceiveBufferSize
    uint32_t GetReceiveBufferSize() const;       //!< \return ReceiveBufferSize
    void SetReceivePauseQuanta(uint16_t quanta); //!< \param quanta ReceivePauseQuanta
    uint16_t GetReceivePauseQuanta() const;      //!< \return ReceivePauseQuanta

    RdmaUdpPortDispatch m_udpDispatch; //!< see SetUdpReceiveCallback

    // attributes
    uint32_t m_mtu;
    uint8_t m_intHopCapacity;                                     //!< IntHopCapacity attribute
    std::array<uint64_t, int_telemetry::MAX_HOPS> m_rxIntWords{}; //!< a received INT stack
    uint32_t m_ackInterval;
    Time m_ackCoalescingTime;
    Time m_cnpInterval;
    Time m_rto;
    Time m_rtoMax;
    uint8_t m_dataPriority;
    uint8_t m_controlPriority;
    bool m_ecnCapable;
    TypeId m_ccTypeId;
    Ptr<RdmaReceiveBuffer> m_rxBuffer; //!< the host receive path (ReceiveRate > 0)
    bool m_rxBuffered{false};          //!< ReceiveRate > 0: frames go through m_rxBuffer

    Ptr<RoceNetDevice> m_device;
    Ipv4Address m_address;
    std::vector<Ptr<RdmaQueuePair>> m_qps;
    Ptr<RdmaFastForward> m_fastForward; //!< SetFastForward
    /// Indices of the queue pairs that may have data, in the order they are served: the
    /// front is next, a queue pair served (or waiting for its pacing) goes to the back, one
    /// that becomes active joins at the back. A fair round robin in first-in-first-out order.
    std::deque<uint32_t> m_active;
    std::vector<bool> m_isActive; //!< per queue pair index: in m_active
    EventId m_wakeEvent;
    Time m_wakeAt;
    Ptr<UniformRandomVariable> m_portRng;
    uint16_t m_ipId{0};
    Mac48Address m_nextHopMac;
    bool m_nextHopKnown{false};

    uint64_t m_rxUnknownQp{0};
    uint64_t m_dataPacketsSent{0};
    TracedCallback<Ptr<const Packet>> m_dataTxTrace;
    TracedCallback<Ptr<RdmaQueuePair>> m_cnpSentTrace;
};

} // namespace ns3

#endif
