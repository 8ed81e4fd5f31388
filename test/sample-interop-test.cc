// SPDX-License-Identifier: GPL-2.0-only
// Interoperability with published traces: when the samples folder beside the repository
// holds ASTRA-sim's Chakra microbenchmarks and an AICB GPT-13B workload, they read as
// the collectives and layers they describe. Without the folder every test skips with a
// message: the repository's own tests write their inputs (test/trace-encoders.h).
#include "trace-encoders.h"

#include "ns3/aicb-reader.h"
#include "ns3/chakra-reader.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;
using tracetest::Count;
using tracetest::FindOp;

namespace
{

const std::string SAMPLES = AI_FABRIC_SHARED_DIR "/samples/";
const std::string AICB_SAMPLE = "aicb/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt";

bool
Contains(const std::vector<uint32_t>& v, uint32_t x)
{
    return std::find(v.begin(), v.end(), x) != v.end();
}

class SampleInterop : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        if (!std::filesystem::is_directory(SAMPLES))
        {
            GTEST_SKIP() << "samples folder " << SAMPLES
                         << " not found: interop with the published Chakra/AICB samples not "
                            "checked";
        }
    }

    /// \return the path of a sample; fails the test if it is missing.
    static std::string Sample(const std::string& name)
    {
        std::string path = SAMPLES + name;
        EXPECT_TRUE(std::filesystem::exists(path)) << path;
        return path;
    }
};

