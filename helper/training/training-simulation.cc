// SPDX-License-Identifier: GPL-2.0-only
#include "training-simulation.h"

#include "ina-feature.h"
#include "link-events-feature.h"
#include "pcap-feature.h"
#include "scenario-settings.h"

#include "ns3/boolean.h"
#include "ns3/collective-selection.h"
#include "ns3/flow-transport.h"
#include "ns3/gpu-preset.h"
#include "ns3/ideal-transport.h"
#include "ns3/log.h"
#include "ns3/parameter-server-sync.h"
#include "ns3/rank-map-transport.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/roce-topology-reader.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingSimulation");

namespace
{
/// The compute jitter's random stream: after the fabric's (from 1) and the background
/// traffic's (from 2^20).
constexpr int64_t JITTER_STREAM = int64_t{1} << 21;
} // namespace

TrainingSimulation::TrainingSimulation(const TrainingScenario& scenario)
    : m_scenario(scenario)
{
    // The optional features, installed in this order (link events before background
    // traffic: both name /events or /background on the ideal topology, events first).
    m_background = Create<BackgroundFeature>();
    m_deadlocks = Create<DeadlockDetectorFeature>();
    m_fastForward = Create<FastForwardFeature>();
    m_features = {Create<InaFeature>(),
                  Create<LinkEventsFeature>(),
                  m_background,
                  m_deadlocks,
                  Create<PcapFeature>(),
                  m_fastForward};
}

TrainingSimulation::~TrainingSimulation()
{
    for (Job& job : m_jobs)
    {
        if (job.runner)
        {
            job.runner->Dispose();
        }
    }
    if (m_monitor)
    {
        m_monitor->Dispose();
    }
}

bool
TrainingSimulation::ApplyGlobalSettings(std::string* error)
{
    m_globalsApplied = ScenarioSettings::Apply(m_scenario, error);
    return m_globalsApplied;
}

bool
TrainingSimulation::CheckRunSettings(std::string* error)
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
    if (s.topology == "ideal")
    {
        return true;
    }
    // The vocabulary of --cc: a TypeId or "none"; the report names the TypeId.
    TypeId cc;
    if (!RoceCongestionControl::LookupByName(s.congestionControl, &cc))
    {
        *error = s.source + ": /fabric/congestionControl: \"" + s.congestionControl +
                 "\" is not a congestion control: expected " + RoceCongestionControl::GetNameHint();
        return false;
    }
    m_scenario.congestionControl = cc.GetName();
    if (s.fabricModel == "flow")
    {
        // What needs frames: the flow-level fabric has none.
        const char* needsPackets = s.ina != "off"                   ? "in-network aggregation"
                                   : !s.events.empty()              ? "link events"
                                   : !s.backgroundFlowSizes.empty() ? "background traffic"
                                   : !s.pcapPrefix.empty()          ? "a pcap capture"
                                                                    : nullptr;
        if (needsPackets)
        {
            *error = s.source + ": " + s.fabricModelPlace + ": the flow-level fabric has no " +
                     "packets for " + needsPackets + ": use the packet model";
            return false;
        }
    }
    std::string why;
    if (!RoceHelper::CheckCongestionControl(s.congestionControl, &why))
    {
        *error = s.source + ": " + why;
        return false;
    }
    return true;
}

bool
TrainingSimulation::ReadTopologyFile(std::string* error)
{
    const TrainingScenario& s = m_scenario;
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
        *error = s.topologyFile + ": " + std::to_string(hosts) + " hosts do not make servers of " +
                 std::to_string(file.gpusPerServer) + " GPUs";
        return false;
    }
    m_fileNetwork = file.topology;
    m_scenario.gpusPerServer = file.gpusPerServer;
    m_scenario.servers = hosts / file.gpusPerServer;
    return true;
}

