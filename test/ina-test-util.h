// SPDX-License-Identifier: GPL-2.0-only
// What the in-network aggregation suites (ina, ina-streaming, ina-nvls) share.
#ifndef AI_FABRIC_INA_TEST_UTIL_H
#define AI_FABRIC_INA_TEST_UTIL_H

#include "test-util.h"

#include <string>
#include <vector>

namespace aifabric
{

/// Every worker's reduction, as its callback reports it.
struct Reductions
{
    std::vector<ns3::InaReduction> done; //!< in the order they finished

    /// Keep one. \param r a finished reduction
    void Record(const ns3::InaReduction& r);
};

/// Start a reduction of bytes on every worker of job now; collect the results in out.
void ReduceAll(const ns3::InaJob& job, uint64_t bytes, Reductions& out);

/// \return the wire time of one INA frame of payload value bytes at rateBps
double InaFrameSeconds(uint32_t payload, double rateBps);

/// \return seconds from the first send to the last result over all of r's reductions
double Span(const Reductions& r);

/// Drop a fraction rate of the frames a port receives, from random stream stream.
void AddLoss(ns3::Ptr<ns3::NetDevice> device, double rate, int64_t stream);

/**
 * Two workers on one switch (SwitchML, 100 Gb/s, 1 us cables) reduce bytes as job 9 with
 * roles; worker 0's cable is captured and read back with tshark and the INA Lua
 * dissector (doc/wireshark/ai-fabric-ina.lua). Call only where HaveTshark().
 * \param tag names the capture file
 * \param bytes value bytes to reduce
 * \param roles source and destination
 * \param fields the tshark fields to read
 * \param sourceDir the repository (AI_FABRIC_SOURCE_DIR of the suite), for the dissector
 * \return one row per INA frame of the capture
 */
std::vector<std::vector<std::string>> CaptureTwoWorkerReduction(
    const std::string& tag,
    uint64_t bytes,
    ns3::InaReductionRoles roles,
    const std::vector<std::string>& fields,
    const std::string& sourceDir);

/**
 * Run one all-reduce on a carrier with a CollectiveEngine until the simulation ends.
 * \param carrier the carrier
 * \param group the ranks
 * \param bytes the call size
 * \param algorithm an algorithm name, or "auto"
 * \param channels the engine's Channels
 * \return the result
 */
ns3::CollectiveResult RunAllReduce(ns3::Ptr<ns3::CollectiveTransport> carrier,
                                   const ns3::CommGroup& group,
                                   uint64_t bytes,
                                   const std::string& algorithm,
                                   uint32_t channels = 1);

} // namespace aifabric

#endif
