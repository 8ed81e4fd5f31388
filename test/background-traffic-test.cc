// SPDX-License-Identifier: GPL-2.0-only
// Background traffic: the published flow-size CDFs, Poisson arrivals at a load, the ideal
// FCT against a flow alone on the fabric, the slowdown report, and the ordering of HPCC
// and DCQCN on the shared scenario (16 hosts, websearch at 50 %, 100G).
#include "cc-test-util.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace ns3;
using namespace aifabric;

namespace
{
class BackgroundTrafficRun : public NsTest
{
};

std::string
WriteFile(const std::string& name, const std::string& text)
{
    const std::string path = TestDir() + name + ".txt";
    std::ofstream(path) << text;
    return path;
}

/// What one background run measured.
struct BackgroundRun
{
    std::vector<BackgroundFlow> flows;
    double queueMean{0}; //!< mean over 10 us samples of every switch port's data queue
};

/// 4 leaves x 4 hosts, 2 spines, 100G, 1 us cables; flows start for duration and run to
/// completion (at most one simulated second more).
BackgroundRun
RunBackground(const std::string& cc,
              const std::string& sizes,
              double load,
              Time duration,
              const std::vector<std::pair<uint32_t, uint32_t>>& pairs = {})
{
    RoceHelper roce;
    roce.SetCongestionControl(cc);
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.LeafSpine(4, 2, 4, DataRate("100Gbps"), 1.0, MicroSeconds(1));
    roce.AssignStreams(1);
    Ptr<BackgroundTraffic> traffic = CreateObject<BackgroundTraffic>();
    traffic->SetAttribute("FlowSizes", StringValue(sizes));
    traffic->SetAttribute("Load", DoubleValue(load));
    traffic->SetAttribute("Stop", TimeValue(duration));
    std::string error;
    EXPECT_TRUE(traffic->Configure(&error)) << error;
    traffic->AssignStreams(1000);
    traffic->SetPairs(pairs);
    traffic->Install(topo.nics);
    QueueSampler queues;
    for (const auto& sw : topo.switchObjects)
    {
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            queues.ports.push_back(sw->GetPort(p));
        }
    }
    queues.interval = MicroSeconds(10);
    queues.until = duration;
    Simulator::Schedule(Seconds(0), &QueueSampler::Sample, &queues);
    Simulator::Stop(duration + Seconds(1));
    Simulator::Run();
    BackgroundRun run;
    run.flows = traffic->GetFlows();
    run.queueMean = queues.Mean();
    Simulator::Destroy();
    return run;
}
} // namespace

TEST(FlowSizeCdf, PublishedDistributions)
{
    const std::vector<std::string> expected = {"alistorage2019", "fb-hadoop", "websearch"};
    EXPECT_EQ(FlowSizeCdf::Names(), expected);

    // Points and largest sizes as published with the HPCC traffic generator.
    struct Shape
    {
        const char* name;
        std::size_t points;
        double largest;
    };

    for (const Shape& s : {Shape{"websearch", 12, 30e6},
                           Shape{"fb-hadoop", 20, 10e6},
                           Shape{"alistorage2019", 9, 2e6}})
    {
        FlowSizeCdf cdf;
        ASSERT_TRUE(FlowSizeCdf::Named(s.name, cdf)) << s.name;
        EXPECT_EQ(cdf.Points().size(), s.points) << s.name;
        EXPECT_EQ(cdf.Points().back().first, s.largest) << s.name;
        // Inverse transform: at each point exactly its size; 200,000 draws match the
        // CDF at every point within 0.5 % and the mean within 2 % (heavy tails).
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        u->SetStream(7);
        const int n = 200000;
        std::vector<uint64_t> draws;
        double sum = 0;
        for (int i = 0; i < n; ++i)
        {
            draws.push_back(cdf.Sample(u->GetValue()));
            sum += draws.back();
        }
        EXPECT_NEAR(sum / n, cdf.Mean(), 0.02 * cdf.Mean()) << s.name;
        for (const auto& [bytes, p] : cdf.Points())
        {
            if (p > 0)
            {
                EXPECT_EQ(cdf.Sample(p), std::max<uint64_t>(1, bytes)) << s.name;
            }
            const double below = std::count_if(draws.begin(),
                                               draws.end(),
                                               [b = bytes](uint64_t d) { return d <= b; }) /
                                 double(n);
            EXPECT_NEAR(below, p, 0.005) << s.name << " at " << bytes;
        }
    }
    // Linear between points: half-way from 10 KB (15 %) to 20 KB (20 %).
    FlowSizeCdf web;
    FlowSizeCdf::Named("websearch", web);
    EXPECT_EQ(web.Sample(0.175), 15000u);
    // The mean of the piecewise-linear websearch CDF, by hand: sum of segment
    // probability x segment midpoint.
    EXPECT_NEAR(web.Mean(),
                0.15 * 5000 + 0.05 * 15000 + 0.10 * 25000 + 0.10 * 40000 + 0.13 * 65000 +
                    0.07 * 140000 + 0.10 * 600000 + 0.10 * 1500000 + 0.10 * 3500000 +
                    0.07 * 7500000 + 0.03 * 20000000,
                1e-6);
}

