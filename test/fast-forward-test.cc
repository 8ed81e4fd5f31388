// SPDX-License-Identifier: GPL-2.0-only
// Steady-state fast-forward (RdmaFastForward) against the packet reference: the same
// flows, run once packet by packet and once with the fast-forward, must finish at the
// same times and leave the same counters; anything that would change the outcome (a new
// flow, a pause) must end a skip. The training scenarios are compared in
// training-fast-forward-test.cc.
#include "test-util.h"

#include "ns3/fast-forward-check.h"
#include "ns3/rdma-fast-forward.h"

#include <array>
#include <functional>

using namespace aifabric;

namespace
{

/// One flow of a run: a WRITE of bytes from host src to host dst at time start.
struct FlowSpec
{
    uint32_t src;
    uint32_t dst;
    uint64_t bytes;
    Time start;
};

/// What a run leaves behind.
struct Outcome
{
    std::vector<Time> completions;     //!< per flow: the receiver's completion
    std::vector<uint64_t> received;    //!< per flow: bytes the receiver counted
    std::vector<uint64_t> packetsSent; //!< per flow: the sender's data packets
    std::vector<uint64_t> portBytes;   //!< per port (NICs, then switch ports): bytes sent
    std::vector<uint64_t> portFrames;  //!< per port: frames sent
    std::vector<uint64_t> portSkipped; //!< per port: of those, frames a skip let through
    uint64_t pauses{0};
    uint64_t ecnMarks{0};
    uint64_t skips{0};
    uint64_t interrupted{0};
    uint64_t skippedBytes{0};
    uint64_t skippedPackets{0};   //!< the fast-forward's GetSkippedPackets
    uint64_t dataPacketsSent{0};  //!< all NICs' GetDataPacketsSent
    Time firstSkipEnd;            //!< when the first skip ended (zero: none)
    std::vector<Time> skipStarts; //!< when each skip started
    std::vector<Time> skipEnds;   //!< when each skip ended
};

/// Something a test does to a run before it starts (schedules events on the topology).
using Meddle = std::function<void(const RoceTopology&, const std::vector<FlowProbe>&)>;

/**
 * Run flows on a star of hosts at 100 Gb/s, 1 us cables, with or without the
 * fast-forward, and destroy the simulator.
 * \param roce the helper (congestion control and MMU set by the caller)
 * \param hosts hosts on the switch
 * \param flows the flows
 * \param fastForward install an RdmaFastForward
 * \param meddle what the test does to the run before it starts (none by default)
 * \param cable every cable's delay
 * \return what the run left
 */
Outcome
RunStar(RoceHelper& roce,
        uint32_t hosts,
        const std::vector<FlowSpec>& flows,
        bool fastForward,
        const Meddle& meddle = Meddle(),
        Time cable = MicroSeconds(1))
{
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(hosts, DataRate("100Gbps"), cable);
    roce.AssignStreams(1);
    Ptr<RdmaFastForward> ff;
    Outcome out;
    if (fastForward)
    {
        ff = CreateObject<RdmaFastForward>();
        ff->Install(topo.nics, topo.switchObjects);
        ff->TraceConnectWithoutContext("SkipEnded",
                                       MakeCallback(+[](Outcome* o, Time, uint64_t, bool) {
                                           if (o->firstSkipEnd.IsZero())
                                           {
                                               o->firstSkipEnd = Simulator::Now();
                                           }
                                           o->skipEnds.push_back(Simulator::Now());
                                       }).Bind(&out));
        ff->TraceConnectWithoutContext("SkipStarted", MakeCallback(+[](Outcome* o, uint32_t, Time) {
                                                          o->skipStarts.push_back(Simulator::Now());
                                                      }).Bind(&out));
    }
    std::vector<FlowProbe> probes(flows.size());
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        probes[i].Attach(RoceHelper::Connect(topo.nics[flows[i].src], topo.nics[flows[i].dst]));
        Simulator::Schedule(flows[i].start,
                            &RdmaQueuePair::PostWrite,
                            probes[i].sender,
                            flows[i].bytes);
    }
    if (meddle)
    {
        meddle(topo, probes);
    }
    Simulator::Run();
    for (const Ptr<RdmaNic>& nic : topo.nics)
    {
        out.dataPacketsSent += nic->GetDataPacketsSent();
    }
    for (const FlowProbe& p : probes)
    {
        out.completions.push_back(p.LastReceive());
        out.received.push_back(p.receiver->GetBytesReceived());
        out.packetsSent.push_back(p.sender->GetPacketsSent());
    }
    auto port = [&out](Ptr<RoceNetDevice> d) {
        out.portBytes.push_back(d->GetTxBytes());
        out.portFrames.push_back(d->GetTxFrames());
        out.portSkipped.push_back(d->GetSkippedTxFrames());
    };
    for (const Ptr<RdmaNic>& nic : topo.nics)
    {
        port(nic->GetDevice());
    }
    for (const Ptr<RoceSwitch>& sw : topo.switchObjects)
    {
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            port(sw->GetPort(p));
        }
        out.ecnMarks += sw->GetEcnMarks();
    }
    out.pauses = TotalPauses(topo);
    if (ff)
    {
        out.skips = ff->GetSkips();
        out.interrupted = ff->GetInterruptedSkips();
        out.skippedBytes = ff->GetSkippedPayloadBytes();
        out.skippedPackets = ff->GetSkippedPackets();
    }
    Simulator::Destroy();
    return out;
}

