// SPDX-License-Identifier: GPL-2.0-only
// GPU presets that mean the GPU: the one table (NVLink, NVLS, compute figures against the
// datasheet values of doc/ai-fabric.rst), NVLS only where the switch has it (never chosen
// on A100, refused by name when asked for), compute that follows the cluster's GPU in
// generated workloads, and the warning and computeScale of a fixed-duration trace
// replayed on another GPU.
#include "test-util.h"

#include "ns3/gpu-cluster-helper.h"
#include "ns3/gpu-preset.h"
#include "ns3/nv-switch-fabric.h"
#include "ns3/trace-json.h"
#include "ns3/training-scenario.h"
#include "ns3/training-simulation.h"
#include "ns3/transformer-trace-generator.h"

#include <gtest/gtest.h>
#include <numeric>

using namespace ns3;
using aifabric::NsTest;

namespace
{
constexpr double GBps = 1e9;

/// A 16-rank model (TP 8 inside a server, DP 2 across two) small enough to build fast.
const char* SMALL_MODEL = R"({"layers": 2, "hidden": 1024, "heads": 8, "seqLength": 512,
    "vocab": 1000, "tp": 8, "dp": 2, "globalBatch": 2})";

TransformerConfig
SmallModel()
{
    TransformerConfig c;
    std::string error;
    EXPECT_TRUE(TransformerTraceGenerator::ParseConfig(SMALL_MODEL, "test", c, &error)) << error;
    return c;
}

TrainingScenario
Scenario(const std::string& json)
{
    TrainingScenario s;
    std::string error;
    EXPECT_TRUE(TrainingScenario::Parse(json, "scn.json", s, &error)) << error;
    return s;
}

std::vector<int64_t>
ComputeDurations(const TrainingTrace& t)
{
    std::vector<int64_t> d;
    for (uint32_t r = 0; r < t.GetNRanks(); ++r)
    {
        for (const TraceOp& op : t.GetOps(r))
        {
            if (op.kind == TraceOpKind::COMPUTE)
            {
                d.push_back(op.duration.GetNanoSeconds());
            }
        }
    }
    return d;
}
} // namespace

// The datasheet figures (doc/ai-fabric.rst, "GPU presets"), per GPU and direction.
TEST(GpuPreset, TableHoldsThePublishedFigures)
{
    struct Expected
    {
        const char* name;
        double nvlinkGBps; // per direction
        bool nvls;
        double bf16Tflops; // dense
        double hbmTBps;
    };

    const Expected expected[] = {{"A100", 300, false, 312, 2.039},
                                 {"H100", 450, true, 989, 3.35},
                                 {"H200", 450, true, 989, 4.8},
                                 {"B200", 900, true, 2250, 8.0}};
    ASSERT_EQ(GpuPreset::GetAll().size(), 4u);
    for (const Expected& e : expected)
    {
        const GpuPreset* p = GpuPreset::Find(e.name);
        ASSERT_NE(p, nullptr) << e.name;
        EXPECT_DOUBLE_EQ(p->GetNvlinkPortRate().GetBitRate() / 8.0 / GBps, e.nvlinkGBps) << e.name;
        EXPECT_EQ(p->nvls, e.nvls) << e.name;
        EXPECT_DOUBLE_EQ(p->peakFlops, e.bf16Tflops * 1e12) << e.name;
        EXPECT_DOUBLE_EQ(p->memoryBandwidth, e.hbmTBps * 1e12) << e.name;
    }
    EXPECT_EQ(GpuPreset::Find("V100"), nullptr);
    EXPECT_EQ(GpuPreset::Find("h100"), nullptr); // names are exact
    EXPECT_EQ(GpuPreset::GetNameList(), "A100, H100, H200, B200");
    EXPECT_EQ(GpuPreset::GetNvlsNameList(), "H100, H200, B200");
}

