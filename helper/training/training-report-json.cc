// SPDX-License-Identifier: GPL-2.0-only
// The parts of results.json (and the helpers the summary shares with it).
#include "training-report-json.h"

#include "fct-report.h"
#include "job-link-share.h"

#include "ns3/boolean.h"
#include "ns3/flow-transport.h"
#include "ns3/ina-transport.h"
#include "ns3/parameter-server-sync.h"
#include "ns3/uinteger.h"

#include <map>

namespace ns3
{
namespace training_report
{

std::vector<CallSummary>
Summarize(const TrainingSimulation::Job& job)
{
    // Grouped by what a user asks about ("the TP all-reduces", "the DP buckets"); sizes
    // within a group are averaged.
    std::map<std::tuple<std::string, std::string, std::string, std::string, uint32_t, std::string>,
             CallSummary>
        by;
    for (const CallRecord& c : job.runner->GetCalls())
    {
        if (!c.finished)
        {
            continue; // a stuck run's calls have no end; the stuck report names them
        }
        const std::string kind =
            c.type == CollectiveType::SEND_RECV ? "send/recv" : CollectiveTypeToString(c.type);
        // Point to point: pipeline sends, or a parameter server's pushes and pulls.
        const std::string gk = !c.group.empty() ? job.workload.GetTrace().GetGroup(c.group).kind
                               : ParameterServerSync::IsPush(c.tag) ? "ps push"
                               : ParameterServerSync::IsPull(c.tag) ? "ps pull"
                                                                    : "pp";
        CallSummary& s = by[{kind, gk, c.algorithm, c.protocol, c.nRanks, c.requested}];
        s.kind = kind;
        s.groupKind = gk;
        s.algorithm = c.algorithm;
        s.protocol = c.protocol;
        s.requested = c.requested;
        s.bytes += c.bytes;
        s.ranks = c.nRanks;
        ++s.calls;
        s.total += c.end - c.launch;
        s.busBwSum += c.busBw;
    }
    std::vector<CallSummary> out;
    for (auto& [k, v] : by)
    {
        v.bytes /= v.calls; // mean size per call
        out.push_back(v);
    }
    std::sort(out.begin(), out.end(), [](const CallSummary& a, const CallSummary& b) {
        return a.total != b.total ? a.total > b.total : a.kind < b.kind;
    });
    return out;
}

std::string
DescribeGpus(const std::vector<uint32_t>& gpus, uint32_t gpusPerServer)
{
    std::vector<uint32_t> sorted = gpus;
    std::sort(sorted.begin(), sorted.end());
    std::vector<uint32_t> servers;
    for (uint32_t g : sorted)
    {
        if (servers.empty() || servers.back() != g / gpusPerServer)
        {
            servers.push_back(g / gpusPerServer);
        }
    }
    return "GPUs " + IndexRangesToString(sorted) + " (server" + (servers.size() > 1 ? "s " : " ") +
           IndexRangesToString(servers) + ")";
}

JobCompletion
JobCompletionOf(const TrainingSimulation& sim)
{
    JobCompletion c;
    std::vector<double> jct;
    uint32_t placed = 0;
    Time end;
    for (const TrainingSimulation::Job& job : sim.GetJobs())
    {
        end = job.runner ? std::max(end, job.runner->GetEndTime()) : end;
        if (!job.spec.arrives)
        {
            continue;
        }
        ++c.arrived;
        if (!job.runner)
        {
            continue;
        }
        ++placed;
        c.meanQueued += (job.placed - job.spec.start).GetSeconds();
        if (job.runner->IsFinished())
        {
            jct.push_back((job.runner->GetEndTime() - job.spec.start).GetSeconds());
        }
    }
    std::sort(jct.begin(), jct.end());
    c.finished = static_cast<uint32_t>(jct.size());
    c.meanQueued = placed ? c.meanQueued / placed : 0;
    for (double x : jct)
    {
        c.meanJct += x / static_cast<double>(jct.size());
    }
    c.p50Jct = NearestRankPercentile(jct, 0.5);
    c.p95Jct = NearestRankPercentile(jct, 0.95);
    c.maxJct = jct.empty() ? 0 : jct.back();
    // GPU-time held: the allocation steps up to the end of the run.
    const auto& steps = sim.GetAllocations();
    double held = 0;
    for (size_t k = 0; k < steps.size(); ++k)
    {
        const Time until = k + 1 < steps.size() ? steps[k + 1].at : end;
        held += steps[k].gpus * std::max(0.0, (until - steps[k].at).GetSeconds());
    }
    const double total = sim.GetScenario().GetNGpus() * end.GetSeconds();
    c.utilisation = total > 0 ? held / total : 0;
    return c;
}

Json
JobsJson(const TrainingSimulation& sim,
         const std::vector<std::vector<Time>>& alone,
         const std::vector<double>& slowdowns,
         const std::vector<Time>& shifts,
         const std::vector<Time>& asGiven)
{
    Json jobs = Json::array();
    for (uint32_t j = 0; j < sim.GetJobs().size(); ++j)
    {
        const TrainingSimulation::Job& job = sim.GetJobs()[j];
        const TrainingTrace& trace = job.workload.GetTrace();
        if (!job.runner)
        {
            jobs.push_back({{"name", job.spec.name},
                            {"arrives", true},
                            {"arrival_s", job.spec.start.GetSeconds()},
                            {"placed", false}});
            continue;
        }
        const std::vector<IterationBreakdown> breakdown = job.runner->GetBreakdown();
        const std::vector<Time> times =
            WorkloadRunner::GetIterationTimes(breakdown, job.runner->GetNIterations());
        Json workload = {{"name", trace.GetName()},
                         {"from", job.workload.GetNote()},
                         {"ranks", trace.GetNRanks()},
                         {"ops", trace.GetNOps()}};
        if (!job.workload.GetCompression().empty())
        {
            workload["compression"] = CompressionJson(job.workload.GetCompression());
        }
        Json j1 = {{"name", job.spec.name},
                   {"placement", job.spec.PlacementToString()},
                   {"gpus", job.gpus},
                   {"start_s", job.spec.start.GetSeconds()},
                   {"traffic_class", job.spec.trafficClass},
                   {"workload", workload},
                   {"finished", job.runner->IsFinished()},
                   {"stuck", job.runner->IsStuck()},
                   {"end_s", job.runner->GetEndTime().GetSeconds()},
                   {"mean_iteration_s", MeanTime(times).GetSeconds()},
                   {"iterations", IterationsJson(times, breakdown)},
                   {"communication", CommunicationJson(job)}};
        if (job.spec.arrives)
        {
            j1["arrives"] = true;
            j1["arrival_s"] = job.spec.start.GetSeconds();
            j1["placed_s"] = job.placed.GetSeconds();
            if (job.runner->IsFinished())
            {
                j1["jct_s"] = (job.runner->GetEndTime() - job.spec.start).GetSeconds();
            }
        }
        if (j < alone.size() && !alone[j].empty())
        {
            Json a = Json::array();
            for (const Time& x : alone[j])
            {
                a.push_back(x.GetSeconds());
            }
            j1["alone"] = {{"iterations_s", a},
                           {"mean_iteration_s", MeanTime(alone[j]).GetSeconds()}};
            if (j < slowdowns.size() && slowdowns[j] > 0)
            {
                j1["slowdown"] = slowdowns[j];
            }
        }
        if (j < shifts.size() && j < asGiven.size())
        {
            j1["interleave"] = {{"shift_s", shifts[j].GetSeconds()},
                                {"as_given_mean_iteration_s", asGiven[j].GetSeconds()}};
        }
        jobs.push_back(j1);
    }
    return jobs;
}

Json
ArrivalsJson(const TrainingSimulation& sim)
{
    const JobCompletion c = JobCompletionOf(sim);
    const JobArrivals& a = sim.GetScenario().arrivals;
    Json kinds = Json::array();
    for (const JobArrivals::Kind& k : a.mix)
    {
        kinds.push_back(
            {{"name", k.job.name}, {"gpus", k.job.gpus}, {"probability", k.probability}});
    }
    Json steps = Json::array();
    for (const TrainingSimulation::Allocation& s : sim.GetAllocations())
    {
        steps.push_back({{"at_s", s.at.GetSeconds()}, {"gpus", s.gpus}});
    }
    return {{"mean_interarrival_s", a.meanInterarrival.GetSeconds()},
            {"window_s", a.window.GetSeconds()},
            {"mix", kinds},
            {"placement", "first fit, queued in arrival order"},
            {"arrived", c.arrived},
            {"finished", c.finished},
            {"jct_mean_s", c.meanJct},
            {"jct_p50_s", c.p50Jct},
            {"jct_p95_s", c.p95Jct},
            {"jct_max_s", c.maxJct},
            {"queued_mean_s", c.meanQueued},
            {"utilisation", c.utilisation},
            {"gpus_held", steps}};
}

Json
JobLinksJson(const TrainingSimulation& sim)
{
    Json links = Json::array();
    for (const JobLinkShare& share : ShareLinksByJob(sim))
    {
        Json per = Json::object();
        for (uint32_t j = 0; j < share.jobBytes.size(); ++j)
        {
            if (share.jobBytes[j] > 0)
            {
                per[sim.GetJobs()[j].spec.name] = share.jobBytes[j];
            }
        }
        links.push_back({{"from", share.link->from},
                         {"to", share.link->to},
                         {"class", share.link->cls},
                         {"bytes", share.link->bytes},
                         {"peak_utilisation", share.link->peakUtilisation},
                         {"job_payload_bytes", per},
                         {"shared", share.jobs > 1}});
    }
    return links;
}

double
Us(Time t)
{
    return t.GetNanoSeconds() / 1e3;
}

double
Ms(Time t)
{
    return t.GetNanoSeconds() / 1e6;
}

/// text as one CSV field (RFC 4180: quoted when it holds a comma, quote or newline).
std::string
CsvField(const std::string& text)
{
    if (text.find_first_of(",\"\n\r") == std::string::npos)
    {
        return text;
    }
    std::string out = "\"";
    for (char c : text)
    {
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return out + "\"";
}

uint32_t
EngineRingTransfersPerPhase(const TrainingSimulation& sim)
{
    // Every job's engine is made with the attribute's default, which the scenario sets.
    for (const TrainingSimulation::Job& job : sim.GetJobs())
    {
        if (job.runner)
        {
            UintegerValue value;
            job.runner->GetEngine()->GetAttribute("RingTransfersPerPhase", value);
            return static_cast<uint32_t>(value.Get());
        }
    }
    return sim.GetScenario().GetRingTransfersPerPhase();
}

/// The RDMA carrier's queue pairs per connection and SplitDataOnQps ({0, false}: none).
std::pair<uint32_t, bool>
CarrierQps(const TrainingSimulation& sim)
{
    Ptr<RdmaTransport> rdma = sim.GetCluster().scaleOut;
    if (!rdma)
    {
        return {0, false};
    }
    UintegerValue qps;
    BooleanValue split;
    rdma->GetAttribute("QpsPerConnection", qps);
    rdma->GetAttribute("SplitDataOnQps", split);
    return {static_cast<uint32_t>(qps.Get()), split.Get()};
}

/// The scenario part of results JSON.
Json
ScenarioJson(const TrainingScenario& s)
{
    return {{"name", s.name},
            {"source", s.source},
            {"topology", s.topology},
            {"topologyFile", s.topologyFile},
            {"servers", s.servers},
            {"gpusPerServer", s.gpusPerServer},
            {"gpu", s.gpu},
            {"nicRate_bps", s.nicRate.GetBitRate()},
            {"spines", s.spines},
            {"pods", s.pods},
            {"oversubscription", s.oversubscription},
            {"congestionControl", s.congestionControl},
            {"ina", s.ina},
            {"parameterServers", s.parameterServers},
            {"seed", s.seed},
            {"iterations", s.iterations}};
}

Json
CompressionJson(const std::vector<CompressionEffect>& effects)
{
    Json rules = Json::array();
    for (const CompressionEffect& e : effects)
    {
        rules.push_back({{"rule", GradientCompression::RuleToString(e.rule)},
                         {"select", e.rule.select},
                         {"kind", e.rule.topk ? "topk" : "dense"},
                         {"value", e.rule.value},
                         {"ops", e.ops},
                         {"bytes_before", e.bytesBefore},
                         {"bytes_after", e.bytesAfter},
                         {"kernels_s", e.kernels.GetSeconds()}});
    }
    return rules;
}

std::vector<StragglerCost>
StragglerCosts(const TrainingSimulation& sim,
               const std::vector<WorkloadRunner::CriticalPath>& paths)
{
    const StragglerSettings& st = sim.GetScenario().stragglers;
    std::vector<StragglerCost> costs;
    for (uint32_t r = 0; r < sim.GetTrace().GetNRanks(); ++r)
    {
        const double f = st.FactorOf(r);
        if (f == 1.0)
        {
            continue;
        }
        StragglerCost c;
        c.rank = r;
        c.factor = f;
        for (const auto& p : paths)
        {
            c.onPath += p.compute[r];
        }
        if (!paths.empty())
        {
            c.onPath = c.onPath / static_cast<int64_t>(paths.size());
        }
        c.cost = Seconds(c.onPath.GetSeconds() * (1 - 1 / f));
        costs.push_back(c);
    }
    return costs;
}

Json
StragglersJson(const TrainingSimulation& sim)
{
    const StragglerSettings& st = sim.GetScenario().stragglers;
    const auto walked = sim.GetRunner()->GetCriticalPaths(); // one walk for both uses
    Json slow = Json::array();
    for (const StragglerCost& c : StragglerCosts(sim, walked))
    {
        slow.push_back({{"rank", c.rank},
                        {"factor", c.factor},
                        {"critical_compute_s", c.onPath.GetSeconds()},
                        {"cost_s", c.cost.GetSeconds()}});
    }
    Json failures = Json::array();
    for (const auto& [rank, at] : sim.GetRunner()->GetFailures())
    {
        failures.push_back({{"rank", rank}, {"at_s", at.GetSeconds()}});
    }
    Json paths = Json::array();
    for (const auto& p : walked)
    {
        paths.push_back({{"iteration", p.iteration},
                         {"start_s", p.start.GetSeconds()},
                         {"end_s", p.end.GetSeconds()},
                         {"communication_s", p.communication.GetSeconds()}});
    }
    Json nics = Json::array();
    for (const auto& n : st.nics)
    {
        nics.push_back({{"rank", n.rank}, {"rate_bps", n.rate.GetBitRate()}});
    }
    Json restarts = Json::array();
    for (const WorkloadRunner::Restart& r : sim.GetRunner()->GetRestarts())
    {
        restarts.push_back({{"rank", r.rank},
                            {"failed_s", r.failedAt.GetSeconds()},
                            {"restarted_s", r.restartedAt.GetSeconds()},
                            {"from_iteration", r.fromIteration}});
    }
    return {{"slow", slow},
            {"slow_nics", nics},
            {"jitter", st.jitter.empty() ? Json(nullptr) : Json(st.jitter)},
            {"failures", failures},
            {"restart_delay_s",
             st.restartDelay.IsNegative() ? Json(nullptr) : Json(st.restartDelay.GetSeconds())},
            {"restarts", restarts},
            {"critical_paths", paths}};
}

/// Per INA aggregation job, what it aggregated where (results JSON "ina_jobs").
Json
InaJobsJson(Ptr<InaTransport> ina)
{
    Json jobs = Json::array();
    for (const auto& u : ina->GetJobUsage())
    {
        jobs.push_back({{"job", u.job->info.job},
                        {"members", u.members},
                        {"switches", u.job->switches.size()},
                        {"in_network", u.job->inNetwork},
                        {"reason", u.job->reason},
                        {"bytes_in_network", u.bytesInNetwork},
                        {"bytes_via_fallback_host", u.bytesViaFallbackHost}});
    }
    return jobs;
}

/// Per iteration, its time and each rank's breakdown (results JSON "iterations").
Json
IterationsJson(const std::vector<Time>& times, const std::vector<IterationBreakdown>& breakdown)
{
    Json iterations = Json::array();
    for (uint32_t it = 0; it < times.size(); ++it)
    {
        Json ranks = Json::array();
        for (const auto& b : breakdown)
        {
            if (b.iteration == it)
            {
                ranks.push_back({{"rank", b.rank},
                                 {"total_s", b.GetTotal().GetSeconds()},
                                 {"compute_s", b.compute.GetSeconds()},
                                 {"exposed_comm_s", b.exposedComm.GetSeconds()},
                                 {"idle_s", b.idle.GetSeconds()}});
            }
        }
        iterations.push_back(
            {{"iteration", it}, {"time_s", times[it].GetSeconds()}, {"ranks", ranks}});
    }
    return iterations;
}

/// Collective calls grouped as in the summary (results JSON "communication").
Json
CommunicationJson(const TrainingSimulation::Job& job)
{
    Json calls = Json::array();
    for (const CallSummary& c : Summarize(job))
    {
        calls.push_back({{"collective", c.kind},
                         {"group_kind", c.groupKind},
                         {"algorithm", c.algorithm},
                         {"protocol", c.protocol},
                         {"requested", c.requested},
                         {"ranks", c.ranks},
                         {"mean_bytes", c.bytes},
                         {"calls", c.calls},
                         {"total_s", c.total.GetSeconds()},
                         {"mean_busbw_Bps", c.busBwSum / c.calls}});
    }
    return calls;
}

/// What the steady-state fast-forward did: its status, and when on what it skipped.
Json
FastForwardJson(const TrainingSimulation& sim)
{
    Ptr<FastForwardFeature> feature = sim.GetFastForward();
    Json j = {{"status", feature->GetStatus()}};
    if (Ptr<RdmaFastForward> ff = feature->GetFastForward())
    {
        j["skipped_fraction"] = sim.GetSkippedFraction();
        j["skipped_bytes"] = ff->GetSkippedPayloadBytes();
        j["rdma_bytes"] = sim.GetRdmaPayloadBytes();
        j["skipped_packets"] = ff->GetSkippedPackets();
        j["skips"] = ff->GetSkips();
        j["interrupted_skips"] = ff->GetInterruptedSkips();
        const NvlinkWork nvlink = GetNvlinkWork(sim.GetCluster());
        j["nvlink_skipped_chunks"] = nvlink.skippedChunks;
        j["nvlink_skips"] = nvlink.skips;
    }
    if (feature->ReplaysCalls())
    {
        CollectiveEngine::ReplayStats calls;
        for (const TrainingSimulation::Job& job : sim.GetJobs())
        {
            if (job.runner)
            {
                const CollectiveEngine::ReplayStats s = job.runner->GetEngine()->GetReplayStats();
                calls.recorded += s.recorded;
                calls.replayed += s.replayed;
                calls.voided += s.voided;
            }
        }
        const NvlinkWork nvlink = GetNvlinkWork(sim.GetCluster());
        j["nvswitch_call_replay"] = {
            {"recorded_calls", calls.recorded},
            {"replayed_calls", calls.replayed},
            {"voided_recordings", calls.voided},
            {"replayed_chunks", nvlink.replayedChunks},
            {"overlaps", nvlink.replayOverlaps},
            {"approximation",
             "a call over every GPU of one server's quiet NVSwitch, with nothing else posted "
             "there meanwhile, takes the time the same call took there before, its chunks "
             "counted, not simulated: exact but for overlaps (a transfer posted on a switch "
             "a replayed call holds) and the order of its end among other events of the "
             "same time step"}};
    }
    return j;
}

/// Fabric counters, switches, links and background flows (results JSON "fabric").
Json
FabricJson(const TrainingSimulation& sim)
{
    const TrainingScenario& s = sim.GetScenario();
    // Switches by the names links.csv and pfc.csv give them (sw<j>).
    std::map<uint32_t, std::string> switchName;
    const auto& switches = sim.GetCluster().network.switchObjects;
    for (uint32_t j = 0; j < switches.size(); ++j)
    {
        switchName[switches[j]->GetPort(0)->GetNode()->GetId()] = FabricMonitor::SwitchName(j);
    }
    Json deadlocks = Json::array();
    for (const auto& d : sim.GetPfcDeadlocks())
    {
        Json cycle = Json::array();
        for (const auto& q : d.cycle)
        {
            cycle.push_back({{"switch", switchName[q.node]},
                             {"node", q.node},
                             {"port", q.port},
                             {"priority", q.priority}});
        }
        deadlocks.push_back({{"formed_s", d.formedAt.GetSeconds()},
                             {"detected_s", d.detectedAt.GetSeconds()},
                             {"cycle", cycle}});
    }
    Json fabric = {{"pfc_pauses", sim.GetPfcPauses()},
                   {"ecn_marks", sim.GetEcnMarks()},
                   {"drops", sim.GetDrops()},
                   {"pfc_deadlocks", deadlocks},
                   {"inter_server_flows", sim.GetFlows().size()}};
    if (Ptr<FabricMonitor> mon = sim.GetMonitor())
    {
        Json switches = Json::array();
        for (const auto& [name, sw] : mon->GetSwitches())
        {
            switches.push_back({{"switch", name},
                                {"ecn_marks", sw->GetEcnMarks()},
                                {"pfc_pauses_sent", sw->GetPfcPausesSent()},
                                {"drops", sw->GetTotalDrops()},
                                {"max_queue_bytes", sw->GetMaxQueueBytes()}});
        }
        fabric["switches"] = switches;
        uint64_t bytes = 0;
        uint64_t frames = 0;
        uint64_t skipped = 0;
        double peak = 0;
        for (const auto& l : mon->GetLinks())
        {
            bytes += l.bytes;
            frames += l.frames;
            skipped += l.skippedFrames;
            peak = std::max(peak, l.peakUtilisation);
        }
        fabric["link_bytes"] = bytes;
        fabric["link_frames"] = frames;
        // Of those, the frames the fast-forward let through: the rest were simulated.
        fabric["link_frames_skipped"] = skipped;
        fabric["peak_link_utilisation"] = peak;
    }
    fabric["model"] = s.topology == "ideal" ? "ideal" : s.fabricModel;
    if (const Ptr<FlowTransport> flows = DynamicCast<FlowTransport>(sim.GetCluster().scaleOut))
    {
        const Ptr<FlowNetwork> net = flows->GetNetwork();
        fabric["flow_level"] = {{"approximation", FlowTransport::APPROXIMATION},
                                {"flows", net->GetNFlows()},
                                {"links", net->GetNLinks()},
                                {"messages", net->GetNMessagesSent()},
                                {"allocations", net->GetNAllocations()},
                                {"flows_allocated", net->GetNFlowsAllocated()},
                                {"rates_changed", net->GetNRatesChanged()},
                                {"payload_bytes", flows->GetBytesDelivered()}};
    }
    // The scale-up fabrics' unit of work (a chunk: three events or so), beside the frames.
    fabric["nvlink_chunks"] = GetNvlinkWork(sim.GetCluster()).chunks;
    if (Ptr<BackgroundTraffic> bg = sim.GetBackground())
    {
        Json rows = Json::array();
        const FctReport report(bg->GetFlows());
        for (const auto& r : report.ByBucket())
        {
            rows.push_back({{"bucket", r.label},
                            {"flows", r.flows},
                            {"p50", r.p50},
                            {"p95", r.p95},
                            {"p99", r.p99},
                            {"mean", r.mean}});
        }
        fabric["background"] = {{"flow_sizes", s.backgroundFlowSizes},
                                {"load", s.backgroundLoad},
                                {"flows", bg->GetFlows().size()},
                                {"finished", report.GetFinished()},
                                {"slowdown", rows}};
    }
    return fabric;
}

} // namespace training_report
} // namespace ns3
