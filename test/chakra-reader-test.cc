// SPDX-License-Identifier: GPL-2.0-only
// Chakra execution traces: collective microbenchmarks written as ASTRA-sim's generator
// lays them out decode to the collectives they describe, hand-encoded traces exercise
// every mapping rule, and malformed files stop with a
// message naming the file, the record and the reason (never a crash or a hang).
#include "test-dir.h"
#include "trace-encoders.h"

#include "ns3/chakra-reader.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::tracetest;

namespace
{

const std::string METADATA = ChakraMetadata();

std::string
ReadWhole(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class ChakraReader : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        m_dir = std::filesystem::path(aifabric::TestDir()) / "chakra";
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir);
    }

    void TearDown() override
    {
        std::filesystem::remove_all(m_dir);
    }

    /// Write bytes to a file of the temp dir; return its path.
    std::string Write(const std::string& name, const std::string& bytes)
    {
        std::string path = (m_dir / name).string();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }

    /// Read files expecting failure; the message must name file and contain every reason.
    void ExpectError(const std::vector<std::string>& files,
                     const std::string& file,
                     const std::vector<std::string>& reasons,
                     bool json = false)
    {
        std::string error;
        TrainingTrace trace = json ? ChakraTraceReader::ReadJson(files, &error)
                                   : ChakraTraceReader::ReadFiles(files, &error);
        EXPECT_EQ(trace.GetNRanks(), 0u);
        EXPECT_NE(error.find(file), std::string::npos) << error;
        for (const std::string& r : reasons)
        {
            EXPECT_NE(error.find(r), std::string::npos) << "'" << r << "' not in: " << error;
        }
    }

    std::filesystem::path m_dir;
};

TEST_F(ChakraReader, AllReduceMicrobenchmark)
{
    const std::string prefix = (m_dir / "all_reduce").string();
    std::vector<std::string> files =
        WriteChakraCollective(prefix, 8, CHAKRA_ALL_REDUCE, 1048576, "all_reduce_8npus_1MB");
    std::string error = "unset";
    TrainingTrace trace = ChakraTraceReader::ReadPrefix(prefix, 8, &error);
    EXPECT_EQ(error, "");
    ExpectMicrobenchmark(trace, CollectiveType::ALL_REDUCE, "all_reduce_8npus_1MB");
    ExpectMicrobenchmark(ChakraTraceReader::ReadFiles(files, &error),
                         CollectiveType::ALL_REDUCE,
                         "all_reduce_8npus_1MB");
}

TEST_F(ChakraReader, AllToAllMicrobenchmark)
{
    const std::string prefix = (m_dir / "all_to_all").string();
    WriteChakraCollective(prefix, 8, CHAKRA_ALL_TO_ALL, 1048576, "all_to_all_8npus_1MB");
    std::string error;
    TrainingTrace trace = ChakraTraceReader::ReadPrefix(prefix, 8, &error);
    EXPECT_EQ(error, "");
    ExpectMicrobenchmark(trace, CollectiveType::ALL_TO_ALL, "all_to_all_8npus_1MB");
}

