// SPDX-License-Identifier: GPL-2.0-only
#include "nvlink-transport.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvLinkTransport");
NS_OBJECT_ENSURE_REGISTERED(NvLinkTransport);

TypeId
NvLinkTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NvLinkTransport")
                            .SetParent<CollectiveTransport>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NvLinkTransport>();
    return tid;
}

NvLinkTransport::NvLinkTransport()
{
    NS_LOG_FUNCTION(this);
}

NvLinkTransport::~NvLinkTransport()
{
    NS_LOG_FUNCTION(this);
}

void
NvLinkTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_fabric = nullptr;
    CollectiveTransport::DoDispose();
}

void
NvLinkTransport::SetFabric(Ptr<NvSwitchFabric> fabric)
{
    NS_LOG_FUNCTION(this << fabric);
    m_fabric = fabric;
}

Ptr<NvSwitchFabric>
NvLinkTransport::GetFabric() const
{
    return m_fabric;
}

const Ptr<NvSwitchFabric>&
NvLinkTransport::Fabric() const
{
    NS_ABORT_MSG_IF(!m_fabric, "NvLinkTransport: no NvSwitchFabric (call SetFabric)");
    return m_fabric;
}

void
NvLinkTransport::Send(uint32_t src,
                      uint32_t dst,
                      uint64_t bytes,
                      uint32_t channel,
                      DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << dst << bytes << channel);
    Fabric()->Send(src, dst, bytes, channel, done);
}

uint32_t
NvLinkTransport::GetNRanks() const
{
    return m_fabric ? m_fabric->GetNGpus() : 0;
}

uint32_t
NvLinkTransport::GetComputeCapability() const
{
    return Fabric()->GetComputeCapability();
}

LinkHardware
NvLinkTransport::GetLinkHardware(uint32_t /* src */, uint32_t /* dst */) const
{
    return LinkHardware::NVLINK;
}

CarrierPath
NvLinkTransport::DescribePath(uint32_t src, uint32_t dst) const
{
    const Ptr<NvSwitchFabric>& f = Fabric();
    const Ptr<NvLinkPort> from = f->GetPort(src);
    const Ptr<NvLinkPort> to = f->GetPort(dst);
    CarrierPath path;
    path.txPort = 2 * uint64_t{src};
    path.rxPort = 2 * uint64_t{dst} + 1;
    const double rate = std::min(from->GetRate().GetBitRate(), to->GetRate().GetBitRate()) / 8.0;
    path.bytesPerSecond = rate * f->GetEfficiency(false);
    path.latency = from->GetLatency() + to->GetLatency();
    path.forwardHops = 1;
    path.forwardUnit = f->GetChunkBytes();
    return path;
}

CarrierSwitchPath
NvLinkTransport::DescribeSwitchPath(const std::vector<uint32_t>& members) const
{
    const Ptr<NvSwitchFabric>& f = Fabric();
    CarrierSwitchPath sw;
    // The ports bound each member's share; the reduction engine, one FIFO server for the
    // whole switch (NvSwitch::Reduce), is a resource of its own that the estimate queues
    // reductions on.
    double rate = std::numeric_limits<double>::max();
    Time latency(0);
    for (uint32_t g : members)
    {
        const Ptr<NvLinkPort> port = f->GetPort(g);
        sw.txPorts.push_back(2 * uint64_t{g});
        sw.rxPorts.push_back(2 * uint64_t{g} + 1);
        rate = std::min(rate, port->GetRate().GetBitRate() / 8.0 * f->GetEfficiency(true));
        latency = std::max(latency, port->GetLatency());
    }
    sw.bytesPerSecond = rate;
    sw.latency = 2 * latency;
    sw.forwardUnit = f->GetChunkBytes();
    sw.engineBytesPerSecond = f->GetNvlsThroughput().GetBitRate() / 8.0;
    sw.engine = 2 * uint64_t{f->GetNGpus()}; // after every port id (2g, 2g + 1)
    return sw;
}

bool
NvLinkTransport::CanReduceInSwitch(const std::vector<uint32_t>& members) const
{
    return m_fabric && m_fabric->CanReduceInSwitch(members);
}

void
NvLinkTransport::SwitchReduce(const std::vector<uint32_t>& members,
                              uint32_t dst,
                              uint64_t bytes,
                              uint32_t channel,
                              DoneCallback done)
{
    NS_LOG_FUNCTION(this << dst << bytes << channel);
    Fabric()->SwitchReduce(members, dst, bytes, channel, done);
}

void
NvLinkTransport::SwitchMulticast(uint32_t src,
                                 const std::vector<uint32_t>& members,
                                 uint64_t bytes,
                                 uint32_t channel,
                                 DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << bytes << channel);
    Fabric()->SwitchMulticast(src, members, bytes, channel, done);
}

namespace
{

/// What NvLinkTransport keeps of a recorded call.
class NvLinkRecord : public CarrierRecord
{
  public:
    const NvSwitchFabric* fabric{nullptr}; //!< the fabric it ran on
    uint64_t posts{0};                     //!< the fabric's posts at its start
    NvSwitchFabric::Work work;             //!< counters at its start, then its own
};

} // namespace

Ptr<CollectiveTransport>
NvLinkTransport::GetIsolatedCarrier(const std::vector<uint32_t>& ranks) const
{
    if (!m_fabric || std::any_of(ranks.begin(), ranks.end(), [this](uint32_t r) {
            return r >= m_fabric->GetNGpus();
        }))
    {
        return nullptr;
    }
    return Ptr<CollectiveTransport>(const_cast<NvLinkTransport*>(this));
}

bool
NvLinkTransport::IsQuiet() const
{
    return Fabric()->IsQuiet();
}

Ptr<CarrierRecord>
NvLinkTransport::StartRecord() const
{
    const Ptr<NvSwitchFabric>& f = Fabric();
    Ptr<NvLinkRecord> record = Create<NvLinkRecord>();
    record->start = Simulator::Now();
    record->fabric = PeekPointer(f);
    record->posts = f->GetPosts();
    record->work = f->GetWork();
    return record;
}

bool
NvLinkTransport::EndRecord(CarrierRecord& record, uint64_t posts) const
{
    const Ptr<NvSwitchFabric>& f = Fabric();
    auto* r = dynamic_cast<NvLinkRecord*>(&record);
    NS_ABORT_MSG_IF(!r || r->fabric != PeekPointer(f),
                    "NvLinkTransport::EndRecord: a record of another carrier");
    if (f->GetPosts() - r->posts != posts)
    {
        NS_LOG_LOGIC("the call shared the fabric (" << f->GetPosts() - r->posts - posts
                                                    << " other posts): not recorded");
        return false;
    }
    if (!f->IsQuiet())
    {
        // Something of the call is still under way (a credit on its way back over a
        // slower link): a call right after it would find it, a replay could not give it.
        NS_LOG_LOGIC("the call left the fabric busy: not recorded");
        return false;
    }
    r->duration = Simulator::Now() - r->start;
    r->work = NvSwitchFabric::Difference(f->GetWork(), r->work);
    NS_LOG_LOGIC("recorded a call of " << r->duration.As(Time::US) << ", " << r->work.chunks
                                       << " chunks");
    return true;
}

void
NvLinkTransport::Replay(const CarrierRecord& record)
{
    const Ptr<NvSwitchFabric>& f = Fabric();
    const auto* r = dynamic_cast<const NvLinkRecord*>(&record);
    NS_ABORT_MSG_IF(!r || r->fabric != PeekPointer(f),
                    "NvLinkTransport::Replay: a record of another carrier");
    f->Replay(r->work, r->duration);
}

} // namespace ns3
