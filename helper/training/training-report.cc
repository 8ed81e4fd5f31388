// SPDX-License-Identifier: GPL-2.0-only
#include "training-report.h"

#include "fct-report.h"
#include "job-link-share.h"
#include "report-files.h"
#include "training-report-json.h"

#include "ns3/boolean.h"
#include "ns3/flow-transport.h"
#include "ns3/ina-transport.h"
#include "ns3/parameter-server-sync.h"
#include "ns3/program-options.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>

namespace ns3
{

using namespace training_report;

namespace
{
std::string
Bytes(uint64_t b)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(1);
    if (b >= (1ull << 30))
    {
        os << b / double(1ull << 30) << " GiB";
    }
    else if (b >= (1ull << 20))
    {
        os << b / double(1ull << 20) << " MiB";
    }
    else if (b >= 1024)
    {
        os << b / 1024.0 << " KiB";
    }
    else
    {
        os << b << " B";
    }
    return os.str();
}

/// \param s a scenario \return its congestion control as the run uses it
std::string
CongestionControlName(const TrainingScenario& s)
{
    return s.fabricModel == "flow" ? "no congestion control (flow level)" : s.congestionControl;
}

} // namespace

TrainingReport::TrainingReport(const TrainingSimulation& sim, uint32_t job)
    : m_sim(sim),
      m_job(job),
      m_breakdown(sim.GetJobs().at(job).runner ? sim.GetJobs()[job].runner->GetBreakdown()
                                               : std::vector<IterationBreakdown>())
{
}

const TrainingSimulation::Job&
TrainingReport::GetJob() const
{
    return m_sim.GetJobs()[m_job];
}

void
TrainingReport::SetAlone(const std::vector<std::vector<Time>>& iterationTimes)
{
    m_alone = iterationTimes;
}

void
TrainingReport::SetInterleave(const std::vector<Time>& shifts, const std::vector<Time>& asGiven)
{
    m_shifts = shifts;
    m_asGiven = asGiven;
}

std::vector<double>
TrainingReport::GetSlowdowns() const
{
    std::vector<double> slowdowns(m_sim.GetJobs().size(), 0.0);
    for (uint32_t j = 0; j < slowdowns.size() && j < m_alone.size(); ++j)
    {
        const Time shared = MeanTime(TrainingReport(m_sim, j).GetIterationTimes());
        const Time alone = MeanTime(m_alone[j]);
        const Ptr<WorkloadRunner> runner = m_sim.GetJobs()[j].runner;
        if (runner && runner->IsFinished() && alone.IsStrictlyPositive())
        {
            slowdowns[j] = shared.GetSeconds() / alone.GetSeconds();
        }
    }
    return slowdowns;
}

std::vector<Time>
TrainingReport::GetIterationTimes() const
{
    return GetJob().runner
               ? WorkloadRunner::GetIterationTimes(m_breakdown, GetJob().runner->GetNIterations())
               : std::vector<Time>();
}

void
TrainingReport::PrintSummary(std::ostream& os) const
{
    os << std::fixed;
    PrintOverview(os);
    if (m_sim.HasJobs())
    {
        PrintJobs(os);
    }
    else
    {
        PrintIterationTable(os);
        PrintStragglers(os);
        PrintCommunication(os);
    }
    PrintFabric(os);
    PrintBackground(os);
    PrintInaUsage(os);
    os << std::defaultfloat;
}

void
TrainingReport::PrintStragglers(std::ostream& os) const
{
    if (m_sim.GetScenario().stragglers.slow.empty())
    {
        return; // no walk of the critical paths for a run without slow GPUs
    }
    const auto costs = StragglerCosts(m_sim, m_sim.GetRunner()->GetCriticalPaths());
    os << "\n  stragglers: their compute on the critical path, and what the slowdown added "
          "(mean per iteration)\n"
       << "  rank   factor   on path (ms)   cost (ms)\n";
    for (const StragglerCost& c : costs)
    {
        os << std::setw(6) << c.rank << std::setw(9) << std::setprecision(2) << c.factor
           << std::setw(15) << std::setprecision(3) << Ms(c.onPath) << std::setw(12) << Ms(c.cost)
           << "\n";
    }
}

