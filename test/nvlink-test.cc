// SPDX-License-Identifier: GPL-2.0-only
// NVLink / NVSwitch fabric at chunk granularity: calibration against the published
// 8 x H100 nccl-tests figures of REFERENCE.md, credits, presets.
#include "ns3/collective-algorithms.h"
#include "ns3/collective-engine.h"
#include "ns3/double.h"
#include "ns3/nvlink-fabric.h"
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

double
Bps(const DataRate& r)
{
    return static_cast<double>(r.GetBitRate()) / 8.0;
}

CollectiveResult
RunPlan(Ptr<NvSwitchFabric> f, const CommPlan& plan)
{
    auto engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(f);
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
    return RunPlan(f, NvlsAllReduce(f->GetNRanks(), bytes));
}
} // namespace

// (a) Ring all-reduce through the engine. Calibration: ProtocolEfficiency 0.82 (REFERENCE:
// 450 GB/s line rate, ~20% protocol overhead -> ~370 GB/s). Every rank sends 2(n-1)/n S
// on its uplink, so busbw tends to 450 x 0.82 = 369 GB/s.
TEST(NvSwitchFabric, H100RingAllReduceBusBw)
{
    const uint32_t n = 8;
    auto f = MakeFabric("H100", n);
    auto engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(f);
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

// A multicast group of some GPUs only (a tensor-parallel slice): the others' links idle.
TEST(NvSwitchFabric, NvlsOnPartOfTheSwitch)
{
    auto f = MakeFabric("H100", 8);
    auto engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(f);
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
            f->Send(src, 0, S, 0, CollectiveTransport::DoneCallback([&]() {
                        ++done;
                        last = Simulator::Now();
                    }));
        }
        Simulator::Run();
        Simulator::Destroy();
        EXPECT_EQ(done, 2);
        EXPECT_EQ(f->GetBytesDelivered(), 2 * S);
        EXPECT_LE(f->GetMaxEgressOccupancy(), credits);
        const double chunk = 64 * 1024;
        const double ser = chunk / Bps(f->GetPayloadRate());
        const double downlinkBound = 2.0 * S / Bps(f->GetPayloadRate());
        const double t = last.GetSeconds();
        std::cout << "incast credits=" << credits << ": " << t * 1e6 << " us, downlink bound "
                  << downlinkBound * 1e6 << " us" << std::endl;
        EXPECT_GE(t, downlinkBound);
        if (credits == 1)
        {
            // One chunk in the system toward the receiver at a time: each credit cycle is
            // uplink + hop + downlink + credit hop back.
            const double cycle = 2 * ser + 2 * 500e-9;
            EXPECT_NEAR(t, 2.0 * S / chunk * cycle, 2.0 * S / chunk * cycle * 0.01);
        }
        else
        {
            // Enough credits to cover the round trip: the receiver's downlink binds.
            EXPECT_NEAR(t, downlinkBound, downlinkBound * 0.01);
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
        f->Send(0, 1, S, 0, CollectiveTransport::DoneCallback([&]() { end = Simulator::Now(); }));
        Simulator::Run();
        Simulator::Destroy();
        const double measured = S / end.GetSeconds() / GBps;
        std::cout << name << ": port " << gbps << " GB/s, point-to-point " << measured << " GB/s"
                  << std::endl;
        EXPECT_NEAR(measured, gbps * 0.82, gbps * 0.82 * 0.01) << name;
    }
    // The credit window bounds a flow at credits x chunk / (2 chunk times + 2 hops):
    // B200 with H100's 8 credits would get only ~445 GB/s, hence 16 in its preset.
    {
        auto b = MakeFabric("B200", 2);
        b->SetAttribute("CreditChunks", UintegerValue(8));
        Time end;
        const uint64_t S = 256 * MiB;
        b->Send(0, 1, S, 0, CollectiveTransport::DoneCallback([&]() { end = Simulator::Now(); }));
        Simulator::Run();
        Simulator::Destroy();
        const double chunk = 64 * 1024;
        const double window = 8 * chunk / (2 * chunk / Bps(b->GetPayloadRate()) + 1e-6);
        EXPECT_NEAR(S / end.GetSeconds(), window, window * 0.01);
    }
}

// Ordering on one (src, dst, channel): a small transfer queued behind a big one finishes after it.
TEST(NvSwitchFabric, FifoPerFlowAndZeroBytes)
{
    auto f = MakeFabric("H100", 2);
    std::vector<int> order;
    f->Send(0, 1, 8 * MiB, 0, CollectiveTransport::DoneCallback([&]() { order.push_back(1); }));
    f->Send(0, 1, 1024, 0, CollectiveTransport::DoneCallback([&]() { order.push_back(2); }));
    f->Send(0, 1, 0, 0, CollectiveTransport::DoneCallback([&]() { order.push_back(3); }));
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
    f->Send(0, 1, S, 0, CollectiveTransport::DoneCallback([&]() { toFast = Simulator::Now(); }));
    f->Send(2, 3, S, 0, CollectiveTransport::DoneCallback([&]() { toSlow = Simulator::Now(); }));
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_NEAR(toSlow.GetSeconds() / toFast.GetSeconds(), 2.0, 0.02);
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
    auto rate = [&](Time senderLatency, Time receiverLatency) {
        auto g = MakeFabric("H100", 2);
        g->GetPort(0)->SetAttribute("Latency", TimeValue(senderLatency));
        g->GetPort(1)->SetAttribute("Latency", TimeValue(receiverLatency));
        Time end;
        g->Send(0, 1, S, 0, CollectiveTransport::DoneCallback([&]() { end = Simulator::Now(); }));
        Simulator::Run();
        Simulator::Destroy();
        return S / end.GetSeconds() / GBps;
    };
    const double both = rate(NanoSeconds(500), NanoSeconds(500));
    const double farReceiver = rate(NanoSeconds(500), MicroSeconds(5));
    const double farSender = rate(MicroSeconds(5), NanoSeconds(500));
    std::cout << "p2p GB/s: both 0.5 us " << both << ", receiver 5 us " << farReceiver
              << ", sender 5 us " << farSender << std::endl;
    EXPECT_NEAR(farReceiver, both, both * 0.02);
    EXPECT_LT(farSender, both * 0.5); // the credit loop runs over the sender's long link
}
