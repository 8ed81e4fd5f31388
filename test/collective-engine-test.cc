// SPDX-License-Identifier: GPL-2.0-only
// CollectiveEngine over the IdealTransport: completion times must equal the alpha-beta
// closed forms (Thakur et al. 2005; see the References of doc/ai-fabric.rst), bandwidths must
// follow nccl-tests, concurrent calls must stay separate, dependencies must be honoured and broken
// plans refused.
//
// Units throughout: B = 100 Gb/s = 12.5e9 bytes/s per port and direction, alpha = the
// IdealTransport Latency (5 us unless stated), S = the plan's total bytes in the
// nccl-tests sense of CollectiveType (all-reduce: the buffer; all-gather: the output;
// reduce-scatter: the input; all-to-all: one rank's send buffer).
#include "plan-test-util.h"

#include "ns3/boolean.h"
#include "ns3/collective-algorithms.h"
#include "ns3/collective-engine.h"
#include "ns3/comm-plan.h"
#include "ns3/data-rate.h"
#include "ns3/ideal-transport.h"
#include "ns3/nstime.h"
#include "ns3/plan-checker.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <random>

using namespace ns3;

namespace
{

constexpr double RATE = 12.5e9;      //!< B, bytes per second (100 Gb/s)
constexpr double ALPHA = 5e-6;       //!< alpha, seconds
constexpr uint64_t MiB = 1ull << 20; //!< bytes
/// Relative tolerance of the closed forms: the ideal carrier is exact up to the rounding
/// of each transfer's time to whole nanoseconds (largest deviation seen: 1.6e-5, 1.7 ns in
/// 108 us); a lost or extra step of a 2(n-1)-step ring moves the time by far more.
constexpr double TOLERANCE = 5e-5;

/// An ideal carrier with B = 100 Gb/s and the given alpha.
Ptr<IdealTransport>
MakeIdeal(uint32_t nRanks, double alpha = ALPHA, bool receivePort = false)
{
    Ptr<IdealTransport> t = CreateObject<IdealTransport>();
    t->SetAttribute("NRanks", UintegerValue(nRanks));
    t->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
    t->SetAttribute("Latency", TimeValue(Seconds(alpha)));
    t->SetAttribute("ModelReceivePort", BooleanValue(receivePort));
    return t;
}

/**
 * Run one plan alone on a fresh engine and ideal carrier, starting at time 0, and
 * destroy the simulator afterwards.
 * \return the engine's result (the test fails if the call never finished)
 */
CollectiveResult
RunAlone(const CommPlan& plan, double alpha = ALPHA, bool receivePort = false)
{
    EXPECT_TRUE(PlanChecker::Check(plan).ok) << PlanChecker::Check(plan).reason;
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(MakeIdeal(plan.GetGroupSize(), alpha, receivePort));
    bool finished = false;
    CollectiveResult result;
    engine->Run(plan, CollectiveEngine::DoneCallback([&](const CollectiveResult& r) {
                    result = r;
                    finished = true;
                }));
    Simulator::Run();
    EXPECT_TRUE(finished) << plan.GetType() << " over " << plan.GetGroupSize()
                          << " ranks never finished";
    EXPECT_EQ(engine->GetNRunning(), 0u);
    engine->Dispose();
    Simulator::Destroy();
    return result;
}

/// Compare a measured time with its closed form, print both.
void
ExpectClosedForm(const std::string& what,
                 uint32_t n,
                 uint64_t bytes,
                 double measured,
                 double closed)
{
    const double err = (measured - closed) / closed;
    std::cout << "[ measured ] " << what << " n=" << n << " S=" << bytes << " B: " << measured * 1e6
              << " us, closed form " << closed * 1e6 << " us (" << err * 100 << "%)" << std::endl;
    EXPECT_NEAR(measured, closed, TOLERANCE * closed)
        << what << " n=" << n << " S=" << bytes << " off by " << err * 100 << "%";
}

/**
 * Test carrier that records, per transfer, when the engine handed it over and when it
 * arrived, then forwards to an inner carrier. Transfers are recognised by their byte
 * count, which the tests using it make unique.
 */
class LoggingTransport : public CollectiveTransport
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::AiFabricTestLoggingTransport")
                                .SetParent<CollectiveTransport>()
                                .SetGroupName("AiFabric");
        return tid;
    }

    Ptr<CollectiveTransport> inner;
    std::map<uint64_t, Time> startAt; //!< by bytes
    std::map<uint64_t, Time> doneAt;  //!< by bytes
    uint32_t sends{0};

    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t channel,
              DoneCallback done) override
    {
        ++sends;
        startAt[bytes] = Simulator::Now();
        inner->Send(src, dst, bytes, channel, DoneCallback([this, bytes, done]() {
                        doneAt[bytes] = Simulator::Now();
                        done();
                    }));
    }

    uint32_t GetNRanks() const override
    {
        return inner->GetNRanks();
    }

  protected:
    void DoDispose() override
    {
        inner = nullptr;
        CollectiveTransport::DoDispose();
    }
};

