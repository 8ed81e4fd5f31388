// SPDX-License-Identifier: GPL-2.0-only
// In-network reduce-scatter, all-gather, broadcast and reduce: the workers' roles (values
// only from a multicast's source, the sum's values only toward a reduce's destination),
// the plans the checker proves, and the collective engine running them on InaTransport
// against closed forms and the ring.
#include "ina-test-util.h"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <unistd.h>

using namespace ns3;
using namespace aifabric;

namespace
{
class InaCollectives : public NsTest
{
};

/// A two-leaf fabric of n workers with aggregation engines, and one job over them.
struct Fabric
{
    RoceTopology topo;         //!< 2 leaves, 2 spines
    InaHelper ina;             //!< its engines
    Ptr<InaTransport> carrier; //!< the collective carrier over its NICs

    Fabric(uint32_t n, InaProtocol protocol, const Time& delay)
    {
        RoceHelper roce;
        RoceTopologyHelper topoHelper(roce);
        topo = topoHelper.LeafSpine(2, 2, n / 2, DataRate("100Gbps"), 1.0, delay);
        ina.SetProtocol(protocol);
        ina.Install(topo.switchObjects);
        carrier = CreateObject<InaTransport>();
        carrier->SetNics(topo.nics);
        carrier->SetController(ina.GetController());
    }
};

/**
 * Value bytes worker w receives from a reduce to dest of bytes (the job's first
 * reduction): all of them at the destination; on streaming, every worker also gets the
 * fragments it is the fallback host of (sequence mod n), which keep the result.
 */
uint64_t
ExpectedValuesAtNonSourceOfReduce(const InaJob& job, uint32_t w, uint32_t dest, uint64_t bytes)
{
    if (w == dest)
    {
        return bytes;
    }
    if (job.info.protocol != InaProtocol::STREAMING)
    {
        return 0;
    }
    const uint64_t fragment = job.info.fragmentBytes;
    uint64_t hosted = 0;
    for (uint64_t q = 0; q * fragment < bytes; ++q)
    {
        hosted += q % job.info.workers == w ? std::min(fragment, bytes - q * fragment) : 0;
    }
    return hosted;
}

/// Run one collective through a CollectiveEngine on carrier until the simulation ends.
CollectiveResult
RunCollective(Ptr<CollectiveTransport> carrier,
              CollectiveType type,
              uint32_t n,
              uint64_t bytes,
              const std::string& algorithm,
              uint32_t root = 0)
{
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(carrier);
    const CommGroup group = CommGroup::Uniform(n, 1);
    CollectiveAlgorithm named;
    EXPECT_TRUE(CollectiveAlgorithmFromString(algorithm, named)) << algorithm;
    const CommPlan plan = engine->MakeCollectivePlan(type, group, bytes, {}, root, named);
    const PlanCheckResult check = PlanChecker::Check(plan);
    EXPECT_TRUE(check.ok) << type << " " << algorithm << ": " << check.reason;
    std::vector<uint32_t> ranks(n);
    std::iota(ranks.begin(), ranks.end(), 0u);
    CollectiveResult result;
    engine->Run(plan, ranks, MakeBoundCallback(&StoreResult, &result));
    Simulator::Run();
    return result;
}

} // namespace

