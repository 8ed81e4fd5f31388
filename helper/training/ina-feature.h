// SPDX-License-Identifier: GPL-2.0-only
#ifndef INA_FEATURE_H
#define INA_FEATURE_H

#include "training-feature.h"

#include "ns3/ina-helper.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * In-network aggregation ("fabric": {"ina": "streaming" | "switchml"}, --ina): the
 * cluster is built with aggregating switches (GpuClusterHelper::
 * EnableInNetworkAggregation), whose InaTransport the collective layer offers the ina
 * and nvls-ina algorithms over.
 */
class InaFeature : public TrainingFeature
{
  public:
    std::string GetName() const override;
    /// The protocol name, a topology with switches and the engine's attributes.
    bool Check(const TrainingScenario& s, std::string* error) override;
    /// Builds the cluster with aggregating switches when the scenario asks for it.
    void Prepare(const TrainingScenario& s, GpuClusterHelper& helper) override;
    /// Nothing more: the switches aggregate as the cluster was built.
    bool Install(const TrainingContext& context, std::string* error) override;

  private:
    InaHelper m_ina; //!< the aggregation engines and jobs, when the scenario has INA
};

} // namespace ns3

#endif // INA_FEATURE_H
