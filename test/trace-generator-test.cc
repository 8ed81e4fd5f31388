// SPDX-License-Identifier: GPL-2.0-only
// The transformer trace generator: closed-form parameter and byte counts, the ops it
// writes, the 1F1B pipeline bubble, MoE/expert parallelism, and named config errors.
#include "ns3/ideal-transport.h"
#include "ns3/simulator.h"
#include "ns3/transformer-trace-generator.h"
#include "ns3/uinteger.h"
#include "ns3/workload-runner.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{
/// A small GPT: h = 1024, 4 layers, V = 1000, s = 128.
TransformerConfig
Small()
{
    TransformerConfig c;
    c.name = "small";
    c.layers = 4;
    c.hidden = 1024;
    c.heads = 16;
    c.seqLength = 128;
    c.vocab = 1000;
    c.microBatch = 1;
    c.globalBatch = 4;
    c.tp = 2;
    c.dp = 2;
    return c;
}

Ptr<WorkloadRunner>
Replay(const TrainingTrace& trace, DataRate rate, Time latency)
{
    auto transport = CreateObject<IdealTransport>();
    transport->SetAttribute("NRanks", UintegerValue(trace.GetNRanks()));
    transport->SetAttribute("DataRate", DataRateValue(rate));
    transport->SetAttribute("Latency", TimeValue(latency));
    auto runner = CreateObject<WorkloadRunner>();
    runner->Setup(trace, CommGroup::Uniform(trace.GetNRanks(), 1), transport);
    runner->Start();
    Simulator::Run();
    Simulator::Destroy();
    return runner;
}
} // namespace

TEST(TraceGenerator, ParameterCountsMatchTheClosedForm)
{
    const TransformerCounts n = TransformerTraceGenerator::Count(Small());
    // 12 h^2 + 13 h with h = 1024
    EXPECT_EQ(n.denseLayerParams, 12u * 1024 * 1024 + 13 * 1024);
    EXPECT_EQ(n.denseLayerParams, 12596224u);
    // V h + s h = 1000 x 1024 + 128 x 1024
    EXPECT_EQ(n.embeddingParams, 1155072u);
    // 4 layers + embeddings + final layer norm (2h)
    EXPECT_EQ(n.totalParams, 4u * 12596224 + 1155072 + 2048);
    // one TP collective: b s h x 2 bytes
    EXPECT_EQ(n.tpActivationBytes, 128u * 1024 * 2);

    // A GPT-3 175B-like shape lands at 175 billion, as published.
    TransformerConfig gpt3;
    gpt3.layers = 96;
    gpt3.hidden = 12288;
    gpt3.heads = 96;
    gpt3.seqLength = 2048;
    gpt3.vocab = 50257;
    EXPECT_NEAR(TransformerTraceGenerator::Count(gpt3).totalParams / 1e9, 175.0, 0.5);
}

