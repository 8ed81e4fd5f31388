// SPDX-License-Identifier: GPL-2.0-only
// Same seed, same result, bit for bit; another seed moves only what is random (ECMP).
#include "test-util.h"

#include "ns3/program-options.h"

#include <cstdlib>

using namespace aifabric;

namespace
{
struct Outcome
{
    uint64_t events{0};
    std::vector<int64_t> completions; // ps
    std::vector<uint64_t> delivered;  // bytes per flow
    std::vector<uint64_t> spineBytes;
    std::vector<uint64_t> salts;
    std::vector<uint32_t> systemIds; // hosts, then switches
};

Outcome
RunOnce(uint32_t seed, const std::string& scheduler = "ns3::MapScheduler", uint32_t partitions = 1)
{
    Config::Reset();
    GlobalValue::Bind("SchedulerType", StringValue(scheduler));
    RngSeedManager::SetSeed(seed);
    const uint32_t hostsPerLeaf = 8;
    const uint32_t spines = 4;
    RoceHelper roce;
    roce.SetCongestionControl("ns3::RoceDcqcn");
    RoceTopologyHelper topoHelper(roce);
    topoHelper.SetPartitions(partitions);
    RoceTopology topo =
        topoHelper.LeafSpine(2, spines, hostsPerLeaf, DataRate("100Gbps"), 2.0, MicroSeconds(1));
    // ns-3 numbers automatic random streams process-wide; fixed streams make two runs in
    // one process (and across processes) identical.
    roce.AssignStreams(100);
    std::vector<FlowProbe> flows(2 * hostsPerLeaf);
    for (uint32_t i = 0; i < 2 * hostsPerLeaf; ++i)
    {
        flows[i].Attach(
            RoceHelper::Connect(topo.nics[i], topo.nics[(i + hostsPerLeaf) % (2 * hostsPerLeaf)]));
        Simulator::Schedule(NanoSeconds(100 * i),
                            &RdmaQueuePair::PostWrite,
                            flows[i].sender,
                            512 << 10);
    }
    Simulator::Run();
    Outcome o;
    o.events = Simulator::GetEventCount();
    for (const auto& f : flows)
    {
        o.completions.push_back(f.LastReceive().GetTimeStep());
        o.delivered.push_back(f.BytesReceived());
    }
    for (uint32_t s = 0; s < spines; ++s)
    {
        o.spineBytes.push_back(topo.switchObjects[0]->GetPort(hostsPerLeaf + s)->GetTxBytes());
    }
    for (const auto& sw : topo.switchObjects)
    {
        o.salts.push_back(sw->GetEcmpSalt());
    }
    for (const NodeContainer* nodes : {&topo.hosts, &topo.switches})
    {
        for (uint32_t n = 0; n < nodes->GetN(); ++n)
        {
            o.systemIds.push_back(nodes->Get(n)->GetSystemId());
        }
    }
    Simulator::Destroy();
    return o;
}

class Determinism : public NsTest
{
};
} // namespace

TEST_F(Determinism, SameSeedSameEventsAndCompletions)
{
    Outcome a = RunOnce(1);
    Outcome b = RunOnce(1);
    // Every flow delivered its whole message (16 x 512 KiB), so the runs compared are
    // complete runs, not two empty ones.
    EXPECT_EQ(a.delivered, std::vector<uint64_t>(16, 512u << 10));
    EXPECT_EQ(a.delivered, b.delivered);
    for (int64_t t : a.completions)
    {
        EXPECT_GT(t, 0);
    }
    EXPECT_GT(a.events, 16u * (512u << 10) / 4096u); // at least one event per packet
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.completions, b.completions);
    EXPECT_EQ(a.spineBytes, b.spineBytes);
    EXPECT_EQ(a.salts, b.salts);
}

TEST_F(Determinism, OtherSeedChangesTheEcmpSpread)
{
    Outcome a = RunOnce(1);
    Outcome b = RunOnce(2);
    EXPECT_NE(a.salts, b.salts);
    EXPECT_NE(a.spineBytes, b.spineBytes);
}

