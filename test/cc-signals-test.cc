// SPDX-License-Identifier: GPL-2.0-only
// The signals congestion-control algorithms get from the queue pair: the ECN echo of
// every ACK (exact with DCTCP's receiver state machine), RTT samples with every ACK, and
// the window limit every algorithm honours.
#include "cc-test-util.h"

using namespace ns3;
using namespace aifabric;

namespace ns3
{

/// Records what every ACK tells it and never changes the rate (line rate, PFC only).
class SignalRecorder : public RoceCongestionControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::SignalRecorder")
                                .SetParent<RoceCongestionControl>()
                                .SetGroupName("AiFabricTest")
                                .AddConstructor<SignalRecorder>();
        return tid;
    }

    RoceSignalNeeds GetSignalNeeds() const override
    {
        return s_needs;
    }

    void OnAck(const RoceAckSignal& signal) override
    {
        ++acks;
        packets += signal.ackedPackets;
        echoedPackets += signal.ecnEcho ? signal.ackedPackets : 0;
        if (!signal.rtt.IsZero())
        {
            ++rttSamples;
            minRtt = std::min(minRtt, signal.rtt);
            maxRtt = std::max(maxRtt, signal.rtt);
        }
        maxInflight = std::max(maxInflight, signal.inflightBytes);
    }

    static RoceSignalNeeds s_needs; //!< what every instance asks for

    uint64_t acks{0};
    uint64_t packets{0};
    uint64_t echoedPackets{0};
    uint64_t rttSamples{0};
    uint64_t maxInflight{0};
    Time minRtt{Seconds(1)};
    Time maxRtt;
};

RoceSignalNeeds SignalRecorder::s_needs;
NS_OBJECT_ENSURE_REGISTERED(SignalRecorder);

} // namespace ns3

namespace
{
class CcSignals : public NsTest
{
};

/// Two line-rate flows of 8 MiB into one 100G port that marks CE; per flow, what the
/// senders' recorders saw, and the CE marks of the bottleneck port.
struct Incast
{
    std::vector<Ptr<SignalRecorder>> recorders;
    uint64_t marks{0};
    uint64_t packetsSent{0};
};

Incast
RunIncast(RoceSignalNeeds needs, uint64_t windowLimit = 0, bool randomMarks = false)
{
    SignalRecorder::s_needs = needs;
    Config::SetDefault("ns3::RoceCongestionControl::WindowLimit", UintegerValue(windowLimit));
    RoceHelper roce;
    roce.SetCongestionControl("ns3::SignalRecorder");
    // Step marking above 20 packets, or (randomMarks) RED from 1 packet to 16 MiB, so
    // marked and unmarked packets alternate.
    roce.SetMmuAttribute("EcnKmin", UintegerValue(randomMarks ? 4096 : 20 * 4096));
    roce.SetMmuAttribute("EcnKmax", UintegerValue(randomMarks ? 16u << 20 : 20 * 4096));
    roce.SetMmuAttribute("EcnPmax", DoubleValue(1.0));
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo =
        topoHelper.Dumbbell(2, 2, DataRate("100Gbps"), DataRate("100Gbps"), MicroSeconds(1));
    Incast out;
    std::vector<Ptr<RdmaQueuePair>> senders;
    for (uint32_t i = 0; i < 2; ++i)
    {
        auto qps = RoceHelper::Connect(topo.nics[i], topo.nics[2 + i]);
        senders.push_back(qps.first);
        out.recorders.push_back(DynamicCast<SignalRecorder>(qps.first->GetCongestionControl()));
        qps.first->PostWrite(8 << 20);
    }
    Simulator::Run();
    Ptr<RoceSwitch> left = topo.switchObjects[0];
    out.marks = left->GetEcnMarks(left->GetNPorts() - 1);
    for (const auto& qp : senders)
    {
        out.packetsSent += qp->GetPacketsSent();
    }
    Simulator::Destroy();
    return out;
}

} // namespace

