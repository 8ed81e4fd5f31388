// SPDX-License-Identifier: GPL-2.0-only
// Shared helpers of the plan generators and the by-name dispatcher.
#include "collective-algorithms.h"

#include "ns3/abort.h"

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
    NS_ABORT_MSG_IF(rounds > (1u << 20),
                    "CollectivePipelineRounds: chunk size " << chunkBytes << " B would cut "
                                                            << bytes << " B into " << rounds
                                                            << " rounds; use a larger chunk");
    return rounds;
}

std::string
CollectiveAlgorithmToString(CollectiveAlgorithm algorithm)
{
    switch (algorithm)
    {
    case CollectiveAlgorithm::RING:
        return "ring";
    case CollectiveAlgorithm::TREE:
        return "tree";
    case CollectiveAlgorithm::HALVING_DOUBLING:
        return "halving-doubling";
    case CollectiveAlgorithm::DIRECT:
        return "direct";
    case CollectiveAlgorithm::NVLS:
        return "nvls";
    }
    return "unknown";
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
        return type == CollectiveType::ALL_REDUCE || type == CollectiveType::REDUCE_SCATTER ||
               type == CollectiveType::ALL_GATHER || type == CollectiveType::BROADCAST ||
               type == CollectiveType::REDUCE;
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
    }
    return false;
}

CommPlan
MakeCollectivePlan(CollectiveType type,
                   CollectiveAlgorithm algorithm,
                   uint32_t n,
                   uint64_t bytes,
                   const CollectivePlanOptions& options)
{
    NS_ABORT_MSG_IF(!IsCollectiveAlgorithmSupported(type, algorithm, n),
                    "MakeCollectivePlan: no " << algorithm << " algorithm for " << type
                                              << " over " << n << " ranks");
    const uint32_t ch = options.channels;
    const uint64_t chunk = options.chunkBytes;
    switch (algorithm)
    {
    case CollectiveAlgorithm::RING:
        switch (type)
        {
        case CollectiveType::ALL_REDUCE:
            return RingAllReduce(n, bytes, ch, chunk);
        case CollectiveType::REDUCE_SCATTER:
            return RingReduceScatter(n, bytes, ch, chunk);
        case CollectiveType::ALL_GATHER:
            return RingAllGather(n, bytes, ch, chunk);
        case CollectiveType::BROADCAST:
            return RingBroadcast(n, bytes, options.root, ch, chunk);
        default:
            return RingReduce(n, bytes, options.root, ch, chunk);
        }
    case CollectiveAlgorithm::TREE:
        switch (type)
        {
        case CollectiveType::ALL_REDUCE:
            return TreeAllReduce(n, bytes, chunk, options.doubleTree);
        case CollectiveType::BROADCAST:
            return TreeBroadcast(n, bytes, options.root, chunk);
        default:
            return TreeReduce(n, bytes, options.root, chunk);
        }
    case CollectiveAlgorithm::HALVING_DOUBLING:
        switch (type)
        {
        case CollectiveType::ALL_REDUCE:
            return HalvingDoublingAllReduce(n, bytes);
        case CollectiveType::REDUCE_SCATTER:
            return HalvingDoublingReduceScatter(n, bytes);
        default:
            return HalvingDoublingAllGather(n, bytes);
        }
    case CollectiveAlgorithm::DIRECT:
        switch (type)
        {
        case CollectiveType::ALL_TO_ALL:
            return DirectAllToAll(n, bytes);
        case CollectiveType::ALL_GATHER:
            return DirectAllGather(n, bytes);
        default:
            return SendRecv(n, options.root, options.peer, bytes, ch);
        }
    case CollectiveAlgorithm::NVLS:
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
    NS_ABORT_MSG("MakeCollectivePlan: unknown algorithm");
    return CommPlan();
}

} // namespace ns3
