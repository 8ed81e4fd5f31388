// SPDX-License-Identifier: GPL-2.0-only
// SimAI / AICB workload text: the shared GPT-13B sample becomes one iteration with the
// layer times, comm sizes and groups of its lines; malformed files stop with
// "file:line: reason".
#include "ns3/aicb-reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const std::string SAMPLE =
    AI_FABRIC_SHARED_DIR "/samples/aicb/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt";

/// The op of rank named name, or a failed test.
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

/// Ops of a rank of a kind.
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

bool
Contains(const std::vector<uint32_t>& v, uint32_t x)
{
    return std::find(v.begin(), v.end(), x) != v.end();
}

class AicbReader : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = std::filesystem::path(::testing::TempDir()) /
                ("aicb-reader-" + std::to_string(::getpid()) + "-" + info->name());
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir);
    }

    void TearDown() override
    {
        std::filesystem::remove_all(m_dir);
    }

    std::string Write(const std::string& name, const std::string& text)
    {
        std::string path = (m_dir / name).string();
        std::ofstream(path) << text;
        return path;
    }

    /// Read text expecting failure with a message holding "file:line:" and every reason.
    void ExpectError(const std::string& name,
                     const std::string& text,
                     uint32_t nRanks,
                     int line,
                     const std::vector<std::string>& reasons)
    {
        std::string file = Write(name, text);
        std::string error;
        TrainingTrace trace = AicbTraceReader::Read(file, nRanks, &error);
        EXPECT_EQ(trace.GetNRanks(), 0u);
        std::string where = file + (line > 0 ? ":" + std::to_string(line) + ":" : ":");
        EXPECT_EQ(error.find(where), 0u) << "'" << where << "' does not start: " << error;
        for (const std::string& r : reasons)
        {
            EXPECT_NE(error.find(r), std::string::npos) << "'" << r << "' not in: " << error;
        }
    }

    std::filesystem::path m_dir;
};

const std::string HEADER = "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 2 "
                           "checkpoints: 0 checkpoint_initiates: 0\n";
const std::string LAYER = "attention\t-1\t752000\tALLREDUCE\t1024\t752000\tALLREDUCE\t1024\t"
                          "752000\tNONE\t0\t100\n";

