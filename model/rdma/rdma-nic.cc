// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-nic.h"

#include "roce-dcqcn.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/bth-header.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/roce-channel.h"
#include "ns3/simulator.h"
#include "ns3/type-id.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNic")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<RdmaNic>()
            .AddAttribute("Mtu",
                          "RDMA payload bytes per packet (the path MTU of the queue pairs).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RdmaNic::m_mtu),
                          MakeUintegerChecker<uint32_t>(1, 9000))
            .AddAttribute("IntHopCapacity",
                          "Hop records the INT header of a data packet has room for, when "
                          "the congestion control asks for in-band telemetry (HPCC); switches "
                          "past that many leave no record. The HPCC simulator reserves 5.",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RdmaNic::m_intHopCapacity),
                          MakeUintegerChecker<uint8_t>(1, int_telemetry::MAX_HOPS))
            .AddAttribute("AckInterval",
                          "The receiver acknowledges every this many in-order packets (and "
                          "always at the end of a message).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&RdmaNic::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1, 65536))
            .AddAttribute("AckCoalescingTime",
                          "An in-order packet arriving this long after the previous ACK is "
                          "acknowledged at once, whatever AckInterval says.",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&RdmaNic::m_ackCoalescingTime),
                          MakeTimeChecker(Seconds(0), Seconds(1)))
            .AddAttribute("CnpInterval",
                          "Minimum time between two CNPs the receiver sends for one QP.",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&RdmaNic::m_cnpInterval),
                          MakeTimeChecker(Seconds(0), Seconds(1)))
            .AddAttribute("RetransmitTimeout",
                          "Initial retransmission timeout; doubles on each expiry.",
                          TimeValue(MilliSeconds(4)),
                          MakeTimeAccessor(&RdmaNic::m_rto),
                          MakeTimeChecker(NanoSeconds(100), Seconds(100)))
            .AddAttribute("MaxRetransmitTimeout",
                          "Ceiling of the retransmission timeout backoff.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&RdmaNic::m_rtoMax),
                          MakeTimeChecker(NanoSeconds(100), Seconds(1000)))
            .AddAttribute("DataPriority",
                          "Priority (PCP class, DSCP = 8 × priority) of data packets.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&RdmaNic::m_dataPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("ControlPriority",
                          "Priority of ACK, NAK and CNP packets.",
                          UintegerValue(6),
                          MakeUintegerAccessor(&RdmaNic::m_controlPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("EcnCapable",
                          "Send data as ECT(0) so switches can mark it.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_ecnCapable),
                          MakeBooleanChecker())
            .AddAttribute("CongestionControl",
                          "Congestion control created for each queue pair.",
                          TypeIdValue(RoceDcqcn::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaNic::m_ccTypeId),
                          MakeTypeIdChecker())
            .AddAttribute("ReceiveRate",
                          "Rate at which the host takes received frames out of the NIC's "
                          "receive buffer (PCIe, host memory); 0: as fast as they arrive, "
                          "no buffer, never a pause.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&RdmaNic::SetReceiveRate, &RdmaNic::GetReceiveRate),
                          MakeDataRateChecker())
            .AddAttribute("ReceiveBufferSize",
                          "Bytes the receive buffer holds (with ReceiveRate > 0). The NIC "
                          "pauses its switch port (PFC XOFF) when the buffer would leave less "
                          "than the headroom a pause needs to take effect (two cable delays "
                          "and two frames at line rate), and resumes two frames below that.",
                          UintegerValue(1 << 20),
                          MakeUintegerAccessor(&RdmaNic::SetReceiveBufferSize,
                                               &RdmaNic::GetReceiveBufferSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 30))
            .AddAttribute("ReceivePauseQuanta",
                          "Pause time of the NIC's XOFF frames in quanta of 512 bit times; "
                          "re-sent at half of it while the buffer stays full.",
                          UintegerValue(65535),
                          MakeUintegerAccessor(&RdmaNic::SetReceivePauseQuanta,
                                               &RdmaNic::GetReceivePauseQuanta),
                          MakeUintegerChecker<uint16_t>(1, 65535))
            .AddTraceSource("DataTx",
                            "A data packet left for the port.",
                            MakeTraceSourceAccessor(&RdmaNic::m_dataTxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("CnpSent",
                            "The receiver side of a queue pair sent a CNP.",
                            MakeTraceSourceAccessor(&RdmaNic::m_cnpSentTrace),
                            "ns3::RdmaNic::QueuePairTracedCallback");
    return tid;
}

RdmaNic::RdmaNic()
    : m_rxBuffer(CreateObject<RdmaReceiveBuffer>()),
      m_portRng(CreateObject<UniformRandomVariable>())
{
    // The buffer releases the frames the host takes to the dispatch; it lives no longer
    // than the NIC (DoDispose), so it holds no reference to it.
    m_rxBuffer->SetReleaseCallback(MakeCallback(&RdmaNic::Dispatch, this));
}

RdmaNic::~RdmaNic() = default;

void
RdmaNic::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_wakeEvent.Cancel();
    m_rxBuffer->Dispose();
    for (auto& qp : m_qps)
    {
        qp->Dispose();
    }
    m_qps.clear();
    m_fastForward = nullptr;
    if (m_device)
    {
        // The device's callbacks hold this NIC: release them with the device.
        m_device->SetRoceReceiveCallback(RoceNetDevice::RxCallback());
        m_device->SetPullCallback(RoceNetDevice::PullCallback());
    }
    m_device = nullptr;
    m_udpDispatch.Clear();
    Object::DoDispose();
}

void
RdmaNic::SetDevice(Ptr<RoceNetDevice> device)
{
    NS_LOG_FUNCTION(this);
    uint32_t largestIpPacket = roce::IPV4_HEADER_BYTES + roce::UDP_HEADER_BYTES + roce::BTH_BYTES +
                               roce::RETH_BYTES + roce::IMMEDIATE_BYTES + m_mtu + roce::ICRC_BYTES;
    NS_ABORT_MSG_IF(largestIpPacket > device->GetMtu(),
                    "RdmaNic: Mtu " << m_mtu << " B of RDMA payload needs an Ethernet MTU of "
                                    << largestIpPacket << " B (IPv4 + UDP + BTH + RETH + "
                                    << "immediate + ICRC), but the port's Mtu is "
                                    << device->GetMtu() << " B");
    m_device = device;
    m_rxBuffer->SetDevice(device);
    m_device->SetRoceReceiveCallback(MakeCallback(&RdmaNic::Receive, Ptr<RdmaNic>(this)));
    m_device->SetPullCallback(MakeCallback(&RdmaNic::PullData, Ptr<RdmaNic>(this)));
    // The NIC lives on its host: Simulator::Destroy() disposes the node and with it the
    // NIC, which releases its queue pairs and the device's callbacks. A second NIC on the
    // same node (a multi-port host) is disposed by the simulator's end directly.
    Ptr<Node> node = device->GetNode();
    if (node && !node->GetObject<RdmaNic>())
    {
        NS_LOG_LOGIC("NIC " << m_address << " aggregated to node " << node->GetId());
        node->AggregateObject(this);
    }
    else
    {
        NS_LOG_LOGIC("NIC " << m_address << " disposed at Simulator::Destroy");
        Simulator::ScheduleDestroy(&RdmaNic::Dispose, Ptr<RdmaNic>(this));
    }
}

std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>
RdmaNic::Connect(Ptr<RdmaNic> a, Ptr<RdmaNic> b)
{
    NS_LOG_FUNCTION(a << b);
    Ptr<RdmaQueuePair> qa = a->CreateQueuePair();
    Ptr<RdmaQueuePair> qb = b->CreateQueuePair();
    qa->Connect(b->GetAddress(), qb->GetQpn(), qb->GetInitialPsn());
    qb->Connect(a->GetAddress(), qa->GetQpn(), qa->GetInitialPsn());
    qa->SetPeerQueuePair(qb);
    qb->SetPeerQueuePair(qa);
    NS_LOG_LOGIC("connected " << a->GetAddress() << " QP " << qa->GetQpn() << " <-> "
                              << b->GetAddress() << " QP " << qb->GetQpn());
    return {qa, qb};
}

Ptr<RoceNetDevice>
RdmaNic::GetDevice() const
{
    NS_LOG_FUNCTION(this);
    return m_device;
}

void
RdmaNic::SetAddress(Ipv4Address address)
{
    NS_LOG_FUNCTION(this);
    m_address = address;
}

Ipv4Address
RdmaNic::GetAddress() const
{
    NS_LOG_FUNCTION(this);
    return m_address;
}

Ptr<RdmaQueuePair>
RdmaNic::CreateQueuePair()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(!m_device, "RdmaNic::CreateQueuePair: attach a device first");
    NS_ABORT_MSG_IF(!m_ccTypeId.IsChildOf(RoceCongestionControl::GetTypeId()),
                    "RdmaNic: CongestionControl " << m_ccTypeId.GetName()
                                                  << " is not a RoceCongestionControl");
    ObjectFactory factory(m_ccTypeId.GetName());
    Ptr<RoceCongestionControl> cc = factory.Create<RoceCongestionControl>();
    cc->Start(m_device->GetDataRate().GetBitRate());
    auto qp = CreateObject<RdmaQueuePair>();
    uint32_t qpn = FIRST_QPN + static_cast<uint32_t>(m_qps.size());
    const QpIdentity identity = DrawQpIdentity();
    qp->Bind(this, MakeQpConfig(), qpn, identity.srcPort, cc);
    qp->SetInitialPsn(identity.initialPsn);
    if (m_fastForward)
    {
        qp->SetFastForward(PeekPointer(m_fastForward));
    }
    m_qps.push_back(qp);
    m_isActive.push_back(false);
    return qp;
}

RdmaNic::QpIdentity
RdmaNic::DrawQpIdentity()
{
    NS_LOG_FUNCTION(this);
    // UDP source port = ECMP entropy, drawn per QP from the ephemeral range; the first
    // PSN is random, as RC connection setup makes it.
    QpIdentity identity;
    identity.srcPort = static_cast<uint16_t>(m_portRng->GetInteger(49152, 65535));
    identity.initialPsn = static_cast<uint32_t>(m_portRng->GetInteger(0, RdmaQueuePair::PSN_MASK));
    return identity;
}

RdmaQpConfig
RdmaNic::MakeQpConfig() const
{
    RdmaQpConfig config;
    config.payloadMtu = m_mtu;
    config.ackInterval = m_ackInterval;
    config.ackCoalescingTime = m_ackCoalescingTime;
    config.cnpInterval = m_cnpInterval;
    config.rto = m_rto;
    config.rtoMax = m_rtoMax;
    config.intHopCapacity = m_intHopCapacity;
    return config;
}

void
RdmaNic::SetFastForward(Ptr<RdmaFastForward> controller)
{
    NS_LOG_FUNCTION(this << controller);
    m_fastForward = controller;
    for (const Ptr<RdmaQueuePair>& qp : m_qps)
    {
        qp->SetFastForward(PeekPointer(controller));
    }
}

void
RdmaNic::CountSkippedPackets(uint64_t packets)
{
    NS_LOG_FUNCTION(this << packets);
    m_dataPacketsSent += packets;
}

uint32_t
RdmaNic::GetNQueuePairs() const
{
    NS_LOG_FUNCTION(this);
    return static_cast<uint32_t>(m_qps.size());
}

Ptr<RdmaQueuePair>
RdmaNic::GetQueuePair(uint32_t index) const
{
    NS_LOG_FUNCTION(this);
    return m_qps.at(index);
}

uint32_t
RdmaNic::GetPayloadMtu() const
{
    NS_LOG_FUNCTION(this);
    return m_mtu;
}

uint8_t
RdmaNic::GetIntHopCapacity() const
{
    NS_LOG_FUNCTION(this);
    return m_intHopCapacity;
}

uint32_t
RdmaNic::GetAckInterval() const
{
    NS_LOG_FUNCTION(this);
    return m_ackInterval;
}

Time
RdmaNic::GetAckCoalescingTime() const
{
    NS_LOG_FUNCTION(this);
    return m_ackCoalescingTime;
}

Time
RdmaNic::GetCnpInterval() const
{
    NS_LOG_FUNCTION(this);
    return m_cnpInterval;
}

uint8_t
RdmaNic::GetDataPriority() const
{
    return m_dataPriority;
}

bool
RdmaNic::IsEcnCapable() const
{
    return m_ecnCapable;
}

TypeId
RdmaNic::GetCongestionControlType() const
{
    return m_ccTypeId;
}

Time
RdmaNic::GetRetransmitTimeout() const
{
    NS_LOG_FUNCTION(this);
    return m_rto;
}

Time
RdmaNic::GetMaxRetransmitTimeout() const
{
    NS_LOG_FUNCTION(this);
    return m_rtoMax;
}

uint64_t
RdmaNic::GetRxUnknownQpDrops() const
{
    NS_LOG_FUNCTION(this);
    return m_rxUnknownQp;
}

uint64_t
RdmaNic::GetDataPacketsSent() const
{
    NS_LOG_FUNCTION(this);
    return m_dataPacketsSent;
}

int64_t
RdmaNic::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this);
    m_portRng->SetStream(stream);
    return 1;
}