void
ExpectChakraCollective(const std::string& prefix, CollectiveType type, const std::string& name)
{
    std::string error = "unset";
    TrainingTrace trace = ChakraTraceReader::ReadPrefix(prefix, 8, &error);
    EXPECT_EQ(error, "");
    ASSERT_EQ(trace.GetNRanks(), 8u);
    EXPECT_EQ(trace.GetNOps(), 8u);
    EXPECT_EQ(trace.GetGroup("world").ranks, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    for (uint32_t r = 0; r < 8; ++r)
    {
        ASSERT_EQ(trace.GetOps(r).size(), 1u);
        const TraceOp& op = trace.GetOps(r)[0];
        EXPECT_EQ(op.kind, TraceOpKind::COLLECTIVE);
        EXPECT_EQ(op.collective, type);
        EXPECT_EQ(op.bytes, 1048576u);
        EXPECT_EQ(op.name, name);
    }
    EXPECT_TRUE(trace.Validate());
}

TEST_F(SampleInterop, ChakraAllReduce)
{
    EXPECT_EQ(std::filesystem::file_size(Sample("chakra/all_reduce/8npus_1MB/all_reduce.0.et")),
              81u);
    ExpectChakraCollective(SAMPLES + "chakra/all_reduce/8npus_1MB/all_reduce",
                           CollectiveType::ALL_REDUCE,
                           "all_reduce_8npus_1MB");
}

TEST_F(SampleInterop, ChakraAllToAll)
{
    Sample("chakra/all_to_all/8npus_1MB/all_to_all.0.et");
    ExpectChakraCollective(SAMPLES + "chakra/all_to_all/8npus_1MB/all_to_all",
                           CollectiveType::ALL_TO_ALL,
                           "all_to_all_8npus_1MB");
}

TEST_F(SampleInterop, AicbGpt13bTp8)
{
    std::string error = "unset";
    TrainingTrace trace = AicbTraceReader::Read(Sample(AICB_SAMPLE), 8, &error);
    ASSERT_EQ(error, "");
    ASSERT_EQ(trace.GetNRanks(), 8u);
    // tp0 plus one single-rank DP group per TP index.
    EXPECT_EQ(trace.GetGroups().size(), 9u);
    EXPECT_EQ(trace.GetGroup("tp0").ranks, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(trace.GetGroup("dp3").ranks, (std::vector<uint32_t>{3}));
    for (uint32_t r = 0; r < 8; ++r)
    {
        // 92 layers x (fwd, input-grad, weight-grad) computes + the update; 91 forward
        // comms (all but layernorm's NONE) + 82 input-grad comms; grad_norm's weight-grad
        // REDUCESCATTER is dropped: its DP group has one rank.
        EXPECT_EQ(Count(trace, r, TraceOpKind::COMPUTE), 277u);
        EXPECT_EQ(Count(trace, r, TraceOpKind::COLLECTIVE), 173u);
        EXPECT_EQ(trace.GetOps(r).size(), 450u);
    }
    EXPECT_EQ(trace.GetNOps(), 3600u);
    EXPECT_EQ(trace.GetNStreams(), 2u);
    EXPECT_EQ(trace.GetNIterations(), 1u);

    // Line 7, layer 4: attention_layer 752000 ALLREDUCE 20971520 ...
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
    EXPECT_EQ(comm.bytes, 20971520u);
    EXPECT_EQ(comm.group, "tp0");
    EXPECT_EQ(comm.stream, 1u);
    EXPECT_EQ(comm.deps, (std::vector<uint32_t>{7}));
    EXPECT_EQ(ops[9].name, "fwd.l5.mlp_layer");
    EXPECT_EQ(ops[9].duration, NanoSeconds(750000));
    EXPECT_EQ(ops[9].deps, (std::vector<uint32_t>{8})); // blocked by the TP all-reduce

    // Line 3: norm, forward BROADCAST of 16384 B from TP rank 0.
    EXPECT_EQ(ops[0].duration, Seconds(0));
    EXPECT_EQ(ops[1].collective, CollectiveType::BROADCAST);
    EXPECT_EQ(ops[1].bytes, 16384u);
    EXPECT_EQ(ops[1].root, 0u);
    // Line 4: grad_norm forward ALLGATHER, 14565000 ns before it.
    EXPECT_EQ(ops[2].duration, NanoSeconds(14565000));
    EXPECT_EQ(ops[3].collective, CollectiveType::ALL_GATHER);
    EXPECT_EQ(ops[3].bytes, 3248619520u);
    // Line 5: layernorm has no forward comm, so the next compute follows it directly.
    EXPECT_EQ(ops[4].name, "fwd.l2.layernorm");
    EXPECT_EQ(ops[5].name, "fwd.l3.embedding_layer");
    EXPECT_TRUE(ops[5].deps.empty());
    // Backward starts with the last layer; the update sums 92 x 100 ns.
    EXPECT_EQ(FindOp(trace, 5, "ig.l91.optimizer4").duration, NanoSeconds(1));
    EXPECT_EQ(FindOp(trace, 5, "ig.l2.layernorm.comm").bytes, 3248619520u);
    EXPECT_EQ(ops.back().name, "update");
    EXPECT_EQ(ops.back().duration, NanoSeconds(9200));
    EXPECT_TRUE(trace.Validate());
}

TEST_F(SampleInterop, AicbGpt13bTp8Dp2)
{
    std::string error;
    TrainingTrace trace = AicbTraceReader::Read(Sample(AICB_SAMPLE), 16, &error);
    ASSERT_EQ(error, "");
    ASSERT_EQ(trace.GetNRanks(), 16u);
    EXPECT_EQ(trace.GetGroups().size(), 10u); // tp0, tp1, dp0..dp7
    EXPECT_EQ(trace.GetGroup("tp1").ranks.front(), 8u);
    EXPECT_EQ(trace.GetGroup("dp3").ranks, (std::vector<uint32_t>{3, 11}));
    EXPECT_EQ(trace.GetNOps(), 16u * 451u);
    EXPECT_EQ(trace.GetNStreams(), 3u);

    const auto& ops = trace.GetOps(11);
    const TraceOp& wgComm = FindOp(trace, 11, "wg.l1.grad_norm.comm");
    EXPECT_EQ(wgComm.collective, CollectiveType::REDUCE_SCATTER);
    EXPECT_EQ(wgComm.bytes, 6497239040u);
    EXPECT_EQ(wgComm.group, "dp3");
    EXPECT_EQ(wgComm.stream, 2u);
    ASSERT_EQ(wgComm.deps.size(), 1u);
    EXPECT_EQ(ops[wgComm.deps[0]].name, "wg.l1.grad_norm");
    // The next backward compute does not wait for it; the update does.
    const TraceOp& next = ops[wgComm.id + 1];
    EXPECT_EQ(next.name, "ig.l0.norm");
    EXPECT_FALSE(Contains(next.deps, wgComm.id));
    EXPECT_TRUE(Contains(ops.back().deps, wgComm.id));
    EXPECT_TRUE(trace.Validate());
}

} // namespace
