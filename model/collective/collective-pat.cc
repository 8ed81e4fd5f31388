// SPDX-License-Identifier: GPL-2.0-only
// PAT (NCCL's Parallel Aggregated Trees): Bruck's all-gather and its mirror, reduce-scatter,
// for any number of ranks.
#include "collective-algorithms.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectivePat");

namespace
{

/// One step of Bruck's all-gather: at distance d, a rank that holds c blocks sends the
/// first cnt = min(d, n - c) of them (c = d before the step) to the rank d below it.
struct PatStep
{
    uint32_t distance; //!< d = 2^k
    uint32_t count;    //!< blocks each rank sends
};

/// \return the all-gather's steps over n ranks: ceil(log2 n) of them
std::vector<PatStep>
PatSteps(uint32_t n)
{
    std::vector<PatStep> steps;
    for (uint32_t d = 1; d < n; d *= 2)
    {
        steps.push_back({d, std::min(d, n - d)});
    }
    return steps;
}

/**
 * Builds a PAT plan. Block j is shard j (SplitBytes(bytes, n, j)). A rank's message of a
 * step is a circular range of blocks; a range that wraps past the last block is sent as two
 * transfers of the same step (NCCL sends them as one: its buffers are offsets, ours are
 * block ranges). Each transfer of a step depends on every receive and send of the rank's
 * previous step: its blocks were written by those receives.
 */
class PatBuilder
{
  public:
    /// Start a plan of type (all-gather or reduce-scatter) over n ranks and bytes.
    PatBuilder(CollectiveType type, uint32_t n, uint64_t bytes)
        : m_n(n),
          m_plan(type, n, bytes),
          m_lastSends(n),
          m_lastRecvs(n)
    {
        m_plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::PAT));
        for (uint32_t j = 0; j < n; ++j)
        {
            m_plan.AddBlock(CommPlan::SplitBytes(bytes, n, j),
                            type == CollectiveType::ALL_GATHER ? j : CommPlan::ANY_RANK,
                            type == CollectiveType::REDUCE_SCATTER ? j : CommPlan::ANY_RANK);
        }
    }

    /**
     * Every rank sends count blocks from (rank + offset) mod n on to (rank + to) mod n.
     * \param offset first block, relative to the sender
     * \param to receiver, relative to the sender
     * \param count blocks
     * \param reduce whether the receiver reduces
     */
    void Step(uint32_t offset, uint32_t to, uint32_t count, bool reduce)
    {
        std::vector<std::vector<uint32_t>> sends(m_n);
        std::vector<std::vector<uint32_t>> recvs(m_n);
        for (uint32_t r = 0; r < m_n; ++r)
        {
            const uint32_t dst = (r + to) % m_n;
            const uint32_t first = (r + offset) % m_n;
            const uint32_t head = std::min(count, m_n - first); // up to the last block
            for (auto [chunk, blocks] :
                 {std::make_pair(first, head), std::make_pair(0u, count - head)})
            {
                if (blocks == 0)
                {
                    continue;
                }
                CommPlan::Transfer t;
                t.src = r;
                t.dst = dst;
                t.chunk = chunk;
                t.chunkCount = blocks;
                t.reduce = reduce;
                t.step = m_step;
                t.deps = m_lastRecvs[r];
                t.deps.insert(t.deps.end(), m_lastSends[r].begin(), m_lastSends[r].end());
                const uint32_t id = m_plan.AddTransfer(std::move(t));
                sends[r].push_back(id);
                recvs[dst].push_back(id);
            }
        }
        m_lastSends.swap(sends);
        m_lastRecvs.swap(recvs);
        ++m_step;
    }

    /// \return the plan
    CommPlan TakePlan()
    {
        return std::move(m_plan);
    }

  private:
    uint32_t m_n;                                   //!< ranks
    CommPlan m_plan;                                //!< the plan
    std::vector<std::vector<uint32_t>> m_lastSends; //!< per rank: its previous step's sends
    std::vector<std::vector<uint32_t>> m_lastRecvs; //!< per rank: its previous step's receives
    uint32_t m_step{0};                             //!< next step
};

} // namespace

CommPlan
PatAllGather(uint32_t n, uint64_t bytes)
{
    NS_ABORT_MSG_IF(n == 0, "PatAllGather: no ranks");
    PatBuilder builder(CollectiveType::ALL_GATHER, n, bytes);
    // Rank r holds blocks r .. r + c - 1; it sends the first cnt to r - d and receives
    // r + d .. r + d + cnt - 1 from r + d.
    for (const PatStep& s : PatSteps(n))
    {
        NS_LOG_LOGIC("all-gather step: distance " << s.distance << ", " << s.count << " block(s)");
        builder.Step(0, n - s.distance, s.count, false);
    }
    return builder.TakePlan();
}

CommPlan
PatReduceScatter(uint32_t n, uint64_t bytes)
{
    NS_ABORT_MSG_IF(n == 0, "PatReduceScatter: no ranks");
    PatBuilder builder(CollectiveType::REDUCE_SCATTER, n, bytes);
    // The all-gather's flow reversed, last step first: rank s sends the partial sums of
    // blocks s + d .. s + d + cnt - 1 to s + d, which reduces them into its own.
    std::vector<PatStep> steps = PatSteps(n);
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
    {
        NS_LOG_LOGIC("reduce-scatter step: distance " << it->distance << ", " << it->count
                                                      << " block(s)");
        builder.Step(it->distance, it->distance, it->count, true);
    }
    return builder.TakePlan();
}

} // namespace ns3
