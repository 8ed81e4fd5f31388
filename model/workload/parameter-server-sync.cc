// SPDX-License-Identifier: GPL-2.0-only
#include "parameter-server-sync.h"

#include "../fabric/ai-fabric-compat.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ParameterServerSync");

NS_OBJECT_ENSURE_REGISTERED(ParameterServerSync);

namespace
{
/// The bound of ReduceBandwidth (bytes per second): far above any GPU's HBM.
constexpr double MAX_REDUCE_BANDWIDTH = 1e15;
/// CpuReduceBandwidth's default: the DRAM bandwidth of one socket of a 3rd-generation Xeon
/// Scalable (8 channels of DDR4-3200: 8 x 3.2 GT/s x 8 B = 204.8 GB/s; doc/ai-fabric-workload.rst).
constexpr double CPU_REDUCE_BANDWIDTH = 204.8e9;

/// The placements and their names: the one table (the attribute's checker, the texts).
const std::vector<std::pair<ParameterServerSync::Placement, std::string>>&
Placements()
{
    static const std::vector<std::pair<ParameterServerSync::Placement, std::string>> table{
        {ParameterServerSync::COLOCATED, "colocated"},
        {ParameterServerSync::CPU, "cpu"},
        {ParameterServerSync::BYTEPS, "byteps"},
    };
    return table;
}
} // namespace

TypeId
ParameterServerSync::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ParameterServerSync")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<ParameterServerSync>()
            .AddAttribute("ReduceBandwidth",
                          "Bytes per second a server's reduction reads and writes (a "
                          "memory-bound kernel); 0: the GPU's HBM bandwidth (GpuPreset).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&ParameterServerSync::m_reduceBandwidth),
                          MakeDoubleChecker<double>(0, MAX_REDUCE_BANDWIDTH))
            .AddAttribute("CpuReduceBandwidth",
                          "Bytes per second a dedicated CPU host's reduction reads and writes "
                          "(placements cpu and byteps); by default one socket's DRAM "
                          "bandwidth (8 x DDR4-3200).",
                          DoubleValue(CPU_REDUCE_BANDWIDTH),
                          MakeDoubleAccessor(&ParameterServerSync::m_cpuReduceBandwidth),
                          MakeDoubleChecker<double>(1, MAX_REDUCE_BANDWIDTH))
            .AddAttribute("GpusPerServer",
                          "GPUs per server, for the byteps placement: rank r runs on server "
                          "r / GpusPerServer, and a group's ranks on one server reduce inside "
                          "it (an HGX/DGX server: 8).",
                          UintegerValue(8),
                          MakeUintegerAccessor(&ParameterServerSync::m_gpusPerServer),
                          MakeUintegerChecker<uint32_t>(1, MAX_GPUS_PER_SERVER))
            .AddAttribute(
                "Placement",
                "Where the servers are: colocated with the group's GPUs, on "
                "dedicated CPU hosts (cpu), or the BytePS hybrid (byteps: a "
                "reduce-scatter inside each server, then the CPU hosts).",
                EnumValue(ParameterServerSync::COLOCATED),
                aifabric::MakeEnumAccessorCompat<Placement>(&ParameterServerSync::m_placement),
                MakeEnumChecker(ParameterServerSync::COLOCATED,
                                Placements()[0].second,
                                ParameterServerSync::CPU,
                                Placements()[1].second,
                                ParameterServerSync::BYTEPS,
                                Placements()[2].second));
    return tid;
}

ParameterServerSync::ParameterServerSync() = default;

ParameterServerSync::~ParameterServerSync() = default;

bool
ParameterServerSync::IsPush(uint32_t tag)
{
    return (tag & ~GROUP_MASK) == PUSH_TAG;
}

bool
ParameterServerSync::IsPull(uint32_t tag)
{
    return (tag & ~GROUP_MASK) == PULL_TAG;
}

uint32_t
ParameterServerSync::ServerOf(uint32_t n, uint32_t k, uint32_t j)
{
    return static_cast<uint32_t>(uint64_t{j} * n / k);
}

