// SPDX-License-Identifier: GPL-2.0-only
#include "ina-worker.h"

#include "ns3/abort.h"
#include "ns3/ipv4-header.h"
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
    NS_ABORT_MSG_IF(info.protocol == InaProtocol::STREAMING &&
                        (info.addresses.size() != info.workers || info.rank >= info.workers ||
                         info.workers > ina::MAX_STREAMING_WORKERS),
                    "InaWorker::AddJob: streaming job " << info.job << " needs the address of "
                                                        << "each of its 1 to "
                                                        << ina::MAX_STREAMING_WORKERS
                                                        << " workers and this worker's rank");
    Run run;
    run.info = info;
    run.slots.assign(info.poolSlots, PoolSlot());
    m_runs[info.job] = std::move(run);
}

bool
InaWorker::IsBusy(uint16_t job) const
{
    auto it = m_runs.find(job);
    return it != m_runs.end() && !it->second.segments.empty();
}

bool
InaWorker::Outstanding(const Run& run, uint32_t q)
{
    const PoolSlot& slot = run.slots[q % run.info.poolSlots];
    return slot.sequence == q && !slot.done;
}

InaWorker::Segment*
InaWorker::SegmentOf(Run& run, uint32_t q)
{
    for (auto& segment : run.segments)
    {
        if (q >= segment.base && q - segment.base < segment.result.fragments)
        {
            return &segment;
        }
    }
    return nullptr;
}

uint16_t
InaWorker::FragmentLength(const Run& run, const Segment& segment, uint32_t q) const
{
    const uint64_t offset = static_cast<uint64_t>(q - segment.base) * run.info.fragmentBytes;
    const uint64_t left = segment.result.bytes - offset;
    return static_cast<uint16_t>(std::min<uint64_t>(left, run.info.fragmentBytes));
}

