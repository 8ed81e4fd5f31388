// SPDX-License-Identifier: GPL-2.0-only
#include "roce-net-device.h"

#include "ai-fabric-compat.h"
#include "pfc-header.h"
#include "roce-channel.h"

#include "ns3/abort.h"
#include "ns3/attribute-container.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/ethernet-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNetDevice");

/// The RoceNetDevice log component, for the class's other source file (its PFC code).
LogComponent&
RoceNetDeviceLogComponent()
{
    return g_log;
}

NS_OBJECT_ENSURE_REGISTERED(RoceNetDevice);

bool RoceNetDevice::s_checkCarriedFields = false;
RoceNetDevice::CarriedFieldsCheck RoceNetDevice::s_carriedFieldsCheck;

void
RoceNetDevice::CheckCarriedFields(bool on)
{
    s_checkCarriedFields = on;
    if (on)
    {
        s_carriedFieldsCheck = CarriedFieldsCheck();
    }
}

RoceNetDevice::CarriedFieldsCheck
RoceNetDevice::GetCarriedFieldsCheck()
{
    return s_carriedFieldsCheck;
}

namespace
{
/// The DwrrWeights attribute's value: integers separated by commas.
using WeightList = AttributeContainerValue<UintegerValue>;

/**
 * Accepts a WeightList of exactly N_PRIORITIES weights, each within the item checker's
 * bounds: a wrong count is refused where the attribute is set (Config, SetAttribute, a
 * scenario file), like any out-of-range value, instead of when a device is built.
 * Everything else is the container checker's.
 */
class WeightListChecker : public AttributeContainerChecker
{
  public:
    /// \param items checker of one weight
    explicit WeightListChecker(Ptr<const AttributeChecker> items)
        : m_list(DynamicCast<const AttributeContainerChecker>(
              MakeAttributeContainerChecker<UintegerValue>(items)))
    {
    }

    bool Check(const AttributeValue& value) const override
    {
        const auto* list = dynamic_cast<const WeightList*>(&value);
        return m_list->Check(value) && list && list->GetN() == RoceNetDevice::N_PRIORITIES;
    }

    std::string GetValueTypeName() const override
    {
        return m_list->GetValueTypeName();
    }

    bool HasUnderlyingTypeInformation() const override
    {
        return true;
    }

    std::string GetUnderlyingTypeInformation() const override
    {
        return std::to_string(RoceNetDevice::N_PRIORITIES) + " comma-separated integers (" +
               GetItemChecker()->GetUnderlyingTypeInformation() + ")";
    }

    Ptr<AttributeValue> Create() const override
    {
        return m_list->Create();
    }

    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        return m_list->Copy(source, destination);
    }

    void SetItemChecker(Ptr<const AttributeChecker> /* items */) override
    {
        NS_ABORT_MSG("WeightListChecker: the item checker is fixed at construction");
    }

    Ptr<const AttributeChecker> GetItemChecker() const override
    {
        return m_list->GetItemChecker();
    }

  private:
    Ptr<const AttributeContainerChecker> m_list; //!< checks the items
};
} // namespace

