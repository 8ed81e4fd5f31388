// SPDX-License-Identifier: GPL-2.0-only
// WorkloadRunner semantics on the ideal transport: overlap, exposure, dependencies,
// streams, iterations, send/recv rendezvous, and stuck runs reported instead of hanging.
#include "test-util.h"

#include "ns3/collective-algorithms.h"
#include "ns3/config.h"
#include "ns3/ideal-transport.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/workload-runner.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{
constexpr uint64_t MiB = 1 << 20;

/// The ideal carrier of these tests: 100 Gb/s ports, 5 us per message.
Ptr<IdealTransport>
MakeIdeal(uint32_t n)
{
    auto t = CreateObject<IdealTransport>();
    t->SetAttribute("NRanks", UintegerValue(n));
    t->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
    t->SetAttribute("Latency", TimeValue(MicroSeconds(5)));
    return t;
}

using aifabric::Compute;

TraceOp
AllReduce(const std::string& group,
          uint64_t bytes,
          uint32_t stream,
          std::vector<uint32_t> deps = {})
{
    TraceOp op;
    op.kind = TraceOpKind::COLLECTIVE;
    op.name = "ar";
    op.collective = CollectiveType::ALL_REDUCE;
    op.group = group;
    op.bytes = bytes;
    op.stream = stream;
    op.algorithm = "ring";
    op.deps = std::move(deps);
    return op;
}

/// Ring all-reduce on the ideal carrier: 2(n-1) steps of alpha + S/(n B).
Time
RingTime(uint32_t n, uint64_t bytes)
{
    return MicroSeconds(5) * (2 * (n - 1)) +
           Seconds(2.0 * (n - 1) * (static_cast<double>(bytes) / n) * 8 / 100e9);
}

/// Run trace on n ranks of one host each; returns the runner (simulator destroyed).
Ptr<WorkloadRunner>
Replay(const TrainingTrace& trace, uint32_t iterations = 1, Time hang = Seconds(1))
{
    const uint32_t n = trace.GetNRanks();
    // The runner's accounting against alpha-beta closed forms: the wire bound, no protocol
    // latencies (those are the collective-protocol suite's).
    Config::SetDefault("ns3::CollectiveEngine::Protocol", StringValue("none"));
    auto runner = CreateObject<WorkloadRunner>();
    runner->SetAttribute("Iterations", UintegerValue(iterations));
    runner->SetAttribute("HangTimeout", TimeValue(hang));
    runner->Setup(trace, CommGroup::Uniform(n, 1), MakeIdeal(n));
    runner->Start();
    Simulator::Run();
    if (runner->IsFinished())
    {
        // Nothing of the runner's (its watchdog) outlives the workload.
        EXPECT_EQ(Simulator::Now(), runner->GetEndTime());
    }
    Simulator::Destroy();
    return runner;
}

TrainingTrace
TwoRanks()
{
    TrainingTrace t(2);
    t.AddGroup({"dp", "dp", {0, 1}});
    return t;
}
} // namespace

TEST(WorkloadRunner, HiddenCollectiveAddsNothing)
{
    // The all-reduce (90 us) runs on stream 1 under a 200 us compute on stream 0.
    TrainingTrace t = TwoRanks();
    for (uint32_t r = 0; r < 2; ++r)
    {
        t.AddOp(r, Compute("fwd", MicroSeconds(200)));
        t.AddOp(r, AllReduce("dp", MiB, 1));
    }
    ASSERT_LT(RingTime(2, MiB), MicroSeconds(200));
    auto runner = Replay(t);
    ASSERT_TRUE(runner->IsFinished());
    EXPECT_EQ(runner->GetEndTime(), MicroSeconds(200));
    for (const auto& b : runner->GetBreakdown())
    {
        EXPECT_EQ(b.GetTotal(), MicroSeconds(200));
        EXPECT_EQ(b.compute, MicroSeconds(200));
        EXPECT_EQ(b.exposedComm, Time());
        EXPECT_EQ(b.idle, Time());
    }
    ASSERT_EQ(runner->GetCalls().size(), 1u);
    EXPECT_EQ(runner->GetCalls()[0].end - runner->GetCalls()[0].launch, RingTime(2, MiB));
}

