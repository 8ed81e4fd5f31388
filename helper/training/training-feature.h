// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRAINING_FEATURE_H
#define TRAINING_FEATURE_H

#include "training-scenario.h"

#include "ns3/gpu-cluster-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/simple-ref-count.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * What an optional feature of a training run sees once the cluster is built.
 */
struct TrainingContext
{
    const TrainingScenario& scenario; //!< the scenario, as the run uses it
    RoceHelper& roce;                 //!< the helper that built the RoCE fabric
    const GpuCluster& cluster;        //!< the cluster (empty network on the ideal topology)
    bool packetFabric;                //!< false on the ideal topology (no packets, no switches)
};

/**
 * \ingroup ai-fabric
 * One optional feature of a training run (pcap capture, in-network aggregation,
 * background traffic, link events, the PFC deadlock detector), installed by
 * TrainingSimulation::Build in three steps: Check before anything is built, Prepare the
 * cluster helper, Install on the built cluster. A new feature is one class (one file)
 * and one line in TrainingSimulation's list.
 */
class TrainingFeature : public SimpleRefCount<TrainingFeature>
{
  public:
    virtual ~TrainingFeature() = default;

    /// \return the feature's name (for logs)
    virtual std::string GetName() const = 0;

    /**
     * Check the scenario's settings of this feature before anything is built.
     * \param s the scenario
     * \param error set (naming the file, place and what was expected) when they are wrong
     * \return true when they can be used (also when the scenario does not ask for it)
     */
    virtual bool Check(const TrainingScenario& s, std::string* error);

    /**
     * Configure the cluster helper before the cluster is built (default: nothing).
     * \param s the scenario
     * \param helper the helper that will build the cluster
     */
    virtual void Prepare(const TrainingScenario& s, GpuClusterHelper& helper);

    /**
     * Install the feature on the built cluster.
     * \param context the scenario, the RoCE helper and the cluster
     * \param error set (naming the file, place and what was expected) on failure
     * \return true on success
     */
    virtual bool Install(const TrainingContext& context, std::string* error) = 0;

    /// The workload has finished (default: nothing), e.g. stop starting new flows.
    virtual void OnWorkloadFinished();

    /**
     * After the workload: the run stops once no feature is busy (asked every 100 us of
     * simulated time, for at most a simulated second; the report counts what did not end).
     * \return whether the feature still has work under way (default: false)
     */
    virtual bool IsBusy() const;
};

} // namespace ns3

#endif // TRAINING_FEATURE_H
