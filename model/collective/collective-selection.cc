// SPDX-License-Identifier: GPL-2.0-only
#include "collective-selection.h"

#include "collective-hierarchical.h"
#include "collective-plan-cost.h"
#include "collective-protocol.h"

#include "ns3/abort.h"
#include "ns3/ina-header.h"
#include "ns3/log.h"

#include <algorithm>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveSelection");

namespace
{
/// A carrier that only describes itself with CollectiveTransport's default figures: what
/// auto estimates on when it is given no carrier. It sends nothing.
class FigurelessCarrier : public CollectiveTransport
{
  public:
    void Send(uint32_t, uint32_t, uint64_t, uint32_t, DoneCallback) override
    {
        NS_ABORT_MSG("CollectiveSelection: the figure-only carrier sends nothing");
    }

    uint32_t GetNRanks() const override
    {
        return 0;
    }
};

/**
 * \param group a group
 * \return its (server, local index) pairs with servers and local indices replaced by their
 *         ranks among the group's (plans compare and sort them, never use their values)
 */
std::vector<uint32_t>
RelativeShape(const CommGroup& group)
{
    std::vector<uint32_t> shape = group.GetShape();
    for (std::size_t field = 0; field < 2; ++field)
    {
        std::vector<uint32_t> values;
        for (std::size_t i = field; i < shape.size(); i += 2)
        {
            values.push_back(shape[i]);
        }
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        for (std::size_t i = field; i < shape.size(); i += 2)
        {
            shape[i] = static_cast<uint32_t>(
                std::lower_bound(values.begin(), values.end(), shape[i]) - values.begin());
        }
    }
    return shape;
}

/// \return true if the group spans several servers with several GPUs on each
bool
SpansServersWithSeveralGpus(const CommGroup& group)
{
    return group.GetNServers() > 1 && group.IsUniform() &&
           group.GetSize() / group.GetNServers() > 1;
}
} // namespace

CollectiveSelection::CollectiveSelection() = default;

CollectiveSelection::CollectiveSelection(Ptr<const CollectiveTransport> carrier,
                                         std::vector<uint32_t> rankMap,
                                         std::shared_ptr<ChoiceBook> book)
    : m_carrier(carrier),
      m_rankMap(std::move(rankMap)),
      m_book(std::move(book))
{
}

bool
CollectiveSelection::CarrierMembers(const CommGroup& group, std::vector<uint32_t>& members) const
{
    if (!m_carrier)
    {
        return false;
    }
    members.assign(group.GetSize(), 0);
    std::iota(members.begin(), members.end(), 0u);
    if (!m_rankMap.empty())
    {
        if (m_rankMap.size() != group.GetSize())
        {
            return false;
        }
        members = m_rankMap;
    }
    return true;
}

bool
CollectiveSelection::SwitchReduction(const CommGroup& group) const
{
    std::vector<uint32_t> members;
    return CarrierMembers(group, members) && m_carrier->CanReduceInSwitch(members);
}

bool
CollectiveSelection::NetworkReduction(const CommGroup& group, CollectiveType type) const
{
    std::vector<uint32_t> members;
    if (!CarrierMembers(group, members))
    {
        return false;
    }
    return type == CollectiveType::ALL_REDUCE ? m_carrier->CanAllReduceInNetwork(members)
                                              : m_carrier->CanReduceInNetwork(members);
}

bool
CollectiveSelection::EveryServerReduces(const CommGroup& group,
                                        std::vector<uint32_t>& members) const
{
    if (!CarrierMembers(group, members) || group.GetNServers() < 2 || !group.IsUniform())
    {
        return false;
    }
    for (uint32_t server : group.GetServers())
    {
        std::vector<uint32_t> set;
        for (uint32_t r : group.GetRanksOnServer(server))
        {
            set.push_back(members[r]);
        }
        if (!m_carrier->CanReduceInSwitch(set))
        {
            return false;
        }
    }
    return true;
}

bool
CollectiveSelection::ServerAndRailReduction(const CommGroup& group) const
{
    // The plan's member sets (every server's ranks, every rail's), as the carrier numbers
    // the ranks; the carriers answer for a set whatever its order.
    std::vector<uint32_t> members;
    if (!EveryServerReduces(group, members))
    {
        return false;
    }
    for (uint32_t rail : group.GetRails())
    {
        std::vector<uint32_t> set;
        for (uint32_t r : group.GetRail(rail))
        {
            set.push_back(members[r]);
        }
        if (!m_carrier->CanAllReduceInNetwork(set))
        {
            return false;
        }
    }
    return true;
}

