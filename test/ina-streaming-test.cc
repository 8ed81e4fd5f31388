// SPDX-License-Identifier: GPL-2.0-only
// In-network aggregation, streaming protocol (ATP/SHARP-like): full-MTU fragments against
// the closed form and against ring, hash-addressed aggregators that collide and fall back
// to the fragment's fallback host with exact contributor sets, loss, and the ECN-driven
// window.
#include "ina-test-util.h"

#include <algorithm>
#include <numeric>
#include <set>

using namespace ns3;
using namespace aifabric;

namespace
{
class InaStreaming : public NsTest
{
};

/// Distinct (job, sequence) pairs an engine completed, from its SlotComplete trace.
struct Completions
{
    std::set<std::pair<uint16_t, uint32_t>> done;

    void Record(uint16_t job, uint32_t sequence, uint16_t)
    {
        done.emplace(job, sequence);
    }

    size_t Of(uint16_t job) const
    {
        return std::count_if(done.begin(), done.end(), [job](const auto& d) {
            return d.first == job;
        });
    }
};

} // namespace

TEST_F(InaStreaming, FullMtuFragmentsTakeOneCrossingOfTheLink)
{
    // 8 workers on one switch at 100 Gb/s, 4 MiB in fragments of 4096 B (a full RDMA
    // MTU of values): the window (PoolSlots x SlotBytes = 512 KiB = 128 fragments) covers
    // the round trip, so T = (F + 1) frame times + 2 cable delays, as for SwitchML but
    // with a quarter of the headers.
    const uint32_t n = 8;
    const uint64_t bytes = 4ull << 20;
    const Time delay = MicroSeconds(1);
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(n, DataRate("100Gbps"), delay);
    InaHelper ina; // streaming is the default
    std::vector<Ptr<InaAggregationEngine>> engines = ina.Install(topo.switchObjects);
    InaJob job = ina.CreateJob(1, topo.nics);
    ASSERT_TRUE(job.inNetwork) << job.reason;
    EXPECT_EQ(job.info.protocol, InaProtocol::STREAMING);
    EXPECT_EQ(job.info.fragmentBytes, 4096u);
    EXPECT_EQ(job.info.poolSlots, 128u);
    EXPECT_EQ(engines[0]->GetFreeSlots(), 16384u); // streaming jobs take no pool
    Reductions r;
    ReduceAll(job, bytes, r);
    Simulator::Run();
    ASSERT_EQ(r.done.size(), n);
    const uint32_t fragments = bytes / 4096;
    for (const auto& x : r.done)
    {
        EXPECT_EQ(x.fragments, fragments);
        EXPECT_EQ(x.wrongCounts, 0u);
        EXPECT_EQ(x.retransmissions, 0u);
        EXPECT_EQ(x.fallbackBytes, 0u);
        EXPECT_EQ(x.minWindow, 128u); // no CE, no timeout: the window never shrank
    }
    EXPECT_EQ(engines[0]->GetContributions(), uint64_t(n) * fragments);
    EXPECT_EQ(engines[0]->GetResultsSent(), uint64_t(n) * fragments);
    EXPECT_EQ(engines[0]->GetCollisions(), 0u);
    const double expected = (fragments + 1) * InaFrameSeconds(4096, 100e9) + 2 * delay.GetSeconds();
    EXPECT_NEAR(Span(r), expected, 1e-9);
    std::cout << "[ measured ] streaming INA all-reduce of " << bytes << " B over " << n
              << " workers at 100 Gb/s: " << Span(r) * 1e6 << " us (closed form " << expected * 1e6
              << " us)\n";
}