TEST(TraceGenerator, OpsAndBytesOfASmallConfig)
{
    TransformerConfig c = Small();
    c.bucketParams = 10000000;
    auto gen = CreateObject<TransformerTraceGenerator>();
    std::string error;
    TrainingTrace t = gen->Generate(c, &error);
    ASSERT_TRUE(error.empty()) << error;
    ASSERT_EQ(t.GetNRanks(), 4u);
    ASSERT_EQ(c.GetMicroBatches(), 2u); // 4 sequences / (1 per micro-batch x dp 2)
    uint32_t tpAllReduces = 0;
    std::vector<uint64_t> buckets;
    uint64_t computeOps = 0;
    for (const TraceOp& op : t.GetOps(0))
    {
        if (op.kind == TraceOpKind::COLLECTIVE && op.group == "tp0")
        {
            EXPECT_EQ(op.collective, CollectiveType::ALL_REDUCE);
            EXPECT_EQ(op.bytes, 262144u);
            ++tpAllReduces;
        }
        else if (op.kind == TraceOpKind::COLLECTIVE && op.group == "dp0")
        {
            EXPECT_EQ(op.collective, CollectiveType::ALL_REDUCE);
            buckets.push_back(op.bytes / 2); // bf16 gradients
        }
        computeOps += op.kind == TraceOpKind::COMPUTE;
    }
    // 2 all-reduces forward + 2 backward, per layer and micro-batch.
    EXPECT_EQ(tpAllReduces, 4u * 4 * 2);
    // Buckets of >= 10M parameters in backward order: final layer norm (2h/tp) + layers
    // 3 and 2, then layers 1 and 0, then the embeddings (flushed at the end).
    const uint64_t layer = 12596224 / 2;
    ASSERT_EQ(buckets.size(), 3u);
    EXPECT_EQ(buckets[0], 1024 + 2 * layer);
    EXPECT_EQ(buckets[1], 2 * layer);
    EXPECT_EQ(buckets[2], 1155072u / 2);
    // Every GPU's gradients are reduced once: total parameters / tp.
    EXPECT_EQ(buckets[0] + buckets[1] + buckets[2],
              TransformerTraceGenerator::Count(c).totalParams / 2);
    // attention + MLP per layer, forward and backward, logits twice, the optimizer step.
    EXPECT_EQ(computeOps, 2u * (2 * 4 * 2 + 2) + 1);
    // Groups: 2 TP, 2 DP, and one (single-stage) pipeline per (TP, DP) rank pair.
    EXPECT_EQ(t.GetGroups().size(), 8u);
    EXPECT_EQ(t.GetGroup("tp1").ranks, (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(t.GetGroup("dp1").ranks, (std::vector<uint32_t>{1, 3}));
}

TEST(TraceGenerator, OneFOneBBubbleMatchesTheClosedForm)
{
    // p = 4 stages, m = 8 micro-batches, equal stages, communication all but free: the
    // pipeline takes (m + p - 1)(tf + tb), so the bubble is (p - 1)/(m + p - 1).
    for (auto [p, m] : std::vector<std::pair<uint32_t, uint32_t>>{{4, 8}, {2, 6}, {4, 4}})
    {
        TransformerConfig c;
        c.layers = 2 * p;
        c.hidden = 1024;
        c.heads = 8;
        c.seqLength = 1024;
        c.vocab = 1;
        c.pp = p;
        c.globalBatch = m;
        auto gen = CreateObject<TransformerTraceGenerator>();
        std::string error;
        TrainingTrace t = gen->Generate(c, &error);
        ASSERT_TRUE(error.empty()) << error;
        auto runner = Replay(t, DataRate(uint64_t{1} << 60), NanoSeconds(1));
        ASSERT_TRUE(runner->IsFinished());
        Time tf;
        Time tb;
        for (const TraceOp& op : t.GetOps(0))
        {
            if (op.kind == TraceOpKind::COMPUTE && op.name.str().rfind("fwd.mb0.", 0) == 0)
            {
                tf += op.duration;
            }
            if (op.kind == TraceOpKind::COMPUTE && op.name.str().rfind("bwd.mb0.", 0) == 0)
            {
                tb += op.duration;
            }
        }
        Time pipeline; // last backward op over all stages (the optimizer step follows)
        for (const OpRecord& r : runner->GetOps())
        {
            if (runner->GetOpName(r).rfind("bwd.", 0) == 0)
            {
                pipeline = std::max(pipeline, r.end);
            }
        }
        const double closed = static_cast<double>(p - 1) / (m + p - 1);
        const double bubble = 1.0 - m * (tf + tb).GetSeconds() / pipeline.GetSeconds();
        std::cout << "[ measured ] 1F1B p=" << p << " m=" << m << ": bubble " << bubble
                  << " (closed form " << closed << ")\n";
        EXPECT_NEAR(bubble, closed, 0.005);
        EXPECT_NEAR(pipeline.GetSeconds(),
                    (m + p - 1) * (tf + tb).GetSeconds(),
                    0.005 * pipeline.GetSeconds());
        // The runner's breakdown sees the bubble as idle time. Stage s (= rank s here)
        // waits s tf before its first forward, finishes s tb before stage 0, and is busy
        // m (tf + tb): idle (p - 1)(tf + tb) - s tb within its own iteration.
        for (const auto& b : runner->GetBreakdown())
        {
            const double closedIdle = (p - 1) * (tf + tb).GetSeconds() - b.rank * tb.GetSeconds();
            EXPECT_NEAR(b.idle.GetSeconds(), closedIdle, 0.005 * pipeline.GetSeconds())
                << "rank " << b.rank;
            EXPECT_LT(b.exposedComm, MicroSeconds(1)); // communication is all but free here
        }
    }
}

TEST(TraceGenerator, MixtureOfExpertsWithExpertParallelismRuns)
{
    TransformerConfig c = Small();
    c.tp = 1;
    c.pp = 2;
    c.dp = 4;
    c.ep = 2;
    c.experts = 4;
    c.topK = 2;
    c.globalBatch = 8;
    c.zeroStage = 1;
    auto gen = CreateObject<TransformerTraceGenerator>();
    std::string error;
    TrainingTrace t = gen->Generate(c, &error);
    ASSERT_TRUE(error.empty()) << error;
    EXPECT_EQ(t.GetNRanks(), 8u);
    auto runner = Replay(t, DataRate("400Gbps"), MicroSeconds(2));
    ASSERT_TRUE(runner->IsFinished()) << runner->GetStuckReport();
    uint32_t allToAll = 0;
    uint32_t sendRecv = 0;
    uint32_t allGather = 0;
    for (const CallRecord& call : runner->GetCalls())
    {
        if (call.type == CollectiveType::ALL_TO_ALL)
        {
            EXPECT_EQ(call.bytes, 128u * 1024 * 2 * 2); // b s h topK x 2 bytes
            EXPECT_EQ(call.nRanks, 2u);
            ++allToAll;
        }
        sendRecv += call.type == CollectiveType::SEND_RECV;
        allGather += call.type == CollectiveType::ALL_GATHER;
    }
    // 2 per MoE layer forward + 2 backward, 2 layers per stage, 2 micro-batches, and
    // 2 EP groups per stage... counted once per call: 8 ranks / 2 per group = 4 groups.
    EXPECT_EQ(allToAll, 4u * 2 * 2 * 4);
    // activations and gradients: 2 micro-batches x 2 directions x 4 pipelines
    EXPECT_EQ(sendRecv, 2u * 2 * 4);
    EXPECT_GT(allGather, 0u); // ZeRO-1 parameter all-gather
}

TEST(TraceGenerator, BadConfigsAreNamed)
{
    auto check = [](const std::string& json, const std::string& expect) {
        TransformerConfig c;
        std::string error;
        EXPECT_FALSE(TransformerTraceGenerator::ParseConfig(json, "model.json", c, &error));
        EXPECT_NE(error.find("model.json"), std::string::npos) << error;
        EXPECT_NE(error.find(expect), std::string::npos)
            << "expected '" << expect << "' in: " << error;
    };
    check(R"({"layers": 24, "hidden": 2048, "heads": 16, "tp": 3})", "divisible by tp 3");
    check(R"({"globalBatch": 10, "dp": 4})", "globalBatch 10 is not a multiple");
    check(R"({"layers": 10, "pp": 4})", "layers 10 do not split evenly");
    check(R"({"hidden": -5})", "'hidden' must be a non-negative integer");
    check(R"({"tp": 2.5})", "'tp' must be a non-negative integer up to 4294967295, got 2.5");
    check(R"({"dp": 4294967298})", "'dp' must be a non-negative integer up to 4294967295");
    check(R"({"microBatch": 65536, "dp": 65536, "globalBatch": 16})",
          "not a multiple of microBatch x dp = 4294967296");
    check(R"({"cnnFlopsPerSample": -1.5})", "'cnnFlopsPerSample' must be a non-negative number");
    check(R"({"hiden": 5})", "unknown setting 'hiden'");
    check(R"({"experts": 3, "ep": 2, "dp": 2, "globalBatch": 2})", "multiple of ep");
    check(R"({"kind": "rnn"})", "kind must be");
    check(R"({"layers": 2,)", "not valid JSON");
    TransformerConfig ok;
    std::string error;
    EXPECT_TRUE(TransformerTraceGenerator::ParseConfig(
        R"({"name": "x", "layers": 4, "tp": 2, "heads": 16})",
        "model.json",
        ok,
        &error))
        << error;
    EXPECT_EQ(ok.layers, 4u);

    // Sequence parallelism: each TP rank sends its s/tp slice down the pipeline.
    TransformerConfig sp = Small();
    sp.sequenceParallel = true;
    EXPECT_EQ(TransformerTraceGenerator::Count(sp).ppActivationBytes, 128u * 1024 * 2 / 2);
}

TEST(TraceGenerator, GroupedQueryAttentionAndGatedMlp)
{
    // Llama-2-70B: h 8192, 64 heads, 8 KV heads, SwiGLU ffn 28672, 80 layers, V 32000.
    TransformerConfig c;
    c.layers = 80;
    c.hidden = 8192;
    c.heads = 64;
    c.kvHeads = 8;
    c.ffnHidden = 28672;
    c.gatedMlp = true;
    c.vocab = 32000;
    c.seqLength = 4096;
    const TransformerCounts n = TransformerTraceGenerator::Count(c);
    // q, o: h^2 each; k, v: h x 1024 each; biases 2h + 2 x 1024
    EXPECT_EQ(n.attentionParams, 2ull * 8192 * 8192 + 2ull * 8192 * 1024 + 2 * 8192 + 2 * 1024);
    EXPECT_EQ(n.expertParams, 3ull * 8192 * 28672);
    // Published: 70 billion parameters (ours adds learned positions and biases).
    EXPECT_NEAR(n.totalParams / 1e9, 69.0, 1.0);
}
