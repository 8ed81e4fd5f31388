// SPDX-License-Identifier: GPL-2.0-only
// Queue pairs per connection (RdmaTransport::QpsPerConnection, NCCL_IB_QPS_PER_CONNECTION,
// and SplitDataOnQps, NCCL_IB_SPLIT_DATA_ON_QPS): how a transfer's bytes are spread over
// the queue pairs (closed forms from NCCL's rules), that each queue pair has its own UDP
// source port and carries its share, that a transfer completes when its last part does,
// and that on a leaf-spine whose uplinks run at the hosts' rate, queue pairs hashed apart
// by ECMP undo a collision that one queue pair per connection keeps for the whole call.
#include "test-util.h"

#include "ns3/rdma-transport.h"
#include "ns3/training-report.h"
#include "ns3/training-scenario.h"
#include "ns3/training-simulation.h"

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using namespace aifabric;

namespace
{
class QpsPerConnection : public NsTest
{
};

/// Time at which each transfer completed, by tag.
struct Done
{
    std::map<int, Time> at;
};

void
Record(Done* done, int tag)
{
    done->at[tag] = Simulator::Now();
}
} // namespace

// NCCL_IB_SPLIT_DATA_ON_QPS=1: each queue pair takes ceil(bytes / n) rounded up to 128 B,
// the last ones what is left.
TEST_F(QpsPerConnection, SplitSharesAreEvenAndAligned)
{
    uint64_t next = 5; // not used when splitting
    EXPECT_EQ(RdmaTransport::SpreadOverQps(1 << 20, 4, true, 512 * 1024, next),
              (std::vector<uint64_t>{262144, 262144, 262144, 262144}));
    EXPECT_EQ(RdmaTransport::SpreadOverQps(1000, 4, true, 512 * 1024, next),
              (std::vector<uint64_t>{256, 256, 256, 232}));
    EXPECT_EQ(RdmaTransport::SpreadOverQps(100, 4, true, 512 * 1024, next),
              (std::vector<uint64_t>{100, 0, 0, 0}));
    EXPECT_EQ(next, 5u);
}

// NCCL's default: requests of RequestBytes take the queue pairs in turn, continuing from
// the connection's last request. 3 MiB + 100 B in 512 KiB requests from request 2 over 4
// queue pairs: requests 2..8 go to queue pairs 2, 3, 0, 1, 2, 3, 0 (the last one short).
TEST_F(QpsPerConnection, RequestsTakeTheQueuePairsInTurn)
{
    const uint64_t r = 512 * 1024;
    uint64_t next = 2;
    EXPECT_EQ(RdmaTransport::SpreadOverQps(3 * 1024 * 1024 + 100, 4, false, r, next),
              (std::vector<uint64_t>{r + 100, r, 2 * r, 2 * r}));
    EXPECT_EQ(next, 9u);
    // A transfer smaller than a request uses one queue pair: the next in turn.
    EXPECT_EQ(RdmaTransport::SpreadOverQps(4096, 4, false, r, next),
              (std::vector<uint64_t>{0, 4096, 0, 0}));
    EXPECT_EQ(next, 10u);
}

// Over the fabric: four queue pairs with four source ports carry 256 KiB each of a 1 MiB
// split transfer, which completes once, when the last part does, as fast as one queue pair
// (one NIC port paces them all) within 2 %; a second transfer on the connection completes
// after it.
TEST_F(QpsPerConnection, AConnectionsQueuePairsCarryTheirShares)
{
    auto run = [](uint32_t qps, std::vector<Ptr<RdmaQueuePair>>* senders) {
        RoceHelper roce;
        roce.SetCongestionControl("ns3::NoCongestionControl");
        RoceTopologyHelper topoHelper(roce);
        RoceTopology topo = topoHelper.Star(2, DataRate("100Gbps"), MicroSeconds(1));
        Ptr<RdmaTransport> transport = CreateObject<RdmaTransport>();
        transport->SetAttribute("QpsPerConnection", UintegerValue(qps));
        transport->SetAttribute("SplitDataOnQps", BooleanValue(true));
        transport->SetNics(topo.nics);
        Done done;
        uint32_t calls = 0;
        Simulator::Schedule(Seconds(0), [&]() {
            transport->Send(0, 1, 1 << 20, 0, Callback<void>([&]() {
                                ++calls;
                                Record(&done, 1);
                            }));
            transport->Send(0, 1, 4096, 0, MakeBoundCallback(&Record, &done, 2));
        });
        Simulator::Run();
        EXPECT_EQ(calls, 1u);
        EXPECT_EQ(transport->GetNConnections(), 1u);
        *senders = transport->GetSenders(0, 1, 0);
        const std::pair<Time, Time> t{done.at[1], done.at[2]};
        Simulator::Destroy();
        return t;
    };
    std::vector<Ptr<RdmaQueuePair>> one;
    std::vector<Ptr<RdmaQueuePair>> four;
    const auto [t1, small1] = run(1, &one);
    const auto [t4, small4] = run(4, &four);
    ASSERT_EQ(one.size(), 1u);
    ASSERT_EQ(four.size(), 4u);
    std::set<uint16_t> ports;
    for (size_t q = 0; q < four.size(); ++q)
    {
        // 262144 of the large transfer; the small one (4096 B: one 128 B-aligned share of
        // 1024 B per queue pair) adds 1024 to each.
        EXPECT_EQ(four[q]->GetBytesPosted(), 262144u + 1024u) << q;
        EXPECT_EQ(four[q]->GetBytesAcked(), 262144u + 1024u) << q;
        ports.insert(four[q]->GetUdpSourcePort());
    }
    EXPECT_EQ(ports.size(), 4u) << "queue pairs of a connection share a source port";
    EXPECT_EQ(one[0]->GetBytesPosted(), (1u << 20) + 4096u);
    EXPECT_NEAR(t4.GetSeconds(), t1.GetSeconds(), 0.02 * t1.GetSeconds());
    const double ideal = (1 << 20) * 8.0 / PayloadRate(100e9);
    EXPECT_GT(t4.GetSeconds(), ideal);
    EXPECT_GE(small4, t4);
    EXPECT_GE(small1, t1);
}

