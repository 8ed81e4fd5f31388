// SPDX-License-Identifier: GPL-2.0-only
#include "flow-network.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowNetwork");

NS_OBJECT_ENSURE_REGISTERED(FlowNetwork);

TypeId
FlowNetwork::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowNetwork")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<FlowNetwork>()
            .AddTraceSource("Allocation",
                            "The max-min rates were computed again: flows and links covered.",
                            MakeTraceSourceAccessor(&FlowNetwork::m_allocationTrace),
                            "ns3::FlowNetwork::AllocationTracedCallback");
    return tid;
}

FlowNetwork::FlowNetwork()
{
    NS_LOG_FUNCTION(this);
}

FlowNetwork::~FlowNetwork()
{
    NS_LOG_FUNCTION(this);
}

void
FlowNetwork::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_allocation.Cancel();
    m_timer.Cancel();
    m_ends.clear();
    m_heap.clear();
    m_computed.clear();
    m_crossed.clear();
    m_newcomers.clear();
    m_changed.clear();
    m_settling.clear();
    m_flows.clear();
    m_links.clear();
    m_dirty.clear();
    Object::DoDispose();
}

uint32_t
FlowNetwork::AddLink(double bytesPerSecond, double granuleBytes)
{
    NS_LOG_FUNCTION(this << bytesPerSecond << granuleBytes);
    NS_ABORT_MSG_IF(!(bytesPerSecond > 0) || !std::isfinite(bytesPerSecond),
                    "FlowNetwork::AddLink: capacity " << bytesPerSecond
                                                      << " B/s, expected a positive number");
    NS_ABORT_MSG_IF(!(granuleBytes >= 0) || !std::isfinite(granuleBytes),
                    "FlowNetwork::AddLink: granule " << granuleBytes
                                                     << " B, expected 0 or a positive number");
    Link link;
    link.capacity = bytesPerSecond;
    link.granule = granuleBytes;
    m_links.push_back(std::move(link));
    return static_cast<uint32_t>(m_links.size() - 1);
}

uint32_t
FlowNetwork::AddFlow(const std::vector<uint32_t>& links, const std::vector<double>& weights)
{
    NS_LOG_FUNCTION(this << links.size());
    NS_ABORT_MSG_IF(links.empty(), "FlowNetwork::AddFlow: a flow needs at least one link");
    NS_ABORT_MSG_IF(!weights.empty() && weights.size() != links.size(),
                    "FlowNetwork::AddFlow: " << weights.size() << " weights for " << links.size()
                                             << " links");
    for (double w : weights)
    {
        NS_ABORT_MSG_IF(!(w > 0) || !std::isfinite(w),
                        "FlowNetwork::AddFlow: weight " << w << ", expected a positive number");
    }
    for (std::size_t i = 0; i < links.size(); ++i)
    {
        NS_ABORT_MSG_IF(links[i] >= m_links.size(),
                        "FlowNetwork::AddFlow: link " << links[i] << " of " << m_links.size());
        NS_ABORT_MSG_IF(std::find(links.begin(), links.begin() + i, links[i]) != links.begin() + i,
                        "FlowNetwork::AddFlow: link " << links[i] << " twice on one path");
    }
    Flow flow;
    flow.links = links;
    flow.weights = weights.empty() ? std::vector<double>(links.size(), 1.0) : weights;
    flow.slot.assign(links.size(), 0);
    m_flows.push_back(std::move(flow));
    return static_cast<uint32_t>(m_flows.size() - 1);
}

void
FlowNetwork::Push(uint32_t flow, double bytes, SentCallback sent)
{
    NS_LOG_FUNCTION(this << flow << bytes);
    NS_ABORT_MSG_IF(flow >= m_flows.size(), "FlowNetwork::Push: no flow " << flow);
    NS_ABORT_MSG_IF(!(bytes > 0) || !std::isfinite(bytes),
                    "FlowNetwork::Push: " << bytes << " bytes, expected a positive number");
    Flow& f = m_flows[flow];
    f.queue.push_back({bytes, std::move(sent)});
    if (f.queue.size() == 1)
    {
        f.left = bytes;
        Activate(flow);
    }
}

