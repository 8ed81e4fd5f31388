// SPDX-License-Identifier: GPL-2.0-only
#ifndef IDEAL_TRANSPORT_H
#define IDEAL_TRANSPORT_H

#include "collective-transport.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A carrier with no packets: every rank has one port of fixed rate, and a message costs a
 * fixed latency plus its serialization time. Used by unit tests (closed forms) and for
 * quick analytical what-ifs.
 *
 * Timing model, chosen so that the textbook alpha-beta formulas (Thakur et al., IJHPCA 2005) come
 * out exactly:
 * - Each rank's egress port serves its messages one at a time, first come first served
 *   (in the order Send was called; all channels share the port).
 * - A message occupies the egress port for Latency + bytes / DataRate, and is delivered at
 *   the end of that occupancy. The per-message alpha is therefore paid serially at the
 *   sender, like a per-message software/NIC overhead: k back-to-back messages of b bytes
 *   from one rank take k (alpha + b/B), which is what "steps x (alpha + bytes/B)" closed
 *   forms assume. A zero-byte message takes exactly Latency.
 * - By default the receiver is infinitely fast (full-bisection fabric, no incast cost).
 *   With ModelReceivePort the receiver's ingress port also carries bytes / DataRate of
 *   work per message, FIFO in the order messages finish at their senders: a message is
 *   delivered at max(end of sender occupancy, ingress free + bytes / DataRate). When
 *   messages to one rank never overlap (ring, halving-doubling, pairwise all-to-all) this
 *   changes nothing; under incast, k simultaneous messages of b bytes to one rank finish
 *   b/B apart, as a port of rate B must. This is a first-order incast model, not a
 *   substitute for the packet fabric (no PFC, no sharing, no congestion control).
 *
 * Order: messages from one rank are delivered in the order they were sent (hence also per
 * (src, dst, channel), as CollectiveTransport requires).
 *
 * Cost: one event per message (two when ModelReceivePort delays a delivery), no per-byte
 * or per-packet work: the port clocks are plain numbers.
 */
class IdealTransport : public CollectiveTransport
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    IdealTransport();
    ~IdealTransport() override;

    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t channel,
              DoneCallback done) override;
    uint32_t GetNRanks() const override;
    /**
     * One port per rank and direction at DataRate; Latency held at the sender's port.
     * \param src sending rank
     * \param dst receiving rank
     * \return the path's figures
     */
    CarrierPath DescribePath(uint32_t src, uint32_t dst) const override;
    /**
     * \param src sending rank
     * \param dst receiving rank
     * \return the Hardware attribute
     */
    LinkHardware GetLinkHardware(uint32_t src, uint32_t dst) const override;

    /**
     * Set the number of ranks (also the NRanks attribute). Resizes the port clocks; do
     * not shrink while messages are in flight.
     * \param nRanks number of ranks, at least 1
     */
    void SetNRanks(uint32_t nRanks);

    /**
     * \param bytes message payload
     * \return time one message of bytes occupies an idle egress port (Latency + bytes/rate)
     */
    Time GetMessageTime(uint64_t bytes) const;

    /// \return messages sent so far
    uint64_t GetMessagesSent() const;
    /// \return messages delivered so far
    uint64_t GetMessagesDelivered() const;
    /// \return payload bytes delivered so far
    uint64_t GetBytesDelivered() const;
    /// \return messages sent but not yet delivered
    uint64_t GetMessagesInFlight() const;

    /**
     * Signature of the MessageSent and MessageDelivered trace sources.
     * \param src sending rank
     * \param dst receiving rank
     * \param bytes payload bytes
     * \param channel channel given to Send
     */
    typedef void (*MessageTracedCallback)(uint32_t src,
                                          uint32_t dst,
                                          uint64_t bytes,
                                          uint32_t channel);

  protected:
    void DoDispose() override;

  private:
    /// What travels with a message's events.
    struct Message
    {
        uint32_t src;
        uint32_t dst;
        uint64_t bytes;
        uint32_t channel;
        DoneCallback done;
    };

    /// \return bytes / DataRate
    Time SerializationTime(uint64_t bytes) const;
    /// The message has left its sender's port: deliver, or queue at the receiver's port.
    void LeaveSender(Message msg);
    /// The last byte is at the receiver: count, trace and call back.
    void Deliver(Message msg);

    uint32_t m_nRanks;                          //!< ranks served
    DataRate m_rate;                            //!< per-rank port rate, each direction
    Time m_latency;                             //!< per-message cost, paid at the sender's port
    bool m_modelReceivePort;                    //!< serialize at the receiver's ingress too
    LinkHardware m_hardware{LinkHardware::NET}; //!< Hardware attribute
    std::vector<Time> m_egressFree;             //!< per rank: when its egress port becomes idle
    std::vector<Time> m_ingressFree;            //!< per rank: when its ingress port becomes idle
    uint64_t m_sent{0};                         //!< messages sent
    uint64_t m_delivered{0};                    //!< messages delivered
    uint64_t m_bytesDelivered{0};               //!< payload bytes delivered
    bool m_disposed{false};                     //!< late events after DoDispose are dropped

    TracedCallback<uint32_t, uint32_t, uint64_t, uint32_t> m_sentTrace;      //!< Send called
    TracedCallback<uint32_t, uint32_t, uint64_t, uint32_t> m_deliveredTrace; //!< delivered
};

} // namespace ns3

#endif // IDEAL_TRANSPORT_H
