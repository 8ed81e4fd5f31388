// SPDX-License-Identifier: GPL-2.0-only
#include "collective-plan-cost-run.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectivePlanCost");

using plancost::CrossesFabric;

CollectivePlanCost::CollectivePlanCost(const CollectiveTransport& carrier,
                                       std::vector<uint32_t> rankMap,
                                       Time netOverhead)
    : m_carrier(carrier),
      m_rankMap(std::move(rankMap)),
      m_netOverhead(netOverhead)
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

CollectivePlanCost::EstimateRun::EstimateRun(const CollectivePlanCost& cost, const CommPlan& plan)
    : m_cost(cost),
      m_plan(plan),
      m_transfers(plan.GetTransfers()),
      m_protocol(plan, cost.m_carrier, cost.m_rankMap, cost.m_netOverhead),
      m_wire(m_transfers.size(), 0),
      m_due(m_transfers.size(), 0.0),
      m_missing(m_transfers.size(), 0),
      m_children(m_transfers.size()),
      m_pathOf(m_transfers.size(), nullptr),
      m_remaining(m_transfers.size(), 0),
      m_contributionsLeft(m_transfers.size(), 0),
      m_lastContribution(m_transfers.size(), 0.0)
{
    for (const auto& t : m_transfers)
    {
        m_missing[t.id] = static_cast<uint32_t>(t.deps.size());
        m_wire[t.id] = m_protocol.GetWireBytes(t.bytes);
        for (uint32_t d : t.deps)
        {
            m_children[d].push_back(t.id);
        }
    }
}

const CarrierPath&
CollectivePlanCost::EstimateRun::PathOf(const CommPlan::Transfer& t)
{
    const CarrierPath*& known = m_pathOf[t.id];
    if (known)
    {
        return *known;
    }
    const uint32_t src = m_cost.CarrierRank(t.src);
    const uint32_t dst = m_cost.CarrierRank(t.dst);
    auto it = m_paths.find({src, dst});
    if (it == m_paths.end())
    {
        it = m_paths.emplace(std::make_pair(src, dst), m_cost.m_carrier.DescribePath(src, dst))
                 .first;
    }
    known = &it->second; // std::map does not move its entries
    return it->second;
}

const CarrierSwitchPath&
CollectivePlanCost::EstimateRun::SwitchPathOf(const CommPlan::Transfer& t)
{
    auto it = m_switchPaths.find(t.members);
    if (it == m_switchPaths.end())
    {
        std::vector<uint32_t> members;
        for (uint32_t r : m_plan.GetMembers(t.members))
        {
            members.push_back(m_cost.CarrierRank(r));
        }
        CarrierSwitchPath sw = m_cost.m_carrier.DescribeSwitchPath(members);
        NS_ABORT_MSG_IF(sw.txPorts.size() != members.size() || sw.rxPorts.size() != members.size(),
                        "CollectivePlanCost: the carrier described "
                            << sw.txPorts.size() << " switch ports for " << members.size()
                            << " members");
        it = m_switchPaths.emplace(t.members, std::move(sw)).first;
    }
    return it->second;
}

void
CollectivePlanCost::EstimateRun::Arrive(uint32_t id, double at)
{
    // The protocol's rate servers: not before the server is through with it.
    at = std::max(at, m_due[id]);
    m_events.push({at, m_seq++, Ev::ARRIVED, 0, id});
    m_makespan = std::max(m_makespan, at);
}