// Compute, metadata, send, recv and collective nodes; most integer kinds; packed and
// unpacked deps; a dependency on a node listed later.
TEST_F(ChakraReader, MappingRules)
{
    std::string rank0 =
        METADATA +
        Message(ChakraNodeHead(40, "after-gemm", 4) + Var(7, 2) + ChakraPackedDeps({10})) +
        Message(ChakraNodeHead(10, "gemm", 4) + Var(7, 5) + ChakraAttr("num_ops", Var(13, 1000))) +
        Message(ChakraNodeHead(20, "send", 5) + ChakraPackedDeps({10}) +
                ChakraAttr("comm_dst", Var(11, 1)) + ChakraAttr("comm_size", Fixed(21, 4096, 8)) +
                ChakraAttr("comm_tag", Var(17, 14))) +
        Message(ChakraNodeHead(30, "gather", 7) + Var(4, 20) + Var(5, 10) +
                ChakraAttr("comm_type", Var(15, 4)) + ChakraAttr("comm_size", Var(7, 65536)) +
                ChakraAttr("pg_name", Len(29, "pg0"))) +
        Message(ChakraNodeHead(50, "meta", 1));
    std::string rank1 =
        METADATA +
        Message(ChakraNodeHead(0, "recv", 6) + ChakraAttr("comm_src", Fixed(23, 0, 4)) +
                ChakraAttr("comm_size", Var(13, 4096)) + ChakraAttr("comm_tag", Var(7, 7))) +
        Message(ChakraNodeHead(1, "gather", 7) + ChakraPackedDeps({0}) +
                ChakraAttr("comm_type", Var(13, 2)) + ChakraAttr("comm_size", Fixed(19, 65536, 4)) +
                ChakraAttr("pg_name", Len(29, "pg0")) + ChakraAttr("is_cpu_op", Var(27, 0)));
    std::string error = "unset";
    TrainingTrace trace =
        ChakraTraceReader::ReadFiles({Write("r.0.et", rank0), Write("r.1.et", rank1)}, &error);
    ASSERT_EQ(error, "");
    ASSERT_EQ(trace.GetNRanks(), 2u);
    EXPECT_EQ(trace.GetGroup("pg0").ranks, (std::vector<uint32_t>{0, 1}));

    // File order 40, 10, 20, 30, 50; node 40 waits for node 10, so 10 comes first.
    const auto& ops = trace.GetOps(0);
    ASSERT_EQ(ops.size(), 5u);
    EXPECT_EQ(ops[0].name, "gemm");
    EXPECT_EQ(ops[0].duration, MicroSeconds(5));
    EXPECT_EQ(ops[1].name, "after-gemm");
    EXPECT_EQ(ops[1].duration, MicroSeconds(2));
    EXPECT_EQ(ops[1].deps, (std::vector<uint32_t>{0}));
    EXPECT_EQ(ops[2].kind, TraceOpKind::SEND);
    EXPECT_EQ(ops[2].peer, 1u);
    EXPECT_EQ(ops[2].tag, 7u); // sint64 zigzag 14
    EXPECT_EQ(ops[2].bytes, 4096u);
    EXPECT_EQ(ops[2].stream, 1u);
    EXPECT_EQ(ops[3].kind, TraceOpKind::COLLECTIVE);
    EXPECT_EQ(ops[3].collective, CollectiveType::ALL_GATHER); // sint32 zigzag 4
    EXPECT_EQ(ops[3].bytes, 65536u);
    EXPECT_EQ(ops[3].group, "pg0");
    EXPECT_EQ(ops[3].deps, (std::vector<uint32_t>{2, 0})); // ctrl 20 and data 10
    EXPECT_EQ(ops[4].kind, TraceOpKind::COMPUTE);
    EXPECT_EQ(ops[4].stream, 0u);
    EXPECT_EQ(ops[4].duration, Seconds(0));

    const auto& ops1 = trace.GetOps(1);
    ASSERT_EQ(ops1.size(), 2u);
    EXPECT_EQ(ops1[0].kind, TraceOpKind::RECV);
    EXPECT_EQ(ops1[0].peer, 0u);
    EXPECT_EQ(ops1[0].tag, 7u);
    EXPECT_EQ(ops1[1].deps, (std::vector<uint32_t>{0})); // node id 0 has no id field
    EXPECT_EQ(ops1[1].collective, CollectiveType::ALL_GATHER);
}

TEST_F(ChakraReader, ProcessGroupMembers)
{
    std::string pair =
        METADATA + ChakraCollective(1, 0, 1024, ChakraAttr("pg_name", Len(29, "pair")));
    std::string alone = METADATA + Message(ChakraNodeHead(1, "c", 4) + Var(7, 3));
    std::string error;
    TrainingTrace trace = ChakraTraceReader::ReadFiles(
        {Write("p.0.et", pair), Write("p.1.et", alone), Write("p.2.et", pair)},
        &error);
    ASSERT_EQ(error, "");
    EXPECT_EQ(trace.GetGroup("pair").ranks, (std::vector<uint32_t>{0, 2}));
    EXPECT_FALSE(trace.HasGroup("world"));
}

