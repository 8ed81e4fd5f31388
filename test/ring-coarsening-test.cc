// SPDX-License-Identifier: GPL-2.0-only
// Coarsened rings (RingCoarsened, CollectiveEngine::RingTransfersPerPhase): a ring whose
// connections carry several steps per transfer, against the ring of one step a transfer.
#include "test-util.h"

#include "ns3/collective-algorithms.h"
#include "ns3/collective-engine.h"
#include "ns3/collective-selection.h"
#include "ns3/flow-transport.h"
#include "ns3/plan-checker.h"
#include "ns3/rdma-transport.h"
#include "ns3/training-report.h"
#include "ns3/training-scenario.h"
#include "ns3/training-simulation.h"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

using namespace aifabric;

namespace
{
class RingCoarsening : public NsTest
{
};

/// A ring's time on a 16-rank star of 400G at flow level.
struct StarRing
{
    uint32_t n{16};
    uint32_t channels{1};
    uint64_t bytes{112197632};
    CollectiveProtocol protocol{CollectiveProtocol::SIMPLE};
    bool roundRobinEnds{false};
    bool packets{false};

    /// \param transfersPerPhase RingTransfersPerPhase \return the call's time, seconds
    double Run(uint32_t transfersPerPhase) const
    {
        Config::Reset();
        RoceHelper roce;
        roce.SetCongestionControl("ns3::RoceDcqcn");
        RoceTopologyHelper topoHelper(roce);
        RoceTopology topo = topoHelper.Star(n, DataRate("400Gbps"), MicroSeconds(1));
        roce.AssignStreams(1);
        Ptr<RdmaTransport> carrier = packets ? CreateObject<RdmaTransport>()
                                             : Ptr<RdmaTransport>(CreateObject<FlowTransport>());
        if (!packets)
        {
            carrier->SetAttribute("RoundRobinEnds", BooleanValue(roundRobinEnds));
        }
        carrier->SetNics(topo.nics);
        Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
        engine->SetTransport(carrier);
        CollectivePlanOptions options;
        options.channels = channels;
        options.protocol = protocol;
        options.ringTransfersPerPhase = transfersPerPhase;
        const CommPlan plan = CollectiveSelection(carrier).MakePlan(CollectiveType::ALL_REDUCE,
                                                                    CollectiveAlgorithm::RING,
                                                                    CommGroup::Uniform(n, 1),
                                                                    bytes,
                                                                    options);
        return RunPlanAlone(engine, plan);
    }
};
} // namespace

TEST_F(RingCoarsening, EachConnectionCarriesTheFineRingsStepsAndBytes)
{
    for (CollectiveType type :
         {CollectiveType::ALL_REDUCE, CollectiveType::REDUCE_SCATTER, CollectiveType::ALL_GATHER})
    {
        const uint32_t phases = type == CollectiveType::ALL_REDUCE ? 2 : 1;
        for (uint32_t n : {2u, 5u, 17u})
        {
            // 3 channels and chunks of 64 KiB, so the ring runs in several rounds (each
            // starting anew: its first steps wait for nothing); bytes not a multiple of
            // anything, so the shards differ by a byte.
            const CommPlan fine = RingCoarsened(type, n, 10'000'019, 3, 1 << 16, 0);
            ASSERT_FALSE(fine.IsCoarse());
            const uint32_t rounds = fine.GetNTransfers() / (n * 3 * phases * (n - 1));
            ASSERT_GE(rounds, 3u) << n << " ranks";
            ASSERT_EQ(fine.GetNTransfers(), rounds * n * 3 * phases * (n - 1));
            // Per connection, the fine ring's transfers in issue order.
            std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<uint32_t>> steps;
            for (const CommPlan::Transfer& t : fine.GetTransfers())
            {
                steps[std::make_tuple(t.src, t.dst, t.channel)].push_back(t.id);
            }
            for (uint32_t k : {1u, 2u, 3u, 4u, 16u})
            {
                const CommPlan coarse = RingCoarsened(type, n, 10'000'019, 3, 1 << 16, k);
                std::string why;
                ASSERT_TRUE(coarse.Validate(&why)) << why;
                // ceil((n - 1) / k) steps a transfer, the last of a phase fewer.
                const uint32_t g = (n - 1 + k - 1) / k;
                EXPECT_EQ(coarse.IsCoarse(), g > 1) << n << " ranks, " << k;
                // Each coarse transfer carries the next steps of its connection: their
                // bytes, the first one's step number, as many as a group holds.
                std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::size_t> next;
                for (const CommPlan::Transfer& t : coarse.GetTransfers())
                {
                    const auto key = std::make_tuple(t.src, t.dst, t.channel);
                    std::size_t& at = next[key];
                    const std::vector<uint32_t>& mine = steps[key];
                    ASSERT_LE(at + t.steps, mine.size()) << type << ", " << n << ", " << k;
                    EXPECT_EQ(t.step, fine.GetTransfer(mine[at]).step);
                    EXPECT_EQ(t.steps, std::min(g, n - 1 - t.step % (n - 1)));
                    uint64_t bytes = 0;
                    for (uint32_t i = 0; i < t.steps; ++i)
                    {
                        bytes += fine.GetTransfer(mine[at + i]).bytes;
                    }
                    EXPECT_EQ(t.bytes, bytes) << type << ", " << n << " ranks, " << k;
                    at += t.steps;
                    // It waits only for what its sender received on its channel.
                    for (uint32_t d : t.deps)
                    {
                        EXPECT_EQ(coarse.GetTransfer(d).dst, t.src);
                        EXPECT_EQ(coarse.GetTransfer(d).channel, t.channel);
                    }
                }
                for (const auto& [key, ids] : steps)
                {
                    EXPECT_EQ(next[key], ids.size()) << "every step carried once";
                }
                EXPECT_EQ(coarse.GetNTransfers(), rounds * n * 3 * phases * ((n - 1 + g - 1) / g));
                EXPECT_EQ(coarse.GetNSteps(), fine.GetNSteps());
                const PlanCheckResult check = PlanChecker::Check(coarse);
                EXPECT_EQ(check.ok, g == 1);
                if (g > 1)
                {
                    EXPECT_NE(check.reason.find("timing schedule"), std::string::npos)
                        << check.reason;
                }
            }
            EXPECT_TRUE(PlanChecker::Check(fine).ok);
        }
    }
}

