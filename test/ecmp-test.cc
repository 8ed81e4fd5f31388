// SPDX-License-Identifier: GPL-2.0-only
// ECMP: flows spread evenly over equal-cost ports; one flow keeps one path (no reorder).
#include "test-util.h"

#include <cmath>

using namespace aifabric;

namespace
{
class Ecmp : public NsTest
{
};

/// Bytes each spine received from leaf 0 (the leaf's uplink ports follow its host ports).
std::vector<uint64_t>
SpineBytes(const RoceTopology& topo, uint32_t hostsPerLeaf, uint32_t spines)
{
    std::vector<uint64_t> bytes;
    Ptr<RoceSwitch> leaf = topo.switchObjects[0];
    for (uint32_t s = 0; s < spines; ++s)
    {
        bytes.push_back(leaf->GetPort(hostsPerLeaf + s)->GetTxBytes());
    }
    return bytes;
}
} // namespace

TEST_F(Ecmp, HashSpreadsFlowsEvenly)
{
    EcmpRoutingTable table;
    const uint32_t ports = 8;
    for (uint32_t p = 0; p < ports; ++p)
    {
        table.AddRoute(0x0A000002, p);
    }
    const int flows = 80000;
    std::vector<int> count(ports, 0);
    for (int i = 0; i < flows; ++i)
    {
        uint64_t key = (uint64_t(0x0A000001) << 32 | 0x0A000002) ^
                       (uint64_t(49152 + i % 16384) << 16 | 4791) ^ (uint64_t(i / 16384) << 40);
        ++count[table.SelectPort(0x0A000002, key, 0x1234567)];
    }
    // Each port within 3% of the mean (≈ 9 standard deviations of a fair multinomial).
    for (uint32_t p = 0; p < ports; ++p)
    {
        EXPECT_NEAR(count[p], flows / ports, 0.03 * flows / ports) << "port " << p;
    }
}

TEST_F(Ecmp, ManyFlowsUseManySpinesAndOneFlowNeverReorders)
{
    const uint32_t hostsPerLeaf = 16;
    const uint32_t spines = 8;
    RoceHelper roce;
    roce.SetCongestionControl("ns3::RoceDcqcn");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo =
        topoHelper.LeafSpine(2, spines, hostsPerLeaf, DataRate("100Gbps"), 1.0, MicroSeconds(1));
    roce.AssignStreams(1);
    std::vector<FlowProbe> flows(hostsPerLeaf);
    for (uint32_t i = 0; i < hostsPerLeaf; ++i)
    {
        flows[i].Attach(RoceHelper::Connect(topo.nics[i], topo.nics[hostsPerLeaf + i]));
        Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, flows[i].sender, 1 << 20);
    }
    Simulator::Run();
    std::vector<uint64_t> perSpine = SpineBytes(topo, hostsPerLeaf, spines);
    uint32_t used = 0;
    for (uint64_t b : perSpine)
    {
        used += b > 0 ? 1 : 0;
    }
    // 16 flows hashed into 8 spines leave on average 8 × (7/8)^16 ≈ 0.94 spines empty.
    EXPECT_GE(used, 6u);
    for (const auto& f : flows)
    {
        EXPECT_EQ(f.BytesReceived(), 1u << 20);
        // A flow that took two paths would arrive out of order: NAKs and retransmissions.
        EXPECT_EQ(f.sender->GetNaksReceived(), 0u);
        EXPECT_EQ(f.sender->GetPacketsRetransmitted(), 0u);
    }
    EXPECT_EQ(TotalDrops(topo), 0u);
}

TEST_F(Ecmp, OneFlowStaysOnOneSpine)
{
    const uint32_t hostsPerLeaf = 2;
    const uint32_t spines = 8;
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo =
        topoHelper.LeafSpine(2, spines, hostsPerLeaf, DataRate("100Gbps"), 1.0, MicroSeconds(1));
    FlowProbe flow;
    flow.Attach(RoceHelper::Connect(topo.nics[0], topo.nics[2]));
    Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, flow.sender, 4 << 20);
    Simulator::Run();
    std::vector<uint64_t> perSpine = SpineBytes(topo, hostsPerLeaf, spines);
    uint32_t used = 0;
    for (uint64_t b : perSpine)
    {
        used += b > 0 ? 1 : 0;
    }
    EXPECT_EQ(used, 1u);
    EXPECT_EQ(flow.BytesReceived(), 4u << 20);
}