/// Test carrier that accepts transfers and never delivers them (a stuck fabric).
class BlackHoleTransport : public CollectiveTransport
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::AiFabricTestBlackHoleTransport")
                                .SetParent<CollectiveTransport>()
                                .SetGroupName("AiFabric");
        return tid;
    }

    uint32_t nRanks{8};
    uint32_t sends{0};

    void Send(uint32_t, uint32_t, uint64_t, uint32_t, DoneCallback) override
    {
        ++sends;
    }

    uint32_t GetNRanks() const override
    {
        return nRanks;
    }
};

} // namespace

// ---------------------------------------------------------------------------------------
// The carrier on its own

TEST(IdealTransport, MessageTimingFifoAndIncast)
{
    const uint64_t b = 125000; // 10 us at 12.5 GB/s
    const double alpha = 2e-6;
    auto timeOf = [&](bool receivePort, bool incast) {
        Ptr<IdealTransport> t = MakeIdeal(4, alpha, receivePort);
        std::vector<double> arrivals;
        auto record = [&arrivals]() { arrivals.push_back(Simulator::Now().GetSeconds()); };
        if (incast)
        {
            for (uint32_t s = 1; s < 4; ++s)
            {
                t->Send(s, 0, b, 0, CollectiveTransport::DoneCallback(record));
            }
        }
        else
        {
            t->Send(0, 1, b, 0, CollectiveTransport::DoneCallback(record));
            t->Send(0, 2, b, 1, CollectiveTransport::DoneCallback(record));
            t->Send(0, 3, 0, 0, CollectiveTransport::DoneCallback(record));
        }
        Simulator::Run();
        EXPECT_EQ(t->GetMessagesInFlight(), 0u);
        EXPECT_EQ(t->GetBytesDelivered(), incast ? 3 * b : 2 * b);
        Simulator::Destroy();
        return arrivals;
    };
    // One egress port, FIFO across destinations and channels; a zero-byte message costs
    // alpha.
    std::vector<double> fifo = timeOf(false, false);
    ASSERT_EQ(fifo.size(), 3u);
    EXPECT_NEAR(fifo[0], alpha + 10e-6, 1e-12);
    EXPECT_NEAR(fifo[1], 2 * (alpha + 10e-6), 1e-12);
    EXPECT_NEAR(fifo[2], 2 * (alpha + 10e-6) + alpha, 1e-12);
    // Incast: without a receive port all three arrive together; with it they arrive b/B
    // apart, the last after alpha + 3 b/B.
    std::vector<double> noPort = timeOf(false, true);
    ASSERT_EQ(noPort.size(), 3u);
    for (double a : noPort)
    {
        EXPECT_NEAR(a, alpha + 10e-6, 1e-12);
    }
    std::vector<double> port = timeOf(true, true);
    ASSERT_EQ(port.size(), 3u);
    EXPECT_NEAR(port[0], alpha + 10e-6, 1e-12);
    EXPECT_NEAR(port[1], alpha + 20e-6, 1e-12);
    EXPECT_NEAR(port[2], alpha + 30e-6, 1e-12);
    std::cout << "[ measured ] 3:1 incast of 125 kB: last arrival " << noPort[2] * 1e6
              << " us without receive port, " << port[2] * 1e6 << " us with" << std::endl;
    Simulator::Destroy();
}

// ---------------------------------------------------------------------------------------
// Closed forms

// Ring all-reduce, one channel, no chunking: 2(n-1) steps of alpha + S/(nB).
TEST(CollectiveEngineClosedForm, RingAllReduce)
{
    for (uint64_t S : {1 * MiB, 64 * MiB})
    {
        for (uint32_t n : {2u, 3u, 8u, 16u})
        {
            CollectiveResult r = RunAlone(RingAllReduce(n, S));
            const double closed = 2.0 * (n - 1) * (ALPHA + S / (n * RATE));
            ExpectClosedForm("ring all-reduce", n, S, r.GetDuration().GetSeconds(), closed);
        }
    }
    Simulator::Destroy();
}

// Halving-doubling: 2 log2(n) alpha + 2(n-1)/n S/B.
TEST(CollectiveEngineClosedForm, HalvingDoublingAllReduce)
{
    for (uint64_t S : {1 * MiB, 64 * MiB})
    {
        for (uint32_t n : {4u, 8u, 16u})
        {
            CollectiveResult r = RunAlone(HalvingDoublingAllReduce(n, S));
            const double closed = 2.0 * CeilLog2(n) * ALPHA + 2.0 * (n - 1) / n * S / RATE;
            ExpectClosedForm("halving-doubling all-reduce",
                             n,
                             S,
                             r.GetDuration().GetSeconds(),
                             closed);
        }
    }
    Simulator::Destroy();
}

