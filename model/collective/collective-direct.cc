// SPDX-License-Identifier: GPL-2.0-only
// Direct (pairwise) generators: all-to-all, all-to-allv, all-gather, send/recv.
#include "collective-algorithms.h"

#include "ns3/abort.h"

#include <algorithm>
#include <numeric>

namespace ns3
{

namespace
{

/**
 * Add one block and one dependency-free transfer per ordered pair with data, in
 * pairwise-exchange order: step k-1 holds every r -> r+k. On a full-bisection fabric
 * each step is a permutation, so an engine that paces steps gets no incast; an engine
 * that releases everything at once still sees the same order on each sender.
 */
void
AddPairwise(CommPlan& plan, uint32_t n, uint64_t (*bytesOf)(const CommPlan&, uint32_t, uint32_t))
{
    for (uint32_t k = 1; k < n; ++k)
    {
        for (uint32_t s = 0; s < n; ++s)
        {
            const uint32_t d = (s + k) % n;
            const uint64_t bytes = bytesOf(plan, s, d);
            if (bytes == 0 && plan.GetType() == CollectiveType::ALL_TO_ALLV)
            {
                continue; // nothing to deliver; an empty block would only add latency
            }
            CommPlan::Transfer t;
            t.src = s;
            t.dst = d;
            t.chunk = plan.AddBlock(bytes, s, d);
            t.step = k - 1;
            plan.AddTransfer(std::move(t));
        }
    }
}

} // namespace

CommPlan
DirectAllToAll(uint32_t n, uint64_t bytes)
{
    NS_ABORT_MSG_IF(n == 0, "DirectAllToAll: the group is empty");
    CommPlan plan(CollectiveType::ALL_TO_ALL, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::DIRECT));
    AddPairwise(plan, n, [](const CommPlan& p, uint32_t, uint32_t d) {
        return CommPlan::SplitBytes(p.GetTotalBytes(), p.GetGroupSize(), d);
    });
    return plan;
}

CommPlan
DirectAllToAllV(uint32_t n, const std::vector<uint64_t>& pairBytes)
{
    NS_ABORT_MSG_IF(n == 0, "DirectAllToAllV: the group is empty");
    NS_ABORT_MSG_IF(pairBytes.size() != static_cast<uint64_t>(n) * n,
                    "DirectAllToAllV: the byte matrix has "
                        << pairBytes.size() << " entries, expected " << n << " x " << n);
    uint64_t largestRow = 0;
    for (uint32_t s = 0; s < n; ++s)
    {
        auto row = pairBytes.begin() + static_cast<size_t>(s) * n;
        largestRow = std::max(largestRow, std::accumulate(row, row + n, uint64_t{0}));
    }
    CommPlan plan(CollectiveType::ALL_TO_ALLV, n, largestRow);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::DIRECT));
    plan.SetPairBytes(pairBytes);
    AddPairwise(plan, n, [](const CommPlan& p, uint32_t s, uint32_t d) {
        return p.GetPairBytes()[static_cast<size_t>(s) * p.GetGroupSize() + d];
    });
    return plan;
}

CommPlan
DirectAllGather(uint32_t n, uint64_t bytes)
{
    NS_ABORT_MSG_IF(n == 0, "DirectAllGather: the group is empty");
    CommPlan plan(CollectiveType::ALL_GATHER, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::DIRECT));
    for (uint32_t j = 0; j < n; ++j)
    {
        plan.AddBlock(CommPlan::SplitBytes(bytes, n, j), j);
    }
    for (uint32_t k = 1; k < n; ++k)
    {
        for (uint32_t s = 0; s < n; ++s)
        {
            CommPlan::Transfer t;
            t.src = s;
            t.dst = (s + k) % n;
            t.chunk = s;
            t.step = k - 1;
            plan.AddTransfer(std::move(t));
        }
    }
    return plan;
}

CommPlan
SendRecv(uint32_t n, uint32_t src, uint32_t dst, uint64_t bytes, uint32_t channels)
{
    NS_ABORT_MSG_IF(src >= n || dst >= n,
                    "SendRecv: ranks " << src << " -> " << dst << " are not both in a group of "
                                       << n);
    NS_ABORT_MSG_IF(src == dst, "SendRecv: rank " << src << " cannot send to itself");
    NS_ABORT_MSG_IF(channels == 0, "SendRecv: channels must be at least 1");
    CommPlan plan(CollectiveType::SEND_RECV, n, bytes);
    plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::DIRECT));
    plan.SetRoot(src);
    plan.SetPeer(dst);
    for (uint32_t c = 0; c < channels; ++c)
    {
        CommPlan::Transfer t;
        t.src = src;
        t.dst = dst;
        t.chunk = plan.AddBlock(CommPlan::SplitBytes(bytes, channels, c), src, dst);
        t.channel = c;
        plan.AddTransfer(std::move(t));
    }
    return plan;
}

} // namespace ns3
