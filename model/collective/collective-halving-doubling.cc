// SPDX-License-Identifier: GPL-2.0-only
// Rabenseifner's halving-doubling: reduce-scatter, all-gather and all-reduce.
#include "collective-algorithms.h"

#include "ns3/abort.h"

#include <limits>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{

/// No transfer yet.
constexpr uint32_t NONE = std::numeric_limits<uint32_t>::max();

/**
 * Builds one halving-doubling plan step by step. Block j is shard j (SplitBytes(bytes,
 * n, j)); each rank works on a contiguous range of blocks that halves (reduce-scatter) or
 * doubles (all-gather) every step, and each step is one message: a transfer of several
 * consecutive blocks.
 *
 * Dependencies. A rank's step-s message reads blocks that several of its earlier
 * receives wrote (every reduce-scatter receive wrote a range containing what it sends
 * next), and those receives came from different partners, so depending on the last
 * receive alone would let the message leave before an older receive had landed. Each
 * message therefore depends on the rank's previous receive and its own previous send;
 * the latter transitively covers all older receives, because every send waited for the
 * receive before it.
 */
class HalvingDoublingBuilder
{
  public:
    /// Start a plan of type over n ranks (a power of two) and bytes, with its n blocks.
    HalvingDoublingBuilder(CollectiveType type, uint32_t n, uint64_t bytes);

    /// Add the reduce-scatter steps: every rank ends with its own block reduced.
    void ReduceScatter();
    /// Add the all-gather steps: every rank ends with every block.
    void AllGather();

    /// \return the number of steps added so far
    uint32_t GetSteps() const;
    /// \return the plan built so far
    CommPlan TakePlan();

  private:
    /// Append rank r's message of count blocks from first to partner, in the current
    /// step, and record it in nextSend and nextRecv.
    void Send(uint32_t r,
              uint32_t partner,
              uint32_t first,
              uint32_t count,
              bool reduce,
              std::vector<uint32_t>& nextSend,
              std::vector<uint32_t>& nextRecv);

    uint32_t m_n;                     //!< ranks
    CommPlan m_plan;                  //!< the plan
    std::vector<uint32_t> m_lastSend; //!< per rank: its last send
    std::vector<uint32_t> m_lastRecv; //!< per rank: its last receive
    uint32_t m_step{0};               //!< next step number
};

HalvingDoublingBuilder::HalvingDoublingBuilder(CollectiveType type, uint32_t n, uint64_t bytes)
    : m_n(n),
      m_plan(type, n, bytes)
{
    m_plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::HALVING_DOUBLING));
    for (uint32_t j = 0; j < n; ++j)
    {
        m_plan.AddBlock(CommPlan::SplitBytes(bytes, n, j),
                        type == CollectiveType::ALL_GATHER ? j : CommPlan::ANY_RANK,
                        type == CollectiveType::REDUCE_SCATTER ? j : CommPlan::ANY_RANK);
    }
    m_lastSend.assign(n, NONE);
    m_lastRecv.assign(n, NONE);
}

void
HalvingDoublingBuilder::Send(uint32_t r,
                             uint32_t partner,
                             uint32_t first,
                             uint32_t count,
                             bool reduce,
                             std::vector<uint32_t>& nextSend,
                             std::vector<uint32_t>& nextRecv)
{
    CommPlan::Transfer t;
    t.src = r;
    t.dst = partner;
    t.chunk = first;
    t.chunkCount = count;
    t.reduce = reduce;
    t.step = m_step;
    for (uint32_t d : {m_lastRecv[r], m_lastSend[r]})
    {
        if (d != NONE)
        {
            t.deps.push_back(d);
        }
    }
    const uint32_t id = m_plan.AddTransfer(std::move(t));
    nextSend[r] = id;
    nextRecv[partner] = id;
}

void
HalvingDoublingBuilder::ReduceScatter()
{
    // Every rank starts on all n blocks. At distance m = n/2, n/4, ..., 1 a rank keeps
    // the half of its range that matches its own bit m and sends the other half to
    // r xor m, which holds the same range and keeps the opposite half. After the last
    // step rank r's range is block r alone.
    const uint32_t n = m_n;
    std::vector<uint32_t> lo(n, 0);
    for (uint32_t m = n / 2; m >= 1; m /= 2, ++m_step)
    {
        std::vector<uint32_t> nextSend = m_lastSend;
        std::vector<uint32_t> nextRecv = m_lastRecv;
        for (uint32_t r = 0; r < n; ++r)
        {
            const bool keepLower = (r & m) == 0;
            Send(r, r ^ m, keepLower ? lo[r] + m : lo[r], m, true, nextSend, nextRecv);
        }
        for (uint32_t r = 0; r < n; ++r)
        {
            lo[r] += (r & m) ? m : 0;
        }
        m_lastSend.swap(nextSend);
        m_lastRecv.swap(nextRecv);
    }
}

void
HalvingDoublingBuilder::AllGather()
{
    // At distance m = 1, 2, ..., n/2 rank r holds the m blocks of its aligned range
    // (r with its low bits cleared) and swaps them with r xor m, doubling the range.
    const uint32_t n = m_n;
    for (uint32_t m = 1; m < n; m *= 2, ++m_step)
    {
        std::vector<uint32_t> nextSend = m_lastSend;
        std::vector<uint32_t> nextRecv = m_lastRecv;
        for (uint32_t r = 0; r < n; ++r)
        {
            Send(r, r ^ m, r & ~(m - 1), m, false, nextSend, nextRecv);
        }
        m_lastSend.swap(nextSend);
        m_lastRecv.swap(nextRecv);
    }
}

uint32_t
HalvingDoublingBuilder::GetSteps() const
{
    return m_step;
}

CommPlan
HalvingDoublingBuilder::TakePlan()
{
    return std::move(m_plan);
}

/// Shared body of the three generators (see HalvingDoublingBuilder).
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
    HalvingDoublingBuilder builder(type, n, bytes);
    uint32_t logN = 0;
    while ((1u << logN) < n)
    {
        ++logN;
    }
    if (reduceScatter)
    {
        builder.ReduceScatter();
    }
    if (allGather)
    {
        builder.AllGather();
    }
    NS_ABORT_MSG_IF(builder.GetSteps() != logN * ((reduceScatter ? 1 : 0) + (allGather ? 1 : 0)),
                    who << ": step count mismatch (internal error)");
    return builder.TakePlan();
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
