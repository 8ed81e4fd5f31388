// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_SWITCH_H
#define ROCE_SWITCH_H

#include "ecmp-routing-table.h"
#include "pfc-watchdog.h"
#include "roce-net-device.h"
#include "shared-buffer-mmu.h"

#include "ns3/event-id.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <array>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * An Ethernet switch that routes RoCEv2 frames by destination IPv4 address.
 *
 * Node-level forwarding without an Internet stack: frames arrive through the ports'
 * receive hook, are routed (ECMP over equal-cost ports by a salted 5-tuple hash), admitted
 * by the SharedBufferMmu and queued on the egress port by priority (DSCP >> 3). ACK, NAK
 * and CNP frames take the egress control queue. PFC pauses are sent when the MMU says so
 * and refreshed before they expire while the cause lasts; XON (zero quanta) when it clears.
 * ECN is marked as frames leave.
 */
class RoceSwitch : public Object
{
  public:
    /// Why a frame was dropped.
    enum DropReason
    {
        DROP_NO_ROUTE,      //!< no route to the destination address
        DROP_HEADROOM_FULL, //!< a lossless queue overran its headroom
        DROP_THRESHOLD,     //!< a lossy queue above its dynamic threshold
        DROP_BUFFER_FULL,   //!< a lossy queue and no shared buffer left
        DROP_REASONS        //!< the number of reasons
    };

    /**
     * Ingress port recorded for frames the switch itself sends (SendLocal): they hold no
     * ingress buffer, but are told to OnDequeue (ECN marking) like forwarded frames.
     * (UINT32_MAX is the device's "no owner bookkeeping" value, used for control frames.)
     */
    static constexpr uint32_t LOCAL_PORT = UINT32_MAX - 1;

    /**
     * Receives the frames a local engine (an in-network aggregation engine) takes off the
     * forwarding path: ingress port, priority, frame, decoded fields. The frame keeps its
     * ingress buffer (and so its share in PFC decisions) until the engine calls
     * ReleaseLocal.
     */
    typedef Callback<void, uint32_t, uint8_t, Ptr<Packet>, const RoceFrameInfo&>
        LocalDeliveryCallback;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoceSwitch();

    /**
     * Take IPv4/UDP frames to udpPort off the forwarding path: after admission by the MMU
     * (and an XOFF if it says so) they go to callback instead of an egress queue. Costs
     * the forwarding path one comparison when unused.
     * \param udpPort the UDP destination port
     * \param callback the local engine (null to stop)
     */
    void SetLocalDelivery(uint16_t udpPort, LocalDeliveryCallback callback);

    /**
     * The local engine is done with a frame it was given: release its ingress buffer (and
     * send XON if that ends a pause).
     * \param inPort the frame's ingress port
     * \param priority its priority
     * \param bytes its size (no FCS)
     */
    void ReleaseLocal(uint32_t inPort, uint8_t priority, uint32_t bytes);

    /**
     * Queue a frame the switch itself built (an aggregate, a result) on an egress port.
     * Aborts if the port does not exist.
     * \param port the egress port
     * \param priority its priority
     * \param frame the frame (Ethernet header included, no FCS)
     */
    void SendLocal(uint32_t port, uint8_t priority, Ptr<Packet> frame);

    /**
     * Take over the RoceNetDevices of node as ports (port number = device index on the
     * node) and size the MMU from their links. Call once the devices are attached.
     * Aborts if a device is not an attached RoceNetDevice.
     * \param node the switch's node
     */
    void Setup(Ptr<Node> node);

    /// \return the routing table (filled by the helpers)
    EcmpRoutingTable& GetRoutingTable();
    /// \return the MMU
    Ptr<SharedBufferMmu> GetMmu() const;
    /**
     * Derive the buffer's per-port figures (headroom, ECN thresholds, everything that
     * follows a port's rate and cable) from the ports as they are now, as Setup does:
     * again after a port's DataRate changed, before any traffic (the buffer starts
     * empty again).
     */
    void ReconfigureBuffers();
    /// \param port a port number (std::out_of_range beyond GetNPorts()) \return that port
    Ptr<RoceNetDevice> GetPort(uint32_t port) const;
    /// \return the number of ports
    uint32_t GetNPorts() const;
    /// \return the ECMP hash salt in use
    uint64_t GetEcmpSalt() const;

