// SPDX-License-Identifier: GPL-2.0-only
// In-network aggregation: the INA header, the switch engine and the workers (SwitchML-like
// slots and ATP/SHARP-like streaming), against closed forms of the time an all-reduce
// takes.
#include "ina-test-util.h"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <unistd.h>

using namespace ns3;
using namespace aifabric;

namespace
{
class Ina : public NsTest
{
};

/// Expect every reduction done, with exact counts and (if exact) no retransmission.
void
ExpectClean(const Reductions& r, uint32_t n, bool noRetransmissions = true)
{
    ASSERT_EQ(r.done.size(), n);
    for (const auto& x : r.done)
    {
        EXPECT_FALSE(x.failed);
        EXPECT_EQ(x.wrongCounts, 0u);
        if (noRetransmissions)
        {
            EXPECT_EQ(x.retransmissions, 0u);
        }
    }
}

} // namespace

TEST_F(Ina, HeaderRoundTripsEveryField)
{
    InaHeader h;
    h.type = InaHeader::RESULT;
    h.flags = InaHeader::RETRANSMISSION | InaHeader::ECN_ECHO;
    h.job = 0xBEEF;
    h.sequence = 0x12345678;
    h.slot = 0x7FFFFFFE;
    h.copy = true;
    h.sender = 63;
    h.count = 4096;
    h.bitmap = 0x8000000000000001ull;
    h.length = 1024;
    h.element = InaHeader::FLOAT16;
    Ptr<Packet> p = Create<Packet>(h.length);
    p->AddHeader(h);
    EXPECT_EQ(p->GetSize(), ina::HEADER_BYTES + 1024u);
    EXPECT_EQ(h.GetSerializedSize(), 28u);
    // Version 1 in the high nibble, type 2 in the low one; job big-endian.
    uint8_t bytes[4];
    p->CopyData(bytes, 4);
    EXPECT_EQ(bytes[0], 0x12);
    EXPECT_EQ(bytes[1], 0x03);
    EXPECT_EQ(bytes[2], 0xBE);
    EXPECT_EQ(bytes[3], 0xEF);
    InaHeader r;
    p->RemoveHeader(r);
    EXPECT_EQ(r.type, InaHeader::RESULT);
    EXPECT_EQ(r.flags, h.flags);
    EXPECT_EQ(r.job, h.job);
    EXPECT_EQ(r.sequence, h.sequence);
    EXPECT_EQ(r.slot, h.slot);
    EXPECT_TRUE(r.copy);
    EXPECT_EQ(r.sender, 63);
    EXPECT_EQ(r.count, 4096);
    EXPECT_EQ(r.bitmap, h.bitmap);
    EXPECT_EQ(r.length, 1024);
    EXPECT_EQ(r.element, InaHeader::FLOAT16);
    EXPECT_EQ(InaHeader::GetElementBytes(InaHeader::FLOAT16), 2u);
    EXPECT_EQ(InaGroupAddress(0x0102), Ipv4Address("239.255.1.2"));
}

