// SPDX-License-Identifier: GPL-2.0-only
#include "plan-checker.h"

#include "plan-check-run.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ns3
{
namespace plancheck
{

PlanCheckRun::PlanCheckRun(const CommPlan& plan)
    : m_plan(plan),
      m_type(plan.GetType()),
      m_n(plan.GetGroupSize()),
      m_words((plan.GetGroupSize() + 63) / 64)
{
}

PlanCheckResult
PlanCheckRun::Fail(const std::string& reason, uint32_t transfer) const
{
    PlanCheckResult result;
    result.ok = false;
    result.reason = CollectiveTypeToString(m_type) + ": " + reason;
    result.transfer = transfer;
    return result;
}

bool
PlanCheckRun::CheckBlocks(std::string& why) const
{
    std::ostringstream os;
    const uint64_t total = m_plan.GetTotalBytes();
    const auto& blocks = m_plan.GetBlocks();
    const uint32_t any = CommPlan::ANY_RANK;
    uint64_t sum = 0;
    // Per-rank or per-pair byte sums, for the collectives whose goal is per rank.
    std::vector<uint64_t> perRank(m_n, 0);
    std::vector<uint64_t> perPair;
    const bool pairwise =
        m_type == CollectiveType::ALL_TO_ALL || m_type == CollectiveType::ALL_TO_ALLV;
    if (pairwise)
    {
        perPair.assign(static_cast<size_t>(m_n) * m_n, 0);
    }

    for (uint32_t b = 0; b < blocks.size(); ++b)
    {
        const CommPlan::Block& block = blocks[b];
        sum += block.bytes;
        if (!BlockFits(block, perRank, perPair))
        {
            os << "block " << b << " has origin "
               << (block.origin == any ? std::string("any") : std::to_string(block.origin))
               << " and target "
               << (block.target == any ? std::string("any") : std::to_string(block.target))
               << ", which does not fit this collective";
            why = os.str();
            return false;
        }
    }

    switch (m_type)
    {
    case CollectiveType::REDUCE_SCATTER:
    case CollectiveType::ALL_GATHER:
        return CheckShardBytes(perRank, why);
    case CollectiveType::ALL_TO_ALL:
    case CollectiveType::ALL_TO_ALLV:
        return CheckPairBytes(perPair, why);
    default:
        if (sum != total)
        {
            os << "the blocks hold " << sum << " bytes, expected " << total;
            why = os.str();
            return false;
        }
        return true;
    }
}

bool
PlanCheckRun::BlockFits(const CommPlan::Block& block,
                        std::vector<uint64_t>& perRank,
                        std::vector<uint64_t>& perPair) const
{
    const uint32_t root = m_plan.GetRoot();
    const uint32_t any = CommPlan::ANY_RANK;
    bool originOk = true;
    bool targetOk = true;
    switch (m_type)
    {
    case CollectiveType::ALL_REDUCE:
        originOk = block.origin == any;
        targetOk = block.target == any;
        break;
    case CollectiveType::REDUCE_SCATTER:
        originOk = block.origin == any;
        targetOk = block.target != any;
        if (targetOk)
        {
            perRank[block.target] += block.bytes;
        }
        break;
    case CollectiveType::REDUCE:
        originOk = block.origin == any;
        targetOk = block.target == root;
        break;
    case CollectiveType::ALL_GATHER:
        originOk = block.origin != any;
        targetOk = block.target == any;
        if (originOk)
        {
            perRank[block.origin] += block.bytes;
        }
        break;
    case CollectiveType::BROADCAST:
        originOk = block.origin == root;
        targetOk = block.target == any;
        break;
    case CollectiveType::ALL_TO_ALL:
    case CollectiveType::ALL_TO_ALLV:
        originOk = block.origin != any;
        targetOk = block.target != any && block.target != block.origin;
        if (originOk && targetOk)
        {
            perPair[static_cast<size_t>(block.origin) * m_n + block.target] += block.bytes;
        }
        break;
    case CollectiveType::SEND_RECV:
        originOk = block.origin == m_plan.GetRoot();
        targetOk = block.target == m_plan.GetPeer();
        break;
    }
    return originOk && targetOk;
}

bool
PlanCheckRun::CheckShardBytes(const std::vector<uint64_t>& perRank, std::string& why) const
{
    std::ostringstream os;
    const uint64_t total = m_plan.GetTotalBytes();
    for (uint32_t r = 0; r < m_n; ++r)
    {
        uint64_t expected = CommPlan::SplitBytes(total, m_n, r);
        if (perRank[r] != expected)
        {
            os << "the blocks of rank " << r << "'s shard hold " << perRank[r]
               << " bytes, expected " << expected << " (1/" << m_n << " of " << total << ")";
            why = os.str();
            return false;
        }
    }
    return true;
}

bool
PlanCheckRun::CheckPairBytes(const std::vector<uint64_t>& perPair, std::string& why) const
{
    std::ostringstream os;
    const uint64_t total = m_plan.GetTotalBytes();
    const auto& matrix = m_plan.GetPairBytes();
    uint64_t largestRow = 0;
    for (uint32_t s = 0; s < m_n; ++s)
    {
        uint64_t row = 0;
        for (uint32_t d = 0; d < m_n; ++d)
        {
            uint64_t expected = m_type == CollectiveType::ALL_TO_ALL
                                    ? CommPlan::SplitBytes(total, m_n, d)
                                    : matrix[static_cast<size_t>(s) * m_n + d];
            row += expected;
            if (s != d && perPair[static_cast<size_t>(s) * m_n + d] != expected)
            {
                os << "the blocks from rank " << s << " to rank " << d << " hold "
                   << perPair[static_cast<size_t>(s) * m_n + d] << " bytes, expected " << expected;
                why = os.str();
                return false;
            }
        }
        largestRow = std::max(largestRow, row);
    }
    if (m_type == CollectiveType::ALL_TO_ALLV && largestRow != total)
    {
        os << "total bytes " << total << " should be the largest send buffer, " << largestRow
           << " bytes";
        why = os.str();
        return false;
    }
    return true;
}

bool
PlanCheckRun::HappensBefore(uint32_t earlier, uint32_t later)
{
    if (m_pos[earlier] >= m_pos[later])
    {
        return false;
    }
    const uint64_t key = static_cast<uint64_t>(earlier) << 32 | later;
    if (m_ordered.count(key))
    {
        return true;
    }
    // Walk deps backwards from the later transfer. Anything at or before the earlier
    // one's topological position cannot lie on a path from it, so the walk stops there.
    ++m_stamp;
    std::vector<uint32_t> stack{later};
    m_visit[later] = m_stamp;
    const auto& transfers = m_plan.GetTransfers();
    while (!stack.empty())
    {
        uint32_t x = stack.back();
        stack.pop_back();
        for (uint32_t d : transfers[x].deps)
        {
            if (d == earlier)
            {
                m_ordered.insert(key);
                return true;
            }
            if (m_pos[d] > m_pos[earlier] && m_visit[d] != m_stamp)
            {
                m_visit[d] = m_stamp;
                stack.push_back(d);
            }
        }
    }
    return false;
}

std::vector<Access>
PlanCheckRun::CollectAccesses() const
{
    const auto& transfers = m_plan.GetTransfers();
    std::vector<Access> accesses;
    for (const auto& t : transfers)
    {
        for (uint32_t b = t.chunk; b < t.chunk + t.chunkCount; ++b)
        {
            switch (CommPlan::DataEffect(t.kind))
            {
            case CommPlan::Kind::POINT_TO_POINT:
                accesses.push_back({Location(t.src, b), m_pos[t.id], t.id, READ});
                accesses.push_back(
                    {Location(t.dst, b), m_pos[t.id], t.id, t.reduce ? REDUCE : WRITE});
                break;
            case CommPlan::Kind::SWITCH_REDUCE:
                // Reads every member's copy and replaces dst's (its read is in the write).
                for (uint32_t r : m_plan.GetMembers(t.members))
                {
                    accesses.push_back(
                        {Location(r, b), m_pos[t.id], t.id, r == t.dst ? WRITE : READ});
                }
                break;
            case CommPlan::Kind::SWITCH_MULTICAST:
                // Reads src's copy and replaces every other member's.
                for (uint32_t r : m_plan.GetMembers(t.members))
                {
                    accesses.push_back(
                        {Location(r, b), m_pos[t.id], t.id, r == t.src ? READ : WRITE});
                }
                break;
            case CommPlan::Kind::SWITCH_ALL_REDUCE:
                // Reads every member's copy and replaces it with the sum.
                for (uint32_t r : m_plan.GetMembers(t.members))
                {
                    accesses.push_back({Location(r, b), m_pos[t.id], t.id, WRITE});
                }
                break;
            default: // DataEffect leaves no other kind
                break;
            }
        }
    }
    std::sort(accesses.begin(), accesses.end(), [](const Access& a, const Access& b) {
        return a.location != b.location ? a.location < b.location : a.pos < b.pos;
    });
    return accesses;
}

bool
PlanCheckRun::CheckRaces(PlanCheckResult& result)
{
    const std::vector<Access> accesses = CollectAccesses();

    auto kindName = [](AccessKind k) {
        return k == READ ? "reads" : (k == WRITE ? "overwrites" : "reduces into");
    };
    for (size_t begin = 0; begin < accesses.size();)
    {
        size_t end = begin;
        while (end < accesses.size() && accesses[end].location == accesses[begin].location)
        {
            ++end;
        }
        // Every write must be ordered against every other access of the location,
        // except reduction against reduction. Looping over writes keeps the cost at
        // writes x accesses, which stays small even when many transfers read one copy.
        for (size_t w = begin; w < end; ++w)
        {
            if (accesses[w].kind == READ)
            {
                continue;
            }
            for (size_t a = begin; a < end; ++a)
            {
                if (a == w || (accesses[a].kind != READ && a < w))
                {
                    continue; // itself, or a write pair already seen from the other side
                }
                if (accesses[a].kind == REDUCE && accesses[w].kind == REDUCE)
                {
                    continue;
                }
                const Access& first = accesses[std::min(a, w)];
                const Access& second = accesses[std::max(a, w)];
                if (!HappensBefore(first.id, second.id))
                {
                    std::ostringstream os;
                    const uint32_t rank = first.location % m_n;
                    const uint32_t block = first.location / m_n;
                    os << "transfers " << first.id << " and " << second.id << " race on block "
                       << block << " at rank " << rank << ": " << first.id << " "
                       << kindName(first.kind) << " it and " << second.id << " "
                       << kindName(second.kind)
                       << " it, but neither depends on the other (a dependency is missing)";
                    result = Fail(os.str(), second.id);
                    return false;
                }
            }
        }
        begin = end;
    }
    return true;
}

bool
PlanCheckRun::CheckGoal(std::string& why) const
{
    std::ostringstream os;
    const auto& blocks = m_plan.GetBlocks();
    for (uint32_t b = 0; b < blocks.size(); ++b)
    {
        bool ok = true;
        switch (m_type)
        {
        case CollectiveType::ALL_REDUCE:
            for (uint32_t r = 0; r < m_n && ok; ++r)
            {
                ok = HoldsAtEnd(r, b, true, os);
            }
            break;
        case CollectiveType::REDUCE_SCATTER:
        case CollectiveType::REDUCE:
            ok = HoldsAtEnd(blocks[b].target, b, true, os);
            break;
        case CollectiveType::ALL_GATHER:
        case CollectiveType::BROADCAST:
            for (uint32_t r = 0; r < m_n && ok; ++r)
            {
                ok = HoldsAtEnd(r, b, false, os);
            }
            break;
        case CollectiveType::ALL_TO_ALL:
        case CollectiveType::ALL_TO_ALLV:
        case CollectiveType::SEND_RECV:
            ok = HoldsAtEnd(blocks[b].target, b, false, os);
            if (ok && m_deliveries[b] != 1)
            {
                // Cannot exceed one (a second copy is a duplicate delivery), but state
                // the "exactly once" goal explicitly rather than rely on that.
                os << "block " << b << " reaches rank " << blocks[b].target << " "
                   << m_deliveries[b] << " times";
                ok = false;
            }
            break;
        }
        if (!ok)
        {
            why = os.str();
            return false;
        }
    }
    return true;
}

bool
PlanCheckRun::HoldsAtEnd(uint32_t r, uint32_t b, bool full, std::ostream& os) const
{
    const auto& blocks = m_plan.GetBlocks();
    int64_t off = Held(Location(r, b));
    if (off < 0)
    {
        os << "rank " << r << " ends without block " << b;
        return false;
    }
    if (full && !IsFull(off))
    {
        os << "rank " << r << " ends with block " << b << " missing the contributions of ranks "
           << Describe(off, true);
        return false;
    }
    if (!full)
    {
        uint32_t o = blocks[b].origin;
        bool onlyOrigin = m_pool[off + o / 64] >> (o % 64) & 1;
        for (uint32_t w = 0; w < m_words && onlyOrigin; ++w)
        {
            uint64_t expected = (w == o / 64) ? uint64_t{1} << (o % 64) : 0;
            onlyOrigin = m_pool[off + w] == expected;
        }
        if (!onlyOrigin)
        {
            os << "rank " << r << " ends with block " << b << " holding data of ranks "
               << Describe(off, false) << " instead of rank " << o << "'s";
            return false;
        }
    }
    return true;
}

PlanCheckResult
PlanCheckRun::Check()
{
    std::string why;
    if (!m_plan.Validate(&why))
    {
        return Fail("malformed plan: " + why);
    }
    if (m_plan.IsCoarse())
    {
        return Fail("a coarsened plan (transfers of several steps) is a timing schedule: check "
                    "the plan it coarsens");
    }
    if (!CheckBlocks(why))
    {
        return Fail(why);
    }
    if (!IsReducing(m_type))
    {
        for (const auto& t : m_plan.GetTransfers())
        {
            const CommPlan::Kind effect = CommPlan::DataEffect(t.kind);
            if (t.reduce || effect == CommPlan::Kind::SWITCH_REDUCE ||
                effect == CommPlan::Kind::SWITCH_ALL_REDUCE)
            {
                return Fail("transfer " + std::to_string(t.id) +
                                " reduces, but this collective does not combine data",
                            t.id);
            }
        }
    }
    m_order = m_plan.GetTopologicalOrder();
    m_pos.assign(m_order.size(), 0);
    for (uint32_t i = 0; i < m_order.size(); ++i)
    {
        m_pos[m_order[i]] = i;
    }
    m_visit.assign(m_order.size(), 0);

    PlanCheckResult result;
    if (!CheckRaces(result) || !Simulate(result))
    {
        return result;
    }
    if (!CheckGoal(why))
    {
        return Fail(why);
    }
    return result;
}

} // namespace plancheck

PlanCheckResult
PlanChecker::Check(const CommPlan& plan)
{
    plancheck::PlanCheckRun run(plan);
    return run.Check();
}

} // namespace ns3
