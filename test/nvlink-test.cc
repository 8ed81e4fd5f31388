// SPDX-License-Identifier: GPL-2.0-only
// NVLink / NVSwitch fabric at chunk granularity: calibration against the published
// 8 x H100 nccl-tests figures (see the References section of doc/ai-fabric.rst),
// credits, presets.
#include "ns3/collective-algorithms.h"
#include "ns3/collective-engine.h"
#include "ns3/double.h"
#include "ns3/nv-switch-fabric.h"
#include "ns3/nvlink-transport.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{
constexpr uint64_t MiB = 1ull << 20;
constexpr uint64_t GiB = 1ull << 30;
constexpr double GBps = 1e9; // nccl-tests GB/s are 10^9 bytes per second

Ptr<NvSwitchFabric>
MakeFabric(const std::string& preset, uint32_t n)
{
    auto f = CreateObject<NvSwitchFabric>();
    f->ApplyPreset(preset);
    f->SetAttribute("NGpus", UintegerValue(n));
    return f;
}

/// The collective carrier over fabric f, as GpuClusterHelper builds it.
Ptr<NvLinkTransport>
Carrier(Ptr<NvSwitchFabric> f)
{
    auto carrier = CreateObject<NvLinkTransport>();
    carrier->SetFabric(f);
    return carrier;
}

double
Bps(const DataRate& r)
{
    return static_cast<double>(r.GetBitRate()) / 8.0;
}

/// Time one point-to-point chunk of bytes takes on a port of line rate rate, computed as
/// NvLinkPort does (payload at rate x ProtocolEfficiency 0.82, rounded to the simulator's
/// nanosecond once per chunk), so closed forms built from it are exact.
Time
ChunkTime(const DataRate& rate, uint64_t bytes)
{
    return Seconds(static_cast<double>(bytes) * 8.0 /
                   (static_cast<double>(rate.GetBitRate()) * 0.82));
}

/// What closed forms on the chunk path are allowed: events happen at whole nanoseconds and
/// the closed forms add the same rounded chunk times as the fabric, so they agree to the
/// nanosecond; 2 ns covers a rounding at the start and at the end.
const Time EXACT = NanoSeconds(2);

CollectiveResult
RunPlan(Ptr<NvSwitchFabric> f, const CommPlan& plan)
{
    auto engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(Carrier(f));
    CollectiveResult out;
    bool done = false;
    engine->Run(plan, CollectiveEngine::DoneCallback([&](const CollectiveResult& r) {
                    out = r;
                    done = true;
                }));
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_TRUE(done);
    EXPECT_EQ(f->GetTransfersInFlight(), 0u);
    return out;
}

CollectiveResult
RunNvls(Ptr<NvSwitchFabric> f, uint64_t bytes)
{
    return RunPlan(f, NvlsAllReduce(f->GetNGpus(), bytes));
}
} // namespace

// (a) Ring all-reduce through the engine. Calibration: ProtocolEfficiency 0.82 (NCCL maintainers:
// 450 GB/s line rate, ~20% protocol overhead -> ~370 GB/s). Every rank sends 2(n-1)/n S
// on its uplink, so busbw tends to 450 x 0.82 = 369 GB/s.
TEST(NvSwitchFabric, H100RingAllReduceBusBw)
{
    const uint32_t n = 8;
    auto f = MakeFabric("H100", n);
    auto engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(Carrier(f));
    CollectiveResult res;
    engine->Run(RingAllReduce(n, GiB, 8, 2 * MiB),
                CollectiveEngine::DoneCallback([&](const CollectiveResult& r) { res = r; }));
    Simulator::Run();
    Simulator::Destroy();
    const double busbw = res.busBw / GBps;
    const double closed = Bps(f->GetPayloadRate()) / GBps;
    std::cout << "ring 8xH100 1 GiB: " << res.GetDuration().GetMicroSeconds() << " us, busbw "
              << busbw << " GB/s (published 365-370, link bound " << closed << ")" << std::endl;
    EXPECT_NEAR(busbw, 367.5, 36.75);
    EXPECT_LE(busbw, closed * 1.0001); // never faster than the uplinks allow
    EXPECT_GE(busbw, closed * 0.95);   // and close to them (pipeline fill only)
    EXPECT_EQ(f->GetTransfersInFlight(), 0u);
}

