// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_TOPOLOGY_HELPER_H
#define ROCE_TOPOLOGY_HELPER_H

#include "roce-helper.h"

#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * What a topology builder made. Host i has address 10.0.0.1 + i and nics[i].
 */
struct RoceTopology
{
    NodeContainer hosts;
    NodeContainer switches;
    std::vector<Ptr<RdmaNic>> nics;
    std::vector<Ptr<RoceSwitch>> switchObjects;
};

/**
 * \ingroup ai-fabric
 * Small standard fabrics built with a RoceHelper (whose attributes apply), routed and
 * ready for queue pairs.
 */
class RoceTopologyHelper
{
  public:
    explicit RoceTopologyHelper(RoceHelper& roce);

    /// Address of host i.
    static Ipv4Address HostAddress(uint32_t index);

    /**
     * Spread the next LeafSpine or RailOptimized fabrics over n ranks of ns-3's
     * distributed engine: leaf l and its hosts get system id floor(l × n / leaves)
     * (consecutive leaves together); in a rail-optimized cluster a pod's rail leaves and
     * servers stay together, pod p on floor(p × n / pods) (more ranks than pods abort);
     * spine s gets s mod n. Only leaf-to-spine cables cross ranks, and the engine's
     * lookahead is their delay. 1 (the default) builds every node on system 0. The other
     * builders abort if n > 1.
     * \param n number of ranks (at least 1)
     */
    void SetPartitions(uint32_t n);
    /// \return the number of ranks the next fabric is spread over (SetPartitions)
    uint32_t GetPartitions() const;

    /// nHosts on one switch.
    RoceTopology Star(uint32_t nHosts, DataRate rate, Time delay);
    /// nLeft hosts on switch 0, nRight on switch 1, one bottleneck cable between them.
    RoceTopology Dumbbell(uint32_t nLeft,
                          uint32_t nRight,
                          DataRate hostRate,
                          DataRate bottleneckRate,
                          Time delay);
    /**
     * Two-tier leaf-spine: nLeaves leaves with hostsPerLeaf hosts each, every leaf cabled
     * once to each of nSpines spines. The leaf-to-spine rate is chosen so that host
     * capacity / uplink capacity per leaf = oversubscription (1 = non-blocking).
     * Hosts are numbered leaf by leaf; switches are leaves first, then spines.
     */
    RoceTopology LeafSpine(uint32_t nLeaves,
                           uint32_t nSpines,
                           uint32_t hostsPerLeaf,
                           DataRate hostRate,
                           double oversubscription,
                           Time delay);

    /**
     * Rail-optimized cluster: servers of gpusPerServer GPUs, one NIC per GPU, split into
     * pods of servers / pods consecutive servers; in each pod rail g (GPU g of every
     * server of the pod) has its own leaf, and every leaf of every pod is cabled to every
     * spine. Host index = server × gpusPerServer + GPU, so nics[rank] serves rank. The
     * leaf-to-spine rate gives host capacity / uplink capacity = oversubscription per
     * leaf. Switches: the rail leaves pod by pod (pod p's rail g is leaf p × g_count + g),
     * then the spines. cpuHosts hosts without GPUs (dedicated parameter servers), one NIC
     * each at nicRate, follow the GPUs' hosts (host servers × gpusPerServer + h) on a leaf
     * of their own after the spines, cabled to every spine with the same oversubscription.
     */
    RoceTopology RailOptimized(uint32_t servers,
                               uint32_t gpusPerServer,
                               uint32_t spines,
                               DataRate nicRate,
                               double oversubscription,
                               Time delay,
                               uint32_t pods = 1,
                               uint32_t cpuHosts = 0);

    /**
     * Three-tier k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge and
     * k/2 aggregation switches, (k/2)^2 core switches, every link at linkRate. Each edge
     * switch holds oversubscription × k/2 hosts (rounded; 1 = non-blocking, k^3/4 hosts).
     * Hosts are numbered edge by edge, pod by pod; switches: edges, aggregations, cores.
     */
    RoceTopology FatTree(uint32_t k, DataRate linkRate, double oversubscription, Time delay);

    /**
     * Three-tier pods with their own host and fabric rates, as the HPCC paper's fat-tree
     * (5 pods of 4 ToRs and 4 aggregation switches, 16 cores, 16 hosts per ToR at 100G,
     * every switch-to-switch link at 400G). Each ToR is cabled to every aggregation
     * switch of its pod; aggregation switch a of every pod to cores a·g … a·g + g − 1,
     * g = cores / aggsPerPod. Hosts are numbered ToR by ToR, pod by pod; switches: ToRs,
     * aggregations, cores.
     */
    RoceTopology ThreeTier(uint32_t pods,
                           uint32_t torsPerPod,
                           uint32_t aggsPerPod,
                           uint32_t cores,
                           uint32_t hostsPerTor,
                           DataRate hostRate,
                           DataRate fabricRate,
                           Time delay);

