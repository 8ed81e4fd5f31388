// SPDX-License-Identifier: GPL-2.0-only
//
// DCQCN convergence on a dumbbell: N long flows share one bottleneck; flow i starts at
// i × stagger. Every sampling interval the example writes each flow's DCQCN rate and the
// bottleneck queue to CSV:
//
//   time_us,queue_bytes,rate0_gbps,rate1_gbps,...
//
//   ./dcqcn-convergence --flows=2 --duration=20ms --csv=dcqcn.csv
//
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{
struct Sampler
{
    std::vector<Ptr<RdmaQueuePair>> qps;
    std::vector<Ptr<RdmaQueuePair>> receivers;
    std::vector<uint64_t> bytesAtHalf;
    Ptr<RoceNetDevice> bottleneck;
    uint8_t priority{3};
    Time interval;
    Time end;
    std::ofstream* out{nullptr};

    void Sample()
    {
        *out << Simulator::Now().GetMicroSeconds() << ',' << bottleneck->GetQueueBytes(priority);
        for (const auto& qp : qps)
        {
            *out << ',' << qp->GetCongestionControl()->GetRateBps() / 1e9;
        }
        *out << '\n';
        if (Simulator::Now() + interval <= end)
        {
            Simulator::Schedule(interval, &Sampler::Sample, this);
        }
    }
};
} // namespace

int
main(int argc, char* argv[])
{
    ProgramOptions::FixTimeResolution();
    uint32_t flows = 2;
    Time duration = MilliSeconds(20);
    Time stagger = MilliSeconds(2);
    Time interval = MicroSeconds(10);
    DataRate rate("100Gbps");
    std::string csv = "dcqcn-convergence.csv";
    std::string pcap;

    ProgramOptions cmd("dcqcn-convergence", __FILE__);
    cmd.Usage("DCQCN convergence on a dumbbell: long flows share one bottleneck; the flows' "
              "DCQCN rates and the bottleneck queue go to a CSV time series.");
    cmd.AddValue("flows", "Number of long flows", flows, 1, 256);
    cmd.AddValue("duration", "Simulated time", duration, true);
    cmd.AddValue("stagger", "Start time between consecutive flows", stagger);
    cmd.AddValue("interval", "Sampling interval", interval, true);
    cmd.AddValue("rate", "Rate of every link", rate);
    cmd.AddOutputFile("csv", "Output CSV file", csv);
    cmd.AddPcapPrefix("pcap",
                      "Capture every port into PREFIX-<node>-<device>.pcap (nanosecond stamps; "
                      "empty: none)",
                      pcap);
    if (!cmd.Parse(argc, argv))
    {
        return 1;
    }
    // One CSV row per interval: a million rows is already a large file.
    if (duration.GetSeconds() / interval.GetSeconds() > 1e6)
    {
        return cmd.Fail("interval",
                        "expected at most a million samples over --duration=" +
                            cmd.GetText("duration") + ", an interval of at least " +
                            std::to_string(duration.GetNanoSeconds() / 1000000 + 1) + "ns");
    }

    RoceHelper roce;
    roce.SetCongestionControl("ns3::RoceDcqcn");
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Dumbbell(flows, flows, rate, rate, MicroSeconds(1));
    roce.AssignStreams(1);
    if (!pcap.empty())
    {
        roce.EnablePcapAll(pcap);
    }

    std::ofstream out(csv);
    if (!out)
    {
        std::cerr << "dcqcn-convergence: cannot write " << csv << "\n";
        return 1;
    }
    out << "time_us,queue_bytes";
    Sampler sampler;
    for (uint32_t i = 0; i < flows; ++i)
    {
        out << ",rate" << i << "_gbps";
        auto [tx, rx] = RoceHelper::Connect(topo.nics[i], topo.nics[flows + i]);
        sampler.qps.push_back(tx);
        sampler.receivers.push_back(rx);
        // Long enough to outlast the run at line rate.
        uint64_t bytes = static_cast<uint64_t>(rate.GetBitRate() / 8.0 * duration.GetSeconds()) + 1;
        Simulator::Schedule(stagger * i, &RdmaQueuePair::PostWrite, tx, bytes);
    }
    out << '\n';
    // Port 0 of the left switch's bottleneck cable: the left switch's last port.
    Ptr<RoceSwitch> left = topo.switchObjects[0];
    sampler.bottleneck = left->GetPort(left->GetNPorts() - 1);
    sampler.interval = interval;
    sampler.end = duration;
    sampler.out = &out;
    Simulator::Schedule(Seconds(0), &Sampler::Sample, &sampler);
    Simulator::Schedule(duration / 2, [&sampler]() {
        for (const auto& rx : sampler.receivers)
        {
            sampler.bytesAtHalf.push_back(rx->GetBytesReceived());
        }
    });
    Simulator::Stop(duration);
    Simulator::Run();

    std::cout << std::fixed << std::setprecision(2) << "DCQCN, " << flows << " flows on a "
              << cmd.GetText("rate") << " dumbbell, " << duration.GetMilliSeconds() << " ms\n";
    double total = 0;
    for (uint32_t i = 0; i < flows; ++i)
    {
        double goodput = (sampler.receivers[i]->GetBytesReceived() - sampler.bytesAtHalf[i]) * 8.0 /
                         (duration / 2).GetSeconds();
        total += goodput;
        std::cout << "  flow " << i << ": goodput over the second half " << goodput / 1e9
                  << " Gb/s, DCQCN rate at the end "
                  << sampler.qps[i]->GetCongestionControl()->GetRateBps() / 1e9 << " Gb/s, CNPs "
                  << sampler.qps[i]->GetCnpsReceived() << "\n";
    }
    std::cout << "  total goodput " << total / 1e9 << " Gb/s\n  ECN marks " << left->GetEcnMarks()
              << ", PFC pauses " << left->GetPfcPausesSent() << ", max queue "
              << left->GetMaxQueueBytes() << " bytes\n  time series in " << csv << "\n";
    Simulator::Destroy();
    return 0;
}