TEST_F(Ina, AllReduceOnOneSwitchTakesOneCrossingOfTheLink)
{
    // 8 workers on one switch, 100 Gb/s, 1 us cables, 4 MiB: every worker streams its
    // 4096 fragments of 1 KiB back to back while the results stream back, so the
    // reduction takes F frame times plus one frame's trip up and the result's trip down:
    // T = (F + 1) x frame + 2 x delay (no queueing: all workers are in step).
    const uint32_t n = 8;
    const uint64_t bytes = 4ull << 20;
    const double rate = 100e9;
    const Time delay = MicroSeconds(1);
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(n, DataRate("100Gbps"), delay);
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    std::vector<Ptr<InaAggregationEngine>> engines = ina.Install(topo.switchObjects);
    InaJob job = ina.CreateJob(1, topo.nics);
    ASSERT_TRUE(job.inNetwork) << job.reason;
    EXPECT_EQ(job.levels, 1u);
    EXPECT_EQ(job.switches.size(), 1u);
    EXPECT_EQ(job.info.fragmentBytes, 1024u);
    EXPECT_EQ(engines[0]->GetFreeSlots(), 16384u - 2 * 512);
    Reductions r;
    ReduceAll(job, bytes, r);
    Simulator::Run();

    ASSERT_EQ(r.done.size(), n);
    const uint32_t fragments = bytes / 1024;
    for (const auto& x : r.done)
    {
        EXPECT_EQ(x.fragments, fragments);
        EXPECT_EQ(x.wrongCounts, 0u);
        EXPECT_EQ(x.retransmissions, 0u);
        EXPECT_EQ(x.duplicateResults, 0u);
    }
    EXPECT_EQ(engines[0]->GetContributions(), uint64_t(n) * fragments);
    EXPECT_EQ(engines[0]->GetResultsSent(), uint64_t(n) * fragments);
    EXPECT_EQ(engines[0]->GetDuplicates(), 0u);
    EXPECT_EQ(engines[0]->GetDiscarded(), 0u);
    const double frame = InaFrameSeconds(1024, rate);
    const double expected = (fragments + 1) * frame + 2 * delay.GetSeconds();
    const double measured = Span(r);
    EXPECT_NEAR(measured, expected, 1e-9); // picosecond rounding of 2 x 4097 frames
    // Against ring all-reduce's 2(n-1)/n crossings of S at the same line rate.
    const double ring = 2.0 * (n - 1) / n * bytes * 8 / rate;
    EXPECT_LT(measured, ring / 1.5);
    std::cout << "[ measured ] INA all-reduce of " << bytes << " B over " << n
              << " workers at 100 Gb/s: " << measured * 1e6 << " us (closed form " << expected * 1e6
              << " us; ring's bandwidth term alone " << ring * 1e6 << " us)\n";
}

TEST_F(Ina, ConsecutiveReductionsOfAJobReuseItsSlots)
{
    // Three reductions asked for at once (sizes not multiples of the pool) run one after
    // another; fragment numbers continue, so the slots' previous results are never taken
    // for the new fragments' (each result must sum every worker).
    const uint32_t n = 4;
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(n, DataRate("100Gbps"), MicroSeconds(1));
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    ina.SetPoolSlots(8);
    std::vector<Ptr<InaAggregationEngine>> engines = ina.Install(topo.switchObjects);
    InaJob job = ina.CreateJob(6, topo.nics);
    ASSERT_TRUE(job.inNetwork) << job.reason;
    Reductions r;
    for (uint64_t bytes : {20 * 1024ull, 5 * 1024ull + 7, 33 * 1024ull})
    {
        ReduceAll(job, bytes, r);
    }
    EXPECT_TRUE(job.workers[0]->IsBusy(6));
    Simulator::Run();
    ASSERT_EQ(r.done.size(), 3u * n);
    for (const auto& x : r.done)
    {
        EXPECT_EQ(x.wrongCounts, 0u);
        EXPECT_EQ(x.duplicateResults, 0u);
        EXPECT_FALSE(x.failed);
    }
    // In call order on every worker: 20, 6 and 33 fragments.
    for (uint32_t i = 0; i < r.done.size(); ++i)
    {
        EXPECT_EQ(r.done[i].fragments, (i / n == 0 ? 20u : i / n == 1 ? 6u : 33u));
    }
    EXPECT_EQ(engines[0]->GetContributions(), uint64_t(n) * (20 + 6 + 33));
    EXPECT_EQ(engines[0]->GetDuplicates(), 0u);
    EXPECT_FALSE(job.workers[0]->IsBusy(6));
}

