// SPDX-License-Identifier: GPL-2.0-only
// The cost model behind "auto" (CollectivePlanCost over the carriers' DescribePath):
// its estimates against the carriers' simulated times, and auto's choice against every
// algorithm run by name.
#include "plan-test-util.h"
#include "test-util.h"

#include <cmath>
#include <functional>
#include <map>
#include <string>

using namespace aifabric;

namespace
{

/// A carrier of the tests: ideal, one NVSwitch, or servers on NVSwitch + RoCE.
struct Bench
{
    Ptr<CollectiveTransport> carrier;
    CommGroup group;
    RoceHelper roce;
    GpuCluster cluster;
};

/// Build a carrier: "ideal", "nvswitch" (one server of gpus) or "dgx" (servers x gpus).
void
MakeBench(Bench& b,
          const std::string& kind,
          uint32_t servers,
          uint32_t gpus,
          const std::string& gpu = "H100")
{
    if (kind == "ideal")
    {
        Ptr<IdealTransport> ideal = CreateObject<IdealTransport>();
        ideal->SetAttribute("NRanks", UintegerValue(servers * gpus));
        ideal->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
        ideal->SetAttribute("Latency", TimeValue(MicroSeconds(2)));
        ideal->SetAttribute("ModelReceivePort", BooleanValue(true));
        b.carrier = ideal;
        b.group = CommGroup::Uniform(servers, gpus);
        return;
    }
    GpuClusterHelper helper(b.roce);
    b.cluster = helper.Build(servers, gpus, gpu, DataRate("400Gbps"), 2, 1.0, MicroSeconds(1));
    b.roce.AssignStreams(1);
    b.carrier = b.cluster.transport;
    b.group = b.cluster.world;
}

/**
 * Hosts on two leaves (hostsPerLeaf each, 400G, 1 us cables) under spines spines, leaf
 * uplinks oversubscribed ratio:1, NICs with congestion control cc ("none": none).
 */
void
MakeLeafSpine(Bench& b,
              uint32_t hostsPerLeaf,
              uint32_t spines,
              double ratio,
              const std::string& cc,
              uint32_t qps = 1)
{
    b.roce.SetCongestionControl(cc);
    RoceTopologyHelper topoHelper(b.roce);
    const RoceTopology topo =
        topoHelper.LeafSpine(2, spines, hostsPerLeaf, DataRate("400Gbps"), ratio, MicroSeconds(1));
    b.roce.AssignStreams(1);
    Ptr<RdmaTransport> rdma = CreateObject<RdmaTransport>();
    rdma->SetAttribute("QpsPerConnection", UintegerValue(qps));
    rdma->SetAttribute("SplitDataOnQps", BooleanValue(qps > 1));
    rdma->SetNics(topo.nics);
    b.carrier = rdma;
    b.group = CommGroup::Uniform(2 * hostsPerLeaf, 1);
}

/// E[max load] of balls in bins by enumerating every load vector (multinomial weights).
double
BruteForceMaxLoad(uint32_t balls, uint32_t bins)
{
    // P(loads) = balls! / (prod l_i!) / bins^balls, as a product of binomials bin by bin.
    std::function<double(uint32_t, uint32_t, uint32_t)> walk =
        [&](uint32_t bin, uint32_t left, uint32_t most) -> double {
        if (bin + 1 == bins)
        {
            return std::max(most, left);
        }
        const double q = 1.0 / (bins - bin);
        double e = 0;
        for (uint32_t l = 0; l <= left; ++l)
        {
            const double p = std::exp(std::lgamma(left + 1.0) - std::lgamma(l + 1.0) -
                                      std::lgamma(left - l + 1.0)) *
                             std::pow(q, l) * std::pow(1 - q, left - l);
            e += p * walk(bin + 1, left - l, std::max(most, l));
        }
        return e;
    };
    return walk(0, balls, 0);
}

/// E[max load] of balls in bins from P(max <= t) = balls! [x^balls] (sum_{l <= t}
/// (x / bins)^l / l!)^bins, by polynomial products (another formula than the enumeration's
/// and the model's; fine to a few hundred balls).
double
MultinomialMaxLoad(uint32_t balls, uint32_t bins)
{
    double e = 0;
    for (uint32_t t = 0; t < balls; ++t)
    {
        std::vector<double> term(t + 1);
        for (uint32_t l = 0; l <= t; ++l)
        {
            term[l] = std::exp(-double(l) * std::log(double(bins)) - std::lgamma(l + 1.0));
        }
        std::vector<double> poly{1.0};
        for (uint32_t j = 0; j < bins; ++j)
        {
            std::vector<double> next(std::min<size_t>(poly.size() + t, balls + 1), 0.0);
            for (size_t a = 0; a < poly.size(); ++a)
            {
                for (uint32_t l = 0; l <= t && a + l < next.size(); ++l)
                {
                    next[a + l] += poly[a] * term[l];
                }
            }
            poly = std::move(next);
        }
        const double atMost =
            poly.size() > balls ? std::exp(std::lgamma(balls + 1.0) + std::log(poly[balls])) : 0.0;
        e += 1 - atMost;
    }
    return e;
}

/// Simulated time of one call with a named algorithm.
Time
Simulate(Bench& b, const CommPlan& plan)
{
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(b.carrier);
    CollectiveResult result;
    engine->Run(plan, MakeBoundCallback(&StoreResult, &result));
    Simulator::Run();
    return result.end - result.start;
}

/// A named plan's times over runs 1..runs, each its own RngRun (so its own UDP source
/// ports and ECMP paths), and the cost model's estimate (the same every run).
using OverRuns = EstimateOverRuns;

/// Build a bench with make, the plan of algorithm, and simulate it, runs times.
OverRuns
SimulateOverRuns(uint32_t runs,
                 const std::function<void(Bench&)>& make,
                 CollectiveType type,
                 const std::string& algorithm,
                 uint64_t bytes,
                 const CollectivePlanOptions& options)
{
    OverRuns r;
    for (uint32_t run = 1; run <= runs; ++run)
    {
        RngSeedManager::SetRun(run);
        Bench b;
        make(b);
        const CommPlan plan = CollectiveSelection(b.carrier).MakePlan(type,
                                                                      NamedAlgorithm(algorithm),
                                                                      b.group,
                                                                      bytes,
                                                                      options);
        r.estimate = CollectivePlanCost(*b.carrier).Estimate(plan).GetSeconds();
        const double t = Simulate(b, plan).GetSeconds();
        r.Add(t, runs);
        Simulator::Destroy();
    }
    RngSeedManager::SetRun(1);
    return r;
}

CollectivePlanOptions
Options(uint32_t channels)
{
    CollectivePlanOptions o;
    o.channels = channels;
    return o;
}

/// SimulateOverRuns on servers x gpus of the dgx carrier, one channel per GPU, protocol.
OverRuns
DgxOverRuns(uint32_t runs,
            uint32_t servers,
            uint32_t gpus,
            CollectiveType type,
            const std::string& algorithm,
            uint64_t bytes,
            CollectiveProtocol protocol)
{
    CollectivePlanOptions options = Options(gpus);
    options.protocol = protocol;
    return SimulateOverRuns(
        runs,
        [servers, gpus](Bench& b) { MakeBench(b, "dgx", servers, gpus); },
        type,
        algorithm,
        bytes,
        options);
}

class CollectiveCost : public NsTest
{
};

} // namespace

