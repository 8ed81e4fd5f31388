// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-queue-pair.h"

#include "rdma-fast-forward.h"
#include "rdma-nic.h"

#include "ns3/abort.h"
#include "ns3/aeth-header.h"
#include "ns3/bth-header.h"
#include "ns3/cnp-header.h"
#include "ns3/immediate-data-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/reth-header.h"
#include "ns3/roce-frame-info.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaQueuePair");

/// \return this file's log component, for the class's other files (responder, skip)
LogComponent&
RdmaQueuePairLogComponent()
{
    return g_log;
}

NS_OBJECT_ENSURE_REGISTERED(RdmaQueuePair);

TypeId
RdmaQueuePair::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaQueuePair")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RdmaQueuePair>();
    return tid;
}

RdmaQueuePair::RdmaQueuePair() = default;
RdmaQueuePair::~RdmaQueuePair() = default;

void
RdmaQueuePair::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_rtoEvent.Cancel();
    if (m_skip)
    {
        RestartWindow();
        m_skip->controller->NotifyGone(this);
        m_skip = nullptr;
    }
    m_peerQp = nullptr;
    m_nic = nullptr;
    m_services = nullptr;
    m_cc = nullptr;
    m_sendComplete = MessageCallback();
    m_receiveComplete = MessageCallback();
    Object::DoDispose();
}

void
RdmaQueuePair::Bind(Ptr<RdmaNic> nic,
                    const RdmaQpConfig& config,
                    uint32_t qpn,
                    uint16_t udpSourcePort,
                    Ptr<RoceCongestionControl> cc)
{
    NS_LOG_FUNCTION(this);
    m_nic = nic;
    m_services = PeekPointer(nic);
    m_config = config;
    m_qpn = qpn;
    m_udpSourcePort = udpSourcePort;
    m_cc = cc;
    m_cc->TraceConnectWithoutContext("RateChange",
                                     MakeCallback(&RdmaQueuePair::OnRateChange, this));
    m_needs = m_cc->GetSignalNeeds();
    if (m_needs.intTelemetry)
    {
        m_telemetry = std::make_unique<Telemetry>();
    }
    m_rto = m_config.rto;
}

void
RdmaQueuePair::Connect(Ipv4Address peer, uint32_t peerQpn, uint32_t peerInitialPsn)
{
    NS_LOG_FUNCTION(this);
    m_peer = peer;
    m_peerQpn = peerQpn;
    m_peerInitialPsn = peerInitialPsn & PSN_MASK;
}

void
RdmaQueuePair::SetInitialPsn(uint32_t psn)
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_psnAssigned != 0, "RdmaQueuePair::SetInitialPsn: only before the first post");
    m_localInitialPsn = psn & PSN_MASK;
}

uint32_t
RdmaQueuePair::GetInitialPsn() const
{
    NS_LOG_FUNCTION(this);
    return m_localInitialPsn;
}

uint64_t
RdmaQueuePair::PostWrite(uint64_t bytes)
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(bytes == 0, "RdmaQueuePair::PostWrite: a message needs at least one byte");
    NS_ABORT_MSG_IF(!m_services, "RdmaQueuePair::PostWrite: the queue pair is not bound to a NIC");
    uint32_t mtu = m_config.payloadMtu;
    Message msg;
    msg.id = m_nextMessageId++;
    msg.bytes = bytes;
    msg.firstPsn = m_psnAssigned;
    msg.endPsn = m_psnAssigned + (bytes + mtu - 1) / mtu;
    if (m_sndUna >= m_psnAssigned && m_psnAssigned > 0)
    {
        m_cc->OnActive(); // was idle since its last message was acknowledged
    }
    m_psnAssigned = msg.endPsn;
    m_messages.push_back(msg);
    m_bytesPosted += bytes;
    if (m_skip)
    {
        m_skip->controller->NotifyActive(this); // a new flow: no skip goes on past it
    }
    m_services->NotifyHasData(m_qpn);
    return msg.id;
}

void
RdmaQueuePair::SetSendCompleteCallback(MessageCallback cb)
{
    NS_LOG_FUNCTION(this);
    m_sendComplete = cb;
}

void
RdmaQueuePair::SetReceiveCompleteCallback(MessageCallback cb)
{
    NS_LOG_FUNCTION(this);
    m_receiveComplete = cb;
}

