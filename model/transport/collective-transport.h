// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_TRANSPORT_H
#define COLLECTIVE_TRANSPORT_H

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/roce-dcqcn.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A set of equal-cost links inside the fabric that a transfer crosses, one of which its
 * flow takes by ECMP (a leaf's uplinks towards a remote leaf, the spines' downlinks into
 * it): what the cost model shares between the concurrent transfers of a plan
 * (oversubscription, and ECMP collisions as the expected most loaded link).
 */
struct CarrierBundle
{
    uint64_t id{0};           //!< carrier-wide id, distinct from every port id
    uint32_t links{1};        //!< equal-cost links in the set
    double bytesPerSecond{0}; //!< payload rate of one link
};

/**
 * \ingroup ai-fabric
 * The queue a transfer's bytes wait in before the receiver's port (the last switch's
 * egress), and the sender's DCQCN: what the cost model needs to see DCQCN's rate cuts
 * under a plan's incasts (CollectivePlanCost). Empty (no dcqcn) on carriers without ECN
 * and DCQCN; the estimate then charges no cuts.
 */
struct CarrierQueue
{
    uint64_t buffer{0};      //!< carrier-wide id of the shared buffer the queue is in
    double kminBytes{0};     //!< ECN: RED Kmin of the queue's port
    double kmaxBytes{0};     //!< ECN: RED Kmax
    double pmax{0};          //!< ECN: marking probability at Kmax (0: no marking)
    double pfcAlpha{0};      //!< PFC: dynamic threshold factor (0: no PFC for the data)
    double sharedBytes{0};   //!< PFC: the buffer's shared pool
    double cnpInterval{0};   //!< the receiver's least time between two CNPs of a flow, s
    uint32_t packetBytes{0}; //!< payload bytes per packet (marks are per packet)
    double lineBps{0};       //!< the sender's line rate, bit/s (DCQCN's rates are of it)
    std::optional<RoceDcqcn::Figures> dcqcn; //!< the sender's DCQCN (empty: none, or another)
};

/**
 * \ingroup ai-fabric
 * What a carrier charges one point-to-point transfer, in the terms of the cost model that
 * lets "auto" pick the fastest plan (CollectivePlanCost). A transfer of b bytes that
 * starts at t leaves through txPort during b / rate, its first byte reaches the receiver
 * latency + forwardHops * min(b, forwardUnit) / rate after t (propagation plus one
 * store-and-forward unit per intermediate stage), and it arrives through rxPort during
 * b / rate. Transfers on one port take turns. Ports are carrier-wide ids.
 */
struct CarrierPath
{
    uint64_t txPort{0};             //!< resource the sender's bytes leave through
    uint64_t rxPort{1};             //!< resource they arrive through
    double bytesPerSecond{0};       //!< payload rate of one transfer alone (0: unknown)
    Time latency;                   //!< fixed time from start to first byte at the receiver
    uint64_t forwardUnit{0};        //!< bytes each intermediate stage stores before forwarding
    uint32_t forwardHops{0};        //!< intermediate store-and-forward stages
    bool latencyHoldsSender{false}; //!< the sender's port is busy for latency too (a
                                    //!< per-message cost paid serially, IdealTransport)
    bool modelReceiver{true};       //!< the receiver's port is a shared resource
    bool servesInSendOrder{false};  //!< the sender's port serves transfers in the order
                                    //!< they were handed to it (IdealTransport); otherwise
                                    //!< in plan order, as ranks issue them
    /// The shared link sets between the sender's and the receiver's switch, in path order
    /// (empty: the ports are the only shared resources)
    std::vector<CarrierBundle> fabric;
    uint32_t lanes{1};            //!< flows a transfer's bytes are spread over (queue pairs,
                                  //!< each hashed by ECMP on its own)
    uint64_t laneRequestBytes{0}; //!< requests of this size take the lanes in turn (a
                                  //!< transfer of b bytes uses ceil(b / it) of them at most);
                                  //!< 0: every transfer is split over all lanes
    CarrierQueue queue;           //!< the receiving queue and the sender's DCQCN (if described)
};

/**
 * \ingroup ai-fabric
 * The kind of hardware a transfer between two ranks crosses, as NCCL's tuning model
 * tells them apart (its NCCL_HW_NVLINK, NCCL_HW_PCI and NCCL_HW_NET): the collective
 * layer charges each protocol's per-step latency by it.
 */
enum class LinkHardware : uint8_t
{
    NVLINK, //!< GPU to GPU over NVLink (through an NVSwitch or direct)
    PCI,    //!< GPU to GPU inside a server over PCIe
    NET,    //!< across servers through NICs and the scale-out network
};

/**
 * \param hardware a hardware kind
 * \return "nvlink", "pci" or "net"
 */
std::string LinkHardwareToString(LinkHardware hardware);

