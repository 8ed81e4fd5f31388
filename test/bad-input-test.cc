// SPDX-License-Identifier: GPL-2.0-only
// Impossible parameters stop the program with a message that names the problem.
#include "test-util.h"

using namespace aifabric;

namespace
{
class BadInput : public NsTest
{
};

void
LinkWithRate(std::string rate)
{
    NodeContainer nodes;
    nodes.Create(2);
    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rate)));
    roce.Link(nodes.Get(0), nodes.Get(1));
}
} // namespace

TEST_F(BadInput, ZeroLinkRate)
{
    EXPECT_DEATH(LinkWithRate("0bps"), "DataRate must be positive");
}

TEST_F(BadInput, KminAboveKmax)
{
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
            mmu->SetAttribute("EcnKmin", UintegerValue(2000000));
            mmu->SetAttribute("EcnKmax", UintegerValue(1000000));
            mmu->Configure({100000000000ull}, {MicroSeconds(1)}, 4200);
        },
        "EcnKmin \\(2000000 B\\) must not exceed EcnKmax \\(1000000 B\\)");
}

TEST_F(BadInput, DefaultKmaxBelowExplicitKmin)
{
    // Kmin set above the rate-scaled default Kmax of a 25 Gb/s port (400 KB).
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
            mmu->SetAttribute("EcnKmin", UintegerValue(500000));
            mmu->Configure({25000000000ull}, {MicroSeconds(1)}, 4200);
        },
        "Kmin \\(500000 B\\) exceeds Kmax \\(400000 B\\)");
}

TEST_F(BadInput, MtuBelowHeaders)
{
    EXPECT_DEATH(
        {
            NodeContainer nodes;
            nodes.Create(2);
            RoceHelper roce;
            roce.SetDeviceAttribute("Mtu", UintegerValue(1500));
            roce.SetNicAttribute("Mtu", UintegerValue(4096));
            NetDeviceContainer link = roce.Link(nodes.Get(0), nodes.Get(1));
            roce.InstallNic(link.Get(0), Ipv4Address("10.0.0.1"));
        },
        "needs an Ethernet MTU of 4160 B.*port's Mtu is 1500 B");
}

TEST_F(BadInput, NicMtuOutOfRange)
{
    EXPECT_DEATH(
        {
            Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
            nic->SetAttribute("Mtu", UintegerValue(0));
        },
        "Mtu");
}

TEST_F(BadInput, BufferTooSmallForHeadroom)
{
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
            mmu->SetAttribute("BufferSize", UintegerValue(100000));
            mmu->Configure({400000000000ull, 400000000000ull},
                           {MicroSeconds(1), MicroSeconds(1)},
                           9018);
        },
        "leave no shared buffer");
}

TEST_F(BadInput, DwrrWeightsMalformed)
{
    EXPECT_DEATH(
        {
            Ptr<RoceNetDevice> dev = CreateObject<RoceNetDevice>();
            dev->SetAttribute("DwrrWeights", StringValue("1,2,x,1,1,1,1,1"));
        },
        "weight 'x' is not an integer");
}

TEST_F(BadInput, NonPositiveOversubscription)
{
    EXPECT_DEATH(
        {
            RoceHelper roce;
            RoceTopologyHelper topo(roce);
            topo.LeafSpine(2, 2, 2, DataRate("100Gbps"), 0.0, MicroSeconds(1));
        },
        "oversubscription must be positive");
}

TEST_F(BadInput, UnknownCongestionControl)
{
    EXPECT_DEATH(
        {
            RoceHelper roce;
            roce.SetCongestionControl("ns3::Cubic");
        },
        "unknown type 'ns3::Cubic'");
}
