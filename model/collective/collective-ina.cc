// SPDX-License-Identifier: GPL-2.0-only
// In-network aggregation plans (see collective-algorithms.h).
#include "collective-algorithms.h"

#include "ns3/abort.h"

namespace ns3
{

CommPlan
InaAllReduce(uint32_t n, uint64_t bytes, uint32_t channels, uint64_t chunkBytes)
{
    NS_ABORT_MSG_IF(n == 0, "ina all-reduce: the group is empty");
    NS_ABORT_MSG_IF(channels == 0, "ina all-reduce: needs a channel");
    CommPlan plan(CollectiveType::ALL_REDUCE, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::INA));
    const uint32_t rounds = CollectivePipelineRounds(bytes, channels, chunkBytes);
    for (uint32_t c = 0; c < channels; ++c)
    {
        const uint64_t share = CommPlan::SplitBytes(bytes, channels, c);
        for (uint32_t q = 0; q < rounds; ++q)
        {
            CommPlan::Transfer t;
            t.kind = CommPlan::Kind::SWITCH_ALL_REDUCE;
            t.src = 0;
            t.dst = 0;
            t.chunk = plan.AddBlock(CommPlan::SplitBytes(share, rounds, q));
            t.channel = c;
            t.step = q;
            plan.AddTransfer(t);
        }
    }
    return plan;
}

} // namespace ns3
