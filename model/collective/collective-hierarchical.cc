// SPDX-License-Identifier: GPL-2.0-only
// Hierarchical generators: intra-server rings, per-rail inter-server rings.
#include "collective-hierarchical.h"

#include "collective-algorithms.h"

#include "ns3/abort.h"

#include <algorithm>
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
 * Builds one hierarchical plan phase by phase.
 *
 * Each phase is a ring over one dimension of the (server, position) grid, run once per
 * channel. Per (rank, channel) the builder remembers the transfers that last wrote the
 * rank's own shard, so that the first send of the next phase can wait for exactly them.
 * Within a phase, as in the flat ring, a step-k send forwards the block the step k-1
 * receive wrote, so it depends on that receive.
 */
class HierarchicalBuilder
{
  public:
    HierarchicalBuilder(const char* who,
                        CollectiveType type,
                        const CommGroup& group,
                        uint64_t bytes,
                        uint32_t channels,
                        uint64_t chunkBytes);

    /// Phase 1: reduce-scatter of shards inside every server.
    void IntraReduceScatter();
    /// Phase 2a: reduce-scatter of sub-shards along every rail.
    void InterReduceScatter();
    /// Phase 2b: all-gather of sub-shards along every rail.
    void InterAllGather();
    /// Phase 3: all-gather of shards inside every server.
    void IntraAllGather();

    /// \return the plan built so far
    CommPlan TakePlan();

  private:
    /// \return the index of block (c, p, q)
    uint32_t Block(uint32_t c, uint32_t p, uint32_t q) const;
    /// \return the slot of (rank, channel) in the per-rank bookkeeping
    size_t Slot(uint32_t rank, uint32_t c) const;
    /// Append a transfer and return its id.
    uint32_t Add(uint32_t src,
                 uint32_t dst,
                 uint32_t chunk,
                 uint32_t count,
                 bool reduce,
                 uint32_t c,
                 std::vector<uint32_t> deps);

    CommPlan m_plan;
    uint32_t m_s;         //!< servers
    uint32_t m_g;         //!< ranks per server
    uint32_t m_channels;  //!< parallel rings
    uint32_t m_instances; //!< rings run: channels x pipeline rounds; instance i runs on
                          //!< channel i % channels
    /// m_rank[i][p]: rank at position p (by local index) of the i-th server (ascending)
    std::vector<std::vector<uint32_t>> m_rank;
    uint32_t m_step{0}; //!< next step number

    // Writers of a rank's own shard, per (rank, channel); see IntraAllGather for why
    // each is kept.
    std::vector<uint32_t> m_intraFinal;            //!< last phase-1 receive
    std::vector<uint32_t> m_interReduceFinal;      //!< last phase-2a receive
    std::vector<std::vector<uint32_t>> m_gathered; //!< every phase-2b receive
};

