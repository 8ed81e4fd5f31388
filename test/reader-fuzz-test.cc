// SPDX-License-Identifier: GPL-2.0-only
// Every reader of a user's file, fed 1,000 seeded mutations of a small valid file in
// process: each answers with a result or a one-line error naming the file, never an
// exception, an abort or a crash (a crash ends this program and fails the suite). The
// mutations are those a hand-edited or truncated file has: a byte changed, a span
// deleted or repeated, and tokens inserted, among them numbers no double or integer
// holds (1e309 made every JSON reader abort with nlohmann's out_of_range 406).
#include "test-util.h"
#include "trace-encoders.h"

#include "ns3/aicb-reader.h"
#include "ns3/chakra-reader.h"
#include "ns3/roce-topology-reader.h"
#include "ns3/trace-json.h"
#include "ns3/training-scenario.h"
#include "ns3/transformer-trace-generator.h"

#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::tracetest;
using namespace aifabric;

namespace
{

/// Mutations per reader.
constexpr int MUTATIONS = 1000;

/// Tokens a broken file holds: overflowing and huge numbers, structure, other types.
const std::vector<std::string> TOKENS = {
    "1e309",
    "21e309",
    "-1e309",
    "99999999999999999999",
    "18446744073709551616",
    "-1",
    "0",
    "1.5",
    "null",
    "true",
    "\"\"",
    "\"x\"",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"a\": 1,",
    std::string(1, '\0'),
    "\xff",
    "\\u0000",
    "nan",
    "4294967296",
    "-0",
};

/**
 * A seeded mutation of text: one to four edits, each a byte replaced (by any byte), a
 * span deleted, a span repeated, a token inserted or the text cut short.
 */
std::string
Mutate(const std::string& text, std::mt19937_64& rng)
{
    std::string s = text;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !s.empty(); ++e)
    {
        const size_t at = rng() % s.size();
        const size_t span = 1 + rng() % 16;
        switch (rng() % 5)
        {
        case 0:
            s[at] = static_cast<char>(rng() % 256);
            break;
        case 1:
            s.erase(at, span);
            break;
        case 2:
            s.insert(at, s.substr(at, span));
            break;
        case 3:
            s.insert(at, TOKENS[rng() % TOKENS.size()]);
            break;
        default:
            s.resize(at);
            break;
        }
    }
    return s;
}

/// One reader: text in, whether it read, and the error it gave.
using Reader = std::function<bool(const std::string& text, std::string* error)>;

/**
 * Feed a reader its valid text (it must read) and MUTATIONS mutations of it: each must
 * read without an error, or fail with an error starting with name. Some must fail (the
 * mutations do break files) and the overflowing number must be refused.
 * \param name what errors start with (the file name the reader is given)
 * \param valid the valid text
 * \param read the reader
 * \param seed the mutations' seed
 */
void
Fuzz(const std::string& name, const std::string& valid, const Reader& read, uint64_t seed)
{
    std::string error;
    ASSERT_TRUE(read(valid, &error)) << name << ": the valid file is refused: " << error;
    std::mt19937_64 rng(seed);
    int refused = 0;
    for (int i = 0; i < MUTATIONS; ++i)
    {
        const std::string text = Mutate(valid, rng);
        error.clear();
        if (read(text, &error))
        {
            EXPECT_EQ(error, "") << "mutation " << i << " read, with an error";
            continue;
        }
        ++refused;
        EXPECT_EQ(error.rfind(name, 0), 0u)
            << "mutation " << i << ": the error does not start with " << name << ": " << error;
        EXPECT_EQ(error.find('\n'), std::string::npos)
            << "mutation " << i << ": not one line: " << error;
    }
    EXPECT_GT(refused, MUTATIONS / 10) << name << ": the mutations hardly ever broke the file";
}

