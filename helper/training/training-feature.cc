// SPDX-License-Identifier: GPL-2.0-only
#include "training-feature.h"

namespace ns3
{

bool
TrainingFeature::Check(const TrainingScenario&, std::string*)
{
    return true;
}

void
TrainingFeature::Prepare(const TrainingScenario&, GpuClusterHelper&)
{
}

void
TrainingFeature::OnWorkloadFinished()
{
}

bool
TrainingFeature::IsBusy() const
{
    return false;
}

} // namespace ns3
