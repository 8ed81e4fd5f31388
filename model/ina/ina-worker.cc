// SPDX-License-Identifier: GPL-2.0-only
#include "ina-worker.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("InaWorker");
NS_OBJECT_ENSURE_REGISTERED(InaWorker);

TypeId
InaWorker::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::InaWorker")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<InaWorker>()
            .AddAttribute("RetransmitTimeout",
                          "A fragment whose result has not arrived this long after it left "
                          "is sent again. It must exceed the round trip with the switches' "
                          "queues full: a window of PoolSlots fragments from every worker "
                          "waiting for a slow engine, or for PFC, is not lost.",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&InaWorker::m_rto),
                          MakeTimeChecker(NanoSeconds(100), Seconds(10)))
            .AddAttribute("MaxRetransmissions",
                          "Retransmissions of one fragment after which the reduction is "
                          "reported failed.",
                          UintegerValue(64),
                          MakeUintegerAccessor(&InaWorker::m_maxRetransmissions),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddTraceSource("ReductionDone",
                            "A reduction finished at this worker.",
                            MakeTraceSourceAccessor(&InaWorker::m_doneTrace),
                            "ns3::InaWorker::ReductionTracedCallback");
    return tid;
}

InaWorker::InaWorker()
{
    NS_LOG_FUNCTION(this);
}

InaWorker::~InaWorker() = default;

void
InaWorker::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& [job, timer] : m_timers)
    {
        timer.Cancel();
    }
    m_timers.clear();
    m_runs.clear();
    if (m_nic)
    {
        m_nic->SetUdpReceiveCallback(ina::UDP_PORT, RdmaNic::UdpReceiveCallback());
    }
    m_nic = nullptr;
    Object::DoDispose();
}

void
InaWorker::SetNic(Ptr<RdmaNic> nic)
{
    NS_LOG_FUNCTION(this << nic);
    m_nic = nic;
    Ptr<RoceNetDevice> device = nic->GetDevice();
    NS_ABORT_MSG_IF(!device || !device->GetRoceChannel(),
                    "InaWorker::SetNic: the NIC's port is not attached to a link");
    m_address.srcMac = Mac48Address::ConvertFrom(device->GetAddress());
    m_address.dstMac =
        Mac48Address::ConvertFrom(device->GetRoceChannel()->GetPeer(device)->GetAddress());
    m_address.srcIp = nic->GetAddress();
    nic->SetUdpReceiveCallback(ina::UDP_PORT,
                               MakeCallback(&InaWorker::Receive, Ptr<InaWorker>(this)));
}

Ptr<RdmaNic>
InaWorker::GetNic() const
{
    return m_nic;
}

void
InaWorker::AddJob(const InaJobInfo& info)
{
    NS_LOG_FUNCTION(this << info.job);
    NS_ABORT_MSG_IF(info.poolSlots == 0 || info.fragmentBytes == 0 ||
                        info.fragmentBytes > UINT16_MAX,
                    "InaWorker::AddJob: job " << info.job << " needs a pool and a fragment size "
                                              << "of 1 to 65535 B");
    Run run;
    run.info = info;
    run.slots.assign(info.poolSlots, PoolSlot());
    m_runs[info.job] = std::move(run);
}

bool
InaWorker::IsBusy(uint16_t job) const
{
    auto it = m_runs.find(job);
    return it != m_runs.end() && it->second.active;
}

bool
InaWorker::Outstanding(const Run& run, uint32_t q)
{
    const PoolSlot& slot = run.slots[q % run.info.poolSlots];
    return slot.sequence == q && !slot.done;
}

uint16_t
InaWorker::FragmentLength(const Run& run, uint32_t q)
{
    const uint64_t offset = static_cast<uint64_t>(q) * run.info.fragmentBytes;
    const uint64_t left = run.result.bytes - offset;
    return static_cast<uint16_t>(std::min<uint64_t>(left, run.info.fragmentBytes));
}