// NVLS is a Hopper NVSwitch feature: the A100 fabric never offers it, so "auto" (which
// asks CanReduceInSwitch) cannot pick it, and the fabric refuses the operations.
TEST_F(NsTest, GpuPresetNvlsOnlyWhereTheSwitchHasIt)
{
    const std::vector<uint32_t> all{0, 1, 2, 3, 4, 5, 6, 7};
    for (const GpuPreset& p : GpuPreset::GetAll())
    {
        auto f = CreateObject<NvSwitchFabric>();
        f->ApplyPreset(p.name);
        f->SetAttribute("NGpus", UintegerValue(8));
        BooleanValue supported;
        f->GetAttribute("NvlsSupported", supported);
        EXPECT_EQ(supported.Get(), p.nvls) << p.name;
        EXPECT_EQ(f->CanReduceInSwitch(all), p.nvls) << p.name;
        EXPECT_EQ(f->GetPortRate(), p.GetNvlinkPortRate()) << p.name;
        EXPECT_EQ(f->GetComputeCapability(), p.computeCapability) << p.name;
    }
    // Through the cluster helper, as collective-perf and the simulation build it.
    RoceHelper roce;
    GpuClusterHelper helper(roce);
    GpuCluster a100 = helper.Build(1, 8, "A100", DataRate("200Gbps"), 1, 1.0, MicroSeconds(1));
    GpuCluster h100 = helper.Build(1, 8, "H100", DataRate("400Gbps"), 1, 1.0, MicroSeconds(1));
    EXPECT_FALSE(a100.transport->CanReduceInSwitch(all));
    EXPECT_TRUE(h100.transport->CanReduceInSwitch(all));
    EXPECT_EQ(a100.transport->GetComputeCapability(), 80u);
    EXPECT_EQ(h100.transport->GetComputeCapability(), 90u);
    GpuCluster b200 = helper.Build(1, 8, "B200", DataRate("400Gbps"), 1, 1.0, MicroSeconds(1));
    EXPECT_EQ(b200.transport->GetComputeCapability(), 100u); // Blackwell
    // A carrier without GPUs says Hopper.
    EXPECT_EQ(CreateObject<IdealTransport>()->GetComputeCapability(), 90u);
    // The preset as defaults, written by the program (what the simulation does before
    // the user's settings).
    GpuClusterHelper::AttributeList defaults;
    ASSERT_TRUE(GpuClusterHelper::GetGpuDefaults("A100", &defaults));
    // LinkCount, PerLinkRate, CreditChunks, NvlsSupported, ComputeCapability, Gpu
    ASSERT_EQ(defaults.size(), 6u);
    for (const auto& [name, value] : defaults)
    {
        Config::SetDefault(name, *value);
    }
    auto g = CreateObject<NvSwitchFabric>();
    g->SetAttribute("NGpus", UintegerValue(2));
    EXPECT_DOUBLE_EQ(g->GetPortRate().GetBitRate() / 8.0 / GBps, 300);
    EXPECT_FALSE(g->CanReduceInSwitch({0, 1}));
    EXPECT_EQ(g->GetComputeCapability(), 80u);
    auto gen = CreateObject<TransformerTraceGenerator>();
    EXPECT_DOUBLE_EQ(gen->GetPeakFlops(), 312e12);
    EXPECT_DOUBLE_EQ(gen->GetMemoryBandwidth(), 2.039e12);
    EXPECT_FALSE(GpuClusterHelper::GetGpuDefaults("V100", &defaults));
    EXPECT_EQ(defaults.size(), 6u); // untouched
}

