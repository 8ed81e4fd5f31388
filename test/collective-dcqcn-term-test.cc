// SPDX-License-Identifier: GPL-2.0-only
// The cost model's DCQCN term (CollectiveDcqcnTerm over RoceDcqcnFluid): the fluid reaction
// point against RoceDcqcn itself, and the estimate of incasts against the packet model.
#include "plan-test-util.h"
#include "test-util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

using namespace aifabric;

namespace
{

class CollectiveDcqcnTerm : public NsTest
{
};

constexpr double LINE_BPS = 400e9; //!< the NICs of these tests

/// RoceDcqcn and RoceDcqcnFluid fed the same CNPs and sends; checked every microsecond.
struct Pair
{
    Ptr<RoceDcqcn> reference;
    RoceDcqcnFluid fluid;
    uint32_t checks{0};
    double worst{0};     //!< largest relative difference of Rc or Rt seen
    double lowest{1e30}; //!< lowest Rc seen
};

void
Cnp(Pair* p)
{
    p->reference->OnCnp();
    p->fluid.OnCnp(Simulator::Now().GetSeconds());
}

void
Send(Pair* p, uint32_t bytes)
{
    p->reference->OnSend(bytes);
    p->fluid.OnSend(Simulator::Now().GetSeconds(), bytes);
}

void
Check(Pair* p)
{
    p->fluid.AdvanceTo(Simulator::Now().GetSeconds());
    const double rc = p->reference->GetRateBps();
    const double rt = p->reference->GetTargetRateBps();
    p->worst = std::max({p->worst,
                         std::abs(p->fluid.GetRateBps() - rc) / rc,
                         std::abs(p->fluid.GetTargetRateBps() - rt) / rt});
    p->lowest = std::min(p->lowest, rc);
    ++p->checks;
}

/// Hosts on one leaf of a two-leaf fabric (400G, 1 us cables), NICs with cc.
Ptr<RdmaTransport>
OneLeaf(RoceHelper& roce, uint32_t hosts, const std::string& cc)
{
    roce.SetCongestionControl(cc);
    RoceTopologyHelper topoHelper(roce);
    const RoceTopology topo =
        topoHelper.LeafSpine(2, 2, hosts, DataRate("400Gbps"), 1.0, MicroSeconds(1));
    roce.AssignStreams(1);
    Ptr<RdmaTransport> rdma = CreateObject<RdmaTransport>();
    rdma->SetNics(topo.nics);
    return rdma;
}

/// Ranks 1..senders each write bytes to rank 0 at once (an all-to-allv of those pairs).
CommPlan
Incast(uint32_t senders, uint64_t bytes)
{
    const uint32_t n = senders + 1;
    std::vector<uint64_t> pairs(static_cast<size_t>(n) * n, 0);
    for (uint32_t s = 1; s <= senders; ++s)
    {
        pairs[static_cast<size_t>(s) * n] = bytes;
    }
    return DirectAllToAllV(n, pairs);
}

/// An incast's estimate and its simulated times over RngRun 1..runs.
EstimateOverRuns
RunIncast(uint32_t senders, uint64_t bytes, const std::string& cc, uint32_t runs)
{
    EstimateOverRuns r;
    for (uint32_t run = 1; run <= runs; ++run)
    {
        RngSeedManager::SetRun(run);
        RoceHelper roce;
        Ptr<RdmaTransport> rdma = OneLeaf(roce, senders + 1, cc);
        const CommPlan plan = Incast(senders, bytes);
        r.estimate = CollectivePlanCost(*rdma).Estimate(plan).GetSeconds();
        Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
        engine->SetTransport(rdma);
        CollectiveResult result;
        engine->Run(plan, MakeBoundCallback(&StoreResult, &result));
        Simulator::Run();
        const double t = (result.end - result.start).GetSeconds();
        r.Add(t, runs);
        Simulator::Destroy();
    }
    RngSeedManager::SetRun(1);
    return r;
}

} // namespace

