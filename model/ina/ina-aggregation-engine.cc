// SPDX-License-Identifier: GPL-2.0-only
#include "ina-aggregation-engine.h"

#include "ina-streaming-protocol.h"
#include "ina-switch-ml-protocol.h"

#include "ns3/abort.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("InaAggregationEngine");
NS_OBJECT_ENSURE_REGISTERED(InaAggregationEngine);

namespace
{
/// Children per switch: the bitmap has 64 bits.
constexpr uint32_t MAX_CHILDREN = 64;
} // namespace

TypeId
InaAggregationEngine::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::InaAggregationEngine")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<InaAggregationEngine>()
            .AddAttribute("Slots",
                          "Aggregator slots of the switch; a job's pool of k slots takes 2k "
                          "(two copies).",
                          UintegerValue(16384),
                          MakeUintegerAccessor(&InaAggregationEngine::m_slots),
                          MakeUintegerChecker<uint32_t>(2, 1u << 24))
            .AddAttribute("SlotBytes",
                          "Value bytes one slot aggregates (the payload of one INA packet).",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&InaAggregationEngine::m_slotBytes),
                          MakeUintegerChecker<uint32_t>(4, 8192))
            .AddAttribute("ElementBytes",
                          "Bytes of one value (4: int32 or float32, 2: float16).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&InaAggregationEngine::m_elementBytes),
                          MakeUintegerChecker<uint32_t>(1, 8))
            .AddAttribute("MemoryBytes",
                          "Aggregator memory of the switch: Slots x SlotBytes + "
                          "StreamingAggregators x StreamingBytes must fit.",
                          UintegerValue(32 * 1024 * 1024),
                          MakeUintegerAccessor(&InaAggregationEngine::m_memoryBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("MaxJobs",
                          "Jobs (aggregation trees) the switch serves at a time.",
                          UintegerValue(16),
                          MakeUintegerAccessor(&InaAggregationEngine::m_maxJobs),
                          MakeUintegerChecker<uint32_t>(1, 65536))
            .AddAttribute("AggregationRate",
                          "Value bytes per second the engine reduces; 0 = as fast as "
                          "packets arrive (line rate on every port).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&InaAggregationEngine::m_aggregationRate),
                          MakeDataRateChecker())
            .AddAttribute("StreamingAggregators",
                          "Aggregators shared by the streaming jobs, addressed by the "
                          "packets' slot field (job hash + sequence) modulo this number.",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&InaAggregationEngine::m_streamingAggregators),
                          MakeUintegerChecker<uint32_t>(1, 1u << 24))
            .AddAttribute("StreamingBytes",
                          "Value bytes one streaming aggregator holds: the largest fragment "
                          "of a streaming job (4096: a full RDMA MTU of values).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&InaAggregationEngine::m_streamingBytes),
                          MakeUintegerChecker<uint32_t>(4, 8192))
            .AddTraceSource("SlotComplete",
                            "Every child's contribution to a fragment arrived at this "
                            "switch: job, sequence, workers summed.",
                            MakeTraceSourceAccessor(&InaAggregationEngine::m_slotCompleteTrace),
                            "ns3::InaAggregationEngine::SlotTracedCallback");
    return tid;
}

InaAggregationEngine::InaAggregationEngine()
{
    NS_LOG_FUNCTION(this);
    m_switchMl = CreateObject<InaSwitchMlProtocol>();
    m_switchMl->SetEngine(this);
    m_streaming = CreateObject<InaStreamingProtocol>();
    m_streaming->SetEngine(this);
}

InaAggregationEngine::~InaAggregationEngine() = default;

void
InaAggregationEngine::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_unitEvent.Cancel();
    m_waiting.clear();
    if (m_switch)
    {
        m_switch->SetLocalDelivery(ina::UDP_PORT, RoceSwitch::LocalDeliveryCallback());
    }
    m_switch = nullptr;
    m_jobs.clear();
    // Disposed, not released: GetFreeSlots still answers.
    m_switchMl->Dispose();
    m_streaming->Dispose();
    Object::DoDispose();
}