/// \return |a - b| / b
double
Relative(Time a, Time b)
{
    return std::abs(a.GetSeconds() - b.GetSeconds()) / b.GetSeconds();
}

/// What a ring run leaves: when each step was received, per host and channel.
struct RingOutcome
{
    std::vector<Time> stepDone; //!< per step: the last receive of that step, any host/channel
    uint64_t skips{0};
    double skipped{0};            //!< share of the payload bytes skipped
    std::vector<Time> skipStarts; //!< when each skip started
};

/// State of a chained ring: host h sends step k on channel c to host h+1 once it has
/// received step k-1 on channel c from host h-1 (NCCL's ring: what a rank sends next is
/// what it just received).
struct Ring
{
    uint32_t hosts;
    uint32_t channels;
    uint32_t steps;
    uint64_t bytes;
    std::vector<Ptr<RdmaQueuePair>> senders; //!< [host * channels + c]: host -> host+1
    std::vector<uint32_t> received;          //!< [host * channels + c]: steps received
    std::vector<Time> stepDone;
    uint32_t lateFrom{0}; //!< channels past the first join at this step (0: from the start)

    /// \param c a channel \return the step its first message is
    uint32_t FirstStep(uint32_t c) const
    {
        return c > 0 ? lateFrom : 0;
    }

    /// Host h's receiver on channel c completed a step: h forwards it on.
    void OnReceive(uint32_t index)
    {
        const uint32_t host = index / channels;
        const uint32_t c = index % channels;
        const uint32_t k = FirstStep(c) + received[index]++;
        stepDone[k] = std::max(stepDone[k], Simulator::Now());
        if (k + 1 < steps)
        {
            senders[host * channels + c]->PostWrite(bytes);
            if (c == 0 && lateFrom > 0 && k + 1 == lateFrom)
            {
                for (uint32_t late = 1; late < channels; ++late)
                {
                    senders[host * channels + late]->PostWrite(bytes);
                }
            }
        }
    }
};

/**
 * A chained ring (Ring) on a star at 100 Gb/s with DCQCN, with or without the fast-forward.
 * \param hosts ranks, one per host
 * \param channels queue pairs per neighbour (NCCL's channels)
 * \param steps messages each queue pair sends, one after the other
 * \param bytes each message's size
 * \param cable every cable's delay
 * \param fastForward install an RdmaFastForward
 * \param lateFrom the channels past the first begin at this step (0: at the first)
 * \return when each step was done everywhere, and how much was skipped
 */
RingOutcome
RunRing(uint32_t hosts,
        uint32_t channels,
        uint32_t steps,
        uint64_t bytes,
        Time cable,
        bool fastForward,
        uint32_t lateFrom = 0)
{
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(hosts, DataRate("100Gbps"), cable);
    roce.AssignStreams(1);
    Ptr<RdmaFastForward> ff;
    if (fastForward)
    {
        ff = CreateObject<RdmaFastForward>();
        ff->Install(topo.nics, topo.switchObjects);
    }
    std::vector<Time> skipStarts;
    if (ff)
    {
        ff->TraceConnectWithoutContext("SkipStarted",
                                       MakeCallback(+[](std::vector<Time>* starts, uint32_t, Time) {
                                           starts->push_back(Simulator::Now());
                                       }).Bind(&skipStarts));
    }
    Ring ring{hosts, channels, steps, bytes, {}, {}, {}, lateFrom};
    ring.senders.resize(hosts * channels);
    ring.received.assign(hosts * channels, 0);
    ring.stepDone.assign(steps, Time());
    for (uint32_t h = 0; h < hosts; ++h)
    {
        for (uint32_t c = 0; c < channels; ++c)
        {
            const uint32_t next = (h + 1) % hosts;
            auto [sender, receiver] = RoceHelper::Connect(topo.nics[h], topo.nics[next]);
            ring.senders[h * channels + c] = sender;
            receiver->SetReceiveCompleteCallback(
                MakeCallback(+[](Ring* r, uint32_t index, Ptr<RdmaQueuePair>, uint64_t, uint64_t) {
                    r->OnReceive(index);
                }).Bind(&ring, next * channels + c));
        }
    }
    for (uint32_t i = 0; i < ring.senders.size(); ++i)
    {
        if (ring.FirstStep(i % channels) == 0)
        {
            Simulator::ScheduleNow(&RdmaQueuePair::PostWrite, ring.senders[i], bytes);
        }
    }
    Simulator::Run();
    RingOutcome out;
    out.stepDone = ring.stepDone;
    out.skipStarts = skipStarts;
    if (ff)
    {
        out.skips = ff->GetSkips();
        const uint64_t messages =
            static_cast<uint64_t>(hosts) * (steps + (channels - 1) * (steps - lateFrom));
        out.skipped =
            static_cast<double>(ff->GetSkippedPayloadBytes()) /
            static_cast<double>(bytes * (lateFrom > 0 ? messages : steps * hosts * channels));
    }
    Simulator::Destroy();
    return out;
}

