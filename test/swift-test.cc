// SPDX-License-Identifier: GPL-2.0-only
// Swift on RoCE queue pairs: the target delay's scaling, fair sharing on a dumbbell, and
// the queue held at the target.
#include "cc-test-util.h"

using namespace ns3;
using namespace aifabric;

namespace
{
class SwiftBehaviour : public NsTest
{
};
} // namespace

TEST(SwiftTarget, ScalesWithHopsAndWindow)
{
    // Section 3.5: flow scaling adds FsRange at FsMinCwnd and nothing from FsMaxCwnd on,
    // α / √cwnd + β' between; each hop adds PerHopScaling.
    Ptr<RoceSwift> swift = CreateObject<RoceSwift>();
    EXPECT_EQ(swift->GetTargetDelay(100), MicroSeconds(25));
    EXPECT_EQ(swift->GetTargetDelay(1000), MicroSeconds(25));
    EXPECT_NEAR(swift->GetTargetDelay(0.1).GetSeconds(), 50e-6, 1e-12);
    EXPECT_NEAR(swift->GetTargetDelay(0.01).GetSeconds(), 50e-6, 1e-12); // capped at FsRange
    // cwnd 1: α = 25 us / (1/√0.1 − 1/√100), β' = −α / 10: 25 + α (1 − 0.1) us.
    const double alpha = 25e-6 / (1 / std::sqrt(0.1) - 0.1);
    EXPECT_NEAR(swift->GetTargetDelay(1).GetSeconds(), 25e-6 + alpha * 0.9, 1e-9); // ns steps
    swift->SetAttribute("Hops", UintegerValue(4));
    EXPECT_EQ(swift->GetTargetDelay(100), MicroSeconds(29));
    // Attributes that must fit together are checked.
    swift->SetAttribute("FsMaxCwnd", DoubleValue(0.05));
    std::string error;
    EXPECT_FALSE(swift->CheckConfiguration(&error));
    EXPECT_EQ(error, "ns3::RoceSwift::FsMaxCwnd: 0.05 must exceed FsMinCwnd (0.1)");
}

TEST_F(SwiftBehaviour, TwoFlowsShareAndHoldTheTargetDelay)
{
    // Two flows on a 100G dumbbell, the second 1 ms later: within 10 % of the fair share,
    // at least 95 % utilisation, and the bottleneck queue holds the RTT near the target:
    // base RTT + mean queue / C within 5 % of the target (AIMD saws around it).
    const DumbbellRun run =
        RunDumbbell("ns3::RoceSwift", 2, MilliSeconds(1), MilliSeconds(5), MilliSeconds(8));
    run.ExpectFairAndFull("Swift");
    // Base RTT: three 1 us cables both ways, a full data frame (4096 B payload + 82 B of
    // headers and ICRC + 24 B FCS, preamble, gap) and an ACK (62 + 24 B) on each link.
    const double baseRtt = 3 * (2e-6 + (4096 + 82 + 24) * 8 / 100e9 + (62 + 24) * 8 / 100e9);
    const double delay = baseRtt + run.queueMean * 8 / 100e9;
    std::cout << "[ measured ] Swift: RTT from the queue " << delay * 1e6 << " us, target "
              << run.target * 1e6 << " us\n";
    EXPECT_NEAR(delay, run.target, 0.05 * run.target);
    EXPECT_EQ(run.drops, 0u);
}
