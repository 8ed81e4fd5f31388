// SPDX-License-Identifier: GPL-2.0-only
// Topology files: good files build the fabric they describe and carry traffic; bad files
// are refused with a message naming the file, the place in it and what was expected, and
// build nothing.
#include "test-util.h"

#include "ns3/roce-topology-reader.h"

#include <cstdio>
#include <fstream>
#include <regex>
#include <string>

using namespace aifabric;

namespace
{
class TopologyFile : public NsTest
{
};

/// 2 leaves x 2 spines, 2 hosts per leaf; hosts use the defaults, uplinks their own rate.
const char* LEAF_SPINE = R"({
  "hosts": [{"name": "h0"}, {"name": "h1"}, {"name": "h2"}, {"name": "h3"}],
  "switches": [{"name": "leaf0"}, {"name": "leaf1"}, {"name": "spine0"}, {"name": "spine1"}],
  "defaults": {"rate": "100Gbps", "delay": "1us"},
  "gpusPerServer": 2,
  "servers": 2,
  "links": [
    {"a": "h0", "b": "leaf0"},
    {"a": "h1", "b": "leaf0"},
    {"a": "leaf1", "b": "h2"},
    {"a": "h3", "b": "leaf1", "rate": "100Gbps", "delay": "500ns"},
    {"a": "leaf0", "b": "spine0", "rate": "200Gbps"},
    {"a": "leaf0", "b": "spine1", "rate": "200Gbps"},
    {"a": "leaf1", "b": "spine0", "rate": "200Gbps", "delay": "2us"},
    {"a": "leaf1", "b": "spine1", "rate": "25GB/s"}
  ]
})";

uint32_t
CountDevices(const NodeContainer& nodes)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        n += nodes.Get(i)->GetNDevices();
    }
    return n;
}

/// Bytes received by host dst after a write of `bytes` from host src.
uint64_t
SendOne(const RoceTopology& topo, uint32_t src, uint32_t dst, uint64_t bytes)
{
    FlowProbe flow;
    flow.Attach(RoceHelper::Connect(topo.nics[src], topo.nics[dst]));
    Simulator::Schedule(Seconds(0), [&flow, bytes]() { flow.sender->PostWrite(bytes); });
    Simulator::Run();
    return flow.BytesReceived();
}

/**
 * A bad file is refused with an error matching pattern (file, place, expectation), and
 * nothing is built: no node joins the global NodeList.
 */
void
ExpectRefused(const std::string& json, const std::string& pattern)
{
    SCOPED_TRACE(json);
    RoceHelper roce;
    RoceTopologyReader reader(roce);
    RoceTopologyFile file;
    std::string error;
    const uint32_t nodesBefore = NodeList::GetNNodes();
    EXPECT_FALSE(reader.ReadString(json, "topology.json", file, &error));
    EXPECT_TRUE(std::regex_search(error, std::regex(pattern)))
        << "expected /" << pattern << "/ in: " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << "one line: " << error;
    EXPECT_EQ(NodeList::GetNNodes(), nodesBefore);
}

/// Read good text; fails the test with the reader's error otherwise.
RoceTopologyFile
ReadGood(RoceTopologyReader& reader, const std::string& json, const std::string& name)
{
    RoceTopologyFile file;
    std::string error;
    EXPECT_TRUE(reader.ReadString(json, name, file, &error)) << error;
    return file;
}

/// A small valid file with one piece replaced, so each bad case differs in one place.
std::string
StarWith(const std::string& hosts, const std::string& links)
{
    return R"({"hosts": )" + hosts + R"(, "switches": [{"name": "sw"}],
  "defaults": {"rate": "100Gbps", "delay": "1us"},
  "links": )" +
           links + "}";
}

const char* TWO_HOSTS = R"([{"name": "h0"}, {"name": "h1"}])";
} // namespace