// The helper's preset and attributes go to the fabrics it builds, in the order given, and
// nowhere else: no global default changes.
TEST_F(NsTest, GpuPresetOnTheHelperChangesNoDefault)
{
    RoceHelper roce;
    GpuClusterHelper helper(roce);
    EXPECT_FALSE(helper.SetNvSwitchPreset("V100"));
    ASSERT_TRUE(helper.SetNvSwitchPreset("A100"));
    helper.SetNvSwitchAttribute("LinkCount", UintegerValue(6)); // wins over the preset
    GpuCluster c = helper.Build(2, 4, "", DataRate("200Gbps"), 1, 1.0, MicroSeconds(1));
    ASSERT_EQ(c.nvSwitches.size(), 2u);
    for (const auto& sw : c.nvSwitches)
    {
        EXPECT_EQ(sw->GetPortRate(), DataRate("1200Gbps")); // 6 x 25 GB/s
        EXPECT_FALSE(sw->CanReduceInSwitch({0, 1}));        // A100: no NVLS
    }
    // A preset given to Build wins over the helper's attributes.
    GpuCluster h = helper.Build(1, 4, "H100", DataRate("200Gbps"), 1, 1.0, MicroSeconds(1));
    EXPECT_EQ(h.nvSwitches[0]->GetPortRate(), DataRate("3600Gbps"));
    auto fresh = CreateObject<NvSwitchFabric>();
    EXPECT_EQ(fresh->GetPortRate(), DataRate("3600Gbps")); // the TypeId default, 18 x 200G
    EXPECT_TRUE(fresh->CanReduceInSwitch({0, 1}));
    EXPECT_EQ(CreateObject<TransformerTraceGenerator>()->GetPeakFlops(), 989e12); // H100
}

// An explicit nvls on an A100 cluster is refused before the run, naming the preset; the
// same cluster with auto builds (and the fabric's own setting wins over the preset).
TEST_F(NsTest, GpuPresetNvlsOnA100IsRefusedByName)
{
    // One server: TP 8 on its NVSwitch, where NVLS applies on Hopper.
    const std::string base =
        R"({"cluster": {"servers": 1, "gpusPerServer": 8, "gpu": "A100", "spines": 1},
        "workload": {"format": "generator", "model": {"layers": 2, "hidden": 1024, "heads": 8,
        "seqLength": 512, "vocab": 1000, "tp": 8, "globalBatch": 1}})";
    {
        TrainingSimulation sim(Scenario(base + R"(, "collectives": {"algorithm": "nvls"}})"));
        std::string error;
        EXPECT_FALSE(sim.ApplyGlobalSettings(&error) && sim.Build(&error));
        EXPECT_NE(
            error.find(
                "scn.json: algorithm nvls (collectives.algorithm or --algorithm): the A100 GPU "
                "preset has no NVLS (NVLink SHARP needs Hopper or newer: H100, H200, B200)"),
            std::string::npos)
            << error;
    }
    {
        TrainingSimulation sim(Scenario(base + "}"));
        std::string error;
        EXPECT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    }
    {
        // H100: the same request is accepted.
        std::string h100 = base;
        h100.replace(h100.find("A100"), 4, "H100");
        TrainingSimulation sim(Scenario(h100 + R"(, "collectives": {"algorithm": "nvls"}})"));
        std::string error;
        EXPECT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    }
}