// Direct all-to-all, S = one rank's send buffer (S/n to each peer):
// (n-1) alpha + (n-1)/n S/B. The pairwise order never makes two senders target one rank
// at once, so modelling the receive port changes nothing.
TEST(CollectiveEngineClosedForm, DirectAllToAll)
{
    for (bool receivePort : {false, true})
    {
        for (uint64_t S : {1 * MiB, 64 * MiB})
        {
            for (uint32_t n : {2u, 3u, 8u, 16u})
            {
                CollectiveResult r = RunAlone(DirectAllToAll(n, S), ALPHA, receivePort);
                const double closed = (n - 1) * ALPHA + (n - 1.0) / n * S / RATE;
                ExpectClosedForm(receivePort ? "direct all-to-all (receive port)"
                                             : "direct all-to-all",
                                 n,
                                 S,
                                 r.GetDuration().GetSeconds(),
                                 closed);
            }
        }
    }
    Simulator::Destroy();
}

// Ring all-gather (S = output) and reduce-scatter (S = input): (n-1)(alpha + S/(nB)).
TEST(CollectiveEngineClosedForm, RingAllGatherAndReduceScatter)
{
    for (uint64_t S : {1 * MiB, 64 * MiB})
    {
        for (uint32_t n : {2u, 3u, 8u, 16u})
        {
            const double closed = (n - 1) * (ALPHA + S / (n * RATE));
            CollectiveResult ag = RunAlone(RingAllGather(n, S));
            ExpectClosedForm("ring all-gather", n, S, ag.GetDuration().GetSeconds(), closed);
            CollectiveResult rs = RunAlone(RingReduceScatter(n, S));
            ExpectClosedForm("ring reduce-scatter", n, S, rs.GetDuration().GetSeconds(), closed);
        }
    }
    Simulator::Destroy();
}

/*
 * Pipelined double binary tree all-reduce (TreeAllReduce with chunkBytes), n a power of
 * two >= 4. The generator cuts S into 2R blocks of c = S/(2R) bytes, alternating between
 * the two trees (R blocks per tree); every message is one block, tau = alpha + c/B on an
 * idle port. Each rank is a leaf of one tree and an inner node of the other.
 *
 * What the IdealTransport's FIFO egress makes of it:
 * 1. Leaf sends have no deps, so at time 0 every rank queues its R leaf sends (its leaf
 *    tree); they occupy every port during [0, R tau]. Up-sends of the inner tree freed in
 *    the meantime queue behind them.
 * 2. An inner node with two children at height h (leaves are height 0) sends, per block,
 *    one up and two downs: 3R messages. Its first up is freed at R tau + (h-1) tau (the
 *    first partial sums climb one level per tau) and from then on work arrives at least as
 *    fast as it is served, so it finishes at R tau + (h-1) tau + 3R tau; its last two
 *    messages are the downs of the last block.
 * 3. The root has a single child (the in-order tree over positions 1..n puts position n
 *    at the top with one subtree) and is never the bottleneck, so the busiest node is the
 *    root's child at height H = log2(n) - 1: done at 4R tau + (H-1) tau.
 * 4. Below it, each level gets the last block after its parent's very last message and
 *    needs 2 tau to pass it on to both children: + 2 tau per level, H-1 levels.
 * So T = 4R tau + 3(H-1) tau = (4R + 3 log2(n) - 6) tau
 *      = 2 S/B + (4R + 3 log2 n - 6) alpha + (3 log2 n - 6) c/B,
 * valid once R >= 4 (the steady state of step 2 must be reached). For n = 2 each rank
 * sends R leaf sends and R downs as a root: T = 2R tau = S/B + 2R alpha.
 * For large S at a fixed chunk this tends to 2 S/B (1 + 2 alpha B / c + ...): the textbook
 * "~2 S/B", the alpha of every chunk paid once at each hop instead of 2 log2(n) times.
 */
double
TreeClosedForm(uint32_t n, uint64_t S, uint32_t R, double alpha = ALPHA)
{
    const double tau = alpha + S / (2.0 * R) / RATE;
    if (n == 2)
    {
        return 2.0 * R * tau;
    }
    return (4.0 * R + 3.0 * CeilLog2(n) - 6.0) * tau;
}

