// SPDX-License-Identifier: GPL-2.0-only
// How a port shares its line among priorities: round robin, DWRR weights, control first.
#include "test-util.h"

#include "ns3/ethernet-header.h"

using namespace aifabric;

namespace
{
struct Served
{
    std::map<uint32_t, uint64_t> bytesBySize; // frame sizes tell the priorities apart
    uint64_t frames{0};
    std::vector<uint32_t> order;
};

void
OnTx(Served* s, Ptr<const Packet> p)
{
    s->bytesBySize[p->GetSize()] += p->GetSize();
    ++s->frames;
    s->order.push_back(p->GetSize());
}

Ptr<Packet>
Frame(uint32_t size)
{
    Ptr<Packet> p = Create<Packet>(size - 14);
    EthernetHeader eth(false);
    eth.SetLengthType(0x88B5);
    p->AddHeader(eth);
    return p;
}

class PortScheduling : public NsTest
{
  protected:
    Ptr<RoceNetDevice> MakePort(RoceHelper& roce)
    {
        NodeContainer nodes;
        nodes.Create(2);
        NetDeviceContainer link =
            roce.Link(nodes.Get(0), nodes.Get(1), DataRate("100Gbps"), MicroSeconds(1));
        Ptr<RoceNetDevice> port = DynamicCast<RoceNetDevice>(link.Get(0));
        port->TraceConnectWithoutContext("MacTx", MakeBoundCallback(&OnTx, &served));
        return port;
    }

    Served served;
};
} // namespace

TEST_F(PortScheduling, RoundRobinAlternatesPriorities)
{
    RoceHelper roce;
    Ptr<RoceNetDevice> port = MakePort(roce);
    for (int i = 0; i < 100; ++i)
    {
        port->EnqueueData(Frame(1000), 1, 0);
        port->EnqueueData(Frame(2000), 5, 0);
    }
    Simulator::Run();
    ASSERT_EQ(served.frames, 200u);
    for (std::size_t i = 1; i < served.order.size(); ++i)
    {
        EXPECT_NE(served.order[i], served.order[i - 1]) << "frame " << i; // strict alternation
    }
}

TEST_F(PortScheduling, DwrrSharesBytesByWeight)
{
    RoceHelper roce;
    roce.SetDeviceAttribute("DataScheduler", StringValue("Dwrr"));
    roce.SetDeviceAttribute("DwrrWeights", StringValue("1,1,3,1,1,1,1,1"));
    roce.SetDeviceAttribute("DwrrQuantum", UintegerValue(1500));
    Ptr<RoceNetDevice> port = MakePort(roce);
    // Different frame sizes: DWRR shares bytes, not frames.
    for (int i = 0; i < 3000; ++i)
    {
        port->EnqueueData(Frame(1000), 0, 0);
        port->EnqueueData(Frame(1500), 2, 0);
    }
    // Measure while both stay backlogged.
    Simulator::Stop(MicroSeconds(300));
    Simulator::Run();
    double low = served.bytesBySize[1000];
    double high = served.bytesBySize[1500];
    ASSERT_GT(low, 0);
    EXPECT_NEAR(high / low, 3.0, 0.05 * 3.0);
}

TEST_F(PortScheduling, ControlFramesGoFirstUnlessConfiguredOtherwise)
{
    for (bool controlFirst : {true, false})
    {
        served = Served();
        RoceHelper roce;
        roce.SetDeviceAttribute("ControlFirst", BooleanValue(controlFirst));
        Ptr<RoceNetDevice> port = MakePort(roce);
        for (int i = 0; i < 10; ++i)
        {
            port->EnqueueData(Frame(1000), 3, 0);
        }
        port->EnqueueControl(Frame(64), 3); // queued behind 9 data frames (one is on the wire)
        Simulator::Run();
        auto pos = std::find(served.order.begin(), served.order.end(), 64u) - served.order.begin();
        EXPECT_EQ(pos, controlFirst ? 1 : 10) << "ControlFirst " << controlFirst;
        Simulator::Destroy();
    }
}