TEST_F(InaCollectives, PlanCheckerProvesEveryInNetworkCollective)
{
    const uint64_t bytes = (1ull << 20) + 3;
    for (uint32_t n : {2u, 3u, 8u, 64u})
    {
        for (uint32_t channels : {1u, 4u})
        {
            for (uint64_t chunk : {0ull, 64 * 1024ull})
            {
                const uint32_t root = n - 1;
                const std::vector<CommPlan> plans{InaReduceScatter(n, bytes, channels, chunk),
                                                  InaAllGather(n, bytes, channels, chunk),
                                                  InaBroadcast(n, bytes, root, channels, chunk),
                                                  InaReduce(n, bytes, root, channels, chunk)};
                for (const CommPlan& plan : plans)
                {
                    const PlanCheckResult r = PlanChecker::Check(plan);
                    EXPECT_TRUE(r.ok) << plan.GetType() << " over " << n << " ranks, " << channels
                                      << " channels, chunk " << chunk << ": " << r.reason;
                    EXPECT_EQ(plan.GetAlgorithm(), "ina");
                }
                // What each NIC carries: reduce-scatter sends the whole buffer and gets its
                // shard; all-gather the reverse; the roots of broadcast and reduce send
                // (get) the whole buffer, as every other rank gets (sends) it.
                EXPECT_EQ(plans[0].GetBytesSent(1), bytes);
                EXPECT_EQ(plans[0].GetBytesReceived(1), CommPlan::SplitBytes(bytes, n, 1));
                EXPECT_EQ(plans[1].GetBytesSent(1), CommPlan::SplitBytes(bytes, n, 1));
                EXPECT_EQ(plans[1].GetBytesReceived(1), bytes);
                EXPECT_EQ(plans[2].GetBytesSent(root), bytes);
                EXPECT_EQ(plans[2].GetBytesSent(0), 0u);
                EXPECT_EQ(plans[2].GetBytesReceived(0), bytes);
                EXPECT_EQ(plans[3].GetBytesSent(0), bytes);
                EXPECT_EQ(plans[3].GetBytesReceived(root), bytes);
                EXPECT_EQ(plans[3].GetBytesReceived(0), 0u);
            }
        }
    }
    // A multicast is not a reduction: an all-gather whose shards are reduced in the
    // network combines data it must only copy.
    CommPlan wrong = InaAllGather(4, 4096);
    CommPlan bad(CollectiveType::ALL_GATHER, 4, 4096);
    for (const auto& b : wrong.GetBlocks())
    {
        bad.AddBlock(b.bytes, b.origin, b.target);
    }
    for (CommPlan::Transfer t : wrong.GetTransfers())
    {
        t.kind = CommPlan::Kind::NETWORK_REDUCE;
        bad.AddTransfer(t);
    }
    const PlanCheckResult r = PlanChecker::Check(bad);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("does not combine data"), std::string::npos) << r.reason;
    // A reduce-scatter whose shard reaches its owner's neighbour, not the owner.
    CommPlan stray = InaReduceScatter(4, 4096);
    CommPlan misdirected(CollectiveType::REDUCE_SCATTER, 4, 4096);
    for (const auto& b : stray.GetBlocks())
    {
        misdirected.AddBlock(b.bytes, b.origin, b.target);
    }
    for (CommPlan::Transfer t : stray.GetTransfers())
    {
        t.src = t.dst = (t.dst + 1) % 4;
        misdirected.AddTransfer(t);
    }
    EXPECT_FALSE(PlanChecker::Check(misdirected).ok);
}

TEST_F(InaCollectives, ValuesGoOnlyWhereTheRolesNeedThem)
{
    // 8 workers under two leaves. A reduce to worker 5 (the second leaf): every worker
    // sends its values, only worker 5 gets the sum's values (and, streaming, each
    // fragment's fallback host), the others value-less acknowledgements. A multicast from worker 2
    // (the first leaf): only worker 2 sends values, every worker gets them. Both take the
    // all-reduce's time (the same frames on the busiest links), for both protocols; contributor
    // counts stay exact.
    const uint32_t n = 8;
    const uint64_t bytes = 256 * 1024;
    for (InaProtocol protocol : {InaProtocol::SWITCHML, InaProtocol::STREAMING})
    {
        std::vector<double> spans;
        for (int shape = 0; shape < 3; ++shape)
        {
            Fabric fabric(n, protocol, MicroSeconds(1));
            InaJob job = fabric.ina.CreateJob(3, fabric.topo.nics);
            ASSERT_TRUE(job.inNetwork) << job.reason;
            InaReductionRoles roles;
            if (shape == 1)
            {
                roles.destination = 5;
            }
            if (shape == 2)
            {
                roles.source = 2;
            }
            std::vector<Reductions> r(n);
            for (uint32_t w = 0; w < n; ++w)
            {
                job.workers[w]->Reduce(job.info.job,
                                       bytes,
                                       MakeCallback(&Reductions::Record, &r[w]),
                                       roles);
            }
            Simulator::Run();
            Reductions all;
            for (uint32_t w = 0; w < n; ++w)
            {
                ASSERT_EQ(r[w].done.size(), 1u) << InaProtocolName(protocol) << " " << w;
                const InaReduction& x = r[w].done[0];
                EXPECT_FALSE(x.failed);
                EXPECT_EQ(x.wrongCounts, 0u);
                EXPECT_EQ(x.retransmissions, 0u);
                const bool sends = shape != 2 || w == 2;
                EXPECT_EQ(x.valuesSent, sends ? bytes : 0u)
                    << InaProtocolName(protocol) << " shape " << shape << " worker " << w;
                EXPECT_EQ(x.valuesReceived,
                          shape == 1 ? ExpectedValuesAtNonSourceOfReduce(job, w, 5, bytes) : bytes)
                    << InaProtocolName(protocol) << " shape " << shape << " worker " << w;
                all.done.push_back(x);
            }
            spans.push_back(Span(all));
            Simulator::Destroy();
        }
        std::cout << "[ measured ] " << InaProtocolName(protocol) << ", " << bytes
                  << " B over 8 workers on two leaves: all-reduce " << spans[0] * 1e6
                  << " us, reduce to one " << spans[1] * 1e6 << " us, multicast from one "
                  << spans[2] * 1e6 << " us\n";
        EXPECT_NEAR(spans[1], spans[0], 0.01 * spans[0]) << InaProtocolName(protocol);
        EXPECT_NEAR(spans[2], spans[0], 0.01 * spans[0]) << InaProtocolName(protocol);
    }
}

