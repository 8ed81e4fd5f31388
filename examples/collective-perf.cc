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

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>

using namespace ns3;

namespace
{

void
Store(CollectiveResult* out, const CollectiveResult& result)
{
    *out = result;
}
} // namespace

int
main(int argc, char* argv[])
{
    ProgramOptions::FixTimeResolution();
    std::string collectiveName = "all-reduce";
    std::string algorithmName = AUTO_ALGORITHM_NAME;
    std::string protocolName = CollectiveProtocolToString(CollectiveProtocol::AUTO);
    std::string transportName = "rdma";
    uint32_t servers = 1;
    std::string nvlinkPreset = "H100";
    uint32_t ranks = 8;
    uint64_t minBytes = 1 << 20;
    uint64_t maxBytes = 64 << 20;
    uint32_t factor = 2;
    uint32_t channels = 0;
    uint64_t chunkBytes = 0; // auto
    std::string chunkText;
    DataRate linkRate("400Gbps");
    std::string rate;
    Time latency = MicroSeconds(1);
    uint32_t leaves = 1;
    uint32_t spines = 1;
    double oversubscription = 1.0;
    std::string cc = "ns3::RoceDcqcn";
    std::string csv = "collective-perf.csv";
    std::string pcap;
    bool ina = false;
    bool ncclModel = false;
    bool estimates = false;
    bool simulate = true;
    bool asNccl = false;
    uint32_t qpsPerConnection = 1;
    bool splitDataOnQps = false;
    std::string inaProtocolName = InaProtocolName(InaHelper::GetProtocols().front());
    std::vector<std::string> inaProtocolNames;
    for (InaProtocol p : InaHelper::GetProtocols())
    {
        inaProtocolNames.emplace_back(InaProtocolName(p));
    }

    std::vector<std::string> collectiveNames;
    for (CollectiveType t : {CollectiveType::ALL_REDUCE,
                             CollectiveType::ALL_GATHER,
                             CollectiveType::REDUCE_SCATTER,
                             CollectiveType::ALL_TO_ALL,
                             CollectiveType::BROADCAST,
                             CollectiveType::REDUCE})
    {
        collectiveNames.push_back(CollectiveTypeToString(t));
    }
    std::vector<std::string> algorithmNames{AUTO_ALGORITHM_NAME};
    for (CollectiveAlgorithm a : GetCollectiveAlgorithms())
    {
        algorithmNames.push_back(CollectiveAlgorithmToString(a));
    }
    std::vector<std::string> gpuNames;
    for (const GpuPreset& p : GpuPreset::GetAll())
    {
        gpuNames.push_back(p.name);
    }

    ProgramOptions cmd("collective-perf", __FILE__);
    cmd.Usage("nccl-tests for the simulator: sweep message sizes for one collective and "
              "algorithm on the RoCE fabric, the ideal transport or DGX servers. In-network "
              "aggregation what-if: --transport=rdma --ranks=16 --rate=400Gbps --ina "
              "(switches sum the gradients; compare with --algorithm=ring).");
    cmd.AddChoice("collective", "Collective", collectiveName, collectiveNames);
    cmd.AddChoice("algorithm",
                  GetCollectiveAlgorithmNameList() +
                      " (auto: the fastest by the cost model, per size; nvls needs GPUs on one "
                      "NVSwitch that supports it; rail-ring and hierarchical need servers)",
                  algorithmName,
                  algorithmNames);
    std::vector<std::string> protocolNames{CollectiveProtocolToString(CollectiveProtocol::AUTO)};
    for (CollectiveProtocol p : GetCollectiveProtocols())
    {
        protocolNames.push_back(CollectiveProtocolToString(p));
    }
    protocolNames.push_back(CollectiveProtocolToString(CollectiveProtocol::NONE));
    cmd.AddChoice("protocol",
                  "NCCL protocol, as NCCL_PROTO: " + GetCollectiveProtocolNameList() +
                      " (auto: the fastest by the cost model, per size, as NCCL's tuner "
                      "picks; none: no protocol costs, the wire bound)",
                  protocolName,
                  protocolNames);
    std::string fabricModel = "packet";
    cmd.AddChoice("fabric",
                  "rdma, dgx: the scale-out fabric's model: packet (every frame, the "
                  "reference) or flow (ns3::FlowTransport: max-min fair flows on the same "
                  "routes; no queues, PFC, ECN or congestion-control dynamics)",
                  fabricModel,
                  {"packet", "flow"});
    cmd.AddChoice("transport",
                  "rdma (RoCE fabric, one host per rank), ideal (rate + latency), or dgx "
                  "(servers of GPUs on NVSwitch + one NIC per GPU, rail-optimized)",
                  transportName,
                  {"rdma", "ideal", "dgx"});
    cmd.AddValue("servers", "dgx: servers (ranks = servers x GPUs per server)", servers, 1, 512);
    cmd.AddChoice("nvlink", "dgx: GPU preset (NVLink and NVLS)", nvlinkPreset, gpuNames);
    cmd.AddValue("ranks", "Number of ranks (one host each)", ranks, 2, 4096);
    cmd.AddSize("minBytes", "Smallest size", minBytes, 1, uint64_t{1} << 40);
    cmd.AddSize("maxBytes", "Largest size", maxBytes, 1, uint64_t{1} << 40);
    cmd.AddValue("stepFactor", "Size multiplier between rows", factor, 2, 1024);
    cmd.AddValue("channels",
                 "Ring channels; 0 = one per GPU of a server (dgx: ranks/servers; rdma and "
                 "ideal: 1), as ai-fabric-sim",
                 channels,
                 0,
                 64);
    cmd.AddSize("chunk",
                "Pipelining chunk (K, M suffix); auto = each algorithm's default (tree and "
                "hierarchical 512K, ring and rail-ring broadcast and reduce one step of the "
                "protocol's buffer: LL 32K, LL128 576000, Simple 512K; nvls and nvls-ina 128K, "
                "others none)",
                chunkBytes,
                4096,
                uint64_t{1} << 40,
                "auto",
                0);
    cmd.AddValue("rate", "Rate of every link (rdma) or port (ideal)", linkRate);
    cmd.AddValue("latency", "Cable delay (rdma) or per-message latency (ideal)", latency);
    cmd.AddValue("leaves", "Leaves of the fabric (1 = one switch)", leaves, 1, 256);
    cmd.AddValue("spines", "Spines (with leaves > 1, and dgx)", spines, 1, 256);
    cmd.AddValue("oversubscription",
                 "Leaf downlink / uplink capacity",
                 oversubscription,
                 0,
                 1000,
                 true);
    cmd.AddCongestionControl("cc", "Congestion control of the NICs", cc);
    cmd.AddValue("qpsPerConnection",
                 "rdma, dgx: queue pairs per connection, each with its own UDP source port for "
                 "ECMP (NCCL_IB_QPS_PER_CONNECTION)",
                 qpsPerConnection,
                 1,
                 RdmaTransport::MAX_QPS_PER_CONNECTION);
    cmd.AddValue("splitDataOnQps",
                 "rdma, dgx: split every transfer evenly over a connection's queue pairs "
                 "(NCCL_IB_SPLIT_DATA_ON_QPS=1); false: 512 KiB requests take them in turn "
                 "(NCCL's default)",
                 splitDataOnQps);
    cmd.AddValue("ina",
                 "rdma, dgx: every RoCE switch aggregates in the network "
                 "(InaAggregationEngine; its attributes: "
                 "--ns3::InaAggregationEngine::Slots=... and the like), and collectives may "
                 "run there (--algorithm=ina: all-reduce, reduce-scatter, all-gather, "
                 "broadcast, reduce; nvls-ina: all-reduce on dgx; or auto)",
                 ina);
    cmd.AddChoice("inaProtocol",
                  "with --ina: streaming (ATP/SHARP-like, full-MTU fragments, shared "
                  "aggregators) or switchml (SwitchML slot pools, 1 KiB fragments)",
                  inaProtocolName,
                  inaProtocolNames);
    cmd.AddValue("ncclModel",
                 "Print beside each row what NCCL's own tuning model (v2.30.7) predicts: the "
                 "algorithm/protocol NCCL's tuner would pick and its time",
                 ncclModel);
    cmd.AddValue("asNccl",
                 "Run, per size, the algorithm and protocol NCCL's tuning model picks, mapped "
                 "to ours (implies --ncclModel; with --algorithm, NCCL's choice is limited to "
                 "that algorithm, as NCCL_ALGO limits it)",
                 asNccl);
    cmd.AddValue("estimates",
                 "Print under each row the cost model's estimate of every algorithm and "
                 "protocol auto weighs, fastest first (what auto compares)",
                 estimates);
    cmd.AddValue("simulate",
                 "false: do not simulate; print per size the plan that would run (auto's "
                 "choice or the named algorithm) with the cost model's estimate of it in the "
                 "time, algbw and busbw columns (CSV source \"estimate\"): what auto "
                 "would pick, without the packets' cost",
                 simulate);
    cmd.AddOutputFile("csv", "CSV output file (\"none\": no CSV)", csv, "none");
    cmd.AddPcapPrefix("pcap",
                      "rdma, dgx: capture every port into PREFIX-<node>-<device>.pcap (nanosecond "
                      "stamps; empty: none)",
                      pcap);
    // dgx: the GPU preset becomes the NvSwitchFabric defaults before --ns3:: arguments
    // are applied, so --ns3::NvSwitchFabric::... wins over --nvlink's figures.
    cmd.SetBeforeAttributes([&]() {
        GpuClusterHelper::AttributeList defaults;
        if (transportName == "dgx" && !GpuClusterHelper::GetGpuDefaults(nvlinkPreset, &defaults))
        {
            return cmd.Fail("nvlink", "expected a GPU preset: " + GpuPreset::GetNameList()) == 0;
        }
        for (const auto& [name, value] : defaults)
        {
            Config::SetDefault(name, *value);
        }
        return true;
    });
    if (!cmd.Parse(argc, argv))
    {
        return 1;
    }
    CollectiveType type = CollectiveType::ALL_REDUCE;
    CollectiveTypeFromString(collectiveName, type); // one of collectiveNames: checked above
    CollectiveAlgorithm namedAlgorithm = CollectiveAlgorithm::AUTO;
    NcclAlgorithm ncclNamed = NcclAlgorithm::RING;
    if (asNccl && CollectiveAlgorithmFromString(algorithmName, namedAlgorithm) &&
        namedAlgorithm != CollectiveAlgorithm::AUTO && !NcclCounterpart(namedAlgorithm, &ncclNamed))
    {
        return cmd.Fail("asNccl",
                        "runs NCCL's own choice: expected --algorithm=auto or one NCCL has");
    }
    ncclModel = ncclModel || asNccl;
    rate = cmd.GetText("rate");
    chunkText = cmd.GetText("chunk");
    const bool dgx = transportName == "dgx";
    const std::string ranksText = " --ranks=" + std::to_string(ranks);
    if (maxBytes < minBytes)
    {
        return cmd.Fail("maxBytes", "expected at least --minBytes=" + cmd.GetText("minBytes"));
    }
    if (chunkBytes != 0 && maxBytes / chunkBytes > MAX_PLAN_PIECES)
    {
        return cmd.Fail("chunk",
                        "expected at least --maxBytes / " + std::to_string(MAX_PLAN_PIECES) +
                            " (a plan cuts a call into at most that many pieces)");
    }
    // An option the chosen transport has no use for would be silently ignored: refuse it.
    const std::vector<std::pair<const char*, std::vector<std::string>>> usedBy = {
        {"servers", {"dgx"}},
        {"nvlink", {"dgx"}},
        {"leaves", {"rdma"}},
        {"spines", {"rdma", "dgx"}},
        {"oversubscription", {"rdma", "dgx"}},
        {"cc", {"rdma", "dgx"}},
        {"ina", {"rdma", "dgx"}},
        {"fabric", {"rdma", "dgx"}},
        {"inaProtocol", {"rdma", "dgx"}},
        {"qpsPerConnection", {"rdma", "dgx"}},
        {"splitDataOnQps", {"rdma", "dgx"}},
    };
    for (const auto& [option, transports] : usedBy)
    {
        if (cmd.IsGiven(option) &&
            std::find(transports.begin(), transports.end(), transportName) == transports.end())
        {
            std::string list;
            for (const auto& t : transports)
            {
                list += (list.empty() ? "--transport=" : " or --transport=") + t;
            }
            return cmd.Fail(option,
                            "only used with " + list + ", not --transport=" + transportName);
        }
    }
    // The options win over --ns3::RdmaTransport::... only when given; the header says what
    // the carrier runs with.
    if (cmd.IsGiven("qpsPerConnection"))
    {
        Config::SetDefault("ns3::RdmaTransport::QpsPerConnection", UintegerValue(qpsPerConnection));
    }
    if (cmd.IsGiven("splitDataOnQps"))
    {
        Config::SetDefault("ns3::RdmaTransport::SplitDataOnQps", BooleanValue(splitDataOnQps));
    }
    {
        Ptr<RdmaTransport> defaults = CreateObject<RdmaTransport>();
        UintegerValue qps;
        BooleanValue split;
        defaults->GetAttribute("QpsPerConnection", qps);
        defaults->GetAttribute("SplitDataOnQps", split);
        qpsPerConnection = static_cast<uint32_t>(qps.Get());
        splitDataOnQps = split.Get();
    }
    const bool flowLevel = fabricModel == "flow";
    if (flowLevel && ina)
    {
        return cmd.Fail("fabric", "flow: in-network aggregation needs the packet model (--ina)");
    }
    if (dgx && ranks % servers != 0)
    {
        return cmd.Fail("servers",
                        "expected a divisor of" + ranksText +
                            " (dgx: ranks = servers x GPUs per server)");
    }
    if (transportName == "rdma" && leaves > 1 && ranks % leaves != 0)
    {
        return cmd.Fail("leaves",
                        "expected a divisor of" + ranksText + " (hosts per leaf = ranks / leaves)");
    }
    // Leaf-spine cables carry hosts-per-leaf x rate / (spines x oversubscription), which
    // the topology helpers want at 1 Mb/s or more (dgx: one leaf per rail, servers hosts).
    const uint32_t hostsPerLeaf = dgx ? servers : ranks / leaves;
    if ((dgx || leaves > 1) &&
        static_cast<double>(linkRate.GetBitRate()) * hostsPerLeaf / (spines * oversubscription) <
            1e6)
    {
        return cmd.Fail("spines",
                        "expected fewer spines or less oversubscription: leaf-spine links "
                        "would run below 1Mbps");
    }
    for (CollectiveAlgorithm a : {CollectiveAlgorithm::INA, CollectiveAlgorithm::NVLS_INA})
    {
        if (algorithmName == CollectiveAlgorithmToString(a) && !ina)
        {
            return cmd.Fail("algorithm", algorithmName + " needs aggregation switches: add --ina");
        }
    }
    if (transportName != "ideal")
    {
        std::string why;
        if (!RoceHelper::CheckCongestionControl(cc, &why))
        {
            std::cerr << "collective-perf: " << why << '\n';
            return 1;
        }
    }
    if (ina)
    {
        // The engines' attributes (defaults and --ns3::) must fit together.
        std::string why;
        if (!CreateObject<InaAggregationEngine>()->CheckConfiguration(&why))
        {
            std::cerr << "collective-perf: " << why << '\n';
            return 1;
        }
    }
    if (!pcap.empty() && transportName == "ideal")
    {
        return cmd.Fail("pcap", "the ideal transport sends no packets (use rdma or dgx)");
    }
    // The GPU table says which NVSwitches reduce in the switch: NVLS on A100 is refused
    // here, before anything is built, and auto never picks it there.
    const GpuPreset* gpu = GpuPreset::Find(nvlinkPreset);
    if (dgx && !gpu)
    {
        std::cerr << "collective-perf: --nvlink=" << nvlinkPreset
                  << ": expected a GPU preset: " << GpuPreset::GetNameList() << "\n";
        return 1;
    }
    if (dgx && algorithmName == "nvls" && !gpu->nvls)
    {
        std::cerr << "collective-perf: --algorithm=nvls: the " << nvlinkPreset
                  << " GPU preset has no NVLS (NVLink SHARP needs Hopper or newer: "
                  << GpuPreset::GetNvlsNameList() << ")\n";
        return 1;
    }
    // rdma and ideal: every rank is a host of its own; dgx: servers of GPUs.
    CommGroup group =
        dgx ? CommGroup::Uniform(servers, ranks / servers) : CommGroup::Uniform(ranks, 1);
    if (channels == 0)
    {
        channels = CollectiveDefaultChannels(dgx ? ranks / servers : 1);
    }

    Ptr<CollectiveTransport> transport;
    RoceHelper roce;
    RoceTopology topo;
    GpuCluster cluster;
    InaHelper inaHelper;
    InaProtocol inaProtocol = InaHelper::GetProtocols().front();
    InaHelper::ParseProtocol(inaProtocolName, &inaProtocol); // a choice: always one
    inaHelper.SetProtocol(inaProtocol);
    Ptr<InaTransport> inaCarrier; // the carrier that aggregates, with --ina
    if (dgx)
    {
        roce.SetCongestionControl(cc);
        GpuClusterHelper helper(roce);
        if (ina)
        {
            helper.EnableInNetworkAggregation(inaHelper);
        }
        if (flowLevel)
        {
            helper.SetScaleOutType(FlowTransport::GetTypeId());
        }
        // "": the fabrics take the NvSwitchFabric defaults (the preset, then --ns3::).
        cluster = helper.Build(servers,
                               ranks / servers,
                               "",
                               linkRate,
                               std::max<uint32_t>(spines, 1),
                               oversubscription,
                               latency);
        roce.AssignStreams(1);
        if (std::string rateWhy; !roce.CheckTelemetryRates(&rateWhy))
        {
            std::cerr << "collective-perf: --cc=" << cc << ": " << rateWhy << '\n';
            return 1;
        }
        topo = cluster.network;
        transport = cluster.transport;
        inaCarrier = DynamicCast<InaTransport>(cluster.scaleOut);
    }
    else if (transportName == "rdma")
    {
        roce.SetCongestionControl(cc);
        RoceTopologyHelper topoHelper(roce);
        topo = leaves > 1 ? topoHelper.LeafSpine(leaves,
                                                 spines,
                                                 ranks / leaves,
                                                 linkRate,
                                                 oversubscription,
                                                 latency)
                          : topoHelper.Star(ranks, linkRate, latency);
        roce.AssignStreams(1);
        if (std::string rateWhy; !roce.CheckTelemetryRates(&rateWhy))
        {
            std::cerr << "collective-perf: --cc=" << cc << ": " << rateWhy << '\n';
            return 1;
        }
        Ptr<RdmaTransport> rdma = ina         ? Ptr<RdmaTransport>(CreateObject<InaTransport>())
                                  : flowLevel ? Ptr<RdmaTransport>(CreateObject<FlowTransport>())
                                              : CreateObject<RdmaTransport>();
        rdma->SetNics(topo.nics);
        if (ina)
        {
            inaHelper.Install(topo.switchObjects);
            inaCarrier = DynamicCast<InaTransport>(rdma);
            inaCarrier->SetController(inaHelper.GetController());
        }
        transport = rdma;
    }
    else
    {
        Ptr<IdealTransport> ideal = CreateObject<IdealTransport>();
        ideal->SetAttribute("NRanks", UintegerValue(ranks));
        ideal->SetAttribute("DataRate", DataRateValue(linkRate));
        ideal->SetAttribute("Latency", TimeValue(latency));
        transport = ideal;
    }
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(transport);
    // auto estimates every applicable algorithm on this carrier and takes the fastest.
    const CollectiveSelection selection(transport);
    {
        std::string why;
        bool known = false;
        if (!selection.CanMakePlan(type, algorithmName, group, &known, &why))
        {
            std::cerr << "collective-perf: --algorithm=" << algorithmName << ": " << why << '\n';
            Simulator::Destroy();
            return 1;
        }
        CollectiveAlgorithm named = CollectiveAlgorithm::AUTO;
        CollectiveProtocol protocol = CollectiveProtocol::AUTO;
        CollectiveAlgorithmFromString(algorithmName, named);
        CollectiveProtocolFromString(protocolName, protocol);
        if (!CollectiveProtocolApplies(named, protocol))
        {
            std::cerr << "collective-perf: --protocol=" << protocolName << ": " << algorithmName
                      << " runs the " << CollectiveProtocol::SIMPLE << " protocol only\n";
            Simulator::Destroy();
            return 1;
        }
    }

    if (!pcap.empty())
    {
        roce.EnablePcapAll(pcap);
    }
    // NCCL's view of this machine (--ncclModel): the GPU preset's NVLinks at NCCL's own
    // per-link figure, one NIC per GPU at the link rate behind a PCIe switch (Gen5 x16
    // from Hopper on, Gen4 on A100); rdma and ideal: one GPU per host.
    std::unique_ptr<NcclTuningModel> nccl;
    if (ncclModel && NcclTuningModel::Covers(type))
    {
        const GpuPreset* preset = gpu ? gpu : GpuPreset::Find("H100");
        NcclSystem system;
        system.nodes = dgx ? servers : ranks;
        system.gpusPerNode = dgx ? ranks / servers : 1;
        system.computeCapability = preset->computeCapability;
        system.nvlinks = dgx && system.gpusPerNode > 1 ? preset->nvlinkCount : 0;
        system.nvlinkGBps = NcclNvlinkGBps(preset->computeCapability);
        system.nvls = dgx && preset->nvls;
        system.nicsPerNode = system.gpusPerNode;
        system.netGBps = linkRate.GetBitRate() / 8e9;
        system.pciGBps = NcclPciGBps(preset->computeCapability);
        system.collNet = ina;
        nccl = std::make_unique<NcclTuningModel>(system);
    }
    std::ofstream out;
    if (csv != "none")
    {
        out.open(csv);
        out << "collective,requested,algorithm,protocol,transport,ranks,size_bytes,count,time_us,"
               "algbw_GBps,busbw_GBps,nccl_model_algorithm,nccl_model_protocol,nccl_model_time_"
               "us,source\n";
    }
    std::printf("# %s, algorithm %s, protocol %s, %u ranks, transport %s (%s, %s)\n",
                collectiveName.c_str(),
                asNccl ? ("as NCCL's tuning model picks (" + algorithmName + ")").c_str()
                       : algorithmName.c_str(),
                protocolName.c_str(),
                ranks,
                transportName.c_str(),
                rate.c_str(),
                transportName == "ideal" ? "no packets"
                : flowLevel
                    ? (std::string("flow level: ") + FlowTransport::APPROXIMATION).c_str()
                    : cc.c_str());
    const std::string qps = transportName == "ideal"
                                ? ""
                                : ", " + std::to_string(qpsPerConnection) +
                                      " QP(s) per connection" +
                                      (qpsPerConnection == 1 ? ""
                                       : splitDataOnQps      ? " (data split)"
                                                             : " (requests in turn)");
    if (!simulate)
    {
        std::printf("# not simulated (--simulate=false): the time, algbw and busbw columns are "
                    "the cost model's estimates of the plan that would run\n");
    }
    std::printf("# %u channel(s), chunk %s%s%s\n",
                channels,
                chunkText.c_str(),
                qps.c_str(),
                ina ? (", in-network aggregation on every switch (" + inaProtocolName + ")").c_str()
                    : "");
    if (ncclModel)
    {
        std::printf("# NCCL's tuning model (v2.30.7, src/graph/tuning.cc) on %s: ring %u channels "
                    "x %.1f GB/s%s\n",
                    dgx ? (std::to_string(servers) + " x " + std::to_string(ranks / servers) + " " +
                           nvlinkPreset)
                              .c_str()
                        : (std::to_string(ranks) + " one-GPU hosts").c_str(),
                    nccl ? nccl->GetGraph(NcclAlgorithm::RING).nChannels : 0,
                    nccl ? nccl->GetGraph(NcclAlgorithm::RING).bwIntra : 0.0,
                    nccl ? "" : " (NCCL has no tuning model for this collective)");
    }
    std::printf("#\n# %12s %12s %8s %6s %6s %10s %8s %8s %6s  %s\n",
                "size",
                "count",
                "type",
                "redop",
                "root",
                "time",
                "algbw",
                "busbw",
                "#wrong",
                "algo");
    std::printf("# %12s %12s %8s %6s %6s %10s %8s %8s %6s\n",
                "(B)",
                "(elements)",
                "",
                "",
                "",
                "(us)",
                "(GB/s)",
                "(GB/s)",
                "");
    CollectivePlanOptions options;
    options.channels = channels;
    // 0: each algorithm's own chunk (CollectiveDefaultChunkBytes): NCCL pipelines trees
    // and NVLS in chunks.
    options.chunkBytes = chunkBytes;
    CollectiveProtocolFromString(protocolName, options.protocol); // a choice of the table
    double busSum = 0;
    uint32_t rows = 0;
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::AUTO; // checked above (CanMakePlan)
    CollectiveAlgorithmFromString(algorithmName, algorithm);
    for (uint64_t bytes = minBytes; bytes <= maxBytes; bytes *= factor)
    {
        CollectiveResult result;
        NcclTuningModel::Choice ncclChoice;
        if (nccl)
        {
            // As NCCL_ALGO / NCCL_PROTO would: an algorithm NCCL has, named, is NCCL's only one.
            NcclAlgorithm only = NcclAlgorithm::RING;
            const bool named = NcclCounterpart(algorithm, &only);
            ncclChoice = nccl->Choose(type, bytes, named ? &only : nullptr, options.protocol);
        }
        // "auto" may pick a different algorithm per size (see CollectiveSelection);
        // --asNccl runs NCCL's choice where we have it (else auto's).
        CollectiveAlgorithm run = algorithm;
        CollectivePlanOptions runOptions = options;
        if (asNccl && ncclChoice.timeUs >= 0)
        {
            const bool acrossServers = dgx && servers > 1 && ranks / servers > 1;
            const CollectiveAlgorithm ours = NcclToOurs(ncclChoice.algorithm, acrossServers);
            if (ours != CollectiveAlgorithm::AUTO && selection.CanMakePlan(type, ours, group))
            {
                run = ours;
                runOptions.protocol = ncclChoice.protocol;
            }
        }
        CommPlan plan = selection.MakePlan(type, run, group, bytes, runOptions);
        if (simulate)
        {
            Simulator::ScheduleNow(
                [&, plan]() { engine->Run(plan, MakeBoundCallback(&Store, &result)); });
            Simulator::Run(); // returns when the fabric is idle again
        }
        else
        {
            // What auto weighed it at: the same cost model, carrier and NET overhead.
            const Time estimate =
                CollectivePlanCost(*transport, {}, runOptions.netOverhead).Estimate(plan);
            result.end = result.start + estimate;
            const double seconds = estimate.GetSeconds();
            result.algBw = seconds > 0 ? bytes / seconds : 0;
            result.busBw = result.algBw * CollectiveBusBwFactor(type, ranks);
        }
        double us = (result.end - result.start).GetSeconds() * 1e6;
        bool rooted = IsRootedCollective(type);
        bool reduces = type == CollectiveType::ALL_REDUCE || type == CollectiveType::REDUCE ||
                       type == CollectiveType::REDUCE_SCATTER;
        const std::string ncclText = ncclChoice.timeUs < 0
                                         ? std::string()
                                         : NcclAlgorithmToString(ncclChoice.algorithm) + "/" +
                                               CollectiveProtocolToString(ncclChoice.protocol);
        std::printf("  %12llu %12llu %8s %6s %6d %10.1f %8.2f %8.2f %6s  %s/%s",
                    static_cast<unsigned long long>(bytes),
                    static_cast<unsigned long long>(bytes / 4),
                    "float",
                    reduces ? "sum" : "none",
                    rooted ? 0 : -1,
                    us,
                    result.algBw / 1e9,
                    result.busBw / 1e9,
                    "N/A",
                    plan.GetAlgorithm().c_str(),
                    CollectiveProtocolToString(plan.GetProtocol()).c_str());
        if (ncclModel)
        {
            if (ncclChoice.timeUs < 0)
            {
                std::printf("  nccl-model n/a");
            }
            else
            {
                std::printf("  nccl-model %.1f us %s", ncclChoice.timeUs, ncclText.c_str());
            }
        }
        std::printf("\n");
        if (estimates)
        {
            std::printf("#   estimates:");
            for (const auto& c : selection.Rank(type, group, bytes, options))
            {
                std::printf(" %s/%s %.1f",
                            CollectiveAlgorithmToString(c.algorithm).c_str(),
                            CollectiveProtocolToString(c.protocol).c_str(),
                            c.estimate.GetSeconds() * 1e6);
            }
            std::printf("\n");
        }
        if (out)
        {
            out << collectiveName << ',' << algorithmName << ',' << plan.GetAlgorithm() << ','
                << CollectiveProtocolToString(plan.GetProtocol()) << ',' << transportName << ','
                << ranks << ',' << bytes << ',' << bytes / 4 << ',' << us << ','
                << result.algBw / 1e9 << ',' << result.busBw / 1e9 << ',';
            if (ncclChoice.timeUs >= 0)
            {
                out << NcclAlgorithmToString(ncclChoice.algorithm) << ','
                    << CollectiveProtocolToString(ncclChoice.protocol) << ',' << ncclChoice.timeUs;
            }
            else
            {
                out << ",,";
            }
            out << ',' << (simulate ? "simulated" : "estimate") << '\n';
        }
        busSum += result.busBw / 1e9;
        ++rows;
    }
    std::printf("# Avg bus bandwidth    : %.3f GB/s\n", rows ? busSum / rows : 0.0);
    if (transportName != "ideal" && simulate)
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
                    static_cast<unsigned long long>(pauses),
                    static_cast<unsigned long long>(marks),
                    static_cast<unsigned long long>(drops));
    }
    if (inaCarrier && simulate)
    {
        std::vector<uint32_t> members(ranks);
        std::iota(members.begin(), members.end(), 0u);
        const InaJob* job = dgx ? nullptr : inaCarrier->GetJob(members);
        std::printf(
            "# In-network aggregation: %llu B reduced or multicast in the network (per member, "
            "summed over jobs; %llu B of it summed by fallback hosts)%s%s\n",
            static_cast<unsigned long long>(inaCarrier->GetBytesInNetwork()),
            static_cast<unsigned long long>(inaCarrier->GetBytesViaFallbackHost()),
            job && !job->inNetwork ? "; job refused: " : "",
            job && !job->inNetwork ? job->reason.c_str() : "");
    }
    Simulator::Destroy();
    return 0;
}