bool
InaAggregationEngine::CheckConfiguration(std::string* error) const
{
    if (m_slotBytes % m_elementBytes != 0)
    {
        *error = "ns3::InaAggregationEngine::SlotBytes: " + std::to_string(m_slotBytes) +
                 " is not a multiple of ElementBytes (" + std::to_string(m_elementBytes) + ")";
        return false;
    }
    if (m_streamingBytes % m_elementBytes != 0)
    {
        *error = "ns3::InaAggregationEngine::StreamingBytes: " + std::to_string(m_streamingBytes) +
                 " is not a multiple of ElementBytes (" + std::to_string(m_elementBytes) + ")";
        return false;
    }
    const uint64_t slotMemory = static_cast<uint64_t>(m_slots) * m_slotBytes;
    const uint64_t streamingMemory =
        static_cast<uint64_t>(m_streamingAggregators) * m_streamingBytes;
    if (slotMemory + streamingMemory > m_memoryBytes)
    {
        *error = "ns3::InaAggregationEngine::Slots: " + std::to_string(m_slots) + " slots of " +
                 std::to_string(m_slotBytes) + " B and " + std::to_string(m_streamingAggregators) +
                 " streaming aggregators of " + std::to_string(m_streamingBytes) + " B need " +
                 std::to_string(slotMemory + streamingMemory) + " B, more than MemoryBytes (" +
                 std::to_string(m_memoryBytes) + ")";
        return false;
    }
    return true;
}

void
InaAggregationEngine::Install(Ptr<RoceSwitch> sw)
{
    NS_LOG_FUNCTION(this << sw);
    std::string error;
    NS_ABORT_MSG_IF(!CheckConfiguration(&error), error);
    NS_ABORT_MSG_IF(sw->GetNPorts() == 0,
                    "InaAggregationEngine::Install: the switch has no ports (call "
                    "RoceSwitch::Setup first)");
    m_switch = sw;
    m_switchMl->SetSlots(m_slots);
    // 10.254.x.y by node id: switches have no IP stack, but their packets need a source.
    const uint32_t id = sw->GetPort(0)->GetNode()->GetId();
    m_address = Ipv4Address((10u << 24) | (254u << 16) | (id & 0xFFFF));
    sw->SetLocalDelivery(
        ina::UDP_PORT,
        MakeCallback(&InaAggregationEngine::Receive, Ptr<InaAggregationEngine>(this)));
}

InaAggregationProtocol*
InaAggregationEngine::ProtocolFor(InaProtocol protocol) const
{
    switch (protocol)
    {
    case InaProtocol::STREAMING:
        return PeekPointer(m_streaming);
    case InaProtocol::SWITCHML:
        break;
    }
    return PeekPointer(m_switchMl);
}

bool
InaAggregationEngine::AddJob(const InaJobConfig& config, std::string* why)
{
    NS_LOG_FUNCTION(this << config.job << config.poolSlots);
    NS_ABORT_MSG_IF(!m_switch, "InaAggregationEngine::AddJob: call Install first");
    InaAggregationProtocol* protocol = ProtocolFor(config.protocol);
    if (m_jobs.count(config.job))
    {
        *why = "job " + std::to_string(config.job) + " is already on the switch";
        return false;
    }
    if (config.childPorts.empty() || config.childPorts.size() > MAX_CHILDREN ||
        config.childAddresses.size() != config.childPorts.size())
    {
        *why = "a switch aggregates 1 to " + std::to_string(MAX_CHILDREN) + " children, got " +
               std::to_string(config.childPorts.size());
        return false;
    }
    if (!protocol->CheckJob(config, why))
    {
        return false;
    }
    if (m_jobs.size() >= m_maxJobs)
    {
        *why = "the switch serves MaxJobs (" + std::to_string(m_maxJobs) + ") jobs already";
        return false;
    }
    InaAggregationJob job;
    job.config = config;
    job.portChild.assign(m_switch->GetNPorts(), -1);
    for (uint32_t c = 0; c < config.childPorts.size(); ++c)
    {
        NS_ABORT_MSG_IF(config.childPorts[c] >= m_switch->GetNPorts(),
                        "InaAggregationEngine::AddJob: no port " << config.childPorts[c]);
        job.portChild[config.childPorts[c]] = static_cast<int32_t>(c);
    }
    job.fullMask =
        config.childPorts.size() == MAX_CHILDREN ? ~0ull : (1ull << config.childPorts.size()) - 1;
    job.protocol = protocol;
    InaAggregationJob* added = protocol->AddJob(std::move(job));
    m_jobs.emplace(config.job, added);
    NS_LOG_LOGIC("job " << config.job << ": " << config.childPorts.size() << " children, "
                        << (config.parentPort == InaJobConfig::NO_PARENT
                                ? std::string("root")
                                : "parent on port " + std::to_string(config.parentPort))
                        << ", " << InaProtocolName(config.protocol) << ", "
                        << protocol->GetJobSlots(*added) << " slots (" << GetFreeSlots()
                        << " left)");
    return true;
}

void
InaAggregationEngine::RemoveJob(uint16_t job)
{
    NS_LOG_FUNCTION(this << job);
    auto it = m_jobs.find(job);
    if (it != m_jobs.end())
    {
        InaAggregationProtocol* protocol = it->second->protocol;
        m_jobs.erase(it);
        protocol->RemoveJob(job);
    }
}

bool
InaAggregationEngine::HasJob(uint16_t job) const
{
    return m_jobs.count(job) != 0;
}