TEST_F(ChakraReader, JsonForms)
{
    std::string proto = R"([{"version": "0.0.4"},
      {"id": "1", "name": "c", "type": "COMP_NODE", "durationMicros": "12"},
      {"id": "2", "name": "ar", "type": "COMM_COLL_NODE", "dataDeps": ["1"],
       "attr": [{"name": "comm_type", "int64Val": "0"},
                {"name": "comm_size", "uint64Val": "1048576"}]}])";
    std::string graph = R"({"workload_graph": [
      {"Id": 7, "Name": "c", "NodeType": 4, "runtime": 3, "is_cpu_op": false},
      {"Id": 8, "Name": "ar", "NodeType": 7, "data_deps": [7], "ctrlDeps": [],
       "comm_type": 0, "comm_size": 1048576}]})";
    std::string error = "unset";
    TrainingTrace trace =
        ChakraTraceReader::ReadJson({Write("j.0.json", proto), Write("j.1.json", graph)}, &error);
    ASSERT_EQ(error, "");
    ASSERT_EQ(trace.GetNRanks(), 2u);
    EXPECT_EQ(trace.GetOps(0)[0].duration, MicroSeconds(12));
    EXPECT_EQ(trace.GetOps(1)[0].duration, MicroSeconds(3));
    for (uint32_t r = 0; r < 2; ++r)
    {
        const TraceOp& op = trace.GetOps(r)[1];
        EXPECT_EQ(op.kind, TraceOpKind::COLLECTIVE);
        EXPECT_EQ(op.bytes, 1048576u);
        EXPECT_EQ(op.group, "world");
        EXPECT_EQ(op.deps, (std::vector<uint32_t>{0}));
    }
}

// ------------------------------------------------------------------- malformed corpus

TEST_F(ChakraReader, TruncatedFile)
{
    std::string sample = ReadWhole(
        WriteChakraCollective((m_dir / "ar").string(), 1, CHAKRA_ALL_REDUCE, 1048576, "ar")[0]);
    ASSERT_EQ(sample.size(), 63u);                           // metadata 8, node length 1, node 54
    std::string f = Write("cut.0.et", sample.substr(0, 40)); // inside the node message
    ExpectError({f}, f, {"message #1 at byte offset 8", "runs past the end", "truncated"});
    f = Write("cut-varint.0.et", METADATA + Message(Var(1, 5) + "\x80"));
    ExpectError({f}, f, {"message #1", "varint cut off"});
}

TEST_F(ChakraReader, GarbageBytes)
{
    std::string f = Write("garbage.0.et", std::string(64, '\xff'));
    ExpectError({f}, f, {"message #0", "varint longer than 10 bytes"});
    f = Write("text.0.et", "this is not a chakra trace\n");
    ExpectError({f}, f, {"message #0", "runs past the end"});
}

TEST_F(ChakraReader, LengthPrefixBeyondFile)
{
    std::string f = Write("long.0.et", METADATA + Varint(1000000) + "abc");
    ExpectError({f}, f, {"message #1", "length 1000000", "runs past the end", "3 bytes left"});
}

TEST_F(ChakraReader, WrongWireType)
{
    std::string f = Write("wire2.0.et", METADATA + Message(Var(1, 3) + Len(3, "x")));
    ExpectError({f}, f, {"message #1", "field 3 (type) has wire type 2, expected 0"});
    f = Write("wire7.0.et", METADATA + Message(Var(1, 3) + Tag(9, 7) + "xxxx"));
    ExpectError({f}, f, {"message #1", "unsupported wire type 7"});
    f = Write("wire3.0.et", METADATA + Message(ChakraNodeHead(1, "c", 4) + Len(10, Tag(5, 3))));
    ExpectError({f}, f, {"message #1", "unsupported wire type 3"});
}

TEST_F(ChakraReader, UnsupportedCommType)
{
    std::string f = Write("ct42.0.et", METADATA + ChakraCollective(3, 42, 1024));
    ExpectError({f}, f, {"node id 3", "unknown comm_type 42"});
    f = Write("barrier.0.et", METADATA + ChakraCollective(3, 9, 1024));
    ExpectError({f}, f, {"node id 3", "comm_type 9 (BARRIER) is not supported"});
    f = Write("nosize.0.et",
              METADATA + Message(ChakraNodeHead(4, "c", 7) + ChakraAttr("comm_type", Var(9, 0))));
    ExpectError({f}, f, {"node id 4", "COMM_COLL_NODE without attribute comm_size"});
    f = Write("negsize.0.et",
              METADATA + Message(ChakraNodeHead(4, "c", 7) + ChakraAttr("comm_type", Var(9, 0)) +
                                 ChakraAttr("comm_size", Var(17, 9))));
    ExpectError({f}, f, {"node id 4", "attribute comm_size is not an integer", "(-5)"});
}