TEST_F(Ina, TimeIsFlatInTheNumberOfWorkersOnALeafSpine)
{
    // Two-tier leaf-spine, 4 workers per leaf, 2 spines: the leaves sum their workers
    // and a spine sums the leaves. The time is S/B x frame overhead plus a path latency
    // that does not depend on n; ring's bandwidth term grows as 2(n-1)/n.
    const uint64_t bytes = 1ull << 20;
    const double rate = 100e9;
    const Time delay = MicroSeconds(1);
    std::vector<double> times;
    for (uint32_t n : {8u, 16u, 32u, 64u})
    {
        RoceHelper roce;
        RoceTopologyHelper topoHelper(roce);
        RoceTopology topo = topoHelper.LeafSpine(n / 4, 2, 4, DataRate("100Gbps"), 1.0, delay);
        InaHelper ina;
        ina.SetProtocol(InaProtocol::SWITCHML);
        ina.Install(topo.switchObjects);
        InaJob job = ina.CreateJob(7, topo.nics);
        ASSERT_TRUE(job.inNetwork) << job.reason;
        EXPECT_EQ(job.levels, 2u);
        EXPECT_EQ(job.switches.size(), n / 4 + 1); // every leaf and one spine
        Reductions r;
        ReduceAll(job, bytes, r);
        Simulator::Run();
        ExpectClean(r, n);
        times.push_back(Span(r));
        // The last fragment leaves its worker after F frame times and crosses four
        // cables: up to the leaf, its aggregate up to the spine, the result down to the
        // leaf and to the worker, each switch sending once the whole frame is in. The
        // leaf-spine cables run at 4 x 100G / 2 spines = 200 Gb/s.
        const uint32_t fragments = bytes / 1024;
        const double expected = (fragments + 1) * InaFrameSeconds(1024, rate) +
                                2 * InaFrameSeconds(1024, 2 * rate) + 4 * delay.GetSeconds();
        EXPECT_NEAR(times.back(), expected, 1e-9) << n << " workers";
        std::cout << "[ measured ] INA all-reduce of " << bytes << " B over " << n
                  << " workers (leaf-spine): " << times.back() * 1e6 << " us, closed form "
                  << expected * 1e6 << " us; ring bandwidth term "
                  << 2.0 * (n - 1) / n * bytes * 8 / rate * 1e6 << " us\n";
        Simulator::Destroy();
    }
    const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
    EXPECT_LT(*hi / *lo, 1.10);
}

TEST_F(Ina, FewSlotsBindAsPoolTimesFragmentPerRoundTrip)
{
    // With a pool of k slots a worker has k fragments in flight: one round trip (a
    // frame up, a frame down, two cables) per k fragments, far below line rate here.
    const uint32_t n = 4;
    const uint32_t k = 4;
    const uint64_t bytes = 256 * 1024;
    const double rate = 100e9;
    const Time delay = MicroSeconds(5);
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(n, DataRate("100Gbps"), delay);
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    ina.SetPoolSlots(k);
    ina.Install(topo.switchObjects);
    InaJob job = ina.CreateJob(3, topo.nics);
    ASSERT_TRUE(job.inNetwork) << job.reason;
    Reductions r;
    ReduceAll(job, bytes, r);
    Simulator::Run();
    ASSERT_EQ(r.done.size(), n);
    const double rtt = 2 * InaFrameSeconds(1024, rate) + 2 * delay.GetSeconds();
    const double fragments = bytes / 1024.0;
    const double predicted = fragments / k * rtt; // throughput k x 1 KiB per RTT
    const double measured = Span(r);
    EXPECT_NEAR(measured, predicted, 0.10 * predicted);
    std::cout << "[ measured ] pool of " << k << " slots, RTT " << rtt * 1e6
              << " us: " << bytes / measured * 8 / 1e9
              << " Gb/s (k x slot / RTT = " << k * 1024 * 8 / rtt / 1e9 << " Gb/s)\n";
}

