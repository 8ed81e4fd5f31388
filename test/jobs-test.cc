// SPDX-License-Identifier: GPL-2.0-only
// Several jobs on one cluster: placement policies and their refusals, the scenario's
// "jobs" list and --job, two jobs on disjoint halves of a non-blocking fabric exactly as
// fast as alone, two jobs across a 2:1 spine slower with the shared links named, traffic
// classes, start times and iteration counts.
#include "test-dir.h"
#include "test-util.h"

#include "ns3/fabric-monitor.h"
#include "ns3/job-interleave.h"
#include "ns3/job-link-share.h"
#include "ns3/job-settings.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-switch.h"
#include "ns3/scenario-overrides.h"
#include "ns3/shared-buffer-mmu.h"
#include "ns3/simulator.h"
#include "ns3/training-report.h"
#include "ns3/training-scenario.h"
#include "ns3/training-simulation.h"
#include "ns3/uinteger.h"
#include "ns3/workload-runner.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{
/// A job of TP 2 x DP 2 (the generator's model): 4 ranks, 2 per server.
std::string
Job(const std::string& name, const std::string& extra)
{
    return R"({"name": ")" + name + R"(", "workload": {"format": "generator", "model": {
               "layers": 2, "hidden": 1024, "heads": 8, "seqLength": 256, "vocab": 1000,
               "tp": 2, "dp": 2, "globalBatch": 4}})" +
           (extra.empty() ? "" : ", " + extra) + "}";
}

/// 4 servers x 2 H100 in pods of podServers (spines 2), the jobs given.
std::string
Cluster(uint32_t pods, double oversubscription, const std::string& jobs)
{
    return R"({"cluster": {"servers": 4, "gpusPerServer": 2, "spines": 2, "pods": )" +
           std::to_string(pods) + R"(, "oversubscription": )" + std::to_string(oversubscription) +
           R"(}, "jobs": [)" + jobs + "]}";
}

/// What a run of jobs gives: per job its op records and iteration times, the results.
struct Outcome
{
    std::vector<std::vector<OpRecord>> ops;
    std::vector<std::vector<Time>> times;
    std::vector<std::vector<Time>> alone;
    std::vector<BusyIntervals> network; //!< per job, its network phases alone
    nlohmann::json results;
    nlohmann::json timeline;
    std::string summary;
    std::vector<uint8_t> priorities;   //!< per job, its first NIC's DataPriority
    uint32_t losslessMask{0};          //!< the first switch's
    std::set<uint8_t> pausePriorities; //!< priorities of the PFC frames switches sent
};

Outcome
RunJobs(const std::string& text, bool alone)
{
    Outcome out;
    TrainingScenario s;
    std::string error;
    EXPECT_TRUE(TrainingScenario::Parse(text, "jobs.json", s, &error)) << error;
    if (alone)
    {
        std::vector<TrainingSimulation::AloneRun> runs;
        EXPECT_TRUE(TrainingSimulation::RunJobsAlone(s, false, runs, &error)) << error;
        for (const auto& run : runs)
        {
            out.alone.push_back(run.iterations);
            out.network.push_back(run.network);
        }
    }
    TrainingSimulation sim(s);
    EXPECT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    sim.Run(false);
    for (const TrainingSimulation::Job& job : sim.GetJobs())
    {
        EXPECT_TRUE(job.runner->IsFinished()) << job.spec.name;
        out.ops.push_back(job.runner->GetOps());
        out.times.push_back(WorkloadRunner::GetIterationTimes(job.runner->GetBreakdown(),
                                                              job.runner->GetNIterations()));
        UintegerValue priority;
        sim.GetCluster().network.nics[job.gpus.front()]->GetAttribute("DataPriority", priority);
        out.priorities.push_back(static_cast<uint8_t>(priority.Get()));
    }
    UintegerValue mask;
    sim.GetCluster().network.switchObjects.front()->GetMmu()->GetAttribute("LosslessPriorities",
                                                                          mask);
    out.losslessMask = static_cast<uint32_t>(mask.Get());
    for (const auto& e : sim.GetMonitor()->GetPfcEvents())
    {
        out.pausePriorities.insert(e.priority);
    }
    TrainingReport report(sim);
    report.SetAlone(out.alone);
    std::ostringstream summary;
    report.PrintSummary(summary);
    out.summary = summary.str();
    std::ostringstream results;
    report.WriteResults(results);
    out.results = nlohmann::json::parse(results.str());
    std::ostringstream timeline;
    report.WriteTimeline(timeline);
    out.timeline = nlohmann::json::parse(timeline.str());
    Simulator::Destroy();
    return out;
}

