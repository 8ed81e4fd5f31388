// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-settings.h"

#include "ns3/attribute-text.h"
#include "ns3/boolean.h"
#include "ns3/collective-algorithms.h"
#include "ns3/collective-engine.h"
#include "ns3/collective-protocol.h"
#include "ns3/config.h"
#include "ns3/fabric-monitor.h"
#include "ns3/gpu-cluster-helper.h"
#include "ns3/log.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/workload-runner.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScenarioSettings");

bool
ScenarioSettings::ApplyConfig(const TrainingScenario& s,
                              const std::string& given,
                              const std::string& value,
                              std::string* error)
{
    const std::string where = s.source + ": /fabric/config/" + given + ": ";
    // A congestion control's attribute may name it as it was named before the Roce prefix.
    const std::string path = RoceCongestionControl::ResolveAttributePath(given);
    const size_t split = path.rfind("::");
    TypeId tid;
    TypeId::AttributeInformation info;
    if (split == std::string::npos || !TypeId::LookupByNameFailSafe(path.substr(0, split), &tid) ||
        !tid.LookupAttributeByName(path.substr(split + 2), &info))
    {
        *error = where + "no such attribute (expected ns3::Class::Attribute)";
        return false;
    }
    const std::string className = path.substr(0, split);
    if (className == "ns3::NvLinkPort" || className == "ns3::NvSwitch")
    {
        // The fabric configures its ports and switch from its own attributes.
        *error = where + "set the ns3::NvSwitchFabric attribute of the same name instead";
        return false;
    }
    // ns-3 aborts on many malformed values (times, rates, numbers with trailing text,
    // pointers): every value is checked first, by the kind of the attribute, as the
    // programs check --ns3:: options.
    const std::string type = AttributeKindName(info.checker);
    std::string expected;
    Ptr<AttributeValue> v = AttributeValueFromText(info.checker, value, &expected);
    if (!v || !Config::SetDefaultFailSafe(path, *v))
    {
        *error =
            where + "\"" + value + "\" is not a valid " + type + " (expected " + expected + ")";
        return false;
    }
    return true;
}

bool
ScenarioSettings::Apply(const TrainingScenario& s, std::string* error)
{
    // Defaults first, then the user's settings over them: the GPU preset, the scenario's
    // run settings, then fabric/config (and the command line, which the program passes
    // in the same list).
    GpuClusterHelper::AttributeList gpuDefaults;
    if (!GpuClusterHelper::GetGpuDefaults(s.gpu, &gpuDefaults))
    {
        *error = s.source + ": /cluster/gpu: expected " + GpuPreset::GetNameList() + ", got \"" +
                 s.gpu + "\"";
        return false;
    }
    for (const auto& [name, value] : gpuDefaults)
    {
        Config::SetDefault(name, *value);
    }
    Config::SetDefault("ns3::WorkloadRunner::Iterations", UintegerValue(s.iterations));
    Config::SetDefault("ns3::WorkloadRunner::HangTimeout", TimeValue(s.hangTimeout));
    // The name is checked against the attribute's list first: ns-3 asserts on an unknown
    // enum name in builds with asserts.
    TypeId::AttributeInformation algorithmInfo;
    CollectiveEngine::GetTypeId().LookupAttributeByName("Algorithm", &algorithmInfo);
    std::string expected;
    const Ptr<AttributeValue> algorithm =
        AttributeValueFromText(algorithmInfo.checker, s.algorithm, &expected);
    if (!algorithm || !Config::SetDefaultFailSafe("ns3::CollectiveEngine::Algorithm", *algorithm))
    {
        *error = s.source + ": unknown collective algorithm \"" + s.algorithm + "\" (" +
                 GetCollectiveAlgorithmNameList() + ")";
        return false;
    }
    CollectiveProtocol protocol = CollectiveProtocol::AUTO;
    if (!CollectiveProtocolFromString(s.protocol, protocol))
    {
        *error = s.source + ": unknown collective protocol \"" + s.protocol + "\" (" +
                 GetCollectiveProtocolNameList() + ")";
        return false;
    }
    Config::SetDefault("ns3::CollectiveEngine::Protocol",
                       StringValue(CollectiveProtocolToString(protocol)));
    Config::SetDefault(
        "ns3::CollectiveEngine::Channels",
        UintegerValue(s.channels ? s.channels : CollectiveDefaultChannels(s.gpusPerServer)));
    Config::SetDefault("ns3::CollectiveEngine::ChunkBytes", UintegerValue(s.chunkBytes));
    Config::SetDefault("ns3::CollectiveEngine::RingTransfersPerPhase",
                       UintegerValue(s.GetRingTransfersPerPhase()));
    Config::SetDefault("ns3::RdmaTransport::QpsPerConnection", UintegerValue(s.qpsPerConnection));
    Config::SetDefault("ns3::RdmaTransport::SplitDataOnQps", BooleanValue(s.splitDataOnQps));
    Config::SetDefault("ns3::FabricMonitor::SampleInterval", TimeValue(s.sampleInterval));
    for (const auto& [path, value] : s.config)
    {
        if (!ApplyConfig(s, path, value, error))
        {
            return false;
        }
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(s.seed);
    NS_LOG_INFO(s.source << ": settings applied, seed run " << s.seed);
    return true;
}

} // namespace ns3
