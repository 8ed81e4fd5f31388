// SPDX-License-Identifier: GPL-2.0-only
// In-band network telemetry: the hop record's encoding, switches stamping data frames as
// they leave, the receiver's echo in ACKs, the pcap (ICRC, Wireshark dissector), and no
// header at all for algorithms that do not ask for it.
#include "test-util.h"

#include "ns3/int-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/pcap-file.h"
#include "ns3/udp-header.h"

#include <filesystem>
#include <set>
#include <unistd.h>

using namespace ns3;
using namespace aifabric;

namespace
{
class IntTelemetry : public NsTest
{
};

/// A frame's INT header, if it has one (Ethernet, IPv4, UDP to the INT port, INT).
bool
ReadTelemetry(Ptr<const Packet> frame, IntHeader& out)
{
    Ptr<Packet> p = frame->Copy();
    EthernetHeader eth(false);
    p->RemoveHeader(eth);
    Ipv4Header ip;
    p->RemoveHeader(ip);
    UdpHeader udp;
    p->RemoveHeader(udp);
    if (udp.GetDestinationPort() != int_telemetry::UDP_PORT)
    {
        return false;
    }
    p->RemoveHeader(out);
    return true;
}

/// What the two ends of one write saw.
struct Seen
{
    std::vector<Ptr<const Packet>> dataFrames; //!< arriving at the receiver's NIC
    std::vector<Ptr<const Packet>> acks;       //!< arriving at the sender's NIC
    std::vector<double> utilisation;           //!< the sender's Hpcc Utilization trace
};

void
KeepFrame(std::vector<Ptr<const Packet>>* out, Ptr<const Packet> p)
{
    out->push_back(p);
}

void
KeepValue(std::vector<double>* out, double u)
{
    out->push_back(u);
}

/// One write of bytes over a 100G dumbbell (one host each side: two switches), or a star
/// (one switch), under cc.
Seen
RunOneWrite(const std::string& cc, uint64_t bytes, const std::string& pcap = "", bool star = false)
{
    RoceHelper roce;
    roce.SetCongestionControl(cc);
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo =
        star ? topoHelper.Star(2, DataRate("100Gbps"), MicroSeconds(1))
             : topoHelper.Dumbbell(1, 1, DataRate("100Gbps"), DataRate("100Gbps"), MicroSeconds(1));
    roce.AssignStreams(1);
    if (!pcap.empty())
    {
        roce.EnablePcap(pcap, topo.nics[0]->GetDevice(), false, true);
    }
    Seen seen;
    topo.nics[1]->GetDevice()->TraceConnectWithoutContext(
        "MacRx",
        MakeBoundCallback(&KeepFrame, &seen.dataFrames));
    topo.nics[0]->GetDevice()->TraceConnectWithoutContext(
        "MacRx",
        MakeBoundCallback(&KeepFrame, &seen.acks));
    auto qps = RoceHelper::Connect(topo.nics[0], topo.nics[1]);
    qps.first->GetCongestionControl()->TraceConnectWithoutContext(
        "Utilization",
        MakeBoundCallback(&KeepValue, &seen.utilisation));
    qps.first->PostWrite(bytes);
    Simulator::Run();
    EXPECT_EQ(qps.second->GetBytesReceived(), bytes);
    EXPECT_EQ(qps.first->GetBytesAcked(), bytes) << "every ACK understood";
    EXPECT_EQ(qps.first->GetTimeouts(), 0u);
    Simulator::Destroy();
    return seen;
}
} // namespace

