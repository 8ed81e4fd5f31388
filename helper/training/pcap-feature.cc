// SPDX-License-Identifier: GPL-2.0-only
#include "pcap-feature.h"

#include "ns3/fabric-monitor.h"
#include "ns3/log.h"

#include <map>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PcapFeature");

std::string
PcapFeature::GetName() const
{
    return "pcap";
}

bool
PcapFeature::Check(const TrainingScenario& s, std::string* error)
{
    if (s.pcapPrefix.empty() && !s.pcapNodes.empty())
    {
        *error = "--pcapNodes (/outputs/pcapNodes of " + s.source + "): needs a --pcap prefix";
        return false;
    }
    return true;
}

bool
PcapFeature::Install(const TrainingContext& context, std::string* error)
{
    const TrainingScenario& s = context.scenario;
    if (s.pcapPrefix.empty())
    {
        return true;
    }
    const std::string option = "--pcap (/outputs/pcap of " + s.source + "): ";
    if (!context.packetFabric)
    {
        *error = option + "the ideal topology sends no packets to capture";
        return false;
    }
    std::string why;
    if (!RoceHelper::CheckPcapPrefix(s.pcapPrefix, &why))
    {
        *error = option + why;
        return false;
    }
    // Names as links.csv and pfc.csv give them (FabricMonitor): nic<i> is the port of
    // NIC i (rank i's), sw<j> the ports of switch j. name -> (file, port).
    const RoceTopology& net = context.cluster.network;
    std::map<std::string, std::vector<std::pair<std::string, Ptr<NetDevice>>>> nodes;
    for (uint32_t i = 0; i < net.nics.size(); ++i)
    {
        const std::string name = FabricMonitor::HostName(i);
        nodes[name] = {{s.pcapPrefix + "-" + name + ".pcap", net.nics[i]->GetDevice()}};
    }
    for (uint32_t j = 0; j < net.switchObjects.size(); ++j)
    {
        const std::string name = FabricMonitor::SwitchName(j);
        for (uint32_t p = 0; p < net.switchObjects[j]->GetNPorts(); ++p)
        {
            nodes[name].emplace_back(s.pcapPrefix + "-" + name + "-" + std::to_string(p) + ".pcap",
                                     net.switchObjects[j]->GetPort(p));
        }
    }
    std::set<std::string> wanted;
    std::istringstream list(s.pcapNodes);
    for (std::string name; std::getline(list, name, ',');)
    {
        if (nodes.find(name) == nodes.end())
        {
            *error = "--pcapNodes (/outputs/pcapNodes of " + s.source + "): \"" + name +
                     "\" is not a node; expected comma-separated names nic0..nic" +
                     std::to_string(net.nics.size() - 1) + ", sw0..sw" +
                     std::to_string(net.switchObjects.size() - 1) + " (as in links.csv)";
            return false;
        }
        wanted.insert(name);
    }
    for (const auto& [name, ports] : nodes)
    {
        if (wanted.empty() || wanted.count(name) > 0)
        {
            NS_LOG_INFO("capturing " << name << " (" << ports.size() << " ports)");
            for (const auto& [file, device] : ports)
            {
                context.roce.EnablePcap(file, device, false, true);
            }
        }
    }
    return true;
}

} // namespace ns3
