// SPDX-License-Identifier: GPL-2.0-only
#include "training-workload.h"

#include "ns3/abort.h"
#include "ns3/aicb-reader.h"
#include "ns3/chakra-reader.h"
#include "ns3/enum.h"
#include "ns3/gpu-preset.h"
#include "ns3/gradient-compression.h"
#include "ns3/log.h"
#include "ns3/parameter-server-sync.h"
#include "ns3/trace-json.h"
#include "ns3/transformer-trace-generator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingWorkload");

bool
TrainingWorkload::Load(const TrainingScenario& s, std::string* error)
{
    if (s.traceFormat == "json")
    {
        std::ifstream probe(s.traceFile);
        if (!probe && s.source == "built-in default scenario")
        {
            // The default names the shipped trace; a binary run away from its source
            // tree generates the same one instead.
            auto gen = CreateObject<TransformerTraceGenerator>();
            m_trace = std::make_shared<TrainingTrace>(gen->Generate(s.generator, error));
            m_note = "generated (" + s.traceFile + " not found)";
            return m_trace->GetNRanks() > 0;
        }
        m_trace = std::make_shared<TrainingTrace>(TraceJson::Read(s.traceFile, error));
        m_note = s.traceFile;
        return m_trace->GetNRanks() > 0;
    }
    if (s.traceFormat == "generator")
    {
        // Compute follows the cluster's GPU: the generator's Gpu default is the preset's
        // (GpuClusterHelper::GetGpuDefaults, applied with the scenario's settings), unless
        // the user's settings say otherwise.
        // A model's byteps parameter servers reduce inside the cluster's servers unless
        // the model says how many GPUs a server has.
        TransformerConfig model = s.generator;
        if (model.gpusPerServer != 0 && model.gpusPerServer != s.gpusPerServer &&
            model.parameterServerPlacement == ParameterServerSync::BYTEPS)
        {
            m_warnings.push_back("the model's byteps parameter servers reduce inside servers of " +
                                 std::to_string(model.gpusPerServer) +
                                 " GPUs (its gpusPerServer) but the cluster's have " +
                                 std::to_string(s.gpusPerServer));
        }
        model.gpusPerServer = model.gpusPerServer ? model.gpusPerServer : s.gpusPerServer;
        auto gen = CreateObject<TransformerTraceGenerator>();
        m_trace = std::make_shared<TrainingTrace>(gen->Generate(model, error));
        m_note = s.traceFile.empty() ? "generated from the scenario's model"
                                     : "generated from " + s.traceFile;
        return m_trace->GetNRanks() > 0;
    }
    return LoadForeign(s, error);
}

bool
TrainingWorkload::LoadForeign(const TrainingScenario& s, std::string* error)
{
    const uint32_t ranks = s.traceRanks ? s.traceRanks : s.GetNGpus();
    if (s.traceFormat == "aicb")
    {
        std::ostringstream warnings; // one line each: layer counts, ignored fields
        m_trace = std::make_shared<TrainingTrace>(
            AicbTraceReader::Read(s.traceFile, ranks, error, &warnings));
        std::istringstream lines(warnings.str());
        for (std::string line; std::getline(lines, line);)
        {
            const std::string prefix = "warning: ";
            m_warnings.push_back(line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line);
        }
    }
    else if (s.traceFormat == "chakra")
    {
        m_trace = std::make_shared<TrainingTrace>(
            ChakraTraceReader::ReadPrefix(s.traceFile, ranks, error));
    }
    else if (s.traceFormat == "chakra-json")
    {
        std::vector<std::string> files;
        for (uint32_t r = 0; r < ranks; ++r)
        {
            files.push_back(s.traceFile + "." + std::to_string(r) + ".json");
        }
        m_trace = std::make_shared<TrainingTrace>(ChakraTraceReader::ReadJson(files, error));
    }
    else
    {
        *error = s.source + ": /workload/format: unknown format \"" + s.traceFormat + "\"";
        return false;
    }
    m_note = s.traceFormat + " " + s.traceFile;
    return m_trace->GetNRanks() > 0;
}

bool
TrainingWorkload::Adapt(const TrainingScenario& s, std::string* error)
{
    return Adapt(s, s.GetNGpus(), error);
}