uint32_t
InaAggregationEngine::GetFreeSlots() const
{
    return m_switchMl->GetFreeSlots();
}

uint32_t
InaAggregationEngine::GetNJobs() const
{
    return static_cast<uint32_t>(m_jobs.size());
}

uint32_t
InaAggregationEngine::GetSlotBytes() const
{
    return m_slotBytes;
}

Ptr<RoceSwitch>
InaAggregationEngine::GetSwitch() const
{
    return m_switch;
}

Ipv4Address
InaAggregationEngine::GetAddress() const
{
    return m_address;
}

uint64_t
InaAggregationEngine::GetContributions() const
{
    return m_contributions;
}

uint64_t
InaAggregationEngine::GetDuplicates() const
{
    return m_duplicates;
}

uint64_t
InaAggregationEngine::GetResultsSent() const
{
    return m_resultsSent;
}

uint64_t
InaAggregationEngine::GetAggregatesSent() const
{
    return m_aggregatesSent;
}

uint64_t
InaAggregationEngine::GetDiscarded() const
{
    return m_discarded;
}

uint64_t
InaAggregationEngine::GetCollisions() const
{
    return m_collisions;
}

uint64_t
InaAggregationEngine::GetFlushes() const
{
    return m_flushes;
}

uint64_t
InaAggregationEngine::GetForwarded() const
{
    return m_forwarded;
}

uint32_t
InaAggregationEngine::GetStreamingBytes() const
{
    return m_streamingBytes;
}

uint32_t
InaAggregationEngine::GetStreamingAggregators() const
{
    return m_streamingAggregators;
}

void
InaAggregationEngine::Receive(uint32_t inPort,
                              uint8_t priority,
                              Ptr<Packet> frame,
                              const RoceFrameInfo& info)
{
    NS_LOG_FUNCTION(this << inPort << +priority << frame);
    if (!IsInaGroupAddress(Ipv4Address(info.dstIp)))
    {
        Forward(inPort, priority, frame, info);
        return;
    }
    const bool ce = info.ecn == Ipv4Header::ECN_CE;
    if (m_aggregationRate.GetBitRate() == 0)
    {
        Process(inPort, priority, frame, ce);
        return;
    }
    // One reduction unit: frames wait for it in arrival order, holding their buffer.
    m_waiting.push_back({inPort, priority, frame, ce});
    if (m_unitEvent.IsExpired()) // IsRunning() is gone in newer ns-3
    {
        StartNext();
    }
}

void
InaAggregationEngine::StartNext()
{
    if (m_waiting.empty())
    {
        return;
    }
    InaHeader header;
    const uint32_t values =
        ReadInaHeader(m_waiting.front().frame, header) ? header.GetValueBytes() : 0;
    const Time busy = m_aggregationRate.CalculateBytesTxTime(values);
    NS_LOG_LOGIC("reduction unit busy for " << busy.As(Time::NS) << ", " << m_waiting.size() - 1
                                            << " frames waiting behind");
    m_unitEvent = Simulator::Schedule(busy, &InaAggregationEngine::FinishReduction, this);
}

void
InaAggregationEngine::FinishReduction()
{
    const Waiting w = m_waiting.front();
    m_waiting.pop_front();
    StartNext();
    Process(w.inPort, w.priority, w.frame, w.ce);
}

void
InaAggregationEngine::Process(uint32_t inPort, uint8_t priority, Ptr<Packet> frame, bool ce)
{
    NS_LOG_FUNCTION(this << inPort << frame);
    m_switch->ReleaseLocal(inPort, priority, frame->GetSize());
    InaHeader header;
    auto it = m_jobs.end();
    if (ReadInaHeader(frame, header))
    {
        it = m_jobs.find(header.job);
    }
    if (it == m_jobs.end())
    {
        NS_LOG_DEBUG("discard: INA frame of unknown job " << header.job << " on port " << inPort);
        ++m_discarded;
        return;
    }
    InaAggregationJob& job = *it->second;
    job.protocol->Process(job, inPort, header, ce);
}

void
InaAggregationEngine::SendSum(const InaAggregationJob& job,
                              const InaHeader& request,
                              const InaSum& sum)
{
    if (job.config.parentPort == InaJobConfig::NO_PARENT)
    {
        NS_LOG_LOGIC("job " << request.job << " seq " << request.sequence << ": " << sum.count
                            << " workers summed, result to " << job.config.childPorts.size()
                            << " children");
        for (uint32_t c = 0; c < job.config.childPorts.size(); ++c)
        {
            SendResult(job, c, request, sum, false);
        }
    }
    else
    {
        NS_LOG_LOGIC("job " << request.job << " seq " << request.sequence << ": " << sum.count
                            << " workers summed, aggregate to the parent");
        SendAggregate(job, request, sum, false);
    }
}

