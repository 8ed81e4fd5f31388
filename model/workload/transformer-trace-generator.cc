// SPDX-License-Identifier: GPL-2.0-only
#include "transformer-trace-generator.h"

#include "ns3/double.h"
#include "ns3/log.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AiFabricTransformerTraceGenerator");

NS_OBJECT_ENSURE_REGISTERED(TransformerTraceGenerator);

// ------------------------------------------------------------------ generator object

TypeId
TransformerTraceGenerator::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TransformerTraceGenerator")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<TransformerTraceGenerator>()
            .AddAttribute("PeakFlops",
                          "GPU peak dense FLOP/s of the training precision (H100 SXM BF16: "
                          "989 TFLOP/s).",
                          DoubleValue(989e12),
                          MakeDoubleAccessor(&TransformerTraceGenerator::m_peakFlops),
                          MakeDoubleChecker<double>(1e9, 1e18))
            .AddAttribute("ComputeEfficiency",
                          "Fraction of PeakFlops a layer's kernels reach (model FLOPs "
                          "utilisation of large-model training is typically 0.4-0.55).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&TransformerTraceGenerator::m_computeEfficiency),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("MemoryBandwidth",
                          "GPU memory bandwidth, bytes/s (H100 SXM HBM3: 3.35 TB/s).",
                          DoubleValue(3.35e12),
                          MakeDoubleAccessor(&TransformerTraceGenerator::m_memoryBandwidth),
                          MakeDoubleChecker<double>(1e9, 1e15))
            .AddAttribute("MemoryEfficiency",
                          "Fraction of MemoryBandwidth kernels reach.",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&TransformerTraceGenerator::m_memoryEfficiency),
                          MakeDoubleChecker<double>(0.01, 1.0));
    return tid;
}

Time
TransformerTraceGenerator::ComputeTime(double flops, double bytes) const
{
    const double t = std::max(flops / (m_peakFlops * m_computeEfficiency),
                              bytes / (m_memoryBandwidth * m_memoryEfficiency));
    return NanoSeconds(static_cast<int64_t>(t * 1e9 + 0.5));
}

namespace
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
    uint32_t PointToPoint(TraceOpKind kind, const std::string& name, uint32_t peer, uint64_t bytes, uint32_t stream)
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

/// Accumulates gradients into DP buckets and emits their collectives.
struct Buckets
{
    std::string group;
    uint64_t pending{0};         //!< parameters not yet in a bucket collective
    std::vector<uint64_t> sizes; //!< emitted buckets, in parameters
    std::vector<uint32_t> ops;   //!< their collective ops
};

} // namespace

