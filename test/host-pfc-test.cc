// SPDX-License-Identifier: GPL-2.0-only
// Hosts that send PFC: a NIC whose host takes frames slower than the link brings them
// pauses its switch port instead of dropping.
#include "test-util.h"

using namespace ns3;
using namespace aifabric;

namespace
{
class HostPfc : public NsTest
{
};

/// Two hosts on one switch, 100 Gb/s, 1 us cables; host 0 writes bytes to host 1.
struct SlowHostRun
{
    uint64_t received{0};
    Time last;
    uint64_t nicDrops{0};
    uint32_t nicPeak{0};
    uint64_t nicPauses{0};
    uint64_t switchPortPausesReceived{0};
    uint64_t fabricDrops{0};
    uint64_t packets{0};
};

SlowHostRun
WriteToSlowHost(uint64_t bytes)
{
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(2, DataRate("100Gbps"), MicroSeconds(1));
    FlowProbe flow;
    flow.Attach(RoceHelper::Connect(topo.nics[0], topo.nics[1]));
    flow.sender->PostWrite(bytes);
    Simulator::Run();
    SlowHostRun r;
    r.received = flow.BytesReceived();
    r.last = flow.LastReceive();
    r.nicDrops = topo.nics[1]->GetReceiveDrops();
    r.nicPeak = topo.nics[1]->GetReceiveBufferPeak();
    r.nicPauses = topo.nics[1]->GetDevice()->GetPfcPausesSent();
    Ptr<RoceNetDevice> port = DynamicCast<RoceNetDevice>(
        topo.nics[1]->GetDevice()->GetRoceChannel()->GetPeer(topo.nics[1]->GetDevice()));
    r.switchPortPausesReceived = port->GetPfcPausesReceived();
    r.fabricDrops = TotalDrops(topo);
    r.packets = flow.sender->GetPacketsSent();
    Simulator::Destroy();
    return r;
}

} // namespace

TEST_F(HostPfc, ASlowReceiverPausesItsSwitchPortWithoutDropping)
{
    // The receiver's host takes frames at 50 Gb/s from a 512 KiB buffer; an 8 MiB write
    // arrives at 100 Gb/s without congestion control. The NIC pauses the switch port
    // before its buffer overflows (headroom: two cable delays and two frames), the
    // switch holds the rest and pauses the sender in turn; nothing is dropped, and the
    // write takes the host's rate: frames x frame bytes / 50 Gb/s (within 2 %).
    Config::SetDefault("ns3::RdmaNic::ReceiveRate", DataRateValue(DataRate("50Gbps")));
    Config::SetDefault("ns3::RdmaNic::ReceiveBufferSize", UintegerValue(512 * 1024));
    const uint64_t bytes = 8 << 20;
    const SlowHostRun r = WriteToSlowHost(bytes);
    EXPECT_EQ(r.received, bytes);
    EXPECT_EQ(r.nicDrops, 0u);
    EXPECT_EQ(r.fabricDrops, 0u);
    EXPECT_GT(r.nicPauses, 0u);
    EXPECT_EQ(r.switchPortPausesReceived, r.nicPauses);
    EXPECT_LE(r.nicPeak, 512u * 1024);
    // Data frames: 4096 B of payload + Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4 (the
    // first carries a 16 B RETH): what the host takes, at 50 Gb/s.
    const double frame = 4096 + 14 + 20 + 8 + 12 + 4;
    const double expected = r.packets * frame * 8 / 50e9;
    EXPECT_NEAR(r.last.GetSeconds(), expected, 0.02 * expected);
    std::cout << "[ measured ] 8 MiB to a 50 Gb/s host: " << r.last.As(Time::US)
              << " (host rate: " << expected * 1e6 << " us), " << r.nicPauses
              << " pauses from the NIC, buffer peak " << r.nicPeak << " B, no drop\n";
}

TEST_F(HostPfc, AHostThatKeepsUpNeverPauses)
{
    // ReceiveRate 0 (the default): frames go to their queue pair as they arrive.
    const SlowHostRun r = WriteToSlowHost(8 << 20);
    EXPECT_EQ(r.received, 8u << 20);
    EXPECT_EQ(r.nicPauses, 0u);
    EXPECT_EQ(r.nicPeak, 0u);
}
