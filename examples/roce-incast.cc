// SPDX-License-Identifier: GPL-2.0-only
//
// N:1 incast on one switch. Every sender writes one message to the same receiver; the
// receiver's port is the bottleneck. With PFC on, the switch pauses the senders and
// nothing is lost; with PFC off, the lossy queue overflows and go-back-N recovers.
//
//   ./roce-incast --senders=8 --pfc=1 --cc=ns3::RoceDcqcn --bytes=4M
//
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{
struct Delivery
{
    Time last;
    uint64_t bytes{0};
};

void
OnReceived(Delivery* d, Ptr<RdmaQueuePair>, uint64_t, uint64_t bytes)
{
    d->last = Simulator::Now();
    d->bytes += bytes;
}
} // namespace

int
main(int argc, char* argv[])
{
    ProgramOptions::FixTimeResolution();
    uint32_t senders = 8;
    uint64_t bytes = 4 << 20;
    bool pfc = true;
    std::string cc = "ns3::RoceDcqcn";
    DataRate rate("100Gbps");
    Time delay = MicroSeconds(1);
    std::string pcap;

    ProgramOptions cmd("roce-incast", __FILE__);
    cmd.Usage("N:1 incast on one switch: every sender writes one message to the same receiver.");
    cmd.AddValue("senders", "Number of senders", senders, 1, 1024);
    cmd.AddSize("bytes", "Bytes each sender writes", bytes, 1, uint64_t{1} << 40);
    cmd.AddValue("pfc", "Lossless priority with PFC (1) or lossy (0)", pfc);
    cmd.AddCongestionControl("cc", "Congestion control TypeId", cc);
    cmd.AddValue("rate", "Link rate", rate);
    cmd.AddValue("delay", "Link delay", delay);
    cmd.AddPcapPrefix("pcap",
                      "Capture every port into PREFIX-<node>-<device>.pcap (nanosecond stamps; "
                      "empty: none)",
                      pcap);
    if (!cmd.Parse(argc, argv))
    {
        return 1;
    }

    std::string why;
    if (!RoceHelper::CheckCongestionControl(cc, &why))
    {
        std::cerr << "roce-incast: " << why << '\n';
        return 1;
    }
    RoceHelper roce;
    roce.SetCongestionControl(cc);
    roce.SetMmuAttribute("LosslessPriorities", UintegerValue(pfc ? (1u << 3) : 0u));
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(senders + 1, rate, delay);
    roce.AssignStreams(1);
    if (!roce.CheckTelemetryRates(&why))
    {
        std::cerr << "roce-incast: --cc=" << cc << ": " << why << '\n';
        return 1;
    }
    if (!pcap.empty())
    {
        roce.EnablePcapAll(pcap);
    }

    std::vector<Ptr<RdmaQueuePair>> qps;
    Delivery delivery;
    for (uint32_t i = 0; i < senders; ++i)
    {
        auto [tx, rx] = RoceHelper::Connect(topo.nics[i], topo.nics[senders]);
        rx->SetReceiveCompleteCallback(MakeBoundCallback(&OnReceived, &delivery));
        qps.push_back(tx);
        Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, tx, bytes);
    }
    Simulator::Run();

    Ptr<RoceSwitch> sw = topo.switchObjects[0];
    uint64_t retransmitted = 0;
    uint64_t timeouts = 0;
    uint64_t naks = 0;
    for (const auto& qp : qps)
    {
        retransmitted += qp->GetPacketsRetransmitted();
        timeouts += qp->GetTimeouts();
        naks += qp->GetNaksReceived();
    }
    const uint64_t delivered = delivery.bytes;
    double goodput = delivered * 8.0 / delivery.last.GetSeconds();
    std::cout << std::fixed << std::setprecision(3);
    std::cout << "incast " << senders << ":1 at " << cmd.GetText("rate") << ", PFC "
              << (pfc ? "on" : "off") << ", CC " << cc << "\n"
              << "  delivered        " << delivered << " of " << senders * bytes << " bytes\n"
              << "  completion       " << delivery.last.GetMicroSeconds() << " us\n"
              << "  goodput          " << goodput / 1e9 << " Gb/s\n"
              << "  PFC pauses sent  " << sw->GetPfcPausesSent() << "\n"
              << "  drops            " << sw->GetTotalDrops() << "\n"
              << "  ECN marks        " << sw->GetEcnMarks() << "\n"
              << "  max queue        " << sw->GetMaxQueueBytes() << " bytes\n"
              << "  retransmitted    " << retransmitted << " packets (" << naks << " NAKs, "
              << timeouts << " timeouts)\n";
    Simulator::Destroy();
    return delivered == senders * bytes ? 0 : 2;
}
