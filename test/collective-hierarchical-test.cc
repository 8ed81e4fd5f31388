// SPDX-License-Identifier: GPL-2.0-only
// Hierarchical collectives: the PlanChecker must accept them for every server x GPU
// shape, reject them once broken, and their traffic on each fabric must match the closed
// forms that make the algorithm worth having (less inter-server traffic than a flat ring).
#include "plan-test-util.h"

#include "ns3/collective-algorithms.h"
#include "ns3/collective-hierarchical.h"
#include "ns3/collective-selection.h"
#include "ns3/comm-group.h"
#include "ns3/comm-plan.h"
#include "ns3/plan-checker.h"

#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// A server count and a GPU-per-server count.
struct Shape
{
    uint32_t servers;
    uint32_t gpus;
};

/// servers x gpus in {1..4} x {1,2,4,8}, plus odd shapes.
std::vector<Shape>
AllShapes()
{
    std::vector<Shape> shapes;
    for (uint32_t s = 1; s <= 4; ++s)
    {
        for (uint32_t g : {1u, 2u, 4u, 8u})
        {
            shapes.push_back({s, g});
        }
    }
    for (Shape odd : {Shape{3, 3}, Shape{5, 2}, Shape{2, 3}, Shape{7, 1}, Shape{1, 5}, Shape{3, 5}})
    {
        shapes.push_back(odd);
    }
    return shapes;
}

/// \return a printable name of a shape
std::string
Name(const Shape& shape)
{
    return std::to_string(shape.servers) + " servers x " + std::to_string(shape.gpus) + " GPUs";
}

/// \return the checker's verdict as a one-line description for failure messages
std::string
Verdict(const CommPlan& plan)
{
    PlanCheckResult r = PlanChecker::Check(plan);
    return r.ok ? "ok" : r.reason;
}

/// Bytes a rank sends, split by fabric.
struct FabricBytes
{
    uint64_t intra{0}; //!< to ranks on the same server
    uint64_t inter{0}; //!< to ranks on other servers
};

/// \return per rank, the bytes it sends on each fabric
std::vector<FabricBytes>
SentByFabric(const CommGroup& group, const CommPlan& plan)
{
    std::vector<FabricBytes> sent(group.GetSize());
    for (const auto& t : plan.GetTransfers())
    {
        (IsIntraServerTransfer(group, t) ? sent[t.src].intra : sent[t.src].inter) += t.bytes;
    }
    return sent;
}

/// \return per rank, the bytes it receives on each fabric
std::vector<FabricBytes>
ReceivedByFabric(const CommGroup& group, const CommPlan& plan)
{
    std::vector<FabricBytes> received(group.GetSize());
    for (const auto& t : plan.GetTransfers())
    {
        (IsIntraServerTransfer(group, t) ? received[t.dst].intra : received[t.dst].inter) +=
            t.bytes;
    }
    return received;
}

/// \return the bytes of all transfers whose endpoints are on different servers
uint64_t
InterServerTotal(const CommGroup& group, const CommPlan& plan)
{
    uint64_t total = 0;
    for (const auto& fb : SentByFabric(group, plan))
    {
        total += fb.inter;
    }
    return total;
}

/// \return the largest inter-server bytes any one rank (hence NIC) sends
uint64_t
InterServerMaxPerRank(const CommGroup& group, const CommPlan& plan)
{
    uint64_t most = 0;
    for (const auto& fb : SentByFabric(group, plan))
    {
        most = std::max(most, fb.inter);
    }
    return most;
}

/// The three hierarchical generators, by name.
struct Generator
{
    std::string name;
    std::function<CommPlan(const CommGroup&, uint64_t, uint32_t)> make;
};

std::vector<Generator>
AllGenerators()
{
    return {
        {"HierarchicalAllReduce",
         [](const CommGroup& g, uint64_t s, uint32_t c) { return HierarchicalAllReduce(g, s, c); }},
        {"HierarchicalReduceScatter",
         [](const CommGroup& g, uint64_t s, uint32_t c) {
             return HierarchicalReduceScatter(g, s, c);
         }},
        {"HierarchicalAllGather",
         [](const CommGroup& g, uint64_t s, uint32_t c) { return HierarchicalAllGather(g, s, c); }},
    };
}

} // namespace