/// Write bytes to path (binary).
std::string
WriteBytes(const std::string& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

/// The module's own trace format: two ranks, compute, an all-reduce and a send/recv.
const char* TRACE_JSON = R"({
  "schema": "ai-fabric-trace/1", "name": "tiny", "ranks": 2,
  "streams": ["compute", "collectives"],
  "groups": [{"name": "tp0", "kind": "tp", "ranks": [0, 1]}],
  "programs": [
    {"rank": 0, "ops": [
      {"kind": "compute", "name": "fwd", "duration_us": 12.5},
      {"kind": "collective", "name": "ar", "collective": "all-reduce", "bytes": 1048576,
       "group": "tp0", "stream": 1, "deps": [0]},
      {"kind": "send", "peer": 1, "bytes": 4096, "deps": [0]}]},
    {"rank": 1, "ops": [
      {"kind": "compute", "name": "fwd", "duration_ns": 12500},
      {"kind": "collective", "name": "ar", "collective": "all-reduce", "bytes": 1048576,
       "group": "tp0", "stream": 1, "deps": [0]},
      {"kind": "recv", "peer": 0, "bytes": 4096}]}]
})";

/// A scenario with a generated workload (no other file).
const char* SCENARIO = R"({
  "name": "fuzz",
  "cluster": {"servers": 2, "gpusPerServer": 2, "gpu": "H100", "nicRate": "400Gbps",
              "spines": 1, "linkDelay": "1us"},
  "workload": {"format": "generator", "model": {"layers": 2, "hidden": 256, "heads": 4,
               "seqLength": 64, "vocab": 100, "tp": 2, "dp": 2, "globalBatch": 2}},
  "fabric": {"congestionControl": "ns3::RoceDcqcn", "config": {"ns3::RoceDcqcn::RateAi": "5Mbps"}},
  "collectives": {"algorithm": "auto", "channels": 2},
  "run": {"iterations": 1, "seed": 3},
  "events": [{"at": "1ms", "fail": "sw0-sw2"}],
  "background": {"flowSizes": "websearch", "load": 0.3, "pairs": [[0, 1]]},
  "outputs": {"plots": false}
})";

/// A two-leaf, one-spine topology with per-link settings.
const char* TOPOLOGY = R"({
  "hosts": [{"name": "h0"}, {"name": "h1"}, {"name": "h2"}, {"name": "h3"}],
  "switches": [{"name": "leaf0"}, {"name": "leaf1"}, {"name": "spine0"}],
  "defaults": {"rate": "100Gbps", "delay": "1us"},
  "links": [
    {"a": "h0", "b": "leaf0"}, {"a": "h1", "b": "leaf0"},
    {"a": "h2", "b": "leaf1"}, {"a": "h3", "b": "leaf1", "delay": "500ns"},
    {"a": "leaf0", "b": "spine0", "rate": "200Gbps"},
    {"a": "leaf1", "b": "spine0", "rate": "25GB/s"}]
})";

/// A model config for the trace generator.
const char* MODEL = R"({"layers": 2, "hidden": 256, "heads": 4, "seqLength": 64,
  "vocab": 100, "tp": 2, "pp": 1, "dp": 2, "microBatch": 1, "globalBatch": 4})";

/// Chakra's JSON form: metadata, a compute node and an all-reduce depending on it.
const char* CHAKRA_JSON = R"([{"version": "0.0.4"},
  {"id": "1", "name": "c", "type": "COMP_NODE", "durationMicros": "12"},
  {"id": "2", "name": "ar", "type": "COMM_COLL_NODE", "dataDeps": ["1"],
   "attr": [{"name": "comm_type", "int64Val": "0"},
            {"name": "comm_size", "uint64Val": "1048576"}]}])";

class ReaderFuzz : public NsTest
{
};

} // namespace

TEST_F(ReaderFuzz, TraceJson)
{
    Fuzz(
        "trace.json",
        TRACE_JSON,
        [](const std::string& text, std::string* error) {
            return TraceJson::Parse(text, "trace.json", error).GetNRanks() > 0;
        },
        1);
}

TEST_F(ReaderFuzz, Scenario)
{
    Fuzz(
        "scn.json",
        SCENARIO,
        [](const std::string& text, std::string* error) {
            TrainingScenario s;
            return TrainingScenario::Parse(text, "scn.json", s, error);
        },
        2);
}

TEST_F(ReaderFuzz, TopologyFile)
{
    Fuzz(
        "topology.json",
        TOPOLOGY,
        [](const std::string& text, std::string* error) {
            RoceHelper roce;
            RoceTopologyReader reader(roce);
            RoceTopologyFile file;
            const bool ok = reader.ReadString(text, "topology.json", file, error);
            Simulator::Destroy(); // the nodes of a fabric read
            return ok;
        },
        3);
}

