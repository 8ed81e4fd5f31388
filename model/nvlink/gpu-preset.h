// SPDX-License-Identifier: GPL-2.0-only
#ifndef GPU_PRESET_H
#define GPU_PRESET_H

#include "ns3/data-rate.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * What a GPU name means to the module: its NVLink port, whether its NVSwitch reduces in
 * the switch (NVLS), and its compute roofline figures. The one table of GPUs: the
 * NVLink layer (NvSwitchFabric::ApplyPreset), the trace generator
 * (TransformerTraceGenerator's Gpu attribute), the cluster helper and every program's
 * --gpu / --nvlink option read it; doc/ai-fabric.rst ("GPU presets") gives each figure's
 * published source.
 *
 * Figures are per GPU, SXM form factor: NVLink per direction (half the bidirectional
 * figure of the datasheets), peak dense tensor FLOP/s in BF16 (= FP16; datasheets print
 * twice that "with sparsity"), HBM bandwidth in bytes per second.
 */
struct GpuPreset
{
    std::string name;           //!< "A100", "H100", "H200", "B200"
    uint32_t nvlinkCount;       //!< NVLinks per GPU, all to the NVSwitch
    DataRate nvlinkRate;        //!< one NVLink, per direction
    uint32_t creditChunks;      //!< NvSwitchFabric egress credits (cover the credit loop's
                                //!< bandwidth-delay product at this line rate)
    bool nvls;                  //!< NVLink SHARP (in-switch reduction): Hopper and newer
    double peakFlops;           //!< peak dense BF16/FP16 tensor FLOP/s
    double memoryBandwidth;     //!< HBM bytes per second
    uint32_t computeCapability; //!< CUDA compute capability x 10 (80, 90, 100)

    /// \return line rate of the GPU's NVLink port per direction (count x rate)
    DataRate GetNvlinkPortRate() const;

    /**
     * \param name a preset name (exact, as the table spells it)
     * \return the preset, or null if there is none of that name
     */
    static const GpuPreset* Find(const std::string& name);
    /// \return every preset, oldest GPU first
    static const std::vector<GpuPreset>& GetAll();
    /// \return the names, comma-separated ("A100, H100, H200, B200"), for messages and help
    static std::string GetNameList();
    /// \return the names of the presets with NVLS, comma-separated
    static std::string GetNvlsNameList();
};

} // namespace ns3

#endif // GPU_PRESET_H
