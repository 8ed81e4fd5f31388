// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_PLAN_COST_H
#define COLLECTIVE_PLAN_COST_H

#include "collective-protocol.h"
#include "comm-plan.h"

#include "ns3/collective-transport.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// ExpectedMaxLoad computes exactly up to this many balls (above: independent bins).
constexpr uint32_t EXACT_MAX_LOAD_BALLS = 64;

/**
 * \ingroup ai-fabric
 * The expected load of the most loaded of bins links when balls flows each pick one
 * uniformly at random (ECMP hashing): what a set of equal-cost links loses to collisions.
 * With draws > 1, the most loaded link of that many independent such sets (a path that
 * crosses a leaf's uplinks and then the spines' downlinks draws twice).
 * Exact up to EXACT_MAX_LOAD_BALLS balls; above, the bins' loads are taken as independent
 * Binomial(balls, 1 / bins), never below ceil(balls / bins) (test collective-cost: 128 balls
 * on 8 bins 2 % under the exact value, 4096 on 2 within 1 %).
 * \param balls flows \param bins links \param draws independent sets
 * \return E[max load] (balls when bins is 1; 0 without balls or draws)
 */
double ExpectedMaxLoad(uint32_t balls, uint32_t bins, uint32_t draws = 1);

/**
 * \ingroup ai-fabric
 * Estimated duration of a plan on a carrier, from the carrier's own figures
 * (CollectiveTransport::DescribePath / DescribeSwitchPath): what "auto" compares.
 *
 * The plan runs in a small discrete-event model of the carrier's ports. A transfer is
 * released when its last dependency has arrived. Every sending port serves the released
 * transfers one at a time, lowest plan id first (the order ranks issue them, so a
 * multicast of piece q goes before the reduction of piece q+1, as NCCL's slot loop
 * orders them): a transfer of b bytes holds it for b / rate, its first byte reaches the
 * receiver latency + forwardHops x min(b, forwardUnit) / rate after it starts, and it
 * then holds the receiving port for b / rate (later if that port is still busy). A
 * switch reduction sends one contribution from every member's port and delivers the sum
 * to its issuer once the last contribution has started; a switch multicast holds its
 * source's port once and every member's receiving port. On the ideal carrier (latency
 * held at the sender, receivers optionally free) this is the carrier's own timing.
 *
 * The plan's protocol (CommPlan::GetProtocol) is charged as the engine charges it
 * (CollectiveProtocolCosts): its call latency before the first transfers, its step
 * latency before each point-to-point transfer, its wire bytes instead of the payload.
 *
 * Inside the fabric, a slice crosses its path's link sets (CarrierPath::fabric) before
 * the receiving port: each set is one capacity that the flows in it share (a flow from
 * its transfer's release to its last slice, one per sender, receiver and channel, times
 * its lanes); m flows hashed onto k links get m x rate / ExpectedMaxLoad(m, k, j), j the
 * sets on the path. So an oversubscribed spine and ECMP collisions cost what they cost in
 * expectation over the hash.
 *
 * DCQCN: where the carrier describes the receiving queue and the sender's DCQCN
 * (CarrierPath::queue), each flow's rate follows DCQCN's cuts and recovery under the CNPs
 * that queue's ECN marks would send, and PFC bounds the queue (CollectiveDcqcnTerm).
 *
 * What it leaves out: congestion control on links inside the fabric (DCQCN on a collided
 * or oversubscribed link loses more than its share), PFC's head-of-line blocking beyond
 * the receiving port, and the credit loops of NVLink. The calibration suites
 * (collective-cost, collective-dcqcn-term) state how close the estimates come to the
 * carriers' simulated times.
 *
 * Cost: O(E log E) for E port services (one per transfer, one per member of a switch
 * reduction), plus one ExpectedMaxLoad per distinct (flows, links, sets) a run meets (up
 * to 64 flows O(flows^2 x links) each; above, O(flows)).
 */
class CollectivePlanCost
{
  public:
    /**
     * \param carrier the carrier the plan would run on
     * \param rankMap carrier rank of each plan rank (empty: plan rank r is carrier rank r)
     * \param netOverhead NCCL_NET_OVERHEAD, for the plan's protocol (CollectiveProtocolCosts)
     */
    CollectivePlanCost(const CollectiveTransport& carrier,
                       std::vector<uint32_t> rankMap = {},
                       Time netOverhead = MicroSeconds(NCCL_DEFAULT_NET_OVERHEAD_US));

    /**
     * \param plan a valid plan (CommPlan::Validate) over the ranks of rankMap
     * \return the estimated time from the call's start to its last arrival
     */
    Time Estimate(const CommPlan& plan) const;

  private:
    /// One discrete-event run of Estimate over one plan (defined in the .cc).
    class EstimateRun;

    /// \return the carrier rank of plan rank r
    uint32_t CarrierRank(uint32_t r) const;

    const CollectiveTransport& m_carrier; //!< whose figures are used
    std::vector<uint32_t> m_rankMap;      //!< plan rank -> carrier rank
    Time m_netOverhead;                   //!< NCCL_NET_OVERHEAD
};

} // namespace ns3

#endif
