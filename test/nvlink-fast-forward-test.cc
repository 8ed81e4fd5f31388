// SPDX-License-Identifier: GPL-2.0-only
// NvSwitchFabric's fast-forward (FastForward): periodic point-to-point chunk streams let
// through in whole rounds, against the chunk-by-chunk reference.
#include "ns3/boolean.h"
#include "ns3/nv-switch-fabric.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{
constexpr uint64_t MiB = 1ull << 20;

/// A transfer: who sends what to whom, when.
struct Transfer
{
    uint32_t src;
    uint32_t dst;
    uint64_t bytes;
    uint32_t channel;
    Time start;
};

/// What a run leaves.
struct Outcome
{
    std::vector<Time> done;         //!< per transfer: when its last chunk arrived
    std::vector<uint64_t> sent;     //!< per GPU: payload bytes up
    std::vector<uint64_t> received; //!< per GPU: payload bytes down
    uint64_t chunks{0};             //!< GetChunksDelivered
    uint64_t bytes{0};              //!< GetBytesDelivered
    uint64_t skips{0};              //!< GetSkips
    uint64_t skippedChunks{0};      //!< GetSkippedChunks
    uint64_t midSkipChunks{0};      //!< GetChunksDelivered at 60 us
};

/**
 * Run transfers on an 8 x H100 NVSwitch (plus an NVLS all-reduce of nvlsBytes at 0 if not
 * 0), with the fast-forward on or off.
 */
Outcome
RunFabric(const std::vector<Transfer>& transfers,
          bool fastForward,
          uint32_t credits = 8,
          uint64_t nvlsBytes = 0)
{
    auto f = CreateObject<NvSwitchFabric>();
    f->ApplyPreset("H100");
    f->SetAttribute("NGpus", UintegerValue(8));
    f->SetAttribute("CreditChunks", UintegerValue(credits));
    f->SetAttribute("FastForward", BooleanValue(fastForward));
    Outcome out;
    out.done.resize(transfers.size());
    for (std::size_t i = 0; i < transfers.size(); ++i)
    {
        const Transfer& t = transfers[i];
        Time* done = &out.done[i];
        Simulator::Schedule(t.start, [f, t, done]() {
            f->Send(t.src, t.dst, t.bytes, t.channel, NvSwitchFabric::DoneCallback([done]() {
                        *done = Simulator::Now();
                    }));
        });
    }
    Simulator::Schedule(MicroSeconds(60),
                        [f, &out]() { out.midSkipChunks = f->GetChunksDelivered(); });
    if (nvlsBytes > 0)
    {
        const std::vector<uint32_t> all{0, 1, 2, 3, 4, 5, 6, 7};
        for (uint32_t g : all)
        {
            f->SwitchReduce(all, g, nvlsBytes / 8, 0, NvSwitchFabric::DoneCallback([]() {}));
        }
    }
    Simulator::Run();
    for (uint32_t g = 0; g < 8; ++g)
    {
        out.sent.push_back(f->GetPort(g)->GetBytesSent());
        out.received.push_back(f->GetPort(g)->GetBytesReceived());
    }
    out.chunks = f->GetChunksDelivered();
    out.bytes = f->GetBytesDelivered();
    out.skips = f->GetSkips();
    out.skippedChunks = f->GetSkippedChunks();
    Simulator::Destroy();
    return out;
}

/// Every GPU to every other: the direct all-gather's pattern, bytes each.
std::vector<Transfer>
AllToAll(uint64_t bytes, Time start = Time(0))
{
    std::vector<Transfer> t;
    for (uint32_t s = 0; s < 8; ++s)
    {
        for (uint32_t k = 1; k < 8; ++k)
        {
            t.push_back({s, (s + k) % 8, bytes, 0, start});
        }
    }
    return t;
}

void
ExpectSameCounters(const Outcome& ff, const Outcome& ref)
{
    EXPECT_EQ(ff.sent, ref.sent);
    EXPECT_EQ(ff.received, ref.received);
    EXPECT_EQ(ff.chunks, ref.chunks);
    EXPECT_EQ(ff.bytes, ref.bytes);
    EXPECT_EQ(ref.skips, 0u);
    EXPECT_EQ(ref.skippedChunks, 0u);
}
} // namespace