// The roofline's closed form with each preset's figures (ComputeEfficiency 0.5,
// MemoryEfficiency 0.8, the defaults).
TEST_F(NsTest, GpuPresetComputeFollowsTheGpu)
{
    auto gen = CreateObject<TransformerTraceGenerator>();
    for (const GpuPreset& p : GpuPreset::GetAll())
    {
        gen->SetAttribute("Gpu", StringValue(p.name));
        const double flops = 1e12;
        const double bytes = 1e10;
        EXPECT_NEAR(gen->ComputeTime(flops, 0).GetNanoSeconds(),
                    flops / (p.peakFlops * 0.5) * 1e9,
                    0.5)
            << p.name;
        EXPECT_NEAR(gen->ComputeTime(0, bytes).GetNanoSeconds(),
                    bytes / (p.memoryBandwidth * 0.8) * 1e9,
                    0.5)
            << p.name;
    }
    // A100: 1 TFLOP at 156 TFLOP/s is 6.410 ms, 3.17 x the H100's 2.022 ms.
    gen->SetAttribute("Gpu", StringValue("A100"));
    EXPECT_EQ(gen->ComputeTime(1e12, 0).GetNanoSeconds(), 6410256);
    gen->SetAttribute("Gpu", StringValue("H100"));
    EXPECT_EQ(gen->ComputeTime(1e12, 0).GetNanoSeconds(), 2022245);

    // The trace records its GPU, and only when the figures are the preset's.
    std::string error;
    gen->SetAttribute("Gpu", StringValue("H200"));
    EXPECT_EQ(gen->Generate(SmallModel(), &error).GetGpu(), "H200") << error;
    gen->SetAttribute("PeakFlops", DoubleValue(500e12));
    EXPECT_EQ(gen->Generate(SmallModel(), &error).GetGpu(), "") << error;
    EXPECT_DOUBLE_EQ(gen->GetPeakFlops(), 500e12);
    EXPECT_DOUBLE_EQ(gen->GetMemoryBandwidth(), 4.8e12); // still H200's
    gen->SetAttribute("PeakFlops", DoubleValue(0));
    gen->SetAttribute("Gpu", StringValue("V100"));
    EXPECT_EQ(gen->Generate(SmallModel(), &error).GetNRanks(), 0u);
    EXPECT_EQ(
        error,
        "TransformerTraceGenerator: Gpu \"V100\" is not a GPU preset (A100, H100, H200, B200)");
}

// The JSON schema carries the optional "gpu" both ways; a non-string is named.
TEST(GpuPreset, TraceJsonRecordsTheGpu)
{
    auto gen = CreateObject<TransformerTraceGenerator>();
    gen->SetAttribute("Gpu", StringValue("A100"));
    std::string error;
    const TrainingTrace t = gen->Generate(SmallModel(), &error);
    const std::string text = TraceJson::Serialize(t);
    EXPECT_NE(text.find("\n  \"gpu\": \"A100\",\n"), std::string::npos);
    const TrainingTrace back = TraceJson::Parse(text, "t.json", &error);
    EXPECT_EQ(back.GetGpu(), "A100") << error;
    EXPECT_EQ(TraceJson::Serialize(back), text);
    std::string bad = text;
    bad.replace(bad.find("\"A100\""), 6, "100");
    EXPECT_EQ(TraceJson::Parse(bad, "t.json", &error).GetNRanks(), 0u);
    EXPECT_NE(error.find("t.json: /gpu"), std::string::npos) << error;
}

// A generated workload takes compute from the cluster's preset: the scenario's trace is
// the generator's own for that GPU, op for op.
TEST_F(NsTest, GpuPresetScenarioGeneratesForTheClusterGpu)
{
    for (const char* gpu : {"A100", "H100", "B200"})
    {
        TrainingSimulation sim(
            Scenario(std::string(R"({"cluster": {"topology": "ideal", "gpu": ")") + gpu +
                     R"("}, "workload": {"format": "generator", "model": )" + SMALL_MODEL + "}}"));
        std::string error;
        ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
        auto gen = CreateObject<TransformerTraceGenerator>();
        gen->SetAttribute("Gpu", StringValue(gpu));
        const TrainingTrace expected = gen->Generate(SmallModel(), &error);
        EXPECT_EQ(sim.GetTrace().GetGpu(), gpu);
        EXPECT_EQ(ComputeDurations(sim.GetTrace()), ComputeDurations(expected)) << gpu;
        EXPECT_TRUE(sim.GetWarnings().empty());
    }
    // A user's PeakFlops still wins over the preset.
    TrainingScenario s = Scenario(std::string(R"({"cluster": {"topology": "ideal", "gpu": "A100"},
        "fabric": {"config": {"ns3::TransformerTraceGenerator::PeakFlops": "624e12"}},
        "workload": {"format": "generator", "model": )") +
                                  SMALL_MODEL + "}}");
    TrainingSimulation sim(s);
    std::string error;
    ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    EXPECT_EQ(sim.GetTrace().GetGpu(), ""); // figures of its own: no GPU recorded
}

