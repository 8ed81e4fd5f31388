// SPDX-License-Identifier: GPL-2.0-only
// The main program's machinery: scenario files (good and bad), the built-in default
// scenario end to end with its reports (Perfetto timeline with the expected tracks,
// identical results for the same seed), and a deadlocking workload reported as stuck.
#include "test-util.h"
#include "trace-encoders.h"

#include "ns3/program-options.h"
#include "ns3/scenario-overrides.h"
#include "ns3/trace-json.h"
#include "ns3/training-report.h"
#include "ns3/training-scenario.h"
#include "ns3/training-simulation.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{
std::string
Slurp(const std::string& file)
{
    std::ifstream in(file);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// \return the comma-separated fields of a line of a report's CSV (no quoting in them)
std::vector<std::string>
CsvFields(const std::string& line)
{
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');)
    {
        fields.push_back(cell);
    }
    return fields;
}

std::string
OutDir(const std::string& name)
{
    return aifabric::TestDir() + name;
}

/// Run a scenario, write its reports into dir, return the results JSON.
/// Scenario keys of a small run: 2 servers x 2 GPUs, one spine, a generated 2-layer model
/// (TP 2 x DP 2); callers wrap it in braces and may add keys.
const std::string SMALL_SCENARIO =
    R"("cluster": {"servers": 2, "gpusPerServer": 2, "spines": 1},
        "workload": {"format": "generator", "model": {"layers": 2, "hidden": 256, "heads": 4,
        "seqLength": 64, "vocab": 100, "tp": 2, "dp": 2, "globalBatch": 2}})";

nlohmann::json
RunScenario(const TrainingScenario& scenario, const std::string& dir, bool* stuck = nullptr)
{
    TrainingSimulation sim(scenario);
    std::string error;
    EXPECT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    sim.Run(false);
    if (stuck)
    {
        *stuck = sim.GetRunner()->IsStuck();
    }
    TrainingReport report(sim);
    std::ostringstream summary;
    report.PrintSummary(summary);
    EXPECT_NE(summary.str().find("iteration   time (ms)"), std::string::npos);
    const auto files = report.Write(dir, scenario.plots, &error);
    EXPECT_FALSE(files.empty()) << error;
    Simulator::Destroy();
    return nlohmann::json::parse(Slurp(dir + "/results.json"));
}
} // namespace

TEST(TrainingScenario, BadScenariosAreNamed)
{
    auto check = [](const std::string& text, const std::string& expect) {
        TrainingScenario s;
        std::string error;
        EXPECT_FALSE(TrainingScenario::Parse(text, "scn.json", s, &error));
        EXPECT_NE(error.find("scn.json"), std::string::npos) << error;
        EXPECT_NE(error.find(expect), std::string::npos)
            << "expected '" << expect << "' in: " << error;
    };
    check("{\"cluster\": {\"servers\": 0}}", "/cluster/servers: expected an integer in 1..");
    check("{\"cluster\": {\"nicRate\": \"fast\"}}", "/cluster/nicRate: expected a positive rate");
    check("{\"cluster\": {\"linkDelay\": \"1 fortnight\"}}",
          "/cluster/linkDelay: expected a duration");
    check("{\"cluster\": {\"gpu\": \"V100\"}}", "expected A100, H100, H200, B200, got \"V100\"");
    check("{\"clutser\": {}}", "/clutser: unknown setting");
    check("{\"workload\": {\"format\": \"json\"}}", "needs a \"file\"");
    check("{\"workload\": {\"format\": \"csv\", \"file\": \"x\"}}", "/workload/format");
    check("{\"workload\": {\"format\": \"generator\", \"model\": {\"tp\": 3}}}",
          "divisible by tp 3");
    check("{\"run\": {\"iterations\": -1}}", "/run/iterations");
    check("{\"run\": ", "not valid JSON");
    TrainingScenario s;
    std::string error;
    EXPECT_FALSE(TrainingScenario::Read("/nonexistent/scn.json", s, &error));
    EXPECT_NE(error.find("/nonexistent/scn.json: cannot open"), std::string::npos) << error;

    // A missing trace file and an unknown attribute fail at Build, named. The scenario
    // "is" in the test's own folder, where nothing else makes a missing.json.
    const std::string dir = aifabric::TestDir() + "dir/";
    ASSERT_TRUE(
        TrainingScenario::Parse(R"({"workload": {"format": "json", "file": "missing.json"}})",
                                dir + "scn.json",
                                s,
                                &error))
        << error;
    EXPECT_EQ(s.traceFile, dir + "missing.json"); // relative to the scenario file
    {
        TrainingSimulation sim(s);
        EXPECT_FALSE(sim.ApplyGlobalSettings(&error) && sim.Build(&error));
        EXPECT_NE(error.find(dir + "missing.json: cannot open"), std::string::npos) << error;
    }
    TrainingScenario t;
    ASSERT_TRUE(
        TrainingScenario::Parse(R"({"fabric": {"config": {"ns3::RoceDcqcn::NoSuchThing": "1"}}})",
                                "scn.json",
                                t,
                                &error));
    TrainingSimulation sim(t);
    EXPECT_FALSE(sim.ApplyGlobalSettings(&error) && sim.Build(&error));
    EXPECT_NE(error.find("/fabric/config/ns3::RoceDcqcn::NoSuchThing"), std::string::npos) << error;
}

