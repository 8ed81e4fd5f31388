// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_PROTOCOL_H
#define COLLECTIVE_PROTOCOL_H

#include "collective-algorithms.h"
#include "comm-plan.h"

#include "ns3/attribute.h"
#include "ns3/collective-transport.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \param name a protocol name, in any letter case ("simple" and "Simple" alike, as
 *        NCCL_PROTO accepts them)
 * \param protocol set to the protocol when found
 * \return true if name names a protocol, "none" or "auto"
 */
bool CollectiveProtocolFromString(const std::string& name, CollectiveProtocol& protocol);

/// \return NCCL's three protocols: LL, LL128, Simple
const std::vector<CollectiveProtocol>& GetCollectiveProtocols();

/// \return "auto, LL, LL128, Simple, none": every accepted name, for messages and help
std::string GetCollectiveProtocolNameList();

/// \return the checker of an EnumValue attribute naming a protocol (every name of the table)
Ptr<const AttributeChecker> MakeCollectiveProtocolChecker();

std::ostream& operator<<(std::ostream& os, CollectiveProtocol protocol);

/**
 * \param algorithm an algorithm
 * \param protocol a protocol
 * \return whether the algorithm runs that protocol: nvls, ina, nvls-ina, nvls-tree and pat
 *         only Simple (NCCL runs NVLS, NVLSTree, CollNet and PAT with Simple only); the
 *         others all three. "none" and "auto" apply to every algorithm.
 */
bool CollectiveProtocolApplies(CollectiveAlgorithm algorithm, CollectiveProtocol protocol);

/**
 * Bytes a protocol puts on the wire for a payload: LL ceil(payload / 8) x 16 (a 16-byte
 * line carries two 4-byte words and their two flags), LL128 ceil(payload / 120) x 128,
 * Simple and none the payload itself.
 * \param protocol the protocol
 * \param payload data bytes
 * \return bytes moved
 */
uint64_t CollectiveProtocolWireBytes(CollectiveProtocol protocol, uint64_t payload);

/**
 * \ingroup ai-fabric
 * What a protocol costs one call, from NCCL's tuning model (NVIDIA/nccl v2.30.7,
 * src/graph/tuning.cc: baseLatencies, hwLatencies, the network overhead), landed where
 * the hardware spends it:
 *
 * - a call latency, once before the first transfer (the kernel launch and set-up:
 *   baseLatencies of the algorithm and protocol; for nvls and nvls-tree the NVLS
 *   hardware latency, for nvls-ina that plus NVLS's network one; for in-network
 *   aggregation the CollNet network latency, the tree's with one rank per server; for
 *   pat its base plus 2.8 us per rank);
 * - a step latency before every point-to-point transfer, by the hardware it crosses
 *   (CollectiveTransport::GetLinkHardware): hwLatencies[NVLink | PCI | network] of the
 *   algorithm and protocol, less what the carrier already spends on the shortest path
 *   of that hardware in the call (CarrierPath::latency: cables, switches, the first
 *   frame's store and forward), never below zero. NCCL's figure is the whole fixed time
 *   of a step, wire included: a step over the shortest path costs max(hwLatency, path
 *   latency), not their sum; a longer path adds its extra wire time. One figure per
 *   hardware, so transfers released together start together. As in NCCL's ring model,
 *   a step inside a server of a call that crosses the network waits at least the
 *   network overhead (x3 for Simple), and a call with one rank per server (no two
 *   neighbouring ranks, and no step, inside one server) pays the tree's network latency
 *   per network step; nvls-tree's network hops pay NVLSTree's network latency; pat's
 *   network steps the network latency / 3.5;
 * - wire bytes: CollectiveProtocolWireBytes of each transfer's payload;
 * - LL across servers: NCCL's LL ceiling C (llMaxBws, bus bandwidth, for x86 Intel hosts)
 *   over the plan's channels is the rate of one server per sender and channel that its
 *   network transfers pass one at a time (GetRateCharge): C / channels per channel, so C
 *   out of a sender that uses every channel, however many transfers a channel has in
 *   flight (tree's transfers each have a server of their own, as for NVLink below);
 * - point-to-point transfers over NVLink (not tree's, whose channels NCCL splits between
 *   the two directions): a channel is one of NCCL's thread blocks, which copies at its
 *   share of the GPU's NVLink bandwidth: a sender's transfers of one channel pass one rate
 *   server at the slowest NVLink path's rate alone over the channels the sender sends on
 *   over NVLink (GetRateCharge), so a channel waiting out its step latency does not lend
 *   its share to the others, and the step latencies add to the bytes' time as in NCCL's
 *   model;
 * - nvls-tree: NCCL's per-channel NVLSTree ceiling (perChMaxNVLSTreeBws by the carrier's
 *   GPU generation, CollectiveTransport::GetComputeCapability): a channel's (a rail's)
 *   network transfers pass one at a time through a server of GetChannelRate, so the
 *   call's bus bandwidth is at most channels x the ceiling (PassesChannelRate).
 *
 * Point-to-point algorithms other than tree (ring, rail-ring, halving-doubling, direct,
 * hierarchical) take the ring's figures: NCCL's ring is the one with per-step costs for
 * peer-to-peer steps. What NCCL's model adds beyond this (its other bandwidth ceilings
 * per protocol, the tree correction factors, the ring plateau factor) is its fit to its
 * own kernels and is not charged: the carriers give the bandwidth.
 */