// A fixed-duration trace made for H100 on an A100 cluster: a warning naming both GPUs
// (with the ratios that would fit), durations as recorded; computeScale multiplies them.
TEST_F(NsTest, GpuPresetFixedTraceOnAnotherGpuWarnsAndScales)
{
    auto gen = CreateObject<TransformerTraceGenerator>();
    std::string error;
    const TrainingTrace h100 = gen->Generate(SmallModel(), &error);
    ASSERT_EQ(h100.GetGpu(), "H100");
    const std::string file = aifabric::TestDir() + "gpu-preset-h100.json";
    ASSERT_TRUE(TraceJson::Write(h100, file, &error)) << error;
    const std::vector<int64_t> recorded = ComputeDurations(h100);
    ASSERT_FALSE(recorded.empty());

    for (double scale : {1.0, 2.5})
    {
        std::ostringstream json;
        json
            << R"({"cluster": {"topology": "ideal", "gpu": "A100"}, "workload": {"format": "json", "file": ")"
            << file << R"(", "computeScale": )" << scale << "}}";
        TrainingSimulation sim(Scenario(json.str()));
        ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
        ASSERT_EQ(sim.GetWarnings().size(), 1u);
        const std::string w = sim.GetWarnings()[0];
        EXPECT_NE(w.find("compute durations are for H100 but the cluster's GPU is A100"),
                  std::string::npos)
            << w;
        if (scale == 1.0)
        {
            // 989/312 for compute-bound ops, 3.35/2.039 for memory-bound ones.
            EXPECT_NE(w.find("set computeScale (3.16987 for compute-bound ops, 1.64296 for "
                             "memory-bound ones)"),
                      std::string::npos)
                << w;
        }
        else
        {
            EXPECT_NE(w.find("replayed x 2.5 (computeScale)"), std::string::npos) << w;
        }
        const std::vector<int64_t> replayed = ComputeDurations(sim.GetTrace());
        ASSERT_EQ(replayed.size(), recorded.size());
        for (size_t k = 0; k < recorded.size(); ++k)
        {
            EXPECT_EQ(replayed[k], std::llround(recorded[k] * scale)) << k;
        }
    }
    // Same GPU: nothing to say.
    TrainingSimulation same(
        Scenario(R"({"cluster": {"topology": "ideal"}, "workload": {"file": ")" + file + "\"}}"));
    ASSERT_TRUE(same.ApplyGlobalSettings(&error) && same.Build(&error)) << error;
    EXPECT_TRUE(same.GetWarnings().empty());
}

TEST(GpuPreset, ScenarioGpuAndComputeScaleAreChecked)
{
    TrainingScenario s;
    std::string error;
    EXPECT_FALSE(TrainingScenario::Parse(R"({"cluster": {"gpu": "V100"}})", "scn.json", s, &error));
    EXPECT_EQ(error, "scn.json: /cluster/gpu: expected A100, H100, H200, B200, got \"V100\"");
    EXPECT_FALSE(TrainingScenario::Parse(R"({"workload": {"file": "t.json", "computeScale": 0}})",
                                         "scn.json",
                                         s,
                                         &error));
    EXPECT_EQ(error, "scn.json: /workload/computeScale: must be above 0");
    EXPECT_TRUE(
        TrainingScenario::Parse(R"({"cluster": {"gpu": "H200"}, "workload": {"file": "t.json",
        "computeScale": 1.5}})",
                                "scn.json",
                                s,
                                &error))
        << error;
    EXPECT_EQ(s.gpu, "H200");
    EXPECT_DOUBLE_EQ(s.computeScale, 1.5);
}
