// SPDX-License-Identifier: GPL-2.0-only
// Shared scaffolding of the ai-fabric GoogleTest suites.
#ifndef AI_FABRIC_TEST_UTIL_H
#define AI_FABRIC_TEST_UTIL_H

#include "test-dir.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>

namespace aifabric
{

using namespace ns3;

/**
 * \param name the op's name \param d its duration \param deps ops of its rank before it
 * \return a compute op of a training trace
 */
TraceOp Compute(const std::string& name, Time d, std::vector<uint32_t> deps = {});

/**
 * \param n ranks, all in one group "dp0" of kind dp
 * \param bytes the all-reduce's size
 * \return a trace whose ranks compute "fwd" (10 us), all-reduce "grad" on stream 1 after
 *         it, and compute "step" (5 us) after the all-reduce
 */
TrainingTrace OneAllReduce(uint32_t n, uint64_t bytes);

/// Payload goodput of a long RDMA WRITE stream at rate with 4096 B MTU: 4096/4178 of line rate.
double PayloadRate(double lineRateBps, uint32_t mtu = 4096);

/**
 * Every test starts from clean ns-3 globals (attribute defaults, seed) and leaves the
 * simulator destroyed.
 */
class NsTest : public ::testing::Test
{
  protected:
    void SetUp() override;
};

/// Completion record of one message.
struct MessageRecord
{
    uint64_t id{0};
    uint64_t bytes{0};
    Time time;
};

/**
 * Records sender and receiver completions of one queue pair pair.
 */
struct FlowProbe
{
    Ptr<RdmaQueuePair> sender;
    Ptr<RdmaQueuePair> receiver;
    std::vector<MessageRecord> sent;
    std::vector<MessageRecord> received;

    void Attach(std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> qps);
    uint64_t BytesReceived() const;
    Time LastReceive() const;
};

/// Two hosts cabled back to back, each with a NIC; returns the NICs.
std::pair<Ptr<RdmaNic>, Ptr<RdmaNic>> BackToBack(RoceHelper& roce, DataRate rate, Time delay);

/// Callback target that keeps a collective's result (bind the destination).
void StoreResult(CollectiveResult* out, const CollectiveResult& result);

/**
 * Run a plan on an engine from t = 0 to its end, then Simulator::Destroy.
 * \param engine the engine (its carrier set)
 * \param plan the plan
 * \return the call's time in seconds
 */
double RunPlanAlone(Ptr<CollectiveEngine> engine, const CommPlan& plan);

/**
 * One all-reduce on servers x 8 H100 as collective-perf --transport=dgx builds them
 * (400G NICs, one spine, 1 us cables), 8 channels, the algorithm by name ("auto" too) and
 * the protocol (auto: its fastest); runs and destroys the simulator.
 * \return the call's result
 */
CollectiveResult RunDgxAllReduce(uint32_t servers,
                                 const std::string& algorithm,
                                 uint64_t bytes,
                                 CollectiveProtocol protocol = CollectiveProtocol::AUTO);

/**
 * One collective on servers x 8 GPUs (H100 unless gpu names another preset), as
 * RunDgxAllReduce.
 * \param type the collective
 * \param servers servers of 8 GPUs
 * \param algorithm by name ("auto" too)
 * \param bytes its size (nccl-tests' size: all-gather's output, reduce-scatter's input)
 * \param protocol the protocol (auto: its fastest)
 * \param gpu the GpuPreset of every GPU
 * \return the call's result
 */
CollectiveResult RunDgxCollective(CollectiveType type,
                                  uint32_t servers,
                                  const std::string& algorithm,
                                  uint64_t bytes,
                                  CollectiveProtocol protocol = CollectiveProtocol::AUTO,
                                  const std::string& gpu = "H100");

/**
 * NCCL's view of servers x 8 H100 with one 400G NIC per GPU, the machine RunDgxCollective
 * builds, for NcclTuningModel (as collective-perf --ncclModel describes the dgx carrier).
 * \param servers servers of 8 GPUs
 * \return the system
 */
NcclSystem DgxNcclSystem(uint32_t servers);

/**
 * One collective on carrier by the engine (RunCollective); runs and destroys the simulator.
 * \param carrier the carrier
 * \param type the collective
 * \param group its ranks
 * \param bytes its size
 * \param algorithm an algorithm name ("auto" too)
 * \param protocol the protocol (the engine's Protocol attribute)
 * \return the call's result
 */
CollectiveResult RunCollectiveOn(Ptr<CollectiveTransport> carrier,
                                 CollectiveType type,
                                 const CommGroup& group,
                                 uint64_t bytes,
                                 const std::string& algorithm,
                                 CollectiveProtocol protocol);

/**
 * Three hosts on one switch (100 Gb/s, 1 us cables) whose MMU has a 1 MB buffer and marks
 * ECN from 20 kB to 80 kB, the hosts without congestion control (their receivers still
 * answer CE marks with CNPs), random streams fixed: the incast of StartTwoToOneIncast
 * makes the switch mark and pause. Configures roce for it.
 * \param roce the helper to configure and build with
 * \return the topology
 */
RoceTopology SmallBufferStar(RoceHelper& roce);
/// Hosts 0 and 1 of a SmallBufferStar each post a 2 MiB write to host 2 at t = 0.
/// \param topo the topology \return the two connections, {sender QP, receiver QP}
std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> StartTwoToOneIncast(
    const RoceTopology& topo);

/**
 * Run tshark on a capture and keep the fields of the frames that pass a display filter.
 * \param file the capture
 * \param filter a display filter
 * \param fields field names
 * \param options more tshark options (e.g. "-X lua_script:FILE")
 * \return one row per frame, its fields in order
 */
std::vector<std::vector<std::string>> Tshark(const std::string& file,
                                             const std::string& filter,
                                             const std::vector<std::string>& fields,
                                             const std::string& options = "");

/// \return whether tshark can be run
bool HaveTshark();

/// Sum of PFC pauses (XOFF) sent by all switches of a topology.
uint64_t TotalPauses(const RoceTopology& topo);
/// Sum of drops of all switches of a topology.
uint64_t TotalDrops(const RoceTopology& topo);

} // namespace aifabric

#endif