TEST_F(AicbReader, Gpt13bTp8)
{
    std::string error = "unset";
    TrainingTrace trace = AicbTraceReader::Read(SAMPLE, 8, &error);
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

TEST_F(AicbReader, Gpt13bTp8Dp2)
{
    std::string error;
    TrainingTrace trace = AicbTraceReader::Read(SAMPLE, 16, &error);
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

TEST_F(AicbReader, ExpertParallelGroups)
{
    std::string file = Write(
        "moe.txt",
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 2 pp: 1 all_gpus: 8\n"
        "2\n"
        "moe -1 100 ALLTOALL_EP 4096 200 ALLREDUCEALLTOALL 8192 300 ALLGATHER_DP_EP 1024 10\n"
        "dense -1 100 ALLREDUCE 2048 200 NONE 0 300 REDUCESCATTER 4096 20\n");
    std::string error;
    TrainingTrace trace = AicbTraceReader::Read(file, 0, &error); // all_gpus: 8
    ASSERT_EQ(error, "");
    ASSERT_EQ(trace.GetNRanks(), 8u);
    // Rank 5: TP index 1, replica 2 of 4; experts in pairs of replicas.
    EXPECT_EQ(trace.GetGroup("tp2").ranks, (std::vector<uint32_t>{4, 5}));
    EXPECT_EQ(trace.GetGroup("dp1").ranks, (std::vector<uint32_t>{1, 3, 5, 7}));
    EXPECT_EQ(trace.GetGroup("ep1_1").ranks, (std::vector<uint32_t>{5, 7}));
    EXPECT_EQ(trace.GetGroup("edp1_0").ranks, (std::vector<uint32_t>{1, 5}));
    const TraceOp& dispatch = FindOp(trace, 5, "fwd.l0.moe.comm");
    EXPECT_EQ(dispatch.collective, CollectiveType::ALL_TO_ALL);
    EXPECT_EQ(dispatch.group, "ep1_1");
    EXPECT_EQ(dispatch.bytes, 4096u);
    const TraceOp& combine = FindOp(trace, 5, "ig.l0.moe.comm");
    EXPECT_EQ(combine.collective, CollectiveType::ALL_TO_ALL);
    EXPECT_EQ(combine.group, "ep1_1");
    EXPECT_EQ(combine.stream, 1u);
    const TraceOp& expertGrads = FindOp(trace, 5, "wg.l0.moe.comm");
    EXPECT_EQ(expertGrads.collective, CollectiveType::ALL_GATHER);
    EXPECT_EQ(expertGrads.group, "edp1_0");
    EXPECT_EQ(expertGrads.stream, 2u);
    EXPECT_EQ(FindOp(trace, 5, "wg.l1.dense.comm").group, "dp1");
    EXPECT_EQ(trace.GetOps(5).back().duration, NanoSeconds(30));
    EXPECT_TRUE(trace.Validate());
}

// ------------------------------------------------------------------- malformed corpus

TEST_F(AicbReader, NegativeSize)
{
    ExpectError("neg.txt",
                HEADER + "1\nattention -1 752000 ALLREDUCE -5 1 NONE 0 1 NONE 0 1\n",
                2,
                3,
                {"field 5 (forward comm bytes) is negative: -5"});
    ExpectError("negtime.txt",
                HEADER + "1\nattention -1 -752000 ALLREDUCE 5 1 NONE 0 1 NONE 0 1\n",
                2,
                3,
                {"field 3 (forward compute time) is negative"});
}

TEST_F(AicbReader, WrongFieldCount)
{
    ExpectError("fields.txt",
                HEADER + "2\n" + LAYER + "mlp -1 750000 ALLREDUCE 1024 750000 NONE 0 1 NONE 0\n",
                2,
                4,
                {"expected 12 fields in a layer line, found 11"});
}

TEST_F(AicbReader, UnknownCommType)
{
    ExpectError("comm.txt",
                HEADER + "1\nattention -1 1 ALLREDUCEX 1024 1 NONE 0 1 NONE 0 1\n",
                2,
                3,
                {"field 4 (forward comm type): unknown comm type 'ALLREDUCEX'"});
    ExpectError("comm2.txt",
                HEADER + "1\nattention -1 1 NONE 0 1 NONE 0 1 GATHER_DP 0 1\n",
                2,
                3,
                {"field 10 (weight-grad comm type): unknown comm type 'GATHER_DP'"});
}

TEST_F(AicbReader, NonNumericField)
{
    ExpectError("nan.txt",
                HEADER + "1\nattention -1 75x ALLREDUCE 1024 1 NONE 0 1 NONE 0 1\n",
                2,
                3,
                {"field 3 (forward compute time) '75x' is not an integer"});
    ExpectError("header.txt",
                "HYBRID_TRANSFORMER model_parallel_NPU_group: eight\n1\n" + LAYER,
                8,
                1,
                {"header value of 'model_parallel_NPU_group' is not a non-negative integer"});
}

TEST_F(AicbReader, MissingLayerCount)
{
    ExpectError("noline2.txt", HEADER + LAYER, 2, 2, {"line 2 must be the number of layer lines"});
    ExpectError("headeronly.txt", HEADER, 2, 2, {"missing line 2"});
    ExpectError("empty.txt", "", 2, 1, {"empty file"});
}

TEST_F(AicbReader, LayerCountMismatch)
{
    ExpectError("fewer.txt",
                HEADER + "3\n" + LAYER,
                2,
                4,
                {"truncated: the file ends after 1 of the 3 layer lines announced on line 2"});
    ExpectError("more.txt", HEADER + "1\n" + LAYER + LAYER, 2, 4, {"more layer lines than the 1"});
}

TEST_F(AicbReader, BadParallelism)
{
    ExpectError(
        "tp.txt", HEADER + "1\n" + LAYER, 5, 1, {"TP size 2", "does not divide the 5 GPUs"});
    ExpectError("pp.txt",
                "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 pp: 2\n1\n" + LAYER,
                8,
                1,
                {"pp > 1 is not supported by this reader"});
    ExpectError("ep.txt",
                "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 3\n1\n" + LAYER,
                8,
                1,
                {"ep 3 does not divide the 4 data-parallel replicas"});
    ExpectError("notp.txt", "DATA all_gpus: 8\n1\n" + LAYER, 0, 1, {"model_parallel_NPU_group"});
    ExpectError("nogpus.txt", HEADER + "1\n" + LAYER, 0, 1, {"has no all_gpus"});
}

TEST_F(AicbReader, MissingFile)
{
    std::string file = (m_dir / "absent.txt").string();
    std::string error;
    EXPECT_EQ(AicbTraceReader::Read(file, 8, &error).GetNRanks(), 0u);
    EXPECT_EQ(error, file + ": cannot open the file");
}

} // namespace
