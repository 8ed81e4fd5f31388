// SPDX-License-Identifier: GPL-2.0-only
// Idle simulated time costs no events: the fabric monitor sleeps while nothing moves
// (FabricMonitor::IdleSleep) and the progress line is asked when work finishes, not by a
// timer. A small training run whose compute is stretched 1000-fold (long idle stretches
// between bursts of communication) is run with and without IdleSleep: everything the
// report says is the same, the samples kept are the same samples, the ones dropped were
// all zero inside a run of zeros, and the events saved are the samples dropped.
#include "test-util.h"

#include "ns3/fabric-monitor.h"
#include "ns3/training-scenario.h"
#include "ns3/training-simulation.h"

#include <gtest/gtest.h>

using namespace aifabric;

namespace
{
class Idle : public NsTest
{
};

/// What one run gives.
struct IdleRun
{
    std::vector<FabricMonitor::Link> links;
    std::vector<FabricMonitor::Sample> samples;
    Time duration;      //!< FabricMonitor::GetDuration
    Time iteration;     //!< simulated end of the workload
    uint64_t events{0}; //!< scheduler events of the run
    uint64_t sleeps{0}; //!< times the monitor slept
};

IdleRun
RunStretched(bool idleSleep, bool progress)
{
    Config::SetDefault("ns3::FabricMonitor::IdleSleep", BooleanValue(idleSleep));
    TrainingScenario scenario;
    std::string error;
    EXPECT_TRUE(TrainingScenario::Parse(
        R"({"cluster": {"servers": 2, "gpusPerServer": 2, "spines": 1},
            "workload": {"format": "generator", "computeScale": 1000,
                         "model": {"layers": 2, "hidden": 256, "heads": 4, "seqLength": 64,
                                   "vocab": 100, "tp": 2, "dp": 2, "globalBatch": 2}}})",
        "idle.json",
        scenario,
        &error))
        << error;
    TrainingSimulation sim(scenario);
    EXPECT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    sim.Run(progress);
    IdleRun r;
    r.links = sim.GetMonitor()->GetLinks();
    r.samples = sim.GetMonitor()->GetSamples();
    r.duration = sim.GetMonitor()->GetDuration();
    r.iteration = Simulator::Now();
    r.events = sim.GetEvents();
    r.sleeps = sim.GetMonitor()->GetSleeps();
    Simulator::Destroy();
    return r;
}

bool
AllZero(const FabricMonitor::Sample& s)
{
    return s.maxQueueBytes == 0 &&
           std::all_of(s.utilisation.begin(), s.utilisation.end(), [](double u) { return u == 0; });
}
} // namespace

TEST_F(Idle, TheMonitorSleepsWhileNothingMovesAndReportsTheSame)
{
    const IdleRun awake = RunStretched(false, false);
    const IdleRun asleep = RunStretched(true, false);
    EXPECT_EQ(awake.sleeps, 0u);
    ASSERT_GE(asleep.sleeps, 2u) << "the stretched compute leaves the fabric idle";
    EXPECT_EQ(asleep.iteration, awake.iteration);
    EXPECT_EQ(asleep.duration, awake.duration);
    ASSERT_EQ(asleep.links.size(), awake.links.size());
    for (size_t i = 0; i < awake.links.size(); ++i)
    {
        EXPECT_EQ(asleep.links[i].bytes, awake.links[i].bytes) << i;
        EXPECT_EQ(asleep.links[i].peakUtilisation, awake.links[i].peakUtilisation) << i;
        EXPECT_EQ(asleep.links[i].maxQueueBytes, awake.links[i].maxQueueBytes) << i;
    }
    // The samples kept are samples of the awake run, in order; every one dropped is all
    // zero and lies between two kept all-zero samples.
    size_t k = 0;
    size_t dropped = 0;
    for (const auto& s : awake.samples)
    {
        if (k < asleep.samples.size() && asleep.samples[k].time == s.time)
        {
            EXPECT_EQ(asleep.samples[k].utilisation, s.utilisation) << s.time;
            EXPECT_EQ(asleep.samples[k].maxQueueBytes, s.maxQueueBytes) << s.time;
            ++k;
            continue;
        }
        ++dropped;
        EXPECT_TRUE(AllZero(s)) << "a sample with traffic was dropped at " << s.time;
        ASSERT_GT(k, 0u);
        ASSERT_LT(k, asleep.samples.size());
        EXPECT_TRUE(AllZero(asleep.samples[k - 1]) && AllZero(asleep.samples[k]))
            << "a dropped sample outside a run of zeros at " << s.time;
    }
    EXPECT_EQ(k, asleep.samples.size()) << "a kept sample the awake run does not have";
    // Most of the run is idle: most samples go, and with them their events. Each sleep
    // costs at most one event of its own (the unhook) and writes at most one sample
    // without an event.
    EXPECT_GT(dropped, awake.samples.size() / 2);
    const auto saved = static_cast<int64_t>(awake.events - asleep.events);
    EXPECT_LE(std::llabs(saved - static_cast<int64_t>(dropped)),
              static_cast<int64_t>(asleep.sleeps + 2))
        << "events saved " << saved << ", samples dropped " << dropped;
    std::cout << "[ measured ] events " << awake.events << " awake, " << asleep.events
              << " with IdleSleep; samples " << awake.samples.size() << " -> "
              << asleep.samples.size() << ", " << asleep.sleeps << " sleeps\n";
}

// The progress line is asked when an op or a transfer finishes, so turning it on adds no
// event (it used to add one every 100 us of simulated time).
TEST_F(Idle, TheProgressLineAddsNoEvent)
{
    const IdleRun quiet = RunStretched(true, false);
    const IdleRun progress = RunStretched(true, true);
    EXPECT_EQ(progress.events, quiet.events);
    EXPECT_EQ(progress.iteration, quiet.iteration);
}
