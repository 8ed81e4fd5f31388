// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_DCQCN_H
#define ROCE_DCQCN_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * DCQCN reaction point (the sending side of a queue pair), with the semantics of the
 * NVIDIA ConnectX firmware as modelled by the HPCC simulator ("mlx" variant):
 *
 * - α is refreshed on a grid of AlphaUpdatePeriod anchored at the first CNP;
 * - the rate is cut at most once per RateDecreasePeriod, on a grid anchored 1 ns after the
 *   first CNP, and only if a CNP arrived since the previous cut check;
 * - the rate recovers by a timer (RateIncreaseTimer) and optionally a byte counter, in
 *   fast-recovery, additive and hyper stages.
 *
 * The firmware runs the α and decrease timers for ever. With thousands of queue pairs over
 * seconds of simulated time that would dominate the event list, so this model computes α
 * lazily in closed form, schedules a decrease check only when a CNP is waiting for one,
 * and stops the increase timer once nothing can increase any more. The observable rates
 * are the same as those of the always-running timers.
 */
class RoceDcqcn : public RoceCongestionControl
{
  public:
    /// How the target rate grows in the hyper-increase stage.
    enum HyperIncreaseMode
    {
        HAI_CONSTANT, //!< Rt += R_HAI every step (firmware, HPCC simulator)
        HAI_LINEAR,   //!< Rt += i * R_HAI at the i-th hyper step (DCQCN paper)
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoceDcqcn();
    ~RoceDcqcn() override;

    void Start(uint64_t lineRateBps) override;
    void OnCnp() override;
    void OnSend(uint32_t wireBytes) override;
    void OnIdle() override;
    void OnActive() override;
    /// \return true at line rate (Rc and Rt): only a CNP changes the rate then (α decays
    ///         by the clock, not by sends or timers the queue pair drives)
    bool IsRateSteady() const override;

    /// \return α as the always-running α timer would have it now (changes no state)
    double GetAlpha() const;
    /// \return the target rate Rt in bit/s
    double GetTargetRateBps() const;
    /// \return the current rate Rc in bit/s (the same as GetRateBps())
    double GetCurrentRateBps() const;

    /// Signature of the Alpha trace: α used by a rate decrease.
    typedef void (*AlphaTracedCallback)(double alpha);

    /// The reaction point's attributes as plain figures (seconds, bit/s), for a model
    /// that follows DCQCN without simulator events (RoceDcqcnFluid).
    struct Figures
    {
        double alphaPeriod{0};         //!< AlphaUpdatePeriod, s
        double decreasePeriod{0};      //!< RateDecreasePeriod, s
        double increasePeriod{0};      //!< RateIncreaseTimer, s
        uint64_t byteCounter{0};       //!< ByteCounter, bytes (0: off)
        uint32_t fastRecoverySteps{0}; //!< FastRecoverySteps
        double rateAiBps{0};           //!< RateAi
        double rateHaiBps{0};          //!< RateHai
        bool hyperLinear{false};       //!< HyperIncrease is HAI_LINEAR
        double g{0};                   //!< G
        double minRateBps{0};          //!< MinRate
        double rateOnFirstCnp{0};      //!< RateOnFirstCnp
        bool clampTargetRate{false};   //!< ClampTargetRate
        double initialAlpha{1};        //!< InitialAlpha
    };

    /// \return this reaction point's attributes
    Figures GetFigures() const;

    /**
     * One rate-increase step (the arithmetic RoceDcqcn's timer and byte counter apply):
     * fast recovery while the higher of the two stages is below F, hyper increase once
     * the lower is above it, additive increase between (the timer's stage alone when the
     * byte counter is off); then Rc moves half way to Rt.
     * \param f the figures \param lineBps line rate
     * \param timerStage,byteStage the timer's and the byte counter's steps since the
     *        last cut (the byte counter's ignored when it is off)
     * \param [in,out] hyperSteps hyper steps since the last cut
     * \param [in,out] rc current rate (bit/s; not clamped here)
     * \param [in,out] rt target rate (bit/s)
     */
    static void StepRates(const Figures& f,
                          double lineBps,
                          uint32_t timerStage,
                          uint32_t byteStage,
                          uint32_t& hyperSteps,
                          double& rc,
                          double& rt);

  protected:
    void DoDispose() override;

  private:
    /**
     * α after applying every α-period boundary up to and including time t.
     * \param t the time to bring α to
     * \param [in,out] periodsDone boundaries already applied
     * \param [in,out] cnpArrived whether a CNP arrived since the last applied boundary
     * \returns α at t
     */
    double AlphaAt(Time t, uint64_t& periodsDone, bool& cnpArrived) const;
    /// Bring the stored α up to Now().
    void UpdateAlpha();
    /// Schedule the next decrease check on its grid unless one is pending.
    void ScheduleDecreaseCheck();
    /// A decrease-check boundary: cut the rate if a CNP arrived since the last one.
    void DecreaseCheck();
    /// The rate-increase timer expired.
    void IncreaseTimerExpired();
    /// One rate-increase step, chosen by the current timer and byte stages.
    void IncreaseStep();
    /// Rc and Rt are both at line rate: increase steps cannot change anything.
    bool AtLineRate() const;

    // Attributes
    Time m_alphaPeriod;            //!< α update period
    Time m_decreasePeriod;         //!< rate-decrease check period
    Time m_increasePeriod;         //!< rate-increase timer
    uint64_t m_byteCounter;        //!< bytes per byte-counter step; 0 = off
    uint32_t m_fastRecoverySteps;  //!< F
    DataRate m_rateAi;             //!< additive increase R_AI
    DataRate m_rateHai;            //!< hyper increase R_HAI
    HyperIncreaseMode m_hyperMode; //!< constant or linear hyper increase
    double m_g;                    //!< α gain g
    DataRate m_minRate;            //!< floor for Rc after a cut
    double m_rateOnFirstCnp;       //!< fraction of Rc set on the first CNP; 0 = none
    bool m_clampTargetRate;        //!< every cut sets Rt = Rc
    double m_initialAlpha;         //!< α set on the first CNP

    // State
    double m_targetRateBps{0};        //!< Rt
    double m_alpha{1};                //!< α as of the last applied boundary
    bool m_seenCnp{false};            //!< the first CNP has arrived (timers are anchored)
    Time m_firstCnpTime;              //!< anchor of the α and decrease grids
    uint64_t m_alphaPeriodsDone{0};   //!< α boundaries applied since the first CNP
    bool m_alphaCnpArrived{false};    //!< a CNP arrived in the current α period
    bool m_decreaseCnpArrived{false}; //!< a CNP arrived since the last decrease check
    EventId m_decreaseEvent;          //!< pending decrease check
    Time m_pausedIncreaseAt;          //!< when the stopped timer would have fired (idle)
    bool m_increasePaused{false};
    bool m_idle{false};           //!< between OnIdle and OnActive
    EventId m_increaseEvent;      //!< pending rate-increase timer
    uint32_t m_timerStage{0};     //!< T: timer steps since the last cut
    uint32_t m_byteStage{0};      //!< BC: byte-counter steps since the last cut
    uint32_t m_hyperSteps{0};     //!< hyper steps since the last cut (linear mode)
    uint64_t m_bytesSinceStep{0}; //!< bytes counted towards the next byte-counter step

    TracedCallback<double> m_alphaTrace; //!< α used by each rate decrease
};

} // namespace ns3

#endif