// A zero-byte message (a plan's synchronisation) on a carrier that serves messages in
// send order: the estimate ends, at the carrier's latency (it used to loop for ever: the
// message's slice was zero bytes).
TEST_F(CollectiveCost, ZeroByteMessageEstimateEnds)
{
    Bench b;
    MakeBench(b, "ideal", 1, 2);
    const CommPlan plan = SendRecv(2, 0, 1, 0);
    const double estimate = CollectivePlanCost(*b.carrier).Estimate(plan).GetSeconds();
    const double simulated = Simulate(b, plan).GetSeconds();
    std::cout << "[ measured ] zero-byte send: estimate " << estimate * 1e6 << " us, simulated "
              << simulated * 1e6 << " us\n";
    EXPECT_NEAR(estimate, simulated, 0.01 * simulated);
    // The bench's latency (2 us) plus at most a byte's serialization (0.08 ns at 100G).
    EXPECT_NEAR(estimate, 2e-6, 1e-10);
}

// ECMP's collisions as the cost model charges them: the expected most loaded of k links
// when m flows hash uniformly. Closed forms: one flow or one link; 2 on 2 links: 1.5
// (together half the time); 3 on 2: 2.25; 2 on 4: 1.25. Up to 64 flows it is exact (the
// enumeration to 1e-9); above, the independent-bins form is within 4 % of the exact value
// (128 flows on 8 links against the multinomial form) and never below the
// pigeonhole bound.
TEST_F(CollectiveCost, EcmpExpectedMaxLoad)
{
    EXPECT_DOUBLE_EQ(ExpectedMaxLoad(0, 4), 0.0);
    EXPECT_DOUBLE_EQ(ExpectedMaxLoad(1, 8), 1.0);
    EXPECT_DOUBLE_EQ(ExpectedMaxLoad(7, 1), 7.0);
    EXPECT_NEAR(ExpectedMaxLoad(2, 2), 1.5, 1e-9);
    EXPECT_NEAR(ExpectedMaxLoad(3, 2), 2.25, 1e-9);
    EXPECT_NEAR(ExpectedMaxLoad(2, 4), 1.25, 1e-9);
    // Two independent sets of 2 links, 2 flows each: P(no collision) = 1/4.
    EXPECT_NEAR(ExpectedMaxLoad(2, 2, 2), 1.75, 1e-9);
    // 8 flows on 8 links, worst of two sets: 1 + sum over t of 1 - P(max <= t)^2.
    EXPECT_NEAR(ExpectedMaxLoad(8, 8, 2), 2.94187178343508, 1e-9);
    for (auto [m, k] :
         std::vector<std::pair<uint32_t, uint32_t>>{{4, 4}, {9, 3}, {16, 4}, {10, 10}, {24, 6}})
    {
        EXPECT_NEAR(ExpectedMaxLoad(m, k), BruteForceMaxLoad(m, k), 1e-9) << m << " on " << k;
    }
    EXPECT_NEAR(MultinomialMaxLoad(16, 4), BruteForceMaxLoad(16, 4), 1e-9);
    const double exact = MultinomialMaxLoad(128, 8);
    std::cout << "[ measured ] 128 flows on 8 links: E[max] " << ExpectedMaxLoad(128, 8)
              << ", exact " << exact << "\n";
    EXPECT_NEAR(ExpectedMaxLoad(128, 8), exact, 0.04 * exact);
    EXPECT_LE(ExpectedMaxLoad(128, 8), exact); // the independent bins spread less
    EXPECT_GE(ExpectedMaxLoad(1000, 1000), 1.0);
    // Two links: E[max(X, n - X)] with X ~ Binomial(n, 1/2), summed in logarithms. 4096
    // flows (a 64-rank all-to-all's on two spines): the pmf underflows without them.
    double twoLinks = 0;
    for (uint32_t x = 0; x <= 4096; ++x)
    {
        twoLinks +=
            std::max(x, 4096 - x) * std::exp(std::lgamma(4097.0) - std::lgamma(x + 1.0) -
                                             std::lgamma(4097.0 - x) - 4096 * std::log(2.0));
    }
    std::cout << "[ measured ] 4096 flows on 2 links: E[max] " << ExpectedMaxLoad(4096, 2)
              << ", exact " << twoLinks << "\n";
    EXPECT_NEAR(ExpectedMaxLoad(4096, 2), twoLinks, 0.01 * twoLinks);
}

