// SPDX-License-Identifier: GPL-2.0-only
// Impossible parameters stop the program with a message that names the problem; text
// from users (sizes, options, attribute values, output places, trace keys) is refused
// without stopping anything, with what was expected.
#include "test-util.h"

#include "ns3/program-options.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace aifabric;

namespace
{
class BadInput : public NsTest
{
};

void
LinkWithRate(std::string rate)
{
    NodeContainer nodes;
    nodes.Create(2);
    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rate)));
    roce.Link(nodes.Get(0), nodes.Get(1));
}
} // namespace

TEST_F(BadInput, ZeroLinkRate)
{
    EXPECT_DEATH(LinkWithRate("0bps"), "DataRate must be positive");
}

TEST_F(BadInput, KminAboveKmax)
{
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
            mmu->SetAttribute("EcnKmin", UintegerValue(2000000));
            mmu->SetAttribute("EcnKmax", UintegerValue(1000000));
            mmu->Configure({100000000000ull}, {MicroSeconds(1)}, 4200);
        },
        "EcnKmin \\(2000000 B\\) must not exceed EcnKmax \\(1000000 B\\)");
}

TEST_F(BadInput, DefaultKmaxBelowExplicitKmin)
{
    // Kmin set above the rate-scaled default Kmax of a 25 Gb/s port (400 KB).
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
            mmu->SetAttribute("EcnKmin", UintegerValue(500000));
            mmu->Configure({25000000000ull}, {MicroSeconds(1)}, 4200);
        },
        "Kmin \\(500000 B\\) exceeds Kmax \\(400000 B\\)");
}

TEST_F(BadInput, MtuBelowHeaders)
{
    EXPECT_DEATH(
        {
            NodeContainer nodes;
            nodes.Create(2);
            RoceHelper roce;
            roce.SetDeviceAttribute("Mtu", UintegerValue(1500));
            roce.SetNicAttribute("Mtu", UintegerValue(4096));
            NetDeviceContainer link = roce.Link(nodes.Get(0), nodes.Get(1));
            roce.InstallNic(link.Get(0), Ipv4Address("10.0.0.1"));
        },
        "needs an Ethernet MTU of 4160 B.*port's Mtu is 1500 B");
}

TEST_F(BadInput, NicMtuOutOfRange)
{
    EXPECT_DEATH(
        {
            Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
            nic->SetAttribute("Mtu", UintegerValue(0));
        },
        // The attribute's checker (1 to 9000 B) refuses 0: ns-3 names attribute and type.
        "Attribute name=Mtu could not be set for this object: tid=ns3::RdmaNic");
}

TEST_F(BadInput, BufferTooSmallForHeadroom)
{
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
            mmu->SetAttribute("BufferSize", UintegerValue(100000));
            mmu->Configure({400000000000ull, 400000000000ull},
                           {MicroSeconds(1), MicroSeconds(1)},
                           9018);
        },
        "leave no shared buffer");
}

TEST_F(BadInput, DwrrWeightsMalformed)
{
    EXPECT_DEATH(
        {
            Ptr<RoceNetDevice> dev = CreateObject<RoceNetDevice>();
            dev->SetAttribute("DwrrWeights", StringValue("1,2,x,1,1,1,1,1"));
        },
        "Attribute value \"x\" is not properly formatted");
    // Seven weights, or one out of [1, 1000], are refused by the attribute's checker.
    Ptr<RoceNetDevice> dev = CreateObject<RoceNetDevice>();
    EXPECT_FALSE(dev->SetAttributeFailSafe("DwrrWeights", StringValue("1,1,1,1,1,1,1")));
    EXPECT_FALSE(dev->SetAttributeFailSafe("DwrrWeights", StringValue("1,1,1,1,1,1,1,0")));
    EXPECT_FALSE(dev->SetAttributeFailSafe("DwrrWeights", StringValue("1,1,1,1,1,1,1,1001")));
    ASSERT_TRUE(dev->SetAttributeFailSafe("DwrrWeights", StringValue("1,2,3,4,5,6,7,1000")));
    StringValue back;
    dev->GetAttribute("DwrrWeights", back);
    EXPECT_EQ(back.Get(), "1,2,3,4,5,6,7,1000");
}

