// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRAINING_SCENARIO_H
#define TRAINING_SCENARIO_H

#include "job-settings.h"
#include "straggler-settings.h"

#include "ns3/data-rate.h"
#include "ns3/gradient-compression.h"
#include "ns3/nstime.h"
#include "ns3/parameter-server-sync.h"
#include "ns3/transformer-trace-generator.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Everything one training simulation needs: cluster, fabric settings, workload, outputs.
 * Read from a scenario JSON file (schema in doc/ai-fabric.rst, "Scenario files") or
 * taken from Default(). Relative paths are resolved against the scenario file's folder.
 */
struct TrainingScenario
{
    std::string name{"default"};                     //!< for reports
    std::string source{"built-in default scenario"}; //!< where it came from

    // Cluster
    std::string topology{"rail-optimized"}; //!< "rail-optimized", "file" (packets) or "ideal"
    std::string topologyFile; //!< "file": a RoceTopologyReader JSON file (one host per
                              //!< GPU; servers and gpusPerServer come from it)
    uint32_t servers{2};
    uint32_t gpusPerServer{8};
    std::string gpu{"H100"};     //!< GpuPreset: NVLink, NVLS and compute figures
    DataRate nicRate{"400Gbps"}; //!< every NIC and fabric port
    uint32_t spines{2};
    uint32_t pods{1};             //!< rail-optimized pods (must divide servers)
    double oversubscription{1.0}; //!< rail leaf down/up capacity
    Time linkDelay{MicroSeconds(1)};
    DataRate idealRate{"400Gbps"};      //!< "ideal": per-rank port rate
    Time idealLatency{MicroSeconds(5)}; //!< "ideal": per-message latency

    // Fabric settings
    std::string congestionControl{"ns3::RoceDcqcn"};
    /// In-network aggregation: "off", or the protocol of the aggregation engines on every
    /// RoCE switch (InaHelper::GetProtocolNameList), so collectives may run as ina or
    /// nvls-ina.
    std::string ina{"off"};
    std::vector<std::pair<std::string, std::string>> config; //!< Config::SetDefault pairs

    /// A cable cut or mended during the run ("events").
    struct LinkEvent
    {
        Time at;           //!< when
        bool up{false};    //!< false: "fail", true: "recover"
        std::string a;     //!< one end's node name (nic<i>, sw<j>, as in links.csv)
        std::string b;     //!< the other end's
        Time convergence;  //!< routes recomputed this long after
        std::string place; //!< where it was given ("/events/0"), for errors
    };

    std::vector<LinkEvent> events; //!< in the order given

    /// Scale-out fabric model: "packet" (RdmaTransport, the reference) or "flow"
    /// (FlowTransport: max-min fair flows on the same routes, no packets)
    std::string fabricModel{"packet"};
    std::string fabricModelPlace{"/fabric/model"}; //!< where fabricModel was given

    /// Background flows beside the workload ("background"; BackgroundTraffic), none if
    /// backgroundFlowSizes is empty.
    std::string backgroundFlowSizes;
    double backgroundLoad{0.3}; //!< average load of each host link
    /// (source, destination) host indices; empty: all-to-all
    std::vector<std::pair<uint32_t, uint32_t>> backgroundPairs;

    // Workload
    std::string traceFormat{"json"}; //!< "json", "aicb", "chakra", "chakra-json" or "generator"
    std::string traceFile;           //!< json/aicb: the file; chakra: the prefix
                                     //!< ({prefix}.{rank}.et, or .json for chakra-json)
    TransformerConfig generator;     //!< "generator": the model
    uint32_t traceRanks{0};          //!< chakra/aicb: ranks (0: from the cluster)
    double computeScale{1.0};        //!< every compute duration is multiplied by it
                                     //!< (replaying a trace made for another GPU)
    /// compressed collectives (GradientCompression), in order: an op takes the first
    /// rule that selects it
    std::vector<CompressionRule> compression;
    StragglerSettings stragglers; //!< slow GPUs and NICs, compute jitter, failing GPUs
    /// parameter servers instead of all-reduce ("" or "GROUP:SERVERS[:PLACEMENT]", such
    /// as "dp:4" or "dp:2:byteps": ParameterServerSync), and where that was given
    std::string parameterServers;
    std::string parameterServersPlace; //!< where parameterServers was given

    /// What "GROUP:SERVERS[:PLACEMENT]" says.
    struct ParameterServerSetting
    {
        std::string group;   //!< a group kind or name
        uint32_t servers{0}; //!< servers per group (colocated) or CPU hosts
        ParameterServerSync::Placement placement{ParameterServerSync::COLOCATED}; //!< where
    };

    /**
     * Check "GROUP:SERVERS[:PLACEMENT]" (a group kind or name, 1 or more servers, and
     * where they are: colocated, the default, cpu or byteps).
     * \param text the text \param out set to what it says
     * \param why set to what was expected on failure
     * \return true if text is one
     */
    static bool ParseParameterServers(const std::string& text,
                                      ParameterServerSetting& out,
                                      std::string* why);

    /// Several jobs sharing the cluster, each with its own workload (empty: the one
    /// workload above, on GPUs 0..ranks-1)
    std::vector<JobSpec> jobs;
    /// jobs arriving while the cluster runs (none when its mix is empty)
    JobArrivals arrivals;