TEST(TrainingSimulation, DefaultScenarioEndToEnd)
{
    // The built-in default (2 x 8 H100, rail-optimized, GPT-3 1.3B TP 8 x DP 2), twice.
    TrainingScenario scenario = TrainingScenario::Default(AI_FABRIC_SOURCE_DIR "/traces");
    scenario.plots = false;
    const nlohmann::json first = RunScenario(scenario, OutDir("default-1"));
    const nlohmann::json second = RunScenario(scenario, OutDir("default-2"));
    ASSERT_TRUE(first["finished"].get<bool>());
    EXPECT_FALSE(first["stuck"].get<bool>());
    EXPECT_EQ(first["workload"]["ranks"], 16);
    EXPECT_EQ(first["fabric"]["drops"], 0);
    const double iteration = first["iterations"][0]["time_s"].get<double>();
    std::cout << "[ measured ] default scenario iteration: " << iteration * 1e3 << " ms\n";
    // The figure the workload page and the README print (45.243 ms), to the picosecond the
    // simulation resolves: the run is deterministic, so any change is a model change. It
    // is fast-forwarded (the default): 98.2 % of the RDMA bytes skipped in 64 skips (one
    // per rail and DP step pair: the rails are independent groups).
    // 36.390429 ms before NCCL's protocol latencies (the TP all-reduces' NVLS latency);
    // 45.260971 ms while the network steps paid NCCL's step latency on top of the wire;
    // 45.244971 ms while the NIC's round robin served a queue pair out of turn when another
    // left its list (now first in, first out).
    EXPECT_NEAR(iteration, 0.045242593, 1e-12);
    EXPECT_EQ(first["fast_forward"]["status"], "on");
    EXPECT_EQ(first["fast_forward"]["skips"], 64);
    EXPECT_NEAR(first["fast_forward"]["skipped_fraction"].get<double>(), 0.9823, 0.0001);
    // The packet reference (--fast-forward=off): 45.243 ms, 33 ns (0.00007 %) sooner.
    TrainingScenario reference = scenario;
    reference.fastForward = "off";
    const nlohmann::json packets = RunScenario(reference, OutDir("default-reference"));
    EXPECT_NEAR(packets["iterations"][0]["time_s"].get<double>(), 0.045242560, 1e-12);
    // Its DP ring all-reduces' mean, which the flow level is checked against
    // (FlowLevel.TheDefaultScenarioAtFlowLevelAgainstThePacketReference).
    for (const auto& c : packets["communication"])
    {
        if (c["group_kind"] == "dp")
        {
            EXPECT_NEAR(c["total_s"].get<double>() / c["calls"].get<double>(), 1727.171e-6, 1e-9);
        }
    }
    EXPECT_EQ(packets["fast_forward"]["status"], "off");
    EXPECT_FALSE(packets["fast_forward"].contains("skips"));
    // The links carried the same bytes (within 0.01 %) and frames: the skipped data frames
    // exactly, their ACKs by the receiver's rule (992 of 3.43 M frames apart, 0.03 %).
    const double hops = packets["fabric"]["link_frames"].get<double>();
    EXPECT_GT(hops, 3.4e6);
    EXPECT_NEAR(first["fabric"]["link_frames"].get<double>(), hops, 1e-3 * hops);
    EXPECT_EQ(first["fast_forward"]["interrupted_skips"], 0);
    // Utilisation samples see the skipped frames as they would have passed: the peak
    // (per 20 us) within a point of the reference's, never above 100 %.
    const double peak = first["fabric"]["peak_link_utilisation"].get<double>();
    EXPECT_LE(peak, 1.0);
    EXPECT_NEAR(peak, packets["fabric"]["peak_link_utilisation"].get<double>(), 0.01);
    const double bytes = packets["fabric"]["link_bytes"].get<double>();
    EXPECT_NEAR(first["fabric"]["link_bytes"].get<double>(), bytes, 1e-4 * bytes);
    // Where the events went. The reference simulates every frame; the fast-forward lets
    // through each skipped data packet on its two links (NIC, rail leaf, NIC) and the
    // skipped ACKs, and simulates under 2 % of the frames (64,736 of 3,432,960). Neither
    // touches NVLink: the same chunks (884,736) in both.
    EXPECT_EQ(packets["fabric"]["link_frames_skipped"], 0);
    const auto skippedHops = first["fabric"]["link_frames_skipped"].get<uint64_t>();
    const auto skippedPackets = first["fast_forward"]["skipped_packets"].get<uint64_t>();
    EXPECT_GT(skippedHops, 2 * skippedPackets);
    EXPECT_LT(skippedHops, 3 * skippedPackets); // an ACK for every few packets, not each
    EXPECT_LT(first["fabric"]["link_frames"].get<double>() - static_cast<double>(skippedHops),
              0.02 * hops);
    EXPECT_EQ(first["fabric"]["nvlink_chunks"], 884736);
    EXPECT_EQ(packets["fabric"]["nvlink_chunks"], first["fabric"]["nvlink_chunks"]);
    // Its tensor-parallel all-reduces are NVLS, which the NVSwitches do not skip.
    EXPECT_EQ(first["fast_forward"]["nvlink_skipped_chunks"], 0);
    EXPECT_EQ(first["fast_forward"]["nvlink_skips"], 0);
    EXPECT_FALSE(packets["fast_forward"].contains("nvlink_skipped_chunks"));
    // auto chose once per group and size (26: tp0 and tp1 at one size, the 8 rails' DP
    // groups at three), estimating only once per kind of group and size (4): the groups
    // of one kind have one shape, and the carrier describes them alike.
    {
        std::istringstream csv(Slurp(OutDir("default-1") + "/collectives.csv"));
        std::string line;
        std::getline(csv, line); // header: call,name,collective,group,...,bytes,...
        std::set<std::string> perGroup;
        std::set<std::string> perKind;
        while (std::getline(csv, line))
        {
            const std::vector<std::string> f = CsvFields(line);
            ASSERT_GE(f.size(), 9u) << line;
            ASSERT_EQ(f[6], "auto") << line;
            perGroup.insert(f[3] + "/" + f[2] + "/" + f[8]);
            perKind.insert(f[3].substr(0, 2) + "/" + f[2] + "/" + f[8]);
        }
        EXPECT_EQ(perGroup.size(), 26u);
        EXPECT_EQ(perKind.size(), 4u);
        EXPECT_EQ(first["auto_choices"]["estimated"], perKind.size());
        EXPECT_EQ(first["auto_choices"]["shared"], perGroup.size() - perKind.size());
    }

    // Same seed, same results: everything but the wall-clock figures.
    nlohmann::json a = first;
    nlohmann::json b = second;
    a.erase("run");
    b.erase("run");
    EXPECT_EQ(a.dump(), b.dump());
    EXPECT_EQ(Slurp(OutDir("default-1") + "/timeline.json"),
              Slurp(OutDir("default-2") + "/timeline.json"));
    EXPECT_EQ(Slurp(OutDir("default-1") + "/collectives.csv"),
              Slurp(OutDir("default-2") + "/collectives.csv"));
    EXPECT_EQ(Slurp(OutDir("default-1") + "/fct.csv"), Slurp(OutDir("default-2") + "/fct.csv"));
    // fct.csv: each flow's wire bytes are its payload in one of the protocols' lines.
    {
        std::istringstream fct(Slurp(OutDir("default-1") + "/fct.csv"));
        std::string line;
        std::getline(fct, line);
        EXPECT_EQ(line, "src,dst,bytes,start_us,end_us,fct_us,wire_bytes");
        uint32_t rows = 0;
        while (std::getline(fct, line))
        {
            const std::vector<std::string> f = CsvFields(line);
            ASSERT_EQ(f.size(), 7u) << line;
            const uint64_t payload = std::stoull(f[2]);
            const uint64_t wire = std::stoull(f[6]);
            EXPECT_TRUE(wire == payload || wire == (payload + 7) / 8 * 16 ||
                        wire == (payload + 119) / 120 * 128)
                << line;
            ++rows;
        }
        EXPECT_GT(rows, 0u);
    }

    // The Perfetto timeline: valid JSON, one process per rank, compute and comm tracks,
    // complete events with non-negative durations.
    const nlohmann::json timeline =
        nlohmann::json::parse(Slurp(OutDir("default-1") + "/timeline.json"));
    std::set<int> processes;
    std::set<std::pair<int, int>> threads;
    uint64_t slices = 0;
    std::set<std::string> categories;
    for (const auto& e : timeline["traceEvents"])
    {
        if (e["ph"] == "M" && e["name"] == "process_name")
        {
            processes.insert(e["pid"].get<int>());
        }
        if (e["ph"] == "M" && e["name"] == "thread_name")
        {
            threads.insert({e["pid"].get<int>(), e["tid"].get<int>()});
        }
        if (e["ph"] == "X")
        {
            ++slices;
            EXPECT_GE(e["dur"].get<double>(), 0);
            categories.insert(e["cat"].get<std::string>());
        }
    }
    EXPECT_EQ(processes.size(), 16u);
    EXPECT_TRUE(threads.count({0, 0}) && threads.count({0, 1}) && threads.count({0, 2}))
        << "rank 0 should have compute, TP and DP tracks";
    std::set<std::string> trackNames;
    for (const auto& e : timeline["traceEvents"])
    {
        if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 0)
        {
            trackNames.insert(e["args"]["name"].get<std::string>());
        }
    }
    EXPECT_EQ(trackNames,
              (std::set<std::string>{"stream 0 (compute)",
                                     "stream 1 (TP/EP collectives)",
                                     "stream 2 (DP collectives)"}));
    EXPECT_EQ(slices, first["workload"]["ops"].get<uint64_t>());
    EXPECT_EQ(categories, (std::set<std::string>{"collective", "compute"}));
}

