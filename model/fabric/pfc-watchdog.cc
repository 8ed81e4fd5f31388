// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-watchdog.h"

#include "ai-fabric-compat.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcWatchdog");
NS_OBJECT_ENSURE_REGISTERED(PfcWatchdog);

TypeId
PfcWatchdog::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PfcWatchdog")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<PfcWatchdog>()
            .AddAttribute("DetectionTime",
                          "A priority paused without a break this long is stormed (SONiC "
                          "pfcwd default: 200 ms).",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&PfcWatchdog::m_detection),
                          MakeTimeChecker(NanoSeconds(1), Seconds(100)))
            .AddAttribute("RecoveryTime",
                          "How long a storm's action lasts before pauses are honoured again "
                          "(SONiC pfcwd default: 200 ms).",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&PfcWatchdog::m_recovery),
                          MakeTimeChecker(NanoSeconds(1), Seconds(100)))
            .AddAttribute(
                "Action",
                "Drop: drop the stormed priority's frames and ignore its pauses "
                "(SONiC pfcwd default); Ignore: ignore its pauses and send them.",
                EnumValue(PfcWatchdog::DROP),
                aifabric::MakeEnumAccessorCompat<PfcWatchdog::Action>(&PfcWatchdog::m_action),
                MakeEnumChecker(PfcWatchdog::DROP, "Drop", PfcWatchdog::IGNORE, "Ignore"))
            .AddTraceSource("Storm",
                            "A priority was declared stormed: priority, time paused.",
                            MakeTraceSourceAccessor(&PfcWatchdog::m_stormTrace),
                            "ns3::PfcWatchdog::StormTracedCallback");
    return tid;
}

PfcWatchdog::PfcWatchdog() = default;
PfcWatchdog::~PfcWatchdog() = default;

void
PfcWatchdog::DoDispose()
{
    for (auto& e : m_check)
    {
        e.Cancel();
    }
    for (auto& e : m_restore)
    {
        e.Cancel();
    }
    m_device = nullptr;
    Object::DoDispose();
}

void
PfcWatchdog::Install(Ptr<RoceNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    m_device = device;
    device->TraceConnectWithoutContext("PfcReceived", MakeCallback(&PfcWatchdog::OnPfc, this));
}

uint64_t
PfcWatchdog::GetStorms() const
{
    return m_storms;
}

uint64_t
PfcWatchdog::GetDrops() const
{
    return m_device ? m_device->GetStormDrops() : 0;
}

bool
PfcWatchdog::IsStormed(uint8_t priority) const
{
    return !m_restore[priority].IsExpired();
}

void
PfcWatchdog::OnPfc(uint8_t priority, uint16_t quanta)
{
    if (quanta == 0 || IsStormed(priority) || !m_check[priority].IsExpired())
    {
        return;
    }
    const Time due = m_device->GetPausedSince(priority) + m_detection;
    const Time now = Simulator::Now();
    m_check[priority] =
        Simulator::Schedule(due > now ? due - now : Time(0), &PfcWatchdog::Check, this, priority);
}

void
PfcWatchdog::Check(uint8_t priority)
{
    if (!m_device->IsPaused(priority))
    {
        return; // the pause ended: the next XOFF re-arms
    }
    const Time now = Simulator::Now();
    const Time since = m_device->GetPausedSince(priority);
    if (now - since < m_detection)
    {
        // Paused again after a break: count from the new start.
        m_check[priority] =
            Simulator::Schedule(since + m_detection - now, &PfcWatchdog::Check, this, priority);
        return;
    }
    ++m_storms;
    NS_LOG_INFO("port " << m_device->GetIfIndex() << " of node " << m_device->GetNode()->GetId()
                        << ": priority " << +priority << " paused for "
                        << (now - since).As(Time::US) << ": storm, "
                        << (m_action == DROP ? "dropping" : "ignoring pauses") << " for "
                        << m_recovery.As(Time::US));
    m_stormTrace(priority, now - since);
    m_device->SetPauseIgnored(priority, true);
    if (m_action == DROP)
    {
        m_device->DropQueued(priority);
        m_device->SetDropArrivals(priority, true);
    }
    m_restore[priority] = Simulator::Schedule(m_recovery, &PfcWatchdog::Restore, this, priority);
}

void
PfcWatchdog::Restore(uint8_t priority)
{
    NS_LOG_INFO("port " << m_device->GetIfIndex() << " of node " << m_device->GetNode()->GetId()
                        << ": priority " << +priority << " recovered");
    m_device->SetPauseIgnored(priority, false);
    m_device->SetDropArrivals(priority, false);
}

} // namespace ns3