TypeId
RoceNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("AiFabric")
            .AddConstructor<RoceNetDevice>()
            .AddAttribute("DataRate",
                          "Line rate of the port.",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&RoceNetDevice::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "Largest Ethernet payload (IPv4 packet) in bytes.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&RoceNetDevice::SetMtu, &RoceNetDevice::GetMtu),
                          MakeUintegerChecker<uint16_t>(68, 9216))
            .AddAttribute("ControlFirst",
                          "Serve control frames (ACK, NAK, CNP) ahead of all data priorities. "
                          "PFC frames are always served first.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceNetDevice::m_controlFirst),
                          MakeBooleanChecker())
            .AddAttribute("DataScheduler",
                          "How the data priorities share the port.",
                          EnumValue(RoceNetDevice::ROUND_ROBIN),
                          aifabric::MakeEnumAccessorCompat<RoceNetDevice::DataScheduler>(
                              &RoceNetDevice::m_scheduler),
                          MakeEnumChecker(RoceNetDevice::ROUND_ROBIN,
                                          "RoundRobin",
                                          RoceNetDevice::DWRR,
                                          "Dwrr"))
            .AddAttribute("DwrrQuantum",
                          "Bytes a priority of weight 1 may send per DWRR round.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&RoceNetDevice::m_dwrrQuantum),
                          MakeUintegerChecker<uint32_t>(64, 1u << 24))
            .AddAttribute(
                "DwrrWeights",
                "Eight comma-separated DWRR weights in [1, 1000], priority 0 first.",
                StringValue("1,1,1,1,1,1,1,1"),
                MakeAttributeContainerAccessor<UintegerValue>(&RoceNetDevice::SetDwrrWeights,
                                                              &RoceNetDevice::GetDwrrWeights),
                Create<WeightListChecker>(MakeUintegerChecker<uint32_t>(1, 1000)))
            .AddAttribute("ReceiveErrorModel",
                          "Error model deciding which received frames are corrupted (dropped).",
                          PointerValue(),
                          MakePointerAccessor(&RoceNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("Sniffer",
                            "Every frame sent or received, for pcap.",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_snifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacTx",
                            "A frame starts transmission.",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_macTxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "A frame was received intact.",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyRxDrop",
                            "A frame was corrupted by the receive error model.",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_phyRxDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcSent",
                            "A PFC frame was queued: priority, quanta (0 = XON).",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_pfcSentTrace),
                            "ns3::RoceNetDevice::PfcTracedCallback")
            .AddTraceSource("PfcReceived",
                            "A PFC frame arrived: priority, quanta (0 = XON).",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_pfcReceivedTrace),
                            "ns3::RoceNetDevice::PfcTracedCallback");
    return tid;
}

RoceNetDevice::RoceNetDevice()
    : m_address(Mac48Address::Allocate())
{
    m_dwrrWeight.fill(1);
}

RoceNetDevice::~RoceNetDevice() = default;

void
RoceNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_txCompleteEvent.Cancel();
    m_pauseExpiryEvent.Cancel();
    m_control.clear();
    m_pfc.clear();
    for (auto& q : m_queues)
    {
        q.clear();
    }
    m_node = nullptr;
    m_channel = nullptr;
    m_receiveErrorModel = nullptr;
    m_rxCallback = RxCallback();
    m_stackRxCallback = NetDevice::ReceiveCallback();
    m_promiscRxCallback = NetDevice::PromiscReceiveCallback();
    m_linkChangeCallbacks = TracedCallback<>(); // they may hold the device
    m_dequeueCallback = DequeueCallback();
    m_pullCallback = PullCallback();
    m_onActivity.clear();
    NetDevice::DoDispose();
}

void
RoceNetDevice::SetDwrrWeights(const std::vector<uint32_t>& weights)
{
    // The checker has already refused any other count.
    NS_ABORT_MSG_IF(weights.size() != N_PRIORITIES,
                    "RoceNetDevice::DwrrWeights: expected " << +N_PRIORITIES << " weights, got "
                                                            << weights.size());
    std::copy(weights.begin(), weights.end(), m_dwrrWeight.begin());
}

std::vector<uint32_t>
RoceNetDevice::GetDwrrWeights() const
{
    return {m_dwrrWeight.begin(), m_dwrrWeight.end()};
}

// ------------------------------------------------------------------ wiring

void
RoceNetDevice::Attach(Ptr<RoceChannel> channel)
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_rate.GetBitRate() == 0,
                    "RoceNetDevice: DataRate must be positive (device " << m_ifIndex << ")");
    m_channel = channel;
    m_channel->Attach(this);
}

Ptr<RoceChannel>
RoceNetDevice::GetRoceChannel() const
{
    NS_LOG_FUNCTION(this);
    return m_channel;
}

void
RoceNetDevice::SetRoceReceiveCallback(RxCallback cb)
{
    NS_LOG_FUNCTION(this);
    m_rxCallback = cb;
}

