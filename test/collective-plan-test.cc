// SPDX-License-Identifier: GPL-2.0-only
// Collective data layer: CommGroup, CommPlan and the plan generators. The checker must
// accept every generated plan (broken plans: plan-checker-test.cc), and the plans must
// match the closed forms the analytic models (doc/ai-fabric.rst, References) rest on.
#include "plan-test-util.h"

#include "ns3/collective-algorithms.h"
#include "ns3/comm-group.h"
#include "ns3/comm-plan.h"
#include "ns3/plan-checker.h"

#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <random>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{

/// Group sizes the sweeps cover.
constexpr uint32_t MAX_RANKS = 64;

/// \return the checker's verdict as a one-line description for failure messages
std::string
Verdict(const CommPlan& plan)
{
    PlanCheckResult r = PlanChecker::Check(plan);
    return r.ok ? "ok" : r.reason;
}

/// \return true if n is a power of two
bool
IsPowerOfTwo(uint32_t n)
{
    return n && !(n & (n - 1));
}

/// \return floor(log2 n)
uint32_t
Log2(uint32_t n)
{
    uint32_t l = 0;
    while ((2u << l) <= n)
    {
        ++l;
    }
    return l;
}

/// Every generator the sweeps cover, by name.
struct Generator
{
    std::string name;
    std::function<bool(uint32_t)> supports;
    std::function<CommPlan(uint32_t, uint64_t)> make;
};

std::vector<Generator>
AllGenerators()
{
    auto any = [](uint32_t) { return true; };
    auto pow2 = [](uint32_t n) { return IsPowerOfTwo(n); };
    auto two = [](uint32_t n) { return n >= 2; };
    return {
        {"RingAllReduce", any, [](uint32_t n, uint64_t s) { return RingAllReduce(n, s); }},
        {"RingAllReduce/3ch", any, [](uint32_t n, uint64_t s) { return RingAllReduce(n, s, 3); }},
        {"RingReduceScatter", any, [](uint32_t n, uint64_t s) { return RingReduceScatter(n, s); }},
        {"RingAllGather", any, [](uint32_t n, uint64_t s) { return RingAllGather(n, s); }},
        {"RingBroadcast",
         any,
         [](uint32_t n, uint64_t s) { return RingBroadcast(n, s, n / 3, 2, s / 7 + 1); }},
        {"RingReduce",
         any,
         [](uint32_t n, uint64_t s) { return RingReduce(n, s, n - 1, 2, s / 5 + 1); }},
        {"TreeAllReduce/double",
         any,
         [](uint32_t n, uint64_t s) { return TreeAllReduce(n, s, s / 6 + 1, true); }},
        {"TreeAllReduce/single",
         any,
         [](uint32_t n, uint64_t s) { return TreeAllReduce(n, s, 0, false); }},
        {"TreeBroadcast",
         any,
         [](uint32_t n, uint64_t s) { return TreeBroadcast(n, s, n / 2, s / 3 + 1); }},
        {"TreeReduce",
         any,
         [](uint32_t n, uint64_t s) { return TreeReduce(n, s, (n * 2) / 3, s / 3 + 1); }},
        {"HalvingDoublingAllReduce",
         pow2,
         [](uint32_t n, uint64_t s) { return HalvingDoublingAllReduce(n, s); }},
        {"HalvingDoublingReduceScatter",
         pow2,
         [](uint32_t n, uint64_t s) { return HalvingDoublingReduceScatter(n, s); }},
        {"HalvingDoublingAllGather",
         pow2,
         [](uint32_t n, uint64_t s) { return HalvingDoublingAllGather(n, s); }},
        {"DirectAllToAll", any, [](uint32_t n, uint64_t s) { return DirectAllToAll(n, s); }},
        {"DirectAllGather", any, [](uint32_t n, uint64_t s) { return DirectAllGather(n, s); }},
        {"SendRecv",
         two,
         [](uint32_t n, uint64_t s) { return SendRecv(n, n - 1, n / 2 - (n == 2), s, 2); }},
        {"NvlsAllReduce",
         any,
         [](uint32_t n, uint64_t s) { return NvlsAllReduce(n, s, s / 9 + 1); }},
        {"NvlsReduceScatter",
         any,
         [](uint32_t n, uint64_t s) { return NvlsReduceScatter(n, s, s / 5 + 1); }},
        {"NvlsAllGather", any, [](uint32_t n, uint64_t s) { return NvlsAllGather(n, s); }},
    };
}

} // namespace