TEST_F(InaStreaming, SixteenWorkersAt400GReachMoreThan1Point6TimesRingsBusBw)
{
    // 16 hosts x 400 Gb/s on one switch, 16 MiB: ring moves 2(n-1)/n of the buffer over
    // each link, INA one crossing up and one down. busbw (NCCL's: algbw x 2(n-1)/n) of
    // streaming INA is the link's payload rate at 4096 B per frame; SwitchML's 1 KiB slots
    // carry 1024 B per 1118 B-frame instead of 4096 per 4190, so its busbw is lower by the
    // ratio of the two header overheads.
    const uint32_t n = 16;
    const uint64_t bytes = 16ull << 20;
    // protocol: an INA carrier with that protocol, or ring on a plain RDMA carrier.
    auto run = [n, bytes](const InaProtocol* protocol) {
        RoceHelper roce;
        RoceTopologyHelper topoHelper(roce);
        RoceTopology topo = topoHelper.Star(n, DataRate("400Gbps"), MicroSeconds(1));
        CollectiveResult result;
        if (protocol)
        {
            InaHelper ina;
            ina.SetProtocol(*protocol);
            ina.Install(topo.switchObjects);
            Ptr<InaTransport> carrier = CreateObject<InaTransport>();
            carrier->SetNics(topo.nics);
            carrier->SetController(ina.GetController());
            result = RunAllReduce(carrier, CommGroup::Uniform(n, 1), bytes, "ina");
        }
        else
        {
            Ptr<RdmaTransport> carrier = CreateObject<RdmaTransport>();
            carrier->SetNics(topo.nics);
            result = RunAllReduce(carrier, CommGroup::Uniform(n, 1), bytes, "ring");
        }
        Simulator::Destroy();
        return result;
    };
    const InaProtocol streamingProtocol = InaProtocol::STREAMING;
    const InaProtocol switchmlProtocol = InaProtocol::SWITCHML;
    const CollectiveResult streaming = run(&streamingProtocol);
    const CollectiveResult switchml = run(&switchmlProtocol);
    const CollectiveResult ring = run(nullptr);

    EXPECT_EQ(streaming.algorithm, "ina");
    EXPECT_EQ(ring.algorithm, "ring");
    EXPECT_GE(streaming.busBw / ring.busBw, 1.6);
    // The data's rate: without the in-network call's protocol latency (one rank per host:
    // the tree's network latency, 14 us; collective-protocol suite).
    const double latency = 14e-6;
    auto wireBusBw = [latency](const CollectiveResult& r) {
        const double d = r.GetDuration().GetSeconds();
        return r.busBw * d / (d - latency);
    };
    // Both INA protocols run at their frames' payload rate: the ratio of their busbw is
    // the ratio of their payload efficiencies (within 1 %: the path latency).
    const double efficiency4k = 4096.0 / roce::WireBytes(4096 + 14 + 20 + 8 + 28);
    const double efficiency1k = 1024.0 / roce::WireBytes(1024 + 14 + 20 + 8 + 28);
    EXPECT_NEAR(wireBusBw(streaming) / wireBusBw(switchml), efficiency4k / efficiency1k, 0.01);
    const double ideal = 400e9 / 8 * efficiency4k * 2.0 * (n - 1) / n;
    EXPECT_NEAR(wireBusBw(streaming), ideal, 0.01 * ideal);
    std::cout << "[ measured ] 16 x 400G, 16 MiB all-reduce busbw: streaming INA "
              << streaming.busBw / 1e9 << " GB/s, SwitchML INA " << switchml.busBw / 1e9
              << " GB/s, ring " << ring.busBw / 1e9 << " GB/s; streaming / ring "
              << streaming.busBw / ring.busBw << " (payload efficiency 4 KiB " << efficiency4k
              << ", 1 KiB " << efficiency1k << ")\n";
}

