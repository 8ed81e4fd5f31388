// SPDX-License-Identifier: GPL-2.0-only
// Parameter servers (ParameterServerSync): the rewrite of an all-reduce into pushes, a
// reduction and pulls; the exact closed form on the ideal carrier; and the push/pull time
// over the RDMA fabric against the closed form of the busiest server port.
#include "test-dir.h"
#include "test-util.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/ideal-transport.h"
#include "ns3/parameter-server-sync.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-json.h"
#include "ns3/training-scenario.h"
#include "ns3/training-simulation.h"
#include "ns3/transformer-trace-generator.h"
#include "ns3/uinteger.h"
#include "ns3/workload-runner.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <map>

using namespace ns3;
using aifabric::Compute;
using aifabric::OneAllReduce;

namespace
{
constexpr uint64_t MiB = 1 << 20;
/// H100's HBM3 bandwidth (GpuPreset), bytes per second.
constexpr double HBM = 3.35e12;

} // namespace

TEST(ParameterServer, AllReduceBecomesPushReducePull)
{
    TrainingTrace t = OneAllReduce(4, 8 * MiB);
    auto ps = CreateObject<ParameterServerSync>();
    std::string error;
    ASSERT_TRUE(ps->Apply(t, "dp", 2, HBM, &error)) << error;
    EXPECT_EQ(ps->GetRewritten(), 4u);
    // Servers: group ranks 0 and 2. Rank 1 (a worker): begin, push/pull to each server,
    // join; rank 0 (server 0): begin, push/pull to server 1, three receives, the
    // reduction, three sends back, join.
    EXPECT_EQ(ParameterServerSync::ServerOf(4, 2, 0), 0u);
    EXPECT_EQ(ParameterServerSync::ServerOf(4, 2, 1), 2u);
    const auto& worker = t.GetOps(1);
    ASSERT_EQ(worker.size(), 1u + 1 + 4 + 1 + 1);
    EXPECT_EQ(worker[1].name, "grad.ps.begin");
    EXPECT_EQ(worker[1].deps, std::vector<uint32_t>{0});
    EXPECT_EQ(worker[2].kind, TraceOpKind::SEND);
    EXPECT_EQ(worker[2].peer, 0u);
    EXPECT_EQ(worker[2].bytes, 4 * MiB);
    EXPECT_EQ(worker[2].tag, ParameterServerSync::PUSH_TAG); // group 0
    EXPECT_TRUE(ParameterServerSync::IsPush(worker[2].tag));
    EXPECT_EQ(worker[3].kind, TraceOpKind::RECV);
    EXPECT_EQ(worker[3].tag, ParameterServerSync::PULL_TAG);
    EXPECT_TRUE(ParameterServerSync::IsPull(worker[3].tag));
    EXPECT_EQ(worker[3].stream, worker[2].stream); // the pull after the push
    EXPECT_NE(worker[4].stream, worker[2].stream); // the two servers at once
    EXPECT_EQ(worker[6].name, "grad.ps.join");
    EXPECT_EQ(worker[6].deps, (std::vector<uint32_t>{3, 5}));
    EXPECT_EQ(worker[7].name, "step");
    EXPECT_EQ(worker[7].deps, std::vector<uint32_t>{6});
    const auto& server = t.GetOps(0);
    ASSERT_EQ(server.size(), 1u + 1 + 2 + 3 + 1 + 3 + 1 + 1);
    EXPECT_EQ(server[4].name, "grad.ps.in");
    const TraceOp& reduce = server[7];
    EXPECT_EQ(reduce.name, "grad.ps.reduce");
    EXPECT_EQ(reduce.deps, (std::vector<uint32_t>{1, 4, 5, 6}));
    // It reads the four copies of its 4 MiB shard and writes one.
    EXPECT_EQ(reduce.duration, Seconds(5.0 * 4 * MiB / HBM));
    EXPECT_EQ(server[8].kind, TraceOpKind::SEND);
    EXPECT_EQ(server[8].deps, std::vector<uint32_t>{7});
    EXPECT_EQ(server[11].deps, (std::vector<uint32_t>{3, 7}));

    // ReduceBandwidth replaces the HBM figure.
    TrainingTrace slower = OneAllReduce(4, 8 * MiB);
    auto ps2 = CreateObject<ParameterServerSync>();
    ps2->SetAttribute("ReduceBandwidth", DoubleValue(1e11));
    ASSERT_TRUE(ps2->Apply(slower, "dp", 2, HBM, &error)) << error;
    EXPECT_EQ(slower.GetOps(0)[7].duration, Seconds(5.0 * 4 * MiB / 1e11));

    // Refused: nothing selected, servers out of range (the trace unchanged).
    TrainingTrace u = OneAllReduce(4, MiB);
    EXPECT_FALSE(ps->Apply(u, "tp", 1, HBM, &error));
    EXPECT_EQ(error, "\"tp\" selects no all-reduce of the trace");
    EXPECT_FALSE(ps->Apply(u, "dp", 5, HBM, &error));
    EXPECT_EQ(error, "expected 1 to 4 servers (the ranks of dp0), got 5");
    EXPECT_EQ(u.GetOps(0).size(), 3u);
    // An all-reduce listed before a later one of its group that it depends on: valid
    // as a trace, but its pushes would queue behind the later one's: refused whole.
    TrainingTrace forward(2);
    forward.AddGroup({"dp0", "dp", {0, 1}});
    for (uint32_t r = 0; r < 2; ++r)
    {
        TraceOp first;
        first.kind = TraceOpKind::COLLECTIVE;
        first.name = "first";
        first.group = "dp0";
        first.bytes = MiB;
        first.stream = 1;
        first.deps = {1};
        forward.AddOp(r, first);
        TraceOp second = first;
        second.name = "second";
        second.stream = 2;
        second.deps = {};
        forward.AddOp(r, second);
    }
    ASSERT_TRUE(forward.Validate(&error)) << error;
    EXPECT_FALSE(ps->Apply(forward, "dp", 1, HBM, &error));
    EXPECT_EQ(error.rfind("the rewritten trace would not be valid: ", 0), 0u) << error;
    EXPECT_EQ(forward.GetOps(0).size(), 2u);
}