TEST_F(Ina, ASlowEngineBindsAndPausesItsInputsWithPfc)
{
    // An engine that reduces 200 Gb/s of values serves 8 workers sending at 100 Gb/s
    // each, with windows (up to 4096 fragments of 1 KiB) larger than the switch's 4 MB
    // buffer allows: the frames wait for the engine in the switch's buffer, the MMU pauses the
    // workers' links with PFC (no frame is dropped, none times out), and the reduction
    // takes as long as the engine needs for n x S bytes.
    const uint32_t n = 8;
    const uint64_t bytes = 2ull << 20;
    const double engineRate = 200e9;
    RoceHelper roce;
    roce.SetMmuAttribute("BufferSize", UintegerValue(4 * 1000 * 1000));
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(n, DataRate("100Gbps"), MicroSeconds(1));
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    ina.SetEngineAttribute("AggregationRate", DataRateValue(DataRate(engineRate)));
    ina.SetPoolSlots(4096);
    ina.SetWorkerAttribute("RetransmitTimeout", TimeValue(MilliSeconds(10)));
    std::vector<Ptr<InaAggregationEngine>> engines = ina.Install(topo.switchObjects);
    InaJob job = ina.CreateJob(8, topo.nics);
    ASSERT_TRUE(job.inNetwork) << job.reason;
    Reductions r;
    ReduceAll(job, bytes, r);
    Simulator::Run();
    ExpectClean(r, n);
    const double predicted = double(n) * bytes * 8 / engineRate;
    EXPECT_NEAR(Span(r), predicted, 0.02 * predicted);
    EXPECT_GT(topo.switchObjects[0]->GetPfcPausesSent(), 0u);
    EXPECT_EQ(topo.switchObjects[0]->GetTotalDrops(), 0u);
    std::cout << "[ measured ] engine at 200 Gb/s, 8 workers at 100 Gb/s, " << bytes
              << " B: " << Span(r) * 1e6 << " us (n S / rate = " << predicted * 1e6 << " us), "
              << topo.switchObjects[0]->GetPfcPausesSent() << " PFC pauses\n";
}

TEST_F(Ina, OnePercentLossCompletesWithExactContributorCounts)
{
    // 1 % of frames lost on every worker's link, both directions: lost contributions and
    // lost results are recovered by the workers' timeouts; the switch ignores duplicate
    // contributions by its bitmap, so every result sums each worker exactly once.
    const uint32_t n = 8;
    const uint64_t bytes = 1ull << 20;
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(n, DataRate("100Gbps"), MicroSeconds(1));
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    ina.SetWorkerAttribute("RetransmitTimeout", TimeValue(MicroSeconds(20)));
    std::vector<Ptr<InaAggregationEngine>> engines = ina.Install(topo.switchObjects);
    int64_t stream = 100;
    for (uint32_t h = 0; h < n; ++h)
    {
        AddLoss(topo.nics[h]->GetDevice(), 0.01, stream++);
        AddLoss(topo.switchObjects[0]->GetPort(h), 0.01, stream++);
    }
    InaJob job = ina.CreateJob(2, topo.nics);
    ASSERT_TRUE(job.inNetwork) << job.reason;
    Reductions r;
    ReduceAll(job, bytes, r);
    Simulator::Run();
    ASSERT_EQ(r.done.size(), n);
    uint64_t retransmissions = 0;
    for (const auto& x : r.done)
    {
        EXPECT_EQ(x.wrongCounts, 0u);
        retransmissions += x.retransmissions;
    }
    EXPECT_GT(retransmissions, 0u);
    EXPECT_GT(engines[0]->GetDuplicates(), 0u);
    // Each fragment's contribution was added once per worker, however often it was sent.
    EXPECT_EQ(engines[0]->GetContributions(), uint64_t(n) * (bytes / 1024));
    std::cout << "[ measured ] 1% loss on " << n << " worker links: " << retransmissions
              << " retransmissions, " << engines[0]->GetDuplicates()
              << " duplicate contributions ignored, time " << Span(r) * 1e6 << " us\n";
}

namespace
{
/// One lossy all-reduce (1 % on every worker link); the workers' results in order.
std::vector<InaReduction>
LossyRun(uint32_t run)
{
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(4, DataRate("100Gbps"), MicroSeconds(1));
    const int64_t used = roce.AssignStreams(100);
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    ina.SetWorkerAttribute("RetransmitTimeout", TimeValue(MicroSeconds(20)));
    ina.Install(topo.switchObjects);
    int64_t stream = 100 + used;
    for (const auto& nic : topo.nics)
    {
        AddLoss(nic->GetDevice(), 0.01, stream++); // streams fixed: runs in one process repeat
    }
    InaJob job = ina.CreateJob(1, topo.nics);
    Reductions r;
    ReduceAll(job, 512 * 1024, r);
    Simulator::Run();
    Simulator::Destroy();
    return r.done;
}
} // namespace

