// SPDX-License-Identifier: GPL-2.0-only
// pat (NCCL's PAT, Parallel Aggregated Trees): Bruck's all-gather and its mirror
// reduce-scatter over any number of ranks. The plan checker proves them; on the ideal
// carrier they take ceil(log2 n) steps and (n - 1)/n of the buffer per rank; NCCL's PAT
// latencies (a call's 8 us + 2.8 us per rank, a network step's 14 / 3.5 us) land where its
// model puts them.
#include "plan-test-util.h"
#include "test-util.h"

#include "ns3/collective-plan-cost.h"
#include "ns3/collective-protocol.h"
#include "ns3/ideal-transport.h"

#include <cmath>

using namespace aifabric;

namespace
{
class Pat : public NsTest
{
};

/// An ideal carrier of n one-GPU hosts on the network at 100 Gb/s with per-message latency.
Ptr<IdealTransport>
Hosts(uint32_t n, Time latency)
{
    auto t = CreateObject<IdealTransport>();
    t->SetAttribute("NRanks", UintegerValue(n));
    t->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
    t->SetAttribute("Latency", TimeValue(latency));
    t->SetAttribute("Hardware", StringValue("net"));
    return t;
}
} // namespace

TEST_F(Pat, PlanCheckerProvesIt)
{
    for (uint32_t n : {1u, 2u, 3u, 5u, 6u, 7u, 8u, 12u, 16u, 17u, 31u, 33u})
    {
        for (uint64_t bytes : {uint64_t{3}, uint64_t{1} << 20, (uint64_t{1} << 20) + 7})
        {
            for (CollectiveType type : {CollectiveType::ALL_GATHER, CollectiveType::REDUCE_SCATTER})
            {
                const CommPlan plan = MakeCollectivePlan(type, NamedAlgorithm("pat"), n, bytes, {});
                const PlanCheckResult r = PlanChecker::Check(plan);
                EXPECT_TRUE(r.ok) << type << " n=" << n << " " << bytes << " B: " << r.reason;
                EXPECT_EQ(plan.GetAlgorithm(), "pat");
                // ceil(log2 n) steps; every rank sends n - 1 blocks in all.
                uint32_t steps = 0;
                std::vector<uint32_t> blocks(n, 0);
                for (const auto& t : plan.GetTransfers())
                {
                    steps = std::max(steps, t.step + 1);
                    blocks[t.src] += t.chunkCount;
                    EXPECT_EQ(t.reduce, type == CollectiveType::REDUCE_SCATTER);
                }
                EXPECT_EQ(steps, CeilLog2(n)) << n;
                for (uint32_t r = 0; r < n; ++r)
                {
                    EXPECT_EQ(blocks[r], n - 1) << "rank " << r << " of " << n;
                }
            }
        }
    }
    // A step's message that leaves before the receive it forwards has landed sends stale
    // data: the checker sees it.
    CommPlan broken = PatAllGather(6, 6000);
    for (const auto& t : broken.GetTransfers())
    {
        if (t.step == 1)
        {
            broken.GetTransfer(t.id).deps.clear();
            break;
        }
    }
    EXPECT_FALSE(PlanChecker::Check(broken).ok);
    EXPECT_FALSE(PlanChecker::Check(DropTransfer(PatReduceScatter(5, 5000), 3)).ok);
}

// Bandwidth: with no per-message latency every rank sends (n - 1)/n of the buffer at the
// port rate, step after step: exactly (n - 1)/n S/B (1 ns per step of rounding).
// Latency: zero-byte blocks cost one alpha per message; ceil(log2 n) steps, a wrapping
// rank's second message a second alpha: between log2 and 2 log2 alphas, where the ring pays
// n - 1.
TEST_F(Pat, TakesLogStepsAndTheBandwidthBound)
{
    for (uint32_t n : {5u, 12u, 16u})
    {
        for (CollectiveType type : {CollectiveType::ALL_GATHER, CollectiveType::REDUCE_SCATTER})
        {
            const uint64_t bytes = uint64_t{n} * 1000000; // n blocks of 1 MB
            const CollectiveResult r = RunCollectiveOn(Hosts(n, Time(0)),
                                                       type,
                                                       CommGroup::Uniform(n, 1),
                                                       bytes,
                                                       "pat",
                                                       CollectiveProtocol::NONE);
            const double expected = (n - 1) * 1e6 * 8 / 100e9;
            EXPECT_NEAR(r.GetDuration().GetSeconds(), expected, CeilLog2(n) * 1e-9)
                << type << " " << n;
        }
        auto zeroBytes = [n](const std::string& algorithm) {
            return RunCollectiveOn(Hosts(n, MicroSeconds(1)),
                                   CollectiveType::ALL_GATHER,
                                   CommGroup::Uniform(n, 1),
                                   0,
                                   algorithm,
                                   CollectiveProtocol::NONE)
                .GetDuration()
                .GetSeconds();
        };
        const double pat = zeroBytes("pat");
        const double ring = zeroBytes("ring");
        std::cout << "[ measured ] " << n << " ranks, zero bytes: pat " << pat * 1e6 << " us, ring "
                  << ring * 1e6 << " us\n";
        EXPECT_GE(pat, CeilLog2(n) * 1e-6 - 1e-12) << n;
        EXPECT_LE(pat, 2 * CeilLog2(n) * 1e-6 + 1e-12) << n;
        EXPECT_NEAR(ring, (n - 1) * 1e-6, 1e-12) << n;
    }
}

