// SPDX-License-Identifier: GPL-2.0-only
#include "nvlink-fabric.h"

#include "ns3/abort.h"
#include "ns3/comm-plan.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AiFabricNvSwitchFabric");

NS_OBJECT_ENSURE_REGISTERED(NvSwitchFabric);

namespace
{
/// NVL576 is the largest NVLink domain announced; anything above is a typo.
constexpr uint32_t MAX_GPUS = 1024;
/// Flow keys: the kind is part of the key so NVLS and point-to-point flows never merge.
constexpr uint8_t KEY_P2P = 0;
constexpr uint8_t KEY_CONTRIB = 1;
constexpr uint8_t KEY_MCAST = 2;
} // namespace

TypeId
NvSwitchFabric::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NvSwitchFabric")
            .SetParent<CollectiveTransport>()
            .SetGroupName("AiFabric")
            .AddConstructor<NvSwitchFabric>()
            .AddAttribute("NGpus",
                          "GPUs on the NVSwitch (ranks 0..NGpus-1).",
                          UintegerValue(8),
                          MakeUintegerAccessor(&NvSwitchFabric::SetNGpus,
                                               &NvSwitchFabric::GetNRanks),
                          MakeUintegerChecker<uint32_t>(1, MAX_GPUS))
            .AddAttribute("LinkCount",
                          "NVLinks per GPU, all to the switch (H100: 18). They act as one "
                          "aggregate port: NCCL stripes a transfer over all of them.",
                          UintegerValue(18),
                          MakeUintegerAccessor(&NvSwitchFabric::m_linkCount),
                          MakeUintegerChecker<uint32_t>(1, 72))
            .AddAttribute("PerLinkRate",
                          "Rate of one NVLink, per direction (NVLink4: 25 GB/s).",
                          DataRateValue(DataRate("200Gbps")),
                          MakeDataRateAccessor(&NvSwitchFabric::m_perLinkRate),
                          MakeDataRateChecker())
            .AddAttribute("Latency",
                          "Per hop (GPU->switch, switch->GPU, and a credit going back). "
                          "Not in REFERENCE.md: 0.5 us is the order of an NVLink + NVSwitch "
                          "hop; NCCL's 0.6-4 us per-step figures are software costs and are "
                          "not charged here.",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&NvSwitchFabric::m_latency),
                          MakeTimeChecker(Seconds(0), MilliSeconds(1)))
            .AddAttribute("ChunkBytes",
                          "Flow-control unit: transfers are cut into chunks of this size and "
                          "a credit covers one chunk.",
                          UintegerValue(64 * 1024),
                          MakeUintegerAccessor(&NvSwitchFabric::m_chunkBytes),
                          MakeUintegerChecker<uint64_t>(256, 1ull << 30))
            .AddAttribute("CreditChunks",
                          "Switch egress buffer per port, in chunks (credits); also the "
                          "NVLS reduction slots per owner.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&NvSwitchFabric::m_creditChunks),
                          MakeUintegerChecker<uint32_t>(1, 1u << 16))
            .AddAttribute("ProtocolEfficiency",
                          "Fraction of line rate NCCL payload gets. REFERENCE.md (NCCL "
                          "maintainers): 450 GB/s line rate, ~20% protocol overhead -> "
                          "~370 GB/s effective, i.e. 370/450 = 0.82.",
                          DoubleValue(0.82),
                          MakeDoubleAccessor(&NvSwitchFabric::m_protocolEfficiency),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("NvlsEfficiency",
                          "Further factor on NVLS traffic (REFERENCE.md: NCCL's NVLS "
                          "efficiency factor on Hopper, 0.85).",
                          DoubleValue(0.85),
                          MakeDoubleAccessor(&NvSwitchFabric::m_nvlsEfficiency),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("NvlsThroughput",
                          "Reduction engine of the switch, in reduced (output) bytes per "
                          "second over all ports. Not in REFERENCE.md; the default (8 x "
                          "450 GB/s) keeps the links the bottleneck, as the measured NVLS "
                          "trend (busbw rising with n) implies.",
                          DataRateValue(DataRate("28800Gbps")),
                          MakeDataRateAccessor(&NvSwitchFabric::m_nvlsThroughput),
                          MakeDataRateChecker())
            .AddTraceSource("ChunkSent",
                            "A chunk started on an uplink: (src, dst, bytes).",
                            MakeTraceSourceAccessor(&NvSwitchFabric::m_chunkSentTrace),
                            "ns3::NvSwitchFabric::ChunkTracedCallback")
            .AddTraceSource("ChunkDelivered",
                            "A chunk reached a GPU: (src, dst, bytes).",
                            MakeTraceSourceAccessor(&NvSwitchFabric::m_chunkDeliveredTrace),
                            "ns3::NvSwitchFabric::ChunkTracedCallback")
            .AddTraceSource("NvlsDone",
                            "An NVLS all-reduce finished.",
                            MakeTraceSourceAccessor(&NvSwitchFabric::m_nvlsDoneTrace),
                            "ns3::CollectiveEngine::CollectiveDoneTracedCallback");
    return tid;
}

NvSwitchFabric::NvSwitchFabric()
{
    NS_LOG_FUNCTION(this);
}

NvSwitchFabric::~NvSwitchFabric()
{
    NS_LOG_FUNCTION(this);
}

void
NvSwitchFabric::DoDispose()
{
    NS_LOG_FUNCTION(this);
    // Scheduled events hold a Ptr to the fabric; after disposal they must not call back
    // into engines that are being torn down too.
    m_disposed = true;
    m_uplinks.clear();
    m_ops.clear();
    CollectiveTransport::DoDispose();
}

void
NvSwitchFabric::SetNGpus(uint32_t n)
{
    NS_LOG_FUNCTION(this << n);
    NS_ABORT_MSG_IF(n == 0 || n > MAX_GPUS,
                    "NvSwitchFabric: NGpus must be in 1.." << MAX_GPUS << ", got " << n);
    NS_ABORT_MSG_IF(GetTransfersInFlight() != 0 || !m_ops.empty(),
                    "NvSwitchFabric: NGpus changed while transfers are in flight");
    m_nGpus = n;
    m_uplinks.assign(n, Uplink());
    m_creditsUsed.assign(n, 0);
    m_downFree.assign(n, Seconds(0));
}

uint32_t
NvSwitchFabric::GetNRanks() const
{
    return m_nGpus;
}

NvSwitchFabric::Preset
NvSwitchFabric::GetPreset(const std::string& name)
{
    // REFERENCE.md, "NVLink, NVSwitch, NCCL": per-direction figures per GPU.
    if (name == "A100")
    {
        return {12, DataRate("200Gbps"), 8}; // 12 x 25 GB/s = 300 GB/s
    }
    if (name == "H100")
    {
        return {18, DataRate("200Gbps"), 8}; // 18 x 25 GB/s = 450 GB/s
    }
    if (name == "B200")
    {
        return {18, DataRate("400Gbps"), 16}; // 18 x 50 GB/s = 900 GB/s
    }
    NS_ABORT_MSG("NvSwitchFabric: unknown preset \"" << name << "\" (A100, H100, B200)");
    return {0, DataRate(0), 0};
}

void
NvSwitchFabric::SetPreset(const std::string& name)
{
    const Preset p = GetPreset(name);
    Config::SetDefault("ns3::NvSwitchFabric::LinkCount", UintegerValue(p.linkCount));
    Config::SetDefault("ns3::NvSwitchFabric::PerLinkRate", DataRateValue(p.perLinkRate));
    Config::SetDefault("ns3::NvSwitchFabric::CreditChunks", UintegerValue(p.creditChunks));
}

void
NvSwitchFabric::ApplyPreset(const std::string& name)
{
    const Preset p = GetPreset(name);
    m_linkCount = p.linkCount;
    m_perLinkRate = p.perLinkRate;
    m_creditChunks = p.creditChunks;
}

DataRate
NvSwitchFabric::GetPortRate() const
{
    return DataRate(m_perLinkRate.GetBitRate() * m_linkCount);
}

DataRate
NvSwitchFabric::GetPayloadRate() const
{
    return DataRate(static_cast<uint64_t>(GetPortRate().GetBitRate() * m_protocolEfficiency));
}

DataRate
NvSwitchFabric::GetNvlsRate() const
{
    return DataRate(static_cast<uint64_t>(GetPortRate().GetBitRate() * m_protocolEfficiency *
                                          m_nvlsEfficiency));
}

Time
NvSwitchFabric::SerializationTime(uint64_t bytes, bool nvls) const
{
    // In double: DataRate::CalculateBytesTxTime takes 32 bits and rounds the rate product.
    double rate = static_cast<double>(GetPortRate().GetBitRate()) * m_protocolEfficiency;
    if (nvls)
    {
        rate *= m_nvlsEfficiency;
    }
    NS_ABORT_MSG_IF(rate <= 0, "NvSwitchFabric: the port rate must be positive");
    return Seconds(static_cast<double>(bytes) * 8.0 / rate);
}

void
NvSwitchFabric::Send(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t channel, DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << dst << bytes << channel);
    NS_ABORT_MSG_IF(m_disposed, "NvSwitchFabric::Send: the fabric has been disposed");
    NS_ABORT_MSG_IF(src >= m_nGpus || dst >= m_nGpus,
                    "NvSwitchFabric::Send: GPU " << std::max(src, dst)
                                                 << " is out of range (NGpus is " << m_nGpus
                                                 << ")");
    NS_ABORT_MSG_IF(src == dst, "NvSwitchFabric::Send: GPU " << src << " sends to itself");
    ++m_transfersSent;
    AddJob(src,
           FlowKey{KEY_P2P, dst, channel},
           Job{Kind::P2P, dst, bytes, 0, 0, done});
    TryStartUplink(src);
}