bool
CollectiveSelection::Applies(CollectiveType type,
                             CollectiveAlgorithm algorithm,
                             const CommGroup& group,
                             std::string* reason) const
{
    auto no = [reason](const std::string& why) {
        if (reason)
        {
            *reason = why;
        }
        return false;
    };
    if (!IsCollectiveAlgorithmSupported(type, algorithm, group.GetSize()))
    {
        return no(CollectiveTypeToString(type) + " has no " +
                  CollectiveAlgorithmToString(algorithm) + " algorithm for " +
                  std::to_string(group.GetSize()) + " ranks");
    }
    if (CollectiveAlgorithmNeedsServers(algorithm) && !group.IsUniform())
    {
        return no(CollectiveAlgorithmToString(algorithm) +
                  " needs the same GPUs (local indices) on every server of the group");
    }
    if (algorithm == CollectiveAlgorithm::NVLS && !SwitchReduction(group))
    {
        return no("nvls needs the whole group on one NVSwitch whose GPUs support NVLS "
                  "(Hopper or newer); this carrier cannot reduce in a switch over these " +
                  std::to_string(group.GetSize()) + " ranks");
    }
    std::vector<uint32_t> members;
    if (algorithm == CollectiveAlgorithm::NVLS_TREE && !EveryServerReduces(group, members))
    {
        return no("nvls-tree needs at least two servers, every one's GPUs on an NVSwitch that "
                  "reduces (NVLS: Hopper or newer)");
    }
    if (algorithm == CollectiveAlgorithm::NVLS_INA && !ServerAndRailReduction(group))
    {
        return no("nvls-ina needs every server's GPUs on an NVSwitch that reduces (NVLS: "
                  "Hopper or newer) and every rail's NICs under switches that aggregate in the "
                  "network (InaTransport) with room for them");
    }
    if (algorithm == CollectiveAlgorithm::INA && !NetworkReduction(group, type))
    {
        return no("ina needs switches that aggregate in the network (InaTransport) with room "
                  "for these " +
                  std::to_string(group.GetSize()) + " ranks" +
                  (type == CollectiveType::ALL_REDUCE
                       ? std::string()
                       : ", reducing toward or multicasting from one of them (jobs of at "
                         "most " +
                             std::to_string(ina::MAX_DIRECTED_WORKERS) + " ranks)"));
    }
    return true;
}

bool
CollectiveSelection::CanMakePlan(CollectiveType type,
                                 const std::string& algorithm,
                                 const CommGroup& group,
                                 bool* known,
                                 std::string* reason) const
{
    CollectiveAlgorithm a;
    const bool isKnown = CollectiveAlgorithmFromString(algorithm, a);
    if (known)
    {
        *known = isKnown;
    }
    if (!isKnown)
    {
        if (reason)
        {
            *reason = "unknown algorithm '" + algorithm + "' (one of " +
                      GetCollectiveAlgorithmNameList() + ")";
        }
        return false;
    }
    return CanMakePlan(type, a, group, reason);
}

bool
CollectiveSelection::CanMakePlan(CollectiveType type,
                                 CollectiveAlgorithm algorithm,
                                 const CommGroup& group,
                                 std::string* reason) const
{
    return algorithm == CollectiveAlgorithm::AUTO || Applies(type, algorithm, group, reason);
}

CommPlan
CollectiveSelection::Build(CollectiveType type,
                           CollectiveAlgorithm algorithm,
                           const CommGroup& group,
                           uint64_t bytes,
                           const CollectivePlanOptions& options) const
{
    const uint64_t chunk = CollectiveChunkBytes(algorithm, type, options);
    switch (algorithm)
    {
    case CollectiveAlgorithm::HIERARCHICAL:
        switch (type)
        {
        case CollectiveType::ALL_REDUCE:
            return HierarchicalAllReduce(group, bytes, options.channels, chunk);
        case CollectiveType::REDUCE_SCATTER:
            return HierarchicalReduceScatter(group, bytes, options.channels, chunk);
        default:
            return HierarchicalAllGather(group, bytes, options.channels, chunk);
        }
    case CollectiveAlgorithm::RAIL_RING: {
        const std::vector<std::vector<uint32_t>> orders =
            RailAlignedRingOrders(group, options.channels);
        CommPlan plan =
            IsRootedCollective(type)
                ? ChainOrdered(type, orders, bytes, options.root, chunk)
                : RingOrdered(type, orders, bytes, chunk, options.ringTransfersPerPhase);
        plan.SetAlgorithm(CollectiveAlgorithmToString(algorithm));
        return plan;
    }
    case CollectiveAlgorithm::NVLS_INA:
        return NvlsInaAllReduce(group, bytes, chunk);
    case CollectiveAlgorithm::NVLS_TREE:
        return NvlsTreeAllReduce(group, bytes, chunk);
    case CollectiveAlgorithm::TREE:
        if (type == CollectiveType::ALL_REDUCE && SpansServersWithSeveralGpus(group))
        {
            // NCCL's tree: chains inside the servers, a double binary tree between them.
            return TreeAllReduceAcrossServers(group, bytes, options.channels, chunk);
        }
        return MakeCollectivePlan(type, algorithm, group.GetSize(), bytes, options);
    default:
        return MakeCollectivePlan(type, algorithm, group.GetSize(), bytes, options);
    }
}