// The fabric between the leaves as the cost model sees it (RdmaTransport's link sets):
// on 2 x 8 hosts, the estimate against the packet simulation without congestion control
// (which the estimate leaves out), non-blocking (8 spines) and 2:1 (4 spines), averaged
// over 8 runs: each run's queue pairs draw other UDP source ports, so ECMP places the
// flows differently (the [ measured ] lines give each case's fastest and slowest run).
// Direct all-gather: 64 flows cross each way; halving-doubling: its 4 MiB step crosses as
// 8 flows that collide on the uplinks and again on the spines' downlinks (the estimate
// charges the expected worst link of two independent sets). Without the link sets every
// estimate here would be the one of 16 hosts on one switch (printed as "one switch"),
// which the 2:1 estimates exceed by more than 30 %.
TEST_F(CollectiveCost, FabricEstimateSeesOversubscriptionAndCollisions)
{
    struct Case
    {
        uint32_t spines;
        double ratio;
        std::string algorithm;
        double tolerance;
        uint32_t qps{1};
    };

    constexpr uint32_t RUNS = 8;
    std::map<uint32_t, std::pair<double, double>> hd21; // 2:1 halving-doubling by QPs:
                                                        // (estimate, simulated)
    for (const Case& c : std::vector<Case>{{8, 1, "direct", 0.03},
                                           {4, 2, "direct", 0.05},
                                           {8, 1, "halving-doubling", 0.08},
                                           {4, 2, "halving-doubling", 0.08},
                                           {4, 2, "halving-doubling", 0.08, 4}})
    {
        CollectivePlanOptions options;
        options.protocol = CollectiveProtocol::SIMPLE;
        const OverRuns r = SimulateOverRuns(
            RUNS,
            [&c](Bench& b) { MakeLeafSpine(b, 8, c.spines, c.ratio, "none", c.qps); },
            CollectiveType::ALL_GATHER,
            c.algorithm,
            8 << 20,
            options);
        const double estimate = r.estimate;
        const double simulated = r.mean;
        const double fastest = r.fastest;
        const double slowest = r.slowest;
        // The same plan on one switch: no link sets between the hosts.
        double oneSwitch = 0;
        {
            RoceHelper roce;
            roce.SetCongestionControl("none");
            const RoceTopology star =
                RoceTopologyHelper(roce).Star(16, DataRate("400Gbps"), MicroSeconds(1));
            Ptr<RdmaTransport> rdma = CreateObject<RdmaTransport>();
            rdma->SetNics(star.nics);
            const CommPlan plan = CollectiveSelection(rdma).MakePlan(CollectiveType::ALL_GATHER,
                                                                     NamedAlgorithm(c.algorithm),
                                                                     CommGroup::Uniform(16, 1),
                                                                     8 << 20,
                                                                     options);
            oneSwitch = CollectivePlanCost(*rdma).Estimate(plan).GetSeconds();
        }
        Simulator::Destroy();
        std::cout << "[ measured ] 2x8 hosts, " << c.ratio << ":1, " << c.algorithm << ", " << c.qps
                  << " QP(s) per connection, all-gather 8 MiB: estimate " << estimate * 1e6
                  << " us (one switch " << oneSwitch * 1e6 << "), simulated " << simulated * 1e6
                  << " us (mean of " << RUNS << " runs, " << fastest * 1e6 << " to "
                  << slowest * 1e6 << ")\n";
        EXPECT_NEAR(estimate, simulated, c.tolerance * simulated)
            << c.ratio << ":1 " << c.algorithm << " " << c.qps << " QPs";
        if (c.ratio == 2 && c.qps == 1)
        {
            EXPECT_GT(estimate, 1.3 * oneSwitch) << c.algorithm;
        }
        if (c.ratio == 2 && c.algorithm == "halving-doubling")
        {
            hd21[c.qps] = {estimate, simulated};
        }
    }
    // Four queue pairs per connection, the data split over them: 32 flows on the uplinks
    // instead of 8, fewer collisions, a shorter estimate and a shorter simulated time.
    EXPECT_LT(hd21.at(4).first, 0.95 * hd21.at(1).first);
    EXPECT_LT(hd21.at(4).second, 0.95 * hd21.at(1).second);
}