class FastForward : public NsTest
{
};

} // namespace

// Two flows on disjoint paths at line rate (DCQCN, no congestion): nearly all of their
// packets are skipped, and each finishes within 10 ns of the packet reference (one
// rounding of the port's sub-nanosecond carry per skip); both ends count every byte.
TEST_F(FastForward, DisjointFlowsMatchThePacketReference)
{
    const std::vector<FlowSpec> flows = {{0, 1, 8 << 20, Seconds(0)},
                                         {2, 3, 16 << 20, MicroSeconds(3)}};
    RoceHelper a;
    const Outcome ref = RunStar(a, 4, flows, false);
    RoceHelper b;
    const Outcome ff = RunStar(b, 4, flows, true);
    ASSERT_EQ(ref.completions.size(), 2u);
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        EXPECT_EQ(ff.received[i], flows[i].bytes);
        EXPECT_EQ(ff.received[i], ref.received[i]);
        EXPECT_EQ(ff.packetsSent[i], ref.packetsSent[i]);
        EXPECT_EQ(ff.dataPacketsSent, ref.dataPacketsSent); // the NICs count skipped packets
        EXPECT_LE(std::abs((ff.completions[i] - ref.completions[i]).GetNanoSeconds()), 10)
            << "flow " << i << ": " << ff.completions[i] << " vs " << ref.completions[i];
    }
    const double skipped = static_cast<double>(ff.skippedBytes) / (24 << 20);
    std::cout << "[ measured ] " << ff.skips << " skips, " << 100 * skipped
              << " % of the bytes skipped; completions " << ff.completions[0] << " / "
              << ff.completions[1] << " (reference " << ref.completions[0] << " / "
              << ref.completions[1] << ")\n";
    EXPECT_GT(skipped, 0.97);
    EXPECT_EQ(ff.skips, 2u); // no port in common: two groups, one skip each
    EXPECT_EQ(ff.interrupted, 0u);
    EXPECT_EQ(ref.ecnMarks + ref.pauses, 0u);
}

// Groups skip on their own: a new flow over the ports of one group (into host 1) ends that
// group's skip only; the other group (2 -> 3) skips through it and finishes as in the
// reference, to 10 ns.
TEST_F(FastForward, ANewFlowEndsOnlyTheSkipOfItsGroup)
{
    const std::vector<FlowSpec> flows = {{0, 1, 32 << 20, Seconds(0)},
                                         {2, 3, 32 << 20, Seconds(0)},
                                         {4, 1, 1 << 20, MicroSeconds(1000)}};
    RoceHelper a;
    const Outcome ref = RunStar(a, 5, flows, false);
    RoceHelper b;
    const Outcome ff = RunStar(b, 5, flows, true);
    EXPECT_EQ(ff.interrupted, 1u);
    EXPECT_EQ(ff.firstSkipEnd, MicroSeconds(1000));
    EXPECT_LE(std::abs((ff.completions[1] - ref.completions[1]).GetNanoSeconds()), 10)
        << ff.completions[1] << " vs " << ref.completions[1];
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        EXPECT_EQ(ff.received[i], flows[i].bytes);
    }
    EXPECT_GT(ff.skippedBytes, 40u << 20); // 2 -> 3 whole, 0 -> 1 until the new flow
}

