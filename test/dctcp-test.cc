// SPDX-License-Identifier: GPL-2.0-only
// DCTCP on RoCE queue pairs: the receiver's exact ECN echo, fair sharing in both modes,
// and the queue DCTCP's analysis predicts around the marking threshold K.
#include "cc-test-util.h"

#include <cmath>

using namespace ns3;
using namespace aifabric;

namespace
{
class DctcpBehaviour : public NsTest
{
};
} // namespace

TEST_F(DctcpBehaviour, WindowModeSharesFairlyWithTheQueueAtK)
{
    // Two flows on a 100G dumbbell, marking at K = 65 packets (step marking, Kmin = Kmax
    // = K, Pmax = 1). DCTCP's analysis (Alizadeh et al. 2010, 3.3): with N synchronised
    // flows the queue peaks at Q_max = K + N packets and swings by
    // A = 1/2 sqrt(2 N (C RTT + K)) packets, so it stays between K + N - A and K + N.
    Config::SetDefault("ns3::RoceDctcp::Mode", StringValue("Window"));
    const uint32_t mtu = 4096;
    const uint32_t k = 65 * mtu;
    const DumbbellRun run = RunDumbbell("ns3::RoceDctcp",
                                        2,
                                        MilliSeconds(1),
                                        MilliSeconds(5),
                                        MilliSeconds(15),
                                        k,
                                        k,
                                        1.0);
    run.ExpectFairAndFull("DCTCP window");
    EXPECT_EQ(run.drops, 0u);
    // The analysis: RTT = 6 us of cables + 3 frame times ~ 7 us, C RTT ~ 21 packets; with
    // N = 2: Q_max = 67 packets, A = 9.3 packets. Tolerances: Q_max within 3 packets
    // (marks are taken at dequeue, ACKs coalesce), A within 25 % (the analysis is a fluid
    // approximation). alpha lies between the analysis's two regimes for windows of
    // W* = (C RTT + K) / N = 43 packets: synchronised sawtooth flows, alpha ~ sqrt(2 / W*)
    // = 0.216, and a cut of one packet in every window, alpha / 2 x W* = 1, alpha = 2 / W*
    // = 0.047; two unsynchronised flows sit near the second.
    const double n = 2;
    const double bdp = 12.5e9 * 7e-6 / mtu;
    const double kPackets = static_cast<double>(k) / mtu;
    const double qMax = kPackets + n;
    const double amplitude = 0.5 * std::sqrt(2 * n * (bdp + kPackets));
    const double window = (bdp + kPackets) / n;
    const double alpha = std::sqrt(2 / window);
    std::cout << "[ measured ] DCTCP window: Q_max " << run.queueMax / mtu << " (analysis " << qMax
              << "), swing " << (run.queueMax - run.queueMin) / mtu << " (analysis " << amplitude
              << "), alpha " << (run.alphas.empty() ? -1 : run.alphas[0]) << " (between "
              << 2 / window << " and " << alpha << ")\n";
    EXPECT_NEAR(run.queueMax / mtu, qMax, 3.0);
    EXPECT_NEAR((run.queueMax - run.queueMin) / mtu, amplitude, 0.25 * amplitude);
    ASSERT_EQ(run.alphas.size(), 2u);
    for (double a : run.alphas)
    {
        EXPECT_GE(a, 0.75 * 2 / window);
        EXPECT_LE(a, alpha);
    }
}

TEST_F(DctcpBehaviour, QueuePeaksAtKPlusNWithSixteenFlows)
{
    // The same analysis with N = 16 flows, so that K and K + N are 16 packets apart and
    // the tolerance (3 packets, below N / 2) tells them apart: Q_max = K + N = 81 packets.
    // (With two flows, above, K and K + N are within the tolerance of each other.) Windows
    // of about five packets share unevenly over 10 ms, so only the link's use is checked.
    Config::SetDefault("ns3::RoceDctcp::Mode", StringValue("Window"));
    const uint32_t mtu = 4096;
    const uint32_t k = 65 * mtu;
    const double n = 16;
    const DumbbellRun run = RunDumbbell("ns3::RoceDctcp",
                                        16,
                                        MicroSeconds(250),
                                        MilliSeconds(6),
                                        MilliSeconds(16),
                                        k,
                                        k,
                                        1.0);
    EXPECT_GE(run.Utilisation(), 0.95);
    EXPECT_EQ(run.drops, 0u);
    const double qMax = static_cast<double>(k) / mtu + n;
    std::cout << "[ measured ] DCTCP window, 16 flows: Q_max " << run.queueMax / mtu
              << " packets (analysis K + N = " << qMax << "), utilisation " << run.Utilisation()
              << "\n";
    EXPECT_NEAR(run.queueMax / mtu, qMax, 3.0);
}

TEST_F(DctcpBehaviour, RateModeSharesFairly)
{
    const uint32_t mtu = 4096;
    const uint32_t k = 65 * mtu;
    const DumbbellRun run = RunDumbbell("ns3::RoceDctcp",
                                        2,
                                        MilliSeconds(1),
                                        MilliSeconds(10),
                                        MilliSeconds(30),
                                        k,
                                        k,
                                        1.0);
    run.ExpectFairAndFull("DCTCP rate");
}