void
CollectivePlanCost::EstimateRun::ServeNext(uint64_t portId, double now)
{
    TxPort& tx = m_txPorts[portId];
    if (tx.busy || tx.active.empty())
    {
        return;
    }
    if (!tx.pacedUntil.empty())
    {
        // The first flow in turn that its DCQCN rate lets send now; the flows passed over
        // go behind it. None: wake the port when the first may.
        double wake = std::numeric_limits<double>::infinity();
        bool found = false;
        for (size_t i = 0, n = tx.active.size(); i < n; ++i)
        {
            auto paced = tx.pacedUntil.find(tx.active.front());
            if (paced == tx.pacedUntil.end() || paced->second <= now)
            {
                found = true;
                break;
            }
            wake = std::min(wake, paced->second);
            tx.active.push_back(tx.active.front());
            tx.active.pop_front();
        }
        if (!found)
        {
            if (tx.wakeAt <= now || wake < tx.wakeAt)
            {
                tx.wakeAt = wake;
                m_events.push({wake, m_seq++, Ev::WAKE, portId, 0});
            }
            return;
        }
    }
    const uint64_t flow = tx.active.front();
    tx.active.pop_front();
    double busy;
    bool more;
    if (flow == SWITCH_FLOW)
    {
        const uint32_t id = tx.switchOps.top();
        tx.switchOps.pop();
        busy = ServeSwitch(id, now);
        more = !tx.switchOps.empty();
    }
    else
    {
        auto& queue = tx.flows[flow];
        const uint32_t id = queue.front();
        double paced = 0;
        busy = ServeSlice(id, now, paced);
        if (paced > busy)
        {
            tx.pacedUntil[flow] = now + paced;
        }
        else if (!tx.pacedUntil.empty())
        {
            tx.pacedUntil.erase(flow);
        }
        if (m_remaining[id] == 0)
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
    m_events.push({tx.freeAt, m_seq++, Ev::PORT_FREE, portId, 0});
}

void
CollectivePlanCost::EstimateRun::OfferSwitch(uint64_t portId, uint32_t id, double now)
{
    TxPort& tx = m_txPorts[portId];
    if (tx.switchOps.empty())
    {
        tx.active.push_back(SWITCH_FLOW);
    }
    tx.switchOps.push(id);
    ServeNext(portId, now);
}

void
CollectivePlanCost::EstimateRun::Ready(uint32_t id, double now, double extra)
{
    const double latency = extra + m_protocol.GetStepLatency(id).GetSeconds();
    if (latency <= 0)
    {
        Release(id, now);
        return;
    }
    m_events.push({now + latency, m_seq++, Ev::READY, 0, id});
}

void
CollectivePlanCost::EstimateRun::Release(uint32_t id, double now)
{
    const CommPlan::Transfer& t = m_transfers[id];
    const CollectiveProtocolCosts::RateCharge charge = m_protocol.GetRateCharge(id, t.bytes);
    if (charge.server != 0)
    {
        // The protocol's rate servers, as the engine charges them.
        double& free = m_serverFree[charge.server];
        free = std::max(free, now) + charge.service.GetSeconds();
        m_due[id] = free + charge.after.GetSeconds();
    }
    if (const double hold = m_protocol.GetCoarseHold(id, t.bytes).GetSeconds(); hold > 0)
    {
        m_due[id] = std::max(m_due[id], now + hold); // a coarsened ring's steps, as the engine
    }
    switch (t.kind)
    {
    case CommPlan::Kind::POINT_TO_POINT: {
        const CarrierPath& p = PathOf(t);
        m_remaining[id] = std::max<uint64_t>(m_wire[id], 1); // a zero-byte message still goes
        if (CrossesFabric(p))
        {
            // In the fabric from now on: its port serves its flows in turn with the others.
            InService(id, p, true);
        }
        if (CollectiveDcqcnTerm::Applies(p))
        {
            m_dcqcn.InService(p, true); // one more input of its receiving port
        }
        const uint64_t flow = p.servesInSendOrder ? 0 : p.rxPort * 1024 + (t.channel % 1024);
        TxPort& tx = m_txPorts[p.txPort];
        auto& queue = tx.flows[flow];
        if (queue.empty())
        {
            tx.active.push_back(flow);
        }
        queue.push_back(id);
        ServeNext(p.txPort, now);
        break;
    }
    case CommPlan::Kind::SWITCH_REDUCE:
    case CommPlan::Kind::NETWORK_REDUCE:
    case CommPlan::Kind::SWITCH_ALL_REDUCE: {
        const CarrierSwitchPath& s = SwitchPathOf(t);
        m_contributionsLeft[id] = static_cast<uint32_t>(s.txPorts.size());
        m_lastContribution[id] = now;
        for (uint64_t port : s.txPorts)
        {
            OfferSwitch(port, id, now);
        }
        break;
    }
    case CommPlan::Kind::SWITCH_MULTICAST:
    case CommPlan::Kind::NETWORK_MULTICAST:
        OfferSwitch(SwitchPathOf(t).txPorts[m_plan.GetMemberIndex(t.members, t.src)], id, now);
        break;
    }
}

double
CollectivePlanCost::EstimateRun::Run()
{
    const size_t nT = m_transfers.size();
    const double call = m_protocol.GetCallLatency().GetSeconds();
    for (uint32_t id = 0; id < nT; ++id)
    {
        if (m_missing[id] == 0)
        {
            Ready(id, 0.0, call);
        }
    }
    while (!m_events.empty())
    {
        const Event e = m_events.top();
        m_events.pop();
        if (e.kind == Ev::PORT_FREE)
        {
            m_txPorts[e.port].busy = false;
            ServeNext(e.port, e.at);
            continue;
        }
        if (e.kind == Ev::READY)
        {
            Release(e.transfer, e.at);
            continue;
        }
        if (e.kind == Ev::WAKE)
        {
            ServeNext(e.port, e.at);
            continue;
        }
        if (e.kind == Ev::LEAVES)
        {
            const Leaving& l = m_leaving[e.port];
            const double behind = m_dcqcn.QueueAt(l.path->rxPort, e.at, e.at);
            m_dcqcn.Arrived(l.flow, *l.path, l.bytes, e.at - l.ser, e.at, behind);
            m_freeLeaving.push_back(e.port);
            continue;
        }
        for (uint32_t c : m_children[e.transfer])
        {
            if (--m_missing[c] == 0)
            {
                Ready(c, e.at);
            }
        }
    }
    return m_makespan;
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
    const double makespan = EstimateRun(*this, plan).Run();
    NS_LOG_LOGIC(plan.GetAlgorithm()
                 << " " << plan.GetType() << " " << plan.GetTotalBytes() << " B over "
                 << plan.GetGroupSize() << " ranks: " << makespan * 1e6 << " us");
    return Seconds(makespan);
}

} // namespace ns3
