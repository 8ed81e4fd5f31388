// SPDX-License-Identifier: GPL-2.0-only
#include "background-feature.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/string.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BackgroundFeature");

std::string
BackgroundFeature::GetName() const
{
    return "background traffic";
}

bool
BackgroundFeature::Install(const TrainingContext& context, std::string* error)
{
    const TrainingScenario& s = context.scenario;
    if (s.backgroundFlowSizes.empty())
    {
        return true;
    }
    if (!context.packetFabric)
    {
        *error = s.source + ": /background: needs a packet fabric (topology \"rail-optimized\" or "
                            "\"file\"), not \"ideal\"";
        return false;
    }
    const RoceTopology& net = context.cluster.network;
    m_traffic = CreateObject<BackgroundTraffic>();
    m_traffic->SetAttribute("FlowSizes", StringValue(s.backgroundFlowSizes));
    m_traffic->SetAttribute("Load", DoubleValue(s.backgroundLoad));
    m_traffic->SetAttribute("Stop", TimeValue(Seconds(3600)));
    std::string why;
    if (!m_traffic->Configure(&why))
    {
        *error = s.source + ": /background/flowSizes: " + why;
        return false;
    }
    for (std::size_t i = 0; i < s.backgroundPairs.size(); ++i)
    {
        const auto& [src, dst] = s.backgroundPairs[i];
        if (std::max(src, dst) >= net.nics.size())
        {
            *error = s.source + ": /background/pairs/" + std::to_string(i) + ": host " +
                     std::to_string(std::max(src, dst)) + " does not exist (hosts 0 to " +
                     std::to_string(net.nics.size() - 1) + ")";
            return false;
        }
    }
    m_traffic->SetPairs(s.backgroundPairs);
    m_traffic->AssignStreams(1 << 20);
    m_traffic->Install(net.nics);
    NS_LOG_INFO(s.backgroundFlowSizes << " at load " << s.backgroundLoad << " on "
                                      << net.nics.size() << " hosts");
    return true;
}

void
BackgroundFeature::OnWorkloadFinished()
{
    if (m_traffic)
    {
        NS_LOG_INFO("workload finished: no new flows, " << m_traffic->GetActiveFlows()
                                                        << " under way");
        m_traffic->StopArrivals();
    }
}

bool
BackgroundFeature::IsBusy() const
{
    return m_traffic && m_traffic->GetActiveFlows() > 0;
}

Ptr<BackgroundTraffic>
BackgroundFeature::GetTraffic() const
{
    return m_traffic;
}

} // namespace ns3