TEST_F(InaCollectives, EngineRunsThemAtOneCrossingOfTheLink)
{
    // 16 workers, 100 Gb/s, streaming. Closed forms (bandwidth terms; the path adds a
    // few microseconds): reduce-scatter and reduce send S up every NIC, all-gather and
    // broadcast bring S down every NIC, each at the INA frame overhead, so
    // T ~ S / B x frame / fragment. The ring's reduce-scatter and all-gather move
    // (n - 1)/n S per NIC in n - 1 steps; its broadcast and reduce are chains (S / B).
    const uint32_t n = 16;
    const uint64_t bytes = 16ull << 20;
    const double rate = 100e9;
    const double perByte = InaFrameSeconds(4096, rate) / 4096;
    const std::vector<CollectiveType> types{CollectiveType::REDUCE_SCATTER,
                                            CollectiveType::ALL_GATHER,
                                            CollectiveType::BROADCAST,
                                            CollectiveType::REDUCE};
    for (CollectiveType type : types)
    {
        CollectiveResult ina;
        {
            Fabric fabric(n, InaProtocol::STREAMING, MicroSeconds(1));
            ina = RunCollective(fabric.carrier, type, n, bytes, "ina", 3);
            EXPECT_EQ(ina.algorithm, "ina");
            // The call's pieces (shards, or the root's buffer) all went through the network.
            EXPECT_EQ(fabric.carrier->GetBytesInNetwork(), bytes);
            Simulator::Destroy();
        }
        CollectiveResult ring;
        {
            Fabric fabric(n, InaProtocol::STREAMING, MicroSeconds(1));
            ring = RunCollective(fabric.carrier, type, n, bytes, "ring", 3);
            Simulator::Destroy();
        }
        // The data's time: without the in-network call's protocol latency (one rank per
        // host: the tree's network latency, 14 us; collective-protocol suite).
        const double t = ina.GetDuration().GetSeconds() - 14e-6;
        const double closed = bytes * perByte;
        std::cout << "[ measured ] " << type << " of " << bytes << " B over " << n
                  << " workers at 100 Gb/s: ina " << t * 1e6 << " us (closed form " << closed * 1e6
                  << " us + path), busbw " << ina.busBw / 1e9 << " GB/s; ring "
                  << ring.GetDuration().GetSeconds() * 1e6 << " us, busbw " << ring.busBw / 1e9
                  << " GB/s\n";
        EXPECT_GT(t, closed) << type;
        EXPECT_LT(t, closed * 1.02) << type;
    }
    // Small calls: the network saves the ring's n - 1 (chain: n - 1 + pieces) steps.
    for (CollectiveType type : types)
    {
        double t[2];
        for (int i = 0; i < 2; ++i)
        {
            Fabric fabric(n, InaProtocol::STREAMING, MicroSeconds(1));
            t[i] = RunCollective(fabric.carrier, type, n, 64 * 1024, i == 0 ? "ina" : "ring", 3)
                       .GetDuration()
                       .GetSeconds();
            Simulator::Destroy();
        }
        std::cout << "[ measured ] " << type << " of 64 KiB over " << n << " workers: ina "
                  << t[0] * 1e6 << " us, ring " << t[1] * 1e6 << " us\n";
        EXPECT_LT(t[0] * 3, t[1]) << type;
    }
}

