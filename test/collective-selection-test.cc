// SPDX-License-Identifier: GPL-2.0-only
// The "auto" algorithm choice follows its documented rules, and what it builds is correct.
#include "ns3/collective-engine.h"
#include "ns3/collective-selection.h"
#include "ns3/ideal-transport.h"
#include "ns3/nvlink-fabric.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/plan-checker.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(CollectiveSelection, ChoosesByCollectiveSizeAndShape)
{
    CollectiveSelection select;
    CommGroup oneServer = CommGroup::Uniform(1, 8);
    CommGroup twoServers = CommGroup::Uniform(2, 8);
    CommGroup hostsOnly = CommGroup::Uniform(6, 1);
    const uint64_t small = 64 << 10;
    const uint64_t large = 64 << 20;
    EXPECT_EQ(select.Choose(CollectiveType::ALL_TO_ALL, twoServers, large), "direct");
    EXPECT_EQ(select.Choose(CollectiveType::ALL_REDUCE, twoServers, large), "hierarchical");
    EXPECT_EQ(select.Choose(CollectiveType::ALL_REDUCE, oneServer, large), "ring");
    EXPECT_EQ(select.Choose(CollectiveType::ALL_REDUCE, oneServer, small), "tree");
    EXPECT_EQ(select.Choose(CollectiveType::ALL_GATHER, oneServer, small), "halving-doubling");
    EXPECT_EQ(select.Choose(CollectiveType::ALL_GATHER, hostsOnly, small), "ring"); // 6 ranks
    EXPECT_EQ(select.Choose(CollectiveType::REDUCE_SCATTER, twoServers, small), "hierarchical");
    EXPECT_EQ(select.Choose(CollectiveType::BROADCAST, hostsOnly, small), "tree");
    EXPECT_EQ(select.Choose(CollectiveType::BROADCAST, hostsOnly, large), "ring");
    select.smallMessageBytes = 0;
    EXPECT_EQ(select.Choose(CollectiveType::ALL_REDUCE, oneServer, small), "ring");
}

TEST(CollectiveSelection, AutoPlansPassTheChecker)
{
    CollectiveSelection select;
    for (auto [servers, gpus] : std::vector<std::pair<uint32_t, uint32_t>>{{1, 8}, {2, 4}, {3, 2}, {5, 1}})
    {
        CommGroup group = CommGroup::Uniform(servers, gpus);
        for (CollectiveType type : {CollectiveType::ALL_REDUCE, CollectiveType::REDUCE_SCATTER,
                                    CollectiveType::ALL_GATHER, CollectiveType::ALL_TO_ALL,
                                    CollectiveType::BROADCAST, CollectiveType::REDUCE})
        {
            for (uint64_t bytes : {uint64_t(4096), uint64_t(8) << 20})
            {
                CommPlan plan = select.MakePlan(type, "auto", group, bytes);
                PlanCheckResult result = PlanChecker::Check(plan);
                EXPECT_TRUE(result.ok) << CollectiveTypeToString(type) << " on " << servers
                                       << "x" << gpus << ", " << bytes << " B ("
                                       << select.Choose(type, group, bytes)
                                       << "): " << result.reason;
            }
        }
    }
}

TEST(CollectiveSelection, UnknownOrUnsupportedAlgorithmAborts)
{
    CollectiveSelection select;
    CommGroup group = CommGroup::Uniform(1, 6);
    EXPECT_DEATH(select.MakePlan(CollectiveType::ALL_REDUCE, "pat", group, 1024),
                 "unknown algorithm 'pat'");
    EXPECT_DEATH(select.MakePlan(CollectiveType::ALL_REDUCE, "halving-doubling", group, 1024),
                 "has no halving-doubling algorithm for 6 ranks");
}