    // Collectives and run
    std::string algorithm{"auto"};
    /// NCCL protocol of every call (ns3::CollectiveEngine::Protocol): auto, LL, LL128,
    /// Simple or none, in any letter case
    std::string protocol{"auto"};
    uint32_t channels{0}; //!< 0: GPUs per server (NCCL opens one per NIC/rail)
    uint64_t chunkBytes{0};
    uint32_t qpsPerConnection{1}; //!< ns3::RdmaTransport::QpsPerConnection
    bool splitDataOnQps{false};   //!< ns3::RdmaTransport::SplitDataOnQps
    /// ns3::CollectiveEngine::RingTransfersPerPhase (coarsened rings); unset: the fabric
    /// model's default (GetRingTransfersPerPhase)
    std::optional<uint32_t> ringTransfersPerPhase;
    uint32_t iterations{1};
    uint32_t seed{1};
    Time hangTimeout{Seconds(1)};
    Time sampleInterval{MicroSeconds(20)};
    /// Steady-state fast-forward: "on", "off" (the packet reference) or "check" (run both
    /// and compare); FastForwardFeature
    std::string fastForward{"on"};
    /// With a fast-forward, replay NVSwitch calls (CollectiveEngine::ReplayIsolatedCalls;
    /// FastForwardFeature)
    bool replayCalls{true};

    // Outputs
    std::string outputDir{"ai-fabric-results"};
    bool plots{true};
    std::string pcapPrefix; //!< pcap files PREFIX-nic<i>.pcap, PREFIX-sw<j>-<port>.pcap
                            //!< (empty: no capture); not resolved like paths
    std::string pcapNodes;  //!< comma-separated node names to capture (empty: all)

    /// \return the number of GPUs (servers x gpusPerServer)
    uint32_t GetNGpus() const;

    // Ranges of the settings, for scenario files and command-line overrides alike.
    static constexpr uint32_t MAX_SERVERS = 4096;       //!< servers, pods
    static constexpr uint32_t MAX_GPUS_PER_SERVER = 72; //!< an NVL72 domain
    static constexpr uint32_t MAX_SPINES = 1024;        //!< spines
    static constexpr double MAX_OVERSUBSCRIPTION = 64;  //!< from 1
    static constexpr uint32_t MAX_CHANNELS = 64;        //!< NCCL's channel limit
    static constexpr uint32_t MAX_RING_TRANSFERS = 65536; //!< ringTransfersPerPhase
    /// The flow level's ring transfers per connection and phase unless one is chosen: a
    /// ring of up to 9 ranks (a server's GPUs) is not coarsened; at 1,024 and 2,048 GPUs
    /// (rings of 16 and 32 servers) its calls are within 0.1 % of the fine ring's
    static constexpr uint32_t FLOW_RING_TRANSFERS_PER_PHASE = 8;
    /// \return ringTransfersPerPhase, or its default: FLOW_RING_TRANSFERS_PER_PHASE at
    ///         flow level, 0 (a transfer per step) with packets
    uint32_t GetRingTransfersPerPhase() const;
    static constexpr double MAX_COMPUTE_SCALE = 1000;   //!< above 0
    /// The models of /fabric/model and --fabric, for messages
    static constexpr const char* FABRIC_MODELS = "packet or flow";
    /// \param model a name \return true if it is one of FABRIC_MODELS
    static bool IsFabricModel(const std::string& model);
    /// The modes of /run/fastForward and --fast-forward, for messages
    static constexpr const char* FAST_FORWARD_MODES = "on, off or check";
    /// \param mode a name \return true if it is one of FAST_FORWARD_MODES
    static bool IsFastForwardMode(const std::string& mode);

    /**
     * The checks that involve several cluster settings: pods divide the servers, and the
     * leaf-to-spine rate that gives the oversubscription is a usable rate (1 Mb/s or
     * more).
     * \param place set to the scenario place of the problem ("/cluster/pods", "/cluster")
     * \param what set to the problem
     * \return true if the cluster can be built
     */
    bool CheckCluster(std::string* place, std::string* what) const;

    /**
     * The built-in default: 2 H100 servers x 8 GPUs, one 400G NIC per GPU on a
     * rail-optimized fabric with 2 spines, DCQCN, replaying the shipped GPT-3 1.3B
     * trace (TP 8 x DP 2) from tracesDir (or generating the same trace if the file is
     * not there).
     */
    static TrainingScenario Default(const std::string& tracesDir);

    /**
     * Parse scenario JSON.
     * \param text the JSON
     * \param source file name for messages; relative paths resolve against its folder
     * \param error set to "file: /place: reason" on failure
     * \param scenario filled in (fields not given keep their defaults)
     * \return true on success
     */
    static bool Parse(const std::string& text,
                      const std::string& source,
                      TrainingScenario& scenario,
                      std::string* error);

    /// Read and Parse a scenario file.
    static bool Read(const std::string& file, TrainingScenario& scenario, std::string* error);

    /// Parse a duration such as "1us" (TextToTime: s, ms, us, ns, ps; at most an hour).
    static bool ParseDuration(const std::string& text, Time& t);
    /// Parse a rate such as "400Gbps" (TextToDataRate: the units ns-3's DataRate knows).
    static bool ParseRate(const std::string& text, DataRate& r);
};

} // namespace ns3

#endif // TRAINING_SCENARIO_H
