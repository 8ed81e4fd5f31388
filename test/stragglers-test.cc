// SPDX-License-Identifier: GPL-2.0-only
// Stragglers and failures: a slow GPU's cost on the critical path against the closed form,
// compute jitter of mean 1 and bit-identical for a seed, a failing GPU named by the hang
// report, and the scenario section and text forms (good and bad).
#include "test-util.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/ideal-transport.h"
#include "ns3/pointer.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/scenario-overrides.h"
#include "ns3/simulator.h"
#include "ns3/straggler-settings.h"
#include "ns3/string.h"
#include "ns3/training-report.h"
#include "ns3/training-scenario.h"
#include "ns3/training-simulation.h"
#include "ns3/uinteger.h"
#include "ns3/workload-runner.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ns3;
using aifabric::Compute;

namespace
{
constexpr uint64_t MiB = 1 << 20;

/// Per rank: fwd (100 us), a DP all-reduce of 1 MiB, bwd (200 us), a DP all-reduce of
/// 1 MiB: two computes, each waited for by a call of every rank.
TrainingTrace
TwoPhases(uint32_t n)
{
    TrainingTrace t(n);
    TraceGroup dp{"dp0", "dp", {}};
    for (uint32_t r = 0; r < n; ++r)
    {
        dp.ranks.push_back(r);
    }
    t.AddGroup(dp);
    for (uint32_t r = 0; r < n; ++r)
    {
        TraceOp fwd;
        fwd.kind = TraceOpKind::COMPUTE;
        fwd.name = "fwd";
        fwd.duration = MicroSeconds(100);
        t.AddOp(r, fwd);
        TraceOp ar;
        ar.kind = TraceOpKind::COLLECTIVE;
        ar.name = "ar";
        ar.group = "dp0";
        ar.bytes = MiB;
        ar.algorithm = "ring";
        t.AddOp(r, ar);
        TraceOp bwd = fwd;
        bwd.name = "bwd";
        bwd.duration = MicroSeconds(200);
        t.AddOp(r, bwd);
        t.AddOp(r, ar);
    }
    return t;
}

/// Replay on an ideal carrier (100 Gb/s, 5 us per message, no protocol costs); set
/// configures the runner after Setup. Returns the runner, the simulator destroyed.
Ptr<WorkloadRunner>
Replay(const TrainingTrace& t,
       const std::function<void(Ptr<WorkloadRunner>)>& set,
       uint32_t iterations = 1)
{
    Config::SetDefault("ns3::CollectiveEngine::Protocol", StringValue("none"));
    auto ideal = CreateObject<IdealTransport>();
    ideal->SetAttribute("NRanks", UintegerValue(t.GetNRanks()));
    ideal->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
    ideal->SetAttribute("Latency", TimeValue(MicroSeconds(5)));
    auto runner = CreateObject<WorkloadRunner>();
    runner->SetAttribute("Iterations", UintegerValue(iterations));
    runner->SetAttribute("HangTimeout", TimeValue(MilliSeconds(1)));
    runner->Setup(t, CommGroup::Uniform(t.GetNRanks(), 1), ideal);
    set(runner);
    runner->Start();
    Simulator::Run();
    Simulator::Destroy();
    Config::Reset();
    return runner;
}
/// Run a scenario text to its end: its end time, results.json and summary.
void
RunScenario(const std::string& text, Time& end, nlohmann::json& results, std::string& out)
{
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse(text, "scn.json", s, &error)) << error;
    TrainingSimulation sim(s);
    ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    sim.Run(false);
    ASSERT_TRUE(sim.GetRunner()->IsFinished());
    end = sim.GetRunner()->GetEndTime();
    TrainingReport report(sim);
    std::ostringstream summary;
    report.PrintSummary(summary);
    out = summary.str();
    std::ostringstream os;
    report.WriteResults(os);
    results = nlohmann::json::parse(os.str());
    Simulator::Destroy();
}
} // namespace