TEST_F(TopologyFile, LeafSpineBuildsAndCarriesTraffic)
{
    RoceHelper roce;
    roce.SetCongestionControl("ns3::RoceDcqcn");
    RoceTopologyReader reader(roce);
    RoceTopologyFile file = ReadGood(reader, LEAF_SPINE, "leaf-spine.json");
    const RoceTopology& topo = file.topology;
    EXPECT_EQ(topo.hosts.GetN(), 4u);
    EXPECT_EQ(topo.switches.GetN(), 4u);
    EXPECT_EQ(topo.nics.size(), 4u);
    EXPECT_EQ(topo.switchObjects.size(), 4u);
    // 8 cables, a device at each end.
    EXPECT_EQ(CountDevices(topo.hosts) + CountDevices(topo.switches), 16u);
    EXPECT_EQ(CountDevices(topo.switches), 12u);
    EXPECT_EQ(file.gpusPerServer, 2u);
    ASSERT_EQ(file.hostNames.size(), 4u);
    EXPECT_EQ(file.hostNames[2], "h2");
    EXPECT_EQ(file.switchNames[3], "spine1");
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(topo.nics[i]->GetAddress(), RoceTopologyHelper::HostAddress(i));
        EXPECT_EQ(topo.nics[i]->GetDevice()->GetNode(), topo.hosts.Get(i));
    }
    // Leaf 0 reaches the far leaf's hosts over both spines: an ECMP set of two ports.
    const std::vector<uint32_t>* ports =
        topo.switchObjects[0]->GetRoutingTable().Lookup(RoceTopologyHelper::HostAddress(3).Get());
    ASSERT_NE(ports, nullptr);
    EXPECT_EQ(ports->size(), 2u);

    EXPECT_EQ(SendOne(topo, 0, 3, 1 << 20), uint64_t(1) << 20);
}

TEST_F(TopologyFile, CountFormsAndFileOnDisk)
{
    // 8 hosts in 2 servers of 4 GPUs, one switch per server, both on one spine.
    std::string json = R"({
      "hosts": {"count": 8, "prefix": "gpu"},
      "switches": {"count": 3},
      "gpusPerServer": 4,
      "defaults": {"rate": "400Gbps", "delay": "1us"},
      "links": [
        {"a": "gpu0", "b": "sw0"}, {"a": "gpu1", "b": "sw0"},
        {"a": "gpu2", "b": "sw0"}, {"a": "gpu3", "b": "sw0"},
        {"a": "gpu4", "b": "sw1"}, {"a": "gpu5", "b": "sw1"},
        {"a": "gpu6", "b": "sw1"}, {"a": "gpu7", "b": "sw1"},
        {"a": "sw0", "b": "sw2", "rate": "1.6Tbps"}, {"a": "sw1", "b": "sw2", "rate": "1.6Tbps"}
      ]
    })";
    std::string path = TestDir() + "topology-count.json";
    {
        std::ofstream out(path);
        out << json;
    }
    RoceHelper roce;
    RoceTopologyReader reader(roce);
    RoceTopologyFile file;
    std::string error;
    ASSERT_TRUE(reader.Read(path, file, &error)) << error;
    std::remove(path.c_str());
    EXPECT_EQ(file.topology.hosts.GetN(), 8u);
    EXPECT_EQ(file.topology.switches.GetN(), 3u);
    EXPECT_EQ(CountDevices(file.topology.switches), 12u); // 8 host ports + 2 x 2 uplink ends
    EXPECT_EQ(file.hostNames[7], "gpu7");
    EXPECT_EQ(file.switchNames[2], "sw2");
    EXPECT_EQ(file.gpusPerServer, 4u);
    EXPECT_EQ(SendOne(file.topology, 1, 6, 256 << 10), uint64_t(256) << 10);
}

TEST_F(TopologyFile, TwoHostsBackToBack)
{
    RoceHelper roce;
    RoceTopologyReader reader(roce);
    RoceTopologyFile file = ReadGood(reader,
                                     R"({"hosts": {"count": 2}, "switches": [],
            "links": [{"a": "h0", "b": "h1", "rate": "10Gbps", "delay": "10ns"}]})",
                                     "b2b.json");
    EXPECT_EQ(file.topology.switches.GetN(), 0u);
    EXPECT_EQ(SendOne(file.topology, 1, 0, 8192), 8192u);
}

// A cable so long that a switch's PFC headroom (twice the bandwidth-delay product per
// lossless priority) does not fit its buffer: refused by the reader, naming the switch,
// before anything is built (the switch's MMU used to abort when it was installed).
TEST_F(TopologyFile, LinksThatDoNotFitTheSwitchBufferAreRefused)
{
    ExpectRefused(
        R"({"hosts": [{"name": "h0"}, {"name": "h1"}], "switches": [{"name": "sw"}],
            "defaults": {"rate": "100Gbps", "delay": "10ms"},
            "links": [{"a": "h0", "b": "sw"}, {"a": "h1", "b": "sw"}]})",
        "topology.json: switch \"sw\": its links do not fit its buffer \\(SharedBufferMmu: "
        "reserves and PFC headroom \\([0-9]+ B over 2 ports\\) leave no shared buffer in "
        "BufferSize = [0-9]+ B; raise BufferSize");
}

