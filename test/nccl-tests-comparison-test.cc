// SPDX-License-Identifier: GPL-2.0-only
// Our collective times against published nccl-tests results on H100 and H200 (test/data/
// nccl-tests-published.csv, each source named there and in doc/ai-fabric-collective.rst,
// "NCCL's protocols"): one 8-GPU server over NVLink with the ring (all-reduce, all-gather,
// reduce-scatter), and 2 and 4 servers over 400G with auto and as NCCL picks (all-reduce;
// 4 servers' all-gather), a second cluster's one-server logs (NCCL's defaults, the
// four collectives, all-to-all included, 32 MiB up), and one 8 x H200 server's NVLS
// all-reduce, at the sizes a unit test affords.
// The bands are the doc's.
#include "plan-test-util.h"
#include "test-util.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <utility>

using namespace aifabric;

namespace
{
class NcclTestsComparison : public NsTest
{
};

/// Compare the published rows of source up to maxBytes whose log2 is a multiple of
/// log2Step; band(bytes) is the range of (ours / published - 1) the doc states for that
/// size (low above high: a published row the doc leaves out).
void
Compare(const std::string& source,
        const std::function<double(uint64_t)>& run,
        uint64_t maxBytes,
        uint32_t log2Step,
        const std::function<std::pair<double, double>(uint64_t)>& band)
{
    const std::vector<PublishedRow> rows = PublishedNcclTests(source);
    ASSERT_GE(rows.size(), 10u) << source;
    uint32_t compared = 0;
    for (const PublishedRow& r : rows)
    {
        const auto log2 =
            static_cast<uint32_t>(std::lround(std::log2(static_cast<double>(r.bytes))));
        const auto [low, high] = band(r.bytes);
        if (r.bytes > maxBytes || log2 % log2Step != 0 || low > high)
        {
            continue;
        }
        const double ours = run(r.bytes);
        const double diff = ours / r.us - 1;
        std::cout << "[ measured ] " << source << " " << r.bytes << " B: published " << r.us
                  << " us, ours " << ours << " us (" << diff * 100 << " %)\n";
        EXPECT_GE(diff, low) << source << " " << r.bytes << " B";
        EXPECT_LE(diff, high) << source << " " << r.bytes << " B";
        ++compared;
    }
    EXPECT_GT(compared, 4u);
}

/// \return a runner of the named algorithm (auto: ours) on servers x 8 GPUs of the
///         preset gpu, us
std::function<double(uint64_t)>
Ours(uint32_t servers,
     const std::string& algorithm,
     CollectiveType type = CollectiveType::ALL_REDUCE,
     const std::string& gpu = "H100")
{
    return [servers, algorithm, type, gpu](uint64_t bytes) {
        return RunDgxCollective(type, servers, algorithm, bytes, CollectiveProtocol::AUTO, gpu)
                   .GetDuration()
                   .GetSeconds() *
               1e6;
    };
}

/// \return a runner of what NCCL's tuning model picks (algorithm and protocol, as
///         collective-perf --asNccl) on servers x 8 H100 with 400G NICs, us
std::function<double(uint64_t)>
AsNccl(uint32_t servers, CollectiveType type = CollectiveType::ALL_REDUCE)
{
    return [servers, type](uint64_t bytes) {
        const NcclTuningModel::Choice choice =
            NcclTuningModel(DgxNcclSystem(servers)).Choose(type, bytes);
        const CollectiveAlgorithm ours = NcclToOurs(choice.algorithm, servers > 1);
        return RunDgxCollective(type,
                                servers,
                                CollectiveAlgorithmToString(ours),
                                bytes,
                                choice.protocol)
                   .GetDuration()
                   .GetSeconds() *
               1e6;
    };
}
} // namespace

// One server, ring: NCCL_ALGO=RING (Together AI, NCCL 2.26.2, one process driving the
// eight GPUs). From 2 MiB up within 5 %, but 4 MiB (14 % slow, NCCL's own model 18 %):
// each channel is a thread block copying at its share of the NVLink bandwidth, so the step
// latencies add to the bytes' time. Below, 34 to 47 % fast: the published floor of 35 us
// against our 20.6 (NCCL's own model: 15.0; a single process launching eight GPUs'
// kernels), and the published 512 KiB row (69 us between 38 and 47) 63 %.
TEST_F(NcclTestsComparison, OneServerRing)
{
    Compare("together-1x8-ring", Ours(1, "ring"), 1ull << 30, 1, [](uint64_t bytes) {
        if (bytes == (512 << 10))
        {
            return std::make_pair(-0.66, -0.60);
        }
        if (bytes == (4 << 20))
        {
            return std::make_pair(0.12, 0.16);
        }
        return bytes >= (2 << 20) ? std::make_pair(-0.05, 0.05) : std::make_pair(-0.48, -0.33);
    });
}

