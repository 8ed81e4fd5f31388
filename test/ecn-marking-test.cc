// SPDX-License-Identifier: GPL-2.0-only
// RED-like egress marking: the measured probability follows Kmin/Kmax/Pmax, thresholds
// scale with the link rate, marked frames carry CE and trigger CNPs.
#include "cc-test-util.h"
#include "test-util.h"

#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"

#include <cmath>

using namespace aifabric;

namespace
{
class EcnMarking : public NsTest
{
};

Ptr<SharedBufferMmu>
MakeMmu(uint64_t rateBps)
{
    Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
    mmu->Configure({rateBps, rateBps}, {MicroSeconds(1), MicroSeconds(1)}, 4200);
    mmu->AssignStreams(7);
    return mmu;
}
} // namespace

TEST_F(EcnMarking, DefaultsScaleWithLinkRate)
{
    Ptr<SharedBufferMmu> mmu100 = MakeMmu(100000000000ull);
    EXPECT_EQ(mmu100->GetKmin(0), 400000u);
    EXPECT_EQ(mmu100->GetKmax(0), 1600000u);
    Ptr<SharedBufferMmu> mmu400 = MakeMmu(400000000000ull);
    EXPECT_EQ(mmu400->GetKmin(0), 1600000u);
    EXPECT_EQ(mmu400->GetKmax(0), 6400000u);
}

TEST_F(EcnMarking, MeasuredProbabilityFollowsRed)
{
    Ptr<SharedBufferMmu> mmu = MakeMmu(100000000000ull);
    const uint32_t kmin = mmu->GetKmin(0);
    const uint32_t kmax = mmu->GetKmax(0);
    const double pmax = 0.2;
    const int samples = 40000;
    for (double f : {-0.01, 0.0, 0.25, 0.5, 0.75, 1.0, 1.01})
    {
        auto queue = static_cast<uint32_t>(kmin + f * (kmax - kmin));
        double expected = f <= 0 ? 0.0 : (f > 1.0 ? 1.0 : pmax * (queue - kmin) / (kmax - kmin));
        int marked = 0;
        for (int i = 0; i < samples; ++i)
        {
            marked += mmu->ShouldMarkEcn(0, queue) ? 1 : 0;
        }
        double measured = double(marked) / samples;
        // 5 standard deviations of a binomial proportion (exact at 0 and 1).
        double tolerance = 5 * std::sqrt(expected * (1 - expected) / samples);
        EXPECT_NEAR(measured, expected, tolerance) << "queue " << queue << " B";
        EXPECT_DOUBLE_EQ(mmu->GetMarkingProbability(0, queue), expected);
    }
}

TEST_F(EcnMarking, MarkedFramesCarryCeAndTriggerCnps)
{
    RoceHelper roce;
    roce.SetCongestionControl("ns3::RoceDcqcn");
    roce.SetMmuAttribute("EcnKmin", UintegerValue(20000));
    roce.SetMmuAttribute("EcnKmax", UintegerValue(80000));
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(3, DataRate("100Gbps"), MicroSeconds(1));
    std::vector<uint8_t> ecnSeen;
    topo.switchObjects[0]->TraceConnectWithoutContext(
        "EcnMark",
        MakeBoundCallback(
            +[](std::vector<uint8_t>* seen, Ptr<const Packet> p) {
                RoceFrameInfo info;
                ParseRoceFrame(p, info);
                seen->push_back(info.ecn);
            },
            &ecnSeen));
    FlowProbe f0;
    FlowProbe f1;
    f0.Attach(RoceHelper::Connect(topo.nics[0], topo.nics[2]));
    f1.Attach(RoceHelper::Connect(topo.nics[1], topo.nics[2]));
    double lowestRate = 100e9;
    for (FlowProbe* f : {&f0, &f1})
    {
        f->sender->GetCongestionControl()->TraceConnectWithoutContext(
            "RateChange",
            MakeBoundCallback(
                +[](double* lowest, double, double bps) { *lowest = std::min(*lowest, bps); },
                &lowestRate));
    }
    Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, f0.sender, 4 << 20);
    Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, f1.sender, 4 << 20);
    Simulator::Run();
    ASSERT_FALSE(ecnSeen.empty());
    for (uint8_t ecn : ecnSeen)
    {
        ASSERT_EQ(ecn, 3); // CE
    }
    EXPECT_EQ(topo.switchObjects[0]->GetEcnMarks(), ecnSeen.size());
    // Per port: every mark was made on the port toward host 2, the congested one.
    EXPECT_EQ(topo.switchObjects[0]->GetEcnMarks(2), ecnSeen.size());
    EXPECT_EQ(topo.switchObjects[0]->GetEcnMarks(0) + topo.switchObjects[0]->GetEcnMarks(1), 0u);
    EXPECT_GT(f0.receiver->GetCnpsSent() + f1.receiver->GetCnpsSent(), 0u);
    EXPECT_EQ(f0.sender->GetCnpsReceived(), f0.receiver->GetCnpsSent());
    EXPECT_LT(lowestRate, 100e9); // the CNPs slowed a sender down
    EXPECT_EQ(f0.BytesReceived() + f1.BytesReceived(), 8u << 20);
}

