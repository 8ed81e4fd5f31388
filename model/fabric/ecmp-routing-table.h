// SPDX-License-Identifier: GPL-2.0-only
#ifndef ECMP_ROUTING_TABLE_H
#define ECMP_ROUTING_TABLE_H

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Destination routing table of a switch: IPv4 host address → the set of equal-cost
 * egress ports, with ECMP selection by a salted hash of the flow's 5-tuple.
 *
 * One flow always hashes to the same port (no reordering); the salt differs per switch
 * so that consecutive tiers do not polarize.
 */
class EcmpRoutingTable
{
  public:
    /**
     * Add an egress port to the set for a destination (duplicates ignored; the set is kept
     * sorted, so the port a flow hashes to does not depend on the order of the calls).
     * \param dstIp destination host address
     * \param port egress port
     */
    void AddRoute(uint32_t dstIp, uint32_t port);
    /// Remove every route.
    void Clear();
    /**
     * \param dstIp destination host address
     * \return the equal-cost ports towards it, or nullptr if there is no route
     */
    const std::vector<uint32_t>* Lookup(uint32_t dstIp) const;
    /**
     * Egress port for a flow: the only port, or Hash(flowKey, salt) modulo the number of
     * equal-cost ports.
     * \param dstIp destination host
     * \param flowKey 5-tuple key (RoceFrameInfo::FlowKey)
     * \param salt per-switch hash salt
     * \return the port, or UINT32_MAX without a route
     */
    uint32_t SelectPort(uint32_t dstIp, uint64_t flowKey, uint64_t salt) const;
    /// \return destinations with a route
    std::size_t GetNRoutes() const;
    /**
     * The hash used for ECMP (a 64-bit finalizer, good avalanche on nearby keys).
     * \param key the flow key
     * \param salt the switch's salt
     * \return the hash
     */
    static uint64_t Hash(uint64_t key, uint64_t salt);

  private:
    std::vector<uint32_t>& Entry(uint32_t dstIp);

    /// Addresses near the first one added (hosts are numbered densely) live in a vector
    /// indexed by their offset: the per-hop look-up is an index, not a hash.
    static constexpr uint32_t DENSE_SPAN = 1u << 20;
    uint32_t m_denseBase{0};
    bool m_hasBase{false};
    std::vector<std::vector<uint32_t>> m_dense;
    std::unordered_map<uint32_t, std::vector<uint32_t>> m_sparse;
    std::size_t m_nRoutes{0};
};

} // namespace ns3

#endif
