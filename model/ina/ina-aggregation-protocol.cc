// SPDX-License-Identifier: GPL-2.0-only
#include "ina-aggregation-protocol.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("InaAggregationProtocol");
NS_OBJECT_ENSURE_REGISTERED(InaAggregationProtocol);

TypeId
InaAggregationProtocol::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::InaAggregationProtocol").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

InaAggregationProtocol::InaAggregationProtocol()
{
    NS_LOG_FUNCTION(this);
}

InaAggregationProtocol::~InaAggregationProtocol() = default;

void
InaAggregationProtocol::SetEngine(InaAggregationEngine* engine)
{
    NS_LOG_FUNCTION(this << engine);
    m_engine = engine;
}

uint32_t
InaAggregationProtocol::GetJobSlots(const InaAggregationJob& /* job */) const
{
    return 0;
}

void
InaAggregationProtocol::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_engine = nullptr;
    Object::DoDispose();
}

} // namespace ns3
