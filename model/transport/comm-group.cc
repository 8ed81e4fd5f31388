// SPDX-License-Identifier: GPL-2.0-only
#include "comm-group.h"

#include "ns3/abort.h"

#include <algorithm>
#include <set>
#include <utility>

namespace ns3
{

CommGroup::CommGroup() = default;

CommGroup::CommGroup(std::vector<Gpu> gpus)
    : m_gpus(std::move(gpus))
{
    // Two ranks on one GPU would make "same server" and "same rail" meaningless and
    // the engine would deliver one rank's data to the other; refuse it outright.
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (uint32_t r = 0; r < m_gpus.size(); ++r)
    {
        if (!seen.insert({m_gpus[r].server, m_gpus[r].local}).second)
        {
            NS_ABORT_MSG("CommGroup: rank " << r << " is on GPU (server " << m_gpus[r].server
                                            << ", local " << m_gpus[r].local
                                            << ") which an earlier rank already uses");
        }
    }
}

CommGroup
CommGroup::Uniform(uint32_t nServers, uint32_t gpusPerServer, uint32_t hosts)
{
    NS_ABORT_MSG_IF(nServers == 0, "CommGroup::Uniform: nServers must be at least 1");
    NS_ABORT_MSG_IF(gpusPerServer == 0, "CommGroup::Uniform: gpusPerServer must be at least 1");
    NS_ABORT_MSG_IF(static_cast<uint64_t>(nServers) * gpusPerServer > UINT32_MAX,
                    "CommGroup::Uniform: " << nServers << " x " << gpusPerServer
                                           << " ranks do not fit a 32-bit rank");
    std::vector<Gpu> gpus;
    gpus.reserve(nServers * gpusPerServer);
    for (uint32_t s = 0; s < nServers; ++s)
    {
        for (uint32_t l = 0; l < gpusPerServer; ++l)
        {
            gpus.push_back({s, l});
        }
    }
    for (uint32_t h = 0; h < hosts; ++h)
    {
        gpus.push_back({nServers + h, 0});
    }
    return CommGroup(std::move(gpus));
}

CommGroup
CommGroup::SubGroup(const std::vector<uint32_t>& ranks) const
{
    NS_ABORT_MSG_IF(ranks.empty(), "CommGroup::SubGroup: the rank list is empty");
    std::vector<bool> used(m_gpus.size(), false);
    std::vector<Gpu> gpus;
    gpus.reserve(ranks.size());
    for (uint32_t r : ranks)
    {
        NS_ABORT_MSG_IF(r >= m_gpus.size(),
                        "CommGroup::SubGroup: rank " << r << " is out of range (group size "
                                                     << m_gpus.size() << ")");
        NS_ABORT_MSG_IF(used[r], "CommGroup::SubGroup: rank " << r << " is listed twice");
        used[r] = true;
        gpus.push_back(m_gpus[r]);
    }
    return CommGroup(std::move(gpus));
}

uint32_t
CommGroup::GetSize() const
{
    return m_gpus.size();
}

CommGroup::Gpu
CommGroup::GetGpu(uint32_t rank) const
{
    NS_ABORT_MSG_IF(rank >= m_gpus.size(),
                    "CommGroup: rank " << rank << " is out of range (group size " << m_gpus.size()
                                       << ")");
    return m_gpus[rank];
}

uint32_t
CommGroup::GetServer(uint32_t rank) const
{
    return GetGpu(rank).server;
}

uint32_t
CommGroup::GetLocalIndex(uint32_t rank) const
{
    return GetGpu(rank).local;
}

bool
CommGroup::SameServer(uint32_t a, uint32_t b) const
{
    return GetServer(a) == GetServer(b);
}

std::vector<uint32_t>
CommGroup::GetShape() const
{
    std::vector<uint32_t> shape;
    shape.reserve(2 * m_gpus.size());
    for (const Gpu& gpu : m_gpus)
    {
        shape.push_back(gpu.server);
        shape.push_back(gpu.local);
    }
    return shape;
}

std::vector<uint32_t>
CommGroup::GetServers() const
{
    std::set<uint32_t> servers;
    for (const auto& g : m_gpus)
    {
        servers.insert(g.server);
    }
    return {servers.begin(), servers.end()};
}

uint32_t
CommGroup::GetNServers() const
{
    return GetServers().size();
}

std::vector<uint32_t>
CommGroup::GetRanksOnServer(uint32_t server) const
{
    std::vector<uint32_t> ranks;
    for (uint32_t r = 0; r < m_gpus.size(); ++r)
    {
        if (m_gpus[r].server == server)
        {
            ranks.push_back(r);
        }
    }
    return ranks;
}

std::vector<uint32_t>
CommGroup::GetRanksOnServerByLocalIndex(uint32_t server) const
{
    std::vector<uint32_t> ranks = GetRanksOnServer(server);
    std::sort(ranks.begin(), ranks.end(), [this](uint32_t a, uint32_t b) {
        return m_gpus[a].local < m_gpus[b].local;
    });
    return ranks;
}

std::vector<uint32_t>
CommGroup::GetRails() const
{
    std::set<uint32_t> rails;
    for (const auto& g : m_gpus)
    {
        rails.insert(g.local);
    }
    return {rails.begin(), rails.end()};
}

std::vector<uint32_t>
CommGroup::GetRail(uint32_t localIndex) const
{
    std::vector<uint32_t> ranks;
    for (uint32_t r = 0; r < m_gpus.size(); ++r)
    {
        if (m_gpus[r].local == localIndex)
        {
            ranks.push_back(r);
        }
    }
    return ranks;
}

bool
CommGroup::FindRank(uint32_t server, uint32_t local, uint32_t& rank) const
{
    for (uint32_t r = 0; r < m_gpus.size(); ++r)
    {
        if (m_gpus[r].server == server && m_gpus[r].local == local)
        {
            rank = r;
            return true;
        }
    }
    return false;
}

bool
CommGroup::IsUniform() const
{
    if (m_gpus.empty())
    {
        return false;
    }
    std::vector<uint32_t> reference;
    bool first = true;
    for (uint32_t s : GetServers())
    {
        std::vector<uint32_t> locals;
        for (uint32_t r : GetRanksOnServer(s))
        {
            locals.push_back(m_gpus[r].local);
        }
        std::sort(locals.begin(), locals.end());
        if (first)
        {
            reference = locals;
            first = false;
        }
        else if (locals != reference)
        {
            return false;
        }
    }
    return true;
}

void
CommGroup::Print(std::ostream& os) const
{
    os << "CommGroup: " << GetSize() << " ranks on " << GetNServers() << " servers\n";
    for (uint32_t s : GetServers())
    {
        os << "  server " << s << ":";
        for (uint32_t r : GetRanksOnServer(s))
        {
            os << " " << r << "(" << m_gpus[r].local << ")";
        }
        os << "\n";
    }
}

std::ostream&
operator<<(std::ostream& os, const CommGroup& group)
{
    group.Print(os);
    return os;
}

} // namespace ns3
