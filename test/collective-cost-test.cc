// SPDX-License-Identifier: GPL-2.0-only
// The cost model behind "auto" (CollectivePlanCost over the carriers' DescribePath):
// its estimates against the carriers' simulated times, and auto's choice against every
// algorithm run by name.
#include "plan-test-util.h"
#include "test-util.h"

#include <cmath>
#include <map>
#include <string>

using namespace aifabric;

namespace
{

/// A carrier of the tests: ideal, one NVSwitch, or servers on NVSwitch + RoCE.
struct Bench
{
    Ptr<CollectiveTransport> carrier;
    CommGroup group;
    RoceHelper roce;
    GpuCluster cluster;
};

/// Build a carrier: "ideal", "nvswitch" (one server of gpus) or "dgx" (servers x gpus).
void
MakeBench(Bench& b,
          const std::string& kind,
          uint32_t servers,
          uint32_t gpus,
          const std::string& gpu = "H100")
{
    if (kind == "ideal")
    {
        Ptr<IdealTransport> ideal = CreateObject<IdealTransport>();
        ideal->SetAttribute("NRanks", UintegerValue(servers * gpus));
        ideal->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
        ideal->SetAttribute("Latency", TimeValue(MicroSeconds(2)));
        ideal->SetAttribute("ModelReceivePort", BooleanValue(true));
        b.carrier = ideal;
        b.group = CommGroup::Uniform(servers, gpus);
        return;
    }
    GpuClusterHelper helper(b.roce);
    b.cluster = helper.Build(servers, gpus, gpu, DataRate("400Gbps"), 2, 1.0, MicroSeconds(1));
    b.roce.AssignStreams(1);
    b.carrier = b.cluster.transport;
    b.group = b.cluster.world;
}

/// Simulated time of one call with a named algorithm.
Time
Simulate(Bench& b, const CommPlan& plan)
{
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(b.carrier);
    CollectiveResult result;
    engine->Run(plan, MakeBoundCallback(&StoreResult, &result));
    Simulator::Run();
    return result.end - result.start;
}

CollectivePlanOptions
Options(uint32_t channels)
{
    CollectivePlanOptions o;
    o.channels = channels;
    return o;
}

class CollectiveCost : public NsTest
{
};

} // namespace

// A zero-byte message (a plan's synchronisation) on a carrier that serves messages in
// send order: the estimate ends, at the carrier's latency (it used to loop for ever: the
// message's slice was zero bytes).
TEST_F(CollectiveCost, ZeroByteMessageEstimateEnds)
{
    Bench b;
    MakeBench(b, "ideal", 1, 2);
    const CommPlan plan = SendRecv(2, 0, 1, 0);
    const double estimate = CollectivePlanCost(*b.carrier).Estimate(plan).GetSeconds();
    const double simulated = Simulate(b, plan).GetSeconds();
    std::cout << "[ measured ] zero-byte send: estimate " << estimate * 1e6 << " us, simulated "
              << simulated * 1e6 << " us\n";
    EXPECT_NEAR(estimate, simulated, 0.01 * simulated);
    // The bench's latency (2 us) plus at most a byte's serialization (0.08 ns at 100G).
    EXPECT_NEAR(estimate, 2e-6, 1e-10);
}