std::vector<CollectiveSelection::Candidate>
CollectiveSelection::Rank(CollectiveType type,
                          const CommGroup& group,
                          uint64_t bytes,
                          const CollectivePlanOptions& options) const
{
    return Rank(type, group, bytes, options, CollectiveAlgorithm::AUTO);
}

std::vector<CollectiveSelection::Candidate>
CollectiveSelection::Rank(CollectiveType type,
                          const CommGroup& group,
                          uint64_t bytes,
                          const CollectivePlanOptions& options,
                          CollectiveAlgorithm only) const
{
    std::vector<Candidate> candidates;
    // The server-aware algorithms compete where servers shape the plan: servers of
    // several GPUs, or hosts of one GPU each (hierarchical is then the ring across them,
    // pipelined by chunk).
    const bool acrossServers = SpansServersWithSeveralGpus(group) ||
                               (group.GetNServers() > 1 && group.GetNServers() == group.GetSize());
    Ptr<const CollectiveTransport> carrier = m_carrier;
    if (!carrier)
    {
        // No carrier: the default figures of CollectiveTransport, which gives none.
        carrier = CreateObject<FigurelessCarrier>();
    }
    const CollectivePlanCost cost(*carrier, m_rankMap, options.netOverhead);
    for (CollectiveAlgorithm a : GetCollectiveAlgorithms())
    {
        if (only != CollectiveAlgorithm::AUTO && a != only)
        {
            continue;
        }
        if (!Applies(type, a, group, nullptr) ||
            (only == CollectiveAlgorithm::AUTO && CollectiveAlgorithmNeedsServers(a) &&
             !acrossServers) ||
            !CollectiveProtocolApplies(a, options.protocol))
        {
            continue;
        }
        // A chunk too small for the call would make a plan too large to build.
        const uint64_t chunk = CollectiveChunkBytes(a, type, options);
        if (chunk != 0 && bytes / chunk > MAX_PLAN_PIECES)
        {
            continue;
        }
        CommPlan plan = Build(type, a, group, bytes, options);
        if (options.protocol != CollectiveProtocol::AUTO)
        {
            plan.SetProtocol(options.protocol);
            candidates.push_back({a, options.protocol, cost.Estimate(plan)});
            continue;
        }
        for (CollectiveProtocol p : GetCollectiveProtocols())
        {
            if (!CollectiveProtocolApplies(a, p))
            {
                continue;
            }
            CollectivePlanOptions own = options;
            own.protocol = p;
            const uint64_t ownChunk = CollectiveChunkBytes(a, type, own);
            if (ownChunk == chunk)
            {
                plan.SetProtocol(p);
                candidates.push_back({a, p, cost.Estimate(plan)});
                continue;
            }
            // A plan cut by the protocol's own step (a chain's chunk; BuildChain bounds it).
            CommPlan ownPlan = Build(type, a, group, bytes, own);
            ownPlan.SetProtocol(p);
            candidates.push_back({a, p, cost.Estimate(ownPlan)});
        }
    }
    std::stable_sort(
        candidates.begin(),
        candidates.end(),
        [](const Candidate& x, const Candidate& y) { return x.estimate < y.estimate; });
    return candidates;
}

CollectiveSelection::Candidate
CollectiveSelection::Choose(CollectiveType type,
                            const CommGroup& group,
                            uint64_t bytes,
                            const CollectivePlanOptions& options) const
{
    return Pick(type, CollectiveAlgorithm::AUTO, group, bytes, options);
}

