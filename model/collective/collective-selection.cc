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

namespace
{
/// The algorithms MakeCollectivePlan builds, by the names users give them.
const std::pair<const char*, CollectiveAlgorithm> FLAT[] = {
    {"ring", CollectiveAlgorithm::RING},
    {"tree", CollectiveAlgorithm::TREE},
    {"halving-doubling", CollectiveAlgorithm::HALVING_DOUBLING},
    {"direct", CollectiveAlgorithm::DIRECT},
    {"nvls", CollectiveAlgorithm::NVLS},
};

/// \return the flat algorithm of that name, or nullptr
const CollectiveAlgorithm*
FindFlat(const std::string& name)
{
    for (const auto& [flatName, flat] : FLAT)
    {
        if (name == flatName)
        {
            return &flat;
        }
    }
    return nullptr;
}

bool
IsHierarchicalType(CollectiveType type)
{
    return type == CollectiveType::ALL_REDUCE || type == CollectiveType::REDUCE_SCATTER ||
           type == CollectiveType::ALL_GATHER;
}
} // namespace

bool
CollectiveSelection::CanMakePlan(CollectiveType type,
                                 const std::string& algorithm,
                                 const CommGroup& group,
                                 bool* known) const
{
    const CollectiveAlgorithm* flat = FindFlat(algorithm);
    const bool isKnown = algorithm == "auto" || algorithm == "hierarchical" || flat;
    if (known)
    {
        *known = isKnown;
    }
    if (!isKnown)
    {
        return false;
    }
    if (algorithm == "auto")
    {
        return true;
    }
    if (algorithm == "hierarchical")
    {
        return IsHierarchicalType(type) && group.IsUniform();
    }
    return IsCollectiveAlgorithmSupported(type, *flat, group.GetSize()) &&
           (*flat != CollectiveAlgorithm::NVLS || switchReduction);
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
    const CollectiveAlgorithm* flat = FindFlat(name);
    NS_ABORT_MSG_IF(!flat,
                    "CollectiveSelection: unknown algorithm '"
                        << algorithm << "' (auto, ring, tree, halving-doubling, direct, hierarchical, nvls)");
    NS_ABORT_MSG_IF(!IsCollectiveAlgorithmSupported(type, *flat, group.GetSize()),
                    "CollectiveSelection: " << CollectiveTypeToString(type) << " has no " << name
                                            << " algorithm for " << group.GetSize() << " ranks");
    return MakeCollectivePlan(type, *flat, group.GetSize(), bytes, options);
}

} // namespace ns3