bool
RdmaQueuePair::HasDataToSend() const
{
    NS_LOG_FUNCTION(this);
    if (m_sndNxt >= m_psnAssigned)
    {
        return false;
    }
    if (m_skip && m_skip->skipping)
    {
        return true; // not before the skip ends (GetNextSendTime), in its place in the round
    }
    uint64_t window = m_cc->GetWindowBytes();
    return window == 0 || OutstandingPackets() * m_config.payloadMtu < window;
}

Time
RdmaQueuePair::GetNextSendTime() const
{
    NS_LOG_FUNCTION(this);
    if (m_skip && m_skip->skipping)
    {
        return Time::Max(); // EndSkip tells the NIC
    }
    // Derived from the current rate, so a rate increase shortens a gap already started.
    double rate = m_cc->GetRateBps();
    Time next = m_lastSendTime; // the port's serialization is the only pacing at line rate
    if (rate < static_cast<double>(m_cc->GetLineRateBps()))
    {
        next += PicoSeconds(static_cast<int64_t>(m_lastSendWireBytes * 8.0 * 1e12 / rate));
    }
    if (m_skip && next < m_skip->resumeAt)
    {
        next = m_skip->resumeAt; // the slot after the last skipped packet
    }
    return next;
}

void
RdmaQueuePair::OnRateChange(double oldBps, double newBps)
{
    if (m_skip)
    {
        Disturb();
    }
    if (newBps > oldBps && m_sndNxt < m_psnAssigned)
    {
        m_services->NotifyHasData(m_qpn); // the pacer may allow the next packet sooner
    }
}

Ptr<Packet>
RdmaQueuePair::BuildNextDataPacket()
{
    NS_LOG_FUNCTION(this);
    if (m_skip && m_sndNxt == m_skip->from && m_skip->from != m_skip->to)
    {
        m_sndNxt = m_skip->to; // going back N: the skipped packets count as delivered
    }
    // Find the message holding m_sndNxt; after go-back-N the cursor moves backwards.
    while (m_sendCursor > 0 && m_messages[m_sendCursor].firstPsn > m_sndNxt)
    {
        --m_sendCursor;
    }
    while (m_messages[m_sendCursor].endPsn <= m_sndNxt)
    {
        ++m_sendCursor;
    }
    const Message& msg = m_messages[m_sendCursor];
    const uint32_t mtu = m_config.payloadMtu;
    const uint64_t offset = (m_sndNxt - msg.firstPsn) * mtu;
    const uint32_t payload = static_cast<uint32_t>(std::min<uint64_t>(mtu, msg.bytes - offset));
    // Payload and the 4 ICRC bytes (filled for real only when captured, see RoceHelper).
    Ptr<Packet> p = Create<Packet>(payload + roce::ICRC_BYTES);
    AddDataHeaders(p, msg, LocateInWrite(msg, offset, payload));
    OnDataPacketBuilt(p);
    return p;
}

RdmaQueuePair::WriteSegment
RdmaQueuePair::LocateInWrite(const Message& msg, uint64_t offset, uint32_t payload) const
{
    // WRITE operations are whole multiples of the MTU, at most MAX_WRITE_BYTES.
    const uint32_t mtu = m_config.payloadMtu;
    const uint64_t opSize = (MAX_WRITE_BYTES / mtu) * mtu;
    WriteSegment seg;
    seg.opStart = offset / opSize * opSize;
    seg.opBytes = std::min(opSize, msg.bytes - seg.opStart);
    const bool firstOfOp = offset == seg.opStart;
    const bool lastOfOp = offset + payload == seg.opStart + seg.opBytes;
    const bool lastOp = seg.opStart + seg.opBytes == msg.bytes;
    seg.lastPacket = lastOfOp && lastOp;
    if (firstOfOp && lastOfOp)
    {
        seg.opcode =
            lastOp ? BthHeader::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE : BthHeader::RC_RDMA_WRITE_ONLY;
    }
    else if (firstOfOp)
    {
        seg.opcode = BthHeader::RC_RDMA_WRITE_FIRST;
    }
    else if (lastOfOp)
    {
        seg.opcode =
            lastOp ? BthHeader::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE : BthHeader::RC_RDMA_WRITE_LAST;
    }
    else
    {
        seg.opcode = BthHeader::RC_RDMA_WRITE_MIDDLE;
    }
    return seg;
}

