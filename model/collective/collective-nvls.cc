// SPDX-License-Identifier: GPL-2.0-only
// NVLS plans: reduction and multicast in the NVSwitch (see collective-algorithms.h).
#include "collective-algorithms.h"

#include "ns3/abort.h"

namespace ns3
{

namespace
{

/// Which halves of the all-reduce a plan contains.
enum class NvlsPhases
{
    REDUCE,    //!< reduce-scatter
    MULTICAST, //!< all-gather
    BOTH,      //!< all-reduce
};

CommPlan
BuildNvls(CollectiveType type, uint32_t n, uint64_t bytes, uint64_t chunkBytes, NvlsPhases phases)
{
    NS_ABORT_MSG_IF(n == 0, "NVLS " << type << ": the group is empty");
    CommPlan plan(type, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::NVLS));
    const uint64_t chunk = chunkBytes == 0 ? NVLS_DEFAULT_CHUNK_BYTES : chunkBytes;
    // One round = one piece of every shard; rounds are issued in order, so every owner
    // works on its q-th piece at about the same time, as NCCL's NVLS channels do.
    const uint32_t rounds = CollectivePipelineRounds(bytes, n, chunk);
    std::vector<uint32_t> first(n); // block of (owner 0, round 0) per owner
    for (uint32_t g = 0; g < n; ++g)
    {
        const uint64_t shard = CommPlan::SplitBytes(bytes, n, g);
        first[g] = plan.GetNBlocks();
        for (uint32_t q = 0; q < rounds; ++q)
        {
            const uint64_t piece = CommPlan::SplitBytes(shard, rounds, q);
            switch (phases)
            {
            case NvlsPhases::REDUCE:
                plan.AddBlock(piece, CommPlan::ANY_RANK, g);
                break;
            case NvlsPhases::MULTICAST:
                plan.AddBlock(piece, g, CommPlan::ANY_RANK);
                break;
            case NvlsPhases::BOTH:
                plan.AddBlock(piece);
                break;
            }
        }
    }
    for (uint32_t q = 0; q < rounds; ++q)
    {
        for (uint32_t g = 0; g < n; ++g)
        {
            CommPlan::Transfer t;
            t.src = g;
            t.dst = g;
            t.chunk = first[g] + q;
            uint32_t reduceId = 0;
            if (phases != NvlsPhases::MULTICAST)
            {
                t.kind = CommPlan::Kind::SWITCH_REDUCE;
                t.step = 0;
                reduceId = plan.AddTransfer(t);
            }
            if (phases != NvlsPhases::REDUCE)
            {
                t.kind = CommPlan::Kind::SWITCH_MULTICAST;
                t.step = phases == NvlsPhases::BOTH ? 1 : 0;
                if (phases == NvlsPhases::BOTH)
                {
                    t.deps = {reduceId};
                }
                plan.AddTransfer(t);
            }
        }
    }
    return plan;
}

} // namespace

CommPlan
NvlsAllReduce(uint32_t n, uint64_t bytes, uint64_t chunkBytes)
{
    return BuildNvls(CollectiveType::ALL_REDUCE, n, bytes, chunkBytes, NvlsPhases::BOTH);
}

CommPlan
NvlsReduceScatter(uint32_t n, uint64_t bytes, uint64_t chunkBytes)
{
    return BuildNvls(CollectiveType::REDUCE_SCATTER, n, bytes, chunkBytes, NvlsPhases::REDUCE);
}

CommPlan
NvlsAllGather(uint32_t n, uint64_t bytes, uint64_t chunkBytes)
{
    return BuildNvls(CollectiveType::ALL_GATHER, n, bytes, chunkBytes, NvlsPhases::MULTICAST);
}

} // namespace ns3
