// SPDX-License-Identifier: GPL-2.0-only
#include "roce-dcqcn.h"

#include "../fabric/ai-fabric-compat.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceDcqcn");
NS_OBJECT_ENSURE_REGISTERED(RoceDcqcn);

namespace
{
/// Up to this many idle α periods are applied one multiplication at a time, so the
/// common case (frequent CNPs) is bit-identical to a per-period timer; longer idle
/// stretches use pow(), which stays within a few ulps per period of the iteration.
constexpr uint64_t ALPHA_ITERATE_LIMIT = 64;
} // namespace

TypeId
RoceDcqcn::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceDcqcn")
            .SetParent<RoceCongestionControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<RoceDcqcn>()
            .AddAttribute("AlphaUpdatePeriod",
                          "Period of the alpha update, anchored at the first CNP.",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&RoceDcqcn::m_alphaPeriod),
                          MakeTimeChecker(NanoSeconds(1), Seconds(1)))
            .AddAttribute("RateDecreasePeriod",
                          "Minimum interval between two rate cuts; the check grid is "
                          "anchored 1 ns after the first CNP.",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&RoceDcqcn::m_decreasePeriod),
                          // above 1 ns so the grid anchor (first CNP + 1 ns) lies
                          // strictly inside the first period
                          MakeTimeChecker(NanoSeconds(2), Seconds(1)))
            .AddAttribute("RateIncreaseTimer",
                          "Period of the rate-increase timer, restarted by every cut.",
                          TimeValue(MicroSeconds(300)),
                          MakeTimeAccessor(&RoceDcqcn::m_increasePeriod),
                          MakeTimeChecker(NanoSeconds(1), Seconds(1)))
            .AddAttribute("ByteCounter",
                          "Bytes sent per byte-counter increase step; 0 disables the "
                          "byte counter.",
                          UintegerValue(32767),
                          MakeUintegerAccessor(&RoceDcqcn::m_byteCounter),
                          MakeUintegerChecker<uint64_t>(0, uint64_t{1} << 40))
            .AddAttribute("FastRecoverySteps",
                          "Number F of fast-recovery steps before additive increase.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RoceDcqcn::m_fastRecoverySteps),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("RateAi",
                          "Additive increase R_AI of the target rate.",
                          DataRateValue(DataRate("5Mbps")),
                          MakeDataRateAccessor(&RoceDcqcn::m_rateAi),
                          MakeDataRateChecker())
            .AddAttribute("RateHai",
                          "Hyper increase R_HAI of the target rate.",
                          DataRateValue(DataRate("50Mbps")),
                          MakeDataRateAccessor(&RoceDcqcn::m_rateHai),
                          MakeDataRateChecker())
            .AddAttribute("HyperIncrease",
                          "Constant: Rt += R_HAI per hyper step (firmware); Linear: "
                          "Rt += i*R_HAI at the i-th hyper step (DCQCN paper).",
                          EnumValue(RoceDcqcn::HAI_CONSTANT),
                          aifabric::MakeEnumAccessorCompat<RoceDcqcn::HyperIncreaseMode>(
                              &RoceDcqcn::m_hyperMode),
                          MakeEnumChecker(RoceDcqcn::HAI_CONSTANT,
                                          "Constant",
                                          RoceDcqcn::HAI_LINEAR,
                                          "Linear"))
            .AddAttribute("G",
                          "Gain g of the alpha estimator, in (0, 1].",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&RoceDcqcn::m_g),
                          MakeDoubleChecker<double>(std::numeric_limits<double>::min(), 1.0))
            .AddAttribute("MinRate",
                          "A rate cut never takes the current rate below this.",
                          DataRateValue(DataRate("1Mbps")),
                          MakeDataRateAccessor(&RoceDcqcn::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("RateOnFirstCnp",
                          "On the first CNP set Rt = Rc = this fraction of Rc; 0 means no "
                          "special first-CNP rate (the first cut uses alpha).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&RoceDcqcn::m_rateOnFirstCnp),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("ClampTargetRate",
                          "true: every cut sets Rt = Rc; false: only a cut that follows "
                          "a rate-increase step does.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceDcqcn::m_clampTargetRate),
                          MakeBooleanChecker())
            .AddAttribute("InitialAlpha",
                          "Alpha set on the first CNP.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RoceDcqcn::m_initialAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddTraceSource("Alpha",
                            "Alpha used by a rate decrease.",
                            MakeTraceSourceAccessor(&RoceDcqcn::m_alphaTrace),
                            "ns3::RoceDcqcn::AlphaTracedCallback");
    return tid;
}

RoceDcqcn::RoceDcqcn()
{
    NS_LOG_FUNCTION(this);
}

RoceDcqcn::~RoceDcqcn()
{
    NS_LOG_FUNCTION(this);
}

void
RoceDcqcn::DoDispose()
{
    NS_LOG_FUNCTION(this);
    // The events hold a raw this pointer; they must not fire on a disposed object.
    m_decreaseEvent.Cancel();
    m_increaseEvent.Cancel();
    RoceCongestionControl::DoDispose();
}

void
RoceDcqcn::Start(uint64_t lineRateBps)
{
    NS_LOG_FUNCTION(this << lineRateBps);
    RoceCongestionControl::Start(lineRateBps);
    m_decreaseEvent.Cancel();
    m_increaseEvent.Cancel();
    m_targetRateBps = static_cast<double>(lineRateBps);
    m_alpha = m_initialAlpha;
    m_seenCnp = false;
    m_alphaPeriodsDone = 0;
    m_alphaCnpArrived = false;
    m_decreaseCnpArrived = false;
    m_timerStage = 0;
    m_byteStage = 0;
    m_hyperSteps = 0;
    m_bytesSinceStep = 0;
}

double
RoceDcqcn::AlphaAt(Time t, uint64_t& periodsDone, bool& cnpArrived) const
{
    double alpha = m_alpha;
    if (!m_seenCnp)
    {
        // The α timer starts with the first CNP; before it α does not move.
        return alpha;
    }
    const int64_t elapsed = (t - m_firstCnpTime).GetTimeStep();
    // A boundary falling exactly on t counts as already passed: a CNP at that instant
    // belongs to the period that starts there.
    const uint64_t due = static_cast<uint64_t>(elapsed / m_alphaPeriod.GetTimeStep());
    if (due <= periodsDone)
    {
        return alpha;
    }
    uint64_t pending = due - periodsDone;
    const double keep = 1.0 - m_g;
    if (cnpArrived)
    {
        // Only the first pending boundary can see a CNP: every CNP brings α up to date
        // before it sets the flag, and the boundary clears it.
        alpha = keep * alpha + m_g;
        cnpArrived = false;
        --pending;
    }
    if (pending <= ALPHA_ITERATE_LIMIT)
    {
        for (uint64_t i = 0; i < pending; ++i)
        {
            alpha *= keep;
        }
    }
    else
    {
        alpha *= std::pow(keep, static_cast<double>(pending));
    }
    periodsDone = due;
    return alpha;
}

void
RoceDcqcn::UpdateAlpha()
{
    m_alpha = AlphaAt(Simulator::Now(), m_alphaPeriodsDone, m_alphaCnpArrived);
}

double
RoceDcqcn::GetAlpha() const
{
    uint64_t periodsDone = m_alphaPeriodsDone;
    bool cnpArrived = m_alphaCnpArrived;
    return AlphaAt(Simulator::Now(), periodsDone, cnpArrived);
}

double
RoceDcqcn::GetTargetRateBps() const
{
    return m_targetRateBps;
}

double
RoceDcqcn::GetCurrentRateBps() const
{
    return GetRateBps();
}

bool
RoceDcqcn::AtLineRate() const
{
    const double line = static_cast<double>(GetLineRateBps());
    return GetRateBps() == line && m_targetRateBps == line;
}

bool
RoceDcqcn::IsRateSteady() const
{
    return AtLineRate();
}

void
RoceDcqcn::OnCnp()
{
    NS_LOG_FUNCTION(this);
    NS_ASSERT_MSG(GetLineRateBps() > 0, "RoceDcqcn::OnCnp before Start");
    if (!m_seenCnp)
    {
        // The first CNP anchors both grids. It starts α at InitialAlpha and does not
        // count towards the first α update, but it does ask for a rate cut.
        m_seenCnp = true;
        m_firstCnpTime = Simulator::Now();
        m_alpha = m_initialAlpha;
        m_alphaPeriodsDone = 0;
        m_alphaCnpArrived = false;
        m_decreaseCnpArrived = true;
        if (m_rateOnFirstCnp > 0)
        {
            SetRateBps(m_rateOnFirstCnp * GetRateBps());
            m_targetRateBps = GetRateBps();
        }
        ScheduleDecreaseCheck();
        return;
    }
    // Apply the boundaries already passed first, so this CNP counts for the current
    // α period only.
    UpdateAlpha();
    m_alphaCnpArrived = true;
    m_decreaseCnpArrived = true;
    ScheduleDecreaseCheck();
}

void
RoceDcqcn::ScheduleDecreaseCheck()
{
    if (!m_decreaseEvent.IsExpired())
    {
        // The pending check will see the flag.
        return;
    }
    // Grid: first CNP + 1 ns + k * period, k >= 1. The 1 ns makes the check at
    // k * period see the α update of that same instant.
    const Time origin = m_firstCnpTime + NanoSeconds(1);
    const int64_t period = m_decreasePeriod.GetTimeStep();
    const int64_t since = (Simulator::Now() - origin).GetTimeStep();
    // The next grid point strictly after now; a check that fell exactly on now has run.
    const int64_t k = since < 0 ? 1 : since / period + 1;
    const Time at = origin + TimeStep(k * period);
    m_decreaseEvent = Simulator::Schedule(at - Simulator::Now(), &RoceDcqcn::DecreaseCheck, this);
}

void
RoceDcqcn::DecreaseCheck()
{
    NS_LOG_FUNCTION(this);
    if (!m_decreaseCnpArrived)
    {
        return;
    }
    m_decreaseCnpArrived = false;
    UpdateAlpha();
    m_alphaTrace(m_alpha);

    // Without clamping, a cut right after another keeps the older, higher target so that
    // recovery aims back at the rate before the first cut of the episode.
    const bool increasedSinceCut = m_timerStage > 0 || m_byteStage > 0;
    if (m_clampTargetRate || increasedSinceCut)
    {
        m_targetRateBps = GetRateBps();
    }
    const double cut = GetRateBps() * (1.0 - m_alpha / 2.0);
    SetRateBps(std::max(static_cast<double>(m_minRate.GetBitRate()), cut));
    NS_LOG_DEBUG("cut: alpha " << m_alpha << " Rc " << GetRateBps() << " Rt " << m_targetRateBps);

    m_timerStage = 0;
    m_byteStage = 0;
    m_hyperSteps = 0;
    m_bytesSinceStep = 0;
    if (!m_increaseEvent.IsExpired())
    {
        Simulator::Remove(m_increaseEvent);
    }
    if (m_idle)
    {
        // A late CNP cut an idle queue pair: the restarted timer waits for OnActive.
        m_increasePaused = true;
        m_pausedIncreaseAt = Simulator::Now() + m_increasePeriod;
        return;
    }
    m_increasePaused = false;
    m_increaseEvent = Simulator::Schedule(m_increasePeriod, &RoceDcqcn::IncreaseTimerExpired, this);
}

void
RoceDcqcn::IncreaseTimerExpired()
{
    NS_LOG_FUNCTION(this);
    // The step uses the stage before this expiry is counted, so the first F steps of an
    // episode are fast recovery.
    IncreaseStep();
    ++m_timerStage;
    // At line rate every further step is a no-op until a cut, which restarts the timer
    // and resets the stages; stopping here saves one event per queue pair per period.
    if (!AtLineRate())
    {
        m_increaseEvent =
            Simulator::Schedule(m_increasePeriod, &RoceDcqcn::IncreaseTimerExpired, this);
    }
}

void
RoceDcqcn::OnIdle()
{
    m_idle = true;
    // An idle queue pair needs no timer: its rate matters only at the next send, and
    // OnActive replays the expiries it missed. This keeps thousands of idle QPs from
    // ticking every RateIncreaseTimer for seconds after their last message.
    if (!m_increaseEvent.IsExpired())
    {
        m_pausedIncreaseAt = Simulator::Now() + Simulator::GetDelayLeft(m_increaseEvent);
        m_increasePaused = true;
        Simulator::Remove(m_increaseEvent); // out of the schedule, so idle runs can end
    }
}

void
RoceDcqcn::OnActive()
{
    m_idle = false;
    if (!m_increasePaused)
    {
        return;
    }
    m_increasePaused = false;
    const Time now = Simulator::Now();
    Time at = m_pausedIncreaseAt;
    // Same steps, same order as the running timer (byte counter idle meanwhile).
    while (at <= now && !AtLineRate())
    {
        IncreaseStep();
        ++m_timerStage;
        at += m_increasePeriod;
    }
    if (!AtLineRate())
    {
        m_increaseEvent = Simulator::Schedule(at - now, &RoceDcqcn::IncreaseTimerExpired, this);
    }
}

void
RoceDcqcn::OnSend(uint32_t wireBytes)
{
    // At line rate byte-counter steps cannot change anything, and the next cut resets the
    // counter and stages anyway, so counting would only cost time.
    if (m_byteCounter == 0 || AtLineRate())
    {
        return;
    }
    m_bytesSinceStep += wireBytes;
    while (m_bytesSinceStep >= m_byteCounter)
    {
        m_bytesSinceStep -= m_byteCounter;
        // Same order as the timer: the step sees the stage before this one is counted.
        IncreaseStep();
        ++m_byteStage;
        if (AtLineRate())
        {
            m_bytesSinceStep = 0;
            m_increaseEvent.Cancel();
            break;
        }
    }
}

RoceDcqcn::Figures
RoceDcqcn::GetFigures() const
{
    Figures f;
    f.alphaPeriod = m_alphaPeriod.GetSeconds();
    f.decreasePeriod = m_decreasePeriod.GetSeconds();
    f.increasePeriod = m_increasePeriod.GetSeconds();
    f.byteCounter = m_byteCounter;
    f.fastRecoverySteps = m_fastRecoverySteps;
    f.rateAiBps = static_cast<double>(m_rateAi.GetBitRate());
    f.rateHaiBps = static_cast<double>(m_rateHai.GetBitRate());
    f.hyperLinear = m_hyperMode == HAI_LINEAR;
    f.g = m_g;
    f.minRateBps = static_cast<double>(m_minRate.GetBitRate());
    f.rateOnFirstCnp = m_rateOnFirstCnp;
    f.clampTargetRate = m_clampTargetRate;
    f.initialAlpha = m_initialAlpha;
    return f;
}

void
RoceDcqcn::StepRates(const Figures& f,
                     double lineBps,
                     uint32_t timerStage,
                     uint32_t byteStage,
                     uint32_t& hyperSteps,
                     double& rc,
                     double& rt)
{
    const bool byteCounterOn = f.byteCounter > 0;
    const uint32_t hi = byteCounterOn ? std::max(timerStage, byteStage) : timerStage;
    const uint32_t lo = byteCounterOn ? std::min(timerStage, byteStage) : timerStage;
    double target = rt;
    if (hi < f.fastRecoverySteps)
    {
        // Fast recovery: approach the rate before the cut without raising it.
    }
    else if (lo > f.fastRecoverySteps)
    {
        ++hyperSteps;
        target += f.hyperLinear ? hyperSteps * f.rateHaiBps : f.rateHaiBps;
    }
    else
    {
        target += f.rateAiBps;
    }
    rt = std::min(target, lineBps);
    rc = (rc + rt) / 2.0;
}

void
RoceDcqcn::IncreaseStep()
{
    double rc = GetRateBps();
    StepRates(GetFigures(),
              static_cast<double>(GetLineRateBps()),
              m_timerStage,
              m_byteStage,
              m_hyperSteps,
              rc,
              m_targetRateBps);
    SetRateBps(rc);
    NS_LOG_DEBUG("increase: T " << m_timerStage << " BC " << m_byteStage << " Rc " << GetRateBps()
                                << " Rt " << m_targetRateBps);
}

} // namespace ns3
