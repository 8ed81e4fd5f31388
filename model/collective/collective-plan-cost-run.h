// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_PLAN_COST_RUN_H
#define COLLECTIVE_PLAN_COST_RUN_H

// CollectivePlanCost's run over one plan, shared by its two source files (not installed):
// collective-plan-cost.cc holds the event loop (what is ready, released and served next);
// collective-plan-cost-service.cc what one service costs (a slice through the fabric and
// its receiving port, a switch operation).

#include "collective-dcqcn-term.h"
#include "collective-plan-cost.h"
#include "collective-protocol.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

namespace plancost
{

/// \return the seconds bytes take at rate bytes per second (0 when the rate is unknown)
inline double
Serialization(uint64_t bytes, double rate)
{
    return rate > 0 ? static_cast<double>(bytes) / rate : 0.0;
}

/// \return a slice size that keeps a transfer of bytes over p to a bounded number of slices
inline uint64_t
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
inline bool
CrossesFabric(const CarrierPath& p)
{
    return !p.fabric.empty() && !p.latencyHoldsSender;
}

} // namespace plancost

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

} // namespace ns3

#endif // COLLECTIVE_PLAN_COST_RUN_H