TEST(Stragglers, ASlowGpuCostsItsComputeOnTheCriticalPath)
{
    const TrainingTrace t = TwoPhases(4);
    auto plain = Replay(t, [](Ptr<WorkloadRunner>) {});
    ASSERT_TRUE(plain->IsFinished());
    for (double f : {1.5, 2.0, 3.25})
    {
        SCOPED_TRACE(f);
        auto slow = Replay(t, [f](Ptr<WorkloadRunner> r) { r->SetComputeScale(2, f); });
        ASSERT_TRUE(slow->IsFinished());
        // The iteration grows by (f - 1) x rank 2's compute (300 us), all of it on the path.
        EXPECT_EQ(slow->GetEndTime() - plain->GetEndTime(), MicroSeconds(300) * (f - 1));
        const auto paths = slow->GetCriticalPaths();
        ASSERT_EQ(paths.size(), 1u);
        EXPECT_EQ(paths[0].compute[2], MicroSeconds(300) * f);
        for (uint32_t r : {0u, 1u, 3u})
        {
            EXPECT_EQ(paths[0].compute[r], Time(0)) << r;
        }
        // The slowdown's share of its compute on the path is what the iteration grew by.
        EXPECT_EQ(paths[0].compute[2] - paths[0].compute[2] / f, MicroSeconds(300) * (f - 1));
        // Compute and calls on the path cover the iteration, nothing twice.
        EXPECT_EQ(paths[0].start, Time(0));
        EXPECT_EQ(paths[0].end, slow->GetEndTime());
        EXPECT_EQ(paths[0].compute[2] + paths[0].communication, paths[0].end - paths[0].start);
    }
    // Without a straggler the path goes through rank 0 (ties: the lowest rank), per
    // iteration when the trace is repeated.
    auto twice = Replay(
        t,
        [](Ptr<WorkloadRunner>) {},
        2);
    const auto paths = twice->GetCriticalPaths();
    ASSERT_EQ(paths.size(), 2u);
    EXPECT_EQ(paths[1].start, paths[0].end);
    for (const auto& p : paths)
    {
        EXPECT_EQ(p.compute[0], MicroSeconds(300));
        EXPECT_EQ(p.compute[0] + p.communication, p.end - p.start);
    }
}