// On hosts of one GPU each, hierarchical is the ring across them pipelined by its
// 512 KiB chunk, and auto weighs it: its steps overlap their protocol latency, where the
// ring's 2 (n - 1) steps of n / 16 of the call each pay theirs in turn (32 hosts at 400G,
// 128 MiB: simulated 5359 against 6347 us, doc "The choice").
TEST_F(CollectiveCost, AutoWeighsHierarchicalOnOneGpuHosts)
{
    CollectivePlanOptions options;
    options.protocol = CollectiveProtocol::SIMPLE;
    std::map<CollectiveAlgorithm, double> estimate;
    {
        Bench b;
        MakeLeafSpine(b, 8, 8, 1, "ns3::RoceDcqcn");
        CollectiveSelection selection(b.carrier);
        for (const auto& c : selection.Rank(CollectiveType::ALL_REDUCE, b.group, 64 << 20, options))
        {
            estimate[c.algorithm] = c.estimate.GetSeconds();
        }
    }
    Simulator::Destroy();
    ASSERT_TRUE(estimate.count(CollectiveAlgorithm::HIERARCHICAL));
    ASSERT_TRUE(estimate.count(CollectiveAlgorithm::RING));
    EXPECT_LT(estimate[CollectiveAlgorithm::HIERARCHICAL], estimate[CollectiveAlgorithm::RING]);
    // Simulated, the ordering holds.
    std::map<CollectiveAlgorithm, double> simulated;
    for (CollectiveAlgorithm a : {CollectiveAlgorithm::RING, CollectiveAlgorithm::HIERARCHICAL})
    {
        Bench run;
        MakeLeafSpine(run, 8, 8, 1, "ns3::RoceDcqcn");
        CollectiveSelection runSelection(run.carrier);
        const CommPlan plan =
            runSelection.MakePlan(CollectiveType::ALL_REDUCE, a, run.group, 64 << 20, options);
        simulated[a] = Simulate(run, plan).GetSeconds();
        Simulator::Destroy();
    }
    const double ringTime = simulated[CollectiveAlgorithm::RING];
    const double hierTime = simulated[CollectiveAlgorithm::HIERARCHICAL];
    std::cout << "[ measured ] 16 hosts all-reduce 64 MiB: ring " << ringTime * 1e6
              << " us (estimate " << estimate[CollectiveAlgorithm::RING] * 1e6 << "), hierarchical "
              << hierTime * 1e6 << " us (estimate "
              << estimate[CollectiveAlgorithm::HIERARCHICAL] * 1e6 << ")\n";
    EXPECT_LT(hierTime, ringTime);
    EXPECT_NEAR(estimate[CollectiveAlgorithm::HIERARCHICAL], hierTime, 0.05 * hierTime);
    EXPECT_NEAR(estimate[CollectiveAlgorithm::RING], ringTime, 0.05 * ringTime);
}

