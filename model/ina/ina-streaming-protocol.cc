// SPDX-License-Identifier: GPL-2.0-only
#include "ina-streaming-protocol.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("InaStreamingProtocol");
NS_OBJECT_ENSURE_REGISTERED(InaStreamingProtocol);

TypeId
InaStreamingProtocol::GetTypeId()
{
    static TypeId tid = TypeId("ns3::InaStreamingProtocol")
                            .SetParent<InaAggregationProtocol>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<InaStreamingProtocol>();
    return tid;
}

InaStreamingProtocol::InaStreamingProtocol()
{
    NS_LOG_FUNCTION(this);
}

InaStreamingProtocol::~InaStreamingProtocol() = default;

void
InaStreamingProtocol::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_jobs.clear();
    InaAggregationProtocol::DoDispose();
}

bool
InaStreamingProtocol::CheckJob(const InaJobConfig& config, std::string* why) const
{
    if (config.workers.empty() || config.workers.size() > ina::MAX_STREAMING_WORKERS)
    {
        *why = "a streaming job has 1 to " + std::to_string(ina::MAX_STREAMING_WORKERS) +
               " workers, got " + std::to_string(config.workers.size());
        return false;
    }
    return true;
}

InaAggregationJob*
InaStreamingProtocol::AddJob(InaAggregationJob job)
{
    if (m_aggregators.empty())
    {
        m_aggregators.assign(GetEngine()->GetStreamingAggregators(), Aggregator());
    }
    const uint16_t id = job.config.job;
    InaAggregationJob& added = m_jobs[id];
    added = std::move(job);
    return &added;
}

void
InaStreamingProtocol::RemoveJob(uint16_t job)
{
    // The aggregators the job holds stay held until a RESULT or a retransmission of
    // their fragment frees them.
    m_jobs.erase(job);
}

void
InaStreamingProtocol::Process(InaAggregationJob& job,
                              uint32_t inPort,
                              const InaHeader& header,
                              bool ce)
{
    const int32_t child = job.portChild[inPort];
    if (header.type == InaHeader::RESULT && (child >= 0 || inPort == job.config.parentPort))
    {
        ForwardResult(job, inPort, header);
        return;
    }
    if (header.type != InaHeader::DATA || child < 0)
    {
        NS_LOG_DEBUG("discard: INA " << header << " from port " << inPort
                                     << ", which is not its sender's place in the tree");
        CountDiscarded();
        return;
    }
    Aggregator& a = m_aggregators[header.slot % m_aggregators.size()];
    const bool mine = a.used && a.job == header.job && a.sequence == header.sequence;
    if (header.flags & InaHeader::RETRANSMISSION)
    {
        ProcessRetransmission(job, header, a, mine);
        return;
    }
    if (a.used && !mine)
    {
        NS_LOG_LOGIC("job " << header.job << " seq " << header.sequence << ": aggregator "
                            << header.slot % m_aggregators.size() << " holds job " << a.job
                            << " seq " << a.sequence << "; to the fallback host");
        CountCollision();
        InaHeader fallback = header;
        fallback.flags |= InaHeader::FALLBACK;
        SendToFallbackHost(job, fallback);
        return;
    }
    if (!a.used)
    {
        a = Aggregator();
        a.used = true;
        a.job = header.job;
        a.sequence = header.sequence;
    }
    const uint64_t bit = 1ull << child;
    if (a.children & bit)
    {
        NS_LOG_LOGIC("job " << header.job << " seq " << header.sequence << ": duplicate from child "
                            << child << " ignored");
        CountDuplicate();
        return;
    }
    CountContribution();
    a.children |= bit;
    a.workers |= header.bitmap;
    a.count = static_cast<uint16_t>(a.count + header.count);
    a.length = std::max(a.length, header.length);
    a.ecn = a.ecn || ce || (header.flags & InaHeader::ECN_ECHO);
    a.values = a.values || !(header.flags & InaHeader::NO_VALUES);
    if (a.children != job.fullMask)
    {
        return;
    }
    NotifySlotComplete(header.job, header.sequence, a.count);
    // The sum goes on and the aggregator is free for the next fragment.
    const InaSum sum{a.sequence, a.workers, a.count, a.length, a.ecn, a.values};
    a = Aggregator();
    SendSum(job, header, sum);
}

void
InaStreamingProtocol::ProcessRetransmission(InaAggregationJob& job,
                                            const InaHeader& header,
                                            Aggregator& a,
                                            bool mine)
{
    // Never aggregated: what this switch holds of the fragment may be waiting for it
    // in vain (the first copy collided somewhere, or was lost), so the partial sum
    // goes to the fallback host, and so does the retransmission, up the tree.
    if (mine)
    {
        InaHeader partial = header;
        partial.flags = InaHeader::FALLBACK | (a.ecn ? InaHeader::ECN_ECHO : 0);
        partial.count = a.count;
        partial.bitmap = a.workers;
        partial.length = a.length;
        partial.SetValues(a.values);
        partial.flags |= header.flags & InaHeader::DIRECTED;
        NS_LOG_LOGIC("job " << header.job << " seq " << header.sequence << ": retransmission "
                            << "takes the partial sum of " << a.count
                            << " workers to the fallback host");
        a = Aggregator();
        CountFlush();
        SendToFallbackHost(job, partial);
    }
    if (job.config.parentPort == InaJobConfig::NO_PARENT)
    {
        SendToFallbackHost(job, header);
    }
    else
    {
        SendUp(job, header);
    }
}

void
InaStreamingProtocol::ForwardResult(const InaAggregationJob& job,
                                    uint32_t inPort,
                                    const InaHeader& header)
{
    Aggregator& a = m_aggregators[header.slot % m_aggregators.size()];
    if (a.used && a.job == header.job && a.sequence == header.sequence)
    {
        NS_LOG_LOGIC("job " << header.job << " seq " << header.sequence
                            << ": the result frees a partial sum of " << a.count << " workers");
        a = Aggregator();
    }
    NS_LOG_LOGIC("job " << header.job << " seq " << header.sequence << ": result from port "
                        << inPort << " forwarded along the tree");
    // Values go on only where they came with the result and the destination lies.
    InaHeader h = header;
    h.sender = 0;
    for (uint32_t c = 0; c < job.config.childPorts.size(); ++c)
    {
        if (job.config.childPorts[c] != inPort)
        {
            SendResultOn(job,
                         job.config.childPorts[c],
                         job.config.childAddresses[c],
                         static_cast<int32_t>(c),
                         h);
        }
    }
    if (job.config.parentPort != InaJobConfig::NO_PARENT && inPort != job.config.parentPort)
    {
        SendResultOn(job, job.config.parentPort, InaGroupAddress(header.job), -1, h);
    }
}

void
InaStreamingProtocol::SendToFallbackHost(const InaAggregationJob& job, const InaHeader& header)
{
    const Ipv4Address host = job.config.workers[header.sequence % job.config.workers.size()];
    const uint64_t flow = (static_cast<uint64_t>(header.job) << 32) | header.sequence;
    const uint32_t port = RouteTo(host, flow);
    if (port == UINT32_MAX)
    {
        return;
    }
    Send(job, port, host, header);
}

} // namespace ns3
