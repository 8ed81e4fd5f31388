// SPDX-License-Identifier: GPL-2.0-only
#ifndef PLAN_CHECKER_H
#define PLAN_CHECKER_H

#include "comm-plan.h"

#include <cstdint>
#include <limits>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Verdict of the PlanChecker.
 */
struct PlanCheckResult
{
    /// Marks "no particular transfer" in transfer.
    static constexpr uint32_t NO_TRANSFER = std::numeric_limits<uint32_t>::max();

    bool ok{true};                  //!< the plan performs its collective
    std::string reason;             //!< why not, in words (empty when ok)
    uint32_t transfer{NO_TRANSFER}; //!< the transfer at fault, when there is one

    /// \return ok
    explicit operator bool() const
    {
        return ok;
    }
};

/**
 * \ingroup ai-fabric
 * Proves, without running anything, that a CommPlan performs its collective for every
 * execution the engine may choose.
 *
 * State. For every rank and block the checker keeps what the rank holds: nothing, or
 * the set of ranks whose contributions the rank's copy combines. Conceptually this is a
 * multiset (a count per contributor); because a reduction that would raise any count
 * to two is rejected on the spot, every reachable count is 0 or 1 and a set with an
 * intersection test is exactly equivalent, at n/64 words per copy.
 *
 * Initial state: for the reducing collectives (all-reduce, reduce-scatter, reduce) every
 * rank holds every block with contributions {itself}; for the others only a block's
 * origin holds it, with {origin}.
 *
 * A transfer moves, for each of its blocks, the sender's current set: it replaces the
 * receiver's copy, or (reduce) is merged into it. Errors: the sender does not hold the
 * block; a reduction into a rank without a copy; a reduction counting a contribution
 * twice; a plain copy of data the receiver already holds exactly (a duplicate delivery);
 * a reduction in a collective that does not reduce.
 *
 * Order. The engine may run transfers that deps do not order in any order, or at once,
 * so checking one order is not enough by itself. The checker first proves the plan is
 * race-free: for every (rank, block) location, every transfer that writes it is ordered
 * by the transitive closure of deps against every transfer that reads it, and against
 * every other transfer that writes it, except two reductions (merging is commutative,
 * so their order cannot matter). In a race-free plan each transfer reads the same
 * contents in every execution (by induction over any topological order: the writes that
 * precede a read are exactly those that happen-before it, and their combined effect is
 * order-independent), so simulating one topological order decides every execution.
 * A dependency that is missing, so that a sender could read a block before the data it
 * claims to carry has arrived, shows up as such a race and is reported with both
 * transfers named. Ordering queries walk deps backwards from the later transfer,
 * pruned by topological position, so memory stays linear in the plan size.
 *
 * Goal (checked after the last transfer; block sizes are checked first against the
 * nccl-tests byte conventions of CollectiveType, shards split by CommPlan::SplitBytes):
 * - all-reduce: every rank holds every block with every rank's contribution;
 * - reduce-scatter: each block's target holds it fully reduced;
 * - reduce: the root holds every block fully reduced;
 * - all-gather, broadcast: every rank holds every block, from its origin;
 * - all-to-all(v), send/recv: each block's target holds it (delivered once: a second
 *   delivery is a duplicate, see above).
 */
class PlanChecker
{
  public:
    /**
     * Check a plan (structure with CommPlan::Validate first, then semantics).
     * \param plan the plan
     * \return ok, or the first problem found
     */
    static PlanCheckResult Check(const CommPlan& plan);
};

} // namespace ns3

#endif // PLAN_CHECKER_H
