// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_TOPOLOGY_READER_H
#define ROCE_TOPOLOGY_READER_H

#include "roce-helper.h"
#include "roce-topology-helper.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A fabric built from a topology file, with the names the file gave its nodes.
 * hosts, nics and hostNames share one order (the file's); so do switches,
 * switchObjects and switchNames.
 */
struct RoceTopologyFile
{
    RoceTopology topology;
    std::vector<std::string> hostNames;
    std::vector<std::string> switchNames;
    /// Hosts 0..g-1 form server 0, hosts g..2g-1 server 1, and so on (1 = one GPU each).
    uint32_t gpusPerServer{1};
};

/**
 * \ingroup ai-fabric
 * Builds a RoCE fabric described in a JSON file, with the RoceHelper's attributes
 * (congestion control, MMU, ...) applying to every NIC and switch it installs.
 *
 * File format:
 * \code{.json}
 * {
 *   "hosts":    [{"name": "h0"}, {"name": "h1"}],      // or {"count": 16, "prefix": "h"}
 *   "switches": [{"name": "leaf0"}],                    // or {"count": 4, "prefix": "sw"}
 *   "defaults": {"rate": "400Gbps", "delay": "1us"},    // optional
 *   "gpusPerServer": 8,                                 // optional, default 1
 *   "servers": 2,                                       // optional, checked = hosts /
 * gpusPerServer "links": [
 *     {"a": "h0", "b": "leaf0", "rate": "400Gbps", "delay": "1us"},
 *     {"a": "h1", "b": "leaf0"}                         // rate/delay from "defaults"
 *   ]
 * }
 * \endcode
 * - Names are non-empty strings, unique over hosts and switches together. The count form
 *   names nodes prefix + index (default prefixes "h" and "sw").
 * - Rates are a positive number and a unit as ns-3's DataRate spells it: bps, b/s, Bps,
 *   B/s with a k/K, M, G or T prefix ("kbps", "KB/s", ...) and the binary forms Kib/s,
 *   KiB/s, Mib/s, ... ; e.g. "400Gbps", "12.5GB/s".
 * - Delays are a non-negative number and one of s, ms, us, ns, ps; e.g. "1us", "500ns".
 * - Every host has exactly one link (its NIC has one port); every switch at least one;
 *   no link joins a node to itself; every host must be reachable from every other.
 *   Parallel links between two switches are allowed and become ECMP paths.
 * - Unknown keys are rejected, so a misspelled "dealy" is not silently ignored.
 *
 * Host i (in file order) gets RoceTopologyHelper::HostAddress(i). Switches are installed
 * after all links are cabled, then routes (shortest paths, ECMP on ties) are populated.
 *
 * Any problem is returned as an error naming the file, the place in it (a JSON path like
 * links[3].rate, or a line and column for syntax errors) and what was expected. The whole
 * file is checked before any node is created, so a bad file builds nothing.
 */
class RoceTopologyReader
{
  public:
    explicit RoceTopologyReader(RoceHelper& roce);

    /**
     * Read and build the topology in the file at path.
     * \param path the file
     * \param file set to the fabric and its names
     * \param error set to "<file>: <place>: <what>" on failure
     * \return false if the file cannot be read or is not a valid topology (nothing built)
     */
    bool Read(const std::string& path, RoceTopologyFile& file, std::string* error);
    /**
     * Build from JSON text.
     * \param json the text
     * \param name labels error messages (e.g. a file name)
     * \param file set to the fabric and its names
     * \param error set to "<name>: <place>: <what>" on failure
     * \return false if the text is not a valid topology (nothing built)
     */
    bool ReadString(const std::string& json,
                    const std::string& name,
                    RoceTopologyFile& file,
                    std::string* error);

  private:
    RoceHelper& m_roce;
};

} // namespace ns3

#endif
