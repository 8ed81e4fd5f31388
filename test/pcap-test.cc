// SPDX-License-Identifier: GPL-2.0-only
// pcap captures users can trust: both ends of one cable hold the same frames, the last
// ones included (files are complete after Simulator::Destroy); stamps are nanoseconds
// (magic 0xa1b23c4d), so back-to-back 400G frames 83.56 ns apart all differ; the main
// program captures the nodes it is asked for, under the names of its reports.
#include "test-util.h"

#include "ns3/training-simulation.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace aifabric;

namespace
{
/// One record of a pcap file.
struct Frame
{
    int64_t ns{0};              //!< timestamp
    std::vector<uint8_t> bytes; //!< captured bytes (the whole frame: no snap length)
    uint32_t origLen{0};
};

/// A pcap file read byte by byte (not through ns-3, which hides the magic's meaning).
struct Capture
{
    uint32_t magic{0};
    uint32_t linkType{0};
    std::vector<Frame> frames;
    bool truncated{false}; //!< a record header or body ended early
};

uint32_t
Le32(const uint8_t* p)
{
    uint32_t v;
    std::memcpy(&v, p, 4); // ns-3 writes the host's order; the tests run on that host
    return v;
}

Capture
ReadCapture(const std::string& file)
{
    Capture c;
    std::ifstream in(file, std::ios::binary);
    uint8_t header[24];
    if (!in.read(reinterpret_cast<char*>(header), sizeof(header)))
    {
        c.truncated = true;
        return c;
    }
    c.magic = Le32(header);
    c.linkType = Le32(header + 20);
    const int64_t fractionNs = c.magic == 0xa1b23c4d ? 1 : 1000; // nanosecond or microsecond
    uint8_t rec[16];
    while (in.read(reinterpret_cast<char*>(rec), sizeof(rec)))
    {
        Frame f;
        f.ns = Le32(rec) * int64_t{1000000000} + Le32(rec + 4) * fractionNs;
        f.bytes.resize(Le32(rec + 8));
        f.origLen = Le32(rec + 12);
        if (!in.read(reinterpret_cast<char*>(f.bytes.data()), f.bytes.size()))
        {
            c.truncated = true;
            break;
        }
        c.frames.push_back(std::move(f));
    }
    if (in.gcount() != 0 && in.gcount() != 16)
    {
        c.truncated = true;
    }
    return c;
}

/// The Ethernet source address of a captured frame.
std::vector<uint8_t>
Source(const Frame& f)
{
    return {f.bytes.begin() + 6, f.bytes.begin() + 12};
}

std::vector<uint8_t>
MacBytes(Ptr<NetDevice> dev)
{
    uint8_t mac[6];
    Mac48Address::ConvertFrom(dev->GetAddress()).CopyTo(mac);
    return {mac, mac + 6};
}

RoceFrameInfo
Decode(const Frame& f)
{
    RoceFrameInfo info;
    ParseRoceFrame(Create<Packet>(f.bytes.data(), f.bytes.size()), info);
    return info;
}

/// Output of a shell command (stdout only).
std::string
Shell(const std::string& cmd)
{
    std::string out;
    FILE* pipe = popen((cmd + " 2>/dev/null").c_str(), "r");
    if (!pipe)
    {
        return out;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0)
    {
        out.append(buf, n);
    }
    pclose(pipe);
    return out;
}

bool
HaveTool(const std::string& tool)
{
    return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

/// Frames of one capture of a host's cable: those the host sent and those it received.
struct Directions
{
    std::vector<const Frame*> fromHost;
    std::vector<const Frame*> toHost;
};

/// Split a capture of a host's cable by direction: the host's frames carry its address.
Directions
Split(const Capture& c, const std::vector<uint8_t>& hostMac)
{
    Directions d;
    for (const Frame& f : c.frames)
    {
        (Source(f) == hostMac ? d.fromHost : d.toHost).push_back(&f);
    }
    return d;
}

/**
 * The received side of one direction of a cable holds the sent side's frames, in order,
 * with the same bytes, stamped when the last bit arrived (transmission start +
 * serialization at bitsPerNs + delay, within 1 ns: stamps are whole ns); the frames
 * missing at the end are those that had not arrived when the run ended at endNs.
 */
void
ExpectDelivered(const std::vector<const Frame*>& sent,
                const std::vector<const Frame*>& received,
                double bitsPerNs,
                int64_t delayNs,
                int64_t endNs)
{
    ASSERT_LE(received.size(), sent.size());
    for (size_t i = 0; i < sent.size(); ++i)
    {
        ASSERT_EQ(sent[i]->origLen, sent[i]->bytes.size()) << "frame " << i;
        const double arrival =
            sent[i]->ns + roce::WireBytes(sent[i]->origLen) * 8.0 / bitsPerNs + delayNs;
        if (i < received.size())
        {
            ASSERT_EQ(sent[i]->bytes, received[i]->bytes) << "frame " << i;
            ASSERT_NEAR(static_cast<double>(received[i]->ns), arrival, 1.0) << "frame " << i;
        }
        else
        {
            ASSERT_GE(arrival, endNs - 1.0) << "frame " << i << " arrived but is not captured";
        }
    }
}

/**
 * Both captures of the cable between a host and a switch port: each holds every frame
 * its own end sent (hostTx, portTx: the devices' counters) and what the other end's
 * frames delivered by endNs (ExpectDelivered).
 */
void
ExpectSameCable(const Capture& hostCapture,
                const Capture& portCapture,
                const std::vector<uint8_t>& hostMac,
                uint64_t hostTx,
                uint64_t portTx,
                double bitsPerNs,
                int64_t delayNs,
                int64_t endNs)
{
    ASSERT_FALSE(hostCapture.truncated);
    ASSERT_FALSE(portCapture.truncated);
    const Directions h = Split(hostCapture, hostMac);
    const Directions p = Split(portCapture, hostMac);
    EXPECT_EQ(h.fromHost.size(), hostTx);
    EXPECT_EQ(p.toHost.size(), portTx);
    ExpectDelivered(h.fromHost, p.fromHost, bitsPerNs, delayNs, endNs);
    ExpectDelivered(p.toHost, h.toHost, bitsPerNs, delayNs, endNs);
}

class Pcap : public NsTest
{
  protected:
    void SetUp() override
    {
        NsTest::SetUp();
        // The test's own folder: ctest runs the tests of a suite in parallel.
        dir = TestDir();
    }

    /**
     * One host writes one message to another through a switch at 400 Gb/s, 1.5 us
     * cables; the sender's port and the switch port at the other end of its cable are
     * captured into host.pcap and switch.pcap. Runs (until stop, if not zero), reads
     * the counters, destroys the simulator (which completes the files).
     */
    void RunOneMessage(uint64_t bytes, Time stop = Time())
    {
        RoceHelper roce;
        RoceTopologyHelper topoHelper(roce);
        RoceTopology topo = topoHelper.Star(2, rate, delay);
        roce.AssignStreams(1);
        Ptr<RoceNetDevice> host = topo.nics[0]->GetDevice();
        Ptr<RoceNetDevice> port = host->GetRoceChannel()->GetPeer(host);
        roce.EnablePcap((dir / "host.pcap").string(), host, false, true);
        roce.EnablePcap((dir / "switch.pcap").string(), port, false, true);
        probe.Attach(RoceHelper::Connect(topo.nics[0], topo.nics[1]));
        Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, probe.sender, bytes);
        if (stop.IsStrictlyPositive())
        {
            Simulator::Stop(stop);
        }
        Simulator::Run();
        endNs = Simulator::Now().GetNanoSeconds();
        hostMac = MacBytes(host);
        hostTx = host->GetTxFrames();
        portTx = port->GetTxFrames();
        Simulator::Destroy();
        hostCapture = ReadCapture((dir / "host.pcap").string());
        portCapture = ReadCapture((dir / "switch.pcap").string());
    }

    std::filesystem::path dir;
    const DataRate rate{"400Gbps"};
    const Time delay{NanoSeconds(1500)};
    std::vector<uint8_t> hostMac;
    uint64_t hostTx{0};
    uint64_t portTx{0};
    int64_t endNs{0};
    FlowProbe probe;
    Capture hostCapture;
    Capture portCapture;
};

/// Exact serialization time of a frame on the tests' 400G cables, in nanoseconds.
double
TxNs(uint32_t frameBytes)
{
    return roce::WireBytes(frameBytes) * 8.0 / 400.0;
}
} // namespace

