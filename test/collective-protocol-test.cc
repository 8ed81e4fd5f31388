// SPDX-License-Identifier: GPL-2.0-only
// NCCL's protocols (LL, LL128, Simple): what each puts on the wire, the latencies of NCCL's
// tuning model landed per call and per step, and auto's choice of protocol by size.
#include "test-util.h"

#include "ns3/collective-engine.h"
#include "ns3/collective-hierarchical.h"
#include "ns3/collective-plan-cost.h"
#include "ns3/collective-protocol.h"
#include "ns3/collective-selection.h"
#include "ns3/enum.h"
#include "ns3/ideal-transport.h"
#include "ns3/nccl-tuning-model.h"
#include "ns3/plan-checker.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <tuple>
#include <utility>
#include <vector>

using namespace ns3;
using namespace aifabric;

namespace
{
class CollectiveProtocolTest : public NsTest
{
};

/// Seconds of a NCCL latency in us.
double
Us(double us)
{
    return us * 1e-6;
}

Ptr<IdealTransport>
Ideal(uint32_t n, const std::string& hardware)
{
    auto t = CreateObject<IdealTransport>();
    t->SetAttribute("NRanks", UintegerValue(n));
    t->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
    t->SetAttribute("Latency", TimeValue(MicroSeconds(2)));
    t->SetAttribute("Hardware", StringValue(hardware));
    return t;
}

/// One ring all-reduce on carrier with the engine's Protocol set to protocol.
CollectiveResult
RingAllReduce(Ptr<CollectiveTransport> carrier,
              const CommGroup& group,
              uint64_t bytes,
              CollectiveProtocol protocol)
{
    return RunCollectiveOn(carrier, CollectiveType::ALL_REDUCE, group, bytes, "ring", protocol);
}

/// A carrier of servers of four GPUs (or gpus): NVLink inside a server, the network across.
class FourPerServer : public CollectiveTransport
{
  public:
    explicit FourPerServer(uint32_t gpus = 4, uint32_t computeCapability = 90)
        : m_gpus(gpus),
          m_computeCapability(computeCapability)
    {
    }

    void Send(uint32_t, uint32_t, uint64_t, uint32_t, DoneCallback) override
    {
    }

    uint32_t GetNRanks() const override
    {
        return 8;
    }

    LinkHardware GetLinkHardware(uint32_t src, uint32_t dst) const override
    {
        return src / m_gpus == dst / m_gpus ? LinkHardware::NVLINK : LinkHardware::NET;
    }

    uint32_t GetComputeCapability() const override
    {
        return m_computeCapability;
    }

  private:
    uint32_t m_gpus;              //!< GPUs per server
    uint32_t m_computeCapability; //!< the GPUs' generation
};

/// FourPerServer whose paths differ in latency: 1 us inside a server, 2 us from rank 3 to
/// rank 4, 3 us between any other two servers' GPUs.
class UnevenPaths : public FourPerServer
{
  public:
    CarrierPath DescribePath(uint32_t src, uint32_t dst) const override
    {
        CarrierPath path = FourPerServer::DescribePath(src, dst);
        path.latency = src / 4 == dst / 4       ? MicroSeconds(1)
                       : (src == 3 && dst == 4) ? MicroSeconds(2)
                                                : MicroSeconds(3);
        return path;
    }
};
} // namespace

