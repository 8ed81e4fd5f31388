// SPDX-License-Identifier: GPL-2.0-only
// NVLS inside each server, in-network aggregation across servers ("nvls-ina", NCCL's
// NVLS + SHARP shape): the plan the PlanChecker proves, its routing over GpuClusters
// whose scale-out switches aggregate, and its time against NVLS alone and the rings.
#include "ina-test-util.h"

#include "ns3/collective-hierarchical.h"

using namespace ns3;
using namespace aifabric;

namespace
{
class InaNvls : public NsTest
{
};

} // namespace

TEST_F(InaNvls, PlanCheckerProvesTheHierarchicalInNetworkAllReduce)
{
    for (auto [servers, gpus] :
         std::vector<std::pair<uint32_t, uint32_t>>{{2, 2}, {2, 8}, {3, 4}, {8, 8}})
    {
        for (uint64_t chunk : {0ull, 4096ull})
        {
            const CommGroup group = CommGroup::Uniform(servers, gpus);
            const uint64_t bytes = (1ull << 20) + 5;
            const CommPlan plan = NvlsInaAllReduce(group, bytes, chunk);
            const PlanCheckResult r = PlanChecker::Check(plan);
            EXPECT_TRUE(r.ok) << servers << " x " << gpus << ": " << r.reason;
            EXPECT_EQ(plan.GetAlgorithm(), "nvls-ina");
            // One member set per server and per rail, besides "every rank".
            EXPECT_EQ(plan.GetNMemberSets(), 1 + servers + gpus);
        }
    }
    // Aggregating a piece over a whole server instead of its rail counts that server's
    // contributions twice (its NVSwitch summed them already).
    CommPlan broken = NvlsInaAllReduce(CommGroup::Uniform(2, 2), 4096);
    for (const auto& t : broken.GetTransfers())
    {
        if (t.kind == CommPlan::Kind::SWITCH_ALL_REDUCE)
        {
            broken.GetTransfer(t.id).members = broken.GetTransfers()[0].members;
            break;
        }
    }
    const PlanCheckResult r = PlanChecker::Check(broken);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("twice"), std::string::npos) << r.reason;
}

TEST_F(InaNvls, TwoH100ServersRunAtTheNvlsRateAndAutoPicksIt)
{
    // 2 x 8 H100, one 400G NIC per GPU, the rail switches aggregate. Each NIC carries
    // S/8 each way, which 400G moves faster than NVLS moves S through the NVSwitch: the
    // all-reduce takes the time NVLS alone takes on one server (within 1 %: the pieces'
    // fill and drain), and beats the rail-aligned ring, whose NICs carry 2(s-1)/s S/8.
    const uint64_t bytes = 256ull << 20;
    const uint32_t servers = 2;
    const uint32_t gpus = 8;
    CollectiveResult nvlsInServer;
    {
        RoceHelper roce;
        GpuClusterHelper helper(roce);
        GpuCluster one =
            helper.Build(1, gpus, "H100", DataRate("400Gbps"), 1, 1.0, MicroSeconds(1));
        nvlsInServer = RunAllReduce(one.transport, one.world, bytes, "nvls", 8);
        Simulator::Destroy();
    }
    CollectiveResult ring;
    {
        RoceHelper roce;
        GpuClusterHelper helper(roce);
        GpuCluster cluster =
            helper.Build(servers, gpus, "H100", DataRate("400Gbps"), 1, 1.0, MicroSeconds(1));
        ring = RunAllReduce(cluster.transport, cluster.world, bytes, "rail-ring", 8);
        Simulator::Destroy();
    }
    RoceHelper roce;
    GpuClusterHelper helper(roce);
    InaHelper ina;
    helper.EnableInNetworkAggregation(ina);
    GpuCluster cluster =
        helper.Build(servers, gpus, "H100", DataRate("400Gbps"), 1, 1.0, MicroSeconds(1));
    Ptr<InaTransport> scaleOut = DynamicCast<InaTransport>(cluster.scaleOut);
    ASSERT_NE(scaleOut, nullptr);
    EXPECT_EQ(
        CollectiveAlgorithmToString(CollectiveSelection(cluster.transport)
                                        .Choose(CollectiveType::ALL_REDUCE, cluster.world, bytes)
                                        .algorithm),
        "nvls-ina");
    const CollectiveResult result =
        RunAllReduce(cluster.transport, cluster.world, bytes, "auto", 8);
    EXPECT_EQ(result.algorithm, "nvls-ina");
    EXPECT_EQ(result.bytes, bytes);
    // Every byte crossed the scale-out fabric once per server, aggregated by the rails.
    EXPECT_EQ(scaleOut->GetBytesInNetwork(), bytes);
    EXPECT_EQ(cluster.transport->GetInterServerBytes(), servers * bytes);
    EXPECT_EQ(scaleOut->GetBytesViaFallbackHost(), 0u);
    // The data's time: without the calls' protocol latency (NCCL's NVLS latency, 25 us,
    // plus its network one across servers, 18 us; collective-protocol suite).
    const double nvlsLatency = 25e-6;
    const double netLatency = 18e-6;
    const double t = result.GetDuration().GetSeconds() - nvlsLatency - netLatency;
    const double nvls = nvlsInServer.GetDuration().GetSeconds() - nvlsLatency;
    EXPECT_NEAR(t, nvls, 0.01 * nvls);
    // Closed form, independent of the NVLS simulation: each direction of each GPU port
    // carries S (1 + 1/g) at the NVLS rate (the switch's reduce takes S in and gives S/g
    // out, its multicast takes S/g in and gives S out), each NIC S/g each way at its
    // payload rate; the slower of the two sets the time, pieces' fill and drain add at
    // most 3 %.
    const double nvlinkTime =
        bytes * (1.0 + 1.0 / gpus) * 8 / cluster.nvSwitches[0]->GetNvlsRate().GetBitRate();
    const double nicTime = bytes / gpus * 8 / PayloadRate(400e9);
    const double closed = std::max(nvlinkTime, nicTime);
    std::cout << "[ measured ] nvls-ina closed form: NVLink " << nvlinkTime * 1e6 << " us, NIC "
              << nicTime * 1e6 << " us; simulated " << t * 1e6 << " us\n";
    EXPECT_GE(t, closed * 0.9999);
    EXPECT_LE(t, closed * 1.03);
    EXPECT_GT(result.busBw, 1.2 * ring.busBw);
    std::cout << "[ measured ] 2 x 8 H100, 8 x 400G, 256 MiB all-reduce: nvls-ina " << t * 1e6
              << " us, busbw " << result.busBw / 1e9 << " GB/s; NVLS on one server " << nvls * 1e6
              << " us; rail-ring busbw " << ring.busBw / 1e9 << " GB/s\n";
}
