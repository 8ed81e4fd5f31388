// SPDX-License-Identifier: GPL-2.0-only
#include "job-interleave.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("JobInterleave");

Time
MeanTime(const std::vector<Time>& times)
{
    Time sum;
    for (const Time& x : times)
    {
        sum += x;
    }
    return times.empty() ? Time() : sum / static_cast<int64_t>(times.size());
}

BusyIntervals
MergeIntervals(BusyIntervals intervals)
{
    std::sort(intervals.begin(), intervals.end());
    BusyIntervals merged;
    for (const auto& [start, end] : intervals)
    {
        if (end <= start)
        {
            continue;
        }
        if (!merged.empty() && start <= merged.back().second)
        {
            merged.back().second = std::max(merged.back().second, end);
        }
        else
        {
            merged.emplace_back(start, end);
        }
    }
    return merged;
}

Time
OverlapOf(const BusyIntervals& a, const BusyIntervals& b)
{
    Time overlap;
    size_t i = 0;
    size_t j = 0;
    while (i < a.size() && j < b.size())
    {
        const Time lo = std::max(a[i].first, b[j].first);
        const Time hi = std::min(a[i].second, b[j].second);
        if (hi > lo)
        {
            overlap += hi - lo;
        }
        if (a[i].second < b[j].second)
        {
            ++i;
        }
        else
        {
            ++j;
        }
    }
    return overlap;
}

BusyIntervals
Shifted(const BusyIntervals& intervals, Time shift)
{
    BusyIntervals out = intervals;
    for (auto& [start, end] : out)
    {
        start += shift;
        end += shift;
    }
    return out;
}

std::vector<Time>
InterleaveShifts(const std::vector<BusyIntervals>& busy,
                 const std::vector<Time>& periods,
                 uint32_t steps)
{
    std::vector<Time> shifts(busy.size(), Time());
    if (busy.empty())
    {
        return shifts;
    }
    steps = std::max(1u, steps);
    BusyIntervals placed = busy.front();
    for (size_t j = 1; j < busy.size(); ++j)
    {
        Time best;
        Time least = Time::Max();
        for (uint32_t k = 0; k < steps; ++k)
        {
            const Time s = periods[j] * static_cast<int64_t>(k) / static_cast<int64_t>(steps);
            const Time overlap = OverlapOf(placed, Shifted(busy[j], s));
            if (overlap < least)
            {
                least = overlap;
                best = s;
            }
        }
        NS_LOG_INFO("job " << j << ": shift " << best.As(Time::MS) << ", overlap "
                           << least.As(Time::MS));
        shifts[j] = best;
        BusyIntervals all = placed;
        const BusyIntervals mine = Shifted(busy[j], best);
        all.insert(all.end(), mine.begin(), mine.end());
        placed = MergeIntervals(all);
    }
    return shifts;
}

} // namespace ns3