// Closed form of the NVLS data path: each direction of each port carries S (1 + 1/n) at
// rate x ProtocolEfficiency x NvlsEfficiency, so busbw = R_nvls 2(n-1)/(n+1).
static double
NvlsClosedBusBw(Ptr<NvSwitchFabric> f, uint32_t n)
{
    return Bps(f->GetNvlsRate()) * 2.0 * (n - 1) / (n + 1);
}

// (b) NVLS at 8 GPUs against the published 476-480 GB/s (algbw ~275).
TEST(NvSwitchFabric, H100NvlsAllReduceBusBw)
{
    auto f = MakeFabric("H100", 8);
    const double closed = NvlsClosedBusBw(f, 8) / GBps;
    const CollectiveResult r = RunNvls(f, GiB);
    std::cout << "nvls 8xH100 1 GiB: " << r.GetDuration().GetMicroSeconds() << " us, algbw "
              << r.algBw / GBps << " busbw " << r.busBw / GBps
              << " GB/s (published 476-480, algbw ~275; closed form " << closed << ")" << std::endl;
    EXPECT_NEAR(r.busBw / GBps, 478, 47.8);
    EXPECT_NEAR(r.algBw / GBps, 275, 27.5);
    EXPECT_NEAR(r.busBw / GBps, closed, closed * 0.03);
}

// (c) The published trend 420/440/460/480 GB/s at 5/6/7/8 GPUs.
TEST(NvSwitchFabric, H100NvlsTrend)
{
    const double published[] = {420, 440, 460, 480};
    double previous = 0;
    for (uint32_t n = 5; n <= 8; ++n)
    {
        auto f = MakeFabric("H100", n);
        const double closed = NvlsClosedBusBw(f, n) / GBps;
        const double busbw = RunNvls(f, GiB).busBw / GBps;
        std::cout << "nvls n=" << n << ": busbw " << busbw << " GB/s (published "
                  << published[n - 5] << ", closed form " << closed << ")" << std::endl;
        EXPECT_NEAR(busbw, published[n - 5], published[n - 5] * 0.10);
        EXPECT_NEAR(busbw, closed, closed * 0.03);
        EXPECT_GT(busbw, previous);
        previous = busbw;
    }
}

// NVLS reduce-scatter and all-gather are the two halves of the all-reduce. Reduce-scatter:
// each uplink carries S (a contribution to every shard), each downlink S/n; all-gather:
// each uplink S/n (its shard, once), each downlink S (every shard). Either way the busy
// direction carries S at the NVLS rate: time S / R_nvls, busbw (n-1)/n R_nvls.
TEST(NvSwitchFabric, NvlsReduceScatterAndAllGather)
{
    const uint32_t n = 8;
    for (bool gather : {false, true})
    {
        auto f = MakeFabric("H100", n);
        const double rate = Bps(f->GetNvlsRate());
        const CollectiveResult r =
            RunPlan(f, gather ? NvlsAllGather(n, GiB) : NvlsReduceScatter(n, GiB));
        const double closed = GiB / rate;
        std::cout << "nvls " << (gather ? "all-gather" : "reduce-scatter")
                  << " 8xH100 1 GiB: " << r.GetDuration().GetMicroSeconds() << " us (closed form "
                  << closed * 1e6 << "), busbw " << r.busBw / GBps << " GB/s" << std::endl;
        EXPECT_NEAR(r.GetDuration().GetSeconds(), closed, closed * 0.03);
        EXPECT_LE(r.GetDuration().GetSeconds() * (1 + 1e-9), closed * 1.03);
        EXPECT_GE(r.GetDuration().GetSeconds(), closed); // never faster than the links
    }
}

