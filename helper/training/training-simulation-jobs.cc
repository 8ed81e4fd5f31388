// SPDX-License-Identifier: GPL-2.0-only
// TrainingSimulation: several jobs on one cluster (the scenario's "jobs").
#include "training-simulation.h"

#include "ns3/double.h"
#include "ns3/flow-transport.h"
#include "ns3/log.h"
#include "ns3/parameter-server-sync.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rank-map-transport.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-switch.h"
#include "ns3/shared-buffer-mmu.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingSimulationJobs");

namespace
{
/// The arrivals' random streams (gaps, kinds): after the compute jitter's (2^21).
constexpr int64_t ARRIVAL_STREAM = int64_t{1} << 22;
} // namespace

bool
TrainingSimulation::CheckJobSettings(std::string* error) const
{
    const TrainingScenario& s = m_scenario;
    const StragglerSettings& st = s.stragglers;
    // Slow NICs are the cluster's (GPU indices); slow GPUs, jitter and failures are the
    // runner's, and their report walks one job's critical paths.
    std::string place = !st.slow.empty()                ? st.slow.front().place
                        : !st.failures.empty()          ? st.failures.front().place
                        : !st.jitter.empty()            ? st.jitterPlace
                        : !st.restartDelay.IsNegative() ? st.restartPlace
                                                        : "";
    if (!place.empty())
    {
        *error = place + ": slow GPUs, compute jitter, GPU failures and restarts apply to the "
                         "scenario's one workload, not to jobs (slow NICs do: their ranks are "
                         "GPUs)";
        return false;
    }
    if (s.fastForward == "check")
    {
        *error = s.source + ": /run/fastForward: \"check\" compares one workload's run, not "
                            "jobs'";
        return false;
    }
    if (s.ina != "off")
    {
        // The aggregation pools are shared, but their report is per run.
        NS_LOG_INFO("jobs share the in-network aggregation pools");
    }
    uint8_t control = 0;
    {
        TypeId::AttributeInformation info;
        RdmaNic::GetTypeId().LookupAttributeByName("ControlPriority", &info);
        control =
            static_cast<uint8_t>(std::stoul(info.initialValue->SerializeToString(info.checker)));
    }
    std::vector<const JobSpec*> specs;
    for (const JobSpec& job : s.jobs)
    {
        specs.push_back(&job);
    }
    for (const JobArrivals::Kind& kind : s.arrivals.mix)
    {
        specs.push_back(&kind.job);
    }
    for (const JobSpec* job : specs)
    {
        if (s.topology != "ideal" && job->trafficClass == control)
        {
            *error = job->place + "/trafficClass: " + std::to_string(job->trafficClass) +
                     " is the NICs' ControlPriority (ACK, NAK, CNP): give the job another class";
            return false;
        }
        if (s.fabricModel == "flow" && job->trafficClass != specs.front()->trafficClass)
        {
            *error = job->place + "/trafficClass: " + std::to_string(job->trafficClass) +
                     " beside " + std::to_string(specs.front()->trafficClass) + " (" +
                     specs.front()->place + "): the flow-level fabric (" + s.fabricModelPlace +
                     ") shares the links max-min fairly whatever the class, not by the ports' "
                     "scheduler: give every job one class, or use the packet model";
            return false;
        }
    }
    // Slow NICs name GPUs of the cluster.
    return st.Check(s.GetNGpus(), error);
}

bool
TrainingSimulation::LoadJobWorkload(JobSpec& spec,
                                    TrainingWorkload& workload,
                                    std::string* error) const
{
    // The job's workload, with the scenario's other settings (GPU, compression,
    // parameter servers).
    TrainingScenario js = m_scenario;
    js.traceFormat = spec.traceFormat;
    js.traceFile = spec.traceFile;
    js.generator = spec.generator;
    js.traceRanks = spec.traceRanks ? spec.traceRanks : spec.gpus;
    // --computeScale (the scenario's factor) scales every job's compute too.
    js.computeScale = spec.computeScale * m_scenario.computeScale;
    const bool foreign = js.traceFormat != "json" && js.traceFormat != "generator";
    if (foreign && js.traceRanks == 0)
    {
        *error = spec.place + ": a " + js.traceFormat +
                 " workload does not say how many ranks it has: give the job's \"gpus\"";
        return false;
    }
    if (!workload.Load(js, error))
    {
        *error = "job " + spec.name + ": " + *error;
        return false;
    }
    const uint32_t ranks = workload.GetTrace().GetNRanks();
    if (spec.gpus == 0)
    {
        spec.gpus = ranks;
    }
    if (ranks > spec.gpus)
    {
        *error = spec.place + ": the workload has " + std::to_string(ranks) +
                 " ranks but the job " + std::to_string(spec.gpus) + " GPUs";
        return false;
    }
    if (spec.gpus > m_scenario.GetNGpus())
    {
        *error = spec.place + ": the job needs " + std::to_string(spec.gpus) +
                 " GPUs but the cluster has " + std::to_string(m_scenario.GetNGpus());
        return false;
    }
    if (!spec.fixedGpus.empty() && spec.fixedGpus.size() != spec.gpus)
    {
        *error = spec.place + ": " + std::to_string(spec.fixedGpus.size()) +
                 " fixed GPUs for a job of " + std::to_string(spec.gpus);
        return false;
    }
    if (!workload.Adapt(js, spec.gpus, error))
    {
        *error = "job " + spec.name + ": " + *error;
        return false;
    }
    if (workload.GetTrace().GetNCpuRanks() > 0)
    {
        *error = spec.place + ": the workload has " +
                 ParameterServerSync::CountCpuHosts(workload.GetTrace().GetNCpuRanks()) +
                 " (dedicated parameter servers), which jobs do not place: use the " +
                 ParameterServerSync::PlacementToString(ParameterServerSync::COLOCATED) +
                 " placement";
        return false;
    }
    return true;
}

