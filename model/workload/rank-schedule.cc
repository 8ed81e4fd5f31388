// SPDX-License-Identifier: GPL-2.0-only
#include "rank-schedule.h"

#include <algorithm>

namespace ns3
{
namespace megatron
{

uint32_t
RankOf(const TransformerConfig& c, uint32_t t, uint32_t d, uint32_t p)
{
    return t + c.tp * (d + c.dp * p);
}

void
NameStreams(TrainingTrace& trace)
{
    trace.SetStreamName(COMPUTE, "compute");
    trace.SetStreamName(TP_EP, "TP/EP collectives");
    trace.SetStreamName(DP, "DP collectives");
    trace.SetStreamName(SEND_NEXT, "activations to next stage");
    trace.SetStreamName(RECV_PREV, "activations from previous stage");
    trace.SetStreamName(SEND_PREV, "gradients to previous stage");
    trace.SetStreamName(RECV_NEXT, "gradients from next stage");
}

void
AddGroups(const TransformerConfig& c, TrainingTrace& trace)
{
    // Groups, named by the index of their lowest member's coordinates.
    for (uint32_t p = 0; p < c.pp; ++p)
    {
        for (uint32_t d = 0; d < c.dp; ++d)
        {
            TraceGroup g{"tp" + std::to_string(d + c.dp * p), "tp", {}};
            for (uint32_t t = 0; t < c.tp; ++t)
            {
                g.ranks.push_back(RankOf(c, t, d, p));
            }
            trace.AddGroup(g);
        }
        for (uint32_t t = 0; t < c.tp; ++t)
        {
            TraceGroup g{"dp" + std::to_string(t + c.tp * p), "dp", {}};
            for (uint32_t d = 0; d < c.dp; ++d)
            {
                g.ranks.push_back(RankOf(c, t, d, p));
            }
            trace.AddGroup(g);
            if (c.experts == 0)
            {
                continue;
            }
            for (uint32_t e = 0; e < c.dp / c.ep; ++e)
            {
                TraceGroup ep{"ep" + std::to_string(t + c.tp * p) + "." + std::to_string(e),
                              "ep",
                              {}};
                for (uint32_t k = 0; k < c.ep; ++k)
                {
                    ep.ranks.push_back(RankOf(c, t, e * c.ep + k, p));
                }
                trace.AddGroup(ep);
            }
            for (uint32_t k = 0; k < c.ep; ++k)
            {
                TraceGroup edp{"edp" + std::to_string(t + c.tp * p) + "." + std::to_string(k),
                               "dp",
                               {}};
                for (uint32_t e = 0; e < c.dp / c.ep; ++e)
                {
                    edp.ranks.push_back(RankOf(c, t, e * c.ep + k, p));
                }
                trace.AddGroup(edp);
            }
        }
    }
    for (uint32_t t = 0; t < c.tp; ++t)
    {
        for (uint32_t d = 0; d < c.dp; ++d)
        {
            TraceGroup g{"pp" + std::to_string(t + c.tp * d), "pp", {}};
            for (uint32_t p = 0; p < c.pp; ++p)
            {
                g.ranks.push_back(RankOf(c, t, d, p));
            }
            trace.AddGroup(g);
        }
    }
}

RankSchedule::RankSchedule(const TransformerConfig& c,
                           const TransformerCounts& counts,
                           const TransformerTraceGenerator& roofline,
                           TrainingTrace& trace,
                           uint32_t t,
                           uint32_t d,
                           uint32_t p)
    : m_c(c),
      m_counts(counts),
      m_roofline(roofline),
      m_prog(trace, RankOf(c, t, d, p)),
      m_p(p),
      m_micro(c.GetMicroBatches()),
      m_layersPerStage(c.layers / c.pp),
      m_first(p == 0),
      m_last(p == c.pp - 1),
      m_prev(p == 0 ? 0 : RankOf(c, t, d, p - 1)),
      m_next(p == c.pp - 1 ? 0 : RankOf(c, t, d, p + 1)),
      m_tpGroup("tp" + std::to_string(d + c.dp * p)),
      m_dpGroup("dp" + std::to_string(t + c.tp * p)),
      m_epGroup("ep" + std::to_string(t + c.tp * p) + "." + std::to_string(d / c.ep)),
      m_tpComm(c.tp > 1),
      m_epComm(c.experts > 0 && c.ep > 1),
      m_edpComm(c.experts > 0 && c.dp / c.ep > 1),
      m_dpComm(c.dp > 1),
      m_b(c.microBatch),
      m_s(static_cast<double>(c.seqLength)),
      m_h(static_cast<double>(c.hidden)),
      m_f(static_cast<double>(c.GetFfn())),
      m_kv(static_cast<double>(c.GetKvWidth())),
      m_tp(c.tp),
      m_attnParams(static_cast<double>(counts.attentionParams + 4 * c.hidden) / c.tp),
      m_mlpParams(static_cast<double>(counts.expertParams) / c.tp),
      m_act(34.0 * c.microBatch * static_cast<double>(c.seqLength) * static_cast<double>(c.hidden) /
            c.tp),
      m_dense{m_dpGroup, 0, {}, {}},
      m_expert{"edp" + std::to_string(t + c.tp * p) + "." + std::to_string(d % c.ep), 0, {}, {}}
{
}

Time
RankSchedule::ComputeTime(double flops, double bytes) const
{
    return m_roofline.ComputeTime(flops, bytes);
}

bool
RankSchedule::IsMoe(uint32_t layer) const
{
    return m_c.experts > 0 && (layer + 1) % m_c.moeEvery == 0;
}

void
RankSchedule::Write()
{
    // 1F1B: warm-up forwards, steady one-forward-one-backward, cool-down.
    const uint32_t warmup = std::min(m_c.pp - m_p - 1, m_micro);
    uint32_t fwd = 0;
    uint32_t bwd = 0;
    for (; fwd < warmup; ++fwd)
    {
        Forward(fwd);
    }
    while (fwd < m_micro)
    {
        Forward(fwd++);
        Backward(bwd++);
    }
    while (bwd < m_micro)
    {
        Backward(bwd++);
    }
    OptimizerStep();
    m_prog.Done();
}

void
RankSchedule::Flush(Buckets& bk, bool comm, bool force)
{
    if (bk.pending == 0 || (!force && bk.pending < m_c.bucketParams))
    {
        return;
    }
    if (comm)
    {
        const CollectiveType type =
            m_c.zeroStage == 0 ? CollectiveType::ALL_REDUCE : CollectiveType::REDUCE_SCATTER;
        bk.ops.push_back(
            m_prog.Collective("grad.bucket" + std::to_string(bk.sizes.size()) + "." + bk.group,
                              type,
                              bk.pending * m_c.gradBytes,
                              bk.group,
                              DP,
                              false));
    }
    bk.sizes.push_back(bk.pending);
    bk.pending = 0;
}

void
RankSchedule::TpCollectives(const std::string& name)
{
    if (!m_tpComm)
    {
        return;
    }
    const uint64_t bytes = m_counts.tpActivationBytes;
    if (m_c.sequenceParallel)
    {
        m_prog.Collective(name + ".rs",
                          CollectiveType::REDUCE_SCATTER,
                          bytes,
                          m_tpGroup,
                          TP_EP,
                          true);
        m_prog.Collective(name + ".ag", CollectiveType::ALL_GATHER, bytes, m_tpGroup, TP_EP, true);
    }
    else
    {
        m_prog.Collective(name + ".ar", CollectiveType::ALL_REDUCE, bytes, m_tpGroup, TP_EP, true);
    }
}

void
RankSchedule::Zero3Gather(const std::string& name, uint32_t layer)
{
    if (m_c.zeroStage != 3 || !m_dpComm)
    {
        return;
    }
    const double params =
        IsMoe(layer) ? m_attnParams + static_cast<double>(m_c.experts) / m_c.ep * m_mlpParams
                     : m_attnParams + m_mlpParams;
    const uint32_t id = m_prog.Collective(name + ".zero3.ag",
                                          CollectiveType::ALL_GATHER,
                                          static_cast<uint64_t>(params) * m_c.paramBytes,
                                          m_dpGroup,
                                          DP,
                                          false,
                                          false); // prefetched: no compute dep
    m_prog.WaitFor(id);
}

void
RankSchedule::Layer(const std::string& tag, uint32_t layer, double factor)
{
    const bool moe = IsMoe(layer);
    const std::string base = tag + ".l" + std::to_string(layer);
    const double b = m_b;
    const double s = m_s;
    const double h = m_h;
    if (m_c.kind == "cnn")
    {
        const double flops = m_c.cnnFlopsPerSample / 3.0 * b / m_c.layers * factor;
        const double params = static_cast<double>(m_c.cnnParameters) / m_c.layers;
        m_prog.Compute(base, ComputeTime(flops, params * m_c.paramBytes * factor));
        return;
    }
    const double attnFlops =
        (2 * b * s * h * (2 * h + 2 * m_kv) + 4 * b * s * s * h) / m_tp * factor;
    const double mlpFlops =
        (m_c.gatedMlp ? 6 : 4) * b * s * h * m_f / m_tp * (moe ? m_c.topK : 1) * factor;
    const double mlpWeights = (moe ? static_cast<double>(m_c.experts) / m_c.ep : 1.0) * m_mlpParams;
    auto attn = [&]() {
        m_prog.Compute(
            base + ".attn",
            ComputeTime(attnFlops, (m_attnParams * m_c.paramBytes + m_act / 2) * factor));
        TpCollectives(base + ".attn");
    };
    auto mlp = [&]() {
        if (moe && m_epComm)
        {
            m_prog.Collective(base + ".dispatch",
                              CollectiveType::ALL_TO_ALL,
                              m_counts.epAllToAllBytes,
                              m_epGroup,
                              TP_EP,
                              true);
        }
        m_prog.Compute(base + ".mlp",
                       ComputeTime(mlpFlops, (mlpWeights * m_c.paramBytes + m_act / 2) * factor));
        if (moe && m_epComm)
        {
            m_prog.Collective(base + ".combine",
                              CollectiveType::ALL_TO_ALL,
                              m_counts.epAllToAllBytes,
                              m_epGroup,
                              TP_EP,
                              true);
        }
        TpCollectives(base + ".mlp");
    };
    // Backward runs the layer in reverse: MLP first.
    if (factor == 1)
    {
        attn();
        mlp();
    }
    else
    {
        mlp();
        attn();
    }
}

void
RankSchedule::Forward(uint32_t mb)
{
    const std::string tag = "fwd.mb" + std::to_string(mb);
    if (!m_first)
    {
        m_prog.PointToPoint(TraceOpKind::RECV,
                            tag + ".recv",
                            m_prev,
                            m_counts.ppActivationBytes,
                            RECV_PREV);
    }
    for (uint32_t k = 0; k < m_layersPerStage; ++k)
    {
        const uint32_t layer = m_p * m_layersPerStage + k;
        Zero3Gather(tag + ".l" + std::to_string(layer), layer);
        Layer(tag, layer, 1);
    }
    if (m_last && m_c.kind != "cnn")
    {
        m_prog.Compute(tag + ".logits",
                       ComputeTime(2 * m_b * m_s * m_h * m_c.vocab / m_tp,
                                   m_c.vocab * m_h / m_tp * m_c.paramBytes));
    }
    if (!m_last)
    {
        m_prog.PointToPoint(TraceOpKind::SEND,
                            tag + ".send",
                            m_next,
                            m_counts.ppActivationBytes,
                            SEND_NEXT);
    }
}

void
RankSchedule::AddLayerGradients(uint32_t layer, uint32_t indexInStage)
{
    if (m_c.kind == "cnn")
    {
        m_dense.pending += m_c.cnnParameters / m_c.layers +
                           (indexInStage == 0 ? m_c.cnnParameters % m_c.layers : 0);
    }
    else if (IsMoe(layer))
    {
        m_dense.pending +=
            (m_counts.attentionParams + 4 * m_c.hidden + m_c.hidden * m_c.experts) / m_c.tp;
        m_expert.pending +=
            static_cast<uint64_t>(m_c.experts / m_c.ep) * m_counts.expertParams / m_c.tp;
    }
    else
    {
        m_dense.pending += m_counts.denseLayerParams / m_c.tp;
    }
}

void
RankSchedule::Backward(uint32_t mb)
{
    const std::string tag = "bwd.mb" + std::to_string(mb);
    const bool lastMicroBatch = mb + 1 == m_micro;
    if (!m_last)
    {
        m_prog.PointToPoint(TraceOpKind::RECV,
                            tag + ".recv",
                            m_next,
                            m_counts.ppActivationBytes,
                            RECV_NEXT);
    }
    if (m_last && m_c.kind != "cnn")
    {
        m_prog.Compute(tag + ".logits",
                       ComputeTime(4 * m_b * m_s * m_h * m_c.vocab / m_tp,
                                   2 * m_c.vocab * m_h / m_tp * m_c.paramBytes));
        if (lastMicroBatch)
        {
            // The final layer norm, and with a pipeline the last stage's copy of the
            // (tied) output embedding.
            m_dense.pending += (m_c.pp > 1 ? static_cast<uint64_t>(m_c.vocab * m_h / m_tp) : 0) +
                               2 * m_c.hidden / m_c.tp;
        }
    }
    for (uint32_t k = m_layersPerStage; k-- > 0;)
    {
        const uint32_t layer = m_p * m_layersPerStage + k;
        Zero3Gather(tag + ".l" + std::to_string(layer), layer);
        Layer(tag, layer, 2);
        if (lastMicroBatch)
        {
            // This layer's gradients are final: they join the buckets.
            AddLayerGradients(layer, k);
            Flush(m_dense, m_dpComm, false);
            Flush(m_expert, m_edpComm, false);
        }
    }
    if (lastMicroBatch && m_first && m_c.kind != "cnn")
    {
        m_dense.pending += m_counts.embeddingParams / m_c.tp;
    }
    if (lastMicroBatch)
    {
        Flush(m_dense, m_dpComm, true);
        Flush(m_expert, m_edpComm, true);
    }
    if (!m_first)
    {
        m_prog.PointToPoint(TraceOpKind::SEND,
                            tag + ".send",
                            m_prev,
                            m_counts.ppActivationBytes,
                            SEND_PREV);
    }
}

void
RankSchedule::OptimizerStep()
{
    // The step waits for every gradient collective; ZeRO 1/2 then gather the updated
    // parameters bucket by bucket.
    uint64_t localParams = 0;
    for (const Buckets* bk : {&m_dense, &m_expert})
    {
        for (uint32_t id : bk->ops)
        {
            m_prog.WaitFor(id);
        }
    }
    for (const Buckets* bk : {&m_dense, &m_expert})
    {
        for (uint64_t size : bk->sizes)
        {
            localParams += size;
        }
    }
    const double shard = m_c.zeroStage == 0 ? 1.0 : 1.0 / m_c.dp;
    // Adam: read/write fp32 master weights, two moments and the gradient.
    m_prog.Compute("optimizer.step",
                   ComputeTime(10.0 * localParams * shard, 16.0 * localParams * shard));
    if ((m_c.zeroStage != 1 && m_c.zeroStage != 2) || !m_dpComm)
    {
        return;
    }
    for (size_t k = 0; k < m_dense.sizes.size(); ++k)
    {
        m_prog.Collective("param.bucket" + std::to_string(k) + ".ag",
                          CollectiveType::ALL_GATHER,
                          m_dense.sizes[k] * m_c.paramBytes,
                          m_dense.group,
                          DP,
                          false);
    }
    if (!m_edpComm)
    {
        return;
    }
    for (size_t k = 0; k < m_expert.sizes.size(); ++k)
    {
        m_prog.Collective("expert.param.bucket" + std::to_string(k) + ".ag",
                          CollectiveType::ALL_GATHER,
                          m_expert.sizes[k] * m_c.paramBytes,
                          m_expert.group,
                          DP,
                          false);
    }
}

} // namespace megatron
} // namespace ns3