// Two leaves of 8 hosts, 8 spines, uplinks at the hosts' 100 Gb/s: host i writes 8 MiB to
// host i + 8, every flow crossing a spine. One queue pair per connection: ECMP puts some
// flows on one uplink or downlink (this seed: the slowest flow takes 4.1 times the payload
// time), for the whole transfer. Eight queue pairs per connection: 64 subflows spread over
// the 8 spines, and the slowest finishes in 1.56 payload times split evenly
// (SplitDataOnQps), 1.56 with NCCL's default (16 requests of 512 KiB, two per queue pair).
TEST_F(QpsPerConnection, QueuePairsSpreadOverTheSpines)
{
    auto run = [](uint32_t qps, bool split) {
        RngSeedManager::SetRun(3);
        RoceHelper roce;
        roce.SetCongestionControl("ns3::RoceDcqcn");
        RoceTopologyHelper topoHelper(roce);
        RoceTopology topo =
            topoHelper.LeafSpine(2, 8, 8, DataRate("100Gbps"), 1.0, MicroSeconds(1));
        roce.AssignStreams(1);
        Ptr<RdmaTransport> transport = CreateObject<RdmaTransport>();
        transport->SetAttribute("QpsPerConnection", UintegerValue(qps));
        transport->SetAttribute("SplitDataOnQps", BooleanValue(split));
        transport->SetNics(topo.nics);
        Done done;
        Simulator::Schedule(Seconds(0), [&]() {
            for (uint32_t i = 0; i < 8; ++i)
            {
                transport->Send(i,
                                i + 8,
                                8 << 20,
                                0,
                                MakeBoundCallback(&Record, &done, static_cast<int>(i)));
            }
        });
        Simulator::Run();
        EXPECT_EQ(done.at.size(), 8u);
        Time last;
        for (const auto& [tag, t] : done.at)
        {
            last = std::max(last, t);
        }
        Simulator::Destroy();
        return last.GetSeconds();
    };
    const double payload = (8 << 20) * 8.0 / PayloadRate(100e9);
    const double one = run(1, false);
    const double split = run(8, true);
    const double turns = run(8, false);
    std::cout << "[ measured ] slowest of 8 crossing flows: " << one / payload
              << " payload times with 1 QP per connection, " << split / payload << " with 8 split, "
              << turns / payload << " with 8 in turn\n";
    EXPECT_GT(one, 3 * payload) << "no ECMP collision with one queue pair: not exercised";
    for (const double eight : {split, turns})
    {
        EXPECT_LT(eight, 2 * payload);
        EXPECT_GT(eight, payload);
    }
}

// The reports say what the carrier ran with: the summary's cluster block names the queue
// pairs when there is more than one, and results.json always has them, read back from the
// carrier (here set by the scenario's collectives section).
TEST_F(QpsPerConnection, TheReportsNameTheQueuePairs)
{
    TrainingScenario scenario;
    std::string error;
    ASSERT_TRUE(TrainingScenario::Parse(
        R"({"cluster": {"servers": 2, "gpusPerServer": 2, "spines": 1},
            "collectives": {"qpsPerConnection": 2, "splitDataOnQps": true},
            "workload": {"format": "generator",
                         "model": {"layers": 1, "hidden": 256, "heads": 4, "seqLength": 64,
                                   "vocab": 100, "tp": 2, "dp": 2, "globalBatch": 2}}})",
        "qps.json",
        scenario,
        &error))
        << error;
    TrainingSimulation sim(scenario);
    ASSERT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    sim.Run(false);
    ASSERT_TRUE(sim.GetRunner()->IsFinished());
    TrainingReport report(sim);
    std::ostringstream summary;
    report.PrintSummary(summary);
    EXPECT_NE(summary.str().find("2 queue pairs per RDMA connection, every transfer split "
                                 "over them"),
              std::string::npos)
        << summary.str();
    std::ostringstream results;
    report.WriteResults(results);
    const nlohmann::json doc = nlohmann::json::parse(results.str());
    EXPECT_EQ(doc["scenario"]["qpsPerConnection"], 2);
    EXPECT_EQ(doc["scenario"]["splitDataOnQps"], true);
    // The DP connection of rank 0 to rank 2 (GPU 0 of each server, one NIC each) has two
    // queue pairs, both of which carried data.
    const std::vector<Ptr<RdmaQueuePair>> senders = sim.GetCluster().scaleOut->GetSenders(0, 2, 0);
    ASSERT_EQ(senders.size(), 2u);
    EXPECT_GT(senders[0]->GetBytesPosted(), 0u);
    EXPECT_GT(senders[1]->GetBytesPosted(), 0u);
    Simulator::Destroy();
}