/**
 * \ingroup ai-fabric
 * What a carrier charges an in-switch reduction or multicast (NVLS), for the cost model:
 * every member's port carries the bytes at bytesPerSecond, the switch needs latency plus
 * one forwardUnit to turn contributions into results.
 */
struct CarrierSwitchPath
{
    std::vector<uint64_t> txPorts; //!< each member's port towards the switch
    std::vector<uint64_t> rxPorts; //!< each member's port from the switch
    double bytesPerSecond{0};      //!< payload rate per port for switch traffic
    Time latency;                  //!< up and down propagation
    uint64_t forwardUnit{0};       //!< bytes the switch holds before forwarding
    /// Reduced (output) bytes per second of the switch's reduction engine, which every
    /// reduction on the switch shares, one at a time (0: the ports are the only limit)
    double engineBytesPerSecond{0};
    uint64_t engine{0}; //!< the engine's id, distinct from every port id
};

/**
 * \ingroup ai-fabric
 * What an isolated carrier did during one collective call, for CollectiveEngine's call
 * replay: StartRecord makes it when the call starts, EndRecord completes it when the
 * call ends, Replay does the same work again later without simulating it. Each carrier
 * keeps in a subclass what it needs (its counters); the times are common.
 */
class CarrierRecord : public SimpleRefCount<CarrierRecord>
{
  public:
    virtual ~CarrierRecord() = default;
    Time start;    //!< when the call started (StartRecord)
    Time duration; //!< how long it took (EndRecord)
};

/**
 * \ingroup ai-fabric
 * What the collective engine asks of a carrier: move bytes between two ranks.
 *
 * Carriers: an ideal one (fixed rate and latency, no packets), RDMA queue pairs over the
 * RoCE fabric, NVLink through an NVSwitch. The engine knows nothing of packets; the
 * carrier knows nothing of collectives.
 *
 * Carriers with a switch that computes (NVSwitch SHARP, "NVLS") also reduce and multicast
 * in the switch; the others say so through CanReduceInSwitch and abort if asked anyway.
 */
class CollectiveTransport : public Object
{
  public:
    /// Called once the last byte of a transfer has arrived at its destination.
    typedef Callback<void> DoneCallback;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * Move bytes from rank src to rank dst. Transfers between the same pair on the same
     * channel are delivered in the order they were sent; a zero-byte transfer completes
     * as soon as the carrier can say so (after its latency).
     * \param src sending rank
     * \param dst receiving rank
     * \param bytes payload bytes
     * \param channel NCCL-style channel; carriers may map channels to separate connections
     * \param done called when the last byte arrived at dst
     */
    virtual void Send(uint32_t src,
                      uint32_t dst,
                      uint64_t bytes,
                      uint32_t channel,
                      DoneCallback done) = 0;

    /// \return the number of ranks this carrier connects (ranks 0..GetNRanks()-1)
    virtual uint32_t GetNRanks() const = 0;

    /**
     * \param members ranks of a would-be multicast group
     * \return true if SwitchReduce and SwitchMulticast work over exactly these ranks (they
     * share a switch that reduces). The default: false.
     */
    virtual bool CanReduceInSwitch(const std::vector<uint32_t>& members) const;

    /**
     * In-switch reduction (multimem.ld_reduce): every member sends its copy of bytes up,
     * the switch adds them and delivers the sum to dst. The default aborts, naming the
     * carrier: it has no such switch.
     * \param members contributing ranks (dst usually among them)
     * \param dst rank that receives the sum and issues the operation
     * \param bytes size of one copy
     * \param channel NCCL-style channel
     * \param done called when the whole sum has arrived at dst
     */
    virtual void SwitchReduce(const std::vector<uint32_t>& members,
                              uint32_t dst,
                              uint64_t bytes,
                              uint32_t channel,
                              DoneCallback done);

    /**
     * In-switch multicast (multimem.st): src sends bytes up once and the switch writes
     * them to every member. The default aborts, as SwitchReduce.
     * \param src sending rank
     * \param members receiving ranks (src may be among them: its copy comes back)
     * \param bytes payload
     * \param channel NCCL-style channel
     * \param done called when every member has the last byte
     */
    virtual void SwitchMulticast(uint32_t src,
                                 const std::vector<uint32_t>& members,
                                 uint64_t bytes,
                                 uint32_t channel,
                                 DoneCallback done);

    /**
     * \param members ranks of a would-be aggregation group
     * \return true if SwitchAllReduce works over exactly these ranks (switches of the
     * fabric aggregate them in the network). The default: false.
     */
    virtual bool CanAllReduceInNetwork(const std::vector<uint32_t>& members) const;

