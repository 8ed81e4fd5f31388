// SPDX-License-Identifier: GPL-2.0-only
// RoceNetDevice keeps ns-3's NetDevice contract: IsLinkUp follows the cable, a cut or a
// mend fires the link-change callbacks at both ends, and frames the model does not take
// (here an EtherType of its own) reach the device's receive callbacks, and through the
// node's the protocol handlers registered for their EtherType, without their Ethernet
// header, while RoCE traffic on the same cable never does.
#include "test-util.h"

#include "ns3/ipv4-header.h"

#include <gtest/gtest.h>
#include <map>

using namespace aifabric;

namespace
{
class RoceDeviceContract : public NsTest
{
};

/// The local experimental EtherType (IEEE 802): no module frame uses it.
constexpr uint16_t ETHERTYPE_EXPERIMENTAL = 0x88B5;
} // namespace

TEST_F(RoceDeviceContract, LinkStateFollowsTheCableAtBothEnds)
{
    RoceHelper roce;
    auto [a, b] = BackToBack(roce, DataRate("100Gbps"), MicroSeconds(1));
    Ptr<RoceNetDevice> da = a->GetDevice();
    Ptr<RoceNetDevice> db = b->GetDevice();
    std::vector<std::pair<Time, bool>> seenA;
    std::vector<std::pair<Time, bool>> seenB;
    da->AddLinkChangeCallback(
        Callback<void>([&seenA, da]() { seenA.emplace_back(Simulator::Now(), da->IsLinkUp()); }));
    db->AddLinkChangeCallback(
        Callback<void>([&seenB, db]() { seenB.emplace_back(Simulator::Now(), db->IsLinkUp()); }));
    EXPECT_TRUE(da->IsLinkUp());
    Ptr<RoceChannel> cable = da->GetRoceChannel();
    Simulator::Schedule(MicroSeconds(10), &RoceChannel::SetUp, cable, false);
    Simulator::Schedule(MicroSeconds(15), &RoceChannel::SetUp, cable, false); // no change
    Simulator::Schedule(MicroSeconds(20), &RoceChannel::SetUp, cable, true);
    Simulator::Run();
    const std::vector<std::pair<Time, bool>> expected{{MicroSeconds(10), false},
                                                      {MicroSeconds(20), true}};
    EXPECT_EQ(seenA, expected);
    EXPECT_EQ(seenB, expected);
    EXPECT_TRUE(db->IsLinkUp());
}

