// SPDX-License-Identifier: GPL-2.0-only
// Compressed communication (GradientCompression): rules read and refused, the dense
// factor and top-k against their closed forms (bytes, kernel times, the ops' new order),
// a replay whose time is the compressed call plus its kernels, and the main program's
// scenario key moving exactly a quarter of the data-parallel bytes over the RDMA fabric.
#include "test-util.h"

#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/gradient-compression.h"
#include "ns3/ideal-transport.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/training-report.h"
#include "ns3/training-scenario.h"
#include "ns3/training-simulation.h"
#include "ns3/uinteger.h"
#include "ns3/workload-runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ns3;

namespace
{
constexpr uint64_t MiB = 1 << 20;
/// H100's HBM3 bandwidth (GpuPreset), bytes per second.
constexpr double HBM = 3.35e12;

using aifabric::Compute;

TraceOp
Collective(const std::string& name,
           CollectiveType type,
           const std::string& group,
           uint64_t bytes,
           uint32_t stream,
           std::vector<uint32_t> deps = {})
{
    TraceOp op;
    op.kind = TraceOpKind::COLLECTIVE;
    op.name = name;
    op.collective = type;
    op.group = group;
    op.bytes = bytes;
    op.stream = stream;
    op.deps = std::move(deps);
    return op;
}

/// Four ranks: DP over all four, TP over pairs. Per rank: fwd; a DP all-reduce of 4 MiB
/// after it; a TP all-gather of 1 MiB; a DP reduce-scatter of 8 MiB; step after the
/// all-reduce.
TrainingTrace
FourRanks()
{
    TrainingTrace t(4);
    t.AddGroup({"dp0", "dp", {0, 1, 2, 3}});
    t.AddGroup({"tp0", "tp", {0, 1}});
    t.AddGroup({"tp1", "tp", {2, 3}});
    for (uint32_t r = 0; r < 4; ++r)
    {
        const std::string tp = r < 2 ? "tp0" : "tp1";
        t.AddOp(r, Compute("fwd", MicroSeconds(10)));
        t.AddOp(r, Collective("grad.l0", CollectiveType::ALL_REDUCE, "dp0", 4 * MiB, 1, {0}));
        t.AddOp(r, Collective("act.l0", CollectiveType::ALL_GATHER, tp, MiB, 2));
        t.AddOp(r, Collective("grad.l1", CollectiveType::REDUCE_SCATTER, "dp0", 8 * MiB, 1));
        t.AddOp(r, Compute("step", MicroSeconds(5), {1}));
    }
    std::string why;
    EXPECT_TRUE(t.Validate(&why)) << why;
    return t;
}

Ptr<GradientCompression>
With(const std::vector<std::string>& rules)
{
    auto c = CreateObject<GradientCompression>();
    for (const std::string& text : rules)
    {
        CompressionRule rule;
        rule.place = "test";
        std::string why;
        EXPECT_TRUE(GradientCompression::ParseRule(text, rule, &why)) << why;
        c->AddRule(rule);
    }
    return c;
}
} // namespace

TEST(GradientCompression, RulesAreReadAndBadOnesRefused)
{
    CompressionRule r;
    std::string why;
    ASSERT_TRUE(GradientCompression::ParseRule("dp:0.25", r, &why)) << why;
    EXPECT_EQ(r.select, "dp");
    EXPECT_FALSE(r.topk);
    EXPECT_DOUBLE_EQ(r.value, 0.25);
    EXPECT_EQ(GradientCompression::RuleToString(r), "dp:0.25");
    ASSERT_TRUE(GradientCompression::ParseRule("op=.l3.:topk:0.01", r, &why)) << why;
    EXPECT_EQ(r.select, "op=.l3.");
    EXPECT_TRUE(r.topk);
    EXPECT_DOUBLE_EQ(r.value, 0.01);
    EXPECT_EQ(GradientCompression::RuleToString(r), "op=.l3.:topk:0.01");
    ASSERT_TRUE(GradientCompression::ParseRule("dp3:1", r, &why)) << why;
    EXPECT_EQ(r.select, "dp3");
    for (const char* bad : {"dp",
                            "dp:",
                            "dp:0",
                            "dp:-0.5",
                            "dp:1.5",
                            "dp:x",
                            "dp:0.5x",
                            ":0.5",
                            "dp:topk:",
                            "dp:topk:2",
                            "op=:0.5",
                            "",
                            "dp:nan",
                            "dp:inf"})
    {
        CompressionRule untouched;
        untouched.select = "kept";
        EXPECT_FALSE(GradientCompression::ParseRule(bad, untouched, &why)) << bad;
        EXPECT_NE(why.find("expected SELECTOR:FACTOR"), std::string::npos) << why;
        EXPECT_NE(why.find(std::string("\"") + bad + "\""), std::string::npos) << why;
        EXPECT_EQ(untouched.select, "kept") << bad;
    }
}