TEST_F(RingCoarsening, InLockstepACoarsenedRingTakesTheFineRingsTime)
{
    // A one-channel ring on a star: every connection runs at one rate, nothing fills a
    // step's latency, so a transfer of g steps is held for g steps' latencies, paths and
    // bytes at the path's rate alone. The fine ring's steps also carry the ACKs of the
    // data each rank receives (one 86-byte frame every AckInterval = 4 data frames of
    // 4178 B on the wire), which the path's rate alone leaves out: the coarsened ring is
    // faster by exactly that share of the bytes' time, whatever the transfers a phase.
    // 16 ranks: 15 steps a phase; 4 transfers a phase -> 4, 4, 4, 3 steps; 2 -> 8, 7.
    StarRing ring;
    const double ack = roce::WireBytes(roce::ACK_FRAME_BYTES) / (4.0 * roce::WireBytes(4154));
    const double acks = 2.0 * (ring.n - 1) * FlowTransport::WireBytesOf(ring.bytes / ring.n, 4096) *
                        ack * 8 / 400e9;
    for (CollectiveProtocol protocol : {CollectiveProtocol::SIMPLE, CollectiveProtocol::NONE})
    {
        ring.protocol = protocol;
        const double fine = ring.Run(0);
        for (uint32_t k : {4u, 2u, 1u})
        {
            const double coarse = ring.Run(k);
            std::cout << "[ measured ] ring all-reduce 107 MiB, 16 ranks, " << protocol
                      << ", one channel: a step a transfer " << fine * 1e6 << " us, " << k
                      << " transfers a phase " << coarse * 1e6 << " us (ACKs' share " << acks * 1e6
                      << " us)\n";
            // Rounding to nanoseconds: a few per step of the fine ring.
            EXPECT_NEAR(fine - coarse, acks, 30 * 3e-9) << protocol << ", " << k;
        }
    }
}

TEST_F(RingCoarsening, ChannelsThatDriftApartStayNearTheFineRing)
{
    // The drift of TheChannelsOfARingDriftApartAsWithPackets: 8 channels on each NIC, its
    // round robin ending messages a frame apart, so one channel's step latency is filled
    // by the others' data and the ring runs at the NIC's rate. A coarsened transfer's
    // hold (its steps' latencies and bytes alone) is shorter than its share of the NIC
    // takes: it does not bind, and the ring takes the fine ring's time.
    StarRing ring;
    ring.channels = 8;
    ring.roundRobinEnds = true;
    const double fine = ring.Run(0);
    ring.packets = true;
    const double packets = ring.Run(0);
    ring.packets = false;
    for (uint32_t k : {8u, 4u, 2u})
    {
        const double coarse = ring.Run(k);
        std::cout << "[ measured ] ring all-reduce 107 MiB, 16 ranks x 8 channels, Simple: "
                  << "packets " << packets * 1e6 << " us, flows " << fine * 1e6 << " us, " << k
                  << " transfers a phase " << coarse * 1e6 << " us (" << (coarse / fine - 1) * 100
                  << " %)\n";
        EXPECT_NEAR(coarse, fine, 1e-4 * fine) << k;
    }
}