void
RdmaQueuePair::AddDataHeaders(Ptr<Packet> p, const Message& msg, const WriteSegment& segment)
{
    if (OpcodeHasImmediate(segment.opcode))
    {
        ImmediateDataHeader imm;
        imm.SetImmediate(static_cast<uint32_t>(msg.id));
        p->AddHeader(imm);
    }
    if (OpcodeHasReth(segment.opcode))
    {
        RethHeader reth;
        reth.SetVirtualAddress(segment.opStart);
        reth.SetRKey(m_peerQpn);
        reth.SetDmaLength(static_cast<uint32_t>(segment.opBytes));
        p->AddHeader(reth);
    }
    BthHeader bth;
    bth.SetOpcode(segment.opcode);
    bth.SetDestQp(m_peerQpn);
    bth.SetPsn(static_cast<uint32_t>((m_sndNxt + m_localInitialPsn) & PSN_MASK));
    // Ask for an ACK at once at the end of the message, and when this packet fills a
    // window smaller than AckInterval packets: nothing more leaves until an ACK, and the
    // receiver would wait for more packets to coalesce (until the coalescing time, if a
    // later packet comes at all).
    const uint64_t mtu = m_config.payloadMtu;
    const uint64_t window = m_cc->GetWindowBytes();
    const bool fillsWindow = window != 0 &&
                             window < static_cast<uint64_t>(m_config.ackInterval) * mtu &&
                             (OutstandingPackets() + 1) * mtu >= window;
    bth.SetAckRequest(segment.lastPacket || fillsWindow);
    p->AddHeader(bth);
    if (m_needs.intTelemetry)
    {
        IntHeader telemetry;
        telemetry.SetCapacity(m_config.intHopCapacity);
        p->AddHeader(telemetry);
        m_services->AddIpHeaders(p, m_peer, m_udpSourcePort, false, int_telemetry::UDP_PORT);
    }
    else
    {
        m_services->AddIpHeaders(p, m_peer, m_udpSourcePort, false, roce::UDP_DEST_PORT);
    }
}

void
RdmaQueuePair::OnDataPacketBuilt(Ptr<const Packet> p)
{
    if (m_needs.rttPerAck)
    {
        // Sender-side timestamp of this PSN (a retransmission restamps it).
        const uint64_t index = m_sndNxt - m_sendTimesBase;
        if (index < m_sendTimes.size())
        {
            m_sendTimes[index] = Simulator::Now();
        }
        else
        {
            m_sendTimes.push_back(Simulator::Now());
        }
    }
    const bool retransmission = m_sndNxt < m_sndMax;
    if (m_skip)
    {
        TrackSteadiness(p->GetSize(), retransmission); // before m_lastSendTime moves
        if (!retransmission && m_sndNxt % m_config.ackInterval == 0)
        {
            m_skip->probes.emplace_back(m_sndNxt, Simulator::Now());
        }
    }
    if (retransmission)
    {
        ++m_packetsRetransmitted;
    }
    else if (!m_rttProbeActive)
    {
        m_rttProbeActive = true;
        m_rttProbePsn = m_sndNxt;
        m_rttProbeSent = Simulator::Now();
    }
    // The timer measures silence since the last progress, not since the last send:
    // start it when data goes out with nothing outstanding; ACK progress restarts it.
    const bool nothingOutstanding = m_sndUna >= m_sndMax;
    ++m_sndNxt;
    m_sndMax = std::max(m_sndMax, m_sndNxt);
    ++m_packetsSent;

    m_lastSendTime = Simulator::Now();
    m_lastSendWireBytes = roce::WireBytes(p->GetSize());
    m_cc->OnSend(m_lastSendWireBytes);
    if (nothingOutstanding)
    {
        ArmRetransmitTimer();
    }
}

void
RdmaQueuePair::ArmRetransmitTimer()
{
    // Lazy timer: moving the deadline costs nothing; the pending event re-arms itself.
    m_rtoDeadline = Simulator::Now() + m_rto;
    if (m_rtoEvent.IsExpired())
    {
        m_rtoEvent = Simulator::Schedule(m_rto, &RdmaQueuePair::OnRetransmitTimer, this);
    }
}

void
RdmaQueuePair::OnRetransmitTimer()
{
    if (m_sndUna >= m_sndMax)
    {
        return; // nothing outstanding
    }
    Time now = Simulator::Now();
    if (now < m_rtoDeadline)
    {
        m_rtoEvent =
            Simulator::Schedule(m_rtoDeadline - now, &RdmaQueuePair::OnRetransmitTimer, this);
        return;
    }
    NS_LOG_INFO("QP " << m_qpn << ": RTO fired, go back to PSN " << m_sndUna << " ("
                      << m_sndMax - m_sndUna << " packets outstanding), next RTO "
                      << std::min(m_rto * 2, m_config.rtoMax).As(Time::US));
    ++m_timeouts;
    if (m_skip)
    {
        Disturb();
    }
    m_sndNxt = m_sndUna;
    m_rttProbeActive = false;
    m_rto = std::min(m_rto * 2, m_config.rtoMax);
    m_cc->OnTimeout();
    m_rtoDeadline = now + m_rto;
    m_rtoEvent = Simulator::Schedule(m_rto, &RdmaQueuePair::OnRetransmitTimer, this);
    m_services->NotifyHasData(m_qpn);
}

