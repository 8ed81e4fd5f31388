// SPDX-License-Identifier: GPL-2.0-only
#include "collective-plan-cost.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <unordered_map>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectivePlanCost");

CollectivePlanCost::CollectivePlanCost(const CollectiveTransport& carrier, std::vector<uint32_t> rankMap)
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
    bool haveSwitch = false;
    CarrierSwitchPath sw;
    auto switchPath = [&]() -> const CarrierSwitchPath& {
        if (!haveSwitch)
        {
            std::vector<uint32_t> members;
            for (uint32_t r = 0; r < plan.GetGroupSize(); ++r)
            {
                members.push_back(CarrierRank(r));
            }
            sw = m_carrier.DescribeSwitchPath(members);
            NS_ABORT_MSG_IF(sw.txPorts.size() != members.size() ||
                                sw.rxPorts.size() != members.size(),
                            "CollectivePlanCost: the carrier described "
                                << sw.txPorts.size() << " switch ports for " << members.size()
                                << " members");
            haveSwitch = true;
        }
        return sw;
    };
    auto serialization = [](uint64_t bytes, double rate) {
        return rate > 0 ? static_cast<double>(bytes) / rate : 0.0;
    };

    // Sending ports serve waiting transfers in plan order (the order ranks issue them),
    // one at a time; receiving ports are reserved in the order senders start.
    // Waiting transfers by (order key, id): the key is the release sequence on carriers
    // that serve in send order, 0 otherwise (plan order).
    struct TxPort
    {
        double freeAt{0};
        std::priority_queue<std::pair<uint64_t, uint32_t>,
                            std::vector<std::pair<uint64_t, uint32_t>>,
                            std::greater<>>
            waiting;
    };
    uint64_t releases = 0;
    std::unordered_map<uint64_t, TxPort> txPorts;
    std::unordered_map<uint64_t, double> rxFree;
    std::vector<uint32_t> contributionsLeft(nT, 0); // switch reductions: members not started
    std::vector<double> lastContribution(nT, 0.0);

    enum class Ev : uint8_t
    {
        PORT_FREE, //!< a sending port finished a transfer: start the next
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
    // The transfer's bytes start leaving through port at now: book what follows.
    auto startOnPort = [&](uint64_t port, uint32_t id, double now) {
        const CommPlan::Transfer& t = transfers[id];
        double busy = 0;
        switch (t.kind)
        {
        case CommPlan::Kind::POINT_TO_POINT: {
            const CarrierPath& p = pathOf(t);
            const double ser = serialization(t.bytes, p.bytesPerSecond);
            double done;
            if (p.latencyHoldsSender)
            {
                busy = p.latency.GetSeconds() + ser;
                done = now + busy;
                if (p.modelReceiver)
                {
                    double& rx = rxFree[p.rxPort];
                    done = std::max(done, rx + ser);
                    rx = done;
                }
            }
            else
            {
                busy = ser;
                const double first =
                    now + p.latency.GetSeconds() +
                    p.forwardHops * serialization(std::min(t.bytes, p.forwardUnit), p.bytesPerSecond);
                done = first + ser;
                if (p.modelReceiver)
                {
                    double& rx = rxFree[p.rxPort];
                    done = std::max(first, rx) + ser;
                    rx = done;
                }
            }
            arrive(id, done);
            break;
        }
        case CommPlan::Kind::SWITCH_REDUCE: {
            const CarrierSwitchPath& s = switchPath();
            const double ser = serialization(t.bytes, s.bytesPerSecond);
            busy = ser;
            lastContribution[id] = std::max(lastContribution[id], now);
            if (--contributionsLeft[id] == 0)
            {
                const double first = lastContribution[id] + s.latency.GetSeconds() +
                                     serialization(std::min(t.bytes, s.forwardUnit), s.bytesPerSecond);
                double& rx = rxFree[s.rxPorts[t.dst]];
                rx = std::max(first, rx) + ser;
                arrive(id, rx);
            }
            break;
        }
        case CommPlan::Kind::SWITCH_MULTICAST: {
            const CarrierSwitchPath& s = switchPath();
            const double ser = serialization(t.bytes, s.bytesPerSecond);
            busy = ser;
            const double first = now + s.latency.GetSeconds() +
                                 serialization(std::min(t.bytes, s.forwardUnit), s.bytesPerSecond);
            double done = first;
            for (uint64_t rxPort : s.rxPorts)
            {
                double& rx = rxFree[rxPort];
                rx = std::max(first, rx) + ser;
                done = std::max(done, rx);
            }
            arrive(id, done);
            break;
        }
        }
        TxPort& tx = txPorts[port];
        tx.freeAt = now + busy;
        events.push({tx.freeAt, seq++, Ev::PORT_FREE, port, 0});
    };
    auto offer = [&](uint64_t port, uint32_t id, double now, bool inSendOrder) {
        TxPort& tx = txPorts[port];
        tx.waiting.emplace(inSendOrder ? ++releases : 0, id);
        if (tx.freeAt <= now && tx.waiting.size() == 1)
        {
            tx.waiting.pop();
            startOnPort(port, id, now);
        }
    };
    auto release = [&](uint32_t id, double now) {
        const CommPlan::Transfer& t = transfers[id];
        switch (t.kind)
        {
        case CommPlan::Kind::POINT_TO_POINT: {
            const CarrierPath& p = pathOf(t);
            offer(p.txPort, id, now, p.servesInSendOrder);
            break;
        }
        case CommPlan::Kind::SWITCH_REDUCE: {
            const CarrierSwitchPath& s = switchPath();
            contributionsLeft[id] = static_cast<uint32_t>(s.txPorts.size());
            lastContribution[id] = now;
            for (uint64_t port : s.txPorts)
            {
                offer(port, id, now, false);
            }
            break;
        }
        case CommPlan::Kind::SWITCH_MULTICAST:
            offer(switchPath().txPorts[t.src], id, now, false);
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
            TxPort& tx = txPorts[e.port];
            if (tx.freeAt <= e.at && !tx.waiting.empty())
            {
                const uint32_t next = tx.waiting.top().second;
                tx.waiting.pop();
                startOnPort(e.port, next, e.at);
            }
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
    NS_LOG_LOGIC(plan.GetAlgorithm() << " " << plan.GetType() << " " << plan.GetTotalBytes()
                                     << " B over " << plan.GetGroupSize() << " ranks: "
                                     << makespan * 1e6 << " us");
    return Seconds(makespan);
}

} // namespace ns3
