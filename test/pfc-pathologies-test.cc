// SPDX-License-Identifier: GPL-2.0-only
// PFC pathologies: a cyclic buffer dependency deadlocks a ring of switches, the deadlock
// detector names the cycle soon after it forms, and the PFC watchdog breaks it so every
// byte arrives.
#include "test-util.h"

#include "ns3/roce-topology-reader.h"

#include <sstream>

using namespace ns3;
using namespace aifabric;

namespace
{
class PfcPathologies : public NsTest
{
};

/// Five switches in a ring, one host on each, 100 Gb/s, 1 us cables.
std::string
RingJson()
{
    std::ostringstream os;
    os << R"({"hosts": {"count": 5, "prefix": "h"}, "switches": {"count": 5, "prefix": "s"},)"
       << R"("defaults": {"rate": "100Gbps", "delay": "1us"}, "links": [)";
    for (uint32_t i = 0; i < 5; ++i)
    {
        os << R"({"a": "h)" << i << R"(", "b": "s)" << i << R"("}, )";
        os << R"({"a": "s)" << i << R"(", "b": "s)" << (i + 1) % 5 << R"("})"
           << (i < 4 ? ", " : "");
    }
    os << "]}";
    return os.str();
}

/// What a ring run did.
struct RingRun
{
    uint64_t delivered{0};
    std::vector<PfcDeadlock> deadlocks;
    std::vector<std::string> switchNames;
    std::vector<uint32_t> switchNodes;
    /// Switch i's port toward switch i + 1 (clockwise): (node id, port index).
    std::vector<std::pair<uint32_t, uint32_t>> clockwisePorts;
    /// When the last of the clockwise ports began the priority-3 pause that still held at
    /// the end, from the PFC frames the ports received (not from the detector).
    Time lastPauseBegan;
    uint64_t storms{0};
    uint64_t stormDrops{0};
    uint64_t stormTraces{0};  //!< Storm trace calls, all watchdogs
    size_t deadlockTraces{0}; //!< Deadlock trace calls
    uint64_t retransmitted{0};
    Time end;
};

/**
 * Host i writes bytes to host i + 2, two hops clockwise (the only shortest path), with
 * no congestion control and a small switch buffer: every ring link carries two flows at
 * twice its rate, each switch's buffer for its counter-clockwise neighbour fills with
 * frames waiting for its clockwise link, and the pauses close a cycle.
 */
RingRun
RunRing(bool watchdog, uint64_t bytes, Time stop)
{
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    roce.SetMmuAttribute("BufferSize", UintegerValue(256 * 1024));
    Config::SetDefault("ns3::RoceSwitch::PfcWatchdog", BooleanValue(watchdog));
    Config::SetDefault("ns3::PfcWatchdog::DetectionTime", TimeValue(MicroSeconds(500)));
    Config::SetDefault("ns3::PfcWatchdog::RecoveryTime", TimeValue(MicroSeconds(500)));
    RoceTopologyReader reader(roce);
    RoceTopologyFile file;
    std::string error;
    EXPECT_TRUE(reader.ReadString(RingJson(), "ring", file, &error)) << error;
    RoceTopology& topo = file.topology;
    Ptr<PfcDeadlockDetector> detector = CreateObject<PfcDeadlockDetector>();
    detector->Install(topo.switchObjects);

    // Each clockwise ring port's priority-3 pause, as the PFC frames it receives set it:
    // a pause that starts while none holds (after an XON or an expiry) begins anew.
    struct Pause
    {
        Time began;
        Time until;
    };

    RingRun r;
    std::vector<Pause> pauses(5);
    for (uint32_t i = 0; i < 5; ++i)
    {
        Ptr<RoceSwitch> sw = topo.switchObjects[i];
        Ptr<Node> next = topo.switchObjects[(i + 1) % 5]->GetPort(0)->GetNode();
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            Ptr<RoceNetDevice> port = sw->GetPort(p);
            Ptr<RoceChannel> cable = port->GetRoceChannel();
            Ptr<RoceNetDevice> far =
                cable->GetRoceDevice(0) == port ? cable->GetRoceDevice(1) : cable->GetRoceDevice(0);
            if (far->GetNode() != next)
            {
                continue;
            }
            r.clockwisePorts.emplace_back(port->GetNode()->GetId(), p);
            const double quantumSeconds = 512.0 / port->GetDataRate().GetBitRate();
            Pause* pause = &pauses[i];
            port->TraceConnectWithoutContext(
                "PfcReceived",
                Callback<void, uint8_t, uint16_t>(
                    [pause, quantumSeconds](uint8_t priority, uint16_t quanta) {
                        if (priority != 3)
                        {
                            return;
                        }
                        const Time now = Simulator::Now();
                        if (quanta == 0)
                        {
                            pause->until = now; // XON: the pause ends
                            return;
                        }
                        if (now > pause->until || pause->began.IsZero())
                        {
                            pause->began = now;
                        }
                        pause->until = now + Seconds(quanta * quantumSeconds);
                    }));
        }
    }
    // The trace sources the doc lists: one Deadlock per reported cycle, one Storm per
    // storm a watchdog counts.
    detector->TraceConnectWithoutContext(
        "Deadlock",
        Callback<void, const PfcDeadlock&>([&r](const PfcDeadlock&) { ++r.deadlockTraces; }));
    for (const auto& sw : topo.switchObjects)
    {
        for (const auto& w : sw->GetPfcWatchdogs())
        {
            w->TraceConnectWithoutContext(
                "Storm",
                Callback<void, uint8_t, Time>([&r](uint8_t, Time) { ++r.stormTraces; }));
        }
    }
    std::vector<FlowProbe> flows(5);
    for (uint32_t i = 0; i < 5; ++i)
    {
        flows[i].Attach(RoceHelper::Connect(topo.nics[i], topo.nics[(i + 2) % 5]));
        flows[i].sender->PostWrite(bytes);
    }
    if (!stop.IsZero())
    {
        Simulator::Stop(stop);
    }
    Simulator::Run();
    for (const auto& p : pauses)
    {
        // Only pauses still holding at the end make the deadlock.
        if (p.until >= Simulator::Now())
        {
            r.lastPauseBegan = std::max(r.lastPauseBegan, p.began);
        }
    }
    for (const auto& f : flows)
    {
        r.delivered += f.BytesReceived();
        r.retransmitted += f.sender->GetPacketsRetransmitted();
        r.end = std::max(r.end, f.LastReceive());
    }
    r.deadlocks = detector->GetDeadlocks();
    r.switchNames = file.switchNames;
    for (const auto& sw : topo.switchObjects)
    {
        r.switchNodes.push_back(sw->GetPort(0)->GetNode()->GetId());
        for (const auto& w : sw->GetPfcWatchdogs())
        {
            r.storms += w->GetStorms();
            r.stormDrops += w->GetDrops();
        }
    }
    Simulator::Destroy();
    Config::Reset();
    return r;
}

} // namespace

