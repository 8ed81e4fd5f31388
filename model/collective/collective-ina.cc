// SPDX-License-Identifier: GPL-2.0-only
// In-network aggregation plans (see collective-algorithms.h).
#include "collective-algorithms.h"

#include "ns3/abort.h"

namespace ns3
{

CommPlan
InaAllReduce(uint32_t n, uint64_t bytes, uint32_t channels, uint64_t chunkBytes)
{
    NS_ABORT_MSG_IF(n == 0, "ina all-reduce: the group is empty");
    NS_ABORT_MSG_IF(channels == 0, "ina all-reduce: needs a channel");
    CommPlan plan(CollectiveType::ALL_REDUCE, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::INA));
    const uint32_t rounds = CollectivePipelineRounds(bytes, channels, chunkBytes);
    for (uint32_t c = 0; c < channels; ++c)
    {
        const uint64_t share = CommPlan::SplitBytes(bytes, channels, c);
        for (uint32_t q = 0; q < rounds; ++q)
        {
            CommPlan::Transfer t;
            t.kind = CommPlan::Kind::SWITCH_ALL_REDUCE;
            t.src = 0;
            t.dst = 0;
            t.chunk = plan.AddBlock(CommPlan::SplitBytes(share, rounds, q));
            t.channel = c;
            t.step = q;
            plan.AddTransfer(t);
        }
    }
    return plan;
}

namespace
{

/**
 * The in-network reduces or multicasts of a collective: each owner's data (a shard of
 * reduce-scatter or all-gather, the root's whole buffer for reduce or broadcast) is cut
 * into channels x rounds pieces, each one NETWORK_REDUCE into its owner (reducing
 * collectives) or NETWORK_MULTICAST from it. Transfers are issued round by round, owner
 * by owner, so the job's stream (InaWorker) takes every owner's q-th piece in turn.
 */
CommPlan
BuildInaOwned(CollectiveType type,
              uint32_t n,
              uint64_t bytes,
              const std::vector<uint32_t>& owners,
              uint32_t channels,
              uint64_t chunkBytes)
{
    NS_ABORT_MSG_IF(n == 0, "ina " << type << ": the group is empty");
    NS_ABORT_MSG_IF(channels == 0, "ina " << type << ": needs a channel");
    const bool reducing = type == CollectiveType::REDUCE_SCATTER || type == CollectiveType::REDUCE;
    CommPlan plan(type, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::INA));
    const bool whole = owners.size() == 1; // reduce, broadcast: the root owns all of it
    if (whole)
    {
        plan.SetRoot(owners[0]);
    }
    const uint64_t largest = whole ? bytes : CommPlan::SplitBytes(bytes, n, 0);
    const uint32_t rounds = CollectivePipelineRounds(largest, channels, chunkBytes);
    std::vector<uint32_t> first(owners.size()); // block of (channel 0, round 0) per owner
    for (uint32_t i = 0; i < owners.size(); ++i)
    {
        const uint32_t g = owners[i];
        const uint64_t owned = whole ? bytes : CommPlan::SplitBytes(bytes, n, g);
        first[i] = plan.GetNBlocks();
        for (uint32_t c = 0; c < channels; ++c)
        {
            const uint64_t share = CommPlan::SplitBytes(owned, channels, c);
            for (uint32_t q = 0; q < rounds; ++q)
            {
                const uint64_t piece = CommPlan::SplitBytes(share, rounds, q);
                plan.AddBlock(piece,
                              reducing ? CommPlan::ANY_RANK : g,
                              reducing ? g : CommPlan::ANY_RANK);
            }
        }
    }
    for (uint32_t q = 0; q < rounds; ++q)
    {
        for (uint32_t i = 0; i < owners.size(); ++i)
        {
            for (uint32_t c = 0; c < channels; ++c)
            {
                CommPlan::Transfer t;
                t.kind =
                    reducing ? CommPlan::Kind::NETWORK_REDUCE : CommPlan::Kind::NETWORK_MULTICAST;
                t.src = owners[i];
                t.dst = owners[i];
                t.chunk = first[i] + c * rounds + q;
                t.channel = c;
                t.step = q;
                plan.AddTransfer(t);
            }
        }
    }
    return plan;
}

/// \return 0 .. n-1
std::vector<uint32_t>
EveryRank(uint32_t n)
{
    std::vector<uint32_t> ranks(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        ranks[r] = r;
    }
    return ranks;
}

} // namespace

CommPlan
InaReduceScatter(uint32_t n, uint64_t bytes, uint32_t channels, uint64_t chunkBytes)
{
    return BuildInaOwned(CollectiveType::REDUCE_SCATTER,
                         n,
                         bytes,
                         EveryRank(n),
                         channels,
                         chunkBytes);
}

CommPlan
InaAllGather(uint32_t n, uint64_t bytes, uint32_t channels, uint64_t chunkBytes)
{
    return BuildInaOwned(CollectiveType::ALL_GATHER, n, bytes, EveryRank(n), channels, chunkBytes);
}

CommPlan
InaBroadcast(uint32_t n, uint64_t bytes, uint32_t root, uint32_t channels, uint64_t chunkBytes)
{
    NS_ABORT_MSG_IF(root >= n,
                    "ina broadcast: root " << root << " is not a rank of a group of " << n);
    return BuildInaOwned(CollectiveType::BROADCAST, n, bytes, {root}, channels, chunkBytes);
}

CommPlan
InaReduce(uint32_t n, uint64_t bytes, uint32_t root, uint32_t channels, uint64_t chunkBytes)
{
    NS_ABORT_MSG_IF(root >= n, "ina reduce: root " << root << " is not a rank of a group of " << n);
    return BuildInaOwned(CollectiveType::REDUCE, n, bytes, {root}, channels, chunkBytes);
}

} // namespace ns3
