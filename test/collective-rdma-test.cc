// SPDX-License-Identifier: GPL-2.0-only
// Collectives over the packet fabric: with no congestion, a ring all-reduce takes the
// alpha-beta time computed with the wire efficiency and the path latency.
#include "test-util.h"

#include "ns3/collective-algorithms.h"
#include "ns3/collective-engine.h"
#include "ns3/collective-hierarchical.h"
#include "ns3/ideal-transport.h"
#include "ns3/rdma-transport.h"
#include "ns3/server-routing-transport.h"

using namespace aifabric;

namespace
{
class CollectiveRdma : public NsTest
{
};
} // namespace

TEST_F(CollectiveRdma, RingAllReduceMatchesAlphaBetaOnAnIdleFabric)
{
    const uint32_t n = 4;
    const uint64_t bytes = 64ull << 20;
    const Time delay = MicroSeconds(1);
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(n, DataRate("100Gbps"), delay);
    Ptr<RdmaTransport> transport = CreateObject<RdmaTransport>();
    transport->SetNics(topo.nics);
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(transport);
    CollectiveResult result;
    CommPlan plan = RingAllReduce(n, bytes);
    Simulator::Schedule(Seconds(0),
                        [&]() { engine->Run(plan, MakeBoundCallback(&StoreResult, &result)); });
    Simulator::Run();

    // Each of the 2(n−1) steps moves S/n bytes at the payload rate after a latency of two
    // cables plus the switch's store-and-forward of one frame.
    const double beta = PayloadRate(100e9) / 8; // bytes per second
    const double alpha = 2 * delay.GetSeconds() + roce::WireBytes(4154) * 8 / 100e9;
    const double expected = 2.0 * (n - 1) * (alpha + double(bytes) / n / beta);
    ASSERT_EQ(result.nRanks, n);
    double measured = (result.end - result.start).GetSeconds();
    EXPECT_NEAR(measured, expected, 0.05 * expected);
    EXPECT_NEAR(result.busBw, bytes / measured * 2.0 * (n - 1) / n, 1.0);
    EXPECT_EQ(transport->GetNConnections(), n); // one ring connection per rank
    EXPECT_EQ(TotalDrops(topo), 0u);
    std::cout << "[ measured ] ring all-reduce of " << bytes << " B on " << n
              << " ranks at 100 Gb/s: " << measured * 1e3 << " ms, alpha-beta " << expected * 1e3
              << " ms, busbw " << result.busBw / 1e9 << " GB/s\n";
}

namespace
{
struct FabricRun
{
    double seconds{0};
    uint64_t pauses{0};
    uint64_t marks{0};
    uint64_t drops{0};
};

FabricRun
AllToAllOnLeafSpine(double oversubscription)
{
    Config::Reset();
    const uint32_t hostsPerLeaf = 4;
    RoceHelper roce;
    roce.SetCongestionControl("ns3::RoceDcqcn");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.LeafSpine(2,
                                             4,
                                             hostsPerLeaf,
                                             DataRate("100Gbps"),
                                             oversubscription,
                                             MicroSeconds(1));
    roce.AssignStreams(1);
    Ptr<RdmaTransport> transport = CreateObject<RdmaTransport>();
    transport->SetNics(topo.nics);
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(transport);
    CollectiveResult result;
    CommPlan plan = DirectAllToAll(2 * hostsPerLeaf, 16 << 20);
    Simulator::Schedule(Seconds(0),
                        [&]() { engine->Run(plan, MakeBoundCallback(&StoreResult, &result)); });
    Simulator::Run();
    FabricRun run;
    run.seconds = (result.end - result.start).GetSeconds();
    for (const auto& sw : topo.switchObjects)
    {
        run.pauses += sw->GetPfcPausesSent();
        run.marks += sw->GetEcnMarks();
        run.drops += sw->GetTotalDrops();
    }
    Simulator::Destroy();
    return run;
}
} // namespace

TEST_F(CollectiveRdma, AllToAllIsSlowerOnAnOversubscribedSpineAndCountersShowWhy)
{
    FabricRun full = AllToAllOnLeafSpine(1.0);
    FabricRun half = AllToAllOnLeafSpine(2.0);
    // Half of every rank's all-to-all data crosses the spine: with the uplinks at half
    // capacity that half takes about twice as long.
    EXPECT_GT(half.seconds, 1.3 * full.seconds);
    EXPECT_GT(half.marks + half.pauses, full.marks + full.pauses);
    EXPECT_EQ(full.drops + half.drops, 0u);
    std::cout << "[ measured ] all-to-all 8 x 16 MiB, 2 leaves x 4 hosts at 100 Gb/s: 1:1 "
              << full.seconds * 1e3 << " ms (" << full.marks << " ECN marks, " << full.pauses
              << " pauses); 2:1 " << half.seconds * 1e3 << " ms (" << half.marks << " ECN marks, "
              << half.pauses << " pauses)\n";
}