TEST(CollectiveEngineClosedForm, DoubleBinaryTreeAllReducePipelined)
{
    // 1 MiB in 64 KiB chunks (R = 8 per tree) and 64 MiB in 1 MiB chunks (R = 32).
    for (auto [S, chunk] : {std::pair<uint64_t, uint64_t>{1 * MiB, 64 * 1024},
                            std::pair<uint64_t, uint64_t>{64 * MiB, 1 * MiB}})
    {
        for (uint32_t n : {2u, 4u, 8u, 16u})
        {
            CommPlan plan = TreeAllReduce(n, S, chunk, true);
            ASSERT_EQ(plan.GetAlgorithm(),
                      "tree"); // the double binary tree, under the name users give it
            const uint32_t R = plan.GetNBlocks() / 2;
            ASSERT_EQ(R, S / (2 * chunk));
            CollectiveResult r = RunAlone(plan);
            ExpectClosedForm("double-binary-tree all-reduce (R=" + std::to_string(R) + ")",
                             n,
                             S,
                             r.GetDuration().GetSeconds(),
                             TreeClosedForm(n, S, R));
        }
    }
    Simulator::Destroy();
}

TEST(CollectiveEngineClosedForm, DoubleBinaryTreeTendsToTwoSOverB)
{
    // 1 GiB in 4 MiB chunks over 16 ranks: the bandwidth term 2 S/B dominates.
    const uint32_t n = 16;
    const uint64_t S = 1024 * MiB;
    CommPlan plan = TreeAllReduce(n, S, 4 * MiB, true);
    const uint32_t R = plan.GetNBlocks() / 2;
    CollectiveResult r = RunAlone(plan);
    const double t = r.GetDuration().GetSeconds();
    ExpectClosedForm("double-binary-tree all-reduce (R=" + std::to_string(R) + ")",
                     n,
                     S,
                     t,
                     TreeClosedForm(n, S, R));
    const double ratio = t / (2.0 * S / RATE);
    std::cout << "[ measured ] double-binary-tree 1 GiB / 16 ranks: T / (2 S/B) = " << ratio
              << std::endl;
    EXPECT_GT(ratio, 1.0);
    EXPECT_LT(ratio, 1.05);
    Simulator::Destroy();
}

// ---------------------------------------------------------------------------------------
// Reporting

TEST(CollectiveEngine, BusBwOfRingAllReduce)
{
    for (uint32_t n : {2u, 3u, 8u, 16u})
    {
        const uint64_t S = 64 * MiB;
        CollectiveResult r = RunAlone(RingAllReduce(n, S));
        EXPECT_EQ(r.type, CollectiveType::ALL_REDUCE);
        EXPECT_EQ(r.algorithm, "ring");
        EXPECT_EQ(r.nRanks, n);
        EXPECT_EQ(r.bytes, S);
        EXPECT_EQ(r.start, Seconds(0));
        EXPECT_DOUBLE_EQ(r.algBw, S / r.GetDuration().GetSeconds());
        EXPECT_DOUBLE_EQ(r.busBw, r.algBw * 2.0 * (n - 1) / n);
        std::cout << "[ measured ] " << r << std::endl;
        // The ring's busbw approaches the port rate: per step S/(nB) against alpha.
        EXPECT_LT(r.busBw, RATE);
        EXPECT_GT(r.busBw, 0.95 * RATE);
    }
    Simulator::Destroy();
}

TEST(CollectiveEngine, EmptyPlanFinishesAtOnce)
{
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(MakeIdeal(1));
    bool finished = false;
    bool returned = false;
    Simulator::Schedule(MicroSeconds(3), [&]() {
        auto check = [&](const CollectiveResult& r) {
            EXPECT_TRUE(returned) << "callback ran inside Run";
            EXPECT_EQ(r.nTransfers, 0u);
            EXPECT_EQ(r.start, MicroSeconds(3));
            EXPECT_EQ(r.GetDuration(), Seconds(0));
            EXPECT_EQ(r.algBw, 0.0);
            finished = true;
        };
        engine->Run(RingAllReduce(1, MiB), CollectiveEngine::DoneCallback(check));
        returned = true;
    });
    Simulator::Run();
    EXPECT_TRUE(finished);
    Simulator::Destroy();
}

