// SPDX-License-Identifier: GPL-2.0-only
// The PlanChecker rejects broken plans, each with a specific reason: dropped, duplicated
// or misdirected transfers, missing dependencies, reductions counted twice, broken NVLS
// plans; and it judges what a plan does, not how it is shaped.
#include "plan-test-util.h"

#include "ns3/collective-algorithms.h"
#include "ns3/comm-plan.h"
#include "ns3/plan-checker.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
/// \return the checker's verdict as a one-line description for failure messages
std::string
Verdict(const CommPlan& plan)
{
    PlanCheckResult r = PlanChecker::Check(plan);
    return r.ok ? "ok" : r.reason;
}
} // namespace

// ---------------------------------------------------------------------------------------
// Broken plans are rejected.

TEST(PlanCheckerTest, EveryDroppedTransferIsCaught)
{
    const std::vector<CommPlan> plans = {RingAllReduce(4, 4000),
                                         RingAllReduce(5, 999, 2),
                                         RingReduceScatter(5, 1000),
                                         RingAllGather(4, 1000),
                                         RingBroadcast(5, 1000, 2, 1, 300),
                                         RingReduce(4, 1000, 1),
                                         TreeAllReduce(6, 1000, 400),
                                         TreeBroadcast(7, 1000, 3),
                                         TreeReduce(7, 1000, 6),
                                         HalvingDoublingAllReduce(8, 8000),
                                         HalvingDoublingReduceScatter(4, 400),
                                         HalvingDoublingAllGather(4, 400),
                                         DirectAllToAll(5, 500),
                                         DirectAllGather(4, 400),
                                         SendRecv(3, 2, 0, 100, 2)};
    for (const CommPlan& plan : plans)
    {
        ASSERT_TRUE(PlanChecker::Check(plan).ok) << Verdict(plan);
        for (uint32_t id = 0; id < plan.GetNTransfers(); ++id)
        {
            CommPlan broken = DropTransfer(plan, id);
            ASSERT_TRUE(broken.Validate());
            EXPECT_FALSE(PlanChecker::Check(broken).ok)
                << plan.GetType() << " " << plan.GetAlgorithm() << ": dropping transfer " << id
                << " went unnoticed";
        }
    }
}

TEST(PlanCheckerTest, DuplicatedTransfersAreCaught)
{
    // A second copy of a reduction counts contributions twice; a second copy of a plain
    // transfer delivers the same data twice. Often the copy also races with later
    // transfers that do not wait for it, which is reported first; either way it fails.
    for (const CommPlan& plan : {RingAllReduce(4, 4000),
                                 TreeAllReduce(7, 700, 100),
                                 HalvingDoublingAllReduce(4, 400),
                                 DirectAllToAll(4, 400),
                                 RingAllGather(3, 300),
                                 TreeBroadcast(6, 600, 1)})
    {
        for (uint32_t id = 0; id < plan.GetNTransfers(); ++id)
        {
            CommPlan broken = plan;
            broken.AddTransfer(plan.GetTransfer(id));
            PlanCheckResult r = PlanChecker::Check(broken);
            ASSERT_FALSE(r.ok) << plan.GetAlgorithm() << ": duplicate of " << id;
            const bool reduce = plan.GetTransfer(id).reduce;
            const bool named = r.reason.find(reduce ? "twice" : "duplicate") != std::string::npos;
            EXPECT_TRUE(named || r.reason.find("race") != std::string::npos) << r.reason;
        }
    }
    // An all-to-all block sent twice, the copy waiting for the original: no race, and
    // the second arrival is named as such.
    CommPlan a2a = DirectAllToAll(3, 300);
    CommPlan::Transfer again = a2a.GetTransfer(4);
    again.deps = {4};
    a2a.AddTransfer(again);
    PlanCheckResult dup = PlanChecker::Check(a2a);
    EXPECT_NE(dup.reason.find("transfer 6 delivers block 4 to rank 0, which already holds "
                              "exactly that data (duplicate delivery)"),
              std::string::npos)
        << dup.reason;
    // The last step of a ring reduce-scatter lands at the block's owner, which never
    // reads it again: a duplicate there races with nothing and is a pure double count.
    // Transfer 3 carries block 1 from rank 0 ({0, 2} by then) to its owner, rank 1.
    CommPlan plan = RingReduceScatter(3, 300);
    plan.AddTransfer(plan.GetTransfer(3));
    PlanCheckResult r = PlanChecker::Check(plan);
    EXPECT_NE(r.reason.find("reduces block 1 from rank 0 into rank 1, counting the "
                            "contributions of ranks {0,2} twice"),
              std::string::npos)
        << r.reason;
    EXPECT_EQ(r.transfer, 6u);
}

