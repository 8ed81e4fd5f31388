// SPDX-License-Identifier: GPL-2.0-only
// A DGX-like cluster: NVSwitch inside each server, one 400G NIC per GPU on rail leaves.
#include "test-util.h"

#include "ns3/collective-algorithms.h"
#include "ns3/collective-engine.h"
#include "ns3/collective-hierarchical.h"
#include "ns3/collective-selection.h"
#include "ns3/data-rate.h"
#include "ns3/gpu-cluster-helper.h"

#include <numeric>

using namespace aifabric;

namespace
{
class GpuClusterTest : public NsTest
{
  protected:
    /**
     * Two servers of 8 H100 (NVSwitch, one 400G NIC per GPU, DCQCN) and an engine on
     * their carrier.
     */
    void BuildTwoServers()
    {
        roce.SetCongestionControl("ns3::RoceDcqcn");
        GpuClusterHelper helper(roce);
        cluster = helper.Build(servers, gpus, "H100", DataRate("400Gbps"), 4, 1.0, MicroSeconds(1));
        roce.AssignStreams(1);
        ASSERT_EQ(cluster.network.nics.size(), servers * gpus);
        engine = CreateObject<CollectiveEngine>();
        engine->SetTransport(cluster.transport);
    }

    /// \param plan run it from time 0 \return its result
    CollectiveResult Run(const CommPlan& plan)
    {
        CollectiveResult result;
        Simulator::Schedule(Seconds(0),
                            [&]() { engine->Run(plan, MakeBoundCallback(&StoreResult, &result)); });
        Simulator::Run();
        return result;
    }

    const uint32_t servers = 2;   //!< servers
    const uint32_t gpus = 8;      //!< GPUs (and NICs) per server
    RoceHelper roce;              //!< the fabric's helper
    GpuCluster cluster;           //!< the cluster
    Ptr<CollectiveEngine> engine; //!< an engine on its carrier
};
} // namespace

TEST_F(GpuClusterTest, HierarchicalAllReduceOnTwoH100Servers)
{
    const uint64_t bytes = 1ull << 30;
    BuildTwoServers();
    ASSERT_EQ(cluster.nvSwitches.size(), servers);
    const CollectiveResult result = Run(HierarchicalAllReduce(cluster.world, bytes, gpus));

    // Intra-server reduce-scatter and all-gather each move (g−1)/g·S per GPU over NVLink
    // at the calibrated payload rate; in between every rail all-reduces its S/g shard
    // across the s servers over its own NIC: 2(s−1)/s·S/g at the NIC's payload rate.
    const double nvlink = cluster.nvSwitches[0]->GetPayloadRate().GetBitRate() / 8.0;
    const double nic = PayloadRate(400e9) / 8.0;
    const double expected = 2.0 * (gpus - 1) / gpus * bytes / nvlink +
                            2.0 * (servers - 1) / servers * bytes / gpus / nic;
    const double measured = (result.end - result.start).GetSeconds();
    EXPECT_NEAR(measured, expected, 0.10 * expected);
    EXPECT_EQ(cluster.transport->GetInterServerBytes(),
              uint64_t(servers) * gpus * 2 * (servers - 1) * (bytes / gpus) / servers);
    EXPECT_EQ(TotalDrops(cluster.network), 0u);
    std::cout << "[ measured ] hierarchical all-reduce 1 GiB, 2 x 8 H100, 8 x 400G per "
              << "server: " << measured * 1e3 << " ms (closed form " << expected * 1e3
              << " ms), busbw " << result.busBw / 1e9 << " GB/s\n";
}

TEST_F(GpuClusterTest, RailAlignedRingGivesPublishedBusBwPerNic)
{
    // NCCL's multi-node ring: 8 channels, each snaking through both servers so that its
    // two inter-server hops stay on one rail; together they use all 8 NICs both ways.
    // Published: 46–48 GB/s of busbw per 400 Gb/s NIC (nccl-tests' published multi-node results).
    const uint64_t bytes = 1ull << 30;
    BuildTwoServers();
    std::vector<std::vector<uint32_t>> orders = RailAlignedRingOrders(cluster.world, gpus);
    for (const auto& order : orders)
    {
        for (uint32_t p = 0; p < order.size(); ++p)
        {
            uint32_t a = order[p];
            uint32_t b = order[(p + 1) % order.size()];
            if (!cluster.world.SameServer(a, b))
            {
                EXPECT_EQ(cluster.world.GetLocalIndex(a), cluster.world.GetLocalIndex(b));
            }
        }
    }
    const CollectiveResult result = Run(RingAllReduceOrdered(orders, bytes, 4 << 20));
    double perNic = result.busBw / gpus / 1e9;
    EXPECT_GE(perNic, 0.9 * 46);
    EXPECT_LE(perNic, 1.1 * 48);
    EXPECT_EQ(TotalDrops(cluster.network), 0u);
    std::cout << "[ measured ] rail-aligned ring all-reduce 1 GiB, 2 x 8 H100, 8 x 400G per "
              << "server, 8 channels: busbw " << result.busBw / 1e9 << " GB/s = " << perNic
              << " GB/s per NIC (published 46-48)\n";
}

