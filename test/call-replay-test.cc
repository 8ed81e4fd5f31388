// SPDX-License-Identifier: GPL-2.0-only
// CollectiveEngine's call replay (ReplayIsolatedCalls) over NVSwitches: a call on one
// server's quiet NVSwitch that ran there before, alone, ends when the simulated call ends
// and leaves the same counters; a busy switch, a shared recording and a call across
// servers are simulated; a transfer posted while a replay holds the switch is counted.
#include "test-util.h"

#include "ns3/collective-engine.h"
#include "ns3/ideal-transport.h"
#include "ns3/nv-switch-fabric.h"
#include "ns3/nvlink-transport.h"
#include "ns3/rank-map-transport.h"
#include "ns3/server-routing-transport.h"
#include "ns3/workload-runner.h"

#include <functional>

using namespace aifabric;

namespace
{

constexpr uint64_t MiB = 1ull << 20;

/// Two servers of 8 H100 on their NVSwitches, routed by server, with an engine on them.
struct TwoServers
{
    std::vector<Ptr<NvSwitchFabric>> fabrics;       //!< per server
    std::vector<Ptr<CollectiveTransport>> carriers; //!< per server
    Ptr<ServerRoutingTransport> router;             //!< the engine's carrier
    Ptr<CollectiveEngine> engine;                   //!< the engine
    CommGroup group = CommGroup::Uniform(2, 8);     //!< 16 ranks

    /**
     * \param replay ReplayIsolatedCalls
     * \param fastForward the fabrics' FastForward
     */
    TwoServers(bool replay, bool fastForward)
    {
        for (uint32_t s = 0; s < 2; ++s)
        {
            auto f = CreateObject<NvSwitchFabric>();
            f->ApplyPreset("H100");
            f->SetAttribute("NGpus", UintegerValue(8));
            f->SetAttribute("FastForward", BooleanValue(fastForward));
            auto t = CreateObject<NvLinkTransport>();
            t->SetFabric(f);
            fabrics.push_back(f);
            carriers.push_back(t);
        }
        router = CreateObject<ServerRoutingTransport>();
        router->Setup(group, carriers, nullptr);
        engine = CreateObject<CollectiveEngine>();
        engine->SetTransport(router);
        engine->SetAttribute("Algorithm", StringValue("ring"));
        engine->SetAttribute("Protocol", StringValue("Simple"));
        engine->SetAttribute("Channels", UintegerValue(2));
        engine->SetAttribute("ReplayIsolatedCalls", BooleanValue(replay));
    }

