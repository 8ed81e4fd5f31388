// SPDX-License-Identifier: GPL-2.0-only
// SimAI / AICB workload text: a GPT-like workload written by the test becomes one iteration with
// the layer times, comm sizes and groups of its lines; a line 2 that disagrees with the file warns
// and the lines present run; pp > 1 files become pipelines (sends per stage boundary, the GPipe
// bubble in closed form) or are refused naming the field; malformed files stop with "file:line:
// reason".
#include "test-dir.h"
#include "trace-encoders.h"

#include "ns3/aicb-reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

using tracetest::Count;
using tracetest::FindOp;

bool
Contains(const std::vector<uint32_t>& v, uint32_t x)
{
    return std::find(v.begin(), v.end(), x) != v.end();
}

/**
 * Finish time of every rank when compute takes its duration and communication none:
 * an op starts once its deps and the earlier ops of its stream are done; a collective
 * ends when every member has started its k-th collective on the group, a SEND or RECV
 * when its partner has started. Fails the test if the trace cannot finish (deadlock).
 */
std::vector<int64_t>
ZeroCommFinish(const TrainingTrace& trace)
{
    const uint32_t n = trace.GetNRanks();
    std::vector<std::vector<int64_t>> start(n), end(n);
    std::vector<std::vector<uint64_t>> seq(n); // k of a collective on its group, or of a p2p
    for (uint32_t r = 0; r < n; ++r)
    {
        const auto& ops = trace.GetOps(r);
        start[r].assign(ops.size(), -1);
        end[r].assign(ops.size(), -1);
        std::map<std::string, uint64_t> count;
        for (const TraceOp& op : ops)
        {
            std::string key = op.kind == TraceOpKind::COLLECTIVE
                                  ? "c" + op.group
                                  : TraceOpKindToString(op.kind) + std::to_string(op.peer);
            seq[r].push_back(count[key]++);
        }
    }
    // The op of rank r that is the k-th of its kind with key.
    auto partner = [&](uint32_t r, TraceOpKind kind, const std::string& key, uint64_t k) {
        const auto& ops = trace.GetOps(r);
        for (size_t i = 0; i < ops.size(); ++i)
        {
            std::string own = ops[i].kind == TraceOpKind::COLLECTIVE ? ops[i].group.str()
                                                                     : std::to_string(ops[i].peer);
            if (ops[i].kind == kind && own == key && seq[r][i] == k)
            {
                return static_cast<int64_t>(i);
            }
        }
        return int64_t{-1};
    };
    for (bool progress = true; progress;)
    {
        progress = false;
        for (uint32_t r = 0; r < n; ++r)
        {
            const auto& ops = trace.GetOps(r);
            for (size_t i = 0; i < ops.size(); ++i)
            {
                if (start[r][i] < 0)
                {
                    int64_t t = 0;
                    bool ready = true;
                    for (uint32_t d : ops[i].deps)
                    {
                        ready = ready && end[r][d] >= 0;
                        t = std::max(t, end[r][d]);
                    }
                    for (size_t j = 0; j < i; ++j)
                    {
                        if (ops[j].stream == ops[i].stream)
                        {
                            ready = ready && end[r][j] >= 0;
                            t = std::max(t, end[r][j]);
                        }
                    }
                    if (ready)
                    {
                        start[r][i] = t;
                        progress = true;
                    }
                }
                if (start[r][i] < 0 || end[r][i] >= 0)
                {
                    continue;
                }
                int64_t finish = start[r][i];
                const TraceOp& op = ops[i];
                if (op.kind == TraceOpKind::COMPUTE)
                {
                    finish += op.duration.GetNanoSeconds();
                }
                else if (op.kind == TraceOpKind::COLLECTIVE)
                {
                    for (uint32_t m : trace.GetGroup(op.group).ranks)
                    {
                        int64_t j = partner(m, op.kind, op.group, seq[r][i]);
                        finish = j < 0 || start[m][j] < 0 ? -1 : std::max(finish, start[m][j]);
                        if (finish < 0)
                        {
                            break;
                        }
                    }
                }
                else
                {
                    TraceOpKind other =
                        op.kind == TraceOpKind::SEND ? TraceOpKind::RECV : TraceOpKind::SEND;
                    int64_t j = partner(op.peer, other, std::to_string(r), seq[r][i]);
                    finish =
                        j < 0 || start[op.peer][j] < 0 ? -1 : std::max(finish, start[op.peer][j]);
                }
                if (finish >= 0)
                {
                    end[r][i] = finish;
                    progress = true;
                }
            }
        }
    }
    std::vector<int64_t> last(n, 0);
    for (uint32_t r = 0; r < n; ++r)
    {
        for (size_t i = 0; i < end[r].size(); ++i)
        {
            EXPECT_GE(end[r][i], 0)
                << "rank " << r << " op " << trace.GetOps(r)[i].name << " never finishes";
            last[r] = std::max(last[r], end[r][i]);
        }
    }
    return last;
}

