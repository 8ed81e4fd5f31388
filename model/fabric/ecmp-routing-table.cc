// SPDX-License-Identifier: GPL-2.0-only
#include "ecmp-routing-table.h"

#include <algorithm>

namespace ns3
{

std::vector<uint32_t>&
EcmpRoutingTable::Entry(uint32_t dstIp)
{
    if (!m_hasBase)
    {
        m_hasBase = true;
        m_denseBase = dstIp;
    }
    uint32_t offset = dstIp - m_denseBase;
    std::vector<uint32_t>* entry;
    if (dstIp >= m_denseBase && offset < DENSE_SPAN)
    {
        if (offset >= m_dense.size())
        {
            m_dense.resize(offset + 1);
        }
        entry = &m_dense[offset];
    }
    else
    {
        entry = &m_sparse[dstIp];
    }
    if (entry->empty())
    {
        ++m_nRoutes;
    }
    return *entry;
}

void
EcmpRoutingTable::AddRoute(uint32_t dstIp, uint32_t port)
{
    auto& ports = Entry(dstIp);
    if (std::find(ports.begin(), ports.end(), port) == ports.end())
    {
        ports.push_back(port);
        std::sort(ports.begin(), ports.end());
    }
}

void
EcmpRoutingTable::Clear()
{
    m_hasBase = false;
    m_dense.clear();
    m_sparse.clear();
    m_nRoutes = 0;
}

const std::vector<uint32_t>*
EcmpRoutingTable::Lookup(uint32_t dstIp) const
{
    uint32_t offset = dstIp - m_denseBase;
    if (m_hasBase && dstIp >= m_denseBase && offset < m_dense.size())
    {
        return m_dense[offset].empty() ? nullptr : &m_dense[offset];
    }
    auto it = m_sparse.find(dstIp);
    return it == m_sparse.end() ? nullptr : &it->second;
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
    return m_nRoutes;
}

} // namespace ns3