    /**
     * Start a call of the cached plan at `at` on ranks, as the workload runner does.
     * \param at when
     * \param type the collective
     * \param ranks carrier ranks (one server's or not)
     * \param bytes call size
     * \param algorithm the algorithm
     * \param duration set to the call's duration when it ends
     * \param alone RunSelected's: the caller vouches that nothing else is posted meanwhile
     */
    void Call(Time at,
              CollectiveType type,
              std::vector<uint32_t> ranks,
              uint64_t bytes,
              CollectiveAlgorithm algorithm,
              Time* duration,
              bool alone = true)
    {
        Simulator::Schedule(at, [this, type, ranks, bytes, algorithm, duration, alone]() {
            auto plan =
                engine->GetCollectivePlan(type, group.SubGroup(ranks), bytes, ranks, 0, algorithm);
            engine->RunSelected(
                *plan,
                ranks,
                CollectiveEngine::DoneCallback(
                    [duration](const CollectiveResult& r) { *duration = r.GetDuration(); }),
                alone);
        });
    }
};

const std::vector<uint32_t> SERVER0{0, 1, 2, 3, 4, 5, 6, 7};
const std::vector<uint32_t> SERVER1{8, 9, 10, 11, 12, 13, 14, 15};

/// What a run of the calls below leaves.
struct Outcome
{
    std::vector<Time> durations;
    std::vector<uint64_t> chunks;           //!< per fabric
    std::vector<uint64_t> bytes;            //!< per fabric
    std::vector<uint64_t> skipped;          //!< per fabric: skipped chunks
    std::vector<uint64_t> portSent;         //!< every port of both fabrics
    std::vector<uint64_t> portReceived;     //!< every port of both fabrics
    std::vector<NvSwitchFabric::Work> work; //!< per fabric: every counter a replay adds
    CollectiveEngine::ReplayStats stats;
    uint64_t events{0};
    uint64_t transfersStarted{0}; //!< the engine's TransferStarted trace
    uint64_t transfersDone{0};    //!< its TransferDone trace
    uint64_t callsDone{0};        //!< its CollectiveDone trace
};

/// Ring all-reduces (twice on server 0, once on server 1, once more on server 0), then
/// two NVLS all-reduces on server 0: with replay or without.
Outcome
RunCalls(bool replay, bool fastForward)
{
    TwoServers c(replay, fastForward);
    Outcome out;
    out.durations.resize(6);
    const auto RING = CollectiveAlgorithm::RING;
    const auto NVLS = CollectiveAlgorithm::NVLS;
    c.Call(Seconds(0), CollectiveType::ALL_REDUCE, SERVER0, 64 * MiB, RING, &out.durations[0]);
    c.Call(MilliSeconds(1), CollectiveType::ALL_REDUCE, SERVER0, 64 * MiB, RING, &out.durations[1]);
    c.Call(MilliSeconds(2), CollectiveType::ALL_REDUCE, SERVER1, 64 * MiB, RING, &out.durations[2]);
    c.Call(MilliSeconds(3), CollectiveType::ALL_REDUCE, SERVER0, 64 * MiB, RING, &out.durations[3]);
    c.Call(MilliSeconds(4), CollectiveType::ALL_REDUCE, SERVER0, 32 * MiB, NVLS, &out.durations[4]);
    c.Call(MilliSeconds(5), CollectiveType::ALL_REDUCE, SERVER0, 32 * MiB, NVLS, &out.durations[5]);
    c.engine->TraceConnectWithoutContext(
        "TransferStarted",
        Callback<void, uint64_t, uint32_t>([&out](uint64_t, uint32_t) { ++out.transfersStarted; }));
    c.engine->TraceConnectWithoutContext(
        "TransferDone",
        Callback<void, uint64_t, uint32_t>([&out](uint64_t, uint32_t) { ++out.transfersDone; }));
    c.engine->TraceConnectWithoutContext("CollectiveDone",
                                         Callback<void, const CollectiveResult&>(
                                             [&out](const CollectiveResult&) { ++out.callsDone; }));
    const uint64_t events0 = Simulator::GetEventCount();
    Simulator::Run();
    out.events = Simulator::GetEventCount() - events0;
    for (const Ptr<NvSwitchFabric>& f : c.fabrics)
    {
        out.chunks.push_back(f->GetChunksDelivered());
        out.bytes.push_back(f->GetBytesDelivered());
        out.skipped.push_back(f->GetSkippedChunks());
        out.work.push_back(f->GetWork());
        EXPECT_EQ(f->GetReplayOverlaps(), 0u);
        EXPECT_EQ(f->GetTransfersInFlight(), 0u);
        for (uint32_t g = 0; g < 8; ++g)
        {
            out.portSent.push_back(f->GetPort(g)->GetBytesSent());
            out.portReceived.push_back(f->GetPort(g)->GetBytesReceived());
        }
    }
    out.stats = c.engine->GetReplayStats();
    Simulator::Destroy();
    return out;
}

class CallReplay : public NsTest, public ::testing::WithParamInterface<bool>
{
};

} // namespace

