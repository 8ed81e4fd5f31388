// SPDX-License-Identifier: GPL-2.0-only
// Parameter servers on dedicated CPU hosts (ParameterServerSync placements cpu and
// byteps): the rewrite, the CPU ranks of a trace, the cluster's CPU hosts, the push/pull
// time against the closed form of a host's port, and the BytePS hybrid against flat
// parameter servers on both sides of the closed form's crossover.
#include "test-dir.h"
#include "test-util.h"

#include "ns3/enum.h"
#include "ns3/gpu-cluster-helper.h"
#include "ns3/parameter-server-sync.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/trace-json.h"
#include "ns3/training-report.h"
#include "ns3/training-scenario.h"
#include "ns3/training-simulation.h"
#include "ns3/transformer-trace-generator.h"
#include "ns3/uinteger.h"
#include "ns3/workload-runner.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ns3;
using aifabric::Compute;
using aifabric::OneAllReduce;

namespace
{
/// CpuReduceBandwidth's default, bytes per second.
constexpr double CPU_BW = 204.8e9;

Ptr<ParameterServerSync>
Sync(ParameterServerSync::Placement placement, uint32_t gpusPerServer)
{
    auto ps = CreateObject<ParameterServerSync>();
    ps->SetAttribute("Placement", EnumValue(placement));
    ps->SetAttribute("GpusPerServer", UintegerValue(gpusPerServer));
    return ps;
}

/// The ops of rank r as "kind:peer:bytes" (compute: "compute:duration ns"), in order.
std::vector<std::string>
Shape(const TrainingTrace& t, uint32_t r)
{
    std::vector<std::string> out;
    for (const TraceOp& op : t.GetOps(r))
    {
        std::string s = TraceOpKindToString(op.kind) + ":";
        if (op.kind == TraceOpKind::COMPUTE)
        {
            s += std::to_string(op.duration.GetNanoSeconds());
        }
        else if (op.kind == TraceOpKind::COLLECTIVE)
        {
            s += op.group + ":" + std::to_string(op.bytes);
        }
        else
        {
            s += std::to_string(op.peer) + ":" + std::to_string(op.bytes);
        }
        out.push_back(s);
    }
    return out;
}

std::string
Ns(double seconds)
{
    return std::to_string(Seconds(seconds).GetNanoSeconds());
}
} // namespace

TEST(ParameterServerHosts, CpuHostsTakeTheShards)
{
    // Four ranks, two CPU hosts: ranks 4 and 5 are added as CPU ranks; each rank pushes
    // shard j (half of S) to host j and pulls it back; host j receives the four copies,
    // adds them ((n + 1) x shard at CpuReduceBandwidth) and sends the sum to each.
    const uint64_t S = 1000001; // odd: shard 0 gets the extra byte
    TrainingTrace t = OneAllReduce(4, S);
    auto ps = Sync(ParameterServerSync::CPU, 1);
    std::string error;
    ASSERT_TRUE(ps->Apply(t, "dp", 2, 3.35e12, &error)) << error;
    EXPECT_EQ(ps->GetRewritten(), 4u);
    EXPECT_EQ(t.GetNRanks(), 6u);
    EXPECT_EQ(t.GetNCpuRanks(), 2u);
    EXPECT_EQ(t.GetNGpuRanks(), 4u);
    EXPECT_TRUE(t.IsCpuRank(4) && t.IsCpuRank(5) && !t.IsCpuRank(3));
    const std::vector<std::string> worker{"compute:10000",
                                          "compute:0",
                                          "send:4:500001",
                                          "recv:4:500001",
                                          "send:5:500000",
                                          "recv:5:500000",
                                          "compute:0",
                                          "compute:5000"};
    for (uint32_t r = 0; r < 4; ++r)
    {
        EXPECT_EQ(Shape(t, r), worker) << r;
    }
    for (uint32_t j = 0; j < 2; ++j)
    {
        const uint64_t shard = CommPlan::SplitBytes(S, 2, j);
        const std::string b = std::to_string(shard);
        const std::vector<std::string> host{"recv:0:" + b,
                                            "recv:1:" + b,
                                            "recv:2:" + b,
                                            "recv:3:" + b,
                                            "compute:" + Ns(5.0 * shard / CPU_BW),
                                            "send:0:" + b,
                                            "send:1:" + b,
                                            "send:2:" + b,
                                            "send:3:" + b};
        EXPECT_EQ(Shape(t, 4 + j), host) << j;
        // Pushes and pulls carry the group's tags; the host's receive from rank w and
        // its send to w share a stream of their own.
        const auto& ops = t.GetOps(4 + j);
        EXPECT_TRUE(ParameterServerSync::IsPush(ops[1].tag));
        EXPECT_TRUE(ParameterServerSync::IsPull(ops[6].tag));
        EXPECT_EQ(ops[1].stream, ops[6].stream);
        EXPECT_NE(ops[1].stream, ops[2].stream);
        EXPECT_EQ(ops[4].deps, (std::vector<uint32_t>{0, 1, 2, 3}));
    }
    // The worker's step waits for the join, which waits for both pulls.
    const auto& w = t.GetOps(0);
    EXPECT_EQ(w[6].deps, (std::vector<uint32_t>{3, 5}));
    EXPECT_EQ(w[7].deps, (std::vector<uint32_t>{6}));
    EXPECT_TRUE(t.Validate(&error)) << error;
}