TEST_F(Ina, SameSeedSameRunBitForBit)
{
    const auto a = LossyRun(1);
    const auto b = LossyRun(1);
    const auto c = LossyRun(2);
    ASSERT_EQ(a.size(), 4u);
    ASSERT_EQ(b.size(), a.size());
    uint64_t retransmissionsA = 0;
    uint64_t retransmissionsC = 0;
    for (uint32_t i = 0; i < a.size(); ++i)
    {
        EXPECT_EQ(a[i].end, b[i].end);
        EXPECT_EQ(a[i].retransmissions, b[i].retransmissions);
        EXPECT_EQ(a[i].duplicateResults, b[i].duplicateResults);
        retransmissionsA += a[i].retransmissions;
        retransmissionsC += c[i].retransmissions;
    }
    EXPECT_GT(retransmissionsA, 0u);
    // Another run number draws other losses.
    EXPECT_NE(retransmissionsA, retransmissionsC);
}

TEST_F(Ina, LossOnEveryCableOfATwoLevelTreeCompletes)
{
    // 1 % loss on every port of a leaf-spine: lost aggregates between the switches are
    // recovered too (a leaf answers a duplicate with its aggregate sent up again, the
    // spine a duplicate aggregate with the result).
    const uint32_t n = 8;
    const uint64_t bytes = 256 * 1024;
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.LeafSpine(2, 1, 4, DataRate("100Gbps"), 1.0, MicroSeconds(1));
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    ina.SetWorkerAttribute("RetransmitTimeout", TimeValue(MicroSeconds(30)));
    std::vector<Ptr<InaAggregationEngine>> engines = ina.Install(topo.switchObjects);
    int64_t stream = 200;
    for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i)
    {
        Ptr<Node> node = NodeList::GetNode(i);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            AddLoss(node->GetDevice(d), 0.01, stream++);
        }
    }
    InaJob job = ina.CreateJob(4, topo.nics);
    ASSERT_TRUE(job.inNetwork) << job.reason;
    ASSERT_EQ(job.levels, 2u);
    Reductions r;
    ReduceAll(job, bytes, r);
    Simulator::Run();
    ASSERT_EQ(r.done.size(), n);
    for (const auto& x : r.done)
    {
        EXPECT_FALSE(x.failed);
        EXPECT_EQ(x.wrongCounts, 0u);
    }
    uint64_t resentUp = 0;
    for (const auto& e : job.switches)
    {
        resentUp += e->GetAggregatesSent();
    }
    // Each leaf sends one aggregate per fragment, more only to recover losses.
    EXPECT_GT(resentUp, 2u * (bytes / 1024));
}

TEST_F(Ina, AReductionWithoutItsTreeFailsInsteadOfRetryingForever)
{
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(2, DataRate("100Gbps"), MicroSeconds(1));
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    ina.SetWorkerAttribute("MaxRetransmissions", UintegerValue(3));
    std::vector<Ptr<InaAggregationEngine>> engines = ina.Install(topo.switchObjects);
    InaJob job = ina.CreateJob(5, topo.nics);
    ASSERT_TRUE(job.inNetwork) << job.reason;
    InaHelper::RemoveJob(job); // the switch no longer knows the job
    Reductions r;
    ReduceAll(job, 4096, r);
    Simulator::Run();
    ASSERT_EQ(r.done.size(), 2u);
    for (const auto& x : r.done)
    {
        EXPECT_TRUE(x.failed);
        EXPECT_EQ(x.retransmissions, 4u * 3); // 4 fragments, 3 times each
    }
    EXPECT_EQ(engines[0]->GetDiscarded(), 2u * 4 * 4);
}

TEST_F(Ina, JobsThatDoNotFitAreRefusedWithTheReason)
{
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(4, DataRate("100Gbps"), MicroSeconds(1));
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    ina.SetEngineAttribute("Slots", UintegerValue(3000));
    std::vector<Ptr<InaAggregationEngine>> engines = ina.Install(topo.switchObjects);
    ina.SetPoolSlots(1000);
    InaJob first = ina.CreateJob(1, {topo.nics[0], topo.nics[1]});
    ASSERT_TRUE(first.inNetwork) << first.reason;
    InaJob second = ina.CreateJob(2, {topo.nics[2], topo.nics[3]});
    EXPECT_FALSE(second.inNetwork);
    EXPECT_EQ(second.reason, "job 2 needs 2 x 1000 slots, 1000 are free");
    EXPECT_EQ(engines[0]->GetNJobs(), 1u);
    InaHelper::RemoveJob(first);
    EXPECT_EQ(engines[0]->GetFreeSlots(), 3000u);
    InaJob again = ina.CreateJob(2, {topo.nics[2], topo.nics[3]});
    EXPECT_TRUE(again.inNetwork) << again.reason;
}

