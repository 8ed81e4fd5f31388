// SPDX-License-Identifier: GPL-2.0-only
#ifndef SCENARIO_SETTINGS_H
#define SCENARIO_SETTINGS_H

#include "training-scenario.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A scenario's process-wide settings, written as the program's own step (like
 * CommandLine::Parse): attribute defaults in layers (the GPU preset, the scenario's run
 * and collective settings, then fabric.config and the command line's --ns3:: options,
 * which the program passes in the same list) and the random seed (RngSeedManager seed 1,
 * run = the scenario's seed).
 */
class ScenarioSettings
{
  public:
    /**
     * Write the settings.
     * \param s the scenario
     * \param error set (naming the file, place and problem) when a setting is invalid
     * \return true on success
     */
    static bool Apply(const TrainingScenario& s, std::string* error);

    /**
     * Set one attribute default from fabric.config, its value checked by the
     * attribute's kind first (ns-3 aborts on many malformed values).
     * \param s the scenario (for messages)
     * \param given ns3::Class::Attribute (a deprecated congestion-control name is
     *        resolved: RoceCongestionControl::ResolveAttributePath)
     * \param value the value's text
     * \param error set (naming the file, the setting and what was expected) on failure
     * \return true on success
     */
    static bool ApplyConfig(const TrainingScenario& s,
                            const std::string& given,
                            const std::string& value,
                            std::string* error);
};

} // namespace ns3

#endif // SCENARIO_SETTINGS_H