void
InaWorker::Reduce(uint16_t job, uint64_t bytes, DoneCallback done, InaReductionRoles roles)
{
    NS_LOG_FUNCTION(this << job << bytes << roles.source << roles.destination);
    NS_ABORT_MSG_IF(!m_nic, "InaWorker::Reduce: call SetNic first");
    auto it = m_runs.find(job);
    NS_ABORT_MSG_IF(it == m_runs.end(), "InaWorker::Reduce: job " << job << " was not added");
    Run& run = it->second;
    NS_ABORT_MSG_IF(bytes == 0, "InaWorker::Reduce: nothing to reduce");
    const uint32_t n = run.info.workers;
    NS_ABORT_MSG_IF(roles.source != InaReductionRoles::EVERY && roles.source >= n,
                    "InaWorker::Reduce: source rank " << roles.source << " is not in job " << job
                                                      << " of " << n << " workers");
    NS_ABORT_MSG_IF(roles.destination != InaReductionRoles::EVERY &&
                        (roles.destination >= n || n > ina::MAX_DIRECTED_WORKERS),
                    "InaWorker::Reduce: destination rank "
                        << roles.destination << " is not in job " << job << " of " << n
                        << " workers (a reduction to one worker needs at most "
                        << ina::MAX_DIRECTED_WORKERS << ")");
    const uint64_t fragments = (bytes + run.info.fragmentBytes - 1) / run.info.fragmentBytes;
    NS_ABORT_MSG_IF(fragments > UINT32_MAX / 2 - run.nextBase,
                    "InaWorker::Reduce: job " << job << " would pass 2^31 fragments");
    Segment segment;
    segment.base = run.nextBase;
    segment.callback = done;
    segment.roles = roles;
    segment.result.job = job;
    segment.result.bytes = bytes;
    segment.result.fragments = static_cast<uint32_t>(fragments);
    segment.result.start = Simulator::Now();
    if (run.cwnd == 0)
    {
        run.cwnd = run.info.poolSlots;
    }
    segment.result.minWindow = static_cast<uint32_t>(run.cwnd);
    NS_LOG_LOGIC("job " << job << ": " << bytes << " B as fragments " << segment.base << " to "
                        << segment.base + fragments - 1 << (run.segments.empty() ? "" : ", behind ")
                        << (run.segments.empty() ? "" : std::to_string(run.segments.size()))
                        << (run.segments.empty() ? "" : " reduction(s)"));
    run.segments.push_back(std::move(segment));
    const uint32_t first = run.nextBase;
    run.nextBase += static_cast<uint32_t>(fragments);
    if (run.info.protocol == InaProtocol::STREAMING)
    {
        SendWindow(run);
    }
    else
    {
        // A slot's next fragment goes when its previous one's result is in (OnResult);
        // the new fragments whose slot is free already go now.
        const uint32_t k = run.info.poolSlots;
        const uint32_t last = std::min<uint64_t>(run.nextBase, uint64_t(first) + k);
        for (uint32_t q = first; q < last; ++q)
        {
            const PoolSlot& slot = run.slots[q % k];
            if (q < k || (slot.sequence == q - k && slot.done))
            {
                SendFragment(run, q, false);
            }
        }
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
    const Segment* segment = SegmentOf(run, q);
    NS_ASSERT_MSG(segment, "fragment " << q << " belongs to no reduction");
    h.length = FragmentLength(run, *segment, q);
    const InaReductionRoles& roles = segment->roles;
    h.SetValues(roles.source == InaReductionRoles::EVERY || roles.source == run.info.rank);
    if (roles.destination != InaReductionRoles::EVERY)
    {
        h.flags |= InaHeader::DIRECTED;
        h.destination = static_cast<uint8_t>(roles.destination);
    }
    if (run.info.protocol == InaProtocol::STREAMING)
    {
        h.slot = AggregatorOf(run.info.job, q);
        h.copy = false;
        h.bitmap = 1ull << run.info.rank;
    }
    NS_LOG_LOGIC("job " << h.job << ": fragment " << q << " (" << h.length << " B) into slot "
                        << h.slot << (h.copy ? "'" : "")
                        << (retransmission ? ", retransmission" : ""));
    SendFrame(h, InaGroupAddress(run.info.job), run.info.priority);
    PoolSlot& slot = run.slots[q % run.info.poolSlots];
    slot.retries = slot.sequence == q && !slot.done ? slot.retries + 1 : 0;
    slot.sequence = q;
    slot.sentAt = m_portFreeAt;
    slot.done = false;
    run.timeouts.push_back(q);
    if (retransmission)
    {
        ++SegmentOf(run, q)->result.retransmissions;
    }
    else
    {
        SegmentOf(run, q)->result.valuesSent += h.GetValueBytes();
    }
}

bool
InaWorker::NeedsValues(const Run& run, const InaHeader& h, uint32_t rank)
{
    const bool streaming = run.info.protocol == InaProtocol::STREAMING;
    return InaNeedsValues(h, rank, streaming ? run.info.workers : 0);
}

void
InaWorker::SendFrame(const InaHeader& h, Ipv4Address dst, uint8_t priority)
{
    InaFrameAddress address = m_address;
    address.dstIp = dst;
    address.priority = priority;
    Ptr<Packet> frame = MakeInaFrame(h, address);
    // The timeout runs from when the frame's last bit leaves, as far as the worker's own
    // frames queued ahead of it tell: a window queued at once does not time out while it
    // is still being serialized.
    Ptr<RoceNetDevice> device = m_nic->GetDevice();
    const Time now = Simulator::Now();
    m_portFreeAt = std::max(m_portFreeAt, now) + device->GetTransmissionTime(frame->GetSize());
    device->EnqueueData(frame, priority, UINT32_MAX);
}

uint32_t
InaWorker::AggregatorOf(uint16_t job, uint32_t q)
{
    // ATP's addressing: a job's consecutive fragments take consecutive aggregators from a
    // base its id hashes to (Knuth's multiplicative hash), so a job never collides with
    // itself within a window and jobs start far apart.
    return (static_cast<uint32_t>(job) * 2654435761u + q) & 0x7FFFFFFFu;
}

bool
InaWorker::HasResult(const Run& run, uint32_t q)
{
    // Fragments are sent in order and each slot is reused only once its result is in.
    return q < run.nextToSend && !Outstanding(run, q);
}

void
InaWorker::SendWindow(Run& run)
{
    const uint32_t end = run.nextBase;
    while (run.lowest < run.nextToSend && !Outstanding(run, run.lowest))
    {
        ++run.lowest;
    }
    const auto window = static_cast<uint32_t>(std::max(1.0, run.cwnd));
    while (run.nextToSend < end && run.outstanding < window &&
           run.nextToSend - run.lowest < run.info.poolSlots)
    {
        SendFragment(run, run.nextToSend++, false);
        ++run.outstanding;
    }
}

void
InaWorker::Receive(Ptr<Packet> frame, const RoceFrameInfo& info)
{
    InaHeader h;
    if (!ReadInaHeader(frame, h))
    {
        return;
    }
    auto it = m_runs.find(h.job);
    if (it == m_runs.end())
    {
        NS_LOG_DEBUG("INA frame of unknown job " << h.job);
        return;
    }
    if (h.type == InaHeader::DATA && it->second.info.protocol == InaProtocol::STREAMING)
    {
        OnFallbackData(it->second, h);
    }
    else if (h.type == InaHeader::RESULT)
    {
        // A result marked CE on its way down echoes congestion as a contribution's does.
        if (info.ecn == Ipv4Header::ECN_CE)
        {
            h.flags |= InaHeader::ECN_ECHO;
        }
        OnResult(it->second, h);
    }
}

void
InaWorker::OnFallbackData(Run& run, const InaHeader& h)
{
    const uint32_t q = h.sequence;
    const uint32_t n = run.info.workers;
    const uint64_t all = n == 64 ? ~0ull : (1ull << n) - 1; // every worker's bit
    const bool single = h.bitmap != 0 && (h.bitmap & (h.bitmap - 1)) == 0;
    const int32_t requester =
        (h.flags & InaHeader::RETRANSMISSION) && single ? __builtin_ctzll(h.bitmap) : -1;
    if (HasResult(run, q))
    {
        if (requester >= 0 && requester != run.info.rank &&
            (NeedsValues(run, h, run.info.rank) || !NeedsValues(run, h, requester)))
        {
            // Answered only with what this worker holds: a worker that got an
            // acknowledgement cannot give the values to one that needs them.
            NS_LOG_LOGIC("job " << h.job << " seq " << q << ": result sent to worker " << requester
                                << ", which asked for it again");
            ResendResult(run, h, requester, all);
        }
        return;
    }
    if (q % n != run.info.rank)
    {
        return; // asked as a possible holder of the result, and it has none
    }
    Fallback& f = run.fallbacks[q];
    if (requester >= 0)
    {
        f.requesters |= 1ull << requester;
    }
    if (AddFallbackContribution(f, h))
    {
        NS_LOG_LOGIC("job " << h.job << " seq " << q << ": fallback host has " << f.count << " of "
                            << n << " workers");
    }
    else
    {
        NS_LOG_LOGIC("job " << h.job << " seq " << q << ": fallback contribution of " << h.count
                            << " workers overlaps what the host has; dropped (its workers "
                            << "retransmit alone)");
    }
    if (f.workers == all)
    {
        InaHeader r = FallbackResult(h, f);
        const bool values = f.values;
        NS_LOG_LOGIC("job " << h.job << " seq " << q << ": the fallback host has every worker; "
                            << "result multicast down the tree");
        run.fallbacks.erase(q); // f is gone
        DeliverFallbackResult(run, r, values);
        return;
    }
    if (requester == static_cast<int32_t>(run.info.rank) && n > 1)
    {
        // This host's own result is missing: the others may all have theirs.
        const uint32_t target = (run.info.rank + 1 + f.asked++ % (n - 1)) % n;
        NS_LOG_LOGIC("job " << h.job << " seq " << q << ": fallback host asks worker " << target
                            << " for the result");
        SendFrame(h, run.info.addresses[target], run.info.priority);
    }
}

void
InaWorker::ResendResult(Run& run, const InaHeader& h, int32_t requester, uint64_t all)
{
    const uint32_t n = run.info.workers;
    InaHeader r = h;
    r.type = InaHeader::RESULT;
    r.flags = InaHeader::RETRANSMISSION | (h.flags & InaHeader::DIRECTED);
    r.SetValues(NeedsValues(run, h, requester));
    r.count = static_cast<uint16_t>(n);
    r.bitmap = all;
    r.sender = 0;
    SendFrame(r, run.info.addresses[requester], run.info.priority);
}

bool
InaWorker::AddFallbackContribution(Fallback& f, const InaHeader& h)
{
    if ((f.workers & h.bitmap) == 0)
    {
        f.workers |= h.bitmap;
        f.count = static_cast<uint16_t>(f.count + h.count);
        f.length = std::max(f.length, h.length);
        f.values = f.values || !(h.flags & InaHeader::NO_VALUES);
        return true;
    }
    return false;
}

InaHeader
InaWorker::FallbackResult(const InaHeader& h, const Fallback& f)
{
    const uint32_t q = h.sequence;
    InaHeader r = h;
    r.type = InaHeader::RESULT;
    r.flags = InaHeader::FALLBACK | (h.flags & InaHeader::DIRECTED);
    r.sender = 0;
    r.count = f.count;
    r.bitmap = f.workers;
    r.length = f.length;
    r.slot = AggregatorOf(h.job, q);
    return r;
}

void
InaWorker::DeliverFallbackResult(Run& run, InaHeader& r, bool values)
{
    // The tree carries the values on only if some other worker needs them.
    const bool directedHere = (r.flags & InaHeader::DIRECTED) && r.destination == run.info.rank;
    InaHeader down = r;
    down.SetValues(values && !directedHere);
    SendFrame(down, InaGroupAddress(r.job), run.info.priority);
    r.SetValues(values && NeedsValues(run, r, run.info.rank));
    OnResult(run, r);
}

void
InaWorker::OnResult(Run& run, const InaHeader& h)
{
    Segment* segment = SegmentOf(run, h.sequence);
    if (!segment)
    {
        NS_LOG_DEBUG("result of job " << h.job << " sequence " << h.sequence
                                      << " matches no running reduction");
        return;
    }
    InaReduction& result = segment->result;
    PoolSlot& slot = run.slots[h.sequence % run.info.poolSlots];
    if (!Outstanding(run, h.sequence))
    {
        ++result.duplicateResults;
        return;
    }
    slot.done = true;
    ++segment->done;
    result.valuesReceived += h.GetValueBytes();
    if (h.count != run.info.workers)
    {
        NS_LOG_WARN("job " << h.job << " sequence " << h.sequence << ": result sums " << h.count
                           << " workers, the job has " << run.info.workers);
        ++result.wrongCounts;
    }
    const bool ecn = (h.flags & InaHeader::ECN_ECHO) != 0;
    if (ecn)
    {
        ++result.ecnEchoes;
    }
    if (run.info.protocol == InaProtocol::STREAMING)
    {
        --run.outstanding;
        if (h.flags & InaHeader::FALLBACK)
        {
            result.fallbackBytes += FragmentLength(run, *segment, h.sequence);
        }
        if (ecn && h.sequence >= run.recover)
        {
            run.cwnd = std::max(1.0, run.cwnd / 2);
            run.recover = run.nextToSend;
            result.minWindow = std::min(result.minWindow, static_cast<uint32_t>(run.cwnd));
            NS_LOG_LOGIC("job " << h.job << ": CE echoed, window " << run.cwnd);
        }
        else if (!ecn)
        {
            run.cwnd = std::min<double>(run.info.poolSlots, run.cwnd + 1.0 / run.cwnd);
        }
        auto f = run.fallbacks.find(h.sequence);
        if (f != run.fallbacks.end())
        {
            // Workers asked this fallback host before it had the result.
            for (uint32_t r = 0; r < run.info.workers; ++r)
            {
                if ((f->second.requesters >> r & 1) && r != run.info.rank)
                {
                    InaHeader reply = h;
                    reply.flags = InaHeader::RETRANSMISSION | (h.flags & InaHeader::DIRECTED);
                    reply.SetValues(NeedsValues(run, h, r));
                    SendFrame(reply, run.info.addresses[r], run.info.priority);
                }
            }
            run.fallbacks.erase(f);
        }
        SendWindow(run);
    }
    else
    {
        // The result frees the slot: its next use is the fragment a window later, of
        // this reduction or of one asked for since (results may come out of order, each
        // slot's in order).
        const uint64_t next = uint64_t(h.sequence) + run.info.poolSlots;
        if (next < run.nextBase)
        {
            SendFragment(run, static_cast<uint32_t>(next), false);
        }
    }
    FinishDone(run);
}

void
InaWorker::FinishDone(Run& run)
{
    const uint16_t job = run.info.job;
    while (!run.segments.empty() &&
           run.segments.front().done == run.segments.front().result.fragments)
    {
        Segment segment = std::move(run.segments.front());
        run.segments.pop_front();
        segment.result.end = Simulator::Now();
        NS_LOG_LOGIC("job " << job << ": reduction of " << segment.result.bytes << " B done in "
                            << (segment.result.end - segment.result.start).As(Time::US) << ", "
                            << segment.result.retransmissions << " retransmissions");
        m_doneTrace(segment.result);
        if (!segment.callback.IsNull())
        {
            segment.callback(segment.result); // may ask for more reductions
        }
    }
    auto it = m_runs.find(job);
    if (it != m_runs.end() && it->second.segments.empty())
    {
        it->second.timeouts.clear();
        auto timer = m_timers.find(job);
        if (timer != m_timers.end())
        {
            timer->second.Cancel();
        }
    }
}

void
InaWorker::Fail(Run& run)
{
    // The stream is given up: its slots start afresh after the reductions asked for.
    std::deque<Segment> failed;
    failed.swap(run.segments);
    run.timeouts.clear();
    run.nextToSend = run.nextBase;
    run.lowest = run.nextBase;
    run.outstanding = 0;
    const uint32_t k = run.info.poolSlots;
    for (uint64_t q = run.nextBase; q < uint64_t(run.nextBase) + k; ++q)
    {
        PoolSlot& slot = run.slots[q % k];
        slot.done = true;
        slot.sequence = q >= k ? static_cast<uint32_t>(q - k) : slot.sequence;
    }
    for (auto& segment : failed)
    {
        segment.result.failed = true;
        segment.result.end = Simulator::Now();
        m_doneTrace(segment.result);
        if (!segment.callback.IsNull())
        {
            segment.callback(segment.result);
        }
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
    if (run.segments.empty() || run.timeouts.empty())
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
            Fail(run);
            return;
        }
        NS_LOG_LOGIC("job " << job << ": fragment " << q << " timed out");
        if (run.info.protocol == InaProtocol::STREAMING && q >= run.recover)
        {
            run.cwnd = std::max(1.0, run.cwnd / 2);
            run.recover = run.nextToSend;
            Segment* segment = SegmentOf(run, q);
            segment->result.minWindow =
                std::min(segment->result.minWindow, static_cast<uint32_t>(run.cwnd));
        }
        SendFragment(run, q, true);
    }
    ArmTimer(job);
}

} // namespace ns3