TEST(FlowSizeCdf, FilesAndTheirErrors)
{
    FlowSizeCdf cdf;
    std::string error;
    const std::string good = WriteFile("cdf-good", "# bytes percent\n0 0\n1000 50\n\n4000 100\n");
    ASSERT_TRUE(FlowSizeCdf::Load(good, cdf, &error)) << error;
    EXPECT_DOUBLE_EQ(cdf.Mean(), 0.5 * 500 + 0.5 * 2500);
    std::filesystem::remove(good);

    struct Bad
    {
        std::string text;
        std::string message;
    };

    for (const Bad& b :
         {Bad{"0 0\n100 x\n", ":2: expected \"bytes percent\" (two numbers)"},
          Bad{"0 0\n100 50 7\n", ":2: expected \"bytes percent\" (two numbers)"},
          Bad{"0 0\n100 60\n# a comment\n50 100\n",
              "line 4: expected sizes that rise and percents that do not fall"},
          Bad{"0 0\n100 60\n200 90\n", "the last point's percent is 90"},
          Bad{"0 0\n100 160\n", "line 2: expected bytes from 0 to 2^40 and a percent"},
          Bad{"0 0\n1e300 100\n", "line 2: expected bytes from 0 to 2^40"},
          Bad{"7 100\n", "expected at least two points"}})
    {
        const std::string path = WriteFile("cdf-bad", b.text);
        EXPECT_FALSE(FlowSizeCdf::Load(path, cdf, &error));
        EXPECT_EQ(error.rfind(path, 0), 0u) << "names the file: " << error;
        EXPECT_NE(error.find(b.message), std::string::npos) << error;
        std::filesystem::remove(path);
    }
    EXPECT_FALSE(FlowSizeCdf::Load("/nonexistent/cdf.txt", cdf, &error));
    EXPECT_EQ(error, "/nonexistent/cdf.txt: cannot be read");

    // The generator names the attribute, the distributions and the file's problem.
    Ptr<BackgroundTraffic> traffic = CreateObject<BackgroundTraffic>();
    traffic->SetAttribute("FlowSizes", StringValue("webserch"));
    EXPECT_FALSE(traffic->Configure(&error));
    EXPECT_EQ(error,
              "ns3::BackgroundTraffic::FlowSizes: \"webserch\" is neither a distribution "
              "(alistorage2019, fb-hadoop, websearch) nor a CDF file (webserch: cannot be read)");
    traffic->SetAttribute("FlowSizes", StringValue("websearch"));
    traffic->SetAttribute("Start", TimeValue(MilliSeconds(2)));
    traffic->SetAttribute("Stop", TimeValue(MilliSeconds(1)));
    EXPECT_FALSE(traffic->Configure(&error));
    EXPECT_EQ(error, "ns3::BackgroundTraffic::Stop (1000 us) must come after Start (2000 us)");
}