TEST(ParameterServerHosts, BytePsReducesInsideEachServerFirst)
{
    // Eight ranks on two servers of four: each server's ranks reduce-scatter S over their
    // own group (dp0.ps0, dp0.ps1), local rank i pushes its quarter split over the two
    // hosts, the hosts add the m = 2 servers' copies, and an all-gather ends it.
    const uint64_t S = 8 * 1000003;
    TrainingTrace t = OneAllReduce(8, S);
    auto ps = Sync(ParameterServerSync::BYTEPS, 4);
    std::string error;
    ASSERT_TRUE(ps->Apply(t, "dp0", 2, 3.35e12, &error)) << error;
    EXPECT_EQ(t.GetNRanks(), 10u);
    EXPECT_EQ(t.GetNCpuRanks(), 2u);
    ASSERT_TRUE(t.HasGroup("dp0.ps0") && t.HasGroup("dp0.ps1"));
    EXPECT_EQ(t.GetGroup("dp0.ps1").ranks, (std::vector<uint32_t>{4, 5, 6, 7}));
    EXPECT_EQ(t.GetGroup("dp0.ps1").kind, "dp");
    for (uint32_t r = 0; r < 8; ++r)
    {
        const uint32_t local = r % 4;
        const std::string g = "dp0.ps" + std::to_string(r / 4);
        const uint64_t share = CommPlan::SplitBytes(S, 4, local);
        const std::vector<std::string> expected{
            "compute:10000",
            "compute:0",
            "collective:" + g + ":" + std::to_string(S),
            "send:8:" + std::to_string(CommPlan::SplitBytes(share, 2, 0)),
            "recv:8:" + std::to_string(CommPlan::SplitBytes(share, 2, 0)),
            "send:9:" + std::to_string(CommPlan::SplitBytes(share, 2, 1)),
            "recv:9:" + std::to_string(CommPlan::SplitBytes(share, 2, 1)),
            "collective:" + g + ":" + std::to_string(S),
            "compute:0",
            "compute:5000"};
        EXPECT_EQ(Shape(t, r), expected) << r;
        EXPECT_EQ(t.GetOps(r)[2].collective, CollectiveType::REDUCE_SCATTER);
        EXPECT_EQ(t.GetOps(r)[7].collective, CollectiveType::ALL_GATHER);
    }
    // Host j: per local index, the two servers' copies of the piece, the sum, two sends.
    for (uint32_t j = 0; j < 2; ++j)
    {
        std::vector<std::string> host;
        for (uint32_t local = 0; local < 4; ++local)
        {
            const uint64_t piece = CommPlan::SplitBytes(CommPlan::SplitBytes(S, 4, local), 2, j);
            const std::string b = std::to_string(piece);
            for (const std::string& op : {"recv:" + std::to_string(local) + ":" + b,
                                          "recv:" + std::to_string(4 + local) + ":" + b,
                                          "compute:" + Ns(3.0 * piece / CPU_BW),
                                          "send:" + std::to_string(local) + ":" + b,
                                          "send:" + std::to_string(4 + local) + ":" + b})
            {
                host.push_back(op);
            }
        }
        EXPECT_EQ(Shape(t, 8 + j), host) << j;
    }
    EXPECT_TRUE(t.Validate(&error)) << error;
}

