// SPDX-License-Identifier: GPL-2.0-only
#include "roce-topology-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/roce-frame-info.h"
#include "ns3/roce-net-device.h"
#include "ns3/shared-buffer-mmu.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceTopologyHelper");

RoceTopologyHelper::RoceTopologyHelper(RoceHelper& roce)
    : m_roce(roce)
{
}

void
RoceTopologyHelper::SetPartitions(uint32_t n)
{
    NS_ABORT_MSG_IF(n == 0, "RoceTopologyHelper::SetPartitions: needs at least one rank");
    m_partitions = n;
}

uint32_t
RoceTopologyHelper::GetPartitions() const
{
    return m_partitions;
}

void
RoceTopologyHelper::RequireOnePartition(const char* builder) const
{
    NS_ABORT_MSG_IF(m_partitions > 1,
                    "RoceTopologyHelper::" << builder << ": cannot spread a fabric over "
                                           << m_partitions
                                           << " ranks (SetPartitions: LeafSpine and RailOptimized only)");
}

Ipv4Address
RoceTopologyHelper::HostAddress(uint32_t index)
{
    return Ipv4Address(Ipv4Address("10.0.0.1").Get() + index);
}

void
RoceTopologyHelper::AttachHost(RoceTopology& topo,
                               uint32_t host,
                               Ptr<Node> edgeSwitch,
                               DataRate rate,
                               Time delay)
{
    NetDeviceContainer link = m_roce.Link(topo.hosts.Get(host), edgeSwitch, rate, delay);
    topo.nics.push_back(m_roce.InstallNic(link.Get(0), HostAddress(host)));
}

void
RoceTopologyHelper::Finish(RoceTopology& topo)
{
    for (uint32_t s = 0; s < topo.switches.GetN(); ++s)
    {
        topo.switchObjects.push_back(m_roce.InstallSwitch(topo.switches.Get(s)));
    }
    m_roce.PopulateRoutes();
}

RoceTopology
RoceTopologyHelper::Star(uint32_t nHosts, DataRate rate, Time delay)
{
    RequireOnePartition("Star");
    NS_ABORT_MSG_IF(nHosts < 2, "RoceTopologyHelper::Star: needs at least two hosts");
    RoceTopology topo;
    topo.hosts.Create(nHosts);
    topo.switches.Create(1);
    for (uint32_t i = 0; i < nHosts; ++i)
    {
        AttachHost(topo, i, topo.switches.Get(0), rate, delay);
    }
    Finish(topo);
    return topo;
}

RoceTopology
RoceTopologyHelper::Dumbbell(uint32_t nLeft,
                             uint32_t nRight,
                             DataRate hostRate,
                             DataRate bottleneckRate,
                             Time delay)
{
    RequireOnePartition("Dumbbell");
    NS_ABORT_MSG_IF(nLeft == 0 || nRight == 0,
                    "RoceTopologyHelper::Dumbbell: each side needs a host");
    RoceTopology topo;
    topo.hosts.Create(nLeft + nRight);
    topo.switches.Create(2);
    for (uint32_t i = 0; i < nLeft + nRight; ++i)
    {
        Ptr<Node> sw = topo.switches.Get(i < nLeft ? 0 : 1);
        AttachHost(topo, i, sw, hostRate, delay);
    }
    m_roce.Link(topo.switches.Get(0), topo.switches.Get(1), bottleneckRate, delay);
    Finish(topo);
    return topo;
}

RoceTopology
RoceTopologyHelper::LeafSpine(uint32_t nLeaves,
                              uint32_t nSpines,
                              uint32_t hostsPerLeaf,
                              DataRate hostRate,
                              double oversubscription,
                              Time delay)
{
    NS_ABORT_MSG_IF(nLeaves == 0 || nSpines == 0 || hostsPerLeaf == 0,
                    "RoceTopologyHelper::LeafSpine: leaves, spines and hosts per leaf must be "
                    "positive (got "
                        << nLeaves << ", " << nSpines << ", " << hostsPerLeaf << ")");
    // Hosts numbered leaf by leaf.
    return BuildTwoTier(
        nLeaves,
        nSpines,
        hostsPerLeaf,
        [hostsPerLeaf](uint32_t host) { return host / hostsPerLeaf; },
        hostRate,
        oversubscription,
        delay);
}