TEST_F(RoceDeviceContract, FramesTheModelDoesNotTakeReachTheStack)
{
    RoceHelper roce;
    auto [a, b] = BackToBack(roce, DataRate("100Gbps"), MicroSeconds(1));
    Ptr<RoceNetDevice> da = a->GetDevice();
    Ptr<RoceNetDevice> db = b->GetDevice();

    struct Received
    {
        uint32_t bytes;
        uint16_t protocol;
        Address from;
    };

    std::vector<Received> stack;
    uint32_t promiscuous = 0;
    db->SetReceiveCallback(ns3::NetDevice::ReceiveCallback(
        [&stack](Ptr<ns3::NetDevice>, Ptr<const Packet> p, uint16_t protocol, const Address& from) {
            stack.push_back({p->GetSize(), protocol, from});
            return true;
        }));
    db->SetPromiscReceiveCallback(
        ns3::NetDevice::PromiscReceiveCallback([&promiscuous](Ptr<ns3::NetDevice>,
                                                              Ptr<const Packet>,
                                                              uint16_t,
                                                              const Address&,
                                                              const Address&,
                                                              ns3::NetDevice::PacketType type) {
            promiscuous += type == ns3::NetDevice::PACKET_HOST ? 1 : 0;
            return true;
        }));
    // A 1 MiB RDMA write and two frames of another protocol share the cable.
    FlowProbe flow;
    flow.Attach(RoceHelper::Connect(a, b));
    Simulator::Schedule(Seconds(0), [&flow]() { flow.sender->PostWrite(1 << 20); });
    Simulator::Schedule(MicroSeconds(5), [da, db, b]() {
        da->Send(Create<Packet>(100), db->GetAddress(), ETHERTYPE_EXPERIMENTAL);
        da->Send(Create<Packet>(1500), db->GetAddress(), ETHERTYPE_EXPERIMENTAL);
        // IPv4 to the NIC's own address that is not RoCE (TCP): the stack's, too.
        Ptr<Packet> tcp = Create<Packet>(200);
        Ipv4Header ip;
        ip.SetProtocol(6);
        ip.SetSource(Ipv4Address("10.0.0.1"));
        ip.SetDestination(b->GetAddress());
        ip.SetPayloadSize(200);
        tcp->AddHeader(ip);
        da->Send(tcp, db->GetAddress(), 0x0800);
    });
    Simulator::Run();
    EXPECT_EQ(flow.BytesReceived(), uint64_t{1} << 20);
    ASSERT_EQ(stack.size(), 3u) << "RoCE frames reached the stack, or the others did not";
    EXPECT_EQ(stack[0].bytes, 100u);
    EXPECT_EQ(stack[1].bytes, 1500u);
    EXPECT_EQ(stack[2].bytes, 220u); // IPv4 header + 200 B
    EXPECT_EQ(stack[0].protocol, ETHERTYPE_EXPERIMENTAL);
    EXPECT_EQ(stack[1].protocol, ETHERTYPE_EXPERIMENTAL);
    EXPECT_EQ(stack[2].protocol, 0x0800);
    for (const auto& r : stack)
    {
        EXPECT_EQ(Mac48Address::ConvertFrom(r.from), Mac48Address::ConvertFrom(da->GetAddress()));
    }
    EXPECT_EQ(promiscuous, 3u);
    EXPECT_EQ(b->GetRxUnknownQpDrops(), 0u);

    // The ns-3 way: Node::AddDevice gave the device the node's receive callback, and a
    // protocol handler registered on the node for the EtherType receives the frame.
    uint32_t handled = 0;
    da->GetNode()->RegisterProtocolHandler(
        Node::ProtocolHandler([&handled](Ptr<ns3::NetDevice>,
                                         Ptr<const Packet> p,
                                         uint16_t protocol,
                                         const Address&,
                                         const Address&,
                                         ns3::NetDevice::PacketType) {
            handled += (protocol == ETHERTYPE_EXPERIMENTAL && p->GetSize() == 64) ? 1 : 0;
        }),
        ETHERTYPE_EXPERIMENTAL,
        da);
    Simulator::Schedule(MicroSeconds(1), [db, da]() {
        db->Send(Create<Packet>(64), da->GetAddress(), ETHERTYPE_EXPERIMENTAL);
    });
    Simulator::Run();
    EXPECT_EQ(handled, 1u);
    EXPECT_EQ(a->GetRxUnknownQpDrops(), 0u);
}

