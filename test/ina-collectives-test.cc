// SPDX-License-Identifier: GPL-2.0-only
// In-network reduce-scatter, all-gather, broadcast and reduce: the workers' roles (values
// only from a multicast's source, the sum's values only toward a reduce's destination),
// the plans the checker proves, and the collective engine running them on InaTransport
// against closed forms and the ring.
#include "ina-test-util.h"

#include <numeric>

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
    const CommPlan plan = engine->MakeCollectivePlan(type, group, bytes, {}, root, algorithm);
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
    // sends its values, only worker 5 gets the sum's values, the others value-less
    // acknowledgements. A multicast from worker 2 (the first leaf): only worker 2 sends
    // values, every worker gets them. Both take the all-reduce's time (the same frames
    // on the busiest links), for both protocols; contributor counts stay exact.
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
                const bool gets = shape != 1 || w == 5;
                EXPECT_EQ(x.valuesSent, sends ? bytes : 0u)
                    << InaProtocolName(protocol) << " shape " << shape << " worker " << w;
                EXPECT_EQ(x.valuesReceived, gets ? bytes : 0u)
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
        const double t = ina.GetDuration().GetSeconds();
        const double closed = bytes * perByte;
        std::cout << "[ measured ] " << type << " of " << bytes << " B over " << n
                  << " workers at 100 Gb/s: ina " << t * 1e6 << " us (closed form " << closed * 1e6
                  << " us + path), busbw " << ina.busBw / 1e9 << " GB/s; ring "
                  << ring.GetDuration().GetSeconds() * 1e6 << " us, busbw " << ring.busBw / 1e9
                  << " GB/s\n";
        EXPECT_GT(t, closed) << type;
        EXPECT_LT(t, closed * 1.02) << type;
    }
}
