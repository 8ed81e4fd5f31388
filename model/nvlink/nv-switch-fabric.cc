// SPDX-License-Identifier: GPL-2.0-only
// NvSwitchFabric: its attributes, presets and set-up; the data path (chunks up, through the
// switch, down, credits) is in nv-switch-fabric-datapath.cc.
#include "nv-switch-fabric.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/gpu-preset.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvSwitchFabric");

/// \return this file's log component, for the class's data path (nv-switch-fabric-datapath.cc)
LogComponent&
NvSwitchFabricLogComponent()
{
    return g_log;
}

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

} // namespace ns3