TEST(GradientCompression, DenseFactorScalesTheSelectedCallsAndAddsTheirKernels)
{
    TrainingTrace t = FourRanks();
    auto c = With({"dp:0.25"});
    std::string error;
    ASSERT_TRUE(c->Apply(t, HBM, &error)) << error;
    for (uint32_t r = 0; r < 4; ++r)
    {
        const auto& ops = t.GetOps(r);
        // fwd, encode, all-reduce, decode, all-gather, encode, reduce-scatter, decode, step
        ASSERT_EQ(ops.size(), 9u);
        EXPECT_EQ(ops[1].name, "grad.l0.encode");
        EXPECT_EQ(ops[1].kind, TraceOpKind::COMPUTE);
        EXPECT_EQ(ops[1].stream, 1u);
        EXPECT_EQ(ops[1].deps, std::vector<uint32_t>{0}); // the call's own dep
        EXPECT_EQ(ops[2].collective, CollectiveType::ALL_REDUCE);
        EXPECT_EQ(ops[2].bytes, MiB); // exactly a quarter
        EXPECT_EQ(ops[2].deps, std::vector<uint32_t>{1});
        EXPECT_EQ(ops[3].name, "grad.l0.decode");
        EXPECT_EQ(ops[3].deps, std::vector<uint32_t>{2});
        EXPECT_EQ(ops[4].bytes, MiB); // TP: no rule selects it
        EXPECT_EQ(ops[6].collective, CollectiveType::REDUCE_SCATTER);
        EXPECT_EQ(ops[6].bytes, 2 * MiB);
        EXPECT_EQ(ops[8].name, "step");
        EXPECT_EQ(ops[8].deps, std::vector<uint32_t>{3}); // waits for the decode
        // Memory-bound kernels: encode reads the input and writes a quarter of it, decode
        // reads the quarter and writes the output (reduce-scatter: a quarter of 8 MiB).
        EXPECT_EQ(ops[1].duration, Seconds(4.0 * MiB * 1.25 / HBM));
        EXPECT_EQ(ops[3].duration, Seconds(4.0 * MiB * 1.25 / HBM));
        EXPECT_EQ(ops[5].duration, Seconds(8.0 * MiB * 1.25 / HBM));
        EXPECT_EQ(ops[7].duration, Seconds(8.0 * MiB / 4 * 1.25 / HBM));
    }
    ASSERT_EQ(c->GetEffects().size(), 1u);
    const CompressionEffect& e = c->GetEffects()[0];
    EXPECT_EQ(e.ops, 8u);
    EXPECT_EQ(e.bytesBefore, 4 * 12 * MiB);
    EXPECT_EQ(e.bytesAfter, 4 * 3 * MiB);
    EXPECT_EQ(e.kernels,
              4 * (Seconds(4.0 * MiB * 1.25 / HBM) * 2 + Seconds(8.0 * MiB * 1.25 / HBM) +
                   Seconds(8.0 * MiB / 4 * 1.25 / HBM)));

    // A group name selects only that group; an all-gather's input is its size / n.
    TrainingTrace byName = FourRanks();
    auto tp0 = With({"tp0:0.5"});
    ASSERT_TRUE(tp0->Apply(byName, HBM, &error)) << error;
    EXPECT_EQ(byName.GetOps(0)[3].bytes, MiB / 2);
    EXPECT_EQ(byName.GetOps(0)[2].duration, Seconds(MiB / 2.0 * 1.5 / HBM));
    EXPECT_EQ(byName.GetOps(0)[4].duration, Seconds(1.0 * MiB * 1.5 / HBM));
    EXPECT_EQ(byName.GetOps(2)[2].bytes, MiB); // tp1
    EXPECT_EQ(byName.GetOps(2).size(), 5u);

    // KernelBandwidth replaces the HBM figure; op=TEXT selects by name.
    TrainingTrace byOp = FourRanks();
    auto l1 = With({"op=.l1:0.5"});
    l1->SetAttribute("KernelBandwidth", DoubleValue(1e11));
    ASSERT_TRUE(l1->Apply(byOp, HBM, &error)) << error;
    EXPECT_EQ(byOp.GetOps(0)[1].bytes, 4 * MiB);
    EXPECT_EQ(byOp.GetOps(0)[4].bytes, 4 * MiB);
    EXPECT_EQ(byOp.GetOps(0)[3].duration, Seconds(8.0 * MiB * 1.5 / 1e11));
}