TEST_F(Pcap, BothEndsOfOneCableHoldTheSameFramesUpToTheLast)
{
    RunOneMessage(1 << 20);
    ASSERT_EQ(probe.sent.size(), 1u);
    // 256 data frames of 4096 B one way (a message's first and last frames are longer
    // by their RETH/immediate), their ACKs the other; the run ended with everything
    // delivered, so both files hold exactly the frames both ends sent.
    ASSERT_GE(hostTx, 256u);
    ASSERT_GE(portTx, 1u);
    EXPECT_EQ(hostCapture.frames.size(), hostTx + portTx);
    EXPECT_EQ(portCapture.frames.size(), hostTx + portTx);
    ExpectSameCable(hostCapture,
                    portCapture,
                    hostMac,
                    hostTx,
                    portTx,
                    400.0,
                    delay.GetNanoSeconds(),
                    endNs);
    // The last frame of the sender's capture is the ACK that completed its message,
    // stamped at the completion.
    ASSERT_FALSE(hostCapture.frames.empty());
    const RoceFrameInfo last = Decode(hostCapture.frames.back());
    EXPECT_EQ(last.kind, RoceFrameInfo::ROCE);
    EXPECT_EQ(last.opcode, BthHeader::RC_ACKNOWLEDGE);
    EXPECT_EQ(hostCapture.frames.back().ns, probe.sent.back().time.GetNanoSeconds());
}