TEST_F(BackgroundTrafficRun, IdealFctIsAFlowAloneOnTheFabric)
{
    // One write at a time, host 0 to host 5 (other leaf: 4 links) and host 0 to host 1
    // (same leaf: 2 links): the simulated FCT equals the closed form within 0.5 %.
    for (uint64_t bytes : {uint64_t{1000}, uint64_t{4096}, uint64_t{100000}, uint64_t{5000000}})
    {
        for (uint32_t dst : {1u, 5u})
        {
            RoceHelper roce;
            RoceTopologyHelper topoHelper(roce);
            RoceTopology topo =
                topoHelper.LeafSpine(4, 2, 4, DataRate("100Gbps"), 1.0, MicroSeconds(1));
            roce.AssignStreams(1);
            auto qps = RoceHelper::Connect(topo.nics[0], topo.nics[dst]);
            Time done;
            qps.first->SetSendCompleteCallback(MakeBoundCallback(
                +[](Time* t, Ptr<RdmaQueuePair>, uint64_t, uint64_t) { *t = Simulator::Now(); },
                &done));
            qps.first->PostWrite(bytes);
            Simulator::Run();
            const Time ideal = BackgroundTraffic::FctIdeal(topo.nics[0], topo.nics[dst], bytes);
            std::cout << "[ measured ] " << bytes << " B to host " << dst << ": FCT "
                      << done.As(Time::US) << ", ideal " << ideal.As(Time::US) << "\n";
            EXPECT_NEAR(done.GetSeconds() / ideal.GetSeconds(), 1.0, 0.005)
                << bytes << " B to host " << dst;
            Simulator::Destroy();
        }
    }
}

TEST_F(BackgroundTrafficRun, PoissonArrivalsAtTheLoad)
{
    // alistorage2019 (mean 40.9 KB) at 30 % on 16 x 100G hosts for 5 ms: each host starts
    // flows at rate load x 100G / (8 x mean); the count is Poisson, so within 4 % (4
    // standard deviations of ~10,000). Every flow finishes; sources and destinations
    // differ; the report counts them all.
    const BackgroundRun run =
        RunBackground("ns3::RoceDcqcn", "alistorage2019", 0.3, MilliSeconds(5));
    FlowSizeCdf cdf;
    FlowSizeCdf::Named("alistorage2019", cdf);
    const double expected = 16 * 0.3 * 100e9 * 5e-3 / (8 * cdf.Mean());
    std::cout << "[ measured ] " << run.flows.size() << " flows started, expected " << expected
              << "\n";
    EXPECT_NEAR(run.flows.size(), expected, 0.04 * expected);
    std::vector<uint32_t> perHost(16, 0);
    for (const auto& f : run.flows)
    {
        EXPECT_NE(f.src, f.dst);
        EXPECT_TRUE(f.finish.IsStrictlyPositive());
        EXPECT_GE(f.finish - f.start, f.ideal * 0.999);
        ++perHost[f.src];
    }
    for (uint32_t h = 0; h < 16; ++h)
    {
        EXPECT_NEAR(perHost[h], expected / 16, 0.15 * expected / 16) << "host " << h;
    }
    FctReport report(run.flows);
    EXPECT_EQ(report.GetFinished(), run.flows.size());
    uint32_t bucketed = 0;
    for (const auto& row : report.ByBucket())
    {
        bucketed += row.flows;
        EXPECT_LE(row.p50, row.p95);
        EXPECT_LE(row.p95, row.p99);
    }
    EXPECT_EQ(bucketed, run.flows.size());
    // fct.csv: a header and one line per flow.
    std::ostringstream csv;
    report.WriteFctCsv(csv);
    const std::string text = csv.str();
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), long(run.flows.size()) + 1);
}

TEST_F(BackgroundTrafficRun, GivenHostPairsOnly)
{
    // Host 0 sends to hosts 5 and 9, host 3 to host 12; nobody else sends. Each source
    // still loads its own link to 30 % (Poisson counts within 4 standard deviations).
    const BackgroundRun run = RunBackground("ns3::RoceDcqcn",
                                            "alistorage2019",
                                            0.3,
                                            MilliSeconds(2),
                                            {{0, 5}, {0, 9}, {3, 12}});
    FlowSizeCdf cdf;
    FlowSizeCdf::Named("alistorage2019", cdf);
    const double perSource = 0.3 * 100e9 * 2e-3 / (8 * cdf.Mean());
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> count;
    uint32_t from0 = 0;
    for (const auto& f : run.flows)
    {
        ++count[{f.src, f.dst}];
        from0 += f.src == 0;
        EXPECT_TRUE(f.finish.IsStrictlyPositive());
    }
    const uint32_t to5 = count[std::make_pair(0u, 5u)];
    const uint32_t to9 = count[std::make_pair(0u, 9u)];
    const uint32_t to12 = count[std::make_pair(3u, 12u)];
    std::cout << "[ measured ] flows 0->5 " << to5 << ", 0->9 " << to9 << ", 3->12 " << to12
              << " (each source expects " << perSource << ")\n";
    EXPECT_EQ(count.size(), 3u) << "only the given pairs";
    EXPECT_NEAR(from0, perSource, 4 * std::sqrt(perSource));
    EXPECT_NEAR(to12, perSource, 4 * std::sqrt(perSource));
    EXPECT_NEAR(to5, from0 / 2.0, 4 * std::sqrt(from0 / 4.0)) << "uniform over its two";
}