// Replayed calls end at the time step the simulated ones end, and every counter of both
// switches (chunks, bytes, skipped chunks, each port's bytes) comes out the same, with the
// switches' fast-forward on and off; ring (point to point) and NVLS (switch operations)
// calls alike. Server 1's call is recorded on its own switch, not replayed from server 0.
TEST_P(CallReplay, ARepeatedCallEndsAsSimulatedAndCountsItsWork)
{
    const bool fastForward = GetParam();
    const Outcome simulated = RunCalls(false, fastForward);
    const Outcome replayed = RunCalls(true, fastForward);
    EXPECT_EQ(simulated.stats.replayed, 0u);
    EXPECT_EQ(replayed.stats.recorded, 3u); // ring on 0 and on 1, NVLS on 0
    EXPECT_EQ(replayed.stats.replayed, 3u); // ring twice on 0, NVLS once
    EXPECT_EQ(replayed.stats.voided, 0u);
    EXPECT_EQ(replayed.durations, simulated.durations);
    EXPECT_EQ(replayed.chunks, simulated.chunks);
    EXPECT_EQ(replayed.bytes, simulated.bytes);
    EXPECT_EQ(replayed.skipped, simulated.skipped);
    EXPECT_EQ(replayed.portSent, simulated.portSent);
    EXPECT_EQ(replayed.portReceived, simulated.portReceived);
    for (size_t s = 0; s < 2; ++s)
    {
        EXPECT_EQ(replayed.work[s].transfers, simulated.work[s].transfers);
        EXPECT_EQ(replayed.work[s].switchOps, simulated.work[s].switchOps);
        EXPECT_EQ(replayed.work[s].skips, simulated.work[s].skips);
        EXPECT_EQ(replayed.work[s].posts, simulated.work[s].posts);
    }
    EXPECT_GT(simulated.work[0].switchOps, 0u); // the NVLS calls' operations
    // Every call ends and every transfer is reported done either way; a replayed call's
    // transfers are not handed to the carrier, so they are not reported started.
    EXPECT_EQ(replayed.callsDone, 6u);
    EXPECT_EQ(replayed.transfersDone, simulated.transfersDone);
    EXPECT_LT(replayed.transfersStarted, simulated.transfersStarted);
    // A ring all-reduce sends 2 (n-1)/n of its size from every GPU (server 1's one call).
    EXPECT_EQ(replayed.portSent[8], 2 * 7 * (64 * MiB / 8));
    EXPECT_LT(replayed.events, simulated.events * 2 / 3);
    std::cout << "[ measured ] fast-forward " << (fastForward ? "on" : "off") << ": ring "
              << simulated.durations[0].As(Time::US) << ", NVLS "
              << simulated.durations[4].As(Time::US) << "; events " << simulated.events
              << " simulated, " << replayed.events << " with replays\n";
}

INSTANTIATE_TEST_SUITE_P(FastForwardOnAndOff, CallReplay, ::testing::Values(false, true));

// The isolated carrier of a call: its server's NVSwitch when one server holds its ranks,
// none across servers.
TEST_F(NsTest, CallReplayIsolatedCarriersAreOneServersSwitch)
{
    TwoServers c(true, false);
    EXPECT_EQ(c.router->GetIsolatedCarrier(SERVER0), c.carriers[0]);
    EXPECT_EQ(c.router->GetIsolatedCarrier({9, 12}), c.carriers[1]);
    EXPECT_EQ(c.router->GetIsolatedCarrier({7, 8}), nullptr);
    EXPECT_EQ(c.carriers[0]->GetIsolatedCarrier({0, 8}), nullptr); // no GPU 8 there
    // A job's ranks 0..3 on GPUs 12..15: its carrier maps them onto server 1's switch.
    auto job = CreateObject<RankMapTransport>();
    job->Setup(c.router, {12, 13, 14, 15});
    EXPECT_EQ(job->GetIsolatedCarrier({0, 1, 2, 3}), c.carriers[1]);
    // One scale-up carrier shared by every server is no server's own.
    auto shared = CreateObject<ServerRoutingTransport>();
    auto ideal = CreateObject<IdealTransport>();
    ideal->SetAttribute("NRanks", UintegerValue(16));
    shared->SetupShared(c.group, ideal, nullptr);
    EXPECT_EQ(shared->GetIsolatedCarrier({0, 1}), nullptr);
    // The engine simulates every call unless asked.
    EXPECT_FALSE(CreateObject<CollectiveEngine>()->GetReplayIsolatedCalls());
    Simulator::Destroy();
}

