// SPDX-License-Identifier: GPL-2.0-only
// ParameterServerSync on dedicated CPU hosts: the cpu and byteps placements.
#include "parameter-server-sync.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ParameterServerDedicated");

namespace
{

/// How one selected group meets the CPU hosts.
struct Layout
{
    uint32_t index{0};                       //!< among the selected groups
    uint32_t perServer{1};                   //!< g: the group's ranks on each of its servers
    std::vector<std::vector<uint32_t>> sets; //!< per server: its ranks, in group order
    std::vector<std::string> local;          //!< per server: its group ("" when g = 1)
    std::map<uint32_t, std::pair<uint32_t, uint32_t>> where; //!< rank -> (server, local index)
    std::map<uint32_t, uint32_t> position;                   //!< rank -> its group rank
};

/// One all-reduce of a selected group, as the CPU hosts see it.
struct Call
{
    uint32_t iteration{0}; //!< the op's iteration
    uint32_t group{0};     //!< Layout::index
    std::string name;      //!< the op's name
    uint64_t bytes{0};     //!< S
};

} // namespace

bool
ParameterServerSync::ApplyDedicated(TrainingTrace& trace,
                                    const std::string& select,
                                    uint32_t servers,
                                    std::string* error)
{
    NS_LOG_FUNCTION(this << select << servers << PlacementToString(m_placement));
    const bool byteps = m_placement == BYTEPS;
    if (trace.GetNCpuRanks() > 0)
    {
        *error = "the trace has CPU hosts already (cpuRanks " +
                 std::to_string(trace.GetNCpuRanks()) +
                 "): one dedicated parameter-server placement per trace";
        return false;
    }
    if (servers == 0 || servers > MAX_CPU_SERVERS)
    {
        *error = "expected 1 to " + std::to_string(MAX_CPU_SERVERS) + " CPU hosts, got " +
                 std::to_string(servers);
        return false;
    }
    Selection sel;
    if (!Scan(trace, select, false, servers, sel, error))
    {
        return false;
    }
    const uint32_t nGpus = trace.GetNRanks();
    // cpu: every rank a set of its own; byteps: the ranks of one server.
    auto serverOf = [&](uint32_t r) { return byteps ? r / m_gpusPerServer : r; };

    // Per selected group: its servers' sets of ranks (byteps), or one set per rank (cpu).
    std::map<std::string, Layout> layouts;
    std::vector<std::string> newGroups;
    for (uint32_t gi = 0; gi < sel.groups.size(); ++gi)
    {
        const TraceGroup& g = trace.GetGroup(sel.groups[gi]);
        Layout& l = layouts[g.name];
        l.index = gi;
        std::map<uint32_t, uint32_t> setOfServer;
        for (uint32_t r : g.ranks)
        {
            l.position[r] = static_cast<uint32_t>(l.position.size());
            auto [it, added] =
                setOfServer.emplace(serverOf(r), static_cast<uint32_t>(l.sets.size()));
            if (added)
            {
                l.sets.emplace_back();
            }
            l.where[r] = {it->second, static_cast<uint32_t>(l.sets[it->second].size())};
            l.sets[it->second].push_back(r);
        }
        l.perServer = static_cast<uint32_t>(l.sets.front().size());
        NS_LOG_LOGIC(g.name << ": " << l.sets.size() << " servers of " << l.perServer
                            << " ranks each");
        for (const auto& set : l.sets)
        {
            if (set.size() != l.perServer)
            {
                *error = "group " + g.name + " has " + std::to_string(l.perServer) +
                         " ranks on the server of rank " + std::to_string(l.sets.front().front()) +
                         " but " + std::to_string(set.size()) + " on that of rank " +
                         std::to_string(set.front()) + ": " + PlacementToString(BYTEPS) +
                         " needs the same number on every server";
                return false;
            }
        }
        for (uint32_t m = 0; m < l.sets.size(); ++m)
        {
            l.local.push_back(l.perServer > 1 ? g.name + SERVER_GROUP + std::to_string(m) : "");
            if (!l.local.back().empty() && trace.HasGroup(l.local.back()))
            {
                *error = "the trace has a group " + l.local.back() + ", the name " +
                         PlacementToString(BYTEPS) + " gives the ranks of " + g.name +
                         " on a server";
                return false;
            }
        }
    }

    // The rewrite goes into a copy: on failure the trace is as it was.
    TrainingTrace rewritten = trace;
    for (const std::string& name : sel.groups)
    {
        const Layout& l = layouts.at(name);
        for (uint32_t m = 0; m < l.sets.size(); ++m)
        {
            if (!l.local[m].empty())
            {
                NS_LOG_LOGIC("group " << l.local[m] << " reduces inside its server");
                rewritten.AddGroup({l.local[m], trace.GetGroup(name).kind, l.sets[m]});
            }
        }
    }
    const uint32_t firstHost = rewritten.AddRanks(servers);
    rewritten.SetNCpuRanks(servers);
    // Streams. On a GPU, per selected group of the rank: one per host (its pushes to it
    // and pulls from it). On a host, per selected group: one per group rank (receives
    // from it and sends to it) and one for its reductions.
    const uint32_t base = trace.GetNStreams();
    const uint32_t hostBase = base + sel.mostGroups * servers;
    const uint32_t hostStride = sel.largest + 1;
    for (uint32_t o = 0; o < sel.mostGroups; ++o)
    {
        const std::string of = sel.mostGroups > 1 ? " (group " + std::to_string(o) + ")" : "";
        for (uint32_t j = 0; j < servers; ++j)
        {
            rewritten.SetStreamName(base + o * servers + j,
                                    "PS push/pull, CPU host " + std::to_string(j) + of);
        }
    }
    for (const std::string& name : sel.groups)
    {
        const Layout& l = layouts.at(name);
        const uint32_t first = hostBase + l.index * hostStride;
        for (uint32_t i = 0; i < sel.largest; ++i)
        {
            rewritten.SetStreamName(first + i, "PS host, " + name + " rank " + std::to_string(i));
        }
        rewritten.SetStreamName(first + sel.largest, "PS host, " + name + " reduce");
    }
    // The piece of an all-reduce of S bytes that local rank i pushes to host j.
    auto piece = [servers](uint64_t bytes, uint32_t g, uint32_t i, uint32_t j) {
        return CommPlan::SplitBytes(CommPlan::SplitBytes(bytes, g, i), servers, j);
    };

    // The GPUs: each selected all-reduce becomes begin, [reduce-scatter on the server],
    // pushes and pulls, [all-gather on the server], join.
    std::vector<Call> calls;
    for (uint32_t r = 0; r < nGpus; ++r)
    {
        const std::vector<TraceOp> old = rewritten.GetOps(r);
        std::vector<std::vector<TraceOp>> becomes(old.size());
        for (size_t i = 0; i < old.size(); ++i)
        {
            const TraceOp& op = old[i];
            if (!Selects(trace, op, select))
            {
                becomes[i].push_back(op);
                continue;
            }
            const Layout& l = layouts.at(op.group);
            const auto [m, local] = l.where.at(r);
            const uint32_t g = l.perServer;
            const uint32_t firstStream = base + sel.ordinal[r].at(op.group) * servers;
            const uint32_t gidx = sel.groupIndex.at(op.group);
            if (r == trace.GetGroup(op.group).ranks.front())
            {
                calls.push_back({op.iteration, l.index, op.name, op.bytes});
            }
            auto& out = becomes[i];
            auto add = [&](TraceOp t, const std::string& what, std::vector<uint32_t> deps) {
                t.name = op.name + what;
                t.iteration = op.iteration;
                t.deps = std::move(deps);
                out.push_back(std::move(t));
                return static_cast<uint32_t>(out.size() - 1);
            };
            TraceOp begin;
            begin.kind = TraceOpKind::COMPUTE;
            begin.stream = op.stream;
            uint32_t ready = add(begin, OpSuffix::BEGIN, op.deps); // old ids, mapped by Splice
            auto collective = [&](CollectiveType type, const std::string& what, uint32_t after) {
                TraceOp c;
                c.kind = TraceOpKind::COLLECTIVE;
                c.collective = type;
                c.group = l.local[m];
                c.bytes = op.bytes;
                c.stream = op.stream; // the runner's algorithm: the op's is for an all-reduce
                return add(c, what, {after});
            };
            if (g > 1)
            {
                ready = collective(CollectiveType::REDUCE_SCATTER, OpSuffix::SCATTER, ready);
            }
            std::vector<uint32_t> pulled;
            for (uint32_t j = 0; j < servers; ++j)
            {
                const uint64_t bytes = piece(op.bytes, g, local, j);
                if (bytes == 0)
                {
                    NS_LOG_LOGIC("rank " << r << " has no bytes for host " << j);
                    continue;
                }
                TraceOp t;
                t.peer = firstHost + j;
                t.bytes = bytes;
                t.stream = firstStream + j;
                t.kind = TraceOpKind::SEND;
                t.tag = PUSH_TAG | gidx;
                add(t, OpSuffix::PUSH, {ready});
                t.kind = TraceOpKind::RECV;
                t.tag = PULL_TAG | gidx;
                pulled.push_back(add(t, OpSuffix::PULL, {}));
            }
            if (g > 1)
            {
                TraceOp gather;
                gather.kind = TraceOpKind::COLLECTIVE;
                gather.collective = CollectiveType::ALL_GATHER;
                gather.group = l.local[m];
                gather.bytes = op.bytes;
                gather.stream = op.stream;
                pulled = {add(gather,
                              OpSuffix::GATHER,
                              pulled.empty() ? std::vector<uint32_t>{ready} : pulled)};
            }
            TraceOp join;
            join.kind = TraceOpKind::COMPUTE;
            join.stream = op.stream;
            add(join, OpSuffix::JOIN, pulled.empty() ? std::vector<uint32_t>{ready} : pulled);
            ++m_rewritten;
        }
        Splice(rewritten, r, old, becomes);
    }

    // The hosts: per call, in iteration order, per local index: receive the servers'
    // copies of its piece, add them, send the sum back.
    std::stable_sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) {
        return a.iteration < b.iteration;
    });
    for (uint32_t j = 0; j < servers; ++j)
    {
        const uint32_t host = firstHost + j;
        for (const Call& c : calls)
        {
            const std::string& name = sel.groups[c.group];
            const Layout& l = layouts.at(name);
            const uint32_t gidx = sel.groupIndex.at(name);
            const uint32_t first = hostBase + l.index * hostStride;
            for (uint32_t local = 0; local < l.perServer; ++local)
            {
                const uint64_t bytes = piece(c.bytes, l.perServer, local, j);
                if (bytes == 0)
                {
                    continue;
                }
                // The host's receive from, or send to, the rank of local index `local` on
                // one server: on that rank's stream of the host.
                auto message = [&](TraceOpKind kind,
                                   const char* suffix,
                                   uint32_t tag,
                                   uint32_t peer,
                                   std::vector<uint32_t> deps) {
                    TraceOp t;
                    t.kind = kind;
                    t.name = c.name + suffix;
                    t.peer = peer;
                    t.tag = tag | gidx;
                    t.bytes = bytes;
                    t.stream = first + l.position.at(peer);
                    t.iteration = c.iteration;
                    t.deps = std::move(deps);
                    return rewritten.AddOp(host, t);
                };
                std::vector<uint32_t> in;
                for (const auto& set : l.sets)
                {
                    in.push_back(
                        message(TraceOpKind::RECV, OpSuffix::IN, PUSH_TAG, set[local], {}));
                }
                TraceOp reduce;
                reduce.kind = TraceOpKind::COMPUTE;
                reduce.name = c.name + OpSuffix::REDUCE;
                reduce.stream = first + sel.largest;
                reduce.iteration = c.iteration;
                reduce.duration = Seconds((l.sets.size() + 1.0) * static_cast<double>(bytes) /
                                          m_cpuReduceBandwidth);
                reduce.deps = in;
                const uint32_t reduced = rewritten.AddOp(host, reduce);
                for (const auto& set : l.sets)
                {
                    message(TraceOpKind::SEND, OpSuffix::OUT, PULL_TAG, set[local], {reduced});
                }
            }
        }
    }
    std::string why;
    if (!rewritten.Validate(&why))
    {
        *error = "the rewritten trace would not be valid: " + why;
        m_rewritten = 0;
        return false;
    }
    trace = std::move(rewritten);
    NS_LOG_INFO(m_rewritten << " all-reduces on " << select << " by " << servers << " CPU hosts ("
                            << PlacementToString(m_placement) << ")");
    return true;
}

} // namespace ns3