TEST_F(InaCollectives, OnePercentLossKeepsCountsAndValuesExact)
{
    // 1 % of frames lost on every worker's cable, both directions, on both protocols: a
    // reduce to worker 5 and a multicast from worker 2 complete; every result sums each
    // worker once; the values reach exactly the workers that need them, however the
    // fragments were recovered (switch duplicates, fallback hosts, requests).
    const uint32_t n = 8;
    const uint64_t bytes = 512 * 1024;
    for (InaProtocol protocol : {InaProtocol::SWITCHML, InaProtocol::STREAMING})
    {
        for (int shape = 1; shape < 3; ++shape)
        {
            Fabric fabric(n, protocol, MicroSeconds(1));
            int64_t stream = 300;
            for (const auto& nic : fabric.topo.nics)
            {
                Ptr<RoceNetDevice> device = nic->GetDevice();
                AddLoss(device, 0.01, stream++);
                AddLoss(device->GetRoceChannel()->GetPeer(device), 0.01, stream++);
            }
            InaJob job = fabric.ina.CreateJob(4, fabric.topo.nics);
            ASSERT_TRUE(job.inNetwork) << job.reason;
            InaReductionRoles roles;
            (shape == 1 ? roles.destination : roles.source) = shape == 1 ? 5 : 2;
            std::vector<Reductions> r(n);
            for (uint32_t w = 0; w < n; ++w)
            {
                job.workers[w]->Reduce(job.info.job,
                                       bytes,
                                       MakeCallback(&Reductions::Record, &r[w]),
                                       roles);
            }
            Simulator::Run();
            uint64_t retransmissions = 0;
            for (uint32_t w = 0; w < n; ++w)
            {
                ASSERT_EQ(r[w].done.size(), 1u) << InaProtocolName(protocol) << " " << w;
                const InaReduction& x = r[w].done[0];
                EXPECT_FALSE(x.failed);
                EXPECT_EQ(x.wrongCounts, 0u);
                retransmissions += x.retransmissions;
                EXPECT_EQ(x.valuesReceived,
                          shape == 1 ? ExpectedValuesAtNonSourceOfReduce(job, w, 5, bytes) : bytes)
                    << InaProtocolName(protocol) << " shape " << shape << " worker " << w;
            }
            EXPECT_GT(retransmissions, 0u);
            std::cout << "[ measured ] 1% loss, " << InaProtocolName(protocol) << ", "
                      << (shape == 1 ? "reduce to worker 5" : "multicast from worker 2") << ": "
                      << retransmissions << " retransmissions\n";
            Simulator::Destroy();
        }
    }
}

TEST_F(InaCollectives, TheDissectorShowsDirectedResults)
{
    if (!HaveTshark())
    {
        GTEST_SKIP() << "tshark not installed (apt-get install tshark): the dissector "
                        "doc/wireshark/ai-fabric-ina.lua is not checked";
    }
    // Two workers reduce 2 KiB to worker 1 (SwitchML, 1 KiB fragments); worker 0's cable
    // is captured: its two DATA packets carry values up, the two RESULTs come down
    // without values (NO_VALUES | DIRECTED = 0x18) naming destination 1.
    InaReductionRoles roles;
    roles.destination = 1;
    const auto rows = CaptureTwoWorkerReduction("ina-directed",
                                                2048,
                                                roles,
                                                {"ai_fabric_ina.type",
                                                 "ai_fabric_ina.flags",
                                                 "ai_fabric_ina.destination",
                                                 "ai_fabric_ina.length",
                                                 "frame.len"},
                                                AI_FABRIC_SOURCE_DIR);
    ASSERT_EQ(rows.size(), 4u);
    for (const auto& row : rows)
    {
        ASSERT_EQ(row.size(), 5u);
        EXPECT_EQ(row[2], "1");
        EXPECT_EQ(row[3], "1024");
        if (row[0] == "1")
        {
            EXPECT_EQ(row[1], "0x10");
            EXPECT_EQ(row[4], "1094"); // Ethernet 14 + IPv4 20 + UDP 8 + INA 28 + 1024
        }
        else
        {
            EXPECT_EQ(row[1], "0x18");
            EXPECT_EQ(row[4], "70");
        }
    }
}