TEST(ParameterServerHosts, RefusalsLeaveTheTraceAsItWas)
{
    const TrainingTrace plain = OneAllReduce(8, 1 << 20);
    std::string error;
    auto refuse = [&](Ptr<ParameterServerSync> ps, TrainingTrace t, uint32_t k) {
        const std::string before = TraceJson::Serialize(t);
        EXPECT_FALSE(ps->Apply(t, "dp", k, 3.35e12, &error));
        EXPECT_EQ(TraceJson::Serialize(t), before);
        return error;
    };
    // Byteps with servers of 3 GPUs: 3, 3 and 2 ranks of the group.
    EXPECT_EQ(refuse(Sync(ParameterServerSync::BYTEPS, 3), plain, 2),
              "group dp0 has 3 ranks on the server of rank 0 but 2 on that of rank 6: byteps "
              "needs the same number on every server");
    EXPECT_EQ(refuse(Sync(ParameterServerSync::CPU, 1), plain, 0),
              "expected 1 to 4096 CPU hosts, got 0");
    EXPECT_EQ(refuse(Sync(ParameterServerSync::CPU, 1), plain, 4097),
              "expected 1 to 4096 CPU hosts, got 4097");
    // A trace that has CPU hosts already.
    TrainingTrace twice = plain;
    ASSERT_TRUE(Sync(ParameterServerSync::CPU, 1)->Apply(twice, "dp", 1, 3.35e12, &error));
    EXPECT_EQ(refuse(Sync(ParameterServerSync::CPU, 1), twice, 1),
              "the trace has CPU hosts already (cpuRanks 1): one dedicated parameter-server "
              "placement per trace");
    // The name byteps would give a server's group is taken.
    TrainingTrace taken = plain;
    taken.AddGroup({"dp0.ps1", "custom", {0}});
    EXPECT_EQ(refuse(Sync(ParameterServerSync::BYTEPS, 4), taken, 2),
              "the trace has a group dp0.ps1, the name byteps gives the ranks of dp0 on a "
              "server");
}

TEST(ParameterServerHosts, TraceJsonKeepsTheCpuRanks)
{
    TrainingTrace t = OneAllReduce(4, 1 << 20);
    std::string error;
    ASSERT_TRUE(Sync(ParameterServerSync::CPU, 1)->Apply(t, "dp", 2, 3.35e12, &error));
    const std::string text = TraceJson::Serialize(t);
    EXPECT_NE(text.find("\"cpuRanks\": 2"), std::string::npos);
    TrainingTrace back = TraceJson::Parse(text, "t.json", &error);
    ASSERT_TRUE(error.empty()) << error;
    EXPECT_EQ(back.GetNCpuRanks(), 2u);
    EXPECT_EQ(TraceJson::Serialize(back), text);
    // Every rank a CPU host, and a CPU host in a group, are refused.
    std::string all = text;
    all.replace(all.find("\"cpuRanks\": 2"), 13, "\"cpuRanks\": 6");
    TraceJson::Parse(all, "t.json", &error);
    EXPECT_EQ(error, "t.json: /cpuRanks: must be at most 5, got 6");
    std::string grouped = text;
    grouped.replace(grouped.find("\"cpuRanks\": 2"), 13, "\"cpuRanks\": 3");
    TraceJson::Parse(grouped, "t.json", &error);
    EXPECT_NE(error.find("group 'dp0' names rank 3, a CPU host (ranks 3 to 5); groups hold "
                         "GPUs only"),
              std::string::npos)
        << error;
}

