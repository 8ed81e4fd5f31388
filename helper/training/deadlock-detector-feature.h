// SPDX-License-Identifier: GPL-2.0-only
#ifndef DEADLOCK_DETECTOR_FEATURE_H
#define DEADLOCK_DETECTOR_FEATURE_H

#include "training-feature.h"

#include "ns3/pfc-deadlock-detector.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A PfcDeadlockDetector on every RoCE switch of the cluster (it checks only while pauses
 * persist, so a run without PFC pays nothing); the report lists what it found.
 */
class DeadlockDetectorFeature : public TrainingFeature
{
  public:
    std::string GetName() const override;
    /// Watches the switches of a packet fabric; nothing on the ideal topology.
    bool Install(const TrainingContext& context, std::string* error) override;
    /// \return the deadlocks found (none without a packet fabric)
    std::vector<PfcDeadlock> GetDeadlocks() const;

  private:
    Ptr<PfcDeadlockDetector> m_detector; //!< null on the ideal topology
};

} // namespace ns3

#endif // DEADLOCK_DETECTOR_FEATURE_H