CollectiveSelection::Candidate
CollectiveSelection::Pick(CollectiveType type,
                          CollectiveAlgorithm requested,
                          const CommGroup& group,
                          uint64_t bytes,
                          const CollectivePlanOptions& options) const
{
    // Groups of one shape (servers and local indices as they compare) share a key: the
    // book's logs tell whether the carrier describes them alike.
    std::vector<uint32_t> shape = RelativeShape(group);
    shape.push_back(options.doubleTree ? 1 : 0);
    shape.push_back(options.peer);
    shape.push_back(static_cast<uint32_t>(requested));
    shape.push_back(static_cast<uint32_t>(options.protocol));
    shape.push_back(options.ringTransfersPerPhase); // a coarsened ring estimates its own
    ChoiceKey key{static_cast<int>(type),
                  bytes,
                  options.channels,
                  options.chunkBytes,
                  options.root,
                  options.netOverhead.GetTimeStep(),
                  shape};
    auto it = m_choices.find(key);
    if (it != m_choices.end())
    {
        return it->second;
    }
    // Another group's choice, if the carrier describes this group as it did that one.
    std::vector<std::pair<Ptr<CarrierQueryLog>, Candidate>>* shared = nullptr;
    Ptr<CarrierQueryLog> log;
    if (m_book && m_carrier && !m_rankMap.empty())
    {
        shared = &m_book->choices[key];
        for (const auto& [other, choice] : *shared)
        {
            if (other->Holds(*m_carrier, m_rankMap))
            {
                NS_LOG_LOGIC("auto for " << type << " of " << bytes << " B over " << group.GetSize()
                                         << " ranks: " << choice.algorithm << " " << choice.protocol
                                         << " (" << choice.estimate.As(Time::US)
                                         << "), as for a group the carrier describes alike");
                ++m_book->shared;
                m_choices.emplace(std::move(key), choice);
                return choice;
            }
        }
        log = CreateObject<CarrierQueryLog>(m_carrier, m_rankMap);
        ++m_book->estimated;
    }
    const std::vector<Candidate> ranked =
        log ? CollectiveSelection(log, m_rankMap).Rank(type, group, bytes, options, requested)
            : Rank(type, group, bytes, options, requested);
    NS_ABORT_MSG_IF(ranked.empty(),
                    "CollectiveSelection: no algorithm applies to "
                        << type << " over " << group.GetSize() << " ranks with protocol "
                        << options.protocol);
    // Ties go to the simpler algorithm: the earliest in the name table among those within
    // TIE_TOLERANCE of the fastest; it runs its fastest protocol (ranked is fastest first).
    const double limit = ranked.front().estimate.GetSeconds() * (1 + TIE_TOLERANCE);
    Candidate best = ranked.front();
    for (CollectiveAlgorithm a : GetCollectiveAlgorithms())
    {
        auto c = std::find_if(ranked.begin(), ranked.end(), [a](const Candidate& x) {
            return x.algorithm == a;
        });
        if (c != ranked.end() && c->estimate.GetSeconds() <= limit)
        {
            best = *c;
            break;
        }
    }
    NS_LOG_LOGIC("auto for " << type << " of " << bytes << " B over " << group.GetSize()
                             << " ranks: " << best.algorithm << " " << best.protocol << " ("
                             << best.estimate.As(Time::US) << ")");
    if (log && log->IsPortable())
    {
        shared->emplace_back(log, best);
    }
    m_choices.emplace(std::move(key), best);
    return best;
}

CommPlan
CollectiveSelection::MakePlan(CollectiveType type,
                              CollectiveAlgorithm algorithm,
                              const CommGroup& group,
                              uint64_t bytes,
                              const CollectivePlanOptions& options) const
{
    std::string reason;
    NS_ABORT_MSG_IF(!CanMakePlan(type, algorithm, group, &reason),
                    "CollectiveSelection: " << type << " with " << algorithm << " over "
                                            << group.GetSize() << " ranks: " << reason);
    NS_ABORT_MSG_IF(!CollectiveProtocolApplies(algorithm, options.protocol),
                    "CollectiveSelection: " << algorithm << " does not run the " << options.protocol
                                            << " protocol (it runs Simple only)");
    const Candidate c = Pick(type, algorithm, group, bytes, options);
    CollectivePlanOptions chosen = options;
    chosen.protocol = c.protocol; // a chain is cut by its protocol's step
    CommPlan plan = Build(type, c.algorithm, group, bytes, chosen);
    plan.SetProtocol(c.protocol);
    return plan;
}

} // namespace ns3
