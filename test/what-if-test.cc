// SPDX-License-Identifier: GPL-2.0-only
// What-ifs from the command line (ScenarioOverrides, as ai-fabric-sim registers them):
// every option reaches the cluster that is built, bad values are one message naming the
// option, the workload's format is told from the file, and a workload smaller than the
// cluster is reported with the idle GPUs.
#include "test-util.h"

#include "ns3/scenario-overrides.h"
#include "ns3/trace-json.h"
#include "ns3/training-scenario.h"
#include "ns3/training-simulation.h"
#include "ns3/transformer-trace-generator.h"

#include <fstream>
#include <gtest/gtest.h>
#include <map>

using namespace ns3;
using aifabric::NsTest;

namespace
{
/// 16 ranks: TP 4 x DP 4.
const char* MODEL_TP4_DP4 = R"({"layers": 2, "hidden": 512, "heads": 8, "seqLength": 128,
    "vocab": 1000, "tp": 4, "dp": 4, "globalBatch": 4})";

std::string
TempFile(const std::string& name, const std::string& content)
{
    const std::string path = aifabric::TestDir() + name;
    std::ofstream out(path, std::ios::binary);
    out << content;
    return path;
}

/// Records what a program's command line would be given.
struct FakeCommandLine
{
    std::map<std::string, std::string> help;
    std::map<std::string, std::string*> fields;

    void AddValue(const std::string& name, const std::string& text, std::string& value)
    {
        help[name] = text;
        fields[name] = &value;
    }

    void AddList(const std::string& name, const std::string& text, std::vector<std::string>&)
    {
        help[name] = text;
    }
};
} // namespace

// The options the issue asks for, each registered with a help text.
TEST(WhatIf, EveryOptionIsOnTheCommandLineWithHelp)
{
    ScenarioOverrides o;
    FakeCommandLine cmd;
    o.AddTo(cmd);
    for (const char* name : {"workload",
                             "workload-format",
                             "servers",
                             "gpusPerServer",
                             "gpu",
                             "nicRate",
                             "spines",
                             "pods",
                             "oversubscription",
                             "topology",
                             "fabric",
                             "cc",
                             "ina",
                             "algorithm",
                             "protocol",
                             "channels",
                             "qpsPerConnection",
                             "splitDataOnQps",
                             "ringTransfersPerPhase",
                             "computeScale",
                             "compress",
                             "parameterServers",
                             "straggler",
                             "jitter",
                             "failGpu",
                             "slowNic",
                             "restart",
                             "fast-forward",
                             "replay-calls",
                             "job"})
    {
        ASSERT_EQ(cmd.help.count(name), 1u) << name;
        EXPECT_GT(cmd.help[name].size(), 10u) << name;
    }
    EXPECT_EQ(cmd.help.size(), 30u);
    *cmd.fields["servers"] = "4";
    EXPECT_EQ(o.servers, "4");
}

