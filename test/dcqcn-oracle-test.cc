// SPDX-License-Identifier: GPL-2.0-only
//
// DCQCN reaction point against the deterministic oracle (derived in doc/ai-fabric.rst, section
// Dcqcn) and against exact values derived from the update rules. Every expectation is an exact
// number, so a wrong cut, a wrong stage order or a wrong grid alignment fails.

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/no-congestion-control.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/roce-dcqcn.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <vector>

using namespace ns3;

namespace
{

constexpr double LINE = 100e9;
constexpr double G = 1.0 / 256;
constexpr double KEEP = 1.0 - G;

/// Relative difference, for values that are never zero here.
double
Rel(double a, double b)
{
    return std::fabs(a - b) / std::fabs(b);
}

/// The oracle's parameters (HPCC-sim run.py, 100G); overrides go on top.
ObjectFactory
OracleFactory()
{
    ObjectFactory f;
    f.SetTypeId("ns3::RoceDcqcn");
    f.Set("AlphaUpdatePeriod", TimeValue(MicroSeconds(1)));
    f.Set("RateDecreasePeriod", TimeValue(MicroSeconds(4)));
    f.Set("RateIncreaseTimer", TimeValue(MicroSeconds(300)));
    f.Set("G", DoubleValue(G));
    f.Set("FastRecoverySteps", UintegerValue(1));
    f.Set("RateAi", DataRateValue(DataRate("20Mbps")));
    f.Set("RateHai", DataRateValue(DataRate("200Mbps")));
    f.Set("RateOnFirstCnp", DoubleValue(1.0));
    f.Set("ClampTargetRate", BooleanValue(false));
    f.Set("ByteCounter", UintegerValue(0));
    return f;
}

void
At(Time t, std::function<void()> f)
{
    Simulator::Schedule(t, f);
}

/// Start at line rate and receive one CNP, both at t = 0.
void
StartWithCnpAtZero(Ptr<RoceDcqcn> cc)
{
    At(Seconds(0), [cc]() { cc->Start(static_cast<uint64_t>(LINE)); });
    At(Seconds(0), [cc]() { cc->OnCnp(); });
}

} // namespace

TEST(DcqcnOracle, MatchesReferenceTable)
{
    Ptr<RoceDcqcn> cc = OracleFactory().Create<RoceDcqcn>();
    std::vector<double> alphaTrace;
    cc->TraceConnectWithoutContext("Alpha", MakeCallback(+[](std::vector<double>* v, double a) {
                                                v->push_back(a);
                                            }).Bind(&alphaTrace));
    StartWithCnpAtZero(cc);

    // Checks run at 4 us + 1 ns, timer steps 300 us apart after it.
    const std::vector<double> printedGbps{50.777, 75.388, 87.694, 93.847, 96.924, 98.462, 99.231};
    std::vector<double> exact;
    exact.push_back(LINE * (1.0 - std::pow(KEEP, 4) / 2.0));
    for (size_t i = 1; i < printedGbps.size(); ++i)
    {
        exact.push_back((exact.back() + LINE) / 2.0);
    }

    std::vector<double> before(printedGbps.size());
    std::vector<double> after(printedGbps.size());
    std::vector<double> targetAfter(printedGbps.size());
    for (size_t i = 0; i < printedGbps.size(); ++i)
    {
        const Time boundary = MicroSeconds(4 + 300 * i);
        // Scheduled from t = 1 us, i.e. after the model scheduled its own events, so at
        // equal times this sample runs after them: it fails if the grid lacks the 1 ns.
        At(MicroSeconds(1), [&, i, boundary]() {
            Simulator::Schedule(boundary - Simulator::Now(),
                                [&, i]() { before[i] = cc->GetRateBps(); });
        });
        At(boundary + NanoSeconds(2), [&, i]() {
            after[i] = cc->GetCurrentRateBps();
            targetAfter[i] = cc->GetTargetRateBps();
        });
    }
    Time lastChange;
    cc->TraceConnectWithoutContext("RateChange", MakeCallback(+[](Time* last, double, double) {
                                                     *last = Simulator::Now();
                                                 }).Bind(&lastChange));
    // A stop, so that a model whose timers never end fails here instead of hanging.
    Simulator::Stop(Seconds(1));
    Simulator::Run();

    EXPECT_EQ(before[0], LINE); // the CNP alone does not cut before the check
    for (size_t i = 0; i < printedGbps.size(); ++i)
    {
        SCOPED_TRACE(i);
        EXPECT_LT(Rel(after[i], exact[i]), 1e-6) << after[i];
        EXPECT_LT(Rel(after[i], printedGbps[i] * 1e9), 1e-4) << after[i];
        EXPECT_EQ(targetAfter[i], LINE);
        if (i > 0)
        {
            // Nothing moves between timer steps.
            EXPECT_EQ(before[i], after[i - 1]);
        }
    }
    ASSERT_EQ(alphaTrace.size(), 1u);
    EXPECT_LT(Rel(alphaTrace[0], std::pow(KEEP, 4)), 1e-12);

    // Recovery ends exactly at line rate, and the model then stops scheduling: always
    // running timers would have run thousands of events in that simulated second.
    EXPECT_EQ(cc->GetRateBps(), LINE);
    EXPECT_EQ(cc->GetTargetRateBps(), LINE);
    EXPECT_LT(lastChange, MilliSeconds(50));
    EXPECT_LT(Simulator::GetEventCount(), 200u);
    Simulator::Destroy();
}