// A multicast's copies that reach their GPUs at the same time, each with its credit, are
// delivered by one event, in member order, as the separate events ran (events due at the
// same time run in the order they were scheduled). A multicast of 16 chunks from GPU 0 to
// 8 GPUs on equal links: per chunk an uplink end, an arrival at the switch and one
// delivery, 48 events (160 with an event per copy); every chunk reaches the 8 GPUs at one
// time, in member order, after the chunk before.
TEST(NvSwitchFabric, MulticastCopiesArrivingTogetherAreOneEvent)
{
    const uint32_t n = 8;
    const uint32_t chunks = 16;
    auto f = MakeFabric("H100", n);
    std::vector<std::pair<Time, uint32_t>> delivered;
    f->TraceConnectWithoutContext("ChunkDelivered",
                                  MakeCallback(+[](std::vector<std::pair<Time, uint32_t>>* out,
                                                   uint32_t,
                                                   uint32_t dst,
                                                   uint64_t) {
                                      out->emplace_back(Simulator::Now(), dst);
                                  }).Bind(&delivered));
    std::vector<uint32_t> members{3, 0, 1, 2, 4, 5, 6, 7}; // any order: it is kept
    bool done = false;
    f->SwitchMulticast(0,
                       members,
                       chunks * f->GetChunkBytes(),
                       0,
                       NvSwitchFabric::DoneCallback([&]() { done = true; }));
    const uint64_t eventsBefore = Simulator::GetEventCount();
    Simulator::Run();
    const uint64_t events = Simulator::GetEventCount() - eventsBefore;
    Simulator::Destroy();
    EXPECT_TRUE(done);
    EXPECT_EQ(events, 3u * chunks);
    ASSERT_EQ(delivered.size(), std::size_t{n} * chunks);
    for (uint32_t c = 0; c < chunks; ++c)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            EXPECT_EQ(delivered[c * n + i].first, delivered[c * n].first) << "chunk " << c;
            EXPECT_EQ(delivered[c * n + i].second, members[i]) << "chunk " << c;
        }
        if (c > 0)
        {
            EXPECT_GT(delivered[c * n].first, delivered[(c - 1) * n].first);
        }
    }
}

// The same multicast while GPU 1 sends 8 chunks to GPU 5: GPU 5's downlink also carries
// them, so its copies come later than the others' (an event of their own); the copies to
// the 7 other downlinks arrive together, in member order.
TEST(NvSwitchFabric, MulticastCopiesArriveByTheirDownlinks)
{
    const uint32_t n = 8;
    const uint32_t chunks = 16;
    auto f = MakeFabric("H100", n);

    struct Delivery
    {
        Time at;
        uint32_t src;
        uint32_t dst;
    };

    std::vector<Delivery> delivered;
    f->TraceConnectWithoutContext(
        "ChunkDelivered",
        MakeCallback(+[](std::vector<Delivery>* out, uint32_t src, uint32_t dst, uint64_t) {
            out->push_back({Simulator::Now(), src, dst});
        }).Bind(&delivered));
    const std::vector<uint32_t> members{0, 1, 2, 3, 4, 5, 6, 7};
    f->SwitchMulticast(0, members, chunks * f->GetChunkBytes(), 0, NvSwitchFabric::DoneCallback());
    f->Send(1, 5, 8 * f->GetChunkBytes(), 0, NvSwitchFabric::DoneCallback());
    Simulator::Run();
    Simulator::Destroy();
    // Per multicast chunk: when each member got it, in the order the trace saw them.
    std::vector<std::vector<std::pair<Time, uint32_t>>> copies(chunks);
    std::vector<uint32_t> perMember(n, 0);
    for (const Delivery& d : delivered)
    {
        if (d.src == 0)
        {
            copies[perMember[d.dst]++].emplace_back(d.at, d.dst);
        }
    }
    uint32_t later = 0;
    for (uint32_t c = 0; c < chunks; ++c)
    {
        ASSERT_EQ(copies[c].size(), std::size_t{n}) << "chunk " << c;
        Time others;
        Time five;
        std::vector<uint32_t> order;
        for (const auto& [at, dst] : copies[c])
        {
            if (dst == 5)
            {
                five = at;
                continue;
            }
            EXPECT_TRUE(others.IsZero() || at == others) << "chunk " << c << " GPU " << dst;
            others = at;
            order.push_back(dst);
        }
        EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 2, 3, 4, 6, 7})) << "chunk " << c;
        EXPECT_GE(five, others) << "chunk " << c;
        later += five > others ? 1 : 0;
    }
    // GPU 1's chunks on GPU 5's downlink delayed its copies (measured: all 16, by 130 to
    // 681 ns): grouping them with the others' would not.
    EXPECT_GT(later, 0u);
}