void
RoceNetDevice::SetDequeueCallback(DequeueCallback cb)
{
    NS_LOG_FUNCTION(this);
    m_dequeueCallback = cb;
}

void
RoceNetDevice::SetPullCallback(PullCallback cb)
{
    NS_LOG_FUNCTION(this);
    m_pullCallback = cb;
}

// ------------------------------------------------------------------ transmit

void
RoceNetDevice::EnqueueData(Ptr<Packet> packet,
                           uint8_t priority,
                           uint32_t ingressPort,
                           bool intStamp,
                           const RoceFrameInfo* info)
{
    NS_LOG_FUNCTION(this);
    RoceQueueItem item;
    item.Set(std::move(packet), priority, ingressPort, info);
    if (m_dropArrivalsMask & (1u << priority))
    {
        DropItem(item);
        return;
    }
    item.intStamp = intStamp;
    m_queueBytes[priority] += item.bytes;
    ++m_queuedDataFrames;
    m_queues[priority].push_back(std::move(item));
    NoteActivity();
    Kick();
}

void
RoceNetDevice::EnqueueControl(Ptr<Packet> packet, uint8_t priority, const RoceFrameInfo* info)
{
    NS_LOG_FUNCTION(this);
    if (!m_controlFirst)
    {
        // Control shares its priority's queue; owners account nothing for it.
        EnqueueData(packet, priority, UINT32_MAX, false, info);
        return;
    }
    RoceQueueItem item;
    item.Set(std::move(packet), priority, UINT32_MAX, info);
    m_control.push_back(std::move(item));
    Kick();
}

void
RoceNetDevice::NotifyDataAvailable()
{
    NS_LOG_FUNCTION(this);
    Kick();
}

bool
RoceNetDevice::DequeueData(RoceQueueItem& item)
{
    const Time now = Simulator::Now();
    if (m_scheduler == ROUND_ROBIN)
    {
        for (uint8_t i = 0; i < N_PRIORITIES; ++i)
        {
            uint8_t p = (m_nextPriority + i) % N_PRIORITIES;
            if (!m_queues[p].empty() && m_pausedUntil[p] <= now)
            {
                item = std::move(m_queues[p].front());
                m_queues[p].pop_front();
                m_queueBytes[p] -= item.bytes;
                --m_queuedDataFrames;
                m_nextPriority = (p + 1) % N_PRIORITIES;
                return true;
            }
        }
        return false;
    }
    // DWRR (Shreedhar & Varghese): on each visit a priority earns its quantum × weight
    // once and keeps the port while its deficit covers its head frame; an emptied or
    // paused priority loses its deficit. Frames larger than a quantum need several rounds.
    const uint32_t maxVisits = N_PRIORITIES * (1 + (m_mtu + 14) / m_dwrrQuantum + 1);
    for (uint32_t visits = 0; visits < maxVisits; ++visits)
    {
        uint8_t p = m_nextPriority;
        auto& q = m_queues[p];
        if (q.empty() || m_pausedUntil[p] > now)
        {
            m_deficit[p] = 0;
            m_nextPriority = (p + 1) % N_PRIORITIES;
            m_dwrrVisitFresh = true;
            continue;
        }
        if (m_dwrrVisitFresh)
        {
            m_deficit[p] += static_cast<int64_t>(m_dwrrQuantum) * m_dwrrWeight[p];
            m_dwrrVisitFresh = false;
        }
        if (m_deficit[p] < static_cast<int64_t>(q.front().bytes))
        {
            m_nextPriority = (p + 1) % N_PRIORITIES;
            m_dwrrVisitFresh = true;
            continue;
        }
        item = std::move(q.front());
        q.pop_front();
        m_queueBytes[p] -= item.bytes;
        --m_queuedDataFrames;
        m_deficit[p] -= item.bytes;
        if (q.empty())
        {
            m_deficit[p] = 0;
            m_nextPriority = (p + 1) % N_PRIORITIES;
            m_dwrrVisitFresh = true;
        }
        return true;
    }
    return false;
}

