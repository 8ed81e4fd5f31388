// SPDX-License-Identifier: GPL-2.0-only
#ifndef BACKGROUND_FEATURE_H
#define BACKGROUND_FEATURE_H

#include "training-feature.h"

#include "ns3/background-traffic.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The scenario's background traffic ("background": flow sizes, load, host pairs) beside
 * the workload: Poisson flows start until the workload finishes; the run then goes on
 * while the flows started before are under way (at most a simulated second).
 */
class BackgroundFeature : public TrainingFeature
{
  public:
    std::string GetName() const override;
    /// Needs a packet fabric; the flow sizes and host pairs must be valid.
    bool Install(const TrainingContext& context, std::string* error) override;
    /// Stops the arrivals.
    void OnWorkloadFinished() override;
    /// \return whether a background flow is under way
    bool IsBusy() const override;

    /// \return the background traffic (null when the scenario has none)
    Ptr<BackgroundTraffic> GetTraffic() const;

  private:
    Ptr<BackgroundTraffic> m_traffic; //!< null without "background"
};

} // namespace ns3

#endif // BACKGROUND_FEATURE_H
