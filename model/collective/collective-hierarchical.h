// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_HIERARCHICAL_H
#define COLLECTIVE_HIERARCHICAL_H

#include "comm-plan.h"

#include "ns3/comm-group.h"

#include <cstdint>

/**
 * \file
 * \ingroup ai-fabric
 * Hierarchical (two-level) collectives: rings inside each server over NVLink, one ring
 * per rail across servers over RDMA.
 *
 * Why a separate generator: the flat generators of collective-algorithms.h only know
 * ranks 0..n-1. A hierarchical plan has to know which ranks share a server and which
 * share a rail, so these take the CommGroup. The plan's ranks are the group's ranks
 * (rank r of the plan is rank r of the group), whatever order the group lists them in.
 *
 * Shape. Every server of the group must hold the same number g of the group's ranks
 * (the generators abort, naming two servers that differ, otherwise). Inside a server
 * the ranks are ordered by local index; position p (0..g-1) on every server forms
 * "rail p". When the servers also use the same local indices (CommGroup::IsUniform),
 * rail p is a physical rail and the inter-server rings never leave it; if only the
 * counts match, the p-th GPU of each server is paired anyway (correct, but the
 * inter-server ring may then cross the spine).
 *
 * Fabric of a transfer. CommPlan::Transfer has no field for the link kind, and none is
 * needed: a transfer is intra-server (NVLink/NVSwitch) exactly when its src and dst
 * are on the same server of the group (CommGroup::SameServer, or
 * IsIntraServerTransfer below), which any transport holding the group can test itself.
 * The channel field keeps its usual meaning (the parallel ring a transfer belongs to)
 * for both kinds, so a transport may map (peer, channel) to a queue pair as usual.
 *
 * Data layout (shared by the three collectives, so all-reduce is literally
 * reduce-scatter followed by all-gather): with s servers and n = s * g ranks, the rank
 * at (server i, position p) owns "sub-shard" (p, i) of SplitBytes(bytes, n, rank)
 * bytes; "shard" p is the union of sub-shards (p, 0..s-1), i.e. about bytes / g. Each
 * sub-shard is cut into `channels` blocks; block (c, p, q) has index (c * g + p) * s + q,
 * so the s blocks of shard p in channel c are consecutive and an intra-server step moves
 * a whole shard of one channel as a single message.
 *
 * Bytes sent per GPU (S = bytes, exact when S is a multiple of n * channels):
 * - all-reduce: intra-server 2(g-1)/g * S, inter-server 2(s-1)/s * S/g;
 * - reduce-scatter, all-gather: half of each.
 * A flat ring over the same n ranks sends 2(n-1)/n * S over each of its s
 * server-crossing edges, so one NIC per server carries about 2S; the hierarchical plan
 * spreads a total of 2(s-1) * S over all n NICs, about g times less per NIC.
 *
 * Steps: all-reduce uses 2(g-1) + 2(s-1) steps (intra reduce-scatter, inter
 * reduce-scatter, inter all-gather, intra all-gather, in that order of step numbers).
 *
 * Dependencies are exact data dependencies: every transfer waits for the transfers that
 * wrote the blocks it sends (across phase boundaries too), and none that is implied by
 * others. PlanChecker proves the plans for every shape the tests sweep.
 */

