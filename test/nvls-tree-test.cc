// SPDX-License-Identifier: GPL-2.0-only
// nvls-tree (NCCL's NVLSTree): NVLS inside each server, a double binary tree per rail
// across servers over the NICs. The plan checker proves it; on 2 x 8 H100 it runs at the
// NVLS rate where the rail ring is held by the NICs.
#include "plan-test-util.h"
#include "test-util.h"

#include "ns3/collective-protocol.h"

using namespace aifabric;

namespace
{
class NvlsTree : public NsTest
{
};

} // namespace

TEST_F(NvlsTree, PlanCheckerProvesIt)
{
    for (auto [servers, gpus] :
         std::vector<std::pair<uint32_t, uint32_t>>{{2, 2}, {2, 8}, {3, 4}, {5, 2}, {8, 8}})
    {
        for (uint64_t chunk : {0ull, 4096ull})
        {
            const CommPlan plan =
                NvlsTreeAllReduce(CommGroup::Uniform(servers, gpus), (1ull << 20) + 5, chunk);
            const PlanCheckResult r = PlanChecker::Check(plan);
            EXPECT_TRUE(r.ok) << servers << " x " << gpus << ": " << r.reason;
            EXPECT_EQ(plan.GetAlgorithm(), "nvls-tree");
            // No switch of the network aggregates: the servers' sums travel point to point,
            // up (reducing) and down the tree, 2 (s - 1) per piece.
            uint32_t up = 0;
            uint32_t down = 0;
            for (const auto& t : plan.GetTransfers())
            {
                EXPECT_FALSE(CommPlan::InNetwork(t.kind));
                if (t.kind == CommPlan::Kind::POINT_TO_POINT)
                {
                    (t.reduce ? up : down) += 1;
                }
            }
            EXPECT_EQ(up, down);
            EXPECT_EQ(up % (servers - 1), 0u);
        }
    }
    // A sum sent up before the parent's switch reduction wrote its copy is overwritten by
    // it: the checker sees the lost contribution.
    CommPlan broken = NvlsTreeAllReduce(CommGroup::Uniform(2, 2), 4096);
    for (const auto& t : broken.GetTransfers())
    {
        if (t.kind == CommPlan::Kind::POINT_TO_POINT && t.reduce)
        {
            auto& deps = broken.GetTransfer(t.id).deps;
            deps.pop_back(); // the parent's switch reduction
            break;
        }
    }
    EXPECT_FALSE(PlanChecker::Check(broken).ok);
}

// 2 x 8 H100, 256 MiB: each GPU's NVSwitch port carries S (1 + 1/8) at the NVLS rate and
// its NIC the rail's pieces, so NVLS sets the time, as one server's NVLS does (within 5 %:
// the pieces' fill, the tree's hops and their 2 x 20.9 us of NCCL latency); the rail ring
// is held by the NICs: nvls-tree's busbw is more than 1.15 times the rail ring's (measured
// 483.8 against 382.5 GB/s). auto takes nvls-tree.
TEST_F(NvlsTree, TwoH100ServersRunAtTheNvlsRate)
{
    const uint64_t bytes = 256ull << 20;
    const CollectiveResult tree = RunDgxAllReduce(2, "nvls-tree", bytes);
    const CollectiveResult ring = RunDgxAllReduce(2, "rail-ring", bytes);
    const CollectiveResult nvls = RunDgxAllReduce(1, "nvls", bytes);
    EXPECT_EQ(tree.algorithm, "nvls-tree");
    EXPECT_EQ(tree.protocol, CollectiveProtocol::SIMPLE);
    const double t = tree.GetDuration().GetSeconds();
    const double one = nvls.GetDuration().GetSeconds();
    std::cout << "[ measured ] 2 x 8 H100, 256 MiB all-reduce: nvls-tree " << t * 1e6
              << " us, busbw " << tree.busBw / 1e9 << " GB/s; rail-ring busbw " << ring.busBw / 1e9
              << " GB/s; NVLS on one server " << one * 1e6 << " us\n";
    EXPECT_GT(tree.busBw, 1.15 * ring.busBw);
    EXPECT_NEAR(t, one, 0.05 * one);
    const CollectiveResult chosen = RunDgxAllReduce(2, "auto", bytes);
    EXPECT_EQ(chosen.algorithm, "nvls-tree");
}
