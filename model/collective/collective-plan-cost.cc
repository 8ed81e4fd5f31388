// SPDX-License-Identifier: GPL-2.0-only
#include "collective-plan-cost.h"

#include "collective-dcqcn-term.h"
#include "collective-protocol.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectivePlanCost");

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

namespace
{

/// \return the seconds bytes take at rate bytes per second (0 when the rate is unknown)
double
Serialization(uint64_t bytes, double rate)
{
    return rate > 0 ? static_cast<double>(bytes) / rate : 0.0;
}

/// \return a slice size that keeps a transfer of bytes over p to a bounded number of slices
uint64_t
SliceOf(const CarrierPath& p, uint64_t bytes)
{
    if (p.servesInSendOrder)
    {
        return bytes;
    }
    constexpr uint64_t MAX_SLICES = 32;
    return std::max<uint64_t>(p.forwardUnit, (bytes + MAX_SLICES - 1) / MAX_SLICES);
}

/// \return whether a transfer over p shares the fabric's link sets with others (a carrier
///         whose latency holds the sender is a per-message cost model: ports only)
bool
CrossesFabric(const CarrierPath& p)
{
    return !p.fabric.empty() && !p.latencyHoldsSender;
}

} // namespace

/**
 * A small discrete-event run over doubles (seconds): the estimate is compared, not
 * replayed, and doubles keep the per-transfer work small.
 */
class CollectivePlanCost::EstimateRun
{
  public:
    /**
     * \param cost the estimator: its carrier and rank map
     * \param plan a valid plan with at least one transfer
     */
    EstimateRun(const CollectivePlanCost& cost, const CommPlan& plan);

    /// \return the time of the last arrival, in seconds, after running the whole plan
    double Run();

  private:
    // A sending port serves its flows round robin, one slice at a time, as NVLink ports
    // interleave chunks and NICs interleave queue pairs' packets. A flow is the transfers
    // of one (receiving port, channel), served in the order they were released; switch
    // operations form one more flow, served in plan order (the order ranks issue them, so
    // a multicast of piece q goes before the reduction of piece q + 1) and whole (the
    // switch's reduction slots admit a piece at a time). A carrier that serves in send
    // order (IdealTransport) has one flow per port and whole messages. The receiving port
    // takes the slices in the order they arrive.
    static constexpr uint64_t SWITCH_FLOW = std::numeric_limits<uint64_t>::max();

    /// A sending port.
    struct TxPort
    {
        double freeAt{0};
        bool busy{false};
        std::deque<uint64_t> active; //!< flows with work, in round-robin order
        std::unordered_map<uint64_t, std::deque<uint32_t>> flows; //!< per flow: transfers
        std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> switchOps;
        /// flows DCQCN holds below line rate: not before then (CollectiveDcqcnTerm)
        std::unordered_map<uint64_t, double> pacedUntil;
        double wakeAt{-1}; //!< a WAKE booked for then (-1: none)
    };

    /// A set of equal-cost links of the fabric (CarrierBundle) as one shared capacity.
    struct Pool
    {
        double freeAt{0}; //!< when its capacity is free again
        /// per flow: transfers in service, and the lanes counted for it (its widest)
        std::map<uint64_t, std::pair<uint32_t, uint32_t>> flows;
        uint32_t lanes{0}; //!< lanes of the flows in service
    };

    /// A slice under DCQCN on its way out of its receiving port (LEAVES).
    struct Leaving
    {
        const CarrierPath* path; //!< its path (m_paths does not move its entries)
        uint64_t flow;           //!< its connection
        uint64_t bytes;          //!< its bytes
        double ser;              //!< its time at line rate
    };

    /// What an event does.
    enum class Ev : uint8_t
    {
        PORT_FREE, //!< a sending port finished a slice: serve the next
        ARRIVED,   //!< a transfer arrived: release its children
        READY,     //!< a transfer's protocol latency has passed: hand it to its ports
        WAKE,      //!< a paced flow of an idle sending port may send again
        LEAVES,    //!< a slice under DCQCN leaves its receiving port's queue: mark it
    };

    /// An event of the run, in time order (ties: in the order booked).
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