TEST(DcqcnOracle, SecondCnpBeforeCheckCutsOnce)
{
    ObjectFactory f = OracleFactory();
    f.Set("RateOnFirstCnp", DoubleValue(0.0));
    Ptr<RoceDcqcn> cc = f.Create<RoceDcqcn>();
    int changes = 0;
    cc->TraceConnectWithoutContext("RateChange", MakeCallback(+[](int* n, double, double) {
                                                     ++*n;
                                                 }).Bind(&changes));
    StartWithCnpAtZero(cc);
    At(NanoSeconds(2500), [cc]() { cc->OnCnp(); });
    // After the first check, the next CNP waits for the grid (12 us + 1 ns), not 4 us.
    At(NanoSeconds(9500), [cc]() { cc->OnCnp(); });

    double r4 = 0;
    double r8 = 0;
    double r12before = 0;
    double r12 = 0;
    int changesAt8 = -1;
    At(MicroSeconds(4) + NanoSeconds(2), [&]() { r4 = cc->GetRateBps(); });
    At(MicroSeconds(8) + NanoSeconds(2), [&]() {
        r8 = cc->GetRateBps();
        changesAt8 = changes;
    });
    At(MicroSeconds(12), [&]() { r12before = cc->GetRateBps(); });
    At(MicroSeconds(12) + NanoSeconds(2), [&]() { r12 = cc->GetRateBps(); });
    Simulator::Stop(MicroSeconds(20));
    Simulator::Run();

    // alpha per 1 us boundary: CNP at 2.5 us counts at the 3 us boundary only.
    double alpha = 1.0;
    for (int k = 1; k <= 12; ++k)
    {
        const bool cnp = (k == 3 || k == 10);
        alpha = KEEP * alpha + (cnp ? G : 0.0);
        if (k == 4)
        {
            const double rc1 = LINE * (1.0 - alpha / 2.0);
            EXPECT_LT(Rel(r4, rc1), 1e-12);
        }
    }
    const double rc2 = r4 * (1.0 - alpha / 2.0);
    EXPECT_EQ(changesAt8, 1);
    EXPECT_EQ(r8, r4);
    EXPECT_EQ(r12before, r4);
    EXPECT_LT(Rel(r12, rc2), 1e-12);
    EXPECT_EQ(changes, 2);
    EXPECT_EQ(cc->GetTargetRateBps(), LINE); // no increase step ran: no clamp
    Simulator::Destroy();
}

