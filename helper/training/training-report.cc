// SPDX-License-Identifier: GPL-2.0-only
#include "training-report.h"

#include "fct-report.h"
#include "report-files.h"

#include "ns3/boolean.h"
#include "ns3/ina-transport.h"
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

namespace
{
using Json = nlohmann::json;

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

/// Collective calls grouped by what they are (kind of group, type, size, algorithm).
struct CallSummary
{
    std::string kind;
    std::string groupKind;
    std::string algorithm;
    std::string protocol;  //!< NCCL protocol of the calls
    std::string requested; //!< what was asked ("auto" or a name)
    uint64_t bytes{0};
    uint32_t ranks{0};
    uint64_t calls{0};
    Time total;
    double busBwSum{0};
};

std::vector<CallSummary>
Summarize(const TrainingSimulation& sim)
{
    // Grouped by what a user asks about ("the TP all-reduces", "the DP buckets"); sizes
    // within a group are averaged.
    std::map<std::tuple<std::string, std::string, std::string, std::string, uint32_t, std::string>,
             CallSummary>
        by;
    for (const CallRecord& c : sim.GetRunner()->GetCalls())
    {
        if (!c.finished)
        {
            continue; // a stuck run's calls have no end; the stuck report names them
        }
        const std::string kind =
            c.type == CollectiveType::SEND_RECV ? "send/recv" : CollectiveTypeToString(c.type);
        const std::string gk = c.group.empty() ? "pp" : sim.GetTrace().GetGroup(c.group).kind;
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
            {"seed", s.seed},
            {"iterations", s.iterations}};
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
CommunicationJson(const TrainingSimulation& sim)
{
    Json calls = Json::array();
    for (const CallSummary& c : Summarize(sim))
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

} // namespace

TrainingReport::TrainingReport(const TrainingSimulation& sim)
    : m_sim(sim),
      m_breakdown(sim.GetRunner()->GetBreakdown())
{
}

std::vector<Time>
TrainingReport::GetIterationTimes() const
{
    std::vector<Time> t(m_sim.GetRunner()->GetNIterations(), Time());
    for (const auto& b : m_breakdown)
    {
        t[b.iteration] = std::max(t[b.iteration], b.GetTotal());
    }
    return t;
}

void
TrainingReport::PrintSummary(std::ostream& os) const
{
    os << std::fixed;
    PrintOverview(os);
    PrintIterationTable(os);
    PrintCommunication(os);
    PrintFabric(os);
    PrintBackground(os);
    PrintInaUsage(os);
    os << std::defaultfloat;
}

void
TrainingReport::PrintOverview(std::ostream& os) const
{
    const TrainingScenario& s = m_sim.GetScenario();
    const TrainingTrace& trace = m_sim.GetTrace();
    Ptr<WorkloadRunner> runner = m_sim.GetRunner();
    os << "ai-fabric training simulation\n";
    os << "  scenario : " << s.name << " (" << s.source << ")\n";
    os << "  workload : " << trace.GetName() << "\n"
       << "             " << m_sim.GetWorkloadNote() << ": " << trace.GetNRanks() << " ranks, "
       << trace.GetNOps() << " ops in the trace, " << runner->GetNIterations() << " iteration(s)\n";
    if (s.topology == "ideal")
    {
        os << "  cluster  : " << s.servers << " x " << s.gpusPerServer
           << " GPUs on an ideal carrier (" << s.idealRate.GetBitRate() / 1e9 << " Gb/s per rank, "
           << Us(s.idealLatency) << " us per message)\n";
    }
    else if (s.topology == "file")
    {
        os << "  cluster  : " << s.servers << " servers x " << s.gpusPerServer << " " << s.gpu
           << " on NVSwitch, one NIC per GPU on the fabric of " << s.topologyFile << ", "
           << s.congestionControl << "\n";
    }
    else
    {
        os << "  cluster  : " << s.servers << " servers x " << s.gpusPerServer << " " << s.gpu
           << " on NVSwitch, one " << std::setprecision(0) << s.nicRate.GetBitRate() / 1e9
           << " Gb/s NIC per GPU, rail-optimized"
           << (s.pods > 1 ? " in " + std::to_string(s.pods) + " pods" : "") << ", " << s.spines
           << " spines, " << std::setprecision(1) << s.oversubscription << ":1, "
           << s.congestionControl << "\n";
    }
    if (const auto [qps, split] = CarrierQps(m_sim); qps > 1)
    {
        os << "             " << qps << " queue pairs per RDMA connection"
           << (split ? ", every transfer split over them"
                     : ", requests of NCCL's size taking them in turn")
           << "\n";
    }
    os << std::setprecision(3) << "  run      : simulated " << Ms(runner->GetEndTime()) << " ms in "
       << std::setprecision(1) << m_sim.GetWallSeconds() << " s wall (" << std::setprecision(2)
       << m_sim.GetEvents() / 1e6 << " M events, " << ProgramOptions::GetSchedulerType() << ", "
       << ProgramOptions::GetAllocator() << ")\n";
    if (s.topology != "ideal")
    {
        // Where the events went: frames simulated on the RoCE links, NVLink chunks.
        const Json fabric = FabricJson(m_sim);
        const Json ff = FastForwardJson(m_sim);
        if (fabric.contains("link_frames"))
        {
            const auto frames = fabric["link_frames"].get<uint64_t>();
            const auto skipped = fabric["link_frames_skipped"].get<uint64_t>();
            os << "  work     : " << std::setprecision(2) << (frames - skipped) / 1e6
               << " M packet-hops simulated, " << skipped / 1e6 << " M skipped; "
               << fabric["nvlink_chunks"].get<uint64_t>() / 1e6 << " M NVLink chunks";
            if (ff.contains("nvlink_skipped_chunks"))
            {
                os << " (" << ff["nvlink_skipped_chunks"].get<uint64_t>() / 1e6 << " M skipped)";
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
        os << "\n";
    }
    if (runner->IsStuck())
    {
        os << "\n  STUCK: " << runner->GetStuckReport() << "\n";
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
       << "  collective      group  algorithm         protocol   calls  mean size   mean (us)   "
          "busbw (GB/s)\n";
    const auto summary = Summarize(m_sim);
    bool chosen = false;
    for (size_t k = 0; k < summary.size() && k < 10; ++k)
    {
        const CallSummary& c = summary[k];
        const bool byAuto = c.requested == AUTO_ALGORITHM_NAME;
        chosen = chosen || byAuto;
        os << "  " << std::left << std::setw(16) << c.kind << std::setw(7) << c.groupKind
           << std::setw(18) << (c.algorithm + (byAuto ? "*" : "")) << std::setw(8) << c.protocol
           << std::right << std::setw(7) << c.calls << std::setw(13) << Bytes(c.bytes)
           << std::setprecision(1) << std::setw(12) << Us(c.total) / c.calls << std::setw(15)
           << c.busBwSum / c.calls / 1e9 << "\n";
    }
    if (chosen)
    {
        os << "  (* chosen by auto: the fastest algorithm and protocol by the cost model)\n";
    }
}

void
TrainingReport::PrintFabric(std::ostream& os) const
{
    const TrainingScenario& s = m_sim.GetScenario();
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
    Ptr<WorkloadRunner> runner = m_sim.GetRunner();
    if (Ptr<InaTransport> ina = DynamicCast<InaTransport>(m_sim.GetCluster().scaleOut))
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
        for (const auto& c : runner->GetCalls())
        {
            if (!IsCollectiveAlgorithmSupported(c.type, CollectiveAlgorithm::INA, 2) || !c.finished)
            {
                continue;
            }
            const bool aggregated =
                c.algorithm == CollectiveAlgorithmToString(CollectiveAlgorithm::INA) ||
                c.algorithm == CollectiveAlgorithmToString(CollectiveAlgorithm::NVLS_INA);
            (aggregated ? inNetwork : onHosts) += c.bytes;
        }
        os << "  reducing and gathering calls: " << Bytes(inNetwork)
           << " in the network (ina, nvls-ina), " << Bytes(onHosts)
           << " on other algorithms (hosts, NVLS; per call, summed)\n";
    }
}

void
TrainingReport::WriteResults(std::ostream& os) const
{
    const TrainingScenario& s = m_sim.GetScenario();
    Ptr<WorkloadRunner> runner = m_sim.GetRunner();
    Json doc;
    doc["scenario"] = ScenarioJson(s);
    if (const auto [qps, split] = CarrierQps(m_sim); qps > 0)
    {
        // What the carrier runs with (--ns3::RdmaTransport::... may have changed it).
        doc["scenario"]["qpsPerConnection"] = qps;
        doc["scenario"]["splitDataOnQps"] = split;
    }
    doc["workload"] = {{"name", m_sim.GetTrace().GetName()},
                       {"from", m_sim.GetWorkloadNote()},
                       {"ranks", m_sim.GetTrace().GetNRanks()},
                       {"ops", m_sim.GetTrace().GetNOps()}};
    if (Ptr<InaTransport> ina = DynamicCast<InaTransport>(m_sim.GetCluster().scaleOut))
    {
        doc["ina_jobs"] = InaJobsJson(ina);
    }
    doc["finished"] = runner->IsFinished();
    doc["stuck"] = runner->IsStuck();
    if (runner->IsStuck())
    {
        doc["stuck_report"] = runner->GetStuckReport();
    }
    doc["simulated_s"] = runner->GetEndTime().GetSeconds();
    doc["iterations"] = IterationsJson(GetIterationTimes(), m_breakdown);
    doc["communication"] = CommunicationJson(m_sim);
    doc["fabric"] = FabricJson(m_sim);
    doc["fast_forward"] = FastForwardJson(m_sim);
    // Wall-clock figures vary between runs; everything above does not.
    doc["run"] = {{"wall_seconds", m_sim.GetWallSeconds()},
                  {"events", m_sim.GetEvents()},
                  {"scheduler", ProgramOptions::GetSchedulerType()},
                  {"allocator", ProgramOptions::GetAllocator()}};
    // Names come from trace files: never let one that is not UTF-8 abort the report.
    os << doc.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

void
TrainingReport::WriteTimeline(std::ostream& os) const
{
    const TrainingTrace& trace = m_sim.GetTrace();
    const CommGroup& world = m_sim.GetWorld();
    Ptr<WorkloadRunner> runner = m_sim.GetRunner();
    os << std::setprecision(15);
    os << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
    bool first = true;
    auto emit = [&](const Json& e) {
        os << (first ? "  " : ",\n  ") << e.dump(-1, ' ', false, Json::error_handler_t::replace);
        first = false;
    };
    std::vector<std::vector<bool>> streams(trace.GetNRanks());
    for (uint32_t r = 0; r < trace.GetNRanks(); ++r)
    {
        emit({{"ph", "M"},
              {"name", "process_name"},
              {"pid", r},
              {"args",
               {{"name",
                 "rank " + std::to_string(r) + " (server " + std::to_string(world.GetServer(r)) +
                     ", GPU " + std::to_string(world.GetLocalIndex(r)) + ")"}}}});
        emit({{"ph", "M"},
              {"name", "process_sort_index"},
              {"pid", r},
              {"args", {{"sort_index", r}}}});
        streams[r].assign(trace.GetNStreams(), false);
        for (const TraceOp& op : trace.GetOps(r))
        {
            streams[r][op.stream] = true;
        }
        for (uint32_t st = 0; st < streams[r].size(); ++st)
        {
            if (streams[r][st])
            {
                std::string name = trace.GetStreamName(st);
                if (name.empty() && st == 0)
                {
                    name = "compute";
                }
                name = "stream " + std::to_string(st) + (name.empty() ? "" : " (" + name + ")");
                emit({{"ph", "M"},
                      {"name", "thread_name"},
                      {"pid", r},
                      {"tid", st},
                      {"args", {{"name", name}}}});
            }
        }
    }
    const auto& calls = runner->GetCalls();
    for (const OpRecord& rec : runner->GetOps())
    {
        const std::string& opName = runner->GetOpName(rec);
        Json e = {{"ph", "X"},
                  {"name", opName.empty() ? TraceOpKindToString(rec.kind) : opName},
                  {"cat", TraceOpKindToString(rec.kind)},
                  {"pid", rec.rank},
                  {"tid", rec.stream},
                  {"ts", Us(rec.start)},
                  {"dur", Us(rec.end - rec.start)}};
        Json args = {{"iteration", rec.iteration}, {"op", rec.op}};
        if (rec.call >= 0)
        {
            const CallRecord& c = calls[rec.call];
            args["collective"] =
                c.type == CollectiveType::SEND_RECV ? "send/recv" : CollectiveTypeToString(c.type);
            args["group"] = c.group;
            args["bytes"] = c.bytes;
            args["algorithm"] = c.algorithm;
            args["requested"] = c.requested;
            args["launch_us"] = Us(c.launch);
            args["busbw_GBps"] = c.busBw / 1e9;
        }
        e["args"] = args;
        emit(e);
    }
    os << "\n]}\n";
}

bool
TrainingReport::Plot(const std::string& dir, std::string* error) const
{
    // Data files first: the plots are also re-drawable by hand from them.
    {
        std::ofstream out(dir + "/breakdown.dat");
        out << "# rank compute_ms exposed_comm_ms idle_ms (mean over iterations)\n";
        const uint32_t iters = std::max(1u, m_sim.GetRunner()->GetNIterations());
        std::map<uint32_t, std::array<double, 3>> per;
        for (const auto& b : m_breakdown)
        {
            auto& a = per[b.rank];
            a[0] += Ms(b.compute) / iters;
            a[1] += Ms(b.exposedComm) / iters;
            a[2] += Ms(b.idle) / iters;
        }
        for (const auto& [rank, a] : per)
        {
            out << rank << " " << a[0] << " " << a[1] << " " << a[2] << "\n";
        }
    }
    std::ostringstream script;
    const std::string breakdownData = GnuplotQuoted(dir + "/breakdown.dat");
    const std::string fabricData = GnuplotQuoted(dir + "/fabric.dat");
    script << "set terminal pngcairo size 1000,500 font ',10'\n"
           << "set output " << GnuplotQuoted(dir + "/breakdown.png") << "\n"
           << "set title "
           << GnuplotQuoted("Iteration time per rank: " + m_sim.GetTrace().GetName())
           << " noenhanced\n"
           << "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 "
              "border -1\n"
           << "set boxwidth 0.8\nset ylabel 'ms (mean per iteration)'\nset xlabel 'rank'\n"
           << "set key outside right\nset yrange [0:*]\n"
           << "plot " << breakdownData << " using 2:xtic(1) title 'compute' lc rgb '#4477aa', "
           << "'' using 3 title 'exposed communication' lc rgb '#ee6677', "
           << "'' using 4 title 'idle (waiting, bubbles)' lc rgb '#bbbbbb'\n";
    if (Ptr<FabricMonitor> mon = m_sim.GetMonitor())
    {
        std::ofstream out(dir + "/fabric.dat");
        mon->WriteSamples(out);
        script
            << "set terminal pngcairo size 1000,700 font ',10'\n"
            << "set output " << GnuplotQuoted(dir + "/fabric.png") << "\nunset title\n"
            << "set multiplot layout 2,1 title "
            << GnuplotQuoted("Fabric: " + m_sim.GetScenario().name) << " noenhanced\n"
            << "unset style\nset style data lines\nset key outside right\nset xlabel 'time (ms)'\n"
            << "set ylabel 'mean link utilisation'\nset yrange [0:1.05]\nunset xtics\nset xtics\n"
            << "plot ";
        const auto& classes = mon->GetClasses();
        for (size_t c = 0; c < classes.size(); ++c)
        {
            script << (c ? ", " : "") << fabricData << " using ($1/1000):" << c + 2
                   << " with lines title " << GnuplotQuoted(classes[c]);
        }
        script << "\nset ylabel 'largest egress queue (KiB)'\nset yrange [0:*]\n"
               << "plot " << fabricData << " using ($1/1000):" << classes.size() + 2
               << " with lines title 'max over ports' lc rgb '#aa3377'\nunset multiplot\n";
    }
    const std::string scriptFile = dir + "/plots.gp";
    {
        std::ofstream out(scriptFile);
        out << script.str();
    }
    if (!RunGnuplot(scriptFile, dir + "/gnuplot.log"))
    {
        *error = "gnuplot failed or is not installed (see " + dir +
                 "/gnuplot.log); the data "
                 "files and " +
                 scriptFile + " are written";
        return false;
    }
    return true;
}

std::vector<std::string>
TrainingReport::Write(const std::string& dir, bool plots, std::string* error) const
{
    if (!MakeDir(dir, error))
    {
        return {};
    }
    std::vector<std::string> files;
    auto file = [&](const std::string& name, auto writer) {
        std::ofstream out(dir + "/" + name);
        // Microseconds with nanosecond resolution, whatever the magnitude.
        out << std::fixed << std::setprecision(3);
        writer(out);
        if (!out)
        {
            *error = dir + "/" + name + ": cannot write";
            return false;
        }
        files.push_back(dir + "/" + name);
        return true;
    };
    bool ok = file("results.json", [&](std::ostream& os) { WriteResults(os); }) &&
              file("timeline.json", [&](std::ostream& os) { WriteTimeline(os); }) &&
              file("iterations.csv", [&](std::ostream& os) { WriteIterationsCsv(os); }) &&
              file("collectives.csv", [&](std::ostream& os) { WriteCollectivesCsv(os); }) &&
              file("fct.csv", [&](std::ostream& os) {
                  os << "src,dst,bytes,start_us,end_us,fct_us,wire_bytes\n";
                  for (const auto& f : m_sim.GetFlows())
                  {
                      os << f.src << "," << f.dst << "," << f.bytes << "," << Us(f.start) << ","
                         << Us(f.end) << "," << Us(f.end - f.start) << "," << f.wireBytes << "\n";
                  }
              });
    if (ok && m_sim.GetBackground())
    {
        ok = file("background-fct.csv", [&](std::ostream& os) {
            FctReport(m_sim.GetBackground()->GetFlows()).WriteFctCsv(os);
        });
    }
    if (ok && m_sim.GetMonitor())
    {
        ok = file("pfc.csv", [&](std::ostream& os) { m_sim.GetMonitor()->WritePfcCsv(os); }) &&
             file("links.csv", [&](std::ostream& os) { m_sim.GetMonitor()->WriteLinksCsv(os); });
    }
    if (!ok)
    {
        return {};
    }
    if (plots)
    {
        if (!Plot(dir, error))
        {
            return files; // the data is there; the caller reports the plot problem
        }
        files.push_back(dir + "/breakdown.png");
        if (m_sim.GetMonitor())
        {
            files.push_back(dir + "/fabric.png");
        }
    }
    return files;
}

void
TrainingReport::WriteIterationsCsv(std::ostream& os) const
{
    os << "rank,iteration,start_us,end_us,total_us,compute_us,exposed_comm_us,idle_"
          "us\n";
    for (const auto& b : m_breakdown)
    {
        os << b.rank << "," << b.iteration << "," << Us(b.start) << "," << Us(b.end) << ","
           << Us(b.GetTotal()) << "," << Us(b.compute) << "," << Us(b.exposedComm) << ","
           << Us(b.idle) << "\n";
    }
}

void
TrainingReport::WriteCollectivesCsv(std::ostream& os) const
{
    os << "call,name,collective,group,algorithm,protocol,requested,ranks,bytes,iteration,first_"
          "arrival_us,"
          "launch_us,end_us,duration_us,busbw_GBps\n";
    const auto& calls = m_sim.GetRunner()->GetCalls();
    for (size_t k = 0; k < calls.size(); ++k)
    {
        const CallRecord& c = calls[k];
        os << k << "," << CsvField(c.name) << ","
           << (c.type == CollectiveType::SEND_RECV ? "send/recv" : CollectiveTypeToString(c.type))
           << "," << CsvField(c.group) << "," << c.algorithm << "," << c.protocol << ","
           << c.requested << "," << c.nRanks << "," << c.bytes << "," << c.iteration << ","
           << Us(c.firstArrival) << "," << Us(c.launch) << ",";
        if (c.finished)
        {
            os << Us(c.end) << "," << Us(c.end - c.launch) << "," << c.busBw / 1e9 << "\n";
        }
        else
        {
            os << ",,\n"; // never finished (stuck run)
        }
    }
}

} // namespace ns3