// A cut cable loses every frame on it, in both directions: the one in flight when it is
// cut (dropped on arrival) and every one sent while it is down; once mended it carries
// frames again.
TEST_F(RoceDeviceContract, ACutCableLosesEveryFrameBothWays)
{
    RoceHelper roce;
    auto [a, b] = BackToBack(roce, DataRate("100Gbps"), MicroSeconds(1));
    Ptr<RoceNetDevice> da = a->GetDevice();
    Ptr<RoceNetDevice> db = b->GetDevice();
    std::map<Ptr<ns3::NetDevice>, uint32_t> received;
    auto count = [&received](Ptr<ns3::NetDevice> dev, Ptr<const Packet>, uint16_t, const Address&) {
        ++received[dev];
        return true;
    };
    da->SetReceiveCallback(ns3::NetDevice::ReceiveCallback(count));
    db->SetReceiveCallback(ns3::NetDevice::ReceiveCallback(count));
    Ptr<RoceChannel> cable = da->GetRoceChannel();
    auto send = [](Ptr<RoceNetDevice> from, Ptr<RoceNetDevice> to) {
        from->Send(Create<Packet>(1000), to->GetAddress(), ETHERTYPE_EXPERIMENTAL);
    };
    Simulator::Schedule(Seconds(0), [=]() { send(da, db); }); // in flight at the cut
    Simulator::Schedule(NanoSeconds(500), &RoceChannel::SetUp, cable, false);
    for (int i = 0; i < 2; ++i)
    {
        Simulator::Schedule(MicroSeconds(2), [=]() { send(da, db); }); // sent while down,
        Simulator::Schedule(MicroSeconds(2), [=]() { send(db, da); }); // both ways
    }
    Simulator::Schedule(MicroSeconds(3), &RoceChannel::SetUp, cable, true);
    Simulator::Schedule(MicroSeconds(4), [=]() { send(da, db); });
    Simulator::Schedule(MicroSeconds(4), [=]() { send(db, da); });
    Simulator::Run();
    EXPECT_EQ(cable->GetLostFrames(), 5u);
    EXPECT_EQ(received[db], 1u); // only the frame sent after the mend
    EXPECT_EQ(received[da], 1u);
}

// What the doc says of the switches: they forward IPv4 frames by their destination
// address, not by MAC address (no MAC learning, no flooding of broadcast), and no other
// EtherType. On a star of three hosts, host 0 sends (1) IPv4 to host 1's address with host
// 2's MAC, (2) IPv4 to host 2's address with the broadcast MAC, (3) a frame of another
// EtherType to host 1's MAC: host 1 gets (1) only, host 2 gets (2) only, nobody gets (3),
// and the switch counts no drop (other EtherTypes are not routed, not dropped for a cause).
TEST_F(RoceDeviceContract, SwitchesRouteIpv4ByAddressOnly)
{
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology star = topoHelper.Star(3, DataRate("100Gbps"), MicroSeconds(1));
    std::vector<Ptr<RoceNetDevice>> dev;
    for (const auto& nic : star.nics)
    {
        dev.push_back(nic->GetDevice());
    }
    std::vector<std::vector<uint32_t>> received(3); // sizes of the frames each host got
    for (uint32_t h = 0; h < 3; ++h)
    {
        dev[h]->SetReceiveCallback(ns3::NetDevice::ReceiveCallback(
            [&received, h](Ptr<ns3::NetDevice>, Ptr<const Packet> p, uint16_t, const Address&) {
                received[h].push_back(p->GetSize());
                return true;
            }));
    }
    auto ipv4To = [](Ipv4Address to, uint32_t payload) {
        Ptr<Packet> p = Create<Packet>(payload);
        Ipv4Header ip;
        ip.SetProtocol(6); // TCP: not RoCE
        ip.SetSource(Ipv4Address("10.0.0.1"));
        ip.SetDestination(to);
        ip.SetPayloadSize(payload);
        p->AddHeader(ip);
        return p;
    };
    Simulator::Schedule(MicroSeconds(1), [&]() {
        dev[0]->Send(ipv4To(star.nics[1]->GetAddress(), 100), dev[2]->GetAddress(), 0x0800);
        dev[0]->Send(ipv4To(star.nics[2]->GetAddress(), 200), dev[0]->GetBroadcast(), 0x0800);
        dev[0]->Send(Create<Packet>(300), dev[1]->GetAddress(), ETHERTYPE_EXPERIMENTAL);
    });
    Simulator::Run();
    EXPECT_EQ(received[0], std::vector<uint32_t>{});
    EXPECT_EQ(received[1], std::vector<uint32_t>{120}); // IPv4 header + 100 B
    EXPECT_EQ(received[2], std::vector<uint32_t>{220});
    EXPECT_EQ(TotalDrops(star), 0u);
}
