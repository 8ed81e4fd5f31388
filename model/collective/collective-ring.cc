// SPDX-License-Identifier: GPL-2.0-only
// Ring and chain generators: all-reduce, reduce-scatter, all-gather, broadcast, reduce.
#include "collective-algorithms.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/comm-group.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace ns3
{

namespace
{

/// No transfer yet.
constexpr uint32_t NONE = std::numeric_limits<uint32_t>::max();

/// Abort on arguments no ring can use.
void
CheckRingArgs(const char* who, uint32_t n, uint32_t channels)
{
    NS_ABORT_MSG_IF(n == 0, who << ": the group is empty");
    NS_ABORT_MSG_IF(channels == 0, who << ": channels must be at least 1");
}

/**
 * Shared body of the ring reduce-scatter, all-gather and all-reduce.
 *
 * Data layout: shard j (SplitBytes(bytes, n, j)) is cut into channels x rounds
 * sub-blocks; sub-block i of shard j is block j * instances + i and travels in ring
 * instance i (channel i % channels, round i / channels). Keeping shards contiguous makes
 * reduce-scatter's "rank r ends with shard r" and all-gather's "rank r starts with
 * shard r" literal, and all-reduce simply uses the same layout.
 *
 * Reduce-scatter phase, step k = 0..n-2: rank r sends its partial sum of shard
 * (r - k - 1) mod n to r + 1, which reduces it into its own copy. Shard j starts at
 * rank j + 1 and, after n - 1 hops, ends at rank j holding every contribution.
 * All-gather phase, step k: rank r forwards shard (r - k) mod n, starting with the one it
 * owns. In both phases a rank's step-k send depends on the step k-1 transfer it
 * received in the same instance: that transfer wrote exactly the block it now forwards.
 */
CommPlan
BuildRing(CollectiveType type,
          uint32_t n,
          uint64_t bytes,
          uint32_t channels,
          uint64_t chunkBytes,
          bool reduceScatter,
          bool allGather,
          const std::vector<std::vector<uint32_t>>* orders = nullptr,
          uint32_t transfersPerPhase = 0)
{
    // Positions p = 0..n-1 walk each channel's ring; rank at position p is p itself, or
    // orders[c][p] when the caller orders each channel's ring. Shards are named by the
    // rank that owns them (reduce-scatter's result, all-gather's input), so a shard
    // travels the positions of its owner in every channel's order.
    auto rankAt = [orders](uint32_t c, uint32_t p) { return orders ? (*orders)[c][p] : p; };
    CommPlan plan(type, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::RING));
    const uint32_t rounds =
        CollectivePipelineRounds(bytes, static_cast<uint64_t>(n) * channels, chunkBytes);
    NS_ABORT_MSG_IF(static_cast<uint64_t>(n) * channels * rounds > (1u << 26),
                    "ring " << type << ": " << n << " ranks x " << channels << " channels x "
                            << rounds
                            << " rounds is too many blocks for one plan; use fewer "
                               "channels or a larger chunk");
    const uint32_t instances = channels * rounds;
    for (uint32_t j = 0; j < n; ++j)
    {
        const uint64_t shard = CommPlan::SplitBytes(bytes, n, j);
        for (uint32_t i = 0; i < instances; ++i)
        {
            plan.AddBlock(CommPlan::SplitBytes(shard, instances, i),
                          type == CollectiveType::ALL_GATHER ? j : CommPlan::ANY_RANK,
                          type == CollectiveType::REDUCE_SCATTER ? j : CommPlan::ANY_RANK);
        }
    }
    if (n == 1)
    {
        return plan;
    }

    // A coarsened ring carries a phase's n - 1 steps in at most transfersPerPhase
    // transfers per connection, each of g consecutive steps.
    const uint32_t g = transfersPerPhase == 0 ? 1 : (n - 2) / transfersPerPhase + 1;
    // Issue order follows NCCL's loop: round by round, each round's steps in order.
    for (uint32_t round = 0; round < rounds; ++round)
    {
        // lastRecv[c * n + r]: the latest transfer into rank r in instance (round, c).
        std::vector<uint32_t> lastRecv(static_cast<size_t>(channels) * n, NONE);
        uint32_t step = 0;
        auto phase = [&](bool reduce, uint32_t lag) {
            for (uint32_t k = 0; k + 1 < n; k += g)
            {
                const uint32_t steps = std::min(g, n - 1 - k);
                // Deps must name step k-1's receives, so collect this step's separately.
                std::vector<uint32_t> nextRecv = lastRecv;
                for (uint32_t c = 0; c < channels; ++c)
                {
                    const uint32_t instance = round * channels + c;
                    for (uint32_t r = 0; r < n; ++r)
                    {
                        CommPlan::Transfer t;
                        t.src = rankAt(c, r);
                        t.dst = rankAt(c, (r + 1) % n);
                        const uint32_t shard = rankAt(c, (r + 2 * n - k - lag) % n);
                        t.chunk = shard * instances + instance;
                        t.reduce = reduce;
                        t.channel = c;
                        t.step = step;
                        t.steps = steps;
                        for (uint32_t s = 0; steps > 1 && s < steps; ++s)
                        {
                            // Steps k..k+steps-1 send the shards the fine ring would.
                            const uint32_t b = rankAt(c, (r + 2 * n - k - s - lag) % n);
                            t.bytes += plan.GetBlock(b * instances + instance).bytes;
                        }
                        if (lastRecv[c * n + r] != NONE)
                        {
                            t.deps.push_back(lastRecv[c * n + r]);
                        }
                        nextRecv[c * n + (r + 1) % n] = plan.AddTransfer(std::move(t));
                    }
                }
                lastRecv.swap(nextRecv);
                step += steps;
            }
        };
        if (reduceScatter)
        {
            phase(true, 1);
        }
        if (allGather)
        {
            // After the reduce-scatter, the last receive into r delivered shard r: the
            // one the all-gather's first step sends, so the dependency carries over.
            phase(false, 0);
        }
    }
    return plan;
}

/**
 * Check per-channel ring orders: at least one, each a permutation of 0..n-1 of the same n.
 * \param who the generator, for the message
 * \param orders the orders
 * \return n
 */
uint32_t
CheckOrders(const char* who, const std::vector<std::vector<uint32_t>>& orders)
{
    NS_ABORT_MSG_IF(orders.empty(), who << ": at least one channel is needed");
    const uint32_t n = static_cast<uint32_t>(orders[0].size());
    for (std::size_t c = 0; c < orders.size(); ++c)
    {
        std::vector<bool> seen(n, false);
        NS_ABORT_MSG_IF(orders[c].size() != n,
                        who << ": channel " << c << " orders " << orders[c].size()
                            << " ranks, channel 0 " << n);
        for (uint32_t r : orders[c])
        {
            NS_ABORT_MSG_IF(r >= n || seen[r],
                            who << ": channel " << c << " is not a permutation of 0.." << n - 1
                                << " (rank " << r << ")");
            seen[r] = true;
        }
    }
    CheckRingArgs(who, n, static_cast<uint32_t>(orders.size()));
    return n;
}

/**
 * Shared body of the chain broadcast and reduce. The chain visits root, root+1, ...,
 * root-1 (with orders, channel c visits orders[c] from root's place in it on, around);
 * broadcast copies along it from the root, reduce reduces along it towards the root
 * (starting at the rank after it). Chunks pipeline down the chain: hop h of a chunk
 * depends on hop h-1 of the same chunk and, as NCCL's connections have NCCL_STEPS (8)
 * buffer slots, on the slot its receiver frees: the same channel's chunk 8 before it
 * passed on by the receiver (hop h+1), or received by it at the chain's end.
 */
CommPlan
BuildChain(CollectiveType type,
           uint32_t n,
           uint64_t bytes,
           uint32_t root,
           uint32_t channels,
           uint64_t chunkBytes,
           const std::vector<std::vector<uint32_t>>* orders = nullptr)
{
    const bool reduce = type == CollectiveType::REDUCE;
    CommPlan plan(type, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::RING));
    plan.SetRoot(root);
    // At most MAX_CHAIN_ROUNDS chunks a channel: a finer chunk (an LL chain of GiBs) is
    // coarsened, which leaves out less than hops / MAX_CHAIN_ROUNDS of the pipeline's fill.
    if (chunkBytes != 0)
    {
        const uint64_t perRound = uint64_t{channels} * MAX_CHAIN_ROUNDS;
        chunkBytes = std::max(chunkBytes, bytes / perRound + (bytes % perRound ? 1 : 0));
    }
    const uint32_t rounds = CollectivePipelineRounds(bytes, channels, chunkBytes);
    NS_ABORT_MSG_IF(static_cast<uint64_t>(channels) * rounds * n > (1u << 26),
                    "ring " << type << ": " << channels << " channels x " << rounds
                            << " chunks over " << n
                            << " ranks is too many transfers for one plan; use a larger chunk");
    const uint32_t nBlocks = channels * rounds;
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        plan.AddBlock(CommPlan::SplitBytes(bytes, nBlocks, b),
                      reduce ? CommPlan::ANY_RANK : root,
                      reduce ? root : CommPlan::ANY_RANK);
    }
    // Per channel, the place of the root in its order (the identity without orders).
    std::vector<uint32_t> rootAt(channels, root);
    if (orders)
    {
        for (uint32_t c = 0; c < channels; ++c)
        {
            const std::vector<uint32_t>& order = (*orders)[c];
            rootAt[c] =
                static_cast<uint32_t>(std::find(order.begin(), order.end(), root) - order.begin());
        }
    }
    auto rankAt = [orders](uint32_t c, uint32_t place) {
        return orders ? (*orders)[c][place] : place;
    };
    // The transfer of block b over hop h, as they are added (block by block, hop by hop).
    auto hopId = [n](uint32_t b, uint32_t h) { return b * (n - 1) + h; };
    const uint64_t window = uint64_t{NCCL_CONNECTION_SLOTS} * channels; // blocks back
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        const uint32_t c = b % channels;
        const uint32_t first = reduce ? rootAt[c] + 1 : rootAt[c];
        for (uint32_t h = 0; h + 1 < n; ++h)
        {
            CommPlan::Transfer t;
            t.src = rankAt(c, (first + h) % n);
            t.dst = rankAt(c, (first + h + 1) % n);
            t.chunk = b;
            t.reduce = reduce;
            t.channel = c;
            t.step = h;
            if (h > 0)
            {
                t.deps.push_back(hopId(b, h - 1));
            }
            if (b >= window)
            {
                const auto older = static_cast<uint32_t>(b - window);
                t.deps.push_back(hopId(older, h + 2 < n ? h + 1 : h));
            }
            const uint32_t id = plan.AddTransfer(std::move(t));
            NS_ASSERT(id == hopId(b, h));
        }
    }
    return plan;
}