void
FlowNetwork::Activate(uint32_t flow)
{
    Flow& f = m_flows[flow];
    NS_LOG_LOGIC("flow " << flow << " starts (" << f.left << " B, " << f.links.size() << " links)");
    f.active = true;
    f.rate = 0;
    f.since = Simulator::Now();
    f.turn = ++m_links[f.links.front()].joins; // at the back of its first link's round robin
    f.settled = false;
    for (std::size_t i = 0; i < f.links.size(); ++i)
    {
        Link& l = m_links[f.links[i]];
        f.slot[i] = static_cast<uint32_t>(l.active.size());
        l.active.push_back({flow, static_cast<uint32_t>(i), f.weights[i]});
        if (!l.dirty)
        {
            l.dirty = true;
            m_dirty.push_back(f.links[i]);
        }
    }
    ++m_nActive;
    RequestAllocation();
}

void
FlowNetwork::Deactivate(uint32_t flow)
{
    Flow& f = m_flows[flow];
    NS_LOG_LOGIC("flow " << flow << " goes idle");
    RemoveEnd(flow);
    f.active = false;
    f.rate = 0;
    f.bottleneck = UINT32_MAX;
    for (std::size_t i = 0; i < f.links.size(); ++i)
    {
        const uint32_t id = f.links[i];
        Link& l = m_links[id];
        const uint32_t at = f.slot[i];
        const Member moved = l.active.back();
        l.active[at] = moved;
        l.active.pop_back();
        if (moved.flow != flow)
        {
            m_flows[moved.flow].slot[moved.index] = at;
        }
        if (!l.dirty)
        {
            l.dirty = true;
            m_dirty.push_back(id);
        }
    }
    --m_nActive;
    RequestAllocation();
}

void
FlowNetwork::RequestAllocation()
{
    if (m_allocation.IsExpired())
    {
        // After every other event of this instant that was scheduled already: the flows
        // that start or stop together share one allocation.
        m_allocation = Simulator::ScheduleNow(&FlowNetwork::Allocate, this);
    }
}

void
FlowNetwork::Advance(Flow& f)
{
    const Time now = Simulator::Now();
    if (f.active && f.rate > 0 && now > f.since)
    {
        f.left = std::max(0.0, f.left - f.rate * (now - f.since).GetSeconds());
    }
    f.since = now;
}

const FlowNetwork::Link&
FlowNetwork::Measure(uint32_t link)
{
    Link& l = m_links[link];
    if (l.round != m_round)
    {
        l.round = m_round;
        l.load = 0;
        l.highest = 0;
        for (const Member& m : l.active)
        {
            const double rate = RoundRate(m);
            l.load += rate * m.weight;
            l.highest = std::max(l.highest, rate);
        }
    }
    return l;
}

bool
FlowNetwork::IsBottleneckOf(const Flow& flow, uint32_t link)
{
    const Link& l = Measure(link);
    return l.load >= l.capacity * (1 - SATURATION) && flow.rate >= l.highest * (1 - SATURATION);
}

