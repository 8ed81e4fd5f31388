// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_ALGORITHMS_H
#define COLLECTIVE_ALGORITHMS_H

#include "comm-plan.h"

#include "ns3/attribute.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup ai-fabric
 * Plan generators: each expands one collective call over ranks 0..n-1 into a CommPlan.
 *
 * Conventions shared by all generators:
 * - bytes is the call size in the nccl-tests sense (see CollectiveType); every split
 *   uses CommPlan::SplitBytes, so block sizes differ by at most one byte and add up
 *   exactly, whatever the divisibility.
 * - chunkBytes (0 = no limit) pipelines the call: the data is cut into enough rounds
 *   that a block is at most about chunkBytes, and each round flows through the
 *   algorithm independently (deps only link transfers of the same block, but a chain's
 *   NCCL_CONNECTION_SLOTS window), so round q+1
 *   can start while round q is still under way, as NCCL's chunk loop does.
 * - Transfers are added in the order a rank would issue them (round, then step), so a
 *   transport that keeps one FIFO per (src, dst, channel) preserves NCCL's order.
 * - Deps are data dependencies: a rank forwards a block only after the transfers that
 *   wrote its copy of that block have arrived. Every plan is proven by PlanChecker.
 * - Generators abort (NS_ABORT_MSG) on an empty group, zero channels, a root out of
 *   range or a group size the algorithm cannot handle, naming the problem.
 */

