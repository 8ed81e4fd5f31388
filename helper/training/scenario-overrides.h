// SPDX-License-Identifier: GPL-2.0-only
#ifndef SCENARIO_OVERRIDES_H
#define SCENARIO_OVERRIDES_H

#include "training-scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * What-ifs from the command line: options that override one setting of a scenario (or of
 * the built-in default when there is none), e.g.
 *
 *     ai-fabric-sim --oversubscription=2 --spines=1
 *     ai-fabric-sim --scenario=s.json --cc=none --servers=4
 *     ai-fabric-sim --workload=my-aicb.txt --gpu=A100 --algorithm=ring
 *
 * Every option is read as text and checked here, so a bad value is one error naming the
 * option (see Apply). An empty text means "not given". The option table (GetOptions)
 * gives names and help texts to the program's command line.
 */
struct ScenarioOverrides
{
    std::string workload;         //!< a workload file (format detected) or Chakra prefix
    std::string workloadFormat;   //!< force the format of workload
    std::string servers;          //!< servers
    std::string gpusPerServer;    //!< GPUs (and NICs) per server
    std::string gpu;              //!< GpuPreset name
    std::string nicRate;          //!< NIC and fabric port rate (ideal: per-rank rate)
    std::string spines;           //!< spines of the rail-optimized fabric
    std::string pods;             //!< pods of the rail-optimized fabric
    std::string oversubscription; //!< rail leaf down/up capacity
    std::string topology;         //!< a topology file, or rail-optimized / ideal
    std::string fabric;           //!< fabric model: packet or flow
    std::string cc;               //!< congestion control TypeId, or none
    std::string ina;              //!< in-network aggregation: off or a protocol
    std::string fastForward;      //!< steady-state fast-forward: on, off or check
    std::string replayCalls;      //!< with it, replay NVSwitch calls (on/off)
    std::string algorithm;        //!< collective algorithm for every call
    std::string protocol;         //!< NCCL protocol for every call
    std::string channels;         //!< channels (0: the default rule)
    std::string qpsPerConnection; //!< queue pairs per RDMA connection
    std::string splitDataOnQps;   //!< split every transfer over them (true/false)
    std::string ringTransfersPerPhase; //!< coarsened rings' transfers per phase
    std::string computeScale;     //!< factor on every compute duration
    std::string compress;         //!< compression rules, comma-separated
    std::string straggler;        //!< slow GPUs, comma-separated RANKS:FACTOR
    std::string jitter;           //!< compute jitter
    std::string failGpu;          //!< failing GPUs, comma-separated RANK:TIME
    std::string slowNic;          //!< slow NICs, comma-separated RANK:RATE
    std::string restart;          //!< restart delay after a failure
    std::string parameterServers; //!< GROUP:SERVERS
    /// jobs sharing the cluster, each FILE[:PLACEMENT] (replace the scenario's jobs)
    std::vector<std::string> jobs;

    /// One option: its name on the command line, help text, and field.
    struct Option
    {
        const char* name;                      //!< e.g. "servers"
        const char* help;                      //!< for --help
        std::string ScenarioOverrides::*field; //!< where its text goes
    };

    /// \return every option, in --help order
    static const std::vector<Option>& GetOptions();

    /**
     * Register every option with a command line (ns-3's CommandLine, or anything with
     * AddValue(name, help, std::string&)).
     * \param cmd the command line
     */
    template <typename CommandLineType>
    void AddTo(CommandLineType& cmd)
    {
        for (const Option& o : GetOptions())
        {
            cmd.AddValue(o.name, o.help, this->*o.field);
        }
        cmd.AddList(JOB_OPTION, JOB_HELP, jobs);
    }

    /// The option that adds a job (several times for several jobs).
    static constexpr const char* JOB_OPTION = "job";
    /// Its help text.
    static constexpr const char* JOB_HELP =
        "A job sharing the cluster, FILE[:PLACEMENT]: a workload file (any format --workload "
        "reads) and where its GPUs go, packed (the default), spread, random or servers such as "
        "0-1,4; the jobs replace the scenario's workload and jobs, each reported against "
        "itself alone on the same GPUs";

    /**
     * Check every given option and apply it to scenario (the workload first: a model
     * config given as --workload is then checked against the cluster by the simulation).
     * \param scenario the scenario to change
     * \param error set to "--option=value: what was expected" (or the file's own
     *        message) on the first bad option
     * \return true on success; on failure scenario may be partly changed
     */
    bool Apply(TrainingScenario& scenario, std::string* error) const;

    /**
     * What a workload path holds, from the file itself: an ai-fabric trace (JSON with
     * "schema": "ai-fabric-trace/..."), a model config (any other JSON object:
     * "generator"), a Chakra trace (a {prefix}.{rank}.et or .json rank file, or a prefix
     * whose rank 0 file exists), or else a SimAI/AICB text workload.
     * \param path the --workload text
     * \param format set to json, generator, chakra, chakra-json or aicb
     * \param file set to the file to read (for Chakra: the prefix)
     * \param ranks set to the number of Chakra rank files found ({prefix}.0 .. ranks-1), 0
     *        for the other formats
     * \param error set when path is none of these
     * \return true on success
     */
    static bool DetectWorkload(const std::string& path,
                               std::string& format,
                               std::string& file,
                               uint32_t& ranks,
                               std::string* error);

  private:
    /// Apply --topology (first: which other cluster options apply depends on it).
    void ApplyTopology(TrainingScenario& s) const;
    /// Refuse the cluster options the topology (file or ideal) does not take.
    void RefuseClusterOptionsNotTaken(const TrainingScenario& s) const;
    /// Apply the cluster options (servers .. oversubscription) and check the cluster.
    void ApplyCluster(TrainingScenario& s) const;
    /// Apply --cc and --ina.
    void ApplyFabric(TrainingScenario& s) const;
    /// Apply --algorithm, --channels, --qpsPerConnection, --splitDataOnQps and
    /// --ringTransfersPerPhase.
    void ApplyCollectives(TrainingScenario& s) const;
    /// Apply --computeScale, --compress, --parameterServers, --straggler, --slowNic,
    /// --jitter, --failGpu, --workload and --workload-format.
    void ApplyWorkload(TrainingScenario& s) const;
    /// Apply --straggler, --jitter, --failGpu and --slowNic.
    void ApplyStragglers(TrainingScenario& s) const;
    /// Apply --job (each one: its file's format detected, its placement read).
    void ApplyJobs(TrainingScenario& s) const;
};

} // namespace ns3

#endif // SCENARIO_OVERRIDES_H