void
RdmaQueuePair::CompleteAckedMessages()
{
    while (!m_messages.empty() && m_messages.front().endPsn <= m_sndUna)
    {
        Message msg = m_messages.front();
        m_messages.pop_front();
        if (m_sendCursor > 0)
        {
            --m_sendCursor;
        }
        m_bytesAcked += msg.bytes;
        if (!m_sendComplete.IsNull())
        {
            m_sendComplete(this, msg.id, msg.bytes);
        }
    }
}

void
RdmaQueuePair::ReceiveAck(const RoceFrameInfo& info, const uint64_t* telemetry)
{
    NS_LOG_FUNCTION(this);
    bool isNak =
        (info.aethSyndrome & AethHeader::SYNDROME_TYPE_MASK) == AethHeader::SYNDROME_TYPE_NAK;
    uint64_t newUna;
    if (isNak)
    {
        // The NAK names the first missing PSN: everything before it arrived.
        if (!ExpandPsn(info.psn, m_localInitialPsn, m_sndUna, newUna) || newUna > m_sndMax)
        {
            return;
        }
        ++m_naksReceived;
    }
    else
    {
        uint64_t acked;
        if (!ExpandPsn(info.psn, m_localInitialPsn, m_sndUna, acked) || acked + 1 > m_sndMax)
        {
            return; // duplicate or stale
        }
        newUna = acked + 1;
    }
    if (m_skip && m_skip->from != m_skip->to && newUna >= m_skip->from)
    {
        // Everything before the skipped packets arrived: they count as acknowledged.
        newUna = std::max(newUna, m_skip->to);
        m_skip->from = m_skip->to;
    }
    uint64_t ackedPackets = newUna - m_sndUna;
    uint64_t ackedBytesBefore = m_bytesAcked;
    m_sndUna = newUna;
    if (ackedPackets > 0)
    {
        m_rto = m_config.rto; // progress ends the backoff
        m_rtoDeadline = Simulator::Now() + m_rto;
        if (m_sndUna >= m_sndMax && !m_rtoEvent.IsExpired())
        {
            // Nothing outstanding: take the timer out of the schedule so an idle
            // simulation ends when the traffic does.
            Simulator::Remove(m_rtoEvent);
        }
        if (m_sndUna >= m_psnAssigned)
        {
            m_cc->OnIdle();
            if (m_skip)
            {
                RestartWindow();
                m_skip->controller->NotifyIdle(this);
            }
        }
    }
    CompleteAckedMessages();
    RoceAckSignal signal;
    signal.newlyAckedBytes = m_bytesAcked - ackedBytesBefore;
    FillAckSignal(signal, info, telemetry, ackedPackets);
    if (m_skip)
    {
        // The newest probe this ACK covers times the path; the older ones leave.
        Time rtt;
        std::vector<std::pair<uint64_t, Time>>& probes = m_skip->probes;
        std::size_t& head = m_skip->probesHead;
        while (head < probes.size() && probes[head].first < m_sndUna)
        {
            rtt = Simulator::Now() - probes[head].second;
            ++head;
        }
        if (head == probes.size())
        {
            probes.clear();
            head = 0;
        }
        else if (head >= 64 && 2 * head >= probes.size())
        {
            probes.erase(probes.begin(), probes.begin() + static_cast<std::ptrdiff_t>(head));
            head = 0;
        }
        if (isNak || signal.ecnEcho)
        {
            Disturb();
        }
        else if (!rtt.IsZero())
        {
            TrackRtt(rtt);
        }
    }
    if (isNak)
    {
        // Go back to the first missing packet.
        NS_LOG_INFO("QP " << m_qpn << ": NAK received, go-back-N from PSN " << m_sndUna
                          << " (was sending " << m_sndNxt << ")");
        m_sndNxt = m_sndUna;
        m_rttProbeActive = false;
        m_cc->OnNak();
        m_services->NotifyHasData(m_qpn);
        return;
    }
    if (m_sndNxt < m_sndUna)
    {
        m_sndNxt = m_sndUna;
    }
    uint64_t mtu = m_config.payloadMtu;
    signal.inflightBytes = OutstandingPackets() * mtu;
    m_cc->OnAck(signal);
    if (ackedPackets > 0 && m_cc->GetWindowBytes() != 0)
    {
        m_services->NotifyHasData(m_qpn); // the window may have opened
    }
}

