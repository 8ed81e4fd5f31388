// SPDX-License-Identifier: GPL-2.0-only
#include "comm-plan.h"

#include "ns3/abort.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <set>
#include <sstream>
#include <utility>

namespace ns3
{

std::string
CollectiveTypeToString(CollectiveType type)
{
    switch (type)
    {
    case CollectiveType::ALL_REDUCE:
        return "all-reduce";
    case CollectiveType::REDUCE_SCATTER:
        return "reduce-scatter";
    case CollectiveType::ALL_GATHER:
        return "all-gather";
    case CollectiveType::BROADCAST:
        return "broadcast";
    case CollectiveType::REDUCE:
        return "reduce";
    case CollectiveType::ALL_TO_ALL:
        return "all-to-all";
    case CollectiveType::ALL_TO_ALLV:
        return "all-to-allv";
    case CollectiveType::SEND_RECV:
        return "send-recv";
    }
    return "unknown";
}

const std::vector<CollectiveType>&
GetCollectiveTypes()
{
    static const std::vector<CollectiveType> all = {CollectiveType::ALL_REDUCE,
                                                    CollectiveType::REDUCE_SCATTER,
                                                    CollectiveType::ALL_GATHER,
                                                    CollectiveType::BROADCAST,
                                                    CollectiveType::REDUCE,
                                                    CollectiveType::ALL_TO_ALL,
                                                    CollectiveType::ALL_TO_ALLV,
                                                    CollectiveType::SEND_RECV};
    return all;
}

bool
CollectiveTypeFromString(const std::string& name, CollectiveType& type)
{
    for (CollectiveType t : GetCollectiveTypes())
    {
        if (name == CollectiveTypeToString(t))
        {
            type = t;
            return true;
        }
    }
    return false;
}

std::ostream&
operator<<(std::ostream& os, CollectiveType type)
{
    return os << CollectiveTypeToString(type);
}

double
CollectiveBusBwFactor(CollectiveType type, uint32_t n)
{
    if (n == 0)
    {
        return 0.0;
    }
    const double share = static_cast<double>(n - 1) / n;
    switch (type)
    {
    case CollectiveType::ALL_REDUCE:
        return 2.0 * share;
    case CollectiveType::REDUCE_SCATTER:
    case CollectiveType::ALL_GATHER:
    case CollectiveType::ALL_TO_ALL:
    case CollectiveType::ALL_TO_ALLV:
        return share;
    case CollectiveType::BROADCAST:
    case CollectiveType::REDUCE:
    case CollectiveType::SEND_RECV:
        return 1.0;
    }
    return 1.0;
}

bool
IsRootedCollective(CollectiveType type)
{
    return type == CollectiveType::BROADCAST || type == CollectiveType::REDUCE;
}

CommPlan::CommPlan()
    : CommPlan(CollectiveType::ALL_REDUCE, 1, 0)
{
}

CommPlan::CommPlan(CollectiveType type, uint32_t groupSize, uint64_t totalBytes)
    : m_type(type),
      m_groupSize(groupSize),
      m_totalBytes(totalBytes)
{
    NS_ABORT_MSG_IF(groupSize == 0, "CommPlan: the group size must be at least 1");
    std::vector<uint32_t> all(groupSize);
    std::iota(all.begin(), all.end(), 0u);
    m_memberSets.push_back(std::move(all));
}

uint32_t
CommPlan::AddMemberSet(std::vector<uint32_t> ranks)
{
    NS_ABORT_MSG_IF(ranks.empty(), "CommPlan::AddMemberSet: the set is empty");
    std::vector<uint32_t> sorted = ranks;
    std::sort(sorted.begin(), sorted.end());
    NS_ABORT_MSG_IF(sorted.back() >= m_groupSize,
                    "CommPlan::AddMemberSet: rank " << sorted.back() << " is out of range (group "
                                                    << "size " << m_groupSize << ")");
    NS_ABORT_MSG_IF(std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end(),
                    "CommPlan::AddMemberSet: a rank is named twice");
    m_memberSets.push_back(std::move(ranks));
    return static_cast<uint32_t>(m_memberSets.size() - 1);
}

const std::vector<uint32_t>&
CommPlan::GetMembers(uint32_t set) const
{
    NS_ABORT_MSG_IF(set >= m_memberSets.size(),
                    "CommPlan::GetMembers: no member set " << set << " (the plan has "
                                                           << m_memberSets.size() << ")");
    return m_memberSets[set];
}

uint32_t
CommPlan::GetNMemberSets() const
{
    return static_cast<uint32_t>(m_memberSets.size());
}

uint32_t
CommPlan::GetMemberIndex(uint32_t set, uint32_t rank) const
{
    if (set == ALL_MEMBERS)
    {
        return rank < m_groupSize ? rank : m_groupSize;
    }
    const std::vector<uint32_t>& members = GetMembers(set);
    return static_cast<uint32_t>(std::find(members.begin(), members.end(), rank) - members.begin());
}

CommPlan::Kind
CommPlan::DataEffect(Kind kind)
{
    switch (kind)
    {
    case Kind::NETWORK_REDUCE:
        return Kind::SWITCH_REDUCE;
    case Kind::NETWORK_MULTICAST:
        return Kind::SWITCH_MULTICAST;
    default:
        return kind;
    }
}

bool
CommPlan::InNetwork(Kind kind)
{
    return kind == Kind::SWITCH_ALL_REDUCE || kind == Kind::NETWORK_REDUCE ||
           kind == Kind::NETWORK_MULTICAST;
}

bool
CommPlan::Involves(const Transfer& t, uint32_t rank) const
{
    if (t.kind == Kind::POINT_TO_POINT)
    {
        return t.src == rank || t.dst == rank;
    }
    return GetMemberIndex(t.members, rank) < GetMembers(t.members).size();
}

uint64_t
CommPlan::SplitBytes(uint64_t total, uint32_t parts, uint32_t index)
{
    NS_ABORT_MSG_IF(parts == 0, "CommPlan::SplitBytes: cannot split into 0 parts");
    NS_ABORT_MSG_IF(index >= parts,
                    "CommPlan::SplitBytes: part " << index << " of " << parts << " does not exist");
    return total / parts + (index < total % parts ? 1 : 0);
}

CollectiveType
CommPlan::GetType() const
{
    return m_type;
}

uint32_t
CommPlan::GetGroupSize() const
{
    return m_groupSize;
}

uint64_t
CommPlan::GetTotalBytes() const
{
    return m_totalBytes;
}

void
CommPlan::SetAlgorithm(const std::string& name)
{
    m_algorithm = name;
}

const std::string&
CommPlan::GetAlgorithm() const
{
    return m_algorithm;
}

void
CommPlan::SetProtocol(CollectiveProtocol protocol)
{
    m_protocol = protocol;
}

CollectiveProtocol
CommPlan::GetProtocol() const
{
    return m_protocol;
}

void
CommPlan::SetRoot(uint32_t root)
{
    m_root = root;
}

uint32_t
CommPlan::GetRoot() const
{
    return m_root;
}

void
CommPlan::SetPeer(uint32_t peer)
{
    m_peer = peer;
}

uint32_t
CommPlan::GetPeer() const
{
    return m_peer;
}

void
CommPlan::SetPairBytes(std::vector<uint64_t> pairBytes)
{
    m_pairBytes = std::move(pairBytes);
}

const std::vector<uint64_t>&
CommPlan::GetPairBytes() const
{
    return m_pairBytes;
}

uint32_t
CommPlan::AddBlock(uint64_t bytes, uint32_t origin, uint32_t target)
{
    m_blocks.push_back({bytes, origin, target});
    return m_blocks.size() - 1;
}

uint32_t
CommPlan::GetNBlocks() const
{
    return m_blocks.size();
}

const CommPlan::Block&
CommPlan::GetBlock(uint32_t index) const
{
    NS_ABORT_MSG_IF(index >= m_blocks.size(),
                    "CommPlan: block " << index << " does not exist (" << m_blocks.size()
                                       << " blocks)");
    return m_blocks[index];
}

const std::vector<CommPlan::Block>&
CommPlan::GetBlocks() const
{
    return m_blocks;
}

uint32_t
CommPlan::AddTransfer(Transfer transfer)
{
    NS_ABORT_MSG_IF(transfer.chunkCount == 0,
                    "CommPlan::AddTransfer: a transfer must move at least one block");
    NS_ABORT_MSG_IF(static_cast<uint64_t>(transfer.chunk) + transfer.chunkCount > m_blocks.size(),
                    "CommPlan::AddTransfer: blocks "
                        << transfer.chunk << ".." << transfer.chunk + transfer.chunkCount - 1
                        << " do not exist (" << m_blocks.size() << " blocks); add blocks first");
    NS_ABORT_MSG_IF(transfer.steps == 0,
                    "CommPlan::AddTransfer: a transfer carries at least one step");
    transfer.id = m_transfers.size();
    if (transfer.steps == 1)
    {
        transfer.bytes = 0;
        for (uint32_t b = transfer.chunk; b < transfer.chunk + transfer.chunkCount; ++b)
        {
            transfer.bytes += m_blocks[b].bytes;
        }
    }
    NS_ABORT_MSG_IF(transfer.steps > 1 && transfer.bytes == 0,
                    "CommPlan::AddTransfer: a transfer of " << transfer.steps
                                                            << " steps needs its bytes");
    m_transfers.push_back(std::move(transfer));
    return m_transfers.back().id;
}

uint32_t
CommPlan::GetNTransfers() const
{
    return m_transfers.size();
}

const CommPlan::Transfer&
CommPlan::GetTransfer(uint32_t id) const
{
    NS_ABORT_MSG_IF(id >= m_transfers.size(),
                    "CommPlan: transfer " << id << " does not exist (" << m_transfers.size()
                                          << " transfers)");
    return m_transfers[id];
}

CommPlan::Transfer&
CommPlan::GetTransfer(uint32_t id)
{
    NS_ABORT_MSG_IF(id >= m_transfers.size(),
                    "CommPlan: transfer " << id << " does not exist (" << m_transfers.size()
                                          << " transfers)");
    return m_transfers[id];
}

const std::vector<CommPlan::Transfer>&
CommPlan::GetTransfers() const
{
    return m_transfers;
}

void
CommPlan::SetTransfers(std::vector<Transfer> transfers)
{
    m_transfers = std::move(transfers);
}

uint32_t
CommPlan::GetNChannels() const
{
    uint32_t channels = 1;
    for (const auto& t : m_transfers)
    {
        channels = std::max(channels, t.channel + 1);
    }
    return channels;
}

uint32_t
CommPlan::GetNSteps() const
{
    uint32_t steps = 0;
    for (const auto& t : m_transfers)
    {
        steps = std::max(steps, t.step + t.steps);
    }
    return steps;
}

bool
CommPlan::IsCoarse() const
{
    return std::any_of(m_transfers.begin(), m_transfers.end(), [](const Transfer& t) {
        return t.steps > 1;
    });
}

uint64_t
CommPlan::GetBytesSent(uint32_t rank) const
{
    uint64_t bytes = 0;
    for (const auto& t : m_transfers)
    {
        const Kind effect = DataEffect(t.kind);
        const bool sends = effect == Kind::SWITCH_REDUCE || effect == Kind::SWITCH_ALL_REDUCE
                               ? GetMemberIndex(t.members, rank) < GetMembers(t.members).size()
                               : t.src == rank;
        bytes += sends ? t.bytes : 0;
    }
    return bytes;
}

uint64_t
CommPlan::GetBytesReceived(uint32_t rank) const
{
    uint64_t bytes = 0;
    for (const auto& t : m_transfers)
    {
        const Kind effect = DataEffect(t.kind);
        const bool receives = effect == Kind::SWITCH_MULTICAST || effect == Kind::SWITCH_ALL_REDUCE
                                  ? GetMemberIndex(t.members, rank) < GetMembers(t.members).size()
                                  : t.dst == rank;
        bytes += receives ? t.bytes : 0;
    }
    return bytes;
}

uint32_t
CommPlan::GetTransfersSent(uint32_t rank) const
{
    return std::count_if(m_transfers.begin(), m_transfers.end(), [this, rank](const Transfer& t) {
        const Kind effect = DataEffect(t.kind);
        return effect == Kind::SWITCH_REDUCE || effect == Kind::SWITCH_ALL_REDUCE
                   ? Involves(t, rank)
                   : t.src == rank;
    });
}

uint32_t
CommPlan::GetStepsSent(uint32_t rank) const
{
    std::set<uint32_t> steps;
    for (const auto& t : m_transfers)
    {
        const Kind effect = DataEffect(t.kind);
        if (effect == Kind::SWITCH_REDUCE || effect == Kind::SWITCH_ALL_REDUCE ? Involves(t, rank)
                                                                               : t.src == rank)
        {
            steps.insert(t.step);
        }
    }
    return steps.size();
}

std::vector<uint32_t>
CommPlan::GetTopologicalOrder() const
{
    const uint32_t n = m_transfers.size();
    std::vector<uint32_t> pending(n, 0);
    std::vector<std::vector<uint32_t>> dependents(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t d : m_transfers[i].deps)
        {
            if (d >= n)
            {
                return {};
            }
            ++pending[i];
            dependents[d].push_back(i);
        }
    }
    // Kahn's algorithm with a min-heap, so that the order is deterministic and equals id
    // order for plans whose deps only point backwards (all generated ones).
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> ready;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (pending[i] == 0)
        {
            ready.push(i);
        }
    }
    std::vector<uint32_t> order;
    order.reserve(n);
    while (!ready.empty())
    {
        uint32_t i = ready.top();
        ready.pop();
        order.push_back(i);
        for (uint32_t j : dependents[i])
        {
            if (--pending[j] == 0)
            {
                ready.push(j);
            }
        }
    }
    if (order.size() != n)
    {
        return {};
    }
    return order;
}

