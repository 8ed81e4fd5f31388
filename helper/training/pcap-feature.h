// SPDX-License-Identifier: GPL-2.0-only
#ifndef PCAP_FEATURE_H
#define PCAP_FEATURE_H

#include "training-feature.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The scenario's pcap capture (outputs.pcap, outputs.pcapNodes; --pcap, --pcapNodes):
 * PREFIX-nic<i>.pcap for host i and PREFIX-sw<j>-<port>.pcap for the ports of switch j,
 * the node names of links.csv and pfc.csv; every node when pcapNodes is empty. Nothing
 * without a prefix.
 */
class PcapFeature : public TrainingFeature
{
  public:
    std::string GetName() const override;
    /// A node list needs a prefix.
    bool Check(const TrainingScenario& s, std::string* error) override;
    /// Checks the prefix (a writable place) and the names, then enables the captures.
    bool Install(const TrainingContext& context, std::string* error) override;
};

} // namespace ns3

#endif // PCAP_FEATURE_H