TEST(ParameterServer, OneServerTakesTheClosedFormOnTheIdealCarrier)
{
    // n ranks, one server (rank 0), S bytes, ideal carrier of rate R and per-message
    // latency L with its receive port modelled: the n - 1 pushes arrive S/R apart at the
    // server (the last at L + (n - 1) S/R), the reduction reads n copies and writes one,
    // and the n - 1 pulls leave the server one after the other: (n - 1)(L + S/R).
    for (uint32_t n : {2u, 4u, 8u})
    {
        SCOPED_TRACE(n);
        const uint64_t bytes = 4 * MiB;
        TrainingTrace t = OneAllReduce(n, bytes);
        auto ps = CreateObject<ParameterServerSync>();
        std::string error;
        ASSERT_TRUE(ps->Apply(t, "dp0", 1, HBM, &error)) << error;
        auto ideal = CreateObject<IdealTransport>();
        ideal->SetAttribute("NRanks", UintegerValue(n));
        ideal->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
        ideal->SetAttribute("Latency", TimeValue(MicroSeconds(5)));
        ideal->SetAttribute("ModelReceivePort", BooleanValue(true));
        Config::SetDefault("ns3::CollectiveEngine::Protocol", StringValue("none"));
        auto runner = CreateObject<WorkloadRunner>();
        runner->Setup(t, CommGroup::Uniform(n, 1), ideal);
        runner->Start();
        Simulator::Run();
        Simulator::Destroy();
        Config::Reset();
        ASSERT_TRUE(runner->IsFinished());
        const Time wire = Seconds(bytes * 8.0 / 100e9);
        const Time push = MicroSeconds(5) + wire * (n - 1);
        const Time reduce = Seconds((n + 1.0) * bytes / HBM);
        const Time pull = (MicroSeconds(5) + wire) * (n - 1);
        // fwd, then the step after the last pull.
        EXPECT_EQ(runner->GetEndTime(), MicroSeconds(10) + push + reduce + pull + MicroSeconds(5));
    }
}

