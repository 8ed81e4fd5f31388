// SPDX-License-Identifier: GPL-2.0-only
//
// The same fabric and background workload under each congestion control, compared the way
// CC papers do: FCT slowdown (FCT / FCT alone on the empty fabric) of small and large
// flows, queues, PFC pauses and link utilisation, in one table and one plot.
//
//   ./cc-compare                                   # 16 hosts, websearch at 50 %, 100G
//   ./cc-compare --flowSizes=fb-hadoop --load=0.3 --ccs=ns3::RoceDcqcn,ns3::RoceHpcc
//
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <chrono>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

using namespace ns3;

namespace
{
/// Samples every switch port's data queue.
struct QueueSampler
{
    std::vector<Ptr<RoceNetDevice>> ports;
    Time interval;
    Time until;
    double sum{0};
    uint64_t samples{0};
    uint32_t max{0};

    void Sample()
    {
        for (const auto& port : ports)
        {
            const uint32_t q = port->GetQueueBytes(3);
            sum += q;
            max = std::max(max, q);
        }
        samples += ports.size();
        if (Simulator::Now() + interval < until)
        {
            Simulator::Schedule(interval, &QueueSampler::Sample, this);
        }
    }
};

/// What one algorithm's run measured.
struct Outcome
{
    std::string cc;
    FctReport report{std::vector<BackgroundFlow>{}};
    double queueMean{0};
    uint32_t queueMax{0};
    uint64_t pauses{0};
    uint64_t drops{0};
    double fabricUtilisation{0};
    double wallSeconds{0};
};

/// Sum of the wire bytes sent by switch ports cabled to switches.
uint64_t
CoreWireBytes(const RoceTopology& topo, double* capacityBps)
{
    uint64_t bytes = 0;
    double capacity = 0;
    for (const auto& sw : topo.switchObjects)
    {
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            Ptr<RoceNetDevice> port = sw->GetPort(p);
            Ptr<Node> peer = port->GetRoceChannel()->GetPeer(port)->GetNode();
            if (peer->GetNDevices() > 1) // a switch
            {
                bytes += port->GetTxWireBytes();
                capacity += port->GetDataRate().GetBitRate();
            }
        }
    }
    *capacityBps = capacity;
    return bytes;
}
} // namespace