/**
 * BuildRing for the collectives made of ring phases: all-reduce (reduce-scatter then
 * all-gather), reduce-scatter, all-gather; aborts on any other.
 * \param who the generator, for the message
 * \return the plan
 */
CommPlan
BuildRingPhases(const char* who,
                CollectiveType type,
                uint32_t n,
                uint64_t bytes,
                uint32_t channels,
                uint64_t chunkBytes,
                const std::vector<std::vector<uint32_t>>* orders,
                uint32_t transfersPerPhase)
{
    NS_ABORT_MSG_IF(type != CollectiveType::ALL_REDUCE && type != CollectiveType::REDUCE_SCATTER &&
                        type != CollectiveType::ALL_GATHER,
                    who << ": no ring phases in " << type);
    return BuildRing(type,
                     n,
                     bytes,
                     channels,
                     chunkBytes,
                     type != CollectiveType::ALL_GATHER,
                     type != CollectiveType::REDUCE_SCATTER,
                     orders,
                     transfersPerPhase);
}

} // namespace

CommPlan
RingAllReduce(uint32_t n, uint64_t bytes, uint32_t channels, uint64_t chunkBytes)
{
    CheckRingArgs("RingAllReduce", n, channels);
    return BuildRing(CollectiveType::ALL_REDUCE, n, bytes, channels, chunkBytes, true, true);
}