// A multicast group of some GPUs only (a tensor-parallel slice): the others' links idle.
TEST(NvSwitchFabric, NvlsOnPartOfTheSwitch)
{
    auto f = MakeFabric("H100", 8);
    auto engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(Carrier(f));
    std::vector<uint64_t> delivered(8, 0);
    f->TraceConnectWithoutContext(
        "ChunkDelivered",
        MakeBoundCallback(
            +[](std::vector<uint64_t>* d, uint32_t, uint32_t dst, uint64_t bytes) {
                (*d)[dst] += bytes;
            },
            &delivered));
    CollectiveResult res;
    engine->Run(NvlsAllReduce(4, 64 * MiB),
                std::vector<uint32_t>{1, 3, 5, 7},
                CollectiveEngine::DoneCallback([&](const CollectiveResult& r) { res = r; }));
    Simulator::Run();
    Simulator::Destroy();
    for (uint32_t g = 0; g < 8; ++g)
    {
        // Odd GPUs receive their shard's sum and every shard: S (1 + 1/4).
        EXPECT_EQ(delivered[g], g % 2 ? 64 * MiB + 16 * MiB : 0u) << "GPU " << g;
    }
    const double closed = NvlsClosedBusBw(f, 4) / GBps;
    EXPECT_NEAR(res.busBw / GBps, closed, closed * 0.05);
}

// The reduction engine's throughput limit binds when set below the links.
TEST(NvSwitchFabric, NvlsThroughputLimit)
{
    auto f = MakeFabric("H100", 8);
    f->SetAttribute("NvlsThroughput", DataRateValue(DataRate("800Gbps"))); // 100 GB/s
    const CollectiveResult r = RunNvls(f, 256 * MiB);
    EXPECT_NEAR(r.algBw / GBps, 100, 2);
}

// (d) Credits: two senders into one receiver, nothing lost, buffer never overrun.
TEST(NvSwitchFabric, CreditsIncast)
{
    const uint64_t S = 64 * MiB;
    for (uint32_t credits : {1u, 8u})
    {
        auto f = MakeFabric("H100", 4);
        f->SetAttribute("CreditChunks", UintegerValue(credits));
        int done = 0;
        Time last;
        for (uint32_t src : {1u, 2u})
        {
            f->Send(src, 0, S, 0, NvSwitchFabric::DoneCallback([&]() {
                        ++done;
                        last = Simulator::Now();
                    }));
        }
        Simulator::Run();
        Simulator::Destroy();
        EXPECT_EQ(done, 2);
        EXPECT_EQ(f->GetBytesDelivered(), 2 * S);
        EXPECT_LE(f->GetMaxEgressOccupancy(), credits);
        const uint64_t chunk = 64 * 1024;
        const int64_t chunks = 2 * S / chunk;
        const Time ser = ChunkTime(f->GetPortRate(), chunk);
        const Time hop = NanoSeconds(500);
        const double downlinkBound = 2.0 * S / Bps(f->GetPayloadRate());
        std::cout << "incast credits=" << credits << ": " << last.As(Time::US)
                  << ", downlink bound " << downlinkBound * 1e6 << " us" << std::endl;
        EXPECT_GE(last.GetSeconds(), downlinkBound);
        if (credits == 1)
        {
            // One chunk in the system toward the receiver at a time: each credit cycle is
            // uplink + hop + downlink + credit hop back, and the last chunk ends a cycle.
            const Time cycle = 2 * ser + 2 * hop;
            EXPECT_NEAR(last.GetNanoSeconds(),
                        (chunks * cycle).GetNanoSeconds(),
                        EXACT.GetNanoSeconds());
        }
        else
        {
            // Enough credits to cover the round trip: the receiver's downlink binds; it
            // starts once the first chunk has crossed the uplink and a hop, and the last
            // chunk reaches the GPU a hop after leaving it.
            const Time expected = ser + hop + chunks * ser + hop;
            EXPECT_NEAR(last.GetNanoSeconds(), expected.GetNanoSeconds(), EXACT.GetNanoSeconds());
        }
    }
}

