// SPDX-License-Identifier: GPL-2.0-only
// The optional features of a training run, each on its own, on a small cluster (2 servers
// x 2 GPUs, 100G rail-optimized, one spine): what each installs, and the one-line error
// of each bad setting.
#include "test-util.h"

#include "ns3/background-feature.h"
#include "ns3/deadlock-detector-feature.h"
#include "ns3/fast-forward-feature.h"
#include "ns3/ina-feature.h"
#include "ns3/ina-transport.h"
#include "ns3/link-events-feature.h"
#include "ns3/pcap-feature.h"

#include <filesystem>
#include <gtest/gtest.h>

using namespace aifabric;

namespace
{

/// A 2 x 2 GPU cluster and the context features are installed with.
class TrainingFeatures : public NsTest
{
  protected:
    void SetUp() override
    {
        NsTest::SetUp();
        scenario.source = "scn.json";
        scenario.servers = 2;
        scenario.gpusPerServer = 2;
    }

    /// Build the cluster (after the features' Prepare) and return the context.
    TrainingContext Build(const std::vector<Ptr<ns3::TrainingFeature>>& prepare = {})
    {
        GpuClusterHelper helper(roce);
        for (const auto& f : prepare)
        {
            f->Prepare(scenario, helper);
        }
        cluster = helper.Build(2, 2, "", DataRate("100Gbps"), 1, 1.0, MicroSeconds(1));
        return TrainingContext{scenario, roce, cluster, true};
    }

    TrainingScenario scenario;
    RoceHelper roce;
    GpuCluster cluster;
};

} // namespace

TEST_F(TrainingFeatures, PcapCapturesTheNamedNodesOnly)
{
    PcapFeature pcap;
    std::string error;
    scenario.pcapNodes = "nic0";
    EXPECT_FALSE(pcap.Check(scenario, &error));
    EXPECT_EQ(error, "--pcapNodes (/outputs/pcapNodes of scn.json): needs a --pcap prefix");

    scenario.pcapPrefix = TestDir() + "cap";
    scenario.pcapNodes = "nic1,sw0";
    ASSERT_TRUE(pcap.Check(scenario, &error));
    TrainingContext context = Build();
    ASSERT_TRUE(pcap.Install(context, &error)) << error;
    // nic1 and every port of sw0 (the rail-0 leaf: two hosts and one spine cable).
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(TestDir()))
    {
        files.push_back(entry.path().filename().string());
    }
    std::sort(files.begin(), files.end());
    EXPECT_EQ(files,
              (std::vector<std::string>{"cap-nic1.pcap",
                                        "cap-sw0-0.pcap",
                                        "cap-sw0-1.pcap",
                                        "cap-sw0-2.pcap"}));

    scenario.pcapNodes = "nic9";
    EXPECT_FALSE(pcap.Install(context, &error));
    EXPECT_EQ(error,
              "--pcapNodes (/outputs/pcapNodes of scn.json): \"nic9\" is not a node; expected "
              "comma-separated names nic0..nic3, sw0..sw2 (as in links.csv)");
    context.packetFabric = false;
    EXPECT_FALSE(pcap.Install(context, &error));
    EXPECT_EQ(error,
              "--pcap (/outputs/pcap of scn.json): the ideal topology sends no packets to "
              "capture");
}

TEST_F(TrainingFeatures, LinkEventsCutAndMendTheCableAtTheirTimes)
{
    LinkEventsFeature events;
    scenario.events.push_back({MicroSeconds(10), false, "sw0", "sw2", Time(0), "/events/0"});
    scenario.events.push_back({MicroSeconds(30), true, "sw2", "sw0", Time(0), "/events/1"});
    TrainingContext context = Build();
    std::string error;
    ASSERT_TRUE(events.Install(context, &error)) << error;
    Ptr<RoceChannel> cable =
        RoceHelper::FindLink(cluster.network.switches.Get(0), cluster.network.switches.Get(2));
    ASSERT_TRUE(cable);
    std::vector<bool> up;
    for (int us : {5, 20, 40})
    {
        Simulator::Schedule(MicroSeconds(us), [&up, cable]() { up.push_back(cable->IsUp()); });
    }
    Simulator::Run();
    EXPECT_EQ(up, (std::vector<bool>{true, false, true}));

    scenario.events = {{MicroSeconds(10), false, "sw0", "sw9", Time(0), "/events/0"}};
    EXPECT_FALSE(events.Install(context, &error));
    EXPECT_EQ(error,
              "scn.json: /events/0/fail: no node \"sw9\" (nodes are nic0 to nic3 and sw0 to "
              "sw2, as in links.csv)");
    scenario.events = {{MicroSeconds(10), false, "sw0", "sw1", Time(0), "/events/0"}};
    EXPECT_FALSE(events.Install(context, &error));
    EXPECT_EQ(error, "scn.json: /events/0/fail: no cable between sw0 and sw1");
    context.packetFabric = false;
    EXPECT_FALSE(events.Install(context, &error));
    EXPECT_NE(error.find("scn.json: /events: needs a packet fabric"), std::string::npos) << error;
}