// NCCL v2.30.7's figures as the doc's table prints them (src/graph/tuning.cc), us.
TEST_F(CollectiveProtocolTest, TheTablesAreNccl230s)
{
    const CollectiveProtocol ll = CollectiveProtocol::LL;
    const CollectiveProtocol ll128 = CollectiveProtocol::LL128;
    const CollectiveProtocol simple = CollectiveProtocol::SIMPLE;
    using A = CollectiveAlgorithm;
    using H = LinkHardware;
    EXPECT_EQ(NcclBaseLatencyUs(A::RING, ll), 6.6);
    EXPECT_EQ(NcclBaseLatencyUs(A::RING, ll128), 14.0);
    EXPECT_EQ(NcclBaseLatencyUs(A::RING, simple), 8.4);
    EXPECT_EQ(NcclBaseLatencyUs(A::TREE, ll), 6.8);
    EXPECT_EQ(NcclBaseLatencyUs(A::TREE, ll128), 14.0);
    EXPECT_EQ(NcclBaseLatencyUs(A::TREE, simple), 8.4);
    EXPECT_EQ(NcclBaseLatencyUs(A::NVLS, simple), 0.0);
    const std::vector<std::tuple<H, A, double, double, double>> hw{
        {H::NVLINK, A::RING, 0.6, 1.9, 3.4},
        {H::PCI, A::RING, 1.0, 2.5, 5.7},
        {H::NET, A::RING, 2.7, 4.0, 14.0},
        {H::NVLINK, A::TREE, 0.6, 1.25, 4.0},
        {H::PCI, A::TREE, 1.0, 1.9, 4.0},
        {H::NET, A::TREE, 5.0, 8.5, 14.0},
    };
    for (const auto& [h, a, vll, vll128, vsimple] : hw)
    {
        EXPECT_EQ(NcclHwLatencyUs(h, a, ll), vll) << LinkHardwareToString(h) << " " << a;
        EXPECT_EQ(NcclHwLatencyUs(h, a, ll128), vll128) << LinkHardwareToString(h) << " " << a;
        EXPECT_EQ(NcclHwLatencyUs(h, a, simple), vsimple) << LinkHardwareToString(h) << " " << a;
    }
    EXPECT_EQ(NcclHwLatencyUs(H::NVLINK, A::INA, simple), 3.7);
    EXPECT_EQ(NcclHwLatencyUs(H::NET, A::INA, simple), 31.0);
    EXPECT_EQ(NcclHwLatencyUs(H::NVLINK, A::NVLS, simple), 25.0);
    EXPECT_EQ(NcclHwLatencyUs(H::NET, A::NVLS, simple), 18.0);
    EXPECT_EQ(NcclHwLatencyUs(H::NVLINK, A::NVLS_TREE, simple), 25.0);
    EXPECT_EQ(NcclHwLatencyUs(H::NET, A::NVLS_TREE, simple), 20.9);
}

// Where the switch algorithms' latencies land: nvls once per call (25 us), nvls-ina that
// plus NVLS's network 18 us, nvls-tree 25 us per call and 20.9 us per network hop (less
// the carrier's 1 us path latency, which the hop spends on the wire), ina CollNet's 31 us,
// or the tree's 14 us with one rank per server (NCCL's ppn = 1 rule).
TEST_F(CollectiveProtocolTest, SwitchAlgorithmsPayPerCall)
{
    const Time overhead = MicroSeconds(1);
    auto costs = [&overhead](CommPlan plan, const CollectiveTransport& carrier) {
        plan.SetProtocol(CollectiveProtocol::SIMPLE);
        return CollectiveProtocolCosts(plan, carrier, {}, overhead);
    };
    const FourPerServer oneServer(8);
    const FourPerServer fourPerServer(4);
    const FourPerServer onePerServer(1);
    const CollectiveProtocolCosts nvls =
        costs(MakeCollectivePlan(CollectiveType::ALL_REDUCE, CollectiveAlgorithm::NVLS, 8, 1 << 20),
              oneServer);
    EXPECT_EQ(nvls.GetCallLatency(), MicroSeconds(25));
    const CollectiveProtocolCosts nvlsIna =
        costs(NvlsInaAllReduce(CommGroup::Uniform(2, 4), 1 << 20), fourPerServer);
    EXPECT_EQ(nvlsIna.GetCallLatency(), MicroSeconds(43));
    const CommPlan treePlan = NvlsTreeAllReduce(CommGroup::Uniform(2, 4), 1 << 20);
    const CollectiveProtocolCosts tree = costs(treePlan, fourPerServer);
    EXPECT_EQ(tree.GetCallLatency(), MicroSeconds(25));
    EXPECT_EQ(tree.GetStepLatency(LinkHardware::NET), NanoSeconds(20900));
    EXPECT_EQ(tree.GetStepLatency(LinkHardware::NVLINK), Time(0));
    const Time wire = fourPerServer.DescribePath(0, 4).latency;
    ASSERT_EQ(wire, MicroSeconds(1));
    uint32_t hops = 0;
    for (uint32_t t = 0; t < treePlan.GetNTransfers(); ++t)
    {
        const bool p2p = treePlan.GetTransfer(t).kind == CommPlan::Kind::POINT_TO_POINT;
        hops += p2p ? 1 : 0;
        EXPECT_EQ(tree.GetStepLatency(t), p2p ? NanoSeconds(20900) - wire : Time(0)) << t;
    }
    EXPECT_GT(hops, 0u);
    const CommPlan inaPlan =
        MakeCollectivePlan(CollectiveType::ALL_REDUCE, CollectiveAlgorithm::INA, 8, 1 << 20);
    EXPECT_EQ(costs(inaPlan, onePerServer).GetCallLatency(), MicroSeconds(14));
    EXPECT_EQ(costs(inaPlan, fourPerServer).GetCallLatency(), MicroSeconds(31));
    // A plan runs a protocol: auto is a choice, not one.
    CommPlan undecided = inaPlan;
    undecided.SetProtocol(CollectiveProtocol::AUTO);
    EXPECT_DEATH(CollectiveProtocolCosts(undecided, onePerServer, {}, overhead), "protocol auto");
}

