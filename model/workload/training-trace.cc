// SPDX-License-Identifier: GPL-2.0-only
#include "training-trace.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <tuple>

namespace ns3
{

// A generated trace of 16,384 GPUs holds 20 M ops: keep the layout training-trace.h
// describes (its labels 4 bytes each, its members ordered to little padding).
static_assert(sizeof(TraceLabel) == 4, "a TraceLabel is an index");
static_assert(sizeof(TraceOp) <= 64 + sizeof(std::vector<uint32_t>),
              "TraceOp: 88 bytes with a 24-byte vector");

std::string
TraceOpKindToString(TraceOpKind kind)
{
    switch (kind)
    {
    case TraceOpKind::COMPUTE:
        return "compute";
    case TraceOpKind::COLLECTIVE:
        return "collective";
    case TraceOpKind::SEND:
        return "send";
    case TraceOpKind::RECV:
        return "recv";
    }
    return "unknown";
}

bool
ParseCollectiveType(const std::string& name, CollectiveType& type)
{
    std::string key;
    for (char c : name)
    {
        if (c != '-' && c != '_' && c != ' ')
        {
            key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    // The printed names (CollectiveTypeToString) without their dashes; the trace format
    // takes the six collectives a program names (not all-to-allv or send-recv, which are
    // ops of their own).
    for (CollectiveType t : {CollectiveType::ALL_REDUCE,
                             CollectiveType::REDUCE_SCATTER,
                             CollectiveType::ALL_GATHER,
                             CollectiveType::BROADCAST,
                             CollectiveType::REDUCE,
                             CollectiveType::ALL_TO_ALL})
    {
        std::string printed = CollectiveTypeToString(t);
        printed.erase(std::remove(printed.begin(), printed.end(), '-'), printed.end());
        if (key == printed)
        {
            type = t;
            return true;
        }
    }
    return false;
}

TrainingTrace::TrainingTrace(uint32_t nRanks)
{
    SetNRanks(nRanks);
}

void
TrainingTrace::SetNRanks(uint32_t nRanks)
{
    m_nRanks = nRanks;
    m_ops.assign(nRanks, {});
}

uint32_t
TrainingTrace::GetNRanks() const
{
    return m_nRanks;
}

uint32_t
TrainingTrace::AddRanks(uint32_t count)
{
    const uint32_t first = m_nRanks;
    m_nRanks += count;
    m_ops.resize(m_nRanks);
    return first;
}

void
TrainingTrace::SetNCpuRanks(uint32_t count)
{
    m_nCpuRanks = count;
}

uint32_t
TrainingTrace::GetNCpuRanks() const
{
    return m_nCpuRanks;
}

uint32_t
TrainingTrace::GetNGpuRanks() const
{
    return m_nRanks > m_nCpuRanks ? m_nRanks - m_nCpuRanks : 0;
}

bool
TrainingTrace::IsCpuRank(uint32_t rank) const
{
    return rank >= GetNGpuRanks() && rank < m_nRanks;
}

void
TrainingTrace::SetName(const std::string& name)
{
    m_name = name;
}

const std::string&
TrainingTrace::GetName() const
{
    return m_name;
}

void
TrainingTrace::SetGpu(const std::string& gpu)
{
    m_gpu = gpu;
}

const std::string&
TrainingTrace::GetGpu() const
{
    return m_gpu;
}

uint32_t
TrainingTrace::AddGroup(const TraceGroup& group)
{
    NS_ABORT_MSG_IF(HasGroup(group.name), "TrainingTrace: group '" << group.name << "' exists");
    m_groupIndex[group.name] = static_cast<uint32_t>(m_groups.size());
    m_groups.push_back(group);
    return static_cast<uint32_t>(m_groups.size() - 1);
}

bool
TrainingTrace::HasGroup(const std::string& name) const
{
    return m_groupIndex.count(name) != 0;
}

const TraceGroup&
TrainingTrace::GetGroup(const std::string& name) const
{
    auto it = m_groupIndex.find(name);
    NS_ABORT_MSG_IF(it == m_groupIndex.end(), "TrainingTrace: no group '" << name << "'");
    return m_groups[it->second];
}

const std::vector<TraceGroup>&
TrainingTrace::GetGroups() const
{
    return m_groups;
}

uint32_t
TrainingTrace::AddOp(uint32_t rank, TraceOp op)
{
    NS_ABORT_MSG_IF(rank >= m_nRanks, "TrainingTrace::AddOp: rank " << rank << " of " << m_nRanks);
    op.id = static_cast<uint32_t>(m_ops[rank].size());
    m_ops[rank].push_back(std::move(op));
    return m_ops[rank].back().id;
}

const std::vector<TraceOp>&
TrainingTrace::GetOps(uint32_t rank) const
{
    return m_ops.at(rank);
}

std::vector<TraceOp>&
TrainingTrace::GetOps(uint32_t rank)
{
    return m_ops.at(rank);
}

uint64_t
TrainingTrace::GetNOps() const
{
    uint64_t n = 0;
    for (const auto& ops : m_ops)
    {
        n += ops.size();
    }
    return n;
}

uint32_t
TrainingTrace::GetNIterations() const
{
    uint32_t n = 0;
    for (const auto& ops : m_ops)
    {
        for (const auto& op : ops)
        {
            n = std::max(n, op.iteration + 1);
        }
    }
    return n;
}

uint32_t
TrainingTrace::GetNStreams() const
{
    uint32_t n = 1;
    for (const auto& ops : m_ops)
    {
        for (const auto& op : ops)
        {
            n = std::max(n, op.stream + 1);
        }
    }
    return n;
}

void
TrainingTrace::SetStreamName(uint32_t stream, const std::string& name)
{
    if (stream >= m_streamNames.size())
    {
        m_streamNames.resize(stream + 1);
    }
    m_streamNames[stream] = name;
}

std::string
TrainingTrace::GetStreamName(uint32_t stream) const
{
    return stream < m_streamNames.size() ? m_streamNames[stream] : std::string();
}

const std::vector<std::string>&
TrainingTrace::GetStreamNames() const
{
    return m_streamNames;
}

namespace
{

/// Validate: no dependency cycle among rank r's ops (deps and stream order).
bool
CheckNoCycle(uint32_t r, const std::vector<TraceOp>& ops, std::ostringstream& why)
{
    // Cycle check (Kahn) over this rank's deps; stream order only adds edges from
    // lower to higher ids, so it cannot close a cycle by itself but can with deps.
    std::vector<uint32_t> indegree(ops.size(), 0);
    std::vector<std::vector<uint32_t>> next(ops.size());
    std::vector<int64_t> lastOfStream;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        for (uint32_t d : ops[i].deps)
        {
            next[d].push_back(i);
            ++indegree[i];
        }
        if (ops[i].stream >= lastOfStream.size())
        {
            lastOfStream.resize(ops[i].stream + 1, -1);
        }
        if (lastOfStream[ops[i].stream] >= 0)
        {
            next[lastOfStream[ops[i].stream]].push_back(i);
            ++indegree[i];
        }
        lastOfStream[ops[i].stream] = i;
    }
    std::vector<uint32_t> ready;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        if (indegree[i] == 0)
        {
            ready.push_back(i);
        }
    }
    size_t seen = 0;
    while (!ready.empty())
    {
        uint32_t x = ready.back();
        ready.pop_back();
        ++seen;
        for (uint32_t y : next[x])
        {
            if (--indegree[y] == 0)
            {
                ready.push_back(y);
            }
        }
    }
    if (seen != ops.size())
    {
        for (uint32_t i = 0; i < ops.size(); ++i)
        {
            if (indegree[i] != 0)
            {
                why << "rank " << r << " op " << i << " ('" << ops[i].name
                    << "') is on a dependency cycle (deps and stream order)";
                return false;
            }
        }
    }
    return true;
}

} // namespace

bool
TrainingTrace::CheckGroups(std::ostringstream& why) const
{
    for (const TraceGroup& g : m_groups)
    {
        if (g.ranks.empty())
        {
            why << "group '" << g.name << "' has no ranks";
            return false;
        }
        std::vector<uint32_t> sorted(g.ranks);
        std::sort(sorted.begin(), sorted.end());
        if (sorted.back() >= m_nRanks)
        {
            why << "group '" << g.name << "' names rank " << sorted.back() << " but the trace has "
                << m_nRanks << " ranks";
            return false;
        }
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        {
            why << "group '" << g.name << "' names rank "
                << *std::adjacent_find(sorted.begin(), sorted.end()) << " twice";
            return false;
        }
        // Collectives are GPU work: a CPU host takes part in sends and receives only.
        if (IsCpuRank(sorted.back()))
        {
            why << "group '" << g.name << "' names rank " << sorted.back() << ", a CPU host (ranks "
                << GetNGpuRanks() << " to " << m_nRanks - 1 << "); groups hold GPUs only";
            return false;
        }
    }
    return true;
}

bool
TrainingTrace::CheckOps(uint32_t r,
                        CollectiveSequences& sequences,
                        MessageSizes& p2p,
                        std::ostringstream& why) const
{
    const auto& ops = m_ops[r];
    uint32_t lastIteration = 0;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        const TraceOp& op = ops[i];
        why << "rank " << r << " op " << i << " ('" << op.name << "'): ";
        if (op.id != i)
        {
            why << "id " << op.id << " is not its index";
            return false;
        }
        if (op.iteration < lastIteration)
        {
            why << "iteration " << op.iteration << " after an op of iteration " << lastIteration
                << " (ops must be listed iteration by iteration)";
            return false;
        }
        lastIteration = op.iteration;
        for (uint32_t d : op.deps)
        {
            if (d >= ops.size() || d == i)
            {
                why << "depends on op " << d
                    << (d == i ? ", itself" : ", which the rank does not have");
                return false;
            }
        }
        if (!CheckOpKind(r, op, sequences, p2p, why))
        {
            return false;
        }
        why.str("");
    }
    return true;
}

