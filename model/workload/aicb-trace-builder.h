// SPDX-License-Identifier: GPL-2.0-only
// Internal to the AICB reader: the parsed layer lines and the ops they become.
#ifndef AICB_TRACE_BUILDER_H
#define AICB_TRACE_BUILDER_H

#include "rank-schedule.h"
#include "training-trace.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{
namespace aicb
{

/// The group family a comm runs in.
enum class GroupKind
{
    TP,  //!< tensor parallel
    DP,  //!< data parallel
    EP,  //!< expert parallel
    EDP, //!< expert data parallel
};

/// One comm of a layer line.
struct CommSpec
{
    bool present{false};                             //!< false for NONE
    CollectiveType type{CollectiveType::ALL_REDUCE}; //!< the collective
    GroupKind group{GroupKind::TP};                  //!< the group family it runs in
    uint64_t bytes{0};                               //!< its size
};

/// One layer line.
struct Layer
{
    std::string name;      //!< field 1
    uint64_t line{0};      //!< its line in the file
    std::string fields;    //!< its fields joined by one space: equal lines, equal layers
    int64_t fwdTime{0};    //!< forward compute, ns
    int64_t igTime{0};     //!< input-grad compute, ns
    int64_t wgTime{0};     //!< weight-grad compute, ns
    int64_t updateTime{0}; //!< weight update, ns
    CommSpec fwdComm;      //!< forward comm
    CommSpec igComm;       //!< input-grad comm
    CommSpec wgComm;       //!< weight-grad comm
};

/**
 * Where the pipeline sends go: the layer lines [first, first + microBatches * blockLines)
 * are microBatches identical blocks, one micro-batch each; the lines before and after
 * run once. One stage: no blocks.
 */
struct Pipeline
{
    uint32_t stages{1};       //!< pp
    uint64_t bytes{0};        //!< pp_comm: bytes per send
    size_t first{0};          //!< first layer of the first block
    size_t blockLines{0};     //!< layers per block
    uint32_t microBatches{0}; //!< blocks (ga); 0 without a pipeline

    /// \return the micro-batch whose block starts at layer i, or -1
    int64_t BlockStarting(size_t i) const
    {
        if (microBatches == 0 || i < first || (i - first) % blockLines != 0 ||
            (i - first) / blockLines >= microBatches)
        {
            return -1;
        }
        return static_cast<int64_t>((i - first) / blockLines);
    }

    /// \return the micro-batch whose block ends at layer i, or -1
    int64_t BlockEnding(size_t i) const
    {
        return microBatches == 0 || i + 1 < blockLines ? -1 : BlockStarting(i + 1 - blockLines);
    }
};

/**
 * Find the micro-batches of a pipelined file: the ga identical consecutive blocks of
 * layer lines (AICB writes a micro-batch's lines once per micro-batch, between lines
 * that run once per iteration). The longest such block is taken; it must have one place.
 * \return "" on success, else why the blocks cannot be placed
 */
inline std::string
FindMicroBatches(const std::vector<Layer>& layers, uint32_t ga, Pipeline& pipe)
{
    const size_t n = layers.size();
    std::map<std::string, uint32_t> ids;
    std::vector<uint32_t> key(n);
    for (size_t i = 0; i < n; ++i)
    {
        key[i] = ids.emplace(layers[i].fields, static_cast<uint32_t>(ids.size())).first->second;
    }
    for (size_t b = n / ga; b >= 1; --b)
    {
        std::vector<size_t> starts;
        for (size_t s = 0; s + ga * b <= n; ++s)
        {
            bool same = true;
            for (size_t j = b; j < ga * b && same; ++j)
            {
                same = key[s + j] == key[s + j % b];
            }
            if (same)
            {
                starts.push_back(s);
            }
        }
        if (starts.size() > 1)
        {
            return "the " + std::to_string(ga) + " micro-batch blocks of " + std::to_string(b) +
                   " lines could start on line " + std::to_string(layers[starts[0]].line) +
                   " or on line " + std::to_string(layers[starts[1]].line) +
                   ", so the pipeline sends have no single place";
        }
        if (starts.size() == 1)
        {
            pipe.first = starts[0];
            pipe.blockLines = b;
            pipe.microBatches = ga;
            return "";
        }
    }
    return "the " + std::to_string(n) + " layer lines hold no " + std::to_string(ga) +
           " identical consecutive blocks (one per micro-batch) to place the pipeline sends "
           "between";
}

/// Builds the ops of every rank from the layers.
class TraceBuilder
{
  public:
    /**
     * \param tp TP size T
     * \param dp data-parallel replicas D per stage
     * \param ep EP size E (divides D)
     * \param pipe the stages and micro-batch blocks
     * \param trace the trace to fill (its rank count T * D * P)
     */
    TraceBuilder(uint32_t tp, uint32_t dp, uint32_t ep, const Pipeline& pipe, TrainingTrace& trace)
        : m_tp(tp),
          m_dp(dp),
          m_ep(ep),
          m_pipe(pipe),
          m_trace(trace)
    {
    }