    /// \return the carrier's figures for t's (src, dst), asked once per pair
    const CarrierPath& PathOf(const CommPlan::Transfer& t);
    /// \return the carrier's figures for t's member set, asked once per set
    const CarrierSwitchPath& SwitchPathOf(const CommPlan::Transfer& t);
    /// Book the arrival of transfer id at time at.
    void Arrive(uint32_t id, double at);
    /// The switch's result of id (ser seconds per port of s) leaves towards every member
    /// from first on: book its arrival, not before notBefore.
    void ToEveryMember(uint32_t id,
                       const CarrierSwitchPath& s,
                       double ser,
                       double first,
                       double notBefore = 0);
    /**
     * Queue the reduction of id on its switch's engine (if s has one), from the last
     * contribution's start on.
     * \return when its result has left the engine and crossed a port (0 without engine)
     */
    double ReduceOnEngine(uint32_t id, const CarrierSwitchPath& s, double unit);
    /// One switch operation's bytes leave through port at now: book what follows.
    /// \return how long the port is busy
    double ServeSwitch(uint32_t id, double now);
    /**
     * Pass one slice through the fabric's shared link sets of its path.
     * \param p the transfer's path \param slice its bytes
     * \param now when it starts to leave the sender \param leaves when it has left it
     * \return when it starts through the last set (first) and has crossed it (second)
     */
    std::pair<double, double> CrossFabric(const CarrierPath& p,
                                          uint64_t slice,
                                          double now,
                                          double leaves);
    /// Book a LEAVES event at done for slice.
    void LeavesAt(double done, const Leaving& slice);
    /// Count transfer id's flow in (on, when released) or out (its last slice) of its
    /// path's link sets.
    void InService(uint32_t id, const CarrierPath& p, bool on);
    /// \return the flow of transfer id in the fabric and for DCQCN: its (sender,
    ///         receiver, channel), the queue pairs of one connection
    uint64_t ConnectionOf(uint32_t id) const;
    /**
     * One slice of a point-to-point transfer leaves at now: book its arrival.
     * \param id the transfer \param now when it leaves
     * \param [out] paced how long its flow takes for the slice at the flow's DCQCN rate
     *        (the port's time when the flow is at line rate)
     * \return how long the port is busy
     */
    double ServeSlice(uint32_t id, double now, double& paced);
    /// Serve the next slice of the port's next flow, if any.
    void ServeNext(uint64_t portId, double now);
    /// Queue switch operation id at a sending port and serve the port.
    void OfferSwitch(uint64_t portId, uint32_t id, double now);
    /// Every dependency of transfer id has arrived at now: hand it to its ports after
    /// its protocol latency (plus extra).
    void Ready(uint32_t id, double now, double extra = 0);
    /// Hand transfer id to its ports at now.
    void Release(uint32_t id, double now);

    const CollectivePlanCost& m_cost;                   //!< carrier and rank map
    const CommPlan& m_plan;                             //!< the plan
    const std::vector<CommPlan::Transfer>& m_transfers; //!< its transfers
    CollectiveProtocolCosts m_protocol;                 //!< its protocol's costs
    std::vector<uint64_t> m_wire;                       //!< per transfer: bytes on the wire
    std::vector<double> m_due;                          //!< per transfer: not done before
    std::map<uint64_t, double> m_serverFree;            //!< per rate server: when it is free
    std::vector<uint32_t> m_missing;                    //!< per transfer: deps not arrived
    std::vector<std::vector<uint32_t>> m_children;      //!< per transfer: its dependents
    std::map<std::pair<uint32_t, uint32_t>, CarrierPath> m_paths; //!< by carrier (src, dst)
    std::vector<const CarrierPath*> m_pathOf;                     //!< per transfer, once asked
    std::map<uint32_t, CarrierSwitchPath> m_switchPaths;          //!< by member set
    std::unordered_map<uint64_t, TxPort> m_txPorts;               //!< sending ports
    std::unordered_map<uint64_t, double> m_rxFree;                //!< receiving ports: when free
    std::unordered_map<uint64_t, Pool> m_pools;                   //!< fabric link sets
    CollectiveDcqcnTerm m_dcqcn;                                  //!< DCQCN's rate cuts

    std::vector<Leaving> m_leaving;                    //!< LEAVES, by the event's port field
    std::vector<uint64_t> m_freeLeaving;               //!< slots of m_leaving free again
    std::unordered_map<uint64_t, double> m_maxLoads;   //!< ExpectedMaxLoad by (flows, draws, links)
    std::unordered_map<uint64_t, double> m_engineFree; //!< switch reduction engines: when free
    std::vector<uint64_t> m_remaining;                 //!< point to point: bytes not yet sent
    std::vector<uint32_t> m_contributionsLeft;         //!< switch reductions: members not started
    std::vector<double> m_lastContribution;            //!< switch reductions: last member's start
    std::priority_queue<Event, std::vector<Event>, std::greater<>> m_events; //!< pending
    uint64_t m_seq{0};                                                       //!< events booked
    double m_makespan{0}; //!< the last arrival so far
};

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