TEST_F(Pcap, FilesAreCompleteAfterARunStoppedMidTransfer)
{
    // Stopped after 50 us of an 8 MiB message (as the main program stops when its
    // workload finishes): each file holds all its own end sent, and the other end's
    // frames up to those still on the cable at the stop.
    RunOneMessage(8 << 20, MicroSeconds(50));
    EXPECT_EQ(endNs, 50000);
    EXPECT_TRUE(probe.sent.empty());
    // About 50 us / 83.56 ns = 598 data frames, less the first round trip.
    EXPECT_GT(hostTx, 550u);
    EXPECT_LT(hostTx, 600u);
    ExpectSameCable(hostCapture,
                    portCapture,
                    hostMac,
                    hostTx,
                    portTx,
                    400.0,
                    delay.GetNanoSeconds(),
                    endNs);
}

TEST_F(Pcap, NanosecondStampsSeparateBackToBack400GFrames)
{
    RunOneMessage(1 << 20);
    // The pcap global header's magic says nanosecond stamps (libpcap's 0xa1b23c4d).
    EXPECT_EQ(hostCapture.magic, 0xa1b23c4du);
    EXPECT_EQ(portCapture.magic, 0xa1b23c4du);
    EXPECT_EQ(hostCapture.linkType, 1u); // DLT_EN10MB
    // Full data frames (4096 B payload, 4154 B captured, 4178 B on the wire) leave the
    // NIC back to back: 4178 x 8 / 400 = 83.56 ns apart, so every stamp is distinct
    // and consecutive stamps differ by 83 or 84 ns; their mean is 83.56 within 1 ns /
    // the number of gaps. Microsecond stamps would put 11-12 frames on each stamp.
    std::vector<int64_t> stamps;
    for (const Frame* f : Split(hostCapture, hostMac).fromHost)
    {
        if (f->origLen == 4154)
        {
            stamps.push_back(f->ns);
        }
    }
    ASSERT_GE(stamps.size(), 250u);
    for (size_t i = 1; i < stamps.size(); ++i)
    {
        const int64_t gap = stamps[i] - stamps[i - 1];
        ASSERT_TRUE(gap == 83 || gap == 84) << "gap " << i << " is " << gap << " ns";
    }
    const double mean = static_cast<double>(stamps.back() - stamps.front()) / (stamps.size() - 1);
    EXPECT_NEAR(mean, TxNs(4154), 1.0 / (stamps.size() - 1));
}