TEST_F(TopologyFile, SyntaxErrorGivesLine)
{
    // Missing comma at the end of line 3; the parser trips on line 4.
    std::string json = "{\n  \"hosts\": {\"count\": 2},\n  \"switches\": []\n  \"links\": []\n}\n";
    ExpectRefused(
        json,
        "topology.json: line 4, column 3: not valid JSON: syntax error while parsing object");
    ExpectRefused(
        "{\"hosts\": [\n",
        "topology.json: line 2, column 1: not valid JSON: syntax error while parsing value");
}

TEST_F(TopologyFile, MissingLinks)
{
    ExpectRefused(R"({"hosts": {"count": 2}, "switches": []})",
                  "topology.json: top level: missing \"links\"");
}

TEST_F(TopologyFile, MissingFields)
{
    ExpectRefused(R"({"switches": [], "links": []})",
                  "topology.json: top level: missing \"hosts\"");
    ExpectRefused(StarWith(TWO_HOSTS, R"([{"a": "h0", "b": "sw"}, {"a": "h1"}])"),
                  "topology.json: links\\[1\\]: missing \"b\"");
    ExpectRefused(R"({"hosts": [{"name": "h0"}, {}], "switches": [], "links": []})",
                  "topology.json: hosts\\[1\\]: missing \"name\"");
    ExpectRefused(R"({"hosts": {"count": 2}, "switches": [],
                           "links": [{"a": "h0", "b": "h1", "delay": "1us"}]})",
                  "topology.json: links\\[0\\]: missing \"rate\"");
}

TEST_F(TopologyFile, UnknownNode)
{
    ExpectRefused(StarWith(TWO_HOSTS, R"([{"a": "h0", "b": "sw"}, {"a": "h1", "b": "leaf9"}])"),
                  "topology.json: links\\[1\\].b: unknown node 'leaf9'");
}

TEST_F(TopologyFile, NegativeOrZeroRate)
{
    ExpectRefused(
        StarWith(TWO_HOSTS,
                 R"([{"a": "h0", "b": "sw", "rate": "-5Gbps"}, {"a": "h1", "b": "sw"}])"),
        "topology.json: links\\[0\\].rate: expected a positive rate like \"400Gbps\", got "
        "\"-5Gbps\"");
    ExpectRefused(
        StarWith(TWO_HOSTS, R"([{"a": "h0", "b": "sw"}, {"a": "h1", "b": "sw", "rate": "0Gbps"}])"),
        "links\\[1\\].rate: expected a positive rate");
    ExpectRefused(
        StarWith(TWO_HOSTS,
                 R"([{"a": "h0", "b": "sw", "rate": "400Gbit"}, {"a": "h1", "b": "sw"}])"),
        "links\\[0\\].rate: .*unknown unit \"Gbit\"");
}

TEST_F(TopologyFile, BadDelayUnit)
{
    ExpectRefused(
        StarWith(TWO_HOSTS,
                 R"([{"a": "h0", "b": "sw"}, {"a": "h1", "b": "sw", "delay": "1usec"}])"),
        "topology.json: links\\[1\\].delay: expected a non-negative delay like \"1us\", got "
        "\"1usec\" \\(unknown unit \"usec\"");
    ExpectRefused(R"({"hosts": {"count": 2}, "switches": [], "defaults": {"delay": "-1us"},
                           "links": [{"a": "h0", "b": "h1", "rate": "1Gbps"}]})",
                  "topology.json: defaults.delay: expected a non-negative delay");
}

TEST_F(TopologyFile, DuplicateName)
{
    ExpectRefused(StarWith(R"([{"name": "h0"}, {"name": "sw"}])", R"([{"a": "h0", "b": "sw"}])"),
                  "topology.json: switches\\[0\\]: duplicate node name 'sw'");
}

TEST_F(TopologyFile, SelfLink)
{
    ExpectRefused(StarWith(TWO_HOSTS,
                           R"([{"a": "h0", "b": "sw"}, {"a": "h1", "b": "sw"},
                                    {"a": "sw", "b": "sw"}])"),
                  "topology.json: links\\[2\\]: links node 'sw' to itself");
}

