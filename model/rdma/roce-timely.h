// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_TIMELY_H
#define ROCE_TIMELY_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * TIMELY (Mittal et al., SIGCOMM 2015, Algorithm 1): rate control from RTT samples taken
 * by the sender's NIC (GetSignalNeeds asks for one with every ACK).
 *
 * Once per window of data (the bytes in flight at the previous update, all
 * acknowledged: one round trip, as the HPCC simulator updates it), with the RTT of the
 * ACK that ends it:
 *
 * - rtt_diff ← (1 − α) rtt_diff + α (rtt − previous rtt); gradient = rtt_diff / MinRtt;
 * - rtt < TLow: rate += δ (RateAi);
 * - rtt > THigh: rate ← rate (1 − β (1 − THigh / rtt));
 * - gradient ≤ 0: rate += N δ, N = HaiMultiplier once HaiThreshold consecutive updates
 *   have had gradient ≤ 0 (hyper-active increase), 1 before;
 * - otherwise: rate ← rate (1 − β gradient).
 *
 * The rate stays within [MinRate, line rate]; the first update only records the RTT.
 */
class RoceTimely : public RoceCongestionControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoceTimely();
    ~RoceTimely() override;

    void Start(uint64_t lineRateBps) override;
    void OnAck(const RoceAckSignal& signal) override;
    /// \return rttPerAck: sender-side timestamps of every packet in flight
    RoceSignalNeeds GetSignalNeeds() const override;
    /**
     * \param error set when THigh does not exceed TLow
     * \return whether it does
     */
    bool CheckConfiguration(std::string* error) const override;

    /// \return the smoothed RTT difference (seconds)
    double GetRttDiff() const;
    /// \return the RTT used by the last update
    Time GetLastRtt() const;

    /// Signature of the Rtt trace: the RTT an update used.
    typedef void (*RttTracedCallback)(Time rtt);

  private:
    // attributes
    double m_alpha;           //!< Alpha: EWMA weight of a new RTT difference
    double m_beta;            //!< Beta: multiplicative decrease factor
    Time m_tLow;              //!< TLow
    Time m_tHigh;             //!< THigh
    Time m_minRtt;            //!< MinRtt: normalises the gradient
    DataRate m_rateAi;        //!< RateAi: additive step δ
    uint32_t m_haiThreshold;  //!< HaiThreshold
    uint32_t m_haiMultiplier; //!< HaiMultiplier: N
    DataRate m_minRate;       //!< MinRate

    // state
    double m_rttDiff{0};     //!< smoothed RTT difference, seconds
    Time m_lastRtt;          //!< RTT of the previous update
    bool m_haveRtt{false};   //!< m_lastRtt is set
    uint32_t m_increases{0}; //!< consecutive updates with gradient <= 0
    uint64_t m_acked{0};     //!< bytes acknowledged so far
    uint64_t m_updateAt{0};  //!< m_acked at which the next update is due

    TracedCallback<Time> m_rttTrace; //!< Rtt
};

} // namespace ns3

#endif /* ROCE_TIMELY_H */