TEST_F(Pcap, CapinfosAndTsharkShowNanosecondPrecision)
{
    if (!HaveTool("capinfos") || !HaveTool("tshark"))
    {
        GTEST_SKIP() << "capinfos/tshark not installed (apt-get install tshark)";
    }
    RunOneMessage(1 << 20);
    const std::string file = (dir / "host.pcap").string();
    const std::string info = Shell("capinfos '" + file + "'");
    EXPECT_NE(info.find("nanoseconds (9)"), std::string::npos) << info;
    EXPECT_NE(info.find("Number of packets:   " + std::to_string(hostTx + portTx)),
              std::string::npos)
        << info;
    // tshark prints the stamps with nine decimals; the message's first three frames
    // (WRITE FIRST, MIDDLE, MIDDLE) are 83 or 84 ns apart.
    const std::string epochs =
        Shell("tshark -n -r '" + file + "' -c 3 -T fields -e frame.time_epoch");
    std::vector<int64_t> ns;
    std::istringstream lines(epochs);
    for (std::string line; std::getline(lines, line);)
    {
        const size_t dot = line.find('.');
        ASSERT_NE(dot, std::string::npos) << epochs;
        ASSERT_EQ(line.size() - dot - 1, 9u) << "not nine decimals: " << line;
        ns.push_back(std::stoll(line.substr(0, dot)) * 1000000000LL +
                     std::stoll(line.substr(dot + 1)));
    }
    ASSERT_EQ(ns.size(), 3u) << epochs;
    for (size_t i = 1; i < ns.size(); ++i)
    {
        EXPECT_TRUE(ns[i] - ns[i - 1] == 83 || ns[i] - ns[i - 1] == 84) << epochs;
    }
}

TEST_F(Pcap, PrefixCheckNamesTheFolder)
{
    std::string error;
    EXPECT_TRUE(RoceHelper::CheckPcapPrefix((dir / "run").string(), &error)) << error;
    EXPECT_TRUE(RoceHelper::CheckPcapPrefix("run", &error)) << error;
    EXPECT_FALSE(RoceHelper::CheckPcapPrefix("", &error));
    EXPECT_NE(error.find("empty"), std::string::npos) << error;
    EXPECT_FALSE(RoceHelper::CheckPcapPrefix((dir / "missing" / "run").string(), &error));
    EXPECT_NE(error.find("folder '" + (dir / "missing").string() + "'"), std::string::npos)
        << error;
    EXPECT_NE(error.find("does not exist"), std::string::npos) << error;
}

namespace
{
/// A small scenario: two servers of two GPUs, rail-optimized with one spine.
const std::string SMALL = R"("cluster": {"servers": 2, "gpusPerServer": 2, "spines": 1},
    "workload": {"format": "generator", "model": {"layers": 1, "hidden": 256, "heads": 4,
    "seqLength": 64, "vocab": 100, "tp": 2, "dp": 2, "globalBatch": 2}})";
} // namespace