bool
CommPlan::Validate(std::string* reason) const
{
    std::ostringstream why;
    auto fail = [&]() {
        if (reason)
        {
            *reason = why.str();
        }
        return false;
    };
    if (!ValidateShape(why))
    {
        return fail();
    }
    const uint32_t nt = m_transfers.size();
    for (uint32_t i = 0; i < nt; ++i)
    {
        if (!ValidateTransfer(i, why))
        {
            return fail();
        }
    }
    if (GetTopologicalOrder().size() != nt)
    {
        why << "the dependencies form a cycle";
        return fail();
    }
    if (reason)
    {
        reason->clear();
    }
    return true;
}

bool
CommPlan::ValidateShape(std::ostream& why) const
{
    const uint32_t n = m_groupSize;
    const bool rooted = IsRootedCollective(m_type) || m_type == CollectiveType::SEND_RECV;
    if (rooted && m_root >= n)
    {
        why << "root " << m_root << " is out of range (group size " << n << ")";
        return false;
    }
    if (m_type == CollectiveType::SEND_RECV && (m_peer >= n || m_peer == m_root))
    {
        why << "send/recv peer " << m_peer << " must be a rank other than the sender " << m_root
            << " (group size " << n << ")";
        return false;
    }
    if (m_type == CollectiveType::ALL_TO_ALLV && m_pairBytes.size() != static_cast<uint64_t>(n) * n)
    {
        why << "all-to-allv needs an " << n << "x" << n << " byte matrix, got "
            << m_pairBytes.size() << " entries";
        return false;
    }
    for (uint32_t b = 0; b < m_blocks.size(); ++b)
    {
        const Block& block = m_blocks[b];
        if ((block.origin != ANY_RANK && block.origin >= n) ||
            (block.target != ANY_RANK && block.target >= n))
        {
            why << "block " << b << " names a rank out of range (origin " << block.origin
                << ", target " << block.target << ", group size " << n << ")";
            return false;
        }
    }
    return true;
}