// ---------------------------------------------------------------------------------------
// CommGroup

TEST(CommGroupTest, UniformHierarchy)
{
    CommGroup g = CommGroup::Uniform(4, 8);
    ASSERT_EQ(g.GetSize(), 32u);
    EXPECT_EQ(g.GetServer(13), 1u);
    EXPECT_EQ(g.GetLocalIndex(13), 5u);
    EXPECT_EQ(g.GetNServers(), 4u);
    EXPECT_EQ(g.GetRanksOnServer(2), (std::vector<uint32_t>{16, 17, 18, 19, 20, 21, 22, 23}));
    EXPECT_TRUE(g.GetRanksOnServer(9).empty());
    EXPECT_EQ(g.GetRail(3), (std::vector<uint32_t>{3, 11, 19, 27}));
    EXPECT_EQ(g.GetRails().size(), 8u);
    EXPECT_TRUE(g.SameServer(8, 15));
    EXPECT_FALSE(g.SameServer(7, 8));
    EXPECT_TRUE(g.IsUniform());
    uint32_t rank = 0;
    ASSERT_TRUE(g.FindRank(3, 7, rank));
    EXPECT_EQ(rank, 31u);
    EXPECT_FALSE(g.FindRank(4, 0, rank));
}

TEST(CommGroupTest, SubGroupKeepsHierarchy)
{
    CommGroup world = CommGroup::Uniform(4, 8);
    // The data-parallel ranks of tensor-parallel slice 3: one GPU per server, one rail.
    CommGroup dp = world.SubGroup(world.GetRail(3));
    ASSERT_EQ(dp.GetSize(), 4u);
    EXPECT_EQ(dp.GetServers(), (std::vector<uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(dp.GetRail(3).size(), 4u);
    EXPECT_EQ(dp.GetServer(2), 2u);
    EXPECT_FALSE(dp.SameServer(0, 1));
    EXPECT_TRUE(dp.IsUniform());
    // A tensor-parallel group: one server, rank order given by the caller.
    CommGroup tp = world.SubGroup({23, 16, 17, 18});
    EXPECT_EQ(tp.GetNServers(), 1u);
    EXPECT_EQ(tp.GetServer(0), 2u);
    EXPECT_EQ(tp.GetLocalIndex(0), 7u);
    EXPECT_EQ(tp.GetRanksOnServer(2), (std::vector<uint32_t>{0, 1, 2, 3}));
    // Sub-group of a sub-group still names the same GPUs.
    CommGroup pair = tp.SubGroup({3, 0});
    EXPECT_EQ(pair.GetGpu(0).server, 2u);
    EXPECT_EQ(pair.GetGpu(0).local, 2u);
    EXPECT_EQ(pair.GetGpu(1).local, 7u);
    // Two GPUs on server 0, one on server 1: not the same shape everywhere.
    EXPECT_FALSE(world.SubGroup({0, 1, 8}).IsUniform());
    // The shape: (server, local) of each rank in rank order, what plan caches key on.
    EXPECT_EQ(pair.GetShape(), (std::vector<uint32_t>{2, 2, 2, 7}));
    EXPECT_NE(world.SubGroup({0, 8}).GetShape(), world.SubGroup({8, 0}).GetShape());
}

TEST(CommGroupDeathTest, BadInputIsNamed)
{
    EXPECT_DEATH(CommGroup::Uniform(0, 8), "nServers must be at least 1");
    EXPECT_DEATH(CommGroup::Uniform(2, 0), "gpusPerServer must be at least 1");
    CommGroup g = CommGroup::Uniform(2, 4);
    EXPECT_DEATH(g.SubGroup({}), "empty");
    EXPECT_DEATH(g.SubGroup({1, 5, 1}), "rank 1 is listed twice");
    EXPECT_DEATH(g.SubGroup({0, 8}), "rank 8 is out of range");
    EXPECT_DEATH(g.GetServer(8), "rank 8 is out of range");
    EXPECT_DEATH(CommGroup({{0, 1}, {0, 1}}), "already uses");
}

// ---------------------------------------------------------------------------------------
// CommPlan

TEST(CommPlanTest, SplitBytesIsExactAndEven)
{
    for (uint64_t total : {0ull, 1ull, 7ull, 1000ull, 1000003ull})
    {
        for (uint32_t parts : {1u, 3u, 8u, 64u})
        {
            uint64_t sum = 0;
            uint64_t lo = UINT64_MAX;
            uint64_t hi = 0;
            for (uint32_t i = 0; i < parts; ++i)
            {
                uint64_t b = CommPlan::SplitBytes(total, parts, i);
                sum += b;
                lo = std::min(lo, b);
                hi = std::max(hi, b);
            }
            EXPECT_EQ(sum, total);
            EXPECT_LE(hi - lo, 1u);
        }
    }
}

TEST(CommPlanTest, ValidateNamesStructuralProblems)
{
    auto base = [] {
        CommPlan p(CollectiveType::ALL_GATHER, 3, 30);
        for (uint32_t j = 0; j < 3; ++j)
        {
            p.AddBlock(10, j);
        }
        CommPlan::Transfer t;
        t.src = 0;
        t.dst = 1;
        t.chunk = 0;
        p.AddTransfer(t);
        t.src = 1;
        t.dst = 2;
        t.deps = {0};
        p.AddTransfer(t);
        return p;
    };
    std::string why;
    EXPECT_TRUE(base().Validate(&why)) << why;
    EXPECT_TRUE(why.empty());

    struct Case
    {
        std::function<void(CommPlan&)> breakIt;
        std::string expected;
    };

    std::vector<Case> cases = {
        {[](CommPlan& p) { p.GetTransfer(1).id = 7; }, "ids must equal indices"},
        {[](CommPlan& p) { p.GetTransfer(1).dst = 3; }, "out of range"},
        {[](CommPlan& p) { p.GetTransfer(1).dst = 1; }, "to itself"},
        {[](CommPlan& p) { p.GetTransfer(1).bytes = 11; }, "says 11 bytes"},
        {[](CommPlan& p) { p.GetTransfer(1).chunk = 3; }, "has 3 blocks"},
        {[](CommPlan& p) { p.GetTransfer(1).deps = {5}; }, "does not exist"},
        {[](CommPlan& p) { p.GetTransfer(1).deps = {1}; }, "depends on itself"},
        {[](CommPlan& p) {
             p.GetTransfer(1).deps = {0, 0};
         },
         "twice"},
        {[](CommPlan& p) { p.GetTransfer(0).deps = {1}; }, "cycle"},
    };
    for (const auto& c : cases)
    {
        CommPlan p = base();
        c.breakIt(p);
        EXPECT_FALSE(p.Validate(&why)) << c.expected;
        EXPECT_NE(why.find(c.expected), std::string::npos) << why;
        // The checker refuses malformed plans before reasoning about them.
        PlanCheckResult r = PlanChecker::Check(p);
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.reason.find("malformed"), std::string::npos) << r.reason;
    }
}

TEST(CommPlanTest, ForwardDepsAreAllowedAndOrdered)
{
    // Dependencies may point at later ids; the topological order honours them.
    CommPlan p(CollectiveType::BROADCAST, 3, 8);
    p.AddBlock(8, 0);
    CommPlan::Transfer t;
    t.src = 1;
    t.dst = 2;
    t.deps = {1};
    p.AddTransfer(t);
    t.src = 0;
    t.dst = 1;
    t.deps = {};
    p.AddTransfer(t);
    ASSERT_TRUE(p.Validate());
    EXPECT_EQ(p.GetTopologicalOrder(), (std::vector<uint32_t>{1, 0}));
    EXPECT_TRUE(PlanChecker::Check(p).ok) << Verdict(p);
}

TEST(CommPlanTest, PrintShowsTheDag)
{
    std::ostringstream os;
    os << RingAllReduce(3, 300);
    const std::string text = os.str();
    EXPECT_NE(text.find("CommPlan all-reduce (ring): 3 ranks, 300 bytes, 3 blocks, 12 transfers"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("#0 step 0 ch 0: 0 -> 1 block 2 (100 B) reduce"), std::string::npos)
        << text;
    EXPECT_NE(text.find("#3 step 1 ch 0: 0 -> 1 block 1 (100 B) reduce deps {2}"),
              std::string::npos)
        << text;
    std::ostringstream hd;
    hd << HalvingDoublingAllReduce(4, 400);
    EXPECT_NE(hd.str().find("#0 step 0 ch 0: 0 -> 2 block 2..3 (200 B) reduce"), std::string::npos)
        << hd.str();
}

TEST(CommPlanTest, BusBandwidthFactors)
{
    EXPECT_DOUBLE_EQ(CollectiveBusBwFactor(CollectiveType::ALL_REDUCE, 8), 1.75);
    EXPECT_DOUBLE_EQ(CollectiveBusBwFactor(CollectiveType::ALL_GATHER, 8), 0.875);
    EXPECT_DOUBLE_EQ(CollectiveBusBwFactor(CollectiveType::REDUCE_SCATTER, 8), 0.875);
    EXPECT_DOUBLE_EQ(CollectiveBusBwFactor(CollectiveType::ALL_TO_ALL, 8), 0.875);
    EXPECT_DOUBLE_EQ(CollectiveBusBwFactor(CollectiveType::BROADCAST, 8), 1.0);
    EXPECT_DOUBLE_EQ(CollectiveBusBwFactor(CollectiveType::REDUCE, 8), 1.0);
}

// ---------------------------------------------------------------------------------------
// Every generator, every group size: the checker proves the collective.

TEST(CollectivePlanTest, EveryGeneratorIsCorrectForEveryGroupSize)
{
    uint32_t checked = 0;
    for (const Generator& g : AllGenerators())
    {
        for (uint32_t n = 1; n <= MAX_RANKS; ++n)
        {
            if (!g.supports(n))
            {
                continue;
            }
            // A size no group size divides, so uneven blocks are exercised everywhere.
            CommPlan plan = g.make(n, 1000003);
            PlanCheckResult r = PlanChecker::Check(plan);
            EXPECT_TRUE(r.ok) << g.name << " n=" << n << ": " << r.reason;
            ++checked;
        }
    }
    // 15 generators for every size (12 + NVLS's 3), halving-doubling's 3 for 7 powers of
    // two, send/recv from 2 ranks up.
    EXPECT_EQ(checked, 15u * MAX_RANKS + 3 * 7 + (MAX_RANKS - 1));
}

TEST(CollectivePlanTest, EveryAlgorithmCollectivePairThroughTheDispatcher)
{
    const std::vector<CollectiveType> types = {CollectiveType::ALL_REDUCE,
                                               CollectiveType::REDUCE_SCATTER,
                                               CollectiveType::ALL_GATHER,
                                               CollectiveType::BROADCAST,
                                               CollectiveType::REDUCE,
                                               CollectiveType::ALL_TO_ALL,
                                               CollectiveType::SEND_RECV};
    const std::vector<CollectiveAlgorithm> algorithms = {CollectiveAlgorithm::RING,
                                                         CollectiveAlgorithm::TREE,
                                                         CollectiveAlgorithm::HALVING_DOUBLING,
                                                         CollectiveAlgorithm::DIRECT,
                                                         CollectiveAlgorithm::NVLS};
    CollectivePlanOptions options;
    options.channels = 2;
    options.chunkBytes = 4096;
    options.root = 1;
    options.peer = 0;
    std::set<std::pair<int, int>> covered;
    for (CollectiveType type : types)
    {
        for (CollectiveAlgorithm algo : algorithms)
        {
            for (uint32_t n : {2u, 3u, 8u, 12u, 16u, 31u})
            {
                if (!IsCollectiveAlgorithmSupported(type, algo, n))
                {
                    continue;
                }
                CommPlan plan = MakeCollectivePlan(type, algo, n, 100000, options);
                EXPECT_EQ(plan.GetType(), type);
                EXPECT_TRUE(PlanChecker::Check(plan).ok)
                    << type << " " << algo << " n=" << n << ": " << Verdict(plan);
                covered.insert({static_cast<int>(type), static_cast<int>(algo)});
            }
        }
    }
    // ring x 5, tree x 3, halving-doubling x 3, direct x 3, nvls x 3
    EXPECT_EQ(covered.size(), 17u);
    EXPECT_FALSE(IsCollectiveAlgorithmSupported(CollectiveType::ALL_REDUCE,
                                                CollectiveAlgorithm::HALVING_DOUBLING,
                                                12));
}

TEST(CollectivePlanTest, ChannelsAndPipeliningKeepPlansCorrect)
{
    for (uint32_t n : {2u, 3u, 5u, 8u, 13u})
    {
        for (uint32_t channels : {1u, 2u, 4u})
        {
            for (uint64_t chunk : {0ull, 1000ull, 4096ull})
            {
                const uint64_t s = 77777;
                for (const CommPlan& plan : {RingAllReduce(n, s, channels, chunk),
                                             RingReduceScatter(n, s, channels, chunk),
                                             RingAllGather(n, s, channels, chunk),
                                             RingBroadcast(n, s, n - 1, channels, chunk),
                                             RingReduce(n, s, 0, channels, chunk),
                                             TreeAllReduce(n, s, chunk, channels % 2 == 0),
                                             TreeBroadcast(n, s, n / 2, chunk),
                                             TreeReduce(n, s, n / 2, chunk),
                                             SendRecv(n, 0, n - 1, s, channels)})
                {
                    EXPECT_TRUE(PlanChecker::Check(plan).ok)
                        << plan.GetType() << " " << plan.GetAlgorithm() << " n=" << n
                        << " ch=" << channels << " chunk=" << chunk << ": " << Verdict(plan);
                    if (chunk != 0 && plan.GetType() != CollectiveType::SEND_RECV)
                    {
                        for (const auto& b : plan.GetBlocks())
                        {
                            EXPECT_LE(b.bytes, chunk + 1);
                        }
                    }
                }
            }
        }
    }
}

TEST(CollectivePlanTest, TinyAndEmptyMessages)
{
    // Fewer bytes than ranks leaves some blocks empty; the structure must still hold.
    for (uint64_t s : {0ull, 1ull, 3ull})
    {
        for (uint32_t n : {2u, 5u, 8u})
        {
            for (const Generator& g : AllGenerators())
            {
                if (g.supports(n))
                {
                    EXPECT_TRUE(PlanChecker::Check(g.make(n, s)).ok)
                        << g.name << " n=" << n << " bytes=" << s << ": " << Verdict(g.make(n, s));
                }
            }
        }
    }
}

TEST(CollectivePlanTest, AllToAllV)
{
    std::mt19937 rng(7);
    for (uint32_t n : {2u, 3u, 9u, 16u})
    {
        std::vector<uint64_t> matrix(n * n);
        for (auto& m : matrix)
        {
            m = (rng() % 3 == 0) ? 0 : rng() % 100000;
        }
        CommPlan plan = DirectAllToAllV(n, matrix);
        EXPECT_TRUE(PlanChecker::Check(plan).ok) << "n=" << n << ": " << Verdict(plan);
        uint32_t nonZero = 0;
        for (uint32_t s = 0; s < n; ++s)
        {
            for (uint32_t d = 0; d < n; ++d)
            {
                nonZero += (s != d && matrix[s * n + d] != 0);
            }
        }
        EXPECT_EQ(plan.GetNTransfers(), nonZero);
        // A wrong matrix entry is caught against the blocks.
        CommPlan wrong = plan;
        std::vector<uint64_t> m2 = matrix;
        m2[1] += 1;
        wrong.SetPairBytes(m2);
        EXPECT_FALSE(PlanChecker::Check(wrong).ok);
    }
}

TEST(CommPlanTest, NvlsByteAccounting)
{
    // Each rank sends S (its contribution to every shard) plus its own shard once more
    // (the multicast), and receives its shard's sum plus every shard: S (1 + 1/n) each way.
    const uint32_t n = 8;
    const uint64_t S = 8 << 20;
    CommPlan plan = NvlsAllReduce(n, S);
    for (uint32_t r = 0; r < n; ++r)
    {
        EXPECT_EQ(plan.GetBytesSent(r), S + S / n);
        EXPECT_EQ(plan.GetBytesReceived(r), S + S / n);
    }
    // 128 KiB pieces by default: 1 MiB shards -> 8 pieces -> 8 reductions and multicasts each.
    EXPECT_EQ(plan.GetNTransfers(), 2u * n * 8);
    std::ostringstream os;
    plan.Print(os);
    EXPECT_NE(os.str().find("switch-reduce -> 0"), std::string::npos);
    EXPECT_NE(os.str().find("0 -> switch-multicast"), std::string::npos);
}

TEST(CollectiveClosedFormTest, RingAllReduce)
{
    for (uint32_t n = 2; n <= MAX_RANKS; ++n)
    {
        const uint64_t s = uint64_t{n} * 4096;
        CommPlan plan = RingAllReduce(n, s);
        EXPECT_EQ(plan.GetNSteps(), 2 * (n - 1));
        EXPECT_EQ(plan.GetNTransfers(), 2 * (n - 1) * n);
        for (uint32_t r = 0; r < n; ++r)
        {
            EXPECT_EQ(plan.GetTransfersSent(r), 2 * (n - 1));
            EXPECT_EQ(plan.GetStepsSent(r), 2 * (n - 1));
            EXPECT_EQ(plan.GetBytesSent(r), 2 * (n - 1) * s / n);
            EXPECT_EQ(plan.GetBytesReceived(r), 2 * (n - 1) * s / n);
        }
        // Uneven sizes: rank r sends everything but shard r (reduce-scatter) and
        // everything but shard r+1 (all-gather).
        const uint64_t odd = 1000003;
        CommPlan uneven = RingAllReduce(n, odd);
        for (uint32_t r = 0; r < n; ++r)
        {
            EXPECT_EQ(uneven.GetBytesSent(r),
                      2 * odd - CommPlan::SplitBytes(odd, n, r) -
                          CommPlan::SplitBytes(odd, n, (r + 1) % n));
        }
        uint64_t lo = UINT64_MAX;
        uint64_t hi = 0;
        for (const auto& b : uneven.GetBlocks())
        {
            lo = std::min(lo, b.bytes);
            hi = std::max(hi, b.bytes);
        }
        EXPECT_LE(hi - lo, 1u);
    }
    // Channels and chunks multiply transfers but not bytes.
    CommPlan piped = RingAllReduce(8, 8 * 4 * 3 * 1000, 4, 1000);
    EXPECT_EQ(piped.GetNTransfers(), 2u * 7 * 8 * 4 * 3);
    EXPECT_EQ(piped.GetNChannels(), 4u);
    EXPECT_EQ(piped.GetBytesSent(5), 2u * 7 * 4 * 3 * 1000);
}

TEST(CollectiveClosedFormTest, RingReduceScatterAndAllGather)
{
    for (uint32_t n = 2; n <= MAX_RANKS; ++n)
    {
        const uint64_t s = uint64_t{n} * 1000;
        for (const CommPlan& plan : {RingReduceScatter(n, s), RingAllGather(n, s)})
        {
            EXPECT_EQ(plan.GetNSteps(), n - 1);
            for (uint32_t r = 0; r < n; ++r)
            {
                EXPECT_EQ(plan.GetTransfersSent(r), n - 1);
                EXPECT_EQ(plan.GetBytesSent(r), (n - 1) * s / n);
            }
        }
    }
}

TEST(CollectiveClosedFormTest, DirectAllToAll)
{
    for (uint32_t n = 2; n <= MAX_RANKS; ++n)
    {
        const uint64_t s = uint64_t{n} * 512;
        CommPlan plan = DirectAllToAll(n, s);
        EXPECT_EQ(plan.GetNTransfers(), n * (n - 1));
        EXPECT_EQ(plan.GetNSteps(), n - 1);
        for (uint32_t r = 0; r < n; ++r)
        {
            EXPECT_EQ(plan.GetBytesSent(r), (n - 1) * s / n);
            EXPECT_EQ(plan.GetBytesReceived(r), (n - 1) * s / n);
        }
        for (const auto& t : plan.GetTransfers())
        {
            EXPECT_TRUE(t.deps.empty());
        }
    }
}

TEST(CollectiveClosedFormTest, HalvingDoubling)
{
    for (uint32_t n = 2; n <= MAX_RANKS; n *= 2)
    {
        const uint64_t s = uint64_t{n} * 1024;
        CommPlan plan = HalvingDoublingAllReduce(n, s);
        const uint32_t logN = Log2(n);
        EXPECT_EQ(plan.GetNSteps(), 2 * logN);
        EXPECT_EQ(plan.GetNTransfers(), 2 * logN * n);
        for (uint32_t r = 0; r < n; ++r)
        {
            // One message per step: 2 log2(n) alphas, and 2(n-1)/n S bytes.
            EXPECT_EQ(plan.GetTransfersSent(r), 2 * logN);
            EXPECT_EQ(plan.GetStepsSent(r), 2 * logN);
            EXPECT_EQ(plan.GetBytesSent(r), 2 * (n - 1) * s / n);
        }
        // Distances halve, then double.
        for (const auto& t : plan.GetTransfers())
        {
            const uint32_t distance = t.src ^ t.dst;
            const uint32_t expected = t.step < logN ? n >> (t.step + 1) : 1u << (t.step - logN);
            EXPECT_EQ(distance, expected);
        }
    }
}

TEST(CollectiveClosedFormTest, Trees)
{
    for (uint32_t n = 2; n <= MAX_RANKS; ++n)
    {
        const uint64_t s = 2 * 3 * 1000;
        const uint32_t depth = Log2(n);
        CommPlan dbt = TreeAllReduce(n, s, 1000, true);
        const uint32_t blocks = dbt.GetNBlocks();
        EXPECT_EQ(blocks, 6u);
        // Each chunk goes up n-1 edges and down n-1 edges.
        EXPECT_EQ(dbt.GetNTransfers(), 2 * (n - 1) * blocks);
        uint64_t total = 0;
        uint64_t maxReceived = 0;
        for (uint32_t r = 0; r < n; ++r)
        {
            total += dbt.GetBytesSent(r);
            maxReceived = std::max(maxReceived, dbt.GetBytesReceived(r));
        }
        EXPECT_EQ(total, 2 * (n - 1) * s);
        // Log-depth trees: up log2(n) levels and down again.
        EXPECT_EQ(dbt.GetNSteps(), 2 * depth);
        // The two trees have complementary leaves, so no rank receives more than 2S;
        // a single tree makes its inner ranks receive 3S (two children and a parent).
        EXPECT_LE(maxReceived, 2 * s);
        CommPlan single = TreeAllReduce(n, s, 1000, false);
        uint64_t singleMax = 0;
        for (uint32_t r = 0; r < n; ++r)
        {
            singleMax = std::max(singleMax, single.GetBytesReceived(r));
        }
        if (n >= 6)
        {
            EXPECT_EQ(singleMax, 3 * s);
        }
        CommPlan bcast = TreeBroadcast(n, s, n - 1);
        EXPECT_EQ(bcast.GetNTransfers(), n - 1);
        EXPECT_EQ(bcast.GetNSteps(), depth);
        CommPlan reduce = TreeReduce(n, s, 0);
        EXPECT_EQ(reduce.GetNTransfers(), n - 1);
        EXPECT_EQ(reduce.GetNSteps(), depth);
    }
}

TEST(CollectiveClosedFormTest, ChainsPipeline)
{
    // A chain broadcast of c chunks over n ranks: (n-1) hops per chunk; the dependency
    // depth (the alpha count of a pipelined schedule) is n-1, not c(n-1).
    CommPlan plan = RingBroadcast(8, 8000, 3, 1, 1000);
    EXPECT_EQ(plan.GetNBlocks(), 8u);
    EXPECT_EQ(plan.GetNTransfers(), 7u * 8);
    EXPECT_EQ(plan.GetNSteps(), 7u);
    EXPECT_EQ(plan.GetBytesSent(3), 8000u);
    EXPECT_EQ(plan.GetBytesSent(2), 0u); // the last rank of the chain only receives
}

TEST(CollectiveAlgorithmsDeathTest, BadArgumentsAreNamed)
{
    EXPECT_DEATH(HalvingDoublingAllReduce(6, 100), "power-of-two group size, got 6");
    EXPECT_DEATH(HalvingDoublingAllGather(12, 100), "power-of-two");
    EXPECT_DEATH(RingAllReduce(0, 100), "the group is empty");
    EXPECT_DEATH(RingAllReduce(4, 100, 0), "channels must be at least 1");
    EXPECT_DEATH(RingBroadcast(4, 100, 4), "root 4 is not a rank");
    EXPECT_DEATH(TreeReduce(4, 100, 9), "root 9 is not a rank");
    EXPECT_DEATH(SendRecv(4, 2, 2, 100), "cannot send to itself");
    EXPECT_DEATH(DirectAllToAllV(3, {1, 2, 3}), "expected 3 x 3");
    EXPECT_DEATH(MakeCollectivePlan(CollectiveType::ALL_TO_ALL, CollectiveAlgorithm::RING, 4, 100),
                 "no ring algorithm for all-to-all");
    EXPECT_DEATH(RingAllReduce(4, 1ull << 40, 1, 1), "use a larger chunk");
}
