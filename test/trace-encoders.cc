// SPDX-License-Identifier: GPL-2.0-only
#include "trace-encoders.h"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace ns3
{
namespace tracetest
{

std::string
Varint(uint64_t v)
{
    std::string s;
    while (v >= 0x80)
    {
        s += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    return s + static_cast<char>(v);
}

std::string
Tag(uint32_t field, uint32_t wire)
{
    return Varint((static_cast<uint64_t>(field) << 3) | wire);
}

std::string
Var(uint32_t field, uint64_t v)
{
    return Tag(field, 0) + Varint(v);
}

std::string
Len(uint32_t field, const std::string& payload)
{
    return Tag(field, 2) + Varint(payload.size()) + payload;
}

std::string
Fixed(uint32_t field, uint64_t v, size_t width)
{
    std::string s = Tag(field, width == 8 ? 1 : 5);
    for (size_t i = 0; i < width; ++i)
    {
        s += static_cast<char>((v >> (8 * i)) & 0xff);
    }
    return s;
}

std::string
Message(const std::string& m)
{
    return Varint(m.size()) + m;
}

std::string
ChakraMetadata(const std::string& version)
{
    return Message(Len(1, version));
}

std::string
ChakraAttr(const std::string& name, const std::string& valueField)
{
    return Len(10, Len(1, name) + valueField);
}

std::string
ChakraNodeHead(uint64_t id, const std::string& name, uint64_t type)
{
    return (id != 0 ? Var(1, id) : "") + Len(2, name) + Var(3, type);
}

std::string
ChakraPackedDeps(const std::vector<uint64_t>& deps)
{
    std::string payload;
    for (uint64_t d : deps)
    {
        payload += Varint(d);
    }
    return Len(5, payload);
}

std::string
ChakraCollective(uint64_t id,
                 uint64_t commType,
                 uint64_t bytes,
                 const std::string& extra,
                 const std::string& name)
{
    // int64_val is field 9 of AttributeProto.
    return Message(ChakraNodeHead(id, name, CHAKRA_COMM_COLL) +
                   ChakraAttr("comm_type", Var(9, commType)) +
                   ChakraAttr("comm_size", Var(9, bytes)) + extra);
}

std::vector<std::string>
WriteChakraCollective(const std::string& prefix,
                      uint32_t ranks,
                      uint64_t commType,
                      uint64_t bytes,
                      const std::string& name)
{
    std::vector<std::string> files;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        // is_cpu_op false (bool_val, field 27), as the generator writes it.
        files.push_back(WriteFile(
            prefix + "." + std::to_string(r) + ".et",
            ChakraMetadata() +
                ChakraCollective(0, commType, bytes, ChakraAttr("is_cpu_op", Var(27, 0)), name)));
    }
    return files;
}

std::string
AicbWorkload(const std::string& header, const std::vector<AicbLayer>& layers)
{
    std::ostringstream out;
    out << header << "\n" << layers.size() << "\n";
    for (const AicbLayer& l : layers)
    {
        out << l.name << "\t-1\t" << l.fwdNs << "\t" << l.fwdComm << "\t" << l.fwdBytes << "\t"
            << l.igNs << "\t" << l.igComm << "\t" << l.igBytes << "\t" << l.wgNs << "\t" << l.wgComm
            << "\t" << l.wgBytes << "\t" << l.updateNs << "\n";
    }
    return out.str();
}

const TraceOp&
FindOp(const TrainingTrace& trace, uint32_t rank, const std::string& name)
{
    static const TraceOp NONE;
    for (const TraceOp& op : trace.GetOps(rank))
    {
        if (op.name == name)
        {
            return op;
        }
    }
    ADD_FAILURE() << "rank " << rank << " has no op " << name;
    return NONE;
}

size_t
Count(const TrainingTrace& trace, uint32_t rank, TraceOpKind kind)
{
    size_t n = 0;
    for (const TraceOp& op : trace.GetOps(rank))
    {
        n += op.kind == kind ? 1 : 0;
    }
    return n;
}

void
ExpectMicrobenchmark(const TrainingTrace& trace, CollectiveType type, const std::string& name)
{
    ASSERT_EQ(trace.GetNRanks(), 8u);
    EXPECT_EQ(trace.GetNOps(), 8u);
    ASSERT_EQ(trace.GetGroups().size(), 1u);
    EXPECT_EQ(trace.GetGroup("world").ranks, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    for (uint32_t r = 0; r < 8; ++r)
    {
        ASSERT_EQ(trace.GetOps(r).size(), 1u);
        const TraceOp& op = trace.GetOps(r)[0];
        EXPECT_EQ(op.kind, TraceOpKind::COLLECTIVE);
        EXPECT_EQ(op.collective, type);
        EXPECT_EQ(op.bytes, 1048576u); // comm_size: int64 varint 80 80 40
        EXPECT_EQ(op.group, "world");
        EXPECT_EQ(op.stream, 1u);
        EXPECT_TRUE(op.deps.empty());
        EXPECT_EQ(op.name, name);
    }
    EXPECT_TRUE(trace.Validate());
}

void
ExpectGptTp8(const TrainingTrace& trace, const GptTp8Facts& f)
{
    ASSERT_EQ(trace.GetNRanks(), 8u);
    // tp0 plus one single-rank DP group per TP index.
    EXPECT_EQ(trace.GetGroups().size(), 9u);
    EXPECT_EQ(trace.GetGroup("tp0").ranks, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(trace.GetGroup("dp3").ranks, (std::vector<uint32_t>{3}));
    const size_t computes = 3 * f.layers + 1; // fwd, input-grad, weight-grad + the update
    for (uint32_t r = 0; r < 8; ++r)
    {
        // grad_norm's weight-grad REDUCESCATTER is dropped: its DP group has one rank.
        EXPECT_EQ(Count(trace, r, TraceOpKind::COMPUTE), computes);
        EXPECT_EQ(Count(trace, r, TraceOpKind::COLLECTIVE), f.collectivesPerRank);
        EXPECT_EQ(trace.GetOps(r).size(), computes + f.collectivesPerRank);
    }
    EXPECT_EQ(trace.GetNOps(), 8 * (computes + f.collectivesPerRank));
    EXPECT_EQ(trace.GetNStreams(), 2u);
    EXPECT_EQ(trace.GetNIterations(), 1u);

    // Layer 4 (attention): norm 2 ops, grad_norm 2, layernorm 1, embedding 2 before it.
    const auto& ops = trace.GetOps(5);
    const TraceOp& attention = FindOp(trace, 5, "fwd.l4.attention_layer");
    EXPECT_EQ(attention.id, 7u);
    EXPECT_EQ(attention.duration, NanoSeconds(752000));
    EXPECT_EQ(attention.stream, 0u);
    EXPECT_EQ(attention.deps, (std::vector<uint32_t>{6})); // embedding's forward all-reduce
    const TraceOp& comm = ops[8];
    EXPECT_EQ(comm.name, "fwd.l4.attention_layer.comm");
    EXPECT_EQ(comm.kind, TraceOpKind::COLLECTIVE);
    EXPECT_EQ(comm.collective, CollectiveType::ALL_REDUCE);
    EXPECT_EQ(comm.bytes, f.attentionBytes);
    EXPECT_EQ(comm.group, "tp0");
    EXPECT_EQ(comm.stream, 1u);
    EXPECT_EQ(comm.deps, (std::vector<uint32_t>{7}));
    EXPECT_EQ(ops[9].name, "fwd.l5.mlp_layer");
    EXPECT_EQ(ops[9].duration, NanoSeconds(750000));
    EXPECT_EQ(ops[9].deps, (std::vector<uint32_t>{8})); // blocked by the TP all-reduce

    // norm: forward BROADCAST of 16384 B from TP rank 0 after a 0 ns compute.
    EXPECT_EQ(ops[0].duration, Seconds(0));
    EXPECT_EQ(ops[1].collective, CollectiveType::BROADCAST);
    EXPECT_EQ(ops[1].bytes, 16384u);
    EXPECT_EQ(ops[1].root, 0u);
    // grad_norm: forward ALLGATHER after its compute.
    EXPECT_EQ(ops[2].duration, NanoSeconds(f.gradNormFwdNs));
    EXPECT_EQ(ops[3].collective, CollectiveType::ALL_GATHER);
    EXPECT_EQ(ops[3].bytes, f.allGatherBytes);
    // layernorm has no forward comm, so the next compute follows it directly.
    EXPECT_EQ(ops[4].name, "fwd.l2.layernorm");
    EXPECT_EQ(ops[5].name, "fwd.l3.embedding_layer");
    EXPECT_TRUE(ops[5].deps.empty());
    // Backward runs the layers in reverse; the update sums the update times.
    EXPECT_EQ(FindOp(trace, 5, "ig.l2.layernorm.comm").bytes, f.igLayernormBytes);
    EXPECT_EQ(ops.back().name, "update");
    EXPECT_EQ(ops.back().duration, NanoSeconds(f.updateNs));
    EXPECT_TRUE(trace.Validate());
}

void
ExpectGptTp8Dp2(const TrainingTrace& trace, const GptTp8Facts& f)
{
    auto contains = [](const std::vector<uint32_t>& v, uint32_t x) {
        return std::find(v.begin(), v.end(), x) != v.end();
    };
    ASSERT_EQ(trace.GetNRanks(), 16u);
    EXPECT_EQ(trace.GetGroups().size(), 10u); // tp0, tp1, dp0..dp7
    EXPECT_EQ(trace.GetGroup("tp1").ranks.front(), 8u);
    EXPECT_EQ(trace.GetGroup("dp3").ranks, (std::vector<uint32_t>{3, 11}));
    // The DP reduce-scatter joins every rank's ops.
    EXPECT_EQ(trace.GetNOps(), 16 * (3 * f.layers + 1 + f.collectivesPerRank + 1));
    EXPECT_EQ(trace.GetNStreams(), 3u);

    const auto& ops = trace.GetOps(11);
    const TraceOp& wgComm = FindOp(trace, 11, "wg.l1.grad_norm.comm");
    EXPECT_EQ(wgComm.collective, CollectiveType::REDUCE_SCATTER);
    EXPECT_EQ(wgComm.bytes, f.reduceScatterBytes);
    EXPECT_EQ(wgComm.group, "dp3");
    EXPECT_EQ(wgComm.stream, 2u);
    ASSERT_EQ(wgComm.deps.size(), 1u);
    EXPECT_EQ(ops[wgComm.deps[0]].name, "wg.l1.grad_norm");
    // The next backward compute does not wait for it; the update does.
    const TraceOp& next = ops[wgComm.id + 1];
    EXPECT_EQ(next.name, "ig.l0.norm");
    EXPECT_FALSE(contains(next.deps, wgComm.id));
    EXPECT_TRUE(contains(ops.back().deps, wgComm.id));
    EXPECT_TRUE(trace.Validate());
}

std::string
WriteFile(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    return path;
}

} // namespace tracetest
} // namespace ns3
