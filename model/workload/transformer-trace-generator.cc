// SPDX-License-Identifier: GPL-2.0-only
#include "transformer-trace-generator.h"

#include "rank-schedule.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/gpu-preset.h"
#include "ns3/log.h"
#include "ns3/parameter-server-sync.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TransformerTraceGenerator");

NS_OBJECT_ENSURE_REGISTERED(TransformerTraceGenerator);

// ------------------------------------------------------------------ generator object

TypeId
TransformerTraceGenerator::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TransformerTraceGenerator")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<TransformerTraceGenerator>()
            .AddAttribute("Gpu",
                          "GPU preset whose compute figures (peak dense BF16 FLOP/s, HBM "
                          "bandwidth) time the ops: A100, H100, H200 or B200 (GpuPreset). "
                          "Recorded in the trace unless PeakFlops or MemoryBandwidth is set.",
                          StringValue("H100"),
                          MakeStringAccessor(&TransformerTraceGenerator::m_gpu),
                          MakeStringChecker())
            .AddAttribute("PeakFlops",
                          "GPU peak dense FLOP/s of the training precision; 0 takes the Gpu "
                          "preset's (H100 SXM BF16: 989 TFLOP/s).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&TransformerTraceGenerator::m_peakFlops),
                          MakeDoubleChecker<double>(0, 1e18))
            .AddAttribute("ComputeEfficiency",
                          "Fraction of PeakFlops a layer's kernels reach (model FLOPs "
                          "utilisation of large-model training is typically 0.4-0.55).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&TransformerTraceGenerator::m_computeEfficiency),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("MemoryBandwidth",
                          "GPU memory bandwidth, bytes/s; 0 takes the Gpu preset's (H100 SXM "
                          "HBM3: 3.35 TB/s).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&TransformerTraceGenerator::m_memoryBandwidth),
                          MakeDoubleChecker<double>(0, 1e15))
            .AddAttribute("MemoryEfficiency",
                          "Fraction of MemoryBandwidth kernels reach.",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&TransformerTraceGenerator::m_memoryEfficiency),
                          MakeDoubleChecker<double>(0.01, 1.0));
    return tid;
}

double
TransformerTraceGenerator::GetPeakFlops() const
{
    const GpuPreset* gpu = GpuPreset::Find(m_gpu);
    return m_peakFlops > 0 || !gpu ? m_peakFlops : gpu->peakFlops;
}

double
TransformerTraceGenerator::GetMemoryBandwidth() const
{
    const GpuPreset* gpu = GpuPreset::Find(m_gpu);
    return m_memoryBandwidth > 0 || !gpu ? m_memoryBandwidth : gpu->memoryBandwidth;
}

std::string
TransformerTraceGenerator::GetRecordedGpu() const
{
    return m_peakFlops > 0 || m_memoryBandwidth > 0 ? "" : m_gpu;
}

Time
TransformerTraceGenerator::ComputeTime(double flops, double bytes) const
{
    // Generate checks the figures first; a direct caller with an unknown Gpu gets the
    // limit of a zero rate, never a division by zero.
    const double peak = std::max(GetPeakFlops(), 1.0);
    const double memory = std::max(GetMemoryBandwidth(), 1.0);
    const double t =
        std::max(flops / (peak * m_computeEfficiency), bytes / (memory * m_memoryEfficiency));
    return NanoSeconds(static_cast<int64_t>(t * 1e9 + 0.5));
}

TrainingTrace
TransformerTraceGenerator::Generate(const TransformerConfig& c, std::string* error) const
{
    std::string why;
    if (!c.Validate(&why))
    {
        if (error)
        {
            *error = "TransformerTraceGenerator: " + why;
        }
        return TrainingTrace();
    }
    if ((m_peakFlops == 0 || m_memoryBandwidth == 0) && !GpuPreset::Find(m_gpu))
    {
        if (error)
        {
            *error = "TransformerTraceGenerator: Gpu \"" + m_gpu + "\" is not a GPU preset (" +
                     GpuPreset::GetNameList() + ")";
        }
        return TrainingTrace();
    }
    NS_LOG_INFO("roofline: " << GetPeakFlops() << " FLOP/s x " << m_computeEfficiency << ", "
                             << GetMemoryBandwidth() << " B/s x " << m_memoryEfficiency << " (Gpu "
                             << m_gpu << ")");
    const TransformerCounts counts = Count(c);
    TrainingTrace trace(c.GetNRanks());
    trace.SetGpu(GetRecordedGpu());
    std::ostringstream title;
    title << c.name << " tp" << c.tp << " pp" << c.pp << " dp" << c.dp;
    if (c.experts > 0)
    {
        title << " ep" << c.ep << " moe" << c.experts;
    }
    title << " zero" << c.zeroStage;
    if (c.parameterServers > 0)
    {
        title << " ps" << c.parameterServers
              << (c.parameterServerPlacement == ParameterServerSync::COLOCATED
                      ? ""
                      : " " + ParameterServerSync::PlacementToString(c.parameterServerPlacement));
    }
    title << ", " << c.GetMicroBatches() << " micro-batches of " << c.microBatch;
    trace.SetName(title.str());
    megatron::AddGroups(c, trace);
    megatron::NameStreams(trace);
    // Ranks in order, so each rank's op list is written whole.
    for (uint32_t p = 0; p < c.pp; ++p)
    {
        for (uint32_t d = 0; d < c.dp; ++d)
        {
            for (uint32_t t = 0; t < c.tp; ++t)
            {
                megatron::RankSchedule(c, counts, *this, trace, t, d, p).Write();
            }
        }
    }
    TrainingTrace checked =
        TrainingTrace::Checked(std::move(trace),
                               "TransformerTraceGenerator: generated an invalid trace (a bug)",
                               error);
    if (c.parameterServers > 0 && checked.GetNRanks() > 0)
    {
        // The DP all-reduces as pushes to and pulls from the servers, reduced at the GPU's
        // memory bandwidth (ParameterServerSync's ReduceBandwidth otherwise).
        auto ps = CreateObject<ParameterServerSync>();
        ps->SetAttribute("Placement", EnumValue(c.parameterServerPlacement));
        if (c.gpusPerServer > 0)
        {
            ps->SetAttribute("GpusPerServer", UintegerValue(c.gpusPerServer));
        }
        const bool ok = ps->Apply(checked, "dp", c.parameterServers, GetMemoryBandwidth(), &why);
        ps->Dispose();
        if (!ok)
        {
            if (error)
            {
                *error = "TransformerTraceGenerator: parameterServers: " + why;
            }
            return TrainingTrace();
        }
    }
    return checked;
}

} // namespace ns3
