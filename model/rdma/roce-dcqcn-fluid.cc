// SPDX-License-Identifier: GPL-2.0-only
#include "roce-dcqcn-fluid.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceDcqcnFluid");

namespace
{
/// The decrease grid starts this long after the first CNP (RoceDcqcn's 1 ns).
constexpr double DECREASE_GRID_OFFSET = 1e-9;
} // namespace

RoceDcqcnFluid::RoceDcqcnFluid(const RoceDcqcn::Figures& figures, double lineBps)
    : m_f(figures),
      m_line(lineBps),
      m_rc(lineBps),
      m_rt(lineBps),
      m_alpha(figures.initialAlpha)
{
}

double
RoceDcqcnFluid::GetRateBps() const
{
    return m_rc;
}

double
RoceDcqcnFluid::GetTargetRateBps() const
{
    return m_rt;
}

double
RoceDcqcnFluid::GetLineRateBps() const
{
    return m_line;
}

double
RoceDcqcnFluid::GetAlpha() const
{
    return m_alpha;
}

uint64_t
RoceDcqcnFluid::GetCuts() const
{
    return m_cuts;
}

bool
RoceDcqcnFluid::AtLineRate() const
{
    return m_rc == m_line && m_rt == m_line;
}

void
RoceDcqcnFluid::UpdateAlpha(double t)
{
    if (!m_seenCnp || m_f.alphaPeriod <= 0)
    {
        return;
    }
    const auto due = static_cast<uint64_t>(std::floor((t - m_firstCnp) / m_f.alphaPeriod));
    if (due <= m_alphaPeriodsDone)
    {
        return;
    }
    uint64_t pending = due - m_alphaPeriodsDone;
    const double keep = 1.0 - m_f.g;
    if (m_alphaCnp)
    {
        m_alpha = keep * m_alpha + m_f.g;
        m_alphaCnp = false;
        --pending;
    }
    m_alpha *= std::pow(keep, static_cast<double>(pending));
    m_alphaPeriodsDone = due;
}

void
RoceDcqcnFluid::BookDecreaseCheck(double t)
{
    if (m_decreaseAt != NEVER)
    {
        return;
    }
    const double origin = m_firstCnp + DECREASE_GRID_OFFSET;
    const double period = m_f.decreasePeriod;
    const double since = t - origin;
    const double k = since < 0 ? 1 : std::floor(since / period) + 1;
    m_decreaseAt = origin + k * period;
}

void
RoceDcqcnFluid::DecreaseCheck(double t)
{
    m_decreaseAt = NEVER;
    if (!m_decreaseCnp)
    {
        return;
    }
    m_decreaseCnp = false;
    UpdateAlpha(t);
    if (m_f.clampTargetRate || m_timerStage > 0 || m_byteStage > 0)
    {
        m_rt = m_rc;
    }
    m_rc = std::clamp(std::max(m_f.minRateBps, m_rc * (1.0 - m_alpha / 2.0)), 1.0, m_line);
    ++m_cuts;
    m_timerStage = 0;
    m_byteStage = 0;
    m_hyperSteps = 0;
    m_bytesSinceStep = 0;
    m_timerAt = t + m_f.increasePeriod;
    NS_LOG_LOGIC("cut at " << t << " s: alpha " << m_alpha << " Rc " << m_rc << " Rt " << m_rt);
}

void
RoceDcqcnFluid::Step()
{
    RoceDcqcn::StepRates(m_f, m_line, m_timerStage, m_byteStage, m_hyperSteps, m_rc, m_rt);
    m_rc = std::clamp(m_rc, 1.0, m_line);
}

void
RoceDcqcnFluid::AdvanceTo(double t)
{
    while (true)
    {
        const double next = std::min(m_decreaseAt, m_timerAt);
        if (next > t)
        {
            return;
        }
        if (m_decreaseAt <= m_timerAt)
        {
            DecreaseCheck(m_decreaseAt);
            continue;
        }
        const double at = m_timerAt;
        Step();
        ++m_timerStage;
        m_timerAt = AtLineRate() ? NEVER : at + m_f.increasePeriod;
    }
}

void
RoceDcqcnFluid::OnCnp(double t)
{
    AdvanceTo(t);
    if (!m_seenCnp)
    {
        m_seenCnp = true;
        m_firstCnp = t;
        m_alpha = m_f.initialAlpha;
        m_alphaPeriodsDone = 0;
        m_alphaCnp = false;
        m_decreaseCnp = true;
        if (m_f.rateOnFirstCnp > 0)
        {
            m_rc = std::clamp(m_f.rateOnFirstCnp * m_rc, 1.0, m_line);
            m_rt = m_rc;
        }
        BookDecreaseCheck(t);
        return;
    }
    UpdateAlpha(t);
    m_alphaCnp = true;
    m_decreaseCnp = true;
    BookDecreaseCheck(t);
}

void
RoceDcqcnFluid::OnSend(double t, uint64_t wireBytes)
{
    AdvanceTo(t);
    Count(wireBytes);
}

void
RoceDcqcnFluid::Count(uint64_t wireBytes)
{
    if (m_f.byteCounter == 0 || AtLineRate())
    {
        return;
    }
    m_bytesSinceStep += wireBytes;
    while (m_bytesSinceStep >= m_f.byteCounter)
    {
        m_bytesSinceStep -= m_f.byteCounter;
        Step();
        ++m_byteStage;
        if (AtLineRate())
        {
            m_bytesSinceStep = 0;
            m_timerAt = NEVER;
            break;
        }
    }
}

double
RoceDcqcnFluid::Transmit(double t, uint64_t wireBytes)
{
    AdvanceTo(t);
    double now = t;
    double left = static_cast<double>(wireBytes);
    while (left > 0)
    {
        const double rate = m_rc / 8.0; // bytes per second
        // The bytes up to the next change of rate: a byte-counter step or a timed event.
        double chunk = left;
        if (m_f.byteCounter > 0 && !AtLineRate())
        {
            chunk = std::min(chunk, static_cast<double>(m_f.byteCounter - m_bytesSinceStep));
        }
        const double timed = std::min(m_decreaseAt, m_timerAt);
        if (timed != NEVER)
        {
            chunk = std::min(chunk, std::max(0.0, timed - now) * rate);
        }
        const auto whole = static_cast<uint64_t>(std::ceil(chunk));
        now += static_cast<double>(whole) / rate;
        left -= static_cast<double>(whole);
        if (whole == 0)
        {
            AdvanceTo(timed); // the timed event is due now
            continue;
        }
        // The chunk ends at (or a byte past) the next timed event: its bytes count before it.
        Count(whole);
        AdvanceTo(now);
    }
    return now - t;
}

} // namespace ns3