TEST_F(CcSignals, EcnEchoIsExactWithDctcpsReceiverStateMachine)
{
    // Every CE mark of the bottleneck comes back in the echo of the ACK covering its
    // packet. With the state machine each ACK covers packets of one CE state, so the
    // packets acknowledged with an echo are exactly the marked ones; with plain
    // coalescing (AckInterval 4) an echo covers the unmarked packets acknowledged with a
    // marked one too.
    RoceSignalNeeds exact;
    exact.exactEcnEcho = true;
    const Incast a = RunIncast(exact, 0, true);
    const Incast b = RunIncast(RoceSignalNeeds(), 0, true);
    uint64_t echoedA = 0;
    uint64_t echoedB = 0;
    uint64_t acksA = 0;
    uint64_t acksB = 0;
    for (uint32_t i = 0; i < 2; ++i)
    {
        echoedA += a.recorders[i]->echoedPackets;
        echoedB += b.recorders[i]->echoedPackets;
        acksA += a.recorders[i]->acks;
        acksB += b.recorders[i]->acks;
        EXPECT_EQ(a.recorders[i]->packets, (8u << 20) / 4096);
    }
    std::cout << "[ measured ] " << a.marks << " CE marks; echoed packets " << echoedA
              << " with the state machine (" << acksA << " ACKs), " << echoedB << " without ("
              << acksB << " ACKs)\n";
    ASSERT_GT(a.marks, 100u);
    EXPECT_EQ(echoedA, a.marks);
    // Coalescing: an echo also covers the unmarked packets acknowledged with a marked
    // one (about 3 packets per ACK here; the two runs mark different packets).
    EXPECT_GT(echoedB, b.marks * 3 / 2);
    EXPECT_GT(acksA, acksB);
}

TEST_F(CcSignals, RttWithEveryAckFromSenderTimestamps)
{
    // With rttPerAck every ACK that acknowledges something carries the RTT of the newest
    // packet it covers; the smallest is at least the unloaded round trip (three 1 us
    // cables each way), the largest includes the queue. Without it, one probe per round
    // trip.
    RoceSignalNeeds perAck;
    perAck.rttPerAck = true;
    const Incast a = RunIncast(perAck);
    const Incast b = RunIncast(RoceSignalNeeds());
    for (uint32_t i = 0; i < 2; ++i)
    {
        const auto& r = a.recorders[i];
        EXPECT_EQ(r->rttSamples, r->acks) << i;
        EXPECT_GE(r->minRtt, MicroSeconds(6)) << i;
        EXPECT_GT(r->maxRtt, r->minRtt + MicroSeconds(5)) << i; // the queue shows
        EXPECT_LT(b.recorders[i]->rttSamples, r->rttSamples / 4) << i;
        std::cout << "[ measured ] flow " << i << ": " << r->rttSamples << " RTT samples for "
                  << r->acks << " ACKs, " << r->minRtt.As(Time::US) << " .. "
                  << r->maxRtt.As(Time::US) << "; probe-based: " << b.recorders[i]->rttSamples
                  << "\n";
    }
}

TEST_F(CcSignals, WindowLimitCapsTheBytesInFlight)
{
    // WindowLimit, on any algorithm: never more than the limit in flight (in whole
    // packets of 4096 B payload), where the unlimited run has many more.
    const Incast limited = RunIncast(RoceSignalNeeds(), 10 * 4096);
    const Incast free = RunIncast(RoceSignalNeeds(), 0);
    for (uint32_t i = 0; i < 2; ++i)
    {
        EXPECT_LE(limited.recorders[i]->maxInflight, 10u * 4096) << i;
        EXPECT_GT(free.recorders[i]->maxInflight, 20u * 4096) << i;
    }
    EXPECT_LT(limited.marks, free.marks);
    Config::SetDefault("ns3::RoceCongestionControl::WindowLimit", UintegerValue(0));
}