HierarchicalBuilder::HierarchicalBuilder(const char* who,
                                         CollectiveType type,
                                         const CommGroup& group,
                                         uint64_t bytes,
                                         uint32_t channels,
                                         uint64_t chunkBytes)
    : m_plan(type, std::max<uint32_t>(group.GetSize(), 1), bytes),
      m_s(0),
      m_g(0),
      m_channels(channels),
      m_instances(channels)
{
    const uint32_t n = group.GetSize();
    NS_ABORT_MSG_IF(n == 0, who << ": the group is empty");
    NS_ABORT_MSG_IF(channels == 0, who << ": channels must be at least 1");
    const std::vector<uint32_t> servers = group.GetServers();
    m_s = servers.size();
    for (uint32_t server : servers)
    {
        // Ordering by local index makes position p the same rail on every server when
        // the group is uniform, so the phase-2 rings stay on their rail's leaf.
        std::vector<uint32_t> ranks = group.GetRanksOnServerByLocalIndex(server);
        if (m_rank.empty())
        {
            m_g = ranks.size();
        }
        // The rings of phase 2 pair position p of every server; with unequal counts some
        // shard would have no partner, so the shape is refused rather than patched.
        NS_ABORT_MSG_IF(ranks.size() != m_g,
                        who << ": hierarchical collectives need the same number of GPUs on "
                               "every server, but the group has "
                            << m_g << " rank(s) on server " << servers.front() << " and "
                            << ranks.size() << " on server " << server
                            << "; use a flat algorithm or a uniform sub-group");
        m_rank.push_back(std::move(ranks));
    }
    // Pipelining: each round is a whole hierarchical collective over its share of the
    // data, so round r+1's intra-server phase overlaps round r's inter-server phase.
    // A round's pieces are the n x channels sub-shard blocks.
    const uint32_t rounds =
        CollectivePipelineRounds(bytes, static_cast<uint64_t>(n) * channels, chunkBytes);
    NS_ABORT_MSG_IF(static_cast<uint64_t>(n) * channels * rounds > (1u << 26),
                    who << ": " << n << " ranks x " << channels << " channels x " << rounds
                        << " rounds is too many blocks for one plan; use fewer channels or a "
                           "larger chunk");
    m_instances = channels * rounds;
    m_plan.SetAlgorithm(CollectiveAlgorithmToString(CollectiveAlgorithm::HIERARCHICAL));

    // Sub-shard (p, q) is the final shard of the rank at (server q, position p), sized as
    // the flat generators size rank shards, so reduce-scatter and all-gather meet the
    // checker's per-rank byte convention and all-reduce can reuse the same layout.
    const bool reduceScatter = type == CollectiveType::REDUCE_SCATTER;
    const bool allGather = type == CollectiveType::ALL_GATHER;
    for (uint32_t c = 0; c < m_instances; ++c)
    {
        for (uint32_t p = 0; p < m_g; ++p)
        {
            for (uint32_t q = 0; q < m_s; ++q)
            {
                const uint32_t owner = m_rank[q][p];
                const uint64_t sub = CommPlan::SplitBytes(bytes, n, owner);
                m_plan.AddBlock(CommPlan::SplitBytes(sub, m_instances, c),
                                allGather ? owner : CommPlan::ANY_RANK,
                                reduceScatter ? owner : CommPlan::ANY_RANK);
            }
        }
    }
    const size_t slots = static_cast<size_t>(n) * m_instances;
    m_intraFinal.assign(slots, NONE);
    m_interReduceFinal.assign(slots, NONE);
    m_gathered.assign(slots, {});
}

uint32_t
HierarchicalBuilder::Block(uint32_t c, uint32_t p, uint32_t q) const
{
    return (c * m_g + p) * m_s + q; // c: instance
}

size_t
HierarchicalBuilder::Slot(uint32_t rank, uint32_t c) const
{
    return static_cast<size_t>(rank) * m_instances + c;
}

uint32_t
HierarchicalBuilder::Add(uint32_t src,
                         uint32_t dst,
                         uint32_t chunk,
                         uint32_t count,
                         bool reduce,
                         uint32_t c,
                         std::vector<uint32_t> deps)
{
    CommPlan::Transfer t;
    t.src = src;
    t.dst = dst;
    t.chunk = chunk;
    t.chunkCount = count;
    t.reduce = reduce;
    t.channel = c % m_channels;
    t.step = m_step;
    deps.erase(std::remove(deps.begin(), deps.end(), NONE), deps.end());
    t.deps = std::move(deps);
    return m_plan.AddTransfer(std::move(t));
}