void
FlowNetwork::Fill(const std::vector<uint32_t>& links)
{
    // Progressive filling: the link with the least capacity per unit of its unfixed
    // flows' weight fixes them at that rate; the level never falls (rounding aside), so
    // it is kept monotone. A link has what the flows outside the allocation leave.
    for (uint32_t id : links)
    {
        Link& l = m_links[id];
        l.left = l.capacity;
        l.unfixed = 0;
        l.weight = 0;
        for (const Member& m : l.active)
        {
            const Flow& f = m_flows[m.flow];
            if (f.mark == m_mark)
            {
                l.weight += m.weight;
                ++l.unfixed;
            }
            else
            {
                l.left -= f.rate * m.weight;
            }
        }
    }
    // A link's share only grows as flows are fixed below it, so a heap entry is a lower
    // bound of its link's share: an entry whose share has grown since goes back in with
    // the new one, and the first entry that is current is the least share.
    std::vector<Entry>& heap = m_heap;
    heap.clear();
    for (uint32_t id : links)
    {
        const Link& l = m_links[id];
        if (l.unfixed > 0)
        {
            heap.emplace_back(std::max(0.0, l.left) / l.weight, id);
        }
    }
    std::make_heap(heap.begin(), heap.end(), std::greater<>());
    double level = 0;
    while (!heap.empty())
    {
        std::pop_heap(heap.begin(), heap.end(), std::greater<>());
        const auto [s, id] = heap.back();
        heap.pop_back();
        Link& l = m_links[id];
        if (l.unfixed == 0)
        {
            continue;
        }
        if (const double now = std::max(0.0, l.left) / std::max(l.weight, 1e-300); now > s)
        {
            heap.emplace_back(now, id);
            std::push_heap(heap.begin(), heap.end(), std::greater<>());
            continue;
        }
        level = std::max(level, s);
        for (const Member& m : l.active)
        {
            Flow& f = m_flows[m.flow];
            if (f.mark != m_mark || f.fixed)
            {
                continue; // outside, or fixed already
            }
            f.fixed = true;
            f.share = level;
            f.bottleneck = id;
            for (std::size_t i = 0; i < f.links.size(); ++i)
            {
                Link& o = m_links[f.links[i]];
                o.left -= level * f.weights[i];
                o.weight -= f.weights[i];
                --o.unfixed;
            }
        }
        NS_LOG_LOGIC("link " << id << " is a bottleneck at " << level << " B/s per flow");
    }
}

bool
FlowNetwork::KeepsABottleneck(Flow& flow)
{
    // A link no computed flow crosses is as it was.
    if (flow.bottleneck != UINT32_MAX &&
        (m_links[flow.bottleneck].mark != m_mark || IsBottleneckOf(flow, flow.bottleneck)))
    {
        return true;
    }
    for (uint32_t link : flow.links)
    {
        if (IsBottleneckOf(flow, link))
        {
            flow.bottleneck = link;
            return true;
        }
    }
    return false;
}

void
FlowNetwork::TakeInAbove(uint32_t link, double share)
{
    for (const Member& m : m_links[link].active)
    {
        Flow& f = m_flows[m.flow];
        if (f.mark != m_mark && f.taken != m_round && f.rate > share * (1 + SATURATION))
        {
            f.taken = m_round;
            m_newcomers.push_back(m.flow);
        }
    }
}

