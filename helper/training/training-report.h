// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRAINING_REPORT_H
#define TRAINING_REPORT_H

#include "training-simulation.h"

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Reports of a finished TrainingSimulation: the summary table, results JSON and CSVs, a
 * Chrome/Perfetto trace of the timeline, FCT and PFC CSVs, and gnuplot PNGs (formats in
 * doc/ai-fabric.rst, "Outputs"). Nothing here depends on wall-clock time except the
 * "wall_seconds"/"events" fields, so two runs with the same seed write identical files
 * apart from those.
 */
class TrainingReport
{
  public:
    /**
     * \param sim the finished run
     * \param job the job whose workload the per-job parts describe (iteration table,
     *        breakdown, collectives, their CSVs and plot); the run's summary and files
     *        cover every job of a run with "jobs"
     */
    explicit TrainingReport(const TrainingSimulation& sim, uint32_t job = 0);
    /**
     * The same jobs run alone, each on its own GPUs of the same cluster (the program
     * runs them): each job's slowdown is against these.
     * \param iterationTimes per job, its iteration times alone (empty: not run)
     */
    void SetAlone(const std::vector<std::vector<Time>>& iterationTimes);
    /**
     * The jobs were started later by these shifts (ai-fabric-sim --interleave): the
     * report gives each job's mean iteration as given beside the shifted run's.
     * \param shifts per job, how much later it started than given
     * \param asGiven per job, its mean iteration when they started as given
     */
    void SetInterleave(const std::vector<Time>& shifts, const std::vector<Time>& asGiven);

    /// Write the readable summary (iteration times, breakdown, slowest collectives, fabric).
    void PrintSummary(std::ostream& os) const;

    /**
     * Write every output file into dir (created if needed): results.json,
     * iterations.csv, collectives.csv, fct.csv, pfc.csv, links.csv, timeline.json
     * (Perfetto), fabric.dat, and with plots breakdown.png and fabric.png.
     * \param error set when a file cannot be written
     * \return the files written, or empty on error
     */
    std::vector<std::string> Write(const std::string& dir, bool plots, std::string* error) const;

    /// Write the Chrome/Perfetto trace-event JSON (one process per rank, one thread per stream).
    void WriteTimeline(std::ostream& os) const;
    /// Write results JSON (everything the summary shows, machine-readable).
    void WriteResults(std::ostream& os) const;

    /// \return per iteration of the report's job, the slowest rank's total time
    std::vector<Time> GetIterationTimes() const;
    /// \return per job, its mean iteration time shared over its mean alone (0 where it
    ///         was not run alone or did not finish)
    std::vector<double> GetSlowdowns() const;

  private:
    /**
     * Draw the plots with gnuplot into dir (their data files and script beside them).
     * \param dir the folder \param breakdown the report's job's breakdown.png
     * \param fabric fabric.png (with a fabric monitor) \param error set on failure
     * \return true if gnuplot drew them
     */
    bool Plot(const std::string& dir, bool breakdown, bool fabric, std::string* error) const;

    /// Summary: scenario, workload, cluster and run lines (and a stuck run's report).
    void PrintOverview(std::ostream& os) const;
    /// Summary: per iteration, time and mean breakdown over ranks.
    void PrintIterationTable(std::ostream& os) const;
    /// Print what each slow GPU cost on the critical path (nothing without stragglers).
    void PrintStragglers(std::ostream& os) const;
    /// Summary: the ten collective groups that took the longest.
    void PrintCommunication(std::ostream& os) const;
    /// Summary: fabric counters, PFC deadlocks and link events (with a fabric monitor).
    void PrintFabric(std::ostream& os) const;
    /// Summary: background flows' FCT slowdown (with background traffic).
    void PrintBackground(std::ostream& os) const;
    /// Summary: per aggregation job, what ran in the network (with INA).
    void PrintInaUsage(std::ostream& os) const;
    /// Write iterations.csv: one row per rank and iteration.
    void WriteIterationsCsv(std::ostream& os) const;
    /// Write collectives.csv: one row per collective call.
    void WriteCollectivesCsv(std::ostream& os) const;
    /// Summary, with "jobs": per job its iterations and collectives, then the jobs
    /// against themselves alone and the links they shared.
    void PrintJobs(std::ostream& os) const;
    /// Summary, with "arrivals": per arriving job its arrival, queueing and JCT, and
    /// their statistics.
    void PrintArrivals(std::ostream& os) const;
    /// Summary, with a "jobs" list: each job's mean iteration shared and alone.
    void PrintJobTable(std::ostream& os, const std::vector<double>& slowdowns) const;
    /// Summary, with "jobs": the busiest links the jobs crossed, and which jobs shared them.
    void PrintLinkShares(std::ostream& os) const;
    /// Write each job's iterations.csv, collectives.csv and breakdown plot into
    /// dir/jobs/NAME/, and job-links.csv into dir (with "jobs").
    /// \return false (error set) if one cannot be written
    bool WriteJobFiles(const std::string& dir,
                       bool plots,
                       std::vector<std::string>& files,
                       std::string* error) const;
    /// \return the report's job
    const TrainingSimulation::Job& GetJob() const;

    const TrainingSimulation& m_sim;
    uint32_t m_job;                              //!< the job the per-job parts describe
    std::vector<IterationBreakdown> m_breakdown; //!< of that job
    std::vector<std::vector<Time>> m_alone;      //!< per job, its iteration times alone
    std::vector<Time> m_shifts;  //!< per job, its start shift (--interleave)
    std::vector<Time> m_asGiven; //!< per job, its mean iteration unshifted (--interleave)
};

} // namespace ns3

#endif // TRAINING_REPORT_H