TEST(DcqcnOracle, AlphaDecaysAsPerPeriodIteration)
{
    Ptr<RoceDcqcn> cc = OracleFactory().Create<RoceDcqcn>();
    StartWithCnpAtZero(cc);
    const std::vector<int> ks{0, 1, 2, 3, 4, 5, 10, 63, 64, 65, 66, 100, 1000, 10000, 100000};
    std::vector<double> got(ks.size());
    for (size_t i = 0; i < ks.size(); ++i)
    {
        At(MicroSeconds(ks[i]) + NanoSeconds(500), [&, i]() { got[i] = cc->GetAlpha(); });
    }
    Simulator::Stop(MilliSeconds(101));
    Simulator::Run();

    double iterated = 1.0;
    int k = 0;
    for (size_t i = 0; i < ks.size(); ++i)
    {
        for (; k < ks[i]; ++k)
        {
            iterated *= KEEP;
        }
        SCOPED_TRACE(ks[i]);
        EXPECT_LT(Rel(got[i], iterated), 1e-12) << got[i] << " vs " << iterated;
        EXPECT_LT(Rel(got[i], std::pow(KEEP, ks[i])), 1e-12);
    }
    EXPECT_EQ(got[0], 1.0);
    Simulator::Destroy();
}

TEST(DcqcnOracle, GetAlphaHasNoSideEffectsAndInitialAlphaApplies)
{
    ObjectFactory f = OracleFactory();
    f.Set("InitialAlpha", DoubleValue(0.5));
    Ptr<RoceDcqcn> cc = f.Create<RoceDcqcn>();
    StartWithCnpAtZero(cc);
    double a0 = 0;
    double a35 = 0;
    At(NanoSeconds(100), [&]() { a0 = cc->GetAlpha(); });
    // Reading alpha at 2.5 us must not consume the 1 and 2 us boundaries' ordering with
    // respect to the CNP at 2.7 us: that CNP counts at the 3 us boundary.
    At(NanoSeconds(2500), [&]() { cc->GetAlpha(); });
    At(NanoSeconds(2700), [cc]() { cc->OnCnp(); });
    At(NanoSeconds(3500), [&]() { a35 = cc->GetAlpha(); });
    Simulator::Stop(MicroSeconds(10));
    Simulator::Run();
    EXPECT_EQ(a0, 0.5);
    const double expected = KEEP * (0.5 * KEEP * KEEP) + G;
    EXPECT_LT(Rel(a35, expected), 1e-12);
    Simulator::Destroy();
}

