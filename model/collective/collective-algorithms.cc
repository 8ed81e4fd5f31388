// SPDX-License-Identifier: GPL-2.0-only
// Shared helpers of the plan generators and the by-name dispatcher.
#include "collective-algorithms.h"

#include "../fabric/ai-fabric-compat.h"

#include "ns3/abort.h"

#include <algorithm>
#include <vector>

namespace ns3
{

uint32_t
CollectivePipelineRounds(uint64_t bytes, uint64_t piecesPerRound, uint64_t chunkBytes)
{
    NS_ABORT_MSG_IF(piecesPerRound == 0, "CollectivePipelineRounds: a round needs a piece");
    if (chunkBytes == 0 || bytes == 0)
    {
        return 1;
    }
    // Rounds so that one piece is at most chunkBytes: ceil(bytes / (pieces * chunk)),
    // computed without overflowing the product.
    const uint64_t perRoundBytes =
        (piecesPerRound > UINT64_MAX / chunkBytes) ? UINT64_MAX : piecesPerRound * chunkBytes;
    const uint64_t rounds = bytes / perRoundBytes + (bytes % perRoundBytes ? 1 : 0);
    NS_ABORT_MSG_IF(rounds > MAX_PLAN_PIECES,
                    "CollectivePipelineRounds: chunk size " << chunkBytes << " B would cut "
                                                            << bytes << " B into " << rounds
                                                            << " rounds; use a larger chunk");
    return rounds;
}

namespace
{
/// The one table of algorithm names and their default pipelining chunks.
struct AlgorithmEntry
{
    CollectiveAlgorithm algorithm; //!< the algorithm
    const char* name;              //!< its name, printed and accepted
    uint64_t defaultChunkBytes;    //!< pipelining chunk when none is given (0: none)
};

/// NCCL's Simple protocol: a 4 MiB buffer per channel in 8 steps.
constexpr uint64_t NCCL_SIMPLE_STEP_BYTES = 512 * 1024;
/// NCCL's LL protocol: a step is NCCL_LL_LINES_PER_THREAD (8) lines of 16 B for each of
/// NCCL_LL_MAX_NTHREADS (512) threads, 8 B of data a line (NCCL v2.30.7, src/include/device.h).
constexpr uint64_t NCCL_LL_STEP_BYTES = 8 * 512 * 8;
/// NCCL's LL128 protocol: a step is NCCL_LL128_ELEMS_PER_THREAD (120) 8-byte elements for
/// each of NCCL_LL128_MAX_NTHREADS (640) threads, 120 B of data in every 128.
constexpr uint64_t NCCL_LL128_STEP_BYTES = 120 * 640 * 8 / 128 * 120;

const AlgorithmEntry ALGORITHMS[] = {
    {CollectiveAlgorithm::RING, "ring", 0},
    {CollectiveAlgorithm::RAIL_RING, "rail-ring", 0},
    {CollectiveAlgorithm::TREE, "tree", NCCL_SIMPLE_STEP_BYTES},
    {CollectiveAlgorithm::HALVING_DOUBLING, "halving-doubling", 0},
    {CollectiveAlgorithm::DIRECT, "direct", 0},
    {CollectiveAlgorithm::HIERARCHICAL, "hierarchical", NCCL_SIMPLE_STEP_BYTES},
    {CollectiveAlgorithm::NVLS, "nvls", NVLS_DEFAULT_CHUNK_BYTES},
    {CollectiveAlgorithm::INA, "ina", 0}, // the workers pipeline by their own window
    {CollectiveAlgorithm::NVLS_INA, "nvls-ina", NVLS_DEFAULT_CHUNK_BYTES},
    {CollectiveAlgorithm::NVLS_TREE, "nvls-tree", NVLS_DEFAULT_CHUNK_BYTES},
    {CollectiveAlgorithm::PAT, "pat", 0},
};

const AlgorithmEntry&
Entry(CollectiveAlgorithm algorithm)
{
    for (const auto& e : ALGORITHMS)
    {
        if (e.algorithm == algorithm)
        {
            return e;
        }
    }
    NS_ABORT_MSG("CollectiveAlgorithm " << static_cast<int>(algorithm) << " has no name");
    return ALGORITHMS[0];
}
} // namespace

std::string
CollectiveAlgorithmToString(CollectiveAlgorithm algorithm)
{
    return algorithm == CollectiveAlgorithm::AUTO ? AUTO_ALGORITHM_NAME : Entry(algorithm).name;
}

Ptr<const AttributeChecker>
MakeCollectiveAlgorithmChecker()
{
    // An EnumChecker takes its pairs at once; the names come from the one table.
    auto name = [](CollectiveAlgorithm a) { return CollectiveAlgorithmToString(a); };
    static_assert(static_cast<int>(CollectiveAlgorithm::AUTO) == 11,
                  "a new algorithm must be added to this checker");
    return aifabric::MakeEnumCheckerCompat(CollectiveAlgorithm::AUTO,
                                           AUTO_ALGORITHM_NAME,
                                           CollectiveAlgorithm::RING,
                                           name(CollectiveAlgorithm::RING),
                                           CollectiveAlgorithm::RAIL_RING,
                                           name(CollectiveAlgorithm::RAIL_RING),
                                           CollectiveAlgorithm::TREE,
                                           name(CollectiveAlgorithm::TREE),
                                           CollectiveAlgorithm::HALVING_DOUBLING,
                                           name(CollectiveAlgorithm::HALVING_DOUBLING),
                                           CollectiveAlgorithm::DIRECT,
                                           name(CollectiveAlgorithm::DIRECT),
                                           CollectiveAlgorithm::HIERARCHICAL,
                                           name(CollectiveAlgorithm::HIERARCHICAL),
                                           CollectiveAlgorithm::NVLS,
                                           name(CollectiveAlgorithm::NVLS),
                                           CollectiveAlgorithm::INA,
                                           name(CollectiveAlgorithm::INA),
                                           CollectiveAlgorithm::NVLS_INA,
                                           name(CollectiveAlgorithm::NVLS_INA),
                                           CollectiveAlgorithm::NVLS_TREE,
                                           name(CollectiveAlgorithm::NVLS_TREE),
                                           CollectiveAlgorithm::PAT,
                                           name(CollectiveAlgorithm::PAT));
}

bool
CollectiveAlgorithmFromString(const std::string& name, CollectiveAlgorithm& algorithm)
{
    if (name == AUTO_ALGORITHM_NAME)
    {
        algorithm = CollectiveAlgorithm::AUTO;
        return true;
    }
    for (const auto& e : ALGORITHMS)
    {
        if (name == e.name)
        {
            algorithm = e.algorithm;
            return true;
        }
    }
    return false;
}

const std::vector<CollectiveAlgorithm>&
GetCollectiveAlgorithms()
{
    static const std::vector<CollectiveAlgorithm> all = [] {
        std::vector<CollectiveAlgorithm> v;
        for (const auto& e : ALGORITHMS)
        {
            v.push_back(e.algorithm);
        }
        return v;
    }();
    return all;
}

std::string
GetCollectiveAlgorithmNameList()
{
    std::string list = AUTO_ALGORITHM_NAME;
    for (const auto& e : ALGORITHMS)
    {
        list += std::string(", ") + e.name;
    }
    return list;
}

uint64_t
CollectiveDefaultChunkBytes(CollectiveAlgorithm algorithm,
                            CollectiveType type,
                            CollectiveProtocol protocol)
{
    if ((algorithm == CollectiveAlgorithm::RING || algorithm == CollectiveAlgorithm::RAIL_RING) &&
        IsRootedCollective(type))
    {
        // A chain overlaps its hops only chunk by chunk: one step of the protocol's buffer.
        switch (protocol)
        {
        case CollectiveProtocol::LL:
            return NCCL_LL_STEP_BYTES;
        case CollectiveProtocol::LL128:
            return NCCL_LL128_STEP_BYTES;
        default:
            return NCCL_SIMPLE_STEP_BYTES;
        }
    }
    return Entry(algorithm).defaultChunkBytes;
}

uint64_t
CollectiveChunkBytes(CollectiveAlgorithm algorithm,
                     CollectiveType type,
                     const CollectivePlanOptions& options)
{
    return options.chunkBytes ? options.chunkBytes
                              : CollectiveDefaultChunkBytes(algorithm, type, options.protocol);
}

uint32_t
CollectiveDefaultChannels(uint32_t gpusPerServer)
{
    return std::min<uint32_t>(std::max<uint32_t>(gpusPerServer, 1), 64);
}

bool
CollectiveAlgorithmNeedsServers(CollectiveAlgorithm algorithm)
{
    return algorithm == CollectiveAlgorithm::RAIL_RING ||
           algorithm == CollectiveAlgorithm::HIERARCHICAL ||
           algorithm == CollectiveAlgorithm::NVLS_INA ||
           algorithm == CollectiveAlgorithm::NVLS_TREE;
}

std::ostream&
operator<<(std::ostream& os, CollectiveAlgorithm algorithm)
{
    return os << CollectiveAlgorithmToString(algorithm);
}

bool
IsCollectiveAlgorithmSupported(CollectiveType type, CollectiveAlgorithm algorithm, uint32_t n)
{
    if (n == 0)
    {
        return false;
    }
    switch (algorithm)
    {
    case CollectiveAlgorithm::RING:
    case CollectiveAlgorithm::RAIL_RING:
        return type == CollectiveType::ALL_REDUCE || type == CollectiveType::REDUCE_SCATTER ||
               type == CollectiveType::ALL_GATHER || type == CollectiveType::BROADCAST ||
               type == CollectiveType::REDUCE;
    case CollectiveAlgorithm::HIERARCHICAL:
        return type == CollectiveType::ALL_REDUCE || type == CollectiveType::REDUCE_SCATTER ||
               type == CollectiveType::ALL_GATHER;
    case CollectiveAlgorithm::TREE:
        return type == CollectiveType::ALL_REDUCE || type == CollectiveType::BROADCAST ||
               type == CollectiveType::REDUCE;
    case CollectiveAlgorithm::HALVING_DOUBLING:
        return (n & (n - 1)) == 0 &&
               (type == CollectiveType::ALL_REDUCE || type == CollectiveType::REDUCE_SCATTER ||
                type == CollectiveType::ALL_GATHER);
    case CollectiveAlgorithm::DIRECT:
        return type == CollectiveType::ALL_TO_ALL || type == CollectiveType::ALL_GATHER ||
               (type == CollectiveType::SEND_RECV && n >= 2);
    case CollectiveAlgorithm::NVLS:
        return type == CollectiveType::ALL_REDUCE || type == CollectiveType::REDUCE_SCATTER ||
               type == CollectiveType::ALL_GATHER;
    case CollectiveAlgorithm::INA:
        return type == CollectiveType::ALL_REDUCE || type == CollectiveType::REDUCE_SCATTER ||
               type == CollectiveType::ALL_GATHER || type == CollectiveType::BROADCAST ||
               type == CollectiveType::REDUCE;
    case CollectiveAlgorithm::NVLS_INA:
    case CollectiveAlgorithm::NVLS_TREE:
        return type == CollectiveType::ALL_REDUCE;
    case CollectiveAlgorithm::PAT:
        return type == CollectiveType::ALL_GATHER || type == CollectiveType::REDUCE_SCATTER;
    case CollectiveAlgorithm::AUTO:
        return false; // a choice among algorithms, made by CollectiveSelection
    }
    return false;
}

namespace
{
/// Plan generators of a family that covers the five rooted and unrooted reductions and
/// copies channel by channel (ring and ina): one table per family, one dispatch for both.
struct ChannelFamily
{
    /// all-reduce, reduce-scatter, all-gather: (n, bytes, channels, chunk)
    using Unrooted = CommPlan (*)(uint32_t, uint64_t, uint32_t, uint64_t);
    /// broadcast, reduce: (n, bytes, root, channels, chunk)
    using Rooted = CommPlan (*)(uint32_t, uint64_t, uint32_t, uint32_t, uint64_t);
    Unrooted allReduce;     //!< ALL_REDUCE
    Unrooted reduceScatter; //!< REDUCE_SCATTER
    Unrooted allGather;     //!< ALL_GATHER
    Rooted broadcast;       //!< BROADCAST
    Rooted reduce;          //!< REDUCE
};

/// The RING algorithm's generators.
const ChannelFamily RING_FAMILY{RingAllReduce,
                                RingReduceScatter,
                                RingAllGather,
                                RingBroadcast,
                                RingReduce};
/// The INA algorithm's generators.
const ChannelFamily INA_FAMILY{InaAllReduce,
                               InaReduceScatter,
                               InaAllGather,
                               InaBroadcast,
                               InaReduce};

/// MakeCollectivePlan for the RING and INA algorithms.
CommPlan
ChannelFamilyPlan(const ChannelFamily& family,
                  CollectiveType type,
                  uint32_t n,
                  uint64_t bytes,
                  uint32_t ch,
                  uint64_t chunk,
                  const CollectivePlanOptions& options)
{
    if (&family == &RING_FAMILY && options.ringTransfersPerPhase != 0 && !IsRootedCollective(type))
    {
        return RingCoarsened(type, n, bytes, ch, chunk, options.ringTransfersPerPhase);
    }
    switch (type)
    {
    case CollectiveType::ALL_REDUCE:
        return family.allReduce(n, bytes, ch, chunk);
    case CollectiveType::REDUCE_SCATTER:
        return family.reduceScatter(n, bytes, ch, chunk);
    case CollectiveType::ALL_GATHER:
        return family.allGather(n, bytes, ch, chunk);
    case CollectiveType::BROADCAST:
        return family.broadcast(n, bytes, options.root, ch, chunk);
    default:
        return family.reduce(n, bytes, options.root, ch, chunk);
    }
}

/// MakeCollectivePlan for the TREE algorithm.
CommPlan
TreePlan(CollectiveType type,
         uint32_t n,
         uint64_t bytes,
         uint64_t chunk,
         const CollectivePlanOptions& options)
{
    switch (type)
    {
    case CollectiveType::ALL_REDUCE:
        return TreeAllReduce(n, bytes, chunk, options.doubleTree);
    case CollectiveType::BROADCAST:
        return TreeBroadcast(n, bytes, options.root, chunk);
    default:
        return TreeReduce(n, bytes, options.root, chunk);
    }
}

/// MakeCollectivePlan for the HALVING_DOUBLING algorithm.
CommPlan
HalvingDoublingPlan(CollectiveType type, uint32_t n, uint64_t bytes)
{
    switch (type)
    {
    case CollectiveType::ALL_REDUCE:
        return HalvingDoublingAllReduce(n, bytes);
    case CollectiveType::REDUCE_SCATTER:
        return HalvingDoublingReduceScatter(n, bytes);
    default:
        return HalvingDoublingAllGather(n, bytes);
    }
}

/// MakeCollectivePlan for the DIRECT algorithm.
CommPlan
DirectPlan(CollectiveType type,
           uint32_t n,
           uint64_t bytes,
           uint32_t ch,
           const CollectivePlanOptions& options)
{
    switch (type)
    {
    case CollectiveType::ALL_TO_ALL:
        return DirectAllToAll(n, bytes);
    case CollectiveType::ALL_GATHER:
        return DirectAllGather(n, bytes);
    default:
        return SendRecv(n, options.root, options.peer, bytes, ch);
    }
}

/// MakeCollectivePlan for the NVLS algorithm.
CommPlan
NvlsPlan(CollectiveType type, uint32_t n, uint64_t bytes, uint64_t chunk)
{
    switch (type)
    {
    case CollectiveType::ALL_REDUCE:
        return NvlsAllReduce(n, bytes, chunk);
    case CollectiveType::REDUCE_SCATTER:
        return NvlsReduceScatter(n, bytes, chunk);
    default:
        return NvlsAllGather(n, bytes, chunk);
    }
}

} // namespace

CommPlan
MakeCollectivePlan(CollectiveType type,
                   CollectiveAlgorithm algorithm,
                   uint32_t n,
                   uint64_t bytes,
                   const CollectivePlanOptions& options)
{
    NS_ABORT_MSG_IF(!IsCollectiveAlgorithmSupported(type, algorithm, n),
                    "MakeCollectivePlan: no " << algorithm << " algorithm for " << type << " over "
                                              << n << " ranks");
    NS_ABORT_MSG_IF(CollectiveAlgorithmNeedsServers(algorithm),
                    "MakeCollectivePlan: " << algorithm
                                           << " needs the group's servers: use "
                                              "CollectiveSelection::MakePlan");
    const uint32_t ch = options.channels;
    const uint64_t chunk = CollectiveChunkBytes(algorithm, type, options);
    switch (algorithm)
    {
    case CollectiveAlgorithm::RING:
        return ChannelFamilyPlan(RING_FAMILY, type, n, bytes, ch, chunk, options);
    case CollectiveAlgorithm::TREE:
        return TreePlan(type, n, bytes, chunk, options);
    case CollectiveAlgorithm::HALVING_DOUBLING:
        return HalvingDoublingPlan(type, n, bytes);
    case CollectiveAlgorithm::DIRECT:
        return DirectPlan(type, n, bytes, ch, options);
    case CollectiveAlgorithm::NVLS:
        return NvlsPlan(type, n, bytes, chunk);
    case CollectiveAlgorithm::INA:
        return ChannelFamilyPlan(INA_FAMILY, type, n, bytes, ch, chunk, options);
    case CollectiveAlgorithm::PAT:
        return type == CollectiveType::ALL_GATHER ? PatAllGather(n, bytes)
                                                  : PatReduceScatter(n, bytes);
    case CollectiveAlgorithm::RAIL_RING:
    case CollectiveAlgorithm::HIERARCHICAL:
    case CollectiveAlgorithm::NVLS_INA:
    case CollectiveAlgorithm::NVLS_TREE:
    case CollectiveAlgorithm::AUTO:
        break; // refused above
    }
    NS_ABORT_MSG("MakeCollectivePlan: unknown algorithm");
    return CommPlan();
}

} // namespace ns3