/// \return true if every op of a ran at the times of the same op of b
bool
SameOps(const std::vector<OpRecord>& a, const std::vector<OpRecord>& b)
{
    if (a.size() != b.size())
    {
        return false;
    }
    for (size_t k = 0; k < a.size(); ++k)
    {
        if (a[k].rank != b[k].rank || a[k].op != b[k].op || a[k].start != b[k].start ||
            a[k].end != b[k].end)
        {
            return false;
        }
    }
    return true;
}
} // namespace

TEST(Jobs, PlacementPolicies)
{
    // 4 servers x 4 GPUs in 2 pods (servers 0-1, 2-3).
    auto place = [](std::vector<JobSpec> jobs, std::string* error) {
        std::vector<std::vector<uint32_t>> gpus;
        for (size_t j = 0; j < jobs.size(); ++j)
        {
            jobs[j].name = "j" + std::to_string(j);
            jobs[j].place = "/jobs/" + std::to_string(j);
        }
        return PlaceJobs(jobs, 4, 4, 2, 1, gpus, error) ? gpus
                                                        : std::vector<std::vector<uint32_t>>{};
    };
    auto job = [](uint32_t gpus, const std::string& placement) {
        JobSpec j;
        j.gpus = gpus;
        std::string why;
        EXPECT_TRUE(JobSpec::ParsePlacement(placement, j, &why)) << why;
        return j;
    };
    std::string error;
    // Packed: the lowest free GPUs, in list order.
    auto p = place({job(6, "packed"), job(4, "packed")}, &error);
    ASSERT_EQ(p.size(), 2u) << error;
    EXPECT_EQ(p[0], (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(p[1], (std::vector<uint32_t>{6, 7, 8, 9}));
    // Server lists first, whatever their place in the list; packed around them.
    p = place({job(4, "packed"), job(8, "1,3")}, &error);
    ASSERT_EQ(p.size(), 2u) << error;
    EXPECT_EQ(p[0], (std::vector<uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(p[1], (std::vector<uint32_t>{4, 5, 6, 7, 12, 13, 14, 15}));
    // Spread: the same share on every server, pods in turn (0, 2, 1, 3).
    p = place({job(8, "spread")}, &error);
    ASSERT_EQ(p.size(), 1u) << error;
    EXPECT_EQ(p[0], (std::vector<uint32_t>{0, 1, 8, 9, 4, 5, 12, 13}));
    // Random: whole servers in a random order drawn with the seed, the same every time.
    p = place({job(8, "random")}, &error);
    ASSERT_EQ(p.size(), 1u) << error;
    const auto again = place({job(8, "random")}, &error);
    EXPECT_EQ(p, again);
    // Another seed, another order (some of seeds 1-5 differ).
    std::set<std::vector<uint32_t>> orders;
    for (uint32_t seed = 1; seed <= 5; ++seed)
    {
        std::vector<std::vector<uint32_t>> gpus;
        JobSpec r = job(8, "random");
        r.name = "r";
        ASSERT_TRUE(PlaceJobs({r}, 4, 4, 2, seed, gpus, &error)) << error;
        orders.insert(gpus[0]);
    }
    EXPECT_GT(orders.size(), 1u);
    std::set<uint32_t> servers;
    for (uint32_t g : p[0])
    {
        servers.insert(g / 4);
    }
    EXPECT_EQ(servers.size(), 2u);

    // Refusals, one line each with the job's place.
    EXPECT_TRUE(place({job(8, "0-1"), job(4, "1")}, &error).empty());
    EXPECT_EQ(error, "/jobs/1: placement 1 overlaps job j0 (server 1)");
    EXPECT_TRUE(place({job(12, "packed"), job(8, "packed")}, &error).empty());
    EXPECT_EQ(error,
              "/jobs/1: the jobs up to this one need 20 GPUs but the cluster has 16 (4 servers "
              "x 4)");
    EXPECT_TRUE(place({job(8, "1-3"), job(6, "packed"), job(2, "2")}, &error).empty());
    EXPECT_EQ(error, "/jobs/2: placement 2 overlaps job j0 (server 2)");
    EXPECT_TRUE(place({job(4, "4")}, &error).empty());
    EXPECT_EQ(error, "/jobs/0: placement 4: server 4 is not in the cluster of 4 servers");
    EXPECT_TRUE(place({job(8, "0")}, &error).empty());
    EXPECT_EQ(error, "/jobs/0: placement 0 has 4 GPUs, the job needs 8");

    // The text forms.
    JobSpec j;
    std::string why;
    for (const char* bad : {"", "packed,", "1-", "3-1", "1,1", "x", "0-1,", "-2"})
    {
        EXPECT_FALSE(JobSpec::ParsePlacement(bad, j, &why)) << bad;
        EXPECT_EQ(why,
                  std::string("expected packed, spread, random, or servers such as 0-1,4 (each "
                              "server once), got \"") +
                      bad + "\"");
    }
    ASSERT_TRUE(JobSpec::ParsePlacement("0-2,5,7-8", j, &why));
    EXPECT_EQ(j.servers, (std::vector<uint32_t>{0, 1, 2, 5, 7, 8}));
    EXPECT_EQ(j.PlacementToString(), "0-2,5,7-8");
}

TEST(Jobs, DisjointHalvesOfANonBlockingFabricRunAsAlone)
{
    // Job a on servers 0-1, job b on 2-3 (packed), one pod, 1:1: nothing of the fabric
    // carries both. Each runs exactly as alone, op for op, and the same as the other.
    const Outcome o = RunJobs(Cluster(1, 1, Job("a", "") + ", " + Job("b", "")), true);
    ASSERT_EQ(o.ops.size(), 2u);
    ASSERT_EQ(o.alone.size(), 2u);
    EXPECT_EQ(o.times[0], o.alone[0]);
    EXPECT_EQ(o.times[1], o.alone[1]);
    EXPECT_EQ(o.times[0], o.times[1]);
    EXPECT_TRUE(SameOps(o.ops[0], o.ops[1]));
    // The same alone, op for op: a scenario of job a only, one of job b only on its GPUs.
    const Outcome a = RunJobs(Cluster(1, 1, Job("a", "")), false);
    EXPECT_TRUE(SameOps(o.ops[0], a.ops[0]));
    const Outcome b = RunJobs(Cluster(1, 1, Job("b", R"("placement": "2-3")")), false);
    EXPECT_TRUE(SameOps(o.ops[1], b.ops[0]));
    const auto& jobs = o.results["jobs"];
    ASSERT_EQ(jobs.size(), 2u);
    EXPECT_EQ(jobs[0]["slowdown"], 1.0);
    EXPECT_EQ(jobs[1]["slowdown"], 1.0);
    EXPECT_EQ(jobs[0]["gpus"], (std::vector<uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(jobs[1]["gpus"], (std::vector<uint32_t>{4, 5, 6, 7}));
    for (const auto& link : o.results["job_links"])
    {
        EXPECT_FALSE(link["shared"].get<bool>()) << link.dump();
    }
    EXPECT_NE(o.summary.find("0 of them by several jobs"), std::string::npos) << o.summary;
    // One Perfetto timeline, a process (track group) per job, a thread per rank and stream.
    std::map<int, std::string> processes;
    std::map<int, size_t> ops;
    for (const auto& e : o.timeline["traceEvents"])
    {
        if (e["ph"] == "M" && e["name"] == "process_name")
        {
            processes[e["pid"].get<int>()] = e["args"]["name"];
        }
        if (e["ph"] == "X")
        {
            ++ops[e["pid"].get<int>()];
        }
    }
    EXPECT_EQ(processes, (std::map<int, std::string>{{0, "job a"}, {1, "job b"}}));
    EXPECT_EQ(ops[0], o.ops[0].size());
    EXPECT_EQ(ops[1], o.ops[1].size());
}

TEST(Jobs, JobsAcrossAnOversubscribedSpineSlowEachOther)
{
    // Two pods of two servers, 2:1 leaf uplinks: job a on servers 0 and 2, job b on 1 and
    // 3 (b in traffic class 5). Every DP call of each crosses the spines, where the two
    // jobs' bytes meet: both are slower than alone, and the shared links are leaf uplinks
    // and spine downlinks (no NIC link carries two jobs).
    const Outcome o = RunJobs(
        Cluster(2, 2, Job("a", R"("placement": "0,2")") + ", " +
                          Job("b", R"("placement": [1, 3], "trafficClass": 5)")),
        true);
    ASSERT_EQ(o.alone.size(), 2u);
    const auto& jobs = o.results["jobs"];
    for (uint32_t j = 0; j < 2; ++j)
    {
        EXPECT_GT(jobs[j]["slowdown"].get<double>(), 1.01) << jobs[j].dump();
        EXPECT_NEAR(jobs[j]["slowdown"].get<double>(),
                    jobs[j]["mean_iteration_s"].get<double>() /
                        jobs[j]["alone"]["mean_iteration_s"].get<double>(),
                    1e-12);
    }
    uint32_t shared = 0;
    for (const auto& link : o.results["job_links"])
    {
        if (link["shared"].get<bool>())
        {
            ++shared;
            const std::string cls = link["class"];
            EXPECT_TRUE(cls == "leaf-up" || cls == "spine-down") << link.dump();
            EXPECT_EQ(link["job_payload_bytes"].size(), 2u);
        }
    }
    EXPECT_GT(shared, 0u);
    EXPECT_NE(o.summary.find("SHARED"), std::string::npos) << o.summary;
    std::printf("slowdowns %.4f %.4f, %u shared links, PFC in %zu priorities\n",
                jobs[0]["slowdown"].get<double>(),
                jobs[1]["slowdown"].get<double>(),
                shared,
                o.pausePriorities.size());
    // Traffic classes: b's NICs send in class 5, both classes lossless, PFC only in them.
    EXPECT_EQ(o.priorities, (std::vector<uint8_t>{3, 5}));
    EXPECT_EQ(o.losslessMask & ((1u << 3) | (1u << 5)), (1u << 3) | (1u << 5));
    // Both jobs' queues filled: PFC paused each class, and no other.
    EXPECT_EQ(o.pausePriorities, (std::set<uint8_t>{3, 5}));
}

TEST(Jobs, StartTimesAndIterations)
{
    // Job b starts 2 ms in and runs 2 iterations; a runs the scenario's 1.
    const Outcome o = RunJobs(
        Cluster(1, 1, Job("a", "") + ", " + Job("b", R"("start": "2ms", "iterations": 2)")),
        false);
    ASSERT_EQ(o.times.size(), 2u);
    EXPECT_EQ(o.times[0].size(), 1u);
    EXPECT_EQ(o.times[1].size(), 2u);
    Time first = Seconds(1);
    for (const OpRecord& r : o.ops[1])
    {
        first = std::min(first, r.start);
    }
    EXPECT_EQ(first, MilliSeconds(2));
    // Alone it would have run the same: its iterations take what a's does.
    EXPECT_EQ(o.times[1][0], o.times[0][0]);
    EXPECT_EQ(o.results["jobs"][1]["start_s"], 0.002);
    EXPECT_FALSE(o.results["jobs"][1].contains("alone"));
}

TEST(Jobs, ScenarioListAndOptions)
{
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse(Cluster(1,
                                                1,
                                                Job("a", R"("gpus": 6, "placement": "spread")") +
                                                    ", " +
                                                    R"({"workload": {"file": "t.json"},
                                                        "start": "1.5ms", "iterations": 3,
                                                        "trafficClass": 2})"),
                                        "/scenarios/jobs.json",
                                        s,
                                        &error))
        << error;
    ASSERT_EQ(s.jobs.size(), 2u);
    EXPECT_EQ(s.jobs[0].name, "a");
    EXPECT_EQ(s.jobs[0].gpus, 6u);
    EXPECT_EQ(s.jobs[0].placement, JobSpec::Placement::SPREAD);
    EXPECT_EQ(s.jobs[0].traceFormat, "generator");
    EXPECT_EQ(s.jobs[0].place, "/scenarios/jobs.json: /jobs/0");
    EXPECT_EQ(s.jobs[1].name, "job2"); // by its place in the list
    EXPECT_EQ(s.jobs[1].traceFile, "/scenarios/t.json");
    EXPECT_EQ(s.jobs[1].start, MicroSeconds(1500));
    EXPECT_EQ(s.jobs[1].iterations, 3u);
    EXPECT_EQ(s.jobs[1].trafficClass, 2);

    // Refusals with their place.
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"[]", "/jobs: expected a list of job objects"},
        {"[" + Job("a", "") + ", " + Job("a", "") + "]",
         "/jobs/1/name: expected a name no other job has, of letters, digits"},
        {R"([{"placement": "packed"}])", "/jobs/0: a job needs a \"workload\" object"},
        {"[" + Job("../x", "") + "]",
         "/jobs/0/name: expected a name no other job has, of letters, digits, '.', '_' and '-' "
         "(not starting with '.'), got \"../x\""},
        {"[" + Job("a", R"("placement": "sideways")") + "]",
         "/jobs/0/placement: expected packed, spread, random, or servers such as 0-1,4"},
        {"[" + Job("a", R"("placement": [0, -1])") + "]",
         "/jobs/0/placement: expected packed, spread, random, or servers such as 0-1,4 or a list "
         "of server indices, got [0,-1]"},
        {"[" + Job("a", R"("trafficClass": 8)") + "]",
         "/jobs/0/trafficClass: expected an integer in 0..7, got 8"},
        {"[" + Job("a", R"("gpus": 0)") + "]", "/jobs/0/gpus: expected an integer in 1.."},
        {"[" + Job("a", R"("start": "soon")") + "]",
         "/jobs/0/start: expected a duration such as \"1us\" or \"10ms\", got \"soon\""},
        {R"([{"workload": {"format": "json"}}])",
         "/jobs/0/workload: format \"json\" needs a \"file\""},
    };
    for (const auto& [jobs, message] : bad)
    {
        TrainingScenario t;
        EXPECT_FALSE(TrainingScenario::Parse(R"({"jobs": )" + jobs + "}", "j.json", t, &error))
            << jobs;
        EXPECT_EQ(error.rfind("j.json: " + message, 0), 0u) << error;
    }

    // --job=FILE[:PLACEMENT], repeated: the format detected, the placement read; they
    // replace the scenario's jobs and name the run.
    const std::string model = aifabric::TestDir() + "jobs-model.json";
    {
        std::ofstream out(model);
        out << R"({"layers": 2, "hidden": 256, "heads": 4, "seqLength": 64, "vocab": 100,
                  "tp": 2, "dp": 2, "globalBatch": 4})";
    }
    ScenarioOverrides o;
    o.jobs = {model + ":1-2", model};
    o.pods = "2";
    ASSERT_TRUE(o.Apply(s, &error)) << error;
    ASSERT_EQ(s.jobs.size(), 2u);
    EXPECT_EQ(s.jobs[0].name, "job1");
    EXPECT_EQ(s.jobs[0].traceFormat, "generator");
    EXPECT_EQ(s.jobs[0].placement, JobSpec::Placement::SERVERS);
    EXPECT_EQ(s.jobs[0].servers, (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(s.jobs[0].place, "--job=" + model + ":1-2");
    EXPECT_EQ(s.jobs[1].placement, JobSpec::Placement::PACKED);
    EXPECT_EQ(s.jobs[1].generator.tp, 2u);
    EXPECT_EQ(s.pods, 2u);
    EXPECT_NE(s.name.find("--job=" + model + ":1-2 --job=" + model), std::string::npos) << s.name;
}

namespace
{
/// A cluster of 4 servers x 2 GPUs and a stream of jobs of two kinds.
std::string
Arrivals(const std::string& mean, const std::string& window, uint32_t seed)
{
    return R"({"cluster": {"servers": 4, "gpusPerServer": 2, "spines": 2},
               "run": {"seed": )" +
           std::to_string(seed) + R"(},
               "arrivals": {"meanInterarrival": ")" +
           mean + R"(", "window": ")" + window + R"(", "mix": [)" +
           Job("small", R"("probability": 0.6)") + ", " +
           R"({"name": "large", "gpus": 6, "probability": 0.4, "workload": {"format":
               "generator", "model": {"layers": 2, "hidden": 1024, "heads": 8,
               "seqLength": 256, "vocab": 1000, "tp": 2, "dp": 3, "globalBatch": 6}}})" +
           "]}}";
}
} // namespace