// One server, ring all-gather and reduce-scatter (Together AI's logs, NCCL_ALGO=RING), every
// size from 128 B to 8 GiB: from 8 MiB within 11 % (the all-gather -10.9 to +5.3 %, the
// reduce-scatter -8.0 to -1.3 %; NCCL's model -9.3 to +5.2 and -6.0 to +1.0); 4 MiB 18 to
// 19 % fast (NCCL's model 11 to 12 %); up to 2 MiB 43 to 68 % fast: the published floor of
// 35 us, where ours is 13.6 (NCCL's model 10.8).
TEST_F(NcclTestsComparison, OneServerRingAllGatherAndReduceScatter)
{
    auto band = [](uint64_t bytes) {
        if (bytes <= (2 << 20))
        {
            return std::make_pair(-0.68, -0.42);
        }
        return bytes == (4 << 20) ? std::make_pair(-0.20, -0.17) : std::make_pair(-0.11, 0.06);
    };
    Compare("together-1x8-allgather-ring",
            Ours(1, "ring", CollectiveType::ALL_GATHER),
            8ull << 30,
            1,
            band);
    Compare("together-1x8-reducescatter-ring",
            Ours(1, "ring", CollectiveType::REDUCE_SCATTER),
            8ull << 30,
            1,
            band);
}

// A second H100 server (xxrjun/nccl-tests-cluster, NCCL 2.29.2, defaults; 32 MiB up, to
// 4 GiB here), ours as NCCL's model picks: all-gather and reduce-scatter (the Simple ring)
// within 10 % at every size (-9.3 to +0.1 %; NCCL's own model -7.8 to +1.8); all-reduce
// (NVLS) within 10 % from 128 MiB (-9.6 to -1.5 %), 18 and 14 % fast at 32 and 64 MiB
// (NCCL's model the same); all-to-all (ours: direct, each peer's share at its channel's
// NVLink share) within 10 % from 1 GiB (-9.4 to -6.4 %), 15 to 27 % fast below (NCCL's
// grouped sends and receives are not modelled; the gap's cause is not measured).
TEST_F(NcclTestsComparison, OneServerSecondClusterAsNccl)
{
    const uint64_t maxBytes = 4ull << 30;
    Compare("xxrjun-1x8-allgather",
            AsNccl(1, CollectiveType::ALL_GATHER),
            maxBytes,
            1,
            [](uint64_t) { return std::make_pair(-0.10, -0.01); });
    Compare("xxrjun-1x8-reducescatter",
            AsNccl(1, CollectiveType::REDUCE_SCATTER),
            maxBytes,
            1,
            [](uint64_t) { return std::make_pair(-0.08, 0.01); });
    Compare("xxrjun-1x8-allreduce", AsNccl(1), maxBytes, 1, [](uint64_t bytes) {
        return bytes >= (128 << 20) ? std::make_pair(-0.10, 0.0) : std::make_pair(-0.19, -0.13);
    });
    Compare("xxrjun-1x8-alltoall",
            Ours(1, "direct", CollectiveType::ALL_TO_ALL),
            maxBytes,
            1,
            [](uint64_t bytes) {
                return bytes >= (1ull << 30) ? std::make_pair(-0.10, -0.06)
                                             : std::make_pair(-0.27, -0.14);
            });
}

// Four servers' all-gather (Voltage Park, NCCL 2.24.3, defaults), ours running what NCCL's
// model picks (the rail ring with LL, LL128, then Simple), every size from 512 B to
// 256 MiB: faster than the published runs at every size, as NCCL's own model is (-8 to
// -52 %): 512 B to 512 KiB 10 to 39 % fast, 1 and 2 MiB 21 to 23 %, 4 to 32 MiB 46 to 52 %,
// 64 to 256 MiB 29 to 38 % (that cluster's all-reduce peaks at 331 GB/s bus bandwidth).
TEST_F(NcclTestsComparison, FourServersAllGatherAsNccl)
{
    Compare("voltagepark-4x8-allgather",
            AsNccl(4, CollectiveType::ALL_GATHER),
            256 << 20,
            1,
            [](uint64_t bytes) {
                if (bytes <= (512 << 10))
                {
                    return std::make_pair(-0.40, -0.09);
                }
                if (bytes <= (2 << 20))
                {
                    return std::make_pair(-0.24, -0.20);
                }
                return bytes <= (32 << 20) ? std::make_pair(-0.53, -0.45)
                                           : std::make_pair(-0.38, -0.28);
            });
}