TEST(PlanCheckerTest, MissingDependenciesAreCaught)
{
    // Without its deps a transfer could leave before the data it forwards has arrived:
    // the checker must see that, whatever order it happens to simulate.
    for (const CommPlan& plan : {RingAllReduce(5, 5000, 2),
                                 RingReduceScatter(4, 400),
                                 RingAllGather(6, 600),
                                 RingBroadcast(4, 400, 1, 1, 100),
                                 RingReduce(4, 400, 3, 1, 100),
                                 TreeAllReduce(9, 900, 300),
                                 TreeAllReduce(8, 800, 0, false),
                                 TreeBroadcast(8, 800, 5),
                                 TreeReduce(8, 800, 2),
                                 HalvingDoublingAllReduce(16, 1600),
                                 HalvingDoublingAllGather(8, 800)})
    {
        uint32_t tried = 0;
        for (uint32_t id = 0; id < plan.GetNTransfers(); ++id)
        {
            if (plan.GetTransfer(id).deps.empty())
            {
                continue;
            }
            CommPlan broken = plan;
            broken.GetTransfer(id).deps.clear();
            PlanCheckResult r = PlanChecker::Check(broken);
            ASSERT_FALSE(r.ok) << plan.GetType() << " " << plan.GetAlgorithm() << ": transfer "
                               << id << " without deps went unnoticed";
            EXPECT_NE(r.reason.find("race"), std::string::npos) << r.reason;
            ++tried;
        }
        EXPECT_GT(tried, 0u);
    }
    // Halving-doubling needs more than "wait for the last receive": a rank's later
    // message carries blocks written by older receives from other partners.
    CommPlan hd = HalvingDoublingAllReduce(8, 800);
    uint32_t caught = 0;
    for (uint32_t id = 0; id < hd.GetNTransfers(); ++id)
    {
        const auto& t = hd.GetTransfer(id);
        if (t.step >= 2 && t.step < 3 && t.deps.size() == 2)
        {
            CommPlan broken = hd;
            broken.GetTransfer(id).deps.pop_back(); // keep only the last receive
            caught += !PlanChecker::Check(broken).ok;
        }
    }
    EXPECT_EQ(caught, 8u);
}

TEST(PlanCheckerTest, WrongDestinationsAreCaught)
{
    // A plain copy sent to the wrong rank leaves its rightful receiver without the data
    // (and gives the other one data it either has or must not overwrite). Reductions
    // are different: one sent further along still reduces everything once (see
    // JudgesSemanticsNotShape), so they are tested below with wrong turns that are
    // wrong by construction.
    for (const CommPlan& plan : {RingAllReduce(4, 400),
                                 RingAllReduce(5, 500, 2),
                                 RingAllGather(5, 500),
                                 HalvingDoublingAllReduce(8, 800),
                                 TreeAllReduce(7, 700, 200),
                                 DirectAllToAll(4, 400),
                                 DirectAllGather(3, 300),
                                 RingBroadcast(4, 400, 0),
                                 TreeBroadcast(6, 600, 2)})
    {
        const uint32_t n = plan.GetGroupSize();
        for (uint32_t id = 0; id < plan.GetNTransfers(); ++id)
        {
            const auto& t = plan.GetTransfer(id);
            if (t.reduce)
            {
                continue;
            }
            for (uint32_t wrong = 0; wrong < n; ++wrong)
            {
                if (wrong == t.dst || wrong == t.src)
                {
                    continue;
                }
                CommPlan broken = plan;
                broken.GetTransfer(id).dst = wrong;
                EXPECT_FALSE(PlanChecker::Check(broken).ok)
                    << plan.GetType() << " " << plan.GetAlgorithm() << ": transfer " << id
                    << " sent to " << wrong << " instead of " << t.dst << " went unnoticed";
            }
        }
    }
}

