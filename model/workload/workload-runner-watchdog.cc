// SPDX-License-Identifier: GPL-2.0-only
// WorkloadRunner's hang detection: the watchdog that sees a run stop making progress, and
// the report that names the ranks, operations and transfers still waiting.
#include "workload-runner.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

// The class's log component ("WorkloadRunner"), defined in workload-runner.cc: NS_LOG
// finds it under this name.
LogComponent& WorkloadRunnerLogComponent();
static LogComponent& g_log = WorkloadRunnerLogComponent();

bool
WorkloadRunner::AnyComputeRunning() const
{
    bool computing = false;
    for (uint32_t r = 0; r < m_ranks.size() && !computing; ++r)
    {
        if (m_failed[r])
        {
            continue; // its compute never ends
        }
        const RankState& s = m_ranks[r];
        const auto& ops = m_trace->GetOps(r);
        for (uint32_t i = 0; i < s.started.size() && !computing; ++i)
        {
            computing = s.started[i] && !s.finished[i] && ops[i].kind == TraceOpKind::COMPUTE;
        }
    }
    return computing;
}

void
WorkloadRunner::Watchdog()
{
    if (IsFinished())
    {
        return;
    }
    // A running compute op is progress on its way, whatever its length.
    const bool computing = AnyComputeRunning();
    const uint64_t probe = m_probe ? m_probe() : 0;
    // Waiting for a restart is not a hang.
    if (m_progress != m_progressAtCheck || computing || probe != m_probeAtCheck || m_halted)
    {
        m_progressAtCheck = m_progress;
        m_probeAtCheck = probe;
        m_watchdog = Simulator::Schedule(m_hangTimeout,
                                         &WorkloadRunner::Watchdog,
                                         Ptr<WorkloadRunner>(this));
        return;
    }

    m_stuck = true;
    std::ostringstream os;
    os << "no op or transfer finished for " << m_hangTimeout.GetSeconds() * 1e3
       << " ms of simulated time (at " << Simulator::Now().GetSeconds() * 1e3 << " ms) with "
       << (m_opsTotal - m_opsDone) << " of " << m_opsTotal << " ops left\n";
    for (const auto& [rank, at] : m_failures)
    {
        os << "  rank " << rank << ": its GPU failed at " << at.GetSeconds() * 1e3 << " ms\n";
    }
    ReportStuckOps(os);
    ReportPendingTransfers(os);
    m_stuckReport = os.str();
    NS_LOG_WARN("WorkloadRunner: stuck\n" << m_stuckReport);
    Simulator::Stop();
}

void
WorkloadRunner::ReportStuckOps(std::ostream& os) const
{
    const size_t MAX_LINES = 40;
    size_t lines = 0;
    for (uint32_t r = 0; r < m_ranks.size() && lines < MAX_LINES; ++r)
    {
        const RankState& s = m_ranks[r];
        if (s.repetition >= m_iterations)
        {
            continue;
        }
        const auto& ops = m_trace->GetOps(r);
        for (uint32_t i = 0; i < ops.size() && lines < MAX_LINES; ++i)
        {
            const TraceOp& o = ops[i];
            if (s.started[i] && !s.finished[i])
            {
                ReportRunningOp(os, r, i);
                ++lines;
            }
            else if (!s.started[i] && s.streamHead[o.stream] < s.streamOps[o.stream].size())
            {
                const auto& stream = s.streamOps[o.stream];
                const uint32_t head = s.streamHead[o.stream];
                if (stream[head] == i)
                {
                    os << "  rank " << r << " op " << i << " '" << o.name << "' (stream "
                       << o.stream << ") not started: waits for " << s.missingDeps[i]
                       << " dep(s)\n";
                    ++lines;
                }
                else if (head + 1 < stream.size() && stream[head + 1] == i)
                {
                    os << "  rank " << r << " op " << i << " '" << o.name << "' (stream "
                       << o.stream << ") not started: queued behind op " << stream[head] << "\n";
                    ++lines;
                }
            }
        }
    }
}

void
WorkloadRunner::ReportRunningOp(std::ostream& os, uint32_t r, uint32_t i) const
{
    const RankState& s = m_ranks[r];
    const TraceOp& o = m_trace->GetOps(r)[i];
    os << "  rank " << r << " op " << i << " '" << o.name << "' (" << TraceOpKindToString(o.kind);
    if (o.kind == TraceOpKind::COLLECTIVE)
    {
        os << " " << o.collective << " on " << o.group;
    }
    else if (o.kind != TraceOpKind::COMPUTE)
    {
        os << (o.kind == TraceOpKind::SEND ? " to " : " from ") << o.peer;
    }
    os << ", stream " << o.stream << ") started at " << s.startTime[i].GetSeconds() * 1e3 << " ms";
    // Which peers have not arrived?
    for (const auto& [key, call] : m_pending)
    {
        for (const auto& m : call.members)
        {
            if (m.first == r && m.second == i)
            {
                os << ", waiting for " << call.needed - call.members.size()
                   << " more rank(s) to reach it (" << DescribeKey(key) << ")";
                for (const auto& [failed, at] : m_failures)
                {
                    if (!std::any_of(
                            call.members.begin(),
                            call.members.end(),
                            [f = failed](const auto& arrived) { return arrived.first == f; }) &&
                        IsMemberOf(key, failed))
                    {
                        os << ", among them rank " << failed << " (failed at "
                           << at.GetSeconds() * 1e3 << " ms)";
                    }
                }
            }
        }
    }
    os << "\n";
}

void
WorkloadRunner::ReportPendingTransfers(std::ostream& os) const
{
    const auto pending = m_engine->GetPendingTransfers();
    os << "  transfers in flight: " << pending.size() << "\n";
    for (size_t k = 0; k < pending.size() && k < 20; ++k)
    {
        const auto& p = pending[k];
        os << "    flow " << p.src << " -> " << p.dst << ", " << p.bytes << " B, channel "
           << p.channel << ", since " << p.sentAt.GetSeconds() * 1e3 << " ms (call " << p.runId
           << " transfer " << p.transfer << ")\n";
    }
}

bool
WorkloadRunner::IsStuck() const
{
    return m_stuck;
}

std::string
WorkloadRunner::GetStuckReport() const
{
    return m_stuckReport;
}

} // namespace ns3