// On the ideal carrier the estimate replays the carrier's own timing rules. It agrees with
// the simulation to 3 %: what differs is only the order in which transfers released at
// the same instant queue at a port (the engine's callback order against the estimate's
// event order), which moves a tree's incast by a message or two.
TEST_F(CollectiveCost, IdealCarrierEstimateMatchesTheSimulation)
{
    for (auto [type, algorithm] : std::vector<std::pair<CollectiveType, std::string>>{
             {CollectiveType::ALL_REDUCE, "ring"},
             {CollectiveType::ALL_REDUCE, "tree"},
             {CollectiveType::ALL_REDUCE, "halving-doubling"},
             {CollectiveType::ALL_REDUCE, "hierarchical"},
             {CollectiveType::REDUCE_SCATTER, "rail-ring"},
             {CollectiveType::ALL_GATHER, "ring"},
             {CollectiveType::ALL_TO_ALL, "direct"},
             {CollectiveType::BROADCAST, "ring"}})
    {
        for (uint64_t bytes : {uint64_t{64} << 10, uint64_t{8} << 20})
        {
            Bench b;
            MakeBench(b, "ideal", 2, 4);
            CollectiveSelection selection(b.carrier);
            CommPlan plan =
                selection.MakePlan(type, NamedAlgorithm(algorithm), b.group, bytes, Options(2));
            const double estimate = CollectivePlanCost(*b.carrier).Estimate(plan).GetSeconds();
            const double simulated = Simulate(b, plan).GetSeconds();
            EXPECT_NEAR(estimate, simulated, 0.03 * simulated)
                << type << " " << algorithm << " " << bytes << " B";
            Simulator::Destroy();
        }
    }
}

// The packet and chunk carriers: the estimate interleaves a port's flows slice by slice
// as NVLink and the NICs do, and leaves out credits, congestion control and fabric
// contention. On the calibration table (one 8-GPU H100 server; two servers of 4 GPUs
// with 400G NICs) it is held to 3 % of the simulated time, except the all-to-all across
// servers (15 %), whose incast at the receiving NICs queues in the switch under PFC and
// DCQCN, which the estimate leaves out.
TEST_F(CollectiveCost, PacketCarrierEstimatesWithinThreePercent)
{
    struct Case
    {
        uint32_t servers;
        uint32_t gpus;
        CollectiveType type;
        std::string algorithm;
        uint64_t bytes;
    };

    const std::vector<Case> cases = {
        {1, 8, CollectiveType::ALL_REDUCE, "ring", 16 << 20},
        {1, 8, CollectiveType::ALL_REDUCE, "nvls", 16 << 20},
        {1, 8, CollectiveType::ALL_REDUCE, "nvls", 64 << 10},
        {1, 8, CollectiveType::ALL_REDUCE, "tree", 1 << 20},
        {1, 8, CollectiveType::ALL_REDUCE, "halving-doubling", 16 << 20},
        {1, 8, CollectiveType::ALL_GATHER, "nvls", 16 << 20},
        {1, 8, CollectiveType::REDUCE_SCATTER, "ring", 16 << 20},
        {1, 8, CollectiveType::ALL_TO_ALL, "direct", 16 << 20},
        {2, 4, CollectiveType::ALL_REDUCE, "ring", 16 << 20},
        {2, 4, CollectiveType::ALL_REDUCE, "rail-ring", 16 << 20},
        {2, 4, CollectiveType::ALL_REDUCE, "hierarchical", 16 << 20},
        {2, 4, CollectiveType::ALL_GATHER, "rail-ring", 16 << 20},
        {2, 4, CollectiveType::ALL_TO_ALL, "direct", 4 << 20},
        {1, 8, CollectiveType::BROADCAST, "ring", 1 << 20},
        {1, 8, CollectiveType::BROADCAST, "tree", 1 << 20},
    };
    for (const Case& c : cases)
    {
        Bench b;
        MakeBench(b, "dgx", c.servers, c.gpus);
        CollectiveSelection selection(b.carrier);
        CollectivePlanOptions options = Options(c.gpus);
        // What NCCL runs at these sizes; protocol latencies are the collective-protocol suite's.
        options.protocol = CollectiveProtocol::SIMPLE;
        CommPlan plan =
            selection.MakePlan(c.type, NamedAlgorithm(c.algorithm), b.group, c.bytes, options);
        const double estimate = CollectivePlanCost(*b.carrier).Estimate(plan).GetSeconds();
        const double simulated = Simulate(b, plan).GetSeconds();
        std::cout << "[ measured ] " << c.servers << "x" << c.gpus << " " << c.type << " "
                  << c.algorithm << " " << c.bytes << " B: estimate " << estimate * 1e6
                  << " us, simulated " << simulated * 1e6 << " us\n";
        const bool incast = c.servers > 1 && c.type == CollectiveType::ALL_TO_ALL;
        // Hierarchical: its 512 KiB pieces' step latencies overlap NVLink's credit loop in
        // the simulation and the ports' queues in the estimate differently (measured 4.7 %).
        const bool pieces = c.algorithm == "hierarchical";
        EXPECT_NEAR(estimate, simulated, (incast ? 0.15 : (pieces ? 0.05 : 0.03)) * simulated)
            << c.servers << "x" << c.gpus << " " << c.type << " " << c.algorithm << " " << c.bytes;
        Simulator::Destroy();
    }
}

