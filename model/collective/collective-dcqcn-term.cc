// SPDX-License-Identifier: GPL-2.0-only
#include "collective-dcqcn-term.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveDcqcnTerm");

namespace
{
/// \return a fraction in [0, 1) that differs from flow to flow (splitmix64 of its key)
double
Dither(uint64_t flow)
{
    uint64_t z = flow + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) / static_cast<double>(uint64_t{1} << 53);
}
} // namespace

bool
CollectiveDcqcnTerm::Applies(const CarrierPath& p)
{
    const CarrierQueue& q = p.queue;
    return q.dcqcn && q.pmax > 0 && q.kmaxBytes >= q.kminBytes && q.lineBps > 0 &&
           q.packetBytes > 0 && p.modelReceiver && !p.latencyHoldsSender && p.bytesPerSecond > 0;
}

bool
CollectiveDcqcnTerm::Acts(const CarrierPath& p) const
{
    auto inputs = m_inputs.find(p.rxPort);
    return inputs == m_inputs.end() || inputs->second.size() <= MAX_INPUTS;
}

double
CollectiveDcqcnTerm::InputsOf(uint64_t rxPort) const
{
    auto inputs = m_inputs.find(rxPort);
    return inputs == m_inputs.end() ? 1.0 : std::max<double>(1, inputs->second.size());
}

uint64_t
CollectiveDcqcnTerm::SliceBytes(uint64_t flow,
                                const CarrierPath& p,
                                double now,
                                uint64_t unit,
                                uint64_t transfer)
{
    Flow& f = CatchUp(flow, p, now);
    const double share = f.rate.GetRateBps() / f.rate.GetLineRateBps();
    constexpr double WATCH = 0.25; // of Kmin: a queue this deep may reach Kmin soon
    if (share == 1 && QueueAt(p.rxPort, now, now) <= WATCH * p.queue.kminBytes)
    {
        return unit; // nothing marks yet: the estimate's own slices
    }
    constexpr double PER_DECREASE_PERIOD = 4;
    const double bytes =
        p.bytesPerSecond * share * p.queue.dcqcn->decreasePeriod / PER_DECREASE_PERIOD;
    // At most MAX_SLICES of a transfer: the estimate's cost stays a bounded multiple of
    // the transfers' (the dynamics of a huge transfer are followed more coarsely).
    const uint64_t floor =
        std::max<uint64_t>(p.queue.packetBytes, (transfer + MAX_SLICES - 1) / MAX_SLICES);
    return std::min(unit, std::max<uint64_t>(floor, static_cast<uint64_t>(bytes)));
}

CollectiveDcqcnTerm::Flow&
CollectiveDcqcnTerm::CatchUp(uint64_t flow, const CarrierPath& p, double now)
{
    Flow& f = FlowOf(flow, p);
    // The last slice's bytes and the CNPs that came meanwhile, in time order: a cut
    // during the slice sees the byte-counter steps before it, not those after.
    while (true)
    {
        const bool cnp = !f.cnps.empty() && f.cnps.front() <= now;
        if (f.sending && (!cnp || f.cnps.front() >= f.sendEnd))
        {
            f.rate.OnSend(f.sendEnd, f.sendBytes - f.sendCounted);
            f.sending = false;
            continue;
        }
        if (!cnp)
        {
            break;
        }
        const double at = f.cnps.front();
        f.cnps.pop_front();
        if (f.sending)
        {
            const auto upTo = static_cast<uint64_t>(static_cast<double>(f.sendBytes) *
                                                    (at - f.sendStart) / (f.sendEnd - f.sendStart));
            if (upTo > f.sendCounted)
            {
                f.rate.OnSend(at, upTo - f.sendCounted);
                f.sendCounted = upTo;
            }
        }
        f.rate.OnCnp(at);
    }
    f.rate.AdvanceTo(now);
    return f;
}

CollectiveDcqcnTerm::Flow&
CollectiveDcqcnTerm::FlowOf(uint64_t flow, const CarrierPath& p)
{
    auto it = m_flows.find(flow);
    if (it == m_flows.end())
    {
        it = m_flows.emplace(flow, Flow(RoceDcqcnFluid(*p.queue.dcqcn, p.queue.lineBps))).first;
        // Marks are counted in expectation, but the first CNP waits for a draw of the
        // geometric wait (in marks: an exponential of mean one, from a fraction that
        // differs per flow), so the flows of one queue do not reach it, and so their cuts,
        // in lockstep, as RED's random draws keep them apart in the NIC.
        it->second.need = -std::log1p(-Dither(flow));
    }
    return it->second;
}

