// SPDX-License-Identifier: GPL-2.0-only
#include "collective-transport.h"

#include "ns3/abort.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveTransport);

TypeId
CollectiveTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveTransport").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

bool
CollectiveTransport::CanReduceInSwitch(const std::vector<uint32_t>& /* members */) const
{
    return false;
}

void
CollectiveTransport::SwitchReduce(const std::vector<uint32_t>& members,
                                  uint32_t dst,
                                  uint64_t /* bytes */,
                                  uint32_t /* channel */,
                                  DoneCallback /* done */)
{
    NS_ABORT_MSG(GetInstanceTypeId().GetName()
                 << " cannot reduce in a switch (asked for " << members.size()
                 << " ranks into rank " << dst
                 << "); NVLS plans need ranks that share an NVSwitch (NvSwitchFabric)");
}

void
CollectiveTransport::SwitchMulticast(uint32_t src,
                                     const std::vector<uint32_t>& members,
                                     uint64_t /* bytes */,
                                     uint32_t /* channel */,
                                     DoneCallback /* done */)
{
    NS_ABORT_MSG(GetInstanceTypeId().GetName()
                 << " cannot multicast in a switch (asked from rank " << src << " to "
                 << members.size()
                 << " ranks); NVLS plans need ranks that share an NVSwitch (NvSwitchFabric)");
}

} // namespace ns3