TEST_F(Pcap, MainProgramCapturesTheNamedNodes)
{
    const std::string prefix = (dir / "run").string();
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse("{" + SMALL + R"(, "outputs": {"plots": false, "pcap": ")" +
                                            prefix + R"(", "pcapNodes": "nic0,sw0"}})",
                                        "scn.json",
                                        s,
                                        &error))
        << error;
    EXPECT_EQ(s.pcapPrefix, prefix);
    EXPECT_EQ(s.pcapNodes, "nic0,sw0");
    // nic0's cable, as links.csv names it: nic0 -> its leaf, and the leaf's port back.
    std::vector<uint8_t> nicMac;
    uint64_t nicTx = 0;
    uint64_t portTx = 0;
    uint32_t port = 0;
    uint32_t sw0Ports = 0;
    int64_t endNs = 0;
    int64_t delayNs = 0;
    double bitsPerNs = 0;
    {
        TrainingSimulation sim(s);
        ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
        sim.Run(false);
        ASSERT_TRUE(sim.GetRunner()->IsFinished());
        endNs = Simulator::Now().GetNanoSeconds();
        for (const auto& l : sim.GetMonitor()->GetLinks())
        {
            if (l.from == "nic0")
            {
                ASSERT_EQ(l.to, "sw0") << "the test expects nic0 on leaf sw0";
                nicMac = MacBytes(l.device);
                nicTx = l.device->GetTxFrames();
                delayNs = l.device->GetRoceChannel()->GetDelay().GetNanoSeconds();
                bitsPerNs = l.device->GetDataRate().GetBitRate() / 1e9;
            }
            if (l.from == "sw0" && l.to == "nic0")
            {
                port = l.port;
                portTx = l.device->GetTxFrames();
            }
        }
        sw0Ports = sim.GetMonitor()->GetSwitches().at(0).second->GetNPorts();
        Simulator::Destroy(); // as the program does: the capture files are complete
    }
    ASSERT_GT(nicTx, 0u);
    ASSERT_GT(portTx, 0u);
    std::set<std::string> expected{"run-nic0.pcap"};
    for (uint32_t p = 0; p < sw0Ports; ++p)
    {
        expected.insert("run-sw0-" + std::to_string(p) + ".pcap");
    }
    std::set<std::string> written;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
    {
        written.insert(entry.path().filename().string());
    }
    EXPECT_EQ(written, expected);
    ExpectSameCable(ReadCapture(prefix + "-nic0.pcap"),
                    ReadCapture(prefix + "-sw0-" + std::to_string(port) + ".pcap"),
                    nicMac,
                    nicTx,
                    portTx,
                    bitsPerNs,
                    delayNs,
                    endNs);
}

TEST_F(Pcap, MainProgramRefusesBadCaptureSettings)
{
    auto buildFails = [this](const std::string& outputs, const std::string& expect) {
        TrainingScenario s;
        std::string error;
        ASSERT_TRUE(TrainingScenario::Parse("{" + SMALL + ", \"outputs\": {\"plots\": false" +
                                                outputs + "}}",
                                            "scn.json",
                                            s,
                                            &error))
            << error;
        TrainingSimulation sim(s);
        EXPECT_FALSE(sim.ApplyGlobalSettings(&error) && sim.Build(&error));
        EXPECT_NE(error.find(expect), std::string::npos)
            << "expected '" << expect << "' in: " << error;
    };
    const std::string prefix = (dir / "run").string();
    buildFails(", \"pcap\": \"" + prefix + "\", \"pcapNodes\": \"nic0,leaf7\"",
               "--pcapNodes (/outputs/pcapNodes of scn.json): \"leaf7\" is not a node; expected "
               "comma-separated names nic0..nic3, sw0..sw2");
    buildFails(", \"pcapNodes\": \"nic0\"",
               "--pcapNodes (/outputs/pcapNodes of scn.json): needs a --pcap prefix");
    buildFails(", \"pcap\": \"" + (dir / "missing" / "run").string() + "\"",
               "--pcap (/outputs/pcap of scn.json): folder '" + (dir / "missing").string() +
                   "' of prefix");
    TrainingScenario s;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse(
        R"({"cluster": {"topology": "ideal", "servers": 1, "gpusPerServer": 2},
        "workload": {"format": "generator", "model": {"layers": 1, "hidden": 256, "heads": 4,
        "seqLength": 64, "vocab": 100, "tp": 2, "globalBatch": 1}},
        "outputs": {"plots": false, "pcap": ")" +
            prefix + "\"}}",
        "ideal.json",
        s,
        &error))
        << error;
    TrainingSimulation sim(s);
    EXPECT_FALSE(sim.ApplyGlobalSettings(&error) && sim.Build(&error));
    EXPECT_NE(
        error.find("--pcap (/outputs/pcap of ideal.json): the ideal topology sends no packets"),
        std::string::npos)
        << error;
    EXPECT_FALSE(TrainingScenario::Parse(R"({"outputs": {"pcap": 3}})", "scn.json", s, &error));
    EXPECT_NE(error.find("/outputs/pcap: expected a string"), std::string::npos) << error;
    // Nothing was written by the refused runs.
    EXPECT_TRUE(std::filesystem::is_empty(dir));
}