TEST(IntHopRecord, EncodesWithTheHpccSimulatorsWidths)
{
    // 3 bits rate code, 17 bits queue / 80 B, 20 bits tx bytes / 128 B, 24 bits ns.
    const uint64_t word = EncodeIntHop(NanoSeconds(123456789), 1000000000, 1000000, 4);
    const RoceIntHop hop = DecodeIntHop(word);
    EXPECT_EQ(hop.timestamp, NanoSeconds(123456789 % (1 << 24)));
    EXPECT_EQ(hop.txBytes, (1000000000ull / 128 % (1ull << 20)) * 128);
    EXPECT_EQ(hop.queueBytes, 1000000u / 80 * 80);
    EXPECT_EQ(hop.linkRateBps, 100000000000ull);
    EXPECT_EQ(word >> 61, 4u);
    // A queue past the field saturates instead of wrapping.
    EXPECT_EQ(DecodeIntHop(EncodeIntHop(Seconds(0), 0, 20000000, 0)).queueBytes,
              ((1u << 17) - 1) * 80);
    // Every rate of the table round-trips; others have no code.
    for (uint32_t gbps : int_telemetry::RATE_GBPS)
    {
        const int code = IntRateCode(gbps * 1000000000ull);
        ASSERT_GE(code, 0) << gbps;
        EXPECT_EQ(DecodeIntHop(EncodeIntHop(Seconds(0), 0, 0, code)).linkRateBps,
                  gbps * 1000000000ull);
    }
    EXPECT_EQ(IntRateCode(300000000000ull), -1);
    // Differences across the wrap of both counters.
    const RoceIntHop older =
        DecodeIntHop(EncodeIntHop(NanoSeconds((1 << 24) - 10), (1ull << 27) - 256, 0, 4));
    const RoceIntHop newer =
        DecodeIntHop(EncodeIntHop(NanoSeconds((1 << 24) + 5), (1ull << 27) + 512, 0, 4));
    EXPECT_EQ(IntTimeDelta(newer, older), NanoSeconds(15));
    EXPECT_EQ(IntBytesDelta(newer, older), 768u);
}

TEST(IntHopRecord, HeaderRoundTrip)
{
    IntHeader h;
    h.SetCapacity(5);
    h.PushHop(0x1122334455667788ull);
    h.PushHop(0x99AABBCCDDEEFF00ull);
    EXPECT_EQ(h.GetSerializedSize(), 44u); // 4 + 5 x 8: the paper's 42 B plus the port
    Ptr<Packet> p = Create<Packet>(10);
    p->AddHeader(h);
    EXPECT_EQ(p->GetSize(), 54u);
    IntHeader back;
    p->RemoveHeader(back);
    EXPECT_EQ(back.GetCapacity(), 5);
    EXPECT_EQ(back.GetHopCount(), 2);
    EXPECT_FALSE(back.IsEcho());
    EXPECT_EQ(back.GetHop(1), 0x99AABBCCDDEEFF00ull);
    // A full stack takes no more records.
    for (int i = 0; i < 5; ++i)
    {
        back.PushHop(i);
    }
    EXPECT_EQ(back.GetHopCount(), 5);
}

TEST_F(IntTelemetry, EverySwitchStampsAsTheFrameLeaves)
{
    const Seen seen = RunOneWrite("ns3::RoceHpcc", 1 << 20);
    ASSERT_FALSE(seen.dataFrames.empty());
    uint32_t data = 0;
    for (const auto& frame : seen.dataFrames)
    {
        IntHeader h;
        ASSERT_TRUE(ReadTelemetry(frame, h));
        ++data;
        EXPECT_FALSE(h.IsEcho());
        EXPECT_EQ(h.GetCapacity(), 5); // RdmaNic::IntHopCapacity
        ASSERT_EQ(h.GetHopCount(), 2); // two switches on the way
        for (uint8_t i = 0; i < 2; ++i)
        {
            EXPECT_EQ(DecodeIntHop(h.GetHop(i)).linkRateBps, 100000000000ull);
        }
    }
    EXPECT_EQ(data, 256u); // 1 MiB of 4 KiB packets
    // The first frame: the left switch stamps it as its first frame on the bottleneck;
    // the right one a serialization plus the 1 us cable later (nothing queued either).
    IntHeader first;
    ASSERT_TRUE(ReadTelemetry(seen.dataFrames.front(), first));
    const RoceIntHop a = DecodeIntHop(first.GetHop(0));
    const RoceIntHop b = DecodeIntHop(first.GetHop(1));
    const uint32_t frameBytes = seen.dataFrames.front()->GetSize();
    EXPECT_EQ(frameBytes, 14u + 20 + 8 + 44 + 12 + 16 + 4096 + 4); // ... RETH, payload, ICRC
    const uint32_t wire = roce::WireBytes(frameBytes);
    EXPECT_EQ(a.txBytes, wire / 128 * 128);
    EXPECT_EQ(a.queueBytes, 0u);
    const double serialization = wire * 8 / 100e9;
    EXPECT_NEAR(IntTimeDelta(b, a).GetSeconds(), serialization + 1e-6, 1.5e-9);
    // The ACKs echo stacks the receiver saw, marked so no switch stamps them again.
    ASSERT_FALSE(seen.acks.empty());
    std::set<uint64_t> stamped;
    for (const auto& frame : seen.dataFrames)
    {
        IntHeader h;
        ReadTelemetry(frame, h);
        stamped.insert(h.GetHop(0) ^ h.GetHop(1) << 1);
    }
    for (const auto& frame : seen.acks)
    {
        IntHeader h;
        ASSERT_TRUE(ReadTelemetry(frame, h));
        EXPECT_TRUE(h.IsEcho());
        ASSERT_EQ(h.GetHopCount(), 2);
        EXPECT_TRUE(stamped.count(h.GetHop(0) ^ h.GetHop(1) << 1)) << "an echo of a data stack";
    }
    // and the sender's algorithm measured with them.
    EXPECT_GE(seen.utilisation.size(), seen.acks.size() - 2);
}

