// SPDX-License-Identifier: GPL-2.0-only
// The carriers: RDMA connections per (peer, channel), reused, completions in send order
// at the receiver's last byte; the ServerRoutingTransport sends each transfer to the
// carrier of its servers, with rank numbers and port ids translated.
#include "test-util.h"

#include "ns3/ideal-transport.h"
#include "ns3/rdma-transport.h"
#include "ns3/server-routing-transport.h"

#include <set>

using namespace aifabric;

namespace
{
class CollectiveTransportTest : public NsTest
{
};

struct Log
{
    std::vector<std::pair<int, Time>> done;
};

void
Record(Log* log, int tag)
{
    log->done.emplace_back(tag, Simulator::Now());
}
} // namespace

TEST_F(CollectiveTransportTest, RdmaConnectionsAreReusedAndCompleteInOrder)
{
    RoceHelper roce;
    roce.SetCongestionControl("ns3::NoCongestionControl");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(3, DataRate("100Gbps"), MicroSeconds(1));
    Ptr<RdmaTransport> transport = CreateObject<RdmaTransport>();
    transport->SetNics(topo.nics);
    EXPECT_EQ(transport->GetNRanks(), 3u);
    Log log;
    Simulator::Schedule(Seconds(0), [&]() {
        transport->Send(0, 1, 1 << 20, 0, MakeBoundCallback(&Record, &log, 1));
        transport->Send(0, 1, 4096, 0, MakeBoundCallback(&Record, &log, 2));
        transport->Send(0, 1, 1 << 20, 1, MakeBoundCallback(&Record, &log, 3));
        transport->Send(1, 2, 100000, 0, MakeBoundCallback(&Record, &log, 4));
        transport->Send(2, 2, 1 << 20, 0, MakeBoundCallback(&Record, &log, 5)); // in place
        transport->Send(0, 2, 0, 0, MakeBoundCallback(&Record, &log, 6));       // empty
    });
    Simulator::Run();
    ASSERT_EQ(log.done.size(), 6u);
    EXPECT_EQ(transport->GetNConnections(), 3u); // (0,1,0), (0,1,1), (1,2,0)
    std::map<int, Time> at;
    for (auto& [tag, t] : log.done)
    {
        at[tag] = t;
    }
    // Same connection: in order. The small one waits behind the large one.
    EXPECT_GT(at[2], at[1]);
    // In-place and empty transfers cost nothing.
    EXPECT_EQ(at[5], Seconds(0));
    EXPECT_EQ(at[6], Seconds(0));
    // Two channels from one NIC share its port: together they take about twice as long
    // as one 1 MiB message at the payload rate.
    double oneMiB = (1 << 20) * 8.0 / PayloadRate(100e9);
    EXPECT_NEAR(std::max(at[2], at[3]).GetSeconds(), 2 * oneMiB, 0.05 * 2 * oneMiB);
}

TEST_F(CollectiveTransportTest, RankOutsideTheTransportAborts)
{
    EXPECT_DEATH(
        {
            Ptr<RdmaTransport> transport = CreateObject<RdmaTransport>();
            transport->Send(0, 1, 10, 0, MakeNullCallback<void>());
        },
        "rank 0 outside the 0 ranks");
}

namespace
{
void
SendBetweenRanksOnOneNic()
{
    RoceHelper roce;
    auto [a, b] = BackToBack(roce, DataRate("100Gbps"), MicroSeconds(1));
    Ptr<RdmaTransport> transport = CreateObject<RdmaTransport>();
    std::vector<Ptr<RdmaNic>> nics{a, a, b};
    transport->SetNics(nics);
    transport->Send(0, 1, 4096, 0, MakeNullCallback<void>());
}
} // namespace

TEST_F(CollectiveTransportTest, RanksSharingOneNicAreRefused)
{
    EXPECT_DEATH(SendBetweenRanksOnOneNic(), "ranks 0 and 1 share one NIC");
}