    /// Groups named by stage-wide indices, as the trace generator names them.
    void AddGroups()
    {
        for (uint32_t p = 0; p < m_pipe.stages; ++p)
        {
            for (uint32_t d = 0; d < m_dp; ++d)
            {
                AddGroup("tp" + std::to_string(d + m_dp * p), "tp", RankOf(0, d, p), 1, m_tp);
            }
            for (uint32_t t = 0; t < m_tp; ++t)
            {
                const uint32_t s = t + m_tp * p;
                AddGroup("dp" + std::to_string(s), "dp", RankOf(t, 0, p), m_tp, m_dp);
                for (uint32_t e = 0; m_ep > 1 && e < m_dp / m_ep; ++e)
                {
                    AddGroup(Name("ep", s, e), "ep", RankOf(t, e * m_ep, p), m_tp, m_ep);
                }
                for (uint32_t j = 0; m_ep > 1 && j < m_ep; ++j)
                {
                    AddGroup(Name("edp", s, j), "dp", RankOf(t, j, p), m_ep * m_tp, m_dp / m_ep);
                }
            }
        }
        for (uint32_t d = 0; m_pipe.stages > 1 && d < m_dp; ++d)
        {
            for (uint32_t t = 0; t < m_tp; ++t)
            {
                const std::string name = "pp" + std::to_string(t + m_tp * d);
                AddGroup(name, "pp", RankOf(t, d, 0), m_dp * m_tp, m_pipe.stages);
            }
        }
    }

    /**
     * Append rank's ops: the forward of the layers, their backward in reverse, the update;
     * the pipeline receives and sends around the micro-batch blocks.
     * \param rank the rank
     * \param layers the layer lines
     * \param updateTime the sum of their update times, ns
     */
    void AddRank(uint32_t rank, const std::vector<Layer>& layers, int64_t updateTime)
    {
        m_rank = rank;
        m_stage = rank / (m_tp * m_dp);
        m_lastCompute = -1;
        m_waits.clear();
        const uint32_t stride = m_tp * m_dp; // to the same (d, t) on the next stage
        const int64_t prev = m_stage == 0 ? -1 : int64_t{rank} - stride;
        const int64_t next = m_stage + 1 == m_pipe.stages ? -1 : int64_t{rank} + stride;
        std::vector<uint32_t> weightGradComms;
        for (size_t i = 0; i < layers.size(); ++i)
        {
            Pipe(TraceOpKind::RECV, "fwd", m_pipe.BlockStarting(i), prev, megatron::RECV_PREV);
            std::string label = ".l" + std::to_string(i) + "." + layers[i].name;
            uint32_t c = AddCompute("fwd" + label, layers[i].fwdTime);
            AddComm("fwd" + label + ".comm", layers[i].fwdComm, megatron::TP_EP, c);
            Pipe(TraceOpKind::SEND, "fwd", m_pipe.BlockEnding(i), next, megatron::SEND_NEXT);
        }
        for (size_t i = layers.size(); i-- > 0;)
        {
            Pipe(TraceOpKind::RECV, "bwd", m_pipe.BlockEnding(i), next, megatron::RECV_NEXT);
            std::string label = ".l" + std::to_string(i) + "." + layers[i].name;
            uint32_t c = AddCompute("ig" + label, layers[i].igTime);
            AddComm("ig" + label + ".comm", layers[i].igComm, megatron::TP_EP, c);
            c = AddCompute("wg" + label, layers[i].wgTime);
            int64_t wg = AddComm("wg" + label + ".comm", layers[i].wgComm, megatron::DP, c);
            if (wg >= 0)
            {
                weightGradComms.push_back(static_cast<uint32_t>(wg));
            }
            Pipe(TraceOpKind::SEND, "bwd", m_pipe.BlockStarting(i), prev, megatron::SEND_PREV);
        }
        uint32_t update = AddCompute("update", updateTime);
        auto& deps = m_trace.GetOps(rank)[update].deps;
        deps.insert(deps.end(), weightGradComms.begin(), weightGradComms.end());
    }