void
TrainingReport::PrintOverview(std::ostream& os) const
{
    const TrainingScenario& s = m_sim.GetScenario();
    os << "ai-fabric training simulation\n";
    os << "  scenario : " << s.name << " (" << s.source << ")\n";
    Time end;
    for (const TrainingSimulation::Job& job : m_sim.GetJobs())
    {
        const TrainingTrace& trace = job.workload.GetTrace();
        end = job.runner ? std::max(end, job.runner->GetEndTime()) : end;
        if (job.spec.arrives)
        {
            continue; // in the arrivals' line and table
        }
        if (m_sim.HasJobs())
        {
            os << "  job      : " << job.spec.name << ": " << trace.GetName() << " ("
               << job.workload.GetNote() << "), " << trace.GetNRanks() << " ranks on "
               << DescribeGpus(job.gpus, s.gpusPerServer) << " (" << job.spec.PlacementToString()
               << "), " << job.runner->GetNIterations() << " iteration(s) from "
               << std::setprecision(3) << Ms(job.spec.start) << " ms, traffic class "
               << int(job.spec.trafficClass) << "\n";
        }
        else
        {
            os << "  workload : " << trace.GetName() << "\n"
               << "             " << job.workload.GetNote() << ": " << trace.GetNRanks() << " ranks"
               << (trace.GetNCpuRanks() > 0
                       ? " (the last " + ParameterServerSync::CountCpuHosts(trace.GetNCpuRanks()) +
                             ")"
                       : "")
               << ", " << trace.GetNOps() << " ops in the trace, " << job.runner->GetNIterations()
               << " iteration(s)\n";
        }
        for (const CompressionEffect& e : job.workload.GetCompression())
        {
            os << "             compressed " << GradientCompression::RuleToString(e.rule) << ": "
               << e.ops << " collective ops, " << std::setprecision(4)
               << static_cast<double>(e.bytesBefore) / 1e9 << " -> "
               << static_cast<double>(e.bytesAfter) / 1e9 << " GB (all ranks), encode/decode "
               << Ms(e.kernels) << " ms of GPU time per pass of the trace\n";
        }
    }
    const StragglerSettings& st = s.stragglers;
    for (const auto& slow : st.slow)
    {
        os << "             straggler: rank" << (slow.first == slow.last ? " " : "s ") << slow.first
           << (slow.first == slow.last ? "" : "-" + std::to_string(slow.last)) << " compute x "
           << std::setprecision(3) << slow.factor << "\n";
    }
    for (const auto& nic : st.nics)
    {
        os << "             slow NIC: rank " << nic.rank << " at " << std::setprecision(1)
           << nic.rate.GetBitRate() / 1e9 << " Gb/s\n";
    }
    if (!st.jitter.empty())
    {
        os << "             compute jitter: " << st.jitter << " per op (seed " << s.seed << ")\n";
    }
    for (const auto& f : st.failures)
    {
        os << "             failure: the GPU of rank " << f.rank << " at " << std::setprecision(3)
           << Ms(f.at) << " ms\n";
    }
    if (!st.restartDelay.IsNegative())
    {
        os << "             restart: " << std::setprecision(3) << Ms(st.restartDelay)
           << " ms after a failure, every rank from the last iteration all completed\n";
    }
    for (const TrainingSimulation::Job& job : m_sim.GetJobs())
    {
        for (const WorkloadRunner::Restart& r :
             job.runner ? job.runner->GetRestarts() : std::vector<WorkloadRunner::Restart>())
        {
            os << "             restarted: rank " << r.rank << " failed at " << std::setprecision(3)
               << Ms(r.failedAt) << " ms, every rank again at " << Ms(r.restartedAt)
               << " ms from iteration " << r.fromIteration << "\n";
        }
    }
    if (const JobArrivals& a = s.arrivals; !a.mix.empty())
    {
        const auto n =
            std::count_if(m_sim.GetJobs().begin(),
                          m_sim.GetJobs().end(),
                          [](const TrainingSimulation::Job& j) { return j.spec.arrives; });
        os << "  arrivals : " << n << " jobs in " << std::setprecision(3) << Ms(a.window)
           << " ms (Poisson, mean gap " << Ms(a.meanInterarrival) << " ms, seed " << s.seed
           << ") of";
        for (const JobArrivals::Kind& k : a.mix)
        {
            os << " " << k.job.name << " (" << std::setprecision(2) << k.probability << ")";
        }
        os << "; placed first fit as they arrive, queued in arrival order\n";
    }
    if (s.topology == "ideal")
    {
        std::ostringstream carrier; // the stream's fixed precision is for the tables
        carrier << s.idealRate.GetBitRate() / 1e9 << " Gb/s per rank, " << Us(s.idealLatency)
                << " us per message";
        os << "  cluster  : " << s.servers << " x " << s.gpusPerServer
           << " GPUs on an ideal carrier (" << carrier.str() << ")\n";
    }
    else if (s.topology == "file")
    {
        os << "  cluster  : " << s.servers << " servers x " << s.gpusPerServer << " " << s.gpu
           << " on NVSwitch, one NIC per GPU on the fabric of " << s.topologyFile << ", "
           << CongestionControlName(s) << "\n";
    }
    else
    {
        os << "  cluster  : " << s.servers << " servers x " << s.gpusPerServer << " " << s.gpu
           << " on NVSwitch, one " << std::setprecision(0) << s.nicRate.GetBitRate() / 1e9
           << " Gb/s NIC per GPU, rail-optimized"
           << (s.pods > 1 ? " in " + std::to_string(s.pods) + " pods" : "") << ", " << s.spines
           << " spines, " << std::setprecision(1) << s.oversubscription << ":1, "
           << CongestionControlName(s) << "\n";
    }
    if (s.topology != "ideal")
    {
        os << "  fabric   : "
           << (s.fabricModel == "flow" ? std::string("flow-level (") + s.fabricModelPlace +
                                             "): " + FlowTransport::APPROXIMATION
                                       : std::string("packets (every frame: the reference)"))
           << "\n";
    }
    if (const uint32_t cpu = m_sim.GetWorld().GetSize() - s.GetNGpus(); cpu > 0)
    {
        os << "             " << ParameterServerSync::CountCpuHosts(cpu)
           << " (dedicated parameter servers)"
           << (s.topology == "ideal" ? " on the carrier"
                                     : ", one NIC each, on a leaf of their own cabled to every "
                                       "spine")
           << "\n";
    }
    if (const uint32_t k = EngineRingTransfersPerPhase(m_sim); k > 0)
    {
        os << "             rings coarsened: at most " << k
           << " transfers per connection and phase, each carrying consecutive steps and "
              "their latencies\n";
    }
    if (const auto [qps, split] = CarrierQps(m_sim); qps > 1)
    {
        os << "             " << qps << " queue pairs per RDMA connection"
           << (split ? ", every transfer split over them"
                     : ", requests of NCCL's size taking them in turn")
           << "\n";
    }
    os << std::setprecision(3) << "  run      : simulated " << Ms(end) << " ms in "
       << std::setprecision(1) << m_sim.GetWallSeconds() << " s wall (" << std::setprecision(2)
       << m_sim.GetEvents() / 1e6 << " M events, " << ProgramOptions::GetSchedulerType() << ", "
       << ProgramOptions::GetAllocator() << ")\n";
    if (s.topology != "ideal")
    {
        // Where the events went: frames simulated on the RoCE links, NVLink chunks.
        const Json fabric = FabricJson(m_sim);
        const Json ff = FastForwardJson(m_sim);
        // NVLink chunks of replayed calls, in millions (0: none, or no replay)
        const double replayed =
            ff.contains("nvswitch_call_replay")
                ? ff["nvswitch_call_replay"]["replayed_chunks"].get<uint64_t>() / 1e6
                : 0;
        if (fabric.contains("flow_level"))
        {
            const Json& f = fabric["flow_level"];
            os << "  work     : " << f["messages"].get<uint64_t>() << " flow messages on "
               << f["flows"].get<uint64_t>() << " flows, " << f["allocations"].get<uint64_t>()
               << " rate allocations (" << f["flows_allocated"].get<uint64_t>()
               << " flow rates computed, " << f["rates_changed"].get<uint64_t>() << " changed); "
               << std::setprecision(2) << fabric["nvlink_chunks"].get<uint64_t>() / 1e6
               << " M NVLink chunks";
            if (ff.contains("nvswitch_call_replay"))
            {
                os << " (" << replayed << " M replayed)";
            }
            os << "\n";
        }
        else if (fabric.contains("link_frames"))
        {
            const auto frames = fabric["link_frames"].get<uint64_t>();
            const auto skipped = fabric["link_frames_skipped"].get<uint64_t>();
            os << "  work     : " << std::setprecision(2) << (frames - skipped) / 1e6
               << " M packet-hops simulated, " << skipped / 1e6 << " M skipped; "
               << fabric["nvlink_chunks"].get<uint64_t>() / 1e6 << " M NVLink chunks";
            if (ff.contains("nvlink_skipped_chunks"))
            {
                os << " (" << ff["nvlink_skipped_chunks"].get<uint64_t>() / 1e6 << " M skipped";
                if (ff.contains("nvswitch_call_replay"))
                {
                    os << ", " << replayed << " M replayed";
                }
                os << ")";
            }
            os << "\n";
        }
        os << "  fast-fwd : " << ff["status"].get<std::string>();
        if (ff.contains("skipped_fraction"))
        {
            os << ", " << std::setprecision(1) << 100 * ff["skipped_fraction"].get<double>()
               << " % of the RDMA bytes skipped (" << ff["skips"].get<uint64_t>() << " skips, "
               << ff["interrupted_skips"].get<uint64_t>() << " interrupted)";
        }
        else if (ff["status"] == "off")
        {
            os << " (the packet reference)";
        }
        if (ff.contains("nvswitch_call_replay"))
        {
            const Json& r = ff["nvswitch_call_replay"];
            os << "; NVSwitch calls: " << r["replayed_calls"].get<uint64_t>() << " replayed, "
               << r["recorded_calls"].get<uint64_t>() << " recorded, "
               << r["overlaps"].get<uint64_t>() << " overlaps";
        }
        os << "\n";
    }
    if (m_sim.IsStuck())
    {
        os << "\n  STUCK: " << m_sim.GetStuckReport() << "\n";
    }
}

