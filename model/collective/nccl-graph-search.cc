// SPDX-License-Identifier: GPL-2.0-only
// NCCL's graph search (NVIDIA/nccl v2.30.7, src/graph/search.cc) on the machines the module
// builds: how many channels of a pattern fit, at which speeds (NcclTuningModel's Search
// and Fit).
#include "nccl-tuning-model.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ns3
{

namespace
{
// search.cc's speed arrays, GB/s: inside one server and across servers, by generation.
const std::vector<double> SPEED_INTRA =
    {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
const std::vector<double> SPEED_INTER = {48.0,
                                         30.0,
                                         28.0,
                                         24.0,
                                         20.0,
                                         18.0,
                                         15.0,
                                         12.0,
                                         10.0,
                                         9.0,
                                         7.0,
                                         6.0,
                                         5.0,
                                         4.0,
                                         3.0,
                                         2.4,
                                         1.2,
                                         0.24,
                                         0.12};
const std::vector<double> SM90_SPEED_INTRA =
    {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
const std::vector<double> SM90_SPEED_INTER = {48.0,
                                              45.0,
                                              42.0,
                                              40.0,
                                              30.0,
                                              24.0,
                                              22.0,
                                              20.0,
                                              17.5,
                                              15.0,
                                              12.0,
                                              6.0,
                                              3.0,
                                              2.4,
                                              1.2,
                                              0.24,
                                              0.12};
const std::vector<double> SM100_SPEED_INTRA =
    {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
const std::vector<double> SM100_SPEED_INTER = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0,
                                               30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                               6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

constexpr double LOC_BW = 5000.0; //!< a GPU's bandwidth to itself
} // namespace

uint32_t
NcclTuningModel::Fit(NcclAlgorithm pattern, double bwIntra, double bwInter, uint32_t maxCh) const
{
    const NcclSystem& s = m_system;
    const uint32_t g = s.gpusPerNode;
    const double nv = s.nvlinks * s.nvlinkGBps;        // a GPU's NVLink, each way
    const double nic = std::min(s.netGBps, s.pciGBps); // a NIC's path, each way
    const bool inter = s.nodes > 1;
    auto atMost = [](double capacity, double speed) {
        return static_cast<uint32_t>(std::floor(capacity / speed + 1e-9));
    };
    uint32_t k = maxCh;
    if (pattern == NcclAlgorithm::NVLS)
    {
        // A channel pulls from every GPU once and from its head twice, each way.
        const uint32_t perGpu = atMost(nv, bwIntra);
        k = std::min<uint32_t>(k, perGpu > 0 ? perGpu - 1 : 0);
        k = std::min(k, g);
        if (inter)
        {
            k = bwInter <= nic ? std::min(k, s.nicsPerNode) : 0;
        }
        return k;
    }
    // Ring and tree chains: every GPU of a channel sends to the next over NVLink, except
    // the one that sends to the network; a channel uses one NIC each way.
    if (inter)
    {
        k = std::min(k, s.nicsPerNode * atMost(nic, bwInter));
        if (g > 1)
        {
            // k channels leave by the network from k GPUs in turn: a GPU sends over NVLink
            // in k - floor(k / g) of them at most.
            while (k > 0 && (k - k / g) * bwIntra > nv + 1e-9)
            {
                --k;
            }
        }
    }
    else if (g > 1)
    {
        k = std::min(k, atMost(nv > 0 ? nv : s.pciGBps, bwIntra));
    }
    return k;
}

NcclGraph
NcclTuningModel::Search(NcclAlgorithm pattern, uint32_t minChannels, uint32_t maxChannels) const
{
    const NcclSystem& s = m_system;
    const uint32_t g = s.gpusPerNode;
    const bool inter = s.nodes > 1;
    const uint32_t cci = NcclCompCapIndex(s.computeCapability);
    const std::vector<double>& speeds = inter ? (cci == 3   ? SM100_SPEED_INTER
                                                 : cci == 2 ? SM90_SPEED_INTER
                                                            : SPEED_INTER)
                                              : (cci == 3   ? SM100_SPEED_INTRA
                                                 : cci == 2 ? SM90_SPEED_INTRA
                                                            : SPEED_INTRA);
    const double nv = s.nvlinks * s.nvlinkGBps;
    // ncclTopoSearchInit: maxBw is the best path to a NIC (or between GPUs in one server),
    // totalBw a GPU's NVLink or PCIe bandwidth, whichever is more.
    const double maxBw = inter ? std::min(s.netGBps, s.pciGBps) : (g > 1 ? nv : LOC_BW);
    const double totalBw = (!inter && g == 1) ? LOC_BW : std::max(s.pciGBps, nv);
    double searchTotal = totalBw;
    if (g > 1 && pattern != NcclAlgorithm::RING)
    {
        searchTotal *= g / (g - 1.0); // non-ring patterns need not return to their NIC
    }
    size_t idx = 0;
    while ((speeds[idx] > maxBw || speeds[idx] * minChannels > searchTotal) &&
           idx + 1 < speeds.size())
    {
        ++idx;
    }
    const bool nvlsPattern = pattern == NcclAlgorithm::NVLS;
    NcclGraph best;
    auto better = [&](uint32_t k, double speed) {
        if (nvlsPattern && k > best.nChannels && k <= g)
        {
            return true;
        }
        return k * speed > best.nChannels * (nvlsPattern ? best.bwInter : best.bwIntra);
    };
    // Pass 1: from the fastest speed down, while the next is within 0.49 of the best.
    for (;;)
    {
        const double speed = speeds[idx];
        uint32_t k = Fit(pattern, speed, speed, maxChannels);
        if (k >= minChannels && k > 0 && better(k, speed))
        {
            best = {k, speed, speed};
        }
        if (best.nChannels > 0 && best.nChannels * best.bwInter >= totalBw)
        {
            break; // optimal
        }
        if (idx + 1 < speeds.size() &&
            (best.nChannels == 0 || speeds[idx + 1] / best.bwInter > .49))
        {
            ++idx;
            continue;
        }
        break;
    }
    if (best.nChannels == 0)
    {
        return best;
    }
    // ncclTopoDupChannels
    if (!nvlsPattern && best.bwIntra >= 25.0 &&
        !(s.computeCapability > 80 && best.bwIntra < 50.0 && best.nChannels > 4))
    {
        const uint32_t dup = std::min(best.nChannels * 2, maxChannels);
        const uint32_t div = (dup + best.nChannels - 1) / best.nChannels;
        best.bwIntra /= div;
        best.bwInter /= div;
        best.nChannels = dup;
    }
    // Pass 2: see if the bandwidth can go up again with these channels.
    idx = 0;
    while (speeds[idx] > best.bwInter && idx + 1 < speeds.size())
    {
        ++idx;
    }
    if (pattern == NcclAlgorithm::RING)
    {
        while (idx > 0)
        {
            const double speed = speeds[--idx];
            const uint32_t k = Fit(pattern, speed, speed, maxChannels);
            if (k >= best.nChannels && k * speed > best.nChannels * best.bwIntra)
            {
                best = {k, speed, speed};
            }
        }
    }
    else if (nvlsPattern)
    {
        double tryInter = speeds[idx];
        while (idx > 0 && tryInter == best.bwInter && tryInter < best.bwIntra * 2)
        {
            tryInter = speeds[--idx];
            if (Fit(pattern, best.bwIntra, tryInter, best.nChannels) >= best.nChannels)
            {
                best.bwInter = tryInter;
            }
        }
    }
    else
    {
        double tryIntra = speeds[idx];
        const double inter2 = speeds[idx];
        while (idx > 0 && tryIntra == best.bwIntra && tryIntra < inter2 * 2)
        {
            tryIntra = speeds[--idx];
            if (Fit(pattern, tryIntra, best.bwInter, best.nChannels) >= best.nChannels)
            {
                best.bwIntra = tryIntra;
            }
        }
    }
    return best;
}

} // namespace ns3
