// SPDX-License-Identifier: GPL-2.0-only
// Rabenseifner's halving-doubling: reduce-scatter, all-gather and all-reduce.
#include "collective-algorithms.h"

#include "ns3/abort.h"

#include <limits>
#include <vector>

namespace ns3
{

namespace
{

/// No transfer yet.
constexpr uint32_t NONE = std::numeric_limits<uint32_t>::max();

/**
 * Shared body. Block j is shard j (SplitBytes(bytes, n, j)); each rank works on a
 * contiguous range of blocks that halves (reduce-scatter) or doubles (all-gather) every
 * step, and each step is one message: a transfer of several consecutive blocks.
 *
 * Dependencies. A rank's step-s message reads blocks that several of its earlier
 * receives wrote (every reduce-scatter receive wrote a range containing what it sends
 * next), and those receives came from different partners, so depending on the last
 * receive alone would let the message leave before an older receive had landed. Each
 * message therefore depends on the rank's previous receive and its own previous send;
 * the latter transitively covers all older receives, because every send waited for the
 * receive before it.
 */
CommPlan
BuildHalvingDoubling(const char* who,
                     CollectiveType type,
                     uint32_t n,
                     uint64_t bytes,
                     bool reduceScatter,
                     bool allGather)
{
    NS_ABORT_MSG_IF(n == 0 || (n & (n - 1)) != 0,
                    who << ": halving-doubling needs a power-of-two group size, got " << n
                        << "; use the ring or tree algorithm for this group");
    CommPlan plan(type, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::HALVING_DOUBLING));
    for (uint32_t j = 0; j < n; ++j)
    {
        plan.AddBlock(CommPlan::SplitBytes(bytes, n, j),
                      type == CollectiveType::ALL_GATHER ? j : CommPlan::ANY_RANK,
                      type == CollectiveType::REDUCE_SCATTER ? j : CommPlan::ANY_RANK);
    }
    uint32_t logN = 0;
    while ((1u << logN) < n)
    {
        ++logN;
    }

    std::vector<uint32_t> lastSend(n, NONE);
    std::vector<uint32_t> lastRecv(n, NONE);
    uint32_t step = 0;
    auto send = [&](uint32_t r,
                    uint32_t partner,
                    uint32_t first,
                    uint32_t count,
                    bool reduce,
                    std::vector<uint32_t>& nextSend,
                    std::vector<uint32_t>& nextRecv) {
        CommPlan::Transfer t;
        t.src = r;
        t.dst = partner;
        t.chunk = first;
        t.chunkCount = count;
        t.reduce = reduce;
        t.step = step;
        for (uint32_t d : {lastRecv[r], lastSend[r]})
        {
            if (d != NONE)
            {
                t.deps.push_back(d);
            }
        }
        const uint32_t id = plan.AddTransfer(std::move(t));
        nextSend[r] = id;
        nextRecv[partner] = id;
    };

    if (reduceScatter)
    {
        // Every rank starts on all n blocks. At distance m = n/2, n/4, ..., 1 a rank keeps
        // the half of its range that matches its own bit m and sends the other half to
        // r xor m, which holds the same range and keeps the opposite half. After the last
        // step rank r's range is block r alone.
        std::vector<uint32_t> lo(n, 0);
        for (uint32_t m = n / 2; m >= 1; m /= 2, ++step)
        {
            std::vector<uint32_t> nextSend = lastSend;
            std::vector<uint32_t> nextRecv = lastRecv;
            for (uint32_t r = 0; r < n; ++r)
            {
                const bool keepLower = (r & m) == 0;
                send(r, r ^ m, keepLower ? lo[r] + m : lo[r], m, true, nextSend, nextRecv);
            }
            for (uint32_t r = 0; r < n; ++r)
            {
                lo[r] += (r & m) ? m : 0;
            }
            lastSend.swap(nextSend);
            lastRecv.swap(nextRecv);
        }
    }
    if (allGather)
    {
        // At distance m = 1, 2, ..., n/2 rank r holds the m blocks of its aligned range
        // (r with its low bits cleared) and swaps them with r xor m, doubling the range.
        for (uint32_t m = 1; m < n; m *= 2, ++step)
        {
            std::vector<uint32_t> nextSend = lastSend;
            std::vector<uint32_t> nextRecv = lastRecv;
            for (uint32_t r = 0; r < n; ++r)
            {
                send(r, r ^ m, r & ~(m - 1), m, false, nextSend, nextRecv);
            }
            lastSend.swap(nextSend);
            lastRecv.swap(nextRecv);
        }
    }
    NS_ABORT_MSG_IF(step != logN * ((reduceScatter ? 1 : 0) + (allGather ? 1 : 0)),
                    who << ": step count mismatch (internal error)");
    return plan;
}

} // namespace

CommPlan
HalvingDoublingAllReduce(uint32_t n, uint64_t bytes)
{
    return BuildHalvingDoubling("HalvingDoublingAllReduce",
                                CollectiveType::ALL_REDUCE,
                                n,
                                bytes,
                                true,
                                true);
}

CommPlan
HalvingDoublingReduceScatter(uint32_t n, uint64_t bytes)
{
    return BuildHalvingDoubling("HalvingDoublingReduceScatter",
                                CollectiveType::REDUCE_SCATTER,
                                n,
                                bytes,
                                true,
                                false);
}

CommPlan
HalvingDoublingAllGather(uint32_t n, uint64_t bytes)
{
    return BuildHalvingDoubling("HalvingDoublingAllGather",
                                CollectiveType::ALL_GATHER,
                                n,
                                bytes,
                                false,
                                true);
}

} // namespace ns3
