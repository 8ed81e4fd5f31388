// SPDX-License-Identifier: GPL-2.0-only
// TrainingReport's files: results.json, the Perfetto timeline, iterations.csv,
// collectives.csv and the plots, written into the output folder.
#include "fct-report.h"
#include "job-link-share.h"
#include "report-files.h"
#include "training-report-json.h"
#include "training-report.h"

#include "ns3/ina-transport.h"
#include "ns3/program-options.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iomanip>
#include <map>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>

namespace ns3
{

using namespace training_report;

void
TrainingReport::WriteResults(std::ostream& os) const
{
    const TrainingScenario& s = m_sim.GetScenario();
    Json doc;
    doc["scenario"] = ScenarioJson(s);
    // What the engine runs with (--ns3::CollectiveEngine::... may have changed it).
    doc["scenario"]["ringTransfersPerPhase"] = EngineRingTransfersPerPhase(m_sim);
    if (const auto [qps, split] = CarrierQps(m_sim); qps > 0)
    {
        // What the carrier runs with (--ns3::RdmaTransport::... may have changed it).
        doc["scenario"]["qpsPerConnection"] = qps;
        doc["scenario"]["splitDataOnQps"] = split;
    }
    if (!m_sim.HasJobs())
    {
        doc["workload"] = {{"name", m_sim.GetTrace().GetName()},
                           {"from", m_sim.GetWorkloadNote()},
                           {"ranks", m_sim.GetTrace().GetNRanks()},
                           {"cpu_ranks", m_sim.GetTrace().GetNCpuRanks()},
                           {"ops", m_sim.GetTrace().GetNOps()}};
        if (!m_sim.GetCompression().empty())
        {
            doc["workload"]["compression"] = CompressionJson(m_sim.GetCompression());
        }
    }
    if (Ptr<InaTransport> ina = DynamicCast<InaTransport>(m_sim.GetCluster().scaleOut))
    {
        doc["ina_jobs"] = InaJobsJson(ina);
    }
    if (!s.stragglers.IsEmpty())
    {
        doc["stragglers"] = StragglersJson(m_sim);
    }
    bool finished = true;
    Time end;
    for (const TrainingSimulation::Job& job : m_sim.GetJobs())
    {
        finished = finished && job.runner && job.runner->IsFinished();
        end = job.runner ? std::max(end, job.runner->GetEndTime()) : end;
    }
    doc["finished"] = finished;
    doc["stuck"] = m_sim.IsStuck();
    if (m_sim.IsStuck())
    {
        doc["stuck_report"] = m_sim.GetStuckReport();
    }
    doc["simulated_s"] = end.GetSeconds();
    if (m_sim.HasJobs())
    {
        doc["jobs"] = JobsJson(m_sim, m_alone, GetSlowdowns(), m_shifts, m_asGiven);
        doc["job_links"] = JobLinksJson(m_sim);
        if (!s.arrivals.mix.empty())
        {
            doc["arrivals"] = ArrivalsJson(m_sim);
        }
    }
    else
    {
        doc["iterations"] = IterationsJson(GetIterationTimes(), m_breakdown);
        doc["communication"] = CommunicationJson(GetJob());
        if (GetJob().runner)
        {
            // How often auto estimated its candidates, and how often a group took another
            // group's choice (CollectiveSelection::ChoiceBook).
            const CollectiveEngine::PlanCacheStats stats =
                GetJob().runner->GetEngine()->GetPlanCacheStats();
            doc["auto_choices"] = {{"estimated", stats.choicesEstimated},
                                   {"shared", stats.choicesShared}};
        }
    }
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
    // One process per rank, one thread per stream; with "jobs", one process per job (a
    // track group each), one thread per rank and stream.
    const bool jobs = m_sim.HasJobs();
    const CommGroup& world = m_sim.GetWorld();
    os << std::setprecision(15);
    os << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
    bool first = true;
    auto emit = [&](const Json& e) {
        os << (first ? "  " : ",\n  ") << e.dump(-1, ' ', false, Json::error_handler_t::replace);
        first = false;
    };
    for (uint32_t j = 0; j < m_sim.GetJobs().size(); ++j)
    {
        const TrainingSimulation::Job& job = m_sim.GetJobs()[j];
        if (!job.runner)
        {
            continue; // an arriving job never placed
        }
        const TrainingTrace& trace = job.workload.GetTrace();
        const uint32_t nStreams = trace.GetNStreams();
        auto pidOf = [&](uint32_t rank) { return jobs ? j : rank; };
        auto tidOf = [&](uint32_t rank, uint32_t stream) {
            return jobs ? rank * nStreams + stream : stream;
        };
        if (jobs)
        {
            emit({{"ph", "M"},
                  {"name", "process_name"},
                  {"pid", j},
                  {"args", {{"name", "job " + job.spec.name}}}});
            emit({{"ph", "M"},
                  {"name", "process_sort_index"},
                  {"pid", j},
                  {"args", {{"sort_index", j}}}});
        }
        for (uint32_t r = 0; r < trace.GetNRanks(); ++r)
        {
            const uint32_t gpu = job.gpus[r];
            const std::string rankName = trace.IsCpuRank(r)
                                             ? "rank " + std::to_string(r) + " (CPU host " +
                                                   std::to_string(r - trace.GetNGpuRanks()) + ")"
                                             : "rank " + std::to_string(r) + " (server " +
                                                   std::to_string(world.GetServer(gpu)) + ", GPU " +
                                                   std::to_string(world.GetLocalIndex(gpu)) + ")";
            if (!jobs)
            {
                emit({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", r},
                      {"args", {{"name", rankName}}}});
                emit({{"ph", "M"},
                      {"name", "process_sort_index"},
                      {"pid", r},
                      {"args", {{"sort_index", r}}}});
            }
            std::vector<bool> streams(nStreams, false);
            for (const TraceOp& op : trace.GetOps(r))
            {
                streams[op.stream] = true;
            }
            for (uint32_t st = 0; st < streams.size(); ++st)
            {
                if (streams[st])
                {
                    std::string name = trace.GetStreamName(st);
                    if (name.empty() && st == 0)
                    {
                        name = "compute";
                    }
                    name = "stream " + std::to_string(st) + (name.empty() ? "" : " (" + name + ")");
                    emit({{"ph", "M"},
                          {"name", "thread_name"},
                          {"pid", pidOf(r)},
                          {"tid", tidOf(r, st)},
                          {"args", {{"name", jobs ? rankName + " " + name : name}}}});
                }
            }
        }
        const Ptr<WorkloadRunner> runner = job.runner;
        const auto& calls = runner->GetCalls();
        for (const OpRecord& rec : runner->GetOps())
        {
            const std::string& opName = runner->GetOpName(rec);
            Json e = {{"ph", "X"},
                      {"name", opName.empty() ? TraceOpKindToString(rec.kind) : opName},
                      {"cat", TraceOpKindToString(rec.kind)},
                      {"pid", pidOf(rec.rank)},
                      {"tid", tidOf(rec.rank, rec.stream)},
                      {"ts", Us(rec.start)},
                      {"dur", Us(rec.end - rec.start)}};
            Json args = {{"iteration", rec.iteration}, {"op", rec.op}};
            if (rec.call >= 0)
            {
                const CallRecord& c = calls[rec.call];
                args["collective"] = c.type == CollectiveType::SEND_RECV
                                         ? "send/recv"
                                         : CollectiveTypeToString(c.type);
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
    }
    os << "\n]}\n";
}

bool
TrainingReport::Plot(const std::string& dir, bool breakdown, bool fabric, std::string* error) const
{
    std::ostringstream script;
    // Data files first: the plots are also re-drawable by hand from them.
    if (breakdown)
    {
        std::ofstream out(dir + "/breakdown.dat");
        out << "# rank compute_ms exposed_comm_ms idle_ms (mean over iterations)\n";
        const uint32_t iters = std::max(1u, GetJob().runner->GetNIterations());
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
    const std::string breakdownData = GnuplotQuoted(dir + "/breakdown.dat");
    const std::string fabricData = GnuplotQuoted(dir + "/fabric.dat");
    if (breakdown)
    {
        script << "set terminal pngcairo size 1000,500 font ',10'\n"
               << "set output " << GnuplotQuoted(dir + "/breakdown.png") << "\n"
               << "set title "
               << GnuplotQuoted("Iteration time per rank: " +
                                GetJob().workload.GetTrace().GetName())
               << " noenhanced\n"
               << "set style data histograms\nset style histogram rowstacked\nset style fill solid "
                  "0.8 "
                  "border -1\n"
               << "set boxwidth 0.8\nset ylabel 'ms (mean per iteration)'\nset xlabel 'rank'\n"
               << "set key outside right\nset yrange [0:*]\n"
               << "plot " << breakdownData << " using 2:xtic(1) title 'compute' lc rgb '#4477aa', "
               << "'' using 3 title 'exposed communication' lc rgb '#ee6677', "
               << "'' using 4 title 'idle (waiting, bubbles)' lc rgb '#bbbbbb'\n";
    }
    if (Ptr<FabricMonitor> mon = fabric ? m_sim.GetMonitor() : nullptr)
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
    const bool jobs = m_sim.HasJobs();
    bool ok =
        file("results.json", [&](std::ostream& os) { WriteResults(os); }) &&
        file("timeline.json", [&](std::ostream& os) { WriteTimeline(os); }) &&
        (jobs || file("iterations.csv", [&](std::ostream& os) { WriteIterationsCsv(os); })) &&
        (jobs || file("collectives.csv", [&](std::ostream& os) { WriteCollectivesCsv(os); })) &&
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
    if (ok && jobs)
    {
        ok = WriteJobFiles(dir, plots, files, error);
    }
    if (!ok)
    {
        return {};
    }
    if (plots && (!jobs || m_sim.GetMonitor()))
    {
        if (!Plot(dir, !jobs, true, error))
        {
            return files; // the data is there; the caller reports the plot problem
        }
        if (!jobs)
        {
            files.push_back(dir + "/breakdown.png");
        }
        if (m_sim.GetMonitor())
        {
            files.push_back(dir + "/fabric.png");
        }
    }
    return files;
}

bool
TrainingReport::WriteJobFiles(const std::string& dir,
                              bool plots,
                              std::vector<std::string>& files,
                              std::string* error) const
{
    if (m_sim.GetMonitor())
    {
        std::ofstream out(dir + "/job-links.csv");
        out << "from,to,class,bytes,peak_util";
        for (const TrainingSimulation::Job& job : m_sim.GetJobs())
        {
            out << "," << CsvField(job.spec.name + "_payload_bytes");
        }
        out << ",jobs\n";
        for (const JobLinkShare& s : ShareLinksByJob(m_sim))
        {
            out << s.link->from << "," << s.link->to << "," << s.link->cls << "," << s.link->bytes
                << "," << s.link->peakUtilisation;
            for (uint64_t b : s.jobBytes)
            {
                out << "," << b;
            }
            out << "," << s.jobs << "\n";
        }
        if (!out)
        {
            *error = dir + "/job-links.csv: cannot write";
            return false;
        }
        files.push_back(dir + "/job-links.csv");
    }
    for (uint32_t j = 0; j < m_sim.GetJobs().size(); ++j)
    {
        if (!m_sim.GetJobs()[j].runner)
        {
            continue; // an arriving job never placed
        }
        const std::string jobDir = dir + "/jobs/" + m_sim.GetJobs()[j].spec.name;
        if (!MakeDir(dir + "/jobs", error) || !MakeDir(jobDir, error))
        {
            return false;
        }
        const TrainingReport job(m_sim, j);
        for (const auto& [name, writer] :
             {std::pair<std::string, void (TrainingReport::*)(std::ostream&) const>{
                  "iterations.csv",
                  &TrainingReport::WriteIterationsCsv},
              std::pair<std::string, void (TrainingReport::*)(std::ostream&) const>{
                  "collectives.csv",
                  &TrainingReport::WriteCollectivesCsv}})
        {
            std::ofstream out(jobDir + "/" + name);
            out << std::fixed << std::setprecision(3);
            (job.*writer)(out);
            if (!out)
            {
                *error = jobDir + "/" + name + ": cannot write";
                return false;
            }
            files.push_back(jobDir + "/" + name);
        }
        if (plots && job.Plot(jobDir, true, false, error))
        {
            files.push_back(jobDir + "/breakdown.png");
        }
    }
    if (!m_sim.GetScenario().arrivals.mix.empty())
    {
        // The GPUs jobs held over the run: a step per placement and completion.
        const std::string data = dir + "/utilisation.dat";
        {
            std::ofstream out(data);
            out << "# time_ms gpus_held fraction_of_" << m_sim.GetScenario().GetNGpus() << "\n";
            const double total = m_sim.GetScenario().GetNGpus();
            for (const TrainingSimulation::Allocation& a : m_sim.GetAllocations())
            {
                out << Ms(a.at) << " " << a.gpus << " " << a.gpus / total << "\n";
            }
            if (!out)
            {
                *error = data + ": cannot write";
                return false;
            }
        }
        files.push_back(data);
        if (plots)
        {
            const std::string script = dir + "/utilisation.gp";
            {
                std::ofstream out(script);
                out << "set terminal pngcairo size 1000,400 font ',10'\n"
                    << "set output " << GnuplotQuoted(dir + "/utilisation.png") << "\n"
                    << "set title 'GPUs held by jobs (arrivals placed first fit)'\n"
                    << "set xlabel 'time (ms)'\nset ylabel 'share of the cluster'\n"
                    << "set yrange [0:1.05]\nset key off\n"
                    << "plot " << GnuplotQuoted(data)
                    << " using 1:3 with steps lw 2 lc rgb '#4477aa'\n";
            }
            if (RunGnuplot(script, dir + "/gnuplot-utilisation.log"))
            {
                files.push_back(dir + "/utilisation.png");
            }
            else
            {
                *error = "gnuplot failed or is not installed (see " + dir +
                         "/gnuplot-utilisation.log); " + data + " is written";
            }
        }
    }
    return true;
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
    const auto& calls = GetJob().runner->GetCalls();
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
