// SPDX-License-Identifier: GPL-2.0-only
#include "ina-feature.h"

#include "ns3/ina-aggregation-engine.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("InaFeature");

std::string
InaFeature::GetName() const
{
    return "in-network aggregation";
}

bool
InaFeature::Check(const TrainingScenario& s, std::string* error)
{
    if (s.ina == "off")
    {
        return true;
    }
    if (s.topology == "ideal")
    {
        *error = s.source + ": /fabric/ina: the ideal topology has no switches to aggregate in";
        return false;
    }
    InaProtocol protocol = InaHelper::GetProtocols().front();
    if (!InaHelper::ParseProtocol(s.ina, &protocol))
    {
        *error = s.source + ": /fabric/ina: expected \"off\" or " +
                 InaHelper::GetProtocolNameList() + ", got \"" + s.ina + "\"";
        return false;
    }
    std::string why;
    if (!CreateObject<InaAggregationEngine>()->CheckConfiguration(&why))
    {
        *error = s.source + ": " + why;
        return false;
    }
    m_ina.SetProtocol(protocol);
    return true;
}

void
InaFeature::Prepare(const TrainingScenario& s, GpuClusterHelper& helper)
{
    if (s.ina != "off")
    {
        NS_LOG_INFO("switches aggregate (" << s.ina << ")");
        helper.EnableInNetworkAggregation(m_ina);
    }
}

bool
InaFeature::Install(const TrainingContext&, std::string*)
{
    return true;
}

} // namespace ns3