namespace ns3
{

/**
 * Hierarchical all-reduce:
 * (1) ring reduce-scatter inside each server: position p ends with shard p reduced over
 *     its server;
 * (2) ring all-reduce of shard p across servers, one ring per rail (reduce-scatter then
 *     all-gather of its s sub-shards);
 * (3) ring all-gather inside each server: every rank ends with every shard.
 * With one server this is an intra-server ring all-reduce; with one GPU per server, an
 * inter-server one.
 * \param group ranks and where they run; same number of ranks on every server
 * \param bytes buffer size
 * \param channels parallel rings (each phase runs one ring per channel over 1/channels
 *        of every sub-shard), at least 1
 * \param chunkBytes pipelining granularity (0: one round): the data is cut into rounds
 *        whose sub-shard blocks are at most about chunkBytes, and each round runs the
 *        whole plan on its share with its own deps, so one round's inter-server phase
 *        overlaps the next round's intra-server phase (NCCL's chunk loop)
 * \return the plan (ranks are the group's ranks; algorithm "hierarchical")
 */
CommPlan HierarchicalAllReduce(const CommGroup& group,
                               uint64_t bytes,
                               uint32_t channels = 1,
                               uint64_t chunkBytes = 0);

/**
 * Hierarchical reduce-scatter: phases (1) and (2a) of HierarchicalAllReduce. Rank r ends
 * with its shard, SplitBytes(bytes, n, r) bytes, fully reduced. Parameters as
 * HierarchicalAllReduce; bytes is the input size (all shards).
 * \return the plan
 */
CommPlan HierarchicalReduceScatter(const CommGroup& group,
                                   uint64_t bytes,
                                   uint32_t channels = 1,
                                   uint64_t chunkBytes = 0);

/**
 * Hierarchical all-gather: phases (2b) and (3) of HierarchicalAllReduce. Rank r starts
 * with its shard, SplitBytes(bytes, n, r) bytes, and every rank ends with all of them.
 * Parameters as HierarchicalAllReduce; bytes is the output size (all shards).
 * \return the plan
 */
CommPlan HierarchicalAllGather(const CommGroup& group,
                               uint64_t bytes,
                               uint32_t channels = 1,
                               uint64_t chunkBytes = 0);

/**
 * NVLS inside each server, in-network aggregation across servers: NCCL's NVLS algorithm
 * across nodes with SHARP (its CollNet/NVLS+SHARP shape). Shard p (about bytes / g)
 * belongs to the GPUs at position p, one per server (rail p); per piece of a shard:
 * (1) each server's NVSwitch reduces the piece of its g GPUs into its GPU p
 *     (SWITCH_REDUCE over the server's member set);
 * (2) rail p's aggregation tree all-reduces the servers' partial sums in the network
 *     (SWITCH_ALL_REDUCE over the rail's member set);
 * (3) each server's NVSwitch multicasts the sum to its GPUs (SWITCH_MULTICAST).
 * Bytes per GPU and direction: S + S/g on NVLink (as NVLS); S/g on the NIC, against
 * the hierarchical ring's 2(s-1)/s x S/g: the same for 2 servers, (2 - 2/s) times less
 * for s. Needs a carrier that reduces in every server's switch and aggregates every
 * rail in the network.
 * \param group ranks and where they run; same number of ranks on every server
 * \param bytes buffer size
 * \param chunkBytes piece size (0: CollectiveDefaultChunkBytes, NVLS's 128 KiB)
 * \return the plan (algorithm "nvls-ina")
 */
CommPlan NvlsInaAllReduce(const CommGroup& group, uint64_t bytes, uint64_t chunkBytes = 0);

/**
 * NVLS inside each server, a tree across servers over the NICs: NCCL's NVLSTree. Shard p
 * (about bytes / g) belongs to rail p; per piece of a shard:
 * (1) each server's NVSwitch reduces the piece of its g GPUs into its GPU p;
 * (2) a binary tree over rail p's GPUs (servers in order, position v's parent (v - 1) / 2;
 *     every other piece on the mirrored tree, as NCCL's double binary tree) reduces the
 *     servers' sums up to its root, point to point;
 * (3) the root's total goes back down the tree;
 * (4) each server's NVSwitch multicasts the total to its GPUs.
 * No switch aggregates in the network: per piece, 2 (s - 1) point-to-point transfers over
 * rail p (one up and one down per tree edge), spread over the servers' NICs by the two
 * mirrored trees. Bytes per GPU and direction on NVLink: S + S/g (as NVLS). Needs at
 * least two servers whose switches reduce.
 * \param group ranks and where they run; same number of ranks on every server
 * \param bytes buffer size
 * \param chunkBytes piece size (0: CollectiveDefaultChunkBytes, NVLS's 128 KiB)
 * \return the plan (algorithm "nvls-tree")
 */
CommPlan NvlsTreeAllReduce(const CommGroup& group, uint64_t bytes, uint64_t chunkBytes = 0);

/**
 * NCCL's tree across servers (all-reduce): per channel c, a chain inside every server from
 * its GPU c mod g (the head, on that rail's NIC) through the others in local order, and the
 * servers' heads joined by a binary tree (even channels the tree, odd ones its mirror: the
 * double binary tree of TreeAllReduce, over servers). Each piece is reduced up the chains
 * and the tree to the root server's head and copied back down; pieces alternate over the
 * channels. Latency per piece 2 ((g - 1) NVLink hops + log2(s) network hops), as NCCL's
 * tree model counts it.
 * \param group ranks and where they run; two servers or more, the same GPUs on each
 * \param bytes buffer size
 * \param channels trees side by side
 * \param chunkBytes piece size (0: none)
 * \return the plan (algorithm "tree")
 */
CommPlan TreeAllReduceAcrossServers(const CommGroup& group,
                                    uint64_t bytes,
                                    uint32_t channels,
                                    uint64_t chunkBytes = 0);

/**
 * \param group the group the plan was built for
 * \param transfer a transfer of that plan
 * \return true if the transfer stays inside one server (NVLink/NVSwitch), false if it
 *         crosses servers (RDMA)
 */
bool IsIntraServerTransfer(const CommGroup& group, const CommPlan::Transfer& transfer);

} // namespace ns3

#endif // COLLECTIVE_HIERARCHICAL_H