TEST_F(BadInput, NonPositiveOversubscription)
{
    EXPECT_DEATH(
        {
            RoceHelper roce;
            RoceTopologyHelper topo(roce);
            topo.LeafSpine(2, 2, 2, DataRate("100Gbps"), 0.0, MicroSeconds(1));
        },
        "oversubscription must be positive");
}

TEST_F(BadInput, UnknownCongestionControl)
{
    EXPECT_DEATH(
        {
            RoceHelper roce;
            roce.SetCongestionControl("ns3::Cubic");
        },
        "'ns3::Cubic' is not a congestion-control TypeId");
}

// ---------------------------------------------------------------------------------------
// Text from users: sizes, options, attribute values, output places, trace keys. Nothing
// here aborts; each refusal says what was expected.

TEST_F(BadInput, SizesTakeUnits)
{
    // Binary single letters and IEC units (as nccl-tests), decimal SI units.
    const std::vector<std::pair<std::string, uint64_t>> good{
        {"4096", 4096},
        {"0", 0},
        {"16K", 16384},
        {"16k", 16384},
        {"16KiB", 16384},
        {"16M", 16777216},
        {"16MiB", 16777216},
        {"16MB", 16000000},
        {"1G", 1073741824},
        {"1GiB", 1073741824},
        {"1GB", 1000000000},
        {"2T", 2199023255552},
        {"1.5K", 1536},
        {"0.5M", 524288},
        {"1e3", 1000},
        {"12B", 12},
        {"999999999999999999", 999999999999999999ULL}, // 18 digits, read exactly
    };
    for (const auto& [text, bytes] : good)
    {
        uint64_t b = 7;
        std::string why;
        EXPECT_TRUE(TextToBytes(text, b, &why)) << text << ": " << why;
        EXPECT_EQ(b, bytes) << text;
    }
    const std::vector<std::pair<std::string, std::string>> bad{
        {"-1", ""},
        {"", ""},
        {"M", ""},
        {"16 M", "unknown unit \" M\""},
        {"16Mb", "unknown unit \"Mb\""},
        {"16Q", "unknown unit \"Q\""},
        {"0.3K", "not a whole number of bytes"},
        {"1.5", "not a whole number of bytes"},
        {"4194304T", "too large (at most 2^62 bytes)"}, // exactly 2^62
        {"18446744073709551616", "too large (at most 2^62 bytes)"},
    };
    for (const auto& [text, why] : bad)
    {
        uint64_t b = 7;
        std::string reason;
        EXPECT_FALSE(TextToBytes(text, b, &reason)) << text;
        EXPECT_EQ(reason.rfind(why, 0), 0u) << text << ": " << reason;
        EXPECT_EQ(b, 7u) << text;
    }
}

namespace
{
/// Parse a command line with ProgramOptions; return Parse's answer and what it printed.
std::pair<bool, std::string>
ParseLine(ProgramOptions& options, std::vector<std::string> args)
{
    args.insert(args.begin(), "prog");
    std::vector<char*> argv;
    for (auto& a : args)
    {
        argv.push_back(a.data());
    }
    ::testing::internal::CaptureStderr();
    const bool ok = options.Parse(static_cast<int>(argv.size()), argv.data());
    return {ok, ::testing::internal::GetCapturedStderr()};
}
} // namespace