TEST(Stragglers, JitterHasItsMeanAndRepeatsForASeed)
{
    // One rank, 20,000 compute ops of 10 us: the total is 200 ms x the mean factor.
    TrainingTrace t(1);
    for (uint32_t i = 0; i < 20000; ++i)
    {
        TraceOp op;
        op.kind = TraceOpKind::COMPUTE;
        op.name = "k";
        op.duration = MicroSeconds(10);
        t.AddOp(0, op);
    }
    for (const char* jitter : {"normal:0.1", "lognormal:0.1", "lognormal:0.5"})
    {
        SCOPED_TRACE(jitter);
        StragglerSettings st;
        st.jitter = jitter;
        auto run = [&](uint32_t seed) {
            RngSeedManager::SetRun(seed);
            return Replay(t, [&](Ptr<WorkloadRunner> r) { st.Apply(r, 5); })->GetEndTime();
        };
        const Time a = run(1);
        EXPECT_EQ(run(1), a); // bit for bit
        EXPECT_NE(run(2), a);
        // The mean of 20,000 factors of standard deviation s is within 5 s / sqrt(20000)
        // of 1 (lognormal:0.5: s = sqrt(e^0.25 - 1) = 0.533).
        const double s = std::string(jitter) == "lognormal:0.5" ? 0.533 : 0.1;
        EXPECT_NEAR(a.GetSeconds() / 0.2, 1.0, 5 * s / std::sqrt(20000.0));
        // Not exact either: the jitter is drawn.
        EXPECT_NE(a, MilliSeconds(200));
    }
    // Zero-length ops (markers such as a parameter-server rewrite's begin and join) draw
    // nothing: interleaving them leaves every other op's factor, and the end, as it was.
    {
        TrainingTrace marked(1);
        for (uint32_t i = 0; i < 20000; ++i)
        {
            marked.AddOp(0, Compute("k", MicroSeconds(10)));
            marked.AddOp(0, Compute("marker", Time(0)));
        }
        StragglerSettings st;
        st.jitter = "lognormal:0.1";
        RngSeedManager::SetRun(1);
        const Time plain = Replay(t, [&](Ptr<WorkloadRunner> r) { st.Apply(r, 5); })->GetEndTime();
        RngSeedManager::SetRun(1);
        EXPECT_EQ(Replay(marked, [&](Ptr<WorkloadRunner> r) { st.Apply(r, 5); })->GetEndTime(),
                  plain);
    }
    // A measured CDF of the factor: half the ops 0.5 to 1, half 1 to 2, uniformly
    // between the points: mean 0.5 x 0.75 + 0.5 x 1.5 = 1.125, standard deviation 0.439.
    const std::string file = aifabric::TestDir() + "jitter-cdf.txt";
    std::ofstream(file) << "# factor percent\n0.5 0\n1 50\n2 100\n";
    StragglerSettings measured;
    measured.jitter = "cdf:" + file;
    std::string why;
    ASSERT_TRUE(StragglerSettings::ParseJitter(measured.jitter, &why)) << why;
    const Time m = Replay(t, [&](Ptr<WorkloadRunner> r) { measured.Apply(r, 5); })->GetEndTime();
    EXPECT_NEAR(m.GetSeconds() / 0.2, 1.125, 5 * 0.439 / std::sqrt(20000.0));
    std::ofstream(file) << "0.5 0\n0.4 100\n";
    EXPECT_FALSE(StragglerSettings::ParseJitter(measured.jitter, &why));
    EXPECT_EQ(why, file + ": line 2: expected factors that rise and percents that do not fall");
    std::ofstream(file) << "0.5 0\n2000 100\n";
    EXPECT_FALSE(StragglerSettings::ParseJitter(measured.jitter, &why));
    EXPECT_EQ(why, file + ": expected factors up to 1000 (a straggler's bound)");
    EXPECT_FALSE(StragglerSettings::ParseJitter("cdf:/nonexistent/cdf.txt", &why));
    EXPECT_EQ(why, "/nonexistent/cdf.txt: cannot be read");
    RngSeedManager::SetRun(1);
}

TEST(Stragglers, AFailedGpuIsNamedByTheHangReport)
{
    const TrainingTrace t = TwoPhases(4);
    auto failed = Replay(t, [](Ptr<WorkloadRunner> r) { r->FailRank(1, MicroSeconds(50)); });
    EXPECT_FALSE(failed->IsFinished());
    EXPECT_TRUE(failed->IsStuck());
    ASSERT_EQ(failed->GetFailures().size(), 1u);
    EXPECT_EQ(failed->GetFailures()[0], std::make_pair(1u, MicroSeconds(50)));
    const std::string report = failed->GetStuckReport();
    EXPECT_NE(report.find("rank 1: its GPU failed at 0.05 ms"), std::string::npos) << report;
    // The others reached the first all-reduce and wait for rank 1 there.
    EXPECT_NE(report.find("rank 0 op 1 'ar' (collective all-reduce on dp0, stream 0) started "
                          "at 0.1 ms, waiting for 1 more rank(s) to reach it (c:dp0#0), among "
                          "them rank 1 (failed at 0.05 ms)"),
              std::string::npos)
        << report;
    // Its fwd never finished: only the three others' fwd did.
    EXPECT_EQ(failed->GetProgress().first, 3u);

    // A failure after the last op changes nothing.
    auto late = Replay(t, [](Ptr<WorkloadRunner> r) { r->FailRank(1, Seconds(1)); });
    EXPECT_TRUE(late->IsFinished());
    EXPECT_EQ(late->GetEndTime(), Replay(t, [](Ptr<WorkloadRunner>) {})->GetEndTime());
    EXPECT_TRUE(late->GetFailures().empty());
}