// ---------------------------------------------------------------------------------------
// Correctness.

TEST(HierarchicalPlanTest, CheckerAcceptsEveryShape)
{
    for (const Shape& shape : AllShapes())
    {
        const CommGroup group = CommGroup::Uniform(shape.servers, shape.gpus);
        const uint32_t n = group.GetSize();
        for (const Generator& gen : AllGenerators())
        {
            for (uint32_t channels : {1u, 3u})
            {
                // Divisible, uneven and smaller-than-the-group sizes (empty blocks).
                for (uint64_t bytes :
                     {uint64_t{n} * channels * 4096, uint64_t{1000003}, uint64_t{5}, uint64_t{0}})
                {
                    CommPlan plan = gen.make(group, bytes, channels);
                    EXPECT_TRUE(PlanChecker::Check(plan).ok)
                        << gen.name << " " << Name(shape) << " channels=" << channels
                        << " bytes=" << bytes << ": " << Verdict(plan);
                    EXPECT_EQ(plan.GetGroupSize(), n);
                    EXPECT_EQ(plan.GetAlgorithm(), "hierarchical");
                    if (n > 1) // a single rank moves nothing, so uses no channel
                    {
                        EXPECT_EQ(plan.GetNChannels(), channels);
                    }
                }
            }
        }
    }
}

TEST(HierarchicalPlanTest, RanksAreTheGroupsWhateverTheirOrder)
{
    // A sub-group whose ranks are listed out of server order, on non-adjacent servers
    // and a subset of rails: the plan must use the group's numbering, keep each
    // inter-server ring on one rail, and still be correct.
    const CommGroup world = CommGroup::Uniform(4, 8);
    const CommGroup group = world.SubGroup({29, 5, 3, 27, 13, 11, 1, 25, 9});
    ASSERT_TRUE(group.IsUniform());
    for (const Generator& gen : AllGenerators())
    {
        CommPlan plan = gen.make(group, 9 * 2 * 1000, 2);
        EXPECT_TRUE(PlanChecker::Check(plan).ok) << gen.name << ": " << Verdict(plan);
        for (const auto& t : plan.GetTransfers())
        {
            if (!IsIntraServerTransfer(group, t))
            {
                EXPECT_EQ(group.GetLocalIndex(t.src), group.GetLocalIndex(t.dst))
                    << gen.name << ": transfer " << t.id << " leaves its rail";
            }
        }
    }

    // Same count per server but different local indices: not rail-aligned, still
    // correct (position p of each server is paired).
    const CommGroup skewed({{0, 0}, {0, 1}, {1, 4}, {1, 6}, {2, 2}, {2, 7}});
    ASSERT_FALSE(skewed.IsUniform());
    for (const Generator& gen : AllGenerators())
    {
        CommPlan plan = gen.make(skewed, 6000, 1);
        EXPECT_TRUE(PlanChecker::Check(plan).ok) << gen.name << ": " << Verdict(plan);
    }
}

TEST(HierarchicalPlanTest, DegenerateShapesAreFlatRings)
{
    // One server: an intra-server ring all-reduce; one GPU per server: an inter-server
    // one. Same transfers, same bytes per rank as the flat ring over the same ranks.
    for (const Shape& shape : {Shape{1, 8}, Shape{1, 3}, Shape{6, 1}, Shape{2, 1}})
    {
        const CommGroup group = CommGroup::Uniform(shape.servers, shape.gpus);
        const uint32_t n = group.GetSize();
        const uint64_t bytes = uint64_t{n} * 2 * 1000 + 7;
        CommPlan hier = HierarchicalAllReduce(group, bytes, 2);
        CommPlan flat = RingAllReduce(n, bytes, 2);
        EXPECT_EQ(hier.GetNTransfers(), flat.GetNTransfers()) << Name(shape);
        EXPECT_EQ(hier.GetNSteps(), flat.GetNSteps()) << Name(shape);
        for (uint32_t r = 0; r < n; ++r)
        {
            EXPECT_EQ(hier.GetBytesSent(r), flat.GetBytesSent(r)) << Name(shape) << " rank " << r;
        }
    }
    CommPlan single = HierarchicalAllReduce(CommGroup::Uniform(1, 1), 100);
    EXPECT_EQ(single.GetNTransfers(), 0u);
    EXPECT_TRUE(PlanChecker::Check(single).ok);
}

