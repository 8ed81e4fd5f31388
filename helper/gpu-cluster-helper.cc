// SPDX-License-Identifier: GPL-2.0-only
#include "gpu-cluster-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/gpu-preset.h"
#include "ns3/rdma-transport.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PerServerTransport);

TypeId
PerServerTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PerServerTransport")
                            .SetParent<CollectiveTransport>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PerServerTransport>();
    return tid;
}

void
PerServerTransport::Setup(const CommGroup& group,
                          const std::vector<Ptr<CollectiveTransport>>& servers)
{
    NS_ABORT_MSG_IF(servers.size() != group.GetNServers(),
                    "PerServerTransport::Setup: " << servers.size() << " carriers for "
                                                  << group.GetNServers() << " servers");
    m_group = group;
    m_servers = servers;
    // Server ids may be sparse (a sub-group keeps the cluster's numbers): carrier i
    // serves the i-th server of the group.
    m_carrierOfServer.clear();
    std::vector<uint32_t> ids = group.GetServers();
    for (uint32_t i = 0; i < ids.size(); ++i)
    {
        m_carrierOfServer[ids[i]] = i;
        for (uint32_t rank : group.GetRanksOnServer(ids[i]))
        {
            NS_ABORT_MSG_IF(group.GetLocalIndex(rank) >= servers[i]->GetNRanks(),
                            "PerServerTransport::Setup: rank "
                                << rank << " is GPU " << group.GetLocalIndex(rank) << " of server "
                                << ids[i] << ", whose carrier has " << servers[i]->GetNRanks()
                                << " GPUs");
        }
    }
}

void
PerServerTransport::Send(uint32_t src,
                         uint32_t dst,
                         uint64_t bytes,
                         uint32_t channel,
                         DoneCallback done)
{
    NS_ABORT_MSG_IF(!m_group.SameServer(src, dst),
                    "PerServerTransport::Send: ranks " << src << " and " << dst
                                                       << " are on different servers");
    m_servers[m_carrierOfServer.at(m_group.GetServer(src))]->Send(m_group.GetLocalIndex(src),
                                                                  m_group.GetLocalIndex(dst),
                                                                  bytes,
                                                                  channel,
                                                                  done);
}

std::pair<Ptr<CollectiveTransport>, std::vector<uint32_t>>
PerServerTransport::Local(const std::vector<uint32_t>& members) const
{
    std::vector<uint32_t> local;
    if (members.empty())
    {
        return {nullptr, local};
    }
    for (uint32_t r : members)
    {
        if (r >= m_group.GetSize() || !m_group.SameServer(members[0], r))
        {
            return {nullptr, local};
        }
        local.push_back(m_group.GetLocalIndex(r));
    }
    return {m_servers[m_carrierOfServer.at(m_group.GetServer(members[0]))], local};
}

bool
PerServerTransport::CanReduceInSwitch(const std::vector<uint32_t>& members) const
{
    const auto [carrier, local] = Local(members);
    return carrier && carrier->CanReduceInSwitch(local);
}

void
PerServerTransport::SwitchReduce(const std::vector<uint32_t>& members,
                                 uint32_t dst,
                                 uint64_t bytes,
                                 uint32_t channel,
                                 DoneCallback done)
{
    const auto [carrier, local] = Local(members);
    NS_ABORT_MSG_IF(!carrier || !m_group.SameServer(members[0], dst),
                    "PerServerTransport::SwitchReduce: the ranks are not all on one server");
    carrier->SwitchReduce(local, m_group.GetLocalIndex(dst), bytes, channel, done);
}

void
PerServerTransport::SwitchMulticast(uint32_t src,
                                    const std::vector<uint32_t>& members,
                                    uint64_t bytes,
                                    uint32_t channel,
                                    DoneCallback done)
{
    const auto [carrier, local] = Local(members);
    NS_ABORT_MSG_IF(!carrier || !m_group.SameServer(members[0], src),
                    "PerServerTransport::SwitchMulticast: the ranks are not all on one server");
    carrier->SwitchMulticast(m_group.GetLocalIndex(src), local, bytes, channel, done);
}