TEST(Stragglers, ARestartResumesFromTheLastCompletedIteration)
{
    // Three passes of the two-phase trace; rank 2 fails 50 us into its bwd of the second
    // pass (every rank computing, nothing on the carrier). With a restart 1 ms later the
    // run resumes from iteration 1: it ends later by the lost part of that pass plus the
    // delay, exactly.
    const TrainingTrace t = TwoPhases(4);
    auto plain = Replay(t, [](Ptr<WorkloadRunner>) {}, 3);
    ASSERT_TRUE(plain->IsFinished());
    Time passStart = Seconds(1); // iteration 1's first op
    Time bwd;                    // rank 2's bwd in iteration 1
    for (const OpRecord& r : plain->GetOps())
    {
        if (r.iteration == 1)
        {
            passStart = std::min(passStart, r.start);
            if (r.rank == 2 && r.op == 2)
            {
                bwd = r.start;
            }
        }
    }
    const Time failAt = bwd + MicroSeconds(50);
    const Time delay = MilliSeconds(1);
    auto restarted = Replay(
        t,
        [failAt, delay](Ptr<WorkloadRunner> r) {
            r->SetAttribute("RestartOnFailure", BooleanValue(true));
            r->SetAttribute("RestartDelay", TimeValue(delay));
            r->FailRank(2, failAt);
        },
        3);
    ASSERT_TRUE(restarted->IsFinished());
    EXPECT_FALSE(restarted->IsStuck());
    EXPECT_EQ(restarted->GetEndTime(), plain->GetEndTime() + (failAt - passStart) + delay);
    ASSERT_EQ(restarted->GetRestarts().size(), 1u);
    const auto& r = restarted->GetRestarts()[0];
    EXPECT_EQ(r.rank, 2u);
    EXPECT_EQ(r.failedAt, failAt);
    EXPECT_EQ(r.restartedAt, failAt + delay);
    EXPECT_EQ(r.fromIteration, 1u);
    // Iteration 1 took the lost work and the delay more; the others as before.
    const auto before = WorkloadRunner::GetIterationTimes(plain->GetBreakdown(), 3);
    const auto after = WorkloadRunner::GetIterationTimes(restarted->GetBreakdown(), 3);
    EXPECT_EQ(after[0], before[0]);
    EXPECT_EQ(after[1], before[1] + (failAt - passStart) + delay);
    EXPECT_EQ(after[2], before[2]);

    // A second GPU failing while the ranks wait: the restart counts from it.
    const Time second = failAt + MicroSeconds(300);
    auto twice = Replay(
        t,
        [failAt, second, delay](Ptr<WorkloadRunner> r) {
            r->SetAttribute("RestartOnFailure", BooleanValue(true));
            r->SetAttribute("RestartDelay", TimeValue(delay));
            r->FailRank(2, failAt);
            r->FailRank(0, second);
        },
        3);
    ASSERT_TRUE(twice->IsFinished());
    EXPECT_EQ(twice->GetEndTime(), plain->GetEndTime() + (second - passStart) + delay);
    ASSERT_EQ(twice->GetRestarts().size(), 1u);
    EXPECT_EQ(twice->GetRestarts()[0].rank, 0u);
    EXPECT_EQ(twice->GetRestarts()[0].restartedAt, second + delay);

    // A failure in the middle of an all-reduce: the call's completion is dropped, the run
    // still finishes, later than without the failure.
    Time arStart;
    for (const OpRecord& rec : plain->GetOps())
    {
        if (rec.iteration == 1 && rec.rank == 0 && rec.op == 3)
        {
            arStart = rec.start;
        }
    }
    auto midCall = Replay(
        t,
        [arStart, delay](Ptr<WorkloadRunner> r) {
            r->SetAttribute("RestartOnFailure", BooleanValue(true));
            r->SetAttribute("RestartDelay", TimeValue(delay));
            r->FailRank(1, arStart + MicroSeconds(20));
        },
        3);
    ASSERT_TRUE(midCall->IsFinished());
    EXPECT_GT(midCall->GetEndTime(), plain->GetEndTime() + delay);
    EXPECT_EQ(midCall->GetRestarts()[0].fromIteration, 1u);
}