// ---------------------------------------------------------------------------------------
// Broken plans.

TEST(HierarchicalPlanTest, EveryDroppedTransferIsCaught)
{
    for (const Shape& shape : {Shape{2, 2}, Shape{3, 3}, Shape{2, 4}, Shape{4, 2}, Shape{5, 2}})
    {
        const CommGroup group = CommGroup::Uniform(shape.servers, shape.gpus);
        for (const Generator& gen : AllGenerators())
        {
            CommPlan plan = gen.make(group, uint64_t{group.GetSize()} * 100, 1);
            ASSERT_TRUE(PlanChecker::Check(plan).ok) << gen.name << " " << Name(shape);
            for (uint32_t id = 0; id < plan.GetNTransfers(); ++id)
            {
                EXPECT_FALSE(PlanChecker::Check(DropTransfer(plan, id)).ok)
                    << gen.name << " " << Name(shape) << ": dropping transfer " << id
                    << " went unnoticed";
            }
        }
    }
}

TEST(HierarchicalPlanTest, EveryDependencyIsNeeded)
{
    // The generator names exactly the data dependencies no other dependency implies.
    // Removing any single one, in particular those that cross a phase boundary, must
    // let a send read a block before (or while) it is written: a race.
    for (const Shape& shape : {Shape{2, 2},
                               Shape{3, 3},
                               Shape{2, 4},
                               Shape{4, 2},
                               Shape{5, 2},
                               Shape{1, 4},
                               Shape{4, 1}})
    {
        const CommGroup group = CommGroup::Uniform(shape.servers, shape.gpus);
        for (const Generator& gen : AllGenerators())
        {
            CommPlan plan = gen.make(group, uint64_t{group.GetSize()} * 2 * 100, 2);
            for (uint32_t id = 0; id < plan.GetNTransfers(); ++id)
            {
                const auto deps = plan.GetTransfer(id).deps;
                for (size_t j = 0; j < deps.size(); ++j)
                {
                    CommPlan broken = plan;
                    auto& d = broken.GetTransfer(id).deps;
                    d.erase(d.begin() + j);
                    PlanCheckResult r = PlanChecker::Check(broken);
                    EXPECT_FALSE(r.ok) << gen.name << " " << Name(shape) << ": transfer " << id
                                       << " without dep " << deps[j] << " went unnoticed";
                    EXPECT_NE(r.reason.find("race"), std::string::npos) << r.reason;
                }
            }
        }
    }
}

TEST(HierarchicalPlanTest, CrossPhaseDependenciesAreThere)
{
    // Spelled out for all-reduce on 3 x 4: every inter-server reduce-scatter send waits
    // for the intra-server reduce-scatter that produced the sender's shard, and every
    // first intra-server all-gather send waits for inter-server transfers. Removing the
    // cross-phase deps of either kind is a race.
    const CommGroup group = CommGroup::Uniform(3, 4);
    CommPlan plan = HierarchicalAllReduce(group, 12 * 1000);
    const uint32_t g = 4;
    const uint32_t s = 3;
    uint32_t phase2 = 0;
    uint32_t phase3 = 0;
    for (const auto& t : plan.GetTransfers())
    {
        const bool inter = !IsIntraServerTransfer(group, t);
        const bool firstIntraGather = t.step == g - 1 + 2 * (s - 1);
        std::vector<uint32_t> kept;
        bool crossPhase = false;
        for (uint32_t d : t.deps)
        {
            const auto& dep = plan.GetTransfer(d);
            const bool depIntra = IsIntraServerTransfer(group, dep);
            // A phase-2 reduce-scatter send's phase-1 dep; a phase-3 send's phase-2 dep.
            if ((inter && t.reduce && depIntra && dep.step < g - 1) ||
                (firstIntraGather && !depIntra))
            {
                crossPhase = true;
            }
            else
            {
                kept.push_back(d);
            }
        }
        if (inter && t.reduce)
        {
            ASSERT_TRUE(crossPhase) << "transfer " << t.id << " ignores phase 1";
            ++phase2;
        }
        else if (firstIntraGather)
        {
            ASSERT_TRUE(crossPhase) << "transfer " << t.id << " ignores phase 2";
            ++phase3;
        }
        else
        {
            EXPECT_FALSE(crossPhase);
            continue;
        }
        CommPlan broken = plan;
        broken.GetTransfer(t.id).deps = kept;
        PlanCheckResult r = PlanChecker::Check(broken);
        EXPECT_FALSE(r.ok) << "transfer " << t.id << " without cross-phase deps went unnoticed";
        EXPECT_NE(r.reason.find("race"), std::string::npos) << r.reason;
    }
    EXPECT_EQ(phase2, g * s * (s - 1)); // s ranks per rail, s-1 steps, g rails
    EXPECT_EQ(phase3, s * g);           // every rank's first intra-server all-gather send
}