bool
TrainingTrace::CheckOpKind(uint32_t r,
                           const TraceOp& op,
                           CollectiveSequences& sequences,
                           MessageSizes& p2p,
                           std::ostringstream& why) const
{
    switch (op.kind)
    {
    case TraceOpKind::COMPUTE:
        if (op.duration.IsStrictlyNegative())
        {
            why << "negative duration " << op.duration.GetSeconds() << " s";
            return false;
        }
        break;
    case TraceOpKind::COLLECTIVE: {
        auto it = m_groupIndex.find(op.group);
        if (it == m_groupIndex.end())
        {
            why << "unknown group '" << op.group << "'";
            return false;
        }
        const TraceGroup& g = m_groups[it->second];
        auto pos = std::find(g.ranks.begin(), g.ranks.end(), r);
        if (pos == g.ranks.end())
        {
            why << "collective on group '" << op.group << "', which does not contain rank " << r;
            return false;
        }
        if (IsRootedCollective(op.collective) && op.root >= g.ranks.size())
        {
            why << "root " << op.root << " outside group '" << op.group << "' of " << g.ranks.size()
                << " ranks";
            return false;
        }
        if (op.collective == CollectiveType::ALL_TO_ALLV ||
            op.collective == CollectiveType::SEND_RECV)
        {
            why << "collective " << op.collective
                << " is not a trace collective (use send/recv ops)";
            return false;
        }
        auto& seq = sequences[op.group];
        seq.resize(g.ranks.size());
        seq[pos - g.ranks.begin()].emplace_back(op.collective, op.bytes, op.root);
        break;
    }
    case TraceOpKind::SEND:
    case TraceOpKind::RECV:
        if (op.peer >= m_nRanks || op.peer == r)
        {
            why << TraceOpKindToString(op.kind) << " peer " << op.peer
                << (op.peer == r ? " is the rank itself" : " is out of range");
            return false;
        }
        if (op.kind == TraceOpKind::SEND)
        {
            p2p[{r, op.peer, op.tag}].first.push_back(op.bytes);
        }
        else
        {
            p2p[{op.peer, r, op.tag}].second.push_back(op.bytes);
        }
        break;
    }
    return true;
}