TEST_F(ChakraReader, DependencyOnMissingNode)
{
    std::string f = Write("missing.0.et",
                          METADATA + Message(ChakraNodeHead(5, "c", 4) + ChakraPackedDeps({99})));
    ExpectError({f}, f, {"node id 5", "depends on node id 99, which is not in the file"});
}

TEST_F(ChakraReader, DependencyCycle)
{
    std::string f = Write("cycle.0.et",
                          METADATA + Message(ChakraNodeHead(9, "start", 4)) +
                              Message(ChakraNodeHead(1, "a", 4) + Var(5, 2) + Var(5, 9)) +
                              Message(ChakraNodeHead(2, "b", 4) + Var(4, 1)));
    ExpectError({f}, f, {"dependency cycle", "node id 1 -> 2 -> 1"});
}

TEST_F(ChakraReader, OtherBadInput)
{
    std::string missing = (m_dir / "absent.0.et").string();
    ExpectError({missing}, missing, {"cannot open"});
    std::string f = Write("gz.0.et", std::string("\x1f\x8b\x08\x00", 4) + "rest");
    ExpectError({f}, f, {"gzip-compressed; gunzip it first"});
    f = Write("empty.0.et", "");
    ExpectError({f}, f, {"empty file"});
    f = Write("dup.0.et",
              METADATA + Message(ChakraNodeHead(1, "a", 4)) + Message(ChakraNodeHead(1, "b", 4)));
    ExpectError({f}, f, {"node id 1", "duplicate node id"});
    f = Write("type.0.et", METADATA + Message(ChakraNodeHead(1, "a", 12)));
    ExpectError({f}, f, {"node id 1", "unknown node type 12"});
    std::string self =
        Write("self.0.et",
              METADATA + Message(ChakraNodeHead(1, "s", 5) + ChakraAttr("comm_dst", Var(9, 0)) +
                                 ChakraAttr("comm_size", Var(9, 8))));
    ExpectError({self}, self, {"node id 1", "comm_dst 0 is the rank itself"});
    std::string j = Write("bad.0.json", "[{\"id\": 1,");
    ExpectError({j}, j, {"not valid JSON"}, true);
    j = Write("obj.0.json", "{\"graph\": []}");
    ExpectError({j}, j, {"expected an array of nodes"}, true);
    std::string error;
    EXPECT_EQ(ChakraTraceReader::ReadFiles({}, &error).GetNRanks(), 0u);
    EXPECT_NE(error.find("no files"), std::string::npos);
}

// Members disagreeing on a collective: caught by TrainingTrace::Validate, reported with
// the file set.
TEST_F(ChakraReader, CrossRankMismatch)
{
    std::string a = Write("m.0.et", METADATA + ChakraCollective(1, 0, 1024));
    std::string b = Write("m.1.et", METADATA + ChakraCollective(1, 0, 2048));
    ExpectError({a, b}, a, {"chakra trace", b, "differs"});
}

// Every cut and every single-byte change of a trace either reads or fails cleanly.
TEST_F(ChakraReader, NoCrashOnDamagedTrace)
{
    std::string sample = ReadWhole(WriteChakraCollective((m_dir / "a2a").string(),
                                                         4,
                                                         CHAKRA_ALL_TO_ALL,
                                                         1048576,
                                                         "all_to_all_8npus_1MB")[3]);
    ASSERT_FALSE(sample.empty());
    std::string error;
    for (size_t n = 0; n < sample.size(); ++n)
    {
        std::string f = Write("cut.et", sample.substr(0, n));
        TrainingTrace trace = ChakraTraceReader::ReadFiles({f}, &error);
        EXPECT_TRUE(trace.GetNRanks() == 0 ? error.find(f) != std::string::npos : error.empty())
            << n;
        for (char c : {'\x00', '\x7f', '\x80', '\xff'})
        {
            std::string damaged = sample;
            damaged[n] = c;
            f = Write("damaged.et", damaged);
            trace = ChakraTraceReader::ReadFiles({f}, &error);
            EXPECT_TRUE(trace.GetNRanks() == 0 ? error.find(f) != std::string::npos : error.empty())
                << n << " " << int(c);
        }
    }
}

} // namespace