TEST(HierarchicalPlanTest, WrongFabricAndWrongRailAreCaught)
{
    // Redirecting an inter-server all-gather copy to another server's rank of the same
    // rail leaves its rightful receiver without that sub-shard.
    const CommGroup group = CommGroup::Uniform(3, 2);
    CommPlan plan = HierarchicalAllReduce(group, 6000);
    uint32_t tried = 0;
    for (const auto& t : plan.GetTransfers())
    {
        if (t.reduce || IsIntraServerTransfer(group, t))
        {
            continue;
        }
        for (uint32_t wrong : group.GetRail(group.GetLocalIndex(t.dst)))
        {
            if (wrong == t.dst || wrong == t.src)
            {
                continue;
            }
            CommPlan broken = plan;
            broken.GetTransfer(t.id).dst = wrong;
            EXPECT_FALSE(PlanChecker::Check(broken).ok)
                << "transfer " << t.id << " sent to " << wrong << " went unnoticed";
            ++tried;
        }
    }
    EXPECT_GT(tried, 0u);
}

// ---------------------------------------------------------------------------------------
// Closed forms.

TEST(HierarchicalClosedFormTest, BytesPerGpuOnEachFabric)
{
    // Per GPU: inter-server 2(s-1)/s * S/g, intra-server 2(g-1)/g * S for all-reduce;
    // half of each for reduce-scatter and all-gather. Exact when n * channels divides S.
    for (const Shape& shape : AllShapes())
    {
        const uint32_t s = shape.servers;
        const uint32_t g = shape.gpus;
        const CommGroup group = CommGroup::Uniform(s, g);
        const uint32_t n = group.GetSize();
        for (uint32_t channels : {1u, 4u})
        {
            const uint64_t bytes = uint64_t{n} * channels * 3000;
            const uint64_t inter = 2 * (s - 1) * (bytes / g) / s;
            const uint64_t intra = 2 * (g - 1) * bytes / g;
            CommPlan ar = HierarchicalAllReduce(group, bytes, channels);
            CommPlan rs = HierarchicalReduceScatter(group, bytes, channels);
            CommPlan ag = HierarchicalAllGather(group, bytes, channels);
            const auto arSent = SentByFabric(group, ar);
            const auto arReceived = ReceivedByFabric(group, ar);
            const auto rsSent = SentByFabric(group, rs);
            const auto agSent = SentByFabric(group, ag);
            for (uint32_t r = 0; r < n; ++r)
            {
                const std::string where = Name(shape) + " channels=" + std::to_string(channels) +
                                          " rank " + std::to_string(r);
                EXPECT_EQ(arSent[r].inter, inter) << where;
                EXPECT_EQ(arSent[r].intra, intra) << where;
                EXPECT_EQ(arReceived[r].inter, inter) << where;
                EXPECT_EQ(arReceived[r].intra, intra) << where;
                EXPECT_EQ(rsSent[r].inter, inter / 2) << where;
                EXPECT_EQ(rsSent[r].intra, intra / 2) << where;
                EXPECT_EQ(agSent[r].inter, inter / 2) << where;
                EXPECT_EQ(agSent[r].intra, intra / 2) << where;
            }
            // 2(g-1) intra-server steps then 2(s-1) inter-server ones.
            EXPECT_EQ(ar.GetNSteps(), 2 * (g - 1) + 2 * (s - 1)) << Name(shape);
            EXPECT_EQ(ar.GetNTransfers(), channels * n * (2 * (g - 1) + 2 * (s - 1)))
                << Name(shape);
        }
    }
}