TEST(Jobs, ArrivalsArePoissonWithTheMix)
{
    // 1,000 ms of arrivals 1 ms apart on average (drawn, not run): the count is Poisson
    // (mean 1000, sd 31.6), the gaps exponential (mean 1 ms, sd of the mean 0.032 ms), the
    // kinds as the mix says (0.6, sd 0.016); bounds at about 3 sd.
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse(Arrivals("1ms", "1000ms", 1), "a.json", s, &error))
        << error;
    TrainingSimulation plan(s);
    ASSERT_TRUE(plan.ApplyGlobalSettings(&error) && plan.PlanJobs(&error)) << error;
    const auto& jobs = plan.GetJobs();
    const double n = static_cast<double>(jobs.size());
    EXPECT_NEAR(n, 1000, 100);
    uint32_t small = 0;
    for (const auto& job : jobs)
    {
        EXPECT_TRUE(job.spec.arrives);
        EXPECT_LT(job.spec.start, MilliSeconds(1000));
        small += job.spec.name.rfind("small-", 0) == 0;
        EXPECT_EQ(job.spec.gpus, job.spec.name[0] == 's' ? 4u : 6u);
    }
    EXPECT_NEAR(small / n, 0.6, 0.05);
    EXPECT_NEAR(jobs.back().spec.start.GetSeconds() * 1e3 / n, 1.0, 0.1);
    // Exponential gaps: their standard deviation is their mean (sd of the estimate about
    // 0.045 here; constant gaps would give 0).
    double sum = 0;
    double sum2 = 0;
    for (size_t k = 1; k < jobs.size(); ++k)
    {
        const double gap = (jobs[k].spec.start - jobs[k - 1].spec.start).GetSeconds() * 1e3;
        sum += gap;
        sum2 += gap * gap;
    }
    const double mean = sum / (n - 1);
    EXPECT_NEAR(std::sqrt(sum2 / (n - 1) - mean * mean) / mean, 1.0, 0.15);
    Simulator::Destroy();
}