// Every port counts the skipped frames: the data frames exactly, the ACKs by the
// receiver's rule (every AckInterval packets, or sooner at a slow pace).
TEST_F(FastForward, PortsCountTheSkippedFrames)
{
    const std::vector<FlowSpec> flows = {{0, 1, 32 << 20, Seconds(0)}};
    RoceHelper a;
    const Outcome ref = RunStar(a, 2, flows, false);
    RoceHelper b;
    const Outcome ff = RunStar(b, 2, flows, true);
    ASSERT_EQ(ref.portBytes.size(), ff.portBytes.size());
    // Ports: NIC 0 (data), NIC 1 (ACKs), switch port 0 (ACKs to host 0), port 1 (data).
    EXPECT_EQ(ff.portFrames[0], ref.portFrames[0]);
    EXPECT_EQ(ff.portBytes[0], ref.portBytes[0]);
    EXPECT_EQ(ff.portFrames[3], ref.portFrames[3]);
    EXPECT_EQ(ff.portBytes[3], ref.portBytes[3]);
    for (uint32_t p : {1u, 2u})
    {
        EXPECT_NEAR(static_cast<double>(ff.portFrames[p]),
                    static_cast<double>(ref.portFrames[p]),
                    1 + 0.001 * ref.portFrames[p])
            << "port " << p;
    }
    EXPECT_GT(ff.skippedBytes, 30u << 20);
    // Of each port's frames, the skipped ones (GetSkippedTxFrames): none in the reference;
    // on the data path (NIC 0, switch port 1) exactly the skipped data packets, and the
    // rest of NIC 0's frames are the data packets it sent for real (its GetDataPacketsSent
    // counts the skipped ones too, as if sent); the ACK path's two ports let the same
    // skipped ACKs through.
    for (uint64_t skipped : ref.portSkipped)
    {
        EXPECT_EQ(skipped, 0u);
    }
    EXPECT_GT(ff.skippedPackets, 7000u); // 30 MiB of 4 KiB packets, at least
    EXPECT_EQ(ff.portSkipped[0], ff.skippedPackets);
    EXPECT_EQ(ff.portSkipped[3], ff.skippedPackets);
    EXPECT_EQ(ff.dataPacketsSent, ref.dataPacketsSent);
    EXPECT_EQ(ff.portFrames[0] - ff.portSkipped[0], ff.dataPacketsSent - ff.skippedPackets);
    EXPECT_LT(ff.portFrames[0] - ff.portSkipped[0], 100u); // the window and the last packets
    EXPECT_EQ(ref.portFrames[0], ref.dataPacketsSent);     // NIC 0 sends nothing but data
    EXPECT_EQ(ff.portSkipped[1], ff.portSkipped[2]);
    EXPECT_GT(ff.portSkipped[1], 0u);
}

// A flow posted in the middle of a skip by the same sender, to another host: the skip
// ends when it is posted, the two queue pairs share the sender's port from then on, and
// both finish within 0.1 % of the reference.
TEST_F(FastForward, ANewFlowMidSkipEndsIt)
{
    const std::vector<FlowSpec> flows = {{0, 1, 32 << 20, Seconds(0)},
                                         {0, 2, 4 << 20, MicroSeconds(1000)}};
    RoceHelper a;
    const Outcome ref = RunStar(a, 3, flows, false);
    RoceHelper b;
    const Outcome ff = RunStar(b, 3, flows, true);
    EXPECT_GE(ff.interrupted, 1u);
    EXPECT_EQ(ff.firstSkipEnd, MicroSeconds(1000)); // ended by the post, not by its plan
    EXPECT_GT(ff.skippedBytes, 16u << 20); // before the post, and after it while both share
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        EXPECT_EQ(ff.received[i], flows[i].bytes);
        EXPECT_LT(Relative(ff.completions[i], ref.completions[i]), 0.001)
            << "flow " << i << ": " << ff.completions[i] << " vs " << ref.completions[i];
    }
    std::cout << "[ measured ] completions " << ff.completions[0] << " / " << ff.completions[1]
              << " (reference " << ref.completions[0] << " / " << ref.completions[1] << "), "
              << ff.skips << " skips, " << ff.skippedBytes << " B skipped\n";
}

