// SPDX-License-Identifier: GPL-2.0-only
#include "training-scenario.h"

#include "../../model/workload/json-text.h"
#include "scenario-section.h"

#include "ns3/collective-protocol.h"
#include "ns3/flow-size-cdf.h"
#include "ns3/gpu-preset.h"
#include "ns3/ina-helper.h"
#include "ns3/quantity-text.h"
#include "ns3/rdma-transport.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ns3
{

using namespace scenario_json;

bool
TrainingScenario::ParseDuration(const std::string& text, Time& t)
{
    return TextToTime(text, t);
}

bool
TrainingScenario::ParseParameterServers(const std::string& text,
                                        ParameterServerSetting& out,
                                        std::string* why)
{
    std::string rest = text;
    out.placement = ParameterServerSync::COLOCATED;
    const size_t last = rest.rfind(':');
    if (std::count(rest.begin(), rest.end(), ':') >= 2)
    {
        if (!ParameterServerSync::PlacementFromString(rest.substr(last + 1), &out.placement))
        {
            *why =
                "expected a placement after SERVERS: " + ParameterServerSync::GetPlacementNames() +
                ", got \"" + rest.substr(last + 1) + "\" in \"" + text + "\"";
            return false;
        }
        rest = rest.substr(0, last);
    }
    const size_t colon = rest.rfind(':');
    const std::string count = colon == std::string::npos ? "" : rest.substr(colon + 1);
    const bool digits = !count.empty() && count.size() <= 6 &&
                        count.find_first_not_of("0123456789") == std::string::npos;
    if (colon == std::string::npos || colon == 0 || !digits || std::stoul(count) == 0)
    {
        *why = "expected GROUP:SERVERS[:PLACEMENT] (a group kind such as dp, or a group name, "
               "the parameter servers, and where they are: " +
               ParameterServerSync::GetPlacementNames() + "; e.g. dp:4 or dp:2:cpu), got \"" +
               text + "\"";
        return false;
    }
    out.group = rest.substr(0, colon);
    out.servers = static_cast<uint32_t>(std::stoul(count));
    if (out.placement != ParameterServerSync::COLOCATED &&
        out.servers > ParameterServerSync::MAX_CPU_SERVERS)
    {
        *why = "expected at most " + std::to_string(ParameterServerSync::MAX_CPU_SERVERS) +
               " CPU hosts, got " + count + " in \"" + text + "\"";
        return false;
    }
    return true;
}

bool
TrainingScenario::ParseRate(const std::string& text, DataRate& r)
{
    return TextToDataRate(text, r);
}

namespace
{

/// Read the "cluster" section into s.
void
ParseCluster(const Json& obj, const std::string& source, TrainingScenario& s)
{
    Section c(obj, "/cluster");
    s.topology = c.Text("topology", s.topology);
    if (s.topology != "rail-optimized" && s.topology != "ideal" && s.topology != "file")
    {
        Fail("/cluster/topology",
             "expected \"rail-optimized\", \"file\" or \"ideal\", got \"" + s.topology + "\"");
    }
    s.topologyFile = Resolve(c.Text("file", ""), source);
    if ((s.topology == "file") == s.topologyFile.empty())
    {
        Fail("/cluster/file", "a topology file is given exactly when \"topology\" is \"file\"");
    }
    s.servers = c.Unsigned("servers", s.servers, 1, TrainingScenario::MAX_SERVERS);
    s.gpusPerServer =
        c.Unsigned("gpusPerServer", s.gpusPerServer, 1, TrainingScenario::MAX_GPUS_PER_SERVER);
    s.gpu = c.Text("gpu", s.gpu);
    if (!GpuPreset::Find(s.gpu))
    {
        Fail("/cluster/gpu", "expected " + GpuPreset::GetNameList() + ", got \"" + s.gpu + "\"");
    }
    s.nicRate = c.Rate("nicRate", s.nicRate);
    s.spines = c.Unsigned("spines", s.spines, 1, TrainingScenario::MAX_SPINES);
    s.pods = c.Unsigned("pods", s.pods, 1, TrainingScenario::MAX_SERVERS);
    s.oversubscription = c.Number("oversubscription",
                                  s.oversubscription,
                                  1.0,
                                  TrainingScenario::MAX_OVERSUBSCRIPTION);
    s.linkDelay = c.Duration("linkDelay", s.linkDelay);
    s.idealRate = c.Rate("idealRate", s.idealRate);
    s.idealLatency = c.Duration("idealLatency", s.idealLatency);
    std::string place;
    std::string what;
    if (!s.CheckCluster(&place, &what))
    {
        Fail(place, what);
    }
    c.Done();
}

/// Read the "fabric" section into s.
void
ParseFabric(const Json& obj, TrainingScenario& s)
{
    Section f(obj, "/fabric");
    s.congestionControl = f.Text("congestionControl", s.congestionControl);
    s.fabricModel = f.Text("model", s.fabricModel);
    if (!TrainingScenario::IsFabricModel(s.fabricModel))
    {
        Fail("/fabric/model",
             std::string("expected ") + TrainingScenario::FABRIC_MODELS + ", got \"" +
                 s.fabricModel + "\"");
    }
    s.ina = f.Text("ina", s.ina);
    InaProtocol protocol;
    if (s.ina != "off" && !InaHelper::ParseProtocol(s.ina, &protocol))
    {
        Fail("/fabric/ina",
             "expected \"off\" or a protocol (" + InaHelper::GetProtocolNameList() + "), got \"" +
                 s.ina + "\"");
    }
    if (s.ina != "off" && s.topology == "ideal")
    {
        Fail("/fabric/ina", "the ideal topology has no switches to aggregate in");
    }
    if (s.fabricModel == "flow" && s.topology == "ideal")
    {
        Fail("/fabric/model", "the ideal topology has no fabric to model");
    }
    if (f.Has("config"))
    {
        Section cfg(f.Get("config"), "/fabric/config");
        for (auto it = f.Get("config").begin(); it != f.Get("config").end(); ++it)
        {
            cfg.Has(it.key());
            const Json& v = it.value();
            std::string value;
            if (v.is_string())
            {
                value = v.get<std::string>();
            }
            else if (v.is_number() || v.is_boolean())
            {
                value = v.dump();
            }
            else
            {
                Fail("/fabric/config/" + it.key(), "expected a string, number or boolean value");
            }
            s.config.emplace_back(it.key(), value);
        }
    }
    f.Done();
}

} // namespace

bool
scenario_json::ParseWorkloadSection(const Json& obj,
                                    const std::string& where,
                                    const std::string& source,
                                    TrainingScenario& s,
                                    std::string* error)
{
    Section w(obj, where);
    s.traceFormat = w.Text("format", "json");
    if (s.traceFormat == "generator")
    {
        if (!w.Has("model"))
        {
            Fail(where, "format \"generator\" needs a \"model\" object");
        }
        std::string why;
        TransformerConfig g;
        if (!TransformerTraceGenerator::ParseConfig(w.Get("model").dump(),
                                                    source + " " + w.Where("model"),
                                                    g,
                                                    &why))
        {
            *error = why;
            return false;
        }
        s.generator = g;
        s.traceFile.clear(); // no file: the workload is the model above
    }
    else if (s.traceFormat == "json" || s.traceFormat == "aicb" || s.traceFormat == "chakra" ||
             s.traceFormat == "chakra-json")
    {
        if (!w.Has("file"))
        {
            Fail(where, "format \"" + s.traceFormat + "\" needs a \"file\" (chakra: the prefix)");
        }
        s.traceFile = Resolve(w.Text("file", ""), source);
        s.traceRanks = w.Unsigned("ranks", 0, 0, 1u << 20);
    }
    else
    {
        Fail(w.Where("format"),
             "expected json, chakra, chakra-json, aicb or generator, got \"" + s.traceFormat +
                 "\"");
    }
    s.computeScale =
        w.Number("computeScale", s.computeScale, 0, TrainingScenario::MAX_COMPUTE_SCALE);
    if (s.computeScale <= 0)
    {
        Fail(w.Where("computeScale"), "must be above 0");
    }
    w.Done();
    return true;
}

namespace
{

/// Read the "collectives" section into s.
void
ParseCollectives(const Json& obj, TrainingScenario& s)
{
    Section c(obj, "/collectives");
    s.algorithm = c.Text("algorithm", s.algorithm);
    s.protocol = c.Text("protocol", s.protocol);
    CollectiveProtocol protocol;
    if (!CollectiveProtocolFromString(s.protocol, protocol))
    {
        Fail("/collectives/protocol",
             "expected one of " + GetCollectiveProtocolNameList() + ", not \"" + s.protocol + "\"");
    }
    s.channels = c.Unsigned("channels", s.channels, 0, TrainingScenario::MAX_CHANNELS);
    s.chunkBytes = c.Unsigned("chunkBytes", s.chunkBytes, 0, uint64_t{1} << 34);
    if (s.chunkBytes != 0 && s.chunkBytes < 4096)
    {
        // Smaller chunks would cut a plan into millions of transfers.
        Fail("/collectives/chunkBytes",
             "must be 0 (each algorithm's default chunk) or at least 4096");
    }
    s.qpsPerConnection = c.Unsigned("qpsPerConnection",
                                    s.qpsPerConnection,
                                    1,
                                    RdmaTransport::MAX_QPS_PER_CONNECTION);
    s.splitDataOnQps = c.Bool("splitDataOnQps", s.splitDataOnQps);
    if (c.Has("ringTransfersPerPhase"))
    {
        s.ringTransfersPerPhase = static_cast<uint32_t>(
            c.Unsigned("ringTransfersPerPhase", 0, 0, TrainingScenario::MAX_RING_TRANSFERS));
    }
    for (const char* key : {"qpsPerConnection", "splitDataOnQps"})
    {
        if (c.Has(key) && s.topology == "ideal")
        {
            Fail(std::string("/collectives/") + key, "the ideal topology has no queue pairs");
        }
    }
    c.Done();
}

/// Read the "run" section into s.
void
ParseRun(const Json& obj, TrainingScenario& s)
{
    Section r(obj, "/run");
    s.iterations = r.Unsigned("iterations", s.iterations, 1, 100000);
    s.seed = r.Unsigned("seed", s.seed, 1, 1u << 30);
    s.hangTimeout = r.Duration("hangTimeout", s.hangTimeout);
    if (s.hangTimeout < MicroSeconds(1))
    {
        Fail("/run/hangTimeout", "must be at least 1us");
    }
    s.sampleInterval = r.Duration("sampleInterval", s.sampleInterval);
    if (s.sampleInterval < NanoSeconds(100) || s.sampleInterval > Seconds(10))
    {
        Fail("/run/sampleInterval", "must be between 100ns and 10s");
    }
    s.fastForward = r.Text("fastForward", s.fastForward);
    if (!TrainingScenario::IsFastForwardMode(s.fastForward))
    {
        Fail("/run/fastForward",
             std::string("expected ") + TrainingScenario::FAST_FORWARD_MODES + ", got \"" +
                 s.fastForward + "\"");
    }
    s.replayCalls = r.Bool("replayCalls", s.replayCalls);
    r.Done();
}

/// Read the "events" list into s.
void
ParseEvents(const Json& list, TrainingScenario& s)
{
    if (!list.is_array())
    {
        Fail("/events", "expected a list of {\"at\", \"fail\" or \"recover\"}");
    }
    for (std::size_t i = 0; i < list.size(); ++i)
    {
        const std::string place = "/events/" + std::to_string(i);
        Section e(list[i], place);
        TrainingScenario::LinkEvent ev;
        ev.place = place;
        if (!e.Has("at"))
        {
            Fail(place, "expected \"at\": a time such as \"5ms\"");
        }
        ev.at = e.Duration("at", Time());
        ev.convergence = e.Duration("convergence", MicroSeconds(100));
        if (e.Has("fail") == e.Has("recover"))
        {
            Fail(place, "expected exactly one of \"fail\" and \"recover\"");
        }
        ev.up = e.Has("recover");
        const std::string key = ev.up ? "recover" : "fail";
        const std::string link = e.Text(key, "");
        const std::size_t dash = link.find('-');
        if (dash == std::string::npos || dash == 0 || dash + 1 == link.size() ||
            link.find('-', dash + 1) != std::string::npos)
        {
            Fail(place + "/" + key,
                 "expected a cable as two node names of links.csv, such as "
                 "\"sw0-sw8\", got \"" +
                     link + "\"");
        }
        ev.a = link.substr(0, dash);
        ev.b = link.substr(dash + 1);
        e.Done();
        s.events.push_back(ev);
    }
}

/// Read the "compression" list into s (GradientCompression::ParseRule's rules).
void
ParseCompression(const Json& list, const std::string& source, TrainingScenario& s)
{
    ReadList(list,
             "/compression",
             source,
             "[\"dp:0.25\", \"tp:topk:0.01\"]",
             s.compression,
             &GradientCompression::ParseRule);
}

/// Read the "stragglers" section into s (StragglerSettings' text forms).
void
ParseStragglers(const Json& obj, const std::string& source, TrainingScenario& s)
{
    Section st(obj, "/stragglers");
    StragglerSettings& out = s.stragglers;
    if (st.Has("slow"))
    {
        ReadList(st.Get("slow"),
                 "/stragglers/slow",
                 source,
                 "[\"3:1.5\"]",
                 out.slow,
                 &StragglerSettings::ParseSlow);
    }
    if (st.Has("nics"))
    {
        ReadList(st.Get("nics"),
                 "/stragglers/nics",
                 source,
                 "[\"5:100Gbps\"]",
                 out.nics,
                 &StragglerSettings::ParseSlowNic);
    }
    if (st.Has("failures"))
    {
        ReadList(st.Get("failures"),
                 "/stragglers/failures",
                 source,
                 "[\"2:10ms\"]",
                 out.failures,
                 &StragglerSettings::ParseFailure);
    }
    std::string why;
    if (st.Has("restart"))
    {
        const std::string text = st.Text("restart", "");
        out.restartPlace = source + ": /stragglers/restart";
        if (!StragglerSettings::ParseRestart(text, out.restartDelay, &why))
        {
            Fail("/stragglers/restart", why);
        }
    }
    if (st.Has("jitter"))
    {
        out.jitter = st.Text("jitter", "");
        const std::string cdf = "cdf:";
        if (out.jitter.rfind(cdf, 0) == 0)
        {
            // A CDF file, as every file of a scenario, relative to the scenario's folder.
            out.jitter = cdf + Resolve(out.jitter.substr(cdf.size()), source);
        }
        out.jitterPlace = source + ": /stragglers/jitter";
        if (!StragglerSettings::ParseJitter(out.jitter, &why))
        {
            Fail("/stragglers/jitter", why);
        }
    }
    st.Done();
}

/// Read the "background" section into s.
void
ParseBackground(const Json& obj, const std::string& source, TrainingScenario& s)
{
    Section b(obj, "/background");
    s.backgroundFlowSizes = b.Text("flowSizes", "websearch");
    FlowSizeCdf cdf;
    if (!FlowSizeCdf::Named(s.backgroundFlowSizes, cdf))
    {
        // A CDF file, relative to the scenario's folder.
        s.backgroundFlowSizes = Resolve(s.backgroundFlowSizes, source);
        std::string why;
        if (!FlowSizeCdf::Load(s.backgroundFlowSizes, cdf, &why))
        {
            Fail("/background/flowSizes",
                 "expected " + FlowSizeCdf::GetNameList() + " or a CDF file: " + why);
        }
    }
    s.backgroundLoad = b.Number("load", s.backgroundLoad, 1e-6, 1.0);
    if (b.Has("pairs"))
    {
        const Json& pairs = b.Get("pairs");
        const std::string expected =
            "expected a list of [source, destination] host indices, two different "
            "integers";
        if (!pairs.is_array() || pairs.empty())
        {
            Fail("/background/pairs", expected);
        }
        for (std::size_t i = 0; i < pairs.size(); ++i)
        {
            const Json& p = pairs[i];
            if (!p.is_array() || p.size() != 2 || !p[0].is_number_unsigned() ||
                !p[1].is_number_unsigned() || p[0] == p[1] ||
                p[0].get<uint64_t>() >=
                    TrainingScenario::MAX_SERVERS * TrainingScenario::MAX_GPUS_PER_SERVER ||
                p[1].get<uint64_t>() >=
                    TrainingScenario::MAX_SERVERS * TrainingScenario::MAX_GPUS_PER_SERVER)
            {
                Fail("/background/pairs/" + std::to_string(i), expected + ", got " + p.dump());
            }
            s.backgroundPairs.emplace_back(p[0].get<uint32_t>(), p[1].get<uint32_t>());
        }
    }
    b.Done();
}

/// Read the "outputs" section into s.
void
ParseOutputs(const Json& obj, TrainingScenario& s)
{
    Section o(obj, "/outputs");
    s.outputDir = o.Text("dir", s.outputDir);
    s.plots = o.Bool("plots", s.plots);
    s.pcapPrefix = o.Text("pcap", s.pcapPrefix);
    s.pcapNodes = o.Text("pcapNodes", s.pcapNodes);
    o.Done();
}

} // namespace

uint32_t
TrainingScenario::GetNGpus() const
{
    return servers * gpusPerServer;
}

uint32_t
TrainingScenario::GetRingTransfersPerPhase() const
{
    return ringTransfersPerPhase.value_or(fabricModel == "flow" ? FLOW_RING_TRANSFERS_PER_PHASE
                                                                : 0);
}

bool
TrainingScenario::IsFabricModel(const std::string& model)
{
    return model == "packet" || model == "flow";
}

bool
TrainingScenario::IsFastForwardMode(const std::string& mode)
{
    return mode == "on" || mode == "off" || mode == "check";
}

bool
TrainingScenario::CheckCluster(std::string* place, std::string* what) const
{
    if (servers % pods != 0)
    {
        *place = "/cluster/pods";
        *what = std::to_string(servers) + " servers do not split into " + std::to_string(pods) +
                " equal pods";
        return false;
    }
    // The leaf-to-spine rate that gives the oversubscription must be a usable rate.
    const double uplink =
        static_cast<double>(nicRate.GetBitRate()) * (servers / pods) / (spines * oversubscription);
    if (topology == "rail-optimized" && uplink < 1e6)
    {
        *place = "/cluster";
        *what = "the leaf-to-spine links would run at " + std::to_string(uplink) +
                " bit/s; use fewer spines or less oversubscription";
        return false;
    }
    return true;
}

TrainingScenario
TrainingScenario::Default(const std::string& tracesDir)
{
    TrainingScenario s;
    s.name = "gpt3-1.3b on 2 x 8 H100";
    s.traceFormat = "json";
    s.traceFile = tracesDir + "/gpt3-1.3b-tp8-dp2.json";
    // The same model as the shipped trace, for when the file is not there.
    TransformerConfig& g = s.generator;
    g.name = "gpt3-1.3b";
    g.layers = 24;
    g.hidden = 2048;
    g.heads = 16;
    g.seqLength = 2048;
    g.vocab = 51200;
    g.microBatch = 1;
    g.globalBatch = 8;
    g.tp = 8;
    g.dp = 2;
    return s;
}

bool
TrainingScenario::Read(const std::string& file, TrainingScenario& scenario, std::string* error)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
    {
        *error = file + ": cannot open the scenario file";
        return false;
    }
    std::ostringstream text;
    text << in.rdbuf();
    // A file that names no scenario is not the default one: it is named by its file.
    scenario.name = std::filesystem::path(file).stem().string();
    return Parse(text.str(), file, scenario, error);
}

