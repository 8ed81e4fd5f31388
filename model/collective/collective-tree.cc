// SPDX-License-Identifier: GPL-2.0-only
// Binary-tree generators: (double) tree all-reduce, tree broadcast, tree reduce, and NCCL's
// tree across servers (chains inside, a double binary tree between servers).
#include "collective-algorithms.h"
#include "collective-hierarchical.h"

#include "ns3/abort.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

namespace ns3
{

namespace
{

/// No transfer yet.
constexpr uint32_t NONE = std::numeric_limits<uint32_t>::max();

/// \return the largest power of two not above n (n >= 1), without overflowing
uint32_t
LargestPowerOfTwoAtMost(uint32_t n)
{
    uint32_t top = 1;
    while (top <= n / 2)
    {
        top *= 2;
    }
    return top;
}

/**
 * A spanning binary tree over ranks 0..n-1.
 *
 * Shape: the balanced in-order tree over positions 1..n. A position p whose lowest set
 * bit is b spans the positions (p - b, p + b); its left child is p - b/2 and its right
 * child the largest p + b/2^i (i >= 1) that still exists, so positions past n are
 * skipped without unbalancing the rest. The root is the largest power of two not above
 * n, the depth is floor(log2 n), and the odd positions are exactly the leaves: half of
 * the nodes, alternating with the inner ones. That alternation is what lets two trees
 * shifted by one position (NCCL's double binary tree) have complementary leaves.
 */
struct BinaryTree
{
    uint32_t root{0};
    std::vector<uint32_t> parent;                //!< NONE for the root
    std::vector<std::vector<uint32_t>> children; //!< per rank
    std::vector<uint32_t> depth;                 //!< root = 0
    std::vector<uint32_t> height;                //!< leaves = 0
    std::vector<uint32_t> topDown;               //!< parents before children

    /**
     * \param n ranks
     * \param rankOf maps a position 1..n to its rank (a bijection)
     */
    BinaryTree(uint32_t n, const std::function<uint32_t(uint32_t)>& rankOf)
        : parent(n, NONE),
          children(n),
          depth(n, 0),
          height(n, 0)
    {
        const uint32_t top = LargestPowerOfTwoAtMost(n);
        root = rankOf(top);
        // Breadth-first over positions, so topDown is a valid parent-first order.
        std::vector<uint32_t> queue{top};
        for (size_t head = 0; head < queue.size(); ++head)
        {
            const uint32_t p = queue[head];
            const uint32_t rp = rankOf(p);
            topDown.push_back(rp);
            const uint32_t b = p & (~p + 1);
            std::vector<uint32_t> kids;
            if (b >= 2)
            {
                kids.push_back(p - b / 2);
                uint32_t step = b / 2;
                while (step >= 1 && static_cast<uint64_t>(p) + step > n)
                {
                    step /= 2;
                }
                if (step >= 1)
                {
                    kids.push_back(p + step);
                }
            }
            for (uint32_t q : kids)
            {
                const uint32_t rq = rankOf(q);
                parent[rq] = rp;
                children[rp].push_back(rq);
                depth[rq] = depth[rp] + 1;
                queue.push_back(q);
            }
        }
        NS_ABORT_MSG_IF(topDown.size() != n, "BinaryTree: the tree misses ranks (internal error)");
        ComputeHeights();
    }

    /**
     * Any spanning tree, by its parents (no tree shape of its own).
     * \param rootRank the root
     * \param parents each rank's parent, NONE for the root
     */
    BinaryTree(uint32_t rootRank, const std::vector<uint32_t>& parents)
        : root(rootRank),
          parent(parents),
          children(parents.size()),
          depth(parents.size(), 0),
          height(parents.size(), 0)
    {
        for (uint32_t v = 0; v < parents.size(); ++v)
        {
            if (parents[v] != NONE)
            {
                children[parents[v]].push_back(v);
            }
        }
        std::vector<uint32_t> queue{root};
        for (size_t head = 0; head < queue.size(); ++head)
        {
            const uint32_t v = queue[head];
            topDown.push_back(v);
            for (uint32_t c : children[v])
            {
                depth[c] = depth[v] + 1;
                queue.push_back(c);
            }
        }
        NS_ABORT_MSG_IF(topDown.size() != parents.size(),
                        "BinaryTree: the parents do not span the ranks (internal error)");
        ComputeHeights();
    }

