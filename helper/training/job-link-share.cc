// SPDX-License-Identifier: GPL-2.0-only
#include "job-link-share.h"

#include "ns3/log.h"
#include "ns3/rdma-route.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("JobLinkShare");

uint64_t
JobLinkShare::GetJobBytes() const
{
    return std::accumulate(jobBytes.begin(), jobBytes.end(), uint64_t{0});
}

std::vector<JobLinkShare>
ShareLinksByJob(const TrainingSimulation& sim)
{
    std::vector<JobLinkShare> shares;
    const Ptr<FabricMonitor> monitor = sim.GetMonitor();
    if (!monitor)
    {
        return shares;
    }
    const auto& links = monitor->GetLinks();
    const auto& jobs = sim.GetJobs();
    std::map<const RoceNetDevice*, size_t> linkOf;
    for (size_t k = 0; k < links.size(); ++k)
    {
        linkOf[PeekPointer(links[k].device)] = k;
    }
    std::vector<std::vector<uint64_t>> bytes(links.size(), std::vector<uint64_t>(jobs.size(), 0));
    std::vector<Ptr<RoceNetDevice>> path;
    for (size_t j = 0; j < jobs.size(); ++j)
    {
        for (const auto& [qp, sent] : sim.GetJobQueuePairBytes(jobs[j]))
        {
            if (sent == 0 || !TraceQueuePairRoute(PeekPointer(qp), path))
            {
                continue;
            }
            for (const auto& port : path)
            {
                auto it = linkOf.find(PeekPointer(port));
                if (it != linkOf.end())
                {
                    bytes[it->second][j] += sent;
                }
            }
        }
    }
    for (size_t k = 0; k < links.size(); ++k)
    {
        JobLinkShare share;
        share.link = &links[k];
        share.jobBytes = bytes[k];
        share.jobs = static_cast<uint32_t>(
            std::count_if(bytes[k].begin(), bytes[k].end(), [](uint64_t b) { return b > 0; }));
        if (share.jobs > 0)
        {
            shares.push_back(share);
        }
    }
    std::stable_sort(shares.begin(), shares.end(), [](const JobLinkShare& a, const JobLinkShare& b) {
        return a.link->bytes > b.link->bytes;
    });
    NS_LOG_INFO(shares.size() << " links carried some job's bytes");
    return shares;
}

} // namespace ns3
