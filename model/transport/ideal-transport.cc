// SPDX-License-Identifier: GPL-2.0-only
#include "ideal-transport.h"

#include "../fabric/ai-fabric-compat.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IdealTransport");

NS_OBJECT_ENSURE_REGISTERED(IdealTransport);

namespace
{
/// Upper bound of NRanks: far beyond any cluster we simulate, low enough that a typo
/// (say 10^9) is refused instead of allocating gigabytes of port clocks.
constexpr uint32_t MAX_RANKS = 1u << 24;
} // namespace

TypeId
IdealTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IdealTransport")
            .SetParent<CollectiveTransport>()
            .SetGroupName("AiFabric")
            .AddConstructor<IdealTransport>()
            .AddAttribute(
                "NRanks",
                "Number of ranks the carrier connects (ranks 0..NRanks-1).",
                UintegerValue(1),
                MakeUintegerAccessor(&IdealTransport::SetNRanks, &IdealTransport::GetNRanks),
                MakeUintegerChecker<uint32_t>(1, MAX_RANKS))
            .AddAttribute("DataRate",
                          "Rate of every rank's port, per direction. Must be positive.",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&IdealTransport::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("Latency",
                          "Fixed cost of one message (the alpha of alpha-beta models), paid "
                          "on the sender's port before the bytes are serialized.",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&IdealTransport::m_latency),
                          MakeTimeChecker(Seconds(0), Seconds(1)))
            .AddAttribute("ModelReceivePort",
                          "Also serialize every message at the receiver's ingress port, so "
                          "that incast (many senders, one receiver) costs what it should. "
                          "Off: the receiver is infinitely fast.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&IdealTransport::m_modelReceivePort),
                          MakeBooleanChecker())
            .AddAttribute(
                "Hardware",
                "What the ports stand for, as the collective layer's protocols "
                "see it (GetLinkHardware): the per-step latency of NCCL's LL, "
                "LL128 and Simple protocols depends on it.",
                aifabric::MakeEnumValueCompat(LinkHardware::NET),
                aifabric::MakeEnumMemberAccessor(&IdealTransport::m_hardware),
                aifabric::MakeEnumCheckerCompat(LinkHardware::NET,
                                                LinkHardwareToString(LinkHardware::NET),
                                                LinkHardware::NVLINK,
                                                LinkHardwareToString(LinkHardware::NVLINK),
                                                LinkHardware::PCI,
                                                LinkHardwareToString(LinkHardware::PCI)))
            .AddTraceSource("MessageSent",
                            "Send was called: (src, dst, bytes, channel).",
                            MakeTraceSourceAccessor(&IdealTransport::m_sentTrace),
                            "ns3::IdealTransport::MessageTracedCallback")
            .AddTraceSource("MessageDelivered",
                            "The last byte of a message arrived: (src, dst, bytes, channel).",
                            MakeTraceSourceAccessor(&IdealTransport::m_deliveredTrace),
                            "ns3::IdealTransport::MessageTracedCallback");
    return tid;
}

IdealTransport::IdealTransport()
    : m_nRanks(0)
{
    NS_LOG_FUNCTION(this);
    // The attribute default (1) is applied through SetNRanks during construction.
}

IdealTransport::~IdealTransport()
{
    NS_LOG_FUNCTION(this);
}

void
IdealTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    // Pending events hold a reference to this object; they must not call back into
    // engines that are being torn down as well.
    m_disposed = true;
    m_egressFree.clear();
    m_ingressFree.clear();
    CollectiveTransport::DoDispose();
}

void
IdealTransport::SetNRanks(uint32_t nRanks)
{
    NS_LOG_FUNCTION(this << nRanks);
    NS_ABORT_MSG_IF(nRanks == 0 || nRanks > MAX_RANKS,
                    "IdealTransport: NRanks must be in 1.." << MAX_RANKS << ", got " << nRanks);
    m_nRanks = nRanks;
    // Idle ports are "free since time 0": max(now, free) then picks now.
    m_egressFree.resize(nRanks, Seconds(0));
    m_ingressFree.resize(nRanks, Seconds(0));
}

uint32_t
IdealTransport::GetNRanks() const
{
    return m_nRanks;
}