// Two calls on one engine: on disjoint ranks each keeps its closed form; on the same ranks
// they share every port and both take about twice as long. Results stay separate.
TEST(CollectiveEngine, ConcurrentCollectives)
{
    const uint64_t S = 8 * MiB;
    const uint32_t n = 8;
    const double ring = 2.0 * (n - 1) * (ALPHA + S / (n * RATE));
    const double a2a = (n - 1) * ALPHA + (n - 1.0) / n * S / RATE;
    {
        Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
        engine->SetTransport(MakeIdeal(2 * n));
        std::vector<CollectiveResult> traced;
        engine->TraceConnectWithoutContext(
            "CollectiveDone",
            Callback<void, const CollectiveResult&>(
                [&traced](const CollectiveResult& r) { traced.push_back(r); }));
        std::map<uint64_t, CollectiveResult> byId;
        auto record =
            CollectiveEngine::DoneCallback([&byId](const CollectiveResult& r) { byId[r.id] = r; });
        std::vector<uint32_t> low(n);
        std::vector<uint32_t> high(n);
        for (uint32_t i = 0; i < n; ++i)
        {
            low[i] = i;
            high[i] = n + i;
        }
        const uint64_t idRing = engine->Run(RingAllReduce(n, S), low, record);
        const uint64_t idA2a = engine->Run(DirectAllToAll(n, S), high, record);
        EXPECT_NE(idRing, idA2a);
        EXPECT_EQ(engine->GetNRunning(), 2u);
        Simulator::Run();
        EXPECT_EQ(engine->GetNRunning(), 0u);
        ASSERT_EQ(byId.size(), 2u);
        ASSERT_EQ(traced.size(), 2u);
        EXPECT_EQ(byId[idRing].type, CollectiveType::ALL_REDUCE);
        EXPECT_EQ(byId[idA2a].type, CollectiveType::ALL_TO_ALL);
        EXPECT_EQ(byId[idA2a].algorithm, "direct");
        ExpectClosedForm("concurrent: ring all-reduce on ranks 0-7",
                         n,
                         S,
                         byId[idRing].GetDuration().GetSeconds(),
                         ring);
        ExpectClosedForm("concurrent: all-to-all on ranks 8-15",
                         n,
                         S,
                         byId[idA2a].GetDuration().GetSeconds(),
                         a2a);
        engine->Dispose();
        Simulator::Destroy();
    }
    {
        // Same ranks: each port alternates between the two rings, one message of each per
        // step, so the first call ends at 2T - tau and the second at 2T.
        Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
        engine->SetTransport(MakeIdeal(n));
        std::map<uint64_t, CollectiveResult> byId;
        auto record =
            CollectiveEngine::DoneCallback([&byId](const CollectiveResult& r) { byId[r.id] = r; });
        const uint64_t first = engine->Run(RingAllReduce(n, S), record);
        const uint64_t second = engine->Run(RingAllReduce(n, S), record);
        Simulator::Run();
        ASSERT_EQ(byId.size(), 2u);
        const double tau = ALPHA + S / (n * RATE);
        ExpectClosedForm("shared ports: first ring",
                         n,
                         S,
                         byId[first].GetDuration().GetSeconds(),
                         2 * ring - tau);
        ExpectClosedForm("shared ports: second ring",
                         n,
                         S,
                         byId[second].GetDuration().GetSeconds(),
                         2 * ring);
        engine->Dispose();
        Simulator::Destroy();
    }
    Simulator::Destroy();
}

// ---------------------------------------------------------------------------------------
// Dependencies, hangs, bad plans

// A random DAG whose transfers all have different sizes, run through a logging carrier
// with incast modelled (so completions come in a scrambled order): every transfer starts
// exactly when its last dep arrived (never before, and without needless delay).
TEST(CollectiveEngine, HonoursDependencies)
{
    std::mt19937 rng(7);
    const uint32_t n = 6;
    const uint32_t nT = 300;
    CommPlan plan(CollectiveType::ALL_TO_ALLV, n, 0);
    plan.SetPairBytes(std::vector<uint64_t>(n * n, 0));
    plan.SetAlgorithm("random-dag");
    for (uint32_t i = 0; i < nT; ++i)
    {
        plan.AddBlock(1000 + 37 * i + (rng() % 37));
        CommPlan::Transfer t;
        t.src = rng() % n;
        t.dst = (t.src + 1 + rng() % (n - 1)) % n;
        t.chunk = i;
        t.channel = rng() % 3;
        if (i > 0)
        {
            const uint32_t nDeps = rng() % 4;
            for (uint32_t k = 0; k < nDeps; ++k)
            {
                const uint32_t d = rng() % i;
                if (std::find(t.deps.begin(), t.deps.end(), d) == t.deps.end())
                {
                    t.deps.push_back(d);
                }
            }
        }
        plan.AddTransfer(std::move(t));
    }
    std::string reason;
    ASSERT_TRUE(plan.Validate(&reason)) << reason;

    Ptr<LoggingTransport> log = CreateObject<LoggingTransport>();
    log->inner = MakeIdeal(n, 1e-6, true);
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(log);
    uint32_t started = 0;
    engine->TraceConnectWithoutContext(
        "TransferStarted",
        Callback<void, uint64_t, uint32_t>([&started](uint64_t, uint32_t) { ++started; }));
    bool finished = false;
    Time end;
    engine->Run(plan, CollectiveEngine::DoneCallback([&](const CollectiveResult& r) {
                    finished = true;
                    end = r.end;
                }));
    Simulator::Run();
    ASSERT_TRUE(finished);
    EXPECT_EQ(log->sends, nT);
    EXPECT_EQ(started, nT);
    ASSERT_EQ(log->startAt.size(), nT);
    ASSERT_EQ(log->doneAt.size(), nT);
    Time last;
    uint32_t withDeps = 0;
    for (const CommPlan::Transfer& t : plan.GetTransfers())
    {
        Time ready = Seconds(0);
        for (uint32_t d : t.deps)
        {
            ready = std::max(ready, log->doneAt.at(plan.GetTransfer(d).bytes));
        }
        const Time start = log->startAt.at(t.bytes);
        EXPECT_GE(start, ready) << "transfer " << t.id << " started before its deps arrived";
        EXPECT_EQ(start, ready) << "transfer " << t.id << " was held back needlessly";
        withDeps += !t.deps.empty();
        last = std::max(last, log->doneAt.at(t.bytes));
    }
    EXPECT_GT(withDeps, nT / 2);
    EXPECT_EQ(end, last);
    engine->Dispose();
    Simulator::Destroy();
}

