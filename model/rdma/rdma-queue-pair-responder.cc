// SPDX-License-Identifier: GPL-2.0-only
// RdmaQueuePair's responder side: data packets received (in order, duplicate, out of
// sequence), the ACKs and NAKs it answers with, and the CNPs it sends when data arrives
// marked with ECN.
#include "rdma-fast-forward.h"
#include "rdma-nic.h"
#include "rdma-queue-pair.h"

#include "ns3/aeth-header.h"
#include "ns3/bth-header.h"
#include "ns3/cnp-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/roce-frame-info.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

// The class's log component ("RdmaQueuePair"), defined in rdma-queue-pair.cc: NS_LOG
// finds it under this name.
LogComponent& RdmaQueuePairLogComponent();
static LogComponent& g_log = RdmaQueuePairLogComponent();

void
RdmaQueuePair::ReceiveData(const RoceFrameInfo& info, const uint64_t* telemetry)
{
    NS_LOG_FUNCTION(this);
    if (telemetry != nullptr && m_needs.intTelemetry)
    {
        // The next ACK or NAK echoes the newest stack (HPCC's receiver).
        std::copy(telemetry, telemetry + info.intHops, m_telemetry->echoWords.begin());
        m_telemetry->echoHops = info.intHops;
        m_telemetry->echoValid = true;
    }
    uint64_t psn;
    if (!ExpandPsn(info.psn, m_peerInitialPsn, m_rcvExpected, psn))
    {
        // Behind what we expect: a go-back-N duplicate. Answer where the sender asks, so a
        // lost ACK is repaired.
        if (info.ackRequest)
        {
            SendAck(m_rcvExpected - 1, AethHeader::SYNDROME_ACK);
        }
        return;
    }
    const bool ce = info.ecn == Ipv4Header::ECN_CE;
    if (ce && (!m_cnpEverSent || Simulator::Now() - m_lastCnpTime >= m_config.cnpInterval))
    {
        NS_LOG_LOGIC("QP " << m_qpn << ": CE-marked PSN " << psn << ", CNP sent to " << m_peer);
        SendCnp();
    }
    if (psn != m_rcvExpected)
    {
        NS_LOG_DEBUG("QP " << m_qpn << " expected PSN " << m_rcvExpected << " got " << psn);
        if (!m_nakOutstanding)
        {
            NS_LOG_INFO("QP " << m_qpn << ": NAK sent (PSN sequence error, expected "
                              << m_rcvExpected << ", got " << psn << ")");
            m_nakOutstanding = true;
            SendAck(m_rcvExpected, AethHeader::SYNDROME_NAK_PSN_SEQUENCE_ERROR);
        }
        return;
    }
    if (m_needs.exactEcnEcho && m_unackedPackets > 0 && ce != m_ceUnacked)
    {
        // DCTCP's receiver: the packets so far share a CE state; acknowledge them now,
        // so the echo of the next ACK covers the new state only.
        SendAck(m_rcvExpected - 1, AethHeader::SYNDROME_ACK);
    }
    m_ceUnacked = m_ceUnacked || ce;
    ++m_rcvExpected;
    m_nakOutstanding = false;
    m_bytesReceived += info.payloadBytes;
    m_rcvMessageBytes += info.payloadBytes;
    ++m_unackedPackets;
    bool messageEnd = OpcodeHasImmediate(info.opcode);
    if (OpcodeEndsMessage(info.opcode))
    {
        m_rcvMsn = (m_rcvMsn + 1) & PSN_MASK;
    }
    // Coalesce ACKs by count, but never sit on one longer than AckCoalescingTime: at a low
    // (congestion-controlled) rate, waiting for AckInterval packets would stall the sender.
    if (m_unackedPackets >= m_config.ackInterval || info.ackRequest || messageEnd ||
        m_needs.ackEveryPacket || Simulator::Now() - m_lastAckTime >= m_config.ackCoalescingTime)
    {
        SendAck(psn, AethHeader::SYNDROME_ACK);
    }
    if (messageEnd)
    {
        uint64_t bytes = m_rcvMessageBytes;
        m_rcvMessageBytes = 0;
        if (!m_receiveComplete.IsNull())
        {
            m_receiveComplete(this, info.immediate, bytes);
        }
    }
    if (m_skip && m_skip->jumpPackets > 0 && m_rcvExpected == m_skip->jumpFrom)
    {
        ApplySkippedPackets(); // every packet before the peer's skipped ones is in
    }
}

void
RdmaQueuePair::SendAck(uint64_t psn, uint8_t syndrome)
{
    const bool echo = m_ceUnacked && syndrome == AethHeader::SYNDROME_ACK;
    m_unackedPackets = 0;
    m_ceUnacked = false;
    m_lastAckTime = Simulator::Now();
    Ptr<Packet> p = Create<Packet>(roce::ICRC_BYTES);
    AethHeader aeth;
    aeth.SetSyndrome(syndrome);
    aeth.SetMsn(m_rcvMsn);
    p->AddHeader(aeth);
    BthHeader bth;
    bth.SetOpcode(BthHeader::RC_ACKNOWLEDGE);
    bth.SetBecn(echo); // ECN echo: some packet it acknowledges arrived CE-marked
    bth.SetDestQp(m_peerQpn);
    bth.SetPsn(static_cast<uint32_t>((psn + m_peerInitialPsn) & PSN_MASK));
    p->AddHeader(bth);
    if (m_needs.intTelemetry && m_telemetry->echoValid)
    {
        IntHeader telemetry;
        telemetry.SetEcho(true);
        telemetry.SetCapacity(std::max<uint8_t>(m_telemetry->echoHops, 1));
        telemetry.SetHops(m_telemetry->echoWords.data(), m_telemetry->echoHops);
        p->AddHeader(telemetry);
        m_services->AddIpHeaders(p, m_peer, m_udpSourcePort, true, int_telemetry::UDP_PORT);
    }
    else
    {
        m_services->AddIpHeaders(p, m_peer, m_udpSourcePort, true, roce::UDP_DEST_PORT);
    }
    m_services->SendControl(p);
}

void
RdmaQueuePair::SendCnp()
{
    m_cnpEverSent = true;
    m_lastCnpTime = Simulator::Now();
    ++m_cnpsSent;
    Ptr<Packet> p = Create<Packet>(roce::ICRC_BYTES);
    p->AddHeader(CnpHeader());
    BthHeader bth;
    bth.SetOpcode(BthHeader::CNP);
    bth.SetBecn(true);
    bth.SetDestQp(m_peerQpn);
    bth.SetPsn(0);
    p->AddHeader(bth);
    m_services->AddIpHeaders(p, m_peer, m_udpSourcePort, true, roce::UDP_DEST_PORT);
    m_services->SendControl(p);
    m_services->NotifyCnpSent(this);
}

} // namespace ns3
