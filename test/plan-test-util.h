// SPDX-License-Identifier: GPL-2.0-only
// Plan surgery shared by the collective-plan suites.
#ifndef AI_FABRIC_PLAN_TEST_UTIL_H
#define AI_FABRIC_PLAN_TEST_UTIL_H

#include "ns3/collective-algorithms.h"
#include "ns3/comm-plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * The plan without transfer drop. Later ids shift down and transfers that depended on
 * it inherit its deps, so the result is still a well-formed DAG: only the missing data
 * can make the checker object.
 */
CommPlan DropTransfer(const CommPlan& plan, uint32_t drop);

/// \return the algorithm of a name the table has (a test failure, and AUTO, if not)
CollectiveAlgorithm NamedAlgorithm(const std::string& name);

/// A plan's cost-model estimate beside its simulated times over several runs (seeds).
struct EstimateOverRuns
{
    double estimate{0};   //!< s
    double mean{0};       //!< s
    double fastest{1e30}; //!< s
    double slowest{0};    //!< s

    /// Count one run's simulated time t (s) of runs.
    void Add(double t, uint32_t runs)
    {
        mean += t / runs;
        fastest = t < fastest ? t : fastest;
        slowest = t > slowest ? t : slowest;
    }
};

/// \return ceil(log2 n) (log2 n for a power of two)
uint32_t CeilLog2(uint32_t n);

/// One published nccl-tests result (test/data/nccl-tests-published.csv).
struct PublishedRow
{
    std::string source; //!< the log it came from (named in the file's header)
    std::string gpu;    //!< the GPU (a GpuPreset name)
    uint64_t bytes;     //!< size
    double us;          //!< time (out-of-place, unless the file's header says otherwise)
};

/// \return the rows of one source of test/data/nccl-tests-published.csv, smallest first
std::vector<PublishedRow> PublishedNcclTests(const std::string& source);

} // namespace ns3

#endif