TrainingTrace
TransformerTraceGenerator::Generate(const TransformerConfig& c, std::string* error) const
{
    std::string why;
    if (!c.Validate(&why))
    {
        if (error)
        {
            *error = "TransformerTraceGenerator: " + why;
        }
        return TrainingTrace();
    }
    const TransformerCounts counts = Count(c);
    const bool cnn = c.kind == "cnn";
    const uint32_t n = c.GetNRanks();
    const uint32_t m = c.GetMicroBatches();
    const uint32_t layersPerStage = c.layers / c.pp;
    const double b = c.microBatch;
    const double s = static_cast<double>(c.seqLength);
    const double h = static_cast<double>(c.hidden);
    const double f = static_cast<double>(c.GetFfn());
    const double kv = static_cast<double>(c.GetKvWidth());
    const double tp = c.tp;

    TrainingTrace trace(n);
    std::ostringstream title;
    title << c.name << " tp" << c.tp << " pp" << c.pp << " dp" << c.dp;
    if (c.experts > 0)
    {
        title << " ep" << c.ep << " moe" << c.experts;
    }
    title << " zero" << c.zeroStage << ", " << m << " micro-batches of " << c.microBatch;
    trace.SetName(title.str());

    auto rankOf = [&](uint32_t t, uint32_t d, uint32_t p) { return t + c.tp * (d + c.dp * p); };
    // Groups, named by the index of their lowest member's coordinates.
    for (uint32_t p = 0; p < c.pp; ++p)
    {
        for (uint32_t d = 0; d < c.dp; ++d)
        {
            TraceGroup g{"tp" + std::to_string(d + c.dp * p), "tp", {}};
            for (uint32_t t = 0; t < c.tp; ++t)
            {
                g.ranks.push_back(rankOf(t, d, p));
            }
            trace.AddGroup(g);
        }
        for (uint32_t t = 0; t < c.tp; ++t)
        {
            TraceGroup g{"dp" + std::to_string(t + c.tp * p), "dp", {}};
            for (uint32_t d = 0; d < c.dp; ++d)
            {
                g.ranks.push_back(rankOf(t, d, p));
            }
            trace.AddGroup(g);
            if (c.experts > 0)
            {
                for (uint32_t e = 0; e < c.dp / c.ep; ++e)
                {
                    TraceGroup ep{"ep" + std::to_string(t + c.tp * p) + "." + std::to_string(e), "ep", {}};
                    for (uint32_t k = 0; k < c.ep; ++k)
                    {
                        ep.ranks.push_back(rankOf(t, e * c.ep + k, p));
                    }
                    trace.AddGroup(ep);
                }
                for (uint32_t k = 0; k < c.ep; ++k)
                {
                    TraceGroup edp{"edp" + std::to_string(t + c.tp * p) + "." + std::to_string(k), "dp", {}};
                    for (uint32_t e = 0; e < c.dp / c.ep; ++e)
                    {
                        edp.ranks.push_back(rankOf(t, e * c.ep + k, p));
                    }
                    trace.AddGroup(edp);
                }
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
                g.ranks.push_back(rankOf(t, d, p));
            }
            trace.AddGroup(g);
        }
    }

    for (uint32_t p = 0; p < c.pp; ++p)
    {
        for (uint32_t d = 0; d < c.dp; ++d)
        {
            for (uint32_t t = 0; t < c.tp; ++t)
            {
                const uint32_t rank = rankOf(t, d, p);
                RankProgram prog(trace, rank);
                const std::string tpGroup = "tp" + std::to_string(d + c.dp * p);
                const std::string dpGroup = "dp" + std::to_string(t + c.tp * p);
                const std::string epGroup = "ep" + std::to_string(t + c.tp * p) + "." + std::to_string(d / c.ep);
                const std::string edpGroup = "edp" + std::to_string(t + c.tp * p) + "." + std::to_string(d % c.ep);
                const bool first = p == 0;
                const bool last = p == c.pp - 1;
                const uint32_t prev = first ? 0 : rankOf(t, d, p - 1);
                const uint32_t next = last ? 0 : rankOf(t, d, p + 1);
                const bool tpComm = c.tp > 1;
                const bool epComm = c.experts > 0 && c.ep > 1;
                const bool edpComm = c.experts > 0 && c.dp / c.ep > 1;
                const bool dpComm = c.dp > 1;

                Buckets dense{dpGroup, 0, {}, {}};
                Buckets expert{edpGroup, 0, {}, {}};
                const CollectiveType gradCollective =
                    c.zeroStage == 0 ? CollectiveType::ALL_REDUCE : CollectiveType::REDUCE_SCATTER;
                auto flush = [&](Buckets& bk, bool comm, bool force) {
                    if (bk.pending == 0 || (!force && bk.pending < c.bucketParams))
                    {
                        return;
                    }
                    if (comm)
                    {
                        const uint32_t id = prog.Collective(
                            "grad.bucket" + std::to_string(bk.sizes.size()) + "." + bk.group,
                            gradCollective,
                            bk.pending * c.gradBytes,
                            bk.group,
                            DP,
                            false);
                        bk.ops.push_back(id);
                    }
                    bk.sizes.push_back(bk.pending);
                    bk.pending = 0;
                };

                // Per-GPU layer parameters (TP split) and compute.
                auto isMoe = [&](uint32_t layer) {
                    return c.experts > 0 && (layer + 1) % c.moeEvery == 0;
                };
                const double attnParams = static_cast<double>(counts.attentionParams + 4 * c.hidden) / tp;
                const double mlpParams = counts.expertParams / tp;
                const double act = 34.0 * b * s * h / tp; // activation bytes per layer
                const uint64_t tpBytes = counts.tpActivationBytes;

                auto tpCollectives = [&](const std::string& name) {
                    if (!tpComm)
                    {
                        return;
                    }
                    if (c.sequenceParallel)
                    {
                        prog.Collective(name + ".rs", CollectiveType::REDUCE_SCATTER, tpBytes, tpGroup, TP_EP, true);
                        prog.Collective(name + ".ag", CollectiveType::ALL_GATHER, tpBytes, tpGroup, TP_EP, true);
                    }
                    else
                    {
                        prog.Collective(name + ".ar", CollectiveType::ALL_REDUCE, tpBytes, tpGroup, TP_EP, true);
                    }
                };
                auto zero3Gather = [&](const std::string& name, uint32_t layer) {
                    if (c.zeroStage == 3 && dpComm)
                    {
                        const double params = isMoe(layer) ? attnParams + (double)c.experts / c.ep * mlpParams
                                                           : attnParams + mlpParams;
                        const uint32_t id = prog.Collective(name + ".zero3.ag",
                                                            CollectiveType::ALL_GATHER,
                                                            static_cast<uint64_t>(params) * c.paramBytes,
                                                            dpGroup,
                                                            DP,
                                                            false,
                                                            false); // prefetched: no compute dep
                        prog.WaitFor(id);
                    }
                };

                auto layerForward = [&](const std::string& tag, uint32_t layer, double factor) {
                    // factor 1: forward; 2: backward (twice the FLOPs and the traffic)
                    const bool moe = isMoe(layer);
                    const std::string base = tag + ".l" + std::to_string(layer);
                    if (cnn)
                    {
                        const double flops = c.cnnFlopsPerSample / 3.0 * b / c.layers * factor;
                        const double params = static_cast<double>(c.cnnParameters) / c.layers;
                        prog.Compute(base, ComputeTime(flops, params * c.paramBytes * factor));
                        return;
                    }
                    const double attnFlops = (2 * b * s * h * (2 * h + 2 * kv) + 4 * b * s * s * h) / tp * factor;
                    const double mlpFlops =
                        (c.gatedMlp ? 6 : 4) * b * s * h * f / tp * (moe ? c.topK : 1) * factor;
                    const double mlpWeights = (moe ? (double)c.experts / c.ep : 1.0) * mlpParams;
                    auto attn = [&]() {
                        prog.Compute(base + ".attn", ComputeTime(attnFlops, (attnParams * c.paramBytes + act / 2) * factor));
                        tpCollectives(base + ".attn");
                    };
                    auto mlp = [&]() {
                        if (moe && epComm)
                        {
                            prog.Collective(base + ".dispatch", CollectiveType::ALL_TO_ALL,
                                            counts.epAllToAllBytes, epGroup, TP_EP, true);
                        }
                        prog.Compute(base + ".mlp", ComputeTime(mlpFlops, (mlpWeights * c.paramBytes + act / 2) * factor));
                        if (moe && epComm)
                        {
                            prog.Collective(base + ".combine", CollectiveType::ALL_TO_ALL,
                                            counts.epAllToAllBytes, epGroup, TP_EP, true);
                        }
                        tpCollectives(base + ".mlp");
                    };
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
                };

                auto forward = [&](uint32_t mb) {
                    const std::string tag = "fwd.mb" + std::to_string(mb);
                    if (!first)
                    {
                        prog.PointToPoint(TraceOpKind::RECV, tag + ".recv", prev, counts.ppActivationBytes, RECV_PREV);
                    }
                    for (uint32_t k = 0; k < layersPerStage; ++k)
                    {
                        const uint32_t layer = p * layersPerStage + k;
                        zero3Gather(tag + ".l" + std::to_string(layer), layer);
                        layerForward(tag, layer, 1);
                    }
                    if (last && !cnn)
                    {
                        prog.Compute(tag + ".logits",
                                     ComputeTime(2 * b * s * h * c.vocab / tp, c.vocab * h / tp * c.paramBytes));
                    }
                    if (!last)
                    {
                        prog.PointToPoint(TraceOpKind::SEND, tag + ".send", next, counts.ppActivationBytes, SEND_NEXT);
                    }
                };

                auto backward = [&](uint32_t mb) {
                    const std::string tag = "bwd.mb" + std::to_string(mb);
                    const bool lastMicroBatch = mb + 1 == m;
                    if (!last)
                    {
                        prog.PointToPoint(TraceOpKind::RECV, tag + ".recv", next, counts.ppActivationBytes, RECV_NEXT);
                    }
                    if (last && !cnn)
                    {
                        prog.Compute(tag + ".logits",
                                     ComputeTime(4 * b * s * h * c.vocab / tp, 2 * c.vocab * h / tp * c.paramBytes));
                        if (lastMicroBatch && c.pp > 1)
                        {
                            dense.pending += static_cast<uint64_t>(c.vocab * h / tp) + 2 * c.hidden / c.tp;
                        }
                        else if (lastMicroBatch)
                        {
                            dense.pending += 2 * c.hidden / c.tp; // final layer norm
                        }
                    }
                    for (uint32_t k = layersPerStage; k-- > 0;)
                    {
                        const uint32_t layer = p * layersPerStage + k;
                        zero3Gather(tag + ".l" + std::to_string(layer), layer);
                        layerForward(tag, layer, 2);
                        if (lastMicroBatch)
                        {
                            // This layer's gradients are final: they join the buckets.
                            if (cnn)
                            {
                                dense.pending += c.cnnParameters / c.layers +
                                                 (k == 0 ? c.cnnParameters % c.layers : 0);
                            }
                            else if (isMoe(layer))
                            {
                                dense.pending += (counts.attentionParams + 4 * c.hidden + c.hidden * c.experts) / c.tp;
                                expert.pending += static_cast<uint64_t>(c.experts / c.ep) * counts.expertParams / c.tp;
                            }
                            else
                            {
                                dense.pending += counts.denseLayerParams / c.tp;
                            }
                            flush(dense, dpComm, false);
                            flush(expert, edpComm, false);
                        }
                    }
                    if (lastMicroBatch && first && !cnn)
                    {
                        dense.pending += counts.embeddingParams / c.tp;
                    }
                    if (lastMicroBatch)
                    {
                        flush(dense, dpComm, true);
                        flush(expert, edpComm, true);
                    }
                    if (!first)
                    {
                        prog.PointToPoint(TraceOpKind::SEND, tag + ".send", prev, counts.ppActivationBytes, SEND_PREV);
                    }
                };

                // 1F1B: warm-up forwards, steady one-forward-one-backward, cool-down.
                const uint32_t warmup = std::min(c.pp - p - 1, m);
                uint32_t fwd = 0;
                uint32_t bwd = 0;
                for (; fwd < warmup; ++fwd)
                {
                    forward(fwd);
                }
                while (fwd < m)
                {
                    forward(fwd++);
                    backward(bwd++);
                }
                while (bwd < m)
                {
                    backward(bwd++);
                }

                // Optimizer step after every gradient collective; ZeRO 1/2 then gather
                // the updated parameters bucket by bucket.
                for (uint32_t id : dense.ops)
                {
                    prog.WaitFor(id);
                }
                for (uint32_t id : expert.ops)
                {
                    prog.WaitFor(id);
                }
                uint64_t localParams = 0;
                for (uint64_t sz : dense.sizes)
                {
                    localParams += sz;
                }
                for (uint64_t sz : expert.sizes)
                {
                    localParams += sz;
                }
                const double shard = c.zeroStage == 0 ? 1.0 : 1.0 / c.dp;
                // Adam: read/write fp32 master weights, two moments and the gradient.
                prog.Compute("optimizer.step", ComputeTime(10.0 * localParams * shard, 16.0 * localParams * shard));
                if ((c.zeroStage == 1 || c.zeroStage == 2) && dpComm)
                {
                    for (size_t k = 0; k < dense.sizes.size(); ++k)
                    {
                        prog.Collective("param.bucket" + std::to_string(k) + ".ag",
                                        CollectiveType::ALL_GATHER,
                                        dense.sizes[k] * c.paramBytes,
                                        dense.group,
                                        DP,
                                        false);
                    }
                    if (edpComm)
                    {
                        for (size_t k = 0; k < expert.sizes.size(); ++k)
                        {
                            prog.Collective("expert.param.bucket" + std::to_string(k) + ".ag",
                                            CollectiveType::ALL_GATHER,
                                            expert.sizes[k] * c.paramBytes,
                                            expert.group,
                                            DP,
                                            false);
                        }
                    }
                }
            }
        }
    }
    return TrainingTrace::Checked(std::move(trace),
                                  "TransformerTraceGenerator: generated an invalid trace (a bug)",
                                  error);
}

} // namespace ns3