TEST(DcqcnOracle, ByteCounterTriggersIncreaseSteps)
{
    ObjectFactory f = OracleFactory();
    f.Set("ByteCounter", UintegerValue(1000));
    f.Set("ClampTargetRate", BooleanValue(true));
    f.Set("RateOnFirstCnp", DoubleValue(0.0));
    Ptr<RoceDcqcn> cc = f.Create<RoceDcqcn>();
    StartWithCnpAtZero(cc);
    At(NanoSeconds(10500), [cc]() { cc->OnCnp(); });

    struct Sample
    {
        double rc;
        double rt;
    };

    std::vector<Sample> s;
    auto sample = [&]() { s.push_back({cc->GetRateBps(), cc->GetTargetRateBps()}); };
    At(MicroSeconds(20), [&]() {
        sample(); // 0: after two cuts
        cc->OnSend(999);
        sample(); // 1: not yet a step
        cc->OnSend(1);
        sample(); // 2: step with T=0, BC=0 -> fast recovery
        cc->OnSend(1000);
        sample(); // 3: T=0, BC=1 -> additive (hyper needs min(T,BC) > F)
        cc->OnSend(2500);
        sample(); // 4: two additive steps, 500 bytes left over
        cc->OnSend(499);
        sample(); // 5: unchanged
        cc->OnSend(1);
        sample(); // 6: one more additive step
    });
    // The timer step at 12 us + 1 ns + 300 us sees BC = 5 > F and T = 0: additive.
    At(MicroSeconds(312) + NanoSeconds(2), sample); // 7
    Simulator::Stop(MicroSeconds(400));
    Simulator::Run();

    const double ai = 20e6;
    double alpha = 1.0;
    double rc1 = 0;
    for (int k = 1; k <= 12; ++k)
    {
        alpha = KEEP * alpha + (k == 11 ? G : 0.0);
        if (k == 4)
        {
            rc1 = LINE * (1.0 - alpha / 2.0);
        }
    }
    const double rc2 = rc1 * (1.0 - alpha / 2.0);
    ASSERT_EQ(s.size(), 8u);
    EXPECT_LT(Rel(s[0].rc, rc2), 1e-12);
    EXPECT_LT(Rel(s[0].rt, rc1), 1e-12); // clamp: the second cut aimed Rt at the rate before it
    EXPECT_LT(Rel(s[1].rc, rc2), 1e-12);
    double rt = rc1;
    double rc = (rc2 + rt) / 2.0;
    EXPECT_LT(Rel(s[2].rt, rt), 1e-12);
    EXPECT_LT(Rel(s[2].rc, rc), 1e-12);
    rt += ai;
    rc = (rc + rt) / 2.0;
    EXPECT_LT(Rel(s[3].rt, rt), 1e-12);
    EXPECT_LT(Rel(s[3].rc, rc), 1e-12);
    for (int i = 0; i < 2; ++i)
    {
        rt += ai;
        rc = (rc + rt) / 2.0;
    }
    EXPECT_LT(Rel(s[4].rt, rt), 1e-12);
    EXPECT_LT(Rel(s[4].rc, rc), 1e-12);
    EXPECT_LT(Rel(s[5].rc, rc), 1e-12);
    rt += ai;
    rc = (rc + rt) / 2.0;
    EXPECT_LT(Rel(s[6].rt, rt), 1e-12);
    EXPECT_LT(Rel(s[6].rc, rc), 1e-12);
    rt += ai;
    rc = (rc + rt) / 2.0;
    EXPECT_LT(Rel(s[7].rt, rt), 1e-12);
    EXPECT_LT(Rel(s[7].rc, rc), 1e-12);
    Simulator::Destroy();
}

TEST(DcqcnOracle, NeverBelowMinRate)
{
    for (double minBps : {10e9, 1e6})
    {
        SCOPED_TRACE(minBps);
        ObjectFactory f = OracleFactory();
        f.Set("MinRate", DataRateValue(DataRate(static_cast<uint64_t>(minBps))));
        Ptr<RoceDcqcn> cc = f.Create<RoceDcqcn>();
        double lowest = std::numeric_limits<double>::infinity();
        cc->TraceConnectWithoutContext("RateChange",
                                       MakeCallback(+[](double* low, double, double now) {
                                           *low = std::min(*low, now);
                                       }).Bind(&lowest));
        StartWithCnpAtZero(cc);
        for (int i = 1; i <= 700; ++i)
        {
            At(MicroSeconds(3 * i), [cc]() { cc->OnCnp(); });
        }
        Simulator::Stop(MicroSeconds(2200));
        Simulator::Run();
        EXPECT_EQ(lowest, minBps);
        EXPECT_EQ(cc->GetRateBps(), minBps);
        Simulator::Destroy();
    }
}