TEST(Stragglers, ARestartInAScenario)
{
    // Two one-GPU servers, DP 2 over RDMA, two iterations; rank 1 fails half-way through
    // and the job restarts 2 ms later: it finishes, at least 2 ms later than without.
    const std::string base =
        R"({"cluster": {"servers": 2, "gpusPerServer": 1, "spines": 1},
            "run": {"iterations": 2},
            "workload": {"format": "generator", "model": {"layers": 2, "hidden": 1024,
            "heads": 8, "seqLength": 64, "vocab": 100, "tp": 1, "dp": 2, "globalBatch": 2}})";
    const auto run = &RunScenario;
    Time plain;
    nlohmann::json results;
    std::string summary;
    run(base + "}", plain, results, summary);
    const Time failAt = plain / 2;
    Time end;
    run(base + R"(, "stragglers": {"failures": ["1:)" + std::to_string(failAt.GetNanoSeconds()) +
            R"(ns"], "restart": "2ms"}})",
        end,
        results,
        summary);
    EXPECT_GE(end, plain + MilliSeconds(2));
    const auto& st = results["stragglers"];
    EXPECT_EQ(st["restart_delay_s"], 0.002);
    ASSERT_EQ(st["restarts"].size(), 1u);
    EXPECT_EQ(st["restarts"][0]["rank"], 1);
    EXPECT_NEAR(st["restarts"][0]["restarted_s"].get<double>(),
                (failAt + MilliSeconds(2)).GetSeconds(),
                1e-12);
    EXPECT_NE(summary.find("restarted: rank 1 failed at"), std::string::npos) << summary;

    // A restart without failures, and a delay that is not one, are refused.
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse(base + R"(, "stragglers": {"restart": "2ms"}})",
                                        "scn.json",
                                        s,
                                        &error));
    TrainingSimulation sim(s);
    EXPECT_FALSE(sim.ApplyGlobalSettings(&error) && sim.Build(&error));
    EXPECT_EQ(error,
              "scn.json: /stragglers/restart: a restart policy without failures restarts "
              "nothing: give failures (stragglers.failures or --failGpu)");
    Simulator::Destroy();
    EXPECT_FALSE(TrainingScenario::Parse(base + R"(, "stragglers": {"restart": "soon"}})",
                                         "scn.json",
                                         s,
                                         &error));
    EXPECT_EQ(error,
              "scn.json: /stragglers/restart: expected a restart delay such as 5ms or 30s (0 to "
              "a day), got \"soon\"");
}

