// SPDX-License-Identifier: GPL-2.0-only
// Our collective times against published nccl-tests results on H100 (test/data/
// nccl-tests-h100.csv, each source named there and in doc/ai-fabric-collective.rst,
// "NCCL's protocols"): one 8-GPU server over NVLink with the ring, and 2 and 4 servers over
// 400G with auto, at the sizes a unit test affords. The bands are the doc's.
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
        uint32_t servers,
        const std::string& algorithm,
        uint64_t maxBytes,
        uint32_t log2Step,
        const std::function<std::pair<double, double>(uint64_t)>& band)
{
    const std::vector<PublishedRow> rows = PublishedNcclTests(source);
    ASSERT_GT(rows.size(), 10u) << source;
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
        const double ours =
            RunDgxAllReduce(servers, algorithm, r.bytes).GetDuration().GetSeconds() * 1e6;
        const double diff = ours / r.us - 1;
        std::cout << "[ measured ] " << source << " " << r.bytes << " B: published " << r.us
                  << " us, ours " << ours << " us (" << diff * 100 << " %)\n";
        EXPECT_GE(diff, low) << source << " " << r.bytes << " B";
        EXPECT_LE(diff, high) << source << " " << r.bytes << " B";
        ++compared;
    }
    EXPECT_GT(compared, 4u);
}
} // namespace

// One server, ring: NCCL_ALGO=RING (Together AI, NCCL 2.26.2, one process driving the
// eight GPUs). From 4 MiB up within 10 % but at 16 and 32 MiB (23 and 18 % fast); below,
// 16 to 31 % fast (the published floor of 35 us against our 29: a single process's
// launches), and the published 512 KiB row (69 us between 38 and 47) 56 %.
TEST_F(NcclTestsComparison, OneServerRing)
{
    Compare("together-1x8-ring", 1, "ring", 1ull << 30, 1, [](uint64_t bytes) {
        if (bytes == (512 << 10))
        {
            return std::make_pair(-0.60, 0.0);
        }
        if (bytes == (16 << 20) || bytes == (32 << 20))
        {
            return std::make_pair(-0.25, 0.0);
        }
        return std::make_pair(bytes >= (4 << 20) ? -0.10 : -0.35, 0.0);
    });
}

// Two and four servers over 400G InfiniBand, NCCL's default algorithm (NVLSTree) against
// auto (nvls-tree from a few MiB), every other size (x 4 apart) to 256 MiB. Two servers:
// -13 to +12 % up to 128 KiB, then up to 39 % fast (cause not settled: doc); the
// published 256 B row (94 us among 25 to 32) is left out.
// Four servers (a cluster that peaks at 331 GB/s busbw): up to 52 % fast.
TEST_F(NcclTestsComparison, TwoAndFourServersAuto)
{
    Compare("nccl-tests-309-2x8", 2, "auto", 256 << 20, 2, [](uint64_t bytes) {
        if (bytes == 256)
        {
            return std::make_pair(1.0, 0.0); // left out
        }
        return bytes <= (128 << 10) ? std::make_pair(-0.15, 0.15) : std::make_pair(-0.40, 0.0);
    });
    Compare("voltagepark-4x8", 4, "auto", 256 << 20, 2, [](uint64_t) {
        return std::make_pair(-0.55, 0.05);
    });
}