// On the ideal carrier the estimate replays the carrier's own timing rules. It agrees with
// the simulation to 3 %: what differs is only the order in which transfers released at
// the same instant queue at a port (the engine's callback order against the estimate's
// event order), which moves a tree's incast by a message or two.
TEST_F(CollectiveCost, IdealCarrierEstimateMatchesTheSimulation)
{
    for (auto [type, algorithm] : std::vector<std::pair<CollectiveType, std::string>>{
             {CollectiveType::ALL_REDUCE, "ring"},
             {CollectiveType::ALL_REDUCE, "tree"},
             {CollectiveType::ALL_REDUCE, "halving-doubling"},
             {CollectiveType::ALL_REDUCE, "hierarchical"},
             {CollectiveType::REDUCE_SCATTER, "rail-ring"},
             {CollectiveType::ALL_GATHER, "ring"},
             {CollectiveType::ALL_TO_ALL, "direct"},
             {CollectiveType::BROADCAST, "ring"},
             {CollectiveType::BROADCAST, "rail-ring"}})
    {
        for (uint64_t bytes : {uint64_t{64} << 10, uint64_t{8} << 20})
        {
            Bench b;
            MakeBench(b, "ideal", 2, 4);
            CollectiveSelection selection(b.carrier);
            CommPlan plan =
                selection.MakePlan(type, NamedAlgorithm(algorithm), b.group, bytes, Options(2));
            const double estimate = CollectivePlanCost(*b.carrier).Estimate(plan).GetSeconds();
            const double simulated = Simulate(b, plan).GetSeconds();
            EXPECT_NEAR(estimate, simulated, 0.03 * simulated)
                << type << " " << algorithm << " " << bytes << " B";
            Simulator::Destroy();
        }
    }
}