void
TrainingReport::PrintIterationTable(std::ostream& os) const
{
    os << "\n  iteration   time (ms)   compute (ms)   exposed comm (ms)   idle (ms)\n";
    const std::vector<Time> times = GetIterationTimes();
    for (uint32_t it = 0; it < times.size(); ++it)
    {
        Time c;
        Time e;
        Time i;
        uint32_t n = 0;
        for (const auto& b : m_breakdown)
        {
            if (b.iteration == it)
            {
                c += b.compute;
                e += b.exposedComm;
                i += b.idle;
                ++n;
            }
        }
        n = std::max(n, 1u);
        os << "  " << std::setw(9) << it << std::setprecision(3) << std::setw(12) << Ms(times[it])
           << std::setw(15) << Ms(c) / n << std::setw(20) << Ms(e) / n << std::setw(12) << Ms(i) / n
           << "\n";
    }
    os << "  (time: slowest rank; breakdown: mean over ranks)\n";
}

void
TrainingReport::PrintCommunication(std::ostream& os) const
{
    os << "\n  communication by total time\n"
       << "  collective      group    algorithm         protocol   calls  mean size   mean (us)   "
          "busbw (GB/s)\n";
    const auto summary = Summarize(GetJob());
    bool chosen = false;
    for (size_t k = 0; k < summary.size() && k < 10; ++k)
    {
        const CallSummary& c = summary[k];
        const bool byAuto = c.requested == AUTO_ALGORITHM_NAME;
        chosen = chosen || byAuto;
        os << "  " << std::left << std::setw(16) << c.kind << std::setw(9) << c.groupKind
           << std::setw(18) << (c.algorithm + (byAuto ? "*" : "")) << std::setw(8) << c.protocol
           << std::right << std::setw(7) << c.calls << std::setw(13) << Bytes(c.bytes)
           << std::setprecision(1) << std::setw(12) << Us(c.total) / c.calls << std::setw(15)
           << c.busBwSum / c.calls / 1e9 << "\n";
    }
    if (chosen)
    {
        const CollectiveEngine::PlanCacheStats stats =
            GetJob().runner->GetEngine()->GetPlanCacheStats();
        os << "  (* chosen by auto: the fastest algorithm and protocol by the cost model; "
           << stats.choicesEstimated << " choices estimated, " << stats.choicesShared
           << " taken from a group of the same shape)\n";
    }
}