TEST(ParameterServerHosts, TheClusterHasTheHostsOnALeafOfTheirOwn)
{
    // Two servers of four GPUs, two spines, 2:1: two CPU hosts follow the GPUs as ranks
    // 8 and 9, each a server of its own, on a leaf after the spines whose uplinks give the
    // same oversubscription (2 x 400 Gb/s / (2 spines x 2) = 200 Gb/s each).
    RoceHelper roce;
    GpuClusterHelper helper(roce);
    GpuCluster c = helper.Build(2, 4, "H100", DataRate("400Gbps"), 2, 2.0, NanoSeconds(500), 1, 2);
    EXPECT_EQ(c.cpuHosts, 2u);
    EXPECT_EQ(c.world.GetSize(), 10u);
    EXPECT_EQ(c.world.GetServer(8), 2u);
    EXPECT_EQ(c.world.GetServer(9), 3u);
    EXPECT_EQ(c.nvSwitches.size(), 2u);
    ASSERT_EQ(c.network.nics.size(), 10u);
    ASSERT_EQ(c.network.switchObjects.size(), 4u + 2u + 1u);
    Ptr<Node> leaf = c.network.switches.Get(6);
    // The CPU leaf: two host ports and two uplinks at 200 Gb/s.
    std::vector<uint64_t> rates;
    for (uint32_t d = 0; d < leaf->GetNDevices(); ++d)
    {
        Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(leaf->GetDevice(d));
        if (dev)
        {
            rates.push_back(dev->GetDataRate().GetBitRate());
        }
    }
    std::sort(rates.begin(), rates.end());
    EXPECT_EQ(rates,
              (std::vector<uint64_t>{200000000000, 200000000000, 400000000000, 400000000000}));
    // A GPU-to-host transfer crosses the fabric, not an NVSwitch.
    bool done = false;
    c.transport->Send(3, 9, 1 << 20, 0, [&]() { done = true; });
    Simulator::Run();
    EXPECT_TRUE(done);
    EXPECT_EQ(c.transport->GetInterServerBytes(), 1u << 20);
    EXPECT_EQ(c.transport->GetIntraServerBytes(), 0u);
    Simulator::Destroy();
}

