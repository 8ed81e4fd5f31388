// SPDX-License-Identifier: GPL-2.0-only
// TrainingSimulation: several jobs on one cluster (the scenario's "jobs").
#include "training-simulation.h"

#include "ns3/log.h"
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

bool
TrainingSimulation::CheckJobSettings(std::string* error) const
{
    const TrainingScenario& s = m_scenario;
    const StragglerSettings& st = s.stragglers;
    // Slow NICs are the cluster's (GPU indices); slow GPUs, jitter and failures are the
    // runner's, and their report walks one job's critical paths.
    std::string place = !st.slow.empty()       ? st.slow.front().place
                        : !st.failures.empty() ? st.failures.front().place
                        : !st.jitter.empty()   ? st.jitterPlace
                                               : "";
    if (!place.empty())
    {
        *error = place + ": slow GPUs, compute jitter and GPU failures apply to the scenario's "
                         "one workload, not to jobs (slow NICs do: their ranks are GPUs)";
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
        control = static_cast<uint8_t>(std::stoul(info.initialValue->SerializeToString(info.checker)));
    }
    for (const JobSpec& job : s.jobs)
    {
        if (s.topology != "ideal" && job.trafficClass == control)
        {
            *error = job.place + "/trafficClass: " + std::to_string(job.trafficClass) +
                     " is the NICs' ControlPriority (ACK, NAK, CNP): give the job another class";
            return false;
        }
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
        JobSpec& spec = specs[j];
        Job& job = m_jobs[j];
        // The job's workload, with the scenario's other settings (GPU, compression,
        // parameter servers).
        TrainingScenario js = s;
        js.traceFormat = spec.traceFormat;
        js.traceFile = spec.traceFile;
        js.generator = spec.generator;
        js.traceRanks = spec.traceRanks ? spec.traceRanks : spec.gpus;
        js.computeScale = spec.computeScale;
        const bool foreign = js.traceFormat != "json" && js.traceFormat != "generator";
        if (foreign && js.traceRanks == 0)
        {
            *error = spec.place + ": a " + js.traceFormat +
                     " workload does not say how many ranks it has: give the job's \"gpus\"";
            return false;
        }
        if (!job.workload.Load(js, error))
        {
            *error = "job " + spec.name + ": " + *error;
            return false;
        }
        const uint32_t ranks = job.workload.GetTrace().GetNRanks();
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
        if (!spec.fixedGpus.empty() && spec.fixedGpus.size() != spec.gpus)
        {
            *error = spec.place + ": " + std::to_string(spec.fixedGpus.size()) +
                     " fixed GPUs for a job of " + std::to_string(spec.gpus);
            return false;
        }
        if (!job.workload.Adapt(js, spec.gpus, error))
        {
            *error = "job " + spec.name + ": " + *error;
            return false;
        }
    }
    std::vector<std::vector<uint32_t>> placed;
    if (!PlaceJobs(specs,
                   s.servers,
                   s.gpusPerServer,
                   s.topology == "rail-optimized" ? s.pods : 1,
                   s.seed,
                   placed,
                   error))
    {
        return false;
    }
    for (uint32_t j = 0; j < specs.size(); ++j)
    {
        m_jobs[j].spec = specs[j];
        // A job's ranks beyond its workload's (GPUs it holds but leaves idle) are not
        // replayed: its runner numbers the workload's ranks.
        const uint32_t ranks = m_jobs[j].workload.GetTrace().GetNRanks();
        m_jobs[j].gpus.assign(placed[j].begin(), placed[j].begin() + ranks);
        NS_LOG_INFO("job " << specs[j].name << ": " << ranks << " ranks on GPUs from "
                           << m_jobs[j].gpus.front() << ", class " << int(specs[j].trafficClass));
    }
    return true;
}

void
TrainingSimulation::ApplyTrafficClasses()
{
    uint32_t mask = 0;
    for (const Job& job : m_jobs)
    {
        for (uint32_t g : job.gpus)
        {
            m_cluster.network.nics[g]->SetAttribute("DataPriority",
                                                    UintegerValue(job.spec.trafficClass));
        }
        mask |= 1u << job.spec.trafficClass;
    }
    // PFC and ECN act per class: every job's class is lossless on every switch (beside
    // what the switches had), with headroom for it on every port.
    for (const Ptr<RoceSwitch>& sw : m_cluster.network.switchObjects)
    {
        UintegerValue lossless;
        sw->GetMmu()->GetAttribute("LosslessPriorities", lossless);
        const uint32_t merged = static_cast<uint32_t>(lossless.Get()) | mask;
        if (merged != lossless.Get())
        {
            NS_LOG_INFO("switch " << sw << ": lossless priorities "
                                  << lossless.Get() << " -> " << merged);
            sw->GetMmu()->SetAttribute("LosslessPriorities", UintegerValue(merged));
            sw->ReconfigureBuffers();
        }
    }
}

bool
TrainingSimulation::PlanJobs(std::string* error)
{
    return CheckRunSettings(error) && CheckJobSettings(error) && LoadJobs(error);
}

bool
TrainingSimulation::RunJobsAlone(const TrainingScenario& scenario,
                                 bool progress,
                                 std::vector<std::vector<Time>>& iterationTimes,
                                 std::string* error)
{
    iterationTimes.clear();
    std::vector<JobSpec> placed;
    {
        TrainingSimulation plan(scenario);
        if (!plan.ApplyGlobalSettings(error) || !plan.PlanJobs(error))
        {
            return false;
        }
        for (const Job& job : plan.GetJobs())
        {
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
        alone.pcapPrefix.clear();
        NS_LOG_INFO("job " << spec.name << " alone on " << spec.fixedGpus.size() << " GPUs");
        std::vector<Time> times;
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
            const Ptr<WorkloadRunner> runner = sim.GetRunner();
            if (!runner->IsFinished())
            {
                *error = spec.place + ": the job did not finish alone" +
                         (sim.IsStuck() ? ": " + sim.GetStuckReport() : std::string());
                return false;
            }
            times = WorkloadRunner::GetIterationTimes(runner->GetBreakdown(),
                                                      runner->GetNIterations());
            runner->Dispose();
        }
        Simulator::Destroy();
        iterationTimes.push_back(times);
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
    return p;
}

} // namespace ns3