TEST(Stragglers, TextFormsAndTheScenarioSection)
{
    StragglerSettings::Slow slow;
    std::string why;
    ASSERT_TRUE(StragglerSettings::ParseSlow("3:1.5", slow, &why)) << why;
    EXPECT_EQ(slow.first, 3u);
    EXPECT_EQ(slow.last, 3u);
    EXPECT_DOUBLE_EQ(slow.factor, 1.5);
    ASSERT_TRUE(StragglerSettings::ParseSlow("8-15:0.5", slow, &why)) << why;
    EXPECT_EQ(slow.first, 8u);
    EXPECT_EQ(slow.last, 15u);
    for (const char* bad : {"3", "3:", "3:0", "3:-1", "3:1001", "x:2", "15-8:2", "-3:2", "3-:2"})
    {
        EXPECT_FALSE(StragglerSettings::ParseSlow(bad, slow, &why)) << bad;
        EXPECT_NE(why.find("expected RANKS:FACTOR"), std::string::npos) << why;
    }
    EXPECT_TRUE(StragglerSettings::ParseJitter("normal:1", &why));
    EXPECT_TRUE(StragglerSettings::ParseJitter("lognormal:2", &why));
    for (const char* bad : {"normal", "normal:0", "normal:1.5", "lognormal:3", "gamma:1", ""})
    {
        EXPECT_FALSE(StragglerSettings::ParseJitter(bad, &why)) << bad;
        EXPECT_NE(why.find("expected normal:SIGMA"), std::string::npos) << why;
    }
    StragglerSettings::Failure failure;
    ASSERT_TRUE(StragglerSettings::ParseFailure("2:10ms", failure, &why)) << why;
    EXPECT_EQ(failure.rank, 2u);
    EXPECT_EQ(failure.at, MilliSeconds(10));
    for (const char* bad : {"2", "2:10", "2:-1ms", "x:1ms", ":1ms"})
    {
        EXPECT_FALSE(StragglerSettings::ParseFailure(bad, failure, &why)) << bad;
        EXPECT_NE(why.find("expected RANK:TIME"), std::string::npos) << why;
    }

    TrainingScenario s;
    ASSERT_TRUE(TrainingScenario::Parse(
        R"({"stragglers": {"slow": ["3:1.5", "8-9:2"], "jitter": "lognormal:0.05",
            "failures": ["2:10ms"], "nics": ["5:100Gbps"]}})",
        "scn.json",
        s,
        &why))
        << why;
    ASSERT_EQ(s.stragglers.slow.size(), 2u);
    EXPECT_EQ(s.stragglers.slow[1].place, "scn.json: /stragglers/slow/1");
    EXPECT_EQ(s.stragglers.FactorOf(9), 2.0);
    EXPECT_EQ(s.stragglers.FactorOf(4), 1.0);
    EXPECT_EQ(s.stragglers.jitter, "lognormal:0.05");
    ASSERT_EQ(s.stragglers.failures.size(), 1u);
    ASSERT_EQ(s.stragglers.nics.size(), 1u);
    EXPECT_EQ(s.stragglers.nics[0].rank, 5u);
    EXPECT_EQ(s.stragglers.nics[0].rate, DataRate("100Gbps"));
    EXPECT_TRUE(s.stragglers.Check(16, &why)) << why;
    EXPECT_FALSE(s.stragglers.Check(9, &why));
    EXPECT_EQ(why, "scn.json: /stragglers/slow/1: rank 9 is not one of the workload's 9 ranks");
    for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
             {R"({"stragglers": {"slow": "3:1.5"}})",
              "scn.json: /stragglers/slow: expected a list such as [\"3:1.5\"]"},
             {R"({"stragglers": {"slow": ["3:x"]}})",
              "scn.json: /stragglers/slow/0: expected RANKS:FACTOR"},
             {R"({"stragglers": {"jitter": "normal:2"}})",
              "scn.json: /stragglers/jitter: expected normal:SIGMA"},
             {R"({"stragglers": {"failures": [3]}})",
              "scn.json: /stragglers/failures/0: expected RANK:TIME"},
             {R"({"stragglers": {"nics": ["5:0bps"]}})",
              "scn.json: /stragglers/nics/0: expected RANK:RATE"},
             {R"({"stragglers": {"nics": "5:1Gbps"}})",
              "scn.json: /stragglers/nics: expected a list such as [\"5:100Gbps\"]"},
             {R"({"stragglers": {"slowest": []}})", "scn.json: /stragglers/slowest: unknown"},
         })
    {
        TrainingScenario b;
        EXPECT_FALSE(TrainingScenario::Parse(text, "scn.json", b, &why)) << text;
        EXPECT_EQ(why.rfind(message, 0), 0u) << why;
    }
    StragglerSettings twice;
    twice.slow = {{0, 3, 2.0, "a"}, {3, 3, 1.5, "b"}};
    EXPECT_FALSE(twice.Check(8, &why));
    EXPECT_EQ(why, "b: rank 3 is slowed twice");
    StragglerSettings failTwice;
    failTwice.failures = {{1, MilliSeconds(1), "a"}, {1, MilliSeconds(2), "b"}};
    EXPECT_FALSE(failTwice.Check(8, &why));
    EXPECT_EQ(why, "b: the GPU of rank 1 fails twice");
    StragglerSettings nicTwice;
    nicTwice.nics = {{1, DataRate("1Gbps"), "a"}, {1, DataRate("2Gbps"), "b"}};
    EXPECT_FALSE(nicTwice.Check(8, &why));
    EXPECT_EQ(why, "b: the NIC of rank 1 is slowed twice");
}