TEST_F(TopologyFile, HostWithTwoLinks)
{
    ExpectRefused(StarWith(TWO_HOSTS,
                           R"([{"a": "h0", "b": "sw"}, {"a": "h1", "b": "sw"},
                                    {"a": "sw", "b": "h0"}])"),
                  "topology.json: hosts\\[0\\]: host 'h0' has 2 links \\(links\\[0\\] and "
                  "links\\[2\\]\\); expected exactly one");
}

TEST_F(TopologyFile, HostWithoutLink)
{
    ExpectRefused(StarWith(TWO_HOSTS, R"([{"a": "h0", "b": "sw"}])"),
                  "topology.json: hosts\\[1\\]: host 'h1' has no link");
}

TEST_F(TopologyFile, DisconnectedHost)
{
    ExpectRefused(R"({"hosts": {"count": 3}, "switches": {"count": 2},
                           "defaults": {"rate": "100Gbps", "delay": "1us"},
                           "links": [{"a": "h0", "b": "sw0"}, {"a": "h1", "b": "sw0"},
                                     {"a": "h2", "b": "sw1"}]})",
                  "topology.json: hosts\\[2\\]: host 'h2' is disconnected: no path to host 'h0'");
}

TEST_F(TopologyFile, WrongTypes)
{
    ExpectRefused(
        StarWith(TWO_HOSTS, R"([{"a": "h0", "b": "sw", "rate": 400}, {"a": "h1", "b": "sw"}])"),
        "topology.json: links\\[0\\].rate: expected a string, got an integer \\(400\\)");
    ExpectRefused(R"({"hosts": {"count": "4"}, "switches": [], "links": []})",
                  "topology.json: hosts.count: expected a positive integer, got \"4\"");
    ExpectRefused(R"({"hosts": {"count": 2}, "switches": [], "links": {}})",
                  "topology.json: links: expected a list of link objects, got an object");
    ExpectRefused(R"([1, 2])", "topology.json: top level: expected a JSON object");
}

TEST_F(TopologyFile, MisspelledKey)
{
    ExpectRefused(
        StarWith(TWO_HOSTS, R"([{"a": "h0", "b": "sw", "dealy": "1us"}, {"a": "h1", "b": "sw"}])"),
        "topology.json: links\\[0\\]: unknown key \"dealy\"");
}

TEST_F(TopologyFile, ServerGroupingMustDivideHosts)
{
    ExpectRefused(R"({"hosts": {"count": 2}, "switches": [], "gpusPerServer": 4,
                           "links": []})",
                  "topology.json: gpusPerServer: expected a divisor of the host count 2, got 4");
}

TEST_F(TopologyFile, FileNotFound)
{
    RoceHelper roce;
    RoceTopologyFile file;
    std::string error;
    EXPECT_FALSE(RoceTopologyReader(roce).Read("/nonexistent/dir/fabric.json", file, &error));
    EXPECT_EQ(
        error,
        "/nonexistent/dir/fabric.json: cannot open topology file (No such file or directory)");
}

TEST_F(TopologyFile, UnknownKeysEverywhere)
{
    // Each kind of object takes only its own keys.
    ExpectRefused(R"({"hosts": {"count": 2}, "switches": [], "link": [],
                      "links": [{"a": "h0", "b": "h1", "rate": "1Gbps", "delay": "1us"}]})",
                  "topology.json: top level: unknown key \"link\" \\(expected one of \"defaults\", "
                  "\"gpusPerServer\", \"hosts\", \"links\", \"servers\", \"switches\"\\)");
    ExpectRefused(R"({"hosts": [{"name": "h0", "rack": 1}, {"name": "h1"}], "switches": [],
                      "links": [{"a": "h0", "b": "h1", "rate": "1Gbps", "delay": "1us"}]})",
                  "topology.json: hosts\\[0\\]: unknown key \"rack\"");
    ExpectRefused(R"({"hosts": {"count": 2, "prefx": "gpu"}, "switches": [],
                      "links": [{"a": "h0", "b": "h1", "rate": "1Gbps", "delay": "1us"}]})",
                  "topology.json: hosts: unknown key \"prefx\"");
    ExpectRefused(R"({"hosts": {"count": 2}, "switches": [], "defaults": {"mtu": 9000},
                      "links": [{"a": "h0", "b": "h1", "rate": "1Gbps", "delay": "1us"}]})",
                  "topology.json: defaults: unknown key \"mtu\"");
}
