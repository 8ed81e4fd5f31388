// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_SWIFT_H
#define ROCE_SWIFT_H

#include "ns3/nstime.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Swift (Kumar et al., SIGCOMM 2020, Algorithm 1 and section 3.5) on a RoCE queue pair:
 * a congestion window, in packets, driven by delay against a target.
 *
 * Every ACK carries an RTT (GetSignalNeeds asks for rttPerAck: sender-side timestamps).
 * The target is BaseTarget + Hops × PerHopScaling + the flow-scaling term
 * max(0, min(α / √cwnd + β', FsRange)), with α = FsRange / (1/√FsMinCwnd − 1/√FsMaxCwnd)
 * and β' = −α / √FsMaxCwnd (FsRange at FsMinCwnd packets, 0 at FsMaxCwnd). Then:
 *
 * - delay < target: cwnd += Ai / cwnd per packet acknowledged (Ai per packet if cwnd < 1);
 * - otherwise, at most once per RTT: cwnd ← max(1 − Beta (delay − target) / delay,
 *   1 − MaxMdf) cwnd;
 * - NAK (fast recovery): cwnd ← (1 − MaxMdf) cwnd, at most once per RTT; timeout: the
 *   same, or MinCwnd after RetxResetThreshold timeouts in a row;
 *
 * cwnd within [MinCwnd, ∞); below one packet the window is one packet and the pacing
 * rate cwnd × MTU / RTT (Swift's pacing delay RTT / cwnd). The first window is the
 * bandwidth-delay product of the first RTT sample (the first round trip goes at line
 * rate).
 *
 * Not modelled: the endpoint window (Swift's second window, driven by the receiving
 * host's delay, which NIC timestamps t2 and t3 separate from the fabric's: the ACK here
 * has no field for them, so the fabric window sees the whole RTT, host receive queue
 * included); the hop count (Swift reads it from the TTL, which the module's switches do
 * not decrement: set Hops to the path's switch count, or leave 0 and fold it into
 * BaseTarget).
 */
class RoceSwift : public RoceCongestionControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoceSwift();
    ~RoceSwift() override;

    void OnAck(const RoceAckSignal& signal) override;
    void OnNak() override;
    void OnTimeout() override;
    /// \return rttPerAck
    RoceSignalNeeds GetSignalNeeds() const override;
    bool CheckConfiguration(std::string* error) const override;

    double GetCwnd() const; //!< \return the window in packets (0 before the first RTT)
    /// \param cwnd a window in packets \return the target delay for it
    Time GetTargetDelay(double cwnd) const;

    /// Signature of the Cwnd trace: window in packets after a change.
    typedef void (*CwndTracedCallback)(double cwnd);

  private:
    /// Multiplicative decrease by factor if allowed (once per RTT). \param factor in (0, 1]
    void Decrease(double factor);
    /// Window and pacing from cwnd.
    void Apply();

    // attributes
    double m_ai;          //!< Ai: additive increment, packets per RTT
    double m_beta;        //!< Beta
    double m_maxMdf;      //!< MaxMdf
    Time m_baseTarget;    //!< BaseTarget
    Time m_perHop;        //!< PerHopScaling
    uint32_t m_hops;      //!< Hops
    Time m_fsRange;       //!< FsRange
    double m_fsMinCwnd;   //!< FsMinCwnd
    double m_fsMaxCwnd;   //!< FsMaxCwnd
    double m_minCwnd;     //!< MinCwnd
    uint32_t m_retxReset; //!< RetxResetThreshold

    // state
    double m_cwnd{0};        //!< packets
    uint64_t m_mss{0};       //!< payload bytes per packet
    Time m_rtt;              //!< latest RTT sample
    Time m_lastDecrease;     //!< when the window last went down
    bool m_decreased{false}; //!< it ever did
    uint32_t m_retxCount{0}; //!< timeouts in a row

    TracedCallback<double> m_cwndTrace; //!< Cwnd
};

} // namespace ns3

#endif /* ROCE_SWIFT_H */