// nvls-tree's network hops pass their channel's rate server at NCCL's per-channel NVLSTree
// ceiling C as a rate of hops: C (s - 1) n / (n - 1), by the carrier's GPU generation
// (Hopper 57.7 GB/s for two servers, 45.5 above; Blackwell 96 and 80). Nothing else does.
TEST_F(CollectiveProtocolTest, NvlsTreeHasNcclsPerChannelCeiling)
{
    auto rate = [](uint32_t servers, uint32_t cc) {
        const FourPerServer carrier(4, cc);
        CommPlan plan = NvlsTreeAllReduce(CommGroup::Uniform(servers, 4), 1 << 20);
        plan.SetProtocol(CollectiveProtocol::SIMPLE);
        const CollectiveProtocolCosts costs(plan, carrier, {}, MicroSeconds(1));
        for (uint32_t t = 0; t < plan.GetNTransfers(); ++t)
        {
            const auto& tr = plan.GetTransfer(t);
            EXPECT_EQ(costs.PassesChannelRate(t),
                      tr.kind == CommPlan::Kind::POINT_TO_POINT && tr.src / 4 != tr.dst / 4)
                << t;
        }
        return costs.GetChannelRate();
    };
    EXPECT_DOUBLE_EQ(rate(2, 90), 57.7e9 * 1 * 8 / 7);
    EXPECT_DOUBLE_EQ(rate(2, 100), 96.0e9 * 1 * 8 / 7);
    // Four servers of two GPUs: 3 hops a piece on each tree, the ceiling above two servers.
    {
        const FourPerServer twoPerServer(2, 90);
        CommPlan plan = NvlsTreeAllReduce(CommGroup::Uniform(4, 2), 1 << 20);
        plan.SetProtocol(CollectiveProtocol::SIMPLE);
        EXPECT_DOUBLE_EQ(
            CollectiveProtocolCosts(plan, twoPerServer, {}, MicroSeconds(1)).GetChannelRate(),
            45.5e9 * 3 * 8 / 7);
    }
    EXPECT_DOUBLE_EQ(NcclPerChannelMaxNvlsTreeGBps(3, 90), 45.5);
    EXPECT_DOUBLE_EQ(NcclPerChannelMaxNvlsTreeGBps(3, 100), 80.0);
    // Other algorithms have none.
    CommPlan ring =
        MakeCollectivePlan(CollectiveType::ALL_REDUCE, CollectiveAlgorithm::RING, 8, 1 << 20);
    ring.SetProtocol(CollectiveProtocol::SIMPLE);
    EXPECT_EQ(CollectiveProtocolCosts(ring, FourPerServer(), {}, MicroSeconds(1)).GetChannelRate(),
              0.0);
}

// Each protocol's layout: LL carries 8 data bytes in a 16-byte line, LL128 120 in 128.
TEST_F(CollectiveProtocolTest, WireBytesFollowTheLineLayouts)
{
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::LL, 8), 16u);
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::LL, 9), 32u);
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::LL, 1 << 20), 2u << 20);
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::LL128, 120), 128u);
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::LL128, 121), 256u);
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::SIMPLE, 12345), 12345u);
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::NONE, 12345), 12345u);
    CollectiveProtocol p;
    ASSERT_TRUE(CollectiveProtocolFromString("simple", p)); // NCCL_PROTO's spelling
    EXPECT_EQ(p, CollectiveProtocol::SIMPLE);
    ASSERT_TRUE(CollectiveProtocolFromString("ll128", p));
    EXPECT_EQ(p, CollectiveProtocol::LL128);
    EXPECT_FALSE(CollectiveProtocolFromString("ll64", p));
    EXPECT_FALSE(CollectiveProtocolApplies(CollectiveAlgorithm::NVLS, CollectiveProtocol::LL));
    EXPECT_TRUE(CollectiveProtocolApplies(CollectiveAlgorithm::RING, CollectiveProtocol::LL128));
}