TEST(WorkloadRunner, ExposedCollectiveAddsItsDuration)
{
    // compute -> all-reduce -> compute: the all-reduce sits on the critical path.
    TrainingTrace t = TwoRanks();
    for (uint32_t r = 0; r < 2; ++r)
    {
        t.AddOp(r, Compute("fwd", MicroSeconds(100)));
        t.AddOp(r, AllReduce("dp", 4 * MiB, 1, {0}));
        t.AddOp(r, Compute("bwd", MicroSeconds(50), {1}));
    }
    auto runner = Replay(t);
    ASSERT_TRUE(runner->IsFinished());
    const Time ar = RingTime(2, 4 * MiB);
    EXPECT_EQ(runner->GetEndTime(), MicroSeconds(150) + ar);
    for (const auto& b : runner->GetBreakdown())
    {
        EXPECT_EQ(b.compute, MicroSeconds(150));
        EXPECT_EQ(b.exposedComm, ar);
        EXPECT_EQ(b.idle, Time());
    }
}

TEST(WorkloadRunner, DependenciesAndStreamsOrderOps)
{
    // Rank 0: a (stream 0, 10 us), b (stream 1, 30 us... as compute), c deps {a, b}.
    // Rank 1 arrives late at the all-reduce: rank 0 waits for it.
    TrainingTrace t = TwoRanks();
    t.AddOp(0, Compute("a", MicroSeconds(10)));
    TraceOp b = Compute("b", MicroSeconds(30));
    b.stream = 1;
    t.AddOp(0, b);
    t.AddOp(0, Compute("c", MicroSeconds(5), {0, 1}));
    t.AddOp(0, AllReduce("dp", MiB, 2, {2}));
    t.AddOp(1, Compute("late", MicroSeconds(100)));
    t.AddOp(1, AllReduce("dp", MiB, 2, {0}));
    auto runner = Replay(t);
    ASSERT_TRUE(runner->IsFinished());
    std::map<std::string, OpRecord> byName; // rank 0's ops
    for (const auto& r : runner->GetOps())
    {
        if (r.rank == 0)
        {
            byName[runner->GetOpName(r)] = r;
        }
    }
    EXPECT_EQ(byName["a"].start, Time());
    EXPECT_EQ(byName["b"].start, Time()); // another stream: in parallel
    EXPECT_EQ(byName["c"].start, MicroSeconds(30));
    EXPECT_EQ(byName["ar"].start, MicroSeconds(35)); // rank 0 reaches it...
    const auto& call = runner->GetCalls().at(0);
    EXPECT_EQ(call.firstArrival, MicroSeconds(35));
    EXPECT_EQ(call.launch, MicroSeconds(100)); // ...but it launches when rank 1 does
    EXPECT_EQ(byName["ar"].end, MicroSeconds(100) + RingTime(2, MiB));
    // Rank 0 computed 35 us, waited 65 us for rank 1 (idle), then communicated.
    const auto breakdown = runner->GetBreakdown();
    EXPECT_EQ(breakdown[0].compute, MicroSeconds(35));
    EXPECT_EQ(breakdown[0].idle, MicroSeconds(65));
    EXPECT_EQ(breakdown[0].exposedComm, RingTime(2, MiB));
}

TEST(WorkloadRunner, IterationsRepeatTheTrace)
{
    TrainingTrace t = TwoRanks();
    for (uint32_t r = 0; r < 2; ++r)
    {
        t.AddOp(r, Compute("step", MicroSeconds(40)));
        t.AddOp(r, AllReduce("dp", MiB, 1, {0}));
    }
    auto runner = Replay(t, 3);
    ASSERT_TRUE(runner->IsFinished());
    EXPECT_EQ(runner->GetNIterations(), 3u);
    EXPECT_EQ(runner->GetEndTime(), 3 * (MicroSeconds(40) + RingTime(2, MiB)));
    EXPECT_EQ(runner->GetBreakdown().size(), 6u);
    EXPECT_EQ(runner->GetCalls().size(), 3u);
    EXPECT_EQ(runner->GetProgress().first, 12u);
}

