// SPDX-License-Identifier: GPL-2.0-only
#include "cc-test-util.h"

#include <algorithm>
#include <limits>

namespace aifabric
{

using namespace ns3;

double
DumbbellRun::Utilisation() const
{
    double sum = 0;
    for (double r : rates)
    {
        sum += r;
    }
    return sum / payloadRate;
}

void
DumbbellRun::ExpectFairAndFull(const std::string& label) const
{
    const double mtu = 4096;
    std::cout << "[ measured ] " << label << ":";
    for (double r : rates)
    {
        std::cout << " " << r / 1e9;
    }
    std::cout << " Gb/s, utilisation " << Utilisation() << ", queue " << queueMin / mtu << " .. "
              << queueMax / mtu << " packets (mean " << queueMean / mtu << ")\n";
    const double fair = payloadRate / rates.size();
    for (double r : rates)
    {
        EXPECT_NEAR(r, fair, 0.10 * fair) << label;
    }
    EXPECT_GE(Utilisation(), 0.95) << label;
}

void
QueueSampler::Sample()
{
    for (const auto& port : ports)
    {
        const double q = port->GetQueueBytes(3);
        min = std::min(min, q);
        max = std::max(max, q);
        sum += q;
        ++samples;
    }
    if (Simulator::Now() + interval < until)
    {
        Simulator::Schedule(interval, &QueueSampler::Sample, this);
    }
}

double
QueueSampler::Mean() const
{
    return samples ? sum / samples : 0;
}

namespace
{

void
Snapshot(std::vector<uint64_t>* out,
         std::vector<Ptr<RdmaQueuePair>> receivers,
         Ptr<RoceNetDevice> bottleneck)
{
    for (const auto& qp : receivers)
    {
        out->push_back(qp->GetBytesReceived());
    }
    // Last: the bottleneck's wire bytes.
    out->push_back(bottleneck->GetTxWireBytes());
}

} // namespace

DumbbellRun
RunDumbbell(const std::string& cc,
            uint32_t n,
            Time stagger,
            Time from,
            Time to,
            uint32_t kmin,
            uint32_t kmax,
            double pmax)
{
    RoceHelper roce;
    roce.SetCongestionControl(cc);
    if (kmin > 0)
    {
        roce.SetMmuAttribute("EcnKmin", UintegerValue(kmin));
        roce.SetMmuAttribute("EcnKmax", UintegerValue(kmax));
    }
    roce.SetMmuAttribute("EcnPmax", DoubleValue(pmax));
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo =
        topoHelper.Dumbbell(n, n, DataRate("100Gbps"), DataRate("100Gbps"), MicroSeconds(1));
    roce.AssignStreams(1);
    std::vector<Ptr<RdmaQueuePair>> receivers;
    std::vector<Ptr<RdmaQueuePair>> senders;
    for (uint32_t i = 0; i < n; ++i)
    {
        auto qps = RoceHelper::Connect(topo.nics[i], topo.nics[n + i]);
        receivers.push_back(qps.second);
        senders.push_back(qps.first);
        Simulator::Schedule(stagger * i, &RdmaQueuePair::PostWrite, qps.first, 1ull << 36);
    }
    Ptr<RoceSwitch> left = topo.switchObjects[0];
    QueueSampler queue;
    queue.ports = {left->GetPort(left->GetNPorts() - 1)}; // the bottleneck
    Simulator::Schedule(from, &QueueSampler::Sample, &queue);
    std::vector<uint64_t> start;
    std::vector<uint64_t> end;
    Simulator::Schedule(from, &Snapshot, &start, receivers, queue.ports[0]);
    Simulator::Schedule(to - NanoSeconds(1), &Snapshot, &end, receivers, queue.ports[0]);
    Simulator::Stop(to);
    Simulator::Run();
    DumbbellRun run;
    const double window = (to - NanoSeconds(1) - from).GetSeconds();
    for (uint32_t i = 0; i < n; ++i)
    {
        run.rates.push_back((end[i] - start[i]) * 8.0 / window);
    }
    run.queueMin = queue.min;
    run.queueMax = queue.max;
    run.queueMean = queue.Mean();
    run.payloadRate = PayloadRate(100e9);
    run.linkUtilisation = (end[n] - start[n]) * 8.0 / window / 100e9;
    run.drops = TotalDrops(topo);
    run.pauses = TotalPauses(topo);
    for (const auto& qp : senders)
    {
        if (Ptr<RoceDctcp> d = DynamicCast<RoceDctcp>(qp->GetCongestionControl()))
        {
            run.alphas.push_back(d->GetAlpha());
        }
        if (Ptr<RoceHpcc> h = DynamicCast<RoceHpcc>(qp->GetCongestionControl()))
        {
            run.baseRtt = h->GetBaseRtt().GetSeconds();
        }
        Ptr<RoceSwift> sw = DynamicCast<RoceSwift>(qp->GetCongestionControl());
        if (sw && run.target == 0)
        {
            run.target = sw->GetTargetDelay(sw->GetCwnd()).GetSeconds();
        }
    }
    Simulator::Destroy();
    return run;
}

} // namespace aifabric