    /**
     * Folded Clos of any number of tiers: a k-ary n-tree (Petrini and Vanneschi, 1997)
     * with n = tiers. Every tier has k^(tiers-1) switches; switch w of tier t (w written
     * in base k) is cabled to the k switches of tier t+1 whose numbers differ from w only
     * in digit t, so every switch below the top has k links up and k down, and two leaves
     * whose numbers first differ in digit d (their lowest common tier is d + 1) are
     * joined by k^(d+1) equal-cost paths (k^(tiers-1) for the farthest pairs).
     * Each leaf (tier 0) holds oversubscription x k hosts (rounded; 1 = non-blocking,
     * k^tiers hosts); tiers = 2 is a leaf-spine with k leaves and k spines. Every link at
     * linkRate. Hosts are numbered leaf by leaf; switches tier by tier, bottom first.
     * Aborts, naming the problem, for k < 2, more than 65536 switches per tier or more
     * than 2^24 - 2 hosts.
     */
    RoceTopology Clos(uint32_t tiers,
                      uint32_t k,
                      DataRate linkRate,
                      double oversubscription,
                      Time delay);

    /**
     * Whether every switch RailOptimized would build with these figures gets a shared
     * buffer its SharedBufferMmu accepts (a new MMU and port with the attribute defaults
     * in force: reserves and PFC headroom per port must leave shared buffer), so that a
     * program refuses a cluster in one line instead of aborting while it builds one.
     * \param servers servers \param gpusPerServer GPUs (rails) per server
     * \param spines spines \param nicRate NIC and leaf port rate
     * \param oversubscription leaf down/up \param delay cable delay \param pods pods
     * \param cpuHosts hosts on the CPU leaf
     * \param why set to the reason, naming the switch, when not
     * \return true if they do
     */
    static bool CheckRailOptimizedBuffers(uint32_t servers,
                                          uint32_t gpusPerServer,
                                          uint32_t spines,
                                          DataRate nicRate,
                                          double oversubscription,
                                          Time delay,
                                          uint32_t pods,
                                          uint32_t cpuHosts,
                                          std::string* why);

  private:
    /// Cable host to edgeSwitch and give it its NIC and address (hosts in index order).
    void AttachHost(RoceTopology& topo,
                    uint32_t host,
                    Ptr<Node> edgeSwitch,
                    DataRate rate,
                    Time delay);
    void Finish(RoceTopology& topo);
    /// Leaves with hostsPerLeaf hosts each (host i on leaf leafOfHost(i)), all spines;
    /// cpuHosts more hosts on a leaf of their own after the spines. Partitions
    /// (SetPartitions) keep each run of leavesPerGroup consecutive leaves on one rank.
    RoceTopology BuildTwoTier(uint32_t nLeaves,
                              uint32_t nSpines,
                              uint32_t hostsPerLeaf,
                              const std::function<uint32_t(uint32_t)>& leafOfHost,
                              DataRate hostRate,
                              double oversubscription,
                              Time delay,
                              uint32_t cpuHosts = 0,
                              uint32_t leavesPerGroup = 1);
    /// \return the leaf-to-spine rate that gives the oversubscription (aborts if absurd)
    static DataRate UplinkRate(uint32_t nSpines,
                               uint32_t hostsOnLeaf,
                               DataRate hostRate,
                               double oversubscription);
    /// Cable switch leaf to switches firstSpine .. firstSpine + nSpines - 1.
    void CableLeafToSpines(RoceTopology& topo,
                           uint32_t leaf,
                           uint32_t firstSpine,
                           uint32_t nSpines,
                           DataRate uplink,
                           Time delay);
    /// Cable every leaf to every spine at the rate that gives the oversubscription.
    void CableLeavesToSpines(RoceTopology& topo,
                             uint32_t nLeaves,
                             uint32_t nSpines,
                             uint32_t hostsPerLeaf,
                             DataRate hostRate,
                             double oversubscription,
                             Time delay);
    /// Abort unless the fabric is on one rank: builder names the builder that asks.
    void RequireOnePartition(const char* builder) const;

    RoceHelper& m_roce;
    uint32_t m_partitions{1}; //!< SetPartitions
};

} // namespace ns3

#endif