TEST(PlanCheckerTest, ReductionsSentBackAreCaught)
{
    // From step 1 on, a ring reduce-scatter transfer carries its sender's predecessor's
    // contribution; handing it back to that predecessor counts it twice (or races with
    // the predecessor's own use of the block).
    for (uint32_t n : {3u, 4u, 7u})
    {
        CommPlan plan = RingAllReduce(n, 100 * n);
        for (uint32_t id = 0; id < plan.GetNTransfers(); ++id)
        {
            const auto& t = plan.GetTransfer(id);
            if (!t.reduce || t.step == 0 || (t.src + n - 1) % n == t.dst)
            {
                continue;
            }
            CommPlan broken = plan;
            broken.GetTransfer(id).dst = (t.src + n - 1) % n;
            EXPECT_FALSE(PlanChecker::Check(broken).ok) << "n=" << n << " transfer " << id;
        }
    }
    // Tree: a leaf's partial sum sent to another leaf never reaches the root's result.
    CommPlan tree = TreeReduce(7, 700, 3);
    std::vector<uint32_t> leaves;
    for (uint32_t r = 0; r < 7; ++r)
    {
        if (tree.GetBytesReceived(r) == 0)
        {
            leaves.push_back(r);
        }
    }
    ASSERT_GE(leaves.size(), 2u);
    for (uint32_t id = 0; id < tree.GetNTransfers(); ++id)
    {
        if (tree.GetTransfer(id).src == leaves[0])
        {
            CommPlan broken = tree;
            broken.GetTransfer(id).dst = leaves[1];
            // The other leaf reads its block to send it up while this arrives: a race.
            PlanCheckResult r = PlanChecker::Check(broken);
            EXPECT_FALSE(r.ok);
            EXPECT_NE(r.reason.find("race"), std::string::npos) << r.reason;
        }
    }
}

TEST(PlanCheckerTest, JudgesSemanticsNotShape)
{
    // Redirecting a reduction to a rank further along still reduces everything exactly
    // once, so the plan, although no longer a tree or a ring, is correct and accepted.
    CommPlan reduce = TreeReduce(5, 500, 0);
    uint32_t leaf = 0;
    while (reduce.GetTransfer(leaf).dst == 0)
    {
        ++leaf;
    }
    reduce.GetTransfer(leaf).dst = 0; // straight to the root
    EXPECT_TRUE(PlanChecker::Check(reduce).ok) << Verdict(reduce);

    // Same for a reduce-scatter ring: rank 0's first partial sum of block n-1 may go
    // straight to its owner instead of along the ring.
    CommPlan rs = RingReduceScatter(5, 500);
    ASSERT_EQ(rs.GetTransfer(0).chunk, 4u);
    rs.GetTransfer(0).dst = 4;
    EXPECT_TRUE(PlanChecker::Check(rs).ok) << Verdict(rs);

    // Even in an all-reduce, where the owner forwards that block at the start of the
    // all-gather: the whole reduce-scatter chain of block 4 still depends on transfer 0,
    // so its early arrival is ordered before that read.
    CommPlan ar = RingAllReduce(5, 500);
    ar.GetTransfer(0).dst = 4;
    EXPECT_TRUE(PlanChecker::Check(ar).ok) << Verdict(ar);
    // Take that dependency away and transfer 0 is ordered against nothing that touches
    // block 4 later (rank 4's all-gather read, the all-gather overwrite at rank 0).
    ar.GetTransfer(6).deps.clear(); // rank 1's step-1 send, which waited for transfer 0
    PlanCheckResult r = PlanChecker::Check(ar);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("transfers 0 and"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("race on block 4"), std::string::npos) << r.reason;
}