// A second sender into the same receiver, mid-skip, under DCQCN: the skip ends, and the
// incast (ECN marks, CNPs, rate cuts and the slow recovery) is simulated packet by packet.
// One run of that incast is chaotic: which packets RED marks decides how deep the cuts go,
// and the reference's own completion of the long flow ranges from 3.3 to 6.5 ms over seeds
// 1 to 5. So the comparison is over seeds: the fast-forwarded runs' mean completions lie
// within 10 % (long flow) and 5 % (short flow) of the reference's.
TEST_F(FastForward, AnIncastMidSkipMatchesTheReferenceOverSeeds)
{
    const std::vector<FlowSpec> flows = {{0, 1, 32 << 20, Seconds(0)},
                                         {2, 1, 4 << 20, MicroSeconds(1000)}};
    const uint32_t seeds = 16;
    std::array<double, 2> refMean{};
    std::array<double, 2> ffMean{};
    uint64_t interrupted = 0;
    uint64_t marks = 0;
    for (uint32_t run = 1; run <= seeds; ++run)
    {
        RngSeedManager::SetRun(run);
        RoceHelper a;
        const Outcome ref = RunStar(a, 3, flows, false);
        RoceHelper b;
        const Outcome ff = RunStar(b, 3, flows, true);
        for (std::size_t i = 0; i < 2; ++i)
        {
            EXPECT_EQ(ff.received[i], flows[i].bytes);
            refMean[i] += ref.completions[i].GetSeconds() / seeds;
            ffMean[i] += ff.completions[i].GetSeconds() / seeds;
        }
        interrupted += ff.interrupted;
        marks += ff.ecnMarks;
    }
    EXPECT_GE(interrupted, seeds);
    EXPECT_GT(marks, 0u);
    EXPECT_NEAR(ffMean[0], refMean[0], 0.10 * refMean[0]);
    EXPECT_NEAR(ffMean[1], refMean[1], 0.05 * refMean[1]);
    std::cout << "[ measured ] mean completions over " << seeds << " seeds: " << ffMean[0] * 1e3
              << " / " << ffMean[1] * 1e3 << " ms (reference " << refMean[0] * 1e3 << " / "
              << refMean[1] * 1e3 << " ms)\n";
}

// Without congestion control a second sender into the same port fills the switch buffer
// until PFC pauses the senders. Posted mid-skip, it ends the skip, and the pauses that
// follow happen as in the reference: completions within 0.5 %. The number of XOFF frames
// depends on the phase of the refreshes (the reference itself sends 103, or 130 when the
// second flow starts 100 ns later), so it is held to half to one and a half times.
TEST_F(FastForward, APauseThatWouldHaveStartedStillStarts)
{
    const std::vector<FlowSpec> flows = {{0, 2, 16 << 20, Seconds(0)},
                                         {1, 2, 2 << 20, MicroSeconds(500)}};
    auto setUp = [](RoceHelper& roce) {
        roce.SetCongestionControl("ns3::NoCongestionControl");
        roce.SetMmuAttribute("BufferSize", UintegerValue(1 << 20));
    };
    RoceHelper a;
    setUp(a);
    const Outcome ref = RunStar(a, 3, flows, false);
    RoceHelper b;
    setUp(b);
    const Outcome ff = RunStar(b, 3, flows, true);
    ASSERT_GT(ref.pauses, 0u);
    EXPECT_GE(ff.interrupted, 1u);
    EXPECT_EQ(ff.firstSkipEnd, MicroSeconds(500));
    EXPECT_NEAR(static_cast<double>(ff.pauses), static_cast<double>(ref.pauses), 0.5 * ref.pauses);
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        EXPECT_EQ(ff.received[i], flows[i].bytes);
        EXPECT_LT(Relative(ff.completions[i], ref.completions[i]), 0.005)
            << "flow " << i << ": " << ff.completions[i] << " vs " << ref.completions[i];
    }
    std::cout << "[ measured ] pauses " << ff.pauses << " (reference " << ref.pauses
              << "), completions " << ff.completions[0] << " / " << ff.completions[1]
              << " (reference " << ref.completions[0] << " / " << ref.completions[1] << ")\n";
}

// A congestion control that cannot promise a steady rate is never skipped.
TEST_F(FastForward, OnlySteadyCongestionControlsAreSkipped)
{
    const std::vector<FlowSpec> flows = {{0, 1, 8 << 20, Seconds(0)}};
    for (const char* cc : {"ns3::RoceDctcp", "ns3::RoceHpcc", "ns3::RoceTimely", "ns3::RoceSwift"})
    {
        RoceHelper roce;
        roce.SetCongestionControl(cc);
        const Outcome ff = RunStar(roce, 2, flows, true);
        EXPECT_EQ(ff.skips, 0u) << cc;
        EXPECT_EQ(ff.received[0], flows[0].bytes) << cc;
    }
    RoceHelper none;
    none.SetCongestionControl("ns3::NoCongestionControl");
    EXPECT_GT(RunStar(none, 2, flows, true).skips, 0u);
}