// Every GPU sending 6 MiB to each of the seven others (the direct all-gather of 48 MiB):
// each uplink serves its seven flows in turn and every downlink takes one chunk a slot,
// a periodic state from the second round on. The skip lets through all but the first
// rounds and the last chunks of every transfer, and every transfer ends at the same time
// step (the simulator's nanosecond) as chunk by chunk, with the same ports' bytes and
// delivered chunks and bytes.
TEST(NvlinkFastForward, PeriodicStreamsEndAtTheSameTimeStep)
{
    const std::vector<Transfer> t = AllToAll(6 * MiB);
    const Outcome ref = RunFabric(t, false);
    const Outcome ff = RunFabric(t, true);
    EXPECT_EQ(ff.done, ref.done);
    ExpectSameCounters(ff, ref);
    EXPECT_EQ(ff.skips, 1u);
    // Through the skip the delivered chunks grow as they would have, a whole round of an
    // uplink as it has left the uplink, so at most a round of every uplink (8 x 7 chunks)
    // ahead of or behind the reference's deliveries: a run's progress, for the hang
    // detector, never stalls.
    EXPECT_NEAR(static_cast<double>(ff.midSkipChunks), static_cast<double>(ref.midSkipChunks), 56);
    // 56 transfers of 96 chunks: all but the two windows' 16 rounds and the last 5 of each
    // and the chunk under way when the skip starts (96 - 16 - 1 - 5 = 74, 77 %).
    EXPECT_EQ(ff.skippedChunks, 56u * 74);
    EXPECT_LT(ff.skippedChunks, ff.chunks);
    std::cout << "[ measured ] " << ff.skippedChunks << " of " << ff.chunks
              << " chunks skipped, the last transfer at " << ff.done.back().As(Time::US) << "\n";
}

// A ring's step with eight channels (GPU g to g + 1, eight 4 MiB flows each) and, after it
// on the same flows, a second step: one skip each, every end at the same time step.
TEST(NvlinkFastForward, RingStepsWithChannelsToo)
{
    std::vector<Transfer> t;
    for (uint32_t step = 0; step < 2; ++step)
    {
        for (uint32_t g = 0; g < 8; ++g)
        {
            for (uint32_t c = 0; c < 8; ++c)
            {
                t.push_back({g, (g + 1) % 8, 4 * MiB, c, MicroSeconds(300) * step});
            }
        }
    }
    const Outcome ref = RunFabric(t, false);
    const Outcome ff = RunFabric(t, true);
    EXPECT_EQ(ff.done, ref.done);
    ExpectSameCounters(ff, ref);
    EXPECT_EQ(ff.skips, 2u);
    // 128 flows of 64 chunks: all but 16 rounds, the chunk under way and the last 5 (42).
    EXPECT_EQ(ff.skippedChunks, 128u * 42);
}

// A transfer posted in the middle of a skip (GPU 0 to 1, 2 MiB, at 40 us) cuts it at each
// uplink's next chunk boundary: the chunks up to there count as sent, each uplink's round
// robin stands where it would, and the run goes on chunk by chunk. The new flow
// oversubscribes GPU 1's downlink, and credit stalls then spread the transfers' ends over
// 63 to 127 us; the chunks of the last round trip are not in flight after the cut (no
// credit held, no downlink busy), yet here every transfer still ends at the reference's
// time step (had the cut left the round robin elsewhere, the order of the chunks after it,
// and so the ends, would differ), and nothing is skipped again while stalls go on.
TEST(NvlinkFastForward, ATransferPostedMidSkipCutsIt)
{
    std::vector<Transfer> t = AllToAll(6 * MiB);
    t.push_back({0, 1, 2 * MiB, 5, MicroSeconds(40)});
    const Outcome ref = RunFabric(t, false);
    const Outcome ff = RunFabric(t, true);
    ExpectSameCounters(ff, ref);
    EXPECT_EQ(ff.skips, 1u);
    EXPECT_GT(ff.skippedChunks, 0u);
    EXPECT_LT(ff.skippedChunks, 56u * 74); // cut short: the uncut skip's count above
    EXPECT_EQ(ff.done, ref.done);
    const Time refFirst = *std::min_element(ref.done.begin(), ref.done.end());
    const Time refEnd = *std::max_element(ref.done.begin(), ref.done.end());
    std::cout << "[ measured ] transfers end from " << refFirst.As(Time::US) << " to "
              << refEnd.As(Time::US) << "\n";
    EXPECT_LT(refFirst, MicroSeconds(70)); // the new transfer, which the stalls slow least
    EXPECT_GT(refEnd, MicroSeconds(120));
}

// Not periodic, not skipped: two senders into one receiver with one credit (every chunk
// waits for the credit loop) and an NVLS all-reduce in flight beside the all-to-all. The
// runs are the reference's, chunk by chunk.
TEST(NvlinkFastForward, StallsAndNvlsKeepEveryChunk)
{
    const std::vector<Transfer> incast = {{1, 0, 16 * MiB, 0, Time(0)},
                                          {2, 0, 16 * MiB, 0, Time(0)}};
    const Outcome ref = RunFabric(incast, false, 1);
    const Outcome ff = RunFabric(incast, true, 1);
    EXPECT_EQ(ff.done, ref.done);
    ExpectSameCounters(ff, ref);
    EXPECT_EQ(ff.skips, 0u);

    const std::vector<Transfer> t = AllToAll(2 * MiB);
    const Outcome nvlsRef = RunFabric(t, false, 8, 256 * MiB);
    const Outcome nvlsFf = RunFabric(t, true, 8, 256 * MiB);
    EXPECT_EQ(nvlsFf.done, nvlsRef.done);
    ExpectSameCounters(nvlsFf, nvlsRef);
    EXPECT_EQ(nvlsFf.skips, 0u);
}
