// SPDX-License-Identifier: GPL-2.0-only
#include "ina-transport.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/roce-frame-info.h"
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

std::vector<uint32_t>
InaTransport::Key(const std::vector<uint32_t>& members)
{
    std::vector<uint32_t> key = members;
    std::sort(key.begin(), key.end());
    return key;
}

InaTransport::JobState&
InaTransport::JobOf(const std::vector<uint32_t>& members) const
{
    std::vector<uint32_t> key = Key(members);
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
    JobState state;
    state.job = std::move(job);
    return m_jobs.emplace(std::move(key), std::move(state)).first->second;
}

bool
InaTransport::CanAllReduceInNetwork(const std::vector<uint32_t>& members) const
{
    return members.size() >= 2 && JobOf(members).job.inNetwork;
}

void
InaTransport::SwitchAllReduce(const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              uint32_t channel,
                              DoneCallback done)
{
    NS_LOG_FUNCTION(this << members.size() << bytes << channel);
    RunReduction("SwitchAllReduce", PlacedJob("SwitchAllReduce", members), bytes, {}, done);
}

bool
InaTransport::CanReduceInNetwork(const std::vector<uint32_t>& members) const
{
    return CanAllReduceInNetwork(members) && members.size() <= ina::MAX_DIRECTED_WORKERS;
}

void
InaTransport::NetworkReduce(const std::vector<uint32_t>& members,
                            uint32_t dst,
                            uint64_t bytes,
                            uint32_t channel,
                            DoneCallback done)
{
    NS_LOG_FUNCTION(this << members.size() << dst << bytes << channel);
    JobState& state = PlacedJob("NetworkReduce", members);
    InaReductionRoles roles;
    roles.destination = JobRank(state.job, dst);
    RunReduction("NetworkReduce", state, bytes, roles, done);
}

void
InaTransport::NetworkMulticast(uint32_t src,
                               const std::vector<uint32_t>& members,
                               uint64_t bytes,
                               uint32_t channel,
                               DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << members.size() << bytes << channel);
    JobState& state = PlacedJob("NetworkMulticast", members);
    InaReductionRoles roles;
    roles.source = JobRank(state.job, src);
    RunReduction("NetworkMulticast", state, bytes, roles, done);
}

InaTransport::JobState&
InaTransport::PlacedJob(const char* what, const std::vector<uint32_t>& members) const
{
    JobState& state = JobOf(members);
    NS_ABORT_MSG_IF(!state.job.inNetwork,
                    "InaTransport::" << what << ": these " << members.size()
                                     << " ranks have no aggregation job (" << state.job.reason
                                     << ")");
    return state;
}

uint16_t
InaTransport::JobRank(const InaJob& job, uint32_t rank) const
{
    Ptr<RdmaNic> nic = GetNic(rank);
    for (uint32_t w = 0; w < job.workers.size(); ++w)
    {
        if (job.workers[w]->GetNic() == nic)
        {
            return static_cast<uint16_t>(w);
        }
    }
    NS_ABORT_MSG("InaTransport: rank " << rank << " is not a worker of job " << job.info.job);
    return 0;
}

void
InaTransport::RunReduction(const char* what,
                           JobState& state,
                           uint64_t bytes,
                           InaReductionRoles roles,
                           DoneCallback done)
{
    const InaJob& job = state.job;
    state.bytesInNetwork += bytes;
    if (bytes == 0)
    {
        done();
        return;
    }
    // Done when every member has its result (the sum, or the acknowledgement of a reduce
    // to another member). Bytes a fallback host summed: every worker of a reduction counts
    // the same fragments, so the largest count is the reduction's.
    auto left = std::make_shared<uint32_t>(static_cast<uint32_t>(job.workers.size()));
    auto viaHost = std::make_shared<uint64_t>(0);
    uint64_t* stateViaHost = &state.bytesViaFallbackHost; // map nodes stay put
    for (const auto& worker : job.workers)
    {
        worker->Reduce(job.info.job,
                       bytes,
                       InaWorker::DoneCallback(
                           [left, viaHost, stateViaHost, done, what](const InaReduction& r) {
                               NS_ABORT_MSG_IF(r.failed,
                                               "InaTransport::"
                                                   << what << ": in-network reduction of job "
                                                   << r.job << " failed (a fragment was never "
                                                   << "answered)");
                               *viaHost = std::max(*viaHost, r.fallbackBytes);
                               if (--*left == 0)
                               {
                                   *stateViaHost += *viaHost;
                                   done();
                               }
                           }),
                       roles);
    }
}

CarrierSwitchPath
InaTransport::DescribeSwitchPath(const std::vector<uint32_t>& members) const
{
    // The members' NIC ports, as the default describes them; INA's own rate, latency and
    // forwarding unit.
    CarrierSwitchPath sw = RdmaTransport::DescribeSwitchPath(members);
    const InaJob& job = JobOf(members).job;
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
    auto it = m_jobs.find(Key(members));
    return it == m_jobs.end() ? nullptr : &it->second.job;
}

uint64_t
InaTransport::GetBytesInNetwork() const
{
    uint64_t bytes = 0;
    for (const auto& [members, state] : m_jobs)
    {
        bytes += state.bytesInNetwork;
    }
    return bytes;
}

std::vector<InaTransport::JobUsage>
InaTransport::GetJobUsage() const
{
    std::vector<JobUsage> out;
    for (const auto& [members, state] : m_jobs)
    {
        out.push_back({members, &state.job, state.bytesInNetwork, state.bytesViaFallbackHost});
    }
    std::sort(out.begin(), out.end(), [](const JobUsage& a, const JobUsage& b) {
        return a.job->info.job < b.job->info.job;
    });
    return out;
}

uint64_t
InaTransport::GetBytesViaFallbackHost() const
{
    uint64_t bytes = 0;
    for (const auto& [members, state] : m_jobs)
    {
        bytes += state.bytesViaFallbackHost;
    }
    return bytes;
}

} // namespace ns3
