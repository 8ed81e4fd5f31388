// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_DCTCP_H
#define ROCE_DCTCP_H

#include "ns3/data-rate.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257) on a RoCE queue pair.
 *
 * The receiver echoes CE marks in its ACKs with DCTCP's state machine (an ACK at once
 * when the CE state changes: GetSignalNeeds asks for exactEcnEcho), so the sender counts
 * exactly which bytes were marked. Once per window of data (the bytes in flight when the
 * window began, all acknowledged) it updates α ← (1 − g) α + g F, F the fraction of
 * bytes acknowledged with an ECN echo. On an echo, at most once per window of data (the
 * bytes in flight at the cut must be acknowledged before the next), it cuts by α/2:
 *
 * - Mode Rate (the RoCE flavour of the HPCC simulator): rate ← rate (1 − α/2), at least
 *   MinRate; each window that ends without a cut adds RateAi.
 * - Mode Window (DCTCP as in TCP): cwnd ← cwnd (1 − α/2), at least one packet; every
 *   ACK outside a cut adds one packet's payload per window (cwnd += MSS × acked /
 *   cwnd). Packets leave at line rate within the window. The window starts at
 *   InitialWindow, or, if that is 0, at the bandwidth-delay product the first RTT sample
 *   measures (line rate × RTT; the first round trip goes at line rate).
 *
 * A NAK or a timeout halves the rate or the window, once per window of data.
 */
class RoceDctcp : public RoceCongestionControl
{
  public:
    /// What DCTCP's cut and increase act on.
    enum Mode
    {
        RATE,   //!< the sending rate (RoCE flavour)
        WINDOW, //!< the congestion window (TCP flavour)
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoceDctcp();
    ~RoceDctcp() override;

    void Start(uint64_t lineRateBps) override;
    void OnAck(const RoceAckSignal& signal) override;
    void OnNak() override;
    void OnTimeout() override;
    /// \return exactEcnEcho: DCTCP's receiver state machine
    RoceSignalNeeds GetSignalNeeds() const override;

    /// \return α, the running estimate of the fraction of marked bytes
    double GetAlpha() const;
    /// \return the congestion window in bytes (Window mode; 0 before it is known)
    double GetCongestionWindow() const;

    /// Signature of the Alpha trace: α after a window's update.
    typedef void (*AlphaTracedCallback)(double alpha);

  private:
    /// Cut by factor (rate or window), and wait for the data in flight before the next.
    void Cut(double factor);
    /// Start a new observation window at the current acknowledged count.
    void BeginWindow(uint64_t inflightBytes);

    // attributes
    double m_g;               //!< G: gain of the α estimator
    Mode m_mode;              //!< Mode
    DataRate m_rateAi;        //!< RateAi: additive increase per window (Rate mode)
    DataRate m_minRate;       //!< MinRate: a cut never goes below
    double m_initialAlpha;    //!< InitialAlpha
    uint64_t m_initialWindow; //!< InitialWindow (Window mode; 0: the first RTT's BDP)

    // state
    double m_alpha{1.0};         //!< α
    double m_cwnd{0};            //!< congestion window in bytes (Window mode)
    uint64_t m_mss{0};           //!< payload bytes per packet, as the ACKs count them
    uint64_t m_acked{0};         //!< bytes acknowledged so far
    uint64_t m_windowEnd{0};     //!< m_acked at which the observation window ends
    uint64_t m_windowBytes{0};   //!< bytes acknowledged in this observation window
    uint64_t m_windowMarked{0};  //!< of those, acknowledged with an ECN echo
    bool m_windowStarted{false}; //!< an observation window is running
    uint64_t m_cutEnd{0};        //!< no cut until m_acked passes this
    uint64_t m_lastInflight{0};  //!< bytes in flight after the last ACK

    TracedCallback<double> m_alphaTrace; //!< Alpha
};

} // namespace ns3

#endif /* ROCE_DCTCP_H */
