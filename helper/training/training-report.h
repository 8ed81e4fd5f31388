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
    explicit TrainingReport(const TrainingSimulation& sim);

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

    /// \return per iteration, the slowest rank's total time
    std::vector<Time> GetIterationTimes() const;

  private:
    bool Plot(const std::string& dir, std::string* error) const;

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

    const TrainingSimulation& m_sim;
    std::vector<IterationBreakdown> m_breakdown;
};

} // namespace ns3

#endif // TRAINING_REPORT_H
