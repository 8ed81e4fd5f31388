// SPDX-License-Identifier: GPL-2.0-only
#ifndef JOB_INTERLEAVE_H
#define JOB_INTERLEAVE_H

#include "ns3/nstime.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/// Shifts InterleaveShifts tries per period, by default.
constexpr uint32_t INTERLEAVE_STEPS = 100;

/// \param times some times \return their mean (zero for none)
Time MeanTime(const std::vector<Time>& times);

/// Times a job used the scale-out network: [start, end) intervals.
using BusyIntervals = std::vector<std::pair<Time, Time>>;

/**
 * \param intervals any intervals
 * \return them sorted and merged (touching or overlapping ones joined)
 */
BusyIntervals MergeIntervals(BusyIntervals intervals);

/**
 * \param a merged intervals \param b merged intervals
 * \return the time both cover
 */
Time OverlapOf(const BusyIntervals& a, const BusyIntervals& b);

/**
 * \param intervals merged intervals \param shift a time
 * \return them shifted later by shift
 */
BusyIntervals Shifted(const BusyIntervals& intervals, Time shift);

/**
 * Start shifts that interleave jobs' communication, in the spirit of CASSINI
 * (Rajasekaran et al., "CASSINI: Network-Aware Job Scheduling in Machine Learning
 * Clusters", NSDI 2024): each job after the first, in order, is shifted by the s in
 * {0, p/steps, 2p/steps, ...} below its period p (its iteration alone) whose network
 * phases (measured alone, from its start) overlap least with those of the jobs before it
 * (as shifted); the smallest such s on a tie.
 * \param busy per job, its network phases alone (merged, from its start at 0)
 * \param periods per job, its mean iteration time alone
 * \param steps shifts tried per period (at least 1)
 * \return per job, its shift (0 for the first)
 */
std::vector<Time> InterleaveShifts(const std::vector<BusyIntervals>& busy,
                                   const std::vector<Time>& periods,
                                   uint32_t steps = INTERLEAVE_STEPS);

} // namespace ns3

#endif // JOB_INTERLEAVE_H