  private:
    static std::string Name(const char* family, uint32_t s, uint32_t k)
    {
        return family + std::to_string(s) + "_" + std::to_string(k);
    }

    /// rank = (p * D + d) * T + t
    uint32_t RankOf(uint32_t t, uint32_t d, uint32_t p) const
    {
        return (p * m_dp + d) * m_tp + t;
    }

    /// Add the group of n ranks first, first + stride, ...
    void AddGroup(const std::string& name,
                  const std::string& kind,
                  uint32_t first,
                  uint32_t stride,
                  uint32_t n)
    {
        TraceGroup g{name, kind, {}};
        for (uint32_t k = 0; k < n; ++k)
        {
            g.ranks.push_back(first + k * stride);
        }
        m_trace.AddGroup(g);
    }

    /// The rank's group of a kind and its size.
    std::pair<std::string, uint32_t> GroupOf(GroupKind kind) const
    {
        const uint32_t t = m_rank % m_tp;
        const uint32_t d = (m_rank / m_tp) % m_dp;
        const uint32_t s = t + m_tp * m_stage;
        switch (kind)
        {
        case GroupKind::TP:
            return {"tp" + std::to_string(m_rank / m_tp), m_tp};
        case GroupKind::EP:
            return {Name("ep", s, d / m_ep), m_ep};
        case GroupKind::EDP:
            if (m_ep > 1)
            {
                return {Name("edp", s, d % m_ep), m_dp / m_ep};
            }
            break;
        case GroupKind::DP:
            break;
        }
        return {"dp" + std::to_string(s), m_dp};
    }

    /// A compute on the compute stream, after the blocking comms and receives before it.
    uint32_t AddCompute(const std::string& name, int64_t ns)
    {
        TraceOp op;
        op.kind = TraceOpKind::COMPUTE;
        op.name = name;
        op.stream = megatron::COMPUTE;
        op.duration = NanoSeconds(ns);
        op.deps = std::move(m_waits);
        m_waits.clear();
        m_lastCompute = m_trace.AddOp(m_rank, op);
        return static_cast<uint32_t>(m_lastCompute);
    }

    /**
     * A collective after compute `after`; those on the TP/EP stream block the next compute.
     * \return its id, or -1 if there is none (NONE, or a group of one rank)
     */
    int64_t AddComm(const std::string& name, const CommSpec& spec, uint32_t stream, uint32_t after)
    {
        auto [group, size] = GroupOf(spec.group);
        if (!spec.present || size < 2)
        {
            return -1;
        }
        TraceOp op;
        op.kind = TraceOpKind::COLLECTIVE;
        op.name = name;
        op.stream = stream;
        op.collective = spec.type;
        op.bytes = spec.bytes;
        op.group = group;
        op.root = 0;
        op.deps.push_back(after);
        uint32_t id = m_trace.AddOp(m_rank, op);
        if (stream == megatron::TP_EP)
        {
            m_waits.push_back(id);
        }
        return id;
    }

    /**
     * Micro-batch mb's pipeline receive (posted after the last compute; the next compute
     * needs it) or send (after the last compute and the blocking comm that finishes its
     * output), named <pass>.mb<mb>.recv or .send. Nothing if mb or peer is -1.
     */
    void Pipe(TraceOpKind kind, const char* pass, int64_t mb, int64_t peer, uint32_t stream)
    {
        if (mb < 0 || peer < 0)
        {
            return;
        }
        TraceOp op;
        op.kind = kind;
        op.name = std::string(pass) + ".mb" + std::to_string(mb) + "." + TraceOpKindToString(kind);
        op.stream = stream;
        op.peer = static_cast<uint32_t>(peer);
        op.bytes = m_pipe.bytes;
        if (m_lastCompute >= 0)
        {
            op.deps.push_back(static_cast<uint32_t>(m_lastCompute));
        }
        if (kind == TraceOpKind::SEND)
        {
            op.deps.insert(op.deps.end(), m_waits.begin(), m_waits.end());
        }
        uint32_t id = m_trace.AddOp(m_rank, op);
        if (kind == TraceOpKind::RECV)
        {
            m_waits.push_back(id);
        }
    }

    uint32_t m_tp;
    uint32_t m_dp;
    uint32_t m_ep;
    Pipeline m_pipe;
    TrainingTrace& m_trace;
    uint32_t m_rank{0};
    uint32_t m_stage{0};
    int64_t m_lastCompute{-1};     //!< the last compute of the rank, or -1
    std::vector<uint32_t> m_waits; //!< what the next compute waits for
};

} // namespace aicb
} // namespace ns3

#endif // AICB_TRACE_BUILDER_H
