// SPDX-License-Identifier: GPL-2.0-only
// NCCL's protocols (LL, LL128, Simple): what each puts on the wire, the latencies of NCCL's
// tuning model landed per call and per step, and auto's choice of protocol by size.
#include "test-util.h"

#include "ns3/collective-engine.h"
#include "ns3/collective-plan-cost.h"
#include "ns3/collective-protocol.h"
#include "ns3/collective-selection.h"
#include "ns3/enum.h"
#include "ns3/ideal-transport.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric;

namespace
{
class CollectiveProtocolTest : public NsTest
{
};

/// Seconds of a NCCL latency in us.
double
Us(double us)
{
    return us * 1e-6;
}

Ptr<IdealTransport>
Ideal(uint32_t n, const std::string& hardware)
{
    auto t = CreateObject<IdealTransport>();
    t->SetAttribute("NRanks", UintegerValue(n));
    t->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
    t->SetAttribute("Latency", TimeValue(MicroSeconds(2)));
    t->SetAttribute("Hardware", StringValue(hardware));
    return t;
}

/// One ring all-reduce on carrier with the engine's Protocol set to protocol.
CollectiveResult
RingAllReduce(Ptr<CollectiveTransport> carrier,
              const CommGroup& group,
              uint64_t bytes,
              CollectiveProtocol protocol)
{
    auto engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(carrier);
    engine->SetAttribute("Algorithm", StringValue("ring"));
    engine->SetAttribute("Protocol", StringValue(CollectiveProtocolToString(protocol)));
    CollectiveResult result;
    engine->RunCollective(CollectiveType::ALL_REDUCE,
                          group,
                          bytes,
                          MakeBoundCallback(&StoreResult, &result));
    Simulator::Run();
    Simulator::Destroy();
    return result;
}

/// A carrier of servers of four GPUs: NVLink inside a server, the network across.
class FourPerServer : public CollectiveTransport
{
  public:
    void Send(uint32_t, uint32_t, uint64_t, uint32_t, DoneCallback) override
    {
    }

    uint32_t GetNRanks() const override
    {
        return 8;
    }

    LinkHardware GetLinkHardware(uint32_t src, uint32_t dst) const override
    {
        return src / 4 == dst / 4 ? LinkHardware::NVLINK : LinkHardware::NET;
    }
};
} // namespace

// Each protocol's layout: LL carries 8 data bytes in a 16-byte line, LL128 120 in 128.
TEST_F(CollectiveProtocolTest, WireBytesFollowTheLineLayouts)
{
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::LL, 8), 16u);
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::LL, 9), 32u);
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::LL, 1 << 20), 2u << 20);
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::LL128, 120), 128u);
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::LL128, 121), 256u);
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::SIMPLE, 12345), 12345u);
    EXPECT_EQ(CollectiveProtocolWireBytes(CollectiveProtocol::NONE, 12345), 12345u);
    CollectiveProtocol p;
    ASSERT_TRUE(CollectiveProtocolFromString("simple", p)); // NCCL_PROTO's spelling
    EXPECT_EQ(p, CollectiveProtocol::SIMPLE);
    ASSERT_TRUE(CollectiveProtocolFromString("ll128", p));
    EXPECT_EQ(p, CollectiveProtocol::LL128);
    EXPECT_FALSE(CollectiveProtocolFromString("ll64", p));
    EXPECT_FALSE(CollectiveProtocolApplies(CollectiveAlgorithm::NVLS, CollectiveProtocol::LL));
    EXPECT_TRUE(CollectiveProtocolApplies(CollectiveAlgorithm::RING, CollectiveProtocol::LL128));
}

// A ring all-reduce of n ranks, one per server, on the ideal carrier: 2(n-1) steps in a
// chain, each its protocol's step latency, then the carrier's alpha and the step's wire
// bytes at the rate; the call's base latency before the first. With one rank per server
// NCCL charges the tree's network latency per step (5.0 / 8.5 / 14 us) and the ring's
// base latency (6.6 / 14 / 8.4 us). To the nanosecond (the latencies' rounding).
TEST_F(CollectiveProtocolTest, RingStepsOverTheNetworkAreClosedForms)
{
    const uint32_t n = 4;
    const uint64_t bytes = 1 << 20;
    const double alpha = 2e-6;
    const double rate = 100e9 / 8;
    for (CollectiveProtocol p :
         {CollectiveProtocol::LL, CollectiveProtocol::LL128, CollectiveProtocol::SIMPLE})
    {
        const CollectiveResult r =
            RingAllReduce(Ideal(n, "net"), CommGroup::Uniform(n, 1), bytes, p);
        EXPECT_EQ(r.protocol, p);
        const double step = Us(NcclHwLatencyUs(LinkHardware::NET, CollectiveAlgorithm::TREE, p)) +
                            alpha +
                            static_cast<double>(CollectiveProtocolWireBytes(p, bytes / n)) / rate;
        const double expected =
            Us(NcclBaseLatencyUs(CollectiveAlgorithm::RING, p)) + 2 * (n - 1) * step;
        std::cout << "[ measured ] ring all-reduce 1 MiB, 4 ranks, " << p << ": "
                  << r.GetDuration().As(Time::US) << " (closed form " << expected * 1e6 << " us)\n";
        // The carrier rounds each message's time to the nanosecond: 1 ns a step at most.
        EXPECT_NEAR(r.GetDuration().GetSeconds(), expected, 2 * (n - 1) * 1e-9) << p;
    }
    // The wire bound: no protocol costs at all.
    const CollectiveResult none =
        RingAllReduce(Ideal(n, "net"), CommGroup::Uniform(n, 1), bytes, CollectiveProtocol::NONE);
    EXPECT_NEAR(none.GetDuration().GetSeconds(),
                2 * (n - 1) * (alpha + static_cast<double>(bytes / n) / rate),
                2 * (n - 1) * 1e-9);
}