void
TrainingReport::PrintJobs(std::ostream& os) const
{
    const auto& jobs = m_sim.GetJobs();
    for (uint32_t j = 0; j < jobs.size(); ++j)
    {
        if (jobs[j].spec.arrives)
        {
            continue; // the arrivals' table
        }
        os << "\n  job " << jobs[j].spec.name << "\n";
        const TrainingReport job(m_sim, j);
        job.PrintIterationTable(os);
        job.PrintCommunication(os);
    }
    const std::vector<double> slowdowns = GetSlowdowns();
    if (!m_sim.GetScenario().jobs.empty())
    {
        PrintJobTable(os, slowdowns);
    }
    PrintArrivals(os);
    PrintLinkShares(os);
}

void
TrainingReport::PrintJobTable(std::ostream& os, const std::vector<double>& slowdowns) const
{
    const auto& jobs = m_sim.GetJobs();
    os << "\n  jobs: mean iteration shared, and alone on the same GPUs\n"
       << "  job            GPUs   iterations   shared (ms)   alone (ms)   slowdown\n";
    for (uint32_t j = 0; j < jobs.size(); ++j)
    {
        if (jobs[j].spec.arrives)
        {
            continue;
        }
        const std::vector<Time> times = TrainingReport(m_sim, j).GetIterationTimes();
        os << "  " << std::left << std::setw(14) << jobs[j].spec.name << std::right << std::setw(5)
           << jobs[j].gpus.size() << std::setw(13) << times.size() << std::setprecision(3)
           << std::setw(14) << Ms(MeanTime(times));
        if (j < m_alone.size() && !m_alone[j].empty())
        {
            os << std::setw(13) << Ms(MeanTime(m_alone[j]));
            if (slowdowns[j] > 0)
            {
                os << std::setw(10) << std::setprecision(4) << slowdowns[j] << "x";
            }
        }
        else
        {
            os << std::setw(13) << "-";
        }
        os << "\n";
    }
    if (m_alone.empty())
    {
        os << "  (alone: not run, --alone=false)\n";
    }
    if (m_shifts.empty())
    {
        return;
    }
    os << "\n  interleaved: each job started later by the shift that least overlaps its network "
          "phases (alone) with the jobs' before it (CASSINI-like)\n"
       << "  job            shift (ms)   as given (ms)   shifted (ms)   change\n";
    for (uint32_t j = 0; j < jobs.size() && j < m_shifts.size(); ++j)
    {
        const Time shifted = MeanTime(TrainingReport(m_sim, j).GetIterationTimes());
        os << "  " << std::left << std::setw(14) << jobs[j].spec.name << std::right
           << std::setprecision(3) << std::setw(11) << Ms(m_shifts[j]) << std::setw(16)
           << Ms(m_asGiven[j]) << std::setw(15) << Ms(shifted) << std::setw(8)
           << std::setprecision(1) << 100 * (shifted.GetSeconds() / m_asGiven[j].GetSeconds() - 1)
           << "%\n";
    }
}

