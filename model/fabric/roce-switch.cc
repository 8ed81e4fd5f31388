// SPDX-License-Identifier: GPL-2.0-only
#include "roce-switch.h"

#include "bth-header.h"
#include "int-header.h"
#include "roce-channel.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ipv4-address.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwitch");
NS_OBJECT_ENSURE_REGISTERED(RoceSwitch);

TypeId
RoceSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceSwitch")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<RoceSwitch>()
            .AddAttribute("Mmu",
                          "The shared-buffer memory management unit.",
                          PointerValue(),
                          MakePointerAccessor(&RoceSwitch::m_mmu),
                          MakePointerChecker<SharedBufferMmu>())
            .AddAttribute("EcmpSalt",
                          "Per-switch ECMP hash salt; 0 = drawn from the random stream.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceSwitch::m_salt),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PfcPauseQuanta",
                          "Pause time put in XOFF frames, in quanta of 512 bit times.",
                          UintegerValue(65535),
                          MakeUintegerAccessor(&RoceSwitch::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1, 65535))
            .AddAttribute("PfcWatchdog",
                          "Put a PfcWatchdog on every port (its attributes: "
                          "ns3::PfcWatchdog::DetectionTime, RecoveryTime, Action).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceSwitch::m_watchdogEnabled),
                          MakeBooleanChecker())
            .AddAttribute("PfcRefreshFraction",
                          "While the cause lasts, the pause is re-sent after this fraction "
                          "of its duration, so it never lapses.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&RoceSwitch::m_refreshFraction),
                          MakeDoubleChecker<double>(0.05, 0.95))
            .AddTraceSource("Drop",
                            "A frame was dropped: frame, RoceSwitch::DropReason.",
                            MakeTraceSourceAccessor(&RoceSwitch::m_dropTrace),
                            "ns3::RoceSwitch::DropTracedCallback")
            .AddTraceSource("EcnMark",
                            "A frame was marked CE as it left.",
                            MakeTraceSourceAccessor(&RoceSwitch::m_ecnMarkTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("QueueLength",
                            "Egress queue bytes of (port, priority) after an enqueue.",
                            MakeTraceSourceAccessor(&RoceSwitch::m_queueTrace),
                            "ns3::RoceSwitch::QueueTracedCallback")
            .AddTraceSource("PfcSent",
                            "The switch sent PFC: ingress port, priority, quanta (0 = XON).",
                            MakeTraceSourceAccessor(&RoceSwitch::m_pfcSentTrace),
                            "ns3::RoceSwitch::PfcTracedCallback");
    return tid;
}

RoceSwitch::RoceSwitch()
    : m_saltRng(CreateObject<UniformRandomVariable>())
{
}

void
RoceSwitch::DoDispose()
{
    for (auto& events : m_refreshEvents)
    {
        for (auto& e : events)
        {
            e.Cancel();
        }
    }
    for (const auto& port : m_ports)
    {
        port->SetRoceReceiveCallback(RoceNetDevice::RxCallback());
        port->SetDequeueCallback(RoceNetDevice::DequeueCallback());
    }
    for (const auto& watchdog : m_watchdogs)
    {
        watchdog->Dispose();
    }
    m_watchdogs.clear();
    m_ports.clear();
    m_localDelivery = LocalDeliveryCallback();
    m_mmu = nullptr;
    Object::DoDispose();
}

uint64_t
RoceSwitch::DrawSalt()
{
    return m_saltRng->GetInteger(1, UINT32_MAX);
}

void
RoceSwitch::Setup(Ptr<Node> node)
{
    if (!m_mmu)
    {
        m_mmu = CreateObject<SharedBufferMmu>();
    }
    for (uint32_t i = 0; i < node->GetNDevices(); ++i)
    {
        Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(node->GetDevice(i));
        NS_ABORT_MSG_IF(!dev,
                        "RoceSwitch: device " << i << " of node " << node->GetId()
                                              << " is not a RoceNetDevice");
        NS_ABORT_MSG_IF(!dev->GetRoceChannel(),
                        "RoceSwitch: port " << i << " of node " << node->GetId()
                                            << " is not attached to a channel");
        NS_ABORT_MSG_IF(dev->GetIfIndex() != i, "RoceSwitch: port numbering mismatch");
        m_ports.push_back(dev);
        // The ports hold the switch (released in DoDispose), never a raw pointer to it.
        const Ptr<RoceSwitch> self(this);
        dev->SetRoceReceiveCallback(MakeCallback(&RoceSwitch::ReceiveFromPort, self));
        dev->SetDequeueCallback(MakeCallback(&RoceSwitch::OnDequeue, self));
    }
    m_refreshEvents.resize(m_ports.size());
    m_ecnMarksPerPort.assign(m_ports.size(), 0);
    if (m_watchdogEnabled)
    {
        for (const auto& port : m_ports)
        {
            Ptr<PfcWatchdog> watchdog = CreateObject<PfcWatchdog>();
            watchdog->Install(port);
            m_watchdogs.push_back(watchdog);
        }
    }
    ReconfigureBuffers();
    if (m_salt == 0)
    {
        m_saltAutomatic = true;
        m_salt = DrawSalt();
    }
}

void
RoceSwitch::ReceiveFromPort(Ptr<RoceNetDevice> device,
                            Ptr<Packet> packet,
                            const RoceFrameInfo& info)
{
    NS_LOG_FUNCTION(this << device << packet);
    uint32_t inPort = device->GetIfIndex();
    if (info.kind != RoceFrameInfo::ROCE && info.kind != RoceFrameInfo::IPV4)
    {
        NS_LOG_LOGIC("port " << inPort << ": frame kind " << int(info.kind)
                             << " is not routed, dropped silently");
        return; // not routable here
    }
    uint8_t priority = info.dscp >> 3;
    // A frame for the local engine is admitted like any other (its ingress buffer counts
    // towards PFC until the engine releases it) but not routed.
    const bool local = info.kind == RoceFrameInfo::IPV4 && info.dstPort == m_localUdpPort &&
                       !m_localDelivery.IsNull();
    uint32_t outPort = LOCAL_PORT;
    if (!local)
    {
        outPort = m_routes.SelectPort(info.dstIp, info.FlowKey(), m_salt);
        NS_LOG_LOGIC("ECMP: flow " << Ipv4Address(info.srcIp) << ":" << info.srcPort << " -> "
                                   << Ipv4Address(info.dstIp) << " qp " << info.destQp
                                   << " from port " << inPort << " to port " << outPort << " (salt "
                                   << m_salt << ")");
        if (outPort == UINT32_MAX)
        {
            NS_LOG_DEBUG("drop: no route to " << Ipv4Address(info.dstIp));
            ++m_drops[DROP_NO_ROUTE];
            m_dropTrace(packet, DROP_NO_ROUTE);
            return;
        }
        if (info.kind == RoceFrameInfo::ROCE &&
            (info.opcode == BthHeader::RC_ACKNOWLEDGE || info.opcode == BthHeader::CNP))
        {
            m_ports[outPort]->EnqueueControl(packet, priority, &info);
            return;
        }
    }
    uint32_t bytes = packet->GetSize();
    SharedBufferMmu::Admission verdict = m_mmu->Admit(inPort, priority, bytes);
    if (verdict != SharedBufferMmu::ADMIT)
    {
        DropReason reason = verdict == SharedBufferMmu::DROP_HEADROOM_FULL ? DROP_HEADROOM_FULL
                            : verdict == SharedBufferMmu::DROP_THRESHOLD   ? DROP_THRESHOLD
                                                                           : DROP_BUFFER_FULL;
        NS_LOG_DEBUG("drop: " << bytes << " B from port " << inPort << " priority " << int(priority)
                              << " refused by the MMU (reason " << reason << ")");
        ++m_drops[reason];
        m_dropTrace(packet, reason);
        return;
    }
    if (m_mmu->ShouldSendXoff(inPort, priority))
    {
        SendPause(inPort, priority);
    }
    if (local)
    {
        NS_LOG_LOGIC("port " << inPort << ": " << bytes << " B to UDP port " << info.dstPort
                             << " taken by the local engine");
        m_localDelivery(inPort, priority, packet, info);
        return;
    }
    // Telemetry is stamped as the frame leaves (queue and counters of that moment), on
    // data frames whose INT header has room; ACKs echo a stack and are left alone.
    const bool stamp = info.kind == RoceFrameInfo::ROCE && info.intOffset != 0 && !info.intEcho &&
                       info.intHops < info.intRoom;
    EnqueueOn(outPort, priority, packet, inPort, stamp, &info);
}

void
RoceSwitch::EnqueueOn(uint32_t port,
                      uint8_t priority,
                      Ptr<Packet> packet,
                      uint32_t inPort,
                      bool intStamp,
                      const RoceFrameInfo* info)
{
    Ptr<RoceNetDevice> egress = m_ports[port];
    egress->EnqueueData(packet, priority, inPort, intStamp, info);
    uint32_t queued = egress->GetQueueBytes(priority);
    if (queued > m_maxQueueBytes)
    {
        m_maxQueueBytes = queued;
    }
    m_queueTrace(port, priority, queued);
}

void
RoceSwitch::SetLocalDelivery(uint16_t udpPort, LocalDeliveryCallback callback)
{
    NS_LOG_FUNCTION(this << udpPort);
    m_localUdpPort = udpPort;
    m_localDelivery = callback;
}

void
RoceSwitch::ReleaseLocal(uint32_t inPort, uint8_t priority, uint32_t bytes)
{
    NS_LOG_FUNCTION(this << inPort << +priority << bytes);
    ReleaseIngress(inPort, priority, bytes);
}

void
RoceSwitch::SendLocal(uint32_t port, uint8_t priority, Ptr<Packet> frame)
{
    NS_LOG_FUNCTION(this << port << +priority << frame);
    NS_ABORT_MSG_IF(port >= m_ports.size(),
                    "RoceSwitch::SendLocal: no port " << port << " (" << m_ports.size()
                                                      << " ports)");
    EnqueueOn(port, priority, frame, LOCAL_PORT);
}

void
RoceSwitch::ReleaseIngress(uint32_t inPort, uint8_t priority, uint32_t bytes)
{
    m_mmu->Release(inPort, priority, bytes);
    if (m_mmu->ShouldSendXon(inPort, priority))
    {
        NS_LOG_LOGIC("XON sent on port " << inPort << " priority " << int(priority)
                                         << ": ingress below the resume "
                                         << "threshold");
        m_mmu->SetPaused(inPort, priority, false);
        m_refreshEvents[inPort][priority].Cancel();
        m_ports[inPort]->SendPfc(priority, 0);
        m_pfcSentTrace(inPort, priority, 0);
    }
}

void
RoceSwitch::OnDequeue(Ptr<RoceNetDevice> device, RoceQueueItem& item)
{
    if (item.ingressPort != LOCAL_PORT)
    {
        ReleaseIngress(item.ingressPort, item.priority, item.bytes);
    }
    if (item.intStamp)
    {
        StampTelemetry(device, item);
        item.parsed = false; // its bytes changed: the port parses it as it sends it
    }
    uint32_t port = device->GetIfIndex();
    if (m_mmu->ShouldMarkEcn(port, device->GetQueueBytes(item.priority)))
    {
        RoceFrameInfo info;
        if (item.parsed)
        {
            info = item.info;
        }
        else
        {
            ParseRoceFrame(item.packet, info);
        }
        if (info.ecn == 1 || info.ecn == 2)
        {
            item.parsed = false;
            NS_LOG_LOGIC("ECN: CE marked on port "
                         << port << " priority " << int(item.priority) << ", egress queue "
                         << device->GetQueueBytes(item.priority) << " B (Kmin "
                         << m_mmu->GetKmin(port) << " B)");
            MarkCongestionExperienced(item.packet);
            ++m_ecnMarks;
            ++m_ecnMarksPerPort[port];
            m_ecnMarkTrace(item.packet);
        }
    }
}

void
RoceSwitch::StampTelemetry(const Ptr<RoceNetDevice>& device, const RoceQueueItem& item)
{
    const uint64_t rate = device->GetDataRate().GetBitRate();
    const int code = IntRateCode(rate);
    NS_ABORT_MSG_IF(code < 0,
                    "RoceSwitch: node " << device->GetNode()->GetId() << " port "
                                        << device->GetIfIndex()
                                        << ": in-band telemetry cannot name the link rate " << rate
                                        << " bit/s (hop records encode " << IntRateList() << ")");
    // Wire bytes sent so far, this frame included: what a utilisation of 1 means.
    const uint64_t txWire = device->GetTxWireBytes() + roce::WireBytes(item.bytes);
    const uint32_t queue = device->GetQueueBytes(item.priority);
    NS_LOG_LOGIC("INT: port " << device->GetIfIndex() << " stamps tx " << txWire << " B, queue "
                              << queue << " B, rate " << rate);
    StampIntHop(item.packet, EncodeIntHop(Simulator::Now(), txWire, queue, code));
    ++m_intStamps;
}

void
RoceSwitch::SendPause(uint32_t port, uint8_t priority)
{
    NS_LOG_LOGIC("XOFF sent on port " << port << " priority " << int(priority) << ", "
                                      << m_pauseQuanta << " quanta (ingress "
                                      << m_mmu->GetIngressBytes(port, priority) << " B)");
    m_mmu->SetPaused(port, priority, true);
    m_ports[port]->SendPfc(priority, m_pauseQuanta);
    ++m_pausesSent;
    m_pfcSentTrace(port, priority, m_pauseQuanta);
    Time refresh = m_ports[port]->QuantaToTime(m_pauseQuanta) * m_refreshFraction;
    m_refreshEvents[port][priority] =
        Simulator::Schedule(refresh, &RoceSwitch::RefreshPause, this, port, priority);
}

void
RoceSwitch::RefreshPause(uint32_t port, uint8_t priority)
{
    if (!m_mmu->IsPaused(port, priority))
    {
        return;
    }
    if (m_mmu->ShouldSendXon(port, priority))
    {
        // The cause cleared without a dequeue from this ingress noticing it (the shared
        // pool freed up elsewhere): resume now.
        NS_LOG_LOGIC("XON sent on port " << port << " priority " << int(priority)
                                         << " at the pause refresh");
        m_mmu->SetPaused(port, priority, false);
        m_ports[port]->SendPfc(priority, 0);
        m_pfcSentTrace(port, priority, 0);
        return;
    }
    SendPause(port, priority);
}

EcmpRoutingTable&
RoceSwitch::GetRoutingTable()
{
    return m_routes;
}

Ptr<SharedBufferMmu>
RoceSwitch::GetMmu() const
{
    return m_mmu;
}

Ptr<RoceNetDevice>
RoceSwitch::GetPort(uint32_t port) const
{
    return m_ports.at(port);
}

void
RoceSwitch::ReconfigureBuffers()
{
    NS_LOG_FUNCTION(this);
    std::vector<uint64_t> rates;
    std::vector<Time> delays;
    uint32_t maxFrame = 0;
    for (const auto& dev : m_ports)
    {
        rates.push_back(dev->GetDataRate().GetBitRate());
        delays.push_back(dev->GetRoceChannel()->GetDelay());
        maxFrame = std::max<uint32_t>(maxFrame, dev->GetMtu() + roce::ETHERNET_HEADER_BYTES);
    }
    m_mmu->Configure(rates, delays, maxFrame);
}

uint32_t
RoceSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

uint64_t
RoceSwitch::GetEcmpSalt() const
{
    return m_salt;
}

uint64_t
RoceSwitch::GetIntStamps() const
{
    return m_intStamps;
}

uint64_t
RoceSwitch::GetDrops(DropReason reason) const
{
    return m_drops[reason];
}

uint64_t
RoceSwitch::GetTotalDrops() const
{
    uint64_t total = 0;
    for (uint64_t d : m_drops)
    {
        total += d;
    }
    return total;
}

uint64_t
RoceSwitch::GetEcnMarks() const
{
    return m_ecnMarks;
}

const std::vector<Ptr<PfcWatchdog>>&
RoceSwitch::GetPfcWatchdogs() const
{
    return m_watchdogs;
}

uint64_t
RoceSwitch::GetEcnMarks(uint32_t port) const
{
    return port < m_ecnMarksPerPort.size() ? m_ecnMarksPerPort[port] : 0;
}

uint64_t
RoceSwitch::GetPfcPausesSent() const
{
    return m_pausesSent;
}

uint32_t
RoceSwitch::GetMaxQueueBytes() const
{
    return m_maxQueueBytes;
}

int64_t
RoceSwitch::AssignStreams(int64_t stream)
{
    m_saltRng->SetStream(stream);
    if (m_saltAutomatic)
    {
        m_salt = DrawSalt(); // the salt follows the stream, so seeds move the ECMP spread
    }
    int64_t used = 1;
    if (m_mmu)
    {
        used += m_mmu->AssignStreams(stream + used);
    }
    return used;
}

} // namespace ns3
