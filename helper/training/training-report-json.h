// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRAINING_REPORT_JSON_H
#define TRAINING_REPORT_JSON_H

// The pieces of a training run's report shared by TrainingReport's source files (not
// installed): results.json's parts, the summary reads some of them too.

#include "job-interleave.h"
#include "training-simulation.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class InaTransport;

namespace training_report
{

using Json = nlohmann::json; //!< the JSON type of every report file

/// Collective calls grouped by what they are (kind of group, type, size, algorithm).
struct CallSummary
{
    std::string kind;      //!< the collective
    std::string groupKind; //!< the kind of group (tp, dp, ...)
    std::string algorithm; //!< the algorithm the calls ran
    std::string protocol;  //!< NCCL protocol of the calls
    std::string requested; //!< what was asked ("auto" or a name)
    uint64_t bytes{0};     //!< the calls' mean size
    uint32_t ranks{0};     //!< ranks of a call's group
    uint64_t calls{0};     //!< calls
    Time total;            //!< their time, summed
    double busBwSum{0};    //!< their bus bandwidths, summed (bytes/s)
};

/**
 * \param job a job of a run
 * \return its collective calls grouped by what they are, the most time first
 */
std::vector<CallSummary> Summarize(const TrainingSimulation::Job& job);

/// \param gpus cluster GPUs \param gpusPerServer GPUs per server
/// \return them as ranges and their servers, "GPUs 0-7,16-23 (servers 0,2)"
std::string DescribeGpus(const std::vector<uint32_t>& gpus, uint32_t gpusPerServer);
/// \param sim a run with "jobs" \param alone per job, its iteration times alone (empty:
///         not run) \param slowdowns per job, shared over alone (0: none)
/// \param shifts per job, its start shift (--interleave; empty: none)
/// \param asGiven per job, its mean iteration unshifted (--interleave)
/// \return results.json's "jobs": per job its placement, workload, iterations,
///         collectives, and its iterations alone and slowdown
Json JobsJson(const TrainingSimulation& sim,
              const std::vector<std::vector<Time>>& alone,
              const std::vector<double>& slowdowns,
              const std::vector<Time>& shifts,
              const std::vector<Time>& asGiven);
/// \param sim a run with "arrivals" \return results.json's "arrivals": the stream, the
///         JCT statistics, utilisation and the GPUs held over time
Json ArrivalsJson(const TrainingSimulation& sim);
/// \param sim a run with "jobs" \return results.json's "job_links": the links some job
///         crossed, each job's bytes on them (ShareLinksByJob), most bytes first
Json JobLinksJson(const TrainingSimulation& sim);
/// What the arriving jobs of a run did ("arrivals").
struct JobCompletion
{
    uint32_t arrived{0};  //!< jobs that arrived
    uint32_t finished{0}; //!< of them, those that finished
    double meanJct{0};    //!< job completion time (arrival to end) of the finished, mean, s
    double p50Jct{0};     //!< median (nearest rank), s
    double p95Jct{0};     //!< 95th percentile (nearest rank), s
    double maxJct{0};     //!< the longest, s
    double meanQueued{0}; //!< time from arrival to placement of the placed, mean, s
    double utilisation{0}; //!< GPU-time held by jobs over GPU-time of the run
};
/// \param sim a finished run \return what its arriving jobs did
JobCompletion JobCompletionOf(const TrainingSimulation& sim);
/// \param t a time \return it in microseconds
double Us(Time t);
/// \param t a time \return it in milliseconds
double Ms(Time t);
/// \param text any text \return it as one CSV field (RFC 4180: quoted when it holds a
///         comma, quote or newline)
std::string CsvField(const std::string& text);
/// \param sim a run \return the RDMA carrier's queue pairs per connection and
///         SplitDataOnQps ({0, false}: no RDMA carrier)
std::pair<uint32_t, bool> CarrierQps(const TrainingSimulation& sim);

/**
 * \param sim a simulation
 * \return the ring transfers per connection and phase its collective engines run with
 *         (ns3::CollectiveEngine::RingTransfersPerPhase: 0, a transfer per step)
 */
uint32_t EngineRingTransfersPerPhase(const TrainingSimulation& sim);
/// \param s a scenario \return results.json's "scenario"
Json ScenarioJson(const TrainingScenario& s);
/// \param effects per compression rule, what it did \return results.json's
///         "workload"/"compression"
Json CompressionJson(const std::vector<CompressionEffect>& effects);

/// What the stragglers cost: per slowed rank, its compute on the iterations' critical
/// paths (mean per iteration) and the part of it the slowdown added.
struct StragglerCost
{
    uint32_t rank{0}; //!< the rank
    double factor{1}; //!< its slowdown
    Time onPath;      //!< its compute on the critical path, mean per iteration
    Time cost;        //!< onPath x (1 - 1 / factor): what the slowdown added
};

/// \param sim a finished run \param paths its critical paths (GetCriticalPaths)
/// \return per slowed rank, its cost (rank order)
std::vector<StragglerCost> StragglerCosts(const TrainingSimulation& sim,
                                          const std::vector<WorkloadRunner::CriticalPath>& paths);
/// \param sim a run \return results.json's "stragglers": the settings, what each slow
///         GPU cost on the critical path, the failures, and each iteration's path
Json StragglersJson(const TrainingSimulation& sim);
/// \param ina the in-network aggregation carrier \return its jobs' pool use
Json InaJobsJson(Ptr<InaTransport> ina);
/// \param times iteration times \param breakdown per rank and iteration
/// \return results.json's "iterations"
Json IterationsJson(const std::vector<Time>& times,
                    const std::vector<IterationBreakdown>& breakdown);
/// \param job a job of a run \return results.json's "communication": its collective
///         calls
Json CommunicationJson(const TrainingSimulation::Job& job);
/// \param sim a run \return what the steady-state fast-forward did: its status, and
///         when on what it skipped (results.json's "fast_forward")
Json FastForwardJson(const TrainingSimulation& sim);
/// \param sim a run \return fabric counters, switches, links and background flows
///         (results.json's "fabric")
Json FabricJson(const TrainingSimulation& sim);

} // namespace training_report
} // namespace ns3

#endif