// A carrier that never delivers: the simulation runs dry with the call unfinished, and
// the engine says exactly which transfers are stuck.
TEST(CollectiveEngine, PendingTransfersOfAStuckCall)
{
    const uint32_t n = 8;
    Ptr<BlackHoleTransport> hole = CreateObject<BlackHoleTransport>();
    hole->nRanks = n;
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(hole);
    bool finished = false;
    Simulator::Schedule(MicroSeconds(1), [&]() {
        auto mark = [&finished](const CollectiveResult&) { finished = true; };
        engine->Run(RingAllReduce(n, MiB), CollectiveEngine::DoneCallback(mark));
    });
    Simulator::Run();
    EXPECT_FALSE(finished);
    EXPECT_EQ(engine->GetNRunning(), 1u);
    EXPECT_TRUE(engine->IsRunning(1));
    // Step 0 of the ring: every rank sends one block to its successor; nothing else can
    // start.
    EXPECT_EQ(hole->sends, n);
    EXPECT_EQ(engine->GetNPendingTransfers(), n);
    std::vector<CollectiveEngine::PendingTransfer> pending = engine->GetPendingTransfers();
    ASSERT_EQ(pending.size(), n);
    for (const auto& p : pending)
    {
        EXPECT_EQ(p.runId, 1u);
        EXPECT_EQ(p.dst, (p.src + 1) % n);
        EXPECT_EQ(p.bytes, MiB / n);
        EXPECT_EQ(p.sentAt, MicroSeconds(1));
    }
    engine->Dispose();
    Simulator::Destroy();
}

TEST(CollectiveEngineDeathTest, InvalidPlanAborts)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // Transfer 0 made to wait for a transfer that waits for it.
    CommPlan cyclic = RingAllReduce(4, MiB);
    uint32_t waiter = 0;
    for (const CommPlan::Transfer& t : cyclic.GetTransfers())
    {
        if (std::find(t.deps.begin(), t.deps.end(), 0u) != t.deps.end())
        {
            waiter = t.id;
            break;
        }
    }
    ASSERT_NE(waiter, 0u);
    cyclic.GetTransfer(0).deps.push_back(waiter);
    EXPECT_DEATH(
        {
            Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
            engine->SetTransport(MakeIdeal(4));
            engine->Run(cyclic);
        },
        "CollectiveEngine::Run: invalid plan \\(all-reduce 'ring', 4 ranks, 24 transfers\\): "
        "the dependencies form a cycle");
    CommPlan selfSend = RingAllReduce(4, MiB);
    selfSend.GetTransfer(3).dst = selfSend.GetTransfer(3).src;
    EXPECT_DEATH(
        {
            Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
            engine->SetTransport(MakeIdeal(4));
            engine->Run(selfSend);
        },
        "invalid plan.*transfer 3 sends from rank [0-9]+ to itself");
    EXPECT_DEATH(
        {
            Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
            engine->Run(RingAllReduce(4, MiB));
        },
        "no transport");
    EXPECT_DEATH(
        {
            Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
            engine->SetTransport(MakeIdeal(4));
            engine->Run(RingAllReduce(8, MiB));
        },
        "plan needs transport rank 7 but the transport connects only 4 ranks");
    Simulator::Destroy();
}

