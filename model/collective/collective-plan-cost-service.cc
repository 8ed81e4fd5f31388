// SPDX-License-Identifier: GPL-2.0-only
// What one service of CollectivePlanCost's run costs: a slice of a point-to-point transfer
// through the fabric's link sets and its receiving port (with DCQCN's term), and a switch
// operation (reduction engine, multicast to the members).
#include "collective-plan-cost-run.h"

#include "ns3/abort.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

using plancost::CrossesFabric;
using plancost::Serialization;
using plancost::SliceOf;

void
CollectivePlanCost::EstimateRun::ToEveryMember(uint32_t id,
                                               const CarrierSwitchPath& s,
                                               double ser,
                                               double first,
                                               double notBefore)
{
    double done = std::max(first, notBefore);
    for (uint64_t rxPort : s.rxPorts)
    {
        double& rx = m_rxFree[rxPort];
        rx = std::max(first, rx) + ser;
        done = std::max(done, rx);
    }
    Arrive(id, done);
}

double
CollectivePlanCost::EstimateRun::ReduceOnEngine(uint32_t id,
                                                const CarrierSwitchPath& s,
                                                double unit)
{
    if (s.engineBytesPerSecond <= 0)
    {
        return 0;
    }
    // The engine is one FIFO server for every reduction on the switch: it starts once the
    // first unit of every contribution is in, behind the reductions before it.
    const double half = s.latency.GetSeconds() / 2;
    double& engine = m_engineFree[s.engine];
    const double start = std::max(m_lastContribution[id] + half + unit, engine);
    engine = start + Serialization(m_wire[id], s.engineBytesPerSecond);
    return engine + half + unit;
}

double
CollectivePlanCost::EstimateRun::ServeSwitch(uint32_t id, double now)
{
    const CommPlan::Transfer& t = m_transfers[id];
    const CarrierSwitchPath& s = SwitchPathOf(t);
    const double ser = Serialization(m_wire[id], s.bytesPerSecond);
    const double unit = Serialization(std::min(m_wire[id], s.forwardUnit), s.bytesPerSecond);
    const CommPlan::Kind effect = CommPlan::DataEffect(t.kind);
    if (effect == CommPlan::Kind::SWITCH_REDUCE || effect == CommPlan::Kind::SWITCH_ALL_REDUCE)
    {
        m_lastContribution[id] = std::max(m_lastContribution[id], now);
        if (--m_contributionsLeft[id] == 0)
        {
            const double first = m_lastContribution[id] + s.latency.GetSeconds() + unit;
            const double reduced = ReduceOnEngine(id, s, unit);
            if (effect == CommPlan::Kind::SWITCH_REDUCE)
            {
                double& rx = m_rxFree[s.rxPorts[m_plan.GetMemberIndex(t.members, t.dst)]];
                rx = std::max(first, rx) + ser;
                Arrive(id, std::max(rx, reduced));
                return ser;
            }
            // In-network all-reduce: the sum to every member.
            ToEveryMember(id, s, ser, first, reduced);
        }
        return ser;
    }
    ToEveryMember(id, s, ser, now + s.latency.GetSeconds() + unit); // multicast
    return ser;
}

void
CollectivePlanCost::EstimateRun::LeavesAt(double done, const Leaving& slice)
{
    uint64_t slot = m_leaving.size();
    if (m_freeLeaving.empty())
    {
        m_leaving.push_back(slice);
    }
    else
    {
        slot = m_freeLeaving.back();
        m_freeLeaving.pop_back();
        m_leaving[slot] = slice;
    }
    m_events.push({done, m_seq++, Ev::LEAVES, slot, 0});
}

uint64_t
CollectivePlanCost::EstimateRun::ConnectionOf(uint32_t id) const
{
    const CommPlan::Transfer& t = m_transfers[id];
    return (uint64_t{m_cost.CarrierRank(t.src)} << 40) ^
           (uint64_t{m_cost.CarrierRank(t.dst)} << 16) ^ t.channel;
}

void
CollectivePlanCost::EstimateRun::InService(uint32_t id, const CarrierPath& p, bool on)
{
    // One flow per (sender, receiver, channel): the queue pairs of one connection.
    const uint64_t flow = ConnectionOf(id);
    const uint64_t lanes =
        p.laneRequestBytes == 0
            ? p.lanes
            : std::min<uint64_t>(
                  p.lanes,
                  std::max<uint64_t>(1,
                                     (m_wire[id] + p.laneRequestBytes - 1) / p.laneRequestBytes));
    for (const CarrierBundle& b : p.fabric)
    {
        Pool& pool = m_pools[b.id];
        auto& [transfers, counted] = pool.flows[flow];
        if (on)
        {
            ++transfers;
            const auto wide = static_cast<uint32_t>(lanes);
            if (wide > counted)
            {
                pool.lanes += wide - counted;
                counted = wide;
            }
        }
        else if (--transfers == 0)
        {
            pool.lanes -= counted;
            pool.flows.erase(flow);
        }
    }
}