// The packet and chunk carriers: the estimate interleaves a port's flows slice by slice
// as NVLink and the NICs do, charges the fabric's shared links (expected ECMP
// collisions), and leaves out credits and congestion control. On the calibration table
// (one 8-GPU H100 server; two servers of 4 GPUs with 400G NICs) it is held to 3 % of the
// simulated time, except hierarchical (5 %), direct across servers (10 %) and the flat
// ring across servers (25 %), for the reasons given at each; where ECMP draws spread the
// runs, never more than 3 % under the fastest.
TEST_F(CollectiveCost, PacketCarrierEstimatesAgainstTheSimulation)
{
    struct Case
    {
        uint32_t servers;
        uint32_t gpus;
        CollectiveType type;
        std::string algorithm;
        uint64_t bytes;
    };

    const std::vector<Case> cases = {
        {1, 8, CollectiveType::ALL_REDUCE, "ring", 16 << 20},
        {1, 8, CollectiveType::ALL_REDUCE, "nvls", 16 << 20},
        {1, 8, CollectiveType::ALL_REDUCE, "nvls", 64 << 10},
        {1, 8, CollectiveType::ALL_REDUCE, "tree", 1 << 20},
        {1, 8, CollectiveType::ALL_REDUCE, "halving-doubling", 16 << 20},
        {1, 8, CollectiveType::ALL_GATHER, "nvls", 16 << 20},
        {1, 8, CollectiveType::REDUCE_SCATTER, "ring", 16 << 20},
        {1, 8, CollectiveType::ALL_TO_ALL, "direct", 16 << 20},
        {2, 4, CollectiveType::ALL_REDUCE, "ring", 16 << 20},
        {2, 4, CollectiveType::ALL_REDUCE, "rail-ring", 16 << 20},
        {2, 4, CollectiveType::ALL_REDUCE, "hierarchical", 16 << 20},
        // The rate server of NCCL's NVLSTree ceiling, charged alike by both.
        {2, 4, CollectiveType::ALL_REDUCE, "nvls-tree", 16 << 20},
        {2, 4, CollectiveType::ALL_GATHER, "rail-ring", 16 << 20},
        {2, 4, CollectiveType::BROADCAST, "rail-ring", 16 << 20},
        // Several flows per NIC: a NIC interleaves its queue pairs packet by packet, and
        // the estimate cuts each transfer into slices as fine as a NIC's payload (at most
        // 32 a transfer), so equal transfers on one port end together. With slices of at
        // least 64 KiB (before commit 72c3487) the estimates of the next three rows were
        // 50.7, 98.9 and 79.9 us (collective-perf's options, Simple): the last, eight
        // channels per NIC in the inter-server ring, then NVLink, fails its 5 % with it
        // (-9.7 %; now -1.7 %).
        {2, 4, CollectiveType::ALL_GATHER, "direct", 2 << 20},
        {2, 4, CollectiveType::ALL_GATHER, "hierarchical", 16 << 20},
        {2, 8, CollectiveType::ALL_GATHER, "hierarchical", 16 << 20},
        {2, 4, CollectiveType::ALL_TO_ALL, "direct", 4 << 20},
        {1, 8, CollectiveType::BROADCAST, "ring", 1 << 20},
        {1, 8, CollectiveType::BROADCAST, "tree", 1 << 20},
    };
    for (const Case& c : cases)
    {
        // Across servers, a mean over runs: each run's queue pairs draw other UDP source
        // ports, so ECMP places the flows that cross the spines differently (the flat
        // ring's 8 flows share one rail's two uplinks: 622 to 1750 us), and the estimate
        // charges the expected collisions (FabricEstimateSeesOversubscriptionAndCollisions).
        const uint32_t runs = c.servers > 1 ? 16 : 1;
        // Simple: what NCCL runs at these sizes; protocol latencies are the
        // collective-protocol suite's.
        const OverRuns r = DgxOverRuns(runs,
                                       c.servers,
                                       c.gpus,
                                       c.type,
                                       c.algorithm,
                                       c.bytes,
                                       CollectiveProtocol::SIMPLE);
        const double estimate = r.estimate;
        const double simulated = r.mean;
        const double fastest = r.fastest;
        const double slowest = r.slowest;
        std::cout << "[ measured ] " << c.servers << "x" << c.gpus << " " << c.type << " "
                  << c.algorithm << " " << c.bytes << " B: estimate " << estimate * 1e6
                  << " us, simulated " << simulated * 1e6 << " us (" << runs << " run(s), "
                  << fastest * 1e6 << " to " << slowest * 1e6 << ")\n";
        // Direct across servers (all-gather, all-to-all): every NIC sends to all four
        // GPUs of the other server, three of them over the spines, and the receiving
        // NICs take four flows at once. The estimate charges the expected ECMP collisions
        // as fluid shares of the links; the mean of 16 draws is slower (measured -6.0 %
        // for the all-gather, -7.7 % for the all-to-all) and the fastest draw faster
        // (46.4 and 67.8 us). With slices of at least 64 KiB the all-to-all's estimate
        // was 78.6 us (-0.7 %) and this row was held to 5 %.
        const bool incast = c.servers > 1 && c.algorithm == "direct";
        // Hierarchical: its pieces' step latencies overlap NVLink's credit loop in the
        // simulation and the ports' queues in the estimate differently (measured -1.6 %
        // for the all-reduce). The all-gather's inter-server ring runs four (2 x 4) or
        // eight (2 x 8) channels per NIC: the NIC's round robin serves a queue pair out of
        // turn when another leaves it, so the channels do not finish their steps together
        // as the estimate's interleaving does (measured -4.3 % and -1.7 %; on 4 x 8, a
        // round robin that keeps its order brought the simulation to 0.3 % of the
        // estimate, see the doc).
        const bool pieces = c.algorithm == "hierarchical";
        // The flat ring across servers: its eight flows share one rail leaf's two uplinks,
        // and DCQCN on a collided link loses more than the link's share, which is what the
        // estimate charges (measured -23.1 % of the mean of 16 runs; -19 % before a step's
        // latency became NCCL's net of the wire's, which shortened every run's steps).
        const bool collides = c.servers > 1 && c.algorithm == "ring";
        const double tolerance = collides ? 0.25 : (incast ? 0.10 : (pieces ? 0.05 : 0.03));
        EXPECT_NEAR(estimate, simulated, tolerance * simulated)
            << c.servers << "x" << c.gpus << " " << c.type << " " << c.algorithm << " " << c.bytes;
        if (incast || collides)
        {
            // Where the draws spread, collisions only slow a draw down: the estimate
            // never promises less than the luckiest draw's time (fluid shares, at most
            // 3 % under it).
            EXPECT_GE(estimate, 0.97 * fastest) << c.servers << "x" << c.gpus << " " << c.type
                                                << " " << c.algorithm << " " << c.bytes;
        }
    }
}

