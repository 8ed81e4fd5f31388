// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-overrides.h"

#include "ns3/collective-algorithms.h"
#include "ns3/collective-protocol.h"
#include "ns3/collective-selection.h"
#include "ns3/gpu-preset.h"
#include "ns3/ina-helper.h"
#include "ns3/log.h"
#include "ns3/quantity-text.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/transformer-trace-generator.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/stat.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScenarioOverrides");

namespace
{

/// The form every bad option is reported in.
struct OptionError
{
    std::string message;
};

[[noreturn]] void
Bad(const std::string& option, const std::string& value, const std::string& what)
{
    throw OptionError{"--" + option + "=" + value + ": " + what};
}

uint32_t
Integer(const std::string& option, const std::string& text, uint32_t lo, uint32_t hi)
{
    const bool digits =
        !text.empty() && text.size() <= 10 && std::all_of(text.begin(), text.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
        });
    const uint64_t v = digits ? std::stoull(text) : 0;
    if (!digits || v < lo || v > hi)
    {
        Bad(option,
            text,
            "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    return static_cast<uint32_t>(v);
}

double
Number(const std::string& option, const std::string& text, double lo, double hi, bool aboveLo)
{
    char* end = nullptr;
    const double v = text.empty() || std::isspace(static_cast<unsigned char>(text[0]))
                         ? NAN
                         : std::strtod(text.c_str(), &end);
    if (!std::isfinite(v) || end != text.c_str() + text.size() || v < lo || (aboveLo && v == lo) ||
        v > hi)
    {
        std::ostringstream range;
        range << (aboveLo ? "above " : "from ") << lo << " to " << hi;
        Bad(option, text, "expected a number " + range.str());
    }
    return v;
}

/**
 * Read an option's comma-separated list into out (replacing it), each item by parse
 * with its place set to the option; a bad item, an empty one or a trailing comma stop
 * the program's options with one line. Nothing when the option is not given.
 */
template <typename T>
void
ReadList(const std::string& option,
         const std::string& value,
         std::vector<T>& out,
         bool (*parse)(const std::string&, T&, std::string*))
{
    if (value.empty())
    {
        return;
    }
    out.clear();
    std::istringstream items(value);
    const bool several = value.find(',') != std::string::npos;
    uint32_t n = 0;
    for (std::string text; std::getline(items, text, ',');)
    {
        T item;
        // With several items, which one: "--compress=dp:0.5,dp:0.25 (item 2)".
        item.place = "--" + option + "=" + value +
                     (several ? " (item " + std::to_string(++n) + ")" : std::string());
        std::string why;
        if (!parse(text, item, &why))
        {
            Bad(option, value, why);
        }
        out.push_back(item);
    }
    if (value.back() == ',')
    {
        Bad(option, value, "expected a comma-separated list");
    }
}

bool
IsFile(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// Rank files {prefix}.0{ext}, {prefix}.1{ext}, ...: how many there are in a row.
uint32_t
CountRankFiles(const std::string& prefix, const std::string& ext)
{
    uint32_t n = 0;
    while (n < (1u << 20) && IsFile(prefix + "." + std::to_string(n) + ext))
    {
        ++n;
    }
    return n;
}

/// "p.3.et" -> "p" (and ".et"); false if path is not a rank file name of that extension.
bool
SplitRankFile(const std::string& path, const std::string& ext, std::string& prefix)
{
    static const std::regex rank(R"(^(.+)\.[0-9]+$)");
    if (path.size() <= ext.size() || path.compare(path.size() - ext.size(), ext.size(), ext) != 0)
    {
        return false;
    }
    std::smatch m;
    const std::string stem = path.substr(0, path.size() - ext.size());
    if (!std::regex_match(stem, m, rank))
    {
        return false;
    }
    prefix = m[1];
    return true;
}

/// The first bytes of a file, for telling formats apart without reading it all.
std::string
Head(const std::string& path, size_t bytes)
{
    std::ifstream in(path, std::ios::binary);
    std::string head(bytes, '\0');
    in.read(&head[0], static_cast<std::streamsize>(bytes));
    head.resize(static_cast<size_t>(in.gcount()));
    return head;
}

/// Chakra rank files from a prefix or one rank file: the prefix and how many ranks.
bool
ChakraPrefix(const std::string& path, const std::string& ext, std::string& prefix, uint32_t& ranks)
{
    prefix = path;
    if (!IsFile(path + ".0" + ext))
    {
        if (!SplitRankFile(path, ext, prefix))
        {
            return false;
        }
    }
    ranks = CountRankFiles(prefix, ext);
    return ranks > 0;
}

} // namespace

const std::vector<ScenarioOverrides::Option>&
ScenarioOverrides::GetOptions()
{
    static const std::string ringHelp =
        "Coarsen ring and rail-ring all-reduce, reduce-scatter and all-gather: at most this "
        "many transfers per connection and phase, each carrying consecutive steps and their "
        "latencies (0: a transfer per step; default: " +
        std::to_string(TrainingScenario::FLOW_RING_TRANSFERS_PER_PHASE) +
        " at flow level, 0 with packets)";
    static const std::vector<Option> options{
        {"workload",
         "Workload file, format detected from the file: ai-fabric trace JSON, model config "
         "JSON (generated on the cluster's GPU), Chakra (.et or .json rank file, or their "
         "prefix), SimAI/AICB text",
         &ScenarioOverrides::workload},
        {"workload-format",
         "Force the format of --workload: json, generator, chakra, chakra-json or aicb",
         &ScenarioOverrides::workloadFormat},
        {"servers", "Servers (overrides the scenario's)", &ScenarioOverrides::servers},
        {"gpusPerServer", "GPUs and NICs per server", &ScenarioOverrides::gpusPerServer},
        {"gpu",
         "GPU preset: NVLink, NVLS and compute figures (A100, H100, H200, B200)",
         &ScenarioOverrides::gpu},
        {"nicRate",
         "Rate of every NIC and fabric port, e.g. 200Gbps (ideal: per-rank rate)",
         &ScenarioOverrides::nicRate},
        {"spines", "Spines of the rail-optimized fabric", &ScenarioOverrides::spines},
        {"pods",
         "Pods of the rail-optimized fabric (dividing the servers): servers of different "
         "pods reach each other through the spines",
         &ScenarioOverrides::pods},
        {"oversubscription",
         "Rail leaf downlink/uplink capacity, e.g. 2 for 2:1",
         &ScenarioOverrides::oversubscription},
        {"topology",
         "Scale-out fabric: a RoceTopologyReader JSON file (one host per GPU), or "
         "rail-optimized, or ideal",
         &ScenarioOverrides::topology},
        {"fabric",
         "Scale-out fabric model: packet (every frame, the reference) or flow (max-min fair "
         "flows on the same routes: no queues, PFC, ECN or congestion-control dynamics; "
         "ns3::FlowTransport)",
         &ScenarioOverrides::fabric},
        {"cc",
         "Congestion control: a TypeId such as ns3::RoceDcqcn, or none",
         &ScenarioOverrides::cc},
        {"ina",
         "In-network aggregation on every RoCE switch: off, streaming (ATP/SHARP-like) or "
         "switchml; collectives may then run as ina (all-reduce, reduce-scatter, all-gather, "
         "broadcast, reduce) or nvls-ina (all-reduce)",
         &ScenarioOverrides::ina},
        {"algorithm",
         "Collective algorithm for every call (auto picks the fastest)",
         &ScenarioOverrides::algorithm},
        {"protocol",
         "NCCL protocol of every call, as NCCL_PROTO: auto (the fastest per call, as NCCL's "
         "tuner picks), LL, LL128, Simple, or none (no protocol costs: the wire bound)",
         &ScenarioOverrides::protocol},
        {"channels", "Channels per collective (0: the default rule)", &ScenarioOverrides::channels},
        {"qpsPerConnection",
         "Queue pairs per RDMA connection, each with its own UDP source port for ECMP "
         "(NCCL_IB_QPS_PER_CONNECTION; 1)",
         &ScenarioOverrides::qpsPerConnection},
        {"splitDataOnQps",
         "Split every transfer evenly over a connection's queue pairs "
         "(NCCL_IB_SPLIT_DATA_ON_QPS=1); false: 512 KiB requests take them in turn (NCCL's "
         "default)",
         &ScenarioOverrides::splitDataOnQps},
        {"ringTransfersPerPhase", ringHelp.c_str(), &ScenarioOverrides::ringTransfersPerPhase},
        {"computeScale",
         "Multiply every compute duration, e.g. to replay a trace made for another GPU",
         &ScenarioOverrides::computeScale},
        {"compress",
         "Compressed collectives, comma-separated rules (replace the scenario's): "
         "SELECTOR:FACTOR (dense: the bytes on the wire x FACTOR) or SELECTOR:topk:DENSITY "
         "(all-reduce as an all-gather of the top-k values and indices); SELECTOR is a group "
         "kind (dp, tp, pp, ep), a group name or op=TEXT (op names containing TEXT); "
         "encode/decode kernels at the GPU's HBM bandwidth (ns3::GradientCompression)",
         &ScenarioOverrides::compress},
        {"parameterServers",
         "Parameter servers instead of all-reduce, GROUP:SERVERS[:PLACEMENT] (e.g. dp:4, "
         "dp:2:cpu): every all-reduce of those groups as pushes to and pulls from SERVERS "
         "ranks of the group (colocated), SERVERS dedicated CPU hosts with their own NICs "
         "(cpu), or a reduce-scatter inside each server then the CPU hosts (byteps) "
         "(ns3::ParameterServerSync)",
         &ScenarioOverrides::parameterServers},
        {"straggler",
         "Slow GPUs, comma-separated RANKS:FACTOR (replace the scenario's): every compute op "
         "of those ranks takes FACTOR x its duration; RANKS a rank or a range a-b",
         &ScenarioOverrides::straggler},
        {"jitter",
         "Random factor on each compute op, drawn with the seed: normal:SIGMA or "
         "lognormal:SIGMA (mean 1), or cdf:FILE (a measured CDF, lines \"factor percent\") "
         "(ns3::WorkloadRunner::ComputeJitter)",
         &ScenarioOverrides::jitter},
        {"failGpu",
         "GPUs that fail, comma-separated RANK:TIME (e.g. 2:10ms): the job stops making "
         "progress and the hang report names them",
         &ScenarioOverrides::failGpu},
        {"restart",
         "After a GPU fails, restart every rank this long later (e.g. 5ms) from the last "
         "iteration they all completed, the GPU replaced (ns3::WorkloadRunner::"
         "RestartOnFailure); without: the job stops and the hang report names the GPU",
         &ScenarioOverrides::restart},
        {"slowNic",
         "Slow NICs, comma-separated RANK:RATE (e.g. 5:100Gbps): the link of that GPU's NIC, "
         "both ends, at RATE (at most its rate)",
         &ScenarioOverrides::slowNic},
        {"fast-forward",
         "Steady-state fast-forward of the RDMA fabric and the NVSwitches: on, off (the packet "
         "reference) or check (run both ways and compare)",
         &ScenarioOverrides::fastForward},
        {"replay-calls",
         "With a fast-forward (on or check), replay a call on one server's NVSwitch that ran "
         "there before, alone, instead of simulating its chunks again: on (exact unless "
         "something else is posted on the switch meanwhile; counted) or off",
         &ScenarioOverrides::replayCalls},
    };
    return options;
}

bool
ScenarioOverrides::DetectWorkload(const std::string& path,
                                  std::string& format,
                                  std::string& file,
                                  uint32_t& ranks,
                                  std::string* error)
{
    ranks = 0;
    file = path;
    if (!IsFile(path))
    {
        // A Chakra prefix names no file itself.
        for (const auto& [fmt, ext] :
             {std::pair{"chakra", ".et"}, std::pair{"chakra-json", ".json"}})
        {
            if (IsFile(path + ".0" + ext))
            {
                format = fmt;
                ranks = CountRankFiles(path, ext);
                return true;
            }
        }
        *error = "--workload=" + path + ": no such file (nor Chakra rank files " + path +
                 ".0.et or " + path + ".0.json)";
        return false;
    }
    const std::string head = Head(path, 64 * 1024);
    const size_t first = head.find_first_not_of(" \t\r\n");
    const bool binary = head.find('\0') != std::string::npos;
    if (!binary && first != std::string::npos && (head[first] == '{' || head[first] == '['))
    {
        if (head.find("\"ai-fabric-trace/") != std::string::npos)
        {
            format = "json";
            return true;
        }
        const bool chakra = head[first] == '[' || head.find("\"nodes\"") != std::string::npos ||
                            head.find("\"workload_graph\"") != std::string::npos;
        if (!chakra)
        {
            format = "generator"; // a model config; ParseConfig names what is wrong
            return true;
        }
        if (!ChakraPrefix(path, ".json", file, ranks))
        {
            *error = "--workload=" + path +
                     ": a Chakra JSON trace, but not named {prefix}.{rank}.json (rank files are "
                     "found by that pattern)";
            return false;
        }
        format = "chakra-json";
        return true;
    }
    if (binary || (path.size() > 3 && path.compare(path.size() - 3, 3, ".et") == 0))
    {
        if (!ChakraPrefix(path, ".et", file, ranks))
        {
            *error = "--workload=" + path +
                     ": a binary file, but not a Chakra rank file {prefix}.{rank}.et";
            return false;
        }
        format = "chakra";
        return true;
    }
    format = "aicb";
    return true;
}

void
ScenarioOverrides::ApplyTopology(TrainingScenario& s) const
{
    if (!topology.empty())
    {
        if (topology == "rail-optimized" || topology == "ideal")
        {
            s.topology = topology;
            s.topologyFile.clear();
        }
        else if (!IsFile(topology))
        {
            Bad("topology",
                topology,
                "expected a topology file, rail-optimized or ideal (no such file)");
        }
        else
        {
            s.topology = "file";
            s.topologyFile = topology;
        }
    }
}

void
ScenarioOverrides::RefuseClusterOptionsNotTaken(const TrainingScenario& s) const
{
    // Settings the cluster's source does not take are errors, not silently ignored.
    auto needs =
        [&s](const std::string& option, const std::string& value, bool ok, const char* why) {
            if (!value.empty() && !ok)
            {
                Bad(option,
                    value,
                    std::string(why) +
                        (s.topology == "file" ? " (topology file " + s.topologyFile + ")" : ""));
            }
        };
    const bool fromFile = s.topology == "file";
    const bool ideal = s.topology == "ideal";
    needs("servers", servers, !fromFile, "the topology file gives the servers");
    needs("gpusPerServer", gpusPerServer, !fromFile, "the topology file gives the GPUs per server");
    needs("nicRate", nicRate, !fromFile, "the topology file gives the link rates");
    needs("spines", spines, !fromFile && !ideal, "only a rail-optimized cluster has spines here");
    needs("pods", pods, !fromFile && !ideal, "only a rail-optimized cluster has pods here");
    needs("oversubscription",
          oversubscription,
          !fromFile && !ideal,
          "only a rail-optimized cluster is oversubscribed here");
    needs("cc", cc, !ideal, "the ideal topology has no NICs");
    needs("fabric", fabric, !ideal, "the ideal topology has no fabric to model");
    needs("ina", ina, !ideal, "the ideal topology has no switches to aggregate in");
    needs("qpsPerConnection", qpsPerConnection, !ideal, "the ideal topology has no queue pairs");
    needs("splitDataOnQps", splitDataOnQps, !ideal, "the ideal topology has no queue pairs");
}

void
ScenarioOverrides::ApplyCluster(TrainingScenario& s) const
{
    const bool ideal = s.topology == "ideal";
    if (!servers.empty())
    {
        s.servers = Integer("servers", servers, 1, TrainingScenario::MAX_SERVERS);
    }
    if (!gpusPerServer.empty())
    {
        s.gpusPerServer =
            Integer("gpusPerServer", gpusPerServer, 1, TrainingScenario::MAX_GPUS_PER_SERVER);
    }
    if (!gpu.empty())
    {
        if (!GpuPreset::Find(gpu))
        {
            Bad("gpu", gpu, "expected a GPU preset: " + GpuPreset::GetNameList());
        }
        s.gpu = gpu;
    }
    if (!nicRate.empty())
    {
        DataRate rate;
        if (!TextToDataRate(nicRate, rate))
        {
            Bad("nicRate", nicRate, "expected a positive rate such as 400Gbps");
        }
        (ideal ? s.idealRate : s.nicRate) = rate;
    }
    if (!spines.empty())
    {
        s.spines = Integer("spines", spines, 1, TrainingScenario::MAX_SPINES);
    }
    if (!pods.empty())
    {
        s.pods = Integer("pods", pods, 1, TrainingScenario::MAX_SERVERS);
    }
    if (!oversubscription.empty())
    {
        s.oversubscription = Number("oversubscription",
                                    oversubscription,
                                    1,
                                    TrainingScenario::MAX_OVERSUBSCRIPTION,
                                    false);
    }
    std::string place;
    std::string what;
    if (!s.CheckCluster(&place, &what))
    {
        // Name the options that made the cluster what it is.
        std::string given;
        for (const Option& o : GetOptions())
        {
            const std::string name = o.name;
            if (!(this->*o.field).empty() &&
                (name == "servers" || name == "spines" || name == "pods" ||
                 name == "oversubscription" || name == "nicRate"))
            {
                given += (given.empty() ? "--" : ", --") + name + "=" + this->*o.field;
            }
        }
        throw OptionError{given + ": " + what + " (with the scenario's other settings, " +
                          s.source + ")"};
    }
}

void
ScenarioOverrides::ApplyFabric(TrainingScenario& s) const
{
    if (!cc.empty())
    {
        TypeId tid;
        if (!RoceCongestionControl::LookupByName(cc, &tid))
        {
            Bad("cc", cc, "expected " + RoceCongestionControl::GetNameHint());
        }
        s.congestionControl = tid.GetName();
    }
    if (!fabric.empty())
    {
        if (!TrainingScenario::IsFabricModel(fabric))
        {
            Bad("fabric", fabric, std::string("expected ") + TrainingScenario::FABRIC_MODELS);
        }
        s.fabricModel = fabric;
        s.fabricModelPlace = "--fabric=" + fabric;
    }
    if (!ina.empty())
    {
        InaProtocol protocol;
        if (ina != "off" && !InaHelper::ParseProtocol(ina, &protocol))
        {
            Bad("ina", ina, "expected off, " + InaHelper::GetProtocolNameList());
        }
        s.ina = ina;
    }
    if (!fastForward.empty())
    {
        if (!TrainingScenario::IsFastForwardMode(fastForward))
        {
            Bad("fast-forward",
                fastForward,
                std::string("expected ") + TrainingScenario::FAST_FORWARD_MODES);
        }
        s.fastForward = fastForward;
    }
    if (!replayCalls.empty() && !TextToBool(replayCalls, s.replayCalls))
    {
        Bad("replay-calls", replayCalls, std::string("expected ") + FLAG_FORMS);
    }
}

void
ScenarioOverrides::ApplyCollectives(TrainingScenario& s) const
{
    if (!algorithm.empty())
    {
        bool known = false;
        CollectiveSelection selection;
        selection.CanMakePlan(CollectiveType::ALL_REDUCE,
                              algorithm,
                              CommGroup::Uniform(1, 2),
                              &known);
        if (!known)
        {
            Bad("algorithm", algorithm, "expected one of " + GetCollectiveAlgorithmNameList());
        }
        s.algorithm = algorithm;
    }
    if (!protocol.empty())
    {
        CollectiveProtocol p;
        if (!CollectiveProtocolFromString(protocol, p))
        {
            Bad("protocol", protocol, "expected one of " + GetCollectiveProtocolNameList());
        }
        s.protocol = protocol;
    }
    if (!channels.empty())
    {
        s.channels = Integer("channels", channels, 0, TrainingScenario::MAX_CHANNELS);
    }
    if (!qpsPerConnection.empty())
    {
        s.qpsPerConnection =
            Integer("qpsPerConnection", qpsPerConnection, 1, RdmaTransport::MAX_QPS_PER_CONNECTION);
    }
    if (!splitDataOnQps.empty())
    {
        if (!TextToBool(splitDataOnQps, s.splitDataOnQps))
        {
            Bad("splitDataOnQps", splitDataOnQps, std::string("expected ") + FLAG_FORMS);
        }
    }
    if (!ringTransfersPerPhase.empty())
    {
        s.ringTransfersPerPhase = Integer("ringTransfersPerPhase",
                                          ringTransfersPerPhase,
                                          0,
                                          TrainingScenario::MAX_RING_TRANSFERS);
    }
}

void
ScenarioOverrides::ApplyStragglers(TrainingScenario& s) const
{
    ReadList("straggler", straggler, s.stragglers.slow, &StragglerSettings::ParseSlow);
    ReadList("slowNic", slowNic, s.stragglers.nics, &StragglerSettings::ParseSlowNic);
    ReadList("failGpu", failGpu, s.stragglers.failures, &StragglerSettings::ParseFailure);
    if (!jitter.empty())
    {
        std::string why;
        if (!StragglerSettings::ParseJitter(jitter, &why))
        {
            Bad("jitter", jitter, why);
        }
        s.stragglers.jitter = jitter;
        s.stragglers.jitterPlace = "--jitter=" + jitter;
    }
    if (!restart.empty())
    {
        std::string why;
        if (!StragglerSettings::ParseRestart(restart, s.stragglers.restartDelay, &why))
        {
            Bad("restart", restart, why);
        }
        s.stragglers.restartPlace = "--restart=" + restart;
    }
}

void
ScenarioOverrides::ApplyWorkload(TrainingScenario& s) const
{
    if (!computeScale.empty())
    {
        s.computeScale =
            Number("computeScale", computeScale, 0, TrainingScenario::MAX_COMPUTE_SCALE, true);
    }
    ReadList("compress", compress, s.compression, &GradientCompression::ParseRule);
    if (!parameterServers.empty())
    {
        TrainingScenario::ParameterServerSetting setting;
        std::string why;
        if (!TrainingScenario::ParseParameterServers(parameterServers, setting, &why))
        {
            Bad("parameterServers", parameterServers, why);
        }
        s.parameterServers = parameterServers;
        s.parameterServersPlace = "--parameterServers=" + parameterServers;
    }
    ApplyStragglers(s);
    if (!workloadFormat.empty() && workload.empty())
    {
        Bad("workload-format", workloadFormat, "needs --workload");
    }
    if (!workload.empty())
    {
        std::string format;
        std::string file;
        uint32_t ranks = 0;
        if (workloadFormat.empty())
        {
            std::string why;
            if (!DetectWorkload(workload, format, file, ranks, &why))
            {
                throw OptionError{why};
            }
            NS_LOG_INFO(workload << ": detected format " << format);
        }
        else if (workloadFormat == "chakra" || workloadFormat == "chakra-json")
        {
            format = workloadFormat;
            if (!ChakraPrefix(workload, format == "chakra" ? ".et" : ".json", file, ranks))
            {
                Bad("workload",
                    workload,
                    "no Chakra rank files {prefix}.{rank}" +
                        std::string(format == "chakra" ? ".et" : ".json"));
            }
        }
        else if (workloadFormat == "json" || workloadFormat == "aicb" ||
                 workloadFormat == "generator")
        {
            format = workloadFormat;
            file = workload;
            if (!IsFile(workload))
            {
                Bad("workload", workload, "no such file");
            }
        }
        else
        {
            Bad("workload-format",
                workloadFormat,
                "expected json, generator, chakra, chakra-json or aicb");
        }
        s.traceFormat = format;
        s.traceFile = file;
        s.traceRanks = ranks;
        if (format == "generator")
        {
            std::ifstream in(file, std::ios::binary);
            std::ostringstream text;
            text << in.rdbuf();
            TransformerConfig config;
            std::string why;
            if (!TransformerTraceGenerator::ParseConfig(text.str(), file, config, &why))
            {
                throw OptionError{"--workload: " + why};
            }
            s.generator = config;
        }
    }
}

void
ScenarioOverrides::ApplyJobs(TrainingScenario& s) const
{
    if (!workload.empty() && (!jobs.empty() || !s.jobs.empty() || !s.arrivals.mix.empty()))
    {
        throw OptionError{"--workload=" + workload +
                          ": with jobs (--job, or the scenario's \"jobs\" or \"arrivals\"), "
                          "each job gives its workload"};
    }
    if (jobs.empty())
    {
        return;
    }
    std::vector<JobSpec> list;
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        const std::string& text = jobs[i];
        const std::string place = std::string("--") + JOB_OPTION + "=" + text;
        JobSpec job;
        job.name = "job" + std::to_string(i + 1);
        job.place = place;
        // FILE[:PLACEMENT]: a suffix after the last colon that is a placement; otherwise
        // the whole text is the file.
        std::string path = text;
        const size_t colon = text.rfind(':');
        std::string why;
        if (colon != std::string::npos && colon > 0 &&
            JobSpec::ParsePlacement(text.substr(colon + 1), job, &why))
        {
            path = text.substr(0, colon);
        }
        else if (colon != std::string::npos && !IsFile(text) && IsFile(text.substr(0, colon)))
        {
            throw OptionError{place + ": " + why};
        }
        uint32_t ranks = 0;
        if (!DetectWorkload(path, job.traceFormat, job.traceFile, ranks, &why))
        {
            const std::string prefix = "--workload=" + path;
            throw OptionError{place +
                              (why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : ": " + why)};
        }
        job.traceRanks = ranks;
        if (job.traceFormat == "generator")
        {
            std::ifstream in(path, std::ios::binary);
            std::ostringstream content;
            content << in.rdbuf();
            if (!TransformerTraceGenerator::ParseConfig(content.str(), path, job.generator, &why))
            {
                throw OptionError{place + ": " + why};
            }
        }
        else if (job.traceFormat == "aicb")
        {
            throw OptionError{place + ": a SimAI/AICB workload does not say how many ranks it has: "
                                      "give the job in a scenario's \"jobs\" list with \"gpus\""};
        }
        list.push_back(job);
    }
    s.jobs = list;
}

bool
ScenarioOverrides::Apply(TrainingScenario& s, std::string* error) const
{
    try
    {
        ApplyTopology(s);
        RefuseClusterOptionsNotTaken(s);
        ApplyCluster(s);
        ApplyFabric(s);
        ApplyCollectives(s);
        ApplyWorkload(s);
        ApplyJobs(s);
    }
    catch (const OptionError& e)
    {
        *error = e.message;
        return false;
    }
    // The reports name the run: say what was changed from the scenario's own name.
    std::string changes;
    for (const Option& o : GetOptions())
    {
        if (!(this->*o.field).empty())
        {
            changes +=
                std::string(changes.empty() ? "" : " ") + "--" + o.name + "=" + this->*o.field;
        }
    }
    for (const std::string& job : jobs)
    {
        changes += std::string(changes.empty() ? "" : " ") + "--" + JOB_OPTION + "=" + job;
    }
    if (!changes.empty())
    {
        s.name += " (what-if: " + changes + ")";
    }
    return true;
}

} // namespace ns3