std::pair<double, double>
CollectivePlanCost::EstimateRun::CrossFabric(const CarrierPath& p,
                                             uint64_t slice,
                                             double now,
                                             double leaves)
{
    // Each link set is a capacity its flows share: m flows hashed onto k links finish
    // when the most loaded link does, so together they get m x rate / E[max load]. A
    // flow is as slow as the worst link it crosses: on a path through several sets, the
    // worst of as many independent draws.
    const auto draws = static_cast<uint32_t>(p.fabric.size());
    double start = now;
    double end = leaves;
    for (const CarrierBundle& b : p.fabric)
    {
        Pool& pool = m_pools[b.id];
        const uint32_t m = std::max<uint32_t>(pool.lanes, 1);
        const uint64_t key = (uint64_t{m} << 32) | (uint64_t{draws} << 24) | b.links;
        auto it = m_maxLoads.find(key);
        if (it == m_maxLoads.end())
        {
            it = m_maxLoads.emplace(key, ExpectedMaxLoad(m, b.links, draws)).first;
        }
        const double capacity = m * b.bytesPerSecond / it->second;
        start = std::max(start, pool.freeAt);
        pool.freeAt = start + Serialization(slice, capacity);
        end = std::max(end, pool.freeAt);
    }
    return {start, end};
}

double
CollectivePlanCost::EstimateRun::ServeSlice(uint32_t id, double now, double& paced)
{
    const CommPlan::Transfer& t = m_transfers[id];
    const CarrierPath& p = PathOf(t);
    // At least a byte a slice: a zero-byte message (remaining 1) must finish too.
    uint64_t unit = SliceOf(p, m_wire[id]);
    // DCQCN's rate cuts: where the carrier describes them (books every slice, for PFC's
    // thresholds), and acts on the incasts of a few senders (CollectiveDcqcnTerm::Acts).
    const bool described = CollectiveDcqcnTerm::Applies(p);
    const bool dcqcn = described && m_dcqcn.Acts(p);
    if (dcqcn)
    {
        unit = m_dcqcn.SliceBytes(ConnectionOf(id), p, now, unit, m_wire[id]);
    }
    const uint64_t slice = std::min(m_remaining[id], std::max<uint64_t>(unit, 1));
    m_remaining[id] -= slice;
    const bool last = m_remaining[id] == 0;
    const double ser = Serialization(slice, p.bytesPerSecond);
    paced = ser;
    if (p.latencyHoldsSender)
    {
        const double busy = p.latency.GetSeconds() + ser;
        double done = now + busy;
        if (p.modelReceiver)
        {
            double& rx = m_rxFree[p.rxPort];
            done = std::max(done, rx + ser);
            rx = done;
        }
        if (last)
        {
            Arrive(id, done);
        }
        return busy;
    }
    // Through the fabric's shared link sets (if any), then the receiver's port.
    const bool fabric = CrossesFabric(p);
    double start = now;
    double crossed = now + ser;
    if (fabric)
    {
        std::tie(start, crossed) = CrossFabric(p, slice, now, crossed);
        if (last)
        {
            InService(id, p, false);
        }
    }
    // Under DCQCN the flow sends at its rate: the slice takes paced >= ser to leave, and
    // its bytes are in the receiving port's queue from its last ser on.
    if (dcqcn)
    {
        paced = m_dcqcn.Send(ConnectionOf(id), p, now, ser);
    }
    const double first =
        start + p.latency.GetSeconds() +
        p.forwardHops * Serialization(std::min(slice, p.forwardUnit), p.bytesPerSecond);
    double from = first + (paced - ser);
    double done = first + paced;
    double hold = 0; // PFC: how long the sender is paused before the slice may leave
    if (p.modelReceiver)
    {
        double& rx = m_rxFree[p.rxPort];
        if (dcqcn)
        {
            // A slice that would find the queue above what PFC lets it hold waits at the
            // sender until it is down to that.
            hold = m_dcqcn.Hold(p, from, now);
            from += hold;
        }
        const double begin = std::max(from, rx);
        done = begin + ser;
        if (dcqcn && m_dcqcn.MayMark(p, now, done))
        {
            // Marked as it leaves the port, by the queue behind it then.
            LeavesAt(done, {&p, ConnectionOf(id), slice, ser});
        }
        if (described)
        {
            // Every slice counts in its buffer's queues (PFC's thresholds).
            m_dcqcn.Book(p, from, begin, done, static_cast<double>(slice));
        }
    }
    if (described && last)
    {
        m_dcqcn.InService(p, false);
    }
    if (fabric)
    {
        // Not before the last of the slice has crossed the most loaded link set.
        done = std::max(done, crossed + p.latency.GetSeconds());
    }
    if (p.modelReceiver)
    {
        m_rxFree[p.rxPort] = done;
    }
    if (last)
    {
        Arrive(id, done);
    }
    paced += hold;
    return ser + hold;
}

} // namespace ns3