namespace
{
/// Per rewritten all-reduce: the last begin, the last reduce-scatter end, the last
/// all-gather start and the last join over the GPU ranks.
struct Span
{
    Time begin;
    Time scattered;
    Time gathering;
    Time join;
};

/// Run a DP scenario with parameter servers; return the spans of its all-reduces.
std::map<std::string, Span>
RunSync(uint32_t servers,
        uint32_t gpusPerServer,
        const std::string& parameterServers,
        const std::string& nvlinkConfig,
        uint64_t* bytes)
{
    TrainingScenario s;
    std::string error;
    const uint32_t dp = servers * gpusPerServer;
    EXPECT_TRUE(TrainingScenario::Parse(
        R"({"cluster": {"servers": )" + std::to_string(servers) + R"(, "gpusPerServer": )" +
            std::to_string(gpusPerServer) + R"(, "spines": 1},
            "fabric": {"congestionControl": "none", "config": {)" +
            nvlinkConfig + R"(}},
            "run": {"fastForward": "off"},
            "parameterServers": ")" +
            parameterServers + R"(",
            "workload": {"format": "generator", "model": {"layers": 2, "hidden": 1024,
            "heads": 8, "seqLength": 64, "vocab": 100, "tp": 1, "dp": )" +
            std::to_string(dp) + R"(, "globalBatch": )" + std::to_string(dp) + "}}}",
        "scn.json",
        s,
        &error))
        << error;
    TrainingSimulation sim(s);
    EXPECT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    sim.Run(false);
    Ptr<WorkloadRunner> runner = sim.GetRunner();
    EXPECT_TRUE(runner->IsFinished());
    const TrainingTrace& trace = sim.GetTrace();
    std::map<std::string, Span> spans;
    for (const OpRecord& rec : runner->GetOps())
    {
        const std::string& name = runner->GetOpName(rec);
        const size_t at = name.find(".ps.");
        if (at == std::string::npos || trace.IsCpuRank(rec.rank))
        {
            continue;
        }
        Span& sp = spans[name.substr(0, at)];
        const std::string what = name.substr(at);
        if (what == ".ps.begin")
        {
            sp.begin = std::max(sp.begin, rec.start);
        }
        else if (what == ".ps.rs")
        {
            sp.scattered = std::max(sp.scattered, rec.end);
        }
        else if (what == ".ps.ag")
        {
            sp.gathering = std::max(sp.gathering, rec.start);
        }
        else if (what == ".ps.join")
        {
            sp.join = std::max(sp.join, rec.end);
        }
    }
    // The all-reduce's size (the run has one): the bytes rank 0 pushes to the hosts, or
    // (byteps) the size of its server's reduce-scatter.
    EXPECT_EQ(spans.size(), 1u);
    *bytes = 0;
    for (const TraceOp& op : trace.GetOps(0))
    {
        if (op.kind == TraceOpKind::COLLECTIVE && op.name.str().find(".ps.rs") != std::string::npos)
        {
            *bytes = op.bytes;
            break;
        }
        if (op.kind == TraceOpKind::SEND && ParameterServerSync::IsPush(op.tag))
        {
            *bytes += op.bytes;
        }
    }
    Simulator::Destroy();
    return spans;
}
} // namespace

TEST(ParameterServerHosts, PushAndPullTakeTheHostPortsClosedForm)
{
    // Flat parameter servers on k CPU hosts, n one-GPU servers on a non-blocking fabric
    // without congestion control (PFC holds the incast at line rate): a host receives
    // n S / k in the push and sends as much in the pull, so the sync takes
    // 2 n S / (k R) + (n + 1) S / (k B), R the RDMA payload rate of 400 Gb/s and B the
    // host's CpuReduceBandwidth. Within 3 %.
    const double rate = aifabric::PayloadRate(400e9) / 8;
    for (const auto& [n, k] : {std::pair{4u, 1u}, {4u, 2u}, {8u, 2u}})
    {
        SCOPED_TRACE(std::to_string(n) + " ranks, " + std::to_string(k) + " hosts");
        uint64_t S = 0;
        const auto spans = RunSync(n, 1, "dp:" + std::to_string(k) + ":cpu", "", &S);
        ASSERT_FALSE(spans.empty());
        const double expected = 2.0 * n * S / (k * rate) + (n + 1.0) * S / (k * CPU_BW);
        for (const auto& [call, sp] : spans)
        {
            const double measured = (sp.join - sp.begin).GetSeconds();
            std::printf("n=%u k=%u %s: %llu B, %.1f us, closed form %.1f us (%.3f)\n",
                        n,
                        k,
                        call.c_str(),
                        static_cast<unsigned long long>(S),
                        measured * 1e6,
                        expected * 1e6,
                        measured / expected);
            EXPECT_NEAR(measured / expected, 1.0, 0.03) << call;
        }
    }
}

TEST(ParameterServerHosts, BytePsBeatsFlatWhereTheClosedFormSaysSo)
{
    // Two servers of four H100 (DP 8), k CPU hosts, no congestion control. Flat: each
    // host takes n S / k in and out. BytePS: after the servers' reduce-scatter each host
    // takes m S / k (m = 2 servers) in and out, and a piece's sum ((m + 1) S / (g k) at B)
    // runs before its pull; then the all-gather. Its push/pull part (from the last
    // reduce-scatter's end to the last all-gather's start) is checked against
    // 2 m S / (k R) + (m + 1) S / (g k B) within 3 %; the reduce-scatter and all-gather
    // are the NVLink collectives' own (tested with NVLink), taken from the run. With
    // H100's 18 NVLinks BytePS is faster (k = 2); with one 50 Gb/s NVLink per GPU the
    // closed form says flat wins, and it does.
    const double rate = aifabric::PayloadRate(400e9) / 8;
    const uint32_t n = 8;
    const uint32_t m = 2;
    const uint32_t g = 4;

    struct Case
    {
        uint32_t k; //!< CPU hosts
        std::string nvlink;
        bool bytepsFaster;
    };

    for (const Case& c : {Case{2, "", true},
                          Case{2,
                               R"("ns3::NvSwitchFabric::LinkCount": 1,
                                   "ns3::NvSwitchFabric::PerLinkRate": "50Gbps")",
                               false}})
    {
        SCOPED_TRACE("k = " + std::to_string(c.k) + (c.nvlink.empty() ? "" : ", slow NVLink"));
        const std::string k = std::to_string(c.k);
        uint64_t S = 0;
        uint64_t S2 = 0;
        const auto flat = RunSync(m, g, "dp:" + k + ":cpu", c.nvlink, &S);
        const auto hybrid = RunSync(m, g, "dp:" + k + ":byteps", c.nvlink, &S2);
        ASSERT_EQ(S, S2);
        ASSERT_EQ(flat.size(), hybrid.size());
        for (const auto& [call, f] : flat)
        {
            const Span& h = hybrid.at(call);
            const double pushPull = 2.0 * m * S / (c.k * rate) + (m + 1.0) * S / (g * c.k * CPU_BW);
            const double measuredPushPull = (h.gathering - h.scattered).GetSeconds();
            const double flatForm = 2.0 * n * S / (c.k * rate) + (n + 1.0) * S / (c.k * CPU_BW);
            const double nvlink = (h.scattered - h.begin + h.join - h.gathering).GetSeconds();
            const double hybridForm = pushPull + nvlink;
            const double flatTime = (f.join - f.begin).GetSeconds();
            const double hybridTime = (h.join - h.begin).GetSeconds();
            std::printf("k=%u%s %s: flat %.1f us (closed form %.1f), byteps %.1f us (push/pull "
                        "%.1f, closed form %.1f; NVLink %.1f)\n",
                        c.k,
                        c.nvlink.empty() ? "" : " slow NVLink",
                        call.c_str(),
                        flatTime * 1e6,
                        flatForm * 1e6,
                        hybridTime * 1e6,
                        measuredPushPull * 1e6,
                        pushPull * 1e6,
                        nvlink * 1e6);
            EXPECT_NEAR(measuredPushPull / pushPull, 1.0, 0.03) << call;
            EXPECT_NEAR(flatTime / flatForm, 1.0, 0.03) << call;
            EXPECT_EQ(hybridForm < flatForm, c.bytepsFaster) << call;
            EXPECT_EQ(hybridTime < flatTime, c.bytepsFaster) << call;
        }
    }
}

TEST(ParameterServerHosts, ProgramSettingsAreChecked)
{
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(
        TrainingScenario::Parse(R"({"parameterServers": "dp:2:byteps"})", "scn.json", s, &error))
        << error;
    TrainingScenario::ParameterServerSetting p;
    ASSERT_TRUE(TrainingScenario::ParseParameterServers(s.parameterServers, p, &error));
    EXPECT_EQ(p.group, "dp");
    EXPECT_EQ(p.servers, 2u);
    EXPECT_EQ(p.placement, ParameterServerSync::BYTEPS);
    ASSERT_TRUE(TrainingScenario::ParseParameterServers("tp:3:colocated", p, &error));
    EXPECT_EQ(p.placement, ParameterServerSync::COLOCATED);
    for (const char* bad : {"dp:2:gpu", "dp:4097:cpu", "dp::cpu", "dp:0:cpu"})
    {
        SCOPED_TRACE(bad);
        TrainingScenario b;
        EXPECT_FALSE(TrainingScenario::Parse(std::string(R"({"parameterServers": ")") + bad + "\"}",
                                             "scn.json",
                                             b,
                                             &error));
        EXPECT_EQ(error.rfind("scn.json: /parameterServers: expected", 0), 0u) << error;
    }
    // Jobs and topology files do not place CPU hosts: one line each.
    TrainingScenario f;
    ASSERT_TRUE(TrainingScenario::Parse(
        R"({"cluster": {"topology": "ideal", "servers": 2, "gpusPerServer": 2},
            "parameterServers": "dp:2:cpu",
            "jobs": [{"name": "a", "workload": {"format": "generator", "model": {"layers": 1,
            "hidden": 256, "heads": 4, "seqLength": 64, "vocab": 100, "tp": 1, "dp": 2,
            "globalBatch": 2}}}]})",
        "scn.json",
        f,
        &error))
        << error;
    TrainingSimulation sim(f);
    EXPECT_FALSE(sim.ApplyGlobalSettings(&error) && sim.Build(&error));
    EXPECT_NE(error.find("CPU hosts (dedicated parameter servers), which jobs do not place"),
              std::string::npos)
        << error;
    Simulator::Destroy();
}

