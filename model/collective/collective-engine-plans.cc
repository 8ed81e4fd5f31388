// SPDX-License-Identifier: GPL-2.0-only
// CollectiveEngine's plans: made by its CollectiveSelection (auto's choice) and kept in
// its bounded, least-recently-used plan cache.
#include "collective-engine.h"
#include "collective-selection.h"

#include "ns3/log.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

// The class's log component ("CollectiveEngine"), defined in collective-engine.cc: NS_LOG
// finds it under this name.
LogComponent& CollectiveEngineLogComponent();
static LogComponent& g_log = CollectiveEngineLogComponent();

CommPlan
CollectiveEngine::MakeCollectivePlan(CollectiveType type,
                                     const CommGroup& group,
                                     uint64_t bytes,
                                     const std::vector<uint32_t>& rankMap,
                                     uint32_t root,
                                     std::optional<CollectiveAlgorithm> algorithm) const
{
    NS_LOG_FUNCTION(this << type << bytes << root);
    auto sel = m_selections.find(rankMap);
    if (sel == m_selections.end())
    {
        sel = m_selections.emplace(rankMap, CollectiveSelection(m_transport, rankMap, m_choiceBook))
                  .first;
    }
    CollectivePlanOptions options;
    options.channels = m_channels;
    options.chunkBytes = m_chunkBytes;
    options.root = root;
    options.protocol = m_protocol;
    options.netOverhead = m_netOverhead;
    options.ringTransfersPerPhase = m_ringTransfersPerPhase;
    const CollectiveAlgorithm requested = algorithm.value_or(m_algorithm);
    CommPlan plan = sel->second.MakePlan(type, requested, group, bytes, options);
    NS_LOG_LOGIC("CollectiveEngine: " << type << " of " << bytes << " B over " << group.GetSize()
                                      << " ranks: " << requested << " -> " << plan.GetAlgorithm());
    return plan;
}

bool
CollectiveEngine::PlanKey::operator<(const PlanKey& o) const
{
    return std::tie(type,
                    algorithm,
                    bytes,
                    root,
                    channels,
                    chunkBytes,
                    protocol,
                    netOverhead,
                    ringTransfersPerPhase,
                    rankMap,
                    shape) < std::tie(o.type,
                                      o.algorithm,
                                      o.bytes,
                                      o.root,
                                      o.channels,
                                      o.chunkBytes,
                                      o.protocol,
                                      o.netOverhead,
                                      o.ringTransfersPerPhase,
                                      o.rankMap,
                                      o.shape);
}

std::shared_ptr<const CommPlan>
CollectiveEngine::GetCollectivePlan(CollectiveType type,
                                    const CommGroup& group,
                                    uint64_t bytes,
                                    const std::vector<uint32_t>& rankMap,
                                    uint32_t root,
                                    std::optional<CollectiveAlgorithm> algorithm) const
{
    const CollectiveAlgorithm requested = algorithm.value_or(m_algorithm);
    ++m_planUses;
    TrimPlans(m_planCacheTransfers); // the bound may have been lowered since
    if (m_planCacheTransfers == 0)
    {
        ++m_planStats.builds;
        return std::make_shared<const CommPlan>(
            MakeCollectivePlan(type, group, bytes, rankMap, root, requested));
    }
    PlanKey key{rankMap,
                group.GetShape(),
                static_cast<int>(type),
                static_cast<int>(requested),
                bytes,
                root,
                m_channels,
                m_chunkBytes,
                static_cast<int>(m_protocol),
                m_netOverhead.GetTimeStep(),
                m_ringTransfersPerPhase};
    auto it = m_plans.find(key);
    if (it != m_plans.end())
    {
        ++m_planStats.hits;
        it->second.lastUse = m_planUses;
        NS_LOG_LOGIC("CollectiveEngine: " << type << " of " << bytes << " B over "
                                          << group.GetSize() << " ranks: cached "
                                          << it->second.plan->GetAlgorithm() << " plan");
        return it->second.plan;
    }
    ++m_planStats.builds;
    auto plan = std::make_shared<const CommPlan>(
        MakeCollectivePlan(type, group, bytes, rankMap, root, requested));
    const uint64_t size = plan->GetNTransfers();
    if (size == 0 || size > m_planCacheTransfers)
    {
        return plan; // nothing worth keeping, or larger than the whole cache
    }
    TrimPlans(m_planCacheTransfers - size);
    m_validated[plan.get()] = false;
    m_plans.emplace(std::move(key), CachedPlan{plan, m_planUses});
    ++m_planStats.plans;
    m_planStats.transfers += size;
    return plan;
}

void
CollectiveEngine::TrimPlans(uint64_t transfers) const
{
    while (m_planStats.transfers > transfers)
    {
        // Forget the least recently used plan (rare: only when the cache is full).
        auto lru =
            std::min_element(m_plans.begin(), m_plans.end(), [](const auto& a, const auto& b) {
                return a.second.lastUse < b.second.lastUse;
            });
        NS_LOG_LOGIC("CollectiveEngine: plan cache full, forgetting a "
                     << lru->second.plan->GetNTransfers() << "-transfer plan");
        m_planStats.transfers -= lru->second.plan->GetNTransfers();
        m_validated.erase(lru->second.plan.get());
        ForgetReplays(lru->second.plan.get());
        ++m_planGeneration;
        --m_planStats.plans;
        ++m_planStats.evictions;
        m_plans.erase(lru);
    }
}

CollectiveEngine::PlanCacheStats
CollectiveEngine::GetPlanCacheStats() const
{
    PlanCacheStats stats = m_planStats;
    if (m_choiceBook)
    {
        stats.choicesEstimated = m_choiceBook->estimated;
        stats.choicesShared = m_choiceBook->shared;
    }
    return stats;
}

CommPlan
CollectiveEngine::MakeSendRecvPlan(uint64_t bytes) const
{
    return SendRecv(2, 0, 1, bytes, m_channels);
}

} // namespace ns3