TEST_F(EcnMarking, CongestionExperiencedKeepsAValidIpv4Checksum)
{
    Ptr<Packet> p = Create<Packet>(100);
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(Ipv4Address("10.0.0.2"));
    ip.SetProtocol(17);
    ip.SetPayloadSize(100);
    ip.SetEcn(Ipv4Header::ECN_ECT0);
    ip.EnableChecksum();
    p->AddHeader(ip);
    EthernetHeader eth(false);
    eth.SetLengthType(0x0800);
    p->AddHeader(eth);
    MarkCongestionExperienced(p);
    RoceFrameInfo info;
    ParseRoceFrame(p, info);
    EXPECT_EQ(info.ecn, 3);
    EthernetHeader eth2(false);
    p->RemoveHeader(eth2);
    Ipv4Header ip2;
    ip2.EnableChecksum();
    p->RemoveHeader(ip2);
    EXPECT_TRUE(ip2.IsChecksumOk());
    EXPECT_EQ(ip2.GetEcn(), Ipv4Header::ECN_CE);
}

// A frame's parsed fields travel with it from the port that parsed it (RoceQueueItem::info,
// the channel's arrival event); a switch that changes the bytes (a CE mark, a telemetry
// record) has its port parse the frame again. With the check on, every port parses each
// frame it receives and compares: on a congested dumbbell with DCQCN and aggressive marking
// (frames marked CE) and with HPCC (every data frame stamped), the carried fields are the
// bytes' fields for every frame. A switch that forgot to clear them after marking would
// hand the next port ECT where the frame says CE.
TEST_F(EcnMarking, CarriedFieldsAreTheFramesOwnUnderMarksAndTelemetry)
{
    RoceNetDevice::CheckCarriedFields(true);
    RunDumbbell("ns3::RoceDcqcn",
                4,
                Seconds(0),
                MicroSeconds(200),
                MicroSeconds(400),
                4096,
                8192,
                1.0);
    const RoceNetDevice::CarriedFieldsCheck dcqcn = RoceNetDevice::GetCarriedFieldsCheck();
    Simulator::Destroy();
    RoceNetDevice::CheckCarriedFields(true);
    RunDumbbell("ns3::RoceHpcc", 2, Seconds(0), MicroSeconds(200), MicroSeconds(400));
    const RoceNetDevice::CarriedFieldsCheck hpcc = RoceNetDevice::GetCarriedFieldsCheck();
    RoceNetDevice::CheckCarriedFields(false);
    EXPECT_GT(dcqcn.frames, 1000u);
    EXPECT_GT(dcqcn.marked, 0u);
    EXPECT_EQ(dcqcn.mismatches, 0u);
    EXPECT_GT(hpcc.frames, 1000u);
    EXPECT_GT(hpcc.stamped, 0u);
    EXPECT_EQ(hpcc.mismatches, 0u);
    std::cout << "[ measured ] carried fields: DCQCN " << dcqcn.frames << " frames, "
              << dcqcn.marked << " marked CE; HPCC " << hpcc.frames << " frames, " << hpcc.stamped
              << " with telemetry; mismatches " << dcqcn.mismatches + hpcc.mismatches << "\n";
}
