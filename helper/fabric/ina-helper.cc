// SPDX-License-Identifier: GPL-2.0-only
#include "ina-helper.h"

#include "../../model/fabric/ai-fabric-compat.h"

#include "ns3/node.h"
#include "ns3/uinteger.h"

namespace ns3
{

InaHelper::InaHelper()
    : m_controller(CreateObject<InaController>())
{
    m_engineFactory.SetTypeId("ns3::InaAggregationEngine");
}

void
InaHelper::SetEngineAttribute(const std::string& name, const AttributeValue& value)
{
    m_engineFactory.Set(name, value);
}

void
InaHelper::SetWorkerAttribute(const std::string& name, const AttributeValue& value)
{
    m_controller->SetWorkerAttribute(name, value);
}

void
InaHelper::SetProtocol(InaProtocol protocol)
{
    m_controller->SetAttribute("Protocol", aifabric::MakeEnumValueCompat(protocol));
}

void
InaHelper::SetPoolSlots(uint32_t slots)
{
    m_controller->SetAttribute("PoolSlots", UintegerValue(slots));
}

void
InaHelper::SetPriority(uint8_t priority)
{
    m_controller->SetAttribute("Priority", UintegerValue(priority));
}

std::vector<Ptr<InaAggregationEngine>>
InaHelper::Install(const std::vector<Ptr<RoceSwitch>>& switches)
{
    std::vector<Ptr<InaAggregationEngine>> engines;
    for (const auto& sw : switches)
    {
        Ptr<InaAggregationEngine> engine = m_engineFactory.Create<InaAggregationEngine>();
        engine->Install(sw);
        // The engine lives on its switch's node and is disposed with it.
        sw->GetPort(0)->GetNode()->AggregateObject(engine);
        engines.push_back(engine);
    }
    return engines;
}

InaJob
InaHelper::CreateJob(uint16_t job, const std::vector<Ptr<RdmaNic>>& nics)
{
    return m_controller->CreateJob(job, nics);
}

void
InaHelper::RemoveJob(const InaJob& job)
{
    InaController::RemoveJob(job);
}

Ptr<InaController>
InaHelper::GetController() const
{
    return m_controller;
}

const std::vector<InaProtocol>&
InaHelper::GetProtocols()
{
    static const std::vector<InaProtocol> protocols{InaProtocol::STREAMING, InaProtocol::SWITCHML};
    return protocols;
}

bool
InaHelper::ParseProtocol(const std::string& name, InaProtocol* protocol)
{
    for (InaProtocol p : GetProtocols())
    {
        if (name == InaProtocolName(p))
        {
            *protocol = p;
            return true;
        }
    }
    return false;
}

std::string
InaHelper::GetProtocolNameList()
{
    std::string list;
    const auto& protocols = GetProtocols();
    for (size_t i = 0; i < protocols.size(); ++i)
    {
        list += (i == 0 ? "" : i + 1 == protocols.size() ? " or " : ", ");
        list += InaProtocolName(protocols[i]);
    }
    return list;
}

} // namespace ns3