bool
TrainingSimulation::LoadJobs(std::string* error)
{
    const TrainingScenario& s = m_scenario;
    m_jobs.assign(s.jobs.size(), Job());
    std::vector<JobSpec> specs = s.jobs;
    for (uint32_t j = 0; j < specs.size(); ++j)
    {
        if (!LoadJobWorkload(specs[j], m_jobs[j].workload, error))
        {
            return false;
        }
    }
    std::vector<std::vector<uint32_t>> placed;
    if (!specs.empty() && !PlaceJobs(specs,
                                     s.servers,
                                     s.gpusPerServer,
                                     s.topology == "rail-optimized" ? s.pods : 1,
                                     s.seed,
                                     placed,
                                     error))
    {
        return false;
    }
    m_gpuPool = GpuPool(s.servers, s.gpusPerServer);
    for (uint32_t j = 0; j < specs.size(); ++j)
    {
        m_jobs[j].spec = specs[j];
        for (uint32_t g : placed[j])
        {
            m_gpuPool.Own(g, static_cast<int>(j));
        }
        // A job's ranks beyond its workload's (GPUs it holds but leaves idle) are not
        // replayed: its runner numbers the workload's ranks.
        const uint32_t ranks = m_jobs[j].workload.GetTrace().GetNRanks();
        m_jobs[j].gpus.assign(placed[j].begin(), placed[j].begin() + ranks);
        NS_LOG_INFO("job " << specs[j].name << ": " << ranks << " ranks on GPUs from "
                           << m_jobs[j].gpus.front() << ", class " << int(specs[j].trafficClass));
    }
    return s.arrivals.mix.empty() || DrawArrivals(error);
}

bool
TrainingSimulation::DrawArrivals(std::string* error)
{
    const JobArrivals& a = m_scenario.arrivals;
    // Each kind's workload once; its jobs share the trace.
    std::vector<Job> kinds(a.mix.size());
    for (uint32_t k = 0; k < a.mix.size(); ++k)
    {
        kinds[k].spec = a.mix[k].job;
        if (!LoadJobWorkload(kinds[k].spec, kinds[k].workload, error))
        {
            return false;
        }
        kinds[k].spec.arrives = true;
    }
    auto gap = CreateObject<ExponentialRandomVariable>();
    gap->SetAttribute("Mean", DoubleValue(a.meanInterarrival.GetSeconds()));
    gap->SetStream(ARRIVAL_STREAM);
    auto pick = CreateObject<UniformRandomVariable>();
    pick->SetStream(ARRIVAL_STREAM + 1);
    uint32_t n = 0;
    for (Time at = Seconds(gap->GetValue()); at < a.window; at += Seconds(gap->GetValue()))
    {
        const double u = pick->GetValue();
        uint32_t k = 0;
        for (double sum = a.mix[0].probability; k + 1 < a.mix.size() && u >= sum;
             sum += a.mix[++k].probability)
        {
        }
        Job job = kinds[k];
        job.spec.name = kinds[k].spec.name + "-" + std::to_string(++n);
        for (const JobSpec& fixed : m_scenario.jobs)
        {
            if (fixed.name == job.spec.name)
            {
                *error = fixed.place + "/name: \"" + fixed.name +
                         "\" is also the name of an arriving job: give another";
                return false;
            }
        }
        job.spec.start = at;
        NS_LOG_INFO("arrival " << n << " at " << at.As(Time::MS) << ": " << job.spec.name);
        m_jobs.push_back(job);
    }
    NS_LOG_INFO(n << " jobs arrive in " << a.window.As(Time::MS));
    if (m_jobs.empty())
    {
        *error = a.place + ": no job arrives in the window with seed " +
                 std::to_string(m_scenario.seed) +
                 " (and there are no \"jobs\"): lengthen the window or shorten the gaps";
        return false;
    }
    return true;
}

