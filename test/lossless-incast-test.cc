// SPDX-License-Identifier: GPL-2.0-only
// 8:1 incast at 100 Gb/s with congestion control off: PFC keeps the fabric lossless at
// full bottleneck goodput; with too little headroom it drops and go-back-N recovers.
#include "test-util.h"

using namespace aifabric;

namespace
{
struct IncastResult
{
    uint64_t posted{0};
    uint64_t delivered{0};
    Time completion;
    uint64_t pauses{0};
    uint64_t drops{0};
    uint64_t headroomDrops{0};
    uint64_t retransmitted{0};
};

IncastResult
RunIncast(RoceHelper& roce, uint32_t senders, uint64_t bytes)
{
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(senders + 1, DataRate("100Gbps"), MicroSeconds(1));
    std::vector<FlowProbe> flows(senders);
    for (uint32_t i = 0; i < senders; ++i)
    {
        flows[i].Attach(RoceHelper::Connect(topo.nics[i], topo.nics[senders]));
        Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, flows[i].sender, bytes);
    }
    Simulator::Run();
    IncastResult r;
    for (const auto& f : flows)
    {
        r.posted += bytes;
        r.delivered += f.BytesReceived();
        r.completion = Max(r.completion, f.LastReceive());
        r.retransmitted += f.sender->GetPacketsRetransmitted();
        EXPECT_EQ(f.receiver->GetBytesReceived(), f.sender->GetBytesAcked()); // conservation
    }
    r.pauses = TotalPauses(topo);
    r.drops = TotalDrops(topo);
    r.headroomDrops = topo.switchObjects[0]->GetDrops(RoceSwitch::DROP_HEADROOM_FULL);
    return r;
}

class LosslessIncast : public NsTest
{
};
} // namespace

TEST_F(LosslessIncast, PfcPreventsLossAtFullGoodput)
{
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    roce.SetMmuAttribute("BufferSize", UintegerValue(4 << 20)); // PFC must act
    IncastResult r = RunIncast(roce, 8, 2 << 20);
    EXPECT_EQ(r.drops, 0u);
    EXPECT_GT(r.pauses, 0u);
    EXPECT_EQ(r.delivered, r.posted);
    EXPECT_EQ(r.retransmitted, 0u);
    double goodput = r.delivered * 8.0 / r.completion.GetSeconds();
    EXPECT_GE(goodput, 0.97 * PayloadRate(100e9));
    std::cout << "[ measured ] 8:1 incast goodput " << goodput / 1e9 << " Gb/s ("
              << goodput / PayloadRate(100e9) * 100 << "% of the payload rate), " << r.pauses
              << " pauses, " << r.drops << " drops\n";
}

TEST_F(LosslessIncast, ShortPausesAreRefreshedAndStayLossless)
{
    // 200 quanta = 1 µs at 100 Gb/s, shorter than the congestion: only refreshes keep
    // the senders stopped.
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    roce.SetMmuAttribute("BufferSize", UintegerValue(4 << 20));
    roce.SetSwitchAttribute("PfcPauseQuanta", UintegerValue(200));
    IncastResult r = RunIncast(roce, 8, 2 << 20);
    EXPECT_EQ(r.drops, 0u);
    EXPECT_EQ(r.delivered, r.posted);
    EXPECT_GT(r.pauses, 50u); // many refreshes
}

TEST_F(LosslessIncast, HeadroomBelowTheFormulaDropsAndRecovers)
{
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    roce.SetMmuAttribute("BufferSize", UintegerValue(4 << 20));
    // One frame of headroom, where 2 × delay × rate + 2 frames + a PFC frame is needed.
    roce.SetMmuAttribute("HeadroomPerQueue", UintegerValue(4200));
    roce.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(200)));
    IncastResult r = RunIncast(roce, 8, 2 << 20);
    EXPECT_GT(r.headroomDrops, 0u);
    EXPECT_GT(r.retransmitted, 0u);
    EXPECT_EQ(r.delivered, r.posted);
    std::cout << "[ measured ] small headroom: " << r.headroomDrops << " headroom drops, "
              << r.retransmitted << " packets retransmitted, all " << r.delivered
              << " bytes delivered\n";
}

TEST_F(LosslessIncast, DefaultHeadroomFollowsTheFormula)
{
    // 2 × 1 µs × 100 Gb/s = 25000 B, two 9014 B frames (9038 B on the wire with FCS,
    // preamble and gap) and a PFC frame (84 B on the wire).
    const uint32_t expected = 25000u + 2 * 9038u + 84u;
    EXPECT_EQ(SharedBufferMmu::ComputeHeadroom(100000000000ull, MicroSeconds(1), 9014), expected);
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(2, DataRate("100Gbps"), MicroSeconds(1));
    EXPECT_EQ(topo.switchObjects[0]->GetMmu()->GetHeadroom(0), expected); // Mtu 9000 + 14
}

TEST_F(LosslessIncast, EcmpCollisionsAt400GStayLossless)
{
    // Flows hashed onto the same uplink fill the leaf; the pauses that follow must hold
    // the hosts within the default headroom (a reordered XON/XOFF once broke this).
    RoceHelper roce;
    roce.SetCongestionControl("ns3::RoceDcqcn");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.LeafSpine(2, 8, 8, DataRate("400Gbps"), 1.0, MicroSeconds(1));
    roce.AssignStreams(1);
    std::vector<FlowProbe> flows(16);
    for (uint32_t i = 0; i < 16; ++i)
    {
        flows[i].Attach(RoceHelper::Connect(topo.nics[i], topo.nics[(i + 8) % 16]));
        Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, flows[i].sender, 8 << 20);
    }
    Simulator::Run();
    EXPECT_EQ(TotalDrops(topo), 0u);
    EXPECT_GT(TotalPauses(topo), 0u);
    for (const auto& f : flows)
    {
        EXPECT_EQ(f.BytesReceived(), 8u << 20);
        EXPECT_EQ(f.sender->GetPacketsRetransmitted(), 0u);
    }
}
