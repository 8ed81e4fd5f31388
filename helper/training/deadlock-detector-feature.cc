// SPDX-License-Identifier: GPL-2.0-only
#include "deadlock-detector-feature.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DeadlockDetectorFeature");

std::string
DeadlockDetectorFeature::GetName() const
{
    return "PFC deadlock detector";
}

bool
DeadlockDetectorFeature::Install(const TrainingContext& context, std::string*)
{
    if (context.packetFabric)
    {
        NS_LOG_INFO("watching " << context.cluster.network.switchObjects.size() << " switches");
        m_detector = CreateObject<PfcDeadlockDetector>();
        m_detector->Install(context.cluster.network.switchObjects);
    }
    return true;
}

std::vector<PfcDeadlock>
DeadlockDetectorFeature::GetDeadlocks() const
{
    return m_detector ? m_detector->GetDeadlocks() : std::vector<PfcDeadlock>();
}

} // namespace ns3