TEST(GradientCompression, TopKIsAnAllGatherOfValuesAndIndices)
{
    TrainingTrace t = FourRanks();
    auto c = With({"op=grad.l0:topk:0.01"});
    std::string error;
    ASSERT_TRUE(c->Apply(t, HBM, &error)) << error;
    // 4 MiB of bf16 is 2,097,152 elements; 1 % of them, rounded up: 20,972, each 2 B of
    // value and 4 B of index.
    const uint64_t piece = 20972 * 6;
    for (uint32_t r = 0; r < 4; ++r)
    {
        const auto& ops = t.GetOps(r);
        ASSERT_EQ(ops.size(), 7u);
        EXPECT_EQ(ops[2].collective, CollectiveType::ALL_GATHER);
        EXPECT_EQ(ops[2].bytes, 4 * piece); // the nccl-tests size: all four pieces
        EXPECT_EQ(ops[1].duration, Seconds(static_cast<double>(4 * MiB + piece) / HBM));
        EXPECT_EQ(ops[3].duration, Seconds(static_cast<double>(4 * piece + 4 * MiB) / HBM));
        EXPECT_EQ(ops[5].collective, CollectiveType::REDUCE_SCATTER); // not selected
    }
    // Other element and index sizes.
    TrainingTrace fp32 = FourRanks();
    auto c32 = With({"op=grad.l0:topk:0.5"});
    c32->SetAttribute("ElementBytes", UintegerValue(4));
    c32->SetAttribute("IndexBytes", UintegerValue(8));
    ASSERT_TRUE(c32->Apply(fp32, HBM, &error)) << error;
    EXPECT_EQ(fp32.GetOps(0)[2].bytes, 4 * (MiB / 2) * 12);
}

TEST(GradientCompression, RulesThatCannotApplyAreNamedAndLeaveTheTrace)
{
    const TrainingTrace before = FourRanks();
    auto refused = [&](const std::vector<std::string>& rules, const std::string& words) {
        TrainingTrace t = before;
        auto c = With(rules);
        std::string error;
        EXPECT_FALSE(c->Apply(t, HBM, &error));
        EXPECT_EQ(error.rfind("test: ", 0), 0u) << error;
        EXPECT_NE(error.find(words), std::string::npos) << error;
        EXPECT_EQ(t.GetNOps(), before.GetNOps());
        EXPECT_EQ(t.GetOps(0)[1].bytes, 4 * MiB);
    };
    refused({"pp:0.5"}, "\"pp\" selects no collective of the trace (no group of a collective");
    refused({"op=nothing:0.5"}, "no collective's op name contains that text");
    refused({"tp:topk:0.1"}, "top-k compresses all-reduce, but \"tp\" selects the all-gather");
    // An op takes the first rule that selects it: a rule behind a wider one never applies.
    // The members of a call must agree: an op=TEXT rule reads each rank's own names.
    {
        TrainingTrace t = before;
        t.GetOps(3)[1].name = "renamed";
        auto c = With({"op=grad.l0:0.5"});
        std::string error;
        EXPECT_FALSE(c->Apply(t, HBM, &error));
        EXPECT_EQ(error,
                  "test: \"op=grad.l0\" selects call 0 on group dp0 of rank 0 but not of rank 3 "
                  "(their op names differ): the members of a call must agree");
        EXPECT_EQ(t.GetNOps(), before.GetNOps());
    }
    refused({"dp:0.5", "dp0:0.25"},
            "\"dp0\" selects no collective of the trace (every collective it selects takes "
            "an earlier rule)");
}

TEST(GradientCompression, ReplayTakesTheCompressedCallAndItsKernels)
{
    // Two ranks, one DP all-reduce of 4 MiB (ring) on an ideal carrier of 100 Gb/s and
    // 5 us per message, at the wire bound: 2 steps of 5 us + (S/2)/B.
    auto ringTime = [](uint64_t bytes) {
        return MicroSeconds(10) + Seconds(2.0 * (static_cast<double>(bytes) / 2) * 8 / 100e9);
    };
    auto replay = [](TrainingTrace t) {
        Config::SetDefault("ns3::CollectiveEngine::Protocol", StringValue("none"));
        auto ideal = CreateObject<IdealTransport>();
        ideal->SetAttribute("NRanks", UintegerValue(2));
        ideal->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
        ideal->SetAttribute("Latency", TimeValue(MicroSeconds(5)));
        auto runner = CreateObject<WorkloadRunner>();
        runner->Setup(t, CommGroup::Uniform(2, 1), ideal);
        runner->Start();
        Simulator::Run();
        Simulator::Destroy();
        EXPECT_TRUE(runner->IsFinished());
        return runner;
    };
    TrainingTrace t(2);
    t.AddGroup({"dp0", "dp", {0, 1}});
    for (uint32_t r = 0; r < 2; ++r)
    {
        TraceOp op = Collective("grad", CollectiveType::ALL_REDUCE, "dp0", 4 * MiB, 1);
        op.algorithm = "ring";
        t.AddOp(r, op);
    }
    auto plain = replay(t);
    EXPECT_EQ(plain->GetEndTime(), ringTime(4 * MiB));
    auto c = With({"dp:0.25"});
    std::string error;
    ASSERT_TRUE(c->Apply(t, HBM, &error)) << error;
    auto compressed = replay(t);
    const Time kernel = Seconds(4.0 * MiB * 1.25 / HBM);
    EXPECT_EQ(compressed->GetEndTime(), kernel + ringTime(MiB) + kernel);
    ASSERT_EQ(compressed->GetCalls().size(), 1u);
    EXPECT_EQ(compressed->GetCalls()[0].bytes * 4, plain->GetCalls()[0].bytes);
    Config::Reset();
}