void
RdmaNic::AddIpHeaders(Ptr<Packet> packet,
                      Ipv4Address dst,
                      uint16_t srcPort,
                      bool control,
                      uint16_t dstPort)
{
    NS_LOG_FUNCTION(this);
    UdpHeader udp;
    udp.SetSourcePort(srcPort);
    udp.SetDestinationPort(dstPort);
    packet->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(m_address);
    ip.SetDestination(dst);
    ip.SetProtocol(roce::IP_PROTOCOL_UDP);
    ip.SetTtl(64);
    ip.SetPayloadSize(packet->GetSize());
    ip.SetIdentification(m_ipId++);
    ip.SetDontFragment();
    uint8_t priority = control ? m_controlPriority : m_dataPriority;
    uint8_t ecn = (!control && m_ecnCapable) ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT;
    ip.SetTos(static_cast<uint8_t>((priority << 3) << 2 | ecn));
    ip.EnableChecksum();
    packet->AddHeader(ip);
    if (!m_nextHopKnown)
    {
        m_nextHopMac =
            Mac48Address::ConvertFrom(m_device->GetRoceChannel()->GetPeer(m_device)->GetAddress());
        m_nextHopKnown = true;
    }
    EthernetHeader eth(false);
    eth.SetSource(Mac48Address::ConvertFrom(m_device->GetAddress()));
    eth.SetDestination(m_nextHopMac);
    eth.SetLengthType(roce::ETHERTYPE_IPV4);
    packet->AddHeader(eth);
}

