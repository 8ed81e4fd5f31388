// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_SIZE_CDF_H
#define FLOW_SIZE_CDF_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A flow-size distribution as a piecewise-linear CDF: points (bytes, cumulative percent),
 * sizes drawn by inverse transform with linear interpolation between points.
 *
 * The standard ones are built in by name (FlowSizeCdf::Named): "websearch" (the web-search
 * workload of the DCTCP paper), "fb-hadoop" (Facebook Hadoop, Roy et al. 2015) — both as
 * published with the HPCC paper's traffic generator — and "alistorage2019" (Alibaba
 * storage, 2019, published with the same generator). Others come from a file of
 * "bytes percent" lines (FlowSizeCdf::Load): '#' starts a comment, sizes rise, percents
 * do not fall and end at 100.
 */
class FlowSizeCdf
{
  public:
    /// \return the names Named accepts, in a stable order
    static const std::vector<std::string>& Names();
    /// \return Names() as text for messages: "alistorage2019, fb-hadoop, websearch"
    static std::string GetNameList();
    /**
     * \param name one of Names()
     * \param out receives the distribution
     * \return false when the name is unknown
     */
    static bool Named(const std::string& name, FlowSizeCdf& out);
    /**
     * Read a CDF file.
     * \param path the file
     * \param out receives the distribution
     * \param error set to "path:line: what was expected" on failure
     * \param quantity what the values are, for messages ("bytes"; a factor CDF:
     *        "factors")
     * \return true on success
     */
    static bool Load(const std::string& path,
                     FlowSizeCdf& out,
                     std::string* error,
                     const std::string& quantity = "bytes");
    /// Largest flow size a CDF may name, bytes (2^40, as programs' size options).
    static constexpr double MAX_BYTES = 1099511627776.0;
    /**
     * Check points and build a distribution of them.
     * \param points (bytes, cumulative percent), first percent may be above 0
     * \param out receives the distribution
     * \param error set to the first problem, naming the point (or its line)
     * \param lines the file line of each point, if they come from a file
     * \param quantity what the values are, for messages
     * \return true if the points make a CDF
     */
    static bool FromPoints(const std::vector<std::pair<double, double>>& points,
                           FlowSizeCdf& out,
                           std::string* error,
                           const std::vector<uint32_t>* lines = nullptr,
                           const std::string& quantity = "bytes");

    /// \param u uniform in [0, 1) \return the size in bytes (at least 1)
    uint64_t Sample(double u) const;
    /// \return the mean size in bytes of the piecewise-linear distribution
    double Mean() const;
    /// \return the points
    const std::vector<std::pair<double, double>>& Points() const;

  private:
    std::vector<std::pair<double, double>> m_points; //!< (bytes, fraction 0..1)
};

} // namespace ns3

#endif /* FLOW_SIZE_CDF_H */