  private:
    /// Fill height from topDown (leaves 0).
    void ComputeHeights()
    {
        for (auto it = topDown.rbegin(); it != topDown.rend(); ++it)
        {
            if (parent[*it] != NONE)
            {
                height[parent[*it]] = std::max(height[parent[*it]], height[*it] + 1);
            }
        }
    }
};

/// A tree whose root is rank root (positions rotated).
BinaryTree
RootedTree(uint32_t n, uint32_t root)
{
    const uint32_t top = LargestPowerOfTwoAtMost(n);
    return BinaryTree(n, [n, top, root](uint32_t p) { return (p + n - top + root) % n; });
}

/**
 * Reduce block up the tree: every non-root rank sends its partial result to its
 * parent once all its children's partial results have arrived.
 * \param upId filled with the id of the transfer from each rank to its parent
 */
void
AddReduceUp(CommPlan& plan,
            const BinaryTree& tree,
            uint32_t block,
            uint32_t channel,
            std::vector<uint32_t>& upId)
{
    upId.assign(tree.parent.size(), NONE);
    for (auto it = tree.topDown.rbegin(); it != tree.topDown.rend(); ++it)
    {
        const uint32_t v = *it;
        if (v == tree.root)
        {
            continue;
        }
        CommPlan::Transfer t;
        t.src = v;
        t.dst = tree.parent[v];
        t.chunk = block;
        t.reduce = true;
        t.channel = channel;
        t.step = tree.height[v];
        for (uint32_t c : tree.children[v])
        {
            t.deps.push_back(upId[c]);
        }
        upId[v] = plan.AddTransfer(std::move(t));
    }
}

/**
 * Copy block down the tree: the root sends once rootDeps have arrived; every other
 * rank forwards once its parent's copy has arrived.
 */
void
AddBroadcastDown(CommPlan& plan,
                 const BinaryTree& tree,
                 uint32_t block,
                 uint32_t channel,
                 uint32_t firstStep,
                 const std::vector<uint32_t>& rootDeps)
{
    std::vector<uint32_t> downId(tree.parent.size(), NONE);
    for (uint32_t v : tree.topDown)
    {
        for (uint32_t c : tree.children[v])
        {
            CommPlan::Transfer t;
            t.src = v;
            t.dst = c;
            t.chunk = block;
            t.channel = channel;
            t.step = firstStep + tree.depth[v];
            if (v == tree.root)
            {
                t.deps = rootDeps;
            }
            else
            {
                t.deps.push_back(downId[v]);
            }
            downId[c] = plan.AddTransfer(std::move(t));
        }
    }
}

/**
 * Cut the plan's buffer into blocks, as many per tree (channel) and in as many rounds as
 * chunkBytes asks, block b on tree b mod trees; reduce each up its tree and copy it back
 * down from the root.
 */
void
AddPipelinedAllReduce(CommPlan& plan, const std::vector<BinaryTree>& trees, uint64_t chunkBytes)
{
    const auto nTrees = static_cast<uint32_t>(trees.size());
    const uint64_t bytes = plan.GetTotalBytes();
    const uint32_t rounds = CollectivePipelineRounds(bytes, nTrees, chunkBytes);
    const uint32_t nBlocks = nTrees * rounds;
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        plan.AddBlock(CommPlan::SplitBytes(bytes, nBlocks, b));
    }
    std::vector<uint32_t> upId;
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        const uint32_t which = b % nTrees;
        const BinaryTree& tree = trees[which];
        AddReduceUp(plan, tree, b, which, upId);
        std::vector<uint32_t> rootDeps;
        for (uint32_t c : tree.children[tree.root])
        {
            rootDeps.push_back(upId[c]);
        }
        AddBroadcastDown(plan, tree, b, which, tree.height[tree.root], rootDeps);
    }
}

} // namespace

CommPlan
TreeAllReduce(uint32_t n, uint64_t bytes, uint64_t chunkBytes, bool doubleTree)
{
    NS_ABORT_MSG_IF(n == 0, "TreeAllReduce: the group is empty");
    CommPlan plan(CollectiveType::ALL_REDUCE, n, bytes);
    const uint32_t nTrees = (doubleTree && n > 1) ? 2 : 1;
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::TREE));
    // Tree 0 puts position p on rank p-1, tree 1 on rank p mod n: leaves (odd
    // positions) of tree 0 are the even ranks, those of tree 1 the odd ranks (plus rank
    // 0 when n is odd, the one overlap an odd count forces).
    std::vector<BinaryTree> trees;
    trees.emplace_back(n, [](uint32_t p) { return p - 1; });
    if (nTrees == 2)
    {
        trees.emplace_back(n, [n](uint32_t p) { return p % n; });
    }
    // Chunks alternate between the trees, so both trees pipeline side by side.
    AddPipelinedAllReduce(plan, trees, chunkBytes);
    return plan;
}