// LL and LL128 plans (issue 22): the estimate charges each protocol's step latency, its
// lines' wire bytes, LL's ceiling (a rate server per sender and channel across servers)
// and a chain's eight slots per connection as the engine does. Chains of 8 to 32 steps a
// channel (32 LL steps; 8 and 30 LL128 steps, the 30-step and the 32-step plans with the
// slot dependencies; whether those bind is not asserted), direct with LL across servers,
// rings, a rail ring and hierarchical: 3 % (5 % where flows meet in an incast). Measured
// (2026-11-29): -1.2 to 0 % but the incast, -3.5 %.
TEST_F(CollectiveCost, LowLatencyProtocolEstimatesAgainstTheSimulation)
{
    struct Case
    {
        uint32_t servers;
        uint32_t gpus;
        CollectiveType type;
        std::string algorithm;
        CollectiveProtocol protocol;
        uint64_t bytes;
    };

    const std::vector<Case> cases = {
        {1, 8, CollectiveType::ALL_REDUCE, "ring", CollectiveProtocol::LL, 256 << 10},
        {1, 8, CollectiveType::ALL_REDUCE, "ring", CollectiveProtocol::LL128, 4 << 20},
        // 8 MiB over 8 channels: 32 LL steps (32 KiB of data) a channel.
        {1, 8, CollectiveType::BROADCAST, "ring", CollectiveProtocol::LL, 8 << 20},
        {1, 8, CollectiveType::ALL_GATHER, "direct", CollectiveProtocol::LL, 256 << 10},
        // 4 MiB over 4 channels: 32 LL steps a channel; 16 and 64 MiB: 8 and 30 LL128 steps
        // (of at most 576,000 B).
        {2, 4, CollectiveType::BROADCAST, "rail-ring", CollectiveProtocol::LL, 4 << 20},
        {2, 4, CollectiveType::BROADCAST, "rail-ring", CollectiveProtocol::LL128, 16 << 20},
        {2, 4, CollectiveType::BROADCAST, "rail-ring", CollectiveProtocol::LL128, 64 << 20},
        {2, 4, CollectiveType::ALL_GATHER, "direct", CollectiveProtocol::LL, 256 << 10},
        {2, 4, CollectiveType::ALL_REDUCE, "rail-ring", CollectiveProtocol::LL, 1 << 20},
        {2, 4, CollectiveType::ALL_REDUCE, "hierarchical", CollectiveProtocol::LL128, 4 << 20},
    };
    for (const Case& c : cases)
    {
        const OverRuns r = DgxOverRuns(c.servers > 1 ? 4 : 1,
                                       c.servers,
                                       c.gpus,
                                       c.type,
                                       c.algorithm,
                                       c.bytes,
                                       c.protocol);
        std::cout << "[ measured ] " << c.servers << "x" << c.gpus << " " << c.type << " "
                  << c.algorithm << "/" << c.protocol << " " << c.bytes << " B: estimate "
                  << r.estimate * 1e6 << " us, simulated " << r.mean * 1e6 << " us ("
                  << r.fastest * 1e6 << " to " << r.slowest * 1e6 << ")\n";
        // Direct across servers: every NIC's four flows into the other server meet at the
        // receiving NICs (the incast of the Simple case above; its estimate's fluid shares
        // are measured 3.5 % under the mean of 4 draws).
        const bool incast = c.servers > 1 && c.algorithm == "direct";
        EXPECT_NEAR(r.estimate, r.mean, (incast ? 0.05 : 0.03) * r.mean)
            << c.servers << "x" << c.gpus << " " << c.type << " " << c.algorithm << " " << c.bytes;
    }
}