// NCCL's broadcast across servers runs along its rings: channel c's chain from the root
// follows channel c's rail-aligned order, so the eight channels leave and enter the
// servers through eight different NICs, where the flat chain sends everything through one.
TEST_F(GpuClusterTest, RailRingBroadcastUsesEveryNic)
{
    const uint64_t bytes = 1ull << 30;
    const uint64_t chunk = 512 << 10;
    BuildTwoServers();
    const CollectiveResult result = Run(ChainOrdered(CollectiveType::BROADCAST,
                                                     RailAlignedRingOrders(cluster.world, gpus),
                                                     bytes,
                                                     0,
                                                     chunk));
    // Root 0 begins channel 0's order: that chain crosses once (server 0 into 1); every
    // other channel's begins inside server 0's part of its order, so it also wraps back.
    EXPECT_EQ(cluster.transport->GetInterServerBytes(), (1 + 2 * (gpus - 1)) * (bytes / gpus));
    // Channel c leaves server 0 on rail c - 1 (channel 0 on rail 7) and, for c >= 1, leaves
    // server 1 on rail c: every NIC of server 0 and NICs 1-7 of server 1 send one channel's
    // eighth (and its headers, a few percent), NIC 0 of server 1 only ACKs.
    for (uint32_t i = 0; i < servers * gpus; ++i)
    {
        const double sent = static_cast<double>(cluster.network.nics[i]->GetDevice()->GetTxBytes());
        const double eighth = static_cast<double>(bytes / gpus);
        if (i == gpus)
        {
            EXPECT_LT(sent, 0.01 * eighth) << "NIC " << i;
        }
        else
        {
            EXPECT_GE(sent, eighth) << "NIC " << i;
            EXPECT_LE(sent, 1.05 * eighth) << "NIC " << i;
        }
    }
    // A pipeline of C = 1 GiB / 8 / 512 KiB = 256 chunks per channel over 15 hops: at
    // least C chunk times of a NIC (its payload rate), at most C + 14 if every hop were as
    // slow as a NIC's (NVLink's per-channel share is a little faster), plus 3 % for the
    // step latencies and the NVLink credit loop.
    const double t = chunk / (PayloadRate(400e9) / 8.0);
    const double c = static_cast<double>(bytes / gpus / chunk);
    const double measured = (result.end - result.start).GetSeconds();
    EXPECT_GE(measured, c * t);
    EXPECT_LE(measured, (c + 14) * t * 1.03);
    EXPECT_EQ(TotalDrops(cluster.network), 0u);
    std::cout << "[ measured ] rail-ring broadcast 1 GiB, 2 x 8 H100, 8 channels: "
              << measured * 1e3 << " ms (pipeline bounds " << c * t * 1e3 << " to "
              << (c + 14) * t * 1e3 << " ms), busbw " << result.busBw / 1e9 << " GB/s\n";
}

// NVLS through the cluster's carrier: the 8 GPUs of server 1 (global ranks 8..15) reduce
// in their own NVSwitch, nothing crosses the RoCE fabric, and auto picks NVLS only for a
// group that one switch holds.
TEST_F(GpuClusterTest, NvlsOnOneServerOfACluster)
{
    RoceHelper roce;
    GpuClusterHelper helper(roce);
    GpuCluster cluster = helper.Build(2, 8, "H100", DataRate("400Gbps"), 2, 1.0, MicroSeconds(1));
    roce.AssignStreams(1);
    std::vector<uint32_t> server1(8);
    std::iota(server1.begin(), server1.end(), 8u);
    std::vector<uint32_t> spanning = {0, 8};
    EXPECT_TRUE(cluster.transport->CanReduceInSwitch(server1));
    EXPECT_FALSE(cluster.transport->CanReduceInSwitch(spanning));

    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(cluster.transport);
    CollectiveResult result;
    const uint64_t bytes = 256ull << 20;
    Simulator::Schedule(Seconds(0), [&]() {
        engine->Run(NvlsAllReduce(8, bytes), server1, MakeBoundCallback(&StoreResult, &result));
    });
    Simulator::Run();
    EXPECT_EQ(cluster.transport->GetInterServerBytes(), 0u);
    const double nvls = cluster.nvSwitches[1]->GetNvlsRate().GetBitRate() / 8.0;
    const double closed = nvls * 2.0 * 7 / 9;
    EXPECT_NEAR(result.busBw, closed, 0.05 * closed);
    EXPECT_EQ(cluster.nvSwitches[0]->GetChunksDelivered(), 0u);
}