bool
TrainingSimulation::LoadWorkload(std::string* error)
{
    const TrainingScenario& s = m_scenario;
    const uint32_t gpus = s.GetNGpus();
    if (s.traceFormat == "generator" && s.generator.GetNRanks() > gpus)
    {
        *error =
            (s.traceFile.empty() ? s.source + ": /workload/model" : s.traceFile + ": the model") +
            " needs " + std::to_string(s.generator.GetNRanks()) +
            " GPUs (tp x pp x dp) but the cluster has " + std::to_string(gpus);
        return false;
    }
    m_jobs.assign(1, Job());
    Job& job = m_jobs.front();
    if (!job.workload.Load(s, error))
    {
        return false;
    }
    const uint32_t ranks = job.workload.GetTrace().GetNGpuRanks();
    if (ranks > gpus)
    {
        *error = s.source + ": the trace has " + std::to_string(ranks) +
                 " GPU ranks but the cluster has only " + std::to_string(gpus) + " GPUs";
        return false;
    }
    if (!job.workload.Adapt(s, gpus, error) || !s.stragglers.Check(ranks, error))
    {
        return false;
    }
    // GPU rank r on GPU r; the CPU hosts (dedicated parameter servers, from the trace or
    // its rewrite) after the cluster's GPUs, on hosts of their own.
    const TrainingTrace& trace = job.workload.GetTrace();
    m_cpuHosts = trace.GetNCpuRanks();
    if (m_cpuHosts > 0 && s.topology == "file")
    {
        *error = (s.parameterServers.empty() ? s.source : s.parameterServersPlace) + ": " +
                 "parameter servers on " + ParameterServerSync::CountCpuHosts(m_cpuHosts) +
                 " need the rail-optimized or the ideal topology: a topology file's hosts are "
                 "all GPUs";
        return false;
    }
    for (uint32_t r = 0; r < trace.GetNRanks(); ++r)
    {
        job.gpus.push_back(trace.IsCpuRank(r) ? gpus + (r - ranks) : r);
    }
    NS_LOG_INFO(ranks << " GPU ranks on GPUs 0.." << ranks - 1 << ", "
                      << ParameterServerSync::CountCpuHosts(m_cpuHosts) << " after the " << gpus
                      << " GPUs");
    return true;
}

void
TrainingSimulation::BuildCluster()
{
    const TrainingScenario& s = m_scenario;
    m_world = CommGroup::Uniform(s.servers, s.gpusPerServer, m_cpuHosts);
    if (s.topology == "ideal")
    {
        NS_LOG_INFO("ideal carrier for " << s.GetNGpus() << " GPUs and " << m_cpuHosts
                                         << " CPU hosts");
        auto ideal = CreateObject<IdealTransport>();
        ideal->SetAttribute("NRanks", UintegerValue(s.GetNGpus() + m_cpuHosts));
        ideal->SetAttribute("DataRate", DataRateValue(s.idealRate));
        ideal->SetAttribute("Latency", TimeValue(s.idealLatency));
        m_transport = ideal;
        return;
    }
    GpuClusterHelper helper(m_roce);
    if (s.fabricModel == "flow")
    {
        NS_LOG_INFO("flow-level scale-out fabric (" << s.fabricModelPlace << ")");
        helper.SetScaleOutType(FlowTransport::GetTypeId());
    }
    for (const auto& feature : m_features)
    {
        feature->Prepare(s, helper);
    }
    if (s.topology == "file")
    {
        m_cluster = helper.BuildOn(m_fileNetwork, s.gpusPerServer, "");
    }
    else
    {
        m_roce.SetCongestionControl(s.congestionControl);
        m_cluster = helper.Build(s.servers,
                                 s.gpusPerServer,
                                 "", // the preset and the user's changes are the defaults
                                 s.nicRate,
                                 s.spines,
                                 s.oversubscription,
                                 s.linkDelay,
                                 s.pods,
                                 m_cpuHosts);
    }
    NS_LOG_INFO(s.topology << " cluster: " << s.servers << " x " << s.gpusPerServer << " GPUs, "
                           << m_cluster.network.switchObjects.size() << " switches");
    m_roce.AssignStreams(1);
    m_transport = m_cluster.transport;
    if (s.fabricModel == "flow")
    {
        NS_LOG_INFO("no fabric monitor: the flow-level fabric sends no frames to sample");
        return;
    }
    m_monitor = CreateObject<FabricMonitor>();
    m_monitor->Attach(m_cluster.network);
}

