// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_TRANSPORT_H
#define FLOW_TRANSPORT_H

#include "flow-network.h"
#include "rdma-transport.h"

#include "ns3/roce-frame-info.h"

#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RoceNetDevice;

/**
 * \ingroup ai-fabric
 * The RDMA carrier at flow level: every transfer that RdmaTransport would post as WRITEs
 * on queue pairs becomes a flow of a FlowNetwork over the same RoCE fabric, with no
 * packet sent. The coarse, fast mode of the scale-out fabric (ai-fabric-sim
 * `--fabric=flow`); RdmaTransport, the packet model, stays the reference.
 *
 * - Connections and queue pairs as RdmaTransport's: one connection per (source,
 *   destination, channel), QpsPerConnection queue pairs each, a transfer spread over them
 *   by SplitDataOnQps / RequestBytes. Each queue pair is a flow whose messages are sent
 *   first in, first out, as the queue pair sends its WRITEs.
 * - Routes: a queue pair's UDP source port is drawn from its NIC's random stream as an
 *   RdmaNic draws it (RdmaNic::DrawQpIdentity, at both ends), and its path is the one
 *   its frames would take: from the NIC's port, at every switch the egress port that
 *   switch's ECMP table and salt choose for the queue pair's 5-tuple, to the receiving
 *   NIC.
 * - Rates: every link (a port's egress) and, where a NIC has a ReceiveRate, the host
 *   behind it, shared max-min fairly by the flows on it, in bytes on the wire (each
 *   message's frames with their headers, ICRC, FCS, preamble and gap). A queue pair's
 *   ACKs take their share of the links of the reverse path (the receiving queue pair's
 *   UDP port routes them): one ACK frame per the receiver's AckInterval data frames.
 * - Time: a message's last byte leaves at the rate its flow holds; it has arrived one
 *   path latency later: the cables' delays plus, at every switch, one frame stored before
 *   it is forwarded.
 *
 * What it leaves out: queues and their delay, PFC (pauses, head-of-line blocking,
 * deadlocks), ECN marks and every congestion control's dynamics (each flow is at its
 * max-min share at once), CNPs, ACKs sent sooner than every AckInterval frames (the
 * receiver's AckCoalescingTime at low rates), losses and retransmission, link events.
 * The cost model of "auto" sees the same fabric as with packets (DescribePath is
 * RdmaTransport's).
 */
class FlowTransport : public RdmaTransport
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    /// What the flow level approximates, in one line, for every report that uses it.
    static constexpr const char* APPROXIMATION =
        "max-min fair rates on the packet model's routes (ACKs on the reverse paths); no "
        "queues, PFC, ECN or congestion-control dynamics, losses or link events";
    FlowTransport();
    ~FlowTransport() override;

    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t channel,
              DoneCallback done) override;

    /// \return the flow network the transfers run on (its links made on first use)
    Ptr<FlowNetwork> GetNetwork() const;
    /// \return connections opened so far
    uint32_t GetNFlowConnections() const;
    /**
     * \param src sending rank \param dst receiving rank \param channel the channel
     * \return the UDP source ports of that connection's queue pairs (their flows), as the
     *         packet model's queue pairs of the same connection would have them (empty if
     *         not opened yet)
     */
    std::vector<uint16_t> GetSourcePorts(uint32_t src, uint32_t dst, uint32_t channel) const;
    /// \return payload bytes delivered to receivers so far (finished transfers' parts)
    uint64_t GetBytesDelivered() const;
    /**
     * The links a queue pair's frames from rank src to rank dst would cross, for a UDP
     * source and destination port.
     * \param src sending rank
     * \param dst receiving rank
     * \param srcPort UDP source port
     * \param dstPort UDP destination port (RoCEv2's; the telemetry port's for a congestion
     *        control that reads in-band telemetry: DestinationPort)
     * \return the ports whose egress the frames take, in path order (the sender's NIC's
     *         first)
     */
    std::vector<Ptr<RoceNetDevice>> Route(uint32_t src,
                                          uint32_t dst,
                                          uint16_t srcPort,
                                          uint16_t dstPort = roce::UDP_DEST_PORT) const;
    /**
     * \param rank a sending rank
     * \return the UDP destination port of its queue pairs' frames: the telemetry port when
     *         its NIC's congestion control reads in-band telemetry (HPCC), else RoCEv2's
     */
    uint16_t DestinationPort(uint32_t rank) const;
    /**
     * \param payloadBytes a message's payload bytes
     * \param mtu payload bytes per frame
     * \return the bytes its frames take on the wire
     */
    static double WireBytesOf(uint64_t payloadBytes, uint32_t mtu);

  protected:
    void DoDispose() override;

  private:
    /// A transfer under way: its parts still to arrive.
    struct Transfer
    {
        uint32_t parts{0};
        DoneCallback done;
    };

    /// One queue pair of a connection: a flow.
    struct Lane
    {
        uint32_t flow{0};       //!< its FlowNetwork flow
        uint16_t srcPort{0};    //!< its UDP source port
        Time delay;             //!< cables' delays of its path
        double storeSeconds{0}; //!< seconds per wire byte summed over the links after the
                                //!< first (store and forward of a frame at each switch)
    };

    struct Connection
    {
        std::vector<Lane> lanes; //!< QpsPerConnection
        uint64_t nextRequest{0}; //!< NCCL's request number, without SplitDataOnQps
        uint32_t mtu{0};         //!< the sender's payload bytes per frame
    };

    Connection& GetConnection(uint32_t src, uint32_t dst, uint32_t channel);
    /// \param device a port \return the flow network's link of its egress (made once)
    uint32_t LinkOf(Ptr<RoceNetDevice> device);
    /// \param rank a receiving rank \return its host's link behind the NIC, if it has a
    ///        ReceiveRate (made once), or UINT32_MAX
    uint32_t HostLinkOf(uint32_t rank);
    /// A part has been sent: it arrives after its lane's latency.
    void PartSent(std::shared_ptr<Transfer> transfer, Time latency, uint64_t bytes);
    /// A part has arrived.
    void PartArrived(std::shared_ptr<Transfer> transfer, uint64_t bytes);

    Ptr<FlowNetwork> m_network;
    std::unordered_map<const RoceNetDevice*, uint32_t> m_linkOf; //!< by egress port
    std::map<uint32_t, uint32_t> m_hostLinkOf;                   //!< by receiving rank
    /// \param src a rank \param dst a rank \param channel a channel \return their key
    static uint64_t ConnectionKey(uint32_t src, uint32_t dst, uint32_t channel);
    std::unordered_map<uint64_t, std::unique_ptr<Connection>> m_connections; //!< by key
    /// Whether a congestion control reads in-band telemetry, by its TypeId's uid
    /// (DestinationPort asks each NIC's; one object made per type, not per connection).
    mutable std::map<uint16_t, bool> m_telemetryOf;
    uint64_t m_bytesDelivered{0};
    bool m_roundRobinEnds{true}; //!< RoundRobinEnds attribute
};

} // namespace ns3

#endif