namespace
{
/// Flat ring or hierarchical all-reduce on servers of g GPUs, one 400G NIC per GPU
/// (rail-aligned leaf-spine), NVLink stood in for by the ideal transport at 450 GB/s.
CollectiveResult
AllReduceAcrossServers(bool hierarchical,
                       uint32_t servers,
                       uint32_t gpus,
                       uint64_t bytes,
                       uint64_t* interServerBytes)
{
    Config::Reset();
    RoceHelper roce;
    roce.SetCongestionControl("ns3::RoceDcqcn");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo =
        topoHelper.RailOptimized(servers, gpus, 2, DataRate("400Gbps"), 1.0, MicroSeconds(1));
    roce.AssignStreams(1);
    Ptr<RdmaTransport> rdma = CreateObject<RdmaTransport>();
    rdma->SetNics(topo.nics);
    Ptr<IdealTransport> nvlink = CreateObject<IdealTransport>();
    nvlink->SetAttribute("NRanks", UintegerValue(servers * gpus));
    nvlink->SetAttribute("DataRate", DataRateValue(DataRate("3600Gbps")));
    nvlink->SetAttribute("Latency", TimeValue(MicroSeconds(1)));
    CommGroup group = CommGroup::Uniform(servers, gpus);
    Ptr<ServerRoutingTransport> transport = CreateObject<ServerRoutingTransport>();
    transport->SetupShared(group, nvlink, rdma);
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(transport);
    CommPlan plan =
        hierarchical ? HierarchicalAllReduce(group, bytes) : RingAllReduce(servers * gpus, bytes);
    CollectiveResult result;
    Simulator::Schedule(Seconds(0),
                        [&]() { engine->Run(plan, MakeBoundCallback(&StoreResult, &result)); });
    Simulator::Run();
    *interServerBytes = transport->GetInterServerBytes();
    Simulator::Destroy();
    return result;
}
} // namespace

TEST_F(CollectiveRdma, HierarchicalBeatsFlatRingAcrossServers)
{
    // 2 servers x 4 GPUs, 64 MiB. The flat ring crosses servers on 2 of its 8 hops and
    // pays 14 latency-bound steps; the hierarchical plan keeps 3/4 of the work on NVLink
    // and moves each GPU's 1/4 shard over its own rail.
    uint64_t flatInter = 0;
    uint64_t hierInter = 0;
    CollectiveResult flat = AllReduceAcrossServers(false, 2, 4, 64 << 20, &flatInter);
    CollectiveResult hier = AllReduceAcrossServers(true, 2, 4, 64 << 20, &hierInter);
    double tFlat = (flat.end - flat.start).GetSeconds();
    double tHier = (hier.end - hier.start).GetSeconds();
    EXPECT_LT(tHier, tFlat);
    std::cout << "[ measured ] all-reduce 64 MiB on 2 servers x 4 GPUs (NVLink 450 GB/s, "
              << "400G NIC per GPU): flat ring " << tFlat * 1e3 << " ms, busbw " << flat.busBw / 1e9
              << " GB/s; hierarchical " << tHier * 1e3 << " ms, busbw " << hier.busBw / 1e9
              << " GB/s; inter-server bytes " << flatInter << " vs " << hierInter << "\n";
}

TEST_F(CollectiveRdma, RailOptimizedKeepsRailTrafficOffTheSpines)
{
    // 4 servers x 4 GPUs, 2 spines: a ring along rail 1 (GPU 1 of every server) stays on
    // leaf 1; a ring across rails needs the spines.
    RoceHelper roce;
    roce.SetCongestionControl("ns3::RoceDcqcn");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo =
        topoHelper.RailOptimized(4, 4, 2, DataRate("400Gbps"), 1.0, MicroSeconds(1));
    ASSERT_EQ(topo.nics.size(), 16u);
    ASSERT_EQ(topo.switchObjects.size(), 6u);
    EXPECT_EQ(topo.switchObjects[1]->GetNPorts(), 4u + 2u); // 4 servers' GPU 1 + 2 spines
    Ptr<RdmaTransport> transport = CreateObject<RdmaTransport>();
    transport->SetNics(topo.nics);
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(transport);
    CommGroup world = CommGroup::Uniform(4, 4);
    CollectiveResult result;
    std::vector<uint32_t> rail = world.GetRail(1);
    Simulator::Schedule(Seconds(0), [&]() {
        engine->Run(RingAllReduce(4, 8 << 20), rail, MakeBoundCallback(&StoreResult, &result));
    });
    Simulator::Run();
    ASSERT_EQ(result.nRanks, 4u);
    uint64_t spineBytes = 0;
    for (uint32_t s = 4; s < 6; ++s)
    {
        for (uint32_t p = 0; p < topo.switchObjects[s]->GetNPorts(); ++p)
        {
            spineBytes += topo.switchObjects[s]->GetPort(p)->GetTxBytes();
        }
    }
    EXPECT_EQ(spineBytes, 0u);
    // Busbw of the rail ring close to the per-NIC wire limit (49 GB/s at 400 Gb/s).
    EXPECT_GT(result.busBw, 0.9 * PayloadRate(400e9) / 8);
}
