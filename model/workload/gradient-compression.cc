// SPDX-License-Identifier: GPL-2.0-only
#include "gradient-compression.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GradientCompression");

NS_OBJECT_ENSURE_REGISTERED(GradientCompression);

namespace
{
/// The word that makes a rule top-k ("dp:topk:0.01").
constexpr const char* TOPK = "topk";
/// The prefix of a rule that selects by op name ("op=.l3.:0.5").
constexpr const char* OP_PREFIX = "op=";
/// The bound of KernelBandwidth (bytes per second): far above any GPU's HBM.
constexpr double MAX_KERNEL_BANDWIDTH = 1e15;

/// \return the text as a number in (0, 1], or a negative number if it is not one
double
Fraction(const std::string& text)
{
    std::istringstream in(text);
    double v = -1;
    if (!(in >> v) || !in.eof() || !(v > 0 && v <= 1))
    {
        return -1;
    }
    return v;
}
} // namespace

TypeId
GradientCompression::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GradientCompression")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<GradientCompression>()
            .AddAttribute("KernelBandwidth",
                          "Bytes per second the encode and decode kernels read and write "
                          "(memory-bound kernels); 0: the GPU's HBM bandwidth (GpuPreset).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&GradientCompression::m_kernelBandwidth),
                          MakeDoubleChecker<double>(0, MAX_KERNEL_BANDWIDTH))
            .AddAttribute("ElementBytes",
                          "Top-k: bytes of one gradient value (2: bf16).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&GradientCompression::m_elementBytes),
                          MakeUintegerChecker<uint32_t>(1, 8))
            .AddAttribute("IndexBytes",
                          "Top-k: bytes of one element's index (4: int32).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&GradientCompression::m_indexBytes),
                          MakeUintegerChecker<uint32_t>(1, 8));
    return tid;
}

GradientCompression::GradientCompression() = default;

GradientCompression::~GradientCompression() = default;

bool
GradientCompression::ParseRule(const std::string& text, CompressionRule& rule, std::string* why)
{
    const std::string expected = "expected SELECTOR:FACTOR or SELECTOR:" + std::string(TOPK) +
                                 ":DENSITY (SELECTOR a group kind such as dp, a group name, "
                                 "or op=TEXT; FACTOR and DENSITY in (0, 1]), got \"" +
                                 text + "\"";
    const size_t last = text.rfind(':');
    if (last == std::string::npos || last == 0)
    {
        *why = expected;
        return false;
    }
    CompressionRule r = rule;
    r.value = Fraction(text.substr(last + 1));
    std::string select = text.substr(0, last);
    const size_t before = select.rfind(':');
    r.topk = before != std::string::npos && select.substr(before + 1) == TOPK;
    if (r.topk)
    {
        select.resize(before);
    }
    if (r.value <= 0 || select.empty() || select == OP_PREFIX)
    {
        *why = expected;
        return false;
    }
    r.select = select;
    rule = r;
    return true;
}

std::string
GradientCompression::RuleToString(const CompressionRule& rule)
{
    std::ostringstream os;
    os << rule.select << ":" << (rule.topk ? std::string(TOPK) + ":" : "") << rule.value;
    return os.str();
}

void
GradientCompression::AddRule(const CompressionRule& rule)
{
    NS_LOG_FUNCTION(this << rule.select << rule.topk << rule.value);
    m_rules.push_back(rule);
}

const std::vector<CompressionRule>&
GradientCompression::GetRules() const
{
    return m_rules;
}

const std::vector<CompressionEffect>&
GradientCompression::GetEffects() const
{
    return m_effects;
}

Time
GradientCompression::KernelTime(double bytes, double hbmBytesPerSecond) const
{
    const double rate = m_kernelBandwidth > 0 ? m_kernelBandwidth : hbmBytesPerSecond;
    NS_ABORT_MSG_IF(!(rate > 0), "GradientCompression: no kernel bandwidth");
    return Seconds(bytes / rate);
}

bool
GradientCompression::Matches(const CompressionRule& rule,
                             const TrainingTrace& trace,
                             const TraceOp& op)
{
    const std::string prefix = OP_PREFIX;
    const std::string& s = rule.select;
    if (s.compare(0, prefix.size(), prefix) == 0)
    {
        return op.name.str().find(s.substr(prefix.size())) != std::string::npos;
    }
    const TraceGroup& g = trace.GetGroup(op.group);
    return s == g.kind || s == g.name;
}