void
RdmaNic::SendControl(Ptr<Packet> packet)
{
    NS_LOG_FUNCTION(this);
    m_device->EnqueueControl(packet, m_controlPriority);
}

void
RdmaNic::NotifyHasData(uint32_t qpn)
{
    NS_LOG_FUNCTION(this);
    uint32_t index = qpn - FIRST_QPN;
    if (!m_isActive[index])
    {
        m_isActive[index] = true;
        m_active.push_back(index);
    }
    m_device->NotifyDataAvailable();
}

void
RdmaNic::NotifyCnpSent(Ptr<RdmaQueuePair> qp)
{
    NS_LOG_FUNCTION(this);
    m_cnpSentTrace(qp);
}

Ptr<Packet>
RdmaNic::PullData(uint8_t pausedMask)
{
    if ((pausedMask >> m_dataPriority) & 1)
    {
        return nullptr; // the device pulls again when the pause ends
    }
    const Time now = Simulator::Now();
    Time earliest = Time::Max();
    // Each queue pair is looked at once at most: the front is served; one without data
    // leaves the list, one waiting for its pacing goes to the back, keeping its turn order.
    for (std::size_t n = m_active.size(); n > 0; --n)
    {
        const uint32_t index = m_active.front();
        m_active.pop_front();
        Ptr<RdmaQueuePair>& qp = m_qps[index];
        if (!qp->HasDataToSend())
        {
            // Nothing to send until an ACK, NAK or timeout: leave the active list.
            m_isActive[index] = false;
            continue;
        }
        m_active.push_back(index);
        Time ready = qp->GetNextSendTime();
        if (ready > now)
        {
            earliest = std::min(earliest, ready);
            continue;
        }
        Ptr<Packet> packet = qp->BuildNextDataPacket();
        ++m_dataPacketsSent;
        m_dataTxTrace(packet);
        return packet;
    }
    if (earliest != Time::Max() && (m_wakeEvent.IsExpired() || earliest < m_wakeAt))
    {
        m_wakeEvent.Cancel();
        m_wakeAt = earliest;
        m_wakeEvent = Simulator::Schedule(earliest - now, &RdmaNic::Wake, this);
    }
    return nullptr;
}