// Two and four servers over 400G InfiniBand, NCCL's default algorithm against auto, every
// other size (x 4 apart) to 256 MiB. auto picks what NCCL has not (halving-doubling and
// hierarchical with LL up to a few MiB: 18 us at the smallest sizes where NCCL's tree takes
// 25) and nvls-tree or the rail ring above: 2 servers 10 to 44 % fast, 4 servers 25 to
// 56 %. The published
// 256 B row of 2 servers (94 us among 25 to 32) is left out. TwoAndFourServersAsNccl below
// runs NCCL's own choice.
TEST_F(NcclTestsComparison, TwoAndFourServersAuto)
{
    Compare("nccl-tests-309-2x8", Ours(2, "auto"), 256 << 20, 2, [](uint64_t bytes) {
        if (bytes == 256)
        {
            return std::make_pair(1.0, 0.0); // left out
        }
        return std::make_pair(-0.46, -0.08);
    });
    Compare("voltagepark-4x8", Ours(4, "auto"), 256 << 20, 2, [](uint64_t) {
        return std::make_pair(-0.58, -0.23);
    });
}

// Two and four servers, ours running what NCCL's tuning model picks for each size (the
// algorithm and protocol the published runs most likely ran; collective-perf --asNccl).
// Two servers: at 16 and 64 B 23 and 22 % slow (our NVLink steps take the carrier's 1 us, two
// 500 ns hops, where NCCL's LL figure is 0.6 us: 14 such steps in the tree's chain); 1 to
// 256 KiB -4 to +9 %; 1 and 4 MiB 6 to 14 % fast; nvls-tree from 16 MiB 10 to 29 % fast,
// as NCCL's model (10 to 27 % fast there; ours is held to its per-channel NVLSTree
// ceiling). Four servers: up to 1 KiB within 10 %; 4 to 64 KiB 9 to 26 % fast; 256 KiB to
// 4 MiB within 5 %; nvls-tree from 16 MiB 26 to 30 % fast (NCCL's model: 20 to 29 %).
TEST_F(NcclTestsComparison, TwoAndFourServersAsNccl)
{
    Compare("nccl-tests-309-2x8", AsNccl(2), 256 << 20, 2, [](uint64_t bytes) {
        if (bytes == 256)
        {
            return std::make_pair(1.0, 0.0); // left out
        }
        if (bytes <= 64)
        {
            return std::make_pair(0.20, 0.25);
        }
        if (bytes <= (256 << 10))
        {
            return std::make_pair(-0.05, 0.10);
        }
        return bytes <= (4 << 20) ? std::make_pair(-0.15, -0.05) : std::make_pair(-0.30, -0.08);
    });
    Compare("voltagepark-4x8", AsNccl(4), 256 << 20, 2, [](uint64_t bytes) {
        if (bytes <= 1024)
        {
            return std::make_pair(0.0, 0.10);
        }
        if (bytes <= (64 << 10))
        {
            return std::make_pair(-0.28, -0.07);
        }
        return bytes <= (4 << 20) ? std::make_pair(-0.05, 0.05) : std::make_pair(-0.32, -0.24);
    });
}

// One 8 x H200 server, NVLS all-reduce (Azure ND H200 v5, NCCL 2.20.5, NCCL_ALGO=NVLS;
// times from the published in-place bus bandwidth, see the data file), every size from
// 1 KiB to 8 GiB, ours forced to nvls as the log was: from 1 GiB within 4 % (-3.4 to
// -1.5 %; NCCL's model -1.1 to +0.9); 1 KiB to 1 MiB 5 to 14 % fast (a floor of 27.0 us
// against the published 29.9 to 31.2; NCCL's model's 25.0); 2 to 512 MiB 8 to 27 % fast, as
// on H100 (NCCL's model the same way: the published NVLS reaches its peak more slowly than
// either model).
TEST_F(NcclTestsComparison, OneServerH200Nvls)
{
    const std::vector<PublishedRow> rows = PublishedNcclTests("azure-h200-1x8-nvls");
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows.front().gpu, "H200");
    Compare("azure-h200-1x8-nvls",
            Ours(1, "nvls", CollectiveType::ALL_REDUCE, rows.front().gpu),
            8ull << 30,
            1,
            [](uint64_t bytes) {
                if (bytes >= (1ull << 30))
                {
                    return std::make_pair(-0.04, -0.01);
                }
                return bytes <= (1 << 20) ? std::make_pair(-0.14, -0.05)
                                          : std::make_pair(-0.28, -0.07);
            });
}
