// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRAINING_SIMULATION_H
#define TRAINING_SIMULATION_H

#include "background-feature.h"
#include "deadlock-detector-feature.h"
#include "fast-forward-feature.h"
#include "job-interleave.h"
#include "training-feature.h"
#include "training-scenario.h"
#include "training-workload.h"

#include "ns3/fabric-monitor.h"
#include "ns3/gpu-cluster-helper.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-helper.h"
#include "ns3/workload-runner.h"

#include <chrono>
#include <deque>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * One training-iteration simulation from a TrainingScenario, and the controller of its
 * run: applies the scenario's settings (ScenarioSettings), loads or generates the trace
 * (TrainingWorkload), builds the cluster (GpuClusterHelper, or an IdealTransport),
 * installs the optional features (TrainingFeature: pcap, in-network aggregation, link
 * events, background traffic, the PFC deadlock detector), replays the trace with a
 * WorkloadRunner while a FabricMonitor watches the RoCE fabric, and serves what
 * TrainingReport writes. This is what the ai-fabric-sim program runs.
 */
class TrainingSimulation
{
  public:
    /// One transfer between servers (an RDMA flow), for flow completion times.
    struct Flow
    {
        uint32_t src;
        uint32_t dst;
        uint64_t bytes;     //!< payload
        uint64_t wireBytes; //!< what the carrier moved (the call's protocol lines)
        Time start;
        Time end;
    };

    /// One job of the run: its workload on its GPUs, replayed by its own runner (a run
    /// without "jobs" has one, the scenario's workload on GPUs 0..ranks-1).
    struct Job
    {
        JobSpec spec;                       //!< as given (name "" for the scenario's one workload)
        std::vector<uint32_t> gpus;         //!< the cluster GPU of each of its ranks
        TrainingWorkload workload;          //!< its trace, adapted
        CommGroup world;                    //!< its ranks' servers and local GPU indices
        Ptr<CollectiveTransport> transport; //!< its engine's carrier (its ranks numbered 0..)
        Ptr<WorkloadRunner> runner;         //!< replays its trace (null until placed)
        Time placed; //!< when it got its GPUs (an arriving job: first fit, after queueing)
        /// the payload its NICs' queue pairs had delivered to their peers when it got its
        /// GPUs, and when it finished (queue pairs outlive a job: the next one on its GPUs
        /// reuses them)
        std::map<Ptr<RdmaQueuePair>, uint64_t> qpBytesAtPlace;
        std::map<Ptr<RdmaQueuePair>, uint64_t> qpBytesAtEnd; //!< set when it finishes
    };

    /// A job run alone on its GPUs (RunJobsAlone).
    struct AloneRun
    {
        std::vector<Time> iterations; //!< its iteration times
        /// when its transfers crossed the scale-out network, from its start (merged)
        BusyIntervals network;
    };

    /// The cluster's GPUs in use by jobs, from a time on.
    struct Allocation
    {
        Time at;       //!< from when
        uint32_t gpus; //!< GPUs held by jobs
    };

    explicit TrainingSimulation(const TrainingScenario& scenario);
    /// Disposes the runner and the monitor; the program calls Simulator::Destroy().
    ~TrainingSimulation();

    /**
     * Write the scenario's process-wide settings (ScenarioSettings::Apply), as the
     * program's own step (like CommandLine::Parse). Called once by the program before
     * Build; Build itself never writes global state.
     * \param error set (naming the file, place and problem) when a setting is invalid
     *
eturn true on success
     */
    bool ApplyGlobalSettings(std::string* error);

    /**
     * Build the cluster and the workload from the scenario (after ApplyGlobalSettings).
     * \param error set (naming the file, place and problem) when the trace or scenario
     *        cannot be used
     * \return true on success
     */
    bool Build(std::string* error);

    /**
     * "jobs": read every job's workload and place the jobs (as Build does), without
     * building the cluster. Needs ApplyGlobalSettings first.
     * \param error set (naming the job's place) when a job cannot be read or placed
     * \return true on success; GetJobs() then has each job's GPUs (no runner)
     */
    bool PlanJobs(std::string* error);

    /**
     * Run each job of a scenario with "jobs" alone on the GPUs it gets when they share
     * the cluster (same cluster, settings and seed; no outputs, no capture): what each
     * job's slowdown is measured against. Builds and destroys one simulation per job
     * (Simulator::Destroy after each): call before building the shared run.
     * \param scenario the scenario (its process-wide settings applied)
     * \param progress print progress lines on stderr
     * \param runs set to per job of the "jobs" list, its iteration times and network
     *        phases alone
     * \param error set when a job cannot be built, or did not finish alone
     * \return true on success
     */
    static bool RunJobsAlone(const TrainingScenario& scenario,
                             bool progress,
                             std::vector<AloneRun>& runs,
                             std::string* error);