void
RoceNetDevice::Kick()
{
    if (m_inPull)
    {
        return; // the pull in progress will send, or the device will ask again
    }
    const Time now = Simulator::Now();
    if (now >= m_busyUntil)
    {
        TryTransmit();
    }
    else if (m_txCompleteEvent.IsExpired() || m_txCompleteAt != m_busyUntil)
    {
        ScheduleTransmitComplete();
    }
}

void
RoceNetDevice::ScheduleTransmitComplete()
{
    m_txCompleteAt = m_busyUntil;
    m_txCompleteEvent =
        Simulator::Schedule(m_busyUntil - Simulator::Now(), &RoceNetDevice::TransmitComplete, this);
}

void
RoceNetDevice::TryTransmit()
{
    if (m_inPull || Simulator::Now() < m_busyUntil || !m_channel)
    {
        return;
    }
    if (!m_pfc.empty())
    {
        RoceQueueItem item = std::move(m_pfc.front());
        m_pfc.pop_front();
        StartTransmission(item.packet, nullptr);
        return;
    }
    if (!m_control.empty())
    {
        RoceQueueItem item = std::move(m_control.front());
        m_control.pop_front();
        StartTransmission(item.packet, item.parsed ? &item.info : nullptr);
        return;
    }
    RoceQueueItem item;
    if (DequeueData(item))
    {
        if (!m_dequeueCallback.IsNull() && item.ingressPort != UINT32_MAX)
        {
            m_dequeueCallback(this, item);
        }
        StartTransmission(item.packet, item.parsed ? &item.info : nullptr);
        return;
    }
    if (!m_pullCallback.IsNull())
    {
        // The source may call back into NotifyDataAvailable while building the frame
        // (a rate change); that must not start a second transmission.
        m_inPull = true;
        Ptr<Packet> packet = m_pullCallback(GetPausedMask());
        m_inPull = false;
        if (packet)
        {
            StartTransmission(packet, nullptr);
        }
    }
}

Time
RoceNetDevice::NextTransmissionTime(uint32_t frameBytes)
{
    // Exact serialization in picoseconds, in integers (the hot path avoids the 128-bit
    // arithmetic of Time from double). Time has a coarser resolution by default (ns):
    // the part of a step that rounding leaves out is carried to the next frame, so
    // back-to-back frames run at exactly the line rate at any resolution.
    if (m_psPerStep == 0)
    {
        int64_t ps = TimeStep(1).GetPicoSeconds();
        m_psPerStep = ps > 0 ? ps : 1;
    }
    uint64_t ps = static_cast<uint64_t>(roce::WireBytes(frameBytes)) * 8000000000000ull /
                      m_rate.GetBitRate() +
                  m_txCarryPs;
    m_txCarryPs = ps % m_psPerStep;
    return TimeStep(static_cast<int64_t>(ps / m_psPerStep));
}

void
RoceNetDevice::StartTransmission(Ptr<Packet> packet, const RoceFrameInfo* info)
{
    uint32_t bytes = packet->GetSize();
    Time txTime = NextTransmissionTime(bytes);
    m_busyUntil = Simulator::Now() + txTime;
    m_txBytes += bytes;
    ++m_txFrames;
    NoteActivity();
    m_macTxTrace(packet);
    m_snifferTrace(packet);
    // The fields go with the frame: a frame that arrived with them (and was not changed
    // since) keeps them; one built here, or changed by the owner, is parsed now, while its
    // bytes are at hand.
    if (info)
    {
        m_channel->TransmitStart(packet, this, txTime, *info);
    }
    else
    {
        RoceFrameInfo parsed;
        ParseRoceFrame(packet, parsed);
        m_channel->TransmitStart(packet, this, txTime, parsed);
    }
    // An event at the end of the frame only when something may follow it; an idle port
    // is recognised by its clock (m_busyUntil), which saves one event per packet-hop on
    // uncongested switch ports. A pull source (NIC) may always have more.
    if (!m_pfc.empty() || !m_control.empty() || m_queuedDataFrames > 0 || !m_pullCallback.IsNull())
    {
        ScheduleTransmitComplete();
    }
}