void
TrainingReport::PrintLinkShares(std::ostream& os) const
{
    const auto& jobs = m_sim.GetJobs();
    const std::vector<JobLinkShare> shares = ShareLinksByJob(m_sim);
    if (shares.empty())
    {
        return; // the ideal carrier has no links
    }
    const auto shared = std::count_if(shares.begin(), shares.end(), [](const JobLinkShare& s) {
        return s.jobs > 1;
    });
    os << "\n  links the jobs crossed: " << shares.size() << ", " << shared
       << " of them by several jobs"
       << "; the busiest (RDMA payload per job, ECMP routes as the switches chose them)\n"
       << "  link                  class         total      peak   jobs\n";
    for (size_t k = 0; k < shares.size() && k < 10; ++k)
    {
        const JobLinkShare& s = shares[k];
        os << "  " << std::left << std::setw(22) << (s.link->from + "->" + s.link->to)
           << std::setw(12) << s.link->cls << std::right << std::setw(11) << Bytes(s.link->bytes)
           << std::setw(9) << std::setprecision(0) << 100 * s.link->peakUtilisation << "%   ";
        for (uint32_t j = 0; j < s.jobBytes.size(); ++j)
        {
            if (s.jobBytes[j] > 0)
            {
                os << jobs[j].spec.name << " " << Bytes(s.jobBytes[j]) << "  ";
            }
        }
        os << (s.jobs > 1 ? "SHARED" : "") << "\n";
    }
}