TEST(TrainingSimulation, DeadlockingWorkloadIsReportedStuck)
{
    // Ranks 0 and 1 (two servers) issue collectives on A and B in opposite orders.
    TrainingTrace t(2);
    t.AddGroup({"A", "custom", {0, 1}});
    t.AddGroup({"B", "custom", {0, 1}});
    for (uint32_t r = 0; r < 2; ++r)
    {
        for (const std::string g : {r == 0 ? "A" : "B", r == 0 ? "B" : "A"})
        {
            TraceOp op;
            op.kind = TraceOpKind::COLLECTIVE;
            op.name = "ar." + g;
            op.group = g;
            op.bytes = 1 << 20;
            op.stream = 1;
            t.AddOp(r, op);
        }
    }
    const std::string file = aifabric::TestDir() + "deadlock.json";
    std::string error;
    ASSERT_TRUE(TraceJson::Write(t, file, &error)) << error;
    TrainingScenario s;
    ASSERT_TRUE(
        TrainingScenario::Parse(R"({"cluster": {"servers": 2, "gpusPerServer": 1, "spines": 1},
        "workload": {"format": "json", "file": ")" +
                                    file + R"("}, "run": {"hangTimeout": "2ms"},
        "outputs": {"plots": false}})",
                                "deadlock.json",
                                s,
                                &error))
        << error;
    bool stuck = false;
    const nlohmann::json results = RunScenario(s, OutDir("deadlock"), &stuck);
    EXPECT_TRUE(stuck);
    EXPECT_FALSE(results["finished"].get<bool>());
    const std::string report = results["stuck_report"].get<std::string>();
    EXPECT_NE(report.find("rank 0 op 0 'ar.A'"), std::string::npos) << report;
    EXPECT_NE(report.find("rank 1 op 0 'ar.B'"), std::string::npos) << report;
}

TEST(TrainingSimulation, ChakraAndAicbWorkloadsRun)
{
    // A Chakra all-reduce microbenchmark (1 MiB on 8 NPUs, as ASTRA-sim's generator
    // writes it) and an AICB TP 8 workload written here, each on one 8-GPU H100 server.
    std::string error;
    {
        const std::string dir = OutDir("chakra-input");
        std::filesystem::create_directories(dir);
        tracetest::WriteChakraCollective(dir + "/all_reduce",
                                         8,
                                         tracetest::CHAKRA_ALL_REDUCE,
                                         1048576,
                                         "all_reduce_8npus_1MB");
        TrainingScenario s;
        ASSERT_TRUE(TrainingScenario::Parse(
            R"({"cluster": {"servers": 1, "gpusPerServer": 8, "spines": 1},
                "workload": {"format": "chakra", "file": ")" +
                dir +
                R"(/all_reduce", "ranks": 8},
                "outputs": {"plots": false}})",
            "chakra.json",
            s,
            &error))
            << error;
        const nlohmann::json r = RunScenario(s, OutDir("chakra"));
        std::filesystem::remove_all(dir);
        EXPECT_TRUE(r["finished"].get<bool>());
        ASSERT_EQ(r["communication"].size(), 1u);
        EXPECT_EQ(r["communication"][0]["collective"], "all-reduce");
        EXPECT_EQ(r["communication"][0]["mean_bytes"], 1048576);
        // One NVSwitch, 1 MiB: LL's steps (the NVLink carrier's 1 us each, more than
        // NCCL's 0.6) beat NVLS's 25 us synchronisation; halving-doubling's 6 steps beat
        // the ring's 14 (estimated 23.6 and 30.6 us: each channel copies at its share of
        // the NVLink bandwidth, so the ring's step latencies do not hide behind the others).
        EXPECT_EQ(r["communication"][0]["algorithm"], "halving-doubling");
        EXPECT_EQ(r["communication"][0]["protocol"], "LL");
    }
    {
        // 24 layers, each 752 us forward, input-grad and weight-grad, with a TP all-reduce
        // of 20 MiB in forward and input-grad, and a 100 ns update.
        std::vector<tracetest::AicbLayer> layers(24,
                                                 {"attention_layer",
                                                  752000,
                                                  "ALLREDUCE",
                                                  20971520,
                                                  752000,
                                                  "ALLREDUCE",
                                                  20971520,
                                                  752000,
                                                  "NONE",
                                                  0,
                                                  100});
        const std::string file = tracetest::WriteFile(
            OutDir("aicb-input.txt"),
            tracetest::AicbWorkload("HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 8",
                                    layers));
        TrainingScenario s;
        ASSERT_TRUE(TrainingScenario::Parse(
            R"({"cluster": {"servers": 1, "gpusPerServer": 8, "spines": 1},
                "workload": {"format": "aicb", "file": ")" +
                file +
                R"("},
                "outputs": {"plots": false}})",
            "aicb.json",
            s,
            &error))
            << error;
        const nlohmann::json r = RunScenario(s, OutDir("aicb"));
        std::filesystem::remove(file);
        EXPECT_TRUE(r["finished"].get<bool>());
        const auto& rank0 = r["iterations"][0]["ranks"][0];
        // Compute is the sum of the op times: 24 x 3 x 752 us + 24 x 100 ns.
        EXPECT_NEAR(rank0["compute_s"].get<double>(), 24 * 3 * 752e-6 + 24 * 100e-9, 1e-12);
        // 48 all-reduces of 20 MiB over NVLink cannot be free.
        EXPECT_GT(rank0["total_s"].get<double>(), rank0["compute_s"].get<double>());
    }
}

// One vocabulary for --cc and the scenario's congestionControl: "none" is
// ns3::NoCongestionControl in both, and the report names the TypeId that ran.
TEST(TrainingScenario, CongestionControlNoneAsOnTheCommandLine)
{
    const std::string small = SMALL_SCENARIO;
    std::string error;
    TrainingScenario fromFile;
    ASSERT_TRUE(
        TrainingScenario::Parse("{" + small + R"(, "fabric": {"congestionControl": "none"}})",
                                "scn.json",
                                fromFile,
                                &error))
        << error;
    TrainingSimulation sim(fromFile);
    ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    EXPECT_EQ(sim.GetScenario().congestionControl, "ns3::NoCongestionControl");
    TypeIdValue built;
    sim.GetCluster().network.nics.front()->GetAttribute("CongestionControl", built);
    EXPECT_EQ(built.Get().GetName(), "ns3::NoCongestionControl");
    Simulator::Destroy();

    TrainingScenario fromOption;
    ASSERT_TRUE(TrainingScenario::Parse("{" + small + "}", "scn.json", fromOption, &error));
    ScenarioOverrides o;
    o.cc = "none";
    ASSERT_TRUE(o.Apply(fromOption, &error)) << error;
    EXPECT_EQ(fromOption.congestionControl, "ns3::NoCongestionControl");
}

// Scenarios written before the Roce prefix still run: the old congestion-control names
// (in congestionControl and in fabric.config paths) select the same algorithm, with one
// warning per name on stderr.
TEST(TrainingScenario, DeprecatedCongestionControlNamesStillRun)
{
    const std::string small = SMALL_SCENARIO;
    std::string error;
    TrainingScenario old;
    ASSERT_TRUE(TrainingScenario::Parse("{" + small +
                                            R"(, "fabric": {"congestionControl": "ns3::Dcqcn",
                "config": {"ns3::Dcqcn::RateAi": "7Mbps"}}})",
                                        "old.json",
                                        old,
                                        &error))
        << error;
    testing::internal::CaptureStderr();
    TrainingSimulation sim(old);
    const bool built = sim.ApplyGlobalSettings(&error) && sim.Build(&error);
    const std::string warnings = testing::internal::GetCapturedStderr();
    ASSERT_TRUE(built) << error;
    EXPECT_EQ(sim.GetScenario().congestionControl, "ns3::RoceDcqcn");
    TypeIdValue cc;
    sim.GetCluster().network.nics.front()->GetAttribute("CongestionControl", cc);
    EXPECT_EQ(cc.Get().GetName(), "ns3::RoceDcqcn");
    TypeId::AttributeInformation info;
    ASSERT_TRUE(RoceDcqcn::GetTypeId().LookupAttributeByName("RateAi", &info));
    EXPECT_EQ(info.initialValue->SerializeToString(info.checker), "7000000bps");
    // Once per name, whichever reader met it first (warned before this test: none).
    EXPECT_EQ(warnings,
              "warning: ns3::Dcqcn is deprecated; use ns3::RoceDcqcn (the same congestion "
              "control)\n");
    sim.Run(false);
    EXPECT_TRUE(sim.GetRunner()->IsFinished()) << "the old scenario runs to the end";
    Simulator::Destroy();
    Config::Reset();

    // Every old name resolves, on the command line's path too.
    for (const auto& [before, now] :
         std::vector<std::pair<std::string, std::string>>{{"ns3::Dctcp", "ns3::RoceDctcp"},
                                                          {"ns3::Timely", "ns3::RoceTimely"},
                                                          {"ns3::Hpcc", "ns3::RoceHpcc"},
                                                          {"ns3::Swift", "ns3::RoceSwift"}})
    {
        testing::internal::CaptureStderr();
        TypeId tid;
        EXPECT_TRUE(RoceCongestionControl::LookupByName(before, &tid));
        EXPECT_EQ(tid.GetName(), now);
        EXPECT_EQ(RoceCongestionControl::ResolveAttributePath(before + "::MinRate"),
                  now + "::MinRate");
        EXPECT_NE(
            testing::internal::GetCapturedStderr().find(before + " is deprecated; use " + now),
            std::string::npos);
    }
    EXPECT_EQ(RoceCongestionControl::ResolveAttributePath("ns3::RoceDcqcn::RateAi"),
              "ns3::RoceDcqcn::RateAi");
    TypeId none;
    EXPECT_FALSE(RoceCongestionControl::LookupByName("ns3::Cubic", &none));
}