// The fluid reaction point keeps RoceDcqcn's rules and grids: fed the same CNPs (bursts,
// gaps longer than the increase timer, CNPs between decrease checks) and the same sends,
// its Rc and Rt equal the event-driven model's at every microsecond of a millisecond.
TEST_F(CollectiveDcqcnTerm, FluidReactionPointFollowsRoceDcqcn)
{
    Ptr<RoceDcqcn> reference = CreateObject<RoceDcqcn>();
    reference->Start(static_cast<uint64_t>(LINE_BPS));
    Pair p{reference, RoceDcqcnFluid(reference->GetFigures(), LINE_BPS)};
    // CNPs off the 1 ns-anchored grids: two in one decrease period, an episode of twenty
    // 4.3 us apart, isolated ones, and a late one after the increase timer has stepped.
    std::vector<double> cnps{10.3, 10.9, 120.4, 121.3, 820.7};
    for (int k = 0; k < 20; ++k)
    {
        cnps.push_back(14.1 + 4.3 * k);
    }
    for (double us : cnps)
    {
        Simulator::Schedule(NanoSeconds(static_cast<int64_t>(us * 1000)), &Cnp, &p);
    }
    // A 4 KiB packet every 1.31 us (about 25 Gb/s): the byte counter steps every eighth.
    for (int64_t ns = 200; ns < 1000000; ns += 1310)
    {
        Simulator::Schedule(NanoSeconds(ns), &Send, &p, 4096u);
    }
    for (int64_t us = 1; us <= 1000; ++us)
    {
        Simulator::Schedule(NanoSeconds(us * 1000 + 500), &Check, &p);
    }
    Simulator::Run();
    EXPECT_EQ(p.checks, 1000u);
    EXPECT_LT(p.worst, 1e-9);
    EXPECT_GT(p.fluid.GetCuts(), 5u);  // it did cut
    EXPECT_LT(p.lowest, LINE_BPS / 8); // deep: several cuts in a row
}

// Transmit: at line rate bytes take their line time; after one cut (alpha 1 at the first
// CNP, decayed by (1 - G) per microsecond to the check 4 us later; Rt kept at line) the
// first ByteCounter bytes go at the cut rate, then fast recovery takes Rc half way back to
// line. Then, with a CNP handed in before, a transmission across the next decrease check:
// a byte-counter step (additive: Rt stays at line, capped), the cut at the check (Rt set to
// Rc, as an increase came since the last cut; alpha raised by the CNP's period), then
// fast recovery towards that lower Rt and an additive step above it (Rt + RateAi).
TEST_F(CollectiveDcqcnTerm, TransmitFollowsTheRateAsItMoves)
{
    Ptr<RoceDcqcn> cc = CreateObject<RoceDcqcn>();
    RoceDcqcn::Figures f = cc->GetFigures();
    ASSERT_EQ(f.fastRecoverySteps, 1u);
    RoceDcqcnFluid line(f, LINE_BPS);
    EXPECT_NEAR(line.Transmit(0, 50000), 50000 * 8 / LINE_BPS, 1e-15);

    const double keep = 1 - f.g;
    const double bc = static_cast<double>(f.byteCounter);
    RoceDcqcnFluid fluid(f, LINE_BPS);
    fluid.OnCnp(0);
    fluid.AdvanceTo(5e-6); // the check at 4 us + 1 ns cut the rate
    ASSERT_EQ(fluid.GetCuts(), 1u);
    const double r1 = LINE_BPS * (1 - std::pow(keep, 4) / 2);
    EXPECT_NEAR(fluid.GetRateBps(), r1, 1e-6);
    EXPECT_DOUBLE_EQ(fluid.GetTargetRateBps(), LINE_BPS);
    // ByteCounter bytes at r1, then fast recovery: (r1 + line) / 2.
    const double q1 = (r1 + LINE_BPS) / 2;
    EXPECT_NEAR(fluid.Transmit(5e-6, f.byteCounter), bc * 8 / r1, 1e-12);
    EXPECT_NEAR(fluid.GetRateBps(), q1, 1e-6);

    // A CNP at 6.5 us: its decrease check is due at 8 us + 1 ns, inside the next sending.
    fluid.OnCnp(6.5e-6);
    const double start = 7e-6;
    const double check = 8e-6 + 1e-9;
    const double total = 4 * bc;
    const double t1 = start + bc * 8 / q1; // a byte-counter step: additive, Rt capped
    const double q2 = (q1 + LINE_BPS) / 2;
    ASSERT_LT(t1, check);
    const double x = (check - t1) * q2 / 8; // bytes sent before the cut
    // alpha: periods 5 and 6 decay, period 7 (the CNP's) raises, period 8 decays.
    const double alpha = (keep * std::pow(keep, 6) + f.g) * keep;
    const double rt = q2; // an increase since the cut: Rt = Rc
    const double q3 = q2 * (1 - alpha / 2);
    const double q4 = (q3 + rt) / 2;               // fast recovery after ByteCounter bytes at q3
    const double q5 = (q4 + rt + f.rateAiBps) / 2; // additive, Rt now below line
    const double expected =
        (check - start) + bc * 8 / q3 + bc * 8 / q4 + (total - bc - x - 2 * bc) * 8 / q5;
    EXPECT_NEAR(fluid.Transmit(start, static_cast<uint64_t>(total)), expected, 1e-10);
    EXPECT_EQ(fluid.GetCuts(), 2u);
    EXPECT_NEAR(fluid.GetTargetRateBps(), rt + f.rateAiBps, 1e-3);
    EXPECT_NEAR(fluid.GetRateBps(), q5, 1e-3);
}

