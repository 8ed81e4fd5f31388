// SPDX-License-Identifier: GPL-2.0-only
#include "training-simulation.h"

#include "ns3/aicb-reader.h"
#include "ns3/chakra-reader.h"
#include "ns3/config.h"
#include "ns3/ideal-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-json.h"
#include "ns3/uinteger.h"

#include <cstdio>
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
TrainingSimulation::Build(std::string* error)
{
    const TrainingScenario& s = m_scenario;
    for (const auto& [path, value] : s.config)
    {
        // Config::SetDefaultFailSafe reports an unknown name instead of aborting.
        if (!Config::SetDefaultFailSafe(path, StringValue(value)))
        {
            *error = s.source + ": /fabric/config/" + path + ": no such attribute, or \"" + value +
                     "\" is not a valid value for it";
            return false;
        }
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(s.seed);
    if (!LoadTrace(error))
    {
        return false;
    }
    const uint32_t gpus = s.GetNGpus();
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
    else
    {
        m_roce.SetCongestionControl(s.congestionControl);
        GpuClusterHelper helper(m_roce);
        m_cluster = helper.Build(s.servers,
                                 s.gpusPerServer,
                                 s.gpu,
                                 s.nicRate,
                                 s.spines,
                                 s.oversubscription,
                                 s.linkDelay);
        m_roce.AssignStreams(1);
        m_transport = m_cluster.transport;
        m_monitor = CreateObject<FabricMonitor>();
        m_monitor->SetAttribute("SampleInterval", TimeValue(s.sampleInterval));
        m_monitor->Attach(m_cluster.network);
    }
    m_runner = CreateObject<WorkloadRunner>();
    m_runner->SetAttribute("Iterations", UintegerValue(s.iterations));
    m_runner->SetAttribute("HangTimeout", TimeValue(s.hangTimeout));
    m_runner->SetAttribute("Algorithm", StringValue(s.algorithm));
    m_runner->SetAttribute("Channels", UintegerValue(s.channels ? s.channels : s.gpusPerServer));
    m_runner->SetAttribute("ChunkBytes", UintegerValue(s.chunkBytes));
    m_runner->Setup(m_trace, m_world, m_transport);
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