TEST(TrainingScenario, ImpossibleSettingsAreNamedNotAborted)
{
    auto buildFails = [](const std::string& text, const std::string& expect) {
        TrainingScenario s;
        std::string error;
        ASSERT_TRUE(TrainingScenario::Parse(text, "scn.json", s, &error)) << error;
        s.plots = false;
        TrainingSimulation sim(s);
        EXPECT_FALSE(sim.ApplyGlobalSettings(&error) && sim.Build(&error));
        EXPECT_NE(error.find(expect), std::string::npos)
            << "expected '" << expect << "' in: " << error;
    };
    const std::string small = SMALL_SCENARIO;
    buildFails(
        "{" + small +
            R"(, "fabric": {"config": {"ns3::IdealTransport::Latency": "5 fortnights"}}})",
        "/fabric/config/ns3::IdealTransport::Latency: \"5 fortnights\" is not a valid TimeValue");
    buildFails("{" + small + R"(, "fabric": {"config": {"ns3::RoceDcqcn::RateAi": "10 Mbps"}}})",
               "\"10 Mbps\" is not a valid DataRateValue");
    buildFails("{" + small +
                   R"(, "fabric": {"config": {"ns3::NvSwitchFabric::LinkCount": "18 links"}}})",
               "\"18 links\" is not a valid UintegerValue");
    buildFails("{" + small + R"(, "fabric": {"config": {"ns3::CollectiveEngine::Channels": 1.5}}})",
               "\"1.5\" is not a valid UintegerValue");
    buildFails(
        "{" + small + R"(, "fabric": {"config": {"ns3::RoceNetDevice::DwrrWeights": "1,2,3"}}})",
        "\"1,2,3\" is not a valid list (expected 8 comma-separated integers (uint32_t 1:1000))");
    buildFails(
        "{" + small +
            R"(, "fabric": {"config": {"ns3::RoceNetDevice::DwrrWeights": "1,x,1,1,1,1,1,1"}}})",
        "\"1,x,1,1,1,1,1,1\" is not a valid list (expected 8 comma-separated");
    buildFails("{" + small + R"(, "fabric": {"config": {"ns3::RoceSwitch::Mmu": "0"}}})",
               "attributes of type PointerValue cannot be set from a scenario file");
    buildFails("{" + small +
                   R"(, "fabric": {"config": {"ns3::NvLinkPort::PerLinkRate": "1Gbps"}}})",
               "set the ns3::NvSwitchFabric attribute of the same name instead");
    buildFails("{" + small + R"(, "fabric": {"congestionControl": "ns3::Cubic"}})",
               "/fabric/congestionControl: \"ns3::Cubic\" is not a congestion control");
    buildFails("{" + small + R"(, "collectives": {"algorithm": "bogus"}})",
               "unknown collective algorithm \"bogus\"");
    // The same through fabric.config (where --ns3:: arguments go): checked as the run uses it.
    buildFails("{" + small +
                   R"(, "fabric": {"config": {"ns3::CollectiveEngine::Algorithm": "bogus"}}})",
               "\"bogus\" is not a valid EnumValue (expected one of auto|ring|rail-ring|tree|");
    buildFails(
        "{" + small + R"(, "fabric": {"config": {"ns3::CollectiveEngine::ChunkBytes": "1"}}})",
        "ns3::CollectiveEngine::ChunkBytes: must be 0 (each algorithm's default chunk) or at "
        "least 4096");
    // The DP groups span servers: NVLS cannot serve them.
    buildFails("{" + small + R"(, "collectives": {"algorithm": "nvls"}})",
               "no nvls all-reduce on group 'dp0' of 2 ranks");
    buildFails(R"({"cluster": {"servers": 1, "gpusPerServer": 2},
        "workload": {"format": "generator", "model": {"tp": 2, "dp": 8, "globalBatch": 8, "heads": 16}}})",
               "needs 16 GPUs (tp x pp x dp) but the cluster has 2");
    TrainingScenario s;
    std::string error;
    EXPECT_FALSE(
        TrainingScenario::Parse(R"({"run": {"hangTimeout": "0s"}})", "scn.json", s, &error));
    EXPECT_NE(error.find("/run/hangTimeout: must be at least 1us"), std::string::npos) << error;
    TrainingScenario fresh;
    EXPECT_FALSE(
        TrainingScenario::Parse(R"({"run": {"fastForward": "auto"}})", "scn.json", fresh, &error));
    EXPECT_NE(error.find("scn.json: /run/fastForward: expected on, off or check, got \"auto\""),
              std::string::npos)
        << error;
    EXPECT_FALSE(
        TrainingScenario::Parse(R"({"cluster": {"linkDelay": "infs"}})", "scn.json", s, &error));
    EXPECT_NE(error.find("/cluster/linkDelay: expected a duration"), std::string::npos) << error;
    EXPECT_FALSE(TrainingScenario::Parse(R"({"collectives": {"qpsPerConnection": 0}})",
                                         "scn.json",
                                         s,
                                         &error));
    EXPECT_NE(error.find("scn.json: /collectives/qpsPerConnection: expected an integer in "
                         "1..128, got 0"),
              std::string::npos)
        << error;
    EXPECT_FALSE(TrainingScenario::Parse(R"({"collectives": {"ringTransfersPerPhase": -1}})",
                                         "scn.json",
                                         s,
                                         &error));
    EXPECT_NE(error.find("scn.json: /collectives/ringTransfersPerPhase: expected an integer in "
                         "0..65536, got -1"),
              std::string::npos)
        << error;
    TrainingScenario ideal; // Parse keeps what it read: a scenario of its own
    EXPECT_FALSE(TrainingScenario::Parse(
        R"({"cluster": {"topology": "ideal"}, "collectives": {"qpsPerConnection": 2}})",
        "scn.json",
        ideal,
        &error));
    EXPECT_NE(error.find("scn.json: /collectives/qpsPerConnection: the ideal topology has no "
                         "queue pairs"),
              std::string::npos)
        << error;
    EXPECT_FALSE(TrainingScenario::Parse(R"({"collectives": {"splitDataOnQps": "yes"}})",
                                         "scn.json",
                                         s,
                                         &error));
    EXPECT_NE(error.find("scn.json: /collectives/splitDataOnQps: expected true or false, got "
                         "\"yes\""),
              std::string::npos)
        << error;
    EXPECT_FALSE(
        TrainingScenario::Parse(R"({"collectives": {"chunkBytes": 1}})", "scn.json", s, &error));
    EXPECT_NE(
        error.find(
            "/collectives/chunkBytes: must be 0 (each algorithm's default chunk) or at least 4096"),
        std::string::npos)
        << error;
    EXPECT_FALSE(
        TrainingScenario::Parse(R"({"cluster": {"servers": 2, "pods": 2, "nicRate": "25Gbps",
        "spines": 1024, "oversubscription": 64}})",
                                "scn.json",
                                s,
                                &error));
    EXPECT_NE(error.find("/cluster: the leaf-to-spine links would run at"), std::string::npos)
        << error;
}

