// SPDX-License-Identifier: GPL-2.0-only
#include "test-util.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <unistd.h>

namespace aifabric
{

TraceOp
Compute(const std::string& name, Time d, std::vector<uint32_t> deps)
{
    TraceOp op;
    op.kind = TraceOpKind::COMPUTE;
    op.name = name;
    op.duration = d;
    op.deps = std::move(deps);
    return op;
}

TrainingTrace
OneAllReduce(uint32_t n, uint64_t bytes)
{
    TrainingTrace t(n);
    TraceGroup g{"dp0", "dp", {}};
    for (uint32_t r = 0; r < n; ++r)
    {
        g.ranks.push_back(r);
    }
    t.AddGroup(g);
    for (uint32_t r = 0; r < n; ++r)
    {
        t.AddOp(r, Compute("fwd", MicroSeconds(10)));
        TraceOp ar;
        ar.kind = TraceOpKind::COLLECTIVE;
        ar.name = "grad";
        ar.group = "dp0";
        ar.bytes = bytes;
        ar.stream = 1;
        ar.deps = {0};
        t.AddOp(r, ar);
        t.AddOp(r, Compute("step", MicroSeconds(5), {1}));
    }
    return t;
}

double
PayloadRate(double lineRateBps, uint32_t mtu)
{
    return lineRateBps * mtu / roce::WireBytes(roce::DATA_HEADER_BYTES + mtu + roce::ICRC_BYTES);
}

void
NsTest::SetUp()
{
    // Config is reset and the simulator destroyed around every test (TestDirCleaner).
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
}

namespace
{
/// The folder TestDir made for the running test (empty before its first call).
std::string g_testDir;

/// Every test starts from ns-3's initial attribute defaults and global values, whatever a
/// test before it in the same process set (test.py runs a whole suite in one process, ctest
/// one test per process), and ends with the simulator destroyed. Removes a passed test's
/// TestDir folder; a failed test's stays for inspection.
class TestDirCleaner : public ::testing::EmptyTestEventListener
{
    void OnTestStart(const ::testing::TestInfo& /* info */) override
    {
        Config::Reset();
    }