TEST_F(Ecmp, RoutingTableHandlesDenseAndScatteredAddresses)
{
    EcmpRoutingTable table;
    table.AddRoute(0x0A000005, 1);
    table.AddRoute(0x0A000001, 2); // below the first address: kept aside
    table.AddRoute(0xC0A80001, 3); // far away
    table.AddRoute(0x0A000005, 4);
    table.AddRoute(0x0A000005, 1); // duplicate ignored
    EXPECT_EQ(table.GetNRoutes(), 3u);
    ASSERT_NE(table.Lookup(0x0A000005), nullptr);
    EXPECT_EQ(*table.Lookup(0x0A000005), (std::vector<uint32_t>{1, 4}));
    EXPECT_EQ(*table.Lookup(0x0A000001), (std::vector<uint32_t>{2}));
    EXPECT_EQ(*table.Lookup(0xC0A80001), (std::vector<uint32_t>{3}));
    EXPECT_EQ(table.Lookup(0x0A000004), nullptr);
    EXPECT_EQ(table.Lookup(0x0A000006), nullptr);
    EXPECT_EQ(table.SelectPort(0x0A000009, 42, 7), UINT32_MAX);
    table.Clear();
    EXPECT_EQ(table.GetNRoutes(), 0u);
    EXPECT_EQ(table.Lookup(0x0A000005), nullptr);
}

TEST_F(Ecmp, FatTreeHasItsShapeAndSpreadsOverAllCores)
{
    // k = 4: 16 hosts, 8 edge + 8 aggregation + 4 core switches; between pods there are
    // (k/2)^2 = 4 equal-cost paths, one per core.
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.FatTree(4, DataRate("100Gbps"), 1.0, MicroSeconds(1));
    roce.AssignStreams(3);
    ASSERT_EQ(topo.nics.size(), 16u);
    ASSERT_EQ(topo.switchObjects.size(), 20u);
    // Edge 0 reaches host 15 (another pod) over both of its aggregation ports.
    const std::vector<uint32_t>* up =
        topo.switchObjects[0]->GetRoutingTable().Lookup(RoceTopologyHelper::HostAddress(15).Get());
    ASSERT_NE(up, nullptr);
    EXPECT_EQ(up->size(), 2u);
    // Every host sends to the host 8 positions on (two pods away): all complete, and the
    // cores all carry traffic.
    std::vector<FlowProbe> flows(16);
    for (uint32_t i = 0; i < 16; ++i)
    {
        flows[i].Attach(RoceHelper::Connect(topo.nics[i], topo.nics[(i + 8) % 16]));
        Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, flows[i].sender, 1 << 20);
    }
    Simulator::Run();
    for (const auto& f : flows)
    {
        EXPECT_EQ(f.BytesReceived(), 1u << 20);
    }
    uint32_t busyCores = 0;
    for (uint32_t c = 16; c < 20; ++c)
    {
        uint64_t bytes = 0;
        for (uint32_t p = 0; p < topo.switchObjects[c]->GetNPorts(); ++p)
        {
            bytes += topo.switchObjects[c]->GetPort(p)->GetTxBytes();
        }
        busyCores += bytes > (1u << 20) ? 1 : 0;
    }
    EXPECT_GE(busyCores, 3u);
    EXPECT_EQ(TotalDrops(topo), 0u);
}