void
RdmaNic::Wake()
{
    m_device->NotifyDataAvailable();
}

void
RdmaNic::SetUdpReceiveCallback(uint16_t udpPort, UdpReceiveCallback callback)
{
    NS_LOG_FUNCTION(this << udpPort);
    NS_ABORT_MSG_IF(udpPort == roce::UDP_DEST_PORT,
                    "RdmaNic::SetUdpReceiveCallback: port " << udpPort << " is RoCEv2's");
    m_udpDispatch.SetReceiveCallback(udpPort, callback);
}

void
RdmaNic::Receive(Ptr<RoceNetDevice>, Ptr<Packet> packet, const RoceFrameInfo& info)
{
    if (!m_rxBuffered)
    {
        Dispatch(packet, info); // the host keeps up: no buffer
        return;
    }
    m_rxBuffer->Enqueue(packet, info);
}

uint64_t
RdmaNic::GetReceiveDrops() const
{
    NS_LOG_FUNCTION(this);
    return m_rxBuffer->GetDrops();
}

uint32_t
RdmaNic::GetReceiveBufferPeak() const
{
    NS_LOG_FUNCTION(this);
    return m_rxBuffer->GetPeak();
}

void
RdmaNic::SetReceiveRate(DataRate rate)
{
    NS_LOG_FUNCTION(this << rate);
    m_rxBuffer->SetRate(rate);
    m_rxBuffered = rate.GetBitRate() != 0;
}

