// SPDX-License-Identifier: GPL-2.0-only
// Random loss and a lost tail: go-back-N (NAK) and the retransmission timeout deliver
// every message exactly.
#include "test-util.h"

#include "ns3/error-model.h"

using namespace aifabric;

namespace
{
/// Drops the first frame that ends a message (WRITE LAST/ONLY with immediate), once.
class DropFirstTail : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aifabric::DropFirstTail")
                                .SetParent<ErrorModel>()
                                .AddConstructor<DropFirstTail>();
        return tid;
    }

    uint32_t dropped{0};

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        RoceFrameInfo info;
        ParseRoceFrame(p, info);
        if (dropped == 0 && info.kind == RoceFrameInfo::ROCE && OpcodeHasImmediate(info.opcode))
        {
            ++dropped;
            return true;
        }
        return false;
    }

    void DoReset() override
    {
    }
};

class LossRecovery : public NsTest
{
};
} // namespace

TEST_F(LossRecovery, OnePercentRandomLossInBothDirections)
{
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    roce.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(100)));
    auto [a, b] = BackToBack(roce, DataRate("100Gbps"), MicroSeconds(1));
    for (Ptr<RdmaNic> nic : {a, b})
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorRate", DoubleValue(0.01));
        em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        em->AssignStreams(nic == a ? 10 : 20);
        nic->GetDevice()->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    FlowProbe flow;
    flow.Attach(RoceHelper::Connect(a, b));
    const std::vector<uint64_t> sizes{1 << 20, 3 << 20, 12345, 1};
    uint64_t total = 0;
    for (uint64_t s : sizes)
    {
        total += s;
        Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, flow.sender, s);
    }
    Simulator::Run();

    ASSERT_EQ(flow.received.size(), sizes.size());
    ASSERT_EQ(flow.sent.size(), sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i)
    {
        EXPECT_EQ(flow.received[i].id, i);
        EXPECT_EQ(flow.received[i].bytes, sizes[i]);
        EXPECT_EQ(flow.sent[i].bytes, sizes[i]);
    }
    EXPECT_EQ(flow.receiver->GetBytesReceived(), total);
    EXPECT_EQ(flow.sender->GetBytesAcked(), total);
    EXPECT_GT(a->GetDevice()->GetRxErrorDrops() + b->GetDevice()->GetRxErrorDrops(), 0u);
    EXPECT_GT(flow.sender->GetPacketsRetransmitted(), 0u);
    EXPECT_GT(flow.sender->GetNaksReceived(), 0u);
    std::cout << "[ measured ] 1% loss: "
              << a->GetDevice()->GetRxErrorDrops() + b->GetDevice()->GetRxErrorDrops()
              << " frames lost, " << flow.sender->GetNaksReceived() << " NAKs, "
              << flow.sender->GetTimeouts() << " timeouts, "
              << flow.sender->GetPacketsRetransmitted() << " retransmitted\n";
}

TEST_F(LossRecovery, LostLastPacketRecoversByTimeout)
{
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    const Time rto = MicroSeconds(50);
    roce.SetNicAttribute("RetransmitTimeout", TimeValue(rto));
    auto [a, b] = BackToBack(roce, DataRate("100Gbps"), MicroSeconds(1));
    Ptr<DropFirstTail> em = CreateObject<DropFirstTail>();
    b->GetDevice()->SetAttribute("ReceiveErrorModel", PointerValue(em));
    FlowProbe flow;
    flow.Attach(RoceHelper::Connect(a, b));
    const uint64_t bytes = 10 * 4096;
    Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, flow.sender, bytes);
    Simulator::Run();

    EXPECT_EQ(em->dropped, 1u);
    ASSERT_EQ(flow.received.size(), 1u);
    EXPECT_EQ(flow.received[0].bytes, bytes);
    EXPECT_EQ(flow.sender->GetTimeouts(), 1u);
    EXPECT_EQ(flow.sender->GetNaksReceived(), 0u); // nothing followed the tail to reveal it
    // Go-back-N resends from the oldest unacknowledged packet: the tail and whatever the
    // coalesced ACKs had not yet covered.
    EXPECT_GE(flow.sender->GetPacketsRetransmitted(), 1u);
    EXPECT_LE(flow.sender->GetPacketsRetransmitted(), a->GetAckInterval());
    EXPECT_GE(flow.received[0].time, rto);
    ASSERT_EQ(flow.sent.size(), 1u);
}

TEST_F(LossRecovery, LostAckRecoversByTimeoutWithoutDuplicateDelivery)
{
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    roce.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(50)));
    auto [a, b] = BackToBack(roce, DataRate("100Gbps"), MicroSeconds(1));
    // Every frame towards the sender is lost for the first 40 µs: all ACKs of a short
    // message vanish, the data arrived.
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetAttribute("ErrorRate", DoubleValue(1.0));
    em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
    a->GetDevice()->SetAttribute("ReceiveErrorModel", PointerValue(em));
    Simulator::Schedule(MicroSeconds(40), &ErrorModel::Disable, em);
    FlowProbe flow;
    flow.Attach(RoceHelper::Connect(a, b));
    Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, flow.sender, 8 * 4096);
    Simulator::Run();
    ASSERT_EQ(flow.sent.size(), 1u);
    ASSERT_EQ(flow.received.size(), 1u); // delivered once, not again for the retransmission
    EXPECT_GE(flow.sender->GetTimeouts(), 1u);
    EXPECT_EQ(flow.receiver->GetBytesReceived(), 8u * 4096);
}