    /// \param reason a drop reason \return frames dropped for it
    uint64_t GetDrops(DropReason reason) const;
    /// \return frames dropped for any reason
    uint64_t GetTotalDrops() const;
    /// \return frames marked CE as they left
    uint64_t GetEcnMarks() const;
    /// \param port egress port \return ECN marks made on frames leaving it (0 for no such port)
    uint64_t GetEcnMarks(uint32_t port) const;
    /// \return in-band telemetry hop records stamped on leaving frames
    uint64_t GetIntStamps() const;
    /// \return the port watchdogs (PfcWatchdog attribute), by port; empty without
    const std::vector<Ptr<PfcWatchdog>>& GetPfcWatchdogs() const;
    /// \return XOFF frames sent (refreshes included, XON not)
    uint64_t GetPfcPausesSent() const;
    /// \return the longest egress queue seen after an enqueue, in bytes
    uint32_t GetMaxQueueBytes() const;

    /**
     * Fix the random streams (the ECMP salt when drawn, the MMU's ECN marking). A salt
     * drawn by Setup is drawn again from the new stream.
     * \param stream first stream number
     * \return the number of streams used: 1, or 2 once the switch has its MMU
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * Signature of the Drop trace.
     * \param packet the frame dropped
     * \param reason a DropReason, as an integer
     */
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet, uint32_t reason);
    /**
     * Signature of the QueueLength trace.
     * \param port egress port
     * \param priority the egress queue's priority (0 to 7)
     * \param bytes that queue's length in bytes after the enqueue
     */
    typedef void (*QueueTracedCallback)(uint32_t port, uint8_t priority, uint32_t bytes);
    /**
     * Signature of the PfcSent trace.
     * \param port the ingress port whose peer is paused or resumed
     * \param priority the priority
     * \param quanta pause time in 512-bit-time quanta (0 = XON)
     */
    typedef void (*PfcTracedCallback)(uint32_t port, uint8_t priority, uint16_t quanta);

  protected:
    void DoDispose() override;

  private:
    void ReceiveFromPort(Ptr<RoceNetDevice> device, Ptr<Packet> packet, const RoceFrameInfo& info);
    void OnDequeue(Ptr<RoceNetDevice> device, RoceQueueItem& item);
    /// Queue a data frame on an egress port (with its fields, if parsed) and record the
    /// queue length.
    void EnqueueOn(uint32_t port,
                   uint8_t priority,
                   Ptr<Packet> packet,
                   uint32_t inPort,
                   bool intStamp = false,
                   const RoceFrameInfo* info = nullptr);
    /// Stamp a leaving frame's telemetry with this hop's record.
    void StampTelemetry(const Ptr<RoceNetDevice>& device, const RoceQueueItem& item);
    /// Release ingress buffer and send XON if that ends a pause.
    void ReleaseIngress(uint32_t inPort, uint8_t priority, uint32_t bytes);
    void SendPause(uint32_t port, uint8_t priority);
    void RefreshPause(uint32_t port, uint8_t priority);
    uint64_t DrawSalt();

    Ptr<SharedBufferMmu> m_mmu;
    uint64_t m_salt;
    bool m_saltAutomatic{false};
    uint16_t m_pauseQuanta;
    double m_refreshFraction;
    bool m_watchdogEnabled{false};             //!< PfcWatchdog attribute
    std::vector<Ptr<PfcWatchdog>> m_watchdogs; //!< one per port, if enabled
    Ptr<UniformRandomVariable> m_saltRng;

    std::vector<Ptr<RoceNetDevice>> m_ports;
    std::vector<std::array<EventId, RoceNetDevice::N_PRIORITIES>> m_refreshEvents;
    EcmpRoutingTable m_routes;
    uint16_t m_localUdpPort{0};            //!< UDP port of SetLocalDelivery
    LocalDeliveryCallback m_localDelivery; //!< the local engine, if any

    std::array<uint64_t, DROP_REASONS> m_drops{};
    uint64_t m_ecnMarks{0};
    std::vector<uint64_t> m_ecnMarksPerPort; //!< by egress port
    uint64_t m_pausesSent{0};
    uint32_t m_maxQueueBytes{0};
    uint64_t m_intStamps{0}; //!< hop records written

    TracedCallback<Ptr<const Packet>, uint32_t> m_dropTrace;
    TracedCallback<Ptr<const Packet>> m_ecnMarkTrace;
    TracedCallback<uint32_t, uint8_t, uint32_t> m_queueTrace;
    TracedCallback<uint32_t, uint8_t, uint16_t> m_pfcSentTrace;
};

} // namespace ns3

#endif
