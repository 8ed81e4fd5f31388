// SPDX-License-Identifier: GPL-2.0-only
// The RDMA carrier of the collective layer: connections per (peer, channel), reused;
// completions in send order, at the receiver's last byte.
#include "test-util.h"

#include "ns3/rdma-transport.h"

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
