// SPDX-License-Identifier: GPL-2.0-only
#ifndef JOB_LINK_SHARE_H
#define JOB_LINK_SHARE_H

#include "training-simulation.h"

#include "ns3/fabric-monitor.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * One direction of a RoCE cable, and the RDMA payload each job's queue pairs sent over it.
 */
struct JobLinkShare
{
    const FabricMonitor::Link* link{nullptr}; //!< the link (names, class, all its bytes)
    std::vector<uint64_t> jobBytes;           //!< per job of the run, payload bytes
    uint32_t jobs{0};                         //!< jobs with bytes on it

    /// \return the jobs' bytes, summed
    uint64_t GetJobBytes() const;
};

/**
 * Which jobs crossed which links: every queue pair of every job's NICs, the payload it
 * delivered while the job held its GPUs (TrainingSimulation::GetJobQueuePairBytes)
 * counted on each port of its route (TraceQueuePairRoute: the switches' ECMP
 * choice for its UDP source port). Routes are read after the run: a queue pair rerouted
 * by a link event counts on its last route; ACKs and CNPs (the other direction) are not
 * counted.
 * \param sim a finished run with a fabric monitor
 * \return every link some job crossed, the most bytes (of every kind, FabricMonitor) first
 */
std::vector<JobLinkShare> ShareLinksByJob(const TrainingSimulation& sim);

} // namespace ns3

#endif // JOB_LINK_SHARE_H