void
TrainingReport::PrintArrivals(std::ostream& os) const
{
    const JobCompletion c = JobCompletionOf(m_sim);
    if (c.arrived == 0)
    {
        return;
    }
    os << "\n  arrivals: per job, when it arrived, waited for GPUs and completed (JCT: arrival "
          "to end)\n"
       << "  job              GPUs   arrival (ms)   queued (ms)   JCT (ms)   GPUs held\n";
    for (const TrainingSimulation::Job& job : m_sim.GetJobs())
    {
        if (!job.spec.arrives)
        {
            continue;
        }
        os << "  " << std::left << std::setw(16) << job.spec.name << std::right << std::setw(5)
           << job.spec.gpus << std::setprecision(3) << std::setw(15) << Ms(job.spec.start);
        if (!job.runner)
        {
            os << "   never placed\n";
            continue;
        }
        os << std::setw(14) << Ms(job.placed - job.spec.start) << std::setw(11)
           << (job.runner->IsFinished() ? Ms(job.runner->GetEndTime() - job.spec.start) : -1.0)
           << "   " << DescribeGpus(job.gpus, m_sim.GetScenario().gpusPerServer) << "\n";
    }
    os << "  " << c.finished << " of " << c.arrived << " finished; JCT mean "
       << std::setprecision(3) << c.meanJct * 1e3 << " ms, median " << c.p50Jct * 1e3 << ", p95 "
       << c.p95Jct * 1e3 << ", max " << c.maxJct * 1e3 << "; queued " << c.meanQueued * 1e3
       << " ms on average; GPUs held " << std::setprecision(1) << 100 * c.utilisation
       << " % of the run (utilisation.png)\n";
}

