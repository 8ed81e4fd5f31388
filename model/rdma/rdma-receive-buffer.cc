// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-receive-buffer.h"

#include "ns3/log.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"
#include "ns3/shared-buffer-mmu.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaReceiveBuffer");
NS_OBJECT_ENSURE_REGISTERED(RdmaReceiveBuffer);

TypeId
RdmaReceiveBuffer::GetTypeId()
{
    // No attributes of its own: the NIC's ReceiveRate, ReceiveBufferSize and
    // ReceivePauseQuanta configure it.
    static TypeId tid = TypeId("ns3::RdmaReceiveBuffer")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RdmaReceiveBuffer>();
    return tid;
}

RdmaReceiveBuffer::RdmaReceiveBuffer() = default;
RdmaReceiveBuffer::~RdmaReceiveBuffer() = default;

void
RdmaReceiveBuffer::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_drainEvent.Cancel();
    m_refreshEvent.Cancel();
    m_queue.clear();
    m_device = nullptr;
    m_release = ReleaseCallback();
    Object::DoDispose();
}

void
RdmaReceiveBuffer::SetDevice(Ptr<RoceNetDevice> device)
{
    NS_LOG_FUNCTION(this);
    m_device = device;
}

void
RdmaReceiveBuffer::SetReleaseCallback(ReleaseCallback callback)
{
    NS_LOG_FUNCTION(this);
    m_release = callback;
}

void
RdmaReceiveBuffer::SetRate(DataRate rate)
{
    NS_LOG_FUNCTION(this << rate);
    m_rate = rate;
}

DataRate
RdmaReceiveBuffer::GetRate() const
{
    NS_LOG_FUNCTION(this);
    return m_rate;
}

void
RdmaReceiveBuffer::SetSize(uint32_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    m_size = bytes;
}

uint32_t
RdmaReceiveBuffer::GetSize() const
{
    NS_LOG_FUNCTION(this);
    return m_size;
}

void
RdmaReceiveBuffer::SetPauseQuanta(uint16_t quanta)
{
    NS_LOG_FUNCTION(this << quanta);
    m_pauseQuanta = quanta;
}

uint16_t
RdmaReceiveBuffer::GetPauseQuanta() const
{
    NS_LOG_FUNCTION(this);
    return m_pauseQuanta;
}

uint64_t
RdmaReceiveBuffer::GetDrops() const
{
    NS_LOG_FUNCTION(this);
    return m_drops;
}

uint32_t
RdmaReceiveBuffer::GetPeak() const
{
    NS_LOG_FUNCTION(this);
    return m_peak;
}

uint32_t
RdmaReceiveBuffer::GetBytes() const
{
    NS_LOG_FUNCTION(this);
    return m_bytes;
}

void
RdmaReceiveBuffer::Enqueue(Ptr<Packet> packet, const RoceFrameInfo& info)
{
    const uint32_t bytes = packet->GetSize();
    if (m_bytes + bytes > m_size)
    {
        NS_LOG_DEBUG("receive buffer full (" << m_bytes << " of " << m_size << " B): frame of "
                                             << bytes << " B dropped");
        ++m_drops;
        return;
    }
    m_queue.push_back({packet, info});
    m_bytes += bytes;
    m_peak = std::max(m_peak, m_bytes);
    if (m_xoff == 0)
    {
        SetThresholds();
    }
    const uint8_t priority = info.dscp >> 3;
    if (m_bytes > m_xoff && !(m_pausedMask & (1u << priority)))
    {
        NS_LOG_LOGIC("receive buffer at " << m_bytes << " B: XOFF on priority " << +priority);
        m_pausedMask |= 1u << priority;
        m_device->SendPfc(priority, m_pauseQuanta);
        ScheduleRefresh();
    }
    if (m_drainEvent.IsExpired())
    {
        ScheduleDrain();
    }
}

void
RdmaReceiveBuffer::SetThresholds()
{
    // What still arrives after the XOFF leaves: the cable there and back, the frame the
    // switch is sending and the XOFF's own wait behind the frame this port is sending.
    const uint32_t maxFrame = m_device->GetMtu() + roce::ETHERNET_HEADER_BYTES;
    const uint32_t headroom =
        SharedBufferMmu::ComputeHeadroom(m_device->GetDataRate().GetBitRate(),
                                         m_device->GetRoceChannel()->GetDelay(),
                                         maxFrame);
    // At least one byte, so 0 means "not set yet"; XON two frames lower, or when empty.
    m_xoff = m_size > headroom ? m_size - headroom : 1;
    m_xon = m_xoff > 2 * maxFrame ? m_xoff - 2 * maxFrame : 0;
}

void
RdmaReceiveBuffer::ScheduleDrain()
{
    m_drainEvent =
        Simulator::Schedule(m_rate.CalculateBytesTxTime(m_queue.front().packet->GetSize()),
                            &RdmaReceiveBuffer::DrainOne,
                            this);
}

void
RdmaReceiveBuffer::SendPfc(uint16_t quanta)
{
    for (uint8_t p = 0; p < RoceNetDevice::N_PRIORITIES; ++p)
    {
        if (m_pausedMask & (1u << p))
        {
            NS_LOG_LOGIC("receive buffer at " << m_bytes
                                              << " B: " << (quanta ? "XOFF refreshed" : "XON")
                                              << " on priority " << +p);
            m_device->SendPfc(p, quanta);
        }
    }
}

void
RdmaReceiveBuffer::ScheduleRefresh()
{
    m_refreshEvent.Cancel();
    m_refreshEvent = Simulator::Schedule(m_device->QuantaToTime(m_pauseQuanta) / 2,
                                         &RdmaReceiveBuffer::RefreshPause,
                                         this);
}

void
RdmaReceiveBuffer::RefreshPause()
{
    SendPfc(m_pauseQuanta);
    if (m_pausedMask)
    {
        ScheduleRefresh();
    }
}

void
RdmaReceiveBuffer::DrainOne()
{
    Frame frame = std::move(m_queue.front());
    m_queue.pop_front();
    m_bytes -= frame.packet->GetSize();
    if (m_pausedMask && m_bytes <= m_xon)
    {
        SendPfc(0);
        m_pausedMask = 0;
        m_refreshEvent.Cancel();
    }
    if (!m_queue.empty())
    {
        ScheduleDrain();
    }
    m_release(frame.packet, frame.info);
}

} // namespace ns3
