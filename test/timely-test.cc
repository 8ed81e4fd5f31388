// SPDX-License-Identifier: GPL-2.0-only
// TIMELY on RoCE queue pairs: RTT samples with every ACK, fair sharing on a dumbbell.
#include "cc-test-util.h"

using namespace ns3;
using namespace aifabric;

namespace
{
class TimelyBehaviour : public NsTest
{
};
} // namespace

TEST_F(TimelyBehaviour, TwoFlowsShareFairly)
{
    // Two flows on a 100G dumbbell, the second 1 ms after the first, TIMELY's published
    // parameters. The first contention cuts both rates deep (the RTT gradient is steep
    // while two line-rate flows fill the queue); they climb back by delta = 10 Mb/s per
    // update, so the fair share is reached only some 40 ms later, where it is measured.
    const DumbbellRun run =
        RunDumbbell("ns3::RoceTimely", 2, MilliSeconds(1), MilliSeconds(40), MilliSeconds(60));
    run.ExpectFairAndFull("TIMELY");
}
