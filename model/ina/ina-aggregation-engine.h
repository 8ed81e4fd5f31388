// SPDX-License-Identifier: GPL-2.0-only
#ifndef INA_AGGREGATION_ENGINE_H
#define INA_AGGREGATION_ENGINE_H

#include "ina-frame.h"
#include "ina-header.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/roce-switch.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * One aggregation job's place in one switch of its tree, as the controller (InaHelper)
 * sets it up: who the switch's children are, where its parent is, and how many slots the
 * job's pool has.
 */
struct InaJobConfig
{
    /// parentPort of the tree's root.
    static constexpr uint32_t NO_PARENT = UINT32_MAX;

    uint16_t job{0};                             //!< job id (the INA header's job field)
    std::vector<uint32_t> childPorts;            //!< port toward each child; child i is bit i
    std::vector<Ipv4Address> childAddresses;     //!< destination of RESULTs to each child
    uint32_t parentPort{NO_PARENT};              //!< port toward the parent switch, if any
    uint16_t indexAtParent{0};                   //!< this switch's child index at its parent
    uint32_t poolSlots{0};                       //!< slots of the job's pool (each has 2 copies)
    uint8_t priority{3};                         //!< traffic class of the packets it sends
    InaProtocol protocol{InaProtocol::SWITCHML}; //!< how the job aggregates
    /// Streaming: the workers' addresses by rank; fragment q's fallback host is worker
    /// q mod workers.size().
    std::vector<Ipv4Address> workers;
    /// By worker rank: the child whose subtree holds the worker, or -1 if it is not below
    /// this switch. A DIRECTED result's values go toward its destination only.
    std::vector<int32_t> rankChild;
};

class InaAggregationProtocol;
class InaStreamingProtocol;
class InaSwitchMlProtocol;

/**
 * \ingroup ai-fabric
 * One job's record on one switch, as the engine's job table indexes it: what every
 * protocol needs per packet. The job's protocol (InaAggregationProtocol) owns the record
 * and may extend it with its own per-job state (a SwitchML job's slot pool).
 */
struct InaAggregationJob
{
    InaJobConfig config;                       //!< as AddJob got it
    std::vector<int32_t> portChild;            //!< child index by port, -1 for none
    uint64_t fullMask{0};                      //!< every child's bit
    InaAggregationProtocol* protocol{nullptr}; //!< the strategy that runs the job
};

/**
 * \ingroup ai-fabric
 * A sum as the engine sends it on, up to the parent (DATA) or down to the children
 * (RESULT): what InaAggregationEngine copies into the packets' headers.
 */
struct InaSum
{
    uint32_t sequence{0}; //!< the fragment
    uint64_t bitmap{0};   //!< contributors (children, or worker ranks for streaming)
    uint16_t count{0};    //!< workers summed
    uint16_t length{0};   //!< value bytes
    bool ecn{false};      //!< some contribution arrived marked CE
    bool values{false};   //!< the sum has values: some contribution carried them, or the
                          //!< parent's result did
};

/**
 * \ingroup ai-fabric
 * \brief An in-network aggregation engine on a RoceSwitch.
 *
 * The engine takes INA packets (UDP port ina::UDP_PORT) off its switch's forwarding path
 * (RoceSwitch::SetLocalDelivery): they are admitted by the switch's MMU like any frame, so
 * they hold ingress buffer, count towards PFC and were queued, paused and ECN-marked on
 * their way here like any frame. The engine reduces them at AggregationRate (0: as fast
 * as they arrive, as line-rate switch pipelines do), then releases their buffer.
 *
 * The aggregation itself is a strategy per job, chosen by the job's protocol
 * (InaJobConfig::protocol): InaSwitchMlProtocol (InaProtocol::SWITCHML, slot pools) and
 * InaStreamingProtocol (InaProtocol::STREAMING, shared aggregators and a fallback host),
 * both InaAggregationProtocol. The engine keeps what they share: the switch, the job
 * table (children, parent, ports), the reduction unit, the packets it sends up and down,
 * the counters, the SlotComplete trace and the attributes.
 *
 * Memory: Slots aggregators of SlotBytes each for SwitchML pools and StreamingAggregators
 * of StreamingBytes each for streaming jobs, which together must fit in MemoryBytes; at
 * most MaxJobs jobs at a time. AddJob refuses a job that does not fit, and the caller
 * falls back to host-based algorithms.
 *
 * Values: a NO_VALUES contribution (zeros: a multicast's non-source) adds none; a sum
 * has values when some contribution had. A DIRECTED result's values go only toward its
 * destination (and, streaming, toward the fragment's fallback host: InaNeedsValues),
 * NO_VALUES results (acknowledgements) to the other children (InaJobConfig::rankChild).
 * A contribution that arrived marked CE sets ECN_ECHO in the result. INA packets
 * addressed to a host (fallback traffic) are forwarded like any frame.
 */