// The requirement, on sizes a unit test can afford (the full sweep to 1 GiB is
// bench/auto-sweep.sh): auto's simulated time is within 5 % of the best algorithm run by
// name, and its bus bandwidth never drops by more than 5 % from one size to the next.
TEST_F(CollectiveCost, AutoIsWithinFivePercentOfTheBest)
{
    struct Shape
    {
        uint32_t servers;
        uint32_t gpus;
        std::string gpu;
    };

    for (const Shape& shape : std::vector<Shape>{{1, 8, "H100"}, {1, 8, "A100"}, {2, 4, "H100"}})
    {
        for (CollectiveType type : {CollectiveType::ALL_REDUCE,
                                    CollectiveType::REDUCE_SCATTER,
                                    CollectiveType::ALL_GATHER,
                                    CollectiveType::BROADCAST,
                                    CollectiveType::ALL_TO_ALL})
        {
            double previousBusBw = 0;
            for (uint64_t bytes :
                 {uint64_t{8} << 10, uint64_t{64} << 10, uint64_t{1} << 20, uint64_t{16} << 20})
            {
                std::map<std::string, double> times;
                std::string chosen;
                for (const std::string& name : [] {
                         std::vector<std::string> names{AUTO_ALGORITHM_NAME};
                         for (CollectiveAlgorithm a : GetCollectiveAlgorithms())
                         {
                             names.push_back(CollectiveAlgorithmToString(a));
                         }
                         return names;
                     }())
                {
                    Bench b;
                    MakeBench(b, "dgx", shape.servers, shape.gpus, shape.gpu);
                    CollectiveSelection selection(b.carrier);
                    if (!selection.CanMakePlan(type, NamedAlgorithm(name), b.group))
                    {
                        Simulator::Destroy();
                        continue;
                    }
                    CommPlan plan = selection.MakePlan(type,
                                                       NamedAlgorithm(name),
                                                       b.group,
                                                       bytes,
                                                       Options(shape.gpus));
                    if (name == AUTO_ALGORITHM_NAME)
                    {
                        chosen = plan.GetAlgorithm();
                    }
                    times[name] = Simulate(b, plan).GetSeconds();
                    Simulator::Destroy();
                }
                double best = 1e30;
                std::string bestName;
                for (const auto& [name, t] : times)
                {
                    if (name != AUTO_ALGORITHM_NAME && t < best)
                    {
                        best = t;
                        bestName = name;
                    }
                }
                const double autoTime = times.at(AUTO_ALGORITHM_NAME);
                EXPECT_LE(autoTime, 1.05 * best)
                    << shape.servers << "x" << shape.gpus << " " << shape.gpu << " " << type << " "
                    << bytes << " B: auto took " << chosen << " (" << autoTime * 1e6 << " us), "
                    << bestName << " takes " << best * 1e6 << " us";
                if (shape.gpu == "A100")
                {
                    EXPECT_NE(chosen, "nvls") << "A100 has no NVLS";
                }
                const double busBw =
                    bytes * CollectiveBusBwFactor(type, shape.servers * shape.gpus) / autoTime;
                EXPECT_GE(busBw, 0.95 * previousBusBw)
                    << shape.servers << "x" << shape.gpus << " " << type << " at " << bytes << " B";
                previousBusBw = busBw;
            }
        }
    }
}