uint64_t
ParameterServerSync::GetRewritten() const
{
    return m_rewritten;
}

bool
ParameterServerSync::PlacementFromString(const std::string& name, Placement* placement)
{
    for (const auto& [p, text] : Placements())
    {
        if (text == name)
        {
            *placement = p;
            return true;
        }
    }
    return false;
}

std::string
ParameterServerSync::PlacementToString(Placement placement)
{
    for (const auto& [p, text] : Placements())
    {
        if (p == placement)
        {
            return text;
        }
    }
    NS_ABORT_MSG("ParameterServerSync: unknown placement " << placement);
}

std::string
ParameterServerSync::GetPlacementNames()
{
    std::string names;
    for (const auto& [p, text] : Placements())
    {
        names += (names.empty() ? "" : ", ") + text;
    }
    return names;
}

std::string
ParameterServerSync::CountCpuHosts(uint32_t count)
{
    return std::to_string(count) + (count == 1 ? " CPU host" : " CPU hosts");
}

bool
ParameterServerSync::Selects(const TrainingTrace& trace,
                             const TraceOp& op,
                             const std::string& select)
{
    if (op.kind != TraceOpKind::COLLECTIVE || op.collective != CollectiveType::ALL_REDUCE)
    {
        return false;
    }
    const TraceGroup& g = trace.GetGroup(op.group);
    return g.kind == select || g.name == select;
}

bool
ParameterServerSync::Scan(const TrainingTrace& trace,
                          const std::string& select,
                          bool colocated,
                          uint32_t perGroup,
                          Selection& out,
                          std::string* error)
{
    const uint32_t nRanks = trace.GetNRanks();
    // Per rank, its selected groups in the order it first calls them: each gets its own
    // streams on the rank, so groups that share ranks and interleave their calls in
    // different orders on different ranks never wait behind each other.
    out = Selection();
    out.ordinal.resize(nRanks);
    for (uint32_t i = 0; i < trace.GetGroups().size(); ++i)
    {
        out.groupIndex[trace.GetGroups()[i].name] = i;
    }
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        for (const TraceOp& op : trace.GetOps(r))
        {
            if ((op.kind == TraceOpKind::SEND || op.kind == TraceOpKind::RECV) &&
                (IsPush(op.tag) || IsPull(op.tag)))
            {
                *error = "the trace's own " + TraceOpKindToString(op.kind) + " \"" + op.name +
                         "\" of rank " + std::to_string(r) +
                         " uses a tag parameter servers use (0x5055xxxx, 0x504Cxxxx)";
                return false;
            }
            if (!Selects(trace, op, select))
            {
                continue;
            }
            const auto n = static_cast<uint32_t>(trace.GetGroup(op.group).ranks.size());
            if (colocated && (perGroup == 0 || perGroup > n))
            {
                *error = "expected 1 to " + std::to_string(n) + " servers (the ranks of " +
                         op.group + "), got " + std::to_string(perGroup);
                return false;
            }
            if (out.groupIndex[op.group] > GROUP_MASK)
            {
                *error = "group " + op.group + " is beyond the " + std::to_string(GROUP_MASK + 1) +
                         " groups parameter servers can tell apart";
                return false;
            }
            out.largest = std::max(out.largest, n);
            if (out.ordinal[r]
                    .emplace(op.group, static_cast<uint32_t>(out.ordinal[r].size()))
                    .second &&
                std::find(out.groups.begin(), out.groups.end(), op.group) == out.groups.end())
            {
                out.groups.push_back(op.group);
            }
            out.mostGroups = std::max<uint32_t>(out.mostGroups, out.ordinal[r].size());
        }
    }
    if (out.largest == 0)
    {
        *error = "\"" + select + "\" selects no all-reduce of the trace";
        return false;
    }
    return true;
}