TEST(DcqcnOracle, HyperIncreaseLinearAndConstant)
{
    for (bool linear : {false, true})
    {
        SCOPED_TRACE(linear);
        ObjectFactory f = OracleFactory();
        f.Set("RateOnFirstCnp", DoubleValue(0.5));
        f.Set("HyperIncrease", EnumValue(linear ? RoceDcqcn::HAI_LINEAR : RoceDcqcn::HAI_CONSTANT));
        Ptr<RoceDcqcn> cc = f.Create<RoceDcqcn>();
        StartWithCnpAtZero(cc);
        double firstRc = 0;
        double firstRt = 0;
        At(NanoSeconds(1), [&]() {
            firstRc = cc->GetRateBps();
            firstRt = cc->GetTargetRateBps();
        });
        std::vector<double> rc(6);
        std::vector<double> rt(6);
        for (int i = 0; i < 6; ++i)
        {
            At(MicroSeconds(4 + 300 * i) + NanoSeconds(2), [&, i]() {
                rc[i] = cc->GetRateBps();
                rt[i] = cc->GetTargetRateBps();
            });
        }
        Simulator::Stop(MicroSeconds(1700));
        Simulator::Run();

        EXPECT_EQ(firstRc, 50e9);
        EXPECT_EQ(firstRt, 50e9);
        double erc = 50e9 * (1.0 - std::pow(KEEP, 4) / 2.0);
        double ert = 50e9;
        EXPECT_LT(Rel(rc[0], erc), 1e-12);
        erc = rc[0]; // continue from the model's own cut so the steps compare exactly
        EXPECT_EQ(rt[0], ert);
        // step 1 (T=0): fast recovery; step 2 (T=1=F): additive; then hyper, i = 1, 2, 3.
        const std::vector<double> add{0,
                                      20e6,
                                      200e6,
                                      linear ? 400e6 : 200e6,
                                      linear ? 600e6 : 200e6};
        for (int i = 1; i < 6; ++i)
        {
            SCOPED_TRACE(i);
            ert += add[i - 1];
            erc = (erc + ert) / 2.0;
            EXPECT_EQ(rt[i], ert);
            EXPECT_EQ(rc[i], erc);
        }
        EXPECT_EQ(rt[5], linear ? 51.22e9 : 50.62e9);
        Simulator::Destroy();
    }
}

TEST(DcqcnOracle, DefaultsAreConnectXFirmware)
{
    Ptr<RoceDcqcn> cc = CreateObject<RoceDcqcn>();
    TimeValue t;
    cc->GetAttribute("AlphaUpdatePeriod", t);
    EXPECT_EQ(t.Get(), MicroSeconds(1));
    cc->GetAttribute("RateDecreasePeriod", t);
    EXPECT_EQ(t.Get(), MicroSeconds(4));
    cc->GetAttribute("RateIncreaseTimer", t);
    EXPECT_EQ(t.Get(), MicroSeconds(300));
    UintegerValue u;
    cc->GetAttribute("ByteCounter", u);
    EXPECT_EQ(u.Get(), 32767u);
    cc->GetAttribute("FastRecoverySteps", u);
    EXPECT_EQ(u.Get(), 1u);
    DataRateValue r;
    cc->GetAttribute("RateAi", r);
    EXPECT_EQ(r.Get().GetBitRate(), 5000000u);
    cc->GetAttribute("RateHai", r);
    EXPECT_EQ(r.Get().GetBitRate(), 50000000u);
    cc->GetAttribute("MinRate", r);
    EXPECT_EQ(r.Get().GetBitRate(), 1000000u);
    DoubleValue d;
    cc->GetAttribute("G", d);
    EXPECT_EQ(d.Get(), 1.0 / 256);
    cc->GetAttribute("RateOnFirstCnp", d);
    EXPECT_EQ(d.Get(), 0.0);
    cc->GetAttribute("InitialAlpha", d);
    EXPECT_EQ(d.Get(), 1.0);
    BooleanValue b;
    cc->GetAttribute("ClampTargetRate", b);
    EXPECT_FALSE(b.Get());
    // By name: EnumValue is EnumValue<T> from ns-3.41, a plain class before.
    StringValue e;
    cc->GetAttribute("HyperIncrease", e);
    EXPECT_EQ(e.Get(), "Constant");
    // Checkers are bounded.
    EXPECT_FALSE(cc->SetAttributeFailSafe("G", DoubleValue(0.0)));
    EXPECT_FALSE(cc->SetAttributeFailSafe("G", DoubleValue(1.5)));
    EXPECT_FALSE(cc->SetAttributeFailSafe("RateOnFirstCnp", DoubleValue(1.5)));
    EXPECT_FALSE(cc->SetAttributeFailSafe("AlphaUpdatePeriod", TimeValue(Seconds(0))));
    Simulator::Destroy();
}