// (e) Presets: per-direction line rate, and what one large transfer actually gets.
TEST(NvSwitchFabric, Presets)
{
    const std::pair<std::string, double> presets[] = {{"A100", 300},
                                                      {"H100", 450},
                                                      {"H200", 450},
                                                      {"B200", 900}};
    for (const auto& [name, gbps] : presets)
    {
        auto f = MakeFabric(name, 2);
        EXPECT_NEAR(Bps(f->GetPortRate()) / GBps, gbps, 1e-6) << name;
        const uint64_t S = 256 * MiB;
        Time end;
        f->Send(0, 1, S, 0, NvSwitchFabric::DoneCallback([&]() { end = Simulator::Now(); }));
        Simulator::Run();
        Simulator::Destroy();
        const double measured = S / end.GetSeconds() / GBps;
        std::cout << name << ": port " << gbps << " GB/s, point-to-point " << measured << " GB/s"
                  << std::endl;
        EXPECT_NEAR(measured, gbps * 0.82, gbps * 0.82 * 0.01) << name; // the calibration
        // Exactly: the uplink streams the chunks back to back (the credits cover the
        // loop), the downlink follows one chunk and a hop behind, then a hop to the GPU.
        const uint64_t chunk = 64 * 1024;
        const Time ser = ChunkTime(f->GetPortRate(), chunk);
        const Time expected = (static_cast<int64_t>(S / chunk) + 1) * ser + 2 * NanoSeconds(500);
        EXPECT_NEAR(end.GetNanoSeconds(), expected.GetNanoSeconds(), EXACT.GetNanoSeconds())
            << name;
    }
    // The credit window bounds a flow at credits x chunk / (2 chunk times + 2 hops):
    // B200 with H100's 8 credits would get only ~445 GB/s, hence 16 in its preset.
    {
        auto b = MakeFabric("B200", 2);
        b->SetAttribute("CreditChunks", UintegerValue(8));
        Time end;
        const uint64_t S = 256 * MiB;
        b->Send(0, 1, S, 0, NvSwitchFabric::DoneCallback([&]() { end = Simulator::Now(); }));
        Simulator::Run();
        Simulator::Destroy();
        const uint64_t chunk = 64 * 1024;
        const double window = 8.0 * chunk / (2.0 * chunk / Bps(b->GetPayloadRate()) + 1e-6);
        EXPECT_NEAR(S / end.GetSeconds(), window, window * 0.01); // the window bound
        // Exactly: chunk k starts when the credit of chunk k - 8 is back, so chunks leave
        // in bursts of 8, one burst per credit loop (2 chunk times + 2 hops); the last
        // burst's eighth chunk ends its own loop.
        const Time ser = ChunkTime(b->GetPortRate(), chunk);
        const Time loop = 2 * ser + 2 * NanoSeconds(500);
        const Time expected = static_cast<int64_t>(S / chunk / 8) * loop + 7 * ser;
        EXPECT_NEAR(end.GetNanoSeconds(), expected.GetNanoSeconds(), EXACT.GetNanoSeconds());
    }
}