void
HierarchicalBuilder::IntraReduceScatter()
{
    // Ring p -> p+1 inside each server. At step k position p reduces-and-forwards shard
    // (p - k - 1) mod g, so shard x starts at position x + 1 and ends, after g - 1 hops,
    // at position x holding the sum over the server.
    std::vector<uint32_t> lastRecv(m_intraFinal.size(), NONE);
    for (uint32_t k = 0; k + 1 < m_g; ++k, ++m_step)
    {
        std::vector<uint32_t> nextRecv = lastRecv;
        for (uint32_t c = 0; c < m_instances; ++c)
        {
            for (uint32_t i = 0; i < m_s; ++i)
            {
                for (uint32_t p = 0; p < m_g; ++p)
                {
                    const uint32_t src = m_rank[i][p];
                    const uint32_t dst = m_rank[i][(p + 1) % m_g];
                    const uint32_t x = (p + 2 * m_g - k - 1) % m_g;
                    nextRecv[Slot(dst, c)] =
                        Add(src, dst, Block(c, x, 0), m_s, true, c, {lastRecv[Slot(src, c)]});
                }
            }
        }
        lastRecv.swap(nextRecv);
    }
    // The last receive of the ring brought each position its own shard (all s
    // sub-shards), so it is the phase-1 writer of everything phase 2 will read.
    m_intraFinal = lastRecv;
}

void
HierarchicalBuilder::InterReduceScatter()
{
    // Ring over servers i -> i+1 on each rail p, over the s sub-shards of shard p. At step
    // k server i reduces-and-forwards sub-shard (i - k - 1) mod s, which therefore ends
    // at server q fully reduced.
    std::vector<uint32_t> lastRecv(m_intraFinal.size(), NONE);
    for (uint32_t k = 0; k + 1 < m_s; ++k, ++m_step)
    {
        std::vector<uint32_t> nextRecv = lastRecv;
        for (uint32_t c = 0; c < m_instances; ++c)
        {
            for (uint32_t p = 0; p < m_g; ++p)
            {
                for (uint32_t i = 0; i < m_s; ++i)
                {
                    const uint32_t src = m_rank[i][p];
                    const uint32_t dst = m_rank[(i + 1) % m_s][p];
                    const uint32_t q = (i + 2 * m_s - k - 1) % m_s;
                    // The sender's copy of sub-shard q was written twice: by its phase-1
                    // receive (the server's partial sum) and, after step 0, by the
                    // previous ring receive (the upstream servers' partial sum). The two
                    // reductions are unordered, and neither arrives through the other,
                    // so the send must wait for both: waiting for the ring receive alone
                    // is the cross-phase race the checker would report.
                    nextRecv[Slot(dst, c)] =
                        Add(src,
                            dst,
                            Block(c, p, q),
                            1,
                            true,
                            c,
                            {m_intraFinal[Slot(src, c)], lastRecv[Slot(src, c)]});
                }
            }
        }
        lastRecv.swap(nextRecv);
    }
    m_interReduceFinal = lastRecv;
}

void
HierarchicalBuilder::InterAllGather()
{
    // Ring over servers on each rail: at step k server i forwards sub-shard
    // (i - k) mod s, starting with its own.
    std::vector<uint32_t> lastRecv(m_intraFinal.size(), NONE);
    for (uint32_t k = 0; k + 1 < m_s; ++k, ++m_step)
    {
        std::vector<uint32_t> nextRecv = lastRecv;
        for (uint32_t c = 0; c < m_instances; ++c)
        {
            for (uint32_t p = 0; p < m_g; ++p)
            {
                for (uint32_t i = 0; i < m_s; ++i)
                {
                    const uint32_t src = m_rank[i][p];
                    const uint32_t dst = m_rank[(i + 1) % m_s][p];
                    const uint32_t q = (i + m_s - k) % m_s;
                    std::vector<uint32_t> deps;
                    if (k == 0)
                    {
                        // The own sub-shard was completed by the last phase-2a receive,
                        // which summed the other servers, on top of the phase-1 receive,
                        // which summed this server; both must have landed. (For a plain
                        // all-gather both are NONE: the data is the rank's input.)
                        deps.push_back(m_intraFinal[Slot(src, c)]);
                        deps.push_back(m_interReduceFinal[Slot(src, c)]);
                    }
                    else
                    {
                        deps.push_back(lastRecv[Slot(src, c)]);
                    }
                    const uint32_t id = Add(src, dst, Block(c, p, q), 1, false, c, deps);
                    nextRecv[Slot(dst, c)] = id;
                    m_gathered[Slot(dst, c)].push_back(id);
                }
            }
        }
        lastRecv.swap(nextRecv);
    }
}

