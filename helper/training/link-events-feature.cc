// SPDX-License-Identifier: GPL-2.0-only
#include "link-events-feature.h"

#include "ns3/fabric-monitor.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LinkEventsFeature");

std::string
LinkEventsFeature::GetName() const
{
    return "link events";
}

bool
LinkEventsFeature::Install(const TrainingContext& context, std::string* error)
{
    const TrainingScenario& s = context.scenario;
    if (s.events.empty())
    {
        return true;
    }
    if (!context.packetFabric)
    {
        *error = s.source +
                 ": /events: needs a packet fabric (topology \"rail-optimized\" or \"file\"), "
                 "not \"ideal\"";
        return false;
    }
    const RoceTopology& net = context.cluster.network;
    for (const auto& ev : s.events)
    {
        const std::string where = s.source + ": " + ev.place + "/" + (ev.up ? "recover" : "fail");
        for (const auto& name : {ev.a, ev.b})
        {
            if (!FabricMonitor::FindNode(net, name))
            {
                *error = where + ": no node \"" + name + "\" (nodes are nic0 to nic" +
                         std::to_string(net.hosts.GetN() - 1) + " and sw0 to sw" +
                         std::to_string(net.switches.GetN() - 1) + ", as in links.csv)";
                return false;
            }
        }
        Ptr<RoceChannel> link = RoceHelper::FindLink(FabricMonitor::FindNode(net, ev.a),
                                                     FabricMonitor::FindNode(net, ev.b));
        if (!link)
        {
            *error = where + ": no cable between " + ev.a + " and " + ev.b;
            return false;
        }
        NS_LOG_INFO((ev.up ? "mend " : "cut ") << ev.a << "-" << ev.b << " at " << ev.at);
        context.roce.ScheduleLinkState(link, ev.up, ev.at, ev.convergence);
    }
    return true;
}

} // namespace ns3