TEST(Jobs, ArrivalsQueueFirstFitInArrivalOrder)
{
    // 8 GPUs, jobs of 4 and 6 GPUs arriving 2 ms apart on average for 20 ms: they queue.
    auto run = [](uint32_t seed, nlohmann::json& results) {
        TrainingScenario s;
        std::string error;
        ASSERT_TRUE(TrainingScenario::Parse(Arrivals("2ms", "20ms", seed), "a.json", s, &error))
            << error;
        TrainingSimulation sim(s);
        ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
        sim.Run(false);
        EXPECT_FALSE(sim.IsStuck());
        for (const auto& a : sim.GetAllocations())
        {
            EXPECT_LE(a.gpus, 8u);
        }
        TrainingReport report(sim);
        std::ostringstream os;
        report.WriteResults(os);
        results = nlohmann::json::parse(os.str());
        if (seed == 1)
        {
            // The files of an arrivals run: the GPUs held, step by step, and each job's.
            const std::string dir = aifabric::TestDir() + "arrivals-out";
            const auto files = report.Write(dir, false, &error);
            EXPECT_FALSE(files.empty()) << error;
            std::ifstream steps(dir + "/utilisation.dat");
            std::string header;
            std::getline(steps, header);
            EXPECT_EQ(header, "# time_ms gpus_held fraction_of_8");
            size_t rows = 0;
            for (std::string line; std::getline(steps, line);)
            {
                ++rows;
            }
            EXPECT_EQ(rows, sim.GetAllocations().size());
            for (const auto& job : sim.GetJobs())
            {
                EXPECT_TRUE(std::ifstream(dir + "/jobs/" + job.spec.name + "/iterations.csv").good())
                    << job.spec.name;
            }
        }
        Simulator::Destroy();
    };
    nlohmann::json r;
    run(1, r);
    const auto& jobs = r["jobs"];
    ASSERT_GE(jobs.size(), 4u);
    std::vector<double> ends;
    std::vector<double> jct;
    double lastPlaced = 0;
    uint32_t queued = 0;
    for (const auto& j : jobs)
    {
        ASSERT_TRUE(j["finished"].get<bool>()) << j["name"];
        const double arrival = j["arrival_s"];
        const double placed = j["placed_s"];
        EXPECT_GE(placed, arrival);
        // In arrival order: no job is placed before one that arrived earlier.
        EXPECT_GE(placed, lastPlaced);
        lastPlaced = placed;
        if (placed > arrival)
        {
            // It waited for GPUs: placed when an earlier job finished.
            ++queued;
            bool atAnEnd = false;
            for (double e : ends)
            {
                atAnEnd = atAnEnd || std::abs(e - placed) < 1e-12;
            }
            EXPECT_TRUE(atAnEnd) << j["name"];
        }
        ends.push_back(j["end_s"].get<double>());
        jct.push_back(j["end_s"].get<double>() - arrival);
        EXPECT_NEAR(j["jct_s"].get<double>(), jct.back(), 1e-12);
    }
    EXPECT_GT(queued, 0u) << "no job waited: the test does not test queueing";
    // First fit: each job got the lowest GPUs no running job held when it was placed.
    for (const auto& j : jobs)
    {
        const double at = j["placed_s"];
        std::set<uint32_t> held;
        for (const auto& k : jobs)
        {
            if (k["name"] != j["name"] && k["placed_s"].get<double>() <= at &&
                k["end_s"].get<double>() > at)
            {
                for (uint32_t g : k["gpus"])
                {
                    held.insert(g);
                }
            }
        }
        std::vector<uint32_t> expected;
        for (uint32_t g = 0; expected.size() < j["gpus"].size(); ++g)
        {
            if (!held.count(g))
            {
                expected.push_back(g);
            }
        }
        EXPECT_EQ(j["gpus"].get<std::vector<uint32_t>>(), expected) << j["name"];
    }
    const auto& a = r["arrivals"];
    EXPECT_EQ(a["arrived"], jobs.size());
    EXPECT_EQ(a["finished"], jobs.size());
    std::sort(jct.begin(), jct.end());
    double mean = 0;
    for (double x : jct)
    {
        mean += x / jct.size();
    }
    EXPECT_NEAR(a["jct_mean_s"].get<double>(), mean, 1e-12);
    EXPECT_NEAR(a["jct_max_s"].get<double>(), jct.back(), 1e-12);
    EXPECT_NEAR(a["jct_p50_s"].get<double>(), jct[(jct.size() + 1) / 2 - 1], 1e-12);
    EXPECT_GT(a["utilisation"].get<double>(), 0.3);
    EXPECT_LE(a["utilisation"].get<double>(), 1.0);
    // The same seed gives the same run; another seed another stream.
    nlohmann::json same;
    run(1, same);
    EXPECT_EQ(same["arrivals"], r["arrivals"]);
    nlohmann::json other;
    run(2, other);
    EXPECT_NE(other["arrivals"]["gpus_held"], r["arrivals"]["gpus_held"]);
}