namespace
{

/// \return whether two plans are the same transfers, in the same order
bool
SamePlan(const CommPlan& a, const CommPlan& b)
{
    if (a.GetAlgorithm() != b.GetAlgorithm() || a.GetTotalBytes() != b.GetTotalBytes() ||
        a.GetNTransfers() != b.GetNTransfers() || a.GetType() != b.GetType() ||
        a.GetGroupSize() != b.GetGroupSize() || a.GetRoot() != b.GetRoot())
    {
        return false;
    }
    for (uint32_t t = 0; t < a.GetNTransfers(); ++t)
    {
        const CommPlan::Transfer& x = a.GetTransfers()[t];
        const CommPlan::Transfer& y = b.GetTransfers()[t];
        if (x.src != y.src || x.dst != y.dst || x.bytes != y.bytes || x.deps != y.deps ||
            x.channel != y.channel || x.kind != y.kind || x.reduce != y.reduce ||
            x.members != y.members || x.chunk != y.chunk || x.chunkCount != y.chunkCount ||
            x.step != y.step)
        {
            return false;
        }
    }
    return true;
}

} // namespace

// The plan cache answers a repeated call with the plan a new build makes, and any change
// of the call (size, ranks, algorithm, Channels) with a new plan.
TEST(CollectiveEnginePlanCache, ARepeatedCallGetsTheSamePlan)
{
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(MakeIdeal(8));
    engine->SetAttribute("Algorithm", StringValue("ring"));
    const CommGroup group = CommGroup::Uniform(4, 1);
    const std::vector<uint32_t> ranks{0, 2, 4, 6};
    auto first = engine->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, MiB, ranks);
    auto again = engine->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, MiB, ranks);
    EXPECT_EQ(first.get(), again.get());
    EXPECT_TRUE(
        SamePlan(*first,
                 engine->MakeCollectivePlan(CollectiveType::ALL_REDUCE, group, MiB, ranks)));
    CollectiveEngine::PlanCacheStats stats = engine->GetPlanCacheStats();
    EXPECT_EQ(stats.hits, 1u);
    EXPECT_EQ(stats.builds, 1u);
    EXPECT_EQ(stats.plans, 1u);
    EXPECT_EQ(stats.transfers, first->GetNTransfers());

    // Each of these differs from the first call in one thing and gets its own plan.
    auto bigger = engine->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, 2 * MiB, ranks);
    EXPECT_EQ(bigger->GetTotalBytes(), 2 * MiB);
    auto others = engine->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, MiB, {1, 3, 5, 7});
    EXPECT_NE(others.get(), first.get());
    auto gather = engine->GetCollectivePlan(CollectiveType::ALL_GATHER, group, MiB, ranks);
    EXPECT_EQ(gather->GetType(), CollectiveType::ALL_GATHER);
    auto tree = engine->GetCollectivePlan(CollectiveType::ALL_REDUCE,
                                          group,
                                          MiB,
                                          ranks,
                                          0,
                                          CollectiveAlgorithm::TREE);
    EXPECT_EQ(tree->GetAlgorithm(), "tree");
    EXPECT_NE(first->GetAlgorithm(), "tree");
    engine->SetAttribute("Channels", UintegerValue(2));
    auto twoChannels = engine->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, MiB, ranks);
    EXPECT_NE(twoChannels.get(), first.get());
    EXPECT_TRUE(
        SamePlan(*twoChannels,
                 engine->MakeCollectivePlan(CollectiveType::ALL_REDUCE, group, MiB, ranks)));
    auto channels = [](const CommPlan& p) {
        uint32_t most = 0;
        for (const CommPlan::Transfer& t : p.GetTransfers())
        {
            most = std::max(most, t.channel + 1);
        }
        return most;
    };
    EXPECT_EQ(channels(*first), 1u);
    EXPECT_EQ(channels(*twoChannels), 2u);
    // The root of a broadcast and the chunk of a pipelined plan are part of the call.
    auto root0 = engine->GetCollectivePlan(CollectiveType::BROADCAST, group, MiB, ranks, 0);
    auto root2 = engine->GetCollectivePlan(CollectiveType::BROADCAST, group, MiB, ranks, 2);
    EXPECT_EQ(root0->GetRoot(), 0u);
    EXPECT_EQ(root2->GetRoot(), 2u);
    EXPECT_TRUE(
        SamePlan(*root2,
                 engine->MakeCollectivePlan(CollectiveType::BROADCAST, group, MiB, ranks, 2)));
    auto treePlan = [&]() {
        return engine->GetCollectivePlan(CollectiveType::ALL_REDUCE,
                                         group,
                                         4 * MiB,
                                         ranks,
                                         0,
                                         CollectiveAlgorithm::TREE);
    };
    auto wholeChunks = treePlan();
    engine->SetAttribute("ChunkBytes", UintegerValue(MiB / 4));
    auto smallChunks = treePlan();
    EXPECT_NE(smallChunks.get(), wholeChunks.get());
    EXPECT_GT(smallChunks->GetNTransfers(), wholeChunks->GetNTransfers());
    EXPECT_TRUE(SamePlan(*smallChunks,
                         engine->MakeCollectivePlan(CollectiveType::ALL_REDUCE,
                                                    group,
                                                    4 * MiB,
                                                    ranks,
                                                    0,
                                                    CollectiveAlgorithm::TREE)));
    stats = engine->GetPlanCacheStats();
    EXPECT_EQ(stats.hits, 1u);
    EXPECT_EQ(stats.builds, 10u);
    EXPECT_EQ(stats.plans, 10u);
    EXPECT_EQ(stats.evictions, 0u);
    Simulator::Destroy();
}