TEST(PlanCheckerTest, ReasonsAreSpecific)
{
    // A sender that never had the data.
    CommPlan bcast(CollectiveType::BROADCAST, 3, 10);
    bcast.AddBlock(10, 0);
    CommPlan::Transfer t;
    t.src = 1;
    t.dst = 2;
    bcast.AddTransfer(t);
    PlanCheckResult r = PlanChecker::Check(bcast);
    EXPECT_NE(r.reason.find("sends block 0 from rank 1, which does not hold it"), std::string::npos)
        << r.reason;
    EXPECT_EQ(r.transfer, 0u);

    // A goal not reached: rank 2 never gets the data.
    CommPlan partial(CollectiveType::BROADCAST, 3, 10);
    partial.AddBlock(10, 0);
    t.src = 0;
    t.dst = 1;
    partial.AddTransfer(t);
    r = PlanChecker::Check(partial);
    EXPECT_NE(r.reason.find("broadcast: rank 2 ends without block 0"), std::string::npos)
        << r.reason;

    // An all-reduce that stops after the reduce-scatter.
    CommPlan rs = RingReduceScatter(4, 400);
    CommPlan half(CollectiveType::ALL_REDUCE, 4, 400);
    for (const auto& b : rs.GetBlocks())
    {
        half.AddBlock(b.bytes);
    }
    for (const auto& tr : rs.GetTransfers())
    {
        half.AddTransfer(tr);
    }
    r = PlanChecker::Check(half);
    EXPECT_NE(r.reason.find("missing the contributions of ranks"), std::string::npos) << r.reason;

    // A reduction in a collective that only copies.
    CommPlan ag = RingAllGather(3, 300);
    ag.GetTransfer(0).reduce = true;
    r = PlanChecker::Check(ag);
    EXPECT_NE(r.reason.find("does not combine data"), std::string::npos) << r.reason;

    // Blocks that do not match the call size.
    CommPlan sizes(CollectiveType::ALL_GATHER, 2, 100);
    sizes.AddBlock(60, 0);
    sizes.AddBlock(40, 1);
    r = PlanChecker::Check(sizes);
    EXPECT_NE(r.reason.find("rank 0's shard hold 60 bytes, expected 50"), std::string::npos)
        << r.reason;

    // Two unordered copies into the same place: a write-write race.
    CommPlan race(CollectiveType::ALL_GATHER, 3, 3);
    for (uint32_t j = 0; j < 3; ++j)
    {
        race.AddBlock(1, j);
    }
    for (uint32_t s : {0u, 1u})
    {
        t.src = s;
        t.dst = 2;
        t.chunk = 0;
        race.AddTransfer(t);
    }
    r = PlanChecker::Check(race);
    EXPECT_NE(r.reason.find("race on block 0 at rank 2"), std::string::npos) << r.reason;
}

// ---------------------------------------------------------------------------------------
// Closed forms.

TEST(PlanCheckerTest, BrokenNvlsPlansAreCaught)
{
    const uint32_t n = 8;
    {
        // The multicast no longer waits for the reduction it sends.
        CommPlan plan = NvlsAllReduce(n, 1 << 20, 64 << 10);
        ASSERT_TRUE(PlanChecker::Check(plan).ok) << Verdict(plan);
        plan.GetTransfer(1).deps.clear();
        PlanCheckResult r = PlanChecker::Check(plan);
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.reason.find("race"), std::string::npos) << r.reason;
    }
    {
        // Reducing a block twice in the switch, the second time after a multicast has
        // already given every rank the sum: contributions counted twice.
        CommPlan plan = NvlsAllReduce(n, 1 << 20, 1 << 20);
        CommPlan::Transfer again = plan.GetTransfer(0);
        again.deps = {1};
        again.kind = CommPlan::Kind::SWITCH_REDUCE;
        plan.AddTransfer(again);
        PlanCheckResult r = PlanChecker::Check(plan);
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.reason.find("twice"), std::string::npos) << r.reason;
    }
    {
        // A dropped multicast leaves the other ranks without the sum.
        CommPlan plan = NvlsAllReduce(n, 1 << 20, 1 << 20);
        std::vector<CommPlan::Transfer> kept;
        for (const auto& t : plan.GetTransfers())
        {
            if (t.id != 3)
            {
                kept.push_back(t);
            }
        }
        for (uint32_t i = 0; i < kept.size(); ++i)
        {
            kept[i].id = i;
            for (uint32_t& d : kept[i].deps)
            {
                d -= d > 3 ? 1 : 0;
            }
        }
        plan.SetTransfers(kept);
        EXPECT_FALSE(PlanChecker::Check(plan).ok);
    }
    {
        // A switch reduction is not a way to all-gather.
        CommPlan plan = NvlsAllGather(n, 1 << 20);
        plan.GetTransfer(0).kind = CommPlan::Kind::SWITCH_REDUCE;
        EXPECT_FALSE(PlanChecker::Check(plan).ok);
    }
    {
        // Structure: a switch transfer is issued by one rank (src == dst).
        CommPlan plan = NvlsAllReduce(n, 1 << 20);
        plan.GetTransfer(0).dst = (plan.GetTransfer(0).src + 1) % n;
        std::string why;
        EXPECT_FALSE(plan.Validate(&why));
        EXPECT_NE(why.find("switch"), std::string::npos) << why;
    }
}
