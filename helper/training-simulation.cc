// SPDX-License-Identifier: GPL-2.0-only
#include "training-simulation.h"

#include "ns3/aicb-reader.h"
#include "ns3/chakra-reader.h"
#include "ns3/collective-selection.h"
#include "ns3/config.h"
#include "ns3/roce-topology-reader.h"
#include "ns3/double.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/ideal-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-json.h"
#include "ns3/uinteger.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <tuple>
#include <fstream>
#include <iostream>

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
    Simulator::Destroy();
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
        auto gen = CreateObject<TransformerTraceGenerator>();
        m_trace = gen->Generate(s.generator, error);
        m_workloadNote = "generated from the scenario's model";
        return m_trace.GetNRanks() > 0;
    }
    const uint32_t ranks = s.traceRanks ? s.traceRanks : s.GetNGpus();
    if (s.traceFormat == "aicb")
    {
        m_trace = AicbTraceReader::Read(s.traceFile, ranks, error);
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

bool
TrainingSimulation::ApplyConfig(const std::string& path, const std::string& value, std::string* error)
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
    // pointers): every value is checked here first, by the kind of the attribute.
    std::string type = info.checker->GetValueTypeName();
    if (type.rfind("ns3::", 0) == 0)
    {
        type = type.substr(5);
    }
    bool ok = false;
    if (type == "TimeValue")
    {
        Time t;
        ok = TrainingScenario::ParseDuration(value, t) && Config::SetDefaultFailSafe(path, TimeValue(t));
    }
    else if (type == "DataRateValue")
    {
        DataRate r;
        ok = TrainingScenario::ParseRate(value, r) && Config::SetDefaultFailSafe(path, DataRateValue(r));
    }
    else if (type == "UintegerValue" || type == "IntegerValue")
    {
        // The whole text must be one integer (ns-3's parser aborts on "18 links").
        const bool negative = !value.empty() && value[0] == '-';
        const std::string digits = negative ? value.substr(1) : value;
        ok = !digits.empty() && digits.size() <= 19 &&
             std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
             !(negative && type == "UintegerValue") && Config::SetDefaultFailSafe(path, StringValue(value));
    }
    else if (type == "DoubleValue")
    {
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        ok = !value.empty() && end == value.c_str() + value.size() && std::isfinite(v) &&
             !std::isspace(static_cast<unsigned char>(value[0])) &&
             Config::SetDefaultFailSafe(path, DoubleValue(v));
    }
    else if (type == "BooleanValue")
    {
        ok = (value == "true" || value == "false" || value == "1" || value == "0") &&
             Config::SetDefaultFailSafe(path, StringValue(value));
    }
    else if (type == "StringValue" || type == "EnumValue")
    {
        ok = Config::SetDefaultFailSafe(path, StringValue(value));
    }
    else
    {
        *error = where + "attributes of type " + type + " cannot be set from a scenario file";
        return false;
    }
    if (!ok)
    {
        *error = where + "\"" + value + "\" is not a valid " + type + " for it";
    }
    return ok;
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
            const std::string algorithm = op.algorithm.empty() ? m_scenario.algorithm : op.algorithm;
            if (!seen.insert({op.group, op.collective, algorithm}).second)
            {
                continue;
            }
            const TraceGroup& g = m_trace.GetGroup(op.group);
            const uint32_t n = static_cast<uint32_t>(g.ranks.size());
            CollectiveSelection selection;
            selection.switchReduction = m_transport->CanReduceInSwitch(g.ranks);
            bool known = false;
            const bool ok = selection.CanMakePlan(op.collective, algorithm, m_world.SubGroup(g.ranks), &known);
            if (!known)
            {
                *error = m_scenario.source + ": unknown collective algorithm \"" + algorithm +
                         "\" (auto, ring, tree, halving-doubling, direct, hierarchical, nvls)";
                return false;
            }
            if (!ok)
            {
                *error = m_scenario.source + ": rank " + std::to_string(r) + " op " + std::to_string(op.id) +
                         " ('" + op.name + "'): no " + algorithm + " " + CollectiveTypeToString(op.collective) +
                         " on group '" + op.group + "' of " + std::to_string(n) + " ranks" +
                         (algorithm == "nvls" ? " (NVLS needs all ranks on one NVSwitch)" : "");
                return false;
            }
        }
    }
    return true;
}