TEST_F(BadInput, ProgramOptionsConvertAndRefuse)
{
    uint32_t count = 8;
    uint64_t bytes = 4 << 20;
    bool flag = true;
    DataRate rate("100Gbps");
    Time delay = MicroSeconds(1);
    double ratio = 1;
    std::string cc = "ns3::RoceDcqcn";
    std::string word = "a";
    auto make = [&](ProgramOptions& o) {
        o.AddValue("count", "", count, 1, 100);
        o.AddSize("bytes", "", bytes);
        o.AddValue("flag", "", flag);
        o.AddValue("rate", "", rate);
        o.AddValue("delay", "", delay);
        o.AddValue("ratio", "", ratio, 0, 10, true);
        o.AddCongestionControl("cc", "", cc);
        o.AddChoice("word", "", word, {"a", "b"});
    };
    {
        ProgramOptions o("prog");
        make(o);
        auto [ok, err] = ParseLine(o,
                                   {"--count=12",
                                    "--bytes=16M",
                                    "--flag=0",
                                    "--rate=12.5GB/s",
                                    "--delay=500ns",
                                    "--ratio=2.5",
                                    "--cc=none",
                                    "--word=b",
                                    "--count=13"}); // the last one wins
        EXPECT_TRUE(ok) << err;
        EXPECT_EQ(err, "");
        EXPECT_EQ(count, 13u);
        EXPECT_EQ(bytes, 16u << 20);
        EXPECT_FALSE(flag);
        EXPECT_EQ(rate.GetBitRate(), 100000000000ULL);
        EXPECT_EQ(delay, NanoSeconds(500));
        EXPECT_DOUBLE_EQ(ratio, 2.5);
        EXPECT_EQ(cc, "ns3::NoCongestionControl"); // the vocabulary's TypeId for "none"
        EXPECT_EQ(word, "b");
        EXPECT_TRUE(o.IsGiven("count"));
        EXPECT_EQ(o.GetText("count"), "13");
        EXPECT_EQ(o.GetText("rate"), "12.5GB/s");
        EXPECT_TRUE(ParseLine(o, {"--flag"}).first); // a bare flag means true
        EXPECT_TRUE(flag);
        EXPECT_TRUE(ParseLine(o, {"--flag=off"}).first); // as the issue's --alone=off
        EXPECT_FALSE(flag);
        EXPECT_TRUE(ParseLine(o, {"--flag=on"}).first);
        EXPECT_TRUE(flag);
    }
    const std::vector<std::pair<std::string, std::string>> bad{
        {"--count=0", "prog: --count=0: expected an integer from 1 to 100\n"},
        {"--count=1e2", "prog: --count=1e2: expected an integer from 1 to 100\n"},
        {"--count", "prog: --count: expected --count=value\n"},
        {"--bytes=-1",
         "prog: --bytes=-1: expected a size from 1 B to 1024T B like 4096, 64K, 16M or 1G "
         "(K, M, G, T, KiB, MiB, GiB, TiB binary; kB, MB, GB, TB decimal)\n"},
        {"--flag=yes", "prog: --flag=yes: expected true, false, on, off, 1 or 0\n"},
        {"--rate=0bps",
         "prog: --rate=0bps: expected a rate like 400Gbps or 12.5GB/s from 1Mbps to 100Tbps\n"},
        {"--delay=1",
         "prog: --delay=1: expected a non-negative duration like 1us or 2ms (s, ms, us, "
         "ns, ps; at most an hour)\n"},
        {"--ratio=0", "prog: --ratio=0: expected a number above 0 to 10\n"},
        {"--ratio=nan", "prog: --ratio=nan: expected a number above 0 to 10\n"},
        {"--cc=ns3::Cubic",
         "prog: --cc=ns3::Cubic: expected a congestion-control TypeId (ns3::NoCongestionControl, "
         "ns3::RoceDcqcn, ns3::RoceDctcp, ns3::RoceHpcc, ns3::RoceSwift, ns3::RoceTimely) or "
         "none\n"},
        {"--word=c", "prog: --word=c: expected one of a or b\n"},
        {"--other=1", "prog: --other=1: unknown option (see --help)\n"},
        {"-x", "prog: -x: unknown option (see --help)\n"},
        {"x", "prog: x: unexpected argument (options are written --name=value; see --help)\n"},
    };
    for (const auto& [arg, message] : bad)
    {
        ProgramOptions o("prog");
        make(o);
        auto [ok, err] = ParseLine(o, {arg});
        EXPECT_FALSE(ok) << arg;
        EXPECT_EQ(err, message) << arg;
    }
    // A program's own check of a combination names the option the same way.
    ProgramOptions o("prog");
    make(o);
    ASSERT_TRUE(ParseLine(o, {"--count=3"}).first);
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(o.Fail("count", "expected a divisor of --ranks=8"), 1);
    EXPECT_EQ(o.Fail("word", "expected b with --count=3"), 1);
    EXPECT_EQ(::testing::internal::GetCapturedStderr(),
              "prog: --count=3: expected a divisor of --ranks=8\nprog: --word: expected b with "
              "--count=3\n");
}