void
InaWorker::Reduce(uint16_t job, uint64_t bytes, DoneCallback done)
{
    NS_LOG_FUNCTION(this << job << bytes);
    NS_ABORT_MSG_IF(!m_nic, "InaWorker::Reduce: call SetNic first");
    auto it = m_runs.find(job);
    NS_ABORT_MSG_IF(it == m_runs.end(), "InaWorker::Reduce: job " << job << " was not added");
    Run& run = it->second;
    NS_ABORT_MSG_IF(bytes == 0, "InaWorker::Reduce: nothing to reduce");
    const uint64_t fragments = (bytes + run.info.fragmentBytes - 1) / run.info.fragmentBytes;
    NS_ABORT_MSG_IF(fragments > UINT32_MAX / 2,
                    "InaWorker::Reduce: " << bytes << " B is more than 2^31 fragments");
    if (run.active)
    {
        NS_LOG_LOGIC("job " << job << ": " << bytes << " B queued behind the running reduction");
        run.queue.emplace_back(bytes, done);
        return;
    }
    Start(run, bytes, done);
}

void
InaWorker::Start(Run& run, uint64_t bytes, DoneCallback done)
{
    const uint16_t job = run.info.job;
    const uint64_t fragments = (bytes + run.info.fragmentBytes - 1) / run.info.fragmentBytes;
    run.result = InaReduction();
    run.result.job = job;
    run.result.bytes = bytes;
    run.result.fragments = static_cast<uint32_t>(fragments);
    run.result.start = Simulator::Now();
    run.done = 0;
    run.base = run.nextBase;
    run.nextBase += run.result.fragments;
    run.timeouts.clear();
    run.callback = done;
    run.active = true;
    const uint32_t window = std::min<uint32_t>(run.info.poolSlots, run.result.fragments);
    for (uint32_t q = 0; q < window; ++q)
    {
        SendFragment(run, run.base + q, false);
    }
    ArmTimer(job);
}

void
InaWorker::SendFragment(Run& run, uint32_t q, bool retransmission)
{
    InaHeader h;
    h.type = InaHeader::DATA;
    h.flags = retransmission ? InaHeader::RETRANSMISSION : 0;
    h.job = run.info.job;
    h.sequence = q;
    h.slot = q % run.info.poolSlots;
    h.copy = (q / run.info.poolSlots) % 2 == 1;
    h.sender = 0;
    h.count = 1;
    h.bitmap = 0;
    h.length = FragmentLength(run, q - run.base);
    InaFrameAddress address = m_address;
    address.dstIp = InaGroupAddress(run.info.job);
    address.priority = run.info.priority;
    NS_LOG_LOGIC("job " << h.job << ": fragment " << q << " (" << h.length << " B) into slot "
                        << h.slot << (h.copy ? "'" : "")
                        << (retransmission ? ", retransmission" : ""));
    Ptr<Packet> frame = MakeInaFrame(h, address);
    // The timeout runs from when the frame's last bit leaves, as far as the worker's own
    // frames queued ahead of it tell: a window queued at once does not time out while it
    // is still being serialized.
    Ptr<RoceNetDevice> device = m_nic->GetDevice();
    const Time now = Simulator::Now();
    m_portFreeAt = std::max(m_portFreeAt, now) + device->GetTransmissionTime(frame->GetSize());
    device->EnqueueData(frame, run.info.priority, UINT32_MAX);
    PoolSlot& slot = run.slots[h.slot];
    slot.retries = slot.sequence == q && !slot.done ? slot.retries + 1 : 0;
    slot.sequence = q;
    slot.sentAt = m_portFreeAt;
    slot.done = false;
    run.timeouts.push_back(q);
    if (retransmission)
    {
        ++run.result.retransmissions;
    }
}