void
RdmaQueuePair::FillAckSignal(RoceAckSignal& signal,
                             const RoceFrameInfo& info,
                             const uint64_t* telemetry,
                             uint64_t ackedPackets)
{
    signal.ackedPackets = static_cast<uint32_t>(ackedPackets);
    signal.ackedBytes = ackedPackets * m_config.payloadMtu;
    signal.ecnEcho = info.becn;
    if (telemetry != nullptr && m_needs.intTelemetry)
    {
        for (uint8_t i = 0; i < info.intHops; ++i)
        {
            m_telemetry->ackHops[i] = DecodeIntHop(telemetry[i]);
        }
        signal.hops = m_telemetry->ackHops.data();
        signal.nHops = info.intHops;
    }
    if (m_needs.rttPerAck)
    {
        // The sample of the newest packet this ACK covers; the older ones leave.
        if (ackedPackets > 0 && m_sndUna - 1 - m_sendTimesBase < m_sendTimes.size())
        {
            signal.rtt = Simulator::Now() - m_sendTimes[m_sndUna - 1 - m_sendTimesBase];
        }
        while (m_sendTimesBase < m_sndUna && !m_sendTimes.empty())
        {
            m_sendTimes.pop_front();
            ++m_sendTimesBase;
        }
        m_sendTimesBase = std::max(m_sendTimesBase, m_sndUna);
    }
    else if (m_rttProbeActive && m_rttProbePsn < m_sndUna)
    {
        signal.rtt = Simulator::Now() - m_rttProbeSent;
        m_rttProbeActive = false;
    }
}

void
RdmaQueuePair::ReceiveCnp()
{
    NS_LOG_FUNCTION(this);
    NS_LOG_LOGIC("QP " << m_qpn << ": CNP received");
    ++m_cnpsReceived;
    if (m_skip)
    {
        Disturb();
    }
    m_cc->OnCnp();
}

uint32_t
RdmaQueuePair::GetQpn() const
{
    NS_LOG_FUNCTION(this);
    return m_qpn;
}

uint32_t
RdmaQueuePair::GetPeerQpn() const
{
    NS_LOG_FUNCTION(this);
    return m_peerQpn;
}

Ipv4Address
RdmaQueuePair::GetPeerAddress() const
{
    NS_LOG_FUNCTION(this);
    return m_peer;
}

uint16_t
RdmaQueuePair::GetUdpSourcePort() const
{
    NS_LOG_FUNCTION(this);
    return m_udpSourcePort;
}

Ptr<RoceCongestionControl>
RdmaQueuePair::GetCongestionControl() const
{
    NS_LOG_FUNCTION(this);
    return m_cc;
}

Ptr<RdmaNic>
RdmaQueuePair::GetNic() const
{
    NS_LOG_FUNCTION(this);
    return m_nic;
}

uint64_t
RdmaQueuePair::GetBytesPosted() const
{
    NS_LOG_FUNCTION(this);
    return m_bytesPosted;
}

uint64_t
RdmaQueuePair::GetBytesAcked() const
{
    NS_LOG_FUNCTION(this);
    return m_bytesAcked;
}

uint64_t
RdmaQueuePair::GetBytesReceived() const
{
    NS_LOG_FUNCTION(this);
    return m_bytesReceived;
}

uint64_t
RdmaQueuePair::GetPacketsSent() const
{
    NS_LOG_FUNCTION(this);
    return m_packetsSent;
}

uint64_t
RdmaQueuePair::GetPacketsRetransmitted() const
{
    NS_LOG_FUNCTION(this);
    return m_packetsRetransmitted;
}

uint64_t
RdmaQueuePair::GetTimeouts() const
{
    NS_LOG_FUNCTION(this);
    return m_timeouts;
}

uint64_t
RdmaQueuePair::GetNaksReceived() const
{
    NS_LOG_FUNCTION(this);
    return m_naksReceived;
}

uint64_t
RdmaQueuePair::GetCnpsReceived() const
{
    NS_LOG_FUNCTION(this);
    return m_cnpsReceived;
}

uint64_t
RdmaQueuePair::GetCnpsSent() const
{
    NS_LOG_FUNCTION(this);
    return m_cnpsSent;
}

bool
RdmaQueuePair::IsIdle() const
{
    NS_LOG_FUNCTION(this);
    return m_sndUna >= m_psnAssigned;
}

} // namespace ns3