TEST_F(BadInput, AttributesFromTextAreCheckedByKind)
{
    // What ns-3 itself would abort on (a Time "x", an integer "18 links", an unknown
    // TypeId) is refused with what the attribute takes; good text sets the default.
    struct Case
    {
        std::string path;
        std::string text;
        std::string expected; // empty: accepted
    };

    const std::vector<Case> cases{
        {"ns3::RoceChannel::Delay", "2us", ""},
        {"ns3::RoceChannel::Delay",
         "x",
         "a non-negative duration like 1us or 2ms (s, ms, us, ns, ps; at most an hour)"},
        {"ns3::RoceChannel::Delay",
         "5 fortnights",
         "a non-negative duration like 1us or 2ms (s, ms, us, ns, ps; at most an hour): unknown "
         "unit \" fortnights\""},
        {"ns3::RoceDcqcn::RateAi", "20Mbps", ""},
        {"ns3::RoceDcqcn::RateAi", "10 Mbps", "a positive rate like 400Gbps or 12.5GB/s"},
        {"ns3::RdmaNic::Mtu", "4096", ""},
        {"ns3::RdmaNic::Mtu", "18 links", "an integer (uint32_t 1:9000)"},
        {"ns3::RdmaNic::Mtu", "9001", "an integer (uint32_t 1:9000)"},
        {"ns3::RdmaNic::Mtu", "-1", "an integer (uint32_t 1:9000)"},
        {"ns3::TransformerTraceGenerator::PeakFlops", "312e12", ""},
        {"ns3::TransformerTraceGenerator::PeakFlops", "fast", "a number ("},
        {"ns3::RoceSwitch::Mmu",
         "0",
         "nothing: attributes of type PointerValue cannot be set from a scenario file or the "
         "command line"},
    };
    for (const Case& c : cases)
    {
        const size_t split = c.path.rfind("::");
        TypeId tid = TypeId::LookupByName(c.path.substr(0, split));
        TypeId::AttributeInformation info;
        ASSERT_TRUE(tid.LookupAttributeByName(c.path.substr(split + 2), &info)) << c.path;
        std::string expected;
        Ptr<AttributeValue> v = AttributeValueFromText(info.checker, c.text, &expected);
        if (c.expected.empty())
        {
            ASSERT_TRUE(v) << c.path << "=" << c.text << ": " << expected;
            EXPECT_TRUE(Config::SetDefaultFailSafe(c.path, *v));
        }
        else
        {
            EXPECT_FALSE(v) << c.path << "=" << c.text;
            EXPECT_EQ(expected.rfind(c.expected, 0), 0u)
                << c.path << "=" << c.text << ": " << expected;
        }
    }
}