void
InaWorker::Receive(Ptr<Packet> frame, const RoceFrameInfo&)
{
    InaHeader h;
    if (!ReadInaHeader(frame, h) || h.type != InaHeader::RESULT)
    {
        return;
    }
    auto it = m_runs.find(h.job);
    if (it == m_runs.end() || !it->second.active || h.sequence < it->second.base ||
        h.sequence - it->second.base >= it->second.result.fragments)
    {
        NS_LOG_DEBUG("result of job " << h.job << " sequence " << h.sequence
                                      << " matches no running reduction");
        return;
    }
    Run& run = it->second;
    PoolSlot& slot = run.slots[h.sequence % run.info.poolSlots];
    if (!Outstanding(run, h.sequence))
    {
        ++run.result.duplicateResults;
        return;
    }
    slot.done = true;
    ++run.done;
    if (h.count != run.info.workers)
    {
        NS_LOG_WARN("job " << h.job << " sequence " << h.sequence << ": result sums " << h.count
                           << " workers, the job has " << run.info.workers);
        ++run.result.wrongCounts;
    }
    if (h.flags & InaHeader::ECN_ECHO)
    {
        ++run.result.ecnEchoes;
    }
    // The result frees the slot: its next use is the fragment a window later (results
    // may come out of order, each slot's in order).
    const uint64_t next = uint64_t(h.sequence) + run.info.poolSlots;
    if (next < uint64_t(run.base) + run.result.fragments)
    {
        SendFragment(run, static_cast<uint32_t>(next), false);
    }
    if (run.done == run.result.fragments)
    {
        NS_LOG_LOGIC("job " << h.job << ": reduction of " << run.result.bytes << " B done in "
                            << (Simulator::Now() - run.result.start).As(Time::US) << ", "
                            << run.result.retransmissions << " retransmissions");
        Finish(run);
    }
}

void
InaWorker::Finish(Run& run)
{
    run.active = false;
    run.result.end = Simulator::Now();
    run.timeouts.clear();
    auto timer = m_timers.find(run.info.job);
    if (timer != m_timers.end())
    {
        timer->second.Cancel();
    }
    const InaReduction result = run.result;
    DoneCallback callback = run.callback;
    run.callback = DoneCallback();
    m_doneTrace(result);
    if (!callback.IsNull())
    {
        callback(result);
    }
    // The next queued reduction of the job, if any (the callback may have queued one).
    auto it = m_runs.find(result.job);
    if (it != m_runs.end() && !it->second.active && !it->second.queue.empty())
    {
        auto [bytes, next] = it->second.queue.front();
        it->second.queue.pop_front();
        Start(it->second, bytes, next);
    }
}

void
InaWorker::ArmTimer(uint16_t job)
{
    Run& run = m_runs[job];
    EventId& timer = m_timers[job];
    timer.Cancel();
    // The oldest outstanding transmission decides; entries for fragments done or sent
    // again since are stale.
    while (!run.timeouts.empty())
    {
        if (!Outstanding(run, run.timeouts.front()))
        {
            run.timeouts.pop_front();
            continue;
        }
        break;
    }
    if (!run.active || run.timeouts.empty())
    {
        return;
    }
    const uint32_t oldest = run.timeouts.front();
    const Time deadline = run.slots[oldest % run.info.poolSlots].sentAt + m_rto;
    const Time now = Simulator::Now();
    timer = Simulator::Schedule(deadline > now ? deadline - now : Time(0),
                                &InaWorker::OnTimeout,
                                this,
                                job);
}

void
InaWorker::OnTimeout(uint16_t job)
{
    Run& run = m_runs[job];
    const Time now = Simulator::Now();
    // Send again every outstanding fragment whose last transmission is RTO old, oldest
    // first; each goes to the back of the queue with its new time.
    while (!run.timeouts.empty())
    {
        const uint32_t q = run.timeouts.front();
        if (!Outstanding(run, q))
        {
            run.timeouts.pop_front();
            continue;
        }
        if (run.slots[q % run.info.poolSlots].sentAt + m_rto > now)
        {
            break;
        }
        run.timeouts.pop_front();
        if (run.slots[q % run.info.poolSlots].retries >= m_maxRetransmissions)
        {
            NS_LOG_WARN("job " << job << ": fragment " << q << " sent " << m_maxRetransmissions + 1
                               << " times without a result; reduction failed");
            run.result.failed = true;
            Finish(run);
            return;
        }
        NS_LOG_LOGIC("job " << job << ": fragment " << q << " timed out");
        SendFragment(run, q, true);
    }
    ArmTimer(job);
}

} // namespace ns3
