// SPDX-License-Identifier: GPL-2.0-only
#ifndef FAST_FORWARD_CHECK_H
#define FAST_FORWARD_CHECK_H

#include "training-simulation.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The figures of a training run that a fast-forward must keep (iteration times, the mean
 * time of each collective; the bytes the links carried and the wall time are compared but
 * not bounded), and their comparison against the packet reference: what `ai-fabric-sim
 * --fast-forward=check` prints, and what the tests assert for every shipped scenario.
 */
struct FastForwardFigures
{
    std::vector<Time> iterations;              //!< each iteration's time (slowest rank)
    std::map<std::string, double> collectives; //!< "type group" -> mean time of its calls, s
    uint64_t linkBytes{0};                     //!< bytes all fabric links carried
    double skippedFraction{0};                 //!< RDMA payload skipped (0 without)
    double nvlinkSkippedFraction{0};           //!< NVLink chunks skipped (0 without)
    double wallSeconds{0};                     //!< wall-clock time of the run

    /// Iteration times may differ by this fraction of the reference (the bound).
    static constexpr double ITERATION_TOLERANCE = 0.01;
    /// Each collective's mean time may differ by this fraction.
    static constexpr double COLLECTIVE_TOLERANCE = 0.02;

    /// \param sim a finished run \return its figures
    static FastForwardFigures Of(const TrainingSimulation& sim);
    /**
     * Compare a fast-forwarded run with the packet reference.
     * \param reference the figures with the fast-forward off
     * \param fast the figures with it on
     * \param table receives one line per figure: reference, fast-forward, difference (the
     *        wall-clock times and the link bytes too, unbounded)
     * \param failure set to the first figure outside its tolerance
     * \return true if every figure is within its tolerance
     */
    static bool Compare(const FastForwardFigures& reference,
                        const FastForwardFigures& fast,
                        std::ostream& table,
                        std::string* failure);
};

} // namespace ns3

#endif // FAST_FORWARD_CHECK_H
