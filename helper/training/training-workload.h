// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRAINING_WORKLOAD_H
#define TRAINING_WORKLOAD_H

#include "training-scenario.h"

#include "ns3/training-trace.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A training run's workload: the scenario's trace read (own JSON, Chakra protobuf or
 * JSON, SimAI/AICB) or generated (TransformerTraceGenerator), then adapted to the
 * cluster (computeScale) with what the user should know noted as warnings.
 */
class TrainingWorkload
{
  public:
    /**
     * Read or generate the scenario's trace.
     * \param s the scenario (its cluster size is the rank count of formats without one)
     * \param error set (naming the file, place and problem) when it cannot be read
     * \return true on success
     */
    bool Load(const TrainingScenario& s, std::string* error);

    /**
     * Scale the compute by computeScale, compress the collectives the scenario's
     * compression rules select (GradientCompression, its kernels at the cluster GPU's HBM
     * bandwidth), rewrite all-reduces for parameter servers (ParameterServerSync: rank r
     * on server r / gpusPerServer; the cpu and byteps placements add CPU ranks), and note
     * what the user should know: trace and cluster GPUs that differ (and what
     * computeScale would fit), GPUs left idle.
     * \param s the scenario
     * \param error set (naming the rule's place) when a compression rule cannot apply
     * \return true on success
     */
    bool Adapt(const TrainingScenario& s, std::string* error);
    /**
     * Adapt, for a workload given gpus GPUs (a job of a shared cluster): the idle-GPU
     * warning counts those.
     * \param s the scenario \param gpus the GPUs the workload gets
     * \param error set (naming the rule's place) when a compression rule cannot apply
     * \return true on success
     */
    bool Adapt(const TrainingScenario& s, uint32_t gpus, std::string* error);

    /// \return the trace
    const TrainingTrace& GetTrace() const;
    /// \return the trace, to share with the runner instead of copying it
    std::shared_ptr<const TrainingTrace> GetSharedTrace() const;
    /// \return where the trace came from (file, or generated)
    const std::string& GetNote() const;
    /// \return the warnings of Load and Adapt, one line each
    const std::vector<std::string>& GetWarnings() const;
    /// \return per compression rule, what Adapt did (empty without rules)
    const std::vector<CompressionEffect>& GetCompression() const;

  private:
    /// Read a trace of another tool's format (AICB, Chakra protobuf or JSON).
    bool LoadForeign(const TrainingScenario& s, std::string* error);

    /// the trace (shared with the runner: at 1,024 GPUs it holds over a million ops)
    std::shared_ptr<TrainingTrace> m_trace{std::make_shared<TrainingTrace>()};
    std::string m_note;
    std::vector<std::string> m_warnings;
    std::vector<CompressionEffect> m_compression; //!< what the compression rules did
};

} // namespace ns3

#endif // TRAINING_WORKLOAD_H
