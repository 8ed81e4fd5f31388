// SPDX-License-Identifier: GPL-2.0-only
#include "collective-plan-cost.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <unordered_map>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectivePlanCost");

CollectivePlanCost::CollectivePlanCost(const CollectiveTransport& carrier,
                                       std::vector<uint32_t> rankMap)
    : m_carrier(carrier),
      m_rankMap(std::move(rankMap))
{
}

uint32_t
CollectivePlanCost::CarrierRank(uint32_t r) const
{
    if (m_rankMap.empty())
    {
        return r;
    }
    NS_ABORT_MSG_IF(r >= m_rankMap.size(),
                    "CollectivePlanCost: plan rank " << r << " has no carrier rank ("
                                                     << m_rankMap.size() << " mapped)");
    return m_rankMap[r];
}

Time
CollectivePlanCost::Estimate(const CommPlan& plan) const
{
    const auto& transfers = plan.GetTransfers();
    const size_t nT = transfers.size();
    if (nT == 0)
    {
        return Time(0);
    }
    // A small discrete-event run over doubles (seconds): the estimate is compared, not
    // replayed, and doubles keep the per-transfer work small.
    std::vector<uint32_t> missing(nT, 0);
    std::vector<std::vector<uint32_t>> children(nT);
    for (const auto& t : transfers)
    {
        missing[t.id] = static_cast<uint32_t>(t.deps.size());
        for (uint32_t d : t.deps)
        {
            children[d].push_back(t.id);
        }
    }

    std::map<std::pair<uint32_t, uint32_t>, CarrierPath> paths;
    auto pathOf = [&](const CommPlan::Transfer& t) -> const CarrierPath& {
        const uint32_t src = CarrierRank(t.src);
        const uint32_t dst = CarrierRank(t.dst);
        auto it = paths.find({src, dst});
        if (it == paths.end())
        {
            it = paths.emplace(std::make_pair(src, dst), m_carrier.DescribePath(src, dst)).first;
        }
        return it->second;
    };
    std::map<uint32_t, CarrierSwitchPath> switchPaths; // by member set
    auto switchPath = [&](const CommPlan::Transfer& t) -> const CarrierSwitchPath& {
        auto it = switchPaths.find(t.members);
        if (it == switchPaths.end())
        {
            std::vector<uint32_t> members;
            for (uint32_t r : plan.GetMembers(t.members))
            {
                members.push_back(CarrierRank(r));
            }
            CarrierSwitchPath sw = m_carrier.DescribeSwitchPath(members);
            NS_ABORT_MSG_IF(
                sw.txPorts.size() != members.size() || sw.rxPorts.size() != members.size(),
                "CollectivePlanCost: the carrier described "
                    << sw.txPorts.size() << " switch ports for " << members.size() << " members");
            it = switchPaths.emplace(t.members, std::move(sw)).first;
        }
        return it->second;
    };
    auto serialization = [](uint64_t bytes, double rate) {
        return rate > 0 ? static_cast<double>(bytes) / rate : 0.0;
    };

    // A sending port serves its flows round robin, one slice at a time, as NVLink ports
    // interleave chunks and NICs interleave queue pairs' packets. A flow is the transfers
    // of one (receiving port, channel), served in the order they were released; switch
    // operations form one more flow, served in plan order (the order ranks issue them, so
    // a multicast of piece q goes before the reduction of piece q + 1) and whole (the
    // switch's reduction slots admit a piece at a time). A carrier that serves in send
    // order (IdealTransport) has one flow per port and whole messages. The receiving port
    // takes the slices in the order they arrive.
    constexpr uint64_t SWITCH_FLOW = std::numeric_limits<uint64_t>::max();

    struct TxPort
    {
        double freeAt{0};
        bool busy{false};
        std::deque<uint64_t> active; //!< flows with work, in round-robin order
        std::unordered_map<uint64_t, std::deque<uint32_t>> flows; //!< per flow: transfers
        std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> switchOps;
    };

    std::unordered_map<uint64_t, TxPort> txPorts;
    std::unordered_map<uint64_t, double> rxFree;
    std::vector<uint64_t> remaining(nT, 0);         // point to point: bytes not yet sent
    std::vector<uint32_t> contributionsLeft(nT, 0); // switch reductions: members not started
    std::vector<double> lastContribution(nT, 0.0);

    enum class Ev : uint8_t
    {
        PORT_FREE, //!< a sending port finished a slice: serve the next
        ARRIVED,   //!< a transfer arrived: release its children
    };

    struct Event
    {
        double at;
        uint64_t seq;
        Ev kind;
        uint64_t port;
        uint32_t transfer;

        bool operator>(const Event& o) const
        {
            return at != o.at ? at > o.at : seq > o.seq;
        }
    };

    std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
    uint64_t seq = 0;
    double makespan = 0;

    auto arrive = [&](uint32_t id, double at) {
        events.push({at, seq++, Ev::ARRIVED, 0, id});
        makespan = std::max(makespan, at);
    };
    // A slice size that keeps a transfer to a bounded number of slices.
    auto sliceOf = [](const CarrierPath& p, uint64_t bytes) -> uint64_t {
        if (p.servesInSendOrder)
        {
            return bytes;
        }
        constexpr uint64_t MAX_SLICES = 32;
        return std::max<uint64_t>(
            {p.forwardUnit, 64 * 1024, (bytes + MAX_SLICES - 1) / MAX_SLICES});
    };
    // One switch operation's bytes leave through port at now: book what follows.
    auto serveSwitch = [&](uint32_t id, double now) -> double {
        const CommPlan::Transfer& t = transfers[id];
        const CarrierSwitchPath& s = switchPath(t);
        const double ser = serialization(t.bytes, s.bytesPerSecond);
        const double unit = serialization(std::min(t.bytes, s.forwardUnit), s.bytesPerSecond);
        // The switch's result leaves towards every member from first on.
        auto toEveryMember = [&](double first) {
            double done = first;
            for (uint64_t rxPort : s.rxPorts)
            {
                double& rx = rxFree[rxPort];
                rx = std::max(first, rx) + ser;
                done = std::max(done, rx);
            }
            arrive(id, done);
        };
        const CommPlan::Kind effect = CommPlan::DataEffect(t.kind);
        if (effect == CommPlan::Kind::SWITCH_REDUCE || effect == CommPlan::Kind::SWITCH_ALL_REDUCE)
        {
            lastContribution[id] = std::max(lastContribution[id], now);
            if (--contributionsLeft[id] == 0)
            {
                const double first = lastContribution[id] + s.latency.GetSeconds() + unit;
                if (effect == CommPlan::Kind::SWITCH_REDUCE)
                {
                    double& rx = rxFree[s.rxPorts[plan.GetMemberIndex(t.members, t.dst)]];
                    rx = std::max(first, rx) + ser;
                    arrive(id, rx);
                    return ser;
                }
                toEveryMember(first); // in-network all-reduce: the sum to every member
            }
            return ser;
        }
        toEveryMember(now + s.latency.GetSeconds() + unit); // multicast
        return ser;
    };
    // One slice of a point-to-point transfer leaves at now: book its arrival.
    auto serveSlice = [&](uint32_t id, double now) -> double {
        const CommPlan::Transfer& t = transfers[id];
        const CarrierPath& p = pathOf(t);
        const uint64_t slice = std::min(remaining[id], sliceOf(p, t.bytes));
        remaining[id] -= slice;
        const bool last = remaining[id] == 0;
        const double ser = serialization(slice, p.bytesPerSecond);
        if (p.latencyHoldsSender)
        {
            const double busy = p.latency.GetSeconds() + ser;
            double done = now + busy;
            if (p.modelReceiver)
            {
                double& rx = rxFree[p.rxPort];
                done = std::max(done, rx + ser);
                rx = done;
            }
            if (last)
            {
                arrive(id, done);
            }
            return busy;
        }
        const double first =
            now + p.latency.GetSeconds() +
            p.forwardHops * serialization(std::min(slice, p.forwardUnit), p.bytesPerSecond);
        double done = first + ser;
        if (p.modelReceiver)
        {
            double& rx = rxFree[p.rxPort];
            done = std::max(first, rx) + ser;
            rx = done;
        }
        if (last)
        {
            arrive(id, done);
        }
        return ser;
    };
    // Serve the next slice of the port's next flow, if any.
    auto serveNext = [&](uint64_t portId, double now) {
        TxPort& tx = txPorts[portId];
        if (tx.busy || tx.active.empty())
        {
            return;
        }
        const uint64_t flow = tx.active.front();
        tx.active.pop_front();
        double busy;
        bool more;
        if (flow == SWITCH_FLOW)
        {
            const uint32_t id = tx.switchOps.top();
            tx.switchOps.pop();
            busy = serveSwitch(id, now);
            more = !tx.switchOps.empty();
        }
        else
        {
            auto& queue = tx.flows[flow];
            const uint32_t id = queue.front();
            busy = serveSlice(id, now);
            if (remaining[id] == 0)
            {
                queue.pop_front();
            }
            more = !queue.empty();
        }
        if (more)
        {
            tx.active.push_back(flow);
        }
        tx.busy = true;
        tx.freeAt = now + busy;
        events.push({tx.freeAt, seq++, Ev::PORT_FREE, portId, 0});
    };
    auto offerSwitch = [&](uint64_t portId, uint32_t id, double now) {
        TxPort& tx = txPorts[portId];
        if (tx.switchOps.empty())
        {
            tx.active.push_back(SWITCH_FLOW);
        }
        tx.switchOps.push(id);
        serveNext(portId, now);
    };
    auto release = [&](uint32_t id, double now) {
        const CommPlan::Transfer& t = transfers[id];
        switch (t.kind)
        {
        case CommPlan::Kind::POINT_TO_POINT: {
            const CarrierPath& p = pathOf(t);
            remaining[id] = std::max<uint64_t>(t.bytes, 1); // a zero-byte message still goes
            const uint64_t flow = p.servesInSendOrder ? 0 : p.rxPort * 1024 + (t.channel % 1024);
            TxPort& tx = txPorts[p.txPort];
            auto& queue = tx.flows[flow];
            if (queue.empty())
            {
                tx.active.push_back(flow);
            }
            queue.push_back(id);
            serveNext(p.txPort, now);
            break;
        }
        case CommPlan::Kind::SWITCH_REDUCE:
        case CommPlan::Kind::NETWORK_REDUCE:
        case CommPlan::Kind::SWITCH_ALL_REDUCE: {
            const CarrierSwitchPath& s = switchPath(t);
            contributionsLeft[id] = static_cast<uint32_t>(s.txPorts.size());
            lastContribution[id] = now;
            for (uint64_t port : s.txPorts)
            {
                offerSwitch(port, id, now);
            }
            break;
        }
        case CommPlan::Kind::SWITCH_MULTICAST:
        case CommPlan::Kind::NETWORK_MULTICAST:
            offerSwitch(switchPath(t).txPorts[plan.GetMemberIndex(t.members, t.src)], id, now);
            break;
        }
    };

    for (uint32_t id = 0; id < nT; ++id)
    {
        if (missing[id] == 0)
        {
            release(id, 0.0);
        }
    }
    while (!events.empty())
    {
        const Event e = events.top();
        events.pop();
        if (e.kind == Ev::PORT_FREE)
        {
            txPorts[e.port].busy = false;
            serveNext(e.port, e.at);
            continue;
        }
        for (uint32_t c : children[e.transfer])
        {
            if (--missing[c] == 0)
            {
                release(c, e.at);
            }
        }
    }
    NS_LOG_LOGIC(plan.GetAlgorithm()
                 << " " << plan.GetType() << " " << plan.GetTotalBytes() << " B over "
                 << plan.GetGroupSize() << " ranks: " << makespan * 1e6 << " us");
    return Seconds(makespan);
}

} // namespace ns3