TEST_F(Ina, InconsistentEngineAttributesAreNamed)
{
    Ptr<InaAggregationEngine> engine = CreateObject<InaAggregationEngine>();
    std::string error;
    EXPECT_TRUE(engine->CheckConfiguration(&error));
    engine->SetAttribute("SlotBytes", UintegerValue(1022));
    EXPECT_FALSE(engine->CheckConfiguration(&error));
    EXPECT_EQ(error,
              "ns3::InaAggregationEngine::SlotBytes: 1022 is not a multiple of ElementBytes (4)");
    engine->SetAttribute("SlotBytes", UintegerValue(1024));
    engine->SetAttribute("MemoryBytes", UintegerValue(1 << 20));
    EXPECT_FALSE(engine->CheckConfiguration(&error));
    EXPECT_EQ(error,
              "ns3::InaAggregationEngine::Slots: 16384 slots of 1024 B and 4096 streaming "
              "aggregators of 4096 B need 33554432 B, more than MemoryBytes (1048576)");
    engine->SetAttribute("MemoryBytes", UintegerValue(32 << 20));
    engine->SetAttribute("StreamingBytes", UintegerValue(4094));
    EXPECT_FALSE(engine->CheckConfiguration(&error));
    EXPECT_EQ(error,
              "ns3::InaAggregationEngine::StreamingBytes: 4094 is not a multiple of "
              "ElementBytes (4)");
    EXPECT_FALSE(engine->SetAttributeFailSafe("Slots", UintegerValue(0)));
}

TEST_F(Ina, TheLuaDissectorDecodesACapture)
{
    if (!HaveTshark())
    {
        GTEST_SKIP() << "tshark not installed (apt-get install tshark): the dissector "
                        "doc/wireshark/ai-fabric-ina.lua is not checked";
    }
    // Two workers reduce 4 KiB (four fragments of 1 KiB) as job 9; worker 0's cable is
    // captured: its four DATA packets up and the four RESULTs down.
    const auto rows = CaptureTwoWorkerReduction("ina",
                                                4096,
                                                InaReductionRoles(),
                                                {"ai_fabric_ina.type",
                                                 "ai_fabric_ina.job",
                                                 "ai_fabric_ina.sequence",
                                                 "ai_fabric_ina.slot",
                                                 "ai_fabric_ina.count",
                                                 "ai_fabric_ina.length",
                                                 "ip.dst",
                                                 "udp.dstport"},
                                                AI_FABRIC_SOURCE_DIR);
    ASSERT_EQ(rows.size(), 8u);
    uint32_t data = 0;
    uint32_t results = 0;
    for (const auto& row : rows)
    {
        ASSERT_EQ(row.size(), 8u);
        EXPECT_EQ(row[1], "9");
        EXPECT_EQ(row[3], row[2]); // slot = sequence while it is below the pool size
        EXPECT_EQ(row[5], "1024");
        EXPECT_EQ(row[7], "49568");
        if (row[0] == "1")
        {
            EXPECT_EQ(row[4], "1");
            EXPECT_EQ(row[6], "239.255.0.9");
            EXPECT_EQ(row[2], std::to_string(data++));
        }
        else
        {
            EXPECT_EQ(row[0], "2");
            EXPECT_EQ(row[4], "2");
            EXPECT_EQ(row[6], "10.0.0.1"); // worker 0 (RoceTopologyHelper::HostAddress)
            ++results;
        }
    }
    EXPECT_EQ(data, 4u);
    EXPECT_EQ(results, 4u);
}