TEST(WorkloadRunner, SendRecvMeet)
{
    TrainingTrace t(2);
    TraceOp send;
    send.kind = TraceOpKind::SEND;
    send.peer = 1;
    send.bytes = MiB;
    send.stream = 1;
    TraceOp recv = send;
    recv.kind = TraceOpKind::RECV;
    recv.peer = 0;
    t.AddOp(0, Compute("x", MicroSeconds(20)));
    send.deps = {0};
    t.AddOp(0, send);
    t.AddOp(1, recv);
    t.AddOp(1, Compute("y", MicroSeconds(10), {0}));
    auto runner = Replay(t);
    ASSERT_TRUE(runner->IsFinished());
    const Time p2p = MicroSeconds(5) + Seconds(MiB * 8.0 / 100e9);
    EXPECT_EQ(runner->GetEndTime(), MicroSeconds(20) + p2p + MicroSeconds(10));
    EXPECT_EQ(runner->GetCalls().at(0).type, CollectiveType::SEND_RECV);
}

TEST(WorkloadRunner, CollectivesInDifferentOrdersAreReportedStuck)
{
    // Rank 0 all-reduces on A then B; rank 1 on B then A: each waits for the other.
    TrainingTrace t(2);
    t.AddGroup({"A", "custom", {0, 1}});
    t.AddGroup({"B", "custom", {0, 1}});
    t.AddOp(0, AllReduce("A", MiB, 1));
    t.AddOp(0, AllReduce("B", MiB, 1));
    t.AddOp(1, AllReduce("B", MiB, 1));
    t.AddOp(1, AllReduce("A", MiB, 1));
    // Validate sees each group's sequence is the same on both ranks: it cannot tell.
    ASSERT_TRUE(t.Validate());
    auto runner = Replay(t, 1, MilliSeconds(2));
    EXPECT_FALSE(runner->IsFinished());
    ASSERT_TRUE(runner->IsStuck());
    const std::string report = runner->GetStuckReport();
    EXPECT_NE(report.find("rank 0 op 0"), std::string::npos) << report;
    EXPECT_NE(report.find("rank 1 op 0"), std::string::npos) << report;
    EXPECT_NE(report.find("waiting for 1 more rank"), std::string::npos) << report;
    EXPECT_NE(report.find("on A"), std::string::npos) << report;
}

TEST(WorkloadRunner, SendSendDeadlockIsReported)
{
    // Both ranks send first, then receive, on one stream: rendezvous never happens.
    TrainingTrace t(2);
    for (uint32_t r = 0; r < 2; ++r)
    {
        TraceOp send;
        send.kind = TraceOpKind::SEND;
        send.name = "send";
        send.peer = 1 - r;
        send.bytes = MiB;
        send.stream = 1;
        TraceOp recv = send;
        recv.kind = TraceOpKind::RECV;
        recv.name = "recv";
        t.AddOp(r, send);
        t.AddOp(r, recv);
    }
    auto runner = Replay(t, 1, MilliSeconds(1));
    ASSERT_TRUE(runner->IsStuck());
    EXPECT_NE(runner->GetStuckReport().find("'send' (send to 1"), std::string::npos)
        << runner->GetStuckReport();
    EXPECT_NE(runner->GetStuckReport().find("'recv' (stream 1) not started: queued behind op 0"),
              std::string::npos)
        << runner->GetStuckReport();
}

TEST(WorkloadRunner, LongComputeIsNotAHang)
{
    TrainingTrace t = TwoRanks();
    for (uint32_t r = 0; r < 2; ++r)
    {
        t.AddOp(r, Compute("long", MilliSeconds(50)));
    }
    auto runner = Replay(t, 1, MilliSeconds(1));
    EXPECT_TRUE(runner->IsFinished());
    EXPECT_FALSE(runner->IsStuck());
}

