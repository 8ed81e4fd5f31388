// SPDX-License-Identifier: GPL-2.0-only
// CollectiveEngine's call replay (ReplayIsolatedCalls): a call on one quiet, isolated
// carrier that was recorded there before takes its recorded time without its transfers.
#include "collective-engine.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <tuple>

namespace ns3
{

// The class's log component ("CollectiveEngine"), defined in collective-engine.cc.
LogComponent& CollectiveEngineLogComponent();
static LogComponent& g_log = CollectiveEngineLogComponent();

bool
CollectiveEngine::ReplayKey::operator<(const ReplayKey& o) const
{
    return std::tie(carrier, plan, rankMap) < std::tie(o.carrier, o.plan, o.rankMap);
}

bool
CollectiveEngine::TryReplay(uint64_t id, const CommPlan& plan, const std::vector<uint32_t>& rankMap)
{
    // Only cached plans: they are immutable while cached, so the plan's address names
    // the call (an eviction forgets its records).
    if (plan.GetNTransfers() == 0 || m_validated.count(&plan) == 0)
    {
        NS_LOG_LOGIC("call " << id << ": not a cached plan, simulated");
        return false;
    }
    // The call must hold every rank of its carrier: then, with the caller's word that
    // its ranks start nothing else there meanwhile (RunSelected's alone), nothing else
    // is posted on it until it ends.
    const Ptr<CollectiveTransport> carrier = m_transport->GetIsolatedCarrier(rankMap);
    if (!carrier || carrier->GetNRanks() != rankMap.size())
    {
        NS_LOG_LOGIC("call " << id << ": not over the whole of one isolated carrier, simulated");
        return false;
    }
    if (!carrier->IsQuiet())
    {
        NS_LOG_LOGIC("call " << id << ": its carrier is busy, simulated");
        return false;
    }
    const ReplayKey key{PeekPointer(carrier), &plan, rankMap};
    auto hit = m_replayBook.find(key);
    if (hit != m_replayBook.end())
    {
        const CarrierRecord& record = *hit->second;
        carrier->Replay(record);
        ++m_replayStats.replayed;
        NS_LOG_LOGIC("call " << id << " replayed: ends in " << record.duration.As(Time::US));
        Simulator::Schedule(record.duration,
                            &CollectiveEngine::FinishReplay,
                            Ptr<CollectiveEngine>(this),
                            id);
        return true;
    }
    Ptr<CarrierRecord> record = carrier->StartRecord();
    if (record)
    {
        RunState& run = m_runs.at(id);
        run.recordOn = carrier;
        run.record = record;
        run.plan = &plan;
        run.rankMap = rankMap;
        run.generation = m_planGeneration;
        NS_LOG_LOGIC("call " << id << " recorded on a quiet carrier");
    }
    return false;
}

void
CollectiveEngine::FinishReplay(uint64_t runId)
{
    auto it = m_runs.find(runId);
    if (it == m_runs.end())
    {
        return; // disposed meanwhile
    }
    // What watches transfers (progress, bytes done) sees them all done, now.
    const uint32_t nT = it->second.result.nTransfers;
    for (uint32_t t = 0; t < nT; ++t)
    {
        m_transferDoneTrace(runId, t);
    }
    Finish(runId);
}

void
CollectiveEngine::EndRecord(RunState& run)
{
    // A plan the cache dropped meanwhile (an eviction, a new carrier) may have left its
    // address to another: no record then.
    const bool kept = run.recordOn->EndRecord(*run.record, run.result.nTransfers) &&
                      run.generation == m_planGeneration;
    if (kept)
    {
        ++m_replayStats.recorded;
        m_replayBook[ReplayKey{PeekPointer(run.recordOn), run.plan, run.rankMap}] = run.record;
    }
    else
    {
        ++m_replayStats.voided;
    }
    NS_LOG_LOGIC("call " << run.result.id
                         << (kept ? " recorded"
                                  : " not recorded (the carrier says why, or the plan cache "
                                    "changed)"));
    run.record = nullptr;
    run.recordOn = nullptr;
}

void
CollectiveEngine::ForgetReplays(const CommPlan* plan) const
{
    for (auto it = m_replayBook.begin(); it != m_replayBook.end();)
    {
        it = it->first.plan == plan ? m_replayBook.erase(it) : std::next(it);
    }
}

bool
CollectiveEngine::GetReplayIsolatedCalls() const
{
    return m_replay;
}

CollectiveEngine::ReplayStats
CollectiveEngine::GetReplayStats() const
{
    return m_replayStats;
}

} // namespace ns3