TEST_F(Ina, PlanCheckerProvesTheInNetworkAllReduce)
{
    for (uint32_t n : {2u, 3u, 8u, 64u})
    {
        for (uint32_t channels : {1u, 4u})
        {
            for (uint64_t chunk : {0ull, 256 * 1024ull})
            {
                const CommPlan plan = InaAllReduce(n, (1ull << 20) + 3, channels, chunk);
                const PlanCheckResult r = PlanChecker::Check(plan);
                EXPECT_TRUE(r.ok) << n << " ranks, " << channels << " channels: " << r.reason;
                EXPECT_EQ(plan.GetAlgorithm(), "ina");
                // Every rank sends and receives its whole buffer once.
                EXPECT_EQ(plan.GetBytesSent(n - 1), (1ull << 20) + 3);
                EXPECT_EQ(plan.GetBytesReceived(0), (1ull << 20) + 3);
            }
        }
    }
    // The same block aggregated twice counts every contribution twice.
    CommPlan twice = InaAllReduce(4, 4096);
    CommPlan::Transfer again = twice.GetTransfers()[0];
    again.deps = {0};
    twice.AddTransfer(again);
    const PlanCheckResult r = PlanChecker::Check(twice);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("twice"), std::string::npos) << r.reason;
    // A block never aggregated is not all-reduced.
    CommPlan none(CollectiveType::ALL_REDUCE, 4, 4096);
    none.AddBlock(4096);
    EXPECT_FALSE(PlanChecker::Check(none).ok);
}

TEST_F(Ina, TheInaAlgorithmRunsOnTheInaCarrierAndAutoPicksIt)
{
    // The collective engine runs "ina" on InaTransport: the same time as the workers'
    // closed form; auto prefers it to every host algorithm for a large all-reduce; a
    // carrier without aggregation refuses it, saying why.
    const uint32_t n = 8;
    const uint64_t bytes = 4ull << 20;
    const Time delay = MicroSeconds(1);
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(n, DataRate("100Gbps"), delay);
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    ina.Install(topo.switchObjects);
    Ptr<InaTransport> carrier = CreateObject<InaTransport>();
    carrier->SetNics(topo.nics);
    carrier->SetController(ina.GetController());
    const CommGroup group = CommGroup::Uniform(n, 1);

    CollectiveSelection selection(carrier);
    EXPECT_EQ(CollectiveAlgorithmToString(
                  selection.Choose(CollectiveType::ALL_REDUCE, group, 64ull << 20).algorithm),
              "ina");
    Ptr<RdmaTransport> plain = CreateObject<RdmaTransport>();
    plain->SetNics(topo.nics);
    bool known = false;
    std::string why;
    EXPECT_FALSE(CollectiveSelection(plain)
                     .CanMakePlan(CollectiveType::ALL_REDUCE, "ina", group, &known, &why));
    EXPECT_TRUE(known);
    EXPECT_NE(why.find("ina needs switches that aggregate"), std::string::npos) << why;

    const CollectiveResult result = RunAllReduce(carrier, group, bytes, "ina");
    EXPECT_EQ(result.algorithm, "ina");
    const uint32_t fragments = bytes / 1024;
    // Plus the network latency NCCL charges an in-network (CollNet) call with one rank per
    // host: the tree's, 14 us (collective-protocol suite).
    const double expected =
        (fragments + 1) * InaFrameSeconds(1024, 100e9) + 2 * delay.GetSeconds() + 14e-6;
    EXPECT_NEAR(result.GetDuration().GetSeconds(), expected, 1e-9);
    EXPECT_EQ(carrier->GetBytesInNetwork(), bytes);
    std::vector<uint32_t> members(n);
    std::iota(members.begin(), members.end(), 0u);
    ASSERT_NE(carrier->GetJob(members), nullptr);
    EXPECT_TRUE(carrier->GetJob(members)->inNetwork);
    std::cout << "[ measured ] collective engine, ina all-reduce of " << bytes << " B over " << n
              << " ranks at 100 Gb/s: " << result.GetDuration().GetSeconds() * 1e6 << " us, busbw "
              << result.busBw / 1e9 << " GB/s\n";
}