TEST(TrainingSimulation, CommandLineStyleOverridesBeatThePreset)
{
    // fabric/config (where the program also puts --ns3:: arguments) wins over the GPU preset.
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(
        TrainingScenario::Parse(R"({"cluster": {"servers": 1, "gpusPerServer": 2, "spines": 1},
        "fabric": {"config": {"ns3::NvSwitchFabric::PerLinkRate": "1Gbps"}},
        "workload": {"format": "generator", "model": {"layers": 1, "hidden": 256, "heads": 4,
        "seqLength": 64, "vocab": 100, "tp": 2, "globalBatch": 1}}, "outputs": {"plots": false}})",
                                "scn.json",
                                s,
                                &error))
        << error;
    const nlohmann::json r = RunScenario(s, OutDir("override"));
    ASSERT_TRUE(r["finished"].get<bool>());
    // 18 links of 1 Gb/s instead of 25 GB/s each: the TP all-reduce crawls.
    for (const auto& c : r["communication"])
    {
        EXPECT_LT(c["mean_busbw_Bps"].get<double>(), 18 * 1e9 / 8) << c.dump();
    }
}

TEST(TrainingSimulation, ClusterFromATopologyFile)
{
    // Two servers of two GPUs, each server's GPUs on their own leaf, one spine: TP stays on
    // NVLink, DP crosses the spine.
    const std::string topo = aifabric::TestDir() + "topology.json";
    {
        std::ofstream out(topo);
        out << R"({"hosts": {"count": 4, "prefix": "gpu"},
                   "switches": [{"name": "leaf0"}, {"name": "leaf1"}, {"name": "spine"}],
                   "defaults": {"rate": "100Gbps", "delay": "1us"}, "gpusPerServer": 2,
                   "links": [{"a": "gpu0", "b": "leaf0"}, {"a": "gpu1", "b": "leaf0"},
                             {"a": "gpu2", "b": "leaf1"}, {"a": "gpu3", "b": "leaf1"},
                             {"a": "leaf0", "b": "spine"}, {"a": "leaf1", "b": "spine"}]})";
    }
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(
        TrainingScenario::Parse(R"({"cluster": {"topology": "file", "file": ")" + topo + R"("},
        "workload": {"format": "generator", "model": {"layers": 2, "hidden": 512, "heads": 8,
        "seqLength": 128, "vocab": 1000, "tp": 2, "dp": 2, "globalBatch": 2}}, "outputs": {"plots": false}})",
                                "file.json",
                                s,
                                &error))
        << error;
    const nlohmann::json r = RunScenario(s, OutDir("topology-file"));
    ASSERT_TRUE(r["finished"].get<bool>());
    EXPECT_EQ(r["scenario"]["servers"], 2);
    EXPECT_EQ(r["scenario"]["gpusPerServer"], 2);
    EXPECT_EQ(r["fabric"]["switches"].size(), 3u);
    EXPECT_GT(r["fabric"]["inter_server_flows"].get<uint64_t>(), 0u); // the DP all-reduce
    bool dpOverRdma = false;
    for (const auto& c : r["communication"])
    {
        dpOverRdma =
            dpOverRdma || (c["group_kind"] == "dp" && c["mean_busbw_Bps"].get<double>() < 12.5e9);
    }
    EXPECT_TRUE(dpOverRdma) << r["communication"].dump();

    // A missing file is an error, named; so is a "file" key without the topology.
    TrainingScenario fresh;
    EXPECT_FALSE(
        TrainingScenario::Parse(R"({"cluster": {"file": "x.json"}})", "scn.json", fresh, &error));
    EXPECT_NE(error.find("/cluster/file"), std::string::npos) << error;
    ASSERT_TRUE(
        TrainingScenario::Parse(R"({"cluster": {"topology": "file", "file": "missing.json"}})",
                                aifabric::TestDir() + "scn.json",
                                s,
                                &error));
    TrainingSimulation sim(s);
    EXPECT_FALSE(sim.ApplyGlobalSettings(&error) && sim.Build(&error));
    EXPECT_NE(error.find(aifabric::TestDir() + "missing.json: cannot open"), std::string::npos)
        << error;
}

// The rail-aligned ring is a scenario algorithm like any other, reported under its own
// name; the flat ring funnels a two-server data-parallel all-reduce through two NICs, and
// auto, asked for nothing in particular, does at least as well as the rail-aligned ring.
TEST(TrainingSimulation, RailAlignedRingInScenarios)
{
    std::map<std::string, double> busBw;
    for (const std::string algorithm : {"rail-ring", "ring", "auto"})
    {
        TrainingScenario s;
        std::string error;
        ASSERT_TRUE(TrainingScenario::Parse(
            R"({"cluster": {"servers": 2, "gpusPerServer": 8, "spines": 2},
                "workload": {"format": "generator", "model": {"layers": 1, "hidden": 1024,
                "heads": 8, "seqLength": 64, "vocab": 100, "tp": 1, "dp": 16, "globalBatch": 16}},
                "collectives": {"algorithm": ")" +
                algorithm + R"("},
                "outputs": {"plots": false}})",
            "rail.json",
            s,
            &error))
            << error;
        const nlohmann::json r = RunScenario(s, OutDir("rail-" + algorithm));
        ASSERT_TRUE(r["finished"].get<bool>());
        for (const auto& c : r["communication"])
        {
            if (c["group_kind"] == "dp" && c["collective"] == "all-reduce")
            {
                EXPECT_EQ(c["requested"], algorithm);
                if (algorithm != "auto")
                {
                    EXPECT_EQ(c["algorithm"], algorithm);
                }
                busBw[algorithm] = c["mean_busbw_Bps"].get<double>();
            }
        }
    }
    ASSERT_EQ(busBw.size(), 3u);
    // 16 ranks: the flat ring crosses servers over one NIC pair (~48.7 GB/s); the rail ring
    // uses all eight rails.
    EXPECT_LT(busBw["ring"], 50e9);
    EXPECT_GT(busBw["rail-ring"], 3 * busBw["ring"]);
    EXPECT_GE(busBw["auto"], 0.95 * busBw["rail-ring"]);
}