void
ParameterServerSync::Splice(TrainingTrace& trace,
                            uint32_t r,
                            const std::vector<TraceOp>& old,
                            const std::vector<std::vector<TraceOp>>& becomes)
{
    // Old op i's new ops start at first[i]; its dependents wait for its last.
    std::vector<uint32_t> first(old.size());
    uint32_t next = 0;
    for (size_t i = 0; i < old.size(); ++i)
    {
        first[i] = next;
        next += static_cast<uint32_t>(becomes[i].size());
    }
    auto lastOf = [&](uint32_t i) {
        return first[i] + static_cast<uint32_t>(becomes[i].size()) - 1;
    };
    std::vector<TraceOp>& ops = trace.GetOps(r);
    ops.clear();
    for (size_t i = 0; i < old.size(); ++i)
    {
        const bool replaced = becomes[i].size() > 1;
        for (size_t k = 0; k < becomes[i].size(); ++k)
        {
            TraceOp op = becomes[i][k];
            for (uint32_t& d : op.deps)
            {
                // The begin op keeps the all-reduce's deps (old ids); the others name
                // ops of the rewrite (local ids).
                d = !replaced || k == 0 ? lastOf(d) : first[i] + d;
            }
            op.id = static_cast<uint32_t>(ops.size());
            ops.push_back(std::move(op));
        }
    }
}