TEST(Jobs, ArrivalsRefusals)
{
    const std::string kind = Job("k", R"("probability": 0.5)");
    const std::vector<std::pair<std::string, std::string>> bad = {
        {R"({"window": "1ms", "mix": [)" + kind + "]}",
         "/arrivals: expected \"meanInterarrival\", \"window\" and \"mix\""},
        {R"({"meanInterarrival": "1ms", "window": "1ms", "mix": [)" + kind + "]}",
         "/arrivals/mix: the probabilities add up to 0.500000, expected 1"},
        {R"({"meanInterarrival": "1us", "window": "1s", "mix": [)" + kind + "]}",
         "/arrivals/window: window / meanInterarrival expects more than 10000 jobs"},
        {R"({"meanInterarrival": "1ms", "window": "1ms", "mix": [)" +
             Job("k", R"("probability": 0)") + "]}",
         "/arrivals/mix/0/probability: expected a probability in (0, 1]"},
        {R"({"meanInterarrival": "0ms", "window": "1ms", "mix": [)" + kind + "]}",
         "/arrivals/meanInterarrival: must be above 0"},
    };
    for (const auto& [arrivals, message] : bad)
    {
        TrainingScenario t;
        std::string error;
        EXPECT_FALSE(
            TrainingScenario::Parse(R"({"arrivals": )" + arrivals + "}", "a.json", t, &error))
            << arrivals;
        EXPECT_EQ(error, "a.json: " + message) << arrivals;
    }
}

