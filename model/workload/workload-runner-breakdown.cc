// SPDX-License-Identifier: GPL-2.0-only
// WorkloadRunner's iteration breakdown: per rank and iteration, compute, communication
// exposed beyond it, and idle time, from the intervals its operations ran.
#include "workload-runner.h"

#include <algorithm>
#include <numeric>

namespace ns3
{

namespace
{
using Interval = std::pair<Time, Time>;

/// Merge overlapping intervals; returns them sorted and disjoint.
std::vector<Interval>
Merge(std::vector<Interval> v)
{
    std::sort(v.begin(), v.end());
    std::vector<Interval> out;
    for (const auto& iv : v)
    {
        if (!out.empty() && iv.first <= out.back().second)
        {
            out.back().second = std::max(out.back().second, iv.second);
        }
        else
        {
            out.push_back(iv);
        }
    }
    return out;
}

Time
Length(const std::vector<Interval>& v)
{
    Time t;
    for (const auto& iv : v)
    {
        t += iv.second - iv.first;
    }
    return t;
}

/// Intersection of two sorted disjoint lists (sorted, disjoint).
std::vector<Interval>
Intersect(const std::vector<Interval>& a, const std::vector<Interval>& b)
{
    std::vector<Interval> out;
    size_t i = 0;
    size_t j = 0;
    while (i < a.size() && j < b.size())
    {
        const Time lo = std::max(a[i].first, b[j].first);
        const Time hi = std::min(a[i].second, b[j].second);
        if (hi > lo)
        {
            out.emplace_back(lo, hi);
        }
        (a[i].second < b[j].second) ? ++i : ++j;
    }
    return out;
}
} // namespace

std::vector<Time>
WorkloadRunner::GetIterationTimes(const std::vector<IterationBreakdown>& breakdown,
                                  uint32_t iterations)
{
    std::vector<Time> times(iterations, Time());
    for (const IterationBreakdown& b : breakdown)
    {
        if (b.iteration < iterations)
        {
            times[b.iteration] = std::max(times[b.iteration], b.GetTotal());
        }
    }
    return times;
}

std::vector<IterationBreakdown>
WorkloadRunner::GetBreakdown() const
{
    if (m_breakdownRecords == m_records.size())
    {
        return m_breakdown;
    }
    const uint32_t n = m_trace->GetNRanks();
    const uint32_t iters = GetNIterations();
    // Per rank: every compute and communication interval (communication from its call's
    // launch: before it, the rank only waits for peers, which is idle time), and per
    // iteration the end of its last op.
    std::vector<std::vector<Interval>> compute(n);
    std::vector<std::vector<Interval>> comm(n);
    std::vector<Time> end(static_cast<size_t>(n) * iters, Time());
    std::vector<bool> seen(static_cast<size_t>(n) * iters, false);
    for (const OpRecord& r : m_records)
    {
        if (r.kind == TraceOpKind::COMPUTE)
        {
            compute[r.rank].emplace_back(r.start, r.end);
        }
        else
        {
            const Time from = r.call >= 0 ? std::max(r.start, m_calls[r.call].launch) : r.start;
            comm[r.rank].emplace_back(from, r.end);
        }
        const size_t k = static_cast<size_t>(r.rank) * iters + r.iteration;
        end[k] = seen[k] ? std::max(end[k], r.end) : r.end;
        seen[k] = true;
    }
    std::vector<IterationBreakdown> out;
    // GPUs only: a CPU host (a dedicated parameter server) has no iteration of its own.
    for (uint32_t rank = 0; rank < m_trace->GetNGpuRanks(); ++rank)
    {
        // Iterations may overlap on a rank (a gradient all-reduce still running when
        // the next iteration computes): each iteration gets the window from the end of
        // the previous one to its own end, and whatever runs in that window counts there.
        const auto c = Merge(compute[rank]);
        const auto m = Merge(comm[rank]);
        const auto hidden = Intersect(m, c);
        Time previous = m_start;
        for (uint32_t it = 0; it < iters; ++it)
        {
            const size_t k = static_cast<size_t>(rank) * iters + it;
            if (!seen[k])
            {
                continue;
            }
            IterationBreakdown b;
            b.rank = rank;
            b.iteration = it;
            b.start = previous;
            b.end = std::max(previous, end[k]);
            const std::vector<Interval> window{{b.start, b.end}};
            b.compute = Length(Intersect(c, window));
            b.exposedComm = Length(Intersect(m, window)) - Length(Intersect(hidden, window));
            b.idle = b.GetTotal() - b.compute - b.exposedComm;
            out.push_back(b);
            previous = b.end;
        }
    }
    m_breakdown = out;
    m_breakdownRecords = m_records.size();
    return out;
}

} // namespace ns3