TEST(HierarchicalClosedFormTest, UnevenSizesStillAddUp)
{
    // With sizes no divisor fits, every byte still travels: each rank receives on each
    // fabric exactly what the others send it, and the totals match the layout.
    const CommGroup group = CommGroup::Uniform(3, 3);
    const uint64_t bytes = 1000003;
    CommPlan plan = HierarchicalAllReduce(group, bytes, 2);
    uint64_t lo = UINT64_MAX;
    uint64_t hi = 0;
    uint64_t sum = 0;
    for (const auto& b : plan.GetBlocks())
    {
        lo = std::min(lo, b.bytes);
        hi = std::max(hi, b.bytes);
        sum += b.bytes;
    }
    EXPECT_EQ(sum, bytes);
    EXPECT_LE(hi - lo, 1u);
    // Each intra-server phase moves every shard g-1 hops on every server, and each
    // inter-server phase every sub-shard s-1 hops on its rail: totals 2(g-1) S per
    // server and 2(s-1) S overall, however unevenly the bytes split.
    uint64_t intra = 0;
    for (const auto& fb : SentByFabric(group, plan))
    {
        intra += fb.intra;
    }
    EXPECT_EQ(intra, 3 * 2 * (3 - 1) * bytes);
    EXPECT_EQ(InterServerTotal(group, plan), 2 * (3 - 1) * bytes);
}