RoceTopology
RoceTopologyHelper::BuildTwoTier(uint32_t nLeaves,
                                 uint32_t nSpines,
                                 uint32_t hostsPerLeaf,
                                 const std::function<uint32_t(uint32_t)>& leafOfHost,
                                 DataRate hostRate,
                                 double oversubscription,
                                 Time delay,
                                 uint32_t cpuHosts,
                                 uint32_t leavesPerGroup)
{
    RoceTopology topo;
    const uint32_t gpuHosts = nLeaves * hostsPerLeaf;
    // Ranks of ns-3's distributed engine (SetPartitions): a group of leaves (a leaf, or a
    // pod's rails) and their hosts together, consecutive groups on one rank, the spines
    // dealt round; the CPU hosts' leaf with the last group. With one partition every node
    // is on system 0, as NodeContainer::Create.
    const uint32_t parts = m_partitions;
    const uint32_t groups = nLeaves / leavesPerGroup;
    auto rankOfLeaf = [groups, leavesPerGroup, nLeaves, parts](uint32_t leaf) {
        const uint64_t group = std::min(leaf, nLeaves - 1) / leavesPerGroup;
        return static_cast<uint32_t>(group * parts / groups);
    };
    for (uint32_t i = 0; i < gpuHosts + cpuHosts; ++i)
    {
        topo.hosts.Add(CreateObject<Node>(rankOfLeaf(i < gpuHosts ? leafOfHost(i) : nLeaves)));
    }
    // The CPU hosts' leaf, if any, comes after the spines: the others keep their numbers.
    for (uint32_t s = 0; s < nLeaves + nSpines + (cpuHosts > 0 ? 1 : 0); ++s)
    {
        const bool spine = s >= nLeaves && s < nLeaves + nSpines;
        topo.switches.Add(CreateObject<Node>(spine ? (s - nLeaves) % parts : rankOfLeaf(s)));
        NS_LOG_LOGIC((spine ? "spine " : "leaf ")
                     << (spine ? s - nLeaves : s) << " (node " << topo.switches.Get(s)->GetId()
                     << ") on rank " << topo.switches.Get(s)->GetSystemId() << " of " << parts);
    }
    for (uint32_t i = 0; i < gpuHosts; ++i)
    {
        AttachHost(topo, i, topo.switches.Get(leafOfHost(i)), hostRate, delay);
    }
    for (uint32_t h = 0; h < cpuHosts; ++h)
    {
        AttachHost(topo, gpuHosts + h, topo.switches.Get(nLeaves + nSpines), hostRate, delay);
    }
    CableLeavesToSpines(topo, nLeaves, nSpines, hostsPerLeaf, hostRate, oversubscription, delay);
    if (cpuHosts > 0)
    {
        CableLeafToSpines(topo,
                          nLeaves + nSpines,
                          nLeaves,
                          nSpines,
                          UplinkRate(nSpines, cpuHosts, hostRate, oversubscription),
                          delay);
    }
    Finish(topo);
    return topo;
}

DataRate
RoceTopologyHelper::UplinkRate(uint32_t nSpines,
                               uint32_t hostsOnLeaf,
                               DataRate hostRate,
                               double oversubscription)
{
    NS_ABORT_MSG_IF(!(oversubscription > 0),
                    "RoceTopologyHelper: oversubscription must be positive, got "
                        << oversubscription);
    double uplinkBps = static_cast<double>(hostRate.GetBitRate()) * hostsOnLeaf /
                       (static_cast<double>(nSpines) * oversubscription);
    NS_ABORT_MSG_IF(uplinkBps < 1e6,
                    "RoceTopologyHelper: leaf-spine links would run at "
                        << uplinkBps << " bit/s; check the oversubscription ratio");
    return DataRate(static_cast<uint64_t>(uplinkBps));
}

void
RoceTopologyHelper::CableLeafToSpines(RoceTopology& topo,
                                      uint32_t leaf,
                                      uint32_t firstSpine,
                                      uint32_t nSpines,
                                      DataRate uplink,
                                      Time delay)
{
    for (uint32_t s = 0; s < nSpines; ++s)
    {
        m_roce.Link(topo.switches.Get(leaf), topo.switches.Get(firstSpine + s), uplink, delay);
    }
}

void
RoceTopologyHelper::CableLeavesToSpines(RoceTopology& topo,
                                        uint32_t nLeaves,
                                        uint32_t nSpines,
                                        uint32_t hostsPerLeaf,
                                        DataRate hostRate,
                                        double oversubscription,
                                        Time delay)
{
    const DataRate uplink = UplinkRate(nSpines, hostsPerLeaf, hostRate, oversubscription);
    for (uint32_t l = 0; l < nLeaves; ++l)
    {
        CableLeafToSpines(topo, l, nLeaves, nSpines, uplink, delay);
    }
}