class AicbReader : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        m_dir = std::filesystem::path(aifabric::TestDir()) / "aicb";
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

/// A GPT-like workload: the embedding and norm layers of a Megatron model, then
/// `blocks` transformer blocks (attention + MLP, TP all-reduce in forward and input-grad).
std::vector<tracetest::AicbLayer>
GptLikeLayers(int blocks)
{
    std::vector<tracetest::AicbLayer> layers = {
        {"norm", 0, "BROADCAST", 16384, 1, "NONE", 0, 1, "NONE", 0, 100},
        {"grad_norm",
         14000000,
         "ALLGATHER",
         3000000000,
         13000000,
         "NONE",
         0,
         1,
         "REDUCESCATTER",
         6000000000,
         100},
        {"layernorm", 1, "NONE", 0, 1, "ALLREDUCE", 3000000000, 1, "NONE", 0, 100},
        {"embedding_layer", 500000, "ALLREDUCE", 20000000, 500000, "NONE", 0, 1, "NONE", 0, 100},
    };
    for (int b = 0; b < blocks; ++b)
    {
        layers.push_back({"attention_layer",
                          752000,
                          "ALLREDUCE",
                          20971520,
                          752000,
                          "ALLREDUCE",
                          20971520,
                          1,
                          "NONE",
                          0,
                          100});
        layers.push_back({"mlp_layer",
                          750000,
                          "ALLREDUCE",
                          20971520,
                          750000,
                          "ALLREDUCE",
                          20971520,
                          1,
                          "NONE",
                          0,
                          100});
    }
    return layers;
}

const std::string GPT_HEADER = "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 8 "
                               "checkpoints: 0 checkpoint_initiates: 0";

/// The facts of GptLikeLayers(4): 12 layer lines, 11 forward and 9 input-grad comms.
tracetest::GptTp8Facts
GptLikeFacts()
{
    tracetest::GptTp8Facts f;
    f.layers = 12;
    f.collectivesPerRank = 11 + 9;
    f.attentionBytes = 20971520;
    f.gradNormFwdNs = 14000000;
    f.allGatherBytes = 3000000000;
    f.igLayernormBytes = 3000000000;
    f.updateNs = 12 * 100;
    f.reduceScatterBytes = 6000000000;
    return f;
}

TEST_F(AicbReader, GptLikeTp8)
{
    const auto layers = GptLikeLayers(4);
    std::string file = Write("gpt.txt", tracetest::AicbWorkload(GPT_HEADER, layers));
    std::string error = "unset";
    TrainingTrace trace = AicbTraceReader::Read(file, 8, &error);
    ASSERT_EQ(error, "");
    // The facts follow from the layer lines written.
    const tracetest::GptTp8Facts f = GptLikeFacts();
    size_t comms = 0;
    int64_t update = 0;
    for (const auto& l : layers)
    {
        comms += (l.fwdComm != "NONE" ? 1 : 0) + (l.igComm != "NONE" ? 1 : 0);
        update += l.updateNs;
    }
    ASSERT_EQ(layers.size(), f.layers);
    ASSERT_EQ(comms, f.collectivesPerRank);
    ASSERT_EQ(update, f.updateNs);
    tracetest::ExpectGptTp8(trace, f);
    // Backward starts with the last layer line.
    EXPECT_EQ(FindOp(trace, 5, "ig.l11.mlp_layer").duration, NanoSeconds(750000));
}

