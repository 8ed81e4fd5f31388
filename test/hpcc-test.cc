// SPDX-License-Identifier: GPL-2.0-only
// HPCC on RoCE queue pairs: the fixed point of its window law on a dumbbell.
#include "cc-test-util.h"

using namespace ns3;
using namespace aifabric;

namespace
{
class HpccBehaviour : public NsTest
{
};

/**
 * Print a run and check it against HPCC's fixed point: n long flows on one bottleneck
 * hold its normalised inflight U = txRate / C + queue / (C T) at η + n W_AI / (C T) =
 * η + n RateAi / C (Li et al. 2019, section 3.3), within tolerance (relative), each flow
 * within 10 % of the fair share. U is measured on the bottleneck: its wire bytes over the
 * window and the mean of its queue sampled every microsecond.
 */
void
ExpectFixedPoint(const DumbbellRun& run,
                 double rateAi,
                 const std::string& label,
                 double tolerance = 0.02)
{
    const double n = run.rates.size();
    const double expected = 0.95 + n * rateAi / 100e9;
    ASSERT_GT(run.baseRtt, 0) << label;
    const double u = run.linkUtilisation + run.queueMean * 8 / (100e9 * run.baseRtt);
    std::cout << "[ measured ] " << label << ": U " << u << " (fixed point " << expected
              << "), link utilisation " << run.linkUtilisation << ", T " << run.baseRtt * 1e6
              << " us, flows";
    for (double r : run.rates)
    {
        std::cout << " " << r / 1e9;
    }
    std::cout << " Gb/s, queue mean " << run.queueMean << " B, max " << run.queueMax << " B\n";
    EXPECT_NEAR(u, expected, tolerance * expected) << label;
    double sum = 0;
    for (double r : run.rates)
    {
        sum += r;
    }
    for (double r : run.rates)
    {
        EXPECT_NEAR(r, sum / n, 0.10 * sum / n) << label;
    }
    EXPECT_EQ(run.drops, 0U) << label;
}
} // namespace

TEST_F(HpccBehaviour, SingleFlowSettlesBelowLineRateWithNoQueue)
{
    // One flow, paper defaults (η 0.95, W_AI = 50 Mb/s × T): 95.05 % of the link, and the
    // queue stays empty once settled (a 100G dumbbell, 1 us cables). This checks η: the
    // n W_AI / C term (0.05 %) is below what a 1 % tolerance sees; the eight-flow test
    // checks that term.
    const DumbbellRun run =
        RunDumbbell("ns3::RoceHpcc", 1, Seconds(0), MilliSeconds(1), MilliSeconds(3));
    ExpectFixedPoint(run, 50e6, "HPCC 1 flow", 0.01);
    EXPECT_LT(run.queueMax, 4096.0) << "settled HPCC keeps less than a packet queued";
}

TEST_F(HpccBehaviour, FlowsShareAndReachTheFixedPoint)
{
    // Eight flows starting 50 us apart, W_AI raised to 500 Mb/s so the n-dependence of the
    // fixed point shows: U = 0.95 + 8 × 0.005 = 0.99 (one flow would give 0.955; without
    // the term, 0.95 lies 2 tolerances below). 1 KB
    // packets, as in the paper: with 4 KB ones a flow's window (11 KB) is under three
    // packets, and whole packets overshoot it.
    Config::SetDefault("ns3::RoceHpcc::RateAi", DataRateValue(DataRate("500Mbps")));
    Config::SetDefault("ns3::RdmaNic::Mtu", UintegerValue(1024));
    const DumbbellRun run =
        RunDumbbell("ns3::RoceHpcc", 8, MicroSeconds(50), MilliSeconds(2), MilliSeconds(4));
    ExpectFixedPoint(run, 500e6, "HPCC 8 flows, W_AI 500 Mb/s");
}

TEST_F(HpccBehaviour, TwoFlowsWithPaperDefaults)
{
    // η again (n W_AI / C = 0.1 %, inside the 1 % tolerance), with two flows sharing.
    const DumbbellRun run =
        RunDumbbell("ns3::RoceHpcc", 2, MicroSeconds(100), MilliSeconds(2), MilliSeconds(4));
    ExpectFixedPoint(run, 50e6, "HPCC 2 flows", 0.01);
}