// FlowCompleted (fct.csv's flows) reports each transfer's payload and what the carrier
// moved: an 8-rank ring all-reduce of 1 MiB sends 2 x 7 x 8 transfers of 128 KiB each;
// in LL lines (8 payload bytes per 16) that is 256 KiB on the wire, in LL128 lines (120 per
// 128) 1093 lines of 128 bytes (131072 = 1092 x 120 + 32), with Simple the payload.
TEST_F(CollectiveProtocolTest, FlowsReportTheBytesTheirLinesPutOnTheWire)
{
    const std::pair<CollectiveProtocol, uint64_t> rows[] = {{CollectiveProtocol::LL, 262144},
                                                            {CollectiveProtocol::LL128, 139904},
                                                            {CollectiveProtocol::SIMPLE, 131072}};
    for (const auto& [protocol, wire] : rows)
    {
        auto engine = CreateObject<CollectiveEngine>();
        engine->SetTransport(Ideal(8, "net"));
        engine->SetAttribute("Algorithm", StringValue("ring"));
        engine->SetAttribute("Protocol", StringValue(CollectiveProtocolToString(protocol)));
        std::vector<CollectiveEngine::PendingTransfer> flows;
        engine->TraceConnectWithoutContext(
            "FlowCompleted",
            Callback<void, const CollectiveEngine::PendingTransfer&>(
                [&flows](const CollectiveEngine::PendingTransfer& t) { flows.push_back(t); }));
        engine->RunCollective(CollectiveType::ALL_REDUCE, CommGroup::Uniform(8, 1), 1 << 20);
        Simulator::Run();
        Simulator::Destroy();
        ASSERT_EQ(flows.size(), 2u * 7 * 8) << CollectiveProtocolToString(protocol);
        for (const auto& f : flows)
        {
            EXPECT_EQ(f.bytes, 131072u);
            EXPECT_EQ(f.wireBytes, wire) << CollectiveProtocolToString(protocol);
        }
    }
}

// A ring all-reduce of n ranks, one per server, on the ideal carrier: 2(n-1) steps in a
// chain, each max(its protocol's step latency, the carrier's alpha) (NCCL's step latency
// is the whole fixed cost of a step, wire included), then the step's wire bytes at the
// rate; the call's base latency before the first. With one rank per server
// NCCL charges the tree's network latency per step (5.0 / 8.5 / 14 us) and the ring's
// base latency (6.6 / 14 / 8.4 us). To the nanosecond (the latencies' rounding).
TEST_F(CollectiveProtocolTest, RingStepsOverTheNetworkAreClosedForms)
{
    const uint32_t n = 4;
    const uint64_t bytes = 1 << 20;
    const double alpha = 2e-6;
    const double rate = 100e9 / 8;
    for (CollectiveProtocol p :
         {CollectiveProtocol::LL, CollectiveProtocol::LL128, CollectiveProtocol::SIMPLE})
    {
        const CollectiveResult r =
            RingAllReduce(Ideal(n, "net"), CommGroup::Uniform(n, 1), bytes, p);
        EXPECT_EQ(r.protocol, p);
        const double step =
            std::max(Us(NcclHwLatencyUs(LinkHardware::NET, CollectiveAlgorithm::TREE, p)), alpha) +
            static_cast<double>(CollectiveProtocolWireBytes(p, bytes / n)) / rate;
        const double expected =
            Us(NcclBaseLatencyUs(CollectiveAlgorithm::RING, p)) + 2 * (n - 1) * step;
        std::cout << "[ measured ] ring all-reduce 1 MiB, 4 ranks, " << p << ": "
                  << r.GetDuration().As(Time::US) << " (closed form " << expected * 1e6 << " us)\n";
        // The carrier rounds each message's time to the nanosecond: 1 ns a step at most.
        EXPECT_NEAR(r.GetDuration().GetSeconds(), expected, 2 * (n - 1) * 1e-9) << p;
    }
    // The wire bound: no protocol costs at all.
    const CollectiveResult none =
        RingAllReduce(Ideal(n, "net"), CommGroup::Uniform(n, 1), bytes, CollectiveProtocol::NONE);
    EXPECT_NEAR(none.GetDuration().GetSeconds(),
                2 * (n - 1) * (alpha + static_cast<double>(bytes / n) / rate),
                2 * (n - 1) * 1e-9);
}

// LL across servers never beats NCCL's LL ceiling (llMaxBws on x86 Intel: 39 GB/s of bus
// bandwidth for two servers, 20.4 for more), shared by the plan's channels: on an 800 Gb/s
// ideal carrier each step of a 1-channel ring all-reduce of 8 MiB over four servers takes
// its 2 MiB payload at 20.4 GB/s (102.8 us) instead of alpha + 4 MiB of LL lines at the
// rate (43.9 us); over two servers at 39 GB/s. Simple is not held. The step latency (the
// tree's 5.0 us, 14 for Simple) is paid less the carrier's 2 us alpha.
TEST_F(CollectiveProtocolTest, LlAcrossServersKeepsNcclsCeiling)
{
    const uint64_t bytes = 8 << 20;
    for (auto [n, ceiling] : std::vector<std::pair<uint32_t, double>>{{4, 20.4e9}, {2, 39e9}})
    {
        auto carrier = Ideal(n, "net");
        carrier->SetAttribute("DataRate", DataRateValue(DataRate("800Gbps")));
        const CollectiveResult ll =
            RingAllReduce(carrier, CommGroup::Uniform(n, 1), bytes, CollectiveProtocol::LL);
        const double step = std::max(2e-6 + 2.0 * (bytes / n) / 100e9, (bytes / n) / ceiling);
        const double expected = 6.6e-6 + 2 * (n - 1) * (5.0e-6 - 2e-6 + step);
        EXPECT_NEAR(ll.GetDuration().GetSeconds(), expected, 2 * (n - 1) * 1e-9) << n;
        EXPECT_GT((bytes / n) / ceiling, 2e-6 + 2.0 * (bytes / n) / 100e9) << "not held";
    }
    auto carrier = Ideal(4, "net");
    carrier->SetAttribute("DataRate", DataRateValue(DataRate("800Gbps")));
    const CollectiveResult simple =
        RingAllReduce(carrier, CommGroup::Uniform(4, 1), bytes, CollectiveProtocol::SIMPLE);
    EXPECT_NEAR(simple.GetDuration().GetSeconds(),
                8.4e-6 + 6 * (14e-6 + (bytes / 4) / 100e9),
                6e-9);
}