// The group's shape is part of the call: the same carrier ranks laid out as 2 servers x 2
// GPUs or as 4 servers x 1 GPU get different rail-aligned rings, each the plan a new build
// makes.
TEST(CollectiveEnginePlanCache, TheGroupShapeIsPartOfTheCall)
{
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(MakeIdeal(4));
    const std::vector<uint32_t> ranks{0, 1, 2, 3};
    const CommGroup twoByTwo = CommGroup::Uniform(2, 2);
    const CommGroup fourByOne = CommGroup::Uniform(4, 1);
    auto plan = [&](const CommGroup& g) {
        return engine->GetCollectivePlan(CollectiveType::ALL_REDUCE,
                                         g,
                                         MiB,
                                         ranks,
                                         0,
                                         CollectiveAlgorithm::HIERARCHICAL);
    };
    auto a = plan(twoByTwo);
    auto b = plan(fourByOne);
    EXPECT_NE(a.get(), b.get());
    EXPECT_FALSE(SamePlan(*a, *b));
    for (const auto& [cached, group] : {std::pair{a, twoByTwo}, std::pair{b, fourByOne}})
    {
        EXPECT_TRUE(SamePlan(*cached,
                             engine->MakeCollectivePlan(CollectiveType::ALL_REDUCE,
                                                        group,
                                                        MiB,
                                                        ranks,
                                                        0,
                                                        CollectiveAlgorithm::HIERARCHICAL)));
    }
    EXPECT_EQ(plan(twoByTwo).get(), a.get());
    Simulator::Destroy();
}

// The cache holds at most PlanCacheTransfers transfers and forgets the least recently
// used plan first; 0 turns it off.
TEST(CollectiveEnginePlanCache, ItStaysWithinItsBoundAndForgetsTheLeastRecentlyUsed)
{
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(MakeIdeal(4));
    const CommGroup group = CommGroup::Uniform(4, 1);
    const uint32_t ring = RingAllReduce(4, MiB).GetNTransfers(); // 2 (n - 1) n = 24
    ASSERT_EQ(ring, 24u);
    engine->SetAttribute("Algorithm", StringValue("ring"));
    engine->SetAttribute("PlanCacheTransfers", UintegerValue(2 * ring));
    auto a = engine->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, 1 * MiB);
    auto b = engine->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, 2 * MiB);
    EXPECT_EQ(engine->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, 1 * MiB).get(),
              a.get()); // a is now the more recently used
    auto c = engine->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, 3 * MiB);
    CollectiveEngine::PlanCacheStats stats = engine->GetPlanCacheStats();
    EXPECT_EQ(stats.evictions, 1u);
    EXPECT_EQ(stats.plans, 2u);
    EXPECT_EQ(stats.transfers, 2u * ring);
    EXPECT_EQ(engine->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, 1 * MiB).get(),
              a.get()); // kept
    EXPECT_NE(engine->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, 2 * MiB).get(),
              b.get()); // forgotten, built again
    EXPECT_EQ(engine->GetPlanCacheStats().builds, 4u);

    // A bound lowered after plans were cached holds from the next call on; 0 empties it.
    engine->SetAttribute("PlanCacheTransfers", UintegerValue(0));
    auto fresh = engine->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, 1 * MiB);
    EXPECT_NE(fresh.get(), a.get());
    EXPECT_EQ(engine->GetPlanCacheStats().plans, 0u);
    EXPECT_EQ(engine->GetPlanCacheStats().transfers, 0u);

    Ptr<CollectiveEngine> off = CreateObject<CollectiveEngine>();
    UintegerValue bound;
    off->GetAttribute("PlanCacheTransfers", bound);
    EXPECT_EQ(bound.Get(), 1u << 20); // the default the doc states
    off->SetTransport(MakeIdeal(4));
    off->SetAttribute("PlanCacheTransfers", UintegerValue(0));
    auto x = off->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, MiB);
    auto y = off->GetCollectivePlan(CollectiveType::ALL_REDUCE, group, MiB);
    EXPECT_NE(x.get(), y.get());
    EXPECT_TRUE(SamePlan(*x, *y));
    EXPECT_EQ(off->GetPlanCacheStats().plans, 0u);
    EXPECT_EQ(off->GetPlanCacheStats().builds, 2u);
    Simulator::Destroy();
}