TEST(TrainingScenario, EventsAndBackgroundAreChecked)
{
    auto parseFails = [](const std::string& text, const std::string& expect) {
        TrainingScenario s;
        std::string error;
        EXPECT_FALSE(TrainingScenario::Parse(text, "scn.json", s, &error));
        EXPECT_NE(error.find("scn.json: " + expect), std::string::npos)
            << "expected '" << expect << "' in: " << error;
    };
    parseFails(R"({"events": {"at": "1ms"}})",
               "/events: expected a list of {\"at\", \"fail\" or \"recover\"}");
    parseFails(R"({"events": [{"fail": "sw0-sw8"}]})",
               "/events/0: expected \"at\": a time such as \"5ms\"");
    parseFails(R"({"events": [{"at": "1ms", "fail": "sw0-sw8", "recover": "sw0-sw8"}]})",
               "/events/0: expected exactly one of \"fail\" and \"recover\"");
    parseFails(R"({"events": [{"at": "1ms", "fail": "sw0sw8"}]})",
               "/events/0/fail: expected a cable as two node names of links.csv, such as "
               "\"sw0-sw8\", got \"sw0sw8\"");
    parseFails(R"({"events": [{"at": "soon", "fail": "sw0-sw8"}]})", "/events/0/at: expected a");
    parseFails(R"({"events": [{"at": "1ms", "fail": "sw0-sw8", "why": 1}]})",
               "/events/0/why: unknown setting");
    parseFails(R"({"background": {"flowSizes": "webserch"}})",
               "/background/flowSizes: expected alistorage2019, fb-hadoop, websearch or a CDF "
               "file: webserch: cannot be read");
    parseFails(R"({"background": {"load": 0}})", "/background/load");
    parseFails(R"({"background": {"pairs": [[0, 1], [2, 2]]}})",
               "/background/pairs/1: expected a list of [source, destination] host indices, "
               "two different integers, got [2,2]");

    const std::string small = SMALL_SCENARIO;
    auto buildFails = [](const std::string& text, const std::string& expect) {
        TrainingScenario s;
        std::string error;
        ASSERT_TRUE(TrainingScenario::Parse(text, "scn.json", s, &error)) << error;
        TrainingSimulation sim(s);
        EXPECT_FALSE(sim.ApplyGlobalSettings(&error) && sim.Build(&error));
        EXPECT_NE(error.find("scn.json: " + expect), std::string::npos)
            << "expected '" << expect << "' in: " << error;
        Simulator::Destroy();
    };
    // 2 servers x 2 GPUs: hosts nic0..nic3, rail leaves sw0 and sw1, spine sw2.
    buildFails("{" + small + R"(, "events": [{"at": "1ms", "fail": "sw0-sw99"}]})",
               "/events/0/fail: no node \"sw99\" (nodes are nic0 to nic3 and sw0 to sw2, as in "
               "links.csv)");
    buildFails("{" + small + R"(, "events": [{"at": "1ms", "recover": "nic0-sw2"}]})",
               "/events/0/recover: no cable between nic0 and sw2");
    buildFails("{" + small + R"(, "background": {"pairs": [[0, 1], [3, 4]]}})",
               "/background/pairs/1: host 4 does not exist (hosts 0 to 3)");
    // HPCC's telemetry cannot name a 266.7 Gb/s uplink (2 x 400G NICs per leaf, 3:1).
    buildFails(R"({"cluster": {"servers": 2, "gpusPerServer": 2, "spines": 1,
        "oversubscription": 3}, "fabric": {"congestionControl": "ns3::RoceHpcc"},
        "workload": {"format": "generator", "model": {"layers": 2, "hidden": 256, "heads": 4,
        "seqLength": 64, "vocab": 100, "tp": 2, "dp": 2, "globalBatch": 2}}})",
               "/fabric/congestionControl: ns3::RoceHpcc needs in-band telemetry, whose hop "
               "records cannot name the 266.667 Gb/s of switch node");
    buildFails(R"({"cluster": {"topology": "ideal", "servers": 2, "gpusPerServer": 2},
        "workload": {"format": "generator", "model": {"layers": 2, "hidden": 256, "heads": 4,
        "seqLength": 64, "vocab": 100, "tp": 2, "dp": 2, "globalBatch": 2}},
        "background": {"flowSizes": "fb-hadoop"}})",
               "/background: needs a packet fabric (topology \"rail-optimized\" or \"file\")");
}

namespace
{
/// What a run with or without a cut measured.
struct CutRun
{
    bool finished{false};
    double iteration{0};                     //!< seconds
    uint64_t received{0};                    //!< RDMA payload delivered to every NIC
    Time dpLaunch;                           //!< the longest DP all-reduce: its start
    Time dpEnd;                              //!< and its end
    std::string cable;                       //!< a leaf-spine cable that carried bytes ("swA-swB")
    std::pair<uint32_t, uint32_t> cablePort; //!< its leaf end: switch index, port
    uint64_t cableBytesAtCut{0};             //!< what the watched leaf port had sent by the cut
};

/// Run s; remember a leaf-to-spine cable that carried bytes, and what the cable in
/// "watch" (a leaf port: switch index, port) had sent at time "at".
CutRun
RunCut(const TrainingScenario& s, std::pair<uint32_t, uint32_t> watch, Time at)
{
    CutRun r;
    TrainingSimulation sim(s);
    std::string error;
    EXPECT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    const RoceTopology& net = sim.GetCluster().network;
    if (!at.IsZero())
    {
        Ptr<RoceNetDevice> port = net.switchObjects[watch.first]->GetPort(watch.second);
        Simulator::Schedule(at, [&r, port]() { r.cableBytesAtCut = port->GetTxBytes(); });
    }
    sim.Run(false);
    r.finished = sim.GetRunner()->IsFinished();
    r.iteration = Simulator::Now().GetSeconds();
    for (const auto& nic : net.nics)
    {
        for (uint32_t q = 0; q < nic->GetNQueuePairs(); ++q)
        {
            r.received += nic->GetQueuePair(q)->GetBytesReceived();
        }
    }
    for (const auto& c : sim.GetRunner()->GetCalls())
    {
        if (c.group.str().rfind("dp", 0) == 0 && c.end - c.launch > r.dpEnd - r.dpLaunch)
        {
            r.dpLaunch = c.launch;
            r.dpEnd = c.end;
        }
    }
    // Leaves are the switches with hosts on them; a leaf port whose far end is a switch
    // is an uplink.
    std::map<uint32_t, uint32_t> switchOfNode;
    for (uint32_t j = 0; j < net.switchObjects.size(); ++j)
    {
        switchOfNode[net.switchObjects[j]->GetPort(0)->GetNode()->GetId()] = j;
    }
    for (uint32_t j = 0; j < net.switchObjects.size() && r.cable.empty(); ++j)
    {
        for (uint32_t p = 0; p < net.switchObjects[j]->GetNPorts(); ++p)
        {
            Ptr<RoceNetDevice> port = net.switchObjects[j]->GetPort(p);
            Ptr<RoceChannel> cable = port->GetRoceChannel();
            Ptr<RoceNetDevice> far =
                cable->GetRoceDevice(0) == port ? cable->GetRoceDevice(1) : cable->GetRoceDevice(0);
            auto k = switchOfNode.find(far->GetNode()->GetId());
            if (k != switchOfNode.end() && k->second > j && port->GetTxBytes() > 0)
            {
                r.cable = FabricMonitor::SwitchName(j) + "-" + FabricMonitor::SwitchName(k->second);
                r.cablePort = {j, p};
                break;
            }
        }
    }
    Simulator::Destroy();
    return r;
}
} // namespace

// A cable that the collective's own flows cross is cut while they run: the iteration
// completes with every byte delivered (go-back-N resends what was lost; routes converge
// around the cut), later than without the cut.
TEST(TrainingScenario, CableCutUnderTheCollectivesTraffic)
{
    // Four data-parallel ranks on 2 servers x 2 GPUs, a flat ring: ranks 1 -> 2 and 3 -> 0
    // change rails, so the all-reduce crosses the spines.
    const std::string text =
        R"({"cluster": {"servers": 2, "gpusPerServer": 2, "spines": 2, "nicRate": "100Gbps"},
        "workload": {"format": "generator", "model": {"layers": 4, "hidden": 1024, "heads": 8,
        "seqLength": 512, "vocab": 1000, "tp": 1, "dp": 4, "globalBatch": 4}},
        "collectives": {"algorithm": "ring"}, "outputs": {"plots": false}})";
    TrainingScenario plain;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse(text, "scn.json", plain, &error)) << error;
    const CutRun base = RunCut(plain, {0, 0}, Time());
    ASSERT_TRUE(base.finished);
    ASSERT_FALSE(base.cable.empty()) << "no DP bytes crossed a spine";
    ASSERT_GT(base.dpEnd, base.dpLaunch);
    // Cut it a third into the longest DP all-reduce, for good.
    const Time at = base.dpLaunch + (base.dpEnd - base.dpLaunch) / 3;
    nlohmann::json doc = nlohmann::json::parse(text);
    doc["events"] = nlohmann::json::array(
        {{{"at", std::to_string(at.GetNanoSeconds()) + "ns"}, {"fail", base.cable}}});
    TrainingScenario cut;
    ASSERT_TRUE(TrainingScenario::Parse(doc.dump(), "scn.json", cut, &error)) << error;
    const CutRun r = RunCut(cut, base.cablePort, at);
    std::cout << "[ measured ] " << base.cable << " cut at " << at.As(Time::US)
              << " (DP all-reduce " << base.dpLaunch.As(Time::US) << " to "
              << base.dpEnd.As(Time::US) << ", the cable had carried " << r.cableBytesAtCut
              << " B): iteration " << base.iteration * 1e3 << " ms -> " << r.iteration * 1e3
              << " ms, " << r.received << " of " << base.received << " B delivered\n";
    EXPECT_GT(r.cableBytesAtCut, 0u) << "the collective's flows did not use the cable";
    ASSERT_TRUE(r.finished) << "the iteration completes over the cut";
    EXPECT_EQ(r.received, base.received) << "every byte delivered, once";
    EXPECT_GT(r.iteration, base.iteration);
}

