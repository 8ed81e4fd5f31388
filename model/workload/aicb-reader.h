// SPDX-License-Identifier: GPL-2.0-only
#ifndef AICB_READER_H
#define AICB_READER_H

#include "training-trace.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Reads a SimAI / AICB workload text file into a TrainingTrace of one iteration.
 *
 * Format: line 1 is a policy word (HYBRID_TRANSFORMER_FWD_IN_BCKWD, MICRO, DATA, ...)
 * then "key: value" pairs (model_parallel_NPU_group = TP size, ep, pp, vpp, ga,
 * all_gpus, pp_comm, checkpoints, checkpoint_initiates); line 2 the number of layer
 * lines; then one line of 12 fields per layer: name, dependency, forward compute time,
 * forward comm type, forward comm bytes, input-grad compute time, input-grad comm type,
 * input-grad comm bytes, weight-grad compute time, weight-grad comm type, weight-grad
 * comm bytes, weight-update time. Times are nanoseconds, sizes bytes. Every policy is
 * read the same way; vpp, ga, pp_comm and the checkpoint keys are read but not used (a
 * file describes one micro-batch pass, which is what is replayed).
 *
 * Rank layout (T = TP size, D = nRanks / T data-parallel replicas, E = ep):
 * rank = d * T + t, TP index t fastest, so a TP group is T consecutive ranks (one
 * server when T is its GPU count), as Megatron lays them out. With pipeline stages it
 * would be rank = (p * D + d) * T + t, but pp > 1 is refused: the file has no per-stage
 * layer split or activation sizes to place the pipeline sends from.
 * - "tp<d>": ranks d*T .. d*T+T-1;
 * - "dp<t>": ranks t, T+t, 2T+t, ... (same TP index in every replica);
 * - if E > 1 (E must divide D): "ep<t>_<e>", E consecutive members of dp<t>
 *   (replicas e*E .. e*E+E-1), and "edp<t>_<j>", the members of dp<t> holding the same
 *   expert shard (replicas j, E+j, 2E+j, ...): the expert data-parallel group.
 *
 * Mapping of a layer line (op names fwd.l<i>.<name>, ig.l<i>.<name>, wg.l<i>.<name>):
 * - the iteration runs forward over the layers, then backward in reverse order, then
 *   one weight-update compute lasting the SUM of the update times (the optimizer step
 *   touches every layer's parameters one after the other);
 * - compute ops are on stream 0; the forward and input-grad comms go to the rank's TP
 *   group on stream 1 and block: the next compute depends on them, as Megatron's
 *   tensor-parallel all-reduce does;
 * - the weight-grad comm goes to the DP group on stream 2 and depends only on its
 *   weight-grad compute, so it overlaps the backward of the layers below; the weight
 *   update depends on all of them;
 * - suffix _EP selects the EP group, _DP_EP the expert data-parallel group (the DP group
 *   when E = 1); ALLREDUCEALLTOALL is read as an all-to-all in the EP group (the
 *   MoE token dispatch it stands for); BROADCAST has root 0 (group rank 0);
 * - a comm whose group has a single rank moves no data and is left out (e.g. the
 *   weight-grad comms when D = 1, or _EP comms when E = 1).
 *
 * Errors: the returned trace is empty (GetNRanks() == 0) and *error is
 * "file:line: reason" (wrong field count, non-numeric field, negative value, unknown
 * comm type, layer count mismatch, truncated file, TP not dividing the GPU count,
 * pp > 1, ...).
 */
class AicbTraceReader
{
  public:
    /**
     * Read a workload file.
     * \param file path of the file
     * \param nRanks total GPUs; 0 = take all_gpus from the header
     * \param error set to the problem on failure (may be null)
     * \return the trace, or an empty one on failure
     */
    static TrainingTrace Read(const std::string& file, uint32_t nRanks, std::string* error);
};

} // namespace ns3

#endif // AICB_READER_H