void
RoceNetDevice::TransmitComplete()
{
    TryTransmit();
}

// ------------------------------------------------------------------ receive

void
RoceNetDevice::Receive(Ptr<Packet> packet, const RoceFrameInfo& info)
{
    NS_LOG_FUNCTION(this << packet);
    if (!m_channel->IsUp())
    {
        NS_LOG_DEBUG("drop: frame of " << packet->GetSize() << " B on a cut cable");
        m_channel->CountLostFrame();
        return;
    }
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(packet))
    {
        NS_LOG_DEBUG("drop: frame of " << packet->GetSize() << " B corrupted on the link");
        ++m_rxErrorDrops;
        m_phyRxDropTrace(packet);
        return;
    }
    m_snifferTrace(packet);
    m_macRxTrace(packet);
    if (s_checkCarriedFields)
    {
        RoceFrameInfo parsed;
        ParseRoceFrame(packet, parsed);
        ++s_carriedFieldsCheck.frames;
        s_carriedFieldsCheck.marked += parsed.ecn == 3 ? 1 : 0;
        s_carriedFieldsCheck.stamped += parsed.intHops > 0 ? 1 : 0;
        if (!(parsed == info))
        {
            ++s_carriedFieldsCheck.mismatches;
            NS_LOG_WARN("a frame's carried fields differ from its bytes' (PSN "
                        << info.psn << " carried, " << parsed.psn << " in the frame)");
        }
    }
    if (info.kind == RoceFrameInfo::PFC)
    {
        HandlePfc(packet);
        return;
    }
    if (!m_rxCallback.IsNull())
    {
        m_rxCallback(this, packet, info);
    }
}

// ------------------------------------------------------------------ state

DataRate
RoceNetDevice::GetDataRate() const
{
    NS_LOG_FUNCTION(this);
    return m_rate;
}

Time
RoceNetDevice::GetTransmissionTime(uint32_t frameBytes) const
{
    NS_LOG_FUNCTION(this);
    return m_rate.CalculateBytesTxTime(roce::WireBytes(frameBytes));
}

bool
RoceNetDevice::IsTransmitting() const
{
    NS_LOG_FUNCTION(this);
    return Simulator::Now() < m_busyUntil;
}

uint32_t
RoceNetDevice::GetQueueBytes(uint8_t priority) const
{
    NS_LOG_FUNCTION(this);
    return m_queueBytes[priority];
}

uint32_t
RoceNetDevice::GetQueuePackets(uint8_t priority) const
{
    NS_LOG_FUNCTION(this);
    return static_cast<uint32_t>(m_queues[priority].size());
}

void
RoceNetDevice::NotifyOnActivity(Callback<void> cb)
{
    m_onActivity.push_back(std::move(cb));
}

void
RoceNetDevice::CancelActivityNotification(const Callback<void>& cb)
{
    m_onActivity.erase(std::remove_if(m_onActivity.begin(),
                                      m_onActivity.end(),
                                      [&cb](const Callback<void>& c) { return c.IsEqual(cb); }),
                       m_onActivity.end());
}

void
RoceNetDevice::FireActivity()
{
    NS_LOG_LOGIC("activity: telling " << m_onActivity.size() << " watcher(s)");
    std::vector<Callback<void>> watchers;
    std::swap(watchers, m_onActivity);
    for (const Callback<void>& cb : watchers)
    {
        cb();
    }
}

uint64_t
RoceNetDevice::GetPfcPausesSent() const
{
    NS_LOG_FUNCTION(this);
    return m_pfcSent;
}

uint64_t
RoceNetDevice::GetPfcPausesReceived() const
{
    NS_LOG_FUNCTION(this);
    return m_pfcReceived;
}

uint64_t
RoceNetDevice::GetRxErrorDrops() const
{
    NS_LOG_FUNCTION(this);
    return m_rxErrorDrops;
}

} // namespace ns3