class CollectiveProtocolCosts
{
  public:
    /**
     * \param plan the call (its algorithm name and protocol; NONE costs nothing, AUTO
     *        aborts: a plan runs a protocol, the choice is CollectiveSelection's)
     * \param carrier the carrier it runs on (the hardware of each transfer)
     * \param rankMap carrier rank of each plan rank (empty: plan rank r is carrier rank r)
     * \param netOverhead NCCL_NET_OVERHEAD
     */
    CollectiveProtocolCosts(const CommPlan& plan,
                            const CollectiveTransport& carrier,
                            const std::vector<uint32_t>& rankMap,
                            Time netOverhead);

    /// \return whether the call pays anything (a protocol other than none)
    bool IsCharged() const;
    /// \return the latency paid once, before the call's first transfer
    Time GetCallLatency() const;
    /**
     * \param transfer a transfer id of the plan
     * \return the latency before it starts: its hardware's step latency less the
     *         carrier's latency on the call's shortest path of that hardware, at least zero
     */
    Time GetStepLatency(uint32_t transfer) const;
    /**
     * The least time from hand-over to done of a transfer of several steps (a coarsened
     * ring, RingCoarsened): g steps that would each pay the step latency, their bytes'
     * time at the path's rate alone and the path's latency (cables, a frame stored at each
     * switch), less the step latency paid before the hand-over. Where the steps' latencies
     * would leave the sender idle, this holds the transfer as the steps would; where other
     * transfers fill that time (channels that share the NIC), the carrier's time is longer
     * and the hold does not bind, as the steps' latencies would be hidden.
     * \param transfer a transfer id of the plan
     * \param payload its payload bytes
     * \return that time (0: a transfer of one step)
     */
    Time GetCoarseHold(uint32_t transfer, uint64_t payload) const;
    /**
     * \param transfer a transfer id of the plan
     * \return the latencies of its steps after the first, each a step latency and its
     *         path's latency (0: a transfer of one step); GetCoarseHold counts them, and
     *         GetRateCharge adds them to a rate server's service
     */
    Time GetCoarseLatency(uint32_t transfer) const;
    /// \param payload data bytes \return bytes on the wire
    uint64_t GetWireBytes(uint64_t payload) const;
    /**
     * \param transfer a transfer id of the plan
     * \return whether it passes its channel's rate server (nvls-tree's network hops)
     */
    bool PassesChannelRate(uint32_t transfer) const;

    /// What a transfer owes a rate server of the call (GetRateCharge).
    struct RateCharge
    {
        uint64_t server{0}; //!< the server, unique in the call (0: it passes none)
        Time service;       //!< how long it holds the server, one transfer at a time
        Time after;         //!< from the end of its service to its arrival
    };