// LL's ceiling holds a sender's channel, not each transfer: a direct all-gather of 8 MiB
// over four servers on an 800 Gb/s ideal carrier, one channel, sends each rank's 2 MiB to
// three peers at once, and the three pass the sender's LL ceiling (20.4 GB/s) one after
// another: the call ends at the base latency (6.6 us) + the step latency (the tree's
// 5.0 us less the carrier's 2 us alpha) + 3 x 2 MiB at the ceiling, 318.0 us (a ceiling
// per transfer would hold each piece to 2 MiB at the ceiling on its own, and the carrier
// alone takes less than the three).
TEST_F(CollectiveProtocolTest, LlCeilingHoldsASendersChannel)
{
    const uint64_t bytes = 8 << 20;
    auto carrier = Ideal(4, "net");
    carrier->SetAttribute("DataRate", DataRateValue(DataRate("800Gbps")));
    const CollectiveResult r = RunCollectiveOn(carrier,
                                               CollectiveType::ALL_GATHER,
                                               CommGroup::Uniform(4, 1),
                                               bytes,
                                               "direct",
                                               CollectiveProtocol::LL);
    ASSERT_EQ(r.algorithm, "direct");
    const double piece = (bytes / 4) / 20.4e9;
    const double expected = 6.6e-6 + (5.0e-6 - 2e-6) + 3 * piece;
    std::cout << "[ measured ] LL direct all-gather, 4 servers: "
              << r.GetDuration().GetSeconds() * 1e6 << " us (" << expected * 1e6 << " expected)\n";
    EXPECT_NEAR(r.GetDuration().GetSeconds(), expected, 3e-9);
    // The carrier alone would be done sooner: the ceiling is what holds it.
    EXPECT_GT(3 * piece, 2e-6 + 3 * 2.0 * (bytes / 4) / 100e9);
}

// A chain (ring or rail-ring broadcast and reduce) is cut into one step of its protocol's
// buffer, as NCCL's BROADCAST_CHUNKSTEPS and REDUCE_CHUNKSTEPS of 1 make it (LL 32 KiB of
// data, LL128 576,000 B, Simple 512 KiB), and a sender is at most NCCL_STEPS (8) chunks of
// a channel ahead of what its receiver has passed on (received, at the chain's end).
TEST_F(CollectiveProtocolTest, ChainsMoveInTheProtocolsStepsEightInFlight)
{
    using A = CollectiveAlgorithm;
    using P = CollectiveProtocol;
    for (A a : {A::RING, A::RAIL_RING})
    {
        for (CollectiveType type : {CollectiveType::BROADCAST, CollectiveType::REDUCE})
        {
            EXPECT_EQ(CollectiveDefaultChunkBytes(a, type, P::LL), 32768u);
            EXPECT_EQ(CollectiveDefaultChunkBytes(a, type, P::LL128), 576000u);
            EXPECT_EQ(CollectiveDefaultChunkBytes(a, type, P::SIMPLE), 524288u);
            EXPECT_EQ(CollectiveDefaultChunkBytes(a, type, P::AUTO), 524288u);
        }
        EXPECT_EQ(CollectiveDefaultChunkBytes(a, CollectiveType::ALL_REDUCE, P::LL), 0u);
    }
    const uint32_t n = 5;
    const uint32_t channels = 2;
    const uint32_t perChannel = 20;
    for (CollectiveType type : {CollectiveType::BROADCAST, CollectiveType::REDUCE})
    {
        CollectivePlanOptions options;
        options.channels = channels;
        options.protocol = P::LL;
        options.root = 2;
        const CommPlan plan =
            MakeCollectivePlan(type, A::RING, n, uint64_t{32768} * channels * perChannel, options);
        EXPECT_TRUE(PlanChecker::Check(plan).ok) << type;
        ASSERT_EQ(plan.GetNBlocks(), channels * perChannel);
        ASSERT_EQ(plan.GetNTransfers(), channels * perChannel * (n - 1));
        // Block b's hop h is transfer b (n - 1) + h.
        uint32_t windowDeps = 0;
        for (const CommPlan::Transfer& t : plan.GetTransfers())
        {
            const uint32_t b = t.id / (n - 1);
            const uint32_t h = t.id % (n - 1);
            EXPECT_EQ(t.chunk, b);
            std::vector<uint32_t> expected;
            if (h > 0)
            {
                expected.push_back(t.id - 1);
            }
            if (b >= 8 * channels)
            {
                const uint32_t older = (b - 8 * channels) * (n - 1);
                expected.push_back(older + (h + 1 < n - 1 ? h + 1 : h));
                ++windowDeps;
            }
            EXPECT_EQ(t.deps, expected) << type << " transfer " << t.id;
        }
        EXPECT_EQ(windowDeps, (perChannel - 8) * channels * (n - 1));
    }
    // A chain of 2 GiB with LL would be 65,536 steps a channel: it keeps MAX_CHAIN_ROUNDS
    // (4096) chunks of 512 KiB.
    CollectivePlanOptions options;
    options.protocol = P::LL;
    const CommPlan big =
        MakeCollectivePlan(CollectiveType::BROADCAST, A::RING, 3, uint64_t{2} << 30, options);
    EXPECT_EQ(big.GetNBlocks(), MAX_CHAIN_ROUNDS);
    EXPECT_EQ(big.GetBlock(0).bytes, 512u << 10);
}

