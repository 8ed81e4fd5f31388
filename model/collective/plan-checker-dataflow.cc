// SPDX-License-Identifier: GPL-2.0-only
// PlanChecker's data flow: every (rank, block) location's contributions, carried through
// the plan's transfers in a topological order (point to point, switch reductions and
// multicasts), each step checked against what its sender holds.
#include "plan-check-run.h"

#include <algorithm>
#include <sstream>

namespace ns3
{
namespace plancheck
{

uint64_t
PlanCheckRun::Location(uint32_t rank, uint32_t block) const
{
    return static_cast<uint64_t>(block) * m_n + rank;
}

int64_t
PlanCheckRun::Held(uint64_t location) const
{
    auto it = m_held.find(location);
    return it == m_held.end() ? -1 : static_cast<int64_t>(it->second);
}

uint64_t
PlanCheckRun::Hold(uint64_t location)
{
    auto it = m_held.find(location);
    if (it != m_held.end())
    {
        std::fill_n(m_pool.begin() + it->second, m_words, 0);
        return it->second;
    }
    uint64_t offset = m_pool.size();
    m_pool.resize(offset + m_words, 0);
    m_held.emplace(location, offset);
    return offset;
}

bool
PlanCheckRun::IsFull(uint64_t offset) const
{
    for (uint32_t r = 0; r < m_n; ++r)
    {
        if (!(m_pool[offset + r / 64] >> (r % 64) & 1))
        {
            return false;
        }
    }
    return true;
}

std::string
PlanCheckRun::Describe(uint64_t offset, bool missing) const
{
    // Lists can be long at 64+ ranks; the first few members identify the problem.
    std::ostringstream os;
    uint32_t shown = 0;
    uint32_t count = 0;
    os << "{";
    for (uint32_t r = 0; r < m_n; ++r)
    {
        bool in = m_pool[offset + r / 64] >> (r % 64) & 1;
        if (in != missing)
        {
            ++count;
            if (shown < 12)
            {
                os << (shown ? "," : "") << r;
                ++shown;
            }
        }
    }
    if (count > shown)
    {
        os << ",... (" << count << " ranks)";
    }
    os << "}";
    return os.str();
}

bool
PlanCheckRun::Simulate(PlanCheckResult& result)
{
    HoldInitialBlocks();
    m_deliveries.assign(m_plan.GetNBlocks(), 0);

    const auto& transfers = m_plan.GetTransfers();
    for (uint32_t id : m_order)
    {
        const CommPlan::Transfer& t = transfers[id];
        if (t.kind != CommPlan::Kind::POINT_TO_POINT)
        {
            if (!SimulateSwitch(t, result))
            {
                return false;
            }
            continue;
        }
        if (!SimulatePointToPoint(id, result))
        {
            return false;
        }
    }
    return true;
}

void
PlanCheckRun::HoldInitialBlocks()
{
    const uint32_t nBlocks = m_plan.GetNBlocks();
    const auto& blocks = m_plan.GetBlocks();
    // Initial holdings: see the class documentation.
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        if (IsReducing(m_type))
        {
            for (uint32_t r = 0; r < m_n; ++r)
            {
                uint64_t off = Hold(Location(r, b));
                m_pool[off + r / 64] |= uint64_t{1} << (r % 64);
            }
        }
        else
        {
            uint32_t o = blocks[b].origin;
            uint64_t off = Hold(Location(o, b));
            m_pool[off + o / 64] |= uint64_t{1} << (o % 64);
        }
    }
}

bool
PlanCheckRun::SimulatePointToPoint(uint32_t id, PlanCheckResult& result)
{
    const CommPlan::Transfer& t = m_plan.GetTransfers()[id];
    for (uint32_t b = t.chunk; b < t.chunk + t.chunkCount; ++b)
    {
        std::ostringstream os;
        int64_t from = Held(Location(t.src, b));
        if (from < 0)
        {
            os << "transfer " << id << " sends block " << b << " from rank " << t.src
               << ", which does not hold it at that point";
            result = Fail(os.str(), id);
            return false;
        }
        int64_t to = Held(Location(t.dst, b));
        if (t.reduce)
        {
            if (!ReduceBlock(id, b, from, to, result))
            {
                return false;
            }
        }
        else
        {
            if (!CopyBlock(id, b, from, to, result))
            {
                return false;
            }
        }
    }
    return true;
}

bool
PlanCheckRun::ReduceBlock(uint32_t id,
                          uint32_t b,
                          int64_t from,
                          int64_t to,
                          PlanCheckResult& result)
{
    const CommPlan::Transfer& t = m_plan.GetTransfers()[id];
    std::ostringstream os;
    if (to < 0)
    {
        os << "transfer " << id << " reduces block " << b << " into rank " << t.dst
           << ", which holds no copy of it";
        result = Fail(os.str(), id);
        return false;
    }
    bool overlap = false;
    for (uint32_t w = 0; w < m_words; ++w)
    {
        overlap = overlap || (m_pool[to + w] & m_pool[from + w]) != 0;
    }
    if (overlap)
    {
        // Name the contributions that would be counted twice.
        std::vector<uint64_t> both(m_words);
        for (uint32_t w = 0; w < m_words; ++w)
        {
            both[w] = m_pool[to + w] & m_pool[from + w];
        }
        uint64_t scratch = m_pool.size();
        m_pool.insert(m_pool.end(), both.begin(), both.end());
        os << "transfer " << id << " reduces block " << b << " from rank " << t.src << " into rank "
           << t.dst << ", counting the contributions of ranks " << Describe(scratch, false)
           << " twice";
        result = Fail(os.str(), id);
        return false;
    }
    for (uint32_t w = 0; w < m_words; ++w)
    {
        m_pool[to + w] |= m_pool[from + w];
    }
    return true;
}

bool
PlanCheckRun::CopyBlock(uint32_t id, uint32_t b, int64_t from, int64_t to, PlanCheckResult& result)
{
    const CommPlan::Transfer& t = m_plan.GetTransfers()[id];
    const auto& blocks = m_plan.GetBlocks();
    std::ostringstream os;
    if (to >= 0 &&
        std::equal(m_pool.begin() + from, m_pool.begin() + from + m_words, m_pool.begin() + to))
    {
        os << "transfer " << id << " delivers block " << b << " to rank " << t.dst
           << ", which already holds exactly that data (duplicate delivery)";
        result = Fail(os.str(), id);
        return false;
    }
    // Hold() may grow the pool; copy by offset, never through a pointer.
    uint64_t dst = Hold(Location(t.dst, b));
    for (uint32_t w = 0; w < m_words; ++w)
    {
        m_pool[dst + w] = m_pool[from + w];
    }
    if (t.dst == blocks[b].target)
    {
        ++m_deliveries[b];
    }
    return true;
}

bool
PlanCheckRun::SimulateSwitch(const CommPlan::Transfer& t, PlanCheckResult& result)
{
    const CommPlan::Kind effect = CommPlan::DataEffect(t.kind);
    for (uint32_t b = t.chunk; b < t.chunk + t.chunkCount; ++b)
    {
        if (effect == CommPlan::Kind::SWITCH_REDUCE || effect == CommPlan::Kind::SWITCH_ALL_REDUCE)
        {
            if (!SwitchReduceBlock(t, effect, b, result))
            {
                return false;
            }
            continue;
        }
        if (!MulticastBlock(t, b, result))
        {
            return false;
        }
    }
    return true;
}

bool
PlanCheckRun::SwitchReduceBlock(const CommPlan::Transfer& t,
                                CommPlan::Kind effect,
                                uint32_t b,
                                PlanCheckResult& result)
{
    const auto& blocks = m_plan.GetBlocks();
    std::ostringstream os;
    // The switch adds up every member's copy; each contribution must be in exactly
    // one.
    const std::vector<uint32_t>& members = m_plan.GetMembers(t.members);
    std::vector<uint64_t> sum(m_words, 0);
    for (uint32_t r : members)
    {
        const int64_t from = Held(Location(r, b));
        if (from < 0)
        {
            os << "transfer " << t.id << " reduces block " << b << " in the switch, but rank " << r
               << " does not hold it at that point";
            result = Fail(os.str(), t.id);
            return false;
        }
        for (uint32_t w = 0; w < m_words; ++w)
        {
            if ((sum[w] & m_pool[from + w]) != 0)
            {
                const uint64_t scratch = m_pool.size();
                m_pool.resize(scratch + m_words, 0);
                m_pool[scratch + w] = sum[w] & m_pool[from + w];
                os << "transfer " << t.id << " reduces block " << b
                   << " in the switch, counting the contributions of ranks "
                   << Describe(scratch, false) << " twice (rank " << r
                   << " holds some already summed)";
                result = Fail(os.str(), t.id);
                return false;
            }
            sum[w] |= m_pool[from + w];
        }
    }
    if (effect == CommPlan::Kind::SWITCH_REDUCE)
    {
        const uint64_t to = Hold(Location(t.dst, b));
        std::copy(sum.begin(), sum.end(), m_pool.begin() + to);
        return true;
    }
    // In-network all-reduce: the sum replaces every member's copy.
    for (uint32_t r : members)
    {
        const uint64_t to = Hold(Location(r, b)); // may grow the pool: offsets only
        std::copy(sum.begin(), sum.end(), m_pool.begin() + to);
        if (r == blocks[b].target)
        {
            ++m_deliveries[b];
        }
    }
    return true;
}

bool
PlanCheckRun::MulticastBlock(const CommPlan::Transfer& t, uint32_t b, PlanCheckResult& result)
{
    const auto& blocks = m_plan.GetBlocks();
    std::ostringstream os;
    const int64_t from = Held(Location(t.src, b));
    if (from < 0)
    {
        os << "transfer " << t.id << " multicasts block " << b << " from rank " << t.src
           << ", which does not hold it at that point";
        result = Fail(os.str(), t.id);
        return false;
    }
    for (uint32_t r : m_plan.GetMembers(t.members))
    {
        if (r == t.src)
        {
            continue; // writes back what it holds
        }
        const int64_t to = Held(Location(r, b));
        if (to >= 0 &&
            std::equal(m_pool.begin() + from, m_pool.begin() + from + m_words, m_pool.begin() + to))
        {
            os << "transfer " << t.id << " multicasts block " << b << " to rank " << r
               << ", which already holds exactly that data (duplicate delivery)";
            result = Fail(os.str(), t.id);
            return false;
        }
        const uint64_t dst = Hold(Location(r, b)); // may grow the pool: offsets only
        for (uint32_t w = 0; w < m_words; ++w)
        {
            m_pool[dst + w] = m_pool[from + w];
        }
        if (r == blocks[b].target)
        {
            ++m_deliveries[b];
        }
    }
    return true;
}

} // namespace plancheck
} // namespace ns3