// Only a call over every GPU of its switch whose caller vouches that it runs alone is
// replayed: half a switch's GPUs, or a call not vouched for, is simulated each time.
TEST_F(NsTest, CallReplayOnlyAWholeSwitchVouchedForIsReplayed)
{
    TwoServers c(true, false);
    std::vector<Time> d(6);
    const auto RING = CollectiveAlgorithm::RING;
    const std::vector<uint32_t> half{0, 1, 2, 3};
    for (uint32_t i = 0; i < 3; ++i)
    {
        c.Call(MilliSeconds(i), CollectiveType::ALL_REDUCE, half, 8 * MiB, RING, &d[i]);
        c.Call(MilliSeconds(10 + i),
               CollectiveType::ALL_REDUCE,
               SERVER1,
               8 * MiB,
               RING,
               &d[3 + i],
               false);
    }
    Simulator::Run();
    const CollectiveEngine::ReplayStats stats = c.engine->GetReplayStats();
    EXPECT_EQ(stats.replayed, 0u);
    EXPECT_EQ(stats.recorded, 0u);
    EXPECT_EQ(d[1], d[0]);
    EXPECT_EQ(d[4], d[3]);
    Simulator::Destroy();
}

// A call that starts while another transfer is on its switch is simulated, not replayed
// (it shares the switch, so it is slower than the recorded one); a recording that another
// transfer shares is given up, and the next call records again.
TEST_F(NsTest, CallReplayABusyOrSharedSwitchIsSimulated)
{
    TwoServers c(true, false);
    std::vector<Time> d(4);
    const auto RING = CollectiveAlgorithm::RING;
    c.Call(Seconds(0), CollectiveType::ALL_REDUCE, SERVER0, 16 * MiB, RING, &d[0]);
    // A 64 MiB transfer 0 -> 1 from 1 ms: the call at 1 ms + 1 us finds the switch busy.
    Simulator::Schedule(MilliSeconds(1), [&c]() {
        c.fabrics[0]->Send(0, 1, 64 * MiB, 9, NvSwitchFabric::DoneCallback([]() {}));
    });
    c.Call(MilliSeconds(1) + MicroSeconds(1),
           CollectiveType::ALL_REDUCE,
           SERVER0,
           16 * MiB,
           RING,
           &d[1]);
    // Server 1: a transfer posted during the first (recording) call voids the record.
    c.Call(MilliSeconds(3), CollectiveType::ALL_REDUCE, SERVER1, 16 * MiB, RING, &d[2]);
    Simulator::Schedule(MilliSeconds(3) + MicroSeconds(5), [&c]() {
        c.fabrics[1]->Send(3, 4, 16 * MiB, 9, NvSwitchFabric::DoneCallback([]() {}));
    });
    c.Call(MilliSeconds(4), CollectiveType::ALL_REDUCE, SERVER1, 16 * MiB, RING, &d[3]);
    Simulator::Run();
    const CollectiveEngine::ReplayStats stats = c.engine->GetReplayStats();
    EXPECT_EQ(stats.replayed, 0u);
    EXPECT_EQ(stats.recorded, 2u); // the first call on each server that had it alone
    EXPECT_EQ(stats.voided, 1u);   // server 1's first
    EXPECT_GT(d[1], d[0]);         // shared with the 64 MiB transfer
    EXPECT_GT(d[2], d[3]);         // shared with the 16 MiB transfer
    EXPECT_EQ(d[3], d[0]);         // alone on an identical switch
    Simulator::Destroy();
}