TEST(GradientCompression, ScenarioKeyMovesAQuarterOfTheDataParallelBytes)
{
    // Two servers of two H100, TP 2 inside each server (NVLink), DP 2 across them over the
    // RDMA fabric: every byte the NICs deliver is a DP ring all-reduce's (Simple: no
    // protocol lines on the wire), so compressing DP by 0.25 delivers exactly a quarter.
    const std::string base =
        R"("cluster": {"servers": 2, "gpusPerServer": 2, "spines": 1},
           "collectives": {"algorithm": "ring", "protocol": "Simple"},
           "run": {"fastForward": "off"},
           "workload": {"format": "generator", "model": {"layers": 2, "hidden": 256,
           "heads": 4, "seqLength": 64, "vocab": 100, "tp": 2, "dp": 2, "globalBatch": 2}})";
    std::string summary;
    auto run = [&summary](const std::string& text, uint64_t& payload, nlohmann::json& results) {
        TrainingScenario s;
        std::string error;
        ASSERT_TRUE(TrainingScenario::Parse(text, "scn.json", s, &error)) << error;
        TrainingSimulation sim(s);
        ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
        sim.Run(false);
        ASSERT_TRUE(sim.GetRunner()->IsFinished());
        payload = sim.GetRdmaPayloadBytes();
        std::ostringstream os;
        TrainingReport(sim).WriteResults(os);
        std::ostringstream printed;
        TrainingReport(sim).PrintSummary(printed);
        summary = printed.str();
        results = nlohmann::json::parse(os.str());
        Simulator::Destroy();
    };
    uint64_t plain = 0;
    uint64_t compressed = 0;
    nlohmann::json plainResults;
    nlohmann::json results;
    run("{" + base + "}", plain, plainResults);
    run("{" + base + R"(, "compression": ["dp:0.25"]})", compressed, results);
    ASSERT_GT(plain, 0u);
    EXPECT_EQ(compressed * 4, plain);
    EXPECT_FALSE(plainResults["workload"].contains("compression"));
    const auto& rule = results["workload"]["compression"].at(0);
    EXPECT_EQ(rule["rule"], "dp:0.25");
    EXPECT_EQ(rule["kind"], "dense");
    EXPECT_EQ(rule["bytes_after"].get<uint64_t>() * 4, rule["bytes_before"].get<uint64_t>());
    // The kernels at the default bandwidth, H100's HBM: every DP all-reduce's encode and
    // decode each read and write 1.25 x its bytes.
    EXPECT_NEAR(rule["kernels_s"].get<double>(),
                2 * 1.25 * rule["bytes_before"].get<double>() / HBM,
                1e-9 * rule["ops"].get<double>());
    EXPECT_EQ(rule["value"].get<double>(), 0.25);
    // The overview says what was compressed.
    EXPECT_NE(summary.find("compressed dp:0.25: " + std::to_string(rule["ops"].get<uint64_t>()) +
                           " collective ops"),
              std::string::npos)
        << summary;

    // A rule the trace cannot take is named with its place in the file.
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse("{" + base + R"(, "compression": ["dp:0.5", "ep:0.5"]})",
                                        "scn.json",
                                        s,
                                        &error))
        << error;
    TrainingSimulation sim(s);
    ASSERT_TRUE(sim.ApplyGlobalSettings(&error));
    EXPECT_FALSE(sim.Build(&error));
    EXPECT_EQ(error.rfind("scn.json: /compression/1: \"ep\" selects no collective", 0), 0u)
        << error;
    Simulator::Destroy();
    for (const char* bad : {R"("dp:2")", R"(["dp:0"])", R"([5])"})
    {
        TrainingScenario b;
        EXPECT_FALSE(TrainingScenario::Parse("{" + base + R"(, "compression": )" + bad + "}",
                                             "scn.json",
                                             b,
                                             &error));
        EXPECT_EQ(error.rfind("scn.json: /compression", 0), 0u) << error;
    }
}
