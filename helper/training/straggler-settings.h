// SPDX-License-Identifier: GPL-2.0-only
#ifndef STRAGGLER_SETTINGS_H
#define STRAGGLER_SETTINGS_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class WorkloadRunner;
struct GpuCluster;

/**
 * \ingroup ai-fabric
 * A scenario's stragglers and failures: slow GPUs, slow NICs, random compute jitter, GPUs
 * that fail (the scenario's "stragglers" section; ai-fabric-sim --straggler, --slowNic,
 * --jitter, --failGpu).
 * Each text form is read by one function here, for the file and the command line alike.
 */
struct StragglerSettings
{
    /// Ranks first..last compute factor x as long (WorkloadRunner::SetComputeScale).
    struct Slow
    {
        uint32_t first{0}; //!< first rank
        uint32_t last{0};  //!< last rank (first for one rank)
        double factor{1};  //!< above 0; above 1 is slower
        std::string place; //!< where it was given, for messages
    };

    /// The GPU of rank fails at time at (WorkloadRunner::FailRank).
    struct Failure
    {
        uint32_t rank{0};  //!< the rank
        Time at;           //!< when, from the start of the run
        std::string place; //!< where it was given, for messages
    };

    /// The NIC of rank sends and receives at rate (its link's both ends).
    struct SlowNic
    {
        uint32_t rank{0};  //!< the rank (its GPU's NIC)
        DataRate rate;     //!< the link's rate, at most what it was
        std::string place; //!< where it was given, for messages
    };

    std::vector<Slow> slow;    //!< slow GPUs
    std::vector<SlowNic> nics; //!< slow NICs
    /// "" (none), "normal:SIGMA", "lognormal:SIGMA" or "cdf:FILE"
    std::string jitter;
    std::string jitterPlace;       //!< where the jitter was given
    std::vector<Failure> failures; //!< failing GPUs
    /// after a failure, every rank starts again this long later from the last iteration
    /// they all completed (WorkloadRunner::RestartOnFailure); negative: no restart, the
    /// job stops making progress
    Time restartDelay{Seconds(-1)};
    std::string restartPlace; //!< where the restart was given

    /// The largest slowdown factor a straggler may have.
    static constexpr double MAX_FACTOR = 1000;
    /// The largest jitter sigma (normal: of the factor; lognormal: of its logarithm).
    static constexpr double MAX_SIGMA = 2;

    /**
     * Read "RANKS:FACTOR", RANKS a rank or a range "a-b", FACTOR in (0, 1000].
     * \param text the text \param slow set on success (place kept)
     * \param why set to what was expected on failure
     * \return true if text is a straggler
     */
    static bool ParseSlow(const std::string& text, Slow& slow, std::string* why);
    /**
     * Check "normal:SIGMA" (factor ~ N(1, SIGMA^2), truncated to [0, 2]),
     * "lognormal:SIGMA" (factor = e^X, X ~ N(-SIGMA^2/2, SIGMA^2): mean 1), SIGMA in
     * (0, 2] (normal: (0, 1]), or "cdf:FILE" (a measured CDF of the factor: lines
     * "factor percent", as FlowSizeCdf::Load reads them; interpolated between points).
     * \param text the text \param why set to what was expected on failure
     * \return true if text is a jitter
     */
    static bool ParseJitter(const std::string& text, std::string* why);
    /**
     * Read "RANK:TIME" (a time with its unit, such as 10ms).
     * \param text the text \param failure set on success (place kept)
     * \param why set to what was expected on failure
     * \return true if text is a failure
     */
    static bool ParseFailure(const std::string& text, Failure& failure, std::string* why);

    /**
     * Read "RANK:RATE" (a rate with its unit, such as 100Gbps).
     * \param text the text \param nic set on success (place kept)
     * \param why set to what was expected on failure
     * \return true if text is a slow NIC
     */
    static bool ParseSlowNic(const std::string& text, SlowNic& nic, std::string* why);

    /**
     * Read a restart delay: a duration with its unit ("5ms", "30s", "0s"), at most a day.
     * \param text the text \param delay set on success
     * \param why set to what was expected on failure
     * \return true if text is one
     */
    static bool ParseRestart(const std::string& text, Time& delay, std::string* why);

    /// \return true if nothing is set
    bool IsEmpty() const;
    /**
     * \param ranks the workload's ranks
     * \param error set, naming the place, when a rank is not one of the workload's, or a
     *        rank or NIC is slowed twice, or a GPU fails twice, or a restart is given
     *        without failures
     * \return true if every setting names ranks of the workload
     */
    bool Check(uint32_t ranks, std::string* error) const;
    /**
     * Set them on the runner (after its Setup, before its Start); the jitter's random
     * stream is stream (WorkloadRunner::AssignStreams).
     * \param runner the runner \param stream the jitter's stream
     */
    void Apply(Ptr<WorkloadRunner> runner, int64_t stream) const;
    /**
     * Slow the NICs down: each one's link, both ends, to its rate, and the switch's
     * buffer figures for the port (RoceSwitch::ReconfigureBuffers), before any queue pair
     * starts (congestion control starts at the link's rate).
     * \param cluster the built cluster (its NICs by rank)
     * \param error set, naming the place, when a rate is above the link's
     * \return true on success
     */
    bool ApplyNics(const GpuCluster& cluster, std::string* error) const;
    /// \param rank a rank \return its slowdown factor (1 when not slowed)
    double FactorOf(uint32_t rank) const;
};

} // namespace ns3

#endif // STRAGGLER_SETTINGS_H