// The comparison behind --fast-forward=check fails on a figure outside its bound.
TEST_F(FastForward, TheCheckFailsOutsideTheBounds)
{
    FastForwardFigures ref;
    ref.iterations = {MilliSeconds(100)};
    ref.collectives = {{"all-reduce dp", 1e-3}};
    FastForwardFigures same = ref;
    std::ostringstream table;
    std::string failure;
    EXPECT_TRUE(FastForwardFigures::Compare(ref, same, table, &failure));
    FastForwardFigures slowIteration = ref;
    slowIteration.iterations = {MicroSeconds(101100)}; // 1.1 %
    EXPECT_FALSE(FastForwardFigures::Compare(ref, slowIteration, table, &failure));
    EXPECT_NE(failure.find("iteration 0"), std::string::npos) << failure;
    FastForwardFigures slowCollective = ref;
    slowCollective.collectives = {{"all-reduce dp", 1.021e-3}}; // 2.1 %
    EXPECT_FALSE(FastForwardFigures::Compare(ref, slowCollective, table, &failure));
    EXPECT_NE(failure.find("all-reduce dp"), std::string::npos) << failure;
    FastForwardFigures withinBounds = ref;
    withinBounds.iterations = {MicroSeconds(100900)};
    withinBounds.collectives = {{"all-reduce dp", 1.019e-3}};
    EXPECT_TRUE(FastForwardFigures::Compare(ref, withinBounds, table, &failure)) << failure;
}

// A congestion signal that reaches a skipped queue pair ends its group's skip at once: a
// CNP delivered in the middle of a skip (as one answering a packet sent before it would
// be) ends the skip then, and the rate cut it causes is simulated packet by packet.
TEST_F(FastForward, ACongestionSignalEndsTheSkip)
{
    const std::vector<FlowSpec> flows = {{0, 1, 32 << 20, Seconds(0)}};
    const Meddle cnp = [](const RoceTopology&, const std::vector<FlowProbe>& probes) {
        Simulator::Schedule(MicroSeconds(700), &RdmaQueuePair::ReceiveCnp, probes[0].sender);
    };
    RoceHelper a;
    const Outcome ref = RunStar(a, 2, flows, false, cnp);
    RoceHelper b;
    const Outcome ff = RunStar(b, 2, flows, true, cnp);
    ASSERT_GE(ff.skipEnds.size(), 1u);
    EXPECT_EQ(ff.skipEnds[0], MicroSeconds(700));
    EXPECT_GE(ff.interrupted, 1u);
    EXPECT_EQ(ff.received[0], flows[0].bytes);
    // DCQCN recovers from the cut in the same steps: the completion within 0.1 %.
    EXPECT_LT(Relative(ff.completions[0], ref.completions[0]), 0.001)
        << ff.completions[0] << " vs " << ref.completions[0];
}

// A PFC frame that reaches a port of a skipping group ends its skip at once, and no skip
// starts for SteadyWindow (10 us by default) after it; the other group skips on.
TEST_F(FastForward, APauseOnAPortEndsTheSkip)
{
    const std::vector<FlowSpec> flows = {{0, 1, 32 << 20, Seconds(0)},
                                         {2, 3, 32 << 20, Seconds(0)}};
    // The switch pauses host 0's port at 600 us for 782 quanta (4 us at 100 G).
    const Meddle pause = [](const RoceTopology& topo, const std::vector<FlowProbe>&) {
        Ptr<RoceNetDevice> toHost0 = topo.switchObjects[0]->GetPort(0);
        Simulator::Schedule(MicroSeconds(600), &RoceNetDevice::SendPfc, toHost0, 3, 782);
    };
    RoceHelper b;
    const Outcome ff = RunStar(b, 4, flows, true, pause);
    std::vector<Time> endedByThePause;
    for (Time t : ff.skipEnds)
    {
        if (t > MicroSeconds(600) && t < MicroSeconds(602))
        {
            endedByThePause.push_back(t);
        }
    }
    ASSERT_EQ(endedByThePause.size(), 1u) << "the skip of 0 -> 1 ends when the pause arrives";
    EXPECT_EQ(ff.interrupted, 1u); // 2 -> 3 skips on
    const Time window = CreateObject<RdmaFastForward>()->GetSteadyWindow();
    for (Time t : ff.skipStarts)
    {
        EXPECT_FALSE(t > endedByThePause[0] && t < endedByThePause[0] + window)
            << "a skip started at " << t << ", within SteadyWindow of the pause";
    }
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        EXPECT_EQ(ff.received[i], flows[i].bytes);
    }
}