TEST(ParameterServer, PushAndPullOverTheFabricTakeTheBusiestPort)
{
    // Four one-GPU servers on one rail leaf (non-blocking), DP 4 of a generated model,
    // k = 1, 2, 4 parameter servers: each rewritten all-reduce of S bytes takes, from the
    // last rank's begin to the last rank's join, the closed form of its busiest port:
    // a server receives (n - 1) S / k in the push and sends as much in the pull, at the
    // RDMA payload rate of 400 Gb/s, plus its reduction ((n + 1) S / k at HBM speed).
    // Without congestion control: PFC keeps the pushes' incast at line rate (DCQCN cuts
    // it below, k = 2 most: see doc, "Parameter servers").
    const uint32_t n = 4;
    const double rate = aifabric::PayloadRate(400e9) / 8;
    for (uint32_t k : {1u, 2u, 4u})
    {
        SCOPED_TRACE(k);
        TrainingScenario s;
        std::string error;
        ASSERT_TRUE(TrainingScenario::Parse(
            R"({"cluster": {"servers": 4, "gpusPerServer": 1, "spines": 1},
                "fabric": {"congestionControl": "none"},
                "parameterServers": "dp:)" +
                std::to_string(k) + R"(",
                "workload": {"format": "generator", "model": {"layers": 2, "hidden": 1024,
                "heads": 8, "seqLength": 64, "vocab": 100, "tp": 1, "dp": 4,
                "globalBatch": 4}}})",
            "scn.json",
            s,
            &error))
            << error;
        TrainingSimulation sim(s);
        ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
        sim.Run(false);
        Ptr<WorkloadRunner> runner = sim.GetRunner();
        ASSERT_TRUE(runner->IsFinished());
        // Per rewritten all-reduce (by name): the last begin and the last join.
        std::map<std::string, std::pair<Time, Time>> spans;
        std::map<std::string, uint64_t> bytes;
        const TrainingTrace& trace = sim.GetTrace();
        for (const OpRecord& rec : runner->GetOps())
        {
            const std::string& name = runner->GetOpName(rec);
            const size_t at = name.find(".ps.");
            if (at == std::string::npos)
            {
                continue;
            }
            auto& [begin, join] = spans[name.substr(0, at)];
            if (name.compare(at, std::string::npos, ".ps.begin") == 0)
            {
                begin = std::max(begin, rec.start);
            }
            else if (name.compare(at, std::string::npos, ".ps.join") == 0)
            {
                join = std::max(join, rec.end);
            }
            else if (name.compare(at, std::string::npos, ".ps.push") == 0 && rec.rank == 1)
            {
                // Rank 1 pushes every shard but its own (k = 4) or all k: its pushes'
                // bytes over all servers are S (k < 4) or 3 S / 4 (k = 4).
                bytes[name.substr(0, at)] += trace.GetOps(rec.rank)[rec.op].bytes;
            }
        }
        ASSERT_FALSE(spans.empty());
        for (const auto& [call, span] : spans)
        {
            const double pushed = static_cast<double>(bytes[call]);
            const double total = k == n ? pushed * n / (n - 1) : pushed;
            const double shard = total / k;
            const double expected = 2 * (n - 1) * shard / rate + (n + 1) * shard / HBM;
            const double measured = (span.second - span.first).GetSeconds();
            std::printf("k=%u %s: %.0f B, %.1f us, closed form %.1f us (%.3f)\n",
                        k,
                        call.c_str(),
                        total,
                        measured * 1e6,
                        expected * 1e6,
                        measured / expected);
            EXPECT_NEAR(measured / expected, 1.0, 0.03) << call;
        }
        Simulator::Destroy();
    }
}

TEST(ParameterServer, TheScenarioKeyIsChecked)
{
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse(R"({"parameterServers": "dp:4"})", "scn.json", s, &error))
        << error;
    EXPECT_EQ(s.parameterServers, "dp:4");
    EXPECT_EQ(s.parameterServersPlace, "scn.json: /parameterServers");
    for (const char* bad : {R"("dp")", R"("dp:0")", R"(":2")", R"("dp:x")", "4"})
    {
        TrainingScenario b;
        EXPECT_FALSE(TrainingScenario::Parse(std::string(R"({"parameterServers": )") + bad + "}",
                                             "scn.json",
                                             b,
                                             &error))
            << bad;
        EXPECT_EQ(error.rfind("scn.json: /parameterServers: expected", 0), 0u) << error;
    }
}

TEST(ParameterServer, GroupsThatShareRanksPairUpInAnyOrder)
{
    // Two DP groups over the same two ranks, with different sizes, called in opposite
    // orders on the two ranks (each on its own stream): the pushes and pulls of each
    // group pair up with their own (tags per group, streams per group of the rank).
    TrainingTrace t(2);
    t.AddGroup({"a", "dp", {0, 1}});
    t.AddGroup({"b", "dp", {0, 1}});
    auto allReduce = [](const std::string& group, uint64_t bytes, uint32_t stream) {
        TraceOp ar;
        ar.kind = TraceOpKind::COLLECTIVE;
        ar.name = group;
        ar.group = group;
        ar.bytes = bytes;
        ar.stream = stream;
        return ar;
    };
    t.AddOp(0, allReduce("a", MiB, 1));
    t.AddOp(0, allReduce("b", 2 * MiB, 2));
    t.AddOp(1, allReduce("b", 2 * MiB, 2));
    t.AddOp(1, allReduce("a", MiB, 1));
    std::string error;
    ASSERT_TRUE(t.Validate(&error)) << error;
    auto ps = CreateObject<ParameterServerSync>();
    ASSERT_TRUE(ps->Apply(t, "dp", 1, HBM, &error)) << error;
    auto ideal = CreateObject<IdealTransport>();
    ideal->SetAttribute("NRanks", UintegerValue(2));
    Config::SetDefault("ns3::CollectiveEngine::Protocol", StringValue("none"));
    auto runner = CreateObject<WorkloadRunner>();
    runner->Setup(t, CommGroup::Uniform(2, 1), ideal);
    runner->Start();
    Simulator::Run();
    Simulator::Destroy();
    Config::Reset();
    EXPECT_TRUE(runner->IsFinished()) << runner->GetStuckReport();
    // A trace whose own sends use the tags is refused.
    TrainingTrace own(2);
    own.AddGroup({"a", "dp", {0, 1}});
    TraceOp send;
    send.kind = TraceOpKind::SEND;
    send.name = "mine";
    send.peer = 1;
    send.tag = ParameterServerSync::PUSH_TAG | 7;
    own.AddOp(0, send);
    TraceOp recv = send;
    recv.kind = TraceOpKind::RECV;
    recv.peer = 0;
    own.AddOp(1, recv);
    own.AddOp(0, allReduce("a", MiB, 1));
    own.AddOp(1, allReduce("a", MiB, 1));
    ASSERT_TRUE(own.Validate(&error)) << error;
    EXPECT_FALSE(ps->Apply(own, "dp", 1, HBM, &error));
    EXPECT_EQ(error,
              "the trace's own send \"mine\" of rank 0 uses a tag parameter servers use "
              "(0x5055xxxx, 0x504Cxxxx)");
}