    void OnTestEnd(const ::testing::TestInfo& info) override
    {
        Simulator::Destroy();
        Config::Reset();
        if (!g_testDir.empty() && info.result()->Passed())
        {
            std::error_code ignored;
            std::filesystem::remove_all(g_testDir, ignored);
        }
        g_testDir.clear();
    }
};

/// Registered before main (every suite links this file): owned by GoogleTest.
const bool g_cleanerRegistered = [] {
    ::testing::UnitTest::GetInstance()->listeners().Append(new TestDirCleaner);
    return true;
}();
} // namespace

std::string
TestDir()
{
    if (!g_testDir.empty())
    {
        return g_testDir;
    }
    std::filesystem::path base;
    for (const char* variable : {"TEST_TMPDIR", "TMPDIR"})
    {
        const char* value = std::getenv(variable);
        if (value && *value)
        {
            base = value;
            break;
        }
    }
    if (base.empty())
    {
        base = std::filesystem::temp_directory_path();
    }
    // Outside a test (a suite's SetUpTestSuite): one folder for the process, kept.
    static std::string processDir;
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (!info && !processDir.empty())
    {
        return processDir;
    }
    std::string name = "ai-fabric-" + std::to_string(::getpid());
    if (info)
    {
        name += std::string("-") + info->test_suite_name() + "." + info->name();
    }
    for (char& c : name)
    {
        c = (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
    }
    const std::filesystem::path dir = base / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    (info ? g_testDir : processDir) = dir.string() + "/";
    return info ? g_testDir : processDir;
}

namespace
{
void
RecordMessage(std::vector<MessageRecord>* log, Ptr<RdmaQueuePair>, uint64_t id, uint64_t bytes)
{
    log->push_back({id, bytes, Simulator::Now()});
}
} // namespace

void
FlowProbe::Attach(std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> qps)
{
    sender = qps.first;
    receiver = qps.second;
    sender->SetSendCompleteCallback(MakeBoundCallback(&RecordMessage, &sent));
    receiver->SetReceiveCompleteCallback(MakeBoundCallback(&RecordMessage, &received));
}

uint64_t
FlowProbe::BytesReceived() const
{
    uint64_t total = 0;
    for (const auto& m : received)
    {
        total += m.bytes;
    }
    return total;
}

Time
FlowProbe::LastReceive() const
{
    return received.empty() ? Time() : received.back().time;
}

std::pair<Ptr<RdmaNic>, Ptr<RdmaNic>>
BackToBack(RoceHelper& roce, DataRate rate, Time delay)
{
    NodeContainer hosts;
    hosts.Create(2);
    NetDeviceContainer link = roce.Link(hosts.Get(0), hosts.Get(1), rate, delay);
    Ptr<RdmaNic> a = roce.InstallNic(link.Get(0), Ipv4Address("10.0.0.1"));
    Ptr<RdmaNic> b = roce.InstallNic(link.Get(1), Ipv4Address("10.0.0.2"));
    return {a, b};
}

void
StoreResult(CollectiveResult* out, const CollectiveResult& result)
{
    *out = result;
}

double
RunPlanAlone(Ptr<CollectiveEngine> engine, const CommPlan& plan)
{
    CollectiveResult result;
    Simulator::Schedule(Seconds(0),
                        [&]() { engine->Run(plan, MakeBoundCallback(&StoreResult, &result)); });
    Simulator::Run();
    Simulator::Destroy();
    return (result.end - result.start).GetSeconds();
}

CollectiveResult
RunDgxAllReduce(uint32_t servers,
                const std::string& algorithm,
                uint64_t bytes,
                CollectiveProtocol protocol)
{
    return RunDgxCollective(CollectiveType::ALL_REDUCE, servers, algorithm, bytes, protocol);
}

CollectiveResult
RunDgxCollective(CollectiveType type,
                 uint32_t servers,
                 const std::string& algorithm,
                 uint64_t bytes,
                 CollectiveProtocol protocol,
                 const std::string& gpu)
{
    RoceHelper roce;
    GpuClusterHelper helper(roce);
    GpuCluster cluster =
        helper.Build(servers, 8, gpu, DataRate("400Gbps"), 1, 1.0, MicroSeconds(1));
    roce.AssignStreams(1);
    CollectiveSelection selection(cluster.transport);
    CollectivePlanOptions options;
    options.channels = 8;
    options.protocol = protocol;
    CollectiveAlgorithm a = CollectiveAlgorithm::AUTO;
    EXPECT_TRUE(CollectiveAlgorithmFromString(algorithm, a)) << algorithm;
    const CommPlan plan = selection.MakePlan(type, a, cluster.world, bytes, options);
    auto engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(cluster.transport);
    CollectiveResult result;
    engine->Run(plan, MakeBoundCallback(&StoreResult, &result));
    Simulator::Run();
    Simulator::Destroy();
    return result;
}

NcclSystem
DgxNcclSystem(uint32_t servers)
{
    const GpuPreset* h100 = GpuPreset::Find("H100");
    NcclSystem system;
    system.nodes = servers;
    system.gpusPerNode = 8;
    system.computeCapability = h100->computeCapability;
    system.nvlinks = h100->nvlinkCount;
    system.nvlinkGBps = NcclNvlinkGBps(h100->computeCapability);
    system.nvls = h100->nvls;
    system.nicsPerNode = 8;
    system.netGBps = 50;
    system.pciGBps = NcclPciGBps(h100->computeCapability);
    return system;
}

CollectiveResult
RunCollectiveOn(Ptr<CollectiveTransport> carrier,
                CollectiveType type,
                const CommGroup& group,
                uint64_t bytes,
                const std::string& algorithm,
                CollectiveProtocol protocol)
{
    auto engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(carrier);
    engine->SetAttribute("Algorithm", StringValue(algorithm));
    engine->SetAttribute("Protocol", StringValue(CollectiveProtocolToString(protocol)));
    CollectiveResult result;
    engine->RunCollective(type, group, bytes, MakeBoundCallback(&StoreResult, &result));
    Simulator::Run();
    Simulator::Destroy();
    return result;
}

RoceTopology
SmallBufferStar(RoceHelper& roce)
{
    roce.SetCongestionControl("ns3::NoCongestionControl");
    roce.SetMmuAttribute("BufferSize", UintegerValue(1 << 20));
    roce.SetMmuAttribute("EcnKmin", UintegerValue(20000));
    roce.SetMmuAttribute("EcnKmax", UintegerValue(80000));
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(3, DataRate("100Gbps"), MicroSeconds(1));
    roce.AssignStreams(1);
    return topo;
}

std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>>
StartTwoToOneIncast(const RoceTopology& topo)
{
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> connections;
    for (uint32_t i = 0; i < 2; ++i)
    {
        connections.push_back(RoceHelper::Connect(topo.nics[i], topo.nics[2]));
        Simulator::Schedule(Seconds(0),
                            &RdmaQueuePair::PostWrite,
                            connections.back().first,
                            2 << 20);
    }
    return connections;
}

uint64_t
TotalPauses(const RoceTopology& topo)
{
    uint64_t total = 0;
    for (const auto& sw : topo.switchObjects)
    {
        total += sw->GetPfcPausesSent();
    }
    return total;
}

uint64_t
TotalDrops(const RoceTopology& topo)
{
    uint64_t total = 0;
    for (const auto& sw : topo.switchObjects)
    {
        total += sw->GetTotalDrops();
    }
    return total;
}

std::vector<std::vector<std::string>>
Tshark(const std::string& file,
       const std::string& filter,
       const std::vector<std::string>& fields,
       const std::string& options)
{
    std::string cmd = "tshark -n " + options + " -r '" + file + "' -Y '" + filter + "' -T fields";
    for (const auto& f : fields)
    {
        cmd += " -e " + f;
    }
    cmd += " 2>/dev/null";
    std::vector<std::vector<std::string>> rows;
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe)
    {
        return rows;
    }
    char line[4096];
    while (fgets(line, sizeof(line), pipe))
    {
        std::string s(line);
        if (!s.empty() && s.back() == '\n')
        {
            s.pop_back();
        }
        std::vector<std::string> cols;
        std::stringstream ss(s);
        std::string col;
        while (std::getline(ss, col, '\t'))
        {
            cols.push_back(col);
        }
        rows.push_back(cols);
    }
    pclose(pipe);
    return rows;
}

bool
HaveTshark()
{
    return std::system("command -v tshark >/dev/null 2>&1") == 0;
}

} // namespace aifabric