namespace
{
/// An ideal carrier of n ranks at rate, with latency per message.
Ptr<IdealTransport>
Ideal(uint32_t n, const std::string& rate, Time latency)
{
    Ptr<IdealTransport> t = CreateObject<IdealTransport>();
    t->SetAttribute("NRanks", UintegerValue(n));
    t->SetAttribute("DataRate", DataRateValue(DataRate(rate)));
    t->SetAttribute("Latency", TimeValue(latency));
    return t;
}

/// (src, dst) of every message a carrier was handed.
void
RecordPair(std::vector<std::pair<uint32_t, uint32_t>>* pairs,
           uint32_t src,
           uint32_t dst,
           uint64_t /* bytes */,
           uint32_t /* channel */)
{
    pairs->emplace_back(src, dst);
}

/// Two servers with sparse ids (2 and 5) of two GPUs each: ranks 0, 1 on server 2, ranks
/// 2, 3 on server 5.
CommGroup
TwoServers()
{
    return CommGroup({{2, 0}, {2, 1}, {5, 0}, {5, 1}});
}
} // namespace

// Each transfer goes to the carrier of its servers, numbered as that carrier numbers its
// ranks, and costs exactly what that carrier charges (the ideal carrier's message time).
TEST_F(CollectiveTransportTest, ServerRoutingSendsByServer)
{
    const uint64_t bytes = 1 << 20;
    Ptr<IdealTransport> up2 = Ideal(2, "800Gbps", MicroSeconds(1));
    Ptr<IdealTransport> up5 = Ideal(2, "400Gbps", MicroSeconds(1));
    Ptr<IdealTransport> out = Ideal(4, "100Gbps", MicroSeconds(3));
    std::vector<std::pair<uint32_t, uint32_t>> on2;
    std::vector<std::pair<uint32_t, uint32_t>> on5;
    std::vector<std::pair<uint32_t, uint32_t>> onOut;
    up2->TraceConnectWithoutContext("MessageSent", MakeBoundCallback(&RecordPair, &on2));
    up5->TraceConnectWithoutContext("MessageSent", MakeBoundCallback(&RecordPair, &on5));
    out->TraceConnectWithoutContext("MessageSent", MakeBoundCallback(&RecordPair, &onOut));
    Ptr<ServerRoutingTransport> router = CreateObject<ServerRoutingTransport>();
    router->Setup(TwoServers(), {up2, up5}, out);
    EXPECT_EQ(router->GetNRanks(), 4u);
    Log log;
    Simulator::Schedule(Seconds(0), [&]() {
        router->Send(0, 1, bytes, 0, MakeBoundCallback(&Record, &log, 1));
        router->Send(3, 2, bytes, 0, MakeBoundCallback(&Record, &log, 2));
        router->Send(1, 2, bytes, 0, MakeBoundCallback(&Record, &log, 3));
    });
    Simulator::Run();
    ASSERT_EQ(log.done.size(), 3u);
    std::map<int, Time> at;
    for (auto& [tag, t] : log.done)
    {
        at[tag] = t;
    }
    // The ideal carrier's time is exact (one message on an idle port each).
    EXPECT_EQ(at[1], up2->GetMessageTime(bytes));
    EXPECT_EQ(at[2], up5->GetMessageTime(bytes));
    EXPECT_EQ(at[3], out->GetMessageTime(bytes));
    // Server 5's carrier sees its local GPUs; the scale-out carrier the group's ranks.
    using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;
    EXPECT_EQ(on2, (Pairs{{0, 1}}));
    EXPECT_EQ(on5, (Pairs{{1, 0}}));
    EXPECT_EQ(onOut, (Pairs{{1, 2}}));
    EXPECT_EQ(router->GetIntraServerBytes(), 2 * bytes);
    EXPECT_EQ(router->GetInterServerBytes(), bytes);
}