bool
TrainingSimulation::SetUpJobCarrier(Job& job, std::string* error) const
{
    job.world = m_world.SubGroup(job.gpus);
    auto mapped = CreateObject<RankMapTransport>();
    mapped->Setup(m_transport, job.gpus);
    job.transport = mapped;
    if (!CheckAlgorithms(job, error))
    {
        *error = "job " + job.spec.name + ": " + *error;
        return false;
    }
    return true;
}

bool
TrainingSimulation::PlaceJob(uint32_t index, std::string* error)
{
    Job& job = m_jobs[index];
    if (!SetUpJobCarrier(job, error))
    {
        return false;
    }
    if (m_scenario.topology != "ideal")
    {
        for (uint32_t g : job.gpus)
        {
            m_cluster.network.nics[g]->SetAttribute("DataPriority",
                                                    UintegerValue(job.spec.trafficClass));
        }
    }
    job.placed = Simulator::Now();
    job.qpBytesAtPlace = SnapshotQueuePairs(job);
    SetUpRunner(index);
    return true;
}

void
TrainingSimulation::OnArrival(uint32_t job)
{
    NS_LOG_INFO("job " << m_jobs[job].spec.name << " arrives, " << m_queue.size()
                       << " queued before it");
    m_queue.push_back(job);
    PlaceQueued();
}

void
TrainingSimulation::PlaceQueued()
{
    while (!m_queue.empty() && m_runError.empty())
    {
        const uint32_t j = m_queue.front();
        Job& job = m_jobs[j];
        std::vector<uint32_t> free;
        if (!m_gpuPool.TakeFirstFit(job.spec.gpus, static_cast<int>(j), free))
        {
            NS_LOG_LOGIC("job " << job.spec.name << " waits: " << m_gpuPool.TotalFree()
                                << " GPUs free of " << job.spec.gpus);
            return; // in arrival order: the first waits, and those behind it
        }
        m_queue.erase(m_queue.begin());
        job.gpus.assign(free.begin(), free.begin() + job.workload.GetTrace().GetNRanks());
        NS_LOG_INFO("job " << job.spec.name << " placed first fit on GPUs from " << free.front());
        std::string error;
        if (!PlaceJob(j, &error))
        {
            m_runError = error;
            Simulator::Stop();
            return;
        }
        NoteAllocation();
        if (m_progress)
        {
            ConnectProgress(job);
        }
        job.runner->Start();
    }
}

void
TrainingSimulation::NoteAllocation()
{
    const uint32_t held = m_gpuPool.Held();
    if (!m_allocations.empty() && m_allocations.back().at == Simulator::Now())
    {
        m_allocations.back().gpus = held;
        return;
    }
    m_allocations.push_back({Simulator::Now(), held});
}

std::map<Ptr<RdmaQueuePair>, uint64_t>
TrainingSimulation::SnapshotQueuePairs(const Job& job) const
{
    std::map<Ptr<RdmaQueuePair>, uint64_t> bytes;
    if (m_scenario.topology == "ideal")
    {
        return bytes;
    }
    for (uint32_t g : job.gpus)
    {
        const Ptr<RdmaNic> nic = m_cluster.network.nics[g];
        for (uint32_t q = 0; q < nic->GetNQueuePairs(); ++q)
        {
            // What arrived at the other end: a job's transfers are done when their bytes
            // have arrived, before the last ACKs are back.
            const Ptr<RdmaQueuePair> qp = nic->GetQueuePair(q);
            const Ptr<RdmaQueuePair> peer = qp->GetPeerQueuePair();
            bytes[qp] = peer ? peer->GetBytesReceived() : qp->GetBytesAcked();
        }
    }
    return bytes;
}

std::map<Ptr<RdmaQueuePair>, uint64_t>
TrainingSimulation::GetJobQueuePairBytes(const Job& job) const
{
    const bool finished = job.runner && job.runner->IsFinished();
    std::map<Ptr<RdmaQueuePair>, uint64_t> bytes =
        finished ? job.qpBytesAtEnd : SnapshotQueuePairs(job);
    for (auto& [qp, b] : bytes)
    {
        auto it = job.qpBytesAtPlace.find(qp);
        b -= it == job.qpBytesAtPlace.end() ? 0 : it->second;
    }
    return bytes;
}