void
NvSwitchFabric::AddJob(uint32_t gpu, const FlowKey& key, Job job)
{
    Uplink& up = m_uplinks[gpu];
    auto& q = up.flows[key];
    if (q.empty())
    {
        // A flow is in the ring exactly while it has jobs.
        up.ring.push_back(key);
    }
    q.push_back(std::move(job));
}

bool
NvSwitchFabric::Eligible(const Job& job) const
{
    switch (job.kind)
    {
    case Kind::P2P:
        return m_creditsUsed[job.dst] < m_creditChunks;
    case Kind::MCAST:
        // A multicast copy lands in every egress buffer at once, so it needs all of them.
        return std::all_of(m_creditsUsed.begin(), m_creditsUsed.end(), [this](uint32_t u) {
            return u < m_creditChunks;
        });
    default:
        // Contributions were admitted when their reduction slot was taken.
        return true;
    }
}

void
NvSwitchFabric::TryStartUplink(uint32_t gpu)
{
    Uplink& up = m_uplinks[gpu];
    if (up.busy)
    {
        return;
    }
    for (size_t tries = up.ring.size(); tries > 0; --tries)
    {
        const FlowKey key = up.ring.front();
        up.ring.pop_front();
        auto it = up.flows.find(key);
        Job& job = it->second.front();
        if (!Eligible(job))
        {
            up.ring.push_back(key);
            continue;
        }
        Chunk c{job.kind, gpu, ANY, 0, job.op, job.index, true, DoneCallback()};
        switch (job.kind)
        {
        case Kind::P2P:
            c.dst = job.dst;
            c.bytes = std::min(job.remaining, m_chunkBytes);
            job.remaining -= c.bytes;
            c.last = job.remaining == 0;
            if (c.last)
            {
                c.done = job.done;
            }
            ++m_creditsUsed[c.dst];
            m_maxOccupancy = std::max(m_maxOccupancy, m_creditsUsed[c.dst]);
            break;
        case Kind::MCAST:
            c.bytes = m_ops.at(job.op).chunkBytes[job.index];
            for (auto& u : m_creditsUsed)
            {
                ++u;
                m_maxOccupancy = std::max(m_maxOccupancy, u);
            }
            break;
        default:
            c.bytes = m_ops.at(job.op).chunkBytes[job.index];
            break;
        }
        const bool jobDone = job.kind != Kind::P2P || job.remaining == 0;
        if (jobDone)
        {
            it->second.pop_front();
        }
        if (it->second.empty())
        {
            up.flows.erase(it);
        }
        else
        {
            up.ring.push_back(key); // round-robin per chunk
        }
        up.busy = true;
        m_chunkSentTrace(c.src, c.dst, c.bytes);
        const Time ser = SerializationTime(c.bytes, c.kind != Kind::P2P);
        Simulator::Schedule(ser, &NvSwitchFabric::UplinkDone, Ptr<NvSwitchFabric>(this), gpu);
        Simulator::Schedule(ser + m_latency,
                            &NvSwitchFabric::ArriveSwitch,
                            Ptr<NvSwitchFabric>(this),
                            std::move(c));
        return;
    }
    // Nothing eligible: the uplink idles until a credit returns (KickUplinks).
}

