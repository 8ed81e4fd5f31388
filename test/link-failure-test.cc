// SPDX-License-Identifier: GPL-2.0-only
// Link failures: a spine cable cut under traffic loses its frames, the routes move away
// after the convergence delay, go-back-N and the RTO bring the lost frames again, and the
// flows that crossed it take longer.
#include "test-util.h"

using namespace ns3;
using namespace aifabric;

namespace
{
class LinkFailure : public NsTest
{
};

/// What one leaf-spine run measured.
struct CutRun
{
    std::vector<uint64_t> delivered; //!< per flow
    std::vector<Time> fct;           //!< per flow: last byte in
    std::vector<bool> crossed;       //!< per flow: its packets were lost on the cut
    uint64_t lost{0};                //!< frames the cut lost
    uint64_t retransmitted{0};       //!< packets sent again
};

/**
 * Two leaves, two spines, four hosts per leaf, 100 Gb/s, 1 us cables, DCQCN: host i of
 * leaf 0 writes bytes to host i of leaf 1. With cut, the cable spine 0 - leaf 1 fails at
 * 100 us and routes converge 50 us later.
 */
CutRun
RunLeafSpine(bool cut, uint64_t bytes)
{
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.LeafSpine(2, 2, 4, DataRate("100Gbps"), 1.0, MicroSeconds(1));
    roce.AssignStreams(7);
    std::vector<FlowProbe> flows(4);
    for (uint32_t i = 0; i < 4; ++i)
    {
        flows[i].Attach(RoceHelper::Connect(topo.nics[i], topo.nics[4 + i]));
        flows[i].sender->PostWrite(bytes);
    }
    // Switches are leaves first, then spines.
    Ptr<Node> spine0 = topo.switchObjects[2]->GetPort(0)->GetNode();
    Ptr<Node> leaf1 = topo.switchObjects[1]->GetPort(0)->GetNode();
    Ptr<RoceChannel> link = RoceHelper::FindLink(spine0, leaf1);
    EXPECT_TRUE(link);
    if (cut)
    {
        roce.ScheduleLinkState(link, false, MicroSeconds(100), MicroSeconds(50));
    }
    Simulator::Run();
    CutRun r;
    for (const auto& f : flows)
    {
        r.delivered.push_back(f.BytesReceived());
        r.fct.push_back(f.LastReceive());
        r.crossed.push_back(f.sender->GetPacketsRetransmitted() > 0);
        r.retransmitted += f.sender->GetPacketsRetransmitted();
    }
    r.lost = link->GetLostFrames();
    Simulator::Destroy();
    return r;
}

} // namespace

TEST_F(LinkFailure, ASpineCableCutUnderTrafficIsRecovered)
{
    const uint64_t bytes = 4 << 20;
    const CutRun base = RunLeafSpine(false, bytes);
    const CutRun cut = RunLeafSpine(true, bytes);
    uint32_t hit = 0;
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(base.delivered[i], bytes);
        EXPECT_EQ(cut.delivered[i], bytes) << i; // every byte, exactly once
        if (cut.crossed[i])
        {
            ++hit;
            EXPECT_GT(cut.fct[i], base.fct[i]) << i;
        }
        std::cout << "[ measured ] flow " << i << ": " << base.fct[i].As(Time::US) << " without, "
                  << cut.fct[i].As(Time::US) << " with the cut"
                  << (cut.crossed[i] ? " (crossed it)" : "") << "\n";
    }
    EXPECT_GT(hit, 0u);
    EXPECT_GT(cut.lost, 0u);
    EXPECT_GT(cut.retransmitted, 0u);
    EXPECT_EQ(base.lost, 0u);
    std::cout << "[ measured ] the cut lost " << cut.lost << " frames; " << cut.retransmitted
              << " packets retransmitted\n";
    // Same seed, same run.
    const CutRun again = RunLeafSpine(true, bytes);
    EXPECT_EQ(again.fct, cut.fct);
    EXPECT_EQ(again.lost, cut.lost);
}
