// SPDX-License-Identifier: GPL-2.0-only
// RoceNetDevice: PFC frames sent and honoured, and what the PFC watchdog needs (pause
// history, ignoring pauses, dropping a priority's frames).
#include "pfc-header.h"
#include "roce-frame-info.h"
#include "roce-net-device.h"

#include "ns3/ethernet-header.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

// The class's log component ("RoceNetDevice"), defined in roce-net-device.cc: NS_LOG
// finds it under this name.
LogComponent& RoceNetDeviceLogComponent();
static LogComponent& g_log = RoceNetDeviceLogComponent();

void
RoceNetDevice::HandlePfc(Ptr<Packet> packet)
{
    EthernetHeader eth(false);
    packet->RemoveHeader(eth);
    PfcHeader pfc;
    packet->RemoveHeader(pfc);
    if (!pfc.IsValid())
    {
        NS_LOG_LOGIC("MAC control frame that is not PFC: ignored");
        return; // another MAC-control opcode (e.g. 802.3x): not ours to act on
    }
    const Time now = Simulator::Now();
    for (uint8_t p = 0; p < N_PRIORITIES; ++p)
    {
        if (!pfc.IsEnabled(p))
        {
            continue;
        }
        uint16_t quanta = pfc.GetPauseTime(p);
        ++m_pfcReceived;
        m_pfcReceivedTrace(p, quanta);
        if (m_pauseIgnoredMask & (1u << p))
        {
            NS_LOG_LOGIC("PFC for priority " << int(p) << " ignored (watchdog)");
            continue;
        }
        if (quanta != 0 && m_pausedUntil[p] <= now)
        {
            m_pausedSince[p] = now;
        }
        m_pausedUntil[p] = quanta == 0 ? now : now + QuantaToTime(quanta);
        if (quanta == 0)
        {
            NS_LOG_LOGIC("XON honoured: priority " << int(p) << " resumes");
        }
        else
        {
            NS_LOG_LOGIC("XOFF honoured: priority " << int(p) << " paused for " << quanta
                                                    << " quanta (until "
                                                    << m_pausedUntil[p].As(Time::NS) << ")");
        }
    }
    m_pauseExpiryEvent.Cancel();
    OnPauseExpired();
}

void
RoceNetDevice::OnPauseExpired()
{
    // One pending event per port: wake at the earliest expiry still in the future.
    const Time now = Simulator::Now();
    Time next = Time::Max();
    for (const Time& t : m_pausedUntil)
    {
        if (t > now && t < next)
        {
            next = t;
        }
    }
    if (next != Time::Max())
    {
        m_pauseExpiryEvent = Simulator::Schedule(next - now, &RoceNetDevice::OnPauseExpired, this);
    }
    Kick();
}

void
RoceNetDevice::SendPfc(uint8_t priority, uint16_t quanta)
{
    NS_LOG_FUNCTION(this << int(priority) << quanta);
    PfcHeader pfc;
    pfc.SetPauseTime(priority, quanta);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(pfc);
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(PfcHeader::GetMulticastAddress());
    eth.SetLengthType(PfcHeader::ETHERTYPE);
    frame->AddHeader(eth);
    RoceQueueItem item;
    item.bytes = frame->GetSize();
    item.packet = frame;
    item.ingressPort = UINT32_MAX;
    item.priority = priority;
    // A pause must not wait behind ACKs, and PFC frames must keep their order among
    // themselves (an XON overtaken by the next XOFF would leave the peer running).
    m_pfc.push_back(std::move(item));
    ++m_pfcSent;
    m_pfcSentTrace(priority, quanta);
    Kick();
}

Time
RoceNetDevice::QuantaToTime(uint16_t quanta) const
{
    NS_LOG_FUNCTION(this);
    return m_rate.CalculateBytesTxTime(static_cast<uint32_t>(quanta) * 64u);
}

bool
RoceNetDevice::IsPaused(uint8_t priority) const
{
    NS_LOG_FUNCTION(this);
    return m_pausedUntil[priority] > Simulator::Now();
}

uint8_t
RoceNetDevice::GetPausedMask() const
{
    NS_LOG_FUNCTION(this);
    const Time now = Simulator::Now();
    uint8_t mask = 0;
    for (uint8_t p = 0; p < N_PRIORITIES; ++p)
    {
        if (m_pausedUntil[p] > now)
        {
            mask |= static_cast<uint8_t>(1u << p);
        }
    }
    return mask;
}

Time
RoceNetDevice::GetPausedSince(uint8_t priority) const
{
    NS_LOG_FUNCTION(this);
    return m_pausedSince[priority];
}

void
RoceNetDevice::SetPauseIgnored(uint8_t priority, bool ignored)
{
    NS_LOG_FUNCTION(this << +priority << ignored);
    if (ignored)
    {
        m_pauseIgnoredMask |= 1u << priority;
        m_pausedUntil[priority] = Simulator::Now();
        Kick();
    }
    else
    {
        m_pauseIgnoredMask &= ~(1u << priority);
    }
}

void
RoceNetDevice::SetDropArrivals(uint8_t priority, bool drop)
{
    NS_LOG_FUNCTION(this << +priority << drop);
    m_dropArrivalsMask =
        drop ? m_dropArrivalsMask | (1u << priority) : m_dropArrivalsMask & ~(1u << priority);
}

void
RoceNetDevice::DropItem(RoceQueueItem& item)
{
    if (!m_dequeueCallback.IsNull() && item.ingressPort != UINT32_MAX)
    {
        m_dequeueCallback(this, item); // the owner releases its buffer
    }
    ++m_stormDrops;
}

uint32_t
RoceNetDevice::DropQueued(uint8_t priority)
{
    NS_LOG_FUNCTION(this);
    std::deque<RoceQueueItem> queue;
    queue.swap(m_queues[priority]);
    m_queueBytes[priority] = 0;
    m_queuedDataFrames -= static_cast<uint32_t>(queue.size());
    for (auto& item : queue)
    {
        DropItem(item);
    }
    NS_LOG_LOGIC("dropped the " << queue.size() << " frames of priority " << +priority);
    return static_cast<uint32_t>(queue.size());
}

uint64_t
RoceNetDevice::GetStormDrops() const
{
    NS_LOG_FUNCTION(this);
    return m_stormDrops;
}

} // namespace ns3