int64_t
GradientCompression::Select(const TrainingTrace& trace, const TraceOp& op) const
{
    for (size_t i = 0; i < m_rules.size(); ++i)
    {
        if (Matches(m_rules[i], trace, op))
        {
            return static_cast<int64_t>(i);
        }
    }
    return -1;
}

bool
GradientCompression::Apply(TrainingTrace& trace, double hbmBytesPerSecond, std::string* error)
{
    NS_LOG_FUNCTION(this << trace.GetName() << hbmBytesPerSecond);
    m_effects.clear();
    for (const CompressionRule& rule : m_rules)
    {
        if (!(rule.value > 0 && rule.value <= 1) || rule.select.empty())
        {
            std::ostringstream why;
            why << rule.place << ": \"" << rule.select << "\" " << rule.value
                << ": expected a selector and a " << (rule.topk ? "density" : "factor")
                << " in (0, 1]";
            *error = why.str();
            return false;
        }
        m_effects.push_back({rule, 0, 0, 0, Time(0)});
    }
    // Per rank: each op's rule (-1: none), checked before anything changes.
    const uint32_t nRanks = trace.GetNRanks();
    std::vector<std::vector<int64_t>> chosen(nRanks);
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        for (const TraceOp& op : trace.GetOps(r))
        {
            int64_t i = -1;
            if (op.kind == TraceOpKind::COLLECTIVE)
            {
                i = Select(trace, op);
            }
            if (i >= 0 && m_rules[i].topk && op.collective != CollectiveType::ALL_REDUCE)
            {
                *error = m_rules[i].place + ": top-k compresses all-reduce, but \"" +
                         m_rules[i].select + "\" selects the " +
                         CollectiveTypeToString(op.collective) + " \"" + op.name + "\" of rank " +
                         std::to_string(r);
                return false;
            }
            chosen[r].push_back(i);
        }
    }
    // The members of a group must compress their k-th call on it alike (an op=TEXT rule
    // reads each rank's own op names, which an imported trace may spell differently).
    std::map<std::string, std::pair<uint32_t, std::vector<int64_t>>> byGroup;
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        std::map<std::string, std::vector<int64_t>> mine;
        const auto& ops = trace.GetOps(r);
        for (size_t j = 0; j < ops.size(); ++j)
        {
            if (ops[j].kind == TraceOpKind::COLLECTIVE)
            {
                mine[ops[j].group].push_back(chosen[r][j]);
            }
        }
        for (auto& [group, rules] : mine)
        {
            auto [it, first] = byGroup.emplace(group, std::make_pair(r, rules));
            const auto& [other, theirs] = it->second;
            for (size_t k = 0; !first && k < rules.size() && k < theirs.size(); ++k)
            {
                if (rules[k] != theirs[k])
                {
                    const int64_t i = rules[k] >= 0 ? rules[k] : theirs[k];
                    *error = m_rules[i].place + ": \"" + m_rules[i].select + "\" selects call " +
                             std::to_string(k) + " on group " + group + " of rank " +
                             std::to_string(rules[k] >= 0 ? r : other) + " but not of rank " +
                             std::to_string(rules[k] >= 0 ? other : r) +
                             " (their op names differ): the members of a call must agree";
                    return false;
                }
            }
        }
    }
    for (size_t i = 0; i < m_rules.size(); ++i)
    {
        bool any = false;
        for (uint32_t r = 0; r < nRanks && !any; ++r)
        {
            any = std::find(chosen[r].begin(), chosen[r].end(), static_cast<int64_t>(i)) !=
                  chosen[r].end();
        }
        if (!any)
        {
            // Say why: nothing has what it names, or earlier rules took all it selects.
            bool shadowed = false;
            for (uint32_t r = 0; r < nRanks && !shadowed; ++r)
            {
                for (const TraceOp& op : trace.GetOps(r))
                {
                    if (op.kind == TraceOpKind::COLLECTIVE && Matches(m_rules[i], trace, op))
                    {
                        shadowed = true;
                        break;
                    }
                }
            }
            std::string reason;
            if (shadowed)
            {
                reason = "every collective it selects takes an earlier rule";
            }
            else if (m_rules[i].select.rfind(OP_PREFIX, 0) == 0)
            {
                reason = "no collective's op name contains that text";
            }
            else
            {
                reason = "no group of a collective has that kind or name";
            }
            *error = m_rules[i].place + ": \"" + m_rules[i].select +
                     "\" selects no collective of the trace (" + reason + ")";
            return false;
        }
    }
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        std::vector<TraceOp> old = trace.GetOps(r);
        // New ids: a compressed collective becomes encode, call, decode; what waited for
        // it waits for its decode.
        std::vector<uint32_t> doneId(old.size());
        uint32_t next = 0;
        for (size_t j = 0; j < old.size(); ++j)
        {
            next += chosen[r][j] >= 0 ? 3 : 1;
            doneId[j] = next - 1;
        }
        std::vector<TraceOp>& ops = trace.GetOps(r);
        ops.clear();
        for (size_t j = 0; j < old.size(); ++j)
        {
            TraceOp op = old[j];
            for (uint32_t& d : op.deps)
            {
                d = doneId[d];
            }
            const int64_t i = chosen[r][j];
            if (i < 0)
            {
                op.id = static_cast<uint32_t>(ops.size());
                ops.push_back(std::move(op));
                continue;
            }
            const CompressionRule& rule = m_rules[i];
            CompressionEffect& effect = m_effects[i];
            const auto n = static_cast<uint64_t>(trace.GetGroup(op.group).ranks.size());
            const uint64_t bytes = op.bytes;
            double encodeBytes;
            double decodeBytes;
            if (rule.topk)
            {
                const uint64_t elements = (bytes + m_elementBytes - 1) / m_elementBytes;
                const auto k = std::max<uint64_t>(
                    1,
                    static_cast<uint64_t>(std::ceil(rule.value * static_cast<double>(elements))));
                const uint64_t piece = k * (m_elementBytes + m_indexBytes);
                op.collective = CollectiveType::ALL_GATHER;
                op.bytes = n * piece;
                op.algorithm = TraceLabel(); // an all-reduce's algorithm may not gather
                encodeBytes = static_cast<double>(bytes + piece);
                decodeBytes = static_cast<double>(n * piece + bytes);
            }
            else
            {
                op.bytes = std::max<uint64_t>(
                    1,
                    static_cast<uint64_t>(std::llround(rule.value * static_cast<double>(bytes))));
                const double whole = static_cast<double>(bytes);
                const double in = op.collective == CollectiveType::ALL_GATHER ? whole / n : whole;
                const double out =
                    op.collective == CollectiveType::REDUCE_SCATTER ? whole / n : whole;
                encodeBytes = in * (1 + rule.value);
                decodeBytes = out * (1 + rule.value);
            }
            TraceOp encode;
            encode.kind = TraceOpKind::COMPUTE;
            encode.name = op.name + ".encode";
            encode.stream = op.stream;
            encode.iteration = op.iteration;
            encode.duration = KernelTime(encodeBytes, hbmBytesPerSecond);
            encode.deps = op.deps;
            encode.id = static_cast<uint32_t>(ops.size());
            TraceOp decode = encode;
            decode.name = op.name + ".decode";
            decode.duration = KernelTime(decodeBytes, hbmBytesPerSecond);
            decode.id = encode.id + 2;
            decode.deps = {encode.id + 1};
            op.deps = {encode.id};
            op.id = encode.id + 1;
            NS_LOG_LOGIC("rank " << r << " " << op.name << ": " << bytes << " -> " << op.bytes
                                 << " B (" << CollectiveTypeToString(op.collective) << "), encode "
                                 << encode.duration.As(Time::US) << ", decode "
                                 << decode.duration.As(Time::US));
            ++effect.ops;
            effect.bytesBefore += bytes;
            effect.bytesAfter += op.bytes;
            effect.kernels += encode.duration + decode.duration;
            ops.push_back(std::move(encode));
            ops.push_back(std::move(op));
            ops.push_back(std::move(decode));
        }
    }
    std::string why;
    NS_ABORT_MSG_IF(!trace.Validate(&why),
                    "GradientCompression: the compressed trace does not validate: " << why);
    return true;
}

} // namespace ns3