CommPlan
RingAllReduceOrdered(const std::vector<std::vector<uint32_t>>& orders,
                     uint64_t bytes,
                     uint64_t chunkBytes)
{
    return RingOrdered(CollectiveType::ALL_REDUCE, orders, bytes, chunkBytes);
}

CommPlan
RingCoarsened(CollectiveType type,
              uint32_t n,
              uint64_t bytes,
              uint32_t channels,
              uint64_t chunkBytes,
              uint32_t transfersPerPhase)
{
    CheckRingArgs("RingCoarsened", n, channels);
    return BuildRingPhases("RingCoarsened",
                           type,
                           n,
                           bytes,
                           channels,
                           chunkBytes,
                           nullptr,
                           transfersPerPhase);
}

CommPlan
RingOrdered(CollectiveType type,
            const std::vector<std::vector<uint32_t>>& orders,
            uint64_t bytes,
            uint64_t chunkBytes,
            uint32_t transfersPerPhase)
{
    const uint32_t n = CheckOrders("RingOrdered", orders);
    return BuildRingPhases("RingOrdered",
                           type,
                           n,
                           bytes,
                           static_cast<uint32_t>(orders.size()),
                           chunkBytes,
                           &orders,
                           transfersPerPhase);
}

std::vector<std::vector<uint32_t>>
RailAlignedRingOrders(const CommGroup& group, uint32_t channels)
{
    NS_ABORT_MSG_IF(!group.IsUniform(), "RailAlignedRingOrders: servers must hold the same GPUs");
    const uint32_t servers = group.GetNServers();
    const uint32_t g = group.GetSize() / servers;
    std::vector<std::vector<uint32_t>> orders;
    for (uint32_t c = 0; c < channels; ++c)
    {
        // Enter server s at GPU a and leave it at GPU b = a - 1; the next server is
        // entered at b and walked the other way, so every hop between servers joins
        // the same local index: it stays on one rail. Channel c starts at GPU c, so the
        // channels spread over all rails (all NICs).
        const uint32_t a = c % g;
        std::vector<uint32_t> order;
        for (uint32_t s = 0; s < servers; ++s)
        {
            // Index by GPU local index, not by rank number: the two orders may differ.
            const std::vector<uint32_t> ranks =
                group.GetRanksOnServerByLocalIndex(group.GetServers()[s]);
            for (uint32_t k = 0; k < g; ++k)
            {
                uint32_t local = (s % 2 == 0) ? (a + k) % g : (a + g - 1 - k) % g;
                order.push_back(ranks[local]);
            }
        }
        orders.push_back(order);
    }
    return orders;
}