// Inside one server over NVLink the steps cost the ring's NVLink latencies
// (0.6 / 1.9 / 3.4 us): no network overhead, no tree row.
TEST_F(CollectiveProtocolTest, RingStepsOverNvLinkAreClosedForms)
{
    const uint32_t n = 8;
    const uint64_t bytes = 8 << 20;
    for (CollectiveProtocol p :
         {CollectiveProtocol::LL, CollectiveProtocol::LL128, CollectiveProtocol::SIMPLE})
    {
        const CollectiveResult r =
            RingAllReduce(Ideal(n, "nvlink"), CommGroup::Uniform(1, n), bytes, p);
        const double step =
            Us(NcclHwLatencyUs(LinkHardware::NVLINK, CollectiveAlgorithm::RING, p)) + 2e-6 +
            static_cast<double>(CollectiveProtocolWireBytes(p, bytes / n)) / (100e9 / 8);
        const double expected =
            Us(NcclBaseLatencyUs(CollectiveAlgorithm::RING, p)) + 2 * (n - 1) * step;
        EXPECT_NEAR(r.GetDuration().GetSeconds(), expected, 2 * (n - 1) * 1e-9) << p;
    }
}

// A ring across servers of four GPUs: network steps pay the ring's network latency
// (2.7 / 4.0 / 14 us); NVLink steps at least NCCL_NET_OVERHEAD (1 us, x3 with Simple), so
// LL's 0.6 us becomes 1.0 and Simple's 3.4 stays. A protocol of none charges nothing.
TEST_F(CollectiveProtocolTest, StepsInsideServersOfANetworkRingWaitForTheProxy)
{
    auto carrier = CreateObject<FourPerServer>();
    CommPlan plan =
        MakeCollectivePlan(CollectiveType::ALL_REDUCE, CollectiveAlgorithm::RING, 8, 8 << 20);
    const Time overhead = MicroSeconds(1);
    auto us = [](double v) { return NanoSeconds(static_cast<int64_t>(v * 1000 + 0.5)); };

    struct Row
    {
        CollectiveProtocol p;
        double nvlink;
        double net;
    };

    for (const Row& row : {Row{CollectiveProtocol::LL, 1.0, 2.7},
                           Row{CollectiveProtocol::LL128, 1.9, 4.0},
                           Row{CollectiveProtocol::SIMPLE, 3.4, 14.0}})
    {
        plan.SetProtocol(row.p);
        const CollectiveProtocolCosts costs(plan, *carrier, {}, overhead);
        EXPECT_EQ(costs.GetStepLatency(LinkHardware::NVLINK), us(row.nvlink)) << row.p;
        EXPECT_EQ(costs.GetStepLatency(LinkHardware::NET), us(row.net)) << row.p;
        // Transfer 0 is rank 0 -> 1 (NVLink), the ring's step 3 -> 4 crosses servers.
        for (uint32_t t = 0; t < plan.GetNTransfers(); ++t)
        {
            const auto& tr = plan.GetTransfer(t);
            const Time expected = us(tr.src / 4 == tr.dst / 4 ? row.nvlink : row.net);
            ASSERT_EQ(costs.GetStepLatency(t), expected) << row.p << " transfer " << t;
        }
    }
    plan.SetProtocol(CollectiveProtocol::NONE);
    const CollectiveProtocolCosts none(plan, *carrier, {}, overhead);
    EXPECT_FALSE(none.IsCharged());
    EXPECT_EQ(none.GetCallLatency(), Time(0));
    EXPECT_EQ(none.GetStepLatency(0u), Time(0));
}

// auto picks the protocol as NCCL's tuner does, by the lowest predicted time: LL for tiny
// calls (lowest latency), Simple for large ones (full payload); and the cost model's
// estimate of each is the ideal carrier's simulated time (both charge the same costs).
TEST_F(CollectiveProtocolTest, AutoPicksTheFastestProtocolBySize)
{
    const uint32_t n = 8;
    const CommGroup group = CommGroup::Uniform(n, 1);
    auto carrier = Ideal(n, "net");
    CollectiveSelection selection(carrier);
    CollectivePlanOptions options;
    const auto small = selection.Choose(CollectiveType::ALL_REDUCE, group, 8, options);
    EXPECT_EQ(small.protocol, CollectiveProtocol::LL);
    const auto large = selection.Choose(CollectiveType::ALL_REDUCE, group, 1 << 30, options);
    EXPECT_EQ(large.protocol, CollectiveProtocol::SIMPLE);
    for (uint64_t bytes : {uint64_t{8}, uint64_t{1} << 20, uint64_t{1} << 26})
    {
        for (const auto& c : selection.Rank(CollectiveType::ALL_REDUCE, group, bytes, options))
        {
            if (c.algorithm != CollectiveAlgorithm::RING)
            {
                continue;
            }
            const CollectiveResult r = RingAllReduce(Ideal(n, "net"), group, bytes, c.protocol);
            // The carrier rounds each message to the nanosecond; the estimate does not.
            EXPECT_NEAR(r.GetDuration().GetSeconds(), c.estimate.GetSeconds(), 2 * (n - 1) * 1e-9)
                << c.protocol << " " << bytes;
        }
    }
    // A forced protocol is what every candidate runs; NVLS-style algorithms run Simple only.
    options.protocol = CollectiveProtocol::LL128;
    for (const auto& c : selection.Rank(CollectiveType::ALL_REDUCE, group, 1 << 20, options))
    {
        EXPECT_EQ(c.protocol, CollectiveProtocol::LL128);
    }
}
