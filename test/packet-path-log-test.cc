// SPDX-License-Identifier: GPL-2.0-only
// The packet path explains itself: with NS_LOG on, a lossless incast logs the ECMP
// choice of each flow, the XOFF a congested ingress sends and the sender honours, the
// XON that resumes it and the ECN marks of the egress queue, each naming its port,
// priority and the figures that decided it. Skips when logs are compiled out.
#include "test-util.h"

#include "ns3/log.h"

#include <iostream>
#include <sstream>

using namespace aifabric;

namespace
{
class PacketPathLog : public NsTest
{
};
} // namespace

TEST_F(PacketPathLog, IncastLogsEveryDecision)
{
#ifndef NS3_LOG_ENABLE
    GTEST_SKIP() << "logs are compiled out of this build (configure with "
                    "-DAI_FABRIC_ENABLE_LOGS=ON)";
#else
    std::ostringstream captured;
    std::streambuf* saved = std::clog.rdbuf(captured.rdbuf());
    const auto level = LogLevel(LOG_LEVEL_LOGIC | LOG_PREFIX_NODE);
    LogComponentEnable("RoceSwitch", level);
    LogComponentEnable("RoceNetDevice", level);
    // A 2:1 incast at line rate through one switch with a 1 MB buffer and low ECN
    // thresholds: the receiver's port queues, ECN marks, the ingresses pause.
    RoceHelper roce;
    RoceTopology topo = SmallBufferStar(roce);
    StartTwoToOneIncast(topo);
    Simulator::Run();
    LogComponentDisable("RoceSwitch", LOG_LEVEL_ALL);
    LogComponentDisable("RoceNetDevice", LOG_LEVEL_ALL);
    std::clog.rdbuf(saved);
    const std::string log = captured.str();
    const uint64_t pauses = TotalPauses(topo);
    ASSERT_GT(pauses, 0u) << "the incast must pause its senders for this test to mean anything";
    // Host i is on switch port i; the receiver (host 2) on port 2.
    EXPECT_NE(log.find("ECMP: flow 10.0.0.1:"), std::string::npos);
    EXPECT_NE(log.find("-> 10.0.0.3 qp 256 from port 0 to port 2"), std::string::npos)
        << log.substr(0, 2000);
    EXPECT_NE(log.find("XOFF sent on port 0 priority 3, 65535 quanta"), std::string::npos);
    EXPECT_NE(log.find("XOFF honoured: priority 3 paused for 65535 quanta"), std::string::npos);
    EXPECT_NE(log.find("XON sent on port"), std::string::npos);
    EXPECT_NE(log.find("XON honoured: priority 3 resumes"), std::string::npos);
    EXPECT_NE(log.find("ECN: CE marked on port 2 priority 3"), std::string::npos);
    // One XOFF line per pause the switch counted.
    size_t xoffLines = 0;
    for (size_t at = log.find("XOFF sent"); at != std::string::npos;
         at = log.find("XOFF sent", at + 1))
    {
        ++xoffLines;
    }
    EXPECT_EQ(xoffLines, pauses);
#endif
}
