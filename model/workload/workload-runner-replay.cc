// SPDX-License-Identifier: GPL-2.0-only
// WorkloadRunner's part of the engine's call replay: which ranks can vouch that a call of
// theirs runs alone on their server's NVSwitch (CollectiveEngine::RunSelected's alone).
#include "workload-runner.h"

#include "ns3/log.h"

#include <map>
#include <set>
#include <string>

namespace ns3
{

// The class's log component ("WorkloadRunner"), defined in workload-runner.cc.
LogComponent& WorkloadRunnerLogComponent();
static LogComponent& g_log = WorkloadRunnerLogComponent();

void
WorkloadRunner::FindLoneCallers()
{
    const uint32_t n = m_trace->GetNRanks();
    // Per group: its ranks on each server.
    std::map<std::string, std::map<uint32_t, uint32_t>> perServer;
    for (const TraceGroup& g : m_trace->GetGroups())
    {
        std::map<uint32_t, uint32_t>& count = perServer[g.name];
        for (uint32_t r : g.ranks)
        {
            ++count[m_world.GetServer(r)];
        }
    }
    m_loneCaller.assign(n, true);
    uint32_t lone = n;
    for (uint32_t r = 0; r < n; ++r)
    {
        std::set<uint32_t> streams; // the rank's streams of calls inside its server
        for (const TraceOp& o : m_trace->GetOps(r))
        {
            const bool inside = (o.kind == TraceOpKind::COLLECTIVE &&
                                 perServer.at(o.group).at(m_world.GetServer(r)) > 1) ||
                                ((o.kind == TraceOpKind::SEND || o.kind == TraceOpKind::RECV) &&
                                 m_world.SameServer(r, o.peer));
            if (inside && streams.insert(o.stream).second && streams.size() > 1)
            {
                m_loneCaller[r] = false;
                --lone;
                break;
            }
        }
    }
    NS_LOG_INFO(lone << " of " << n
                     << " ranks have one stream of calls inside their server: their calls "
                        "over a whole NVSwitch may be replayed");
}

} // namespace ns3
