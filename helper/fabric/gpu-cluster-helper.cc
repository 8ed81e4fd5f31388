// SPDX-License-Identifier: GPL-2.0-only
#include "gpu-cluster-helper.h"

#include "ns3/abort.h"
#include "ns3/config.h"
#include "ns3/gpu-preset.h"
#include "ns3/ina-transport.h"
#include "ns3/log.h"
#include "ns3/nvlink-transport.h"
#include "ns3/rdma-transport.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GpuClusterHelper");

NvlinkWork
GetNvlinkWork(const GpuCluster& cluster)
{
    NvlinkWork w;
    for (const Ptr<NvSwitchFabric>& nvs : cluster.nvSwitches)
    {
        w.chunks += nvs->GetChunksDelivered();
        w.skippedChunks += nvs->GetSkippedChunks();
        w.skips += nvs->GetSkips();
        w.replays += nvs->GetReplays();
        w.replayedChunks += nvs->GetReplayedChunks();
        w.replayOverlaps += nvs->GetReplayOverlaps();
    }
    return w;
}

bool
GpuClusterHelper::GetGpuDefaults(const std::string& gpu, AttributeList* defaults)
{
    const GpuPreset* p = GpuPreset::Find(gpu);
    if (!p)
    {
        return false;
    }
    defaults->clear();
    for (const auto& [name, value] : NvSwitchFabric::GetPresetAttributes(*p))
    {
        defaults->emplace_back("ns3::NvSwitchFabric::" + name, value);
    }
    defaults->emplace_back("ns3::TransformerTraceGenerator::Gpu", Create<StringValue>(p->name));
    return true;
}

GpuClusterHelper::GpuClusterHelper(RoceHelper& roce)
    : m_roce(roce)
{
    m_nvSwitchFactory.SetTypeId(NvSwitchFabric::GetTypeId());
    m_scaleOutFactory.SetTypeId(RdmaTransport::GetTypeId());
}

void
GpuClusterHelper::SetScaleOutType(TypeId type)
{
    NS_ABORT_MSG_IF(
        type != RdmaTransport::GetTypeId() && !type.IsChildOf(RdmaTransport::GetTypeId()),
        "GpuClusterHelper::SetScaleOutType: " << type.GetName() << " is not an ns3::RdmaTransport");
    NS_LOG_DEBUG("scale-out carrier " << type.GetName());
    m_scaleOutFactory.SetTypeId(type);
}

void
GpuClusterHelper::SetScaleOutAttribute(const std::string& name, const AttributeValue& value)
{
    m_scaleOutFactory.Set(name, value);
}

void
GpuClusterHelper::SetNvSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    m_nvSwitchFactory.Set(name, value);
}

bool
GpuClusterHelper::SetNvSwitchPreset(const std::string& gpu)
{
    const GpuPreset* p = GpuPreset::Find(gpu);
    if (!p)
    {
        return false;
    }
    for (const auto& [name, value] : NvSwitchFabric::GetPresetAttributes(*p))
    {
        m_nvSwitchFactory.Set(name, *value);
    }
    return true;
}

GpuCluster
GpuClusterHelper::Build(uint32_t servers,
                        uint32_t gpusPerServer,
                        const std::string& nvlinkPreset,
                        DataRate nicRate,
                        uint32_t spines,
                        double oversubscription,
                        Time delay,
                        uint32_t pods,
                        uint32_t cpuHosts)
{
    RoceTopologyHelper topo(m_roce);
    return BuildOn(topo.RailOptimized(servers,
                                      gpusPerServer,
                                      spines,
                                      nicRate,
                                      oversubscription,
                                      delay,
                                      pods,
                                      cpuHosts),
                   gpusPerServer,
                   nvlinkPreset,
                   cpuHosts);
}

void
GpuClusterHelper::EnableInNetworkAggregation(InaHelper& ina)
{
    m_ina = &ina;
}

GpuCluster
GpuClusterHelper::BuildOn(const RoceTopology& network,
                          uint32_t gpusPerServer,
                          const std::string& nvlinkPreset,
                          uint32_t cpuHosts)
{
    const auto all = static_cast<uint32_t>(network.nics.size());
    NS_ABORT_MSG_IF(cpuHosts >= all,
                    "GpuClusterHelper::BuildOn: " << cpuHosts << " CPU hosts of " << all
                                                  << " leave no GPU");
    const uint32_t hosts = all - cpuHosts;
    NS_ABORT_MSG_IF(gpusPerServer == 0 || hosts % gpusPerServer != 0,
                    "GpuClusterHelper::BuildOn: " << hosts << " hosts do not make servers of "
                                                  << gpusPerServer << " GPUs");
    const uint32_t servers = hosts / gpusPerServer;
    GpuCluster cluster;
    cluster.world = CommGroup::Uniform(servers, gpusPerServer, cpuHosts);
    cluster.cpuHosts = cpuHosts;
    cluster.network = network;
    std::vector<Ptr<CollectiveTransport>> carriers;
    for (uint32_t s = 0; s < servers; ++s)
    {
        Ptr<NvSwitchFabric> nvswitch = m_nvSwitchFactory.Create<NvSwitchFabric>();
        if (!nvlinkPreset.empty())
        {
            nvswitch->ApplyPreset(nvlinkPreset);
        }
        nvswitch->SetAttribute("NGpus", UintegerValue(gpusPerServer));
        cluster.nvSwitches.push_back(nvswitch);
        Ptr<NvLinkTransport> carrier = CreateObject<NvLinkTransport>();
        carrier->SetFabric(nvswitch);
        carriers.push_back(carrier);
    }
    // A CPU host is a server of one rank: no NVSwitch, every transfer over its NIC.
    carriers.resize(servers + cpuHosts);
    Ptr<RdmaTransport> scaleOut;
    if (m_ina)
    {
        NS_ABORT_MSG_IF(m_scaleOutFactory.GetTypeId() != RdmaTransport::GetTypeId(),
                        "GpuClusterHelper: in-network aggregation needs the packet model, not "
                            << m_scaleOutFactory.GetTypeId().GetName());
        m_ina->Install(cluster.network.switchObjects);
        Ptr<InaTransport> ina = CreateObject<InaTransport>();
        ina->SetController(m_ina->GetController());
        scaleOut = ina;
    }
    else
    {
        scaleOut = m_scaleOutFactory.Create<RdmaTransport>();
    }
    scaleOut->SetNics(cluster.network.nics);
    cluster.scaleOut = scaleOut;
    cluster.transport = CreateObject<ServerRoutingTransport>();
    cluster.transport->Setup(cluster.world, carriers, scaleOut);
    NS_LOG_DEBUG(servers << " servers of " << gpusPerServer << " GPUs and " << cpuHosts
                         << " CPU hosts on " << cluster.network.nics.size() << " NICs");
    return cluster;
}

} // namespace ns3