TEST(CollectiveSelection, RailAlignedRingPlansPassTheChecker)
{
    for (auto [servers, gpus] : std::vector<std::pair<uint32_t, uint32_t>>{{2, 8}, {3, 4}, {4, 2}, {1, 5}})
    {
        CommGroup group = CommGroup::Uniform(servers, gpus);
        CommPlan plan = RingAllReduceOrdered(RailAlignedRingOrders(group, gpus), 1000003, 4096);
        PlanCheckResult result = PlanChecker::Check(plan);
        EXPECT_TRUE(result.ok) << servers << "x" << gpus << ": " << result.reason;
    }
    EXPECT_DEATH(RingAllReduceOrdered({{0, 1, 2}, {0, 0, 2}}, 1024),
                 "channel 1 is not a permutation");
}

TEST(CollectiveSelection, EngineChoosesByAttribute)
{
    CommGroup group = CommGroup::Uniform(2, 4);
    std::string chosen;
    for (std::string algorithm : {"auto", "ring"})
    {
        Ptr<IdealTransport> transport = CreateObject<IdealTransport>();
        transport->SetAttribute("NRanks", UintegerValue(8));
        Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
        engine->SetTransport(transport);
        engine->SetAttribute("Algorithm", StringValue(algorithm));
        CollectiveResult result;
        engine->RunCollective(CollectiveType::ALL_REDUCE,
                              group,
                              8 << 20,
                              MakeBoundCallback(
                                  +[](CollectiveResult* out, const CollectiveResult& r) { *out = r; },
                                  &result));
        Simulator::Run();
        EXPECT_EQ(result.algorithm, algorithm == "auto" ? "hierarchical" : "ring");
        EXPECT_EQ(result.nRanks, 8u);
        Simulator::Destroy();
    }
}

TEST(CollectiveSelection, NvlsWhereTheSwitchReduces)
{
    CollectiveSelection select;
    CommGroup oneServer = CommGroup::Uniform(1, 8);
    const uint64_t large = 64 << 20;
    EXPECT_EQ(select.Choose(CollectiveType::ALL_REDUCE, oneServer, large), "ring");
    select.switchReduction = true;
    EXPECT_EQ(select.Choose(CollectiveType::ALL_REDUCE, oneServer, large), "nvls");
    EXPECT_EQ(select.Choose(CollectiveType::REDUCE_SCATTER, oneServer, large), "nvls");
    EXPECT_EQ(select.Choose(CollectiveType::ALL_GATHER, oneServer, large), "nvls");
    EXPECT_EQ(select.Choose(CollectiveType::ALL_REDUCE, oneServer, 4096), "tree");
    EXPECT_EQ(select.Choose(CollectiveType::ALL_TO_ALL, oneServer, large), "direct");
    EXPECT_EQ(select.Choose(CollectiveType::BROADCAST, oneServer, large), "ring");
}

TEST(CollectiveSelection, EnginePicksNvlsOnAnNvSwitch)
{
    Ptr<NvSwitchFabric> fabric = CreateObject<NvSwitchFabric>();
    fabric->ApplyPreset("H100");
    fabric->SetAttribute("NGpus", UintegerValue(8));
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(fabric);
    CollectiveResult result;
    engine->RunCollective(CollectiveType::ALL_REDUCE,
                          CommGroup::Uniform(1, 8),
                          64 << 20,
                          MakeBoundCallback(
                              +[](CollectiveResult* out, const CollectiveResult& r) { *out = r; },
                              &result));
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_EQ(result.algorithm, "nvls");
    EXPECT_GT(result.busBw, 0);
}

namespace
{
void
RunNvlsOnIdealTransport()
{
    Ptr<IdealTransport> transport = CreateObject<IdealTransport>();
    transport->SetAttribute("NRanks", UintegerValue(4));
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(transport);
    engine->Run(NvlsAllReduce(4, 1 << 20));
}
} // namespace

TEST(CollectiveSelection, NvlsPlanOnACarrierWithoutSwitchAborts)
{
    EXPECT_DEATH(RunNvlsOnIdealTransport(),
                 "plan 'nvls' reduces or multicasts in a switch, but ns3::IdealTransport "
                 "cannot do that");
}