TEST_F(ReaderFuzz, ModelConfig)
{
    Fuzz(
        "model.json",
        MODEL,
        [](const std::string& text, std::string* error) {
            TransformerConfig c;
            return TransformerTraceGenerator::ParseConfig(text, "model.json", c, error);
        },
        4);
}

TEST_F(ReaderFuzz, ChakraJson)
{
    const std::string file = TestDir() + "chakra.0.json";
    Fuzz(
        file,
        CHAKRA_JSON,
        [&file](const std::string& text, std::string* error) {
            WriteBytes(file, text);
            return ChakraTraceReader::ReadJson({file}, error).GetNRanks() > 0;
        },
        5);
}

TEST_F(ReaderFuzz, ChakraProtobuf)
{
    const std::string prefix = TestDir() + "chakra";
    const std::string valid =
        ChakraMetadata() + ChakraCollective(0,
                                            CHAKRA_ALL_REDUCE,
                                            1048576,
                                            ChakraAttr("is_cpu_op", Var(27, 0)) +
                                                ChakraAttr("pg_name", Len(29, "world")),
                                            "all_reduce");
    Fuzz(
        prefix + ".0.et",
        valid,
        [&prefix](const std::string& bytes, std::string* error) {
            WriteBytes(prefix + ".0.et", bytes);
            return ChakraTraceReader::ReadPrefix(prefix, 1, error).GetNRanks() > 0;
        },
        6);
}

TEST_F(ReaderFuzz, Aicb)
{
    const std::string file = TestDir() + "aicb.txt";
    AicbLayer attention{"attention",
                        752000,
                        "ALLREDUCE",
                        20971520,
                        752000,
                        "ALLREDUCE",
                        20971520,
                        752000,
                        "NONE",
                        0,
                        100};
    AicbLayer mlp{"mlp", 750000, "ALLREDUCE", 20971520, 750000, "NONE", 0, 750000, "NONE", 0, 100};
    const std::string valid =
        AicbWorkload("HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 8 checkpoints: 0 "
                     "checkpoint_initiates: 0",
                     {attention, mlp});
    Fuzz(
        file,
        valid,
        [&file](const std::string& text, std::string* error) {
            WriteBytes(file, text);
            return AicbTraceReader::Read(file, 8, error).GetNRanks() > 0;
        },
        7);
}

// The number no double holds is refused by every JSON reader with the file, the line and
// the column of the number, and what was expected.
TEST_F(ReaderFuzz, NumberTooLargeForADoubleIsNamedWithItsPlace)
{
    std::string error;
    std::string trace = TRACE_JSON;
    trace.replace(trace.find("12.5"), 4, "1e309");
    EXPECT_EQ(TraceJson::Parse(trace, "trace.json", &error).GetNRanks(), 0u);
    EXPECT_EQ(error,
              "trace.json: line 7, column 57: not valid JSON: number overflow parsing '1e309' "
              "(larger than a double can hold)");

    TrainingScenario s;
    EXPECT_FALSE(
        TrainingScenario::Parse(R"({"run": {"iterations": 21e309}})", "scn.json", s, &error));
    EXPECT_EQ(error,
              "scn.json: line 1, column 24: not valid JSON: number overflow parsing '21e309' "
              "(larger than a double can hold)");

    RoceHelper roce;
    RoceTopologyReader reader(roce);
    RoceTopologyFile file;
    EXPECT_FALSE(
        reader.ReadString("{\"hosts\": {\"count\": 2},\n \"x\": -1e309}", "t.json", file, &error));
    EXPECT_EQ(error,
              "t.json: line 2, column 7: not valid JSON: number overflow parsing '-1e309' "
              "(larger than a double can hold)");

    TransformerConfig c;
    EXPECT_FALSE(
        TransformerTraceGenerator::ParseConfig(R"({"layers": 1e400})", "m.json", c, &error));
    EXPECT_NE(error.find("m.json: line 1, column 12: not valid JSON: number overflow"),
              std::string::npos)
        << error;

    const std::string chakra = WriteBytes(TestDir() + "c.0.json", R"([{"id": 1e999}])");
    EXPECT_EQ(ChakraTraceReader::ReadJson({chakra}, &error).GetNRanks(), 0u);
    EXPECT_NE(error.find(chakra + ": line 1, column 9: not valid JSON: number overflow"),
              std::string::npos)
        << error;
}
