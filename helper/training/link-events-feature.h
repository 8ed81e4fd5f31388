// SPDX-License-Identifier: GPL-2.0-only
#ifndef LINK_EVENTS_FEATURE_H
#define LINK_EVENTS_FEATURE_H

#include "training-feature.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The scenario's link events ("events": cut or mend a cable, named by the node names of
 * links.csv, at a time, with a routing convergence delay): scheduled with
 * RoceHelper::ScheduleLinkState.
 */
class LinkEventsFeature : public TrainingFeature
{
  public:
    std::string GetName() const override;
    /// Events need a packet fabric; each cable must exist.
    bool Install(const TrainingContext& context, std::string* error) override;
};

} // namespace ns3

#endif // LINK_EVENTS_FEATURE_H