    /**
     * Run until the workload finishes or is found stuck.
     * \param progress print a progress line on stderr every few seconds of wall time
     */
    void Run(bool progress);

    /// \return the scenario
    const TrainingScenario& GetScenario() const;
    /// \return the replayed trace (of the first job, with "jobs")
    const TrainingTrace& GetTrace() const;
    /// \return the runner (results, breakdown, stuck report; of the first job, with "jobs")
    Ptr<WorkloadRunner> GetRunner() const;
    /// \return the jobs (one without the scenario's "jobs")
    const std::vector<Job>& GetJobs() const;
    /// \return true if the scenario has several jobs ("jobs"), each reported on its own
    bool HasJobs() const;
    /// \return true if a job's runner found its job stuck
    bool IsStuck() const;
    /// \return the GPUs held by jobs over the run, a step at each change (with "jobs")
    const std::vector<Allocation>& GetAllocations() const;
    /**
     * \param job a job
     * \return the payload each queue pair of its NICs delivered to its peer while the job
     *         held its GPUs (so far, if it has not finished)
     */
    std::map<Ptr<RdmaQueuePair>, uint64_t> GetJobQueuePairBytes(const Job& job) const;
    /// \return what stopped the run early (an arriving job's plan impossible where it
    ///         was placed), or ""
    const std::string& GetRunError() const;
    /// \return the stuck jobs' reports ("job NAME: " before each, with "jobs")
    std::string GetStuckReport() const;
    /// \return the fabric monitor (null for the ideal topology)
    Ptr<FabricMonitor> GetMonitor() const;
    /// \return the cluster's rank placement: every GPU, then the CPU hosts (a server each)
    const CommGroup& GetWorld() const;
    /// \return the cluster built (empty for the ideal topology)
    const GpuCluster& GetCluster() const;
    /// \return inter-server transfers, in completion order (a deque: it grows by blocks,
    ///         never copied, at millions of transfers)
    const std::deque<Flow>& GetFlows() const;
    /// \return a note on where the trace came from (file, or generated)
    const std::string& GetWorkloadNote() const;
    /**
     * \return what the user should know before trusting the results, found by Build:
     *         a trace made for another GPU than the cluster's (and what computeScale
     *         would fit), GPUs the workload leaves idle
     */
    std::vector<std::string> GetWarnings() const;
    /// \return per compression rule of the scenario, what it did to the trace
    const std::vector<CompressionEffect>& GetCompression() const;
    /// \return wall-clock seconds Run took
    double GetWallSeconds() const;
    /// \return simulator events executed during Run
    uint64_t GetEvents() const;
    /// \return total RoCE drops, PFC pauses and ECN marks over all switches
    uint64_t GetDrops() const;
    uint64_t GetPfcPauses() const;
    uint64_t GetEcnMarks() const;
    /// \return RDMA payload bytes delivered to the queue pairs of the cluster's NICs
    uint64_t GetRdmaPayloadBytes() const;
    /// \return the share of GetRdmaPayloadBytes() the fast-forward skipped (0 when off)
    double GetSkippedFraction() const;
    /// \return the PFC deadlocks the detector on the RoCE switches found (none without)
    std::vector<PfcDeadlock> GetPfcDeadlocks() const;
    /// \return the background traffic beside the workload (null without "background")
    Ptr<BackgroundTraffic> GetBackground() const;
    /// \return the fast-forward feature: its status and, when on, the RdmaFastForward
    Ptr<FastForwardFeature> GetFastForward() const;