// The requirement, on sizes a unit test can afford (the full sweep to 1 GiB is
// bench/auto-sweep.sh): auto's simulated time is within 5 % of the best algorithm run by
// name, and its bus bandwidth never drops by more than 5 % from one size to the next.
TEST_F(CollectiveCost, AutoIsWithinFivePercentOfTheBest)
{
    struct Shape
    {
        uint32_t servers;
        uint32_t gpus;
        std::string gpu;
    };

    for (const Shape& shape : std::vector<Shape>{{1, 8, "H100"}, {1, 8, "A100"}, {2, 4, "H100"}})
    {
        for (CollectiveType type : {CollectiveType::ALL_REDUCE,
                                    CollectiveType::REDUCE_SCATTER,
                                    CollectiveType::ALL_GATHER,
                                    CollectiveType::BROADCAST,
                                    CollectiveType::ALL_TO_ALL})
        {
            double previousBusBw = 0;
            for (uint64_t bytes :
                 {uint64_t{8} << 10, uint64_t{64} << 10, uint64_t{1} << 20, uint64_t{16} << 20})
            {
                std::map<std::string, double> times;
                std::string chosen;
                for (const std::string& name : [] {
                         std::vector<std::string> names{AUTO_ALGORITHM_NAME};
                         for (CollectiveAlgorithm a : GetCollectiveAlgorithms())
                         {
                             names.push_back(CollectiveAlgorithmToString(a));
                         }
                         return names;
                     }())
                {
                    Bench b;
                    MakeBench(b, "dgx", shape.servers, shape.gpus, shape.gpu);
                    CollectiveSelection selection(b.carrier);
                    if (!selection.CanMakePlan(type, NamedAlgorithm(name), b.group))
                    {
                        Simulator::Destroy();
                        continue;
                    }
                    CommPlan plan = selection.MakePlan(type,
                                                       NamedAlgorithm(name),
                                                       b.group,
                                                       bytes,
                                                       Options(shape.gpus));
                    if (name == AUTO_ALGORITHM_NAME)
                    {
                        chosen = plan.GetAlgorithm();
                    }
                    times[name] = Simulate(b, plan).GetSeconds();
                    Simulator::Destroy();
                }
                double best = 1e30;
                std::string bestName;
                for (const auto& [name, t] : times)
                {
                    if (name != AUTO_ALGORITHM_NAME && t < best)
                    {
                        best = t;
                        bestName = name;
                    }
                }
                const double autoTime = times.at(AUTO_ALGORITHM_NAME);
                EXPECT_LE(autoTime, 1.05 * best)
                    << shape.servers << "x" << shape.gpus << " " << shape.gpu << " " << type << " "
                    << bytes << " B: auto took " << chosen << " (" << autoTime * 1e6 << " us), "
                    << bestName << " takes " << best * 1e6 << " us";
                if (shape.gpu == "A100")
                {
                    EXPECT_NE(chosen, "nvls") << "A100 has no NVLS";
                }
                const double busBw =
                    bytes * CollectiveBusBwFactor(type, shape.servers * shape.gpus) / autoTime;
                EXPECT_GE(busBw, 0.95 * previousBusBw)
                    << shape.servers << "x" << shape.gpus << " " << type << " at " << bytes << " B";
                previousBusBw = busBw;
            }
        }
    }
}
