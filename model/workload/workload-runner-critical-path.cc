// SPDX-License-Identifier: GPL-2.0-only
// WorkloadRunner's critical paths: each iteration walked back from its last op through
// what made each op start when it did, so a report can say what a straggler cost.
#include "workload-runner.h"

#include "ns3/log.h"

#include <map>
#include <optional>
#include <unordered_map>

namespace ns3
{

// The class's log component ("WorkloadRunner"), defined in workload-runner.cc: NS_LOG
// finds it under this name.
LogComponent& WorkloadRunnerLogComponent();
static LogComponent& g_log = WorkloadRunnerLogComponent();

std::vector<WorkloadRunner::CriticalPath>
WorkloadRunner::GetCriticalPaths() const
{
    const uint32_t n = m_trace->GetNRanks();
    auto keyOf = [](uint64_t repetition, uint32_t op) { return (repetition << 32) | op; };
    // Per rank: (repetition, op) -> its record; per (rank, repetition): the record that
    // finished last (the next repetition starts then); per call: its members' records;
    // per iteration: the record that finished last.
    std::vector<std::unordered_map<uint64_t, size_t>> recordOf(n);
    std::vector<std::map<uint64_t, size_t>> lastOfRepetition(n);
    std::vector<std::vector<size_t>> members(m_calls.size());
    std::map<uint32_t, size_t> lastOfIteration;
    for (size_t i = 0; i < m_records.size(); ++i)
    {
        const OpRecord& r = m_records[i];
        const uint64_t repetition = r.iteration / m_traceIterations;
        recordOf[r.rank][keyOf(repetition, r.op)] = i;
        auto [last, fresh] = lastOfRepetition[r.rank].emplace(repetition, i);
        if (!fresh && m_records[last->second].end < r.end)
        {
            last->second = i;
        }
        if (r.call >= 0)
        {
            members[r.call].push_back(i);
        }
        auto [it, first] = lastOfIteration.emplace(r.iteration, i);
        if (!first && m_records[it->second].end < r.end)
        {
            it->second = i;
        }
    }
    // Per rank and op: the op before it on its stream (or none).
    std::vector<std::vector<int64_t>> streamBefore(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        const auto& ops = m_trace->GetOps(r);
        std::vector<int64_t> lastOnStream(m_traceStreams, -1);
        streamBefore[r].assign(ops.size(), -1);
        for (const TraceOp& o : ops)
        {
            streamBefore[r][o.id] = lastOnStream[o.stream];
            lastOnStream[o.stream] = o.id;
        }
    }
    // What made record i start: the latest to finish of its dependencies and its stream
    // predecessor, or (first of its repetition) the previous repetition's last op.
    auto startedBy = [&](size_t i) -> std::optional<size_t> {
        const OpRecord& r = m_records[i];
        const uint64_t repetition = r.iteration / m_traceIterations;
        const TraceOp& o = m_trace->GetOps(r.rank)[r.op];
        std::optional<size_t> best;
        auto consider = [&](int64_t op) {
            auto it = recordOf[r.rank].find(keyOf(repetition, static_cast<uint32_t>(op)));
            if (it != recordOf[r.rank].end() &&
                (!best || m_records[it->second].end > m_records[*best].end ||
                 (m_records[it->second].end == m_records[*best].end &&
                  m_records[it->second].op < m_records[*best].op)))
            {
                best = it->second;
            }
        };
        for (uint32_t d : o.deps)
        {
            consider(d);
        }
        if (streamBefore[r.rank][r.op] >= 0)
        {
            consider(streamBefore[r.rank][r.op]);
        }
        if (!best && repetition > 0)
        {
            auto it = lastOfRepetition[r.rank].find(repetition - 1);
            if (it != lastOfRepetition[r.rank].end())
            {
                best = it->second;
            }
        }
        return best;
    };

    std::vector<CriticalPath> paths;
    for (const auto& [iteration, last] : lastOfIteration)
    {
        CriticalPath cp;
        cp.iteration = iteration;
        cp.end = m_records[last].end;
        cp.start = m_records[last].start;
        cp.compute.assign(n, Time(0));
        std::optional<size_t> cur = last;
        while (cur && m_records[*cur].iteration == iteration)
        {
            const OpRecord& r = m_records[*cur];
            size_t from = *cur;
            cp.start = r.start;
            if (r.kind == TraceOpKind::COMPUTE)
            {
                cp.compute[r.rank] += r.end - r.start;
            }
            else
            {
                // The call launched when its last member arrived: go on from that one.
                const CallRecord& call = m_calls[r.call];
                cp.communication += r.end - call.launch;
                for (size_t m : members[r.call])
                {
                    const OpRecord& mr = m_records[m];
                    const OpRecord& fr = m_records[from];
                    if (mr.start > fr.start || (mr.start == fr.start && mr.rank < fr.rank))
                    {
                        from = m;
                    }
                }
                cp.start = m_records[from].start;
            }
            cur = startedBy(from);
        }
        NS_LOG_LOGIC("iteration " << iteration << ": critical path " << cp.start.As(Time::MS)
                                  << " .. " << cp.end.As(Time::MS) << ", communication "
                                  << cp.communication.As(Time::MS));
        paths.push_back(std::move(cp));
    }
    return paths;
}

} // namespace ns3