// Every option reaches the cluster the simulation builds, over the scenario's values.
TEST_F(NsTest, WhatIfOptionsOverrideTheScenario)
{
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse(
        std::string(R"({"cluster": {"servers": 2, "gpusPerServer": 8, "gpu": "H100",
        "nicRate": "400Gbps", "spines": 2}, "collectives": {"algorithm": "auto", "channels": 8},
        "workload": {"format": "generator", "model": )") +
            MODEL_TP4_DP4 + "}}",
        "scn.json",
        s,
        &error))
        << error;
    ScenarioOverrides o;
    o.servers = "4";
    o.gpusPerServer = "4";
    o.gpu = "A100";
    o.nicRate = "200Gbps";
    o.spines = "3";
    o.oversubscription = "2";
    o.cc = "none";
    o.ina = "switchml";
    o.algorithm = "ring";
    o.channels = "2";
    o.qpsPerConnection = "4";
    o.splitDataOnQps = "true";
    o.ringTransfersPerPhase = "3";
    o.computeScale = "1.5";
    o.fastForward = "off";
    o.replayCalls = "off";
    ASSERT_TRUE(o.Apply(s, &error)) << error;
    EXPECT_EQ(s.fastForward, "off");
    EXPECT_FALSE(s.replayCalls);
    EXPECT_EQ(s.ina, "switchml");
    EXPECT_EQ(s.servers, 4u);
    EXPECT_EQ(s.gpusPerServer, 4u);
    EXPECT_EQ(s.gpu, "A100");
    EXPECT_EQ(s.nicRate, DataRate("200Gbps"));
    EXPECT_EQ(s.spines, 3u);
    EXPECT_DOUBLE_EQ(s.oversubscription, 2.0);
    EXPECT_EQ(s.congestionControl, "ns3::NoCongestionControl");
    EXPECT_EQ(s.algorithm, "ring");
    EXPECT_EQ(s.channels, 2u);
    EXPECT_EQ(s.qpsPerConnection, 4u);
    EXPECT_TRUE(s.splitDataOnQps);
    EXPECT_EQ(s.GetRingTransfersPerPhase(), 3u);
    EXPECT_DOUBLE_EQ(s.computeScale, 1.5);
    EXPECT_EQ(
        s.name,
        "default (what-if: --servers=4 --gpusPerServer=4 --gpu=A100 --nicRate=200Gbps --spines=3 "
        "--oversubscription=2 --cc=none --ina=switchml --algorithm=ring --channels=2 "
        "--qpsPerConnection=4 --splitDataOnQps=true --ringTransfersPerPhase=3 --computeScale=1.5 "
        "--fast-forward=off "
        "--replay-calls=off)");

    TrainingSimulation sim(s);
    ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    const GpuCluster& c = sim.GetCluster();
    EXPECT_EQ(sim.GetWorld().GetSize(), 16u);
    ASSERT_EQ(c.network.nics.size(), 16u);
    EXPECT_EQ(c.network.nics[0]->GetDevice()->GetDataRate(), DataRate("200Gbps"));
    // Rail-optimized: one leaf per rail (4) and the 3 spines.
    EXPECT_EQ(c.network.switchObjects.size(), 4u + 3u);
    ASSERT_EQ(c.nvSwitches.size(), 4u);
    EXPECT_EQ(c.nvSwitches[0]->GetPortRate(), DataRate("2400Gbps")); // A100: 12 x 25 GB/s
    EXPECT_EQ(sim.GetTrace().GetGpu(), "A100");
    UintegerValue channels;
    StringValue algorithm;
    sim.GetRunner()->GetEngine()->GetAttribute("Channels", channels);
    sim.GetRunner()->GetEngine()->GetAttribute("Algorithm", algorithm);
    EXPECT_EQ(channels.Get(), 2u);
    EXPECT_EQ(algorithm.Get(), "ring");
    UintegerValue qps;
    BooleanValue split;
    c.scaleOut->GetAttribute("QpsPerConnection", qps);
    c.scaleOut->GetAttribute("SplitDataOnQps", split);
    EXPECT_EQ(qps.Get(), 4u);
    EXPECT_TRUE(split.Get());
    // --ina: an engine on every RoCE switch, the scale-out carrier aggregates.
    for (const auto& sw : c.network.switchObjects)
    {
        EXPECT_NE(sw->GetPort(0)->GetNode()->GetObject<InaAggregationEngine>(), nullptr);
    }
    Ptr<InaTransport> ina = DynamicCast<InaTransport>(c.scaleOut);
    ASSERT_NE(ina, nullptr);
    EXPECT_TRUE(ina->CanAllReduceInNetwork({0, 4, 8, 12})); // rail 0 of the 4 servers
    EXPECT_EQ(ina->GetJob({0, 4, 8, 12})->info.protocol, InaProtocol::SWITCHML);
}