// On 2 x 8 H100 (400G), a 1 MiB broadcast as NCCL picks it (its ring with LL: ours the
// rail ring) takes 70.9 us, 5 to 10 % under NCCL's own model (76.7 us): its 128 KiB per
// channel go down the 16-rank chain in four LL steps that overlap; cut in Simple's 512 KiB
// it moved whole, hop by hop (139.6 us, +82 %).
TEST_F(CollectiveProtocolTest, AnLlChainPipelinesItsSteps)
{
    const uint64_t bytes = 1 << 20;
    const CollectiveResult r =
        RunDgxCollective(CollectiveType::BROADCAST, 2, "rail-ring", bytes, CollectiveProtocol::LL);
    const double model = NcclTuningModel(DgxNcclSystem(2))
                             .GetTimeUs(CollectiveType::BROADCAST,
                                        NcclAlgorithm::RING,
                                        CollectiveProtocol::LL,
                                        bytes);
    const double ours = r.GetDuration().GetSeconds() * 1e6;
    std::cout << "[ measured ] 2 x 8 H100 LL broadcast of 1 MiB: " << ours << " us, NCCL's model "
              << model << " us\n";
    EXPECT_EQ(r.protocol, CollectiveProtocol::LL);
    const NcclTuningModel::Choice nccl =
        NcclTuningModel(DgxNcclSystem(2)).Choose(CollectiveType::BROADCAST, bytes);
    EXPECT_EQ(nccl.algorithm, NcclAlgorithm::RING);
    EXPECT_EQ(nccl.protocol, CollectiveProtocol::LL);
    EXPECT_GE(ours / model - 1, -0.10);
    EXPECT_LE(ours / model - 1, -0.05);
}

// Inside one server over NVLink the steps cost the ring's NVLink latencies
// (0.6 / 1.9 / 3.4 us) or the carrier's 2 us alpha, whichever is longer (LL and LL128
// spend 2 us, Simple 3.4): no network overhead, no tree row.
TEST_F(CollectiveProtocolTest, RingStepsOverNvLinkAreClosedForms)
{
    const uint32_t n = 8;
    const uint64_t bytes = 8 << 20;
    for (CollectiveProtocol p :
         {CollectiveProtocol::LL, CollectiveProtocol::LL128, CollectiveProtocol::SIMPLE})
    {
        const CollectiveResult r =
            RingAllReduce(Ideal(n, "nvlink"), CommGroup::Uniform(1, n), bytes, p);
        const double step =
            std::max(Us(NcclHwLatencyUs(LinkHardware::NVLINK, CollectiveAlgorithm::RING, p)),
                     2e-6) +
            static_cast<double>(CollectiveProtocolWireBytes(p, bytes / n)) / (100e9 / 8);
        const double expected =
            Us(NcclBaseLatencyUs(CollectiveAlgorithm::RING, p)) + 2 * (n - 1) * step;
        EXPECT_NEAR(r.GetDuration().GetSeconds(), expected, 2 * (n - 1) * 1e-9) << p;
    }
}

