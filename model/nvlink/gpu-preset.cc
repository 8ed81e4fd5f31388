// SPDX-License-Identifier: GPL-2.0-only
#include "gpu-preset.h"

namespace ns3
{

const std::vector<GpuPreset>&
GpuPreset::GetAll()
{
    // Sources (doc/ai-fabric.rst, "GPU presets"): NVIDIA's A100, H100, H200 and HGX B200
    // datasheets and architecture whitepapers (see the References section of
    // doc/ai-fabric.rst). Credits:
    // 8 x 64 KiB cover the credit loop up to ~390 GB/s of payload with 0.5 us hops; a
    // 900 GB/s port needs 16 (nvlink test, Presets).
    static const std::vector<GpuPreset> table{
        // name   links  per link            credits NVLS   BF16 dense  HBM B/s  sm
        {"A100", 12, DataRate("200Gbps"), 8, false, 312e12, 2.039e12, 80}, // NVLink3, HBM2e 80 GB
        {"H100", 18, DataRate("200Gbps"), 8, true, 989e12, 3.35e12, 90},   // NVLink4, HBM3
        {"H200", 18, DataRate("200Gbps"), 8, true, 989e12, 4.8e12, 90},    // NVLink4, HBM3e
        {"B200", 18, DataRate("400Gbps"), 16, true, 2250e12, 8.0e12, 100}, // NVLink5, HBM3e
    };
    return table;
}

DataRate
GpuPreset::GetNvlinkPortRate() const
{
    return DataRate(nvlinkRate.GetBitRate() * nvlinkCount);
}

const GpuPreset*
GpuPreset::Find(const std::string& name)
{
    for (const GpuPreset& p : GetAll())
    {
        if (p.name == name)
        {
            return &p;
        }
    }
    return nullptr;
}

std::string
GpuPreset::GetNameList()
{
    std::string list;
    for (const GpuPreset& p : GetAll())
    {
        list += (list.empty() ? "" : ", ") + p.name;
    }
    return list;
}

std::string
GpuPreset::GetNvlsNameList()
{
    std::string list;
    for (const GpuPreset& p : GetAll())
    {
        if (p.nvls)
        {
            list += (list.empty() ? "" : ", ") + p.name;
        }
    }
    return list;
}

} // namespace ns3
