// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRANSFORMER_TRACE_GENERATOR_H
#define TRANSFORMER_TRACE_GENERATOR_H

#include "parameter-server-sync.h"
#include "training-trace.h"

#include "ns3/object.h"

#include <cstdint>
#include <iosfwd>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A model and its parallel layout, as Megatron-LM describes them.
 *
 * kind "transformer": a GPT-style decoder (layers of attention + MLP, learned position
 * embeddings, tied output embedding); experts > 0 makes every moeEvery-th layer a
 * mixture of experts with topK routing. kind "cnn": a data-parallel network given by
 * its parameter count and training FLOPs per sample, cut into equal layers.
 */
struct TransformerConfig
{
    std::string name{"model"};       //!< for reports
    std::string kind{"transformer"}; //!< "transformer" or "cnn"
    uint32_t layers{24};             //!< transformer layers (cnn: layers to cut it into)
    uint64_t hidden{2048};           //!< hidden size h
    uint32_t heads{16};              //!< attention heads (must divide h and be divisible by tp)
    uint32_t kvHeads{0};             //!< key/value heads (grouped-query attention; 0: heads)
    bool gatedMlp{false};            //!< SwiGLU MLP (3 weight matrices, no biases), as Llama
    uint64_t ffnHidden{0};           //!< MLP inner size (0: 4h)
    uint64_t seqLength{2048};        //!< sequence length s
    uint64_t vocab{51200};           //!< vocabulary size V
    uint32_t microBatch{1};          //!< sequences per micro-batch b
    uint32_t globalBatch{16};        //!< sequences per iteration over all DP ranks
    uint32_t tp{1};                  //!< tensor-parallel size
    uint32_t pp{1};                  //!< pipeline-parallel size (1F1B schedule)
    uint32_t dp{1};                  //!< data-parallel size
    uint32_t ep{1};                  //!< expert-parallel size (divides dp)
    uint32_t experts{0};             //!< experts per MoE layer (0: dense)
    uint32_t topK{2};                //!< experts per token
    uint32_t moeEvery{1};            //!< every n-th layer is MoE (when experts > 0)
    uint32_t zeroStage{0};           //!< 0: all-reduce grads; 1, 2: reduce-scatter grads +
                                     //!< all-gather params (distributed optimizer); 3: also
                                     //!< all-gather each layer's params before use
    bool sequenceParallel{false};    //!< TP all-reduce becomes reduce-scatter + all-gather
    /// 0: DP gradients by all-reduce; k: by k parameter servers (ParameterServerSync;
    /// zeroStage 0): per DP group, colocated with its ranks (k at most dp), or k CPU hosts
    uint32_t parameterServers{0};
    /// where the parameter servers are: colocated, cpu (dedicated CPU hosts) or byteps (a
    /// reduce-scatter inside each server first); the key "parameterServerPlacement"
    ParameterServerSync::Placement parameterServerPlacement{ParameterServerSync::COLOCATED};
    /// byteps: rank r runs on server r / gpusPerServer (0: ParameterServerSync's
    /// GpusPerServer default; a scenario's model: the cluster's)
    uint32_t gpusPerServer{0};
    uint64_t bucketParams{40000000};  //!< DP gradient bucket (Megatron: 40M parameters)
    uint32_t gradBytes{2};            //!< bytes per gradient element (bf16)
    uint32_t paramBytes{2};           //!< bytes per parameter (bf16)
    uint32_t activationBytes{2};      //!< bytes per activation element (bf16)
    uint64_t cnnParameters{25557032}; //!< cnn: parameters (ResNet-50)
    double cnnFlopsPerSample{12.3e9}; //!< cnn: training FLOPs per sample (3 x 4.1 G)

    /**
     * Check the layout (divisibility, sizes). Every problem is named.
     * \param reason set to the problem
     * \return true if a trace can be generated
     */
    bool Validate(std::string* reason) const;
    /// \return micro-batches per iteration per pipeline: globalBatch / (microBatch x dp)
    uint32_t GetMicroBatches() const;
    /// \return tp x pp x dp
    uint32_t GetNRanks() const;
    /// \return ffnHidden, or 4h when 0
    uint64_t GetFfn() const;
    /// \return the key/value width: h x kvHeads / heads (h without grouped-query attention)
    uint64_t GetKvWidth() const;

  private:
    /// Validate for kind "cnn": data-parallel only, sizes given (problem written to why).
    bool ValidateCnn(std::ostringstream& why) const;
    /// Validate for kind "transformer": heads, kvHeads, ep and experts fit the layout.
    bool ValidateTransformer(std::ostringstream& why) const;
};

/**
 * \ingroup ai-fabric
 * Parameter and byte counts of a TransformerConfig (closed forms, Megatron-LM's).
 */