// The cost model tells ports apart by id: every (rank, carrier) has its own sending and
// receiving port, a rank keeps its port to every peer on one carrier, and the figures are
// the carrier's own.
TEST_F(CollectiveTransportTest, ServerRoutingKeepsPortsDistinct)
{
    Ptr<IdealTransport> up2 = Ideal(2, "800Gbps", MicroSeconds(1));
    Ptr<IdealTransport> up5 = Ideal(2, "400Gbps", MicroSeconds(1));
    Ptr<IdealTransport> out = Ideal(4, "100Gbps", MicroSeconds(3));
    Ptr<ServerRoutingTransport> router = CreateObject<ServerRoutingTransport>();
    router->Setup(TwoServers(), {up2, up5}, out);
    const CommGroup group = TwoServers();
    std::map<std::pair<uint32_t, bool>, uint64_t> tx; // (rank, scale-up) -> port
    std::map<std::pair<uint32_t, bool>, uint64_t> rx;
    for (uint32_t s = 0; s < 4; ++s)
    {
        for (uint32_t d = 0; d < 4; ++d)
        {
            if (s == d)
            {
                continue;
            }
            const bool up = group.SameServer(s, d);
            const CarrierPath p = router->DescribePath(s, d);
            const double rate = up ? (group.GetServer(s) == 2 ? 100e9 : 50e9) : 12.5e9;
            EXPECT_DOUBLE_EQ(p.bytesPerSecond, rate) << s << "->" << d;
            EXPECT_EQ(p.latency, up ? MicroSeconds(1) : MicroSeconds(3));
            auto [t, tNew] = tx.emplace(std::make_pair(s, up), p.txPort);
            EXPECT_EQ(t->second, p.txPort) << "rank " << s << " changed its sending port";
            auto [r, rNew] = rx.emplace(std::make_pair(d, up), p.rxPort);
            EXPECT_EQ(r->second, p.rxPort) << "rank " << d << " changed its receiving port";
        }
    }
    std::set<uint64_t> ids;
    for (const auto* ports : {&tx, &rx})
    {
        for (const auto& [key, id] : *ports)
        {
            ids.insert(id);
        }
    }
    EXPECT_EQ(tx.size(), 8u); // 4 ranks x {scale-up, scale-out}
    EXPECT_EQ(ids.size(), tx.size() + rx.size()) << "two ports share an id";
}

// One scale-up carrier shared by every server keeps the group's rank numbers; without a
// scale-out carrier a transfer between servers is refused, naming the ranks.
TEST_F(CollectiveTransportTest, ServerRoutingOverOneSharedScaleUpCarrier)
{
    Ptr<IdealTransport> shared = Ideal(4, "800Gbps", MicroSeconds(1));
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    shared->TraceConnectWithoutContext("MessageSent", MakeBoundCallback(&RecordPair, &pairs));
    Ptr<ServerRoutingTransport> router = CreateObject<ServerRoutingTransport>();
    router->SetupShared(TwoServers(), shared, nullptr);
    Simulator::Schedule(Seconds(0),
                        [&]() { router->Send(3, 2, 4096, 0, MakeNullCallback<void>()); });
    Simulator::Run();
    EXPECT_EQ(pairs, (std::vector<std::pair<uint32_t, uint32_t>>{{3, 2}}));
    EXPECT_EQ(router->DescribePath(3, 2).txPort, shared->DescribePath(3, 2).txPort * 2);
    EXPECT_FALSE(router->CanReduceInSwitch({2, 3})); // the ideal carrier has no switch
    EXPECT_DEATH(router->Send(1, 2, 4096, 0, MakeNullCallback<void>()),
                 "ranks 1 and 2 are on different servers and there is no scale-out carrier");
}

TEST_F(CollectiveTransportTest, ServerRoutingNeedsOneCarrierPerServer)
{
    Ptr<ServerRoutingTransport> router = CreateObject<ServerRoutingTransport>();
    EXPECT_DEATH(router->Setup(TwoServers(), {Ideal(2, "800Gbps", MicroSeconds(1))}, nullptr),
                 "1 scale-up carriers for 2 servers");
    EXPECT_DEATH(
        router->Setup(TwoServers(),
                      {Ideal(2, "800Gbps", MicroSeconds(1)), Ideal(1, "800Gbps", MicroSeconds(1))},
                      nullptr),
        "rank 3 is GPU 1 of server 5, whose carrier has 1 GPUs");
}