TEST(NoCongestionControl, StaysAtLineRate)
{
    ObjectFactory f;
    f.SetTypeId("ns3::NoCongestionControl");
    Ptr<RoceCongestionControl> cc = f.Create<RoceCongestionControl>();
    int changes = 0;
    cc->TraceConnectWithoutContext("RateChange", MakeCallback(+[](int* n, double, double) {
                                                     ++*n;
                                                 }).Bind(&changes));
    At(Seconds(0), [cc]() { cc->Start(static_cast<uint64_t>(LINE)); });
    for (int i = 0; i < 100; ++i)
    {
        At(MicroSeconds(i), [cc]() {
            RoceAckSignal ack;
            ack.ecnEcho = true;
            ack.newlyAckedBytes = 4096;
            ack.rtt = MicroSeconds(10);
            cc->OnCnp();
            cc->OnAck(ack);
            cc->OnNak();
            cc->OnTimeout();
            cc->OnSend(4200);
        });
    }
    Simulator::Run();
    EXPECT_EQ(cc->GetRateBps(), LINE);
    EXPECT_EQ(cc->GetWindowBytes(), 0u);
    EXPECT_EQ(cc->GetLineRateBps(), static_cast<uint64_t>(LINE));
    EXPECT_EQ(changes, 0);
    Simulator::Destroy();
}

TEST(DcqcnOracle, IdleCatchUpEqualsARunningTimer)
{
    // A queue pair idle from 10 µs to 2 ms: its timer is stopped, and OnActive must replay
    // the missed expiries so the rate equals that of a twin whose timer kept running.
    Ptr<RoceDcqcn> running = OracleFactory().Create<RoceDcqcn>();
    Ptr<RoceDcqcn> idle = OracleFactory().Create<RoceDcqcn>();
    StartWithCnpAtZero(running);
    StartWithCnpAtZero(idle);
    At(MicroSeconds(10), [idle]() { idle->OnIdle(); });
    double runningRate = 0;
    double idleRate = 0;
    At(MilliSeconds(2), [&]() {
        idle->OnActive();
        runningRate = running->GetRateBps();
        idleRate = idle->GetRateBps();
    });
    Simulator::Run();
    EXPECT_LT(runningRate, LINE);
    EXPECT_GT(runningRate, 99e9); // several steps happened meanwhile
    EXPECT_EQ(idleRate, runningRate);
    EXPECT_EQ(idle->GetTargetRateBps(), running->GetTargetRateBps());
    Simulator::Destroy();
}

TEST(DcqcnOracle, LateCnpOnAnIdleQueuePairSchedulesNoTimer)
{
    // A CNP that arrives after the last ACK still cuts the rate, but an idle queue pair
    // keeps no timer running: the simulation ends with the decrease check.
    Ptr<RoceDcqcn> cc = OracleFactory().Create<RoceDcqcn>();
    At(Seconds(0), [cc]() {
        cc->Start(static_cast<uint64_t>(LINE));
        cc->OnIdle();
        cc->OnCnp();
    });
    Simulator::Run();
    EXPECT_LT(cc->GetRateBps(), LINE);
    EXPECT_LE(Simulator::Now(), MicroSeconds(5));
    Simulator::Destroy();
}