TEST(ParameterServerHosts, TheGeneratorWritesThePlacements)
{
    // TP 2 x DP 8 on servers of 8 GPUs: each DP group has 4 ranks on each of 2 servers.
    const std::string base = R"({"layers": 2, "hidden": 1024, "heads": 8, "seqLength": 256,
        "vocab": 1000, "tp": 2, "dp": 8, "globalBatch": 8, "parameterServers": 2, )";
    std::string error;
    for (const auto& [placement, groups] : {std::pair{"cpu", 0u}, {"byteps", 4u}})
    {
        SCOPED_TRACE(placement);
        TransformerConfig c;
        ASSERT_TRUE(TransformerTraceGenerator::ParseConfig(
            base + R"("parameterServerPlacement": ")" + placement + "\"}",
            "model.json",
            c,
            &error))
            << error;
        auto gen = CreateObject<TransformerTraceGenerator>();
        const TrainingTrace t = gen->Generate(c, &error);
        ASSERT_EQ(t.GetNRanks(), 18u) << error;
        EXPECT_EQ(t.GetNCpuRanks(), 2u);
        EXPECT_NE(t.GetName().find(std::string("ps2 ") + placement), std::string::npos);
        uint32_t local = 0;
        for (const TraceGroup& g : t.GetGroups())
        {
            if (g.name.find(".ps") != std::string::npos)
            {
                ++local;
                EXPECT_EQ(g.ranks.size(), 4u) << g.name;
                EXPECT_EQ(g.ranks.front() / 8, g.ranks.back() / 8) << g.name;
            }
        }
        EXPECT_EQ(local, groups);
    }
    for (const auto& [bad, why] :
         {std::pair<std::string, std::string>{R"("parameterServerPlacement": "gpu"})",
                                              "model.json: 'parameterServerPlacement' must be "
                                              "one of colocated, cpu, byteps, got \"gpu\""},
          {R"("parameterServerPlacement": 2})",
           "model.json: 'parameterServerPlacement' must be a string, got 2"}})
    {
        TransformerConfig c;
        EXPECT_FALSE(TransformerTraceGenerator::ParseConfig(base + bad, "model.json", c, &error));
        EXPECT_EQ(error, why);
    }
    // More CPU hosts than DP ranks is fine; more than MAX_CPU_SERVERS is not.
    TransformerConfig c;
    EXPECT_FALSE(TransformerTraceGenerator::ParseConfig(
        R"({"layers": 2, "hidden": 1024, "heads": 8, "seqLength": 256, "vocab": 1000, "tp": 2,
            "dp": 8, "globalBatch": 8, "parameterServers": 5000,
            "parameterServerPlacement": "cpu"})",
        "model.json",
        c,
        &error));
    EXPECT_NE(error.find("at most 4096 CPU hosts"), std::string::npos) << error;
}