DataRate
RdmaNic::GetReceiveRate() const
{
    NS_LOG_FUNCTION(this);
    return m_rxBuffer->GetRate();
}

void
RdmaNic::SetReceiveBufferSize(uint32_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    m_rxBuffer->SetSize(bytes);
}

uint32_t
RdmaNic::GetReceiveBufferSize() const
{
    NS_LOG_FUNCTION(this);
    return m_rxBuffer->GetSize();
}

void
RdmaNic::SetReceivePauseQuanta(uint16_t quanta)
{
    NS_LOG_FUNCTION(this << quanta);
    m_rxBuffer->SetPauseQuanta(quanta);
}

uint16_t
RdmaNic::GetReceivePauseQuanta() const
{
    NS_LOG_FUNCTION(this);
    return m_rxBuffer->GetPauseQuanta();
}

void
RdmaNic::Dispatch(Ptr<Packet> packet, const RoceFrameInfo& info)
{
    if (info.kind != RoceFrameInfo::ROCE || info.dstIp != m_address.Get())
    {
        if (m_udpDispatch.Deliver(packet, info, m_address.Get()))
        {
            return;
        }
        // Not RoCE for this NIC: the node's protocol stack, if it has one, takes ARP,
        // IPv4 that is not RoCE and other EtherTypes (RoCE to another address is lost).
        if (info.kind == RoceFrameInfo::ROCE || !m_device->DeliverUp(packet))
        {
            ++m_rxUnknownQp;
        }
        return;
    }
    uint32_t index = info.destQp - FIRST_QPN;
    if (info.destQp < FIRST_QPN || index >= m_qps.size())
    {
        ++m_rxUnknownQp;
        return;
    }
    Ptr<RdmaQueuePair>& qp = m_qps[index];
    const uint64_t* telemetry = nullptr;
    if (info.intOffset != 0)
    {
        // The hop records, out of the frame's bytes (the headers in front of them are
        // at most Ethernet + IPv4 with options + UDP).
        constexpr uint32_t MAX_OFFSET = roce::ETHERNET_HEADER_BYTES + 60 + roce::UDP_HEADER_BYTES;
        uint8_t buf[MAX_OFFSET + int_telemetry::FIXED_BYTES +
                    int_telemetry::MAX_HOPS * int_telemetry::HOP_BYTES];
        const uint32_t start = info.intOffset + int_telemetry::FIXED_BYTES;
        packet->CopyData(buf, start + info.intHops * int_telemetry::HOP_BYTES);
        for (uint8_t i = 0; i < info.intHops; ++i)
        {
            uint64_t word = 0;
            for (uint32_t b = 0; b < int_telemetry::HOP_BYTES; ++b)
            {
                word = word << 8 | buf[start + i * int_telemetry::HOP_BYTES + b];
            }
            m_rxIntWords[i] = word;
        }
        telemetry = m_rxIntWords.data();
    }
    switch (info.opcode)
    {
    case BthHeader::RC_ACKNOWLEDGE:
        qp->ReceiveAck(info, telemetry);
        break;
    case BthHeader::CNP:
        qp->ReceiveCnp();
        break;
    default:
        qp->ReceiveData(info, telemetry);
        break;
    }
}

} // namespace ns3
