// SPDX-License-Identifier: GPL-2.0-only
#include "ina-transport.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/roce-frame.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <memory>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("InaTransport");
NS_OBJECT_ENSURE_REGISTERED(InaTransport);

TypeId
InaTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::InaTransport")
            .SetParent<RdmaTransport>()
            .SetGroupName("AiFabric")
            .AddConstructor<InaTransport>()
            .AddAttribute("FirstJobId",
                          "Job id of the first member set; the next ones count up (keep job "
                          "ids of carriers sharing a fabric apart).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&InaTransport::m_firstJob),
                          MakeUintegerChecker<uint32_t>(0, 65535));
    return tid;
}

InaTransport::InaTransport()
{
    NS_LOG_FUNCTION(this);
}

InaTransport::~InaTransport() = default;

void
InaTransport::DoDispose()
{
    m_jobs.clear();
    m_controller = nullptr;
    RdmaTransport::DoDispose();
}

void
InaTransport::SetController(Ptr<InaController> controller)
{
    m_controller = controller;
}

InaJob&
InaTransport::JobOf(const std::vector<uint32_t>& members) const
{
    std::vector<uint32_t> key = members;
    std::sort(key.begin(), key.end());
    auto it = m_jobs.find(key);
    if (it != m_jobs.end())
    {
        return it->second;
    }
    const uint32_t id = m_firstJob + static_cast<uint32_t>(m_jobs.size());
    InaJob job;
    if (!m_controller)
    {
        job.reason = "the carrier has no InaController";
    }
    else if (id > UINT16_MAX)
    {
        job.reason = "no job id left (FirstJobId + member sets > 65535)";
    }
    else
    {
        std::vector<Ptr<RdmaNic>> nics;
        for (uint32_t r : members)
        {
            nics.push_back(GetNic(r));
        }
        job = m_controller->CreateJob(static_cast<uint16_t>(id), nics);
    }
    NS_LOG_LOGIC("member set of " << members.size() << " ranks: job " << id
                                  << (job.inNetwork ? " in the network" : " refused: ")
                                  << job.reason);
    return m_jobs.emplace(std::move(key), std::move(job)).first->second;
}

bool
InaTransport::CanAllReduceInNetwork(const std::vector<uint32_t>& members) const
{
    return members.size() >= 2 && JobOf(members).inNetwork;
}

void
InaTransport::SwitchAllReduce(const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              uint32_t channel,
                              DoneCallback done)
{
    NS_LOG_FUNCTION(this << members.size() << bytes << channel);
    InaJob& job = JobOf(members);
    NS_ABORT_MSG_IF(!job.inNetwork,
                    "InaTransport::SwitchAllReduce: these "
                        << members.size() << " ranks have no aggregation job (" << job.reason
                        << ")");
    m_bytesInNetwork += bytes;
    std::vector<uint32_t> key = members;
    std::sort(key.begin(), key.end());
    auto& usage = m_usage[key];
    usage.first += bytes;
    if (bytes == 0)
    {
        done();
        return;
    }
    // Done when every member has the sum; workers follow the members' order in the job.
    // Bytes a fallback host summed: every worker of a reduction counts the same
    // fragments, so the largest count is the reduction's.
    auto left = std::make_shared<uint32_t>(static_cast<uint32_t>(job.workers.size()));
    auto viaHost = std::make_shared<uint64_t>(0);
    Ptr<InaTransport> self(this);
    uint64_t* usageViaHost = &usage.second; // map nodes stay put
    for (const auto& worker : job.workers)
    {
        worker->Reduce(job.info.job,
                       bytes,
                       InaWorker::DoneCallback(
                           [left, viaHost, self, usageViaHost, done](const InaReduction& r) {
                               NS_ABORT_MSG_IF(r.failed,
                                               "InaTransport: in-network all-reduce of job "
                                                   << r.job << " failed (a fragment was never "
                                                   << "answered)");
                               *viaHost = std::max(*viaHost, r.fallbackBytes);
                               if (--*left == 0)
                               {
                                   self->m_bytesViaFallbackHost += *viaHost;
                                   *usageViaHost += *viaHost;
                                   done();
                               }
                           }));
    }
}

CarrierSwitchPath
InaTransport::DescribeSwitchPath(const std::vector<uint32_t>& members) const
{
    // The members' NIC ports, as the default describes them; INA's own rate, latency and
    // forwarding unit.
    CarrierSwitchPath sw = RdmaTransport::DescribeSwitchPath(members);
    const InaJob& job = JobOf(members);
    const uint32_t fragment = job.info.fragmentBytes ? job.info.fragmentBytes : 1024;
    const uint32_t frame = roce::ETHERNET_HEADER_BYTES + roce::IPV4_HEADER_BYTES +
                           roce::UDP_HEADER_BYTES + ina::HEADER_BYTES + fragment;
    sw.latency = Time();
    for (size_t i = 0; i < members.size(); ++i)
    {
        const double line = GetNic(members[i])->GetDevice()->GetDataRate().GetBitRate() / 8.0;
        const double payload = line * fragment / roce::WireBytes(frame);
        sw.bytesPerSecond = i == 0 ? payload : std::min(sw.bytesPerSecond, payload);
        sw.latency = std::max(sw.latency,
                              DescribePath(members[i], members[(i + 1) % members.size()]).latency);
    }
    sw.forwardUnit = fragment;
    return sw;
}

const InaJob*
InaTransport::GetJob(const std::vector<uint32_t>& members) const
{
    std::vector<uint32_t> key = members;
    std::sort(key.begin(), key.end());
    auto it = m_jobs.find(key);
    return it == m_jobs.end() ? nullptr : &it->second;
}

uint64_t
InaTransport::GetBytesInNetwork() const
{
    return m_bytesInNetwork;
}

std::vector<InaTransport::JobUsage>
InaTransport::GetJobUsage() const
{
    std::vector<JobUsage> out;
    for (const auto& [members, job] : m_jobs)
    {
        JobUsage u;
        u.members = members;
        u.job = &job;
        auto it = m_usage.find(members);
        if (it != m_usage.end())
        {
            u.bytesInNetwork = it->second.first;
            u.bytesViaFallbackHost = it->second.second;
        }
        out.push_back(u);
    }
    std::sort(out.begin(), out.end(), [](const JobUsage& a, const JobUsage& b) {
        return a.job->info.job < b.job->info.job;
    });
    return out;
}

uint64_t
InaTransport::GetBytesViaFallbackHost() const
{
    return m_bytesViaFallbackHost;
}

} // namespace ns3
