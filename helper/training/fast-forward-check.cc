// SPDX-License-Identifier: GPL-2.0-only
#include "fast-forward-check.h"

#include "training-report.h"

#include "ns3/comm-plan.h"
#include "ns3/gpu-cluster-helper.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace ns3
{

FastForwardFigures
FastForwardFigures::Of(const TrainingSimulation& sim)
{
    FastForwardFigures f;
    f.iterations = TrainingReport(sim).GetIterationTimes();
    f.wallSeconds = sim.GetWallSeconds();
    std::map<std::string, std::pair<double, uint64_t>> sums;
    for (const CallRecord& call : sim.GetRunner()->GetCalls())
    {
        if (!call.finished)
        {
            continue;
        }
        const std::string key =
            CollectiveTypeToString(call.type) + (call.group.empty() ? "" : " " + call.group);
        auto& [sum, n] = sums[key];
        sum += (call.end - call.launch).GetSeconds();
        ++n;
    }
    for (const auto& [key, s] : sums)
    {
        f.collectives[key] = s.first / static_cast<double>(s.second);
    }
    f.skippedFraction = sim.GetSkippedFraction();
    const NvlinkWork nvlink = GetNvlinkWork(sim.GetCluster());
    f.nvlinkSkippedFraction = nvlink.chunks > 0 ? static_cast<double>(nvlink.skippedChunks) /
                                                      static_cast<double>(nvlink.chunks)
                                                : 0.0;
    if (Ptr<FabricMonitor> monitor = sim.GetMonitor())
    {
        for (const FabricMonitor::Link& link : monitor->GetLinks())
        {
            f.linkBytes += link.bytes;
        }
    }
    return f;
}

bool
FastForwardFigures::Compare(const FastForwardFigures& reference,
                            const FastForwardFigures& fast,
                            std::ostream& table,
                            std::string* failure)
{
    bool ok = true;
    auto row = [&](const std::string& name, double ref, double ff, double tolerance) {
        const double diff = ref != 0 ? (ff - ref) / ref : (ff == 0 ? 0 : 1);
        const bool within = std::abs(diff) <= tolerance;
        table << "  " << std::left << std::setw(34) << name << std::right << std::setw(14)
              << std::setprecision(6) << ref << std::setw(14) << ff << std::setw(10)
              << std::setprecision(3) << 100 * diff << " %" << (within ? "" : "  OUTSIDE") << "\n";
        if (!within && ok)
        {
            ok = false;
            std::ostringstream why;
            why << name << " differs by " << 100 * diff << " % (at most " << 100 * tolerance
                << " %)";
            *failure = why.str();
        }
    };
    table << "  " << std::left << std::setw(34) << "figure" << std::right << std::setw(14)
          << "reference" << std::setw(14) << "fast-fwd" << std::setw(12) << "diff"
          << "\n";
    if (reference.iterations.size() != fast.iterations.size())
    {
        *failure = "the runs finished different numbers of iterations";
        return false;
    }
    for (std::size_t i = 0; i < reference.iterations.size(); ++i)
    {
        row("iteration " + std::to_string(i) + " (ms)",
            reference.iterations[i].GetSeconds() * 1e3,
            fast.iterations[i].GetSeconds() * 1e3,
            ITERATION_TOLERANCE);
    }
    for (const auto& [key, ref] : reference.collectives)
    {
        auto it = fast.collectives.find(key);
        row(key + " mean (us)",
            ref * 1e6,
            it == fast.collectives.end() ? 0 : it->second * 1e6,
            COLLECTIVE_TOLERANCE);
    }
    // Reported, not bounded: the ACKs of skipped packets are counted by formula; the wall
    // time is what the fast-forward is for.
    table << "  " << std::left << std::setw(34) << "wall (s)" << std::right << std::setw(14)
          << std::setprecision(4) << reference.wallSeconds << std::setw(14) << fast.wallSeconds
          << "\n";
    table << "  " << std::left << std::setw(34) << "link bytes (GB)" << std::right << std::setw(14)
          << std::setprecision(6) << reference.linkBytes / 1e9 << std::setw(14)
          << fast.linkBytes / 1e9 << std::setw(10) << std::setprecision(3)
          << (reference.linkBytes ? 100.0 *
                                        (static_cast<double>(fast.linkBytes) -
                                         static_cast<double>(reference.linkBytes)) /
                                        static_cast<double>(reference.linkBytes)
                                  : 0.0)
          << " %\n";
    return ok;
}

} // namespace ns3