class InaAggregationEngine : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    InaAggregationEngine();
    ~InaAggregationEngine() override;

    /**
     * Check the memory attributes: SlotBytes a multiple of ElementBytes, Slots × SlotBytes
     * within MemoryBytes.
     * \param error set to a one-line reason when they are not
     * \return true if they are consistent
     */
    bool CheckConfiguration(std::string* error) const;

    /**
     * Put the engine on a switch (after RoceSwitch::Setup): it takes the INA packets
     * arriving there. Aborts, with CheckConfiguration's reason, on inconsistent
     * attributes.
     * \param sw the switch
     */
    void Install(Ptr<RoceSwitch> sw);

    /**
     * Give a job its place on this switch and what its protocol needs (a SwitchML job: a
     * pool of 2 × config.poolSlots slots).
     * \param config the job's children, parent, protocol and pool size
     * \param why set to the reason when the job does not fit (no slots, too many jobs,
     *        more than 64 children, a job id in use)
     * \return true if the job was added
     */
    bool AddJob(const InaJobConfig& config, std::string* why);

    /**
     * Take a job off this switch (a SwitchML job's slots are free again).
     * \param job the job id
     */
    void RemoveJob(uint16_t job);

    /**
     * \param job a job id
     * \return whether the job has a place on this switch
     */
    bool HasJob(uint16_t job) const;
    /// \return slots not given to any job
    uint32_t GetFreeSlots() const;
    /// \return jobs with a place on this switch
    uint32_t GetNJobs() const;
    /// \return payload bytes one slot (one packet) aggregates
    uint32_t GetSlotBytes() const;
    /// \return payload bytes one streaming aggregator (one packet) aggregates
    uint32_t GetStreamingBytes() const;
    /// \return aggregators shared by the streaming jobs (StreamingAggregators)
    uint32_t GetStreamingAggregators() const;
    /// \return the switch the engine is on (null before Install)
    Ptr<RoceSwitch> GetSwitch() const;
    /// \return the IPv4 source address of the packets the engine sends
    Ipv4Address GetAddress() const;

    /// \return DATA packets whose contribution was added to a slot
    uint64_t GetContributions() const;
    /// \return duplicate DATA packets (their sender's bit was set already)
    uint64_t GetDuplicates() const;
    /// \return RESULT packets sent
    uint64_t GetResultsSent() const;
    /// \return aggregates sent to the parent (DATA), retransmissions included
    uint64_t GetAggregatesSent() const;
    /// \return packets dropped: unknown job, slot out of the pool, a sequence older than
    ///         the slot's
    uint64_t GetDiscarded() const;
    /// \return streaming contributions sent to the fallback host because their aggregator
    ///         held another fragment
    uint64_t GetCollisions() const;
    /// \return streaming partial sums taken off an aggregator by a retransmission and sent
    ///         to the fallback host
    uint64_t GetFlushes() const;
    /// \return INA packets addressed to a host, forwarded without aggregation
    uint64_t GetForwarded() const;

    /**
     * Signature of the SlotComplete trace.
     * \param job the job
     * \param sequence the fragment whose aggregate is complete at this switch
     * \param count workers summed into it
     */
    typedef void (*SlotTracedCallback)(uint16_t job, uint32_t sequence, uint16_t count);

  protected:
    void DoDispose() override;

  private:
    /// The protocols reach the engine through InaAggregationProtocol's protected helpers.
    friend class InaAggregationProtocol;

    /// \return the strategy of the jobs of a protocol
    InaAggregationProtocol* ProtocolFor(InaProtocol protocol) const;
    /// Send a DATA packet to the job's parent switch, as this switch's child.
    void SendUp(const InaAggregationJob& job, InaHeader h);
    /// Send a RESULT on port to dst, toward child (-1: the parent), with its values only
    /// if they go that way (ValuesToward).
    void SendResultOn(const InaAggregationJob& job,
                      uint32_t port,
                      Ipv4Address dst,
                      int32_t child,
                      InaHeader h);
    /// Send a packet of the job on port to dst.
    void Send(const InaAggregationJob& job, uint32_t port, Ipv4Address dst, const InaHeader& h);
    /// \return the port toward host dst for flow by the switch's routes; UINT32_MAX
    ///         (the frame counted as discarded) if there is none
    uint32_t RouteTo(Ipv4Address dst, uint64_t flow);
    /// Forward an INA frame addressed to a host by the switch's routes.
    void Forward(uint32_t inPort, uint8_t priority, Ptr<Packet> frame, const RoceFrameInfo& info);
    /// RoceSwitch's local delivery: queue the frame for the engine.
    void Receive(uint32_t inPort, uint8_t priority, Ptr<Packet> frame, const RoceFrameInfo& info);
    /// Start reducing the front waiting frame, if any (AggregationRate > 0).
    void StartNext();
    /// The unit has reduced the front frame: start the next, process this one.
    void FinishReduction();
    /// Reduce one frame (its job's protocol does) and release its buffer.
    void Process(uint32_t inPort, uint8_t priority, Ptr<Packet> frame, bool ce);
    /// \return the header of a packet a sum sends: type, the request's job, slot and
    /// copy, the sum's sequence, count, bitmap, length and flags
    static InaHeader ReplyHeader(InaHeader::Type type,
                                 const InaHeader& request,
                                 const InaSum& sum,
                                 bool retransmission);
    /// A complete sum: the root sends the RESULT to every child, another switch the
    /// aggregate to its parent.
    void SendSum(const InaAggregationJob& job, const InaHeader& request, const InaSum& sum);
    /// Send the sum's RESULT to one child.
    void SendResult(const InaAggregationJob& job,
                    uint32_t child,
                    const InaHeader& request,
                    const InaSum& sum,
                    bool retransmission);
    /// Send the sum's aggregate up to the parent.
    void SendAggregate(const InaAggregationJob& job,
                       const InaHeader& request,
                       const InaSum& sum,
                       bool retransmission);
    /**
     * \param job the job
     * \param child a child index, or -1 for the parent
     * \param h a packet of the job
     * \return whether the values of h's sum go toward child: always, unless h is
     *         DIRECTED and neither its destination nor (streaming) its fragment's
     *         fallback host is that way (InaNeedsValues)
     */
    static bool ValuesToward(const InaAggregationJob& job, int32_t child, const InaHeader& h);
    /// Frame addresses for a packet leaving on port to dst.
    InaFrameAddress AddressOn(uint32_t port, Ipv4Address dst, uint8_t priority) const;

    // attributes
    uint32_t m_slots;                //!< aggregator slots
    uint32_t m_slotBytes;            //!< bytes per slot
    uint32_t m_elementBytes;         //!< bytes per value
    uint64_t m_memoryBytes;          //!< aggregator memory
    uint32_t m_maxJobs;              //!< concurrent jobs
    DataRate m_aggregationRate;      //!< reduction throughput (0: unlimited)
    uint32_t m_streamingAggregators; //!< streaming aggregators
    uint32_t m_streamingBytes;       //!< bytes per streaming aggregator

    Ptr<RoceSwitch> m_switch;                      //!< where the engine is
    Ipv4Address m_address;                         //!< source of its packets
    std::map<uint16_t, InaAggregationJob*> m_jobs; //!< by job id (records of the protocols)
    Ptr<InaSwitchMlProtocol> m_switchMl;           //!< InaProtocol::SWITCHML's strategy
    Ptr<InaStreamingProtocol> m_streaming;         //!< InaProtocol::STREAMING's strategy

    /// A frame waiting for the reduction unit.
    struct Waiting
    {
        uint32_t inPort;   //!< its ingress port
        uint8_t priority;  //!< its priority
        Ptr<Packet> frame; //!< the frame
        bool ce;           //!< it arrived marked CE
    };

    std::deque<Waiting> m_waiting; //!< frames in arrival order, the one in the unit first
    EventId m_unitEvent;           //!< the unit finishes the front frame

    uint64_t m_contributions{0};  //!< see GetContributions
    uint64_t m_duplicates{0};     //!< see GetDuplicates
    uint64_t m_resultsSent{0};    //!< see GetResultsSent
    uint64_t m_aggregatesSent{0}; //!< see GetAggregatesSent
    uint64_t m_discarded{0};      //!< see GetDiscarded
    uint64_t m_collisions{0};     //!< see GetCollisions
    uint64_t m_flushes{0};        //!< see GetFlushes
    uint64_t m_forwarded{0};      //!< see GetForwarded

    TracedCallback<uint16_t, uint32_t, uint16_t> m_slotCompleteTrace; //!< SlotComplete
};

} // namespace ns3

#endif /* INA_AGGREGATION_ENGINE_H */
