// SPDX-License-Identifier: GPL-2.0-only
/*
 * A RoCE leaf-spine fabric spread over the ranks of ns-3's distributed engine.
 *
 * Every host writes one message to the host one leaf over (a shift across the spines),
 * and the hosts of every other leaf write one more to host 0 (an incast that fills leaf
 * 0's port to host 0, so PFC pauses go back up the spines and on to the other leaves).
 * With --rails=R the fabric is a rail-optimized cluster instead, --leaves pods of
 * --hostsPerLeaf servers with R NICs each, and "one leaf over" is one pod over.
 * With --distributed the program runs on every rank of `mpirun -np N`: leaf (or pod) l
 * and its hosts on rank floor(l × N / leaves), spine s on rank s mod N
 * (RoceTopologyHelper::SetPartitions), the cables between them RoceRemoteChannels;
 * each rank posts the writes of its own hosts and counts its own nodes, and rank 0
 * gathers every rank's lines and writes them sorted. Frames that reach a node at the same
 * instant enter in port order (RoceArrivalOrder), so that --out is the same file for any
 * number of ranks and for a run without MPI. Standard output has the per-rank
 * figures (events, frames to other ranks, PFC pauses from other ranks, wall time).
 *
 *   ./ns3 run "roce-distributed --out=seq.txt"
 *   mpirun -np 4 build/contrib/ai-fabric/examples/ns3.37-roce-distributed-default \
 *       --distributed --out=mpi4.txt
 *
 * --distributed needs ns-3 configured with --enable-mpi (an ns-3 source tree:
 * scripts/check-in-tree.sh with MPI=1); elsewhere it is refused in one line.
 */

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/roce-remote-channel.h"

#include <mpi.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

/// One write: who sends how much to whom, and when its last byte arrived.
struct Flow
{
    /// \param s sending host \param d receiving host \param b message size
    Flow(uint32_t s, uint32_t d, uint64_t b)
        : src(s),
          dst(d),
          bytes(b)
    {
    }

    uint32_t src{0};             //!< sending host
    uint32_t dst{0};             //!< receiving host
    uint64_t bytes{0};           //!< message size
    Ptr<RdmaQueuePair> sender;   //!< on src's NIC
    Ptr<RdmaQueuePair> receiver; //!< on dst's NIC
    Time received;               //!< last byte delivered (receiver's rank)
    Time acked;                  //!< last byte acknowledged (sender's rank)
};

void
OnReceived(Flow* flow, Ptr<RdmaQueuePair>, uint64_t, uint64_t)
{
    flow->received = Simulator::Now();
}

void
OnAcked(Flow* flow, Ptr<RdmaQueuePair>, uint64_t, uint64_t)
{
    flow->acked = Simulator::Now();
}

/// This process's rank (0 without MPI).
uint32_t
ThisRank()
{
#ifdef NS3_MPI
    return MpiInterface::IsEnabled() ? MpiInterface::GetSystemId() : 0;
#else
    return 0;
#endif
}

/// Whether a frame sent on dev reaches a node of another rank.
bool
CrossesRanks(Ptr<RoceNetDevice> dev)
{
    return dev->GetRoceChannel()->GetPeer(dev)->GetNode()->GetSystemId() !=
           dev->GetNode()->GetSystemId();
}

/**
 * Every rank's text to rank 0, concatenated in rank order (the text itself without MPI).
 * \param text this rank's part
 * \return the whole on rank 0, empty elsewhere
 */
std::string
GatherOnRankZero(const std::string& text)
{
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled() && MpiInterface::GetSize() > 1)
    {
        const int size = static_cast<int>(MpiInterface::GetSize());
        int length = static_cast<int>(text.size());
        std::vector<int> lengths(size);
        MPI_Gather(&length,
                   1,
                   MPI_INT,
                   lengths.data(),
                   1,
                   MPI_INT,
                   0,
                   MpiInterface::GetCommunicator());
        std::vector<int> offsets(size, 0);
        for (int r = 1; r < size; ++r)
        {
            offsets[r] = offsets[r - 1] + lengths[r - 1];
        }
        std::string all(ThisRank() == 0 ? offsets[size - 1] + lengths[size - 1] : 0, '\0');
        MPI_Gatherv(text.data(),
                    length,
                    MPI_CHAR,
                    all.data(),
                    lengths.data(),
                    offsets.data(),
                    MPI_CHAR,
                    0,
                    MpiInterface::GetCommunicator());
        return all;
    }