TEST(Jobs, InterleaveShiftsClosedForm)
{
    // Jobs busy 1 ms in every 4 (from 0): the second is shifted by 1 ms, the third by 2
    // (the first shifts, 0.5 ms apart, that overlap nothing).
    auto every4 = [](Time busy) {
        BusyIntervals b;
        for (int k = 0; k < 3; ++k)
        {
            b.emplace_back(MilliSeconds(4 * k), MilliSeconds(4 * k) + busy);
        }
        return b;
    };
    const BusyIntervals one = every4(MilliSeconds(1));
    const std::vector<Time> period(3, MilliSeconds(4));
    EXPECT_EQ(InterleaveShifts({one, one, one}, period, 8),
              (std::vector<Time>{Time(), MilliSeconds(1), MilliSeconds(2)}));
    EXPECT_EQ(OverlapOf(one, one), MilliSeconds(3));
    EXPECT_EQ(OverlapOf(one, Shifted(one, MicroSeconds(500))), MicroSeconds(1500));
    // A job busy 3 ms in every 4 fits the other's 3 ms gaps exactly: shifted by 1 ms.
    EXPECT_EQ(InterleaveShifts({one, every4(MilliSeconds(3))}, {MilliSeconds(4), MilliSeconds(4)}, 8)[1],
              MilliSeconds(1));
    EXPECT_EQ(MergeIntervals({{MilliSeconds(2), MilliSeconds(3)},
                              {MilliSeconds(0), MilliSeconds(1)},
                              {MilliSeconds(1), MilliSeconds(2)},
                              {MilliSeconds(5), MilliSeconds(5)}}),
              (BusyIntervals{{MilliSeconds(0), MilliSeconds(3)}}));
}