// Over NVLink a channel is a thread block copying at its share of the GPU's NVLink
// bandwidth: on 8 x H100 a ring all-gather of 32 MiB with Simple on 8 channels pays its 7
// step latencies on top of its bytes' time, as NCCL's model does: base 8.4 us + 7 x
// (3.4 us + 512 KiB at R / 8), R the NVLink path's rate alone, within 0.5 % (the NVSwitch
// forwards in chunks). With channels that lend their share while one waits out its latency
// it took 92.8 us, 17 % less (measured at 9063fab's parent).
TEST_F(CollectiveProtocolTest, NvLinkChannelsCopyAtTheirShare)
{
    double rate = 0;
    {
        RoceHelper roce;
        GpuClusterHelper helper(roce);
        const GpuCluster cluster =
            helper.Build(1, 8, "H100", DataRate("400Gbps"), 1, 1.0, MicroSeconds(1));
        rate = cluster.transport->DescribePath(0, 1).bytesPerSecond;
        Simulator::Destroy();
    }
    const CollectiveProtocol p = CollectiveProtocol::SIMPLE;
    const uint64_t bytes = 32 << 20;
    const uint32_t n = 8;
    const uint32_t channels = 8;
    const double perStep = static_cast<double>(bytes / n / channels);
    const double expected =
        Us(NcclBaseLatencyUs(CollectiveAlgorithm::RING, p)) +
        (n - 1) * (Us(NcclHwLatencyUs(LinkHardware::NVLINK, CollectiveAlgorithm::RING, p)) +
                   perStep / (rate / channels));
    const CollectiveResult r = RunDgxCollective(CollectiveType::ALL_GATHER, 1, "ring", bytes, p);
    std::cout << "[ measured ] 8 x H100 ring all-gather 32 MiB Simple: "
              << r.GetDuration().GetSeconds() * 1e6 << " us, closed form " << expected * 1e6
              << " us (NVLink path " << rate / 1e9 << " GB/s)\n";
    EXPECT_NEAR(r.GetDuration().GetSeconds(), expected, 0.005 * expected);
}

// A rail ring's GPU sends seven of its eight channels over NVLink and one through its NIC:
// its NVLink share is the path's rate over those seven, above the NIC's 48.7 GB/s per
// channel, so the NICs still bound the call. On 2 x 8 H100 a 512 MiB all-reduce with Simple
// keeps at least 0.98 of the bus bandwidth it has without a protocol (measured 0.992); a
// share over all eight channels (46 GB/s) made the NVLink hops bind: 0.902 (measured with
// the divisor set to the plan's channels; on 4 x 8 at 1 GiB: 5903 us against 5355).
TEST_F(CollectiveProtocolTest, ARailRingsNvLinkShareIsOverItsNvLinkChannels)
{
    const uint64_t bytes = 512 << 20;
    const double simple = RunDgxCollective(CollectiveType::ALL_REDUCE,
                                           2,
                                           "rail-ring",
                                           bytes,
                                           CollectiveProtocol::SIMPLE)
                              .GetDuration()
                              .GetSeconds();
    const double none = RunDgxCollective(CollectiveType::ALL_REDUCE,
                                         2,
                                         "rail-ring",
                                         bytes,
                                         CollectiveProtocol::NONE)
                            .GetDuration()
                            .GetSeconds();
    std::cout << "[ measured ] 2 x 8 H100 rail ring 512 MiB: Simple " << simple * 1e6
              << " us, none " << none * 1e6 << " us (" << none / simple << ")\n";
    EXPECT_GE(none / simple, 0.98);
    EXPECT_LT(none / simple, 1.0);
}

