// SPDX-License-Identifier: GPL-2.0-only
#include "training-simulation.h"

#include "ns3/aicb-reader.h"
#include "ns3/boolean.h"
#include "ns3/chakra-reader.h"
#include "ns3/collective-selection.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/gpu-preset.h"
#include "ns3/ideal-transport.h"
#include "ns3/program-options.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/roce-topology-reader.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-json.h"
#include "ns3/uinteger.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace ns3
{

TrainingSimulation::TrainingSimulation(const TrainingScenario& scenario)
    : m_scenario(scenario)
{
}

TrainingSimulation::~TrainingSimulation()
{
    if (m_runner)
    {
        m_runner->Dispose();
    }
    if (m_monitor)
    {
        m_monitor->Dispose();
    }
}

bool
TrainingSimulation::LoadTrace(std::string* error)
{
    const TrainingScenario& s = m_scenario;
    if (s.traceFormat == "json")
    {
        std::ifstream probe(s.traceFile);
        if (!probe && s.source == "built-in default scenario")
        {
            // The default names the shipped trace; a binary run away from its source
            // tree generates the same one instead.
            auto gen = CreateObject<TransformerTraceGenerator>();
            m_trace = gen->Generate(s.generator, error);
            m_workloadNote = "generated (" + s.traceFile + " not found)";
            return m_trace.GetNRanks() > 0;
        }
        m_trace = TraceJson::Read(s.traceFile, error);
        m_workloadNote = s.traceFile;
        return m_trace.GetNRanks() > 0;
    }
    if (s.traceFormat == "generator")
    {
        // Compute follows the cluster's GPU: the generator's Gpu default is the preset's
        // (GpuClusterHelper::GetGpuDefaults, applied by ApplyGlobalSettings), unless the user's
        // settings say otherwise.
        auto gen = CreateObject<TransformerTraceGenerator>();
        m_trace = gen->Generate(s.generator, error);
        m_workloadNote = s.traceFile.empty() ? "generated from the scenario's model"
                                             : "generated from " + s.traceFile;
        return m_trace.GetNRanks() > 0;
    }
    const uint32_t ranks = s.traceRanks ? s.traceRanks : s.GetNGpus();
    if (s.traceFormat == "aicb")
    {
        std::ostringstream warnings; // one line each: layer counts, ignored fields
        m_trace = AicbTraceReader::Read(s.traceFile, ranks, error, &warnings);
        std::istringstream lines(warnings.str());
        for (std::string line; std::getline(lines, line);)
        {
            const std::string prefix = "warning: ";
            m_warnings.push_back(line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line);
        }
    }
    else if (s.traceFormat == "chakra")
    {
        m_trace = ChakraTraceReader::ReadPrefix(s.traceFile, ranks, error);
    }
    else if (s.traceFormat == "chakra-json")
    {
        std::vector<std::string> files;
        for (uint32_t r = 0; r < ranks; ++r)
        {
            files.push_back(s.traceFile + "." + std::to_string(r) + ".json");
        }
        m_trace = ChakraTraceReader::ReadJson(files, error);
    }
    else
    {
        *error = s.source + ": /workload/format: unknown format \"" + s.traceFormat + "\"";
        return false;
    }
    m_workloadNote = s.traceFormat + " " + s.traceFile;
    return m_trace.GetNRanks() > 0;
}

void
TrainingSimulation::AdaptTrace()
{
    const TrainingScenario& s = m_scenario;
    const std::string& traceGpu = m_trace.GetGpu();
    if (!traceGpu.empty() && traceGpu != s.gpu)
    {
        std::ostringstream w;
        w << m_workloadNote << ": the trace's compute durations are for " << traceGpu
          << " but the cluster's GPU is " << s.gpu;
        if (s.computeScale != 1)
        {
            w << "; they are replayed x " << s.computeScale << " (computeScale)";
        }
        else
        {
            const GpuPreset* from = GpuPreset::Find(traceGpu);
            const GpuPreset* to = GpuPreset::Find(s.gpu);
            w << "; they are replayed as recorded: set computeScale";
            if (from && to)
            {
                // Compute-bound ops scale with peak FLOP/s, memory-bound ones with HBM.
                w << " (" << from->peakFlops / to->peakFlops << " for compute-bound ops, "
                  << from->memoryBandwidth / to->memoryBandwidth << " for memory-bound ones)";
            }
            w << " or regenerate the trace for " << s.gpu;
        }
        m_warnings.push_back(w.str());
    }
    if (s.computeScale != 1)
    {
        for (uint32_t r = 0; r < m_trace.GetNRanks(); ++r)
        {
            for (TraceOp& op : m_trace.GetOps(r))
            {
                if (op.kind == TraceOpKind::COMPUTE)
                {
                    op.duration = NanoSeconds(std::llround(
                        static_cast<double>(op.duration.GetNanoSeconds()) * s.computeScale));
                }
            }
        }
    }
    const uint32_t gpus = s.GetNGpus();
    if (m_trace.GetNRanks() < gpus)
    {
        const uint32_t idle = gpus - m_trace.GetNRanks();
        std::ostringstream w;
        w << "the workload has " << m_trace.GetNRanks() << " ranks but the cluster " << gpus
          << " GPUs: " << idle << " GPUs ("
          << (idle * 2 == gpus ? "half the cluster" : std::to_string(100 * idle / gpus) + " %")
          << ") stay idle";
        m_warnings.push_back(w.str());
    }
}

bool
TrainingSimulation::ApplyConfig(const std::string& path,
                                const std::string& value,
                                std::string* error)
{
    const std::string where = m_scenario.source + ": /fabric/config/" + path + ": ";
    const size_t split = path.rfind("::");
    TypeId tid;
    TypeId::AttributeInformation info;
    if (split == std::string::npos || !TypeId::LookupByNameFailSafe(path.substr(0, split), &tid) ||
        !tid.LookupAttributeByName(path.substr(split + 2), &info))
    {
        *error = where + "no such attribute (expected ns3::Class::Attribute)";
        return false;
    }
    const std::string className = path.substr(0, split);
    if (className == "ns3::NvLinkPort" || className == "ns3::NvSwitch")
    {
        // The fabric configures its ports and switch from its own attributes.
        *error = where + "set the ns3::NvSwitchFabric attribute of the same name instead";
        return false;
    }
    // ns-3 aborts on many malformed values (times, rates, numbers with trailing text,
    // pointers): every value is checked first, by the kind of the attribute, as the
    // programs check --ns3:: options.
    const std::string type = AttributeKindName(info.checker);
    std::string expected;
    Ptr<AttributeValue> v = AttributeValueFromText(info.checker, value, &expected);
    if (!v || !Config::SetDefaultFailSafe(path, *v))
    {
        *error =
            where + "\"" + value + "\" is not a valid " + type + " (expected " + expected + ")";
        return false;
    }
    return true;
}

bool
TrainingSimulation::NvlsOnCluster() const
{
    // The preset said whether the switches reduce (NvlsSupported); a user's setting of
    // that attribute wins, so ask the switches themselves.
    for (const auto& sw : m_cluster.nvSwitches)
    {
        BooleanValue supported;
        sw->GetAttribute("NvlsSupported", supported);
        if (supported.Get())
        {
            return true;
        }
    }
    return false;
}

bool
TrainingSimulation::CheckAlgorithms(std::string* error) const
{
    // Every (group, collective, algorithm) the trace will ask for, tried before the run
    // so that an impossible one is an error here and not an abort mid-simulation.
    std::set<std::tuple<std::string, CollectiveType, std::string>> seen;
    for (uint32_t r = 0; r < m_trace.GetNRanks(); ++r)
    {
        for (const TraceOp& op : m_trace.GetOps(r))
        {
            if (op.kind != TraceOpKind::COLLECTIVE)
            {
                continue;
            }
            const std::string algorithm = op.algorithm.empty() ? m_runnerAlgorithm : op.algorithm;
            if (!seen.insert({op.group, op.collective, algorithm}).second)
            {
                continue;
            }
            if (algorithm == "nvls" && !m_cluster.nvSwitches.empty() && !NvlsOnCluster())
            {
                *error = m_scenario.source + ": algorithm nvls (" +
                         (op.algorithm.empty() ? std::string("collectives.algorithm or --algorithm")
                                               : "rank " + std::to_string(r) + " op " +
                                                     std::to_string(op.id) + " of the trace") +
                         "): the " + m_scenario.gpu +
                         " GPU preset has no NVLS (NVLink SHARP needs Hopper or newer: " +
                         GpuPreset::GetNvlsNameList() + ")";
                return false;
            }
            const TraceGroup& g = m_trace.GetGroup(op.group);
            const uint32_t n = static_cast<uint32_t>(g.ranks.size());
            CollectiveSelection selection(m_transport, g.ranks);
            bool known = false;
            std::string why;
            const bool ok = selection.CanMakePlan(op.collective,
                                                  algorithm,
                                                  m_world.SubGroup(g.ranks),
                                                  &known,
                                                  &why);
            if (!known)
            {
                *error = m_scenario.source + ": unknown collective algorithm \"" + algorithm +
                         "\" (" + GetCollectiveAlgorithmNameList() + ")";
                return false;
            }
            if (!ok)
            {
                *error = m_scenario.source + ": rank " + std::to_string(r) + " op " +
                         std::to_string(op.id) + " ('" + op.name + "'): no " + algorithm + " " +
                         CollectiveTypeToString(op.collective) + " on group '" + op.group +
                         "' of " + std::to_string(n) + " ranks (" + why + ")";
                return false;
            }
        }
    }
    return true;
}

bool
TrainingSimulation::ApplyGlobalSettings(std::string* error)
{
    const TrainingScenario& s = m_scenario;
    // Defaults first, then the user's settings over them: the GPU preset, the scenario's
    // run settings, then fabric/config (and the command line, which the program passes
    // in the same list).
    GpuClusterHelper::AttributeList gpuDefaults;
    if (!GpuClusterHelper::GetGpuDefaults(s.gpu, &gpuDefaults))
    {
        *error = s.source + ": /cluster/gpu: expected " + GpuPreset::GetNameList() + ", got \"" +
                 s.gpu + "\"";
        return false;
    }
    for (const auto& [name, value] : gpuDefaults)
    {
        Config::SetDefault(name, *value);
    }
    Config::SetDefault("ns3::WorkloadRunner::Iterations", UintegerValue(s.iterations));
    Config::SetDefault("ns3::WorkloadRunner::HangTimeout", TimeValue(s.hangTimeout));
    // The name is checked against the attribute's list first: ns-3 asserts on an unknown
    // enum name in builds with asserts.
    TypeId::AttributeInformation algorithmInfo;
    CollectiveEngine::GetTypeId().LookupAttributeByName("Algorithm", &algorithmInfo);
    std::string expected;
    const Ptr<AttributeValue> algorithm =
        AttributeValueFromText(algorithmInfo.checker, s.algorithm, &expected);
    if (!algorithm || !Config::SetDefaultFailSafe("ns3::CollectiveEngine::Algorithm", *algorithm))
    {
        *error = s.source + ": unknown collective algorithm \"" + s.algorithm + "\" (" +
                 GetCollectiveAlgorithmNameList() + ")";
        return false;
    }
    Config::SetDefault(
        "ns3::CollectiveEngine::Channels",
        UintegerValue(s.channels ? s.channels : CollectiveDefaultChannels(s.gpusPerServer)));
    Config::SetDefault("ns3::CollectiveEngine::ChunkBytes", UintegerValue(s.chunkBytes));
    Config::SetDefault("ns3::FabricMonitor::SampleInterval", TimeValue(s.sampleInterval));
    for (const auto& [path, value] : s.config)
    {
        if (!ApplyConfig(path, value, error))
        {
            return false;
        }
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(s.seed);
    m_globalsApplied = true;
    return true;
}

bool
TrainingSimulation::Build(std::string* error)
{
    const TrainingScenario& s = m_scenario;
    if (!m_globalsApplied)
    {
        *error = s.source + ": TrainingSimulation::ApplyGlobalSettings was not called before "
                            "Build: the scenario's settings would be ignored";
        return false;
    }
    // fabric.config and --ns3:: may have changed the engine's algorithm and chunk: check
    // what the run will use, not what the scenario said.
    auto engineDefault = [](const std::string& name) {
        TypeId::AttributeInformation info;
        CollectiveEngine::GetTypeId().LookupAttributeByName(name, &info);
        return info.initialValue->SerializeToString(info.checker);
    };
    m_runnerAlgorithm = engineDefault("Algorithm");
    const uint64_t chunk = std::stoull(engineDefault("ChunkBytes"));
    if (chunk != 0 && chunk < 4096)
    {
        *error = s.source +
                 ": ns3::CollectiveEngine::ChunkBytes: must be 0 (each algorithm's "
                 "default chunk) or at least 4096, got " +
                 std::to_string(chunk);
        return false;
    }
    TypeId cc;
    if (s.topology != "ideal")
    {
        // The vocabulary of --cc: a TypeId or "none"; the report names the TypeId.
        if (!RoceCongestionControl::LookupByName(s.congestionControl, &cc))
        {
            *error = s.source + ": /fabric/congestionControl: \"" + s.congestionControl +
                     "\" is not a congestion control: expected " +
                     RoceCongestionControl::GetNameHint();
            return false;
        }
        m_scenario.congestionControl = cc.GetName();
    }
    std::string ccWhy;
    if (s.topology != "ideal" && !RoceHelper::CheckCongestionControl(s.congestionControl, &ccWhy))
    {
        *error = s.source + ": " + ccWhy;
        return false;
    }
    InaProtocol inaProtocol = InaHelper::GetProtocols().front();
    if (s.ina != "off")
    {
        if (s.topology == "ideal")
        {
            *error = s.source + ": /fabric/ina: the ideal topology has no switches to "
                                "aggregate in";
            return false;
        }
        if (!InaHelper::ParseProtocol(s.ina, &inaProtocol))
        {
            *error = s.source + ": /fabric/ina: expected \"off\" or " +
                     InaHelper::GetProtocolNameList() + ", got \"" + s.ina + "\"";
            return false;
        }
        std::string why;
        if (!CreateObject<InaAggregationEngine>()->CheckConfiguration(&why))
        {
            *error = s.source + ": " + why;
            return false;
        }
        m_ina.SetProtocol(inaProtocol);
    }
    if (s.topology == "file")
    {
        // The file says how many servers and GPUs there are. A malformed file is an error
        // with the reader's message (file, JSON place, expectation); nothing is built.
        std::ifstream probe(s.topologyFile);
        if (!probe)
        {
            *error = s.source + ": /cluster/file: " + s.topologyFile + ": cannot open the file";
            return false;
        }
        m_roce.SetCongestionControl(s.congestionControl);
        RoceTopologyReader reader(m_roce);
        RoceTopologyFile file;
        if (!reader.Read(s.topologyFile, file, error))
        {
            return false;
        }
        const auto hosts = static_cast<uint32_t>(file.topology.nics.size());
        if (hosts % file.gpusPerServer != 0)
        {
            *error = s.topologyFile + ": " + std::to_string(hosts) +
                     " hosts do not make servers of " + std::to_string(file.gpusPerServer) +
                     " GPUs";
            return false;
        }
        m_fileNetwork = file.topology;
        m_scenario.gpusPerServer = file.gpusPerServer;
        m_scenario.servers = hosts / file.gpusPerServer;
    }
    const uint32_t gpus = s.GetNGpus();
    if (s.traceFormat == "generator" && s.generator.GetNRanks() > gpus)
    {
        *error =
            (s.traceFile.empty() ? s.source + ": /workload/model" : s.traceFile + ": the model") +
            " needs " + std::to_string(s.generator.GetNRanks()) +
            " GPUs (tp x pp x dp) but the cluster has " + std::to_string(gpus);
        return false;
    }
    if (!LoadTrace(error))
    {
        return false;
    }
    if (m_trace.GetNRanks() > gpus)
    {
        *error = s.source + ": the trace has " + std::to_string(m_trace.GetNRanks()) +
                 " ranks but the cluster has only " + std::to_string(gpus) + " GPUs";
        return false;
    }
    AdaptTrace();
    m_world = CommGroup::Uniform(s.servers, s.gpusPerServer);
    if (s.topology == "ideal")
    {
        auto ideal = CreateObject<IdealTransport>();
        ideal->SetAttribute("NRanks", UintegerValue(gpus));
        ideal->SetAttribute("DataRate", DataRateValue(s.idealRate));
        ideal->SetAttribute("Latency", TimeValue(s.idealLatency));
        m_transport = ideal;
    }
    else if (s.topology == "file")
    {
        GpuClusterHelper helper(m_roce);
        if (s.ina != "off")
        {
            helper.EnableInNetworkAggregation(m_ina);
        }
        m_cluster = helper.BuildOn(m_fileNetwork, s.gpusPerServer, "");
        m_roce.AssignStreams(1);
        m_transport = m_cluster.transport;
        m_monitor = CreateObject<FabricMonitor>();
        m_monitor->Attach(m_cluster.network);
        m_deadlocks = CreateObject<PfcDeadlockDetector>();
        m_deadlocks->Install(m_cluster.network.switchObjects);
    }
    else
    {
        m_roce.SetCongestionControl(s.congestionControl);
        GpuClusterHelper helper(m_roce);
        if (s.ina != "off")
        {
            helper.EnableInNetworkAggregation(m_ina);
        }
        m_cluster = helper.Build(s.servers,
                                 s.gpusPerServer,
                                 "", // the preset and the user's changes are the defaults
                                 s.nicRate,
                                 s.spines,
                                 s.oversubscription,
                                 s.linkDelay,
                                 s.pods);
        m_roce.AssignStreams(1);
        m_transport = m_cluster.transport;
        m_monitor = CreateObject<FabricMonitor>();
        m_monitor->Attach(m_cluster.network);
        m_deadlocks = CreateObject<PfcDeadlockDetector>();
        m_deadlocks->Install(m_cluster.network.switchObjects);
    }
    std::string rateWhy;
    if (s.topology != "ideal" && !m_roce.CheckTelemetryRates(&rateWhy))
    {
        *error = s.source + ": /fabric/congestionControl: " + rateWhy;
        return false;
    }
    if (!SetUpFabricEvents(error))
    {
        return false;
    }
    if (!CheckAlgorithms(error))
    {
        return false;
    }
    m_runner = CreateObject<WorkloadRunner>();
    m_runner->Setup(m_trace, m_world, m_transport);
    // Progress below whole transfers, for the hang watchdog: bytes the NICs sent and
    // chunks the NVSwitches delivered; on the ideal carrier, time while messages fly
    // (it cannot deadlock).
    if (Ptr<IdealTransport> ideal = DynamicCast<IdealTransport>(m_transport))
    {
        m_runner->SetProgressProbe([ideal]() -> uint64_t {
            return ideal->GetMessagesInFlight() ? Simulator::Now().GetTimeStep() : 0;
        });
    }
    else
    {
        const GpuCluster cluster = m_cluster;
        m_runner->SetProgressProbe([cluster]() {
            uint64_t p = 0;
            for (const auto& nic : cluster.network.nics)
            {
                p += nic->GetDevice()->GetTxBytes();
            }
            for (const auto& sw : cluster.nvSwitches)
            {
                p += sw->GetChunksDelivered();
            }
            return p;
        });
    }
    // Timers of idle queue pairs would run the clock on: stop with the workload (and
    // the background flows it started, if any).
    m_runner->SetFinishedCallback([this]() {
        if (!m_background)
        {
            Simulator::Stop();
            return;
        }
        m_background->StopArrivals();
        m_backgroundDrainUntil = Simulator::Now() + Seconds(1);
        DrainBackground();
    });
    const CommGroup world = m_world;
    std::vector<Flow>* flows = &m_flows;
    m_runner->GetEngine()->TraceConnectWithoutContext(
        "FlowCompleted",
        Callback<void, const CollectiveEngine::PendingTransfer&>(
            [flows, world](const CollectiveEngine::PendingTransfer& t) {
                if (t.kind == CommPlan::Kind::POINT_TO_POINT && !world.SameServer(t.src, t.dst))
                {
                    flows->push_back({t.src, t.dst, t.bytes, t.sentAt, Simulator::Now()});
                }
            }));
    return EnablePcap(error);
}

bool
TrainingSimulation::EnablePcap(std::string* error)
{
    const TrainingScenario& s = m_scenario;
    const std::string option = "--pcap (/outputs/pcap of " + s.source + "): ";
    if (s.pcapPrefix.empty())
    {
        if (!s.pcapNodes.empty())
        {
            *error = "--pcapNodes (/outputs/pcapNodes of " + s.source + "): needs a --pcap prefix";
            return false;
        }
        return true;
    }
    if (!m_monitor)
    {
        *error = option + "the ideal topology sends no packets to capture";
        return false;
    }
    std::string why;
    if (!RoceHelper::CheckPcapPrefix(s.pcapPrefix, &why))
    {
        *error = option + why;
        return false;
    }
    // Names as links.csv and pfc.csv give them (FabricMonitor): nic<i> is the port of
    // NIC i (rank i's), sw<j> the ports of switch j. name -> (file prefix, ports).
    const RoceTopology& net = m_cluster.network;
    std::map<std::string, std::vector<std::pair<std::string, Ptr<NetDevice>>>> nodes;
    for (uint32_t i = 0; i < net.nics.size(); ++i)
    {
        const std::string name = FabricMonitor::HostName(i);
        nodes[name] = {{s.pcapPrefix + "-" + name + ".pcap", net.nics[i]->GetDevice()}};
    }
    for (uint32_t j = 0; j < net.switchObjects.size(); ++j)
    {
        const std::string name = FabricMonitor::SwitchName(j);
        for (uint32_t p = 0; p < net.switchObjects[j]->GetNPorts(); ++p)
        {
            nodes[name].emplace_back(s.pcapPrefix + "-" + name + "-" + std::to_string(p) + ".pcap",
                                     net.switchObjects[j]->GetPort(p));
        }
    }
    std::set<std::string> wanted;
    std::istringstream list(s.pcapNodes);
    for (std::string name; std::getline(list, name, ',');)
    {
        if (nodes.find(name) == nodes.end())
        {
            *error = "--pcapNodes (/outputs/pcapNodes of " + s.source + "): \"" + name +
                     "\" is not a node; expected comma-separated names nic0..nic" +
                     std::to_string(net.nics.size() - 1) + ", sw0..sw" +
                     std::to_string(net.switchObjects.size() - 1) + " (as in links.csv)";
            return false;
        }
        wanted.insert(name);
    }
    for (const auto& [name, ports] : nodes)
    {
        if (wanted.empty() || wanted.count(name) > 0)
        {
            for (const auto& [file, device] : ports)
            {
                m_roce.EnablePcap(file, device, false, true);
            }
        }
    }
    return true;
}

void
TrainingSimulation::Progress()
{
    if (m_runner->IsFinished() || m_runner->IsStuck())
    {
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - m_lastPrint >= std::chrono::seconds(2))
    {
        m_lastPrint = now;
        const double wall = std::chrono::duration<double>(now - m_wallStart).count();
        const auto [done, total] = m_runner->GetProgress();
        const double fraction = total ? static_cast<double>(done) / total : 0;
        std::fprintf(
            stderr,
            "\r[ai-fabric] simulated %.3f ms | ops %llu/%llu (%.0f%%) | wall %.0f s | ETA %s   ",
            Simulator::Now().GetSeconds() * 1e3,
            static_cast<unsigned long long>(done),
            static_cast<unsigned long long>(total),
            fraction * 100,
            wall,
            fraction > 0.01
                ? (std::to_string(static_cast<int>(wall * (1 - fraction) / fraction)) + " s")
                      .c_str()
                : "?");
        std::fflush(stderr);
        m_printed = true;
    }
    Simulator::Schedule(MicroSeconds(100), &TrainingSimulation::Progress, this);
}

bool
TrainingSimulation::SetUpFabricEvents(std::string* error)
{
    const TrainingScenario& s = m_scenario;
    if (s.topology == "ideal" && (!s.events.empty() || !s.backgroundFlowSizes.empty()))
    {
        *error = s.source + ": " + (s.events.empty() ? "/background" : "/events") +
                 ": needs a packet fabric (topology \"rail-optimized\" or \"file\"), not "
                 "\"ideal\"";
        return false;
    }
    const RoceTopology& net = m_cluster.network;
    // Node names as links.csv writes them (FabricMonitor).
    auto node = [&net](const std::string& name) { return FabricMonitor::FindNode(net, name); };
    for (const auto& ev : s.events)
    {
        const std::string where = s.source + ": " + ev.place + "/" + (ev.up ? "recover" : "fail");
        for (const auto& name : {ev.a, ev.b})
        {
            if (!node(name))
            {
                *error = where + ": no node \"" + name + "\" (nodes are nic0 to nic" +
                         std::to_string(net.hosts.GetN() - 1) + " and sw0 to sw" +
                         std::to_string(net.switches.GetN() - 1) + ", as in links.csv)";
                return false;
            }
        }
        Ptr<RoceChannel> link = RoceHelper::FindLink(node(ev.a), node(ev.b));
        if (!link)
        {
            *error = where + ": no cable between " + ev.a + " and " + ev.b;
            return false;
        }
        m_roce.ScheduleLinkState(link, ev.up, ev.at, ev.convergence);
    }
    if (!s.backgroundFlowSizes.empty())
    {
        m_background = CreateObject<BackgroundTraffic>();
        m_background->SetAttribute("FlowSizes", StringValue(s.backgroundFlowSizes));
        m_background->SetAttribute("Load", DoubleValue(s.backgroundLoad));
        m_background->SetAttribute("Stop", TimeValue(Seconds(3600)));
        std::string why;
        if (!m_background->Configure(&why))
        {
            *error = s.source + ": /background/flowSizes: " + why;
            return false;
        }
        for (std::size_t i = 0; i < s.backgroundPairs.size(); ++i)
        {
            const auto& [src, dst] = s.backgroundPairs[i];
            if (std::max(src, dst) >= net.nics.size())
            {
                *error = s.source + ": /background/pairs/" + std::to_string(i) + ": host " +
                         std::to_string(std::max(src, dst)) + " does not exist (hosts 0 to " +
                         std::to_string(net.nics.size() - 1) + ")";
                return false;
            }
        }
        m_background->SetPairs(s.backgroundPairs);
        m_background->AssignStreams(1 << 20);
        m_background->Install(net.nics);
    }
    return true;
}

void
TrainingSimulation::DrainBackground()
{
    // The background flows started before the workload finished run to completion (at
    // most a simulated second more; the report counts those that did not).
    if (m_background->GetActiveFlows() == 0 || Simulator::Now() >= m_backgroundDrainUntil)
    {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(MicroSeconds(100), &TrainingSimulation::DrainBackground, this);
}

Ptr<BackgroundTraffic>
TrainingSimulation::GetBackground() const
{
    return m_background;
}

void
TrainingSimulation::Run(bool progress)
{
    m_wallStart = std::chrono::steady_clock::now();
    m_lastPrint = m_wallStart;
    const uint64_t events0 = Simulator::GetEventCount();
    m_runner->Start();
    Ptr<WorkloadRunner> runner = m_runner;
    if (m_monitor)
    {
        m_monitor->Start([runner]() { return !runner->IsFinished() && !runner->IsStuck(); });
    }
    if (progress)
    {
        Simulator::Schedule(MicroSeconds(100), &TrainingSimulation::Progress, this);
    }
    Simulator::Run();
    if (m_printed)
    {
        std::fprintf(stderr, "\n");
    }
    if (m_monitor)
    {
        m_monitor->Finish();
    }
    m_events = Simulator::GetEventCount() - events0;
    m_wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallStart).count();
}

const TrainingScenario&
TrainingSimulation::GetScenario() const
{
    return m_scenario;
}

const TrainingTrace&
TrainingSimulation::GetTrace() const
{
    return m_trace;
}

Ptr<WorkloadRunner>
TrainingSimulation::GetRunner() const
{
    return m_runner;
}

Ptr<FabricMonitor>
TrainingSimulation::GetMonitor() const
{
    return m_monitor;
}

const CommGroup&
TrainingSimulation::GetWorld() const
{
    return m_world;
}

const GpuCluster&
TrainingSimulation::GetCluster() const
{
    return m_cluster;
}

const std::vector<TrainingSimulation::Flow>&
TrainingSimulation::GetFlows() const
{
    return m_flows;
}

const std::vector<std::string>&
TrainingSimulation::GetWarnings() const
{
    return m_warnings;
}

const std::string&
TrainingSimulation::GetWorkloadNote() const
{
    return m_workloadNote;
}

double
TrainingSimulation::GetWallSeconds() const
{
    return m_wallSeconds;
}

uint64_t
TrainingSimulation::GetEvents() const
{
    return m_events;
}

uint64_t
TrainingSimulation::GetDrops() const
{
    uint64_t n = 0;
    for (const auto& sw : m_cluster.network.switchObjects)
    {
        n += sw->GetTotalDrops();
    }
    return n;
}

uint64_t
TrainingSimulation::GetPfcPauses() const
{
    uint64_t n = 0;
    for (const auto& sw : m_cluster.network.switchObjects)
    {
        n += sw->GetPfcPausesSent();
    }
    return n;
}

std::vector<PfcDeadlock>
TrainingSimulation::GetPfcDeadlocks() const
{
    return m_deadlocks ? m_deadlocks->GetDeadlocks() : std::vector<PfcDeadlock>();
}

uint64_t
TrainingSimulation::GetEcnMarks() const
{
    uint64_t n = 0;
    for (const auto& sw : m_cluster.network.switchObjects)
    {
        n += sw->GetEcnMarks();
    }
    return n;
}

} // namespace ns3