CarrierPath
PerServerTransport::DescribePath(uint32_t src, uint32_t dst) const
{
    NS_ABORT_MSG_IF(!m_group.SameServer(src, dst),
                    "PerServerTransport::DescribePath: ranks " << src << " and " << dst
                                                               << " are on different servers");
    const uint32_t index = m_carrierOfServer.at(m_group.GetServer(src));
    CarrierPath path =
        m_servers[index]->DescribePath(m_group.GetLocalIndex(src), m_group.GetLocalIndex(dst));
    path.txPort = path.txPort * m_servers.size() + index;
    path.rxPort = path.rxPort * m_servers.size() + index;
    return path;
}

CarrierSwitchPath
PerServerTransport::DescribeSwitchPath(const std::vector<uint32_t>& members) const
{
    const auto [carrier, local] = Local(members);
    NS_ABORT_MSG_IF(!carrier,
                    "PerServerTransport::DescribeSwitchPath: the ranks are not all on one server");
    const uint32_t index = m_carrierOfServer.at(m_group.GetServer(members[0]));
    CarrierSwitchPath sw = carrier->DescribeSwitchPath(local);
    for (auto* ports : {&sw.txPorts, &sw.rxPorts})
    {
        for (auto& p : *ports)
        {
            p = p * m_servers.size() + index;
        }
    }
    return sw;
}

uint32_t
PerServerTransport::GetNRanks() const
{
    return m_group.GetSize();
}

void
PerServerTransport::DoDispose()
{
    m_servers.clear();
    CollectiveTransport::DoDispose();
}

bool
GpuClusterHelper::SetGpuDefaults(const std::string& gpu)
{
    const GpuPreset* p = GpuPreset::Find(gpu);
    if (!p)
    {
        return false;
    }
    Config::SetDefault("ns3::NvSwitchFabric::LinkCount", UintegerValue(p->nvlinkCount));
    Config::SetDefault("ns3::NvSwitchFabric::PerLinkRate", DataRateValue(p->nvlinkRate));
    Config::SetDefault("ns3::NvSwitchFabric::CreditChunks", UintegerValue(p->creditChunks));
    Config::SetDefault("ns3::NvSwitchFabric::NvlsSupported", BooleanValue(p->nvls));
    Config::SetDefault("ns3::TransformerTraceGenerator::Gpu", StringValue(p->name));
    return true;
}

GpuClusterHelper::GpuClusterHelper(RoceHelper& roce)
    : m_roce(roce)
{
}

GpuCluster
GpuClusterHelper::Build(uint32_t servers,
                        uint32_t gpusPerServer,
                        const std::string& nvlinkPreset,
                        DataRate nicRate,
                        uint32_t spines,
                        double oversubscription,
                        Time delay,
                        uint32_t pods)
{
    RoceTopologyHelper topo(m_roce);
    return BuildOn(
        topo.RailOptimized(servers, gpusPerServer, spines, nicRate, oversubscription, delay, pods),
        gpusPerServer,
        nvlinkPreset);
}

GpuCluster
GpuClusterHelper::BuildOn(const RoceTopology& network,
                          uint32_t gpusPerServer,
                          const std::string& nvlinkPreset)
{
    const auto hosts = static_cast<uint32_t>(network.nics.size());
    NS_ABORT_MSG_IF(gpusPerServer == 0 || hosts == 0 || hosts % gpusPerServer != 0,
                    "GpuClusterHelper::BuildOn: " << hosts << " hosts do not make servers of "
                                                  << gpusPerServer << " GPUs");
    const uint32_t servers = hosts / gpusPerServer;
    GpuCluster cluster;
    cluster.world = CommGroup::Uniform(servers, gpusPerServer);
    cluster.network = network;
    std::vector<Ptr<CollectiveTransport>> carriers;
    for (uint32_t s = 0; s < servers; ++s)
    {
        Ptr<NvSwitchFabric> nvswitch = CreateObject<NvSwitchFabric>();
        if (!nvlinkPreset.empty())
        {
            nvswitch->ApplyPreset(nvlinkPreset);
        }
        nvswitch->SetAttribute("NGpus", UintegerValue(gpusPerServer));
        cluster.nvSwitches.push_back(nvswitch);
        carriers.push_back(nvswitch);
    }
    Ptr<PerServerTransport> scaleUp = CreateObject<PerServerTransport>();
    scaleUp->Setup(cluster.world, carriers);
    Ptr<RdmaTransport> scaleOut = CreateObject<RdmaTransport>();
    scaleOut->SetNics(cluster.network.nics);
    cluster.transport = CreateObject<ServerAwareTransport>();
    cluster.transport->Setup(cluster.world, scaleUp, scaleOut);
    return cluster;
}

} // namespace ns3
