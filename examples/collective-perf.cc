// SPDX-License-Identifier: GPL-2.0-only
//
// nccl-tests for the simulator: sweep message sizes for one collective and algorithm and
// print the table NCCL users read every day (size, count, type, time, algbw, busbw), plus
// CSV. The carrier is the RoCE fabric (every rank a host with one RDMA NIC on a
// leaf-spine or a single switch) or the ideal transport (rate + latency, no packets).
//
//   ./collective-perf --collective=all-reduce --algorithm=ring --ranks=8
//        --minBytes=1M --maxBytes=256M --transport=rdma --rate=400Gbps   (one line)
//
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>

using namespace ns3;

namespace
{
const std::map<std::string, CollectiveType> COLLECTIVES{
    {"all-reduce", CollectiveType::ALL_REDUCE},
    {"all-gather", CollectiveType::ALL_GATHER},
    {"reduce-scatter", CollectiveType::REDUCE_SCATTER},
    {"all-to-all", CollectiveType::ALL_TO_ALL},
    {"broadcast", CollectiveType::BROADCAST},
    {"reduce", CollectiveType::REDUCE},
};

/// "64M" / "1G" / "4096" → bytes; 0 on a malformed value.
uint64_t
ParseBytes(const std::string& text)
{
    char* end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || value < 0)
    {
        return 0;
    }
    std::string unit(end);
    uint64_t scale = unit.empty() || unit == "B" ? 1
                     : unit == "K"               ? 1ull << 10
                     : unit == "M"               ? 1ull << 20
                     : unit == "G"               ? 1ull << 30
                                                 : 0;
    return static_cast<uint64_t>(value * scale);
}

template <typename T>
bool
Lookup(const std::map<std::string, T>& table, const std::string& key, T& out, const char* what)
{
    auto it = table.find(key);
    if (it == table.end())
    {
        std::cerr << "collective-perf: unknown " << what << " '" << key << "'; one of:";
        for (const auto& [name, value] : table)
        {
            std::cerr << ' ' << name;
        }
        std::cerr << '\n';
        return false;
    }
    out = it->second;
    return true;
}

void
Store(CollectiveResult* out, const CollectiveResult& result)
{
    *out = result;
}
} // namespace