// A transfer posted while a replayed call holds the switch is counted as an overlap, and
// runs as if the call were not there: the replay's one approximation.
TEST_F(NsTest, CallReplayATransferDuringAReplayIsAnOverlap)
{
    TwoServers c(true, false);
    std::vector<Time> d(2);
    const auto RING = CollectiveAlgorithm::RING;
    c.Call(Seconds(0), CollectiveType::ALL_REDUCE, SERVER0, 16 * MiB, RING, &d[0]);
    c.Call(MilliSeconds(1), CollectiveType::ALL_REDUCE, SERVER0, 16 * MiB, RING, &d[1]);
    Time alone;
    Time during;
    Simulator::Schedule(MilliSeconds(1) + MicroSeconds(10), [&c, &during]() {
        const Time start = Simulator::Now();
        c.fabrics[0]->Send(0, 1, MiB, 9, NvSwitchFabric::DoneCallback([start, &during]() {
                               during = Simulator::Now() - start;
                           }));
    });
    Simulator::Schedule(MilliSeconds(2), [&c, &alone]() {
        const Time start = Simulator::Now();
        c.fabrics[0]->Send(0, 1, MiB, 9, NvSwitchFabric::DoneCallback([start, &alone]() {
                               alone = Simulator::Now() - start;
                           }));
    });
    Simulator::Run();
    EXPECT_EQ(c.engine->GetReplayStats().replayed, 1u);
    EXPECT_EQ(d[1], d[0]);
    EXPECT_EQ(c.fabrics[0]->GetReplays(), 1u);
    EXPECT_EQ(c.fabrics[0]->GetReplayOverlaps(), 1u);
    EXPECT_EQ(during, alone);
    Simulator::Destroy();
}

