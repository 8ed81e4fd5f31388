// SPDX-License-Identifier: GPL-2.0-only
#ifndef AICB_READER_H
#define AICB_READER_H

#include "training-trace.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Reads a SimAI / AICB workload text file into a TrainingTrace of one iteration.
 *
 * Format: line 1 is a policy word (HYBRID_TRANSFORMER_FWD_IN_BCKWD, MICRO, DATA, ...)
 * then "key: value" pairs (model_parallel_NPU_group = TP size, ep, pp, vpp, ga,
 * all_gpus, pp_comm, checkpoints, checkpoint_initiates; values are whole numbers, also
 * written "2097152.0"); line 2 the number of layer lines; then one line of 12 fields per
 * layer: name, dependency, forward compute time, forward comm type, forward comm bytes,
 * input-grad compute time, input-grad comm type, input-grad comm bytes, weight-grad
 * compute time, weight-grad comm type, weight-grad comm bytes, weight-update time. Times
 * are nanoseconds, sizes bytes. Every policy is read the same way; the checkpoint keys
 * are read but not used. When line 2 disagrees with the layer lines present (AICB ships
 * such files), the lines present are read and a warning names the file, line 2 and both
 * counts.
 *
 * Rank layout (T = TP size, P = pp stages, D = nRanks / (T * P) data-parallel replicas,
 * E = ep): rank = (p * D + d) * T + t, TP index t fastest, so a TP group is T
 * consecutive ranks (one server when T is its GPU count), as Megatron lays them out.
 * With s = t + T * p (the TP index counted over all stages):
 * - "tp<p*D+d>": the T ranks of replica d on stage p;
 * - "dp<s>": the D replicas of TP index t on stage p;
 * - if E > 1 (E must divide D): "ep<s>_<e>", E consecutive members of dp<s>
 *   (replicas e*E .. e*E+E-1), and "edp<s>_<j>", the members of dp<s> holding the same
 *   expert shard (replicas j, E+j, 2E+j, ...): the expert data-parallel group;
 * - if P > 1: "pp<t+T*d>", the P stages of (d, t) (informative: pipeline traffic is
 *   point to point).
 *
 * Mapping of a layer line (op names fwd.l<i>.<name>, ig.l<i>.<name>, wg.l<i>.<name>,
 * i counting layer lines from 0):
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
 * Pipeline (pp > 1), as AICB writes such files: the layer lines are ONE stage's work,
 * the same on every stage, with the lines of one micro-batch written ga times in a row
 * between lines that run once per iteration; pp_comm is the bytes one micro-batch sends
 * across a stage boundary. The ga identical consecutive blocks of lines (the longest
 * such blocks; they must have a single place) are the micro-batches. Before the forward
 * of block m, stages p > 0 receive pp_comm bytes from stage p - 1 ("fwd.mb<m>.recv",
 * stream 4) and after it stages p < P - 1 send them to p + 1 ("fwd.mb<m>.send", stream
 * 3, after the block's last compute and its blocking comm); the backward mirrors it
 * ("bwd.mb<m>.recv" from p + 1 on stream 6 before the block's backward, "bwd.mb<m>.send"
 * to p - 1 on stream 5 after it). The stream numbers are the trace generator's. All
 * forwards run before all backwards, in the file's order, as SimAI replays it: the
 * bubble of this order is that of Megatron's 1F1B, (P - 1) block forwards and
 * backwards. With pp = 1, vpp, ga and pp_comm change nothing (pp_comm > 0 warns).
 * Refused, naming the field: vpp > 1 with pp > 1 (the lines do not say where each
 * virtual-pipeline chunk ends), a missing or zero pp_comm, ga that is 0 or has no single
 * placing of its blocks, and T * P not dividing the GPU count.
 *
 * Errors: the returned trace is empty (GetNRanks() == 0) and *error is
 * "file:line: reason" (wrong field count, non-numeric field, negative value, unknown
 * comm type, no layer lines, TP not dividing the GPU count, the pipeline fields above,
 * ...).
 */
class AicbTraceReader
{
  public:
    /**
     * Read a workload file.
     * \param file path of the file
     * \param nRanks total GPUs; 0 = take all_gpus from the header
     * \param error set to the problem on failure, cleared on success (may be null)
     * \param warnings if not null, each warning is written to it as one line
     *        "warning: file:line: what" (they are also logged with NS_LOG_WARN)
     * \return the trace, or an empty one on failure
     */
    static TrainingTrace Read(const std::string& file,
                              uint32_t nRanks,
                              std::string* error,
                              std::ostream* warnings = nullptr);
};

} // namespace ns3

#endif // AICB_READER_H