int
main(int argc, char* argv[])
{
    std::string collectiveName = "all-reduce";
    std::string algorithmName = "ring";
    std::string transportName = "rdma";
    uint32_t servers = 1;
    std::string nvlinkPreset = "H100";
    uint32_t ranks = 8;
    std::string minBytesText = "1M";
    std::string maxBytesText = "64M";
    uint32_t factor = 2;
    uint32_t channels = 1;
    std::string chunkText = "auto";
    std::string rate = "400Gbps";
    Time latency = MicroSeconds(1);
    uint32_t leaves = 1;
    uint32_t spines = 1;
    double oversubscription = 1.0;
    std::string cc = "ns3::Dcqcn";
    std::string csv = "collective-perf.csv";

    CommandLine cmd(__FILE__);
    cmd.AddValue("collective", "all-reduce, all-gather, reduce-scatter, all-to-all, broadcast, reduce", collectiveName);
    cmd.AddValue("algorithm",
                 "auto, ring, tree, halving-doubling, direct, hierarchical; dgx also nvls "
                 "(one server) and rail-ring (rail-aligned channels)",
                 algorithmName);
    cmd.AddValue("transport",
                 "rdma (RoCE fabric, one host per rank), ideal (rate + latency), or dgx "
                 "(servers of GPUs on NVSwitch + one NIC per GPU, rail-optimized)",
                 transportName);
    cmd.AddValue("servers", "dgx: servers (ranks = servers x GPUs per server)", servers);
    cmd.AddValue("nvlink", "dgx: NVLink preset A100, H100 or B200", nvlinkPreset);
    cmd.AddValue("ranks", "Number of ranks (one host each)", ranks);
    cmd.AddValue("minBytes", "Smallest size (suffix K, M, G allowed)", minBytesText);
    cmd.AddValue("maxBytes", "Largest size", maxBytesText);
    cmd.AddValue("stepFactor", "Size multiplier between rows", factor);
    cmd.AddValue("channels", "Ring channels", channels);
    cmd.AddValue("chunk",
                 "Pipelining chunk (K, M suffix); auto = 512K for trees, none otherwise",
                 chunkText);
    cmd.AddValue("rate", "Rate of every link (rdma) or port (ideal)", rate);
    cmd.AddValue("latency", "Cable delay (rdma) or per-message latency (ideal)", latency);
    cmd.AddValue("leaves", "Leaves of the fabric (1 = one switch)", leaves);
    cmd.AddValue("spines", "Spines (with leaves > 1)", spines);
    cmd.AddValue("oversubscription", "Leaf downlink / uplink capacity", oversubscription);
    cmd.AddValue("cc", "Congestion control of the NICs", cc);
    cmd.AddValue("csv", "CSV output file (\"none\": no CSV)", csv);
    cmd.Parse(argc, argv);

    CollectiveType type;
    if (!Lookup(COLLECTIVES, collectiveName, type, "collective"))
    {
        return 1;
    }
    uint64_t minBytes = ParseBytes(minBytesText);
    uint64_t maxBytes = ParseBytes(maxBytesText);
    const bool dgx = transportName == "dgx";
    if (minBytes == 0 || maxBytes < minBytes || factor < 2 || ranks < 2 || servers < 1 ||
        (transportName != "rdma" && transportName != "ideal" && !dgx) ||
        (dgx && ranks % servers != 0) || (leaves > 1 && ranks % leaves != 0) ||
        (algorithmName == "nvls" && !(dgx && servers == 1)) ||
        (algorithmName == "rail-ring" && !dgx))
    {
        std::cerr << "collective-perf: need 0 < minBytes <= maxBytes, stepFactor >= 2, "
                     "ranks >= 2, transport rdma|ideal|dgx, ranks divisible by leaves (rdma) "
                     "or servers (dgx); nvls needs dgx with one server, rail-ring needs dgx\n";
        return 1;
    }
    // rdma and ideal: every rank is a host of its own; dgx: servers of GPUs.
    CommGroup group =
        dgx ? CommGroup::Uniform(servers, ranks / servers) : CommGroup::Uniform(ranks, 1);
    CollectiveSelection selection;

    Ptr<CollectiveTransport> transport;
    RoceHelper roce;
    RoceTopology topo;
    GpuCluster cluster;
    if (dgx)
    {
        roce.SetCongestionControl(cc);
        GpuClusterHelper helper(roce);
        cluster = helper.Build(servers, ranks / servers, nvlinkPreset, DataRate(rate),
                               std::max<uint32_t>(spines, 1), oversubscription, latency);
        roce.AssignStreams(1);
        topo = cluster.network;
        transport = cluster.transport;
    }
    else if (transportName == "rdma")
    {
        roce.SetCongestionControl(cc);
        RoceTopologyHelper topoHelper(roce);
        topo = leaves > 1 ? topoHelper.LeafSpine(leaves, spines, ranks / leaves, DataRate(rate),
                                                 oversubscription, latency)
                          : topoHelper.Star(ranks, DataRate(rate), latency);
        roce.AssignStreams(1);
        Ptr<RdmaTransport> rdma = CreateObject<RdmaTransport>();
        rdma->SetNics(topo.nics);
        transport = rdma;
    }
    else
    {
        Ptr<IdealTransport> ideal = CreateObject<IdealTransport>();
        ideal->SetAttribute("NRanks", UintegerValue(ranks));
        ideal->SetAttribute("DataRate", DataRateValue(DataRate(rate)));
        ideal->SetAttribute("Latency", TimeValue(latency));
        transport = ideal;
    }
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(transport);
    {
        // auto picks NVLS where the carrier can reduce in the switch (one DGX server).
        std::vector<uint32_t> all(ranks);
        std::iota(all.begin(), all.end(), 0u);
        selection.switchReduction = transport->CanReduceInSwitch(all);
    }

    std::ofstream out;
    if (csv != "none")
    {
        out.open(csv);
        out << "collective,algorithm,transport,ranks,size_bytes,count,time_us,algbw_GBps,busbw_GBps\n";
    }
    std::printf("# %s, algorithm %s, %u ranks, transport %s (%s, %s)\n",
                collectiveName.c_str(), algorithmName.c_str(), ranks, transportName.c_str(),
                rate.c_str(), transportName == "ideal" ? "no packets" : cc.c_str());
    std::printf("#\n# %12s %12s %8s %6s %6s %10s %8s %8s %6s\n", "size", "count", "type", "redop",
                "root", "time", "algbw", "busbw", "#wrong");
    std::printf("# %12s %12s %8s %6s %6s %10s %8s %8s %6s\n", "(B)", "(elements)", "", "", "",
                "(us)", "(GB/s)", "(GB/s)", "");
    CollectivePlanOptions options;
    options.channels = channels;
    // Without pipelining a tree moves the whole message level by level; NCCL pipelines
    // trees in chunks, so the default does too.
    options.chunkBytes = chunkText == "auto"
                             ? (algorithmName == "tree" ? 512ull << 10 : 0)
                             : ParseBytes(chunkText);
    double busSum = 0;
    uint32_t rows = 0;
    for (uint64_t bytes = minBytes; bytes <= maxBytes; bytes *= factor)
    {
        CollectiveResult result;
        // "auto" may pick a different algorithm per size (see CollectiveSelection).
        CommPlan plan = algorithmName == "rail-ring"
                            ? RingAllReduceOrdered(RailAlignedRingOrders(group, channels),
                                                   bytes,
                                                   options.chunkBytes)
                            : selection.MakePlan(type, algorithmName, group, bytes, options);
        Simulator::ScheduleNow(
            [&, plan]() { engine->Run(plan, MakeBoundCallback(&Store, &result)); });
        Simulator::Run(); // returns when the fabric is idle again
        double us = (result.end - result.start).GetSeconds() * 1e6;
        bool rooted = type == CollectiveType::BROADCAST || type == CollectiveType::REDUCE;
        bool reduces = type == CollectiveType::ALL_REDUCE || type == CollectiveType::REDUCE ||
                       type == CollectiveType::REDUCE_SCATTER;
        std::printf("  %12llu %12llu %8s %6s %6d %10.1f %8.2f %8.2f %6s\n",
                    static_cast<unsigned long long>(bytes),
                    static_cast<unsigned long long>(bytes / 4), "float",
                    reduces ? "sum" : "none", rooted ? 0 : -1, us, result.algBw / 1e9,
                    result.busBw / 1e9, "N/A");
        if (out)
        {
            out << collectiveName << ',' << algorithmName << ',' << transportName << ',' << ranks
                << ',' << bytes << ',' << bytes / 4 << ',' << us << ',' << result.algBw / 1e9
                << ',' << result.busBw / 1e9 << '\n';
        }
        busSum += result.busBw / 1e9;
        ++rows;
    }
    std::printf("# Avg bus bandwidth    : %.3f GB/s\n", rows ? busSum / rows : 0.0);
    if (transportName != "ideal")
    {
        uint64_t pauses = 0;
        uint64_t drops = 0;
        uint64_t marks = 0;
        for (const auto& sw : topo.switchObjects)
        {
            pauses += sw->GetPfcPausesSent();
            drops += sw->GetTotalDrops();
            marks += sw->GetEcnMarks();
        }
        std::printf("# Fabric: %llu PFC pauses, %llu ECN marks, %llu drops\n",
                    static_cast<unsigned long long>(pauses), static_cast<unsigned long long>(marks),
                    static_cast<unsigned long long>(drops));
    }
    Simulator::Destroy();
    return 0;
}
