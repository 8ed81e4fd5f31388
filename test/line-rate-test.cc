// SPDX-License-Identifier: GPL-2.0-only
// One queue pair on one link reaches the payload rate the wire allows.
#include "test-util.h"

using namespace aifabric;

class LineRate : public NsTest
{
};

TEST_F(LineRate, OneQueuePairReachesWireEfficiencyAt100G)
{
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    auto [a, b] = BackToBack(roce, DataRate("100Gbps"), MicroSeconds(1));
    FlowProbe flow;
    flow.Attach(RoceHelper::Connect(a, b));
    const uint64_t bytes = 64ull << 20;
    Simulator::Schedule(Seconds(0), [&flow, bytes]() { flow.sender->PostWrite(bytes); });
    Simulator::Run();

    ASSERT_EQ(flow.received.size(), 1u);
    ASSERT_EQ(flow.received[0].bytes, bytes);
    ASSERT_EQ(flow.sent.size(), 1u);
    // Goodput from first bit sent to last byte received; the 1 µs cable and the first
    // frame are 0.03% of the 5.5 ms transfer.
    double goodput = bytes * 8.0 / flow.received[0].time.GetSeconds();
    double expected = 100e9 * 4096.0 / 4178.0;
    EXPECT_NEAR(goodput, expected, 0.005 * expected);
    std::cout << "[ measured ] goodput " << goodput / 1e9 << " Gb/s, expected " << expected / 1e9
              << " Gb/s\n";
    EXPECT_EQ(flow.sender->GetPacketsRetransmitted(), 0u);
    EXPECT_EQ(flow.sender->GetBytesAcked(), bytes);
}

TEST_F(LineRate, FrameSizesMatchTheWireFormat)
{
    // A 4096 B WRITE MIDDLE is 4154 B captured + 4 B FCS = 4158 B; on the wire 4178 B.
    EXPECT_EQ(roce::DATA_HEADER_BYTES + 4096 + roce::ICRC_BYTES + roce::FCS_BYTES, 4158u);
    EXPECT_EQ(roce::WireBytes(4154), 4178u);
    EXPECT_NEAR(PayloadRate(100e9), 100e9 * 4096.0 / 4178.0, 1.0);
}

TEST_F(LineRate, PsnWrapsInsideAMessage)
{
    // The 24-bit PSN wraps 100 packets into this message.
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    auto [a, b] = BackToBack(roce, DataRate("100Gbps"), MicroSeconds(1));
    Ptr<RdmaQueuePair> qa = a->CreateQueuePair();
    Ptr<RdmaQueuePair> qb = b->CreateQueuePair();
    qa->SetInitialPsn(RdmaQueuePair::PSN_MASK - 99);
    qa->Connect(b->GetAddress(), qb->GetQpn(), qb->GetInitialPsn());
    qb->Connect(a->GetAddress(), qa->GetQpn(), qa->GetInitialPsn());
    FlowProbe flow;
    flow.Attach({qa, qb});
    const uint64_t bytes = 1000 * 4096;
    Simulator::Schedule(Seconds(0), [&flow, bytes]() { flow.sender->PostWrite(bytes); });
    Simulator::Run();
    ASSERT_EQ(flow.received.size(), 1u);
    EXPECT_EQ(flow.received[0].bytes, bytes);
    EXPECT_EQ(flow.sender->GetBytesAcked(), bytes);
    EXPECT_EQ(flow.sender->GetPacketsRetransmitted(), 0u);
    EXPECT_EQ(flow.receiver->GetNaksReceived() + flow.sender->GetNaksReceived(), 0u);
}

TEST_F(LineRate, MessageBeyondFourGibibytesSpansSeveralWrites)
{
    // 4 GiB + 1 MiB: byte counts beyond 32 bits and three 2 GiB-or-less WRITEs, the last
    // carrying the immediate that completes the message. 8 KiB payloads keep it quick.
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    roce.SetNicAttribute("Mtu", UintegerValue(8192));
    auto [a, b] = BackToBack(roce, DataRate("400Gbps"), MicroSeconds(1));
    FlowProbe flow;
    flow.Attach(RoceHelper::Connect(a, b));
    const uint64_t bytes = (4ull << 30) + (1 << 20) + 123;
    Simulator::Schedule(Seconds(0), [&flow, bytes]() { flow.sender->PostWrite(bytes); });
    Simulator::Run();
    ASSERT_EQ(flow.received.size(), 1u);
    EXPECT_EQ(flow.received[0].bytes, bytes);
    EXPECT_EQ(flow.sender->GetBytesAcked(), bytes);
    EXPECT_EQ(flow.receiver->GetBytesReceived(), bytes);
    EXPECT_EQ(flow.sender->GetPacketsRetransmitted(), 0u);
}

