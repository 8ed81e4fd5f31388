// SPDX-License-Identifier: GPL-2.0-only
// Internal to the trace generator: writes one rank's ops of a Megatron-style iteration.
#ifndef RANK_SCHEDULE_H
#define RANK_SCHEDULE_H

#include "training-trace.h"
#include "transformer-trace-generator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace megatron
{

/// Streams of a generated rank.
enum Stream : uint32_t
{
    COMPUTE = 0,
    TP_EP = 1,     //!< tensor- and expert-parallel collectives (blocking)
    DP = 2,        //!< gradient / parameter collectives (overlapping)
    SEND_NEXT = 3, //!< activations to the next stage
    RECV_PREV = 4, //!< activations from the previous stage
    SEND_PREV = 5, //!< gradients to the previous stage
    RECV_NEXT = 6, //!< gradients from the next stage
};

/// Emits one rank's ops, tracking what the next compute op must wait for.
class RankProgram
{
  public:
    RankProgram(TrainingTrace& trace, uint32_t rank)
        : m_trace(trace),
          m_rank(rank)
    {
    }

    /// The rank's ops are all written: give back their list's spare capacity (a list
    /// grown by doubling holds up to twice its ops; at 16,384 ranks, gigabytes).
    void Done()
    {
        m_trace.GetOps(m_rank).shrink_to_fit();
    }

    uint32_t Compute(const std::string& name, Time d)
    {
        TraceOp op;
        op.kind = TraceOpKind::COMPUTE;
        op.name = name;
        op.duration = d;
        op.deps = std::move(m_waits);
        m_waits.clear();
        m_lastCompute = static_cast<int64_t>(m_trace.AddOp(m_rank, op));
        return static_cast<uint32_t>(m_lastCompute);
    }

    /// A collective; blocking ones hold the next compute op back until they finish.
    uint32_t Collective(const std::string& name,
                        CollectiveType type,
                        uint64_t bytes,
                        const std::string& group,
                        uint32_t stream,
                        bool blocking,
                        bool afterCompute = true)
    {
        TraceOp op;
        op.kind = TraceOpKind::COLLECTIVE;
        op.name = name;
        op.collective = type;
        op.bytes = bytes;
        op.group = group;
        op.stream = stream;
        if (m_lastCompute >= 0 && afterCompute)
        {
            op.deps.push_back(static_cast<uint32_t>(m_lastCompute));
        }
        const uint32_t id = m_trace.AddOp(m_rank, op);
        if (blocking)
        {
            m_waits.push_back(id);
        }
        return id;
    }

    /// A send (after the last compute) or a receive (posted after the last compute,
    /// needed by the next one).
    uint32_t PointToPoint(TraceOpKind kind,
                          const std::string& name,
                          uint32_t peer,
                          uint64_t bytes,
                          uint32_t stream)
    {
        TraceOp op;
        op.kind = kind;
        op.name = name;
        op.peer = peer;
        op.bytes = bytes;
        op.stream = stream;
        if (m_lastCompute >= 0)
        {
            op.deps.push_back(static_cast<uint32_t>(m_lastCompute));
        }
        const uint32_t id = m_trace.AddOp(m_rank, op);
        if (kind == TraceOpKind::RECV)
        {
            m_waits.push_back(id);
        }
        return id;
    }

    /// Make the next compute op wait for id too.
    void WaitFor(uint32_t id)
    {
        m_waits.push_back(id);
    }

  private:
    TrainingTrace& m_trace;
    uint32_t m_rank;
    int64_t m_lastCompute{-1};
    std::vector<uint32_t> m_waits;
};

/// Gradients waiting for their data-parallel collective, bucket by bucket.
struct Buckets
{
    std::string group;
    uint64_t pending{0};         //!< parameters not yet in a bucket collective
    std::vector<uint64_t> sizes; //!< emitted buckets, in parameters
    std::vector<uint32_t> ops;   //!< their collective ops
};

/// \return the rank of tensor rank t, data rank d, stage p (TP fastest)
uint32_t RankOf(const TransformerConfig& c, uint32_t t, uint32_t d, uint32_t p);

/// Name the streams of Stream in trace.
void NameStreams(TrainingTrace& trace);

/// Add the tp, dp, pp (and ep, edp) groups of c to trace.
void AddGroups(const TransformerConfig& c, TrainingTrace& trace);

/**
 * One rank's iteration: 1F1B over the micro-batches (layers with their TP and EP
 * collectives, pipeline sends and receives), gradient buckets during the last backward,
 * the optimizer step and the ZeRO parameter all-gathers. See TransformerTraceGenerator.
 */
class RankSchedule
{
  public:
    RankSchedule(const TransformerConfig& c,
                 const TransformerCounts& counts,
                 const TransformerTraceGenerator& roofline,
                 TrainingTrace& trace,
                 uint32_t t,
                 uint32_t d,
                 uint32_t p);

    /// Write the rank's ops into the trace.
    void Write();

  private:
    void Forward(uint32_t mb);
    void Backward(uint32_t mb);
    /// One layer's compute and collectives; factor 1 forward, 2 backward.
    void Layer(const std::string& tag, uint32_t layer, double factor);
    void TpCollectives(const std::string& name);
    void Zero3Gather(const std::string& name, uint32_t layer);
    /// The final gradients of a layer join the buckets (last micro-batch's backward).
    void AddLayerGradients(uint32_t layer, uint32_t indexInStage);
    void Flush(Buckets& bk, bool comm, bool force);
    void OptimizerStep();
    bool IsMoe(uint32_t layer) const;
    Time ComputeTime(double flops, double bytes) const;

    const TransformerConfig& m_c;
    const TransformerCounts& m_counts;
    const TransformerTraceGenerator& m_roofline;
    RankProgram m_prog;
    uint32_t m_p;     //!< pipeline stage
    uint32_t m_micro; //!< micro-batches
    uint32_t m_layersPerStage;
    bool m_first;    //!< first stage
    bool m_last;     //!< last stage
    uint32_t m_prev; //!< previous stage's rank (when not first)
    uint32_t m_next; //!< next stage's rank (when not last)
    std::string m_tpGroup;
    std::string m_dpGroup;
    std::string m_epGroup;
    bool m_tpComm;
    bool m_epComm;
    bool m_edpComm;
    bool m_dpComm;
    double m_b; //!< micro-batch, sequence, hidden, ffn, kv width, tp
    double m_s;
    double m_h;
    double m_f;
    double m_kv;
    double m_tp;
    double m_attnParams; //!< per GPU: attention and layer norms
    double m_mlpParams;  //!< per GPU: one MLP (expert)
    double m_act;        //!< activation bytes per layer and GPU
    Buckets m_dense;
    Buckets m_expert;
};

} // namespace megatron
} // namespace ns3

#endif // RANK_SCHEDULE_H