TEST(ParameterServerHosts, RunsOnTheIdealCarrierAndFromATraceFile)
{
    // DP 4 on the ideal carrier with 2 CPU hosts: the carrier has 6 ranks, the report
    // and results.json say so, the timeline names the hosts, and the iteration breakdown
    // has rows for the 4 GPUs only. The same trace, written with its cpuRanks and read
    // back as the workload of a rail-optimized cluster, gets the 2 hosts there.
    const std::string model = R"("workload": {"format": "generator", "model": {"layers": 2,
        "hidden": 1024, "heads": 8, "seqLength": 64, "vocab": 100, "tp": 1, "dp": 4,
        "globalBatch": 4}})";
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse(
        R"({"cluster": {"topology": "ideal", "servers": 2, "gpusPerServer": 2},
            "parameterServers": "dp:2:cpu", )" +
            model + "}",
        "scn.json",
        s,
        &error))
        << error;
    std::string written;
    {
        TrainingSimulation sim(s);
        ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
        sim.Run(false);
        ASSERT_TRUE(sim.GetRunner()->IsFinished());
        EXPECT_EQ(sim.GetWorld().GetSize(), 6u);
        EXPECT_EQ(sim.GetTrace().GetNCpuRanks(), 2u);
        for (const IterationBreakdown& b : sim.GetRunner()->GetBreakdown())
        {
            EXPECT_LT(b.rank, 4u);
        }
        EXPECT_EQ(sim.GetRunner()->GetBreakdown().size(), 4u);
        TrainingReport report(sim);
        std::ostringstream summary;
        report.PrintSummary(summary);
        EXPECT_NE(summary.str().find("6 ranks (the last 2 CPU hosts)"), std::string::npos)
            << summary.str();
        EXPECT_NE(summary.str().find("2 CPU hosts (dedicated parameter servers) on the carrier"),
                  std::string::npos)
            << summary.str();
        std::ostringstream results;
        report.WriteResults(results);
        const auto doc = nlohmann::json::parse(results.str());
        EXPECT_EQ(doc["workload"]["cpu_ranks"], 2);
        EXPECT_EQ(doc["workload"]["ranks"], 6);
        std::ostringstream timeline;
        report.WriteTimeline(timeline);
        EXPECT_NE(timeline.str().find("rank 4 (CPU host 0)"), std::string::npos);
        EXPECT_NE(timeline.str().find("rank 5 (CPU host 1)"), std::string::npos);
        written = aifabric::TestDir() + "ps-cpu-trace.json";
        ASSERT_TRUE(TraceJson::Write(sim.GetTrace(), written, &error)) << error;
        Simulator::Destroy();
    }
    TrainingScenario f;
    ASSERT_TRUE(TrainingScenario::Parse(
        R"({"cluster": {"servers": 2, "gpusPerServer": 2, "spines": 1},
            "workload": {"format": "json", "file": ")" +
            written + R"("}})",
        "scn.json",
        f,
        &error))
        << error;
    TrainingSimulation sim(f);
    ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    EXPECT_EQ(sim.GetCluster().cpuHosts, 2u);
    EXPECT_EQ(sim.GetCluster().network.nics.size(), 6u);
    sim.Run(false);
    EXPECT_TRUE(sim.GetRunner()->IsFinished());
    // Compression after the trace's own rewrite is refused, naming the rule.
    Simulator::Destroy();
    TrainingScenario c = f;
    ASSERT_TRUE(TrainingScenario::Parse(R"({"compression": ["dp:0.5"]})", "more.json", c, &error))
        << error;
    TrainingSimulation compressed(c);
    EXPECT_FALSE(compressed.ApplyGlobalSettings(&error) && compressed.Build(&error));
    EXPECT_NE(error.find("the trace's all-reduces are by parameter servers on 2 CPU hosts "
                         "already"),
              std::string::npos)
        << error;
    Simulator::Destroy();
}