TEST_F(TrainingFeatures, BackgroundRunsUntilTheWorkloadEndsThenDrains)
{
    BackgroundFeature background;
    TrainingContext context = Build();
    std::string error;
    // Nothing without "background".
    ASSERT_TRUE(background.Install(context, &error));
    EXPECT_FALSE(background.GetTraffic());
    EXPECT_FALSE(background.IsBusy());

    scenario.backgroundFlowSizes = "websearch";
    scenario.backgroundLoad = 0.5;
    scenario.backgroundPairs = {{0, 2}, {3, 4}};
    EXPECT_FALSE(background.Install(context, &error));
    EXPECT_EQ(error, "scn.json: /background/pairs/1: host 4 does not exist (hosts 0 to 3)");

    scenario.backgroundPairs = {{0, 2}, {1, 3}};
    ASSERT_TRUE(background.Install(context, &error)) << error;
    ASSERT_TRUE(background.GetTraffic());
    // The "workload" ends at 5 ms: arrivals stop, the started flows finish.
    Simulator::Schedule(MilliSeconds(5), [&background]() { background.OnWorkloadFinished(); });
    Simulator::Stop(MilliSeconds(200));
    Simulator::Run();
    const auto& flows = background.GetTraffic()->GetFlows();
    ASSERT_GE(flows.size(), 5u);
    for (const auto& f : flows)
    {
        EXPECT_LE(f.start, MilliSeconds(5)) << "a flow started after the workload finished";
        EXPECT_GT(f.finish, f.start) << "a started flow did not end";
        EXPECT_TRUE((f.src == 0 && f.dst == 2) || (f.src == 1 && f.dst == 3));
    }
    EXPECT_FALSE(background.IsBusy());

    context.packetFabric = false;
    EXPECT_FALSE(background.Install(context, &error));
    EXPECT_NE(error.find("scn.json: /background: needs a packet fabric"), std::string::npos)
        << error;
}

TEST_F(TrainingFeatures, DeadlockDetectorWatchesEverySwitch)
{
    DeadlockDetectorFeature detector;
    TrainingContext context = Build();
    context.packetFabric = false;
    std::string error;
    ASSERT_TRUE(detector.Install(context, &error));
    EXPECT_TRUE(detector.GetDeadlocks().empty());
    context.packetFabric = true;
    ASSERT_TRUE(detector.Install(context, &error));
    EXPECT_TRUE(detector.GetDeadlocks().empty()); // nothing pauses on an idle fabric
}

TEST_F(TrainingFeatures, InaBuildsAggregatingSwitches)
{
    std::string error;
    Ptr<InaFeature> ina = Create<InaFeature>();
    scenario.ina = "stremaing";
    EXPECT_FALSE(ina->Check(scenario, &error));
    EXPECT_NE(error.find("scn.json: /fabric/ina: expected \"off\" or "), std::string::npos)
        << error;
    EXPECT_NE(error.find(", got \"stremaing\""), std::string::npos) << error;
    scenario.ina = "streaming";
    scenario.topology = "ideal";
    EXPECT_FALSE(ina->Check(scenario, &error));
    EXPECT_EQ(error, "scn.json: /fabric/ina: the ideal topology has no switches to aggregate in");
    scenario.topology = "rail-optimized";
    ASSERT_TRUE(ina->Check(scenario, &error)) << error;
    Build({ina});
    EXPECT_TRUE(DynamicCast<InaTransport>(cluster.scaleOut)) << "switches do not aggregate";
}

TEST_F(TrainingFeatures, InaOffBuildsAPlainRdmaCarrier)
{
    std::string error;
    Ptr<InaFeature> off = Create<InaFeature>();
    scenario.ina = "off";
    ASSERT_TRUE(off->Check(scenario, &error));
    Build({off});
    EXPECT_FALSE(DynamicCast<InaTransport>(cluster.scaleOut));
}

// The fast-forward is installed on a packet fabric unless asked off, and stays off, saying
// why, with in-network aggregation or a pcap capture (their packets must all exist).
TEST_F(TrainingFeatures, FastForwardIsOnUnlessAskedOffOrSomethingNeedsEveryPacket)
{
    std::string error;
    const TrainingContext context = Build();
    auto statusWith =
        [&](const std::string& mode, const std::string& ina, const std::string& pcap) {
            scenario.fastForward = mode;
            scenario.ina = ina;
            scenario.pcapPrefix = pcap;
            Ptr<FastForwardFeature> ff = Create<FastForwardFeature>();
            EXPECT_TRUE(ff->Install(context, &error)) << error;
            EXPECT_EQ(static_cast<bool>(ff->GetFastForward()), ff->GetStatus() == "on");
            // NVSwitch calls are replayed with any fast-forward, whatever the RDMA one can do.
            EXPECT_EQ(ff->ReplaysCalls(), mode != "off") << mode << " " << ina << " " << pcap;
            return ff->GetStatus();
        };
    EXPECT_EQ(statusWith("on", "off", ""), "on");
    EXPECT_EQ(statusWith("check", "off", ""), "on");
    EXPECT_EQ(statusWith("off", "off", ""), "off");
    EXPECT_EQ(statusWith("on", "streaming", ""),
              "off: in-network aggregation frames are not fast-forwarded");
    EXPECT_EQ(statusWith("on", "off", "capture"), "off: a pcap capture holds every packet");
    Ptr<FastForwardFeature> ideal = Create<FastForwardFeature>();
    scenario.fastForward = "on";
    scenario.ina = "off";
    scenario.pcapPrefix = "";
    EXPECT_TRUE(ideal->Install(TrainingContext{scenario, roce, cluster, false}, &error));
    EXPECT_EQ(ideal->GetStatus(), "off");
    // /run/replayCalls false: the fast-forward without call replay.
    scenario.replayCalls = false;
    Ptr<FastForwardFeature> noReplay = Create<FastForwardFeature>();
    EXPECT_TRUE(noReplay->Install(context, &error)) << error;
    EXPECT_EQ(noReplay->GetStatus(), "on");
    EXPECT_FALSE(noReplay->ReplaysCalls());
}