TEST_F(BadInput, OutputPlacesAreCheckedBeforeTheRun)
{
    const std::string dir = TestDir() + "outputs";
    const std::string file = dir + "-file";
    std::ofstream(file) << "x";
    std::string why;
    // A missing folder is created; a file is not a folder, nor a place for one.
    EXPECT_TRUE(CheckOutputFolder(dir + "/a/b", &why)) << why;
    EXPECT_TRUE(std::filesystem::is_directory(dir + "/a/b"));
    EXPECT_TRUE(std::filesystem::is_empty(dir + "/a/b")); // the probe is gone
    EXPECT_FALSE(CheckOutputFolder(file, &why));
    EXPECT_EQ(why, "not a folder");
    EXPECT_FALSE(CheckOutputFolder(file + "/sub", &why));
    EXPECT_EQ(why.rfind("cannot create it: ", 0), 0u) << why;
    // Files: their folder must exist; a new file is not left behind by the check.
    EXPECT_TRUE(CheckOutputFile(dir + "/out.csv", &why)) << why;
    EXPECT_FALSE(std::filesystem::exists(dir + "/out.csv"));
    EXPECT_TRUE(CheckOutputFile(file, &why)) << why; // exists: kept as it was
    EXPECT_TRUE(std::filesystem::exists(file));
    EXPECT_FALSE(CheckOutputFile(dir, &why));
    EXPECT_EQ(why, "a folder, not a file");
    EXPECT_FALSE(CheckOutputFile(file + "/out.csv", &why));
    EXPECT_EQ(why, "folder " + file + " is not a folder");
    EXPECT_FALSE(CheckOutputFile(dir + "/none/out.csv", &why));
    EXPECT_EQ(why, "folder " + dir + "/none does not exist");
    EXPECT_FALSE(CheckInputFile(dir + "/none.json", &why));
    EXPECT_EQ(why, "cannot open it: No such file or directory");
    EXPECT_FALSE(CheckInputFile(dir, &why));
    EXPECT_EQ(why, "a folder, not a file");
    std::filesystem::remove_all(dir);
    std::filesystem::remove(file);
}

TEST_F(BadInput, TraceKeysAreKnownOrRefused)
{
    // A misspelled optional field is an error naming the file, the place and the keys
    // that kind of object takes; the same trace without the typo reads.
    const std::string head = R"({"schema": "ai-fabric-trace/1", "ranks": 2,
        "groups": [{"name": "world", "ranks": [0, 1]}], "programs": [)";
    const std::string rank1 = R"({"rank": 1, "ops": [{"kind": "compute", "duration_ns": 5}]}]})";
    std::string error;
    EXPECT_EQ(TraceJson::Parse(
                  head + R"({"rank": 0, "ops": [{"kind": "compute", "duration_ns": 5}]},)" + rank1,
                  "t.json",
                  &error)
                  .GetNRanks(),
              2u)
        << error;
    const std::vector<std::pair<std::string, std::string>> bad{
        {head + R"({"rank": 0, "ops": [{"kind": "compute", "durration_ns": 5}]},)" + rank1,
         "t.json: /programs/0/ops/0: unknown key 'durration_ns' (a compute op takes kind, name, "
         "stream, iteration, deps, duration_us, duration_ns)"},
        {head +
             R"({"rank": 0, "ops": [{"kind": "collective", "collective": "all-reduce", "bytes": 8,
                     "group": "world", "algo": "ring"}]},)" +
             rank1,
         "t.json: /programs/0/ops/0: unknown key 'algo' (a collective op takes kind, name, stream, "
         "iteration, deps, collective, bytes, group, algorithm, root)"},
        {head +
             R"({"rank": 0, "ops": [{"kind": "send", "peer": 1, "bytes": 8, "duration_ns": 3}]},)" +
             rank1,
         "t.json: /programs/0/ops/0: unknown key 'duration_ns' (a send op takes kind, name, "
         "stream, "
         "iteration, deps, peer, bytes, tag)"},
        {head + R"({"rank": 0, "ops": [], "device": 0},)" + rank1,
         "t.json: /programs/0: unknown key 'device' (a program takes rank, ops)"},
        {R"({"schema": "ai-fabric-trace/1", "ranks": 1, "group": [],
             "programs": [{"rank": 0, "ops": []}]})",
         "t.json: /: unknown key 'group' (the top level takes schema, name, "},
        {R"({"schema": "ai-fabric-trace/1", "ranks": 1, "groups": [{"name": "g", "ranks": [0], "size": 1}],
             "programs": [{"rank": 0, "ops": []}]})",
         "t.json: /groups/0: unknown key 'size' (a group takes name, kind, ranks)"},
    };
    for (const auto& [text, message] : bad)
    {
        EXPECT_EQ(TraceJson::Parse(text, "t.json", &error).GetNRanks(), 0u) << text;
        EXPECT_EQ(error.rfind(message, 0), 0u) << "got: " << error;
    }
}
