// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_DCQCN_FLUID_H
#define ROCE_DCQCN_FLUID_H

#include "roce-dcqcn.h"

#include <cstdint>
#include <limits>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A DCQCN reaction point followed in time without simulator events: the rate a queue
 * pair would send at, given the times its CNPs arrive and the bytes it sends. A cost model
 * (CollectivePlanCost) drives one per flow to see what DCQCN's cuts cost a plan.
 *
 * It keeps RoceDcqcn's rules and grids: the first CNP sets α to InitialAlpha and anchors
 * the α grid (AlphaUpdatePeriod) and the decrease grid (RateDecreasePeriod, 1 ns later);
 * a decrease check cuts Rc to Rc × (1 − α / 2) (not below MinRate) if a CNP arrived since
 * the previous check, setting Rt = Rc after an increase step (or always, with
 * ClampTargetRate); the increase timer (RateIncreaseTimer, restarted by every cut) and the
 * byte counter (ByteCounter) step the rates with RoceDcqcn::StepRates. What it leaves out
 * is what the caller leaves out: which packets are marked and when their CNPs arrive.
 *
 * The caller hands in events in time order: AdvanceTo, OnCnp and OnSend at times that
 * never decrease. Times are in seconds.
 */
class RoceDcqcnFluid
{
  public:
    /**
     * \param figures the reaction point's attributes (RoceDcqcn::GetFigures)
     * \param lineBps the line rate in bit/s (the rate before any CNP)
     */
    RoceDcqcnFluid(const RoceDcqcn::Figures& figures, double lineBps);

    /// Apply every decrease check and increase-timer step due up to time t.
    /// \param t the time, in seconds
    void AdvanceTo(double t);
    /// A CNP reaches the sender.
    /// \param t when, in seconds
    void OnCnp(double t);
    /// Bytes leave the sender (the byte counter).
    /// \param t when, in seconds \param wireBytes how many, on the wire
    void OnSend(double t, uint64_t wireBytes);
    /**
     * Send wireBytes from t on at the reaction point's rate as it moves (its timer steps,
     * byte-counter steps and cuts of CNPs already handed in, as they fall due).
     * \param t when the first byte leaves \param wireBytes bytes on the wire
     * \return how long they take to leave, in seconds
     */
    double Transmit(double t, uint64_t wireBytes);

    /// \return the current rate Rc in bit/s
    double GetRateBps() const;
    /// \return the target rate Rt in bit/s
    double GetTargetRateBps() const;
    /// \return the line rate in bit/s
    double GetLineRateBps() const;
    /// \return α as last applied
    double GetAlpha() const;
    /// \return the rate cuts so far
    uint64_t GetCuts() const;

  private:
    static constexpr double NEVER = std::numeric_limits<double>::infinity(); //!< no event

    /// Apply the α boundaries up to and including t (RoceDcqcn::AlphaAt).
    void UpdateAlpha(double t);
    /// Book the decrease check on its grid after t, unless one is booked.
    void BookDecreaseCheck(double t);
    /// The decrease check at t.
    void DecreaseCheck(double t);
    /// Count bytes sent now towards the byte counter (its steps, if due).
    /// \param wireBytes the bytes
    void Count(uint64_t wireBytes);
    /// One increase step (RoceDcqcn::StepRates) and Rc held within [1 bit/s, line].
    void Step();
    /// \return Rc and Rt at line rate
    bool AtLineRate() const;

    RoceDcqcn::Figures m_f;         //!< attributes
    double m_line;                  //!< line rate, bit/s
    double m_rc;                    //!< Rc
    double m_rt;                    //!< Rt
    double m_alpha;                 //!< α as of the last applied boundary
    bool m_seenCnp{false};          //!< the grids are anchored
    double m_firstCnp{0};           //!< their anchor
    uint64_t m_alphaPeriodsDone{0}; //!< α boundaries applied
    bool m_alphaCnp{false};         //!< a CNP in the current α period
    bool m_decreaseCnp{false};      //!< a CNP since the last decrease check
    double m_decreaseAt{NEVER};     //!< the booked decrease check
    double m_timerAt{NEVER};        //!< the next increase-timer step
    uint32_t m_timerStage{0};       //!< timer steps since the last cut
    uint32_t m_byteStage{0};        //!< byte-counter steps since the last cut
    uint32_t m_hyperSteps{0};       //!< hyper steps since the last cut
    uint64_t m_bytesSinceStep{0};   //!< bytes towards the next byte-counter step
    uint64_t m_cuts{0};             //!< cuts so far
};

} // namespace ns3

#endif