// Ordering on one (src, dst, channel): a small transfer queued behind a big one finishes after it.
TEST(NvSwitchFabric, FifoPerFlowAndZeroBytes)
{
    auto f = MakeFabric("H100", 2);
    std::vector<int> order;
    f->Send(0, 1, 8 * MiB, 0, NvSwitchFabric::DoneCallback([&]() { order.push_back(1); }));
    f->Send(0, 1, 1024, 0, NvSwitchFabric::DoneCallback([&]() { order.push_back(2); }));
    f->Send(0, 1, 0, 0, NvSwitchFabric::DoneCallback([&]() { order.push_back(3); }));
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

// The fabric is made of one NvLinkPort per GPU and an NvSwitch, each an object with its
// own attributes: the fabric configures them, and one can be changed alone.
TEST(NvSwitchFabric, PortsAndSwitchAreObjects)
{
    auto f = MakeFabric("H100", 4);
    for (uint32_t g = 0; g < 4; ++g)
    {
        EXPECT_NEAR(Bps(f->GetPort(g)->GetRate()) / GBps, 450, 1e-6);
        EXPECT_EQ(f->GetPort(g)->GetLatency(), NanoSeconds(500));
    }
    UintegerValue credits;
    f->GetSwitch()->GetAttribute("CreditChunks", credits);
    EXPECT_EQ(credits.Get(), 8u);
    // Fabric attributes set later still reach the parts.
    f->SetAttribute("Latency", TimeValue(NanoSeconds(700)));
    EXPECT_EQ(f->GetPort(2)->GetLatency(), NanoSeconds(700));
    f->SetAttribute("Latency", TimeValue(NanoSeconds(500)));

    // GPU 3's links at half rate (9 links): a transfer into it takes twice as long as one
    // into GPU 1, whose downlink runs at full rate, and the switch buffer never overflows.
    f->GetPort(3)->SetAttribute("LinkCount", UintegerValue(9));
    const uint64_t S = 256 * MiB;
    Time toFast;
    Time toSlow;
    f->Send(0, 1, S, 0, NvSwitchFabric::DoneCallback([&]() { toFast = Simulator::Now(); }));
    f->Send(2, 3, S, 0, NvSwitchFabric::DoneCallback([&]() { toSlow = Simulator::Now(); }));
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_NEAR(toSlow.GetSeconds() / toFast.GetSeconds(), 2.0, 0.02);
    // Exactly: the fast pair streams at the uplink's pace; the slow pair at GPU 3's
    // downlink, busy from the first chunk's arrival (the 8 credits cover its loop).
    const uint64_t chunk = 64 * 1024;
    const int64_t chunks = S / chunk;
    const Time ser = ChunkTime(f->GetPortRate(), chunk);
    const Time serSlow = ChunkTime(f->GetPort(3)->GetRate(), chunk);
    const Time hop = NanoSeconds(500);
    EXPECT_NEAR(toFast.GetNanoSeconds(),
                ((chunks + 1) * ser + 2 * hop).GetNanoSeconds(),
                EXACT.GetNanoSeconds());
    EXPECT_NEAR(toSlow.GetNanoSeconds(),
                (ser + chunks * serSlow + 2 * hop).GetNanoSeconds(),
                EXACT.GetNanoSeconds());
    EXPECT_EQ(f->GetPort(3)->GetBytesReceived(), S);
    EXPECT_EQ(f->GetPort(0)->GetBytesSent(), S);
    EXPECT_LE(f->GetSwitch()->GetMaxEgressOccupancy(), 8u);
    EXPECT_EQ(f->GetTransfersInFlight(), 0u);
}

// Fabric-level settings change only their own attribute on the parts; a credit returns
// over the sender's link, delivery over the receiver's.
TEST(NvSwitchFabric, PerPartSettingsAndLatencies)
{
    auto f = MakeFabric("H100", 4);
    f->GetPort(3)->SetAttribute("LinkCount", UintegerValue(9));
    f->SetAttribute("Latency", TimeValue(NanoSeconds(600)));
    EXPECT_NEAR(Bps(f->GetPort(3)->GetRate()) / GBps, 225, 1e-6); // kept
    EXPECT_EQ(f->GetPort(3)->GetLatency(), NanoSeconds(600));

    // A receiver behind a long link: delivery waits, but the sender's credits come back
    // over its own short link, so the throughput stays near the short-link figure.
    const uint64_t S = 256 * MiB;
    Time end;
    auto rate = [&](Time senderLatency, Time receiverLatency) {
        auto g = MakeFabric("H100", 2);
        g->GetPort(0)->SetAttribute("Latency", TimeValue(senderLatency));
        g->GetPort(1)->SetAttribute("Latency", TimeValue(receiverLatency));
        g->Send(0, 1, S, 0, NvSwitchFabric::DoneCallback([&]() { end = Simulator::Now(); }));
        Simulator::Run();
        Simulator::Destroy();
        return S / end.GetSeconds() / GBps;
    };
    // The uplink streams back to back either way (credits cross the short link), so the
    // long receiver link adds its latency once: one chunk and the two hops after the
    // stream.
    const uint64_t chunk = 64 * 1024;
    const Time ser = ChunkTime(f->GetPortRate(), chunk);
    const Time stream = (static_cast<int64_t>(S / chunk) + 1) * ser;
    const double both = rate(NanoSeconds(500), NanoSeconds(500));
    EXPECT_NEAR(end.GetNanoSeconds(),
                (stream + NanoSeconds(1000)).GetNanoSeconds(),
                EXACT.GetNanoSeconds());
    const double farReceiver = rate(NanoSeconds(500), MicroSeconds(5));
    EXPECT_NEAR(end.GetNanoSeconds(),
                (stream + NanoSeconds(5500)).GetNanoSeconds(),
                EXACT.GetNanoSeconds());
    const double farSender = rate(MicroSeconds(5), NanoSeconds(500));
    std::cout << "p2p GB/s: both 0.5 us " << both << ", receiver 5 us " << farReceiver
              << ", sender 5 us " << farSender << std::endl;
    EXPECT_NEAR(farReceiver, both, both * 0.02);
    EXPECT_LT(farSender, both * 0.5); // the credit loop runs over the sender's long link
}
