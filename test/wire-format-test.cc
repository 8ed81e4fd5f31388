// SPDX-License-Identifier: GPL-2.0-only
// What the model puts on the wire decodes as RoCEv2 and PFC in tshark.
#include "test-util.h"

#include "ns3/pcap-file.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace aifabric;

namespace
{
class WireFormat : public NsTest
{
  protected:
    static void SetUpTestSuite()
    {
        if (!HaveTshark())
        {
            return; // SetUp skips every test
        }
        // One folder per process: ctest runs each test of this suite as its own process,
        // in parallel, and each captures its own run.
        dir = TestDir();
        Config::Reset();
        // A 2:1 incast with a small buffer and low ECN thresholds, no congestion control
        // (the senders keep line rate, so PFC must act): data, ACKs, CNPs and PFC all
        // appear on the first sender's cable.
        RoceHelper roce;
        RoceTopology topo = SmallBufferStar(roce);
        roce.EnablePcap((dir / "sender").string(), topo.nics[0]->GetDevice(), false, true);
        const auto connections = StartTwoToOneIncast(topo);
        senderQpn = connections[0].first->GetQpn();
        receiverQpn = connections[0].second->GetQpn();
        Simulator::Run();
        Simulator::Destroy();
        capture = (dir / "sender").string();
    }

    static void TearDownTestSuite()
    {
        if (!dir.empty())
        {
            std::filesystem::remove_all(dir);
        }
    }

    void SetUp() override
    {
        NsTest::SetUp();
        if (capture.empty())
        {
            GTEST_SKIP() << "tshark not installed (apt-get install tshark): the captures "
                            "cannot be decoded, wire format not checked";
        }
    }

    static std::filesystem::path dir;
    static std::string capture;
    static uint32_t senderQpn;
    static uint32_t receiverQpn;
};

std::filesystem::path WireFormat::dir;
std::string WireFormat::capture;
uint32_t WireFormat::senderQpn = 0;
uint32_t WireFormat::receiverQpn = 0;

uint64_t
Number(const std::string& s)
{
    return std::stoull(s, nullptr, 0);
}
} // namespace

TEST_F(WireFormat, DataDecodesAsRoceWriteWithBthFields)
{
    auto rows = Tshark(capture,
                       "infiniband.bth.opcode==0x07",
                       {"udp.dstport",
                        "infiniband.bth.destqp",
                        "infiniband.bth.psn",
                        "frame.len",
                        "ip.dsfield.dscp",
                        "ip.dsfield.ecn"});
    ASSERT_GT(rows.size(), 100u);
    for (const auto& r : rows)
    {
        ASSERT_EQ(r.size(), 6u);
        EXPECT_EQ(r[0], "4791");
        EXPECT_EQ(Number(r[1]), receiverQpn);
        EXPECT_EQ(r[3], "4154"); // 4096 B payload: 4158 B with the FCS the capture omits
        EXPECT_EQ(r[4], "24");   // priority 3
        EXPECT_EQ(r[5], "2");    // ECT(0), as sent
    }
    // Consecutive PSNs.
    for (std::size_t i = 1; i < rows.size(); ++i)
    {
        EXPECT_EQ((Number(rows[i - 1][2]) + 1) & 0xFFFFFF, Number(rows[i][2]));
    }
    auto first = Tshark(capture,
                        "infiniband.bth.opcode==0x06 && infiniband.reth",
                        {"infiniband.reth.dmalen"});
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(Number(first[0][0]), 2u << 20);
    auto last = Tshark(capture,
                       "infiniband.bth.opcode==0x09",
                       {"infiniband.bth.a", "infiniband.immdt", "frame.len"});
    ASSERT_EQ(last.size(), 1u); // RDMA WRITE Last with Immediate ends the message
    EXPECT_TRUE(last[0][0] == "1" || last[0][0] == "True") << last[0][0];
    EXPECT_EQ(last[0][2], "4158");
}

TEST_F(WireFormat, AcksCarryAeth)
{
    auto rows = Tshark(capture,
                       "infiniband.aeth",
                       {"infiniband.bth.opcode", "infiniband.bth.destqp", "frame.len"});
    ASSERT_GT(rows.size(), 10u);
    for (const auto& r : rows)
    {
        EXPECT_EQ(Number(r[0]), 0x11u);
        EXPECT_EQ(Number(r[1]), senderQpn);
        EXPECT_EQ(r[2], "62"); // 66 B with FCS
    }
}

TEST_F(WireFormat, CnpHasOpcode0x81WithBecn)
{
    auto rows = Tshark(capture,
                       "infiniband.bth.opcode==0x81",
                       {"infiniband.bth.destqp", "frame.len", "infiniband.bth.psn"});
    ASSERT_GT(rows.size(), 0u);
    for (const auto& r : rows)
    {
        EXPECT_EQ(Number(r[0]), senderQpn);
        EXPECT_EQ(r[1], "74"); // 78 B with FCS
        EXPECT_EQ(r[2], "0");
    }
    // tshark 4.0 shows the FECN/BECN byte as "Reserved": BECN is its bit 0x40.
    auto becn = Tshark(capture,
                       "infiniband.bth.opcode==0x81 && infiniband.reserved==0x40",
                       {"frame.number"});
    EXPECT_EQ(becn.size(), rows.size());
}

TEST_F(WireFormat, PfcFramesShowClassVectorAndQuanta)
{
    auto rows = Tshark(capture,
                       "macc.opcode==0x0101",
                       {"macc.cbfc.enbv", "macc.cbfc.pause_time.c3", "eth.dst", "frame.len"});
    ASSERT_GT(rows.size(), 0u);
    bool sawXoff = false;
    for (const auto& r : rows)
    {
        EXPECT_EQ(Number(r[0]), 0x08u); // class 3 only
        EXPECT_EQ(r[2], "01:80:c2:00:00:01");
        EXPECT_EQ(r[3], "60"); // 64 B with FCS
        sawXoff = sawXoff || Number(r[1]) == 65535;
    }
    EXPECT_TRUE(sawXoff);
}

TEST_F(WireFormat, CapturedIcrcIsTheInvariantCrcOfTheFrame)
{
    PcapFile file;
    file.Open(capture, std::ios::in);
    ASSERT_FALSE(file.Fail());
    EXPECT_EQ(file.GetDataLinkType(), 1u); // DLT_EN10MB
    std::vector<uint8_t> buf(65536);
    uint32_t checked = 0;
    while (checked < 50)
    {
        uint32_t tsSec, tsUsec, inclLen, origLen, readLen;
        file.Read(buf.data(), buf.size(), tsSec, tsUsec, inclLen, origLen, readLen);
        if (file.Eof() || file.Fail())
        {
            break;
        }
        Ptr<Packet> p = Create<Packet>(buf.data(), readLen);
        RoceFrameInfo info;
        ParseRoceFrame(p, info);
        if (info.kind != RoceFrameInfo::ROCE)
        {
            continue;
        }
        const uint8_t* ip = buf.data() + roce::ETHERNET_HEADER_BYTES;
        uint32_t covered = readLen - roce::ETHERNET_HEADER_BYTES - roce::ICRC_BYTES;
        uint8_t expected[4];
        WriteRoceIcrc(ComputeRoceIcrc(ip, covered), expected);
        ASSERT_EQ(std::memcmp(expected, buf.data() + readLen - 4, 4), 0) << "frame " << checked;
        ASSERT_NE(ReadRoceIcrc(buf.data() + readLen - 4), 0u);
        ++checked;
    }
    EXPECT_EQ(checked, 50u);
}