TEST(WhatIf, BadValuesAreOneMessageNamingTheOption)
{
    const std::string topo = TempFile("topology.json", "{}");

    struct Case
    {
        std::string ScenarioOverrides::*field;
        std::string value;
        std::string message;
    };

    const Case cases[] = {
        {&ScenarioOverrides::servers, "0", "--servers=0: expected an integer in 1..4096"},
        {&ScenarioOverrides::servers,
         "4 servers",
         "--servers=4 servers: expected an integer in 1..4096"},
        {&ScenarioOverrides::servers, "-1", "--servers=-1: expected an integer in 1..4096"},
        {&ScenarioOverrides::gpusPerServer,
         "73",
         "--gpusPerServer=73: expected an integer in 1..72"},
        {&ScenarioOverrides::gpu,
         "V100",
         "--gpu=V100: expected a GPU preset: A100, H100, H200, B200"},
        {&ScenarioOverrides::nicRate,
         "fast",
         "--nicRate=fast: expected a positive rate such as 400Gbps"},
        {&ScenarioOverrides::spines, "0", "--spines=0: expected an integer in 1..1024"},
        {&ScenarioOverrides::oversubscription,
         "0.5",
         "--oversubscription=0.5: expected a number from 1 to 64"},
        {&ScenarioOverrides::oversubscription,
         "2x",
         "--oversubscription=2x: expected a number from 1 to 64"},
        {&ScenarioOverrides::cc,
         "ns3::Dcqcm",
         "--cc=ns3::Dcqcm: expected a congestion-control TypeId (ns3::"},
        {&ScenarioOverrides::cc,
         "ns3::Node",
         "--cc=ns3::Node: expected a congestion-control TypeId (ns3::"},
        {&ScenarioOverrides::algorithm, "rings", "--algorithm=rings: expected one of auto, ring"},
        {&ScenarioOverrides::channels, "65", "--channels=65: expected an integer in 0..64"},
        {&ScenarioOverrides::qpsPerConnection,
         "0",
         "--qpsPerConnection=0: expected an integer in 1..128"},
        {&ScenarioOverrides::qpsPerConnection,
         "129",
         "--qpsPerConnection=129: expected an integer in 1..128"},
        {&ScenarioOverrides::splitDataOnQps,
         "yes",
         "--splitDataOnQps=yes: expected true, false, on, off, 1 or 0"},
        {&ScenarioOverrides::computeScale,
         "0",
         "--computeScale=0: expected a number above 0 to 1000"},
        {&ScenarioOverrides::computeScale,
         "nan",
         "--computeScale=nan: expected a number above 0 to 1000"},
        {&ScenarioOverrides::topology,
         "missing.json",
         "--topology=missing.json: expected a topology file, "
         "rail-optimized or ideal (no such file)"},
        {&ScenarioOverrides::workload,
         "missing",
         "--workload=missing: no such file (nor Chakra rank files "
         "missing.0.et or missing.0.json)"},
        {&ScenarioOverrides::workloadFormat, "json", "--workload-format=json: needs --workload"},
        {&ScenarioOverrides::fastForward, "yes", "--fast-forward=yes: expected on, off or check"},
        {&ScenarioOverrides::replayCalls, "maybe", "--replay-calls=maybe: expected "},
        {&ScenarioOverrides::fabric, "fluid", "--fabric=fluid: expected packet or flow"},
    };
    for (const Case& c : cases)
    {
        TrainingScenario s;
        ScenarioOverrides o;
        o.*c.field = c.value;
        std::string error;
        EXPECT_FALSE(o.Apply(s, &error)) << c.value;
        EXPECT_EQ(error.substr(0, c.message.size()), c.message) << error;
        EXPECT_EQ(error.find('\n'), std::string::npos);
    }
    // Settings the cluster's source does not take are refused, not ignored.
    {
        TrainingScenario s;
        ScenarioOverrides o;
        o.topology = topo;
        o.servers = "4";
        std::string error;
        EXPECT_FALSE(o.Apply(s, &error));
        EXPECT_EQ(error,
                  "--servers=4: the topology file gives the servers (topology file " + topo + ")");
        o.servers.clear();
        o.topology = "ideal";
        o.spines = "2";
        EXPECT_FALSE(o.Apply(s, &error));
        EXPECT_EQ(error, "--spines=2: only a rail-optimized cluster has spines here");
        o.spines.clear();
        o.fabric = "flow";
        EXPECT_FALSE(o.Apply(s, &error));
        EXPECT_EQ(error, "--fabric=flow: the ideal topology has no fabric to model");
    }
    // A combination: 3 servers in the scenario's 2 pods.
    {
        TrainingScenario s;
        std::string error;
        ASSERT_TRUE(TrainingScenario::Parse(R"({"cluster": {"servers": 4, "pods": 2}})",
                                            "p.json",
                                            s,
                                            &error));
        ScenarioOverrides o;
        o.servers = "3";
        EXPECT_FALSE(o.Apply(s, &error));
        EXPECT_EQ(
            error,
            "--servers=3: 3 servers do not split into 2 equal pods (with the scenario's other "
            "settings, p.json)");
    }
    // A model config given as the workload is checked like a scenario's.
    {
        TrainingScenario s;
        ScenarioOverrides o;
        o.workload =
            TempFile("bad-model.json", R"({"layers": 2, "tp": 3, "heads": 8, "hidden": 512})");
        std::string error;
        EXPECT_FALSE(o.Apply(s, &error));
        EXPECT_EQ(error,
                  "--workload: " + o.workload +
                      ": heads 8 must divide hidden 512 and be divisible by tp 3");
    }
}

