// SPDX-License-Identifier: GPL-2.0-only
// Collectives over the packet fabric: with no congestion, a ring all-reduce takes the
// alpha-beta time computed with the wire efficiency and the path latency.
#include "test-util.h"

#include "ns3/collective-algorithms.h"
#include "ns3/collective-engine.h"
#include "ns3/rdma-transport.h"

using namespace aifabric;

namespace
{
class CollectiveRdma : public NsTest
{
};

void
Store(CollectiveResult* out, const CollectiveResult& result)
{
    *out = result;
}
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
    Simulator::Schedule(Seconds(0), [&]() {
        engine->Run(plan, MakeBoundCallback(&Store, &result));
    });
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
              << " ranks at 100 Gb/s: " << measured * 1e3 << " ms, alpha-beta "
              << expected * 1e3 << " ms, busbw " << result.busBw / 1e9 << " GB/s\n";
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
    roce.SetCongestionControl("ns3::Dcqcn");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.LeafSpine(2, 4, hostsPerLeaf, DataRate("100Gbps"),
                                             oversubscription, MicroSeconds(1));
    roce.AssignStreams(1);
    Ptr<RdmaTransport> transport = CreateObject<RdmaTransport>();
    transport->SetNics(topo.nics);
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(transport);
    CollectiveResult result;
    CommPlan plan = DirectAllToAll(2 * hostsPerLeaf, 16 << 20);
    Simulator::Schedule(Seconds(0), [&]() {
        engine->Run(plan, MakeBoundCallback(&Store, &result));
    });
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
              << " pauses); 2:1 " << half.seconds * 1e3 << " ms (" << half.marks
              << " ECN marks, " << half.pauses << " pauses)\n";
}