bool
TrainingTrace::CheckSequences(const CollectiveSequences& sequences, std::ostringstream& why) const
{
    for (const auto& [name, seq] : sequences)
    {
        const TraceGroup& g = GetGroup(name);
        for (uint32_t k = 0; k < g.ranks.size(); ++k)
        {
            const auto& mine = seq[k]; // sized to the group when its first call was seen
            const auto& first = seq[0];
            if (mine.size() != first.size())
            {
                why << "group '" << name << "': rank " << g.ranks[k] << " issues " << mine.size()
                    << " collectives on it but rank " << g.ranks[0] << " issues " << first.size();
                return false;
            }
            for (size_t c = 0; c < mine.size(); ++c)
            {
                if (mine[c] != first[c])
                {
                    why << "group '" << name << "': collective #" << c << " of rank " << g.ranks[k]
                        << " (" << std::get<0>(mine[c]) << ", " << std::get<1>(mine[c])
                        << " B, root " << std::get<2>(mine[c]) << ") differs from rank "
                        << g.ranks[0] << "'s (" << std::get<0>(first[c]) << ", "
                        << std::get<1>(first[c]) << " B, root " << std::get<2>(first[c]) << ")";
                    return false;
                }
            }
        }
    }
    return true;
}

bool
TrainingTrace::CheckMessages(const MessageSizes& p2p, std::ostringstream& why) const
{
    for (const auto& [key, sizes] : p2p)
    {
        const auto& [sends, recvs] = sizes;
        if (sends.size() != recvs.size())
        {
            why << "rank " << std::get<0>(key) << " sends " << sends.size() << " messages to rank "
                << std::get<1>(key) << " (tag " << std::get<2>(key) << ") but rank "
                << std::get<1>(key) << " receives " << recvs.size();
            return false;
        }
        for (size_t k = 0; k < sends.size(); ++k)
        {
            if (sends[k] != recvs[k])
            {
                why << "message #" << k << " from rank " << std::get<0>(key) << " to rank "
                    << std::get<1>(key) << " (tag " << std::get<2>(key) << ") is sent with "
                    << sends[k] << " B but received with " << recvs[k] << " B";
                return false;
            }
        }
    }
    return true;
}