    /**
     * The rate server a transfer passes, one transfer at a time in the order they are
     * handed over, and what it owes it: nvls-tree's network hops, their channel's
     * (PassesChannelRate, GetChannelRate, over the payload); a point-to-point transfer
     * over NVLink (but tree's), its sender's thread block of its channel: the wire bytes at the
     * slowest NVLink path's rate alone over the number of channels its sender sends on over
     * NVLink, then the shortest NVLink path's latency; an LL transfer over the network in a
     * call across servers (not a switch algorithm's), its sender's LL ceiling of its
     * channel: the payload at NCCL's llMaxBws (x86 Intel: 39 GB/s of bus bandwidth for two
     * servers, 20.4 for more) over the plan's channels.
     * \param transfer a transfer id of the plan
     * \param payload its data bytes
     * \return the charge (server 0: none)
     */
    RateCharge GetRateCharge(uint32_t transfer, uint64_t payload) const;

    /**
     * The rate of a channel's server: NCCL's per-channel NVLSTree ceiling C (bus
     * bandwidth) as a rate of the channel's network transfers. A channel of s servers and
     * n ranks moves 2(s - 1) hops of each piece, and a bus bandwidth of C means bytes x
     * 2(n - 1)/n per channel in the call's time, so the server runs at C (s - 1) n / (n - 1).
     * \return payload bytes per second (0: no channel ceiling in this call)
     */
    double GetChannelRate() const;

    /**
     * \param hardware what a step crosses
     * \return NCCL's latency of a point-to-point step over it in this call (the whole
     *         step, before the carrier's path latency is taken off)
     */
    Time GetStepLatency(LinkHardware hardware) const;

  private:
    CollectiveProtocol m_protocol{CollectiveProtocol::NONE}; //!< the call's protocol
    Time m_callLatency;                                      //!< once per call
    Time m_stepLatency[3];                //!< by LinkHardware, point-to-point steps
    std::vector<LinkHardware> m_hardware; //!< per transfer (point to point only)
    std::vector<uint8_t> m_pointToPoint;  //!< per transfer: 1 if point to point

    /// A transfer of several steps: what each step would pay alone.
    struct CoarseStep
    {
        Time path;                //!< its path's latency and a frame stored at each switch
        double bytesPerSecond{0}; //!< its path's payload rate alone (0: unknown)
        uint32_t steps{1};        //!< the steps it carries
    };

    /// per transfer of a coarsened plan (empty: a plan of one step a transfer)
    std::vector<CoarseStep> m_coarse;
    Time m_chargedLatency[3];             //!< by LinkHardware: what a step is charged
    double m_rateCap{0}; //!< LL: payload bytes/s of a sender's channel over the network (0: none)
    /// wire bytes/s of the slowest NVLink path alone (0: no NVLink servers)
    double m_nvlinkRate{0};
    std::vector<uint32_t> m_nvlinkChannels; //!< per plan rank: channels it sends on over NVLink
    Time m_nvlinkPathLatency;               //!< the call's shortest NVLink path latency
    std::vector<uint64_t> m_server; //!< per transfer: its rate server (GetRateCharge; 0: none)
    double m_channelRate{0};        //!< payload bytes/s of a channel's rate server (0: none)
};

/**
 * NCCL's figures, for doc and tests: the base latency of an algorithm and protocol, us.
 * \param algorithm one of ours (mapped onto NCCL's: see CollectiveProtocolCosts)
 * \param protocol LL, LL128 or Simple
 * \return baseLatencies[algorithm][protocol] of NCCL v2.30.7
 */
double NcclBaseLatencyUs(CollectiveAlgorithm algorithm, CollectiveProtocol protocol);

/**
 * \param hardware NVLink, PCI or network
 * \param algorithm one of ours (mapped onto NCCL's)
 * \param protocol LL, LL128 or Simple
 * \return hwLatencies[hardware][algorithm][protocol] of NCCL v2.30.7, us
 */
double NcclHwLatencyUs(LinkHardware hardware,
                       CollectiveAlgorithm algorithm,
                       CollectiveProtocol protocol);

} // namespace ns3

#endif // COLLECTIVE_PROTOCOL_H