void
NvSwitchFabric::KickUplinks()
{
    for (uint32_t g = 0; g < m_nGpus; ++g)
    {
        TryStartUplink(g);
    }
}

void
NvSwitchFabric::UplinkDone(uint32_t gpu)
{
    if (m_disposed)
    {
        return;
    }
    m_uplinks[gpu].busy = false;
    TryStartUplink(gpu);
}

void
NvSwitchFabric::ArriveSwitch(Chunk chunk)
{
    if (m_disposed)
    {
        return;
    }
    switch (chunk.kind)
    {
    case Kind::P2P:
        EnqueueDown(chunk.dst, std::move(chunk));
        break;
    case Kind::MCAST:
        for (uint32_t d = 0; d < m_nGpus; ++d)
        {
            Chunk copy = chunk;
            copy.dst = d;
            EnqueueDown(d, std::move(copy));
        }
        break;
    case Kind::CONTRIB: {
        NvlsOp& op = m_ops.at(chunk.op);
        if (++op.arrivals[chunk.index] == m_nGpus)
        {
            // The engine is one FIFO server; a clock is all its queue needs.
            NS_ABORT_MSG_IF(m_nvlsThroughput.GetBitRate() == 0,
                            "NvSwitchFabric: NvlsThroughput must be positive");
            const Time now = Simulator::Now();
            const Time service =
                Seconds(static_cast<double>(chunk.bytes) * 8.0 /
                        static_cast<double>(m_nvlsThroughput.GetBitRate()));
            m_reduceFree = std::max(now, m_reduceFree) + service;
            Simulator::Schedule(m_reduceFree - now,
                                &NvSwitchFabric::ReduceDone,
                                Ptr<NvSwitchFabric>(this),
                                chunk.op,
                                chunk.index);
        }
        break;
    }
    default:
        NS_ABORT_MSG("NvSwitchFabric: unexpected chunk kind at the switch");
    }
}

