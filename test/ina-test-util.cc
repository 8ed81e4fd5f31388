// SPDX-License-Identifier: GPL-2.0-only
#include "ina-test-util.h"

#include "ns3/error-model.h"

#include <algorithm>
#include <filesystem>
#include <unistd.h>

namespace aifabric
{

using namespace ns3;

void
Reductions::Record(const InaReduction& r)
{
    done.push_back(r);
}

void
ReduceAll(const InaJob& job, uint64_t bytes, Reductions& out)
{
    for (const auto& worker : job.workers)
    {
        worker->Reduce(job.info.job, bytes, MakeCallback(&Reductions::Record, &out));
    }
}

double
InaFrameSeconds(uint32_t payload, double rateBps)
{
    const uint32_t frame = roce::ETHERNET_HEADER_BYTES + roce::IPV4_HEADER_BYTES +
                           roce::UDP_HEADER_BYTES + ina::HEADER_BYTES + payload;
    return roce::WireBytes(frame) * 8.0 / rateBps;
}

double
Span(const Reductions& r)
{
    Time start = r.done.front().start;
    Time end = r.done.front().end;
    for (const auto& x : r.done)
    {
        start = std::min(start, x.start);
        end = std::max(end, x.end);
    }
    return (end - start).GetSeconds();
}

void
AddLoss(Ptr<NetDevice> device, double rate, int64_t stream)
{
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetAttribute("ErrorRate", DoubleValue(rate));
    em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
    em->AssignStreams(stream);
    device->SetAttribute("ReceiveErrorModel", PointerValue(em));
}

std::vector<std::vector<std::string>>
CaptureTwoWorkerReduction(const std::string& tag,
                          uint64_t bytes,
                          InaReductionRoles roles,
                          const std::vector<std::string>& fields,
                          const std::string& sourceDir)
{
    const std::string file = TestDir() + tag + ".pcap";
    RoceHelper roce;
    RoceTopologyHelper topoHelper(roce);
    RoceTopology topo = topoHelper.Star(2, DataRate("100Gbps"), MicroSeconds(1));
    roce.EnablePcap(file, topo.nics[0]->GetDevice(), false, true);
    InaHelper ina;
    ina.SetProtocol(InaProtocol::SWITCHML);
    ina.Install(topo.switchObjects);
    InaJob job = ina.CreateJob(9, topo.nics);
    EXPECT_TRUE(job.inNetwork) << job.reason;
    Reductions r;
    for (const auto& worker : job.workers)
    {
        worker->Reduce(job.info.job, bytes, MakeCallback(&Reductions::Record, &r), roles);
    }
    Simulator::Run();
    Simulator::Destroy(); // closes the capture
    const std::string lua = sourceDir + "/doc/wireshark/ai-fabric-ina.lua";
    auto rows = Tshark(file, "ai_fabric_ina", fields, "-X lua_script:" + lua);
    std::filesystem::remove(file);
    return rows;
}

CollectiveResult
RunAllReduce(Ptr<CollectiveTransport> carrier,
             const CommGroup& group,
             uint64_t bytes,
             const std::string& algorithm,
             uint32_t channels)
{
    Ptr<CollectiveEngine> engine = CreateObject<CollectiveEngine>();
    engine->SetTransport(carrier);
    engine->SetAttribute("Algorithm", StringValue(algorithm));
    engine->SetAttribute("Channels", UintegerValue(channels));
    CollectiveResult result;
    engine->RunCollective(CollectiveType::ALL_REDUCE,
                          group,
                          bytes,
                          MakeBoundCallback(&StoreResult, &result));
    Simulator::Run();
    return result;
}

} // namespace aifabric
