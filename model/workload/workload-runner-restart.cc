// SPDX-License-Identifier: GPL-2.0-only
// WorkloadRunner's restart policy: after a GPU fails, every rank stops, and after a delay
// all start again from the last iteration they all completed (RestartOnFailure).
#include "workload-runner.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

// The class's log component ("WorkloadRunner"), defined in workload-runner.cc.
LogComponent& WorkloadRunnerLogComponent();
static LogComponent& g_log = WorkloadRunnerLogComponent();

void
WorkloadRunner::FinishCompute(uint64_t generation, uint32_t rank, uint32_t op)
{
    if (generation != m_generation)
    {
        return; // begun before a restart: its rank was stopped
    }
    Finish(rank, op, -1);
}

void
WorkloadRunner::Abort(uint32_t rank)
{
    NS_LOG_INFO("WorkloadRunner: rank " << rank << " failed: every rank stops, restart in "
                                        << m_restartDelay.As(Time::MS));
    const bool waiting = m_halted;
    ++m_generation;
    m_halted = true;
    // Calls waiting for members and calls under way belong to the stopped attempt.
    m_pending.clear();
    m_callBytes.clear();
    if (waiting)
    {
        // Another GPU failed while the ranks waited: the restart counts from this one.
        m_restarts.back() = {rank, Simulator::Now(), Time(), 0};
    }
    else
    {
        m_restarts.push_back({rank, Simulator::Now(), Time(), 0});
    }
    Simulator::Schedule(m_restartDelay,
                        &WorkloadRunner::RestartFrom,
                        Ptr<WorkloadRunner>(this),
                        m_generation);
}

void
WorkloadRunner::RestartFrom(uint64_t generation)
{
    if (generation != m_generation)
    {
        return; // a later failure's restart replaces this one
    }
    // The last pass of the trace every rank completed (a rank done with all of them is at
    // m_iterations): all start again after it.
    uint32_t from = m_iterations;
    for (const RankState& s : m_ranks)
    {
        from = std::min(from, s.repetition);
    }
    NS_LOG_INFO("WorkloadRunner: restart from iteration " << from * m_traceIterations);
    m_halted = false;
    std::fill(m_failed.begin(), m_failed.end(), false);
    Restart& restart = m_restarts.back();
    restart.restartedAt = Simulator::Now();
    restart.fromIteration = from * m_traceIterations;
    // What remains to do is the passes from there on, whatever was done of them before.
    uint64_t opsLeft = 0;
    uint64_t bytesLeft = 0;
    for (uint32_t r = 0; r < m_ranks.size(); ++r)
    {
        for (const TraceOp& o : m_trace->GetOps(r))
        {
            ++opsLeft;
            bytesLeft += FabricBytes(r, o);
        }
    }
    m_opsTotal = m_opsDone + opsLeft * (m_iterations - from);
    m_fabricBytesTotal = m_fabricBytesDone + bytesLeft * (m_iterations - from);
    m_ranksDone = 0;
    for (uint32_t r = 0; r < m_ranks.size(); ++r)
    {
        m_ranks[r].repetition = from;
        StartRepetition(r);
    }
}

const std::vector<WorkloadRunner::Restart>&
WorkloadRunner::GetRestarts() const
{
    return m_restarts;
}

} // namespace ns3
