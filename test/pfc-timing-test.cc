// SPDX-License-Identifier: GPL-2.0-only
// IEEE 802.1Qbb timing at the port: a pause of q quanta stops one priority for
// q × 512 bit times, lapses by itself, XON restarts at once, other priorities flow.
#include "test-util.h"

#include "ns3/ethernet-header.h"

using namespace aifabric;

namespace
{
constexpr uint8_t PAUSED_PRIORITY = 3;
constexpr uint8_t OTHER_PRIORITY = 1;
constexpr uint32_t PAUSED_FRAME = 1000; // frame sizes tell the priorities apart
constexpr uint32_t OTHER_FRAME = 1500;

struct TxLog
{
    std::vector<std::pair<Time, uint32_t>> frames; // start time, size
    std::vector<Time> pfcArrivals;
};

void
OnTx(TxLog* log, Ptr<const Packet> p)
{
    log->frames.emplace_back(Simulator::Now(), p->GetSize());
}

void
OnPfc(TxLog* log, uint8_t, uint16_t)
{
    log->pfcArrivals.push_back(Simulator::Now());
}

Ptr<Packet>
Frame(uint32_t size)
{
    Ptr<Packet> p = Create<Packet>(size - 14);
    EthernetHeader eth(false);
    eth.SetLengthType(0x88B5); // IEEE local experimental: carried, not interpreted
    p->AddHeader(eth);
    return p;
}

class PfcTiming : public NsTest
{
  protected:
    void Build()
    {
        NodeContainer nodes;
        nodes.Create(2);
        RoceHelper roce;
        NetDeviceContainer link =
            roce.Link(nodes.Get(0), nodes.Get(1), DataRate("100Gbps"), MicroSeconds(1));
        a = DynamicCast<RoceNetDevice>(link.Get(0));
        b = DynamicCast<RoceNetDevice>(link.Get(1));
        a->TraceConnectWithoutContext("MacTx", MakeBoundCallback(&OnTx, &log));
        a->TraceConnectWithoutContext("PfcReceived", MakeBoundCallback(&OnPfc, &log));
        for (int i = 0; i < 400; ++i)
        {
            a->EnqueueData(Frame(PAUSED_FRAME), PAUSED_PRIORITY, 0);
            a->EnqueueData(Frame(OTHER_FRAME), OTHER_PRIORITY, 0);
        }
    }

    /// Start of the first frame of size `size` at or after t.
    Time FirstStartAfter(Time t, uint32_t size) const
    {
        for (const auto& [start, bytes] : log.frames)
        {
            if (start >= t && bytes == size)
            {
                return start;
            }
        }
        return Time::Max();
    }

    uint32_t CountBetween(Time from, Time to, uint32_t size) const
    {
        uint32_t n = 0;
        for (const auto& [start, bytes] : log.frames)
        {
            n += (start > from && start < to && bytes == size) ? 1 : 0;
        }
        return n;
    }

    Ptr<RoceNetDevice> a;
    Ptr<RoceNetDevice> b;
    TxLog log;
};
} // namespace

TEST_F(PfcTiming, PauseStopsOnePriorityForQuantaTimesFiveHundredTwelveBitTimes)
{
    Build();
    const uint16_t quanta = 2000; // 2000 × 512 bit / 100 Gb/s = 10.24 µs
    Simulator::Schedule(MicroSeconds(3), &RoceNetDevice::SendPfc, b, PAUSED_PRIORITY, quanta);
    Simulator::Run();

    ASSERT_EQ(log.pfcArrivals.size(), 1u);
    const Time arrival = log.pfcArrivals[0];
    const Time pause = NanoSeconds(10240);
    EXPECT_EQ(a->QuantaToTime(quanta), pause);
    const Time slack = a->GetTransmissionTime(OTHER_FRAME); // one frame of the other class
    // Nothing of the paused class starts during the pause, except a frame already on
    // the wire when it arrived.
    EXPECT_EQ(
        CountBetween(arrival + a->GetTransmissionTime(PAUSED_FRAME), arrival + pause, PAUSED_FRAME),
        0u);
    // The pause lapses by itself (no refresh, no XON) after q × 512 bit times.
    Time resumed = FirstStartAfter(arrival + NanoSeconds(1), PAUSED_FRAME);
    while (resumed < arrival + a->GetTransmissionTime(OTHER_FRAME) && resumed != Time::Max())
    {
        resumed = FirstStartAfter(resumed + NanoSeconds(1), PAUSED_FRAME);
    }
    EXPECT_GE(resumed, arrival + pause);
    EXPECT_LE(resumed, arrival + pause + slack);
    // The other priority uses the whole port meanwhile.
    uint32_t others = CountBetween(arrival, arrival + pause, OTHER_FRAME);
    uint32_t capacity = static_cast<uint32_t>(pause.GetSeconds() / slack.GetSeconds());
    EXPECT_GE(others, capacity - 1);
    EXPECT_EQ(a->GetPfcPausesReceived(), 1u);
}

TEST_F(PfcTiming, XonRestartsAtOnce)
{
    Build();
    Simulator::Schedule(MicroSeconds(3), &RoceNetDevice::SendPfc, b, PAUSED_PRIORITY, 65535);
    Simulator::Schedule(MicroSeconds(20), &RoceNetDevice::SendPfc, b, PAUSED_PRIORITY, 0);
    Simulator::Run();
    ASSERT_EQ(log.pfcArrivals.size(), 2u);
    const Time xon = log.pfcArrivals[1];
    // Paused from the first frame until XON, although 65535 quanta last 335 µs.
    EXPECT_EQ(
        CountBetween(log.pfcArrivals[0] + a->GetTransmissionTime(PAUSED_FRAME), xon, PAUSED_FRAME),
        0u);
    Time resumed = FirstStartAfter(xon, PAUSED_FRAME);
    EXPECT_LE(resumed, xon + a->GetTransmissionTime(OTHER_FRAME));
}

TEST_F(PfcTiming, QuantumIsFiveHundredTwelveBitTimesAtEveryRate)
{
    NodeContainer nodes;
    nodes.Create(2);
    RoceHelper roce;
    for (auto [rate, ns] : std::vector<std::pair<std::string, double>>{{"25Gbps", 20.48},
                                                                       {"100Gbps", 5.12},
                                                                       {"400Gbps", 1.28}})
    {
        NetDeviceContainer link =
            roce.Link(nodes.Get(0), nodes.Get(1), DataRate(rate), MicroSeconds(1));
        Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(link.Get(0));
        EXPECT_NEAR(dev->QuantaToTime(1000).GetNanoSeconds(), 1000 * ns, 1.0) << rate;
        EXPECT_NEAR(dev->QuantaToTime(65535).GetMicroSeconds(), 65535 * ns / 1000, 1.0) << rate;
    }
}

TEST_F(PfcTiming, PfcFramesKeepTheirOrder)
{
    // An XOFF and the XON that follows it, queued while the port is busy, must arrive in
    // that order: the other way round the peer would stay paused (or, for XON then XOFF,
    // keep running while the switch believes it paused).
    Build();
    Simulator::Schedule(MicroSeconds(3), [this]() {
        b->EnqueueData(Frame(OTHER_FRAME), OTHER_PRIORITY, 0); // keeps b busy
        b->SendPfc(PAUSED_PRIORITY, 65535);
        b->SendPfc(PAUSED_PRIORITY, 0);
    });
    Simulator::Stop(MicroSeconds(10));
    Simulator::Run();
    ASSERT_EQ(log.pfcArrivals.size(), 2u);
    EXPECT_FALSE(a->IsPaused(PAUSED_PRIORITY));
}