// results.json's fabric.pfc_deadlocks: a training run on a five-switch ring whose
// send/recv pattern closes a cyclic buffer dependency (each rank writes to the rank two
// switches clockwise, no congestion control, small buffers) is reported stuck, and the
// report names the deadlock's cycle: the five clockwise ring ports, priority 3.
TEST(TrainingSimulation, PfcDeadlockOfARunIsInTheResults)
{
    std::ostringstream topo;
    topo << R"({"hosts": {"count": 5, "prefix": "h"}, "switches": {"count": 5, "prefix": "s"},)"
         << R"("gpusPerServer": 1, "defaults": {"rate": "100Gbps", "delay": "1us"}, "links": [)";
    for (uint32_t i = 0; i < 5; ++i)
    {
        topo << R"({"a": "h)" << i << R"(", "b": "s)" << i << R"("}, {"a": "s)" << i
             << R"(", "b": "s)" << (i + 1) % 5 << R"("})" << (i < 4 ? ", " : "");
    }
    topo << "]}";
    const std::string topoFile = aifabric::TestDir() + "ring.json";
    std::ofstream(topoFile) << topo.str();
    TrainingTrace t(5);
    for (uint32_t r = 0; r < 5; ++r)
    {
        TraceOp send;
        send.kind = TraceOpKind::SEND;
        send.name = "send";
        send.peer = (r + 2) % 5;
        send.bytes = 4 << 20;
        send.stream = 1;
        t.AddOp(r, send);
        TraceOp recv = send;
        recv.kind = TraceOpKind::RECV;
        recv.name = "recv";
        recv.peer = (r + 3) % 5;
        recv.stream = 2;
        t.AddOp(r, recv);
    }
    const std::string traceFile = aifabric::TestDir() + "ring-trace.json";
    std::string error;
    ASSERT_TRUE(TraceJson::Write(t, traceFile, &error)) << error;
    TrainingScenario s;
    ASSERT_TRUE(TrainingScenario::Parse(R"({"cluster": {"topology": "file", "file": ")" + topoFile +
                                            R"("}, "workload": {"format": "json", "file": ")" +
                                            traceFile +
                                            R"("}, "fabric": {"congestionControl": "none",
                "config": {"ns3::SharedBufferMmu::BufferSize": "262144"}},
            "run": {"hangTimeout": "2ms"}, "outputs": {"plots": false}})",
                                        "ring.json",
                                        s,
                                        &error))
        << error;
    bool stuck = false;
    const nlohmann::json r = RunScenario(s, OutDir("ring"), &stuck);
    EXPECT_TRUE(stuck);
    const auto& deadlocks = r["fabric"]["pfc_deadlocks"];
    ASSERT_EQ(deadlocks.size(), 1u) << r["fabric"].dump();
    std::cout << "[ measured ] results.json fabric.pfc_deadlocks: " << deadlocks.dump() << "\n";
    const auto& cycle = deadlocks[0]["cycle"];
    ASSERT_EQ(cycle.size(), 5u) << deadlocks.dump();
    std::set<std::string> switches;
    for (const auto& q : cycle)
    {
        switches.insert(q["switch"].get<std::string>());
        EXPECT_EQ(q["priority"], 3);
        // Ports are numbered in the file's link order (h_i-s_i, s_i-s_i+1, ...): s0 has
        // its host, then s1 (clockwise, port 1), then s4; every other s_i has s_i-1
        // (port 0), its host, then s_i+1 (clockwise, port 2). The cycle is those ports.
        EXPECT_EQ(q["port"], q["switch"] == "sw0" ? 1 : 2) << q.dump();
    }
    EXPECT_EQ(switches, (std::set<std::string>{"sw0", "sw1", "sw2", "sw3", "sw4"}));
    EXPECT_GT(deadlocks[0]["detected_s"].get<double>(), deadlocks[0]["formed_s"].get<double>());
}

// results.json's ina_jobs, counted by the carrier where the bytes went: with one
// streaming aggregator shared by two jobs fragments collide and are summed by the
// fallback host (some, or all of a job's); with SwitchML and one job per switch the second group's
// job is refused with the reason and its all-reduces run on the hosts.
TEST(TrainingSimulation, InaJobsAreInTheResults)
{
    // Eight servers of one GPU on one leaf; pipeline 2 x data 4: the two DP groups'
    // jobs share the leaf's aggregators.
    const std::string cluster = R"("cluster": {"servers": 8, "gpusPerServer": 1, "spines": 1},
        "workload": {"format": "generator", "model": {"layers": 2, "hidden": 512, "heads": 4,
        "seqLength": 128, "vocab": 1000, "tp": 1, "pp": 2, "dp": 4, "globalBatch": 8}},
        "collectives": {"algorithm": "auto", "protocol": "none"}, "outputs": {"plots": false})";
    // protocol none: the wire bound, so both groups' all-reduces start together and their
    // fragments collide on the one aggregator (with the protocols' latencies they need not).
    std::string error;
    TrainingScenario streaming;
    ASSERT_TRUE(
        TrainingScenario::Parse("{" + cluster + R"(, "fabric": {"ina": "streaming", "config":
            {"ns3::InaAggregationEngine::StreamingAggregators": "1"}}})",
                                "ina.json",
                                streaming,
                                &error))
        << error;
    const nlohmann::json a = RunScenario(streaming, OutDir("ina-streaming"));
    ASSERT_TRUE(a["finished"].get<bool>());
    ASSERT_EQ(a["ina_jobs"].size(), 2u) << a["ina_jobs"].dump(); // one job per DP group
    uint64_t onSwitch = 0;
    for (const auto& job : a["ina_jobs"])
    {
        EXPECT_TRUE(job["in_network"].get<bool>()) << job.dump();
        EXPECT_EQ(job["members"].size(), 4u);
        EXPECT_GT(job["bytes_in_network"].get<uint64_t>(), 0u) << job.dump();
        EXPECT_GT(job["bytes_via_fallback_host"].get<uint64_t>(), 0u) << job.dump();
        EXPECT_LE(job["bytes_via_fallback_host"].get<uint64_t>(),
                  job["bytes_in_network"].get<uint64_t>());
        onSwitch += job["bytes_in_network"].get<uint64_t>() -
                    job["bytes_via_fallback_host"].get<uint64_t>();
    }
    EXPECT_GT(onSwitch, 0u) << "the switch summed nothing";
    std::cout << "[ measured ] streaming, one aggregator: " << a["ina_jobs"].dump() << "\n";

    TrainingScenario switchml;
    ASSERT_TRUE(TrainingScenario::Parse("{" + cluster + R"(, "fabric": {"ina": "switchml", "config":
            {"ns3::InaAggregationEngine::MaxJobs": "1"}}})",
                                        "ina.json",
                                        switchml,
                                        &error))
        << error;
    const nlohmann::json b = RunScenario(switchml, OutDir("ina-switchml"));
    ASSERT_TRUE(b["finished"].get<bool>());
    std::cout << "[ measured ] switchml, MaxJobs 1: " << b["ina_jobs"].dump() << "\n";
    ASSERT_EQ(b["ina_jobs"].size(), 2u) << b["ina_jobs"].dump();
    uint32_t inNetwork = 0;
    for (const auto& job : b["ina_jobs"])
    {
        if (job["in_network"].get<bool>())
        {
            ++inNetwork;
            EXPECT_GT(job["bytes_in_network"].get<uint64_t>(), 0u);
            EXPECT_EQ(job["bytes_via_fallback_host"], 0);
        }
        else
        {
            EXPECT_NE(job["reason"].get<std::string>().find("the switch serves MaxJobs (1) jobs "
                                                            "already"),
                      std::string::npos)
                << job.dump();
            EXPECT_EQ(job["bytes_in_network"], 0);
        }
    }
    EXPECT_EQ(inNetwork, 1u);
}