void
FlowNetwork::Allocate()
{
    NS_LOG_FUNCTION(this);
    // The max-min allocation is the one where every flow has a bottleneck: a full link on
    // which no flow has a higher rate. The flows that have just started are computed
    // first, every other flow keeping its rate (a link offers them what the others
    // leave); the changed links and the computed flows' links are then checked. A flow
    // outside that then has no bottleneck (the new shares leave its link room, or exceed
    // its rate there), or whose rate exceeds a computed flow's on that flow's bottleneck,
    // is taken in, and the shares are computed again; the flows outside keep their rates
    // and their scheduled ends. The result is the max-min allocation of all the flows.
    ++m_mark;
    std::vector<uint32_t>& flows = m_computed;
    std::vector<uint32_t>& links = m_crossed;
    std::vector<uint32_t>& newcomers = m_newcomers;
    flows.clear();
    links.clear();
    auto take = [this, &flows, &links](uint32_t fid) {
        Flow& f = m_flows[fid];
        f.mark = m_mark;
        Advance(f);
        flows.push_back(fid);
        for (uint32_t id : f.links)
        {
            if (m_links[id].mark != m_mark)
            {
                m_links[id].mark = m_mark;
                links.push_back(id);
            }
        }
    };
    for (uint32_t id : m_dirty)
    {
        Link& l = m_links[id];
        l.dirty = false;
        if (l.mark != m_mark)
        {
            l.mark = m_mark;
            links.push_back(id);
        }
        for (const Member& m : l.active)
        {
            // A flow that has just started; the others on the link keep their rates
            // while they keep their bottlenecks.
            if (m_flows[m.flow].mark != m_mark && m_flows[m.flow].bottleneck == UINT32_MAX)
            {
                take(m.flow);
            }
        }
    }
    m_dirty.clear();
    for (;;)
    {
        ++m_round;
        for (uint32_t fid : flows)
        {
            m_flows[fid].fixed = false;
        }
        Fill(links);
        newcomers.clear();
        const std::size_t nLinks = links.size();
        for (std::size_t k = 0; k < nLinks; ++k)
        {
            const uint32_t id = links[k];
            const Link& l = Measure(id);
            for (const Member& m : l.active)
            {
                Flow& g = m_flows[m.flow];
                if (g.mark == m_mark)
                {
                    // A computed flow whose bottleneck this is must have the highest rate
                    // on it: the flows outside above it give way (once a round: every
                    // flow the link fixed has the same share).
                    if (g.bottleneck == id && g.share < l.highest * (1 - SATURATION) &&
                        m_links[id].gaveWay != m_round)
                    {
                        m_links[id].gaveWay = m_round;
                        TakeInAbove(id, g.share);
                    }
                }
                else if (g.checked != m_round)
                {
                    g.checked = m_round;
                    if (!KeepsABottleneck(g) && g.taken != m_round)
                    {
                        g.taken = m_round;
                        newcomers.push_back(m.flow);
                    }
                }
            }
        }
        if (newcomers.empty())
        {
            break;
        }
        NS_LOG_LOGIC(newcomers.size() << " flows outside lose their bottleneck: taken in");
        for (uint32_t fid : newcomers)
        {
            take(fid);
        }
    }
    // Every rate first: an end in a round robin looks at the others' rates.
    std::vector<uint32_t>& changed = m_changed;
    changed.clear();
    for (uint32_t fid : flows)
    {
        Flow& f = m_flows[fid];
        if (f.share != f.rate || f.endAt < 0)
        {
            f.rate = f.share;
            changed.push_back(fid);
        }
    }
    SettleRoundRobins(changed);
    const bool holding = m_holdTimer;
    m_holdTimer = true; // the timer is moved once, after every end is placed
    for (uint32_t fid : changed)
    {
        ScheduleEnd(fid);
    }
    m_holdTimer = holding;
    if (!holding)
    {
        ArmTimer();
    }
    m_flowsAllocated += flows.size();
    m_ratesChanged += changed.size();
    NS_LOG_DEBUG("allocation " << m_mark << ": " << flows.size() << " flows over " << links.size()
                               << " links, " << changed.size() << " rates changed, " << m_nActive
                               << " sending");
    m_allocationTrace(static_cast<uint32_t>(flows.size()), static_cast<uint32_t>(links.size()));
}

void
FlowNetwork::SettleRoundRobins(const std::vector<uint32_t>& changed)
{
    // Flows that start on a round-robin link and would end their messages together (the
    // same rate, within a granule of each other) end them as a round robin does: the
    // last round's granules one after the other, in the order they joined it. Fluid
    // shares do that if the i-th of k (0-based) has its bytes moved by
    // -(k-1)/k, then +1/(k-1), +1/(k-2), ... granules: each one's end frees the link for
    // the others, who end one granule's time later, the last when the fluid would; the
    // bytes on the link are the same.
    std::vector<uint32_t>& candidates = m_settling;
    candidates.clear();
    for (uint32_t fid : changed)
    {
        const Flow& f = m_flows[fid];
        if (!f.settled && m_links[f.links.front()].granule > 0)
        {
            candidates.push_back(fid);
        }
    }
    // By link, and on each by rate and bytes left: ties are neighbours.
    std::sort(candidates.begin(), candidates.end(), [this](uint32_t a, uint32_t b) {
        const Flow& x = m_flows[a];
        const Flow& y = m_flows[b];
        return std::tie(x.links.front(), x.rate, x.left, x.turn) <
               std::tie(y.links.front(), y.rate, y.left, y.turn);
    });
    std::size_t begin = 0;
    while (begin < candidates.size())
    {
        const Flow& head = m_flows[candidates[begin]];
        std::size_t end = begin + 1;
        const uint32_t id = head.links.front();
        const double granule = m_links[id].granule;
        while (end < candidates.size() && m_flows[candidates[end]].links.front() == id &&
               m_flows[candidates[end]].rate == head.rate &&
               m_flows[candidates[end]].left - head.left < granule)
        {
            ++end;
        }
        const auto k = static_cast<uint32_t>(end - begin);
        if (k > 1)
        {
            std::vector<uint32_t> tied(candidates.begin() + begin, candidates.begin() + end);
            std::sort(tied.begin(), tied.end(), [this](uint32_t a, uint32_t b) {
                return m_flows[a].turn < m_flows[b].turn;
            });
            double shift = -granule * (k - 1) / k;
            for (uint32_t i = 0; i < k; ++i)
            {
                Flow& f = m_flows[tied[i]];
                if (i > 0)
                {
                    shift += granule / (k - i);
                }
                f.left = std::max(0.0, f.left + shift);
                f.settled = true;
            }
            NS_LOG_LOGIC("link " << id << ": " << k
                                 << " messages end a granule apart, round robin");
        }
        begin = end;
    }
}

