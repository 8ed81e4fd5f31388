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
};

Outcome
RunOnce(uint32_t seed, const std::string& scheduler = "ns3::MapScheduler")
{
    Config::Reset();
    GlobalValue::Bind("SchedulerType", StringValue(scheduler));
    RngSeedManager::SetSeed(seed);
    const uint32_t hostsPerLeaf = 8;
    const uint32_t spines = 4;
    RoceHelper roce;
    roce.SetCongestionControl("ns3::RoceDcqcn");
    RoceTopologyHelper topoHelper(roce);
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