TEST(WorkloadRunner, OverlappingIterationsAreSplitByWindow)
{
    // Iteration 0: compute, then an all-reduce on stream 1 that the trace does not wait
    // for; iteration 1's compute runs under it. Windows: iteration 0 until the
    // all-reduce ends, iteration 1 (already done by then) gets an empty window.
    TrainingTrace t = TwoRanks();
    for (uint32_t r = 0; r < 2; ++r)
    {
        t.AddOp(r, Compute("fwd0", MicroSeconds(100)));
        t.AddOp(r, AllReduce("dp", 4 * MiB, 1, {0}));
        TraceOp next = Compute("fwd1", MicroSeconds(100));
        next.iteration = 1;
        t.AddOp(r, next);
    }
    auto runner = Replay(t);
    ASSERT_TRUE(runner->IsFinished());
    const Time ar = RingTime(2, 4 * MiB);
    const auto b = runner->GetBreakdown();
    ASSERT_EQ(b.size(), 4u);
    EXPECT_EQ(b[0].GetTotal(), MicroSeconds(100) + ar);
    EXPECT_EQ(b[0].compute, MicroSeconds(200));
    EXPECT_EQ(b[0].exposedComm, ar - MicroSeconds(100)); // 100 us hidden by fwd1
    EXPECT_EQ(b[0].idle, Time());
    EXPECT_EQ(b[1].GetTotal(), Time());
    EXPECT_FALSE(b[1].idle.IsStrictlyNegative());
}

TEST(WorkloadRunner, StreamsDoNotReorderCalls)
{
    // Rank 0 reaches its all-gather (stream 2) before its all-reduce (stream 1); rank 1
    // reaches the all-reduce late. Calls still pair in list order: each rank's first
    // collective on the group meets the other's first.
    TrainingTrace t = TwoRanks();
    TraceOp ag = AllReduce("dp", 64 * MiB, 2);
    ag.collective = CollectiveType::ALL_GATHER;
    ag.name = "ag";
    t.AddOp(0, AllReduce("dp", MiB, 1));
    t.AddOp(0, ag);
    t.AddOp(1, Compute("late", MicroSeconds(100)));
    t.AddOp(1, AllReduce("dp", MiB, 1, {0}));
    t.AddOp(1, ag);
    auto runner = Replay(t);
    ASSERT_TRUE(runner->IsFinished());
    ASSERT_EQ(runner->GetCalls().size(), 2u);
    for (const CallRecord& c : runner->GetCalls())
    {
        EXPECT_EQ(c.bytes, c.type == CollectiveType::ALL_REDUCE ? MiB : 64 * MiB);
    }
    EXPECT_EQ(runner->GetCalls()[1].type, CollectiveType::ALL_REDUCE);
    EXPECT_EQ(runner->GetCalls()[1].launch, MicroSeconds(100));
}