InaHeader
InaAggregationEngine::ReplyHeader(InaHeader::Type type,
                                  const InaHeader& request,
                                  const InaSum& sum,
                                  bool retransmission)
{
    InaHeader h;
    h.type = type;
    h.flags = static_cast<uint8_t>(
        (retransmission ? InaHeader::RETRANSMISSION : 0) | (sum.ecn ? InaHeader::ECN_ECHO : 0) |
        (sum.values ? 0 : InaHeader::NO_VALUES) | (request.flags & InaHeader::DIRECTED));
    h.destination = request.destination;
    h.job = request.job;
    h.sequence = sum.sequence;
    h.slot = request.slot;
    h.copy = request.copy;
    h.count = sum.count;
    h.bitmap = sum.bitmap;
    h.length = sum.length;
    h.element = request.element;
    return h;
}

void
InaAggregationEngine::SendResult(const InaAggregationJob& job,
                                 uint32_t child,
                                 const InaHeader& request,
                                 const InaSum& sum,
                                 bool retransmission)
{
    SendResultOn(job,
                 job.config.childPorts[child],
                 job.config.childAddresses[child],
                 static_cast<int32_t>(child),
                 ReplyHeader(InaHeader::RESULT, request, sum, retransmission));
}

void
InaAggregationEngine::SendResultOn(const InaAggregationJob& job,
                                   uint32_t port,
                                   Ipv4Address dst,
                                   int32_t child,
                                   InaHeader h)
{
    if (!ValuesToward(job, child, h))
    {
        h.SetValues(false);
    }
    Send(job, port, dst, h);
    ++m_resultsSent;
}

void
InaAggregationEngine::SendAggregate(const InaAggregationJob& job,
                                    const InaHeader& request,
                                    const InaSum& sum,
                                    bool retransmission)
{
    SendUp(job, ReplyHeader(InaHeader::DATA, request, sum, retransmission));
}

void
InaAggregationEngine::SendUp(const InaAggregationJob& job, InaHeader h)
{
    h.sender = job.config.indexAtParent;
    Send(job, job.config.parentPort, InaGroupAddress(h.job), h);
    ++m_aggregatesSent;
}

void
InaAggregationEngine::Send(const InaAggregationJob& job,
                           uint32_t port,
                           Ipv4Address dst,
                           const InaHeader& h)
{
    m_switch->SendLocal(port,
                        job.config.priority,
                        MakeInaFrame(h, AddressOn(port, dst, job.config.priority)));
}

void
InaAggregationEngine::Forward(uint32_t inPort,
                              uint8_t priority,
                              Ptr<Packet> frame,
                              const RoceFrameInfo& info)
{
    m_switch->ReleaseLocal(inPort, priority, frame->GetSize());
    const uint32_t port = RouteTo(Ipv4Address(info.dstIp), info.FlowKey());
    if (port == UINT32_MAX)
    {
        return;
    }
    NS_LOG_LOGIC("INA frame to host " << Ipv4Address(info.dstIp) << " forwarded on port " << port);
    ++m_forwarded;
    m_switch->SendLocal(port, priority, frame);
}

uint32_t
InaAggregationEngine::RouteTo(Ipv4Address dst, uint64_t flow)
{
    const uint32_t port =
        m_switch->GetRoutingTable().SelectPort(dst.Get(), flow, m_switch->GetEcmpSalt());
    if (port == UINT32_MAX)
    {
        NS_LOG_DEBUG("discard: no route to host " << dst);
        ++m_discarded;
    }
    return port;
}

bool
InaAggregationEngine::ValuesToward(const InaAggregationJob& job, int32_t child, const InaHeader& h)
{
    if (!(h.flags & InaHeader::DIRECTED))
    {
        return true;
    }
    // Toward the destination, and (streaming) toward the fragment's fallback host.
    const std::vector<int32_t>& rankChild = job.config.rankChild;
    auto toward = [&rankChild](uint32_t rank) {
        return rank < rankChild.size() ? rankChild[rank] : -1;
    };
    const auto workers = static_cast<uint32_t>(job.config.workers.size());
    return toward(h.destination) == child || (workers > 0 && toward(h.sequence % workers) == child);
}

InaFrameAddress
InaAggregationEngine::AddressOn(uint32_t port, Ipv4Address dst, uint8_t priority) const
{
    Ptr<RoceNetDevice> device = m_switch->GetPort(port);
    InaFrameAddress a;
    a.srcMac = Mac48Address::ConvertFrom(device->GetAddress());
    a.dstMac = Mac48Address::ConvertFrom(device->GetRoceChannel()->GetPeer(device)->GetAddress());
    a.srcIp = m_address;
    a.dstIp = dst;
    a.priority = priority;
    return a;
}

} // namespace ns3
