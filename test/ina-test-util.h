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
