// SPDX-License-Identifier: GPL-2.0-only
//
// Whole-program benchmark of the packet path. Default scenario: 128 hosts at
// 400 Gb/s on a non-blocking leaf-spine (2 leaves × 64 hosts, 64 spines, 1 µs links);
// host i writes one 64 MiB message to host (i + 64) mod 128, so every byte crosses a
// spine; DCQCN; 4096 B MTU. Prints wall time, simulated time, scheduler events, data
// packets, packet-hops, packet-hops per wall second and peak RSS.
//
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <chrono>
#include <iomanip>
#include <iostream>
#include <sys/resource.h>

using namespace ns3;

namespace
{
struct Completion
{
    uint64_t messages{0};
    Time last;
};

void
OnReceived(Completion* c, Ptr<RdmaQueuePair>, uint64_t, uint64_t)
{
    ++c->messages;
    c->last = Simulator::Now();
}
} // namespace

int
main(int argc, char* argv[])
{
    uint32_t hostsPerLeaf = 64;
    uint32_t spines = 64;
    uint64_t bytes = 64ull << 20;
    DataRate rate("400Gbps");
    std::string cc = "ns3::RoceDcqcn";
    std::string pcap;

    // ProgramOptions makes ProgramOptions::DEFAULT_SCHEDULER the scheduler, as in every
    // ai-fabric program; --SchedulerType=ns3::MapScheduler measures ns-3's own default.
    ProgramOptions cmd("ai-fabric-bench", __FILE__);
    cmd.Usage("Whole-program benchmark of the packet path: every host of one leaf writes one "
              "message to a host of the other leaf, across the spines.");
    cmd.AddValue("hostsPerLeaf", "Hosts on each of the two leaves", hostsPerLeaf, 1, 1024);
    cmd.AddValue("spines", "Number of spines", spines, 1, 1024);
    cmd.AddSize("bytes", "Bytes each host writes", bytes, 1, uint64_t{1} << 40);
    cmd.AddValue("rate", "Rate of every link", rate);
    cmd.AddCongestionControl("cc", "Congestion control TypeId", cc);
    cmd.AddPcapPrefix("pcap",
                      "Capture every port into PREFIX-<node>-<device>.pcap (empty: none; the "
                      "default scenario writes about 70 GB: 8 GiB, 8 captures per frame)",
                      pcap);
    if (!cmd.Parse(argc, argv))
    {
        return 1;
    }
    // Each leaf-spine cable carries hostsPerLeaf x rate / spines (RoceTopologyHelper),
    // which the helper wants at 1 Mb/s or more.
    if (static_cast<double>(rate.GetBitRate()) * hostsPerLeaf / spines < 1e6)
    {
        return cmd.Fail(
            "spines",
            "expected at most " +
                std::to_string(static_cast<uint64_t>(rate.GetBitRate() / 1e6 * hostsPerLeaf)) +
                " spines at this --rate and --hostsPerLeaf (each leaf-spine link "
                "runs at rate x hostsPerLeaf / spines, at least 1Mbps)");
    }

    std::string why;
    if (!RoceHelper::CheckCongestionControl(cc, &why))
    {
        std::cerr << "ai-fabric-bench: " << why << '\n';
        return 1;
    }
    auto wallStart = std::chrono::steady_clock::now();
    RoceHelper roce;
    roce.SetCongestionControl(cc);
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.LeafSpine(2, spines, hostsPerLeaf, rate, 1.0, MicroSeconds(1));
    roce.AssignStreams(1);
    if (!roce.CheckTelemetryRates(&why))
    {
        std::cerr << "ai-fabric-bench: --cc=" << cc << ": " << why << '\n';
        return 1;
    }
    if (!pcap.empty())
    {
        roce.EnablePcapAll(pcap);
    }
    uint32_t hosts = 2 * hostsPerLeaf;
    Completion done;
    for (uint32_t i = 0; i < hosts; ++i)
    {
        auto [tx, rx] = RoceHelper::Connect(topo.nics[i], topo.nics[(i + hostsPerLeaf) % hosts]);
        rx->SetReceiveCompleteCallback(MakeBoundCallback(&OnReceived, &done));
        Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, tx, bytes);
    }
    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    auto wallEnd = std::chrono::steady_clock::now();

    uint64_t dataPackets = 0;
    for (const auto& nic : topo.nics)
    {
        dataPackets += nic->GetDataPacketsSent();
    }
    uint64_t hops = 0;
    for (NodeList::Iterator it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        for (uint32_t d = 0; d < (*it)->GetNDevices(); ++d)
        {
            Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>((*it)->GetDevice(d));
            if (dev)
            {
                hops += dev->GetTxFrames();
            }
        }
    }
    uint64_t drops = 0, pauses = 0;
    for (const auto& sw : topo.switchObjects)
    {
        drops += sw->GetTotalDrops();
        pauses += sw->GetPfcPausesSent();
    }
    double wall = std::chrono::duration<double>(wallEnd - wallStart).count();
    double runWall = std::chrono::duration<double>(wallEnd - runStart).count();
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);

    std::cout << std::fixed << std::setprecision(3) << "scenario            " << hosts
              << " hosts x " << cmd.GetText("rate") << ", 2 leaves, " << spines << " spines, "
              << bytes << " B per host, " << cc << ", " << ProgramOptions::GetSchedulerType()
              << ", " << ProgramOptions::GetAllocator() << "\n"
              << "messages completed  " << done.messages << " of " << hosts << "\n"
              << "wall seconds        " << wall << " (run " << runWall << ")\n"
              << "simulated seconds   " << std::setprecision(6) << done.last.GetSeconds()
              << " to the last delivery (DCQCN timers run on to " << Simulator::Now().GetSeconds()
              << ")" << std::setprecision(3) << "\n"
              << "scheduler events    " << Simulator::GetEventCount() << "\n"
              << "data packets        " << dataPackets << "\n"
              << "packet-hops         " << hops << "\n"
              << "packet-hops/wall s  " << hops / runWall << "\n"
              << "events/packet-hop   " << double(Simulator::GetEventCount()) / hops << "\n"
              << "drops / PFC pauses  " << drops << " / " << pauses << "\n"
              << "peak RSS            " << usage.ru_maxrss / 1024.0 << " MiB\n";
    Simulator::Destroy();
    return done.messages == hosts ? 0 : 1;
}