void
FlowNetwork::ScheduleEnd(uint32_t flow)
{
    Flow& f = m_flows[flow];
    NS_ABORT_MSG_IF(!(f.rate > 0), "FlowNetwork: flow " << flow << " got no share");
    // The end at the first time step on or after the exact one (a step of rounding is
    // far below any link's time per byte); a relative 1e-12 absorbs the rounding of the
    // division itself.
    const double seconds = f.left / f.rate;
    const double perSecond = static_cast<double>(Seconds(1).GetTimeStep());
    const double steps = seconds * perSecond;
    // Within the rounding of the bytes left (a few units of the last place of the
    // message's size, at the rate) of a whole step: that one.
    const double slack = std::max(1e-6,
                                  16 * std::numeric_limits<double>::epsilon() *
                                      f.queue.front().bytes / f.rate * perSecond);
    const auto whole = static_cast<int64_t>(std::min(std::ceil(steps - slack), 9e18));
    f.overshoot = (static_cast<double>(whole) - steps) / perSecond;
    const int64_t now = Simulator::Now().GetTimeStep();
    const int64_t delay = std::max<int64_t>(whole, 0);
    f.endAt = delay > std::numeric_limits<int64_t>::max() - now
                  ? std::numeric_limits<int64_t>::max()
                  : now + delay;
    f.endSeq = ++m_endSeq;
    PlaceEnd(flow);
    if (!m_holdTimer)
    {
        ArmTimer();
    }
}

bool
FlowNetwork::EndsBefore(uint32_t a, uint32_t b) const
{
    const Flow& x = m_flows[a];
    const Flow& y = m_flows[b];
    return x.endAt != y.endAt ? x.endAt < y.endAt : x.endSeq < y.endSeq;
}

void
FlowNetwork::SetEndSlot(uint32_t slot, uint32_t flow)
{
    m_ends[slot] = flow;
    m_flows[flow].endSlot = slot;
}

void
FlowNetwork::PlaceEnd(uint32_t flow)
{
    // An indexed binary heap: each flow holds at most one slot, moved up or down when
    // its end changes.
    uint32_t slot = m_flows[flow].endSlot;
    if (slot == UINT32_MAX)
    {
        slot = static_cast<uint32_t>(m_ends.size());
        m_ends.push_back(flow);
    }
    while (slot > 0 && EndsBefore(flow, m_ends[(slot - 1) / 2]))
    {
        SetEndSlot(slot, m_ends[(slot - 1) / 2]);
        slot = (slot - 1) / 2;
    }
    for (;;)
    {
        std::size_t child = 2 * std::size_t{slot} + 1;
        if (child >= m_ends.size())
        {
            break;
        }
        if (child + 1 < m_ends.size() && EndsBefore(m_ends[child + 1], m_ends[child]))
        {
            ++child;
        }
        if (!EndsBefore(m_ends[child], flow))
        {
            break;
        }
        SetEndSlot(slot, m_ends[child]);
        slot = static_cast<uint32_t>(child);
    }
    SetEndSlot(slot, flow);
}