TEST(Stragglers, ASlowNicSlowsTheCallsThroughIt)
{
    // Two servers of one H100 each, DP 2 over the RDMA fabric: every DP ring all-reduce
    // goes through rank 0's NIC. At 100 Gb/s instead of 400 its bytes take 4 x as long
    // (without congestion control: PFC holds rank 1 to the slow link's rate; DCQCN would
    // also cut it, the slow link's queue being a congestion point).
    const std::string base =
        R"({"cluster": {"servers": 2, "gpusPerServer": 1, "spines": 1},
            "fabric": {"congestionControl": "none"},
            "collectives": {"algorithm": "ring", "protocol": "Simple"},
            "workload": {"format": "generator", "model": {"layers": 2, "hidden": 1024,
            "heads": 8, "seqLength": 64, "vocab": 100, "tp": 1, "dp": 2, "globalBatch": 2}})";
    auto largest = [](const std::string& text, std::string* error) -> Time {
        TrainingScenario s;
        if (!TrainingScenario::Parse(text, "scn.json", s, error))
        {
            return Time(-1);
        }
        TrainingSimulation sim(s);
        if (!sim.ApplyGlobalSettings(error) || !sim.Build(error))
        {
            Simulator::Destroy();
            return Time(-1);
        }
        sim.Run(false);
        EXPECT_TRUE(sim.GetRunner()->IsFinished());
        // The largest DP call: its time from launch to end.
        Time longest;
        uint64_t most = 0;
        for (const CallRecord& c : sim.GetRunner()->GetCalls())
        {
            if (c.bytes > most)
            {
                most = c.bytes;
                longest = c.end - c.launch;
            }
        }
        Simulator::Destroy();
        return longest;
    };
    std::string error;
    const Time plain = largest(base + "}", &error);
    ASSERT_TRUE(plain.IsStrictlyPositive()) << error;
    const Time slow = largest(base + R"(, "stragglers": {"nics": ["0:100Gbps"]}})", &error);
    ASSERT_TRUE(slow.IsStrictlyPositive()) << error;
    std::printf("largest DP call: %.1f us at 400 Gb/s, %.1f us with rank 0's NIC at 100\n",
                plain.GetMicroSeconds() * 1.0,
                slow.GetMicroSeconds() * 1.0);
    // Its bytes 4 x as long, its latencies as they were: a little under 4 (3.90 here).
    const double ratio = slow.GetSeconds() / plain.GetSeconds();
    EXPECT_GT(ratio, 3.8);
    EXPECT_LE(ratio, 4.0);

    // A rate above the link's, and the ideal topology, are refused with their place.
    EXPECT_LT(largest(base + R"(, "stragglers": {"nics": ["1:800Gbps"]}})", &error), Time(0));
    EXPECT_EQ(error.rfind("scn.json: /stragglers/nics/0: 800000000000 bps is above the link's "
                          "400000000000 bps",
                          0),
              0u)
        << error;
    EXPECT_LT(largest(R"({"cluster": {"topology": "ideal", "servers": 2, "gpusPerServer": 1},
                          "stragglers": {"nics": ["1:100Gbps"]},
                          "workload": {"format": "generator", "model": {"layers": 2,
                          "hidden": 256, "heads": 4, "seqLength": 64, "vocab": 100, "tp": 1,
                          "dp": 2, "globalBatch": 2}}})",
                      &error),
              Time(0));
    EXPECT_EQ(error, "scn.json: /stragglers/nics/0: the ideal topology has no NICs to slow");
}

