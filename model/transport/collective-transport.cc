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

std::string
LinkHardwareToString(LinkHardware hardware)
{
    switch (hardware)
    {
    case LinkHardware::NVLINK:
        return "nvlink";
    case LinkHardware::PCI:
        return "pci";
    case LinkHardware::NET:
        break;
    }
    return "net";
}

uint32_t
CollectiveTransport::GetComputeCapability() const
{
    return 90;
}

LinkHardware
CollectiveTransport::GetLinkHardware(uint32_t /* src */, uint32_t /* dst */) const
{
    return LinkHardware::NET;
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
                 << "); NVLS plans need ranks that share an NVSwitch (NvLinkTransport)");
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
                 << " ranks); NVLS plans need ranks that share an NVSwitch (NvLinkTransport)");
}

bool
CollectiveTransport::CanAllReduceInNetwork(const std::vector<uint32_t>& /* members */) const
{
    return false;
}

void
CollectiveTransport::SwitchAllReduce(const std::vector<uint32_t>& members,
                                     uint64_t /* bytes */,
                                     uint32_t /* channel */,
                                     DoneCallback /* done */)
{
    NS_ABORT_MSG(GetInstanceTypeId().GetName()
                 << " cannot all-reduce in the network (asked for " << members.size()
                 << " ranks); ina plans need a fabric with aggregation switches (InaTransport)");
}

bool
CollectiveTransport::CanReduceInNetwork(const std::vector<uint32_t>& /* members */) const
{
    return false;
}

void
CollectiveTransport::NetworkReduce(const std::vector<uint32_t>& members,
                                   uint32_t dst,
                                   uint64_t /* bytes */,
                                   uint32_t /* channel */,
                                   DoneCallback /* done */)
{
    NS_ABORT_MSG(GetInstanceTypeId().GetName()
                 << " cannot reduce in the network (asked for " << members.size()
                 << " ranks into rank " << dst
                 << "); ina plans need a fabric with aggregation switches (InaTransport)");
}

void
CollectiveTransport::NetworkMulticast(uint32_t src,
                                      const std::vector<uint32_t>& members,
                                      uint64_t /* bytes */,
                                      uint32_t /* channel */,
                                      DoneCallback /* done */)
{
    NS_ABORT_MSG(GetInstanceTypeId().GetName()
                 << " cannot multicast in the network (asked from rank " << src << " to "
                 << members.size()
                 << " ranks); ina plans need a fabric with aggregation switches (InaTransport)");
}

CarrierPath
CollectiveTransport::DescribePath(uint32_t src, uint32_t dst) const
{
    CarrierPath path;
    path.txPort = 2 * uint64_t{src};
    path.rxPort = 2 * uint64_t{dst} + 1;
    path.bytesPerSecond = 100e9 / 8;
    path.latency = MicroSeconds(1);
    return path;
}

CarrierSwitchPath
CollectiveTransport::DescribeSwitchPath(const std::vector<uint32_t>& members) const
{
    CarrierSwitchPath sw;
    for (size_t i = 0; i < members.size(); ++i)
    {
        const CarrierPath p = DescribePath(members[i], members[(i + 1) % members.size()]);
        sw.txPorts.push_back(p.txPort);
        sw.bytesPerSecond = p.bytesPerSecond;
        sw.latency = p.latency;
        sw.forwardUnit = p.forwardUnit;
    }
    for (size_t i = 0; i < members.size(); ++i)
    {
        const size_t from = (i + members.size() - 1) % members.size();
        sw.rxPorts.push_back(DescribePath(members[from], members[i]).rxPort);
    }
    return sw;
}

Ptr<CollectiveTransport>
CollectiveTransport::GetIsolatedCarrier(const std::vector<uint32_t>& /* ranks */) const
{
    return nullptr;
}

bool
CollectiveTransport::IsQuiet() const
{
    return false;
}

Ptr<CarrierRecord>
CollectiveTransport::StartRecord() const
{
    return nullptr;
}

bool
CollectiveTransport::EndRecord(CarrierRecord& /* record */, uint64_t /* posts */) const
{
    return false;
}

void
CollectiveTransport::Replay(const CarrierRecord& /* record */)
{
    NS_ABORT_MSG(GetInstanceTypeId().GetName() << " does not replay calls");
}

} // namespace ns3