const std::vector<TrainingSimulation::Allocation>&
TrainingSimulation::GetAllocations() const
{
    return m_allocations;
}

const std::string&
TrainingSimulation::GetRunError() const
{
    return m_runError;
}

void
TrainingSimulation::ApplyTrafficClasses()
{
    uint32_t mask = 0;
    for (const Job& job : m_jobs)
    {
        mask |= 1u << job.spec.trafficClass; // arriving jobs' too: their NICs when placed
    }
    // PFC and ECN act per class: every job's class is lossless on every switch (beside
    // what the switches had), with headroom for it on every port; a fabric without PFC
    // (no lossless class) stays so.
    for (const Ptr<RoceSwitch>& sw : m_cluster.network.switchObjects)
    {
        UintegerValue lossless;
        sw->GetMmu()->GetAttribute("LosslessPriorities", lossless);
        if (lossless.Get() == 0)
        {
            continue;
        }
        const uint32_t merged = static_cast<uint32_t>(lossless.Get()) | mask;
        if (merged != lossless.Get())
        {
            NS_LOG_INFO("switch " << sw << ": lossless priorities " << lossless.Get() << " -> "
                                  << merged);
            sw->GetMmu()->SetAttribute("LosslessPriorities", UintegerValue(merged));
            sw->ReconfigureBuffers();
        }
    }
}

bool
TrainingSimulation::PlanJobs(std::string* error)
{
    // A topology file says how many servers and GPUs there are.
    return CheckRunSettings(error) && CheckJobSettings(error) &&
           (m_scenario.topology != "file" || ReadTopologyFile(error)) && LoadJobs(error);
}

bool
TrainingSimulation::RunJobsAlone(const TrainingScenario& scenario,
                                 bool progress,
                                 std::vector<AloneRun>& runs,
                                 std::string* error)
{
    runs.clear();
    std::vector<JobSpec> placed;
    {
        TrainingSimulation plan(scenario);
        if (!plan.ApplyGlobalSettings(error) || !plan.PlanJobs(error))
        {
            return false;
        }
        for (const Job& job : plan.GetJobs())
        {
            if (job.spec.arrives)
            {
                continue; // placed where it arrives: no run alone
            }
            JobSpec spec = job.spec;
            spec.gpus = static_cast<uint32_t>(job.gpus.size());
            spec.fixedGpus = job.gpus;
            placed.push_back(spec);
        }
    }
    for (const JobSpec& spec : placed)
    {
        TrainingScenario alone = scenario;
        alone.jobs = {spec};
        alone.arrivals = JobArrivals();
        alone.pcapPrefix.clear();
        NS_LOG_INFO("job " << spec.name << " alone on " << spec.fixedGpus.size() << " GPUs");
        AloneRun run;
        {
            TrainingSimulation sim(alone);
            if (!sim.ApplyGlobalSettings(error) || !sim.Build(error))
            {
                return false;
            }
            if (progress)
            {
                std::fprintf(stderr, "[ai-fabric] job %s alone on its GPUs\n", spec.name.c_str());
            }
            sim.Run(progress);
            if (!sim.GetRunError().empty())
            {
                *error = sim.GetRunError();
                return false;
            }
            const Ptr<WorkloadRunner> runner = sim.GetRunner();
            if (!runner->IsFinished())
            {
                *error = spec.place + ": the job did not finish alone" +
                         (sim.IsStuck() ? ": " + sim.GetStuckReport() : std::string());
                return false;
            }
            run.iterations =
                WorkloadRunner::GetIterationTimes(runner->GetBreakdown(), runner->GetNIterations());
            for (const Flow& f : sim.GetFlows())
            {
                run.network.emplace_back(f.start - spec.start, f.end - spec.start);
            }
            run.network = MergeIntervals(run.network);
            runner->Dispose();
        }
        Simulator::Destroy();
        runs.push_back(run);
    }
    return true;
}

uint64_t
TrainingSimulation::JobProgress(const Job& job) const
{
    uint64_t p = 0;
    std::set<uint32_t> servers;
    for (uint32_t g : job.gpus)
    {
        p += m_cluster.network.nics[g]->GetDevice()->GetTxBytes();
        servers.insert(m_world.GetServer(g));
    }
    for (uint32_t server : servers)
    {
        if (server < m_cluster.nvSwitches.size())
        {
            p += m_cluster.nvSwitches[server]->GetChunksDelivered();
        }
    }
    if (const Ptr<FlowTransport> flows = DynamicCast<FlowTransport>(m_cluster.scaleOut))
    {
        // No frames: every job's flows' bytes (a job that stops is found once the others
        // are done).
        p += static_cast<uint64_t>(flows->GetNetwork()->GetBytesSent());
    }
    return p;
}

} // namespace ns3