bool
TrainingScenario::Parse(const std::string& text,
                        const std::string& source,
                        TrainingScenario& s,
                        std::string* error)
{
    Json doc;
    if (!JsonText::Parse(text, source, &doc, error))
    {
        return false;
    }
    try
    {
        Section top(doc, "");
        s.source = source;
        s.name = top.Text("name", s.name);
        if (top.Has("cluster"))
        {
            ParseCluster(top.Get("cluster"), source, s);
        }
        if (top.Has("fabric"))
        {
            ParseFabric(top.Get("fabric"), s);
        }
        if (top.Has("workload") &&
            !ParseWorkloadSection(top.Get("workload"), "/workload", source, s, error))
        {
            return false;
        }
        if (top.Has("jobs"))
        {
            if (top.Has("workload"))
            {
                Fail("/jobs", "with jobs, each job gives its workload: no /workload");
            }
            if (!ParseJobsSection(top.Get("jobs"), source, s, error))
            {
                return false;
            }
        }
        if (top.Has("arrivals"))
        {
            if (top.Has("workload"))
            {
                Fail("/arrivals",
                     "with arrivals, each kind of job gives its workload: no /workload");
            }
            if (!ParseArrivalsSection(top.Get("arrivals"), source, s, error))
            {
                return false;
            }
        }
        if (top.Has("collectives"))
        {
            ParseCollectives(top.Get("collectives"), s);
        }
        if (top.Has("run"))
        {
            ParseRun(top.Get("run"), s);
        }
        if (top.Has("events"))
        {
            ParseEvents(top.Get("events"), s);
        }
        if (top.Has("stragglers"))
        {
            ParseStragglers(top.Get("stragglers"), source, s);
        }
        if (top.Has("parameterServers"))
        {
            s.parameterServers = top.Text("parameterServers", "");
            s.parameterServersPlace = source + ": /parameterServers";
            ParameterServerSetting setting;
            std::string why;
            if (!ParseParameterServers(s.parameterServers, setting, &why))
            {
                Fail("/parameterServers", why);
            }
        }
        if (top.Has("compression"))
        {
            ParseCompression(top.Get("compression"), source, s);
        }
        if (top.Has("background"))
        {
            ParseBackground(top.Get("background"), source, s);
        }
        if (top.Has("outputs"))
        {
            ParseOutputs(top.Get("outputs"), s);
        }
        top.Done();
    }
    catch (const ScenarioError& e)
    {
        *error = source + ": " + e.where + ": " + e.what;
        return false;
    }
    catch (const Json::exception& e)
    {
        // Sections check every type before reading; this is a backstop, not a path.
        *error = source + ": unexpected JSON content: " + JsonText::Describe(e);
        return false;
    }
    return true;
}

} // namespace ns3