bool
TrainingSimulation::Build(std::string* error)
{
    const TrainingScenario& s = m_scenario;
    if (!CheckRunSettings(error))
    {
        return false;
    }
    for (const auto& feature : m_features)
    {
        if (!feature->Check(s, error))
        {
            return false;
        }
    }
    if (s.topology == "file" && !ReadTopologyFile(error))
    {
        return false;
    }
    if (HasJobs() ? !(CheckJobSettings(error) && LoadJobs(error)) : !LoadWorkload(error))
    {
        return false;
    }
    if (s.topology == "ideal" && !s.stragglers.nics.empty())
    {
        *error = s.stragglers.nics.front().place + ": the ideal topology has no NICs to slow";
        return false;
    }
    std::string buffers;
    if (s.topology == "rail-optimized" &&
        !RoceTopologyHelper::CheckRailOptimizedBuffers(s.servers,
                                                       s.gpusPerServer,
                                                       s.spines,
                                                       s.nicRate,
                                                       s.oversubscription,
                                                       s.linkDelay,
                                                       s.pods,
                                                       m_cpuHosts,
                                                       &buffers))
    {
        *error = s.source + ": /cluster: " + buffers + " (or split the servers into pods)";
        return false;
    }
    BuildCluster();
    if (s.topology != "ideal" && !s.stragglers.ApplyNics(m_cluster, error))
    {
        return false;
    }
    if (HasJobs() && s.topology != "ideal")
    {
        ApplyTrafficClasses();
    }
    std::string rateWhy;
    if (s.topology != "ideal" && !m_roce.CheckTelemetryRates(&rateWhy))
    {
        *error = s.source + ": /fabric/congestionControl: " + rateWhy;
        return false;
    }
    const TrainingContext context{m_scenario, m_roce, m_cluster, s.topology != "ideal"};
    for (const auto& feature : m_features)
    {
        NS_LOG_LOGIC("installing " << feature->GetName());
        if (!feature->Install(context, error))
        {
            return false;
        }
    }
    if (!HasJobs())
    {
        Job& job = m_jobs.front();
        job.world = m_world.SubGroup(job.gpus);
        job.transport = m_transport;
        if (job.gpus.back() + 1 != job.gpus.size())
        {
            // CPU hosts after fewer GPU ranks than GPUs: the trace's ranks are not the
            // cluster's.
            NS_LOG_LOGIC("the trace's ranks mapped onto the cluster's (RankMapTransport)");
            auto mapped = CreateObject<RankMapTransport>();
            mapped->Setup(m_transport, job.gpus);
            job.transport = mapped;
        }
        if (!CheckAlgorithms(job, error))
        {
            return false;
        }
        SetUpRunner(0);
        return true;
    }
    for (uint32_t j = 0; j < m_jobs.size(); ++j)
    {
        if (!m_jobs[j].spec.arrives)
        {
            if (!PlaceJob(j, error))
            {
                return false;
            }
            continue;
        }
        // An arriving job is placed when it arrives; its plans are tried now on the
        // first GPUs (its own placement has the same shape unless it straddles servers
        // differently: PlaceJob tries again then).
        Job trial = m_jobs[j];
        for (uint32_t r = 0; r < trial.workload.GetTrace().GetNRanks(); ++r)
        {
            trial.gpus.push_back(r);
        }
        if (!SetUpJobCarrier(trial, error))
        {
            return false;
        }
    }
    NoteAllocation();
    return true;
}