TEST_F(Ina, TwoJobsShareTheSwitchFirstComeAndTheSecondFallsBack)
{
    // Two 4-rank groups on one switch whose aggregators hold one job's pool only: the
    // first group's all-reduce runs in the network, the second's falls back to a host
    // algorithm (auto picks among those left), both complete. What moved where is
    // counted where it happened, not from the plans' names: the switch aggregated the
    // first group's bytes (its contributions), and the second group's hosts wrote their
    // plan's bytes over RDMA while the first group's wrote none.
    const uint64_t bytes = 1ull << 20;
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(8, DataRate("100Gbps"), MicroSeconds(1));
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    ina.SetEngineAttribute("Slots", UintegerValue(1024)); // one pool of 512, two copies
    const std::vector<Ptr<InaAggregationEngine>> engines = ina.Install(topo.switchObjects);
    ASSERT_EQ(engines.size(), 1u);
    Ptr<InaTransport> carrier = CreateObject<InaTransport>();
    carrier->SetNics(topo.nics);
    carrier->SetController(ina.GetController());
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(carrier);
    const CommGroup world = CommGroup::Uniform(8, 1);
    const std::vector<std::vector<uint32_t>> groups{{0, 1, 2, 3}, {4, 5, 6, 7}};
    std::vector<CollectiveResult> results(2);
    uint64_t hostPlanBytes = 0; // what the second group's plan has its hosts write
    for (uint32_t g = 0; g < 2; ++g)
    {
        const CommPlan plan = engine->MakeCollectivePlan(CollectiveType::ALL_REDUCE,
                                                         world.SubGroup(groups[g]),
                                                         bytes,
                                                         groups[g]);
        if (g == 0)
        {
            EXPECT_EQ(plan.GetAlgorithm(), "ina");
        }
        else
        {
            EXPECT_NE(plan.GetAlgorithm(), "ina"); // a host algorithm: auto's choice
        }
        if (g == 1)
        {
            for (const auto& t : plan.GetTransfers())
            {
                // On the wire, as the plan's protocol lays the payload out.
                hostPlanBytes += CollectiveProtocolWireBytes(plan.GetProtocol(), t.bytes);
            }
        }
        engine->Run(plan, groups[g], MakeBoundCallback(&StoreResult, &results[g]));
    }
    Simulator::Run();
    for (const auto& r : results)
    {
        EXPECT_EQ(r.bytes, bytes);
        EXPECT_GT(r.end, r.start);
    }
    const InaJob* second = carrier->GetJob(groups[1]);
    ASSERT_NE(second, nullptr);
    EXPECT_FALSE(second->inNetwork);
    EXPECT_EQ(second->reason, "job 2 needs 2 x 512 slots, 0 are free");
    // In the network: every worker of the first group contributed each of its bytes once.
    const uint64_t aggregated = engines[0]->GetContributions() / 4 * engines[0]->GetSlotBytes();
    EXPECT_EQ(engines[0]->GetContributions() % 4, 0u);
    EXPECT_EQ(engines[0]->GetDuplicates(), 0u);
    EXPECT_EQ(aggregated, bytes);
    // On the hosts: the RDMA payload the NICs' queue pairs posted.
    std::vector<uint64_t> posted(8, 0);
    for (uint32_t h = 0; h < 8; ++h)
    {
        for (uint32_t q = 0; q < topo.nics[h]->GetNQueuePairs(); ++q)
        {
            posted[h] += topo.nics[h]->GetQueuePair(q)->GetBytesPosted();
        }
    }
    const uint64_t firstGroupRdma = posted[0] + posted[1] + posted[2] + posted[3];
    const uint64_t secondGroupRdma = posted[4] + posted[5] + posted[6] + posted[7];
    std::cout << "[ measured ] switch aggregated " << aggregated << " B; RDMA written by the "
              << "first group " << firstGroupRdma << " B, by the second " << secondGroupRdma
              << " B (its plan: " << hostPlanBytes << " B)\n";
    EXPECT_EQ(firstGroupRdma, 0u);
    EXPECT_GT(hostPlanBytes, bytes); // a host all-reduce moves more than the call's bytes
    EXPECT_EQ(secondGroupRdma, hostPlanBytes);
    EXPECT_EQ(carrier->GetBytesInNetwork(), bytes);
}