int
main(int argc, char* argv[])
{
    ProgramOptions::FixTimeResolution();
    uint32_t leaves = 4;
    uint32_t hostsPerLeaf = 4;
    uint32_t spines = 2;
    DataRate rate("100Gbps");
    Time delay = MicroSeconds(1);
    std::string flowSizes = "websearch";
    double load = 0.5;
    Time duration = MilliSeconds(20);
    std::string ccs = "ns3::RoceDcqcn,ns3::RoceHpcc,ns3::RoceDctcp,ns3::RoceTimely,ns3::RoceSwift";
    std::string out = "cc-compare-results";
    uint32_t seed = 1;
    std::string topology = "leaf-spine";

    ProgramOptions cmd("cc-compare", __FILE__);
    cmd.Usage("Background traffic on a leaf-spine under each congestion control: FCT "
              "slowdown, queues, pauses and utilisation in one table and one plot.");
    cmd.AddValue("leaves", "Leaf switches", leaves, 1, 256);
    cmd.AddValue("hostsPerLeaf", "Hosts under each leaf", hostsPerLeaf, 1, 256);
    cmd.AddValue("spines",
                 "Spine switches (non-blocking: leaf uplinks share the hosts' rate)",
                 spines,
                 1,
                 64);
    cmd.AddChoice("topology",
                  "leaf-spine (--leaves, --hostsPerLeaf, --spines, --rate) or hpcc-paper: the "
                  "HPCC paper's fat-tree (320 hosts at 100G in 5 pods of 4 ToRs and 4 "
                  "aggregation switches, 16 cores, 400G between switches) with DCQCN as the "
                  "HPCC simulator runs it (AI 50 Mb/s, HAI 100 Mb/s, timer 900 us)",
                  topology,
                  {"leaf-spine", "hpcc-paper"});
    cmd.AddValue("rate", "Host link rate", rate);
    cmd.AddValue("delay", "Cable delay", delay, true);
    cmd.AddValue("flowSizes",
                 "Flow-size distribution: websearch, fb-hadoop, alistorage2019 or a CDF file "
                 "(\"bytes percent\" lines)",
                 flowSizes);
    cmd.AddValue("load", "Average load of each host link, from 0.000001 to 1", load, 1e-6, 1);
    cmd.AddValue("duration",
                 "Flows start during this time (all are run to completion)",
                 duration,
                 true);
    cmd.AddValue("ccs", "Comma-separated congestion-control TypeIds to compare", ccs);
    cmd.AddOutputFolder("out", "Folder for fct-<cc>.csv, slowdown.csv and slowdown.png", out);
    cmd.AddValue("seed", "Run number (ns-3 RngRun): the same for every algorithm", seed, 1);
    if (!cmd.Parse(argc, argv))
    {
        return 1;
    }
    std::vector<std::string> algorithms;
    {
        std::istringstream list(ccs);
        std::string name;
        while (std::getline(list, name, ','))
        {
            std::string why;
            TypeId tid;
            if (!RoceCongestionControl::LookupByName(name, &tid))
            {
                std::cerr << "cc-compare: --ccs=" << ccs << ": \"" << name
                          << "\" is not a congestion control: expected comma-separated "
                          << RoceCongestionControl::GetNameHint() << "\n";
                return 1;
            }
            if (!RoceHelper::CheckCongestionControl(name, &why))
            {
                std::cerr << "cc-compare: --ccs=" << ccs << ": " << why << "\n";
                return 1;
            }
            algorithms.push_back(tid.GetName());
        }
    }
    if (algorithms.empty())
    {
        std::cerr << "cc-compare: --ccs=: expected at least one congestion-control TypeId\n";
        return 1;
    }
    {
        Ptr<BackgroundTraffic> probe = CreateObject<BackgroundTraffic>();
        probe->SetAttribute("FlowSizes", StringValue(flowSizes));
        std::string why;
        if (!probe->Configure(&why))
        {
            std::cerr << "cc-compare: --flowSizes=" << flowSizes << ": " << why << "\n";
            return 1;
        }
    }
    std::string why;
    if (!MakeDir(out, &why))
    {
        std::cerr << "cc-compare: --out=" << out << ": " << why << "\n";
        return 1;
    }
    RngSeedManager::SetRun(seed);

    const bool paper = topology == "hpcc-paper";
    if (paper)
    {
        // The HPCC simulator's DCQCN (HPCC paper, section 5.1); ECN (400/1600 KB at 100G,
        // Pmax 0.2) and 32 MB buffers are the MMU's defaults already.
        Config::SetDefault("ns3::RoceDcqcn::RateAi", DataRateValue(DataRate("50Mbps")));
        Config::SetDefault("ns3::RoceDcqcn::RateHai", DataRateValue(DataRate("100Mbps")));
        Config::SetDefault("ns3::RoceDcqcn::RateIncreaseTimer", TimeValue(MicroSeconds(900)));
        rate = DataRate("100Gbps");
        std::cout << "cc-compare: the HPCC paper's fat-tree, 320 hosts at 100 Gb/s (5 pods of "
                  << "4 ToRs x 16 hosts and 4 aggregations, 16 cores, 400 Gb/s between "
                  << "switches), DCQCN AI 50 Mb/s, HAI 100 Mb/s, timer 900 us; ";
    }
    else
    {
        std::cout << "cc-compare: " << leaves * hostsPerLeaf << " hosts (" << leaves << " leaves x "
                  << hostsPerLeaf << ", " << spines << " spines, non-blocking), " << rate
                  << " links, ";
    }
    std::cout << flowSizes << " flows at " << load * 100 << " % load, starting over "
              << duration.As(Time::MS) << "\n";
    auto build = [&](RoceTopologyHelper& helper) {
        return paper ? helper.ThreeTier(5, 4, 4, 16, 16, rate, DataRate("400Gbps"), delay)
                     : helper.LeafSpine(leaves, spines, hostsPerLeaf, rate, 1.0, delay);
    };
    std::vector<Outcome> outcomes;
    for (const auto& cc : algorithms)
    {
        const auto wallStart = std::chrono::steady_clock::now();
        RoceHelper roce;
        roce.SetCongestionControl(cc);
        RoceTopologyHelper topoHelper(roce);
        RoceTopology topo = build(topoHelper);
        const int64_t streams = roce.AssignStreams(1);
        if (!roce.CheckTelemetryRates(&why))
        {
            std::cerr << "cc-compare: --ccs=" << ccs << ": " << why << "\n";
            return 1;
        }
        Ptr<BackgroundTraffic> traffic = CreateObject<BackgroundTraffic>();
        traffic->SetAttribute("FlowSizes", StringValue(flowSizes));
        traffic->SetAttribute("Load", DoubleValue(load));
        traffic->SetAttribute("Stop", TimeValue(duration));
        traffic->Configure(&why);
        traffic->AssignStreams(std::max<int64_t>(1000, 1 + streams));
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
        double capacity = 0;
        uint64_t coreAtStop = 0;
        Simulator::Schedule(duration, [&] { coreAtStop = CoreWireBytes(topo, &capacity); });
        // Run until every flow is acknowledged; a flow that never finishes is reported.
        const Time limit = duration + Seconds(1);
        std::function<void()> check = [&] {
            if (Simulator::Now() >= duration && traffic->GetActiveFlows() == 0)
            {
                Simulator::Stop();
                return;
            }
            Simulator::Schedule(MicroSeconds(100), check);
        };
        Simulator::Schedule(MicroSeconds(100), check);
        Simulator::Stop(limit);
        Simulator::Run();

        Outcome o;
        o.cc = cc;
        o.report = FctReport(traffic->GetFlows());
        o.queueMean = queues.samples ? queues.sum / queues.samples : 0;
        o.queueMax = queues.max;
        for (const auto& sw : topo.switchObjects)
        {
            o.pauses += sw->GetPfcPausesSent();
            o.drops += sw->GetTotalDrops();
        }
        o.fabricUtilisation =
            capacity > 0 ? coreAtStop * 8.0 / (capacity * duration.GetSeconds()) : 0;
        o.wallSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
        std::ofstream fct(out + "/fct-" + cc.substr(cc.rfind(':') + 1) + ".csv");
        o.report.WriteFctCsv(fct);
        std::cout << "\n"
                  << cc << ": " << o.report.GetFinished() << " flows finished (" << std::fixed
                  << std::setprecision(1) << o.wallSeconds << " s)\n";
        std::cout.unsetf(std::ios::fixed);
        o.report.PrintTable(std::cout);
        outcomes.push_back(o);
        Simulator::Destroy();
    }

    std::cout << "\nslowdown (FCT / ideal): small < 100 KB, large >= 1 MB\n"
              << "  algorithm                 small p50    p95    p99   large p50    p95    p99"
              << "   queue mean/max (KB)   pauses  fabric util\n";
    std::ofstream csv(out + "/slowdown.csv");
    std::vector<std::pair<std::string, FctReport>> runs;
    for (std::size_t i = 0; i < outcomes.size(); ++i)
    {
        const Outcome& o = outcomes[i];
        const SlowdownStats small = o.report.Range(0, FctReport::SMALL_BYTES, "small");
        const SlowdownStats large =
            o.report.Range(FctReport::LARGE_BYTES, std::numeric_limits<uint64_t>::max(), "large");
        std::cout << "  " << std::left << std::setw(24) << o.cc << std::right << std::fixed
                  << std::setprecision(2) << std::setw(11) << small.p50 << std::setw(7) << small.p95
                  << std::setw(7) << small.p99 << std::setw(12) << large.p50 << std::setw(7)
                  << large.p95 << std::setw(7) << large.p99 << std::setw(13) << std::setprecision(1)
                  << o.queueMean / 1000 << " / " << std::setw(6) << o.queueMax / 1000.0
                  << std::setw(9) << o.pauses << std::setw(11) << std::setprecision(3)
                  << o.fabricUtilisation << "\n";
        std::cout.unsetf(std::ios::fixed);
        o.report.WriteSlowdownCsv(csv, o.cc, i == 0);
        runs.emplace_back(o.cc, o.report);
    }
    std::cout << "\n  outputs: " << out << "/ (fct-<cc>.csv, slowdown.csv";
    if (FctReport::Plot(runs, out + "/slowdown.png", &why))
    {
        std::cout << ", slowdown.png)\n";
    }
    else
    {
        std::cout << "; no plot: " << why << ")\n";
    }
    return 0;
}
