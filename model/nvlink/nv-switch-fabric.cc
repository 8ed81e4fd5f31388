// SPDX-License-Identifier: GPL-2.0-only
#include "nv-switch-fabric.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/gpu-preset.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvSwitchFabric");

NS_OBJECT_ENSURE_REGISTERED(NvSwitchFabric);

namespace
{
/// NVL576 is the largest NVLink domain announced; anything above is a typo.
constexpr uint32_t MAX_GPUS = 1024;
} // namespace

TypeId
NvSwitchFabric::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NvSwitchFabric")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<NvSwitchFabric>()
            .AddAttribute(
                "NGpus",
                "GPUs on the NVSwitch (ranks 0..NGpus-1).",
                UintegerValue(8),
                MakeUintegerAccessor(&NvSwitchFabric::SetNGpus, &NvSwitchFabric::GetNGpus),
                MakeUintegerChecker<uint32_t>(1, MAX_GPUS))
            .AddAttribute(
                "LinkCount",
                "NVLinks per GPU, all to the switch (H100: 18). They act as one "
                "aggregate port: NCCL stripes a transfer over all of them.",
                UintegerValue(18),
                MakeUintegerAccessor(&NvSwitchFabric::SetLinkCount, &NvSwitchFabric::GetLinkCount),
                MakeUintegerChecker<uint32_t>(1, 72))
            .AddAttribute("PerLinkRate",
                          "Rate of one NVLink, per direction (NVLink4: 25 GB/s).",
                          DataRateValue(DataRate("200Gbps")),
                          MakeDataRateAccessor(&NvSwitchFabric::SetPerLinkRate,
                                               &NvSwitchFabric::GetPerLinkRate),
                          MakeDataRateChecker())
            .AddAttribute(
                "Latency",
                "Per hop (GPU->switch, switch->GPU, and a credit going back). "
                "No published figure: 0.5 us is the order of an NVLink + NVSwitch "
                "hop. NCCL's 0.6-4 us per-step figures (whole steps, these hops "
                "included) are charged by the collective layer, net of this latency.",
                TimeValue(NanoSeconds(500)),
                MakeTimeAccessor(&NvSwitchFabric::SetLatency, &NvSwitchFabric::GetLatency),
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
                          MakeUintegerAccessor(&NvSwitchFabric::SetCreditChunks,
                                               &NvSwitchFabric::GetCreditChunks),
                          MakeUintegerChecker<uint32_t>(1, 1u << 16))
            .AddAttribute("ProtocolEfficiency",
                          "Fraction of line rate NCCL payload gets. NCCL maintainers on 8 x "
                          "H100 (nccl-tests issue 212): 450 GB/s line rate, ~20% protocol "
                          "overhead -> ~370 GB/s effective, i.e. 370/450 = 0.82.",
                          DoubleValue(0.82),
                          MakeDoubleAccessor(&NvSwitchFabric::m_protocolEfficiency),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("NvlsEfficiency",
                          "Further factor on NVLS traffic (NCCL's NVLS efficiency factor on "
                          "Hopper, 0.85, in NCCL's source).",
                          DoubleValue(0.85),
                          MakeDoubleAccessor(&NvSwitchFabric::m_nvlsEfficiency),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("NvlsSupported",
                          "Whether the switch reduces and multicasts in the switch (NVLink "
                          "SHARP, NVLS): Hopper and newer. Without it CanReduceInSwitch is "
                          "false, so no NVLS plan is chosen or accepted.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NvSwitchFabric::m_nvlsSupported),
                          MakeBooleanChecker())
            .AddAttribute("ComputeCapability",
                          "CUDA compute capability x 10 of the GPUs (80 Ampere, 90 Hopper, "
                          "100 Blackwell): selects NCCL's per-generation figures the "
                          "collective layer charges (NVLSTree's per-channel ceiling).",
                          UintegerValue(90),
                          MakeUintegerAccessor(&NvSwitchFabric::m_computeCapability),
                          MakeUintegerChecker<uint32_t>(60, 200))
            .AddAttribute("NvlsThroughput",
                          "Reduction engine of the switch, in reduced (output) bytes per "
                          "second over all ports. No published figure; the default (8 x "
                          "450 GB/s) keeps the links the bottleneck, as the measured NVLS "
                          "trend (busbw rising with n) implies.",
                          DataRateValue(DataRate("28800Gbps")),
                          MakeDataRateAccessor(&NvSwitchFabric::SetNvlsThroughput,
                                               &NvSwitchFabric::GetNvlsThroughput),
                          MakeDataRateChecker())
            .AddAttribute("FastForward",
                          "Skip whole rounds of the uplinks' point-to-point chunks while the "
                          "fabric is in its periodic state (see the class description); off: "
                          "every chunk is simulated (the reference).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NvSwitchFabric::m_ff),
                          MakeBooleanChecker())
            .AddAttribute("FastForwardRounds",
                          "Rounds (one chunk of each flow of an uplink) the fabric must run "
                          "unchanged, twice, the second time without a credit stall or a "
                          "downlink queue, before a skip; also a skip's least length.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&NvSwitchFabric::m_ffRounds),
                          MakeUintegerChecker<uint32_t>(1, 1u << 20))
            .AddAttribute("FastForwardEndChunks",
                          "Chunks at the end of every transfer that a skip leaves to be "
                          "simulated (its completion, and the flows' change that follows).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&NvSwitchFabric::m_ffEndChunks),
                          MakeUintegerChecker<uint32_t>(1, 1u << 20))
            .AddTraceSource("ChunkSent",
                            "A chunk started on an uplink: (src, dst, bytes).",
                            MakeTraceSourceAccessor(&NvSwitchFabric::m_chunkSentTrace),
                            "ns3::NvSwitchFabric::ChunkTracedCallback")
            .AddTraceSource("ChunkDelivered",
                            "A chunk reached a GPU: (src, dst, bytes).",
                            MakeTraceSourceAccessor(&NvSwitchFabric::m_chunkDeliveredTrace),
                            "ns3::NvSwitchFabric::ChunkTracedCallback");
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
    m_ffTry.Cancel();
    for (Uplink& up : m_uplinks)
    {
        up.resume.Cancel();
    }
    m_uplinks.clear();
    m_nWaiting = 0;
    m_ops.clear();
    m_reduceQueue.clear();
    Object::DoDispose();
}

void
NvSwitchFabric::SetNGpus(uint32_t n)
{
    NS_LOG_FUNCTION(this << n);
    NS_ABORT_MSG_IF(n == 0 || n > MAX_GPUS,
                    "NvSwitchFabric: NGpus must be in 1.." << MAX_GPUS << ", got " << n);
    NS_ABORT_MSG_IF(GetTransfersInFlight() != 0,
                    "NvSwitchFabric: NGpus changed while transfers are in flight");
    m_nGpus = n;
    m_uplinks = std::vector<Uplink>(n); // moved, never copied: rings point into flows
    m_nWaiting = 0;
    m_reduceQueue.assign(n, std::deque<uint64_t>());
    // One NVLink port per GPU and the switch, configured from the fabric's attributes;
    // each may be changed on its own afterwards (GetPort, GetSwitch).
    m_ports.clear();
    for (uint32_t g = 0; g < n; ++g)
    {
        m_ports.push_back(CreateObject<NvLinkPort>());
    }
    if (!m_switch)
    {
        m_switch = CreateObject<NvSwitch>();
    }
    m_switch->SetNPorts(n);
    ConfigurePorts();
    ConfigureSwitch();
}

void
NvSwitchFabric::ConfigurePorts()
{
    SetLinkCount(m_linkCount);
    SetPerLinkRate(m_perLinkRate);
    SetLatency(m_latency);
}

void
NvSwitchFabric::ConfigureSwitch()
{
    SetCreditChunks(m_creditChunks);
    SetNvlsThroughput(m_nvlsThroughput);
}

void
NvSwitchFabric::SetOnPorts(const std::string& name, const AttributeValue& value)
{
    // Only this attribute: a change made to one port alone survives other fabric settings.
    for (const Ptr<NvLinkPort>& port : m_ports)
    {
        port->SetAttribute(name, value);
    }
}

void
NvSwitchFabric::SetLinkCount(uint32_t n)
{
    m_linkCount = n;
    SetOnPorts("LinkCount", UintegerValue(n));
}

uint32_t
NvSwitchFabric::GetLinkCount() const
{
    return m_linkCount;
}

void
NvSwitchFabric::SetPerLinkRate(DataRate rate)
{
    m_perLinkRate = rate;
    SetOnPorts("PerLinkRate", DataRateValue(rate));
}

DataRate
NvSwitchFabric::GetPerLinkRate() const
{
    return m_perLinkRate;
}

void
NvSwitchFabric::SetLatency(Time latency)
{
    m_latency = latency;
    SetOnPorts("Latency", TimeValue(latency));
}

Time
NvSwitchFabric::GetLatency() const
{
    return m_latency;
}

void
NvSwitchFabric::SetCreditChunks(uint32_t n)
{
    m_creditChunks = n;
    if (m_switch)
    {
        m_switch->SetAttribute("CreditChunks", UintegerValue(n));
    }
}

uint32_t
NvSwitchFabric::GetCreditChunks() const
{
    return m_creditChunks;
}

void
NvSwitchFabric::SetNvlsThroughput(DataRate rate)
{
    m_nvlsThroughput = rate;
    if (m_switch)
    {
        m_switch->SetAttribute("NvlsThroughput", DataRateValue(rate));
    }
}

DataRate
NvSwitchFabric::GetNvlsThroughput() const
{
    return m_nvlsThroughput;
}

Ptr<NvLinkPort>
NvSwitchFabric::GetPort(uint32_t gpu) const
{
    NS_ABORT_MSG_IF(gpu >= m_ports.size(),
                    "NvSwitchFabric::GetPort: GPU " << gpu << " of " << m_ports.size());
    return m_ports[gpu];
}

Ptr<NvSwitch>
NvSwitchFabric::GetSwitch() const
{
    return m_switch;
}

uint32_t
NvSwitchFabric::GetComputeCapability() const
{
    return m_computeCapability;
}

uint32_t
NvSwitchFabric::GetNGpus() const
{
    return m_nGpus;
}

NvSwitchFabric::AttributeList
NvSwitchFabric::GetPresetAttributes(const GpuPreset& preset)
{
    return {
        {"LinkCount", Create<UintegerValue>(preset.nvlinkCount)},
        {"PerLinkRate", Create<DataRateValue>(preset.nvlinkRate)},
        {"CreditChunks", Create<UintegerValue>(preset.creditChunks)},
        {"NvlsSupported", Create<BooleanValue>(preset.nvls)},
        {"ComputeCapability", Create<UintegerValue>(preset.computeCapability)},
    };
}

void
NvSwitchFabric::ApplyPreset(const std::string& name)
{
    NS_LOG_FUNCTION(this << name);
    const GpuPreset* p = GpuPreset::Find(name);
    NS_ABORT_MSG_IF(!p,
                    "NvSwitchFabric: unknown GPU preset \"" << name << "\" ("
                                                            << GpuPreset::GetNameList() << ")");
    for (const auto& [attribute, value] : GetPresetAttributes(*p))
    {
        SetAttribute(attribute, *value);
    }
    NS_LOG_INFO(name << ": " << p->nvlinkCount << " x " << p->nvlinkRate << " per direction, "
                     << p->creditChunks << " credits, NVLS " << (p->nvls ? "yes" : "no"));
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

double
NvSwitchFabric::GetEfficiency(bool nvls) const
{
    return nvls ? m_protocolEfficiency * m_nvlsEfficiency : m_protocolEfficiency;
}

void
NvSwitchFabric::Send(uint32_t src,
                     uint32_t dst,
                     uint64_t bytes,
                     uint32_t channel,
                     DoneCallback done)
{
    NS_LOG_FUNCTION(this << src << dst << bytes << channel);
    NS_ABORT_MSG_IF(m_disposed, "NvSwitchFabric::Send: the fabric has been disposed");
    NS_ABORT_MSG_IF(src >= m_nGpus || dst >= m_nGpus,
                    "NvSwitchFabric::Send: GPU "
                        << std::max(src, dst) << " is out of range (NGpus is " << m_nGpus << ")");
    NS_ABORT_MSG_IF(src == dst, "NvSwitchFabric::Send: GPU " << src << " sends to itself");
    NS_LOG_LOGIC("GPU " << src << " -> " << dst << ": " << ChunkCount(bytes)
                        << " chunks on channel " << channel);
    ++m_transfersSent;
    AddJob(src, FlowKey{KEY_P2P, dst, channel}, Job{Kind::P2P, dst, bytes, 0, 0, done});
    TryStartUplink(src);
}

void
NvSwitchFabric::AddJob(uint32_t gpu, const FlowKey& key, Job job)
{
    NoteChange();
    Uplink& up = m_uplinks[gpu];
    auto it = up.flows.try_emplace(key).first;
    if (it->second.empty())
    {
        // A flow is in the ring exactly while it has jobs.
        up.ring.push_back(it);
    }
    it->second.push_back(std::move(job));
    if (!m_ports[gpu]->IsUplinkBusy())
    {
        SetWaiting(gpu, true);
    }
}

void
NvSwitchFabric::SetWaiting(uint32_t gpu, bool waiting)
{
    Uplink& up = m_uplinks[gpu];
    if (up.waiting != waiting)
    {
        up.waiting = waiting;
        m_nWaiting += waiting ? 1 : -1;
    }
}

bool
NvSwitchFabric::Eligible(const Job& job) const
{
    switch (job.kind)
    {
    case Kind::P2P:
        return m_switch->HasCredit(job.dst);
    case Kind::MCAST: {
        // A multicast copy lands in every member's egress buffer at once, so it needs a
        // credit at all of them.
        const SwitchOp& op = m_ops.at(job.op);
        return std::all_of(op.members.begin(), op.members.end(), [this](uint32_t g) {
            return m_switch->HasCredit(g);
        });
    }
    default:
        // Contributions were admitted when their reduction slot was taken.
        return true;
    }
}

void
NvSwitchFabric::TryStartUplink(uint32_t gpu)
{
    Uplink& up = m_uplinks[gpu];
    const Ptr<NvLinkPort>& port = m_ports[gpu];
    if (port->IsUplinkBusy() || up.skipping)
    {
        return;
    }
    for (size_t tries = up.ring.size(); tries > 0; --tries)
    {
        const auto it = up.ring.front();
        up.ring.pop_front();
        Job& job = it->second.front();
        if (!Eligible(job))
        {
            NoteIrregular();
            up.ring.push_back(it);
            continue;
        }
        Chunk c{job.kind, gpu, ANY, 0, job.op, job.index, true, DoneCallback()};
        bool jobDone = true;
        switch (job.kind)
        {
        case Kind::P2P:
            c.dst = job.dst;
            c.bytes = std::min(job.remaining, m_chunkBytes);
            job.remaining -= c.bytes;
            c.last = job.remaining == 0;
            jobDone = c.last;
            if (c.last)
            {
                c.done = job.done;
            }
            m_switch->TakeCredit(c.dst);
            break;
        case Kind::MCAST:
            c.bytes = std::min(job.remaining, m_chunkBytes);
            job.remaining -= c.bytes;
            jobDone = job.remaining == 0;
            for (uint32_t g : m_ops.at(job.op).members)
            {
                m_switch->TakeCredit(g);
            }
            break;
        default:
            c.bytes = ChunkSize(m_ops.at(job.op).bytes, job.index);
            break;
        }
        if (jobDone)
        {
            it->second.pop_front();
            NoteChange();
        }
        if (it->second.empty())
        {
            up.flows.erase(it);
        }
        else
        {
            up.ring.push_back(it); // round-robin per chunk
        }
        SetWaiting(gpu, false);
        m_chunkSentTrace(c.src, c.dst, c.bytes);
        const Time ser = port->StartUplink(c.bytes, GetEfficiency(c.kind != Kind::P2P));
        if (m_ff)
        {
            up.lastStart = Simulator::Now();
            up.lastSer = ser;
            up.lastFull = c.bytes == m_chunkBytes;
        }
        Simulator::Schedule(ser, &NvSwitchFabric::UplinkDone, Ptr<NvSwitchFabric>(this), gpu);
        Simulator::Schedule(ser + port->GetLatency(),
                            &NvSwitchFabric::ArriveSwitch,
                            Ptr<NvSwitchFabric>(this),
                            std::move(c));
        return;
    }
    // Nothing eligible: the uplink idles until a credit returns (KickUplinks).
    SetWaiting(gpu, !up.ring.empty());
    if (!up.ring.empty())
    {
        NoteIrregular();
        NS_LOG_LOGIC("GPU " << gpu << ": " << up.ring.size()
                            << " flows wait for egress credits (credit stall)");
    }
}

uint64_t
NvSwitchFabric::ChunkSize(uint64_t bytes, uint32_t index) const
{
    return std::min(m_chunkBytes, bytes - static_cast<uint64_t>(index) * m_chunkBytes);
}

uint32_t
NvSwitchFabric::ChunkCount(uint64_t bytes) const
{
    return static_cast<uint32_t>(bytes / m_chunkBytes + (bytes % m_chunkBytes ? 1 : 0));
}

void
NvSwitchFabric::KickUplinks()
{
    // Uplinks that are busy start their next chunk when they are done; idle ones with
    // no work have nothing to start: only the waiting ones can do anything here.
    for (uint32_t g = 0; g < m_nGpus && m_nWaiting > 0; ++g)
    {
        if (m_uplinks[g].waiting)
        {
            TryStartUplink(g);
        }
    }
}

void
NvSwitchFabric::UplinkDone(uint32_t gpu)
{
    if (m_disposed)
    {
        return;
    }
    m_ports[gpu]->EndUplink();
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
        MulticastDown(std::move(chunk));
        break;
    case Kind::CONTRIB: {
        SwitchOp& op = m_ops.at(chunk.op);
        if (++op.arrivals[chunk.index] == op.members.size())
        {
            Simulator::Schedule(m_switch->Reduce(chunk.bytes),
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
    const SwitchOp& op = m_ops.at(opId);
    EnqueueDown(op.owner,
                Chunk{Kind::RESULT,
                      op.owner,
                      op.owner,
                      ChunkSize(op.bytes, index),
                      opId,
                      index,
                      true,
                      DoneCallback()});
}

void
NvSwitchFabric::EnqueueDown(uint32_t port, Chunk chunk)
{
    // The chunk reaches the GPU one hop of the receiver's link after it has left the
    // switch; the egress credit it held reaches its sender one hop of the sender's link
    // after that. With equal links (the usual case) both happen in one event.
    if (m_ff && m_ports[port]->IsDownlinkBusy())
    {
        NoteIrregular();
    }
    const Time leave =
        m_ports[port]->QueueDownlink(chunk.bytes, GetEfficiency(chunk.kind != Kind::P2P));
    const Time toReceiver = m_ports[port]->GetLatency();
    const bool holdsCredit = chunk.kind == Kind::P2P || chunk.kind == Kind::MCAST;
    const Time toSender = holdsCredit ? m_ports[chunk.src]->GetLatency() : toReceiver;
    const bool together = holdsCredit && toSender == toReceiver;
    if (holdsCredit && !together)
    {
        Simulator::Schedule(leave + toSender,
                            &NvSwitchFabric::CreditBack,
                            Ptr<NvSwitchFabric>(this),
                            port);
    }
    Simulator::Schedule(leave + toReceiver,
                        &NvSwitchFabric::AfterDown,
                        Ptr<NvSwitchFabric>(this),
                        port,
                        std::move(chunk),
                        together);
}

void
NvSwitchFabric::MulticastDown(Chunk chunk)
{
    // EnqueueDown for every member, in member order. When every copy's credit returns
    // with the copy (equal link latencies, the usual case), the copies that reach their
    // GPUs at the same time are delivered by one event, in member order: events due at the
    // same time run in the order they were scheduled, so nothing could run between the
    // separate events, and what they schedule runs after the last of them.
    const std::vector<uint32_t>& members = m_ops.at(chunk.op).members;
    const Time toSender = m_ports[chunk.src]->GetLatency();
    if (!std::all_of(members.begin(), members.end(), [this, toSender](uint32_t g) {
            return m_ports[g]->GetLatency() == toSender;
        }))
    {
        for (uint32_t g : members)
        {
            Chunk copy = chunk;
            copy.dst = g;
            EnqueueDown(g, std::move(copy));
        }
        return;
    }
    // Group the members by arrival, each group in member order.
    const double efficiency = GetEfficiency(true);
    std::vector<std::pair<Time, std::vector<uint32_t>>> groups;
    for (uint32_t g : members)
    {
        const Time at = m_ports[g]->QueueDownlink(chunk.bytes, efficiency) + toSender;
        auto it = std::find_if(groups.begin(), groups.end(), [at](const auto& group) {
            return group.first == at;
        });
        if (it == groups.end())
        {
            groups.emplace_back(at, std::vector<uint32_t>{g});
        }
        else
        {
            it->second.push_back(g);
        }
    }
    NS_LOG_LOGIC("multicast chunk of op " << chunk.op << ": " << members.size()
                                          << " copies arrive at " << groups.size() << " times");
    for (auto& [at, gpus] : groups)
    {
        Simulator::Schedule(at,
                            &NvSwitchFabric::AfterMulticastDown,
                            Ptr<NvSwitchFabric>(this),
                            chunk,
                            std::move(gpus));
    }
}

void
NvSwitchFabric::AfterMulticastDown(Chunk chunk, std::vector<uint32_t> gpus)
{
    for (uint32_t g : gpus)
    {
        if (m_disposed)
        {
            return; // a completion callback tore the fabric down
        }
        Chunk copy = chunk;
        copy.dst = g;
        AfterDown(g, std::move(copy), true);
    }
}

void
NvSwitchFabric::CreditBack(uint32_t port)
{
    if (m_disposed)
    {
        return;
    }
    NS_LOG_LOGIC("credit of port " << port << " back at its senders");
    m_switch->ReturnCredit(port);
    KickUplinks();
}

void
NvSwitchFabric::AfterDown(uint32_t port, Chunk chunk, bool returnCredit)
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
        if (returnCredit)
        {
            m_switch->ReturnCredit(port);
        }
        m_bytesDelivered += chunk.bytes;
        if (chunk.last)
        {
            NS_LOG_DEBUG("GPU " << chunk.src << " -> " << port << ": transfer complete");
            ++m_transfersDone;
            if (!chunk.done.IsNull())
            {
                chunk.done();
            }
        }
        break;
    case Kind::RESULT:
        // The owner holds the reduced chunk: its reduction slot is free again.
        m_switch->ReleaseReductionSlot(port);
        FinishSwitchChunk(chunk.op);
        if (!m_disposed)
        {
            IssueReductions(port);
        }
        break;
    case Kind::MCAST:
        if (returnCredit)
        {
            m_switch->ReturnCredit(port);
        }
        FinishSwitchChunk(chunk.op);
        break;
    default:
        NS_ABORT_MSG("NvSwitchFabric: unexpected chunk kind at a GPU");
    }
    if (m_disposed)
    {
        return; // a completion callback tore the fabric down
    }
    KickUplinks();
}

uint64_t
NvSwitchFabric::GetChunksDelivered() const
{
    return m_chunksDelivered + SkippedSoFar();
}

uint64_t
NvSwitchFabric::GetBytesDelivered() const
{
    return m_bytesDelivered + SkippedSoFar() * m_chunkBytes;
}

uint64_t
NvSwitchFabric::GetTransfersInFlight() const
{
    return m_transfersSent - m_transfersDone + m_switchOpsStarted - m_switchOpsDone;
}

uint32_t
NvSwitchFabric::GetMaxEgressOccupancy() const
{
    return m_switch ? m_switch->GetMaxEgressOccupancy() : 0;
}

uint64_t
NvSwitchFabric::GetChunkBytes() const
{
    return m_chunkBytes;
}

} // namespace ns3