bool
TrainingWorkload::Adapt(const TrainingScenario& s, uint32_t gpus, std::string* error)
{
    const std::string& traceGpu = m_trace->GetGpu();
    if (!traceGpu.empty() && traceGpu != s.gpu)
    {
        std::ostringstream w;
        w << m_note << ": the trace's compute durations are for " << traceGpu
          << " but the cluster's GPU is " << s.gpu;
        if (s.computeScale != 1)
        {
            w << "; they are replayed x " << s.computeScale << " (computeScale)";
        }
        else
        {
            const GpuPreset* from = GpuPreset::Find(traceGpu);
            const GpuPreset* to = GpuPreset::Find(s.gpu);
            w << "; they are replayed as recorded: set computeScale";
            if (from && to)
            {
                // Compute-bound ops scale with peak FLOP/s, memory-bound ones with HBM.
                w << " (" << from->peakFlops / to->peakFlops << " for compute-bound ops, "
                  << from->memoryBandwidth / to->memoryBandwidth << " for memory-bound ones)";
            }
            w << " or regenerate the trace for " << s.gpu;
        }
        m_warnings.push_back(w.str());
    }
    if (s.computeScale != 1)
    {
        NS_LOG_INFO("compute x " << s.computeScale);
        // GPUs only: a CPU host's reductions run at its own DRAM bandwidth.
        for (uint32_t r = 0; r < m_trace->GetNGpuRanks(); ++r)
        {
            for (TraceOp& op : m_trace->GetOps(r))
            {
                if (op.kind == TraceOpKind::COMPUTE)
                {
                    op.duration = NanoSeconds(std::llround(
                        static_cast<double>(op.duration.GetNanoSeconds()) * s.computeScale));
                }
            }
        }
    }
    if (!s.compression.empty() && m_trace->GetNCpuRanks() > 0)
    {
        // The trace's all-reduces went to CPU hosts before compression could see them;
        // a rule would select what is left (byteps: the servers' reduce-scatters).
        *error = s.compression.front().place +
                 ": the trace's all-reduces are by parameter servers on " +
                 ParameterServerSync::CountCpuHosts(m_trace->GetNCpuRanks()) +
                 " already (the trace or its model rewrote them): compress before that, with "
                 "the scenario's parameterServers";
        return false;
    }
    if (!s.compression.empty())
    {
        const GpuPreset* gpu = GpuPreset::Find(s.gpu);
        NS_ABORT_MSG_IF(!gpu, "TrainingWorkload: unknown GPU " << s.gpu);
        auto compression = CreateObject<GradientCompression>();
        for (const CompressionRule& rule : s.compression)
        {
            compression->AddRule(rule);
        }
        if (!compression->Apply(*m_trace, gpu->memoryBandwidth, error))
        {
            return false;
        }
        m_compression = compression->GetEffects();
        compression->Dispose();
    }
    if (!s.parameterServers.empty())
    {
        TrainingScenario::ParameterServerSetting setting;
        std::string why;
        NS_ABORT_MSG_IF(!TrainingScenario::ParseParameterServers(s.parameterServers, setting, &why),
                        "TrainingWorkload: " << why);
        auto ps = CreateObject<ParameterServerSync>();
        ps->SetAttribute("Placement", EnumValue(setting.placement));
        // Rank r runs on GPU r: server r / gpusPerServer (what byteps reduces inside).
        ps->SetAttribute("GpusPerServer", UintegerValue(s.gpusPerServer));
        if (!ps->Apply(*m_trace,
                       setting.group,
                       setting.servers,
                       GpuPreset::Find(s.gpu)->memoryBandwidth,
                       &why))
        {
            *error = s.parameterServersPlace + ": " + why;
            return false;
        }
        m_note +=
            "; " + std::to_string(ps->GetRewritten()) + " all-reduce ops on " + setting.group +
            " by " + std::to_string(setting.servers) +
            (setting.placement == ParameterServerSync::COLOCATED
                 ? " parameter servers"
                 : " parameter servers on CPU hosts" +
                       std::string(
                           setting.placement == ParameterServerSync::BYTEPS
                               ? " (" + ParameterServerSync::PlacementToString(setting.placement) +
                                     ": reduce-scatter inside each server)"
                               : ""));
        ps->Dispose();
    }
    if (m_trace->GetNGpuRanks() < gpus)
    {
        const uint32_t idle = gpus - m_trace->GetNGpuRanks();
        std::ostringstream w;
        w << "the workload has " << m_trace->GetNGpuRanks()
          << (m_trace->GetNCpuRanks() > 0 ? " GPU ranks but " : " ranks but ")
          << (gpus == s.GetNGpus() ? "the cluster " : "its ") << gpus << " GPUs: " << idle
          << " GPUs ("
          << (idle * 2 == gpus ? "half the cluster" : std::to_string(100 * idle / gpus) + " %")
          << ") stay idle";
        m_warnings.push_back(w.str());
    }
    return true;
}

const std::vector<CompressionEffect>&
TrainingWorkload::GetCompression() const
{
    return m_compression;
}

const TrainingTrace&
TrainingWorkload::GetTrace() const
{
    return *m_trace;
}

std::shared_ptr<const TrainingTrace>
TrainingWorkload::GetSharedTrace() const
{
    return m_trace;
}

const std::string&
TrainingWorkload::GetNote() const
{
    return m_note;
}

const std::vector<std::string>&
TrainingWorkload::GetWarnings() const
{
    return m_warnings;
}

} // namespace ns3