void
TrainingReport::PrintFabric(std::ostream& os) const
{
    const TrainingScenario& s = m_sim.GetScenario();
    if (const auto flows = DynamicCast<FlowTransport>(m_sim.GetCluster().scaleOut))
    {
        os << "\n  fabric   : flow level: " << Bytes(flows->GetBytesDelivered()) << " delivered by "
           << flows->GetNetwork()->GetNFlows()
           << " flows; no frames, so no link samples, pauses, marks or queues\n";
    }
    if (Ptr<FabricMonitor> mon = m_sim.GetMonitor())
    {
        uint64_t nicBytes = 0;
        double peak = 0;
        uint32_t maxQueue = 0;
        for (const auto& l : mon->GetLinks())
        {
            nicBytes += l.cls == "nic-up" ? l.bytes : 0;
            peak = std::max(peak, l.peakUtilisation);
            maxQueue = std::max(maxQueue, l.maxQueueBytes);
        }
        os << "\n  fabric   : " << Bytes(nicBytes) << " sent by NICs, peak link utilisation "
           << std::setprecision(0) << peak * 100 << "% (per " << Us(s.sampleInterval)
           << " us), PFC pauses " << m_sim.GetPfcPauses() << ", ECN marks " << m_sim.GetEcnMarks()
           << ", drops " << m_sim.GetDrops() << ", largest queue " << Bytes(maxQueue) << "\n";
        for (const auto& d : m_sim.GetPfcDeadlocks())
        {
            os << "  PFC DEADLOCK: formed by " << Us(d.formedAt) << " us, found at "
               << Us(d.detectedAt) << " us: " << d.Describe() << "\n";
        }
        for (const auto& ev : s.events)
        {
            os << "  link     : " << ev.a << "-" << ev.b << (ev.up ? " recovered" : " failed")
               << " at " << Us(ev.at) << " us, routes recomputed " << Us(ev.convergence)
               << " us later\n";
        }
    }
}

void
TrainingReport::PrintBackground(std::ostream& os) const
{
    const TrainingScenario& s = m_sim.GetScenario();
    if (Ptr<BackgroundTraffic> bg = m_sim.GetBackground())
    {
        const FctReport report(bg->GetFlows());
        os << "\n  background: " << report.GetFinished() << " flows (" << s.backgroundFlowSizes
           << " at " << s.backgroundLoad * 100 << " % load), FCT slowdown by flow size\n";
        report.PrintTable(os);
    }
}

void
TrainingReport::PrintInaUsage(std::ostream& os) const
{
    const TrainingScenario& s = m_sim.GetScenario();
    Ptr<InaTransport> ina = DynamicCast<InaTransport>(m_sim.GetCluster().scaleOut);
    if (ina)
    {
        // Per aggregation job (a member set that asked for one): what it aggregated in
        // the network, what fallback hosts summed, and the bytes of the collectives of
        // the kinds INA runs that ran elsewhere (on hosts or an NVSwitch: refused, slower,
        // or within one server).
        os << "\n  in-network aggregation (" << s.ina << "): per job, bytes per member\n"
           << "  job  members  switches  in network  aggregated  via fallback host\n";
        for (const auto& u : ina->GetJobUsage())
        {
            os << "  " << std::setw(3) << u.job->info.job << std::setw(9) << u.members.size()
               << std::setw(10) << u.job->switches.size() << std::setw(12)
               << (u.job->inNetwork ? "yes" : "no") << std::setw(12) << Bytes(u.bytesInNetwork)
               << std::setw(19) << Bytes(u.bytesViaFallbackHost)
               << (u.job->inNetwork ? "" : "  (" + u.job->reason + ")") << "\n";
        }
        uint64_t inNetwork = 0;
        uint64_t onHosts = 0;
        for (const TrainingSimulation::Job& job : m_sim.GetJobs())
        {
            // Every job's calls: the pools are the cluster's.
            if (!job.runner)
            {
                continue;
            }
            for (const auto& c : job.runner->GetCalls())
            {
                if (!IsCollectiveAlgorithmSupported(c.type, CollectiveAlgorithm::INA, 2) ||
                    !c.finished)
                {
                    continue;
                }
                const bool aggregated =
                    c.algorithm == CollectiveAlgorithmToString(CollectiveAlgorithm::INA) ||
                    c.algorithm == CollectiveAlgorithmToString(CollectiveAlgorithm::NVLS_INA);
                (aggregated ? inNetwork : onHosts) += c.bytes;
            }
        }
        os << "  reducing and gathering calls: " << Bytes(inNetwork)
           << " in the network (ina, nvls-ina), " << Bytes(onHosts)
           << " on other algorithms (hosts, NVLS; per call, summed)\n";
    }
}

} // namespace ns3
