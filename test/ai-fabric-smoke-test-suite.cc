// SPDX-License-Identifier: GPL-2.0-only
// In-tree (contrib/ai-fabric) smoke test for ns-3's test.py: one message over one link
// arrives whole at the payload rate. The full validation lives in the GoogleTest suites.
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

using namespace ns3;

namespace
{
struct Delivery
{
    uint64_t bytes{0};
    Time last;
};

void
OnReceived(Delivery* d, Ptr<RdmaQueuePair>, uint64_t, uint64_t b)
{
    d->bytes += b;
    d->last = Simulator::Now();
}
} // namespace

class AiFabricSmokeTestCase : public TestCase
{
  public:
    AiFabricSmokeTestCase()
        : TestCase("one RDMA WRITE over one 100G link")
    {
    }

  private:
    void DoRun() override
    {
        RoceHelper roce;
        roce.SetCongestionControl("ns3::NoCongestionControl");
        NodeContainer hosts;
        hosts.Create(2);
        NetDeviceContainer link =
            roce.Link(hosts.Get(0), hosts.Get(1), DataRate("100Gbps"), MicroSeconds(1));
        Ptr<RdmaNic> a = roce.InstallNic(link.Get(0), Ipv4Address("10.0.0.1"));
        Ptr<RdmaNic> b = roce.InstallNic(link.Get(1), Ipv4Address("10.0.0.2"));
        auto qps = RoceHelper::Connect(a, b);
        Delivery received;
        qps.second->SetReceiveCompleteCallback(MakeBoundCallback(&OnReceived, &received));
        const uint64_t bytes = 8 << 20;
        Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, qps.first, bytes);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(received.bytes, bytes, "every byte arrives");
        double goodput = bytes * 8.0 / received.last.GetSeconds();
        NS_TEST_ASSERT_MSG_EQ_TOL(goodput, 100e9 * 4096 / 4178, 0.01 * 100e9, "payload rate");
        Simulator::Destroy();
    }
};

class AiFabricSmokeTestSuite : public TestSuite
{
  public:
    AiFabricSmokeTestSuite()
        : TestSuite("ai-fabric-smoke", TestSuite::Type::UNIT)
    {
        AddTestCase(new AiFabricSmokeTestCase); // default duration: QUICK
    }
};

static AiFabricSmokeTestSuite g_aiFabricSmokeTestSuite;