bool
CommPlan::ValidateTransfer(uint32_t i, std::ostream& why) const
{
    const uint32_t n = m_groupSize;
    const Transfer& t = m_transfers[i];
    if (t.id != i)
    {
        why << "transfer at index " << i << " has id " << t.id << "; ids must equal indices";
        return false;
    }
    if (t.src >= n || t.dst >= n)
    {
        why << "transfer " << i << " goes " << t.src << " -> " << t.dst
            << ", out of range (group size " << n << ")";
        return false;
    }
    if (t.kind == Kind::POINT_TO_POINT && t.src == t.dst)
    {
        why << "transfer " << i << " sends from rank " << t.src << " to itself";
        return false;
    }
    if (t.members >= m_memberSets.size() ||
        (t.members != ALL_MEMBERS && t.kind == Kind::POINT_TO_POINT))
    {
        why << "transfer " << i << " names member set " << t.members
            << (t.kind == Kind::POINT_TO_POINT ? " but goes point to point"
                                               : ", which does not exist");
        return false;
    }
    if (t.kind != Kind::POINT_TO_POINT &&
        GetMemberIndex(t.members, t.src) >= GetMembers(t.members).size())
    {
        why << "transfer " << i << " is issued by rank " << t.src
            << ", which is not in its member set " << t.members;
        return false;
    }
    if (t.kind != Kind::POINT_TO_POINT && (t.src != t.dst || t.reduce))
    {
        why << "transfer " << i << " goes through the switch, so it needs src == dst (the "
            << "issuing rank) and no reduce flag; it has " << t.src << " -> " << t.dst
            << (t.reduce ? " with reduce" : "");
        return false;
    }
    if (t.chunkCount == 0 || static_cast<uint64_t>(t.chunk) + t.chunkCount > m_blocks.size())
    {
        why << "transfer " << i << " moves blocks " << t.chunk << " (+" << t.chunkCount
            << "), but the plan has " << m_blocks.size() << " blocks";
        return false;
    }
    uint64_t bytes = 0;
    for (uint32_t b = t.chunk; b < t.chunk + t.chunkCount; ++b)
    {
        bytes += m_blocks[b].bytes;
    }
    if (t.steps == 0)
    {
        why << "transfer " << i << " carries no step";
        return false;
    }
    if (t.steps == 1 && bytes != t.bytes)
    {
        why << "transfer " << i << " says " << t.bytes << " bytes but its blocks hold " << bytes;
        return false;
    }
    return ValidateDeps(i, why);
}