// SetPartitions only names each node's rank of ns-3's distributed engine (leaf l and its
// hosts on floor(l x n / leaves), spine s on s mod n); without the engine (no MPI) the
// cables stay RoceChannels and the run is the unpartitioned one, event for event.
TEST_F(Determinism, PartitionsNameRanksAndChangeNothingWithoutMpi)
{
    const Outcome one = RunOnce(1);
    const Outcome two = RunOnce(1, "ns3::MapScheduler", 2);
    EXPECT_EQ(one.systemIds, std::vector<uint32_t>(16 + 2 + 4, 0));
    // 16 hosts (8 per leaf), leaves 0 and 1, spines 0-3.
    std::vector<uint32_t> expected(8, 0);
    expected.insert(expected.end(), 8, 1);
    expected.insert(expected.end(), {0, 1, 0, 1, 0, 1});
    EXPECT_EQ(two.systemIds, expected);
    EXPECT_EQ(two.events, one.events);
    EXPECT_EQ(two.completions, one.completions);
    EXPECT_EQ(two.spineBytes, one.spineBytes);
}

// A rail-optimized cluster spreads by pod: a pod's servers and rail leaves on one rank
// (a server's NICs go to different leaves, so leaves alone would split servers). 2 pods
// of 2 servers x 2 rails on 2 ranks; without MPI the run is the unpartitioned one.
struct RailOutcome
{
    std::vector<uint32_t> systemIds; // hosts, then switches
    std::vector<int64_t> completions;
};

RailOutcome
RunRail(uint32_t partitions)
{
    Config::Reset();
    RoceHelper roce;
    roce.SetCongestionControl("ns3::RoceDcqcn");
    RoceTopologyHelper topoHelper(roce);
    topoHelper.SetPartitions(partitions);
    RoceTopology topo =
        topoHelper.RailOptimized(4, 2, 2, DataRate("100Gbps"), 1.0, MicroSeconds(1), 2);
    roce.AssignStreams(7);
    std::vector<FlowProbe> flows(8);
    for (uint32_t h = 0; h < 8; ++h)
    {
        flows[h].Attach(RoceHelper::Connect(topo.nics[h], topo.nics[(h + 4) % 8]));
        Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, flows[h].sender, 256 << 10);
    }
    Simulator::Run();
    RailOutcome o;
    for (const NodeContainer* nodes : {&topo.hosts, &topo.switches})
    {
        for (uint32_t n = 0; n < nodes->GetN(); ++n)
        {
            o.systemIds.push_back(nodes->Get(n)->GetSystemId());
        }
    }
    for (const FlowProbe& f : flows)
    {
        EXPECT_EQ(f.BytesReceived(), 256u << 10);
        o.completions.push_back(f.LastReceive().GetTimeStep());
    }
    Simulator::Destroy();
    return o;
}

TEST_F(Determinism, RailOptimizedPartitionsKeepPodsTogether)
{
    const RailOutcome one = RunRail(1);
    const RailOutcome two = RunRail(2);
    // Hosts 0-3 (servers 0, 1: pod 0), 4-7 (pod 1); leaves: pod 0's rails 0, 1, pod 1's
    // rails 2, 3; spines 0, 1.
    EXPECT_EQ(two.systemIds, (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1}));
    EXPECT_EQ(one.systemIds, std::vector<uint32_t>(14, 0));
    EXPECT_EQ(two.completions, one.completions);
}

// Two hosts on ports 0 and 1 of a switch each write one frame to the host on port 2 at
// the same instant: the frames reach the switch together. ns-3 runs them in the order
// they were scheduled, so which is forwarded first follows the order of the PostWrite
// calls; with ns3::RoceChannel::OrderSimultaneousArrivals the switch takes them in port
// order whatever that order (what a distributed run needs: there a frame from another
// rank is scheduled later than in a sequential run). Returns the two flows' completions.
std::pair<int64_t, int64_t>
TwoSimultaneousFrames(bool ordered, bool portOneFirst)
{
    Config::Reset();
    Config::SetDefault("ns3::RoceChannel::OrderSimultaneousArrivals", BooleanValue(ordered));
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(3, DataRate("100Gbps"), MicroSeconds(1));
    roce.AssignStreams(1);
    FlowProbe a;
    FlowProbe b;
    a.Attach(RoceHelper::Connect(topo.nics[0], topo.nics[2]));
    b.Attach(RoceHelper::Connect(topo.nics[1], topo.nics[2]));
    for (FlowProbe* f : portOneFirst ? std::vector<FlowProbe*>{&b, &a}
                                     : std::vector<FlowProbe*>{&a, &b})
    {
        Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, f->sender, 4096);
    }
    Simulator::Run();
    const Ptr<RoceArrivalOrder> order = topo.switches.Get(0)->GetObject<RoceArrivalOrder>();
    EXPECT_EQ(order != nullptr, ordered);
    if (order)
    {
        EXPECT_GT(order->GetSimultaneousDeliveries(), 0u) << "the two frames met";
    }
    const std::pair<int64_t, int64_t> done{a.LastReceive().GetTimeStep(),
                                           b.LastReceive().GetTimeStep()};
    Simulator::Destroy();
    return done;
}