// A ring across servers of four GPUs: network steps pay the ring's network latency
// (2.7 / 4.0 / 14 us); NVLink steps at least NCCL_NET_OVERHEAD (1 us, x3 with Simple), so
// LL's 0.6 us becomes 1.0 and Simple's 3.4 stays. Each transfer pays that less the
// carrier's 1 us path latency (LL's NVLink steps nothing). A protocol of none charges
// nothing.
TEST_F(CollectiveProtocolTest, StepsInsideServersOfANetworkRingWaitForTheProxy)
{
    auto carrier = CreateObject<FourPerServer>();
    CommPlan plan =
        MakeCollectivePlan(CollectiveType::ALL_REDUCE, CollectiveAlgorithm::RING, 8, 8 << 20);
    const Time overhead = MicroSeconds(1);
    auto us = [](double v) { return NanoSeconds(static_cast<int64_t>(v * 1000 + 0.5)); };

    struct Row
    {
        CollectiveProtocol p;
        double nvlink;
        double net;
    };

    for (const Row& row : {Row{CollectiveProtocol::LL, 1.0, 2.7},
                           Row{CollectiveProtocol::LL128, 1.9, 4.0},
                           Row{CollectiveProtocol::SIMPLE, 3.4, 14.0}})
    {
        plan.SetProtocol(row.p);
        const CollectiveProtocolCosts costs(plan, *carrier, {}, overhead);
        EXPECT_EQ(costs.GetStepLatency(LinkHardware::NVLINK), us(row.nvlink)) << row.p;
        EXPECT_EQ(costs.GetStepLatency(LinkHardware::NET), us(row.net)) << row.p;
        // Transfer 0 is rank 0 -> 1 (NVLink), the ring's step 3 -> 4 crosses servers.
        for (uint32_t t = 0; t < plan.GetNTransfers(); ++t)
        {
            const auto& tr = plan.GetTransfer(t);
            const Time expected =
                us(tr.src / 4 == tr.dst / 4 ? row.nvlink : row.net) - MicroSeconds(1);
            ASSERT_EQ(costs.GetStepLatency(t), expected) << row.p << " transfer " << t;
        }
    }
    // A larger overhead: LL128's 1.9 us becomes 2.0, Simple's 3.4 becomes 3 x 2.0.
    plan.SetProtocol(CollectiveProtocol::LL128);
    EXPECT_EQ(CollectiveProtocolCosts(plan, *carrier, {}, MicroSeconds(2))
                  .GetStepLatency(LinkHardware::NVLINK),
              MicroSeconds(2));
    plan.SetProtocol(CollectiveProtocol::SIMPLE);
    EXPECT_EQ(CollectiveProtocolCosts(plan, *carrier, {}, MicroSeconds(2))
                  .GetStepLatency(LinkHardware::NVLINK),
              MicroSeconds(6));
    // Paths of one hardware but different latencies: every step of that hardware is
    // charged NCCL's figure less the call's shortest path (2 us for the ring's crossings
    // 3 -> 4 and 7 -> 0), so transfers released together start together; the longer path
    // spends its extra microsecond on the wire.
    plan.SetProtocol(CollectiveProtocol::LL);
    const CollectiveProtocolCosts uneven(plan, UnevenPaths(), {}, overhead);
    for (uint32_t t = 0; t < plan.GetNTransfers(); ++t)
    {
        const auto& tr = plan.GetTransfer(t);
        ASSERT_EQ(uneven.GetStepLatency(t),
                  tr.src / 4 == tr.dst / 4 ? Time(0) : us(2.7) - MicroSeconds(2))
            << t;
    }
    plan.SetProtocol(CollectiveProtocol::NONE);
    const CollectiveProtocolCosts none(plan, *carrier, {}, overhead);
    EXPECT_FALSE(none.IsCharged());
    EXPECT_EQ(none.GetCallLatency(), Time(0));
    EXPECT_EQ(none.GetStepLatency(0u), Time(0));
}

// auto picks the protocol as NCCL's tuner does, by the lowest predicted time: LL for tiny
// calls (lowest latency), Simple for large ones (full payload); and the cost model's
// estimate of each is the ideal carrier's simulated time (both charge the same costs).
TEST_F(CollectiveProtocolTest, AutoPicksTheFastestProtocolBySize)
{
    const uint32_t n = 8;
    const CommGroup group = CommGroup::Uniform(n, 1);
    auto carrier = Ideal(n, "net");
    CollectiveSelection selection(carrier);
    CollectivePlanOptions options;
    const auto small = selection.Choose(CollectiveType::ALL_REDUCE, group, 8, options);
    EXPECT_EQ(small.protocol, CollectiveProtocol::LL);
    const auto large = selection.Choose(CollectiveType::ALL_REDUCE, group, 1 << 30, options);
    EXPECT_EQ(large.protocol, CollectiveProtocol::SIMPLE);
    for (uint64_t bytes : {uint64_t{8}, uint64_t{1} << 20, uint64_t{1} << 26})
    {
        for (const auto& c : selection.Rank(CollectiveType::ALL_REDUCE, group, bytes, options))
        {
            if (c.algorithm != CollectiveAlgorithm::RING)
            {
                continue;
            }
            const CollectiveResult r = RingAllReduce(Ideal(n, "net"), group, bytes, c.protocol);
            // The carrier rounds each message to the nanosecond; the estimate does not.
            EXPECT_NEAR(r.GetDuration().GetSeconds(), c.estimate.GetSeconds(), 2 * (n - 1) * 1e-9)
                << c.protocol << " " << bytes;
        }
    }
    // A forced protocol is what every candidate runs; NVLS-style algorithms run Simple only.
    options.protocol = CollectiveProtocol::LL128;
    for (const auto& c : selection.Rank(CollectiveType::ALL_REDUCE, group, 1 << 20, options))
    {
        EXPECT_EQ(c.protocol, CollectiveProtocol::LL128);
    }
}