TEST(Stragglers, TheReportSaysWhatTheStragglerCost)
{
    // Two servers of one H100, DP 2 (the generator's model): rank 1 computes twice as
    // long. Every op waits for the DP call before it, so the iteration's path runs through
    // rank 1's compute: the iteration grows by exactly the cost the report gives.
    const std::string base =
        R"({"cluster": {"servers": 2, "gpusPerServer": 1, "spines": 1},
            "workload": {"format": "generator", "model": {"layers": 2, "hidden": 256,
            "heads": 4, "seqLength": 64, "vocab": 100, "tp": 1, "dp": 2, "globalBatch": 2}})";
    const auto run = &RunScenario;
    Time plain;
    Time slow;
    nlohmann::json plainResults;
    nlohmann::json results;
    std::string plainSummary;
    std::string summary;
    run(base + "}", plain, plainResults, plainSummary);
    run(base + R"(, "stragglers": {"slow": ["1:2"], "failures": ["0:10s"]}})",
        slow,
        results,
        summary);
    EXPECT_FALSE(plainResults.contains("stragglers"));
    EXPECT_EQ(plainSummary.find("stragglers:"), std::string::npos);
    const auto& st = results["stragglers"];
    ASSERT_EQ(st["slow"].size(), 1u);
    EXPECT_EQ(st["slow"][0]["rank"], 1);
    EXPECT_EQ(st["slow"][0]["factor"], 2.0);
    const double cost = st["slow"][0]["cost_s"].get<double>();
    EXPECT_GT(cost, 0);
    EXPECT_NEAR((slow - plain).GetSeconds(), cost, 1e-9);
    // A failure after the last op loses nothing and is not one.
    EXPECT_TRUE(st["failures"].empty());
    ASSERT_EQ(st["critical_paths"].size(), 1u);
    EXPECT_NEAR(st["critical_paths"][0]["end_s"].get<double>(), slow.GetSeconds(), 1e-12);
    EXPECT_NE(summary.find("stragglers: their compute on the critical path"), std::string::npos)
        << summary;
    EXPECT_NE(summary.find("straggler: rank 1 compute x 2.000"), std::string::npos) << summary;
}

TEST(Stragglers, OptionsReplaceTheScenarioSection)
{
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse(
        R"({"stragglers": {"slow": ["3:1.5", "4:2"], "nics": ["1:100Gbps"],
            "failures": ["2:1ms"], "jitter": "normal:0.1"}, "compression": ["tp:0.5"]})",
        "scn.json",
        s,
        &error))
        << error;
    ScenarioOverrides o;
    o.straggler = "7:3";
    o.jitter = "lognormal:0.2";
    o.compress = "dp:0.25,op=.l3.:topk:0.01";
    ASSERT_TRUE(o.Apply(s, &error)) << error;
    ASSERT_EQ(s.stragglers.slow.size(), 1u); // replaced, not added to
    EXPECT_EQ(s.stragglers.slow[0].first, 7u);
    EXPECT_EQ(s.stragglers.slow[0].factor, 3.0);
    EXPECT_EQ(s.stragglers.slow[0].place, "--straggler=7:3");
    EXPECT_EQ(s.stragglers.jitter, "lognormal:0.2");
    EXPECT_EQ(s.stragglers.jitterPlace, "--jitter=lognormal:0.2");
    ASSERT_EQ(s.stragglers.nics.size(), 1u); // options not given keep the file's
    ASSERT_EQ(s.stragglers.failures.size(), 1u);
    ASSERT_EQ(s.compression.size(), 2u);
    EXPECT_EQ(GradientCompression::RuleToString(s.compression[0]), "dp:0.25");
    EXPECT_EQ(s.compression[1].place, "--compress=dp:0.25,op=.l3.:topk:0.01 (item 2)");
}