Time
IdealTransport::SerializationTime(uint64_t bytes) const
{
    // DataRate::CalculateBytesTxTime takes 32 bits; collective messages can exceed 4 GiB.
    return Seconds(static_cast<double>(bytes) * 8.0 / static_cast<double>(m_rate.GetBitRate()));
}

Time
IdealTransport::GetMessageTime(uint64_t bytes) const
{
    return m_latency + SerializationTime(bytes);
}

void
IdealTransport::Send(uint32_t src,
                     uint32_t dst,
                     uint64_t bytes,
                     uint32_t channel,
                     DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << dst << bytes << channel);
    NS_ABORT_MSG_IF(m_disposed, "IdealTransport::Send: the transport has been disposed");
    NS_ABORT_MSG_IF(src >= m_nRanks || dst >= m_nRanks,
                    "IdealTransport::Send: rank " << std::max(src, dst)
                                                  << " is out of range (NRanks is " << m_nRanks
                                                  << "); set the NRanks attribute");
    NS_ABORT_MSG_IF(m_rate.GetBitRate() == 0, "IdealTransport: DataRate must be positive");
    ++m_sent;
    m_sentTrace(src, dst, bytes, channel);
    // The port clock replaces a queue: a FIFO server's next departure is simply
    // max(now, previous departure) + service time, so no per-message queue state is kept.
    const Time now = Simulator::Now();
    const Time leave = std::max(now, m_egressFree[src]) + GetMessageTime(bytes);
    m_egressFree[src] = leave;
    NS_LOG_LOGIC("rank " << src << " -> " << dst << ": leaves its port at " << leave.As(Time::US));
    Simulator::Schedule(leave - now,
                        &IdealTransport::LeaveSender,
                        Ptr<IdealTransport>(this),
                        Message{src, dst, bytes, channel, done});
}

void
IdealTransport::LeaveSender(Message msg)
{
    NS_LOG_FUNCTION(this << msg.src << msg.dst << msg.bytes);
    if (m_disposed)
    {
        return;
    }
    if (!m_modelReceivePort)
    {
        Deliver(std::move(msg));
        return;
    }
    // The ingress decision is taken when the sender finishes, not at Send time, so that
    // the receiver serves messages in the order they actually reach it.
    const Time now = Simulator::Now();
    const Time deliver = std::max(now, m_ingressFree[msg.dst] + SerializationTime(msg.bytes));
    m_ingressFree[msg.dst] = deliver;
    NS_LOG_LOGIC("rank " << msg.dst << ": ingress busy until " << deliver.As(Time::US));
    if (deliver == now)
    {
        Deliver(std::move(msg));
    }
    else
    {
        Simulator::Schedule(deliver - now,
                            &IdealTransport::Deliver,
                            Ptr<IdealTransport>(this),
                            std::move(msg));
    }
}

void
IdealTransport::Deliver(Message msg)
{
    NS_LOG_FUNCTION(this << msg.src << msg.dst << msg.bytes);
    if (m_disposed)
    {
        return;
    }
    NS_LOG_DEBUG("rank " << msg.src << " -> " << msg.dst << ", " << msg.bytes
                         << " B: message delivered");
    ++m_delivered;
    m_bytesDelivered += msg.bytes;
    m_deliveredTrace(msg.src, msg.dst, msg.bytes, msg.channel);
    if (!msg.done.IsNull())
    {
        msg.done();
    }
}

uint64_t
IdealTransport::GetMessagesSent() const
{
    return m_sent;
}

uint64_t
IdealTransport::GetMessagesDelivered() const
{
    return m_delivered;
}

uint64_t
IdealTransport::GetBytesDelivered() const
{
    return m_bytesDelivered;
}

uint64_t
IdealTransport::GetMessagesInFlight() const
{
    return m_sent - m_delivered;
}

LinkHardware
IdealTransport::GetLinkHardware(uint32_t /* src */, uint32_t /* dst */) const
{
    return m_hardware;
}

CarrierPath
IdealTransport::DescribePath(uint32_t src, uint32_t dst) const
{
    CarrierPath path;
    path.txPort = 2 * uint64_t{src};
    path.rxPort = 2 * uint64_t{dst} + 1;
    path.bytesPerSecond = m_rate.GetBitRate() / 8.0;
    path.latency = m_latency;
    path.latencyHoldsSender = true;
    path.modelReceiver = m_modelReceivePort;
    path.servesInSendOrder = true;
    return path;
}

} // namespace ns3