TEST(ParameterServer, TheGeneratorWritesThePattern)
{
    // A model config's "parameterServers": the generated trace is the plain one rewritten
    // (its DP all-reduces as pushes and pulls to 2 servers per DP group), op for op; it
    // validates and, written as trace JSON, reads back the same.
    TransformerConfig c;
    std::string error;
    ASSERT_TRUE(TransformerTraceGenerator::ParseConfig(
        R"({"layers": 2, "hidden": 1024, "heads": 8, "seqLength": 256, "vocab": 1000,
            "tp": 2, "dp": 4, "globalBatch": 4, "parameterServers": 2})",
        "model.json",
        c,
        &error))
        << error;
    EXPECT_EQ(c.parameterServers, 2u);
    auto gen = CreateObject<TransformerTraceGenerator>();
    const TrainingTrace withPs = gen->Generate(c, &error);
    ASSERT_GT(withPs.GetNRanks(), 0u) << error;
    TransformerConfig plain = c;
    plain.parameterServers = 0;
    TrainingTrace rewritten = gen->Generate(plain, &error);
    auto ps = CreateObject<ParameterServerSync>();
    ASSERT_TRUE(ps->Apply(rewritten, "dp", 2, gen->GetMemoryBandwidth(), &error)) << error;
    ASSERT_EQ(withPs.GetNRanks(), rewritten.GetNRanks());
    uint64_t pushes = 0;
    for (uint32_t r = 0; r < withPs.GetNRanks(); ++r)
    {
        const auto& a = withPs.GetOps(r);
        const auto& b = rewritten.GetOps(r);
        ASSERT_EQ(a.size(), b.size()) << r;
        for (size_t k = 0; k < a.size(); ++k)
        {
            EXPECT_EQ(a[k].kind, b[k].kind);
            EXPECT_EQ(a[k].bytes, b[k].bytes);
            EXPECT_EQ(a[k].duration, b[k].duration);
            EXPECT_EQ(a[k].deps, b[k].deps);
            EXPECT_EQ(a[k].tag, b[k].tag);
            EXPECT_FALSE(a[k].kind == TraceOpKind::COLLECTIVE &&
                         withPs.GetGroup(a[k].group).kind == "dp")
                << "a DP collective is left";
            pushes += a[k].kind == TraceOpKind::SEND && ParameterServerSync::IsPush(a[k].tag);
        }
    }
    EXPECT_GT(pushes, 0u);
    EXPECT_NE(withPs.GetName().find(" ps2"), std::string::npos) << withPs.GetName();
    const std::string file = aifabric::TestDir() + "ps-trace.json";
    ASSERT_TRUE(TraceJson::Write(withPs, file, &error)) << error;
    const TrainingTrace back = TraceJson::Read(file, &error);
    ASSERT_EQ(back.GetNOps(), withPs.GetNOps()) << "[" << error << "]";

    // Refused: with ZeRO (no all-reduce to take), more servers than DP ranks.
    for (const char* bad : {R"("zeroStage": 1, "parameterServers": 2)", R"("parameterServers": 5)"})
    {
        TransformerConfig z;
        EXPECT_FALSE(TransformerTraceGenerator::ParseConfig(
            std::string(R"({"layers": 2, "hidden": 1024, "heads": 8, "seqLength": 256,
                "vocab": 1000, "tp": 2, "dp": 4, "globalBatch": 4, )") +
                bad + "}",
            "model.json",
            z,
            &error))
            << bad;
        EXPECT_NE(error.find("needs zeroStage 0 and 2 or more DP ranks, at most dp (4)"),
                  std::string::npos)
            << error;
    }
}