TEST_F(PfcPathologies, ARingDeadlocksAndTheDetectorNamesTheCycle)
{
    const uint64_t bytes = 4 << 20;
    const RingRun r = RunRing(false, bytes, MilliSeconds(20));
    EXPECT_LT(r.delivered, 5 * bytes); // stuck for good
    ASSERT_FALSE(r.deadlocks.empty());
    EXPECT_EQ(r.deadlockTraces, r.deadlocks.size());
    const PfcDeadlock& d = r.deadlocks.front();
    std::cout << "[ measured ] deadlock formed at " << d.formedAt.As(Time::US) << ", reported at "
              << d.detectedAt.As(Time::US) << ": " << d.Describe() << "; delivered " << r.delivered
              << " of " << 5 * bytes << " B\n";
    // The cycle, named by its ports as the doc names it: the five ring ports toward the
    // clockwise neighbour (found from the cabling), priority 3, one per switch.
    ASSERT_EQ(r.clockwisePorts.size(), 5u);
    std::set<std::pair<uint32_t, uint32_t>> cycle;
    for (const auto& q : d.cycle)
    {
        cycle.emplace(q.node, q.port);
        EXPECT_EQ(q.priority, 3);
    }
    const std::set<std::pair<uint32_t, uint32_t>> clockwise(r.clockwisePorts.begin(),
                                                            r.clockwisePorts.end());
    EXPECT_EQ(cycle, clockwise);
    // When it formed, from the PFC frames the ports received: the last of them began its
    // final pause then (the detector's own figure must agree), and the report came within
    // PersistTime (200 us) plus a check interval of it.
    ASSERT_GT(r.lastPauseBegan, Time(0));
    std::cout << "[ measured ] the last clockwise port's final pause began at "
              << r.lastPauseBegan.As(Time::US) << " (from its PFC frames)\n";
    EXPECT_EQ(d.formedAt, r.lastPauseBegan);
    EXPECT_GE(d.detectedAt - r.lastPauseBegan, MicroSeconds(200));
    EXPECT_LE(d.detectedAt - r.lastPauseBegan, MilliSeconds(1));
}

TEST_F(PfcPathologies, TheWatchdogBreaksTheDeadlockAndEveryByteArrives)
{
    // Drop action: a port paused 500 us drops its queue and ignores pauses for 500 us;
    // go-back-N and the RTO bring the dropped frames again.
    const uint64_t bytes = 4 << 20;
    const RingRun r = RunRing(true, bytes / 8, Time());
    EXPECT_EQ(r.delivered, 5 * bytes / 8);
    EXPECT_GT(r.storms, 0u);
    EXPECT_EQ(r.stormTraces, r.storms);
    EXPECT_GT(r.stormDrops, 0u);
    EXPECT_GT(r.retransmitted, 0u);
    std::cout << "[ measured ] with the watchdog: every byte in " << r.end.As(Time::MS) << ", "
              << r.storms << " storms, " << r.stormDrops << " frames dropped, " << r.retransmitted
              << " packets retransmitted, " << r.deadlocks.size()
              << " deadlock(s) reported before recovery\n";
}
