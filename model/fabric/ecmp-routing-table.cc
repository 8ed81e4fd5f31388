// SPDX-License-Identifier: GPL-2.0-only
#include "ecmp-routing-table.h"

#include <algorithm>

namespace ns3
{

void
EcmpRoutingTable::AddRoute(uint32_t dstIp, uint32_t port)
{
    auto& ports = m_routes[dstIp];
    if (std::find(ports.begin(), ports.end(), port) == ports.end())
    {
        ports.push_back(port);
        std::sort(ports.begin(), ports.end());
    }
}

void
EcmpRoutingTable::Clear()
{
    m_routes.clear();
}

const std::vector<uint32_t>*
EcmpRoutingTable::Lookup(uint32_t dstIp) const
{
    auto it = m_routes.find(dstIp);
    return it == m_routes.end() ? nullptr : &it->second;
}

uint64_t
EcmpRoutingTable::Hash(uint64_t key, uint64_t salt)
{
    // splitmix64 finalizer over key ^ salt
    uint64_t z = key ^ (salt * 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint32_t
EcmpRoutingTable::SelectPort(uint32_t dstIp, uint64_t flowKey, uint64_t salt) const
{
    const std::vector<uint32_t>* ports = Lookup(dstIp);
    if (!ports || ports->empty())
    {
        return UINT32_MAX;
    }
    if (ports->size() == 1)
    {
        return (*ports)[0];
    }
    return (*ports)[Hash(flowKey, salt) % ports->size()];
}

std::size_t
EcmpRoutingTable::GetNRoutes() const
{
    return m_routes.size();
}

} // namespace ns3