TEST(TrainingScenario, LinkFailureAndBackgroundBesideTraining)
{
    // Two servers of two GPUs, one spine: the DP all-reduces cross the spine. The cable
    // sw0-sw2 fails early and is mended later; fb-hadoop flows at 20 % run beside.
    const std::string text =
        R"({"cluster": {"servers": 2, "gpusPerServer": 2, "spines": 1, "nicRate": "100Gbps"},
        "workload": {"format": "generator", "model": {"layers": 4, "hidden": 1024, "heads": 8,
        "seqLength": 512, "vocab": 1000, "tp": 2, "dp": 2, "globalBatch": 4}},
        "outputs": {"plots": false}})";
    TrainingScenario plain;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse(text, "scn.json", plain, &error)) << error;
    const nlohmann::json base = RunScenario(plain, OutDir("events-base"));
    ASSERT_TRUE(base["finished"].get<bool>());
    const double baseTime = base["iterations"][0]["time_s"].get<double>();

    nlohmann::json doc = nlohmann::json::parse(text);
    doc["events"] = nlohmann::json::array(
        {{{"at", "20us"}, {"fail", "sw0-sw2"}}, {{"at", "3ms"}, {"recover", "sw0-sw2"}}});
    doc["background"] = {{"flowSizes", "fb-hadoop"}, {"load", 0.2}};
    TrainingScenario s;
    ASSERT_TRUE(TrainingScenario::Parse(doc.dump(), "scn.json", s, &error)) << error;
    const nlohmann::json r = RunScenario(s, OutDir("events"));
    ASSERT_TRUE(r["finished"].get<bool>()) << "the collectives complete over the cut";
    const double time = r["iterations"][0]["time_s"].get<double>();
    const auto& bg = r["fabric"]["background"];
    std::cout << "[ measured ] iteration " << baseTime * 1e3 << " ms alone, " << time * 1e3
              << " ms with the cut and background; " << bg["flows"] << " background flows, "
              << bg["finished"] << " finished\n";
    EXPECT_GT(time, baseTime);
    EXPECT_GT(bg["flows"].get<uint32_t>(), 10u);
    EXPECT_EQ(bg["finished"], bg["flows"]) << "background flows run to completion";
    EXPECT_TRUE(std::filesystem::exists(OutDir("events") + "/background-fct.csv"));
    // Same seed, same run.
    const nlohmann::json again = RunScenario(s, OutDir("events-again"));
    EXPECT_EQ(again["iterations"][0]["time_s"], r["iterations"][0]["time_s"]);
    EXPECT_EQ(again["fabric"]["background"], bg);
}

// /run/replayCalls: true unless the scenario says false (--replay-calls the same).
TEST(TrainingSimulation, ReplayCallsIsAScenarioKey)
{
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse("{" + SMALL_SCENARIO + "}", "scn.json", s, &error))
        << error;
    EXPECT_TRUE(s.replayCalls);
    ASSERT_TRUE(
        TrainingScenario::Parse("{" + SMALL_SCENARIO + R"(, "run": {"replayCalls": false}})",
                                "scn.json",
                                s,
                                &error))
        << error;
    EXPECT_FALSE(s.replayCalls);
    EXPECT_FALSE(TrainingScenario::Parse("{" + SMALL_SCENARIO + R"(, "run": {"replayCalls": 3}})",
                                         "scn.json",
                                         s,
                                         &error));
    EXPECT_NE(error.find("/run/replayCalls"), std::string::npos) << error;
}

// The engine's plan cache changes nothing but the work: the same run without it
// (PlanCacheTransfers 0) has the same iteration time and per-collective times, to the
// picosecond, and the same events; with it, repeated calls are answered from the cache.
TEST(TrainingSimulation, ThePlanCacheChangesNoResult)
{
    auto run = [](const std::string& config, const std::string& dir, uint64_t* hits) {
        TrainingScenario s;
        std::string error;
        EXPECT_TRUE(
            TrainingScenario::Parse("{" + SMALL_SCENARIO + config + "}", "scn.json", s, &error))
            << error;
        s.plots = false;
        s.replayCalls = false; // replays need cached plans: events would differ
        TrainingSimulation sim(s);
        EXPECT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
        sim.Run(false);
        *hits = sim.GetRunner()->GetEngine()->GetPlanCacheStats().hits;
        TrainingReport report(sim);
        EXPECT_FALSE(report.Write(dir, false, &error).empty()) << error;
        Simulator::Destroy();
        return nlohmann::json::parse(Slurp(dir + "/results.json"));
    };
    uint64_t hits = 0;
    uint64_t hitsOff = 0;
    const nlohmann::json cached = run("", OutDir("plan-cache-on"), &hits);
    const nlohmann::json built =
        run(R"(, "fabric": {"config": {"ns3::CollectiveEngine::PlanCacheTransfers": "0"}})",
            OutDir("plan-cache-off"),
            &hitsOff);
    Config::Reset();
    EXPECT_GT(hits, 0u);
    EXPECT_EQ(hitsOff, 0u);
    EXPECT_EQ(cached["iterations"], built["iterations"]);
    EXPECT_EQ(cached["communication"], built["communication"]);
    EXPECT_EQ(cached["run"]["events"], built["run"]["events"]);
}

// The summary and results.json name the scheduler the run was on (the one a program's
// ProgramOptions chose, the priority queue, or what the user set) and the allocator.
TEST(TrainingSimulation, TheReportNamesTheScheduler)
{
    ProgramOptions program("ai-fabric-sim"); // makes the default scheduler the global one
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse("{" + SMALL_SCENARIO + "}", "scn.json", s, &error))
        << error;
    TrainingSimulation sim(s);
    ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    sim.Run(false);
    TrainingReport report(sim);
    std::ostringstream summary;
    report.PrintSummary(summary);
    // The test programs keep glibc's allocator, ASan's when sanitized (the standalone
    // build links tcmalloc into the programs only; the default-scenario check sees it
    // there).
#if defined(__SANITIZE_ADDRESS__)
    const std::string allocator = "asan";
#else
    const std::string allocator = "glibc";
#endif
    EXPECT_EQ(ProgramOptions::GetAllocator(), allocator);
    EXPECT_NE(summary.str().find(std::string(" M events, ") + ProgramOptions::DEFAULT_SCHEDULER +
                                 ", " + allocator + ")"),
              std::string::npos)
        << summary.str();
    const std::string dir = OutDir("scheduler");
    EXPECT_FALSE(report.Write(dir, false, &error).empty()) << error;
    Simulator::Destroy();
    const nlohmann::json r = nlohmann::json::parse(Slurp(dir + "/results.json"));
    EXPECT_EQ(r["run"]["scheduler"], ProgramOptions::DEFAULT_SCHEDULER);
    EXPECT_EQ(r["run"]["allocator"], allocator);
}
