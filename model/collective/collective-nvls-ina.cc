// SPDX-License-Identifier: GPL-2.0-only
// NVLS inside each server, in-network aggregation across servers (see
// collective-hierarchical.h).
#include "collective-algorithms.h"
#include "collective-hierarchical.h"

#include "ns3/abort.h"

#include <vector>

namespace ns3
{

namespace
{
/// rank[i][p]: the rank at position p (by local index) of the i-th server of group
/// (aborts unless every server has the same number of ranks).
std::vector<std::vector<uint32_t>>
RanksByServer(const CommGroup& group)
{
    std::vector<std::vector<uint32_t>> rank;
    for (uint32_t server : group.GetServers())
    {
        std::vector<uint32_t> ranks = group.GetRanksOnServerByLocalIndex(server);
        NS_ABORT_MSG_IF(!rank.empty() && ranks.size() != rank.front().size(),
                        "nvls-ina all-reduce: needs the same number of GPUs on every server, "
                        "but server "
                            << server << " has " << ranks.size() << " and another "
                            << rank.front().size());
        rank.push_back(std::move(ranks));
    }
    return rank;
}

/// Add to plan the transfers of block chunk, a piece of shard p: reduce in each server,
/// all-reduce over rail p, multicast in each server.
void
AddPieceTransfers(CommPlan& plan,
                  const std::vector<std::vector<uint32_t>>& rank,
                  const std::vector<uint32_t>& serverSet,
                  const std::vector<uint32_t>& railSet,
                  uint32_t chunk,
                  uint32_t p)
{
    const auto s = static_cast<uint32_t>(rank.size());
    CommPlan::Transfer t;
    t.chunk = chunk;
    t.channel = p;
    // (1) Each server's NVSwitch sums the piece into its GPU at position p.
    std::vector<uint32_t> reduced;
    for (uint32_t i = 0; i < s; ++i)
    {
        t.kind = CommPlan::Kind::SWITCH_REDUCE;
        t.src = t.dst = rank[i][p];
        t.members = serverSet[i];
        t.step = 0;
        reduced.push_back(plan.AddTransfer(t));
    }
    // (2) Rail p's aggregation tree sums the servers' partial sums.
    t.kind = CommPlan::Kind::SWITCH_ALL_REDUCE;
    t.src = t.dst = rank[0][p];
    t.members = railSet[p];
    t.step = 1;
    t.deps = reduced;
    const uint32_t aggregated = plan.AddTransfer(t);
    // (3) Each server's NVSwitch multicasts the sum to its GPUs.
    for (uint32_t i = 0; i < s; ++i)
    {
        t.kind = CommPlan::Kind::SWITCH_MULTICAST;
        t.src = t.dst = rank[i][p];
        t.members = serverSet[i];
        t.step = 2;
        t.deps = {aggregated};
        plan.AddTransfer(t);
    }
}
} // namespace

CommPlan
NvlsInaAllReduce(const CommGroup& group, uint64_t bytes, uint64_t chunkBytes)
{
    const uint32_t n = group.GetSize();
    NS_ABORT_MSG_IF(n == 0, "nvls-ina all-reduce: the group is empty");
    // rank[i][p]: the rank at position p (by local index) of the i-th server.
    const std::vector<std::vector<uint32_t>> rank = RanksByServer(group);
    const auto s = static_cast<uint32_t>(rank.size());
    const auto g = static_cast<uint32_t>(rank.front().size());
    CommPlan plan(CollectiveType::ALL_REDUCE, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::NVLS_INA));
    // Member sets: every server's GPUs (its NVSwitch), every rail's GPUs (its aggregation
    // tree on the scale-out fabric).
    std::vector<uint32_t> serverSet(s);
    for (uint32_t i = 0; i < s; ++i)
    {
        serverSet[i] = plan.AddMemberSet(rank[i]);
    }
    std::vector<uint32_t> railSet(g);
    for (uint32_t p = 0; p < g; ++p)
    {
        std::vector<uint32_t> rail;
        for (uint32_t i = 0; i < s; ++i)
        {
            rail.push_back(rank[i][p]);
        }
        railSet[p] = plan.AddMemberSet(rail);
    }
    // Shard p (about bytes / g) belongs to position p; it is cut into pieces of about
    // chunkBytes, taken in rounds as NVLS does.
    const uint64_t chunk =
        chunkBytes == 0
            ? CollectiveDefaultChunkBytes(CollectiveAlgorithm::NVLS_INA, CollectiveType::ALL_REDUCE)
            : chunkBytes;
    const uint32_t rounds = CollectivePipelineRounds(bytes, g, chunk);
    std::vector<uint32_t> first(g);
    for (uint32_t p = 0; p < g; ++p)
    {
        const uint64_t shard = CommPlan::SplitBytes(bytes, g, p);
        first[p] = plan.GetNBlocks();
        for (uint32_t q = 0; q < rounds; ++q)
        {
            plan.AddBlock(CommPlan::SplitBytes(shard, rounds, q));
        }
    }
    for (uint32_t q = 0; q < rounds; ++q)
    {
        for (uint32_t p = 0; p < g; ++p)
        {
            AddPieceTransfers(plan, rank, serverSet, railSet, first[p] + q, p);
        }
    }
    return plan;
}

} // namespace ns3
