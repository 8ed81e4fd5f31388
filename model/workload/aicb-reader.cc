// SPDX-License-Identifier: GPL-2.0-only
#include "aicb-reader.h"

#include "aicb-trace-builder.h"

#include "ns3/log.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AicbTraceReader");

namespace
{

/// Longest time accepted (10^15 ns, 11.6 days): keeps Time far from overflowing.
constexpr int64_t MAX_TIME_NS = 1000000000000000LL;
/// Most ranks accepted: the op lists of more would not fit in memory anyway.
constexpr int64_t MAX_RANKS = 65536;
/// Fields of a layer line.
constexpr size_t LAYER_FIELDS = 12;
const char* const FIELD_NAMES[LAYER_FIELDS] = {"name",
                                               "dependency",
                                               "forward compute time",
                                               "forward comm type",
                                               "forward comm bytes",
                                               "input-grad compute time",
                                               "input-grad comm type",
                                               "input-grad comm bytes",
                                               "weight-grad compute time",
                                               "weight-grad comm type",
                                               "weight-grad comm bytes",
                                               "weight-update time"};

using namespace aicb;

std::vector<std::string>
Split(const std::string& line)
{
    std::istringstream in(line);
    std::vector<std::string> words;
    std::string w;
    while (in >> w)
    {
        words.push_back(w);
    }
    return words;
}

/// Whole-string decimal integer.
bool
ParseInteger(const std::string& s, int64_t& v)
{
    char* end = nullptr;
    errno = 0;
    long long x = std::strtoll(s.c_str(), &end, 10);
    v = x;
    return !s.empty() && errno == 0 && *end == '\0';
}

/// A header value: a non-negative integer, also with a zero fraction ("2097152.0", as
/// AICB writes pp_comm when it divides it by the TP size).
bool
ParseHeaderValue(std::string s, int64_t& v)
{
    size_t dot = s.find('.');
    if (dot != std::string::npos && dot > 0 &&
        s.find_first_not_of('0', dot + 1) == std::string::npos)
    {
        s.resize(dot);
    }
    return ParseInteger(s, v) && v >= 0;
}

/**
 * Parse a comm type word: ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL,
 * ALLREDUCEALLTOALL, BROADCAST or NONE, optionally with suffix _EP or _DP_EP.
 * \param phaseGroup the group of the phase (TP for forward and input-grad, DP for weight-grad)
 */
bool
ParseCommType(const std::string& word, GroupKind phaseGroup, CommSpec& spec)
{
    auto endsWith = [&word](const std::string& suffix) {
        return word.size() > suffix.size() &&
               word.compare(word.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    std::string base = word;
    spec.group = phaseGroup;
    if (endsWith("_DP_EP"))
    {
        base = word.substr(0, word.size() - 6);
        spec.group = GroupKind::EDP;
    }
    else if (endsWith("_EP"))
    {
        base = word.substr(0, word.size() - 3);
        spec.group = GroupKind::EP;
    }
    static const std::map<std::string, CollectiveType> TYPES = {
        {"ALLREDUCE", CollectiveType::ALL_REDUCE},
        {"ALLGATHER", CollectiveType::ALL_GATHER},
        {"REDUCESCATTER", CollectiveType::REDUCE_SCATTER},
        {"ALLTOALL", CollectiveType::ALL_TO_ALL},
        {"ALLREDUCEALLTOALL", CollectiveType::ALL_TO_ALL},
        {"BROADCAST", CollectiveType::BROADCAST}};
    auto it = TYPES.find(base);
    if (it == TYPES.end())
    {
        spec.present = false;
        return base == "NONE";
    }
    spec.present = true;
    spec.type = it->second;
    if (base == "ALLREDUCEALLTOALL")
    {
        spec.group = GroupKind::EP; // MoE dispatch: always among the experts
    }
    return true;
}

/// Reads the file line by line and keeps the first error and every warning.
class AicbParser
{
  public:
    explicit AicbParser(const std::string& file)
        : m_file(file)
    {
    }

    TrainingTrace Read(uint32_t nRanks)
    {
        std::ifstream in(m_file);
        if (!in)
        {
            Fail(0, "cannot open the file");
            return TrainingTrace();
        }
        std::string line;
        std::map<std::string, int64_t> header;
        if (!std::getline(in, line) || Split(line).empty())
        {
            Fail(1, "empty file: expected the header line (policy word, key: value pairs)");
            return TrainingTrace();
        }
        if (!ParseHeader(line, header))
        {
            return TrainingTrace();
        }
        std::vector<std::string> words;
        int64_t count = 0;
        if (!std::getline(in, line))
        {
            Fail(2, "missing line 2 (the number of layer lines); the file ends after the header");
            return TrainingTrace();
        }
        words = Split(line);
        if (words.size() != 1 || !ParseInteger(words[0], count) || count <= 0)
        {
            Fail(2,
                 "line 2 must be the number of layer lines (a positive integer), found '" + line +
                     "'");
            return TrainingTrace();
        }
        std::vector<Layer> layers;
        uint64_t lineNo = 2;
        while (std::getline(in, line))
        {
            ++lineNo;
            words = Split(line);
            if (words.empty())
            {
                continue; // blank lines, e.g. at the end, carry nothing
            }
            layers.emplace_back();
            if (!ParseLayer(lineNo, words, layers.back()))
            {
                return TrainingTrace();
            }
        }
        if (layers.empty())
        {
            Fail(3, "no layer lines: the file ends after line 2");
            return TrainingTrace();
        }
        if (layers.size() != static_cast<uint64_t>(count))
        {
            // AICB's own published files disagree with their line 2 (SimAI reads line 2
            // and stops there); the lines present are the workload.
            Warn(2,
                 "line 2 announces " + std::to_string(count) + " layer lines but the file holds " +
                     std::to_string(layers.size()) + " (lines " +
                     std::to_string(layers.front().line) + " to " +
                     std::to_string(layers.back().line) + "); reading the " +
                     std::to_string(layers.size()) + " present");
        }
        return Build(header, layers, nRanks);
    }

    const std::string& Error() const
    {
        return m_error;
    }

    const std::vector<std::string>& Warnings() const
    {
        return m_warnings;
    }

  private:
    static std::string Place(const std::string& file, uint64_t line)
    {
        return file + (line > 0 ? ":" + std::to_string(line) : "") + ": ";
    }

    bool Fail(uint64_t line, const std::string& reason)
    {
        m_error = Place(m_file, line) + reason;
        NS_LOG_INFO("refused: " << m_error);
        return false;
    }

    void Warn(uint64_t line, const std::string& reason)
    {
        m_warnings.push_back(Place(m_file, line) + reason);
        NS_LOG_WARN(m_warnings.back());
    }

    /// Policy word, then "key: value" (or "key:value") pairs with integer values.
    bool ParseHeader(const std::string& line, std::map<std::string, int64_t>& header)
    {
        std::vector<std::string> words = Split(line);
        if (words[0].find(':') != std::string::npos)
        {
            return Fail(1, "the header must start with a policy word, found '" + words[0] + "'");
        }
        m_policy = words[0];
        for (size_t i = 1; i < words.size(); ++i)
        {
            size_t colon = words[i].find(':');
            if (colon == std::string::npos || colon == 0)
            {
                return Fail(1, "expected 'key: value' in the header, found '" + words[i] + "'");
            }
            std::string key = words[i].substr(0, colon);
            std::string value = words[i].substr(colon + 1);
            if (value.empty())
            {
                if (++i == words.size())
                {
                    return Fail(1, "header key '" + key + "' has no value");
                }
                value = words[i];
            }
            static const std::set<std::string> KNOWN = {"model_parallel_NPU_group",
                                                        "ep",
                                                        "pp",
                                                        "vpp",
                                                        "ga",
                                                        "all_gpus",
                                                        "pp_comm",
                                                        "checkpoints",
                                                        "checkpoint_initiates"};
            int64_t v;
            bool numeric = ParseHeaderValue(value, v);
            if (!numeric && KNOWN.count(key) == 0)
            {
                continue; // a key of a later format version: not ours to judge
            }
            if (!numeric)
            {
                return Fail(1,
                            "header value of '" + key + "' is not a non-negative integer: '" +
                                value + "'");
            }
            header[key] = v;
        }
        return true;
    }

    bool ParseLayer(uint64_t lineNo, const std::vector<std::string>& words, Layer& layer)
    {
        if (words.size() != LAYER_FIELDS)
        {
            return Fail(lineNo,
                        "expected " + std::to_string(LAYER_FIELDS) +
                            " fields in a layer line, found " + std::to_string(words.size()));
        }
        layer.name = words[0];
        layer.line = lineNo;
        for (const std::string& w : words)
        {
            layer.fields += (layer.fields.empty() ? "" : " ") + w;
        }
        int64_t values[LAYER_FIELDS] = {};
        for (size_t f = 1; f < LAYER_FIELDS; ++f)
        {
            if (f == 3 || f == 6 || f == 9)
            {
                continue; // comm types
            }
            std::string field = "field " + std::to_string(f + 1) + " (" + FIELD_NAMES[f] + ")";
            if (!ParseInteger(words[f], values[f]))
            {
                return Fail(lineNo, field + " '" + words[f] + "' is not an integer");
            }
            if (f != 1 && values[f] < 0)
            {
                return Fail(lineNo, field + " is negative: " + words[f]);
            }
            if (f != 1 && f != 4 && f != 7 && f != 10 && values[f] > MAX_TIME_NS)
            {
                return Fail(lineNo, field + " " + words[f] + " ns is implausibly large");
            }
        }
        CommSpec* comms[] = {&layer.fwdComm, &layer.igComm, &layer.wgComm};
        for (size_t c = 0; c < 3; ++c)
        {
            size_t f = 3 + 3 * c;
            if (!ParseCommType(words[f], c == 2 ? GroupKind::DP : GroupKind::TP, *comms[c]))
            {
                return Fail(lineNo,
                            "field " + std::to_string(f + 1) + " (" + FIELD_NAMES[f] +
                                "): unknown comm type '" + words[f] + "'");
            }
            comms[c]->bytes = static_cast<uint64_t>(values[f + 1]);
        }
        layer.fwdTime = values[2];
        layer.igTime = values[5];
        layer.wgTime = values[8];
        layer.updateTime = values[11];
        return true;
    }

    /**
     * The pipeline of pp, vpp, ga and pp_comm (see AicbTraceReader). Fails naming the
     * field that cannot be honoured.
     */
    bool PlacePipeline(const std::map<std::string, int64_t>& header,
                       const std::vector<Layer>& layers,
                       int64_t pp,
                       Pipeline& pipe)
    {
        auto it = header.find("pp_comm");
        const int64_t ppComm = it == header.end() ? -1 : it->second;
        if (pp == 1)
        {
            if (ppComm > 0)
            {
                Warn(1,
                     "pp_comm: " + std::to_string(ppComm) +
                         " is ignored: pp is 1, so nothing crosses a stage boundary");
            }
            return true;
        }
        const std::string withPp = " with pp: " + std::to_string(pp);
        it = header.find("vpp");
        if (it != header.end() && it->second > 1)
        {
            return Fail(1,
                        "vpp: " + std::to_string(it->second) + withPp +
                            " is not supported: an interleaved pipeline runs each stage as " +
                            std::to_string(it->second) +
                            " model chunks, and the layer lines do not say where a chunk ends "
                            "(vpp: 1 replays the lines as one chunk per stage)");
        }
        if (ppComm <= 0)
        {
            return Fail(1,
                        "pp: " + std::to_string(pp) +
                            " needs pp_comm (the bytes a micro-batch sends across a stage "
                            "boundary), but the header has " +
                            (ppComm < 0 ? std::string("none") : "pp_comm: 0"));
        }
        it = header.find("ga");
        const int64_t ga = it == header.end() ? 1 : it->second;
        if (ga < 1 || static_cast<uint64_t>(ga) > layers.size())
        {
            return Fail(1,
                        "ga: " + std::to_string(ga) + withPp +
                            ": the number of micro-batches "
                            "must be between 1 and the " +
                            std::to_string(layers.size()) + " layer lines");
        }
        pipe.stages = static_cast<uint32_t>(pp);
        pipe.bytes = static_cast<uint64_t>(ppComm);
        std::string why = FindMicroBatches(layers, static_cast<uint32_t>(ga), pipe);
        if (!why.empty())
        {
            return Fail(1, "ga: " + std::to_string(ga) + withPp + ": " + why);
        }
        NS_LOG_INFO(m_file << ": " << pp << " stages; " << ga << " micro-batches of "
                           << pipe.blockLines << " lines from line " << layers[pipe.first].line
                           << ", " << ppComm << " bytes per pipeline send");
        return true;
    }

    TrainingTrace Build(const std::map<std::string, int64_t>& header,
                        const std::vector<Layer>& layers,
                        uint32_t nRanks)
    {
        auto get = [&header](const char* key, int64_t absent) {
            auto it = header.find(key);
            return it == header.end() ? absent : it->second;
        };
        int64_t tp = get("model_parallel_NPU_group", 0);
        int64_t ep = std::max<int64_t>(get("ep", 1), 1);
        int64_t pp = std::max<int64_t>(get("pp", 1), 1);
        int64_t ranks = nRanks != 0 ? nRanks : get("all_gpus", 0);
        if (tp < 1 || tp > MAX_RANKS)
        {
            Fail(1,
                 "model_parallel_NPU_group (the TP size) is missing or not in [1, " +
                     std::to_string(MAX_RANKS) + "]");
            return TrainingTrace();
        }
        if (ranks < 1 || ranks > MAX_RANKS)
        {
            Fail(1,
                 ranks == 0 ? "the GPU count is 0 and the header has no all_gpus"
                            : "too many GPUs: " + std::to_string(ranks) + " (at most " +
                                  std::to_string(MAX_RANKS) + ")");
            return TrainingTrace();
        }
        if (pp > ranks || ranks % (tp * pp) != 0)
        {
            Fail(1,
                 "the TP size " + std::to_string(tp) + " (model_parallel_NPU_group)" +
                     (pp > 1 ? " times pp: " + std::to_string(pp) : std::string()) +
                     " does not divide the " + std::to_string(ranks) + " GPUs");
            return TrainingTrace();
        }
        int64_t dp = ranks / (tp * pp);
        if (dp % ep != 0)
        {
            Fail(1,
                 "ep " + std::to_string(ep) + " does not divide the " + std::to_string(dp) +
                     " data-parallel replicas (" + std::to_string(ranks) + " GPUs / TP " +
                     std::to_string(tp) + (pp > 1 ? " / pp " + std::to_string(pp) : "") + ")");
            return TrainingTrace();
        }
        Pipeline pipe;
        if (!PlacePipeline(header, layers, pp, pipe))
        {
            return TrainingTrace();
        }
        int64_t updateTime = 0;
        for (const Layer& layer : layers)
        {
            updateTime += layer.updateTime; // each at most MAX_TIME_NS: no overflow
        }
        if (updateTime > MAX_TIME_NS)
        {
            Fail(0, "the weight-update times add up to more than 10^15 ns");
            return TrainingTrace();
        }
        TrainingTrace trace(static_cast<uint32_t>(ranks));
        trace.SetName("aicb " + m_policy + " " + m_file);
        TraceBuilder builder(static_cast<uint32_t>(tp),
                             static_cast<uint32_t>(dp),
                             static_cast<uint32_t>(ep),
                             pipe,
                             trace);
        builder.AddGroups();
        for (uint32_t r = 0; r < ranks; ++r)
        {
            builder.AddRank(r, layers, updateTime);
        }
        std::string why;
        if (!trace.Validate(&why))
        {
            Fail(0, "the trace built from the file is inconsistent: " + why);
            return TrainingTrace();
        }
        return trace;
    }

    std::string m_file;
    std::string m_policy;
    std::string m_error;
    std::vector<std::string> m_warnings;
};

} // namespace

TrainingTrace
AicbTraceReader::Read(const std::string& file,
                      uint32_t nRanks,
                      std::string* error,
                      std::ostream* warnings)
{
    AicbParser parser(file);
    TrainingTrace trace = parser.Read(nRanks);
    if (error)
    {
        *error = parser.Error();
    }
    for (const std::string& w : parser.Warnings())
    {
        if (warnings)
        {
            *warnings << "warning: " << w << "\n";
        }
    }
    return trace;
}

} // namespace ns3
