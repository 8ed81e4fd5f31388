// SPDX-License-Identifier: GPL-2.0-only
#include "fast-forward-feature.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/nv-switch-fabric.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastForwardFeature");

std::string
FastForwardFeature::GetName() const
{
    return "steady-state fast-forward";
}

bool
FastForwardFeature::Install(const TrainingContext& context, std::string*)
{
    const TrainingScenario& s = context.scenario;
    // NVSwitch calls replay exactly unless something shares the switch (then counted):
    // on with any fast-forward, whatever the RDMA fabric's fast-forward can do.
    m_replayCalls = s.fastForward != "off" && s.replayCalls && !context.cluster.nvSwitches.empty();
    if (s.fastForward == "off" || !context.packetFabric)
    {
        m_status = "off";
        return true;
    }
    if (s.ina != "off")
    {
        m_status = "off: in-network aggregation frames are not fast-forwarded";
    }
    else if (!s.pcapPrefix.empty())
    {
        m_status = "off: a pcap capture holds every packet";
    }
    else if (s.fabricModel == "flow")
    {
        // No frames to skip: the NVSwitches' chunk streams only.
        for (const Ptr<NvSwitchFabric>& nvs : context.cluster.nvSwitches)
        {
            nvs->SetAttribute("FastForward", BooleanValue(true));
        }
        m_status = "on (NVSwitches: the flow-level fabric has no frames to skip)";
    }
    else
    {
        m_fastForward = CreateObject<RdmaFastForward>();
        m_fastForward->Install(context.cluster.network.nics, context.cluster.network.switchObjects);
        // The NVSwitches' steady chunk streams too.
        for (const Ptr<NvSwitchFabric>& nvs : context.cluster.nvSwitches)
        {
            nvs->SetAttribute("FastForward", BooleanValue(true));
        }
        m_status = "on";
    }
    NS_LOG_INFO("fast-forward " << m_status << (m_replayCalls ? ", NVSwitch calls replayed" : ""));
    return true;
}

bool
FastForwardFeature::ReplaysCalls() const
{
    return m_replayCalls;
}

Ptr<RdmaFastForward>
FastForwardFeature::GetFastForward() const
{
    return m_fastForward;
}

std::string
FastForwardFeature::GetStatus() const
{
    return m_status;
}

} // namespace ns3