// A link that goes down or up anywhere ends every skip, and none starts again for
// SteadyWindow (10 us by default), after which the routes are traced anew.
TEST_F(FastForward, ALinkChangeEndsEverySkip)
{
    const std::vector<FlowSpec> flows = {{0, 1, 32 << 20, Seconds(0)},
                                         {2, 3, 32 << 20, Seconds(0)}};
    const Meddle cut = [](const RoceTopology& topo, const std::vector<FlowProbe>&) {
        // Host 4's cable carries none of the flows.
        Ptr<RoceChannel> cable = topo.nics[4]->GetDevice()->GetRoceChannel();
        Simulator::Schedule(MicroSeconds(600), &RoceChannel::SetUp, cable, false);
    };
    RoceHelper b;
    const Outcome ff = RunStar(b, 5, flows, true, cut);
    uint32_t endedAtTheCut = 0;
    for (Time t : ff.skipEnds)
    {
        endedAtTheCut += t == MicroSeconds(600) ? 1 : 0;
    }
    EXPECT_EQ(endedAtTheCut, 2u);
    const Time window = CreateObject<RdmaFastForward>()->GetSteadyWindow();
    for (Time t : ff.skipStarts)
    {
        EXPECT_FALSE(t >= MicroSeconds(600) && t < MicroSeconds(600) + window)
            << "a skip started at " << t;
    }
    EXPECT_GE(ff.skipStarts.size(), 4u); // both groups skip again after the quiet time
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        EXPECT_EQ(ff.received[i], flows[i].bytes);
    }
}

// A chained ring (each rank forwards what it received, like NCCL's ring all-reduce) of 3
// ranks, 2 MiB steps, with 1 to 4 channels (queue pairs per neighbour, served in turn by
// each NIC) and 1 or 5 us cables. Each step begins with the reverse flows' ACKs not yet on
// the ports (for one RTT), each skip ends with a NIC's queue pairs at different places in
// its round robin, and the ACKs of the skipped packets still on their way at its end meet
// the packets sent after it. Every step ends within 0.01 % of the reference's (measured:
// -0.0006 % to +0.0021 %). A period measured before the ACKs came, or a NIC that resumes its
// queue pairs out of their turn, gave -0.15 % to -0.6 %; without those last ACKs, -0.02 %.
TEST_F(FastForward, AChainedRingMatchesTheReference)
{
    for (const auto& [channels, cableUs] :
         {std::pair<uint32_t, int>{1, 1}, {2, 1}, {4, 1}, {1, 5}, {2, 5}, {4, 5}})
    {
        const RingOutcome ref = RunRing(3, channels, 6, 2 << 20, MicroSeconds(cableUs), false);
        const RingOutcome ff = RunRing(3, channels, 6, 2 << 20, MicroSeconds(cableUs), true);
        ASSERT_EQ(ref.stepDone.size(), ff.stepDone.size());
        double worst = 0;
        for (std::size_t k = 0; k < ref.stepDone.size(); ++k)
        {
            const double error =
                (ff.stepDone[k] - ref.stepDone[k]).GetDouble() / ref.stepDone[k].GetDouble();
            EXPECT_LT(std::abs(error), 1e-4)
                << channels << " channels, " << cableUs << " us cables, step " << k << ": "
                << ff.stepDone[k].As(Time::NS) << " vs " << ref.stepDone[k].As(Time::NS);
            worst = std::abs(error) > std::abs(worst) ? error : worst;
        }
        std::cout << "[ measured ] ring of 3, " << channels << " channels, " << cableUs
                  << " us cables: last step " << ff.stepDone.back().As(Time::NS) << " vs "
                  << ref.stepDone.back().As(Time::NS) << ", worst step " << 100 * worst << " %, "
                  << ff.skips << " skips, " << 100 * ff.skipped << " % skipped\n";
        EXPECT_EQ(ff.skips, 6u); // one per step
        EXPECT_GT(ff.skipped, 0.5);
    }
}