#endif
    return text;
}

/// The lines of text, sorted (keys are zero-padded, so sorted = numeric order).
std::string
SortedLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
    {
        lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    std::string out;
    for (const std::string& line : lines)
    {
        out += line + '\n';
    }
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    ProgramOptions::FixTimeResolution();
    uint32_t leaves = 4;
    uint32_t spines = 2;
    uint32_t hostsPerLeaf = 4;
    uint32_t rails = 1;
    uint64_t bytes = 1 << 20;
    uint64_t incastBytes = 8 << 20;
    std::string cc = "ns3::RoceDcqcn";
    DataRate rate("100Gbps");
    Time delay = MicroSeconds(1);
    bool distributed = false;
    bool orderArrivals = true;
    std::string out;

    ProgramOptions cmd("roce-distributed", __FILE__);
    cmd.Usage("A leaf-spine fabric with a shift and an incast, on one rank or spread over the "
              "ranks of ns-3's distributed engine (mpirun -np N ... --distributed).");
    cmd.AddValue("leaves", "Leaf switches", leaves, 2, 1024);
    cmd.AddValue("spines", "Spine switches", spines, 1, 1024);
    cmd.AddValue("hostsPerLeaf", "Hosts on each leaf", hostsPerLeaf, 1, 1024);
    cmd.AddValue("rails",
                 "NICs per server; above 1, a rail-optimized cluster: --leaves pods of "
                 "--hostsPerLeaf servers, each pod with one leaf per rail",
                 rails,
                 1,
                 64);
    cmd.AddSize("bytes", "Bytes each host writes to the host one leaf over", bytes, 1, 1ULL << 40);
    cmd.AddSize("incastBytes",
                "Bytes each host of leaves 1.. writes to host 0 (0: no incast)",
                incastBytes,
                0,
                1ULL << 40);
    cmd.AddCongestionControl("cc", "Congestion control TypeId", cc);
    cmd.AddValue("rate", "Link rate (hosts and leaf-spine cables)", rate);
    cmd.AddValue("delay", "Cable delay (the lookahead across ranks)", delay, true);
    cmd.AddValue("distributed",
                 "Run on the ranks of ns-3's distributed engine (under mpirun; needs ns-3 "
                 "configured with --enable-mpi)",
                 distributed);
    cmd.AddValue("orderArrivals",
                 "Frames reaching a node at the same instant enter in port order "
                 "(ns3::RoceChannel::OrderSimultaneousArrivals), so that a distributed run "
                 "equals the run without MPI; false: in the order they were scheduled, "
                 "which on several ranks differs from one rank's",
                 orderArrivals);
    cmd.AddOutputFile("out", "Write the sorted per-flow and per-port lines here", out);
    if (!cmd.Parse(argc, argv))
    {
        return 1;
    }
    // Under mpirun without --distributed every rank would run the whole fabric alone and
    // write the same file: say so instead (Open MPI's and PMI's size variables).
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    {
        const char* size = std::getenv(var);
        if (!distributed && size && std::strtoul(size, nullptr, 10) > 1)
        {
            std::cerr << "roce-distributed: started as one of " << size
                      << " MPI processes (" << var
                      << ") without --distributed; expected --distributed, or no mpirun\n";
            return 1;
        }
    }
    std::string why;
    if (!RoceHelper::CheckCongestionControl(cc, &why))
    {
        std::cerr << "roce-distributed: " << why << '\n';
        return 1;
    }

    uint32_t ranks = 1;
    if (distributed)
    {
#ifdef NS3_MPI
        // The granted-time-window engine: ns-3.37's null-message one
        // (NullMessageSimulatorImpl) asserts in Next() once a rank's events run out.
        GlobalValue::Bind("SimulatorImplementationType",
                          StringValue("ns3::DistributedSimulatorImpl"));
        MpiInterface::Enable(&argc, &argv);
        ranks = MpiInterface::GetSize();
        if (ranks > leaves)
        {
            if (ThisRank() == 0)
            {
                std::cerr << "roce-distributed: --distributed: " << ranks << " ranks for "
                          << leaves << (rails > 1 ? " pods" : " leaves")
                          << "; expected at most one rank per leaf or pod (--leaves)\n";
            }
            MpiInterface::Disable();
            return 1;
        }
#else
        std::cerr << "roce-distributed: --distributed: this ns-3 has no distributed engine; "
                     "expected ns-3 configured with --enable-mpi (scripts/check-in-tree.sh "
                     "with MPI=1)\n";
        return 1;
#endif
    }
    const uint32_t me = ThisRank();

    Config::SetDefault("ns3::RoceChannel::OrderSimultaneousArrivals", BooleanValue(orderArrivals));
    RoceHelper roce;
    roce.SetCongestionControl(cc);
    RoceTopologyHelper topoHelper(roce);
    topoHelper.SetPartitions(ranks);
    // A leaf-spine, or with rails a rail-optimized cluster whose pods take the leaves'
    // places: host h is GPU h mod rails of server h / rails, a pod holds hostsPerLeaf
    // servers, so "one leaf over" is one pod over.
    RoceTopology topo =
        rails == 1 ? topoHelper.LeafSpine(leaves, spines, hostsPerLeaf, rate, 1.0, delay)
                   : topoHelper.RailOptimized(leaves * hostsPerLeaf,
                                              rails,
                                              spines,
                                              rate,
                                              1.0,
                                              delay,
                                              leaves);
    roce.AssignStreams(1);
    if (!roce.CheckTelemetryRates(&why))
    {
        if (me == 0)
        {
            std::cerr << "roce-distributed: --cc=" << cc << ": " << why << '\n';
        }
#ifdef NS3_MPI
        if (distributed)
        {
            MpiInterface::Disable(); // every rank refuses alike: end MPI, not abort it
        }
#endif
        return 1;
    }

    const uint32_t hosts = leaves * hostsPerLeaf * rails;
    const uint32_t hostsPerGroup = hostsPerLeaf * rails; // on a leaf, or in a pod
    std::vector<Flow> flows;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        flows.emplace_back(h, (h + hostsPerGroup) % hosts, bytes);
    }
    if (incastBytes > 0)
    {
        for (uint32_t h = hostsPerGroup; h < hosts; ++h)
        {
            flows.emplace_back(h, 0, incastBytes);
        }
    }
    // Every rank connects every queue pair (the same draws of the NICs' streams in the
    // same order), and posts the writes of its own hosts.
    for (Flow& flow : flows)
    {
        std::tie(flow.sender, flow.receiver) =
            RoceHelper::Connect(topo.nics[flow.src], topo.nics[flow.dst]);
        flow.receiver->SetReceiveCompleteCallback(MakeBoundCallback(&OnReceived, &flow));
        flow.sender->SetSendCompleteCallback(MakeBoundCallback(&OnAcked, &flow));
        if (topo.hosts.Get(flow.src)->GetSystemId() == me)
        {
            Simulator::Schedule(Seconds(0), &RdmaQueuePair::PostWrite, flow.sender, flow.bytes);
        }
    }

    const auto wallStart = std::chrono::steady_clock::now();
    Simulator::Run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    // This rank's lines: its hosts' flows, its switches and its ports.
    std::ostringstream lines;
    for (std::size_t f = 0; f < flows.size(); ++f)
    {
        const Flow& flow = flows[f];
        if (topo.hosts.Get(flow.src)->GetSystemId() == me)
        {
            lines << "flow " << std::setw(5) << std::setfill('0') << f << " sender   " << flow.src
                  << " -> " << flow.dst << " bytes " << flow.bytes << " acked_ps "
                  << flow.acked.GetPicoSeconds() << " packets " << flow.sender->GetPacketsSent()
                  << " retransmitted " << flow.sender->GetPacketsRetransmitted() << " naks "
                  << flow.sender->GetNaksReceived() << " timeouts "
                  << flow.sender->GetTimeouts() << " cnps " << flow.sender->GetCnpsReceived()
                  << '\n';
        }
        if (topo.hosts.Get(flow.dst)->GetSystemId() == me)
        {
            lines << "flow " << std::setw(5) << std::setfill('0') << f << " receiver "
                  << flow.src << " -> " << flow.dst << " received_ps "
                  << flow.received.GetPicoSeconds() << " bytes "
                  << flow.receiver->GetBytesReceived() << " cnps_sent "
                  << flow.receiver->GetCnpsSent() << '\n';
        }
    }
    uint64_t crossFrames = 0; // frames this rank sent over cables to other ranks
    uint64_t crossPauses = 0; // PFC pauses its ports received over such cables
    NodeContainer all(topo.hosts, topo.switches);
    for (uint32_t n = 0; n < all.GetN(); ++n)
    {
        Ptr<Node> node = all.Get(n);
        for (uint32_t d = 0; node->GetSystemId() == me && d < node->GetNDevices(); ++d)
        {
            Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(node->GetDevice(d));
            if (!dev || !dev->GetRoceChannel())
            {
                continue;
            }
            lines << "port " << std::setw(6) << std::setfill('0') << node->GetId() << '.'
                  << std::setw(3) << d << " tx_frames " << dev->GetTxFrames() << " tx_bytes "
                  << dev->GetTxBytes() << " pfc_sent " << dev->GetPfcPausesSent()
                  << " pfc_received " << dev->GetPfcPausesReceived() << '\n';
            if (CrossesRanks(dev))
            {
                crossPauses += dev->GetPfcPausesReceived();
#ifdef NS3_MPI
                crossFrames +=
                    DynamicCast<RoceRemoteChannel>(dev->GetRoceChannel())->GetFramesToOtherRank();
#endif
            }
        }
    }
    for (uint32_t s = 0; s < topo.switchObjects.size(); ++s)
    {
        Ptr<Node> node = topo.switches.Get(s);
        if (node->GetSystemId() == me)
        {
            const Ptr<RoceSwitch>& sw = topo.switchObjects[s];
            lines << "switch " << std::setw(5) << std::setfill('0') << s << " drops "
                  << sw->GetTotalDrops() << " ecn_marks " << sw->GetEcnMarks() << " pfc_sent "
                  << sw->GetPfcPausesSent() << " max_queue " << sw->GetMaxQueueBytes() << '\n';
        }
    }
    std::ostringstream stats;
    stats << "rank " << me << " of " << ranks << ": last event at "
          << Simulator::Now().As(Time::US) << ", events " << Simulator::GetEventCount()
          << ", frames to other ranks " << crossFrames << ", PFC pauses from other ranks "
          << crossPauses << ", wall " << std::fixed << std::setprecision(3) << wall << " s\n";
    const std::string results = SortedLines(GatherOnRankZero(lines.str()));
    const std::string allStats = GatherOnRankZero(stats.str());
    Simulator::Destroy();
#ifdef NS3_MPI
    if (distributed)
    {
        MpiInterface::Disable();
    }
#endif
    if (me != 0)
    {
        return 0;
    }
    std::cout << (rails > 1 ? "rail-optimized, " + std::to_string(leaves) + " pods of " +
                                  std::to_string(hostsPerLeaf) + " servers x " +
                                  std::to_string(rails) + " rails, " + std::to_string(spines) +
                                  " spines"
                            : "leaf-spine " + std::to_string(leaves) + " x " +
                                  std::to_string(spines))
              << ", " << hosts << " hosts at "
              << cmd.GetText("rate") << ", " << flows.size() << " writes, CC " << cc << ", "
              << ranks << (ranks == 1 ? " rank" : " ranks")
              << (distributed ? ", granted time windows of " + cmd.GetText("delay") : "") << '\n'
              << allStats;
    if (!out.empty())
    {
        std::ofstream file(out);
        file << results;
        if (!file)
        {
            std::cerr << "roce-distributed: --out=" << out << ": cannot write\n";
            return 1;
        }
    }
    return 0;
}