TEST_F(Ecmp, ClosOfAnyNumberOfTiers)
{
    // k-ary n-trees: k^(n-1) switches per tier, k hosts per leaf when non-blocking, each
    // switch below the top with k ports down and k up; between the two farthest leaves
    // k^(n-1) equal-cost paths, k of them leaving the first leaf.
    for (auto [tiers, k] :
         std::vector<std::pair<uint32_t, uint32_t>>{{2, 4}, {3, 2}, {4, 2}, {3, 3}})
    {
        RoceHelper roce;
        roce.SetCongestionControl("ns3::NoCongestionControl");
        RoceTopologyHelper topoHelper(roce);
        RoceTopology topo = topoHelper.Clos(tiers, k, DataRate("100Gbps"), 1.0, MicroSeconds(1));
        roce.AssignStreams(3);
        uint32_t perTier = 1;
        for (uint32_t t = 1; t < tiers; ++t)
        {
            perTier *= k;
        }
        ASSERT_EQ(topo.nics.size(), perTier * k) << tiers << " tiers, k " << k;
        ASSERT_EQ(topo.switchObjects.size(), perTier * tiers);
        for (uint32_t t = 0; t < tiers; ++t)
        {
            // Leaves: k hosts + k up; middle: k down + k up; top: k down.
            const uint32_t ports = (t + 1 < tiers ? k : 0) + k;
            EXPECT_EQ(topo.switchObjects[t * perTier]->GetNPorts(), ports) << "tier " << t;
        }
        const uint32_t last = perTier * k - 1;
        const auto* up = topo.switchObjects[0]->GetRoutingTable().Lookup(
            RoceTopologyHelper::HostAddress(last).Get());
        ASSERT_NE(up, nullptr);
        EXPECT_EQ(up->size(), tiers > 1 ? k : 1u);
        // Every host writes to the host half the fabric away: everything arrives.
        const uint32_t n = perTier * k;
        std::vector<FlowProbe> flows(n);
        for (uint32_t i = 0; i < n; ++i)
        {
            flows[i].Attach(RoceHelper::Connect(topo.nics[i], topo.nics[(i + n / 2) % n]));
            Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, flows[i].sender, 256 << 10);
        }
        Simulator::Run();
        for (const auto& f : flows)
        {
            EXPECT_EQ(f.BytesReceived(), 256u << 10);
        }
        EXPECT_EQ(TotalDrops(topo), 0u);
        Simulator::Destroy();
    }
    // 2:1 at the leaves: 2k hosts per leaf.
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    EXPECT_EQ(topoHelper.Clos(3, 2, DataRate("100Gbps"), 2.0, MicroSeconds(1)).nics.size(), 16u);
    Simulator::Destroy();
}

TEST_F(Ecmp, RailOptimizedPods)
{
    // 4 servers x 4 GPUs in 2 pods: 8 rail leaves (pod p, rail g = leaf 4p + g), 2 spines.
    // Rail 1 of pod 0 reaches rail 1 of pod 1 only through the spines.
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo =
        topoHelper.RailOptimized(4, 4, 2, DataRate("100Gbps"), 1.0, MicroSeconds(1), 2);
    roce.AssignStreams(3);
    ASSERT_EQ(topo.nics.size(), 16u);
    ASSERT_EQ(topo.switchObjects.size(), 10u);
    // Leaf 1 (pod 0, rail 1) holds hosts 1 and 5 (servers 0 and 1, GPU 1) and 2 uplinks.
    EXPECT_EQ(topo.switchObjects[1]->GetNPorts(), 4u);
    const auto* toSamePod =
        topo.switchObjects[1]->GetRoutingTable().Lookup(RoceTopologyHelper::HostAddress(5).Get());
    const auto* toOtherPod =
        topo.switchObjects[1]->GetRoutingTable().Lookup(RoceTopologyHelper::HostAddress(9).Get());
    ASSERT_NE(toSamePod, nullptr);
    ASSERT_NE(toOtherPod, nullptr);
    EXPECT_EQ(toSamePod->size(), 1u);  // straight down
    EXPECT_EQ(toOtherPod->size(), 2u); // up to either spine
    FlowProbe flow;
    flow.Attach(RoceHelper::Connect(topo.nics[1], topo.nics[9]));
    Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, flow.sender, 1 << 20);
    Simulator::Run();
    EXPECT_EQ(flow.BytesReceived(), 1u << 20);
}