bool
CommPlan::ValidateDeps(uint32_t i, std::ostream& why) const
{
    const uint32_t nt = m_transfers.size();
    const Transfer& t = m_transfers[i];
    std::set<uint32_t> seen;
    for (uint32_t d : t.deps)
    {
        if (d >= nt)
        {
            why << "transfer " << i << " depends on transfer " << d << ", which does not exist";
            return false;
        }
        if (d == i)
        {
            why << "transfer " << i << " depends on itself";
            return false;
        }
        if (!seen.insert(d).second)
        {
            why << "transfer " << i << " lists dependency " << d << " twice";
            return false;
        }
    }
    return true;
}

void
CommPlan::Print(std::ostream& os) const
{
    os << "CommPlan " << m_type;
    if (!m_algorithm.empty())
    {
        os << " (" << m_algorithm << ")";
    }
    if (m_protocol != CollectiveProtocol::NONE)
    {
        os << " protocol " << CollectiveProtocolToString(m_protocol);
    }
    os << ": " << m_groupSize << " ranks, " << m_totalBytes << " bytes, " << m_blocks.size()
       << " blocks, " << m_transfers.size() << " transfers, " << GetNChannels() << " channels, "
       << GetNSteps() << " steps";
    if (IsRootedCollective(m_type))
    {
        os << ", root " << m_root;
    }
    if (m_type == CollectiveType::SEND_RECV)
    {
        os << ", " << m_root << " -> " << m_peer;
    }
    os << "\n";
    for (const Transfer& t : m_transfers)
    {
        os << "  #" << t.id << " step " << t.step << " ch " << t.channel << ": ";
        switch (t.kind)
        {
        case Kind::POINT_TO_POINT:
            os << t.src << " -> " << t.dst;
            break;
        case Kind::SWITCH_REDUCE:
            os << "switch-reduce -> " << t.dst;
            break;
        case Kind::SWITCH_MULTICAST:
            os << t.src << " -> switch-multicast";
            break;
        case Kind::SWITCH_ALL_REDUCE:
            os << "switch-all-reduce";
            break;
        case Kind::NETWORK_REDUCE:
            os << "network-reduce -> " << t.dst;
            break;
        case Kind::NETWORK_MULTICAST:
            os << t.src << " -> network-multicast";
            break;
        }
        if (t.members != ALL_MEMBERS)
        {
            os << " among {";
            const auto& members = GetMembers(t.members);
            for (size_t m = 0; m < members.size(); ++m)
            {
                os << (m ? "," : "") << members[m];
            }
            os << "}";
        }
        os << " block " << t.chunk;
        if (t.chunkCount > 1)
        {
            os << ".." << t.chunk + t.chunkCount - 1;
        }
        os << " (" << t.bytes << " B)" << (t.reduce ? " reduce" : "");
        if (!t.deps.empty())
        {
            os << " deps {";
            for (size_t k = 0; k < t.deps.size(); ++k)
            {
                os << (k ? "," : "") << t.deps[k];
            }
            os << "}";
        }
        os << "\n";
    }
}

std::ostream&
operator<<(std::ostream& os, const CommPlan& plan)
{
    plan.Print(os);
    return os;
}

} // namespace ns3