// The estimate of an incast against the packet model (one leaf, 400G, DCQCN with
// ConnectX's defaults, PFC; the packet model over five seeds, as its ECN marks are random).
// 4 MiB from each of two senders: the switch's buffer absorbs it and the cuts come too late
// to matter, in both. 4 MiB from each of four: DCQCN's cuts stretch the incast by 1.8x,
// and the estimate follows (without the term: 344 us, the wire time). 16 MiB from two:
// the rates collapse and recover to about a quarter of line; the estimate within 15 % of
// the packet model's mean (its seeds span 1306 to 1869 us). 16 MiB from four: whether the
// recovered rates sum above line (a second collapse) differs with the seed in the packet
// model (1643 to 2033 us); the estimate within 10 % below and 20 % above the mean (1.12
// times it; 1.31 when every expected mark counted towards a CNP).
TEST_F(CollectiveDcqcnTerm, IncastEstimatesAgainstThePacketModel)
{
    constexpr uint32_t RUNS = 5;
    const std::string dcqcn = "ns3::RoceDcqcn";

    struct Case
    {
        uint32_t senders;
        uint64_t mib;
        double low;  //!< estimate / mean at least
        double high; //!< estimate / mean at most
    };

    for (const Case& c : {Case{2, 4, 0.95, 1.05},
                          Case{4, 4, 0.95, 1.05},
                          Case{2, 16, 0.85, 1.15},
                          Case{4, 16, 0.9, 1.2}})
    {
        const EstimateOverRuns r = RunIncast(c.senders, c.mib << 20, dcqcn, RUNS);
        const double ratio = r.estimate / r.mean;
        std::printf("%u:1 %lu MiB: estimate %.1f us, packets %.1f us (%.1f to %.1f)\n",
                    c.senders,
                    static_cast<unsigned long>(c.mib),
                    r.estimate * 1e6,
                    r.mean * 1e6,
                    r.fastest * 1e6,
                    r.slowest * 1e6);
        EXPECT_GE(ratio, c.low) << c.senders << ":1 " << c.mib << " MiB: estimate "
                                << r.estimate * 1e6 << " us, packets " << r.mean * 1e6 << " us ("
                                << r.fastest * 1e6 << " to " << r.slowest * 1e6 << ")";
        EXPECT_LE(ratio, c.high) << c.senders << ":1 " << c.mib << " MiB: estimate "
                                 << r.estimate * 1e6 << " us, packets " << r.mean * 1e6 << " us ("
                                 << r.fastest * 1e6 << " to " << r.slowest * 1e6 << ")";
    }
    // Without congestion control the term is off: the estimate is the wire time, as the
    // packet model's (PFC shares the port).
    const EstimateOverRuns none = RunIncast(4, 16ull << 20, "none", 1);
    EXPECT_NEAR(none.estimate, none.mean, 1e-3 * none.mean);
}