// auto's choice for a call is shared between groups of one shape for which the carrier
// gives the same figures (CollectiveSelection::ChoiceBook): the two servers' 8-GPU groups
// estimate once, and so do the eight rails' 2-GPU groups; each shared choice is exactly
// (algorithm, protocol and estimate) what the group's own estimates give. With one NIC
// slower (rail 1 of server 1 at 200 Gb/s) the carrier describes rail 1 otherwise: rail 1
// estimates on its own and gets its own, slower, estimate; a choice shared without that
// check would carry rail 0's.
TEST_F(GpuClusterTest, AutoSharesChoicesBetweenGroupsTheCarrierDescribesAlike)
{
    BuildTwoServers();
    std::vector<std::vector<uint32_t>> serverGroups(servers);
    std::vector<std::vector<uint32_t>> railGroups(gpus);
    for (uint32_t r = 0; r < servers * gpus; ++r)
    {
        serverGroups[r / gpus].push_back(r);
        railGroups[r % gpus].push_back(r);
    }
    const std::vector<CollectiveType> types{CollectiveType::ALL_REDUCE, CollectiveType::ALL_GATHER};
    const std::vector<uint64_t> sizes{64 << 10, 16 << 20};
    auto everyChoice = [&](const std::shared_ptr<CollectiveSelection::ChoiceBook>& book,
                           const std::vector<std::vector<uint32_t>>& groups) {
        std::vector<CollectiveSelection::Candidate> choices;
        for (const auto& ranks : groups)
        {
            const CollectiveSelection selection(cluster.transport, ranks, book);
            for (CollectiveType type : types)
            {
                for (uint64_t bytes : sizes)
                {
                    choices.push_back(selection.Choose(type, cluster.world.SubGroup(ranks), bytes));
                }
            }
        }
        return choices;
    };
    auto expectSame = [](const std::vector<CollectiveSelection::Candidate>& a,
                         const std::vector<CollectiveSelection::Candidate>& b) {
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i)
        {
            EXPECT_EQ(a[i].algorithm, b[i].algorithm) << i;
            EXPECT_EQ(a[i].protocol, b[i].protocol) << i;
            EXPECT_EQ(a[i].estimate, b[i].estimate) << i;
        }
    };
    const std::size_t calls = types.size() * sizes.size();
    for (const auto* groups : {&serverGroups, &railGroups})
    {
        auto book = std::make_shared<CollectiveSelection::ChoiceBook>();
        const auto shared = everyChoice(book, *groups);
        EXPECT_EQ(book->estimated, calls);
        EXPECT_EQ(book->shared, (groups->size() - 1) * calls);
        expectSame(shared, everyChoice(nullptr, *groups));
    }

    // The engine shares them the same way (its plans name the same choices).
    for (const auto& ranks : railGroups)
    {
        engine->GetCollectivePlan(CollectiveType::ALL_REDUCE,
                                  cluster.world.SubGroup(ranks),
                                  16 << 20,
                                  ranks,
                                  0);
    }
    EXPECT_EQ(engine->GetPlanCacheStats().choicesEstimated, 1u);
    EXPECT_EQ(engine->GetPlanCacheStats().choicesShared, railGroups.size() - 1);

    cluster.network.nics[gpus + 1]->GetDevice()->SetAttribute("DataRate",
                                                              DataRateValue(DataRate("200Gbps")));
    auto book = std::make_shared<CollectiveSelection::ChoiceBook>();
    const auto slowRail = everyChoice(book, railGroups);
    EXPECT_EQ(book->estimated, 2 * calls); // rail 0 (and the six like it), rail 1 alone
    EXPECT_EQ(book->shared, (railGroups.size() - 2) * calls);
    const auto fresh = everyChoice(nullptr, railGroups);
    expectSame(slowRail, fresh);
    for (std::size_t i = 0; i < calls; ++i)
    {
        EXPECT_GT(fresh[calls + i].estimate, fresh[i].estimate) << i; // rail 1 is slower
    }
}