TEST_F(IntTelemetry, OneSwitchPath)
{
    // The shortest frames: an ACK echoing one hop (74 bytes) must still parse as RoCE.
    const Seen seen = RunOneWrite("ns3::RoceHpcc", 256 << 10, "", true);
    ASSERT_FALSE(seen.acks.empty());
    for (const auto& frame : seen.acks)
    {
        IntHeader h;
        ASSERT_TRUE(ReadTelemetry(frame, h));
        EXPECT_EQ(h.GetHopCount(), 1);
    }
    EXPECT_EQ(seen.acks.front()->GetSize(), 14u + 20 + 8 + 4 + 8 + 12 + 4 + 4);
    EXPECT_FALSE(seen.utilisation.empty());
}

TEST_F(IntTelemetry, NoHeaderUnlessTheAlgorithmAsks)
{
    for (const char* cc : {"ns3::RoceDcqcn", "ns3::RoceDctcp", "ns3::RoceTimely"})
    {
        const Seen seen = RunOneWrite(cc, 64 << 10);
        ASSERT_FALSE(seen.dataFrames.empty());
        IntHeader h;
        EXPECT_FALSE(ReadTelemetry(seen.dataFrames.front(), h)) << cc;
        EXPECT_FALSE(ReadTelemetry(seen.acks.front(), h)) << cc;
        EXPECT_EQ(seen.dataFrames.front()->GetSize(), 14u + 20 + 8 + 12 + 16 + 4096 + 4) << cc;
    }
}

TEST_F(IntTelemetry, PcapShowsTheStackAndTheRoceHeaders)
{
    // Captured at the sender. The ICRC covers the RoCEv2 packet without the transit header: the
    // first data frame of the same flow (same seed) has the same ICRC with and without telemetry.
    const std::string withInt = TestDir() + "int.pcap";
    const std::string without = TestDir() + "noint.pcap";
    RunOneWrite("ns3::RoceHpcc", 16 << 10, withInt);
    RunOneWrite("ns3::NoCongestionControl", 16 << 10, without);
    auto lastFour = [](const std::string& file) {
        PcapFile f;
        f.Open(file, std::ios::in);
        uint8_t buf[9000];
        uint32_t sec;
        uint32_t usec;
        uint32_t incl;
        uint32_t orig;
        uint32_t read;
        f.Read(buf, sizeof(buf), sec, usec, incl, orig, read);
        return std::vector<uint8_t>(buf + read - 4, buf + read);
    };
    EXPECT_EQ(lastFour(withInt), lastFour(without));
    if (HaveTshark())
    {
        const std::string lua = std::string("-X lua_script:") + AI_FABRIC_SOURCE_DIR +
                                "/doc/wireshark/ai-fabric-int.lua";
        const auto rows = Tshark(withInt,
                                 "ai_fabric_int",
                                 {"ai_fabric_int.hops",
                                  "ai_fabric_int.echo",
                                  "ai_fabric_int.hop.rate_gbps",
                                  "infiniband.bth.opcode"},
                                 lua);
        ASSERT_FALSE(rows.empty()) << "the dissector decodes the INT frames";
        uint32_t data = 0;
        uint32_t acks = 0;
        for (const auto& row : rows)
        {
            ASSERT_GE(row.size(), 4u);
            if (row[1] == "True" || row[1] == "1")
            {
                // ACKs coming back: the receiver's echo of two stamped hops.
                ++acks;
                EXPECT_EQ(row[0], "2");
                EXPECT_EQ(row[2], "100,100");
                EXPECT_EQ(row[3], "17"); // RC ACKNOWLEDGE, decoded after the stack
            }
            else
            {
                // Data leaving the sender: room for five hops, none stamped yet.
                ++data;
                EXPECT_EQ(row[0], "0");
                EXPECT_NE(row[3], "17");
            }
        }
        EXPECT_EQ(data, 4u); // 16 KiB: four packets
        EXPECT_GE(acks, 1u);
    }
    std::filesystem::remove(withInt);
    std::filesystem::remove(without);
}