TEST_F(Determinism, SimultaneousFramesEnterInPortOrderWhenAsked)
{
    // Unordered: the frame scheduled first is forwarded first, one frame time ahead of the
    // other (a WRITE ONLY of 4096 B with RETH: 4,194 wire bytes at 100 Gb/s, 335.52 ns,
    // 336 ns on the simulator's nanosecond steps).
    const auto aFirst = TwoSimultaneousFrames(false, false);
    const auto bFirst = TwoSimultaneousFrames(false, true);
    EXPECT_LT(aFirst.first, aFirst.second);
    EXPECT_LT(bFirst.second, bFirst.first);
    EXPECT_EQ(aFirst.second - aFirst.first, NanoSeconds(336).GetTimeStep());
    // Ordered: port 0's frame first, however the writes were scheduled.
    const auto orderedA = TwoSimultaneousFrames(true, false);
    const auto orderedB = TwoSimultaneousFrames(true, true);
    EXPECT_EQ(orderedA, orderedB);
    EXPECT_EQ(orderedA, aFirst);
}

// The programs run on ProgramOptions::DEFAULT_SCHEDULER, not ns-3's default map: the
// stock schedulers run events in time order and ties in the order scheduled, so the run
// is the same, event for event, on each of them. Not the heap: ns-3.37's HeapScheduler
// hands the simulator an event earlier than the current time (the simulator's own assert
// stops a debug ns-3 build on it, roce-incast at 32 us), so no program should use it.
TEST_F(Determinism, EveryStockSchedulerGivesTheSameRun)
{
    const Outcome map = RunOnce(1);
    for (const std::string scheduler :
         {"ns3::CalendarScheduler", "ns3::ListScheduler", "ns3::PriorityQueueScheduler"})
    {
        const Outcome o = RunOnce(1, scheduler);
        EXPECT_EQ(o.events, map.events) << scheduler;
        EXPECT_EQ(o.completions, map.completions) << scheduler;
        EXPECT_EQ(o.delivered, map.delivered) << scheduler;
        EXPECT_EQ(o.spineBytes, map.spineBytes) << scheduler;
    }
}

// Every program gets the default scheduler from ProgramOptions, and keeps the one the
// environment names.
TEST_F(Determinism, ProgramsRunOnTheDefaultSchedulerUnlessTold)
{
    ::unsetenv("NS_GLOBAL_VALUE");
    ProgramOptions first("prog");
    EXPECT_STREQ(ProgramOptions::DEFAULT_SCHEDULER, "ns3::PriorityQueueScheduler");
    EXPECT_EQ(ProgramOptions::GetSchedulerType(), ProgramOptions::DEFAULT_SCHEDULER);
    const char* argv[] = {"prog", "--SchedulerType=ns3::CalendarScheduler"};
    EXPECT_TRUE(first.Parse(2, const_cast<char**>(argv)));
    EXPECT_EQ(ProgramOptions::GetSchedulerType(), "ns3::CalendarScheduler");
    Config::Reset();
    ::setenv("NS_GLOBAL_VALUE", "SchedulerType=ns3::ListScheduler", 1);
    ProgramOptions second("prog");
    ::unsetenv("NS_GLOBAL_VALUE");
    EXPECT_EQ(ProgramOptions::GetSchedulerType(), "ns3::MapScheduler"); // not rebound
}
