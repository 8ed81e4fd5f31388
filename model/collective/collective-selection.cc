// SPDX-License-Identifier: GPL-2.0-only
#include "collective-selection.h"

#include "collective-hierarchical.h"

#include "ns3/abort.h"

namespace ns3
{

namespace
{
bool
IsPowerOfTwo(uint32_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

bool
SpansServersWithSeveralGpus(const CommGroup& group)
{
    return group.GetNServers() > 1 && group.IsUniform() &&
           group.GetSize() / group.GetNServers() > 1;
}
} // namespace

std::string
CollectiveSelection::Choose(CollectiveType type, const CommGroup& group, uint64_t bytes) const
{
    const bool small = bytes <= smallMessageBytes;
    switch (type)
    {
    case CollectiveType::ALL_TO_ALL:
    case CollectiveType::ALL_TO_ALLV:
    case CollectiveType::SEND_RECV:
        return "direct";
    case CollectiveType::ALL_REDUCE:
        if (switchReduction && !small)
        {
            return "nvls";
        }
        if (SpansServersWithSeveralGpus(group))
        {
            return "hierarchical";
        }
        return small && group.GetSize() > 2 ? "tree" : "ring";
    case CollectiveType::REDUCE_SCATTER:
    case CollectiveType::ALL_GATHER:
        if (switchReduction && !small)
        {
            return "nvls";
        }
        if (SpansServersWithSeveralGpus(group))
        {
            return "hierarchical";
        }
        return small && IsPowerOfTwo(group.GetSize()) ? "halving-doubling" : "ring";
    case CollectiveType::BROADCAST:
    case CollectiveType::REDUCE:
        return small ? "tree" : "ring";
    }
    return "ring";
}

CommPlan
CollectiveSelection::MakePlan(CollectiveType type,
                              const std::string& algorithm,
                              const CommGroup& group,
                              uint64_t bytes,
                              const CollectivePlanOptions& options) const
{
    const std::string name = algorithm == "auto" ? Choose(type, group, bytes) : algorithm;
    if (name == "hierarchical")
    {
        switch (type)
        {
        case CollectiveType::ALL_REDUCE:
            return HierarchicalAllReduce(group, bytes, options.channels);
        case CollectiveType::REDUCE_SCATTER:
            return HierarchicalReduceScatter(group, bytes, options.channels);
        case CollectiveType::ALL_GATHER:
            return HierarchicalAllGather(group, bytes, options.channels);
        default:
            NS_ABORT_MSG("CollectiveSelection: no hierarchical " << CollectiveTypeToString(type));
        }
    }
    static const std::pair<const char*, CollectiveAlgorithm> FLAT[] = {
        {"ring", CollectiveAlgorithm::RING},
        {"tree", CollectiveAlgorithm::TREE},
        {"halving-doubling", CollectiveAlgorithm::HALVING_DOUBLING},
        {"direct", CollectiveAlgorithm::DIRECT},
        {"nvls", CollectiveAlgorithm::NVLS},
    };
    for (const auto& [flatName, flat] : FLAT)
    {
        if (name == flatName)
        {
            NS_ABORT_MSG_IF(!IsCollectiveAlgorithmSupported(type, flat, group.GetSize()),
                            "CollectiveSelection: " << CollectiveTypeToString(type) << " has no "
                                                    << name << " algorithm for "
                                                    << group.GetSize() << " ranks");
            return MakeCollectivePlan(type, flat, group.GetSize(), bytes, options);
        }
    }
    NS_ABORT_MSG("CollectiveSelection: unknown algorithm '"
                 << algorithm
                 << "' (auto, ring, tree, halving-doubling, direct, hierarchical, nvls)");
}

} // namespace ns3
