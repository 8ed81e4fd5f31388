// SPDX-License-Identifier: GPL-2.0-only
#include "no-congestion-control.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NoCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(NoCongestionControl);

TypeId
NoCongestionControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NoCongestionControl")
                            .SetParent<RoceCongestionControl>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NoCongestionControl>();
    return tid;
}

NoCongestionControl::NoCongestionControl()
{
    NS_LOG_FUNCTION(this);
}

NoCongestionControl::~NoCongestionControl()
{
    NS_LOG_FUNCTION(this);
}

void
NoCongestionControl::Start(uint64_t lineRateBps)
{
    NS_LOG_FUNCTION(this << lineRateBps);
    // The base class already starts at line rate; a zero window tells the NIC there is
    // no window limit. Nothing later ever changes either, because every On*() hook keeps
    // the base class's no-op.
    RoceCongestionControl::Start(lineRateBps);
    SetWindowBytes(0);
}

bool
NoCongestionControl::IsRateSteady() const
{
    return true;
}

} // namespace ns3