RoceTopology
RoceTopologyHelper::FatTree(uint32_t k, DataRate linkRate, double oversubscription, Time delay)
{
    RequireOnePartition("FatTree");
    NS_ABORT_MSG_IF(k < 2 || k % 2 != 0,
                    "RoceTopologyHelper::FatTree: k must be even and at least 2, got " << k);
    NS_ABORT_MSG_IF(!(oversubscription > 0),
                    "RoceTopologyHelper::FatTree: oversubscription must be positive, got "
                        << oversubscription);
    const uint32_t half = k / 2;
    const auto hostsPerEdge =
        static_cast<uint32_t>(std::max(1.0, std::round(oversubscription * half)));
    // k pods of k/2 edges and k/2 aggregations, (k/2)^2 cores: aggregation a of every pod
    // reaches cores a·k/2 … a·k/2 + k/2 − 1.
    return ThreeTier(k, half, half, half * half, hostsPerEdge, linkRate, linkRate, delay);
}

RoceTopology
RoceTopologyHelper::ThreeTier(uint32_t pods,
                              uint32_t torsPerPod,
                              uint32_t aggsPerPod,
                              uint32_t cores,
                              uint32_t hostsPerTor,
                              DataRate hostRate,
                              DataRate fabricRate,
                              Time delay)
{
    RequireOnePartition("ThreeTier");
    NS_ABORT_MSG_IF(pods == 0 || torsPerPod == 0 || aggsPerPod == 0 || hostsPerTor == 0 ||
                        cores == 0 || cores % aggsPerPod != 0,
                    "RoceTopologyHelper::ThreeTier: pods, ToRs, aggregation switches and "
                    "hosts must be positive and the cores a multiple of the aggregation "
                    "switches per pod (got "
                        << pods << ", " << torsPerPod << ", " << aggsPerPod << ", " << cores
                        << " cores, " << hostsPerTor << " hosts)");
    const uint32_t tors = pods * torsPerPod;
    const uint32_t aggs = pods * aggsPerPod;
    const uint32_t group = cores / aggsPerPod;
    RoceTopology topo;
    topo.hosts.Create(tors * hostsPerTor);
    topo.switches.Create(tors + aggs + cores);
    for (uint32_t t = 0; t < tors; ++t)
    {
        for (uint32_t h = 0; h < hostsPerTor; ++h)
        {
            AttachHost(topo, t * hostsPerTor + h, topo.switches.Get(t), hostRate, delay);
        }
    }
    for (uint32_t pod = 0; pod < pods; ++pod)
    {
        for (uint32_t a = 0; a < aggsPerPod; ++a)
        {
            Ptr<Node> agg = topo.switches.Get(tors + pod * aggsPerPod + a);
            for (uint32_t t = 0; t < torsPerPod; ++t)
            {
                m_roce.Link(topo.switches.Get(pod * torsPerPod + t), agg, fabricRate, delay);
            }
            for (uint32_t c = 0; c < group; ++c)
            {
                m_roce.Link(agg, topo.switches.Get(tors + aggs + a * group + c), fabricRate, delay);
            }
        }
    }
    Finish(topo);
    return topo;
}

RoceTopology
RoceTopologyHelper::Clos(uint32_t tiers,
                         uint32_t k,
                         DataRate linkRate,
                         double oversubscription,
                         Time delay)
{
    RequireOnePartition("Clos");
    NS_ABORT_MSG_IF(tiers < 1 || k < 2,
                    "RoceTopologyHelper::Clos: need at least 1 tier and k >= 2 (got "
                        << tiers << ", " << k << ")");
    NS_ABORT_MSG_IF(
        !(oversubscription > 0) || oversubscription * k > (1u << 16),
        "RoceTopologyHelper::Clos: oversubscription must be positive and at most 65536 / k, got "
            << oversubscription);
    uint64_t perTier = 1; // k^(tiers-1)
    for (uint32_t t = 1; t < tiers; ++t)
    {
        perTier *= k;
        NS_ABORT_MSG_IF(perTier > (1u << 16),
                        "RoceTopologyHelper::Clos: " << tiers << " tiers of radix " << k
                                                     << " need more than 65536 switches per tier");
    }
    const auto hostsPerLeaf =
        static_cast<uint32_t>(std::max(1.0, std::round(oversubscription * k)));
    // Host addresses are 10.0.0.0/8 plus the index (HostAddress).
    NS_ABORT_MSG_IF(perTier * hostsPerLeaf > (1u << 24) - 2,
                    "RoceTopologyHelper::Clos: " << perTier * hostsPerLeaf
                                                 << " hosts, more than 2^24 - 2");
    RoceTopology topo;
    topo.hosts.Create(static_cast<uint32_t>(perTier) * hostsPerLeaf);
    topo.switches.Create(static_cast<uint32_t>(perTier) * tiers);
    auto sw = [&](uint32_t tier, uint64_t w) { return topo.switches.Get(tier * perTier + w); };
    for (uint64_t leaf = 0; leaf < perTier; ++leaf)
    {
        for (uint32_t h = 0; h < hostsPerLeaf; ++h)
        {
            AttachHost(topo,
                       static_cast<uint32_t>(leaf * hostsPerLeaf + h),
                       sw(0, leaf),
                       linkRate,
                       delay);
        }
    }
    uint64_t digit = 1; // k^t: the weight of digit t
    for (uint32_t t = 0; t + 1 < tiers; ++t, digit *= k)
    {
        for (uint64_t w = 0; w < perTier; ++w)
        {
            // Up to the k switches of tier t+1 that differ from w in digit t only.
            const uint64_t base = w - (w / digit % k) * digit;
            for (uint32_t d = 0; d < k; ++d)
            {
                m_roce.Link(sw(t, w), sw(t + 1, base + d * digit), linkRate, delay);
            }
        }
    }
    Finish(topo);
    return topo;
}