bool
TrainingTrace::Validate(std::string* reason) const
{
    std::ostringstream why;
    auto fail = [&]() {
        if (reason)
        {
            *reason = why.str();
        }
        return false;
    };
    if (m_nRanks == 0)
    {
        why << "the trace has no ranks";
        return fail();
    }
    if (m_nCpuRanks >= m_nRanks)
    {
        why << "all " << m_nRanks << " ranks are CPU hosts (cpuRanks " << m_nCpuRanks
            << "): a trace needs at least one GPU";
        return fail();
    }
    if (!CheckGroups(why))
    {
        return fail();
    }

    // Per op: references. Per group: each member's sequence of collectives on it.
    CollectiveSequences sequences;
    // (src, dst, tag) -> the sizes of its sends, in src's order, and of its receives, in
    // dst's order: the k-th of each meet.
    MessageSizes p2p;
    for (uint32_t r = 0; r < m_nRanks; ++r)
    {
        if (!CheckOps(r, sequences, p2p, why) || !CheckNoCycle(r, m_ops[r], why))
        {
            return fail();
        }
    }
    if (!CheckSequences(sequences, why) || !CheckMessages(p2p, why))
    {
        return fail();
    }
    if (reason)
    {
        reason->clear();
    }
    return true;
}

TrainingTrace
TrainingTrace::Checked(TrainingTrace trace, const std::string& prefix, std::string* error)
{
    std::string why;
    if (!trace.Validate(&why))
    {
        if (error)
        {
            *error = prefix + ": " + why;
        }
        return TrainingTrace();
    }
    if (error)
    {
        error->clear();
    }
    return trace;
}

} // namespace ns3