CommPlan
RingReduceScatter(uint32_t n, uint64_t bytes, uint32_t channels, uint64_t chunkBytes)
{
    CheckRingArgs("RingReduceScatter", n, channels);
    return BuildRing(CollectiveType::REDUCE_SCATTER, n, bytes, channels, chunkBytes, true, false);
}

CommPlan
RingAllGather(uint32_t n, uint64_t bytes, uint32_t channels, uint64_t chunkBytes)
{
    CheckRingArgs("RingAllGather", n, channels);
    return BuildRing(CollectiveType::ALL_GATHER, n, bytes, channels, chunkBytes, false, true);
}

CommPlan
RingBroadcast(uint32_t n, uint64_t bytes, uint32_t root, uint32_t channels, uint64_t chunkBytes)
{
    CheckRingArgs("RingBroadcast", n, channels);
    NS_ABORT_MSG_IF(root >= n,
                    "RingBroadcast: root " << root << " is not a rank of a group of " << n);
    return BuildChain(CollectiveType::BROADCAST, n, bytes, root, channels, chunkBytes);
}

CommPlan
RingReduce(uint32_t n, uint64_t bytes, uint32_t root, uint32_t channels, uint64_t chunkBytes)
{
    CheckRingArgs("RingReduce", n, channels);
    NS_ABORT_MSG_IF(root >= n, "RingReduce: root " << root << " is not a rank of a group of " << n);
    return BuildChain(CollectiveType::REDUCE, n, bytes, root, channels, chunkBytes);
}

CommPlan
ChainOrdered(CollectiveType type,
             const std::vector<std::vector<uint32_t>>& orders,
             uint64_t bytes,
             uint32_t root,
             uint64_t chunkBytes)
{
    NS_ABORT_MSG_IF(!IsRootedCollective(type), "ChainOrdered: no ordered chain for " << type);
    const uint32_t n = CheckOrders("ChainOrdered", orders);
    NS_ABORT_MSG_IF(root >= n,
                    "ChainOrdered: root " << root << " is not a rank of a group of " << n);
    return BuildChain(type,
                      n,
                      bytes,
                      root,
                      static_cast<uint32_t>(orders.size()),
                      chunkBytes,
                      &orders);
}

} // namespace ns3