CommPlan
TreeAllReduceAcrossServers(const CommGroup& group,
                           uint64_t bytes,
                           uint32_t channels,
                           uint64_t chunkBytes)
{
    const std::vector<uint32_t> servers = group.GetServers();
    const auto s = static_cast<uint32_t>(servers.size());
    const uint32_t n = group.GetSize();
    NS_ABORT_MSG_IF(!group.IsUniform() || s < 2,
                    "TreeAllReduceAcrossServers: needs two servers or more with the same GPUs");
    NS_ABORT_MSG_IF(channels == 0, "TreeAllReduceAcrossServers: no channels");
    const uint32_t g = n / s;
    CommPlan plan(CollectiveType::ALL_REDUCE, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::TREE));
    // The double binary tree over the servers (positions as TreeAllReduce's).
    std::vector<BinaryTree> between;
    between.emplace_back(s, [](uint32_t p) { return p - 1; });
    between.emplace_back(s, [s](uint32_t p) { return p % s; });
    std::vector<std::vector<uint32_t>> onServer(s);
    for (uint32_t v = 0; v < s; ++v)
    {
        onServer[v] = group.GetRanksOnServerByLocalIndex(servers[v]);
    }
    // Channel c: in every server a chain from local GPU c mod g (the head, on its NIC's
    // rail) through the others in local order; the heads joined by one of the two trees.
    std::vector<BinaryTree> trees;
    for (uint32_t c = 0; c < channels; ++c)
    {
        const BinaryTree& inter = between[c % 2];
        std::vector<uint32_t> parent(n, NONE);
        for (uint32_t v = 0; v < s; ++v)
        {
            const std::vector<uint32_t>& ranks = onServer[v];
            for (uint32_t k = 1; k < g; ++k)
            {
                parent[ranks[(c + k) % g]] = ranks[(c + k - 1) % g];
            }
            if (inter.parent[v] != NONE)
            {
                parent[ranks[c % g]] = onServer[inter.parent[v]][c % g];
            }
        }
        trees.emplace_back(onServer[inter.root][c % g], parent);
    }
    AddPipelinedAllReduce(plan, trees, chunkBytes);
    return plan;
}

CommPlan
TreeBroadcast(uint32_t n, uint64_t bytes, uint32_t root, uint64_t chunkBytes)
{
    NS_ABORT_MSG_IF(n == 0, "TreeBroadcast: the group is empty");
    NS_ABORT_MSG_IF(root >= n,
                    "TreeBroadcast: root " << root << " is not a rank of a group of " << n);
    CommPlan plan(CollectiveType::BROADCAST, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::TREE));
    plan.SetRoot(root);
    const BinaryTree tree = RootedTree(n, root);
    const uint32_t nBlocks = CollectivePipelineRounds(bytes, 1, chunkBytes);
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        plan.AddBlock(CommPlan::SplitBytes(bytes, nBlocks, b), root);
    }
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        AddBroadcastDown(plan, tree, b, 0, 0, {});
    }
    return plan;
}

CommPlan
TreeReduce(uint32_t n, uint64_t bytes, uint32_t root, uint64_t chunkBytes)
{
    NS_ABORT_MSG_IF(n == 0, "TreeReduce: the group is empty");
    NS_ABORT_MSG_IF(root >= n, "TreeReduce: root " << root << " is not a rank of a group of " << n);
    CommPlan plan(CollectiveType::REDUCE, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::TREE));
    plan.SetRoot(root);
    const BinaryTree tree = RootedTree(n, root);
    const uint32_t nBlocks = CollectivePipelineRounds(bytes, 1, chunkBytes);
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        plan.AddBlock(CommPlan::SplitBytes(bytes, nBlocks, b), CommPlan::ANY_RANK, root);
    }
    std::vector<uint32_t> upId;
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        AddReduceUp(plan, tree, b, 0, upId);
    }
    return plan;
}

} // namespace ns3
