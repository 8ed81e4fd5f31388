// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_FCT_REPORT_H
#define AI_FABRIC_FCT_REPORT_H

#include "ns3/background-traffic.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * Nearest-rank percentile.
 * \param sorted values in rising order \param p in (0, 1]
 * \return the smallest value with at least p of the values at or below it (0 for none)
 */
double NearestRankPercentile(const std::vector<double>& sorted, double p);

/**
 * \ingroup ai-fabric
 * Slowdown (FCT / ideal FCT) statistics of the flows of one size range.
 */
struct SlowdownStats
{
    std::string label; //!< the range, e.g. "10K-100K"
    uint64_t lo{0};    //!< smallest size in the range, bytes
    uint64_t hi{0};    //!< sizes below this, bytes (UINT64_MAX: no bound)
    uint32_t flows{0}; //!< finished flows in the range
    double p50{0};     //!< median slowdown
    double p95{0};     //!< 95th percentile
    double p99{0};     //!< 99th percentile
    double mean{0};    //!< mean slowdown
};

/**
 * \ingroup ai-fabric
 * The flow-completion report of a background-traffic run, as the HPCC paper draws it:
 * each finished flow's slowdown = FCT / ideal FCT (the flow alone on the empty fabric),
 * summarised by flow-size bucket with nearest-rank percentiles.
 */
class FctReport
{
  public:
    /// Size buckets: (label, upper bound in bytes), rising; the last is unbounded.
    static const std::vector<std::pair<std::string, uint64_t>>& Buckets();
    /// Flows below this many bytes are "small" in summaries (the HPCC paper's < 100 KB).
    static constexpr uint64_t SMALL_BYTES = 100000;
    /// Flows of at least this many bytes are "large".
    static constexpr uint64_t LARGE_BYTES = 1000000;

    /// \param flows the generator's flows (unfinished ones are counted, not summarised)
    explicit FctReport(const std::vector<BackgroundFlow>& flows);

    /// \return one row per bucket (empty buckets included, flows 0)
    std::vector<SlowdownStats> ByBucket() const;
    /**
     * \param lo smallest size, bytes
     * \param hi sizes below this
     * \param label the row's label
     * \return the statistics of the finished flows in [lo, hi)
     */
    SlowdownStats Range(uint64_t lo, uint64_t hi, const std::string& label) const;
    uint32_t GetFinished() const;   //!< \return flows that finished
    uint32_t GetUnfinished() const; //!< \return flows that did not

    /// Write every flow: src,dst,bytes,start_us,fct_us,ideal_us,slowdown (empty if unfinished).
    /// \param os the stream
    void WriteFctCsv(std::ostream& os) const;
    /**
     * Write the bucket rows: label,bucket,flows,p50,p95,p99,mean.
     * \param os the stream
     * \param label first column (e.g. the algorithm)
     * \param header write the header line first
     */
    void WriteSlowdownCsv(std::ostream& os, const std::string& label, bool header) const;
    /// Print the bucket rows as a table. \param os the stream
    void PrintTable(std::ostream& os) const;

    /**
     * Plot median and 99th-percentile slowdown by size bucket for several runs into one
     * PNG (gnuplot, log scale).
     * \param runs (label, report) per run
     * \param file the PNG to write
     * \param error set to the reason on failure
     * \return true if the plot was written
     */
    static bool Plot(const std::vector<std::pair<std::string, FctReport>>& runs,
                     const std::string& file,
                     std::string* error);

  private:
    std::vector<BackgroundFlow> m_flows;
};

} // namespace ns3

#endif