namespace ns3
{

/**
 * Ring all-reduce: a reduce-scatter ring then an all-gather ring, 2(n-1) steps. Each
 * channel runs its own ring (0 -> 1 -> ... -> n-1 -> 0) over its share of the data;
 * every rank sends 2(n-1)/n of the bytes. Time: 2(n-1)(alpha + S/(n B)).
 * \param n ranks
 * \param bytes buffer size
 * \param channels parallel rings, each over 1/channels of the data
 * \param chunkBytes pipelining granularity (0: one round)
 * \return the plan
 */
CommPlan RingAllReduce(uint32_t n, uint64_t bytes, uint32_t channels = 1, uint64_t chunkBytes = 0);

/**
 * Ring reduce-scatter: n-1 steps; rank r ends with shard r (SplitBytes(bytes, n, r))
 * fully reduced. Parameters as RingAllReduce; bytes is the input size (all shards).
 * \return the plan
 */
/**
 * Ring all-reduce whose channel c walks the ranks in orders[c] (a permutation of 0..n-1
 * per channel), so a caller can lay each channel's ring over the topology as NCCL does.
 */
CommPlan RingAllReduceOrdered(const std::vector<std::vector<uint32_t>>& orders,
                              uint64_t bytes,
                              uint64_t chunkBytes = 0);
/**
 * Ring all-reduce, reduce-scatter or all-gather whose channel c walks the ranks in
 * orders[c]. Shards keep their owners whatever the order: rank r ends with (reduce-scatter)
 * or starts with (all-gather) shard r, SplitBytes(bytes, n, r).
 * \param type ALL_REDUCE, REDUCE_SCATTER or ALL_GATHER (aborts otherwise)
 * \param orders one permutation of 0..n-1 per channel
 * \param bytes call size (see CollectiveType)
 * \param chunkBytes pipelining granularity (0: one round)
 * \param transfersPerPhase 0: a transfer per step (the data plan); else a coarsened
 *        ring (RingCoarsened)
 * \return the plan
 */
CommPlan RingOrdered(CollectiveType type,
                     const std::vector<std::vector<uint32_t>>& orders,
                     uint64_t bytes,
                     uint64_t chunkBytes = 0,
                     uint32_t transfersPerPhase = 0);

/**
 * A coarsened ring all-reduce, reduce-scatter or all-gather: the ring of RingAllReduce
 * (RingReduceScatter, RingAllGather) whose connections carry each phase's n - 1 steps in
 * at most transfersPerPhase transfers, each of g = ceil((n - 1) / transfersPerPhase)
 * consecutive steps (the last fewer) and of their bytes; a transfer waits for the one
 * its sender received before it (its group's predecessor), as a step waits for the step
 * before. A timing schedule, not a data plan (CommPlan::Transfer::steps; the PlanChecker
 * refuses it). The engine holds each transfer for the latencies and bytes of its steps
 * (CollectiveProtocolCosts::GetCoarseHold): when every connection of a ring runs at one
 * rate with one step latency, the call takes the fine ring's time (less the ACKs' share
 * of its bytes' time, which the hold leaves out) with g times fewer transfers; where rates
 * differ within a group, a connection runs up to g steps ahead of its ring instead of one.
 * \param type ALL_REDUCE, REDUCE_SCATTER or ALL_GATHER (aborts otherwise)
 * \param n ranks
 * \param bytes call size (see CollectiveType)
 * \param channels parallel rings
 * \param chunkBytes pipelining granularity (0: one round)
 * \param transfersPerPhase at most this many transfers per connection and phase (0: a
 *        transfer per step, the data plan)
 * \return the plan
 */
CommPlan RingCoarsened(CollectiveType type,
                       uint32_t n,
                       uint64_t bytes,
                       uint32_t channels,
                       uint64_t chunkBytes,
                       uint32_t transfersPerPhase);

class CommGroup;

/**
 * NCCL-style rail-aligned ring orders over servers: channel c enters the first server at
 * GPU c mod g and snakes through the servers (alternate servers walked backwards) so
 * that every inter-server hop joins two GPUs of the same local index, i.e. one rail, and
 * the channels together use every rail in both directions. With an odd number of
 * servers the hop that closes the ring joins two different rails (it crosses a spine).
 */
std::vector<std::vector<uint32_t>> RailAlignedRingOrders(const CommGroup& group, uint32_t channels);

CommPlan RingReduceScatter(uint32_t n,
                           uint64_t bytes,
                           uint32_t channels = 1,
                           uint64_t chunkBytes = 0);

/**
 * Ring all-gather: n-1 steps; every rank ends with every rank's shard. Parameters as
 * RingAllReduce; bytes is the output size (all shards).
 * \return the plan
 */
CommPlan RingAllGather(uint32_t n, uint64_t bytes, uint32_t channels = 1, uint64_t chunkBytes = 0);

/**
 * Ring (chain) broadcast: root -> root+1 -> ... -> root-1, pipelined over the chunks of
 * each channel, as NCCL's broadcast does.
 * \param n ranks
 * \param bytes buffer size
 * \param root rank whose data is broadcast
 * \param channels parallel chains, each over 1/channels of the data
 * \param chunkBytes pipelining granularity (0: one chunk per channel)
 * \return the plan
 */
CommPlan RingBroadcast(uint32_t n,
                       uint64_t bytes,
                       uint32_t root = 0,
                       uint32_t channels = 1,
                       uint64_t chunkBytes = 0);

/**
 * Ring (chain) reduce: root+1 -> root+2 -> ... -> root, each hop reducing, pipelined.
 * Parameters as RingBroadcast.
 * \return the plan
 */
CommPlan RingReduce(uint32_t n,
                    uint64_t bytes,
                    uint32_t root = 0,
                    uint32_t channels = 1,
                    uint64_t chunkBytes = 0);

/**
 * Chain broadcast or reduce with one order per channel, as RingBroadcast and RingReduce
 * but channel c's chain follows orders[c] (RailAlignedRingOrders: NCCL's rings, whose
 * channels cross between servers on different rails) from the root's place in it around:
 * broadcast from the root to the rank before it in the order, reduce from the rank after
 * it to the root. The data is split over the channels and pipelined by chunk.
 * \param type BROADCAST or REDUCE
 * \param orders one permutation of 0..n-1 per channel
 * \param bytes buffer size
 * \param root rank whose data is broadcast (that receives the reduction)
 * \param chunkBytes pipelining granularity (0: one chunk per channel)
 * \return the plan
 */
CommPlan ChainOrdered(CollectiveType type,
                      const std::vector<std::vector<uint32_t>>& orders,
                      uint64_t bytes,
                      uint32_t root = 0,
                      uint64_t chunkBytes = 0);

/**
 * Tree all-reduce: per chunk, a reduction up a binary tree to its root, then a
 * broadcast back down. With doubleTree (NCCL's double binary tree) half of the chunks
 * use a second tree in which the leaves of the first are inner nodes, so every rank
 * sends and receives about the same amount; channel = tree index. Trees are balanced
 * in-order trees of depth about log2(n): time about 2 log2(n) alpha + 2 S/B when
 * pipelined. Any group size.
 * \param n ranks
 * \param bytes buffer size
 * \param chunkBytes pipelining granularity (0: one chunk per tree)
 * \param doubleTree use two complementary trees (ignored for n = 1)
 * \return the plan
 */
CommPlan TreeAllReduce(uint32_t n, uint64_t bytes, uint64_t chunkBytes = 0, bool doubleTree = true);

/**
 * Tree broadcast down a balanced binary tree rooted at root, pipelined by chunk.
 * \param n ranks
 * \param bytes buffer size
 * \param root rank whose data is broadcast
 * \param chunkBytes pipelining granularity (0: one chunk)
 * \return the plan
 */
CommPlan TreeBroadcast(uint32_t n, uint64_t bytes, uint32_t root = 0, uint64_t chunkBytes = 0);

/**
 * Tree reduce up a balanced binary tree rooted at root, pipelined by chunk.
 * Parameters as TreeBroadcast.
 * \return the plan
 */
CommPlan TreeReduce(uint32_t n, uint64_t bytes, uint32_t root = 0, uint64_t chunkBytes = 0);

/**
 * Rabenseifner all-reduce: recursive-halving reduce-scatter (partner r xor n/2, n/4,
 * ..., 1; each step sends the half of the current range the rank gives up) then
 * recursive-doubling all-gather (partner r xor 1, 2, ..., n/2). 2 log2(n) steps, one
 * message per rank per step; time 2 log2(n) alpha + 2(n-1)/n S/B.
 * n must be a power of two (aborts otherwise: use ring or tree).
 * \param n ranks
 * \param bytes buffer size
 * \return the plan
 */
CommPlan HalvingDoublingAllReduce(uint32_t n, uint64_t bytes);

/**
 * The recursive-halving half of HalvingDoublingAllReduce: log2(n) steps, rank r ends
 * with shard r reduced. n must be a power of two.
 * \return the plan
 */
CommPlan HalvingDoublingReduceScatter(uint32_t n, uint64_t bytes);

/**
 * The recursive-doubling half of HalvingDoublingAllReduce: log2(n) steps, every rank
 * ends with every shard. n must be a power of two.
 * \return the plan
 */
CommPlan HalvingDoublingAllGather(uint32_t n, uint64_t bytes);

/**
 * PAT, NCCL's Parallel Aggregated Trees (NCCL 2.23 on; NCCL runs it with one GPU per
 * server): Bruck's all-gather for any n. Step k (distance d = 2^k, ceil(log2 n) steps)
 * every rank r sends the min(d, n - d) blocks it holds, r .. r + d - 1 (mod n), to rank
 * r - d; a range that wraps past block n - 1 goes as two transfers of the step. Time
 * ceil(log2 n) alpha + (n-1)/n S/B on a full-bisection fabric (a wrapping rank pays a
 * second alpha in that step).
 * \param n ranks
 * \param bytes buffer size (the gathered whole)
 * \return the plan
 */
CommPlan PatAllGather(uint32_t n, uint64_t bytes);

/**
 * PAT reduce-scatter: PatAllGather's flow reversed, largest distance first: rank s sends
 * the partial sums of blocks s + d .. s + d + cnt - 1 (mod n) to s + d, which reduces
 * them; rank r ends with block r reduced over all ranks. ceil(log2 n) steps.
 * \param n ranks
 * \param bytes buffer size
 * \return the plan
 */
CommPlan PatReduceScatter(uint32_t n, uint64_t bytes);

/**
 * Direct (pairwise) all-to-all: every rank sends SplitBytes(bytes, n, d) to every other
 * rank d, n(n-1) independent transfers; step k-1 holds the sends r -> r+k (the
 * pairwise-exchange order). Time (n-1) alpha + (n-1)/n S/B on a full-bisection fabric.
 * \param n ranks
 * \param bytes one rank's send buffer
 * \return the plan
 */
CommPlan DirectAllToAll(uint32_t n, uint64_t bytes);

/**
 * Direct all-to-allv with a per-pair byte matrix (pairBytes[src * n + dst]; the
 * diagonal stays local, zero entries make no transfer). The plan's total bytes is the
 * largest row sum.
 * \param n ranks
 * \param pairBytes n x n matrix
 * \return the plan
 */
CommPlan DirectAllToAllV(uint32_t n, const std::vector<uint64_t>& pairBytes);

/**
 * Direct all-gather: every rank sends its shard to every other rank, n(n-1) independent
 * transfers, in the same pairwise order as DirectAllToAll.
 * \param n ranks
 * \param bytes output size (all shards)
 * \return the plan
 */
CommPlan DirectAllGather(uint32_t n, uint64_t bytes);

/**
 * Point-to-point send of bytes from src to dst, split over channels.
 * \param n ranks in the group
 * \param src sender
 * \param dst receiver
 * \param bytes message size
 * \param channels parallel transfers, each over 1/channels of the data
 * \return the plan
 */
CommPlan SendRecv(uint32_t n, uint32_t src, uint32_t dst, uint64_t bytes, uint32_t channels = 1);

/// NCCL's NVLS chunk (NCCL_NVLS_CHUNKSIZE default, 128 KiB): the piece NVLS plans cut
/// each shard into when no chunk size is given, since NVLS always pipelines.
constexpr uint64_t NVLS_DEFAULT_CHUNK_BYTES = 128 * 1024;

/**
 * NVLS all-reduce (NVSwitch SHARP, NCCL's NVLS algorithm on one server): rank g owns
 * shard g (SplitBytes(bytes, n, g)), cut into pieces of about chunkBytes (0: 128 KiB).
 * For each piece g issues a SWITCH_REDUCE (every rank's copy is summed in the switch
 * and lands at g) and then a SWITCH_MULTICAST of the sum to every rank. Pieces pipeline:
 * piece q+1 is reduced while piece q is multicast. Per rank and direction the links
 * carry S (1 + 1/n): time about S (1 + 1/n) / B_nvls, busbw 2(n-1)/(n+1) B_nvls.
 * Needs a carrier that reduces in a switch (NvLinkTransport over an NvSwitchFabric).
 */
CommPlan NvlsAllReduce(uint32_t n, uint64_t bytes, uint64_t chunkBytes = 0);

/**
 * NVLS reduce-scatter: the reduction half of NvlsAllReduce; rank g ends with shard g.
 * bytes is the input size (all shards).
 */
CommPlan NvlsReduceScatter(uint32_t n, uint64_t bytes, uint64_t chunkBytes = 0);

/**
 * NVLS all-gather: the multicast half; every rank multicasts its shard once. bytes is the
 * output size (all shards).
 */
CommPlan NvlsAllGather(uint32_t n, uint64_t bytes, uint64_t chunkBytes = 0);

/**
 * In-network all-reduce (SwitchML, SHARP): the call is cut into channels x rounds pieces
 * (rounds so that a piece is at most chunkBytes; 0: one round), each one
 * SWITCH_ALL_REDUCE transfer on its channel: every rank's copy goes up the channel's
 * aggregation tree once and the sum comes back to every rank. Rounds of a channel are
 * issued in order; channels may use separate trees.
 * \param n ranks
 * \param bytes call size
 * \param channels aggregation channels (at least 1)
 * \param chunkBytes largest piece, 0 for no pipelining
 * \return the plan
 */
CommPlan InaAllReduce(uint32_t n, uint64_t bytes, uint32_t channels = 1, uint64_t chunkBytes = 0);

/**
 * In-network reduce-scatter (SHARP's reduce toward each owner): shard g (about bytes/n)
 * is cut into channels x rounds pieces, each one NETWORK_REDUCE into rank g: every
 * rank's copy goes up the aggregation tree and the switches send the sum's values down
 * toward g only (the others get acknowledgements). Each NIC sends bytes and receives
 * bytes/n, as the ring; what the network saves is the ring's n - 1 steps.
 * \param n ranks
 * \param bytes call size (the whole buffer; rank g ends with shard g)
 * \param channels aggregation channels (at least 1)
 * \param chunkBytes largest piece, 0 for one piece per shard and channel
 * \return the plan
 */
CommPlan InaReduceScatter(uint32_t n,
                          uint64_t bytes,
                          uint32_t channels = 1,
                          uint64_t chunkBytes = 0);

/**
 * In-network all-gather (multicast in the switches): shard g is cut as in
 * InaReduceScatter, each piece one NETWORK_MULTICAST from rank g: g sends its values up
 * once, the other ranks send value-less packets of the same sequence (their zeros), and
 * the switches replicate the values down to every rank. Each NIC sends bytes/n of
 * values and receives bytes.
 * \param n ranks
 * \param bytes call size (the gathered buffer)
 * \param channels aggregation channels (at least 1)
 * \param chunkBytes largest piece, 0 for one piece per shard and channel
 * \return the plan
 */
CommPlan InaAllGather(uint32_t n, uint64_t bytes, uint32_t channels = 1, uint64_t chunkBytes = 0);

/**
 * In-network broadcast: the root's buffer cut into channels x rounds pieces, each one
 * NETWORK_MULTICAST from root (see InaAllGather).
 * \param n ranks
 * \param bytes call size
 * \param root sending rank
 * \param channels aggregation channels (at least 1)
 * \param chunkBytes largest piece, 0 for one piece per channel
 * \return the plan
 */
CommPlan InaBroadcast(uint32_t n,
                      uint64_t bytes,
                      uint32_t root,
                      uint32_t channels = 1,
                      uint64_t chunkBytes = 0);

/**
 * In-network reduce: the buffer cut into channels x rounds pieces, each one
 * NETWORK_REDUCE into root (see InaReduceScatter).
 * \param n ranks
 * \param bytes call size
 * \param root receiving rank
 * \param channels aggregation channels (at least 1)
 * \param chunkBytes largest piece, 0 for one piece per channel
 * \return the plan
 */
CommPlan InaReduce(uint32_t n,
                   uint64_t bytes,
                   uint32_t root,
                   uint32_t channels = 1,
                   uint64_t chunkBytes = 0);

/// The most pipeline rounds (and so pieces of a call cut by its chunk) a plan may have:
/// no real chunk size needs more, and more would make the plan too large to hold.
constexpr uint64_t MAX_PLAN_PIECES = uint64_t{1} << 20;

/// The most chunks a channel of a chain (ring and rail-ring broadcast and reduce) is cut
/// into: a finer chunk is coarsened to bytes / (channels x this), so an LL chain of GiBs
/// stays a plan of a few million transfers.
constexpr uint64_t MAX_CHAIN_ROUNDS = 4096;

/**
 * How many pipeline rounds a generator uses: enough that each of the piecesPerRound
 * pieces of a round is at most about chunkBytes (at least 1; exactly 1 when chunkBytes
 * is 0). Aborts if the answer would exceed 2^20 rounds, which no real chunk size needs
 * and which would make the plan too large to hold.
 * \param bytes call size
 * \param piecesPerRound blocks one round is cut into (e.g. n x channels for a ring)
 * \param chunkBytes target block size, 0 for no pipelining
 * \return the number of rounds
 */
uint32_t CollectivePipelineRounds(uint64_t bytes, uint64_t piecesPerRound, uint64_t chunkBytes);

/**
 * Every collective algorithm of the module. Its name (CollectiveAlgorithmToString) is the
 * one table of algorithm names: what plans, reports and traces print and what scenarios,
 * traces, attributes and command lines accept, plus "auto" (CollectiveSelection).
 */
enum class CollectiveAlgorithm
{
    RING,             //!< "ring": ring (chain for broadcast/reduce), ranks in group order
    RAIL_RING,        //!< "rail-ring": NCCL's rail-aligned multi-channel ring across
                      //!< servers (RailAlignedRingOrders; chains along it for broadcast
                      //!< and reduce, ChainOrdered); needs the group's servers
    TREE,             //!< "tree": binary tree (double binary tree for all-reduce)
    HALVING_DOUBLING, //!< "halving-doubling": Rabenseifner, powers of two only
    DIRECT,           //!< "direct": every pair talks directly
    HIERARCHICAL,     //!< "hierarchical": rings in servers, one ring per rail across
                      //!< servers (collective-hierarchical.h); needs the group's servers
    NVLS,             //!< "nvls": in-switch reduction and multicast (needs a carrier
                      //!< that reduces in a switch)
    INA,              //!< "ina": in-network aggregation on the scale-out fabric (needs a
                      //!< carrier whose switches aggregate, InaTransport)
    NVLS_INA,         //!< "nvls-ina": NVLS in each server, in-network aggregation per
                      //!< rail across servers (NvlsInaAllReduce); needs the group's servers
    NVLS_TREE,        //!< "nvls-tree": NVLS in each server, a tree per rail across servers
                      //!< over the NICs (NCCL's NVLSTree, NvlsTreeAllReduce); needs the
                      //!< group's servers
    PAT,              //!< "pat": NCCL's PAT (Bruck's all-gather and its mirror
                      //!< reduce-scatter, log steps, any group size)
    AUTO,             //!< "auto": not an algorithm but the choice of one per call by
                      //!< estimated time (CollectiveSelection); what Algorithm attributes
                      //!< hold by default. No plan generator takes it.
};

/// The name that picks the algorithm per call by estimated time (CollectiveSelection).
constexpr const char* AUTO_ALGORITHM_NAME = "auto";

/**
 * The checker of an EnumValue attribute naming a collective algorithm: accepts
 * CollectiveAlgorithm::AUTO ("auto") and every algorithm of GetCollectiveAlgorithms by
 * its name.
 *
eturn the checker
 */
Ptr<const AttributeChecker> MakeCollectiveAlgorithmChecker();

/// \return a lower-case name such as "halving-doubling" ("auto" for AUTO)
std::string CollectiveAlgorithmToString(CollectiveAlgorithm algorithm);

/**
 * \param name an algorithm name as CollectiveAlgorithmToString prints it
 * \param algorithm set to the algorithm when found
 * \return true if name names an algorithm or is "auto" (AUTO)
 */
bool CollectiveAlgorithmFromString(const std::string& name, CollectiveAlgorithm& algorithm);

/// \return every algorithm (AUTO is none), in the order of the name table (simplest first)
const std::vector<CollectiveAlgorithm>& GetCollectiveAlgorithms();

/// \return "auto, ring, rail-ring, ...": every accepted name, for messages and help texts
std::string GetCollectiveAlgorithmNameList();

/**
 * The pipelining chunk an algorithm uses when CollectivePlanOptions::chunkBytes is 0:
 * 512 KiB for tree and hierarchical (NCCL's Simple-protocol step: a 4 MiB channel buffer
 * in 8 steps), 128 KiB for NVLS (NCCL_NVLS_CHUNKSIZE), one step of the protocol's buffer
 * for the ring (chain) broadcast and reduce, as NCCL's BROADCAST_CHUNKSTEPS and
 * REDUCE_CHUNKSTEPS of 1 make it (NCCL v2.30.7, src/enqueue.cc calcCollChunking: Simple
 * 524,288 B, LL 32,768 B of data, LL128 576,000; auto and none take Simple's), none (0)
 * for the others, whose steps already keep every link busy.
 * \param algorithm the algorithm
 * \param type the collective
 * \param protocol the protocol the plan runs
 * \return the chunk in bytes, 0 for none
 */
uint64_t CollectiveDefaultChunkBytes(CollectiveAlgorithm algorithm,
                                     CollectiveType type,
                                     CollectiveProtocol protocol = CollectiveProtocol::AUTO);

/**
 * The channel count used when none is given, the same in collective-perf, ai-fabric-sim
 * and the workload runner: one channel per GPU of a server (so rail-aligned rings cover
 * every rail and NIC, as NCCL opens at least one channel per NIC), at least 1, at most 64.
 * \param gpusPerServer GPUs (and NICs) per server of the cluster
 * \return the channel count
 */
uint32_t CollectiveDefaultChannels(uint32_t gpusPerServer);

/// \return true for the algorithms that need the group's servers (rail-ring,
/// hierarchical): build those with CollectiveSelection::MakePlan
bool CollectiveAlgorithmNeedsServers(CollectiveAlgorithm algorithm);

std::ostream& operator<<(std::ostream& os, CollectiveAlgorithm algorithm);

/// NCCL's NCCL_STEPS: the buffer slots of a connection, so the chunks a sender may have
/// ahead of its receiver (NCCL v2.30.7, src/include/device.h)
constexpr uint32_t NCCL_CONNECTION_SLOTS = 8;

/// NCCL_NET_OVERHEAD's default on x86 Intel and most CPUs, us (AMD: 2 us; NCCL v2.30.7,
/// src/graph/tuning.cc getNetOverhead)
constexpr double NCCL_DEFAULT_NET_OVERHEAD_US = 1.0;

/// Knobs of MakeCollectivePlan; each generator reads the ones it has.
struct CollectivePlanOptions
{
    uint32_t channels{1};   //!< ring / send-recv channels
    uint64_t chunkBytes{0}; //!< pipelining granularity; 0 = the algorithm's default
                            //!< (CollectiveDefaultChunkBytes)
    uint32_t root{0};       //!< broadcast / reduce root, send/recv sender
    uint32_t peer{1};       //!< send/recv receiver
    bool doubleTree{true};  //!< tree all-reduce uses two trees
    /// The protocol of the plan (AUTO: CollectiveSelection::MakePlan takes the fastest for
    /// the call by the cost model, as NCCL's tuner picks; MakeCollectivePlan leaves the
    /// plan's protocol unset). It also sets a chain's default chunk
    /// (CollectiveDefaultChunkBytes).
    CollectiveProtocol protocol{CollectiveProtocol::AUTO};
    Time netOverhead{MicroSeconds(
        NCCL_DEFAULT_NET_OVERHEAD_US)}; //!< NCCL_NET_OVERHEAD, for the protocols' step latency
    /// Ring and rail-ring all-reduce, reduce-scatter and all-gather: at most this many
    /// transfers per connection and phase (RingCoarsened), 0: a transfer per step
    uint32_t ringTransfersPerPhase{0};
};

/**
 * The pipelining chunk a plan of algorithm uses for type with these options:
 * options.chunkBytes, or CollectiveDefaultChunkBytes (of options.protocol) when that is 0.
 */
uint64_t CollectiveChunkBytes(CollectiveAlgorithm algorithm,
                              CollectiveType type,
                              const CollectivePlanOptions& options);

/**
 * \return true if MakeCollectivePlan can build this collective with this algorithm for
 * n ranks. Ring: all-reduce, reduce-scatter, all-gather, broadcast, reduce. Tree:
 * all-reduce, broadcast, reduce. Halving-doubling: all-reduce, reduce-scatter,
 * all-gather with n a power of two. Direct: all-to-all, all-gather, send/recv. NVLS:
 * all-reduce, reduce-scatter, all-gather (whether the carrier can run it is the
 * engine's question). INA: all-reduce, reduce-scatter, all-gather, broadcast, reduce
 * (the carrier's question too); nvls-ina: all-reduce. Rail-ring: as ring (chains for
 * broadcast and reduce, ChainOrdered); hierarchical: all-reduce, reduce-scatter and
 * all-gather (both also need the group's shape: see CollectiveSelection::CanMakePlan).
 * All-to-allv needs its matrix: call DirectAllToAllV.
 */
bool IsCollectiveAlgorithmSupported(CollectiveType type, CollectiveAlgorithm algorithm, uint32_t n);

/**
 * Build a plan by collective and algorithm (aborts, naming both, if unsupported or if
 * the algorithm needs the group's servers: rail-ring and hierarchical are built by
 * CollectiveSelection::MakePlan). A chunkBytes of 0 takes CollectiveDefaultChunkBytes.
 * \param type collective
 * \param algorithm algorithm
 * \param n ranks
 * \param bytes call size (see CollectiveType)
 * \param options knobs
 * \return the plan
 */
CommPlan MakeCollectivePlan(CollectiveType type,
                            CollectiveAlgorithm algorithm,
                            uint32_t n,
                            uint64_t bytes,
                            const CollectivePlanOptions& options = CollectivePlanOptions());

} // namespace ns3

#endif // COLLECTIVE_ALGORITHMS_H