namespace
{
/// Run a scenario of 16 GPUs (16 servers of one, or 2 of 8), data parallel over all 16 (a
/// ring of 16 ranks: 15 steps a phase), with the given fabric model and collectives
/// section.
nlohmann::json
RunDataParallel16(const std::string& fabric,
                  const std::string& collectives,
                  const std::string& dir,
                  std::string* summary,
                  uint32_t gpusPerServer = 1)
{
    TrainingScenario s;
    std::string error;
    EXPECT_TRUE(TrainingScenario::Parse(
        R"({"cluster": {"servers": )" + std::to_string(16 / gpusPerServer) +
            R"(, "gpusPerServer": )" + std::to_string(gpusPerServer) +
            R"(, "spines": 2}, "fabric": {"model": ")" + fabric + R"("}, "collectives": )" +
            collectives +
            R"(, "workload": {"format": "generator", "model": {"layers": 2, "hidden": 2048,
            "heads": 16, "seqLength": 256, "vocab": 1000, "tp": 1, "dp": 16,
            "globalBatch": 16}}, "outputs": {"plots": false}})",
        "dp16.json",
        s,
        &error))
        << error;
    TrainingSimulation sim(s);
    EXPECT_TRUE(sim.ApplyGlobalSettings(&error) && sim.Build(&error)) << error;
    sim.Run(false);
    TrainingReport report(sim);
    std::ostringstream text;
    report.PrintSummary(text);
    *summary = text.str();
    EXPECT_FALSE(report.Write(aifabric::TestDir() + dir, false, &error).empty()) << error;
    Simulator::Destroy();
    std::ifstream in(aifabric::TestDir() + dir + "/results.json");
    return nlohmann::json::parse(in);
}
} // namespace

TEST_F(RingCoarsening, TheFlowLevelCoarsensRingsOfMoreThanNineRanks)
{
    std::string summary;
    const nlohmann::json coarse =
        RunDataParallel16("flow",
                          R"({"algorithm": "ring", "protocol": "Simple"})",
                          "coarse",
                          &summary);
    EXPECT_EQ(coarse["scenario"]["ringTransfersPerPhase"],
              TrainingScenario::FLOW_RING_TRANSFERS_PER_PHASE);
    EXPECT_NE(summary.find("rings coarsened: at most 8 transfers per connection and phase"),
              std::string::npos)
        << summary;
    const nlohmann::json fine = RunDataParallel16(
        "flow",
        R"({"algorithm": "ring", "protocol": "Simple", "ringTransfersPerPhase": 0})",
        "fine",
        &summary);
    EXPECT_EQ(fine["scenario"]["ringTransfersPerPhase"], 0);
    EXPECT_EQ(summary.find("rings coarsened"), std::string::npos) << summary;
    const nlohmann::json packets =
        RunDataParallel16("packet",
                          R"({"algorithm": "ring", "protocol": "Simple"})",
                          "packets",
                          &summary);
    EXPECT_EQ(packets["scenario"]["ringTransfersPerPhase"], 0);
    // 15 steps a phase in at most 8 transfers: 7 of 2 steps and the last of 1.
    const double messages = coarse["fabric"]["flow_level"]["messages"].get<double>();
    EXPECT_DOUBLE_EQ(messages / fine["fabric"]["flow_level"]["messages"].get<double>(), 8.0 / 15);
    EXPECT_EQ(coarse["fabric"]["flow_level"]["payload_bytes"],
              fine["fabric"]["flow_level"]["payload_bytes"]);
    const double t[3] = {coarse["iterations"][0]["time_s"].get<double>(),
                         fine["iterations"][0]["time_s"].get<double>(),
                         packets["iterations"][0]["time_s"].get<double>()};
    std::cout << "[ measured ] 16 servers, DP 16: coarsened " << t[0] * 1e3 << " ms, fine "
              << t[1] * 1e3 << " ms, packets " << t[2] * 1e3 << " ms, messages " << messages
              << "\n";
    // One channel a NIC: a transfer is held for its steps, without the ACKs of the data
    // its sender receives (InLockstepACoarsenedRingTakesTheFineRingsTime): a little faster.
    EXPECT_LT(t[0], t[1]);
    EXPECT_GT(t[0], 0.995 * t[1]);
    EXPECT_NEAR(t[1], t[2], 0.001 * t[2]); // the flow level against its reference
}

TEST_F(RingCoarsening, StepLatenciesAThreadBlockWaitsOutStayInTheCall)
{
    // A rail ring over 2 servers of 8 GPUs: 14 of its 16 hops on NVLink, where a channel's
    // thread block copies at its share of the NVLink rate and waits out each step's
    // latency without lending that share (a rate server of the protocol). A coarsened
    // transfer keeps its server through the latencies of its steps after the first, so
    // they stay in the call as the fine ring's steps pay them (measured +0.48 %; without
    // them on the server, -4.7 %).
    std::string summary;
    double mean[2];
    for (uint32_t k : {8u, 0u})
    {
        const nlohmann::json r = RunDataParallel16(
            "flow",
            R"({"algorithm": "rail-ring", "ringTransfersPerPhase": )" + std::to_string(k) + "}",
            "rail" + std::to_string(k),
            &summary,
            8);
        ASSERT_EQ(r["communication"].size(), 1u);
        const auto& c = r["communication"][0];
        mean[k == 0] = c["total_s"].get<double>() / c["calls"].get<double>();
    }
    std::cout << "[ measured ] rail-ring all-reduce, 2 servers x 8 GPUs, flow level: 8 "
              << "transfers a phase " << mean[0] * 1e6 << " us, a step a transfer " << mean[1] * 1e6
              << " us (" << (mean[0] / mean[1] - 1) * 100 << " %)\n";
    EXPECT_NEAR(mean[0], mean[1], 0.02 * mean[1]);
}
