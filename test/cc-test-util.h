// SPDX-License-Identifier: GPL-2.0-only
// What the congestion-control suites (dctcp, timely, hpcc, swift) share: long flows over a
// dumbbell.
#ifndef AI_FABRIC_CC_TEST_UTIL_H
#define AI_FABRIC_CC_TEST_UTIL_H

#include "test-util.h"

#include <limits>
#include <string>
#include <vector>

namespace aifabric
{

/// Samples the priority-3 (data) egress queue of some ports every interval until a time;
/// each port's value is one sample.
struct QueueSampler
{
    std::vector<ns3::Ptr<ns3::RoceNetDevice>> ports; //!< the ports sampled
    ns3::Time interval{ns3::MicroSeconds(1)};        //!< between samples
    ns3::Time until{ns3::Time::Max()};               //!< no sample at or after this
    double min{std::numeric_limits<double>::max()};  //!< smallest sample, bytes
    double max{0};                                   //!< largest sample
    double sum{0};                                   //!< of all samples
    uint64_t samples{0};                             //!< taken

    /// Take one sample of every port and schedule the next.
    void Sample();
    /// \return the mean sample (0 before any)
    double Mean() const;
};

/// What a dumbbell run measured over its measurement window.
struct DumbbellRun
{
    std::vector<double> rates;  //!< each flow's goodput, bit/s
    double queueMin{0};         //!< bottleneck egress queue (priority 3), bytes
    double queueMax{0};         //!< largest sample
    double queueMean{0};        //!< mean of the 1 us samples
    double payloadRate{0};      //!< the bottleneck's payload capacity, bit/s
    double linkUtilisation{0};  //!< the bottleneck's wire bytes (frames, FCS, preamble,
                                //!< gap) over its capacity
    uint64_t drops{0};          //!< frames dropped anywhere
    uint64_t pauses{0};         //!< PFC pauses sent anywhere
    std::vector<double> alphas; //!< the senders' Dctcp alpha at the end (if Dctcp)
    double baseRtt{0};          //!< the senders' Hpcc T, seconds (if Hpcc)
    double target{0};           //!< the first sender's Swift target delay at the end, s

    /// \return the sum of the flows' rates over the payload capacity
    double Utilisation() const;
    /**
     * Print "[ measured ] label: rates, utilisation, queue range" and expect each flow
     * within 10 % of its fair share of the payload rate and a utilisation of at least
     * 95 %.
     * \param label names the run
     */
    void ExpectFairAndFull(const std::string& label) const;
};

/**
 * Run n long flows, host i to host n + i, over a dumbbell of 100 Gb/s links (1 us cables)
 * whose switches mark ECN as the caller set them, under congestion control cc
 * (attributes set with Config::SetDefault beforehand). Flow i starts at i x stagger.
 * \param cc a TypeId name
 * \param n flows
 * \param stagger time between flow starts
 * \param from start of the measurement window
 * \param to its end (the run stops there)
 * \param kmin, kmax, pmax the switches' ECN marking (0 kmin: the MMU's default)
 * \return the measurements
 */
DumbbellRun RunDumbbell(const std::string& cc,
                        uint32_t n,
                        ns3::Time stagger,
                        ns3::Time from,
                        ns3::Time to,
                        uint32_t kmin = 0,
                        uint32_t kmax = 0,
                        double pmax = 0.2);

} // namespace aifabric

#endif