// PFC's bound on the queues: the tree's all-reduce on 64 one-GPU hosts (two leaves, 32
// spines, 400G) has every parent take its two children's data at once, 16 and more such
// incasts on each leaf; the dynamic threshold (Alpha x the shared pool the queues leave)
// then holds each port's queue below Kmin, the NICs are paused rather than marked, and the
// packet model runs as fast under DCQCN as without congestion control (959.1 against 957.9
// us, 16 MiB: collective-perf --transport=rdma --ranks=64 --leaves=2 --spines=32
// --algorithm=tree --protocol=Simple, with --cc=none). The estimate under DCQCN stays
// within 5 % of the one without. At 32 MiB, where each incast lasts long enough for the
// rates to collapse, the bound is what holds the term back: with the data priority lossy
// (no PFC, no bound) its estimate is more than 30 % above the lossless one. (At 16 MiB the
// lossy estimate is no slower since the CNPs come at RED's mean rate.)
TEST_F(CollectiveDcqcnTerm, PfcHoldsManyIncastsBelowTheMarkingThreshold)
{
    auto estimate = [](const std::string& cc, uint64_t bytes = 16 << 20) {
        RoceHelper roce;
        roce.SetCongestionControl(cc);
        const RoceTopology topo = RoceTopologyHelper(roce).LeafSpine(2,
                                                                     32,
                                                                     32,
                                                                     DataRate("400Gbps"),
                                                                     1.0,
                                                                     MicroSeconds(1));
        roce.AssignStreams(1);
        Ptr<RdmaTransport> rdma = CreateObject<RdmaTransport>();
        rdma->SetNics(topo.nics);
        CollectivePlanOptions options;
        options.protocol = CollectiveProtocol::SIMPLE;
        const CommPlan plan = CollectiveSelection(rdma).MakePlan(CollectiveType::ALL_REDUCE,
                                                                 NamedAlgorithm("tree"),
                                                                 CommGroup::Uniform(64, 1),
                                                                 bytes,
                                                                 options);
        const double t = CollectivePlanCost(*rdma).Estimate(plan).GetSeconds();
        Simulator::Destroy();
        return t;
    };
    const double none = estimate("none");
    const double dcqcn = estimate("ns3::RoceDcqcn");
    EXPECT_GE(dcqcn, none);
    EXPECT_LT(dcqcn / none, 1.05) << "DCQCN " << dcqcn * 1e6 << " us, none " << none * 1e6;
    const double none32 = estimate("none", 32 << 20);
    const double lossless = estimate("ns3::RoceDcqcn", 32 << 20);
    Config::SetDefault("ns3::SharedBufferMmu::LosslessPriorities", UintegerValue(0));
    const double lossy = estimate("ns3::RoceDcqcn", 32 << 20);
    std::printf("tree on 64 hosts: 16 MiB DCQCN %.1f us, none %.1f; 32 MiB lossless %.1f, "
                "lossy %.1f, none %.1f\n",
                dcqcn * 1e6,
                none * 1e6,
                lossless * 1e6,
                lossy * 1e6,
                none32 * 1e6);
    EXPECT_GT(lossy / lossless, 1.3)
        << "lossy " << lossy * 1e6 << " us, lossless " << lossless * 1e6 << " us (32 MiB)";
}