TEST_F(InaStreaming, CollidingJobsFallBackToTheHostWithExactContributorSets)
{
    // Two 4-worker jobs on one switch share 24 aggregators. Job 1's first worker starts
    // 5 us late, so job 1's aggregators each wait for it for 5 us (15 fragment times):
    // job 2's fragments that land on one of them go to their fallback host. Both
    // reductions complete; every result sums each worker exactly once; every fragment
    // was summed either on the switch or by its fallback host, never both, and the
    // collisions are counted.
    const uint64_t bytes = 256 * 1024;
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(8, DataRate("100Gbps"), MicroSeconds(1));
    InaHelper ina;
    ina.SetEngineAttribute("StreamingAggregators", UintegerValue(24));
    ina.SetWorkerAttribute("RetransmitTimeout", TimeValue(MicroSeconds(50)));
    std::vector<Ptr<InaAggregationEngine>> engines = ina.Install(topo.switchObjects);
    Completions onSwitch;
    engines[0]->TraceConnectWithoutContext("SlotComplete",
                                           MakeCallback(&Completions::Record, &onSwitch));
    std::vector<InaJob> jobs{ina.CreateJob(1, {topo.nics.begin(), topo.nics.begin() + 4}),
                             ina.CreateJob(2, {topo.nics.begin() + 4, topo.nics.end()})};
    std::vector<Reductions> r(2);
    for (uint32_t j = 0; j < 2; ++j)
    {
        ASSERT_TRUE(jobs[j].inNetwork) << jobs[j].reason;
        for (uint32_t w = 0; w < 4; ++w)
        {
            Simulator::Schedule(j == 0 && w == 0 ? MicroSeconds(5) : Time(),
                                &InaWorker::Reduce,
                                jobs[j].workers[w],
                                jobs[j].info.job,
                                bytes,
                                MakeCallback(&Reductions::Record, &r[j]),
                                InaReductionRoles());
        }
    }
    Simulator::Run();
    const uint32_t fragments = bytes / 4096;
    uint64_t fellBack = 0;
    for (uint32_t j = 0; j < 2; ++j)
    {
        ASSERT_EQ(r[j].done.size(), 4u);
        for (const auto& x : r[j].done)
        {
            EXPECT_FALSE(x.failed);
            EXPECT_EQ(x.wrongCounts, 0u);
            EXPECT_EQ(x.fallbackBytes, r[j].done.front().fallbackBytes);
        }
        const uint64_t viaHost = r[j].done.front().fallbackBytes / 4096;
        EXPECT_EQ(onSwitch.Of(j + 1) + viaHost, fragments) << "job " << j + 1;
        fellBack += viaHost;
        std::cout << "[ measured ] job " << j + 1 << ": " << onSwitch.Of(j + 1) << " of "
                  << fragments << " fragments summed on the switch, " << viaHost
                  << " by their fallback host\n";
    }
    EXPECT_GT(engines[0]->GetCollisions(), 0u);
    EXPECT_GT(fellBack, 0u);
    std::cout << "[ measured ] " << engines[0]->GetCollisions() << " collisions, "
              << engines[0]->GetFlushes() << " partial sums flushed, " << engines[0]->GetForwarded()
              << " INA frames forwarded to hosts\n";
}

TEST_F(InaStreaming, OnePercentLossOnALeafSpineCompletesWithExactCounts)
{
    // 8 workers on 2 leaves and 2 spines; worker 0's cable loses 1 % of the frames each
    // way. Lost contributions and lost results are retransmitted; a retransmission takes
    // what the switches hold of its fragment to the fallback host, which answers with
    // the result or sums it. Every result counts every worker once.
    const uint32_t n = 8;
    const uint64_t bytes = 1ull << 20;
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.LeafSpine(2, 2, 4, DataRate("100Gbps"), 1.0, MicroSeconds(1));
    InaHelper ina;
    ina.SetWorkerAttribute("RetransmitTimeout", TimeValue(MicroSeconds(100)));
    std::vector<Ptr<InaAggregationEngine>> engines = ina.Install(topo.switchObjects);
    InaJob job = ina.CreateJob(4, topo.nics);
    ASSERT_TRUE(job.inNetwork) << job.reason;
    EXPECT_EQ(job.levels, 2u);
    Ptr<RoceNetDevice> port = topo.nics[0]->GetDevice();
    AddLoss(port, 0.01, 11);
    AddLoss(port->GetRoceChannel()->GetPeer(port), 0.01, 12);
    Reductions r;
    ReduceAll(job, bytes, r);
    Simulator::Run();
    ASSERT_EQ(r.done.size(), n);
    uint64_t retransmissions = 0;
    for (const auto& x : r.done)
    {
        EXPECT_FALSE(x.failed);
        EXPECT_EQ(x.wrongCounts, 0u);
        retransmissions += x.retransmissions;
    }
    EXPECT_GT(retransmissions, 0u);
    uint64_t flushes = 0;
    for (const auto& e : engines)
    {
        flushes += e->GetFlushes();
    }
    std::cout << "[ measured ] 1 % loss on worker 0's cable, 1 MiB over 8 workers: "
              << retransmissions << " retransmissions, " << flushes
              << " partial sums flushed to fallback hosts, " << r.done[0].fallbackBytes
              << " B summed by fallback hosts, " << Span(r) * 1e6 << " us\n";
}