bool
ParameterServerSync::Apply(TrainingTrace& trace,
                           const std::string& select,
                           uint32_t servers,
                           double hbmBytesPerSecond,
                           std::string* error)
{
    NS_LOG_FUNCTION(this << select << servers << PlacementToString(m_placement));
    m_rewritten = 0;
    if (m_placement != COLOCATED)
    {
        return ApplyDedicated(trace, select, servers, error);
    }
    const double rate = m_reduceBandwidth > 0 ? m_reduceBandwidth : hbmBytesPerSecond;
    NS_ABORT_MSG_IF(!(rate > 0), "ParameterServerSync: no reduce bandwidth");
    Selection sel;
    if (!Scan(trace, select, true, servers, sel, error))
    {
        return false;
    }
    const uint32_t nRanks = trace.GetNRanks();
    const uint32_t largest = sel.largest;
    const uint32_t mostGroups = sel.mostGroups;
    auto& ordinal = sel.ordinal;
    auto& groupIndex = sel.groupIndex;
    auto selected = [&](const TraceOp& op) { return Selects(trace, op, select); };
    // The rewrite goes into a copy: on failure the trace is as it was.
    TrainingTrace rewritten = trace;
    // Streams, per group of a rank: per server, the rank's pushes to it and pulls from
    // it; per group rank, a server's receives from it and sends to it; one for the
    // server's reductions.
    const uint32_t base = trace.GetNStreams();
    const uint32_t stride = servers + largest + 1;
    for (uint32_t o = 0; o < mostGroups; ++o)
    {
        const std::string of = mostGroups > 1 ? " (group " + std::to_string(o) + ")" : "";
        for (uint32_t j = 0; j < servers; ++j)
        {
            rewritten.SetStreamName(base + o * stride + j,
                                    "PS push/pull, server " + std::to_string(j) + of);
        }
        for (uint32_t i = 0; i < largest; ++i)
        {
            rewritten.SetStreamName(base + o * stride + servers + i,
                                    "PS server, group rank " + std::to_string(i) + of);
        }
        rewritten.SetStreamName(base + o * stride + servers + largest, "PS reduce" + of);
    }

    for (uint32_t r = 0; r < nRanks; ++r)
    {
        const std::vector<TraceOp> old = rewritten.GetOps(r);
        // What each op becomes: its new ops, in order; dependents wait for the last.
        std::vector<std::vector<TraceOp>> becomes(old.size());
        for (size_t i = 0; i < old.size(); ++i)
        {
            const TraceOp& op = old[i];
            if (!selected(op))
            {
                becomes[i].push_back(op);
                continue;
            }
            const TraceGroup& g = trace.GetGroup(op.group);
            const auto n = static_cast<uint32_t>(g.ranks.size());
            const uint32_t firstStream = base + ordinal[r].at(op.group) * stride;
            const uint32_t serverSide = firstStream + servers;
            const uint32_t reduceStream = serverSide + largest;
            const uint32_t push = PUSH_TAG | groupIndex[op.group];
            const uint32_t pull = PULL_TAG | groupIndex[op.group];
            const auto me = static_cast<uint32_t>(std::find(g.ranks.begin(), g.ranks.end(), r) -
                                                  g.ranks.begin());
            auto& out = becomes[i];
            // Ids within out for now (0-based); placed below.
            TraceOp begin;
            begin.kind = TraceOpKind::COMPUTE;
            begin.name = op.name + OpSuffix::BEGIN;
            begin.stream = op.stream;
            begin.iteration = op.iteration;
            begin.deps = op.deps; // old ids, mapped below
            out.push_back(begin);
            std::vector<uint32_t> joinAfter;
            auto p2p = [&](TraceOpKind kind,
                           uint32_t tag,
                           uint32_t peer,
                           uint64_t bytes,
                           uint32_t stream,
                           const std::string& what,
                           std::vector<uint32_t> deps) {
                TraceOp t;
                t.kind = kind;
                t.name = op.name + what;
                t.peer = peer;
                t.tag = tag;
                t.bytes = bytes;
                t.stream = stream;
                t.iteration = op.iteration;
                t.deps = std::move(deps);
                out.push_back(t);
                return static_cast<uint32_t>(out.size() - 1);
            };
            int64_t myShard = -1;
            for (uint32_t j = 0; j < servers; ++j)
            {
                const uint32_t s = g.ranks[ServerOf(n, servers, j)];
                const uint64_t shard = CommPlan::SplitBytes(op.bytes, servers, j);
                if (s == r)
                {
                    myShard = j;
                    continue;
                }
                p2p(TraceOpKind::SEND, push, s, shard, firstStream + j, OpSuffix::PUSH, {0});
                joinAfter.push_back(
                    p2p(TraceOpKind::RECV, pull, s, shard, firstStream + j, OpSuffix::PULL, {}));
            }
            if (myShard >= 0)
            {
                const uint64_t shard =
                    CommPlan::SplitBytes(op.bytes, servers, static_cast<uint32_t>(myShard));
                std::vector<uint32_t> in{0};
                for (uint32_t w = 0; w < n; ++w)
                {
                    if (w != me)
                    {
                        in.push_back(p2p(TraceOpKind::RECV,
                                         push,
                                         g.ranks[w],
                                         shard,
                                         serverSide + w,
                                         OpSuffix::IN,
                                         {}));
                    }
                }
                TraceOp reduce;
                reduce.kind = TraceOpKind::COMPUTE;
                reduce.name = op.name + OpSuffix::REDUCE;
                reduce.stream = reduceStream;
                reduce.iteration = op.iteration;
                reduce.duration = Seconds((n + 1.0) * static_cast<double>(shard) / rate);
                reduce.deps = in;
                out.push_back(reduce);
                const auto reduced = static_cast<uint32_t>(out.size() - 1);
                joinAfter.push_back(reduced);
                for (uint32_t w = 0; w < n; ++w)
                {
                    if (w != me)
                    {
                        p2p(TraceOpKind::SEND,
                            pull,
                            g.ranks[w],
                            shard,
                            serverSide + w,
                            OpSuffix::OUT,
                            {reduced});
                    }
                }
            }
            TraceOp join;
            join.kind = TraceOpKind::COMPUTE;
            join.name = op.name + OpSuffix::JOIN;
            join.stream = op.stream;
            join.iteration = op.iteration;
            join.deps = joinAfter;
            out.push_back(join);
            ++m_rewritten;
        }
        Splice(rewritten, r, old, becomes);
    }
    // A trace the rewrite cannot keep valid (an all-reduce depending on a later one of its
    // group, now behind it on one stream) is refused whole.
    std::string why;
    if (!rewritten.Validate(&why))
    {
        *error = "the rewritten trace would not be valid: " + why;
        m_rewritten = 0;
        return false;
    }
    trace = std::move(rewritten);
    NS_LOG_INFO(m_rewritten << " all-reduces on " << select << " by " << servers
                            << " parameter servers");
    return true;
}

} // namespace ns3