// A queue pair reads the NIC's attributes once, when the NIC binds it (RdmaQpConfig): a
// later change of Mtu reaches only queue pairs created after it, as the doc says. 64 KiB
// in 4096 B packets is 16 packets; in 1024 B packets, 64.
TEST_F(LineRate, QueuePairsKeepTheMtuTheyWereCreatedWith)
{
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    auto [a, b] = BackToBack(roce, DataRate("100Gbps"), MicroSeconds(1));
    auto before = RoceHelper::Connect(a, b);
    a->SetAttribute("Mtu", UintegerValue(1024));
    b->SetAttribute("Mtu", UintegerValue(1024));
    auto after = RoceHelper::Connect(a, b);
    const uint64_t bytes = 64 * 1024;
    Simulator::Schedule(Seconds(0), [&]() {
        before.first->PostWrite(bytes);
        after.first->PostWrite(bytes);
    });
    Simulator::Run();
    EXPECT_EQ(before.second->GetBytesReceived(), bytes);
    EXPECT_EQ(after.second->GetBytesReceived(), bytes);
    EXPECT_EQ(before.first->GetPacketsSent(), 16u);
    EXPECT_EQ(after.first->GetPacketsSent(), 64u);
}

TEST_F(LineRate, TheNicServesItsQueuePairsInTurnWhenOneLeaves)
{
    // Four queue pairs on one NIC post at once: the first a one-packet message, the other
    // three 64 packets each. The NIC serves them in turn, first in first out: Q0, Q1, Q2,
    // Q3, then Q1, Q2, Q3 for 63 more rounds, the line never idle. So Q1, Q2 and Q3 end in
    // that order, one frame time apart (4178 B at 100 Gb/s: 334.24 ns), at frames 1 + 3 x 63
    // + i. (A round robin that moved the list's last queue pair into the slot of the one
    // that left served Q3 twice in a row there: Q3, Q1, Q2 ever after, Q3 first to end.)
    const DataRate line("100Gbps");
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    auto [a, b] = BackToBack(roce, line, MicroSeconds(1));
    std::vector<FlowProbe> flows(4);
    for (FlowProbe& flow : flows)
    {
        flow.Attach(RoceHelper::Connect(a, b));
    }
    const uint64_t packets = 64;
    Simulator::Schedule(Seconds(0), [&flows, packets]() {
        flows[0].sender->PostWrite(4096);
        for (std::size_t i = 1; i < flows.size(); ++i)
        {
            flows[i].sender->PostWrite(packets * 4096);
        }
    });
    Simulator::Run();

    const Time frame = line.CalculateBytesTxTime(roce::WireBytes(4154));
    EXPECT_EQ(frame, PicoSeconds(334240));
    for (const FlowProbe& flow : flows)
    {
        ASSERT_EQ(flow.received.size(), 1u);
    }
    for (std::size_t i = 2; i < flows.size(); ++i)
    {
        const Time apart = flows[i].received[0].time - flows[i - 1].received[0].time;
        std::cout << "[ measured ] Q" << i << " ends " << apart.As(Time::NS) << " after Q" << i - 1
                  << "\n";
        EXPECT_NEAR(apart.GetPicoSeconds(), frame.GetPicoSeconds(), 1000.0) << "Q" << i;
    }
    // Q3's last frame is the line's 193rd: the four that open a message carry a RETH, the
    // other 189 are 4178 B. It ends 193 frames after the line began at 0, plus the cable
    // (the tests' clock counts nanoseconds; the port carries the rest to the next frame).
    const Time expected = line.CalculateBytesTxTime(4 * roce::WireBytes(4154 + roce::RETH_BYTES) +
                                                    189 * roce::WireBytes(4154)) +
                          MicroSeconds(1);
    EXPECT_NEAR(flows[3].received[0].time.GetPicoSeconds(), expected.GetPicoSeconds(), 1000.0);
}
