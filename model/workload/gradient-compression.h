// SPDX-License-Identifier: GPL-2.0-only
#ifndef GRADIENT_COMPRESSION_H
#define GRADIENT_COMPRESSION_H

#include "training-trace.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// One compression rule: which collectives, and how they are compressed.
struct CompressionRule
{
    /**
     * Which collectives: a group kind of the trace ("dp", "tp", "pp", "ep", "custom"), a
     * group name ("dp3"), or "op=TEXT" (the collectives whose op name contains TEXT, such
     * as a layer's ".l3.").
     */
    std::string select;
    bool topk{false}; //!< sparse top-k (all-reduce only) instead of a dense factor
    /// dense: bytes on the wire per byte of the call, in (0, 1]; top-k: the density
    /// (elements kept per element), in (0, 1]
    double value{1};
    std::string place; //!< where the rule was given, for messages ("--compress", a file)
};

/// What one rule did to a trace (GradientCompression::GetEffects).
struct CompressionEffect
{
    CompressionRule rule;    //!< the rule
    uint64_t ops{0};         //!< collective ops it matched, over all ranks
    uint64_t bytesBefore{0}; //!< their bytes (nccl-tests sizes), summed over ranks
    uint64_t bytesAfter{0};  //!< the same after compression
    Time kernels;            //!< encode and decode compute added, summed over ranks
};

/**
 * \ingroup ai-fabric
 * Compressed communication as a transformation of a training trace.
 *
 * Each rule selects collectives (by group kind, group name or op name) and compresses
 * them in one of two ways:
 *
 * - dense (quantisation, low rank): the call moves factor x its bytes, rounded, at least
 *   one byte; every collective type.
 * - top-k (all-reduce only): each rank keeps k = ceil(density x bytes / ElementBytes)
 *   elements and sends them as values and indices, k x (ElementBytes + IndexBytes) bytes;
 *   the all-reduce becomes an all-gather of those pieces (n x that, the nccl-tests size),
 *   and every rank adds the n sparse pieces into its dense gradient.
 *
 * The encode and decode kernels become compute ops on the collective's stream, right
 * before and after it (the call waits for its encode; what waited for the call waits for
 * its decode). Both are memory-bound: a kernel's time is the bytes it reads and writes
 * over KernelBandwidth (by default the GPU's HBM bandwidth, GpuPreset). Per rank, with
 * in and out the call's input and output bytes (nccl-tests: all-gather's input is its
 * size / n, reduce-scatter's output size / n, others size) and f the factor:
 * encode (1 + f) in, decode (1 + f) out; top-k: encode bytes + piece, decode n x piece +
 * bytes. The ring's own decode-reduce-encode at each step is not modelled: what is
 * compressed is the call's bytes, once.
 */
class GradientCompression : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    GradientCompression();
    ~GradientCompression() override;

    /**
     * Parse "SELECTOR:FACTOR" (dense) or "SELECTOR:topk:DENSITY", as --compress and the
     * scenario's compression list write them; FACTOR and DENSITY in (0, 1].
     * \param text the rule
     * \param rule set on success (place left as it was)
     * \param why set to what was expected on failure
     * \return true if text is a rule
     */
    static bool ParseRule(const std::string& text, CompressionRule& rule, std::string* why);

    /**
     * \param rule a rule
     * \return it as ParseRule reads it ("dp:0.25", "dp:topk:0.01")
     */
    static std::string RuleToString(const CompressionRule& rule);

    /**
     * Add a rule. An op takes the first rule that selects it.
     * \param rule the rule (see ParseRule for its bounds; checked by Apply)
     */
    void AddRule(const CompressionRule& rule);
    /// \return the rules, in the order added
    const std::vector<CompressionRule>& GetRules() const;

    /**
     * Compress the trace's selected collectives and add their kernels.
     * \param trace a valid trace, changed in place (still valid after)
     * \param hbmBytesPerSecond the GPU's HBM bandwidth (used when KernelBandwidth is 0)
     * \param error set, naming the rule's place, when a rule selects no collective, a
     *        top-k rule selects a collective that is not an all-reduce, or a value is out
     *        of bounds
     * \return true on success (the trace is unchanged otherwise)
     */
    bool Apply(TrainingTrace& trace, double hbmBytesPerSecond, std::string* error);

    /// \return per rule, what the last Apply did
    const std::vector<CompressionEffect>& GetEffects() const;

    /**
     * \param bytes bytes a kernel reads and writes
     * \param hbmBytesPerSecond the GPU's HBM bandwidth (when KernelBandwidth is 0)
     * \return how long the kernel takes
     */
    Time KernelTime(double bytes, double hbmBytesPerSecond) const;

  private:
    /// \return whether rule selects op (a collective) of trace
    static bool Matches(const CompressionRule& rule, const TrainingTrace& trace, const TraceOp& op);
    /// \return the index of the first rule that selects op (a collective) of trace, or -1
    int64_t Select(const TrainingTrace& trace, const TraceOp& op) const;

    std::vector<CompressionRule> m_rules;
    std::vector<CompressionEffect> m_effects;
    double m_kernelBandwidth{0}; //!< bytes per second; 0: the GPU's HBM
    uint32_t m_elementBytes{2};  //!< top-k: bytes per gradient value
    uint32_t m_indexBytes{4};    //!< top-k: bytes per index
};

} // namespace ns3

#endif // GRADIENT_COMPRESSION_H