void
NvSwitchFabric::ReduceDone(uint64_t opId, uint32_t index)
{
    if (m_disposed)
    {
        return;
    }
    const NvlsOp& op = m_ops.at(opId);
    const uint32_t owner = op.chunkOwner[index];
    EnqueueDown(owner,
                Chunk{Kind::RESULT, owner, owner, op.chunkBytes[index], opId, index, true,
                      DoneCallback()});
}

void
NvSwitchFabric::EnqueueDown(uint32_t port, Chunk chunk)
{
    // Downlinks never block (a GPU always accepts), so the FIFO needs only a clock.
    const Time now = Simulator::Now();
    m_downFree[port] =
        std::max(now, m_downFree[port]) + SerializationTime(chunk.bytes, chunk.kind != Kind::P2P);
    // Delivery and the credit's return to the senders both take one more hop.
    Simulator::Schedule(m_downFree[port] - now + m_latency,
                        &NvSwitchFabric::AfterDown,
                        Ptr<NvSwitchFabric>(this),
                        port,
                        std::move(chunk));
}

void
NvSwitchFabric::AfterDown(uint32_t port, Chunk chunk)
{
    if (m_disposed)
    {
        return;
    }
    ++m_chunksDelivered;
    m_chunkDeliveredTrace(chunk.src, port, chunk.bytes);
    switch (chunk.kind)
    {
    case Kind::P2P:
        --m_creditsUsed[port];
        m_bytesDelivered += chunk.bytes;
        if (chunk.last)
        {
            ++m_transfersDone;
            if (!chunk.done.IsNull())
            {
                chunk.done();
            }
        }
        break;
    case Kind::RESULT: {
        // The owner now holds the reduced chunk: free its slot, multicast the chunk.
        NvlsOp& op = m_ops.at(chunk.op);
        ++op.slots[port];
        AddJob(port,
               FlowKey{KEY_MCAST, 0, chunk.op},
               Job{Kind::MCAST, ANY, 0, chunk.op, chunk.index, DoneCallback()});
        IssueNvls(op, port);
        break;
    }
    case Kind::MCAST: {
        --m_creditsUsed[port];
        auto it = m_ops.find(chunk.op);
        if (--it->second.copiesLeft == 0)
        {
            CollectiveResult r;
            r.id = it->second.id;
            r.type = CollectiveType::ALL_REDUCE;
            r.algorithm = "nvls";
            r.nRanks = m_nGpus;
            r.bytes = it->second.bytes;
            r.nTransfers = static_cast<uint32_t>(it->second.chunkBytes.size());
            r.start = it->second.start;
            r.end = Simulator::Now();
            const double secs = (r.end - r.start).GetSeconds();
            r.algBw = secs > 0 ? static_cast<double>(r.bytes) / secs : 0;
            r.busBw = r.algBw * CollectiveBusBwFactor(CollectiveType::ALL_REDUCE, m_nGpus);
            NvlsDoneCallback done = it->second.done;
            m_ops.erase(it);
            m_nvlsDoneTrace(r);
            if (!done.IsNull())
            {
                done(r);
            }
        }
        break;
    }
    default:
        NS_ABORT_MSG("NvSwitchFabric: unexpected chunk kind at a GPU");
    }
    if (m_disposed)
    {
        return; // a completion callback tore the fabric down
    }
    KickUplinks();
}