namespace
{

/// Ring all-reduces on server 0, each started when the one before ends (from its
/// callback, as a stream of calls does), with or without replay: their durations and
/// the switch's skips.
struct Chain
{
    std::vector<Time> durations;
    uint64_t delivered{0}; //!< chunks simulated and delivered (the ChunkDelivered trace)
    uint64_t replayedChunks{0};
    uint64_t skips{0};
    uint64_t skippedChunks{0};
    uint64_t chunks{0};
    CollectiveEngine::ReplayStats stats;
};

Chain
RunChain(bool replay, bool onePlanCache = false)
{
    TwoServers c(replay, true);
    Chain out;
    const uint32_t n = 6;
    out.durations.resize(n);
    std::function<void(uint32_t)> next = [&](uint32_t i) {
        if (i == n)
        {
            return;
        }
        // Two sizes in turn: with a cache of one plan, each call evicts the other's.
        const uint64_t bytes = (i % 2 == 0 ? 24 : 40) * MiB;
        auto plan = c.engine->GetCollectivePlan(CollectiveType::ALL_REDUCE,
                                                c.group.SubGroup(SERVER0),
                                                bytes,
                                                SERVER0,
                                                0,
                                                CollectiveAlgorithm::RING);
        if (onePlanCache)
        {
            // Room for this plan alone from the next call on.
            c.engine->SetAttribute("PlanCacheTransfers", UintegerValue(plan->GetNTransfers()));
        }
        c.engine->RunSelected(*plan,
                              SERVER0,
                              CollectiveEngine::DoneCallback([&, i](const CollectiveResult& r) {
                                  out.durations[i] = r.GetDuration();
                                  next(i + 1);
                              }),
                              true);
    };
    Simulator::ScheduleNow([&next]() { next(0); });
    c.fabrics[0]->TraceConnectWithoutContext(
        "ChunkDelivered",
        Callback<void, uint32_t, uint32_t, uint64_t>(
            [&out](uint32_t, uint32_t, uint64_t) { ++out.delivered; }));
    Simulator::Run();
    out.replayedChunks = c.fabrics[0]->GetReplayedChunks();
    out.skips = c.fabrics[0]->GetSkips();
    out.skippedChunks = c.fabrics[0]->GetSkippedChunks();
    out.chunks = c.fabrics[0]->GetChunksDelivered();
    out.stats = c.engine->GetReplayStats();
    Simulator::Destroy();
    return out;
}

/// A trace of 4 GPUs on one server: 4 layers of compute then a ring all-reduce of the
/// whole server on stream 1; with sendRecv, GPUs 0 and 1 also exchange a message on
/// stream 2 each layer (a second stream of calls inside the server).
TrainingTrace
FourGpuTrace(bool sendRecv)
{
    TrainingTrace t(4);
    t.AddGroup({"tp", "tp", {0, 1, 2, 3}});
    for (uint32_t r = 0; r < 4; ++r)
    {
        for (uint32_t layer = 0; layer < 4; ++layer)
        {
            t.AddOp(r, Compute("fwd", MicroSeconds(50)));
            TraceOp ar;
            ar.kind = TraceOpKind::COLLECTIVE;
            ar.name = "tp.ar";
            ar.collective = CollectiveType::ALL_REDUCE;
            ar.group = "tp";
            ar.bytes = 8 * MiB;
            ar.stream = 1;
            ar.algorithm = "ring";
            t.AddOp(r, ar);
            if (sendRecv && r < 2)
            {
                TraceOp p;
                p.kind = r == 0 ? TraceOpKind::SEND : TraceOpKind::RECV;
                p.name = "pp";
                p.peer = 1 - r;
                p.bytes = 4 * MiB;
                p.tag = layer;
                p.stream = 2;
                t.AddOp(r, p);
            }
        }
    }
    return t;
}

/// Run FourGpuTrace on one 4-GPU H100 NVSwitch. \return (end time, calls replayed)
std::pair<Time, uint64_t>
RunFourGpus(bool sendRecv, bool replay, bool restartable = false)
{
    auto f = CreateObject<NvSwitchFabric>();
    f->ApplyPreset("H100");
    f->SetAttribute("NGpus", UintegerValue(4));
    auto carrier = CreateObject<NvLinkTransport>();
    carrier->SetFabric(f);
    auto runner = CreateObject<WorkloadRunner>();
    runner->Setup(FourGpuTrace(sendRecv), CommGroup::Uniform(1, 4), carrier);
    runner->GetEngine()->SetAttribute("ReplayIsolatedCalls", BooleanValue(replay));
    if (restartable)
    {
        // A failure that may restart the ranks (after the run's end: it changes nothing).
        runner->SetAttribute("RestartOnFailure", BooleanValue(true));
        runner->FailRank(0, Seconds(10));
    }
    runner->Start();
    Simulator::Run();
    EXPECT_TRUE(runner->IsFinished());
    const std::pair<Time, uint64_t> out{runner->GetEndTime(),
                                        runner->GetEngine()->GetReplayStats().replayed};
    Simulator::Destroy();
    return out;
}

} // namespace

// Calls back to back, each started by the one before as it ends, on a switch with its
// fast-forward on: a replayed call ends when the simulated one ends and the skips come
// out the same (a skip try left pending by one call is not inherited by the next).
TEST_F(NsTest, CallReplayBackToBackCallsEndAsSimulated)
{
    const Chain simulated = RunChain(false);
    const Chain replayed = RunChain(true);
    EXPECT_EQ(replayed.stats.recorded, 2u); // one per size
    EXPECT_EQ(replayed.stats.replayed, 4u);
    EXPECT_EQ(replayed.durations, simulated.durations);
    EXPECT_EQ(replayed.skips, simulated.skips);
    EXPECT_EQ(replayed.skippedChunks, simulated.skippedChunks);
    EXPECT_EQ(replayed.chunks, simulated.chunks);
    EXPECT_GT(simulated.skips, 0u); // the fast-forward had something to skip
    // Every chunk is simulated, skipped or replayed, once: the replayed ones are those the
    // recordings simulated (their skipped ones count as skipped).
    EXPECT_EQ(simulated.delivered + simulated.skippedChunks, simulated.chunks);
    EXPECT_EQ(replayed.delivered + replayed.skippedChunks + replayed.replayedChunks,
              replayed.chunks);
    EXPECT_GT(replayed.replayedChunks, 0u);
}