// NCCL's PAT latencies (tuning.cc): base 8 us plus 2.8 us per rank per call, and with one
// rank per server the tree's network latency / 3.5 per step (Simple 14 / 3.5 = 4 us). With
// no per-message latency the call takes 8 + 2.8 n + 4 ceil(log2 n) us + (n - 1)/n S/B; PAT
// runs Simple only; the cost model's estimate is the simulation.
TEST_F(Pat, PaysNcclsPatLatencies)
{
    EXPECT_TRUE(CollectiveProtocolApplies(CollectiveAlgorithm::PAT, CollectiveProtocol::SIMPLE));
    EXPECT_FALSE(CollectiveProtocolApplies(CollectiveAlgorithm::PAT, CollectiveProtocol::LL));
    EXPECT_FALSE(CollectiveProtocolApplies(CollectiveAlgorithm::PAT, CollectiveProtocol::LL128));
    EXPECT_EQ(NcclBaseLatencyUs(CollectiveAlgorithm::PAT, CollectiveProtocol::SIMPLE), 8.0);
    for (uint32_t n : {6u, 16u})
    {
        const uint64_t bytes = uint64_t{n} * 100000;
        const double expected =
            (8 + 2.8 * n + 4.0 * CeilLog2(n)) * 1e-6 + (n - 1) * 100000.0 * 8 / 100e9;
        const CollectiveResult r = RunCollectiveOn(Hosts(n, Time(0)),
                                                   CollectiveType::REDUCE_SCATTER,
                                                   CommGroup::Uniform(n, 1),
                                                   bytes,
                                                   "pat",
                                                   CollectiveProtocol::SIMPLE);
        EXPECT_EQ(r.protocol, CollectiveProtocol::SIMPLE);
        EXPECT_NEAR(r.GetDuration().GetSeconds(), expected, 3 * CeilLog2(n) * 1e-9) << n;

        CommPlan plan = PatReduceScatter(n, bytes);
        plan.SetProtocol(CollectiveProtocol::SIMPLE);
        Ptr<IdealTransport> carrier = Hosts(n, Time(0)); // the cost model keeps a reference
        const CollectivePlanCost cost(*carrier, {}, MicroSeconds(1));
        EXPECT_NEAR(cost.Estimate(plan).GetSeconds(), expected, 3 * CeilLog2(n) * 1e-9) << n;
    }
}

// auto weighs pat with the others: on 24 one-GPU hosts at 4 KiB its estimate is among the
// candidates, equal to its simulated time.
TEST_F(Pat, AutoWeighsIt)
{
    const uint32_t n = 24;
    Ptr<IdealTransport> carrier = Hosts(n, MicroSeconds(1));
    const CollectiveSelection selection(carrier);
    CollectivePlanOptions options;
    const auto candidates =
        selection.Rank(CollectiveType::ALL_GATHER, CommGroup::Uniform(n, 1), 4096, options);
    bool found = false;
    for (const auto& c : candidates)
    {
        if (c.algorithm == CollectiveAlgorithm::PAT)
        {
            found = true;
            EXPECT_EQ(c.protocol, CollectiveProtocol::SIMPLE);
            const double simulated = RunCollectiveOn(carrier,
                                                     CollectiveType::ALL_GATHER,
                                                     CommGroup::Uniform(n, 1),
                                                     4096,
                                                     "pat",
                                                     CollectiveProtocol::SIMPLE)
                                         .GetDuration()
                                         .GetSeconds();
            EXPECT_NEAR(c.estimate.GetSeconds(), simulated, CeilLog2(n) * 1e-9); // 1 ns a step
        }
    }
    EXPECT_TRUE(found);
}