void
TrainingSimulation::SetUpRunner(uint32_t index)
{
    Job& job = m_jobs[index];
    job.runner = CreateObject<WorkloadRunner>();
    Ptr<WorkloadRunner> runner = job.runner;
    if (job.spec.iterations > 0)
    {
        runner->SetAttribute("Iterations", UintegerValue(job.spec.iterations));
    }
    runner->Setup(job.workload.GetSharedTrace(), job.world, job.transport);
    runner->GetEngine()->SetAttribute("ReplayIsolatedCalls",
                                      BooleanValue(m_fastForward->ReplaysCalls()));
    // Jitter draws from its own stream, after the fabric's (1..) and the background's.
    m_scenario.stragglers.Apply(runner, JITTER_STREAM);
    // Progress below whole transfers, for the hang watchdog: bytes the NICs sent and
    // chunks the NVSwitches delivered; on the ideal carrier, time while messages fly
    // (it cannot deadlock).
    if (Ptr<IdealTransport> ideal = DynamicCast<IdealTransport>(m_transport))
    {
        runner->SetProgressProbe([ideal]() -> uint64_t {
            return ideal->GetMessagesInFlight() ? Simulator::Now().GetTimeStep() : 0;
        });
    }
    else if (HasJobs())
    {
        // A job's own NICs, and the NVSwitches of its servers (shared with any job on them).
        runner->SetProgressProbe([this, index]() { return JobProgress(m_jobs[index]); });
    }
    else
    {
        const GpuCluster cluster = m_cluster;
        const Ptr<FlowTransport> flows = DynamicCast<FlowTransport>(m_cluster.scaleOut);
        runner->SetProgressProbe([cluster, flows]() {
            uint64_t p = 0;
            for (const auto& nic : cluster.network.nics)
            {
                p += nic->GetDevice()->GetTxBytes();
            }
            if (flows)
            {
                // No frames: the bytes the flows have sent.
                p += static_cast<uint64_t>(flows->GetNetwork()->GetBytesSent());
            }
            for (const auto& sw : cluster.nvSwitches)
            {
                p += sw->GetChunksDelivered();
            }
            return p;
        });
    }
    // Timers of idle queue pairs would run the clock on: stop with the workload (every
    // job's), once the features are done (the background flows it started, if any).
    runner->SetFinishedCallback([this, index]() { OnJobFinished(index); });
    const CommGroup world = m_world;
    const std::vector<uint32_t> gpus = job.gpus;
    std::deque<Flow>* flows = &m_flows;
    runner->GetEngine()->TraceConnectWithoutContext(
        "FlowCompleted",
        Callback<void, const CollectiveEngine::PendingTransfer&>(
            [flows, world, gpus](const CollectiveEngine::PendingTransfer& t) {
                const uint32_t src = gpus[t.src];
                const uint32_t dst = gpus[t.dst];
                if (t.kind == CommPlan::Kind::POINT_TO_POINT && !world.SameServer(src, dst))
                {
                    flows->push_back({src, dst, t.bytes, t.wireBytes, t.sentAt, Simulator::Now()});
                }
            }));
}

void
TrainingSimulation::OnJobFinished(uint32_t job)
{
    if (HasJobs())
    {
        NS_LOG_INFO("job " << m_jobs[job].spec.name << " finished");
        m_jobs[job].qpBytesAtEnd = SnapshotQueuePairs(m_jobs[job]);
        m_gpuPool.Release(static_cast<int>(job));
        NoteAllocation();
        PlaceQueued();
    }
    if (++m_jobsFinished < m_jobs.size())
    {
        return;
    }
    if (m_monitor)
    {
        m_monitor->Stop();
    }
    for (const auto& feature : m_features)
    {
        feature->OnWorkloadFinished();
    }
    m_drainUntil = Simulator::Now() + Seconds(1);
    Drain();
}

