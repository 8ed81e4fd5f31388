// SPDX-License-Identifier: GPL-2.0-only
// Idle simulated time costs no events: the fabric monitor sleeps while nothing moves
// (FabricMonitor::IdleSleep) and the progress line is asked when work finishes, not by a
// timer; and a busy fabric's quiet links cost its samples nothing (ActiveLinksOnly). A
// small training run whose compute is stretched 1000-fold (long idle stretches between
// bursts of communication) is run with and without IdleSleep: everything the report says
// is the same, the samples kept are the same samples, the ones dropped were all zero
// inside a run of zeros, and the events saved are the samples dropped.
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
    Time duration;         //!< FabricMonitor::GetDuration
    Time iteration;        //!< simulated end of the workload
    uint64_t events{0};    //!< scheduler events of the run
    uint64_t sleeps{0};    //!< times the monitor slept
    uint64_t linkReads{0}; //!< links the samples read
    double skipped{0};     //!< fraction of the fabric's bytes fast-forwarded
};

/// Run the scenario json (the monitor's attributes set by the caller).
IdleRun
RunScenario(const std::string& json, bool progress)
{
    TrainingScenario scenario;
    std::string error;
    EXPECT_TRUE(TrainingScenario::Parse(json, "idle.json", scenario, &error)) << error;
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
    r.linkReads = sim.GetMonitor()->GetLinkReads();
    r.skipped = sim.GetSkippedFraction();
    Simulator::Destroy();
    return r;
}

/// A small training run whose compute is stretched 1000-fold.
IdleRun
RunStretched(bool idleSleep, bool progress)
{
    Config::SetDefault("ns3::FabricMonitor::IdleSleep", BooleanValue(idleSleep));
    return RunScenario(
        R"({"cluster": {"servers": 2, "gpusPerServer": 2, "spines": 1},
            "workload": {"format": "generator", "computeScale": 1000,
                         "model": {"layers": 2, "hidden": 256, "heads": 4, "seqLength": 64,
                                   "vocab": 100, "tp": 2, "dp": 2, "globalBatch": 2}}})",
        progress);
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
    // Most of the run is idle: most samples go, and with them their events. A sleep costs
    // no event of its own; waking writes at most one sample without an event (the last
    // zero sample it skipped), and so may the end of the run.
    EXPECT_GT(dropped, awake.samples.size() / 2);
    const auto saved = static_cast<int64_t>(awake.events - asleep.events);
    EXPECT_GE(saved, static_cast<int64_t>(dropped));
    EXPECT_LE(saved, static_cast<int64_t>(dropped + asleep.sleeps + 1))
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

// A sample reads only the links that were active since the last one (ActiveLinksOnly),
// and its figures are those of reading every link, bit for bit: on a 2:1 oversubscribed
// fabric (queues build at the leaves) with the fast-forward on (link counters that move
// by skipped streams, not frames) and idle stretches (links asleep, woken by their
// devices). The same events: the devices' notifications schedule nothing.
TEST_F(Idle, ASampleReadsOnlyTheActiveLinksAndSaysTheSame)
{
    const std::string json =
        R"({"cluster": {"servers": 4, "gpusPerServer": 2, "spines": 1,
                        "oversubscription": 2.0},
            "workload": {"format": "generator",
                         "model": {"layers": 4, "hidden": 1024, "heads": 8, "seqLength": 512,
                                   "vocab": 1000, "tp": 2, "pp": 2, "dp": 2, "microBatch": 1,
                                   "globalBatch": 8}},
            "collectives": {"protocol": "none"}})";
    // The wire bound (no protocol step latencies): this small model's steps are short, and
    // with the protocols' gaps between them no stream would be steady long enough for the
    // fast-forward this test needs.
    Config::SetDefault("ns3::FabricMonitor::ActiveLinksOnly", BooleanValue(false));
    const IdleRun all = RunScenario(json, false);
    Config::SetDefault("ns3::FabricMonitor::ActiveLinksOnly", BooleanValue(true));
    const IdleRun active = RunScenario(json, false);
    EXPECT_GT(active.skipped, 0.5) << "the fast-forward skipped little: not exercised";
    EXPECT_GE(active.sleeps, 1u) << "no idle stretch: waking not exercised";
    EXPECT_EQ(active.events, all.events);
    EXPECT_EQ(active.iteration, all.iteration);
    EXPECT_EQ(active.duration, all.duration);
    EXPECT_EQ(active.sleeps, all.sleeps);
    ASSERT_EQ(active.links.size(), all.links.size());
    uint32_t queued = 0;
    for (size_t i = 0; i < all.links.size(); ++i)
    {
        EXPECT_EQ(active.links[i].bytes, all.links[i].bytes) << i;
        EXPECT_EQ(active.links[i].peakUtilisation, all.links[i].peakUtilisation) << i;
        EXPECT_EQ(active.links[i].maxQueueBytes, all.links[i].maxQueueBytes) << i;
        queued = std::max(queued, all.links[i].maxQueueBytes);
    }
    EXPECT_GT(queued, 0u) << "no queue built: the queue reading not exercised";
    ASSERT_EQ(active.samples.size(), all.samples.size());
    for (size_t k = 0; k < all.samples.size(); ++k)
    {
        EXPECT_EQ(active.samples[k].time, all.samples[k].time) << k;
        EXPECT_EQ(active.samples[k].utilisation, all.samples[k].utilisation) << k;
        EXPECT_EQ(active.samples[k].maxQueueBytes, all.samples[k].maxQueueBytes) << k;
    }
    // Reading every link costs links x samples (a sample written on waking reads none);
    // between the pipeline's sends some links are idle (on this small fabric the sends
    // and their ACKs touch most of them; measured 980 -> 732 reads).
    EXPECT_LE(all.linkReads, all.links.size() * all.samples.size());
    EXPECT_GE(all.linkReads, all.links.size() * (all.samples.size() - all.sleeps - 1));
    EXPECT_LT(active.linkReads * 10, all.linkReads * 8);
    std::cout << "[ measured ] link reads " << all.linkReads << " -> " << active.linkReads
              << " over " << all.samples.size() << " samples of " << all.links.size() << " links; "
              << active.skipped * 100 << " % of bytes fast-forwarded, " << active.sleeps
              << " sleeps\n";
}
