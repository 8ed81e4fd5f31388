// SPDX-License-Identifier: GPL-2.0-only
//
// Writers of the trace formats the readers take, so that the tests make their own
// inputs: Chakra execution traces in the protobuf wire format (et_def.proto, see the
// References section of doc/ai-fabric.rst) and SimAI/AICB workload text.
#ifndef AI_FABRIC_TEST_TRACE_ENCODERS_H
#define AI_FABRIC_TEST_TRACE_ENCODERS_H

#include "ns3/training-trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace tracetest
{

// ------------------------------------------------------------ protobuf wire format

/// \return v as a protobuf base-128 varint.
std::string Varint(uint64_t v);
/// \return the key of field with wire type wire.
std::string Tag(uint32_t field, uint32_t wire);
/// \return a varint field (wire type 0).
std::string Var(uint32_t field, uint64_t v);
/// \return a length-delimited field (wire type 2).
std::string Len(uint32_t field, const std::string& payload);
/// \return a little-endian fixed field: wire type 1 when width is 8, else 5.
std::string Fixed(uint32_t field, uint64_t v, size_t width);
/// \return m preceded by its length as a varint (one message of a Chakra file).
std::string Message(const std::string& m);

// ------------------------------------------------------------------ Chakra et_def.proto

/// Chakra NodeType values.
enum ChakraNodeType : uint64_t
{
    CHAKRA_METADATA = 1,
    CHAKRA_COMP = 4,
    CHAKRA_COMM_SEND = 5,
    CHAKRA_COMM_RECV = 6,
    CHAKRA_COMM_COLL = 7,
};

/// Chakra CollectiveCommType values.
enum ChakraCommType : uint64_t
{
    CHAKRA_ALL_REDUCE = 0,
    CHAKRA_REDUCE = 1,
    CHAKRA_ALL_GATHER = 2,
    CHAKRA_GATHER = 3,
    CHAKRA_SCATTER = 4,
    CHAKRA_BROADCAST = 5,
    CHAKRA_ALL_TO_ALL = 6,
    CHAKRA_REDUCE_SCATTER = 7,
    CHAKRA_BARRIER = 9,
};

/// \return the GlobalMetadata message of a file (version only), length-prefixed.
std::string ChakraMetadata(const std::string& version = "0.0.4");
/// \return a Node.attr entry (field 10) named name whose value is the encoded field.
std::string ChakraAttr(const std::string& name, const std::string& valueField);
/// \return Node fields id (omitted when 0, as proto3 does), name and type.
std::string ChakraNodeHead(uint64_t id, const std::string& name, uint64_t type);
/// \return packed data_deps (field 5).
std::string ChakraPackedDeps(const std::vector<uint64_t>& deps);
/**
 * \return a length-prefixed COMM_COLL node with comm_type and comm_size as int64.
 * \param id node id
 * \param commType a ChakraCommType
 * \param bytes comm_size
 * \param extra further encoded Node fields
 * \param name node name
 */
std::string ChakraCollective(uint64_t id,
                             uint64_t commType,
                             uint64_t bytes,
                             const std::string& extra = "",
                             const std::string& name = "coll");
/**
 * Write a collective microbenchmark in the layout ASTRA-sim's Chakra generator uses:
 * files {prefix}.{rank}.et for rank 0..ranks-1, each metadata plus one COMM_COLL node.
 * \return the file names, in rank order.
 */
std::vector<std::string> WriteChakraCollective(const std::string& prefix,
                                               uint32_t ranks,
                                               uint64_t commType,
                                               uint64_t bytes,
                                               const std::string& name);

// ------------------------------------------------------------------------ AICB text

/// One layer line of an AICB workload (times in ns, comm types as AICB spells them).
struct AicbLayer
{
    std::string name;            ///< layer name
    uint64_t fwdNs{0};           ///< forward compute
    std::string fwdComm{"NONE"}; ///< forward comm type
    uint64_t fwdBytes{0};        ///< forward comm bytes
    uint64_t igNs{0};            ///< input-gradient compute
    std::string igComm{"NONE"};  ///< input-gradient comm type
    uint64_t igBytes{0};         ///< input-gradient comm bytes
    uint64_t wgNs{0};            ///< weight-gradient compute
    std::string wgComm{"NONE"};  ///< weight-gradient comm type
    uint64_t wgBytes{0};         ///< weight-gradient comm bytes
    uint64_t updateNs{0};        ///< weight-update compute
};

/**
 * \return an AICB workload file: the header line (policy word, then header fields such
 * as "model_parallel_NPU_group: 8"), the layer count and one tab-separated line per layer.
 * \param header the first line without its newline
 * \param layers the layer lines
 */
std::string AicbWorkload(const std::string& header, const std::vector<AicbLayer>& layers);

/// \return the op of rank named name, or a failed test and an empty op.
const TraceOp& FindOp(const TrainingTrace& trace, uint32_t rank, const std::string& name);
/// \return how many ops of rank are of kind.
size_t Count(const TrainingTrace& trace, uint32_t rank, TraceOpKind kind);

/**
 * Expect a Chakra collective microbenchmark on 8 ranks: one collective of 1 MiB per
 * rank, in the group "world", on stream 1, without dependencies.
 * \param trace the trace read
 * \param type its collective
 * \param name the node name
 */
void ExpectMicrobenchmark(const TrainingTrace& trace, CollectiveType type, const std::string& name);

/// What a Megatron GPT workload in AICB's layout reads as: norm (forward BROADCAST of
/// 16384 B), grad_norm (forward ALLGATHER, weight-grad REDUCESCATTER), layernorm
/// (input-grad ALLREDUCE), embedding (forward ALLREDUCE), then attention (752 us) and
/// MLP (750 us) layers with TP all-reduces.
struct GptTp8Facts
{
    size_t layers{0};               ///< layer lines
    size_t collectivesPerRank{0};   ///< forward + input-grad comms of a TP-only rank
    uint64_t attentionBytes{0};     ///< TP all-reduce of layer 4 (attention)
    int64_t gradNormFwdNs{0};       ///< grad_norm forward compute
    uint64_t allGatherBytes{0};     ///< grad_norm forward ALLGATHER
    uint64_t igLayernormBytes{0};   ///< layernorm input-grad ALLREDUCE
    int64_t updateNs{0};            ///< sum of the update times
    uint64_t reduceScatterBytes{0}; ///< grad_norm weight-grad REDUCESCATTER (DP)
};

/// Expect facts read on 8 GPUs (TP 8, DP 1: the DP reduce-scatter is dropped).
/// \param trace the trace read \param f the workload's facts
void ExpectGptTp8(const TrainingTrace& trace, const GptTp8Facts& f);
/// Expect facts read on 16 GPUs (TP 8, DP 2: the DP reduce-scatter joins every rank).
/// \param trace the trace read \param f the workload's facts
void ExpectGptTp8Dp2(const TrainingTrace& trace, const GptTp8Facts& f);

/// Write text to path (binary, truncating). \return path.
std::string WriteFile(const std::string& path, const std::string& text);

} // namespace tracetest
} // namespace ns3

#endif