RoceTopology
RoceTopologyHelper::RailOptimized(uint32_t servers,
                                  uint32_t gpusPerServer,
                                  uint32_t spines,
                                  DataRate nicRate,
                                  double oversubscription,
                                  Time delay,
                                  uint32_t pods,
                                  uint32_t cpuHosts)
{
    NS_ABORT_MSG_IF(servers == 0 || gpusPerServer == 0 || spines == 0 || pods == 0,
                    "RoceTopologyHelper::RailOptimized: servers, GPUs per server, spines and "
                    "pods must be positive (got "
                        << servers << ", " << gpusPerServer << ", " << spines << ", " << pods
                        << ")");
    NS_ABORT_MSG_IF(servers % pods != 0,
                    "RoceTopologyHelper::RailOptimized: "
                        << servers << " servers do not split into " << pods << " equal pods");
    NS_ABORT_MSG_IF(m_partitions > pods,
                    "RoceTopologyHelper::RailOptimized: cannot spread "
                        << pods << " pod(s) over " << m_partitions
                        << " ranks (SetPartitions): a pod's rails stay on one rank");
    // Host (= rank) s × g + gpu sits on the leaf of its rail in its server's pod.
    const uint32_t serversPerPod = servers / pods;
    return BuildTwoTier(
        gpusPerServer * pods,
        spines,
        serversPerPod,
        [gpusPerServer, serversPerPod](uint32_t host) {
            const uint32_t server = host / gpusPerServer;
            return (server / serversPerPod) * gpusPerServer + host % gpusPerServer;
        },
        nicRate,
        oversubscription,
        delay,
        cpuHosts,
        gpusPerServer);
}

bool
RoceTopologyHelper::CheckRailOptimizedBuffers(uint32_t servers,
                                              uint32_t gpusPerServer,
                                              uint32_t spines,
                                              DataRate nicRate,
                                              double oversubscription,
                                              Time delay,
                                              uint32_t pods,
                                              uint32_t cpuHosts,
                                              std::string* why)
{
    const Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
    UintegerValue mtu;
    CreateObject<RoceNetDevice>()->GetAttribute("Mtu", mtu);
    const auto frame = static_cast<uint32_t>(mtu.Get()) + roce::ETHERNET_HEADER_BYTES;
    const uint32_t hostsPerLeaf = servers / pods;
    const auto uplinkBps = static_cast<uint64_t>(std::max(
        1.0,
        static_cast<double>(nicRate.GetBitRate()) * hostsPerLeaf / oversubscription / spines));
    // A rail leaf: its hosts and one uplink per spine. A spine: one port per rail leaf of
    // every pod, and one to the CPU hosts' leaf.
    const std::vector<uint64_t> leaf = [&]() {
        std::vector<uint64_t> ports(hostsPerLeaf, nicRate.GetBitRate());
        ports.insert(ports.end(), spines, uplinkBps);
        return ports;
    }();
    const std::vector<uint64_t> spine(gpusPerServer * pods + (cpuHosts > 0 ? 1 : 0), uplinkBps);
    for (const auto& [name, rates] : {std::pair{"a rail leaf", &leaf}, std::pair{"a spine", &spine}})
    {
        const std::vector<Time> delays(rates->size(), delay);
        if (!mmu->CheckConfiguration(*rates, delays, frame, why))
        {
            *why = std::string(name) + " of " + std::to_string(rates->size()) + " ports: " + *why;
            return false;
        }
    }
    return true;
}

} // namespace ns3
