// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRAINING_SIMULATION_H
#define TRAINING_SIMULATION_H

#include "fabric-monitor.h"
#include "gpu-cluster-helper.h"
#include "ina-helper.h"
#include "roce-helper.h"
#include "training-scenario.h"

#include "ns3/background-traffic.h"
#include "ns3/pfc-deadlock-detector.h"
#include "ns3/workload-runner.h"

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * One training-iteration simulation from a TrainingScenario: builds the cluster
 * (GpuClusterHelper, or an IdealTransport), loads or generates the trace, replays it with
 * a WorkloadRunner while a FabricMonitor watches the RoCE fabric, and writes the reports
 * (see TrainingReport). This is what the ai-fabric-sim program runs.
 */
class TrainingSimulation
{
  public:
    /// One transfer between servers (an RDMA flow), for flow completion times.
    struct Flow
    {
        uint32_t src;
        uint32_t dst;
        uint64_t bytes;
        Time start;
        Time end;
    };

    explicit TrainingSimulation(const TrainingScenario& scenario);
    /// Disposes the runner and the monitor; the program calls Simulator::Destroy().
    ~TrainingSimulation();

    /**
     * Write the scenario's process-wide settings, as the program's own step (like
     * CommandLine::Parse): attribute defaults in layers (the GPU preset, the scenario's
     * run settings, then fabric/config and the command line's --ns3:: options, which the
     * program passes in the same list) and the random seed (RngSeedManager seed 1, run =
     * the scenario's seed). Called once by the program before Build; the class itself
     * never writes global state.
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
     * Run until the workload finishes or is found stuck.
     * \param progress print a progress line on stderr every few seconds of wall time
     */
    void Run(bool progress);

    /// \return the scenario
    const TrainingScenario& GetScenario() const;
    /// \return the replayed trace
    const TrainingTrace& GetTrace() const;
    /// \return the runner (results, breakdown, stuck report)
    Ptr<WorkloadRunner> GetRunner() const;
    /// \return the fabric monitor (null for the ideal topology)
    Ptr<FabricMonitor> GetMonitor() const;
    /// \return the cluster's rank placement
    const CommGroup& GetWorld() const;
    /// \return the cluster built (empty for the ideal topology)
    const GpuCluster& GetCluster() const;
    /// \return inter-server transfers, in completion order
    const std::vector<Flow>& GetFlows() const;
    /// \return a note on where the trace came from (file, or generated)
    const std::string& GetWorkloadNote() const;
    /**
     * \return what the user should know before trusting the results, found by Build:
     *         a trace made for another GPU than the cluster's (and what computeScale
     *         would fit), GPUs the workload leaves idle
     */
    const std::vector<std::string>& GetWarnings() const;
    /// \return wall-clock seconds Run took
    double GetWallSeconds() const;
    /// \return simulator events executed during Run
    uint64_t GetEvents() const;
    /// \return total RoCE drops, PFC pauses and ECN marks over all switches
    uint64_t GetDrops() const;
    uint64_t GetPfcPauses() const;
    uint64_t GetEcnMarks() const;
    /// \return the PFC deadlocks the detector on the RoCE switches found (none without)
    std::vector<PfcDeadlock> GetPfcDeadlocks() const;
    /// \return the background traffic beside the workload (null without "background")
    Ptr<BackgroundTraffic> GetBackground() const;

  private:
    bool LoadTrace(std::string* error);
    /// Scale the trace's compute by computeScale and note what the user should know
    /// (GetWarnings): trace and cluster GPUs that differ, idle GPUs.
    void AdaptTrace();
    bool ApplyConfig(const std::string& path, const std::string& value, std::string* error);
    bool CheckAlgorithms(std::string* error) const;
    /// \return whether any NVSwitch of the cluster reduces in the switch (NVLS)
    bool NvlsOnCluster() const;
    /**
     * Capture the scenario's pcapNodes (all nodes if empty) into pcapPrefix files:
     * PREFIX-nic<i>.pcap for host i, PREFIX-sw<j>-<port>.pcap for switch j, the names
     * of links.csv and pfc.csv. Nothing when pcapPrefix is empty.
     * \param error set (naming the option and what was expected) on a bad prefix or name
     * \return true on success
     */
    bool EnablePcap(std::string* error);
    /**
     * Schedule the scenario's link events and start its background traffic on the RoCE
     * fabric (after the cluster is built).
     * \param error set (naming the file, place and problem) for a bad node or cable name,
     *        or events on the ideal topology
     * \return true on success
     */
    bool SetUpFabricEvents(std::string* error);
    /// After the workload: stop the run once the background flows have finished.
    void DrainBackground();
    void Progress();

    TrainingScenario m_scenario;
    bool m_globalsApplied{false}; //!< ApplyGlobalSettings succeeded
    RoceTopology m_fileNetwork;   //!< "file" topology, read before the workload
    TrainingTrace m_trace;
    std::string m_workloadNote;
    std::vector<std::string> m_warnings; //!< see GetWarnings
    std::string m_runnerAlgorithm;       //!< CollectiveEngine::Algorithm as the run uses it
    RoceHelper m_roce;
    InaHelper m_ina; //!< the aggregation engines and jobs, when the scenario has INA
    GpuCluster m_cluster;
    CommGroup m_world;
    Ptr<CollectiveTransport> m_transport;
    Ptr<WorkloadRunner> m_runner;
    Ptr<FabricMonitor> m_monitor;
    Ptr<PfcDeadlockDetector> m_deadlocks; //!< on the RoCE switches
    Ptr<BackgroundTraffic> m_background;  //!< "background", if any
    Time m_backgroundDrainUntil;          //!< DrainBackground gives up here
    std::vector<Flow> m_flows;
    double m_wallSeconds{0};
    uint64_t m_events{0};
    std::chrono::steady_clock::time_point m_wallStart;
    std::chrono::steady_clock::time_point m_lastPrint;
    bool m_printed{false};
};

} // namespace ns3

#endif // TRAINING_SIMULATION_H
