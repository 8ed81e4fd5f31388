// SPDX-License-Identifier: GPL-2.0-only
// NVLS inside each server and, across servers, in-network aggregation (nvls-ina) or a
// tree over the NICs (nvls-tree): see collective-hierarchical.h.
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
                        "nvls all-reduce across servers: needs the same number of GPUs on every "
                        "server, "
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

/// Add to plan the transfers of block chunk, a piece of shard p: reduce in each server,
/// a binary tree over rail p's GPUs (the servers in order, or reversed: mirror) reduces
/// the servers' sums up to its root and sends the total back down, multicast in each
/// server.
void
AddTreePieceTransfers(CommPlan& plan,
                      const std::vector<std::vector<uint32_t>>& rank,
                      const std::vector<uint32_t>& serverSet,
                      uint32_t chunk,
                      uint32_t p,
                      bool mirror)
{
    const auto s = static_cast<uint32_t>(rank.size());
    // Tree position v is server at(v); the parent of v > 0 is (v - 1) / 2.
    auto at = [s, mirror](uint32_t v) { return mirror ? s - 1 - v : v; };
    CommPlan::Transfer t;
    t.chunk = chunk;
    t.channel = p;
    // (1) Each server's NVSwitch sums the piece into its GPU at position p.
    std::vector<uint32_t> reduced(s);
    for (uint32_t i = 0; i < s; ++i)
    {
        t.kind = CommPlan::Kind::SWITCH_REDUCE;
        t.src = t.dst = rank[i][p];
        t.members = serverSet[i];
        t.step = 0;
        reduced[i] = plan.AddTransfer(t);
    }
    // (2) Up the tree, deepest positions first: a position's sum (its server's and its
    // children's) goes into its parent's, after the parent's switch reduction wrote it.
    std::vector<std::vector<uint32_t>> into(s); // per position: the sums reduced into it
    t.kind = CommPlan::Kind::POINT_TO_POINT;
    t.members = CommPlan::ALL_MEMBERS;
    t.reduce = true;
    t.step = 1;
    for (uint32_t v = s - 1; v > 0; --v)
    {
        const uint32_t parent = (v - 1) / 2;
        t.src = rank[at(v)][p];
        t.dst = rank[at(parent)][p];
        t.deps = into[v];
        t.deps.push_back(reduced[at(v)]);
        t.deps.push_back(reduced[at(parent)]);
        into[parent].push_back(plan.AddTransfer(t));
    }
    // (3) Down the tree from the root, which holds the total once its children's sums are in.
    std::vector<std::vector<uint32_t>> ready(s); // per position: what makes its total
    ready[0] = into[0].empty() ? std::vector<uint32_t>{reduced[at(0)]} : into[0];
    t.reduce = false;
    t.step = 2;
    for (uint32_t v = 1; v < s; ++v)
    {
        t.src = rank[at((v - 1) / 2)][p];
        t.dst = rank[at(v)][p];
        t.deps = ready[(v - 1) / 2];
        ready[v] = {plan.AddTransfer(t)};
    }
    // (4) Each server's NVSwitch multicasts the total to its GPUs.
    for (uint32_t v = 0; v < s; ++v)
    {
        t.kind = CommPlan::Kind::SWITCH_MULTICAST;
        t.src = t.dst = rank[at(v)][p];
        t.members = serverSet[at(v)];
        t.step = 3;
        t.deps = ready[v];
        plan.AddTransfer(t);
    }
}

/// The shards' pieces: first[p] is the first block of shard p, rounds pieces each.
uint32_t
AddShardBlocks(CommPlan& plan,
               uint64_t bytes,
               uint32_t g,
               uint64_t chunk,
               std::vector<uint32_t>& first)
{
    const uint32_t rounds = CollectivePipelineRounds(bytes, g, chunk);
    first.assign(g, 0);
    for (uint32_t p = 0; p < g; ++p)
    {
        const uint64_t shard = CommPlan::SplitBytes(bytes, g, p);
        first[p] = plan.GetNBlocks();
        for (uint32_t q = 0; q < rounds; ++q)
        {
            plan.AddBlock(CommPlan::SplitBytes(shard, rounds, q));
        }
    }
    return rounds;
}
} // namespace

CommPlan
NvlsTreeAllReduce(const CommGroup& group, uint64_t bytes, uint64_t chunkBytes)
{
    const uint32_t n = group.GetSize();
    NS_ABORT_MSG_IF(n == 0, "nvls-tree all-reduce: the group is empty");
    const std::vector<std::vector<uint32_t>> rank = RanksByServer(group);
    const auto s = static_cast<uint32_t>(rank.size());
    const auto g = static_cast<uint32_t>(rank.front().size());
    CommPlan plan(CollectiveType::ALL_REDUCE, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::NVLS_TREE));
    std::vector<uint32_t> serverSet(s);
    for (uint32_t i = 0; i < s; ++i)
    {
        serverSet[i] = plan.AddMemberSet(rank[i]);
    }
    const uint64_t chunk = chunkBytes == 0
                               ? CollectiveDefaultChunkBytes(CollectiveAlgorithm::NVLS_TREE,
                                                             CollectiveType::ALL_REDUCE)
                               : chunkBytes;
    std::vector<uint32_t> first;
    const uint32_t rounds = AddShardBlocks(plan, bytes, g, chunk, first);
    for (uint32_t q = 0; q < rounds; ++q)
    {
        for (uint32_t p = 0; p < g; ++p)
        {
            // Two trees, as NCCL's double binary tree: every other piece on the mirror.
            AddTreePieceTransfers(plan, rank, serverSet, first[p] + q, p, (p + q) % 2 == 1);
        }
    }
    return plan;
}

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
    std::vector<uint32_t> first;
    const uint32_t rounds = AddShardBlocks(plan, bytes, g, chunk, first);
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
