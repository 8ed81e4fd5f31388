// SPDX-License-Identifier: GPL-2.0-only
// Interoperability with published traces: when the samples folder beside the repository
// holds ASTRA-sim's Chakra microbenchmarks and an AICB GPT-13B workload, they read as
// the collectives and layers they describe. Without the folder every test skips with a
// message: the repository's own tests write their inputs (test/trace-encoders.h).
#include "trace-encoders.h"

#include "ns3/aicb-reader.h"
#include "ns3/chakra-reader.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;
using tracetest::FindOp;

namespace
{

const std::string SAMPLES = AI_FABRIC_SHARED_DIR "/samples/";
const std::string AICB_SAMPLE = "aicb/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt";

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

/// Read a Chakra microbenchmark of 8 ranks.
TrainingTrace
ReadChakra8(const std::string& prefix)
{
    std::string error = "unset";
    TrainingTrace trace = ChakraTraceReader::ReadPrefix(prefix, 8, &error);
    EXPECT_EQ(error, "");
    return trace;
}

/// The published GPT-13B TP 8 file: 92 layer lines, 91 forward comms (all but
/// layernorm's) and 82 input-grad comms.
tracetest::GptTp8Facts
Gpt13bFacts()
{
    tracetest::GptTp8Facts f;
    f.layers = 92;
    f.collectivesPerRank = 91 + 82;
    f.attentionBytes = 20971520;
    f.gradNormFwdNs = 14565000;
    f.allGatherBytes = 3248619520;
    f.igLayernormBytes = 3248619520;
    f.updateNs = 92 * 100;
    f.reduceScatterBytes = 6497239040;
    return f;
}

TEST_F(SampleInterop, ChakraAllReduce)
{
    EXPECT_EQ(std::filesystem::file_size(Sample("chakra/all_reduce/8npus_1MB/all_reduce.0.et")),
              81u);
    tracetest::ExpectMicrobenchmark(ReadChakra8(SAMPLES + "chakra/all_reduce/8npus_1MB/all_reduce"),
                                    CollectiveType::ALL_REDUCE,
                                    "all_reduce_8npus_1MB");
}

TEST_F(SampleInterop, ChakraAllToAll)
{
    Sample("chakra/all_to_all/8npus_1MB/all_to_all.0.et");
    tracetest::ExpectMicrobenchmark(ReadChakra8(SAMPLES + "chakra/all_to_all/8npus_1MB/all_to_all"),
                                    CollectiveType::ALL_TO_ALL,
                                    "all_to_all_8npus_1MB");
}

TEST_F(SampleInterop, AicbGpt13bTp8)
{
    std::string error = "unset";
    TrainingTrace trace = AicbTraceReader::Read(Sample(AICB_SAMPLE), 8, &error);
    ASSERT_EQ(error, "");
    tracetest::ExpectGptTp8(trace, Gpt13bFacts());
    // Line 7, layer 4: attention_layer 752000 ALLREDUCE 20971520; backward starts with
    // the last layer line, optimizer4.
    EXPECT_EQ(FindOp(trace, 5, "ig.l91.optimizer4").duration, NanoSeconds(1));
}

TEST_F(SampleInterop, AicbGpt13bTp8Dp2)
{
    std::string error;
    TrainingTrace trace = AicbTraceReader::Read(Sample(AICB_SAMPLE), 16, &error);
    ASSERT_EQ(error, "");
    tracetest::ExpectGptTp8Dp2(trace, Gpt13bFacts());
}

} // namespace
