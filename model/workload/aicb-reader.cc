// SPDX-License-Identifier: GPL-2.0-only
#include "aicb-reader.h"

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

/// The group family a comm runs in.
enum class GroupKind
{
    TP,  //!< tensor parallel
    DP,  //!< data parallel
    EP,  //!< expert parallel
    EDP, //!< expert data parallel
};

/// One comm of a layer line.
struct CommSpec
{
    bool present{false}; //!< false for NONE
    CollectiveType type{CollectiveType::ALL_REDUCE};
    GroupKind group{GroupKind::TP};
    uint64_t bytes{0};
};

/// One layer line.
struct Layer
{
    std::string name;
    int64_t fwdTime{0};
    int64_t igTime{0};
    int64_t wgTime{0};
    int64_t updateTime{0};
    CommSpec fwdComm;
    CommSpec igComm;
    CommSpec wgComm;
};

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

/// Builds the ops of every rank from the layers.
class TraceBuilder
{
  public:
    TraceBuilder(uint32_t tp, uint32_t dp, uint32_t ep, TrainingTrace& trace)
        : m_tp(tp),
          m_dp(dp),
          m_ep(ep),
          m_trace(trace)
    {
    }

    void AddGroups()
    {
        for (uint32_t d = 0; d < m_dp; ++d)
        {
            AddGroup("tp" + std::to_string(d), "tp", d * m_tp, 1, m_tp);
        }
        for (uint32_t t = 0; t < m_tp; ++t)
        {
            AddGroup("dp" + std::to_string(t), "dp", t, m_tp, m_dp);
            for (uint32_t e = 0; m_ep > 1 && e < m_dp / m_ep; ++e)
            {
                AddGroup(Name("ep", t, e), "ep", e * m_ep * m_tp + t, m_tp, m_ep);
            }
            for (uint32_t j = 0; m_ep > 1 && j < m_ep; ++j)
            {
                AddGroup(Name("edp", t, j), "dp", j * m_tp + t, m_ep * m_tp, m_dp / m_ep);
            }
        }
    }

    void AddRank(uint32_t rank, const std::vector<Layer>& layers, int64_t updateTime)
    {
        m_rank = rank;
        m_blocking = -1;
        std::vector<uint32_t> weightGradComms;
        for (size_t i = 0; i < layers.size(); ++i)
        {
            std::string label = ".l" + std::to_string(i) + "." + layers[i].name;
            uint32_t c = AddCompute("fwd" + label, layers[i].fwdTime);
            AddComm("fwd" + label + ".comm", layers[i].fwdComm, 1, c);
        }
        for (size_t i = layers.size(); i-- > 0;)
        {
            std::string label = ".l" + std::to_string(i) + "." + layers[i].name;
            uint32_t c = AddCompute("ig" + label, layers[i].igTime);
            AddComm("ig" + label + ".comm", layers[i].igComm, 1, c);
            c = AddCompute("wg" + label, layers[i].wgTime);
            int64_t wg = AddComm("wg" + label + ".comm", layers[i].wgComm, 2, c);
            if (wg >= 0)
            {
                weightGradComms.push_back(static_cast<uint32_t>(wg));
            }
        }
        uint32_t update = AddCompute("update", updateTime);
        auto& deps = m_trace.GetOps(rank)[update].deps;
        deps.insert(deps.end(), weightGradComms.begin(), weightGradComms.end());
    }

  private:
    static std::string Name(const char* family, uint32_t t, uint32_t k)
    {
        return family + std::to_string(t) + "_" + std::to_string(k);
    }

    /// Add the group of n ranks first, first + stride, ...
    void AddGroup(const std::string& name,
                  const std::string& kind,
                  uint32_t first,
                  uint32_t stride,
                  uint32_t n)
    {
        TraceGroup g{name, kind, {}};
        for (uint32_t k = 0; k < n; ++k)
        {
            g.ranks.push_back(first + k * stride);
        }
        m_trace.AddGroup(g);
    }

    /// The rank's group of a kind and its size.
    std::pair<std::string, uint32_t> GroupOf(GroupKind kind) const
    {
        uint32_t t = m_rank % m_tp;
        uint32_t d = m_rank / m_tp;
        switch (kind)
        {
        case GroupKind::TP:
            return {"tp" + std::to_string(d), m_tp};
        case GroupKind::EP:
            return {Name("ep", t, d / m_ep), m_ep};
        case GroupKind::EDP:
            if (m_ep > 1)
            {
                return {Name("edp", t, d % m_ep), m_dp / m_ep};
            }
            break;
        case GroupKind::DP:
            break;
        }
        return {"dp" + std::to_string(t), m_dp};
    }