TEST_F(InaCollectives, SelectionOffersInaWhereTheCarrierAggregates)
{
    // On InaTransport every collective but all-to-all has an ina plan, which auto ranks
    // with the host algorithms; a carrier without aggregation refuses it, saying why.
    const uint32_t n = 8;
    Fabric fabric(n, InaProtocol::STREAMING, MicroSeconds(1));
    const CommGroup group = CommGroup::Uniform(n, 1);
    CollectiveSelection selection(fabric.carrier);
    Ptr<RdmaTransport> plain = CreateObject<RdmaTransport>();
    plain->SetNics(fabric.topo.nics);
    for (CollectiveType type : {CollectiveType::REDUCE_SCATTER,
                                CollectiveType::ALL_GATHER,
                                CollectiveType::BROADCAST,
                                CollectiveType::REDUCE})
    {
        std::string why;
        EXPECT_TRUE(selection.CanMakePlan(type, "ina", group, nullptr, &why))
            << type << ": " << why;
        const auto ranked = selection.Rank(type, group, 1ull << 20);
        EXPECT_TRUE(std::any_of(ranked.begin(), ranked.end(), [](const auto& c) {
            return c.algorithm == CollectiveAlgorithm::INA;
        })) << type;
        EXPECT_FALSE(CollectiveSelection(plain).CanMakePlan(type, "ina", group, nullptr, &why));
        EXPECT_NE(why.find("reducing toward or multicasting from one of them"), std::string::npos)
            << why;
    }
    EXPECT_FALSE(selection.CanMakePlan(CollectiveType::ALL_TO_ALL, "ina", group, nullptr, nullptr));
}

// The limits the doc states ("Limits"): a streaming job names its workers in a 64-bit
// bitmap, so 64 workers are placed and 65 refused with the reason; a SwitchML switch takes
// at most 64 children; and the directed operations (reduce, and with it reduce-scatter,
// all-gather, broadcast) carry the destination's rank in 8 bits, so a group of 257 ranks
// all-reduces in the network while it cannot reduce there, and 256 can.
TEST_F(InaCollectives, WorkerLimitsAreTheDocs)
{
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    {
        RoceTopology star = topoHelper.Star(65, DataRate("100Gbps"), MicroSeconds(1));
        InaHelper streaming;
        streaming.SetProtocol(InaProtocol::STREAMING);
        streaming.Install(star.switchObjects);
        std::vector<Ptr<RdmaNic>> first64(star.nics.begin(), star.nics.begin() + 64);
        EXPECT_TRUE(streaming.CreateJob(1, first64).inNetwork);
        const InaJob refused = streaming.CreateJob(2, star.nics);
        EXPECT_FALSE(refused.inNetwork);
        EXPECT_NE(refused.reason.find("at most 64 workers, this one 65"), std::string::npos)
            << refused.reason;
    }
    {
        RoceTopology star = topoHelper.Star(65, DataRate("100Gbps"), MicroSeconds(1));
        InaHelper switchMl;
        switchMl.SetProtocol(InaProtocol::SWITCHML);
        switchMl.Install(star.switchObjects);
        const InaJob refused = switchMl.CreateJob(1, star.nics);
        EXPECT_FALSE(refused.inNetwork);
        EXPECT_NE(refused.reason.find("1 to 64 children, got 65"), std::string::npos)
            << refused.reason;
        std::vector<Ptr<RdmaNic>> first64(star.nics.begin(), star.nics.begin() + 64);
        const InaJob placed = switchMl.CreateJob(2, first64);
        EXPECT_TRUE(placed.inNetwork) << placed.reason;
    }
    // 5 leaves of 52 hosts under one spine: no switch has more than 52 children.
    // Oversubscribed 52:1 so that an uplink runs at a host's rate.
    RoceTopology tree = topoHelper.LeafSpine(5, 1, 52, DataRate("100Gbps"), 52.0, MicroSeconds(1));
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    ina.SetPoolSlots(8); // several jobs share the switches' slots
    ina.Install(tree.switchObjects);
    Ptr<InaTransport> carrier = CreateObject<InaTransport>();
    carrier->SetNics(tree.nics);
    carrier->SetController(ina.GetController());
    std::vector<uint32_t> ranks(257);
    std::iota(ranks.begin(), ranks.end(), 0);
    EXPECT_TRUE(carrier->CanAllReduceInNetwork(ranks));
    EXPECT_FALSE(carrier->CanReduceInNetwork(ranks));
    ranks.pop_back();
    EXPECT_TRUE(carrier->CanAllReduceInNetwork(ranks));
    EXPECT_TRUE(carrier->CanReduceInNetwork(ranks));
}