void
FlowNetwork::RemoveEnd(uint32_t flow)
{
    Flow& f = m_flows[flow];
    f.endAt = -1;
    const uint32_t slot = f.endSlot;
    if (slot == UINT32_MAX)
    {
        return;
    }
    f.endSlot = UINT32_MAX;
    const uint32_t last = m_ends.back();
    m_ends.pop_back();
    if (last != flow)
    {
        m_flows[last].endSlot = slot;
        m_ends[slot] = last;
        PlaceEnd(last);
    }
}

void
FlowNetwork::ArmTimer()
{
    if (m_ends.empty())
    {
        m_timer.Cancel();
        return;
    }
    const int64_t at = m_flows[m_ends.front()].endAt;
    if (!m_timer.IsExpired() && m_timerAt == at)
    {
        return;
    }
    m_timer.Cancel();
    m_timerAt = at;
    m_timer = Simulator::Schedule(TimeStep(at - Simulator::Now().GetTimeStep()),
                                  &FlowNetwork::EndsDue,
                                  this);
}

void
FlowNetwork::EndsDue()
{
    // The messages that end now, in the order their ends were computed (as events
    // scheduled in that order would run); an end computed meanwhile for now runs too.
    const int64_t now = Simulator::Now().GetTimeStep();
    m_holdTimer = true;
    while (!m_ends.empty() && m_flows[m_ends.front()].endAt <= now)
    {
        const uint32_t flow = m_ends.front();
        RemoveEnd(flow);
        HeadSent(flow);
    }
    m_holdTimer = false;
    ArmTimer();
}

void
FlowNetwork::HeadSent(uint32_t flow)
{
    Flow& f = m_flows[flow];
    Message head = std::move(f.queue.front());
    f.queue.pop_front();
    m_bytesDone += head.bytes;
    ++m_messagesSent;
    NS_LOG_LOGIC("flow " << flow << ": a message of " << head.bytes << " B sent at " << f.rate
                         << " B/s, " << f.queue.size() << " queued");
    if (f.queue.empty())
    {
        f.left = 0;
        Deactivate(flow);
    }
    else
    {
        // The next message takes over the share: nothing else changes. It has had the
        // time the end was rounded up by.
        f.left = std::max(0.0, f.queue.front().bytes - std::max(0.0, f.overshoot) * f.rate);
        f.since = Simulator::Now();
        f.settled = false;
        ScheduleEnd(flow);
    }
    if (!head.sent.IsNull())
    {
        head.sent();
    }
}

double
FlowNetwork::GetCapacity(uint32_t link) const
{
    return m_links.at(link).capacity;
}

double
FlowNetwork::GetRate(uint32_t flow) const
{
    return m_flows.at(flow).rate;
}

double
FlowNetwork::GetLoad(uint32_t link) const
{
    double sum = 0;
    for (const Member& m : m_links.at(link).active)
    {
        sum += m_flows[m.flow].rate * m.weight;
    }
    return sum;
}

uint32_t
FlowNetwork::GetNLinks() const
{
    return static_cast<uint32_t>(m_links.size());
}

uint32_t
FlowNetwork::GetNFlows() const
{
    return static_cast<uint32_t>(m_flows.size());
}

uint32_t
FlowNetwork::GetNActiveFlows() const
{
    return m_nActive;
}

double
FlowNetwork::GetBytesSent() const
{
    const Time now = Simulator::Now();
    double sum = m_bytesDone;
    for (const Flow& f : m_flows)
    {
        if (f.active)
        {
            const double left = f.left - f.rate * (now - f.since).GetSeconds();
            sum += f.queue.front().bytes - std::max(0.0, left);
        }
    }
    return sum;
}

uint64_t
FlowNetwork::GetNAllocations() const
{
    return m_mark;
}

uint64_t
FlowNetwork::GetNFlowsAllocated() const
{
    return m_flowsAllocated;
}

uint64_t
FlowNetwork::GetNRatesChanged() const
{
    return m_ratesChanged;
}

uint64_t
FlowNetwork::GetNMessagesSent() const
{
    return m_messagesSent;
}

} // namespace ns3