    /**
     * In-network all-reduce: every member sends its copy of bytes up a tree of
     * aggregating switches, which sum them and send the sum back to every member. The
     * default aborts, naming the carrier: its fabric does not aggregate.
     * \param members contributing (and receiving) ranks
     * \param bytes size of one copy
     * \param channel NCCL-style channel (carriers may aggregate channels separately)
     * \param done called when every member has the whole sum
     */
    virtual void SwitchAllReduce(const std::vector<uint32_t>& members,
                                 uint64_t bytes,
                                 uint32_t channel,
                                 DoneCallback done);

    /**
     * \param members ranks of a would-be aggregation group
     * \return true if NetworkReduce and NetworkMulticast work over exactly these ranks
     * (switches of the fabric reduce toward one member, or multicast from one member).
     * The default: false.
     */
    virtual bool CanReduceInNetwork(const std::vector<uint32_t>& members) const;

    /**
     * In-network reduce: every member sends its copy of bytes up a tree of aggregating
     * switches, which sum them and send the sum to dst only (the others get
     * acknowledgements). The default aborts, as SwitchAllReduce.
     * \param members contributing ranks (dst among them)
     * \param dst rank that receives the sum
     * \param bytes size of one copy
     * \param channel NCCL-style channel
     * \param done called when dst has the whole sum and every member its acknowledgements
     */
    virtual void NetworkReduce(const std::vector<uint32_t>& members,
                               uint32_t dst,
                               uint64_t bytes,
                               uint32_t channel,
                               DoneCallback done);

    /**
     * In-network multicast: src sends bytes up the aggregation tree of members once and
     * the switches replicate them down to every member. The default aborts, as
     * SwitchAllReduce.
     * \param src sending rank (among members)
     * \param members receiving ranks
     * \param bytes payload
     * \param channel NCCL-style channel
     * \param done called when every member has the last byte
     */
    virtual void NetworkMulticast(uint32_t src,
                                  const std::vector<uint32_t>& members,
                                  uint64_t bytes,
                                  uint32_t channel,
                                  DoneCallback done);

    /**
     * The carrier's own figures for a transfer from src to dst, for the cost model of
     * "auto" (see CarrierPath). The default describes a carrier that gives none: one
     * port per rank and direction, 100 Gb/s, 1 us; auto then ranks algorithms by steps
     * and bytes per port only.
     * \param src sending rank
     * \param dst receiving rank
     * \return the path's figures
     */
    virtual CarrierPath DescribePath(uint32_t src, uint32_t dst) const;
    /**
     * The hardware a transfer from src to dst crosses (what a protocol's per-step latency
     * depends on). The default: the network.
     * \param src sending rank
     * \param dst receiving rank
     * \return the hardware kind
     */
    virtual LinkHardware GetLinkHardware(uint32_t src, uint32_t dst) const;
    /**
     * The GPUs' generation, as NCCL's tuning tables index it (the protocol costs read
     * NCCL's per-generation figures by it). The default: Hopper.
     * \return CUDA compute capability x 10 (80 Ampere, 90 Hopper, 100 Blackwell)
     */
    virtual uint32_t GetComputeCapability() const;
    /**
     * The carrier's figures for switch reductions and multicasts over members (only
     * asked when CanReduceInSwitch, CanAllReduceInNetwork or CanReduceInNetwork holds for
     * members). The default: the
     * members' DescribePath ports at their rate. \param members ranks of the multicast group
     * \return the figures, ports in the order of members
     */
    virtual CarrierSwitchPath DescribeSwitchPath(const std::vector<uint32_t>& members) const;

    /**
     * Call replay (CollectiveEngine::ReplayIsolatedCalls): the carrier every transfer
     * among ranks stays in, if it is isolated: its traffic shares nothing with any other
     * carrier's, and a call that starts when it is quiet (IsQuiet) and has it to itself
     * takes the same time whenever it starts (one server's NVSwitch). The default: none.
     * \param ranks ranks of a call
     * \return that carrier, or null
     */
    virtual Ptr<CollectiveTransport> GetIsolatedCarrier(const std::vector<uint32_t>& ranks) const;
    /// \return whether nothing is left of past traffic (isolated carriers; default false)
    virtual bool IsQuiet() const;
    /// Begin recording a call that starts now on this quiet, isolated carrier.
    /// \return its record (the default: null, the carrier does not record)
    virtual Ptr<CarrierRecord> StartRecord() const;
    /**
     * The recorded call has ended now: complete its record (duration, counters).
     * \param record StartRecord's
     * \param posts transfers and switch operations the call posted on this carrier
     * \return false if anything else was posted meanwhile, or if the carrier is not
     *         quiet now: the record is void (default)
     */
    virtual bool EndRecord(CarrierRecord& record, uint64_t posts) const;
    /**
     * Do a recorded call's work again, now, without simulating it: count it as done and
     * keep the carrier from being quiet for record.duration. Aborts on a carrier that
     * does not record (the default).
     * \param record a record EndRecord completed on this carrier
     */
    virtual void Replay(const CarrierRecord& record);
};

} // namespace ns3

#endif