    /// A compute on stream 0, after the blocking comm issued last.
    uint32_t AddCompute(const std::string& name, int64_t ns)
    {
        TraceOp op;
        op.kind = TraceOpKind::COMPUTE;
        op.name = name;
        op.stream = 0;
        op.duration = NanoSeconds(ns);
        if (m_blocking >= 0)
        {
            op.deps.push_back(static_cast<uint32_t>(m_blocking));
            m_blocking = -1;
        }
        return m_trace.AddOp(m_rank, op);
    }

    /**
     * A collective after compute `after`; stream 1 comms block the next compute.
     * \return its id, or -1 if there is none (NONE, or a group of one rank)
     */
    int64_t AddComm(const std::string& name, const CommSpec& spec, uint32_t stream, uint32_t after)
    {
        auto [group, size] = GroupOf(spec.group);
        if (!spec.present || size < 2)
        {
            return -1;
        }
        TraceOp op;
        op.kind = TraceOpKind::COLLECTIVE;
        op.name = name;
        op.stream = stream;
        op.collective = spec.type;
        op.bytes = spec.bytes;
        op.group = group;
        op.root = 0;
        op.deps.push_back(after);
        uint32_t id = m_trace.AddOp(m_rank, op);
        if (stream == 1)
        {
            m_blocking = id;
        }
        return id;
    }

    uint32_t m_tp;
    uint32_t m_dp;
    uint32_t m_ep;
    TrainingTrace& m_trace;
    uint32_t m_rank{0};
    int64_t m_blocking{-1}; //!< the comm the next compute waits for, or -1
};

/// Reads the file line by line and keeps the first error.
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
            if (layers.size() == static_cast<uint64_t>(count))
            {
                Fail(lineNo,
                     "more layer lines than the " + std::to_string(count) + " announced on line 2");
                return TrainingTrace();
            }
            layers.emplace_back();
            if (!ParseLayer(lineNo, words, layers.back()))
            {
                return TrainingTrace();
            }
        }
        if (layers.size() != static_cast<uint64_t>(count))
        {
            Fail(lineNo + 1,
                 "truncated: the file ends after " + std::to_string(layers.size()) + " of the " +
                     std::to_string(count) + " layer lines announced on line 2");
            return TrainingTrace();
        }
        return Build(header, layers, nRanks);
    }

    const std::string& Error() const
    {
        return m_error;
    }

  private:
    bool Fail(uint64_t line, const std::string& reason)
    {
        m_error = m_file + (line > 0 ? ":" + std::to_string(line) : "") + ": " + reason;
        return false;
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
            bool numeric = ParseInteger(value, v) && v >= 0;
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
        int64_t ranks = nRanks != 0 ? nRanks : get("all_gpus", 0);
        if (get("pp", 1) > 1)
        {
            Fail(1,
                 "pp > 1 is not supported by this reader (pp = " + std::to_string(get("pp", 1)) +
                     ")");
            return TrainingTrace();
        }
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
        if (ranks % tp != 0)
        {
            Fail(1,
                 "the TP size " + std::to_string(tp) +
                     " (model_parallel_NPU_group) does not divide the " + std::to_string(ranks) +
                     " GPUs");
            return TrainingTrace();
        }
        int64_t dp = ranks / tp;
        if (dp % ep != 0)
        {
            Fail(1,
                 "ep " + std::to_string(ep) + " does not divide the " + std::to_string(dp) +
                     " data-parallel replicas (" + std::to_string(ranks) + " GPUs / TP " +
                     std::to_string(tp) + ")");
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
        TraceBuilder builder(
            static_cast<uint32_t>(tp), static_cast<uint32_t>(dp), static_cast<uint32_t>(ep), trace);
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
};

} // namespace

TrainingTrace
AicbTraceReader::Read(const std::string& file, uint32_t nRanks, std::string* error)
{
    AicbParser parser(file);
    TrainingTrace trace = parser.Read(nRanks);
    if (error)
    {
        *error = parser.Error();
    }
    return trace;
}

} // namespace ns3