void
TrainingSimulation::Drain()
{
    // What the features started before the workload finished runs to completion (at
    // most a simulated second more; the report counts what did not end).
    bool busy = false;
    for (const auto& feature : m_features)
    {
        busy = busy || feature->IsBusy();
    }
    if (!busy || Simulator::Now() >= m_drainUntil)
    {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(MicroSeconds(100), &TrainingSimulation::Drain, this);
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
TrainingSimulation::CheckAlgorithms(const Job& job, std::string* error) const
{
    // Every (group, collective, algorithm) the trace will ask for, tried before the run
    // so that an impossible one is an error here and not an abort mid-simulation.
    std::set<std::tuple<std::string, CollectiveType, std::string>> seen;
    for (uint32_t r = 0; r < job.workload.GetTrace().GetNRanks(); ++r)
    {
        for (const TraceOp& op : job.workload.GetTrace().GetOps(r))
        {
            if (op.kind != TraceOpKind::COLLECTIVE)
            {
                continue;
            }
            const std::string algorithm =
                op.algorithm.empty() ? m_runnerAlgorithm : op.algorithm.str();
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
            const TraceGroup& g = job.workload.GetTrace().GetGroup(op.group);
            const uint32_t n = static_cast<uint32_t>(g.ranks.size());
            CollectiveSelection selection(job.transport, g.ranks);
            bool known = false;
            std::string why;
            const bool ok = selection.CanMakePlan(op.collective,
                                                  algorithm,
                                                  job.world.SubGroup(g.ranks),
                                                  &known,
                                                  &why);
            if (!known)
            {
                *error = m_scenario.source + ": unknown collective algorithm \"" + algorithm +
                         "\" (" + GetCollectiveAlgorithmNameList() + ")";
                return false;
            }
            CollectiveAlgorithm named = CollectiveAlgorithm::AUTO;
            CollectiveProtocol protocol = CollectiveProtocol::AUTO;
            CollectiveAlgorithmFromString(algorithm, named);
            CollectiveProtocolFromString(m_scenario.protocol, protocol);
            if (!CollectiveProtocolApplies(named, protocol))
            {
                *error = m_scenario.source + ": algorithm " + algorithm + " runs the " +
                         CollectiveProtocolToString(CollectiveProtocol::SIMPLE) +
                         " protocol only, not " + m_scenario.protocol +
                         " (collectives.protocol or --protocol)";
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

void
TrainingSimulation::Progress()
{
    if (m_jobsFinished == m_jobs.size() || IsStuck())
    {
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - m_lastPrint < std::chrono::seconds(2))
    {
        return;
    }
    m_lastPrint = now;
    const double wall = std::chrono::duration<double>(now - m_wallStart).count();
    uint64_t done = 0;
    uint64_t total = 0;
    uint64_t bytesDone = 0;
    uint64_t bytesTotal = 0;
    for (const Job& job : m_jobs)
    {
        if (!job.runner)
        {
            continue;
        }
        const auto [d, n] = job.runner->GetProgress();
        const auto [bd, bn] = job.runner->GetFabricBytesProgress();
        done += d;
        total += n;
        bytesDone += bd;
        bytesTotal += bn;
    }
    // Wall time goes to the packets: the ETA counts the bytes the fabric still has to
    // carry (ops only when no op crosses servers).
    const double fraction = bytesTotal ? static_cast<double>(bytesDone) / bytesTotal
                            : total    ? static_cast<double>(done) / total
                                       : 0;
    std::fprintf(
        stderr,
        "\r[ai-fabric] simulated %.3f ms | ops %llu/%llu | fabric %.2f/%.2f GB (%.0f%%) "
        "| wall %.0f s | ETA %s   ",
        Simulator::Now().GetSeconds() * 1e3,
        static_cast<unsigned long long>(done),
        static_cast<unsigned long long>(total),
        static_cast<double>(bytesDone) / 1e9,
        static_cast<double>(bytesTotal) / 1e9,
        fraction * 100,
        wall,
        fraction > 0.01
            ? (std::to_string(static_cast<int>(wall * (1 - fraction) / fraction)) + " s").c_str()
            : "?");
    std::fflush(stderr);
    m_printed = true;
}

void
TrainingSimulation::ConnectProgress(const Job& job)
{
    job.runner->TraceConnectWithoutContext("OpFinished",
                                           MakeCallback(&TrainingSimulation::OnOpFinished, this));
    job.runner->GetEngine()->TraceConnectWithoutContext(
        "TransferDone",
        MakeCallback(&TrainingSimulation::OnTransferDone, this));
}

void
TrainingSimulation::OnOpFinished(const OpRecord& /* record */)
{
    Progress();
}

void
TrainingSimulation::OnTransferDone(uint64_t /* runId */, uint32_t /* transfer */)
{
    Progress();
}

void
TrainingSimulation::Run(bool progress)
{
    m_wallStart = std::chrono::steady_clock::now();
    m_lastPrint = m_wallStart;
    const uint64_t events0 = Simulator::GetEventCount();
    m_jobsFinished = 0;
    m_progress = progress;
    for (uint32_t j = 0; j < m_jobs.size(); ++j)
    {
        const Job& job = m_jobs[j];
        if (job.spec.arrives)
        {
            Simulator::Schedule(job.spec.start, &TrainingSimulation::OnArrival, this, j);
        }
        else if (job.spec.start.IsZero())
        {
            job.runner->Start();
        }
        else
        {
            NS_LOG_INFO("job " << job.spec.name << " starts at " << job.spec.start.As(Time::MS));
            Simulator::Schedule(job.spec.start, &WorkloadRunner::Start, job.runner);
        }
    }
    if (m_monitor)
    {
        m_monitor->Start([this]() { return m_jobsFinished < m_jobs.size() && !IsStuck(); });
    }
    if (progress)
    {
        // Asked when work finishes (an op, a transfer), not by a timer: idle simulated
        // time (long compute) costs no event.
        for (const Job& job : m_jobs)
        {
            if (job.runner) // an arriving job is connected when placed
            {
                ConnectProgress(job);
            }
        }
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

Ptr<BackgroundTraffic>
TrainingSimulation::GetBackground() const
{
    return m_background->GetTraffic();
}

Ptr<FastForwardFeature>
TrainingSimulation::GetFastForward() const
{
    return m_fastForward;
}

std::vector<PfcDeadlock>
TrainingSimulation::GetPfcDeadlocks() const
{
    return m_deadlocks->GetDeadlocks();
}

const TrainingScenario&
TrainingSimulation::GetScenario() const
{
    return m_scenario;
}

const TrainingTrace&
TrainingSimulation::GetTrace() const
{
    return m_jobs.front().workload.GetTrace();
}

const std::vector<TrainingSimulation::Job>&
TrainingSimulation::GetJobs() const
{
    return m_jobs;
}

bool
TrainingSimulation::HasJobs() const
{
    return !m_scenario.jobs.empty() || !m_scenario.arrivals.mix.empty();
}

bool
TrainingSimulation::IsStuck() const
{
    return std::any_of(m_jobs.begin(), m_jobs.end(), [](const Job& job) {
        return job.runner && job.runner->IsStuck();
    });
}

std::string
TrainingSimulation::GetStuckReport() const
{
    std::string report;
    for (const Job& job : m_jobs)
    {
        if (job.runner && job.runner->IsStuck())
        {
            report += (HasJobs() ? "job " + job.spec.name + ": " : std::string()) +
                      job.runner->GetStuckReport();
        }
    }
    return report;
}

Ptr<WorkloadRunner>
TrainingSimulation::GetRunner() const
{
    return m_jobs.front().runner;
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

const std::deque<TrainingSimulation::Flow>&
TrainingSimulation::GetFlows() const
{
    return m_flows;
}

std::vector<std::string>
TrainingSimulation::GetWarnings() const
{
    if (!HasJobs())
    {
        return m_jobs.front().workload.GetWarnings();
    }
    std::vector<std::string> warnings;
    uint32_t used = 0;
    for (const Job& job : m_jobs)
    {
        for (const std::string& w : job.workload.GetWarnings())
        {
            warnings.push_back("job " + job.spec.name + ": " + w);
        }
        used += static_cast<uint32_t>(job.gpus.size());
    }
    if (used < m_scenario.GetNGpus() && m_scenario.arrivals.mix.empty())
    {
        warnings.push_back(std::to_string(m_scenario.GetNGpus() - used) + " of the cluster's " +
                           std::to_string(m_scenario.GetNGpus()) + " GPUs run no job");
    }
    return warnings;
}

const std::vector<CompressionEffect>&
TrainingSimulation::GetCompression() const
{
    return m_jobs.front().workload.GetCompression();
}

const std::string&
TrainingSimulation::GetWorkloadNote() const
{
    return m_jobs.front().workload.GetNote();
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

uint64_t
TrainingSimulation::GetRdmaPayloadBytes() const
{
    uint64_t bytes = 0;
    for (const Ptr<RdmaNic>& nic : m_cluster.network.nics)
    {
        for (uint32_t q = 0; q < nic->GetNQueuePairs(); ++q)
        {
            bytes += nic->GetQueuePair(q)->GetBytesReceived();
        }
    }
    return bytes;
}

double
TrainingSimulation::GetSkippedFraction() const
{
    const Ptr<RdmaFastForward> ff = m_fastForward->GetFastForward();
    const uint64_t total = ff ? GetRdmaPayloadBytes() : 0;
    return total ? static_cast<double>(ff->GetSkippedPayloadBytes()) / static_cast<double>(total)
                 : 0.0;
}

} // namespace ns3