void
NvSwitchFabric::IssueNvls(NvlsOp& op, uint32_t owner)
{
    // The owner asks for its next chunks (ld_reduce) while it has reduction slots; every
    // GPU then pushes its contribution, in issue order on its contribution flow.
    while (op.slots[owner] > 0 && op.next[owner] < op.end[owner])
    {
        --op.slots[owner];
        const uint32_t index = op.next[owner]++;
        for (uint32_t g = 0; g < m_nGpus; ++g)
        {
            AddJob(g,
                   FlowKey{KEY_CONTRIB, 0, op.id},
                   Job{Kind::CONTRIB, ANY, 0, op.id, index, DoneCallback()});
        }
    }
}

uint64_t
NvSwitchFabric::AllReduceNvls(uint64_t bytes, NvlsDoneCallback done)
{
    NS_LOG_FUNCTION(this << bytes);
    NS_ABORT_MSG_IF(m_disposed, "NvSwitchFabric::AllReduceNvls: the fabric has been disposed");
    NS_ABORT_MSG_IF(bytes == 0, "NvSwitchFabric::AllReduceNvls: bytes must be positive");
    const uint64_t id = m_nextOp++;
    NvlsOp& op = m_ops[id];
    op.id = id;
    op.bytes = bytes;
    op.start = Simulator::Now();
    op.done = done;
    op.slots.assign(m_nGpus, m_creditChunks);
    op.next.resize(m_nGpus);
    op.end.resize(m_nGpus);
    for (uint32_t g = 0; g < m_nGpus; ++g)
    {
        // GPU g owns shard g; an empty shard (bytes < n) owns no chunk.
        op.next[g] = static_cast<uint32_t>(op.chunkBytes.size());
        uint64_t left = CommPlan::SplitBytes(bytes, m_nGpus, g);
        while (left > 0)
        {
            const uint64_t b = std::min(left, m_chunkBytes);
            op.chunkBytes.push_back(b);
            op.chunkOwner.push_back(g);
            left -= b;
        }
        op.end[g] = static_cast<uint32_t>(op.chunkBytes.size());
    }
    op.arrivals.assign(op.chunkBytes.size(), 0);
    op.copiesLeft = static_cast<uint64_t>(op.chunkBytes.size()) * m_nGpus;
    for (uint32_t g = 0; g < m_nGpus; ++g)
    {
        IssueNvls(op, g);
    }
    KickUplinks();
    return id;
}

uint64_t
NvSwitchFabric::GetChunksDelivered() const
{
    return m_chunksDelivered;
}

uint64_t
NvSwitchFabric::GetBytesDelivered() const
{
    return m_bytesDelivered;
}

uint64_t
NvSwitchFabric::GetTransfersInFlight() const
{
    return m_transfersSent - m_transfersDone;
}

uint32_t
NvSwitchFabric::GetMaxEgressOccupancy() const
{
    return m_maxOccupancy;
}

} // namespace ns3