TEST(HierarchicalClosedFormTest, LessInterServerTrafficThanFlatRing)
{
    // The flat ring over server-major ranks crosses servers on s of its edges, each
    // carrying 2(n-1)/n * S: total 2(s - 1/g) S, all on s NICs. The hierarchical plan
    // sends 2(s-1) S in total, spread over all n NICs.
    for (const Shape& shape : AllShapes())
    {
        const uint32_t s = shape.servers;
        const uint32_t g = shape.gpus;
        if (s < 2 || g < 2)
        {
            continue;
        }
        const CommGroup group = CommGroup::Uniform(s, g);
        const uint32_t n = group.GetSize();
        const uint64_t bytes = uint64_t{n} * 8192;
        for (uint32_t channels : {1u, 2u})
        {
            CommPlan hier = HierarchicalAllReduce(group, bytes, channels);
            CommPlan flat = RingAllReduce(n, bytes, channels);
            const uint64_t hierTotal = InterServerTotal(group, hier);
            const uint64_t flatTotal = InterServerTotal(group, flat);
            EXPECT_LT(hierTotal, flatTotal) << Name(shape);
            EXPECT_EQ(hierTotal, 2 * (s - 1) * bytes) << Name(shape);
            EXPECT_EQ(flatTotal, s * 2 * (n - 1) * (bytes / n)) << Name(shape);
            // Per NIC the gain is about g-fold: the busiest flat-ring NIC against any
            // hierarchical one.
            const uint64_t hierMax = InterServerMaxPerRank(group, hier);
            const uint64_t flatMax = InterServerMaxPerRank(group, flat);
            EXPECT_EQ(flatMax, 2 * (n - 1) * (bytes / n)) << Name(shape);
            EXPECT_GE(flatMax, hierMax * g) << Name(shape);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Bad input.

TEST(HierarchicalDeathTest, BadArgumentsAreNamed)
{
    const CommGroup world = CommGroup::Uniform(3, 4);
    // Two GPUs on server 0, one on server 1.
    EXPECT_DEATH(HierarchicalAllReduce(world.SubGroup({0, 1, 4}), 100),
                 "HierarchicalAllReduce: hierarchical collectives need the same number of GPUs "
                 "on every server, but the group has 2 rank\\(s\\) on server 0 and 1 on server 1");
    EXPECT_DEATH(HierarchicalReduceScatter(world.SubGroup({0, 4, 5, 8}), 100),
                 "HierarchicalReduceScatter: .* same number of GPUs");
    EXPECT_DEATH(HierarchicalAllGather(CommGroup(), 100),
                 "HierarchicalAllGather: the group is empty");
    EXPECT_DEATH(HierarchicalAllReduce(world, 100, 0), "channels must be at least 1");
}

// NCCL's tree across servers (TreeAllReduceAcrossServers, what "tree" builds for a group
// of several servers of several GPUs): the plan checker proves it; per piece 2 (s - 1)
// transfers cross servers, all on the rail of the piece's channel (local GPU c mod g, the
// chain's head), and 2 s (g - 1) stay inside servers; the longest chain of dependent
// transfers is 2 ((g - 1) + depth of the servers' tree), the hops NCCL's tree model counts
// (2 ((ppn - 1) hwLat[NVLink] + log2(s) hwLat[net])).
TEST(HierarchicalPlanTest, NcclTreeAcrossServers)
{
    for (auto [s, g] :
         std::vector<std::pair<uint32_t, uint32_t>>{{2, 2}, {2, 8}, {3, 4}, {4, 8}, {5, 2}})
    {
        const CommGroup group = CommGroup::Uniform(s, g);
        for (uint32_t channels : {1u, 2u, 8u})
        {
            for (uint64_t chunk : {uint64_t{0}, uint64_t{4096}})
            {
                const CommPlan plan =
                    TreeAllReduceAcrossServers(group, (uint64_t{1} << 16) + 3, channels, chunk);
                const PlanCheckResult r = PlanChecker::Check(plan);
                EXPECT_TRUE(r.ok) << s << " x " << g << ", " << channels << " ch: " << r.reason;
                EXPECT_EQ(plan.GetAlgorithm(), "tree");
                std::vector<uint32_t> cross(plan.GetNBlocks(), 0);
                std::vector<uint32_t> inside(plan.GetNBlocks(), 0);
                std::vector<uint32_t> hops(plan.GetNTransfers(), 1);
                uint32_t longest = 0;
                for (const auto& t : plan.GetTransfers())
                {
                    const bool across = !group.SameServer(t.src, t.dst);
                    (across ? cross : inside)[t.chunk] += 1;
                    if (across)
                    {
                        EXPECT_EQ(group.GetLocalIndex(t.src), t.channel % g);
                        EXPECT_EQ(group.GetLocalIndex(t.dst), t.channel % g);
                    }
                    for (uint32_t d : t.deps)
                    {
                        hops[t.id] = std::max(hops[t.id], hops[d] + 1);
                    }
                    longest = std::max(longest, hops[t.id]);
                }
                for (uint32_t b = 0; b < plan.GetNBlocks(); ++b)
                {
                    EXPECT_EQ(cross[b], 2 * (s - 1)) << "piece " << b;
                    EXPECT_EQ(inside[b], 2 * s * (g - 1)) << "piece " << b;
                }
                uint32_t depth = 0; // of the servers' balanced binary tree: floor(log2 s)
                while ((2u << depth) <= s)
                {
                    ++depth;
                }
                EXPECT_EQ(longest, 2 * ((g - 1) + depth)) << s << " x " << g;
            }
        }
    }
}

// "tree" all-reduce through CollectiveSelection on servers of several GPUs is NCCL's tree
// across servers (2 (s - 1) transfers per piece cross servers); on one server, or one GPU
// per server, the flat double binary tree.
TEST(HierarchicalPlanTest, TreeAcrossServersIsWhatSelectionBuilds)
{
    const CollectiveSelection selection;
    CollectivePlanOptions options;
    options.channels = 4;
    auto crossing = [](const CommPlan& plan, const CommGroup& group) {
        uint32_t n = 0;
        for (const auto& t : plan.GetTransfers())
        {
            n += group.SameServer(t.src, t.dst) ? 0 : 1;
        }
        return n;
    };
    const CommGroup servers = CommGroup::Uniform(4, 4);
    const CommPlan across = selection.MakePlan(CollectiveType::ALL_REDUCE,
                                               CollectiveAlgorithm::TREE,
                                               servers,
                                               1 << 20,
                                               options);
    EXPECT_EQ(crossing(across, servers), across.GetNBlocks() * 2 * (4 - 1));
    EXPECT_EQ(across.GetNBlocks() % 4, 0u); // pieces alternate over the 4 channels
    const CommPlan flat = selection.MakePlan(CollectiveType::ALL_REDUCE,
                                             CollectiveAlgorithm::TREE,
                                             CommGroup::Uniform(16, 1),
                                             1 << 20,
                                             options);
    EXPECT_EQ(flat.GetNTransfers(), TreeAllReduce(16, 1 << 20, 512 * 1024).GetNTransfers());
}