// Each step of a chained ring is posted as the step before completes; the load on the
// ports settles one base RTT after the last post, and the step's skip starts when the
// windows that began then are done. The queue pairs of a step are those of the step
// before, whose skip ended as planned: their window is WarmWindow (2 us, not
// SteadyWindow's 10), closed by a packet and one RTT sample within one ACK interval
// (AckInterval packet gaps), the sample within the RTTs and the mean gap within 0.5 % of
// the skip before. A queue pair that sends again after a pause restarts the windows on its
// ports from then on (RdmaFastForward::NotifyResumed): without it, the windows that began
// too soon were found out only when the skip was tried, and measured again: a window more
// per step, past the bound's 1 us of slack. And the window's RTT samples come one per ACK
// (a probe every AckInterval packets): with the congestion control's single probe, one
// sample per RTT, +14 to +19 us past a SteadyWindow bound with 5 us cables. Without warm
// windows as long as full ones (WarmWindow = SteadyWindow, measured once by hand) a step's
// skip began 14.8, 16.6, 30.9 and 32.7 us after the step (the four configurations below,
// in order) where it now begins 6.7, 10.8, 22.8 and 27.0 us after it.
TEST_F(FastForward, ARingStepSkipsOneWindowAfterItsLoadSettles)
{
    const Time window = CreateObject<RdmaFastForward>()->GetWarmWindow();
    ASSERT_LT(window, CreateObject<RdmaFastForward>()->GetSteadyWindow());
    const int64_t ackInterval = 4; // RdmaNic::AckInterval's default
    for (const auto& [channels, cableUs] : {std::pair<uint32_t, int>{1, 1}, {4, 1}, {1, 5}, {4, 5}})
    {
        const RingOutcome ff = RunRing(3, channels, 6, 2 << 20, MicroSeconds(cableUs), true);
        ASSERT_EQ(ff.skipStarts.size(), 6u);
        // Four cables, a 4 KiB data frame serialized twice and an ACK twice (0.68 us at
        // 100 Gb/s); a queue pair sends one frame per round of its NIC's channels.
        const Time baseRtt = MicroSeconds(4 * cableUs) + NanoSeconds(680);
        const Time gap = NanoSeconds(333 * channels);
        const Time expected = baseRtt + window + gap * ackInterval;
        for (std::size_t k = 1; k < ff.skipStarts.size(); ++k)
        {
            const Time delay = ff.skipStarts[k] - ff.stepDone[k - 1];
            EXPECT_LE(delay, expected + MicroSeconds(1))
                << channels << " channels, " << cableUs << " us cables, step " << k;
            // And never before a whole (warm) window of the settled load.
            EXPECT_GE(delay, baseRtt + window)
                << channels << " channels, " << cableUs << " us cables, step " << k;
            std::cout << "[ measured ] ring of 3, " << channels << " channels, " << cableUs
                      << " us cables, step " << k << ": skip " << delay.As(Time::US)
                      << " after the step began (bound " << expected.As(Time::US) << " + 1 us)\n";
        }
    }
}

// A warm window is for the same group only: when a second channel joins the ring at step
// 3, that step's group is not the one of step 2's skip, and the skip waits for a full
// SteadyWindow; from step 4 on the group is step 3's again and the windows are warm. Every
// step still ends within 0.01 % of the reference's. (What stops the warm windows at step
// 3 here is the pace check: the old queue pairs' gap doubles with a second queue pair per
// NIC, and the new ones have no warm state. WarmGroupHolds, the same skip and as many
// queue pairs, guards group changes that leave the pace alone; no suite isolates it.)
TEST_F(FastForward, AWarmWindowIsForTheSameGroupOnly)
{
    const Ptr<RdmaFastForward> defaults = CreateObject<RdmaFastForward>();
    const Time steady = defaults->GetSteadyWindow();
    const Time warm = defaults->GetWarmWindow();
    const int64_t ackInterval = 4; // RdmaNic::AckInterval's default
    const uint32_t lateFrom = 3;
    const RingOutcome ref = RunRing(3, 2, 6, 2 << 20, MicroSeconds(1), false, lateFrom);
    const RingOutcome ff = RunRing(3, 2, 6, 2 << 20, MicroSeconds(1), true, lateFrom);
    ASSERT_EQ(ff.skipStarts.size(), 6u);
    const Time baseRtt = MicroSeconds(4) + NanoSeconds(680); // as in the test above
    for (std::size_t k = 1; k < ff.skipStarts.size(); ++k)
    {
        const Time delay = ff.skipStarts[k] - ff.stepDone[k - 1];
        const Time window = k == lateFrom ? steady : warm;
        const Time gap = NanoSeconds(333 * (k < lateFrom ? 1 : 2));
        std::cout << "[ measured ] step " << k << ": skip " << delay.As(Time::US)
                  << " after the step began (" << (k == lateFrom ? "full" : "warm") << " window)\n";
        EXPECT_GE(delay, baseRtt + window) << "step " << k;
        if (k != lateFrom)
        {
            // (The step the new queue pairs join begins with their first packets, not a
            // resume: the bound of the test above is for resumes. Measured: 19.5 us.)
            EXPECT_LE(delay, baseRtt + window + gap * ackInterval + MicroSeconds(1))
                << "step " << k;
        }
    }
    for (std::size_t k = 0; k < ref.stepDone.size(); ++k)
    {
        const double error =
            (ff.stepDone[k] - ref.stepDone[k]).GetDouble() / ref.stepDone[k].GetDouble();
        EXPECT_LT(std::abs(error), 1e-4) << "step " << k;
    }
}