TEST(FctReportStats, NearestRankPercentiles)
{
    // Slowdowns 1..100 in one bucket: p50 = 50, p95 = 95, p99 = 99 (nearest rank).
    std::vector<BackgroundFlow> flows;
    for (int i = 1; i <= 100; ++i)
    {
        BackgroundFlow f;
        f.bytes = 5000;
        f.start = MicroSeconds(1);
        f.ideal = MicroSeconds(10);
        f.finish = f.start + MicroSeconds(10 * i);
        flows.push_back(f);
    }
    BackgroundFlow unfinished;
    unfinished.bytes = 2000000;
    unfinished.ideal = MicroSeconds(1);
    flows.push_back(unfinished);
    FctReport report(flows);
    const SlowdownStats s = report.ByBucket()[0];
    EXPECT_EQ(s.flows, 100u);
    EXPECT_NEAR(s.p50, 50, 1e-9);
    EXPECT_NEAR(s.p95, 95, 1e-9);
    EXPECT_NEAR(s.p99, 99, 1e-9);
    EXPECT_NEAR(s.mean, 50.5, 1e-9);
    EXPECT_EQ(report.GetUnfinished(), 1u);
    EXPECT_EQ(report.ByBucket()[3].flows, 0u);
}

TEST_F(BackgroundTrafficRun, HpccBeatsDcqcnOnSmallFlowTails)
{
    // The shared scenario of cc-compare (16 hosts, websearch at 50 %, 100G), 10 ms of
    // arrivals: HPCC's 99th-percentile slowdown of flows under 100 KB is below DCQCN's,
    // and its queues are shorter (HPCC paper, Fig. 9 and 10: the same ordering at 320
    // hosts).
    const BackgroundRun dcqcn = RunBackground("ns3::RoceDcqcn", "websearch", 0.5, MilliSeconds(10));
    const BackgroundRun hpcc = RunBackground("ns3::RoceHpcc", "websearch", 0.5, MilliSeconds(10));
    const SlowdownStats d = FctReport(dcqcn.flows).Range(0, FctReport::SMALL_BYTES, "small");
    const SlowdownStats h = FctReport(hpcc.flows).Range(0, FctReport::SMALL_BYTES, "small");
    std::cout << "[ measured ] small flows (" << d.flows << "): p99 slowdown DCQCN " << d.p99
              << ", HPCC " << h.p99 << "; p95 " << d.p95 << " / " << h.p95 << "; mean switch queue "
              << dcqcn.queueMean << " / " << hpcc.queueMean << " B\n";
    EXPECT_EQ(d.flows, h.flows) << "same seed, same flows";
    EXPECT_GT(d.flows, 100u);
    EXPECT_LT(h.p99, d.p99);
    EXPECT_LT(h.p99, 0.5 * d.p99) << "not a near tie";
    EXPECT_LT(hpcc.queueMean, dcqcn.queueMean);
    EXPECT_EQ(FctReport(hpcc.flows).GetUnfinished(), 0u);
    EXPECT_EQ(FctReport(dcqcn.flows).GetUnfinished(), 0u);
}

TEST_F(BackgroundTrafficRun, SameSeedSameFlowTimes)
{
    const BackgroundRun a = RunBackground("ns3::RoceHpcc", "fb-hadoop", 0.5, MilliSeconds(2));
    const BackgroundRun b = RunBackground("ns3::RoceHpcc", "fb-hadoop", 0.5, MilliSeconds(2));
    ASSERT_EQ(a.flows.size(), b.flows.size());
    for (std::size_t i = 0; i < a.flows.size(); ++i)
    {
        EXPECT_EQ(a.flows[i].bytes, b.flows[i].bytes);
        EXPECT_EQ(a.flows[i].finish, b.flows[i].finish);
    }
}
