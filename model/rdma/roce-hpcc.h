// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_HPCC_H
#define ROCE_HPCC_H

#include "ns3/data-rate.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * HPCC, High Precision Congestion Control (Li et al., SIGCOMM 2019, Algorithm 1), on a
 * RoCE queue pair.
 *
 * Data packets carry in-band telemetry (GetSignalNeeds asks for intTelemetry): every
 * switch stamps its egress timestamp, transmitted bytes, queue length and link rate; the
 * receiver echoes the stack in its ACK. Per ACK, for each hop i against the previous
 * ACK's stamp: u_i = min(q_i, q_i') / (B_i T) + txRate_i / B_i; the most loaded hop gives
 * u and τ (the time between the two stamps, at most T), and U ← (1 − τ/T) U + (τ/T) u.
 * The window W follows the reference window W_c:
 *
 * - U ≥ η or incStage ≥ MaxStage: W = W_c / (U/η) + W_AI (multiplicative, to the target)
 * - otherwise: W = W_c + W_AI (additive increase)
 *
 * W_c and incStage are updated once per RTT (the first ACK past the data that was in
 * flight at the last update); with FastReact the window also reacts to every ACK from
 * W_c without moving it. The queue pair sends at most W in flight, paced at W / T;
 * W_AI = RateAi × T, W ≤ line rate × T. T is BaseRtt, or (0) the smallest RTT measured.
 * The fixed point with N long flows on one bottleneck is U = η + N W_AI / (C T).
 */
class RoceHpcc : public RoceCongestionControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoceHpcc();
    ~RoceHpcc() override;

    void Start(uint64_t lineRateBps) override;
    void OnAck(const RoceAckSignal& signal) override;
    /// \return intTelemetry and ackEveryPacket
    RoceSignalNeeds GetSignalNeeds() const override;

    double GetUtilization() const; //!< \return U, the estimated normalised inflight
    double GetWindow() const;      //!< \return W in bytes (0 before T is known)
    Time GetBaseRtt() const;       //!< \return T in use (zero before it is known)

    /// Signature of the Utilization trace: U after an ACK's update.
    typedef void (*UtilizationTracedCallback)(double u);

  private:
    /// Fold the ACK's telemetry into U. \param signal the ACK \return whether U moved
    bool MeasureInflight(const RoceAckSignal& signal);
    /// \param updateReference move W_c and incStage (once per RTT) \return the window
    double ComputeWindow(bool updateReference);
    /// Set window and pacing rate from W.
    void Apply();
    /// T changed (first or smaller RTT): rescale the window bounds. \param rtt the new T
    void SetBaseRtt(Time rtt);

    // attributes
    double m_eta;        //!< TargetUtilization η
    uint32_t m_maxStage; //!< MaxStage
    DataRate m_rateAi;   //!< RateAi: W_AI = RateAi × T
    DataRate m_minRate;  //!< MinRate: W never below MinRate × T
    bool m_fastReact;    //!< FastReact
    Time m_baseRttAttr;  //!< BaseRtt (0: measured)

    // state
    Time m_t;                 //!< T in use
    double m_u{1.0};          //!< U
    double m_w{0};            //!< W in bytes
    double m_wc{0};           //!< W_c in bytes
    double m_wAi{0};          //!< W_AI in bytes
    double m_wMax{0};         //!< line rate × T in bytes
    double m_wMin{0};         //!< MinRate × T in bytes
    uint32_t m_incStage{0};   //!< incStage
    uint64_t m_acked{0};      //!< bytes acknowledged so far
    uint64_t m_lastUpdate{0}; //!< per-RTT update when m_acked passes this
    std::array<RoceIntHop, int_telemetry::MAX_HOPS> m_last{}; //!< previous ACK's hops
    uint32_t m_lastHops{0};                                   //!< entries in m_last (0: none yet)
    Time m_lastAckTime; //!< when the previous telemetry arrived

    TracedCallback<double> m_uTrace; //!< Utilization
};

} // namespace ns3

#endif /* ROCE_HPCC_H */