void
CollectiveDcqcnTerm::InService(const CarrierPath& p, bool on)
{
    auto& inputs = m_inputs[p.rxPort];
    if (on)
    {
        if (inputs.empty() && p.queue.buffer != 0)
        {
            auto& ports = m_buffers[p.queue.buffer];
            if (std::find(ports.begin(), ports.end(), p.rxPort) == ports.end())
            {
                ports.push_back(p.rxPort);
            }
        }
        ++inputs[p.txPort];
        return;
    }
    auto it = inputs.find(p.txPort);
    if (it != inputs.end() && --it->second == 0)
    {
        inputs.erase(it);
    }
}

double
CollectiveDcqcnTerm::Send(uint64_t flow, const CarrierPath& p, double now, double ser)
{
    Flow& f = CatchUp(flow, p, now);
    if (f.rate.GetRateBps() == f.rate.GetLineRateBps() &&
        f.rate.GetTargetRateBps() == f.rate.GetLineRateBps() && f.cnps.empty())
    {
        return ser; // at line rate, no CNP on its way: nothing to count
    }
    // The slice's bytes on the wire (its time at line rate), at the rate as it would move
    // without a further CNP; the CNPs that do come meanwhile are applied in order when
    // the flow is next caught up.
    const auto wire = static_cast<uint64_t>(std::ceil(ser * p.queue.lineBps / 8.0));
    RoceDcqcnFluid ahead = f.rate;
    const double took = std::max(ser, ahead.Transmit(now, wire));
    f.sending = true;
    f.sendStart = now;
    f.sendEnd = now + took;
    f.sendBytes = wire;
    f.sendCounted = 0;
    return took;
}

void
CollectiveDcqcnTerm::Book(const CarrierPath& p,
                          double from,
                          double start,
                          double done,
                          double bytes)
{
    Port& port = m_queues[p.rxPort];
    port.buffer = p.queue.buffer;
    port.booked += bytes;
    port.slices.push_back({from, start, done, bytes, port.booked});
    m_pending[p.queue.buffer] += bytes;
}

CollectiveDcqcnTerm::Port*
CollectiveDcqcnTerm::Prune(uint64_t rxPort, double now)
{
    auto it = m_queues.find(rxPort);
    if (it == m_queues.end())
    {
        return nullptr;
    }
    Port& port = it->second;
    // Gone before now: no later question needs them (slices leave in booking order).
    while (!port.slices.empty() && port.slices.front().done <= now)
    {
        m_pending[port.buffer] -= port.slices.front().bytes;
        port.slices.pop_front();
    }
    return &port;
}

bool
CollectiveDcqcnTerm::MayMark(const CarrierPath& p, double now, double done)
{
    const Port* port = Prune(p.rxPort, now);
    double queued = 0;
    if (port && !port->slices.empty())
    {
        queued =
            port->slices.back().upTo - (port->slices.front().upTo - port->slices.front().bytes);
    }
    // What could be behind a slice leaving at done: all that is booked and not gone, and
    // what every input could send until then.
    const double n = InputsOf(p.rxPort);
    return queued + (done - now) * n * p.bytesPerSecond > p.queue.kminBytes;
}

double
CollectiveDcqcnTerm::Hold(const CarrierPath& p, double from, double now)
{
    const double queued = QueueAt(p.rxPort, from, now);
    const CarrierQueue& q = p.queue;
    if (q.pfcAlpha <= 0)
    {
        return 0;
    }
    // The buffer holds at most what is booked and not yet gone: a lower bound of the
    // capacity that spares summing its queues while they are short.
    const double n = InputsOf(p.rxPort);
    const double floor =
        n * std::max<double>(q.pfcAlpha * std::max(0.0, q.sharedBytes - m_pending[q.buffer]),
                             q.packetBytes);
    if (queued <= floor)
    {
        return 0;
    }
    return std::max(0.0, (queued - Capacity(p, from, now)) / p.bytesPerSecond);
}