TEST_F(AicbReader, GptLikeTp8Dp2)
{
    std::string file = Write("gpt.txt", tracetest::AicbWorkload(GPT_HEADER, GptLikeLayers(4)));
    std::string error;
    TrainingTrace trace = AicbTraceReader::Read(file, 16, &error);
    ASSERT_EQ(error, "");
    tracetest::ExpectGptTp8Dp2(trace, GptLikeFacts());
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

TEST_F(AicbReader, NoLayerLines)
{
    ExpectError("nolayers.txt", HEADER + "3\n\n", 2, 3, {"no layer lines"});
}

// ----------------------------------------------------- line 2 disagreeing with the file

// AICB's published Llama-65B file says 839 on line 2 and holds 33 layer lines: it runs
// with the 33, and the warning names the file, line 2 and both counts.
TEST_F(AicbReader, LayerCountDisagreesWithLine2)
{
    std::string lines;
    for (int i = 0; i < 33; ++i)
    {
        lines += "layer" + std::to_string(i) +
                 " -1 100 ALLREDUCE 1024 200 ALLREDUCE 1024 300 NONE 0 10\n";
    }
    std::string file = Write("l65b.txt", HEADER + "839\n" + lines);
    std::string error = "unset";
    std::ostringstream warnings;
    TrainingTrace trace = AicbTraceReader::Read(file, 2, &error, &warnings);
    EXPECT_EQ(error, "");
    ASSERT_EQ(trace.GetNRanks(), 2u);
    EXPECT_EQ(warnings.str(),
              "warning: " + file +
                  ":2: line 2 announces 839 layer lines but the file holds 33 (lines 3 to 35); "
                  "reading the 33 present\n");
    // 33 x (fwd, ig, wg) + update computes; 33 x (fwd, ig) TP all-reduces.
    EXPECT_EQ(Count(trace, 1, TraceOpKind::COMPUTE), 100u);
    EXPECT_EQ(Count(trace, 1, TraceOpKind::COLLECTIVE), 66u);
    EXPECT_EQ(FindOp(trace, 1, "fwd.l32.layer32").duration, NanoSeconds(100));
    EXPECT_EQ(trace.GetOps(1).back().duration, NanoSeconds(330));

    // More lines than line 2 says: all of them are read.
    file = Write("more.txt", HEADER + "1\n" + LAYER + "\n" + LAYER + LAYER);
    warnings.str("");
    trace = AicbTraceReader::Read(file, 2, &error, &warnings);
    EXPECT_EQ(error, "");
    EXPECT_EQ(Count(trace, 0, TraceOpKind::COMPUTE), 10u);
    EXPECT_EQ(warnings.str(),
              "warning: " + file +
                  ":2: line 2 announces 1 layer lines but the file holds 3 (lines 3 to 6); "
                  "reading the 3 present\n");

    // A file that agrees with its line 2 warns nothing; no stream is fine too.
    file = Write("agree.txt", HEADER + "2\n" + LAYER + LAYER);
    warnings.str("");
    EXPECT_EQ(AicbTraceReader::Read(file, 2, &error, &warnings).GetNRanks(), 2u);
    EXPECT_EQ(warnings.str(), "");
    EXPECT_EQ(AicbTraceReader::Read(file, 2, &error).GetNRanks(), 2u);
}

TEST_F(AicbReader, BadParallelism)
{
    ExpectError("tp.txt",
                HEADER + "1\n" + LAYER,
                5,
                1,
                {"TP size 2", "does not divide the 5 GPUs"});
    ExpectError("tppp.txt",
                "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 pp: 2 pp_comm: 8\n"
                "1\n" +
                    LAYER,
                6,
                1,
                {"TP size 2 (model_parallel_NPU_group) times pp: 2 does not divide the 6 GPUs"});
    ExpectError("ep.txt",
                "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 3\n1\n" + LAYER,
                8,
                1,
                {"ep 3 does not divide the 4 data-parallel replicas"});
    ExpectError("notp.txt", "DATA all_gpus: 8\n1\n" + LAYER, 0, 1, {"model_parallel_NPU_group"});
    ExpectError("nogpus.txt", HEADER + "1\n" + LAYER, 0, 1, {"has no all_gpus"});
}

// ------------------------------------------------------------------------ pipelines

/// A pipelined file as AICB writes it: a once-per-iteration line, ga copies of one
/// micro-batch's two lines, a once-per-iteration line at the end.
std::string
PipelinedFile(const std::string& header, int ga)
{
    std::string text = header + "\n" + std::to_string(2 + 2 * ga) + "\n" +
                       "grad_gather -1 10 NONE 0 20 NONE 0 30 ALLGATHER 1000 0\n";
    for (int m = 0; m < ga; ++m)
    {
        text += "attention_layer -1 100 ALLREDUCE 2048 200 ALLREDUCE 2048 300 NONE 0 0\n"
                "mlp_layer -1 50 ALLREDUCE 2048 60 ALLREDUCE 2048 70 NONE 0 0\n";
    }
    return text + "optimizer1 -1 5 ALLREDUCE 4 6 NONE 0 7 NONE 0 40\n";
}

// TP 2, pp 2, 8 GPUs (D = 2), ga 3: every (d, t) pair of stages exchanges 3 activation
// sends forward and 3 gradient sends backward, pp_comm bytes each, placed around the
// micro-batch blocks (lines 4-5, 6-7, 8-9).
TEST_F(AicbReader, PipelineStages)
{
    // pp_comm as AICB writes it with sequence parallelism: a float.
    const std::string header = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 "
                               "ep: 1 pp: 2 vpp: 1 ga: 3 all_gpus: 8 checkpoints: 0 "
                               "checkpoint_initiates: 0 pp_comm: 2097152.0";
    std::string file = Write("pp2.txt", PipelinedFile(header, 3));
    std::string error = "unset";
    std::ostringstream warnings;
    TrainingTrace trace = AicbTraceReader::Read(file, 0, &error, &warnings);
    ASSERT_EQ(error, "");
    EXPECT_EQ(warnings.str(), "");
    ASSERT_EQ(trace.GetNRanks(), 8u);
    // rank = (p * D + d) * T + t: rank 5 is t 1, d 0, stage 1.
    EXPECT_EQ(trace.GetGroup("tp2").ranks, (std::vector<uint32_t>{4, 5}));
    EXPECT_EQ(trace.GetGroup("dp3").ranks, (std::vector<uint32_t>{5, 7}));
    EXPECT_EQ(trace.GetGroup("dp1").ranks, (std::vector<uint32_t>{1, 3}));
    EXPECT_EQ(trace.GetGroup("pp1").ranks, (std::vector<uint32_t>{1, 5}));
    EXPECT_EQ(trace.GetGroup("pp3").ranks, (std::vector<uint32_t>{3, 7}));
    EXPECT_EQ(trace.GetGroups().size(), 12u); // 4 tp, 4 dp, 4 pp
    uint64_t sends = 0;
    uint64_t bytes = 0;
    for (uint32_t r = 0; r < 8; ++r)
    {
        // 8 lines x 3 computes + update; 6 block lines x 2 TP all-reduces, the DP
        // all-gather and the optimizer's TP all-reduce; ga sends and ga receives.
        EXPECT_EQ(Count(trace, r, TraceOpKind::COMPUTE), 25u);
        EXPECT_EQ(Count(trace, r, TraceOpKind::COLLECTIVE), 14u);
        EXPECT_EQ(Count(trace, r, TraceOpKind::SEND), 3u);
        EXPECT_EQ(Count(trace, r, TraceOpKind::RECV), 3u);
        for (const TraceOp& op : trace.GetOps(r))
        {
            if (op.kind == TraceOpKind::SEND)
            {
                ++sends;
                bytes += op.bytes;
                EXPECT_EQ(op.peer, r < 4 ? r + 4 : r - 4) << op.name;
            }
        }
    }
    // 4 stage boundaries (one per (d, t)) x ga x 2 directions.
    EXPECT_EQ(sends, 24u);
    EXPECT_EQ(bytes, 24u * 2097152u);

    // Stage 0 (rank 1): micro-batch 0's activations leave after line 5's mlp and its
    // all-reduce; micro-batch 2's gradients arrive before line 9's backward.
    const auto& first = trace.GetOps(1);
    const TraceOp& send = FindOp(trace, 1, "fwd.mb0.send");
    EXPECT_EQ(send.stream, 3u);
    EXPECT_EQ(send.bytes, 2097152u);
    EXPECT_EQ(send.deps,
              (std::vector<uint32_t>{FindOp(trace, 1, "fwd.l2.mlp_layer").id,
                                     FindOp(trace, 1, "fwd.l2.mlp_layer.comm").id}));
    EXPECT_EQ(first[send.id + 1].name, "fwd.l3.attention_layer");
    const TraceOp& gradIn = FindOp(trace, 1, "bwd.mb2.recv");
    EXPECT_EQ(gradIn.stream, 6u);
    EXPECT_EQ(gradIn.peer, 5u);
    EXPECT_TRUE(Contains(FindOp(trace, 1, "ig.l6.mlp_layer").deps, gradIn.id));
    EXPECT_EQ(Count(trace, 1, TraceOpKind::RECV), 3u);
    // Stage 1 (rank 5): activations arrive before each block; gradients leave after it.
    const TraceOp& actIn = FindOp(trace, 5, "fwd.mb1.recv");
    EXPECT_EQ(actIn.stream, 4u);
    EXPECT_EQ(actIn.peer, 1u);
    EXPECT_TRUE(Contains(FindOp(trace, 5, "fwd.l3.attention_layer").deps, actIn.id));
    const TraceOp& gradOut = FindOp(trace, 5, "bwd.mb0.send");
    EXPECT_EQ(gradOut.stream, 5u);
    EXPECT_EQ(gradOut.peer, 1u);
    EXPECT_EQ(gradOut.deps.front(), FindOp(trace, 5, "wg.l1.attention_layer").id);
    EXPECT_EQ(trace.GetOps(5)[gradOut.id + 1].name, "ig.l0.grad_gather");
    // The once-per-iteration lines run on every stage, without pipeline traffic.
    EXPECT_EQ(FindOp(trace, 5, "wg.l0.grad_gather.comm").group, "dp3");
    EXPECT_TRUE(FindOp(trace, 5, "fwd.l0.grad_gather").deps.empty());
    EXPECT_EQ(ZeroCommFinish(trace).size(), 8u); // no deadlock
}

// With zero-time communication the iteration of P stages and G micro-batches (block
// forward F, backward B) takes the lines that run once plus (G + P - 1)(F + B): the
// single-stage time plus the pipeline bubble (P - 1)(F + B). With ga 1 the whole file
// is the one micro-batch (nothing tells the once-per-iteration lines apart), so only
// the update stays outside: P (F + B) + update.
TEST_F(AicbReader, PipelineBubble)
{
    // T = 1, D = 1: no collectives. Block: F = 100 + 50, B = 200 + 300 + 60 + 70; the
    // lines around it: forward 10 + 5, backward 6 + 7 + 20 + 30; update 40.
    const int64_t aroundF = 15;
    const int64_t aroundB = 63;
    const int64_t update = 40;
    for (int64_t pp : {1, 2, 4})
    {
        for (int ga : {1, 3, 8})
        {
            std::string name = "bubble" + std::to_string(pp) + "_" + std::to_string(ga) + ".txt";
            const std::string header =
                "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 pp: " +
                std::to_string(pp) + " ga: " + std::to_string(ga) +
                (pp > 1 ? " pp_comm: 65536" : "");
            std::string file = Write(name, PipelinedFile(header, ga));
            std::string error;
            TrainingTrace trace = AicbTraceReader::Read(file, static_cast<uint32_t>(pp), &error);
            ASSERT_EQ(error, "") << name;
            std::vector<int64_t> finish = ZeroCommFinish(trace);
            int64_t slowest = *std::max_element(finish.begin(), finish.end());
            const int64_t expected = ga == 1
                                         ? pp * (150 + aroundF + 630 + aroundB) + update
                                         : aroundF + aroundB + update + (ga + pp - 1) * (150 + 630);
            EXPECT_EQ(slowest, expected) << name;
            EXPECT_EQ(finish[0], slowest) << name; // stage 0 ends last
        }
    }
}

TEST_F(AicbReader, PipelineRefusals)
{
    const std::string head = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 pp: 2";
    // AICB writes vpp = layers per stage: an interleaved pipeline of that many chunks.
    ExpectError("vpp.txt",
                PipelinedFile(head + " vpp: 9 ga: 1 pp_comm: 4096", 1),
                8,
                1,
                {"vpp: 9 with pp: 2 is not supported", "vpp: 1 replays"});
    ExpectError("nocomm.txt",
                PipelinedFile(head + " ga: 1", 1),
                8,
                1,
                {"pp: 2 needs pp_comm", "the header has none"});
    ExpectError("zerocomm.txt",
                PipelinedFile(head + " ga: 1 pp_comm: 0", 1),
                8,
                1,
                {"pp: 2 needs pp_comm", "the header has pp_comm: 0"});
    ExpectError("ga0.txt",
                PipelinedFile(head + " ga: 0 pp_comm: 4096", 1),
                8,
                1,
                {"ga: 0 with pp: 2: the number of micro-batches must be between 1 and the 4"});
    // ga 2, but the two blocks differ (mlp 51 ns in the second).
    ExpectError("noblocks.txt",
                head + " ga: 2 pp_comm: 4096\n4\n" + LAYER +
                    "mlp -1 50 ALLREDUCE 2048 60 ALLREDUCE 2048 70 NONE 0 0\n" + LAYER +
                    "mlp -1 51 ALLREDUCE 2048 60 ALLREDUCE 2048 70 NONE 0 0\n",
                8,
                1,
                {"ga: 2 with pp: 2: the 4 layer lines hold no 2 identical consecutive blocks"});
    // Three equal lines after a different one: two blocks of one line fit twice.
    ExpectError("ambiguous.txt",
                head +
                    " ga: 2 pp_comm: 4096\n4\n"
                    "embedding -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n" +
                    LAYER + LAYER + LAYER,
                8,
                1,
                {"ga: 2 with pp: 2: the 2 micro-batch blocks of 1 lines could start on line 4 "
                 "or on line 5"});
    ExpectError("fraction.txt",
                PipelinedFile(head + " ga: 1 pp_comm: 4096.5", 1),
                8,
                1,
                {"header value of 'pp_comm' is not a non-negative integer: '4096.5'"});

    // pp 1: pp_comm has nothing to cross, and says so; vpp and ga change nothing.
    const std::string header = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 "
                               "pp: 1 vpp: 8 ga: 2 pp_comm: 4096";
    std::string file = Write("pp1.txt", PipelinedFile(header, 2));
    std::string error;
    std::ostringstream warnings;
    TrainingTrace trace = AicbTraceReader::Read(file, 4, &error, &warnings);
    EXPECT_EQ(error, "");
    EXPECT_EQ(warnings.str(),
              "warning: " + file +
                  ":1: pp_comm: 4096 is ignored: pp is 1, so nothing crosses a stage boundary\n");
    EXPECT_EQ(Count(trace, 3, TraceOpKind::SEND) + Count(trace, 3, TraceOpKind::RECV), 0u);
    EXPECT_EQ(Count(trace, 3, TraceOpKind::COMPUTE), 19u);
}

TEST_F(AicbReader, MissingFile)
{
    std::string file = (m_dir / "absent.txt").string();
    std::string error;
    EXPECT_EQ(AicbTraceReader::Read(file, 8, &error).GetNRanks(), 0u);
    EXPECT_EQ(error, file + ": cannot open the file");
}

} // namespace