// Formats told from the files themselves (and forced with --workload-format).
TEST_F(NsTest, WhatIfWorkloadFormatIsDetected)
{
    auto gen = CreateObject<TransformerTraceGenerator>();
    TransformerConfig model;
    std::string error;
    ASSERT_TRUE(TransformerTraceGenerator::ParseConfig(MODEL_TP4_DP4, "m", model, &error)) << error;
    const std::string trace = aifabric::TestDir() + "trace.data"; // any name
    ASSERT_TRUE(TraceJson::Write(gen->Generate(model, &error), trace, &error)) << error;
    const std::string config = TempFile("model.json", MODEL_TP4_DP4);
    const std::string aicb =
        TempFile("aicb.txt", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8\n1\n");
    const std::string cj = aifabric::TestDir() + "cj";
    TempFile("cj.0.json", "[]");
    TempFile("cj.1.json", R"([{"id": 1}])");
    const std::string et = aifabric::TestDir() + "et";
    for (int r = 0; r < 3; ++r)
    {
        TempFile("et." + std::to_string(r) + ".et", std::string("\x08\x00\x12\x00", 4));
    }

    struct Case
    {
        std::string path;
        std::string format;
        std::string file;
        uint32_t ranks;
    };

    const Case cases[] = {
        {trace, "json", trace, 0},
        {config, "generator", config, 0},
        {aicb, "aicb", aicb, 0},
        {cj, "chakra-json", cj, 2},
        {cj + ".1.json", "chakra-json", cj, 2},
        {et, "chakra", et, 3},
        {et + ".2.et", "chakra", et, 3},
    };
    for (const Case& c : cases)
    {
        std::string format;
        std::string file;
        uint32_t ranks = 99;
        ASSERT_TRUE(ScenarioOverrides::DetectWorkload(c.path, format, file, ranks, &error))
            << error;
        EXPECT_EQ(format, c.format) << c.path;
        EXPECT_EQ(file, c.file) << c.path;
        EXPECT_EQ(ranks, c.ranks) << c.path;
    }
    // Through Apply: the scenario's workload is replaced; a model config is parsed.
    TrainingScenario s;
    ScenarioOverrides o;
    o.workload = config;
    ASSERT_TRUE(o.Apply(s, &error)) << error;
    EXPECT_EQ(s.traceFormat, "generator");
    EXPECT_EQ(s.generator.tp, 4u);
    EXPECT_EQ(s.generator.dp, 4u);
    o.workload = aicb;
    o.workloadFormat = "chakra";
    EXPECT_FALSE(o.Apply(s, &error));
    EXPECT_EQ(error, "--workload=" + aicb + ": no Chakra rank files {prefix}.{rank}.et");
    o.workloadFormat = "aicb";
    ASSERT_TRUE(o.Apply(s, &error)) << error;
    EXPECT_EQ(s.traceFormat, "aicb");
    EXPECT_EQ(s.traceFile, aicb);
    o.workloadFormat = "text";
    EXPECT_FALSE(o.Apply(s, &error));
    EXPECT_EQ(error,
              "--workload-format=text: expected json, generator, chakra, chakra-json or aicb");
}

// Where a generated workload came from, as the summary prints it: the --workload file, or
// the scenario's own model (not the default scenario's trace file it replaced).
TEST_F(NsTest, WhatIfGeneratedWorkloadNamesItsSource)
{
    const std::string config = TempFile("model-source.json", MODEL_TP4_DP4);
    TrainingScenario s = TrainingScenario::Default("/nowhere");
    ScenarioOverrides o;
    o.workload = config;
    o.topology = "ideal";
    std::string error;
    ASSERT_TRUE(o.Apply(s, &error)) << error;
    TrainingSimulation fromFile(s);
    ASSERT_TRUE(fromFile.ApplyGlobalSettings(&error) && fromFile.Build(&error)) << error;
    EXPECT_EQ(fromFile.GetWorkloadNote(), "generated from " + config);

    TrainingScenario t = TrainingScenario::Default("/nowhere");
    ASSERT_TRUE(TrainingScenario::Parse(std::string(R"({"cluster": {"topology": "ideal"},
        "workload": {"format": "generator", "model": )") +
                                            MODEL_TP4_DP4 + "}}",
                                        "scn.json",
                                        t,
                                        &error))
        << error;
    EXPECT_EQ(t.traceFile, "");
    TrainingSimulation fromScenario(t);
    ASSERT_TRUE(fromScenario.ApplyGlobalSettings(&error) && fromScenario.Build(&error)) << error;
    EXPECT_EQ(fromScenario.GetWorkloadNote(), "generated from the scenario's model");
}

// A 16-rank trace on a 32-GPU cluster: half the cluster idles, and the run says so.
TEST_F(NsTest, WhatIfIdleGpusAreReported)
{
    auto gen = CreateObject<TransformerTraceGenerator>();
    TransformerConfig model;
    std::string error;
    ASSERT_TRUE(TransformerTraceGenerator::ParseConfig(MODEL_TP4_DP4, "m", model, &error)) << error;
    const std::string trace = aifabric::TestDir() + "16.json";
    ASSERT_TRUE(TraceJson::Write(gen->Generate(model, &error), trace, &error)) << error;
    TrainingScenario s; // 2 x 8
    ScenarioOverrides o;
    o.workload = trace;
    o.servers = "4";
    ASSERT_TRUE(o.Apply(s, &error)) << error;
    TrainingSimulation sim(s);
    ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    ASSERT_EQ(sim.GetWarnings().size(), 1u);
    EXPECT_EQ(sim.GetWarnings()[0],
              "the workload has 16 ranks but the cluster 32 GPUs: 16 GPUs (half the "
              "cluster) stay idle");
    // The same trace on the 16 GPUs it was made for: nothing to say.
    o.servers = "2";
    ASSERT_TRUE(o.Apply(s, &error)) << error;
    TrainingSimulation fits(s);
    ASSERT_TRUE(fits.ApplyGlobalSettings(&error) && fits.Build(&error)) << error;
    EXPECT_TRUE(fits.GetWarnings().empty());
}