double
CollectiveDcqcnTerm::QueueAt(uint64_t rxPort, double t, double now)
{
    Port* port = Prune(rxPort, now);
    if (!port)
    {
        return 0;
    }
    auto& slices = port->slices;
    // The port serves them in booking order: those gone by t are a prefix.
    auto first = std::partition_point(slices.begin(), slices.end(), [t](const Slice& s) {
        return s.done <= t;
    });
    if (first == slices.end())
    {
        return 0;
    }
    double bytes = slices.back().upTo - (first->upTo - first->bytes);
    if (t > first->start && first->done > first->start)
    {
        bytes -= first->bytes * (t - first->start) / (first->done - first->start);
    }
    // Not there yet: the latest bookings whose bytes arrive after t.
    for (auto s = slices.rbegin(); s != slices.rend() && &*s != &*first && s->from > t; ++s)
    {
        bytes -= s->bytes;
    }
    return std::max(bytes, 0.0);
}

double
CollectiveDcqcnTerm::Capacity(const CarrierPath& p, double at, double now)
{
    const CarrierQueue& q = p.queue;
    if (q.pfcAlpha <= 0)
    {
        return std::numeric_limits<double>::infinity();
    }
    // Every queue of the buffer at that time, this one's included.
    double used = 0;
    auto buffer = m_buffers.find(q.buffer);
    if (buffer != m_buffers.end())
    {
        for (uint64_t port : buffer->second)
        {
            used += QueueAt(port, at, now);
        }
    }
    const double n = InputsOf(p.rxPort);
    // A floor of one packet per input: a paused input still delivers what it has sent.
    return n * std::max<double>(q.pfcAlpha * std::max(0.0, q.sharedBytes - used), q.packetBytes);
}

void
CollectiveDcqcnTerm::Arrived(uint64_t flow,
                             const CarrierPath& p,
                             uint64_t slice,
                             double from,
                             double done,
                             double queued)
{
    const CarrierQueue& q = p.queue;
    const double held = queued;
    if (held <= q.kminBytes)
    {
        return;
    }
    // RED: Pmax x (length - Kmin) / (Kmax - Kmin) between them, every packet above Kmax.
    const double mark =
        held >= q.kmaxBytes ? 1.0 : q.pmax * (held - q.kminBytes) / (q.kmaxBytes - q.kminBytes);
    const double packets = std::ceil(static_cast<double>(slice) / q.packetBytes);
    Flow& f = FlowOf(flow, p);
    // The receiver sends a CNP for the first marked packet once CnpInterval has passed
    // since its last one. RED's marks are random: after the interval the wait for the
    // next mark is geometric, memoryless, with a mean of one mark's worth of packets; marks
    // that fall inside the interval make no CNP. So count expected marks only outside the
    // interval, and send a CNP when they reach the flow's draw (FlowOf), then after each
    // CNP when they reach one (the mean wait): the CNPs come at RED's mean rate. Counting
    // every expected mark (the interval only dropping those due inside it) would shorten
    // the wait after each interval to half a mark's worth and overstate the CNPs, most
    // where a mark comes about once per interval.
    const double span = std::max(done - from, 0.0);
    const double back = p.latency.GetSeconds();
    const double expected = mark * packets;
    double at = f.lastCnp >= 0 ? std::max(from, f.lastCnp + q.cnpInterval) : from;
    uint32_t sent = 0;
    while (at <= done)
    {
        // The slice's marks as they fall over its span (all at done if it has none).
        const double left = expected * (span > 0 ? (done - at) / span : 1.0);
        if (f.marks + left < f.need)
        {
            f.marks += left;
            break;
        }
        const double when = span > 0 ? at + (f.need - f.marks) / expected * span : done;
        f.marks = 0;
        f.need = 1;
        f.lastCnp = when;
        ++sent;
        ++m_cnps;
        // Not before the slice has left: the caller is there.
        const double arrives = std::max(when + back, done);
        f.cnps.insert(std::upper_bound(f.cnps.begin(), f.cnps.end(), arrives), arrives);
        at = when + q.cnpInterval;
    }
    NS_LOG_LOGIC("flow " << flow << ": queue " << held << " B, mark " << mark << ", " << sent
                         << " CNP(s)");
}

uint64_t
CollectiveDcqcnTerm::GetCuts() const
{
    uint64_t cuts = 0;
    for (const auto& [flow, f] : m_flows)
    {
        cuts += f.rate.GetCuts();
    }
    return cuts;
}

uint64_t
CollectiveDcqcnTerm::GetCnps() const
{
    return m_cnps;
}

} // namespace ns3