  private:
    /// Check what the run will use of the settings: the collective engine's algorithm
    /// and chunk (fabric.config may change them) and the congestion control.
    bool CheckRunSettings(std::string* error);
    /// Read a "file" topology (it says how many servers and GPUs there are).
    bool ReadTopologyFile(std::string* error);
    /// Load the trace, check it fits the cluster and adapt it.
    bool LoadWorkload(std::string* error);
    /// "jobs": load and adapt every job's trace, and place the jobs on the cluster.
    bool LoadJobs(std::string* error);
    /// "jobs": refuse what the run cannot do for several jobs yet.
    bool CheckJobSettings(std::string* error) const;
    /// "jobs": each job's RDMA data in its traffic class, every class lossless.
    void ApplyTrafficClasses();
    /// "jobs": read a job's workload (with the scenario's GPU, compression, parameter
    /// servers) and set its GPUs to the workload's ranks when not given.
    bool LoadJobWorkload(JobSpec& spec, TrainingWorkload& workload, std::string* error) const;
    /// "arrivals": draw the arriving jobs (a job each, its workload shared by its kind's).
    bool DrawArrivals(std::string* error);
    /// job's world and carrier on its GPUs, and every plan of its trace tried there.
    bool SetUpJobCarrier(Job& job, std::string* error) const;
    /// Give job its GPUs: its world, carrier, runner; a traffic class on its NICs.
    bool PlaceJob(uint32_t job, std::string* error);
    /// An arriving job arrives: queued, and placed if it fits.
    void OnArrival(uint32_t job);
    /// Place the queued jobs, in arrival order, while the first fits (first fit).
    void PlaceQueued();
    /// Record the GPUs held by jobs now.
    void NoteAllocation();
    /// \return the payload each queue pair of job's NICs delivered to its peer so far
    std::map<Ptr<RdmaQueuePair>, uint64_t> SnapshotQueuePairs(const Job& job) const;
    /// \return the bytes the NICs of job's GPUs sent and the chunks the NVSwitches of its
    /// servers delivered (the job's hang watchdog's progress)
    uint64_t JobProgress(const Job& job) const;
    /// Build the ideal carrier, or the cluster on a file or rail-optimized topology.
    void BuildCluster();
    /// Try every (group, collective, algorithm) of job's trace before the run.
    bool CheckAlgorithms(const Job& job, std::string* error) const;
    /// \return whether any NVSwitch of the cluster reduces in the switch (NVLS)
    bool NvlsOnCluster() const;
    /// Create job's runner: progress probe, stop when every job finished, inter-server
    /// flows.
    void SetUpRunner(uint32_t job);
    /// A job's workload finished: its GPUs are free (queued jobs may take them); once all
    /// have, stop the monitor and drain the features.
    void OnJobFinished(uint32_t job);
    /// After the workload: stop the run once no feature is busy.
    void Drain();
    /// Print the progress line if two wall seconds have passed since the last one.
    void Progress();
    /// Print progress lines as job's ops and transfers finish (Run's progress).
    void ConnectProgress(const Job& job);
    /// Progress, when an op finished (the runner's OpFinished trace).
    void OnOpFinished(const OpRecord& record);
    /// Progress, when a transfer finished (the engine's TransferDone trace).
    void OnTransferDone(uint64_t runId, uint32_t transfer);

    TrainingScenario m_scenario;
    bool m_globalsApplied{false};          //!< ApplyGlobalSettings succeeded
    RoceTopology m_fileNetwork;            //!< "file" topology, read before the workload
    std::vector<Job> m_jobs;               //!< one, or the scenario's jobs
    uint32_t m_jobsFinished{0};            //!< jobs whose workload finished
    uint32_t m_cpuHosts{0};                //!< CPU hosts after the GPUs (the trace's CPU ranks)
    GpuPool m_gpuPool;                     //!< per cluster GPU, the job holding it
    std::vector<uint32_t> m_queue;         //!< arrived jobs waiting for GPUs, in arrival order
    std::vector<Allocation> m_allocations; //!< GPUs held by jobs over the run
    std::string m_runError;                //!< what stopped the run early
    bool m_progress{false};                //!< Run's progress lines
    std::string m_runnerAlgorithm;         //!< CollectiveEngine::Algorithm as the run uses it
    RoceHelper m_roce;
    GpuCluster m_cluster;
    CommGroup m_world;
    Ptr<CollectiveTransport> m_transport; //!< the cluster's carrier (every GPU)
    Ptr<FabricMonitor> m_monitor;
    Ptr<BackgroundFeature> m_background;          //!< also in m_features
    Ptr<DeadlockDetectorFeature> m_deadlocks;     //!< also in m_features
    Ptr<FastForwardFeature> m_fastForward;        //!< also in m_features
    std::vector<Ptr<TrainingFeature>> m_features; //!< installed in this order
    Time m_drainUntil;                            //!< Drain gives up here
    std::deque<Flow> m_flows;
    double m_wallSeconds{0};
    uint64_t m_events{0};
    std::chrono::steady_clock::time_point m_wallStart;
    std::chrono::steady_clock::time_point m_lastPrint;
    bool m_printed{false};
};

} // namespace ns3

#endif // TRAINING_SIMULATION_H