struct TransformerCounts
{
    uint64_t attentionParams{0};   //!< 2h^2 + 2 h kv + 2h + 2kv (4h^2 + 4h without GQA)
    uint64_t denseLayerParams{0};  //!< attention + 4h (layer norms) + MLP: 12h^2 + 13h for
                                   //!< ffn = 4h without GQA or gating
    uint64_t expertParams{0};      //!< one MLP: 2 h ffn + ffn + h (gated: 3 h ffn)
    uint64_t moeLayerParams{0};    //!< attention + layer norms + router + all experts
    uint64_t embeddingParams{0};   //!< V h + s h
    uint64_t totalParams{0};       //!< all layers + embeddings + final layer norm (2h)
    uint64_t tpActivationBytes{0}; //!< one TP collective: b s h x activationBytes
    uint64_t ppActivationBytes{0}; //!< one pipeline send: b s h x activationBytes (/ tp
                                   //!< with sequence parallelism)
    uint64_t epAllToAllBytes{0};   //!< one MoE all-to-all per rank: b s h topK x bytes
};

/**
 * \ingroup ai-fabric
 * Writes Megatron-style training traces for transformer (and data-parallel CNN) training.
 *
 * Ranks: rank = t + tp (d + dp p) for tensor rank t, data rank d, pipeline stage p
 * (Megatron's default order: TP fastest, so a TP group sits inside one server). Groups:
 * tp<i>, dp<i>, pp<i>, and with MoE ep<i> (ep consecutive DP ranks) and edp<i> (the
 * DP ranks holding the same experts).
 *
 * Per layer and micro-batch: forward = attention compute, TP all-reduce (or
 * all-gather + reduce-scatter with sequence parallelism), MLP compute, TP all-reduce;
 * MoE layers add an all-to-all before (dispatch) and after (combine) the experts.
 * Backward mirrors it at twice the FLOPs. Pipeline: 1F1B (warm-up of p - stage - 1
 * forwards, steady 1F1B, cool-down), activations and gradients sent with SEND/RECV on
 * dedicated streams, each receive posted when the compute before it is done. Data
 * parallel: gradient buckets of bucketParams, each all-reduced (ZeRO 1/2:
 * reduce-scatter) on its own stream as soon as the last micro-batch's backward has
 * produced it, overlapping the rest of the backward; ZeRO 1/2 all-gather the updated
 * parameters after the optimizer step; ZeRO 3 also all-gathers each layer's parameters
 * before its forward and backward. The step itself is a compute op.
 *
 * Compute time of an op: a roofline, max(FLOPs / (PeakFlops x ComputeEfficiency),
 * bytes / (MemoryBandwidth x MemoryEfficiency)). PeakFlops and MemoryBandwidth are the Gpu
 * attribute's preset figures (GpuPreset: dense BF16 FLOP/s, HBM bytes/s) unless set to a
 * value of their own; the trace records the GPU (TrainingTrace::SetGpu) when both come
 * from the preset, and no GPU when either was overridden. FLOPs per layer and micro-batch
 * 24 b s h^2 + 4 b s^2 h (ffn = 4h; generally 2 b s h (2h + 2kv) + 4 b s^2 h for
 * attention and 4 b s h ffn for the MLP, 6 b s h ffn when gated) split
 * over TP, logits 2 b s h V on the last stage, backward twice the forward, and bytes the
 * layer's weights plus 34 b s h activation bytes (Korthikanti et al.) split over TP.
 */
class TransformerTraceGenerator : public Object
{
  public:
    static TypeId GetTypeId();

    /**
     * \param config the model and layout
     * \param error set if the config is invalid
     * \return the trace (one iteration), or an empty one on error
     */
    TrainingTrace Generate(const TransformerConfig& config, std::string* error) const;

    /// \return the closed-form counts of config
    static TransformerCounts Count(const TransformerConfig& config);

    /**
     * Read a config from JSON text (keys as the struct fields, e.g. "seqLength";
     * unknown keys are errors). Errors name source, key and expectation.
     * \return true on success
     */
    static bool ParseConfig(const std::string& json,
                            const std::string& source,
                            TransformerConfig& config,
                            std::string* error);

    /// \return the roofline time of an op of flops and memory bytes
    Time ComputeTime(double flops, double bytes) const;

    /// \return peak FLOP/s the roofline uses: PeakFlops, or the Gpu preset's when 0
    double GetPeakFlops() const;
    /// \return bytes/s the roofline uses: MemoryBandwidth, or the Gpu preset's when 0
    double GetMemoryBandwidth() const;
    /// \return the GPU the trace records: the Gpu attribute when both figures come from
    /// its preset, "" when either was set by hand
    std::string GetRecordedGpu() const;

  private:
    std::string m_gpu;  //!< GpuPreset name whose compute figures apply
    double m_peakFlops; //!< 0: the preset's
    double m_computeEfficiency;
    double m_memoryBandwidth; //!< 0: the preset's
    double m_memoryEfficiency;
};

} // namespace ns3

#endif // TRANSFORMER_TRACE_GENERATOR_H