void
HierarchicalBuilder::IntraAllGather()
{
    // Ring p -> p+1 inside each server: at step k position p forwards shard
    // (p - k) mod g, starting with its own.
    std::vector<uint32_t> lastRecv(m_intraFinal.size(), NONE);
    for (uint32_t k = 0; k + 1 < m_g; ++k, ++m_step)
    {
        std::vector<uint32_t> nextRecv = lastRecv;
        for (uint32_t c = 0; c < m_instances; ++c)
        {
            for (uint32_t i = 0; i < m_s; ++i)
            {
                for (uint32_t p = 0; p < m_g; ++p)
                {
                    const uint32_t src = m_rank[i][p];
                    const uint32_t dst = m_rank[i][(p + 1) % m_g];
                    const uint32_t x = (p + m_g - k) % m_g;
                    std::vector<uint32_t> deps;
                    if (k == 0)
                    {
                        // The first send carries the whole own shard, so it waits for every
                        // transfer that last wrote one of its sub-shards: the final
                        // phase-2a receive (own sub-shard) and each phase-2b receive (one
                        // per other sub-shard); these are unordered among themselves.
                        const size_t slot = Slot(src, c);
                        deps = m_gathered[slot];
                        deps.push_back(m_interReduceFinal[slot]);
                        // The phase-1 receive also wrote the own sub-shard, but every
                        // phase-2b receive travelled a chain that includes this rank's own
                        // phase-2a send, which waited for it. Only without phase 2 (one
                        // server) must it be named.
                        if (m_gathered[slot].empty())
                        {
                            deps.push_back(m_intraFinal[slot]);
                        }
                    }
                    else
                    {
                        deps.assign(1, lastRecv[Slot(src, c)]);
                    }
                    nextRecv[Slot(dst, c)] = Add(src, dst, Block(c, x, 0), m_s, false, c, deps);
                }
            }
        }
        lastRecv.swap(nextRecv);
    }
}

CommPlan
HierarchicalBuilder::TakePlan()
{
    return std::move(m_plan);
}

} // namespace

CommPlan
HierarchicalAllReduce(const CommGroup& group,
                      uint64_t bytes,
                      uint32_t channels,
                      uint64_t chunkBytes)
{
    HierarchicalBuilder b("HierarchicalAllReduce",
                          CollectiveType::ALL_REDUCE,
                          group,
                          bytes,
                          channels,
                          chunkBytes);
    b.IntraReduceScatter();
    b.InterReduceScatter();
    b.InterAllGather();
    b.IntraAllGather();
    return b.TakePlan();
}

CommPlan
HierarchicalReduceScatter(const CommGroup& group,
                          uint64_t bytes,
                          uint32_t channels,
                          uint64_t chunkBytes)
{
    HierarchicalBuilder b("HierarchicalReduceScatter",
                          CollectiveType::REDUCE_SCATTER,
                          group,
                          bytes,
                          channels,
                          chunkBytes);
    b.IntraReduceScatter();
    b.InterReduceScatter();
    return b.TakePlan();
}

CommPlan
HierarchicalAllGather(const CommGroup& group,
                      uint64_t bytes,
                      uint32_t channels,
                      uint64_t chunkBytes)
{
    HierarchicalBuilder b("HierarchicalAllGather",
                          CollectiveType::ALL_GATHER,
                          group,
                          bytes,
                          channels,
                          chunkBytes);
    b.InterAllGather();
    b.IntraAllGather();
    return b.TakePlan();
}

bool
IsIntraServerTransfer(const CommGroup& group, const CommPlan::Transfer& transfer)
{
    return group.SameServer(transfer.src, transfer.dst);
}

} // namespace ns3