// A plan cache of one plan, two sizes in turn: each call evicts the other's plan and its
// record, so every call is simulated (and recorded) anew, none replayed from a plan that
// is gone (a new plan may take its address); the calls end as simulated.
TEST_F(NsTest, CallReplayAnEvictedPlanIsNotReplayed)
{
    const Chain simulated = RunChain(false, true);
    const Chain replayed = RunChain(true, true);
    EXPECT_EQ(replayed.stats.replayed, 0u);
    EXPECT_EQ(replayed.stats.recorded, 6u); // each plan built anew, recorded anew
    EXPECT_EQ(replayed.durations, simulated.durations);
}

// The runner vouches for a call only if every GPU of it has one stream of calls inside
// its server: the tensor-parallel all-reduces are replayed alone, and simulated every time
// once GPUs 0 and 1 also exchange messages on a second stream; the run ends at the same
// time step with replay on and off either way.
TEST_F(NsTest, CallReplayTheRunnerVouchesOnlyForLoneCallers)
{
    const auto alone = RunFourGpus(false, true);
    EXPECT_EQ(alone.second, 3u); // 4 layers: one recorded, three replayed
    EXPECT_EQ(alone.first, RunFourGpus(false, false).first);
    const auto shared = RunFourGpus(true, true);
    EXPECT_EQ(shared.second, 0u);
    EXPECT_EQ(shared.first, RunFourGpus(true, false).first);
    // A failure that may restart: nothing is vouched for.
    EXPECT_EQ(RunFourGpus(false, true, true).second, 0u);
}

// What voids a recording or keeps a call from replay, besides another transfer: a
// zero-byte NVLS operation posted meanwhile (every post counts), a new carrier set while
// it runs (the plan may be gone), and a replayed call still holding the switch when the
// next call starts (that one is simulated, and its posts are overlaps).
TEST_F(NsTest, CallReplayEveryPostAndEveryPlanChangeCounts)
{
    TwoServers c(true, false);
    std::vector<Time> d(5);
    const auto RING = CollectiveAlgorithm::RING;
    // Server 0: a zero-byte NVLS reduction posted during the first (recording) call.
    c.Call(Seconds(0), CollectiveType::ALL_REDUCE, SERVER0, 16 * MiB, RING, &d[0]);
    Simulator::Schedule(MicroSeconds(5), [&c]() {
        c.fabrics[0]->SwitchReduce(SERVER0, 0, 0, 0, NvSwitchFabric::DoneCallback([]() {}));
    });
    // Server 1: the engine gets its carrier again while its first call runs.
    c.Call(Seconds(0), CollectiveType::ALL_REDUCE, SERVER1, 16 * MiB, RING, &d[1]);
    Simulator::Schedule(MicroSeconds(5), [&c]() { c.engine->SetTransport(c.router); });
    Simulator::Run();
    CollectiveEngine::ReplayStats stats = c.engine->GetReplayStats();
    EXPECT_EQ(stats.recorded, 0u);
    EXPECT_EQ(stats.voided, 2u);

    // Recorded now; replayed at 1 ms; a call of another size 1 us into the replay is
    // simulated (the switch is held), its transfers overlaps.
    c.Call(MilliSeconds(0), CollectiveType::ALL_REDUCE, SERVER0, 16 * MiB, RING, &d[2]);
    c.Call(MilliSeconds(1), CollectiveType::ALL_REDUCE, SERVER0, 16 * MiB, RING, &d[3]);
    c.Call(MilliSeconds(1) + MicroSeconds(1),
           CollectiveType::ALL_REDUCE,
           SERVER0,
           8 * MiB,
           RING,
           &d[4]);
    Simulator::Run();
    stats = c.engine->GetReplayStats();
    EXPECT_EQ(stats.recorded, 1u);
    EXPECT_EQ(stats.replayed, 1u);
    EXPECT_EQ(d[3], d[2]);
    EXPECT_GT(c.fabrics[0]->GetReplayOverlaps(), 0u);
    Simulator::Destroy();
}