TEST(Jobs, InterleavingSeparatesTheNetworkPhases)
{
    // The two jobs across the 2:1 spine: b shifted by the interleave's choice (from the
    // alone runs) overlaps a less on the network, and both run faster than as given.
    const std::string text = Cluster(2,
                                     2,
                                     Job("a", R"("placement": "0,2", "iterations": 2)") + ", " +
                                         Job("b", R"("placement": [1, 3], "iterations": 2)"));
    const Outcome given = RunJobs(text, true);
    ASSERT_EQ(given.network.size(), 2u);
    const std::vector<Time> periods{MeanTime(given.alone[0]), MeanTime(given.alone[1])};
    const std::vector<Time> shifts = InterleaveShifts(given.network, periods);
    EXPECT_EQ(shifts[0], Time());
    EXPECT_GT(shifts[1], Time());
    EXPECT_LT(OverlapOf(given.network[0], Shifted(given.network[1], shifts[1])),
              OverlapOf(given.network[0], given.network[1]));
    const std::string shiftedText =
        Cluster(2,
                2,
                Job("a", R"("placement": "0,2", "iterations": 2)") + ", " +
                    Job("b",
                        R"("placement": [1, 3], "iterations": 2, "start": ")" +
                            std::to_string(shifts[1].GetNanoSeconds()) + R"(ns")"));
    const Outcome shifted = RunJobs(shiftedText, false);
    std::printf("shift %.3f ms: a %.3f -> %.3f ms, b %.3f -> %.3f ms (alone %.3f, %.3f)\n",
                shifts[1].GetSeconds() * 1e3,
                MeanTime(given.times[0]).GetSeconds() * 1e3,
                MeanTime(shifted.times[0]).GetSeconds() * 1e3,
                MeanTime(given.times[1]).GetSeconds() * 1e3,
                MeanTime(shifted.times[1]).GetSeconds() * 1e3,
                periods[0].GetSeconds() * 1e3,
                periods[1].GetSeconds() * 1e3);
    EXPECT_LT(MeanTime(shifted.times[0]), MeanTime(given.times[0]));
    EXPECT_LT(MeanTime(shifted.times[1]), MeanTime(given.times[1]));
}