// A tree of sustained 2:1 incasts on an oversubscribed fabric: the tree's all-reduce of 16
// MiB on 32 one-GPU hosts (two leaves of 16, 8 spines, 2:1, 400G, 1 us cables), where each
// parent of two leaves takes 8 MiB from each at once and its queue passes Kmin. The packet
// model marks and cuts; on seeds 1, 4 and 5 the tree runs within 7 % of the time without
// congestion control (903.7 us with --cc=none), on seeds 2 and 3 the rates collapse
// before the children are through (seeds 1 to 5: 917.1, 1398.2, 1138.1, 953.9, 970.2 us:
// collective-perf --transport=rdma --ranks=32 --leaves=2 --spines=8 --oversubscription=2
// --algorithm=tree --protocol=Simple --minBytes=16M --maxBytes=16M --RngRun=N). The ring
// on LL128 takes 1266.0 us on each of those seeds. The estimate is within 10 % of the
// packet model's median over the five seeds (the estimate, deterministic, gives the runs
// in which the rates hold: here no slowdown, 912.8 us without congestion control), and
// auto takes the tree, which is faster than that ring on average. (When every expected
// mark counted towards a CNP, the CNPs came up to twice as often as RED's where a mark
// falls about once per CnpInterval, the rates collapsed early on every parent, the tree
// was estimated at 1268.9 us, 1.31 times the median, and auto took the ring.)
TEST_F(CollectiveDcqcnTerm, TreeOfIncastsOnAnOversubscribedFabric)
{
    constexpr uint32_t RUNS = 5;
    constexpr uint64_t BYTES = 16 << 20;
    const CommGroup group = CommGroup::Uniform(32, 1);
    // Simulates algorithm on protocol with RngRun run; returns the time (s) and, if asked,
    // the plan's estimate and auto's choice.
    auto simulate = [&](const std::string& algorithm,
                        CollectiveProtocol protocol,
                        uint32_t run,
                        double* estimate,
                        CollectiveSelection::Candidate* chosen) {
        RngSeedManager::SetRun(run);
        RoceHelper roce;
        roce.SetCongestionControl("ns3::RoceDcqcn");
        const RoceTopology topo =
            RoceTopologyHelper(roce).LeafSpine(2, 8, 16, DataRate("400Gbps"), 2.0, MicroSeconds(1));
        roce.AssignStreams(1);
        Ptr<RdmaTransport> rdma = CreateObject<RdmaTransport>();
        rdma->SetNics(topo.nics);
        const CollectiveSelection selection(rdma);
        CollectivePlanOptions options;
        options.protocol = protocol;
        const CommPlan plan = selection.MakePlan(CollectiveType::ALL_REDUCE,
                                                 NamedAlgorithm(algorithm),
                                                 group,
                                                 BYTES,
                                                 options);
        if (estimate)
        {
            *estimate = CollectivePlanCost(*rdma).Estimate(plan).GetSeconds();
        }
        if (chosen)
        {
            *chosen = selection.Choose(CollectiveType::ALL_REDUCE, group, BYTES);
        }
        Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
        engine->SetTransport(rdma);
        CollectiveResult result;
        engine->Run(plan, MakeBoundCallback(&StoreResult, &result));
        Simulator::Run();
        Simulator::Destroy();
        RngSeedManager::SetRun(1);
        return (result.end - result.start).GetSeconds();
    };
    double estimate = 0;
    CollectiveSelection::Candidate chosen{};
    std::vector<double> tree;
    for (uint32_t run = 1; run <= RUNS; ++run)
    {
        tree.push_back(simulate("tree",
                                CollectiveProtocol::SIMPLE,
                                run,
                                run == 1 ? &estimate : nullptr,
                                run == 1 ? &chosen : nullptr));
    }
    const double ring = simulate("ring", CollectiveProtocol::LL128, 1, nullptr, nullptr);
    const double mean = std::accumulate(tree.begin(), tree.end(), 0.0) / RUNS;
    std::sort(tree.begin(), tree.end());
    const double median = tree[RUNS / 2];
    std::printf("tree 16 MiB, 32 hosts at 2:1: estimate %.1f us, packets median %.1f us, mean "
                "%.1f (%.1f to %.1f); ring on LL128 %.1f us\n",
                estimate * 1e6,
                median * 1e6,
                mean * 1e6,
                tree.front() * 1e6,
                tree.back() * 1e6,
                ring * 1e6);
    EXPECT_NEAR(estimate, median, 0.10 * median);
    EXPECT_EQ(chosen.algorithm, CollectiveAlgorithm::TREE)
        << "auto took " << chosen.algorithm << " (" << chosen.estimate.GetMicroSeconds() << " us)";
    EXPECT_LT(mean, ring); // the tree is the faster on average
}