TEST_F(InaStreaming, ResultsMarkedCeHalveTheWindow)
{
    // Worker 0's downlink also carries an RDMA write from host 4: the results queue
    // behind it and leave the switch marked CE, so worker 0 halves its window (once per
    // window of results), and the reduction still completes exactly.
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(5, DataRate("100Gbps"), MicroSeconds(1));
    InaHelper ina;
    ina.Install(topo.switchObjects);
    InaJob job = ina.CreateJob(3, {topo.nics.begin(), topo.nics.begin() + 4});
    ASSERT_TRUE(job.inNetwork) << job.reason;
    auto qp = RoceHelper::Connect(topo.nics[4], topo.nics[0]);
    Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, qp.first, 8u << 20);
    Reductions r;
    ReduceAll(job, 4ull << 20, r);
    Simulator::Run();
    ASSERT_EQ(r.done.size(), 4u);
    for (const auto& x : r.done)
    {
        EXPECT_FALSE(x.failed);
        EXPECT_EQ(x.wrongCounts, 0u);
    }
    uint64_t echoes = 0;
    uint32_t smallest = job.info.poolSlots;
    for (const auto& x : r.done)
    {
        echoes += x.ecnEchoes;
        smallest = std::min(smallest, x.minWindow);
    }
    EXPECT_GT(echoes, 0u);
    EXPECT_LT(smallest, job.info.poolSlots);
    std::cout << "[ measured ] results behind an RDMA write: " << echoes
              << " CE echoes, smallest window " << smallest << " of " << job.info.poolSlots
              << " fragments, reduction " << Span(r) * 1e6 << " us\n";
}

TEST_F(InaStreaming, SameSeedSameRunBitForBit)
{
    // The lossy leaf-spine run twice with the same loss streams: the same times and
    // counters to the picosecond; another stream gives another run.
    auto run = [](int64_t stream) {
        RoceHelper roce;
        RoceTopologyHelper topoHelper(roce);
        RoceTopology topo =
            topoHelper.LeafSpine(2, 2, 4, DataRate("100Gbps"), 1.0, MicroSeconds(1));
        roce.AssignStreams(1);
        InaHelper ina;
        ina.SetWorkerAttribute("RetransmitTimeout", TimeValue(MicroSeconds(100)));
        ina.Install(topo.switchObjects);
        InaJob job = ina.CreateJob(4, topo.nics);
        Ptr<RoceNetDevice> port = topo.nics[0]->GetDevice();
        AddLoss(port, 0.01, stream);
        AddLoss(port->GetRoceChannel()->GetPeer(port), 0.01, stream + 1);
        Reductions r;
        ReduceAll(job, 1ull << 20, r);
        Simulator::Run();
        std::vector<int64_t> out;
        for (const auto& x : r.done)
        {
            out.push_back(x.end.GetTimeStep());
            out.push_back(static_cast<int64_t>(x.retransmissions));
            out.push_back(static_cast<int64_t>(x.fallbackBytes));
        }
        Simulator::Destroy();
        return out;
    };
    const auto a = run(11);
    EXPECT_EQ(a, run(11));
    EXPECT_NE(a, run(21));
}
