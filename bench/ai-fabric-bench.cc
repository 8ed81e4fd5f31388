// SPDX-License-Identifier: GPL-2.0-only
//
// Whole-program benchmark of the packet path. Default scenario: 128 hosts at
// 400 Gb/s on a non-blocking leaf-spine (2 leaves × 64 hosts, 64 spines, 1 µs links);
// host i writes one 64 MiB message to host (i + 64) mod 128, so every byte crosses a
// spine; DCQCN; 4096 B MTU. Prints wall time, simulated time, scheduler events, data
// packets, packet-hops, packet-hops per wall second and peak RSS. With --emptyEvents=N it
// then runs N empty events on each of ns-3's stock schedulers (a hold model: a population
// of pending events, each event scheduling one more) and compares the packet path's
// packet-hops per second with the fastest of them.
//
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <chrono>
#include <iomanip>
#include <iostream>
#include <random>
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

/// The hold model: every event schedules one more, after a delay from a fixed table, until
/// left reaches zero; then the population drains.
struct Hold
{
    uint64_t left{0};
    std::vector<Time> delays; //!< a power of two of them
    std::size_t next{0};
};

void
HoldEvent(Hold* h)
{
    if (h->left == 0)
    {
        return;
    }
    --h->left;
    Simulator::Schedule(h->delays[h->next++ & (h->delays.size() - 1)], &HoldEvent, h);
}

/**
 * Empty events per wall second on scheduler type: population pending events, each of which
 * schedules one more at a delay uniform in [0, 2 us), max(events, population) in all (the
 * population included). Destroys the simulation that ran before.
 */
double
EmptyEventRate(const std::string& type, uint64_t events, uint32_t population)
{
    Simulator::Destroy();
    ObjectFactory factory(type);
    Simulator::SetScheduler(factory);
    Hold h;
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<int64_t> ps(0, 1999999);
    h.delays.resize(1u << 16);
    for (Time& d : h.delays)
    {
        d = PicoSeconds(ps(rng));
    }
    h.left = events > population ? events - population : 0;
    for (uint32_t i = 0; i < population; ++i)
    {
        Simulator::Schedule(h.delays[h.next++ & (h.delays.size() - 1)], &HoldEvent, &h);
    }
    const auto start = std::chrono::steady_clock::now();
    Simulator::Run();
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return static_cast<double>(Simulator::GetEventCount()) / secs;
}
} // namespace

int
main(int argc, char* argv[])
{
    ProgramOptions::FixTimeResolution();
    uint32_t hostsPerLeaf = 64;
    uint32_t spines = 64;
    uint64_t bytes = 64ull << 20;
    DataRate rate("400Gbps");
    std::string cc = "ns3::RoceDcqcn";
    std::string pcap;
    uint32_t emptyEvents = 0;
    uint32_t population = 1000;

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
    cmd.AddValue("emptyEvents",
                 "After the run, time this many empty events on each stock scheduler and "
                 "compare (0: no)",
                 emptyEvents);
    cmd.AddValue("population",
                 "Pending events of the empty-event runs (--emptyEvents)",
                 population,
                 1u,
                 10000000u);
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
    if (emptyEvents > 0)
    {
        // ns3::ListScheduler is left out: its insertion is linear in the population.
        const double hopRate = hops / runWall;
        double best = 0;
        std::string bestType;
        for (const char* type : {"ns3::MapScheduler",
                                 "ns3::HeapScheduler",
                                 "ns3::CalendarScheduler",
                                 "ns3::PriorityQueueScheduler"})
        {
            const double rate = EmptyEventRate(type, emptyEvents, population);
            std::cout << "empty events/wall s " << rate << " (" << type << ", " << population
                      << " pending)\n";
            if (rate > best)
            {
                best = rate;
                bestType = type;
            }
        }
        std::cout << "hops/s / empty      " << hopRate / best << " (against " << bestType << ")\n";
    }
    Simulator::Destroy();
    return done.messages == hosts ? 0 : 1;
}
