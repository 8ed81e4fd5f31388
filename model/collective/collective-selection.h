// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_SELECTION_H
#define COLLECTIVE_SELECTION_H

#include "collective-algorithms.h"
#include "comm-group.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The "auto" algorithm choice, by collective, message size and the group's shape.
 *
 * Rules, in order (NCCL's tuner weighs the same things: latency-bound small messages
 * favour log-depth algorithms, bandwidth-bound large ones rings, and multi-server groups
 * keep bulk traffic on the scale-up fabric):
 * - all-to-all(v), send/recv: direct;
 * - all-reduce, reduce-scatter, all-gather larger than smallMessageBytes when the carrier
 *   can reduce in a switch over the whole group (switchReduction; one NVSwitch): NVLS,
 *   as NCCL picks on Hopper when NVLS is available (it moves S(1+1/n) per GPU instead
 *   of the ring's 2S(n-1)/n);
 * - all-reduce, reduce-scatter, all-gather on a uniform group of several servers with
 *   several GPUs each: hierarchical (intra-server, per rail, intra-server);
 * - all-reduce up to smallMessageBytes: double binary tree; larger: ring;
 * - reduce-scatter, all-gather up to smallMessageBytes on a power-of-two group:
 *   halving-doubling; otherwise ring;
 * - broadcast, reduce up to smallMessageBytes: tree; larger: ring (pipelined chain).
 */
struct CollectiveSelection
{
    /// Messages up to this size are treated as latency-bound.
    uint64_t smallMessageBytes{256 * 1024};
    /// The carrier reduces and multicasts in a switch over the whole group (NVLS).
    bool switchReduction{false};

    /// Name of the algorithm the rules pick: "ring", "tree", "halving-doubling", "direct",
    /// "hierarchical" or "nvls".
    std::string Choose(CollectiveType type, const CommGroup& group, uint64_t bytes) const;

    /**
     * Whether MakePlan builds this pair for group and the carrier can run it: "auto"
     * always; "hierarchical" for all-reduce, reduce-scatter, all-gather on a uniform
     * group; the flat algorithms as IsCollectiveAlgorithmSupported says, NVLS only with
     * switchReduction. Lets a caller refuse a bad choice before a run instead of aborting
     * in it.
     * \param known if not null, set to whether algorithm names an algorithm at all
     */
    bool CanMakePlan(CollectiveType type,
                     const std::string& algorithm,
                     const CommGroup& group,
                     bool* known = nullptr) const;

    /**
     * Build the plan for a named algorithm, or for the rules' choice with "auto". Aborts,
     * naming collective, algorithm and group size, when the pair is not supported.
     */
    CommPlan MakePlan(CollectiveType type,
                      const std::string& algorithm,
                      const CommGroup& group,
                      uint64_t bytes,
                      const CollectivePlanOptions& options = CollectivePlanOptions()) const;
};

} // namespace ns3

#endif
