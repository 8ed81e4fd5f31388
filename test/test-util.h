// SPDX-License-Identifier: GPL-2.0-only
// Shared scaffolding of the ai-fabric GoogleTest suites.
#ifndef AI_FABRIC_TEST_UTIL_H
#define AI_FABRIC_TEST_UTIL_H

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

namespace aifabric
{

using namespace ns3;

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
    void TearDown() override;
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

/// Sum of PFC pauses (XOFF) sent by all switches of a topology.
uint64_t TotalPauses(const RoceTopology& topo);
/// Sum of drops of all switches of a topology.
uint64_t TotalDrops(const RoceTopology& topo);

} // namespace aifabric

#endif