bool
TrainingSimulation::Build(std::string* error)
{
    const TrainingScenario& s = m_scenario;
    // Defaults first, then the user's settings over them: the GPU preset, the scenario's
    // run settings, then fabric/config (and the command line, which the program passes
    // in the same list).
    NvSwitchFabric::SetPreset(s.gpu);
    Config::SetDefault("ns3::WorkloadRunner::Iterations", UintegerValue(s.iterations));
    Config::SetDefault("ns3::WorkloadRunner::HangTimeout", TimeValue(s.hangTimeout));
    Config::SetDefault("ns3::WorkloadRunner::Algorithm", StringValue(s.algorithm));
    Config::SetDefault("ns3::WorkloadRunner::Channels",
                       UintegerValue(std::min(64u, s.channels ? s.channels : s.gpusPerServer)));
    Config::SetDefault("ns3::WorkloadRunner::ChunkBytes", UintegerValue(s.chunkBytes));
    Config::SetDefault("ns3::FabricMonitor::SampleInterval", TimeValue(s.sampleInterval));
    for (const auto& [path, value] : s.config)
    {
        if (!ApplyConfig(path, value, error))
        {
            return false;
        }
    }
    TypeId cc;
    if (s.topology != "ideal" && (!TypeId::LookupByNameFailSafe(s.congestionControl, &cc) ||
                                  !cc.IsChildOf(RoceCongestionControl::GetTypeId())))
    {
        *error = s.source + ": /fabric/congestionControl: \"" + s.congestionControl +
                 "\" is not a congestion control (e.g. ns3::Dcqcn, ns3::NoCongestionControl)";
        return false;
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(s.seed);
    if (s.topology == "file")
    {
        // The file says how many servers and GPUs there are. A malformed file stops the
        // program with the reader's message (file, JSON place, expectation).
        std::ifstream probe(s.topologyFile);
        if (!probe)
        {
            *error = s.source + ": /cluster/file: " + s.topologyFile + ": cannot open the file";
            return false;
        }
        m_roce.SetCongestionControl(s.congestionControl);
        RoceTopologyReader reader(m_roce);
        const RoceTopologyFile file = reader.Read(s.topologyFile);
        const auto hosts = static_cast<uint32_t>(file.topology.nics.size());
        if (hosts % file.gpusPerServer != 0)
        {
            *error = s.topologyFile + ": " + std::to_string(hosts) + " hosts do not make servers of " +
                     std::to_string(file.gpusPerServer) + " GPUs";
            return false;
        }
        m_fileNetwork = file.topology;
        m_scenario.gpusPerServer = file.gpusPerServer;
        m_scenario.servers = hosts / file.gpusPerServer;
    }
    const uint32_t gpus = s.GetNGpus();
    if (s.traceFormat == "generator" && s.generator.GetNRanks() > gpus)
    {
        *error = s.source + ": /workload/model needs " + std::to_string(s.generator.GetNRanks()) +
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
        m_cluster = helper.BuildOn(m_fileNetwork, s.gpusPerServer, "");
        m_roce.AssignStreams(1);
        m_transport = m_cluster.transport;
        m_monitor = CreateObject<FabricMonitor>();
        m_monitor->Attach(m_cluster.network);
    }
    else
    {
        m_roce.SetCongestionControl(s.congestionControl);
        GpuClusterHelper helper(m_roce);
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
    // Timers of idle queue pairs would run the clock on: stop with the workload.
    m_runner->SetFinishedCallback([]() { Simulator::Stop(); });
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
        std::fprintf(stderr,
                     "\r[ai-fabric] simulated %.3f ms | ops %llu/%llu (%.0f%%) | wall %.0f s | ETA %s   ",
                     Simulator::Now().GetSeconds() * 1e3,
                     static_cast<unsigned long long>(done),
                     static_cast<unsigned long long>(total),
                     fraction * 100,
                     wall,
                     fraction > 0.01 ? (std::to_string(static_cast<int>(wall * (1 - fraction) / fraction)) + " s").c_str()
                                     : "?");
        std::fflush(stderr);
        m_printed = true;
    }
    Simulator::Schedule(MicroSeconds(100), &TrainingSimulation::Progress, this);
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

const std::vector<TrainingSimulation::Flow>&
TrainingSimulation::GetFlows() const
{
    return m_flows;
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