// The progress line's ETA counts what the packet fabric still has to carry: on 2 servers
// x 2 GPUs, a 4 MiB all-reduce on a group inside server 0 ("tp") costs nothing, a 1 MiB
// all-reduce on a group across the servers ("dp", ranks 0 and 2) counts 1 MiB per member,
// a 3 MiB send inside a server nothing and a 2 MiB send to the other server 2 MiB; two
// iterations count everything twice, and a finished run has carried all of it.
TEST(WorkloadRunner, FabricBytesCountOnlyWhatCrossesServers)
{
    TrainingTrace t(4);
    t.AddGroup({"tp", "tp", {0, 1}});
    t.AddGroup({"dp", "dp", {0, 2}});
    t.AddOp(0, AllReduce("tp", 4 * MiB, 0));
    t.AddOp(1, AllReduce("tp", 4 * MiB, 0));
    t.AddOp(0, AllReduce("dp", MiB, 0, {0}));
    t.AddOp(2, AllReduce("dp", MiB, 0));
    TraceOp send;
    send.kind = TraceOpKind::SEND;
    send.stream = 1;
    TraceOp recv = send;
    recv.kind = TraceOpKind::RECV;
    send.peer = 1;
    send.bytes = 3 * MiB;
    recv.peer = 0;
    recv.bytes = 3 * MiB;
    t.AddOp(0, send);
    t.AddOp(1, recv);
    send.peer = 3;
    send.bytes = 2 * MiB;
    recv.peer = 1;
    recv.bytes = 2 * MiB;
    t.AddOp(1, send);
    t.AddOp(3, recv);
    auto runner = CreateObject<WorkloadRunner>();
    runner->SetAttribute("Iterations", UintegerValue(2));
    runner->Setup(t, CommGroup::Uniform(2, 2), MakeIdeal(4));
    runner->Start();
    EXPECT_EQ(runner->GetFabricBytesProgress(),
              std::make_pair(uint64_t{0}, uint64_t{2 * (2 * MiB + 2 * MiB)}));
    Simulator::Run();
    ASSERT_TRUE(runner->IsFinished());
    EXPECT_EQ(runner->GetFabricBytesProgress().first, runner->GetFabricBytesProgress().second);
    Simulator::Destroy();
}

// While a call runs, its bytes count in the proportion of its plan's bytes whose transfers
// have finished: an 8-rank all-reduce across eight servers on the ideal carrier (100 Gb/s,
// 5 us) is a ring of 2 x 7 steps that move equal bytes in lockstep, so the count sampled at
// every 1/20 of the call is the elapsed fraction less under one step (1/14), and never runs
// backwards; at each member's end the call counts whole (not one member's share at a
// time). A count per finished op stays at 0 until the end and fails.
TEST(WorkloadRunner, FabricBytesMoveWhileACallRuns)
{
    const uint64_t bytes = 64 * MiB;
    auto run = [bytes](std::vector<std::pair<double, double>>* samples, Time launch, Time end) {
        TrainingTrace t(8);
        t.AddGroup({"dp", "dp", {0, 1, 2, 3, 4, 5, 6, 7}});
        for (uint32_t r = 0; r < 8; ++r)
        {
            t.AddOp(r, AllReduce("dp", bytes, 0));
        }
        auto runner = CreateObject<WorkloadRunner>();
        runner->GetEngine()->SetAttribute("Algorithm", StringValue("ring"));
        runner->Setup(t, CommGroup::Uniform(8, 1), MakeIdeal(8));
        runner->Start();
        if (samples)
        {
            // At every member's end the call counts whole: no dip while the others finish.
            runner->TraceConnectWithoutContext(
                "OpFinished",
                Callback<void, const OpRecord&>([r = PeekPointer(runner)](const OpRecord&) {
                    const auto [done, total] = r->GetFabricBytesProgress();
                    EXPECT_EQ(done, total) << "at an op's end";
                }));
        }
        for (int i = 1; samples && i < 20; ++i)
        {
            const double f = i / 20.0;
            Simulator::Schedule(launch + (end - launch) * f, [runner, samples, f]() {
                const auto [done, total] = runner->GetFabricBytesProgress();
                samples->emplace_back(f, static_cast<double>(done) / static_cast<double>(total));
            });
        }
        Simulator::Run();
        EXPECT_TRUE(runner->IsFinished());
        const CallRecord call = runner->GetCalls().at(0);
        Simulator::Destroy();
        return call;
    };
    const CallRecord call = run(nullptr, Time(), Time());
    std::vector<std::pair<double, double>> samples;
    run(&samples, call.launch, call.end);
    ASSERT_EQ(samples.size(), 19U);
    double last = 0;
    for (const auto& [f, fraction] : samples)
    {
        // Whole steps done: at most the elapsed fraction, less by under one step.
        EXPECT_LE(fraction, f + 1e-6) << "at " << f << " of the call";
        EXPECT_GE(fraction, f - 1.0 / 14 - 1e-6) << "at " << f << " of the call";
        EXPECT_GE(fraction, last);
        last = fraction;
    }
}
