// SPDX-License-Identifier: GPL-2.0-only
// NCCL's protocols: the name table, what each puts on the wire, and the latencies of
// NCCL's tuning model (NVIDIA/nccl v2.30.7, src/graph/tuning.cc).
#include "collective-protocol.h"

#include "../fabric/ai-fabric-compat.h"
#include "nccl-tuning-model.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveProtocol");

namespace
{
/// The one table of protocol names.
struct ProtocolEntry
{
    CollectiveProtocol protocol; //!< the protocol
    const char* name;            //!< its name, as NCCL_PROTO spells it
};

const ProtocolEntry PROTOCOLS[] = {
    {CollectiveProtocol::LL, "LL"},
    {CollectiveProtocol::LL128, "LL128"},
    {CollectiveProtocol::SIMPLE, "Simple"},
    {CollectiveProtocol::NONE, "none"},
    {CollectiveProtocol::AUTO, "auto"},
};

/// \return NCCL's row of the tuning tables for one of our algorithms: its counterpart, or
/// the ring's for the point-to-point algorithms NCCL lacks (see CollectiveProtocolCosts)
NcclAlgorithm
NcclRow(CollectiveAlgorithm algorithm)
{
    NcclAlgorithm row = NcclAlgorithm::RING;
    NcclCounterpart(algorithm, &row);
    return row;
}

/// \return true if the algorithm reduces in switches (NVLS, in-network; Simple only)
bool
SwitchAlgorithm(CollectiveAlgorithm algorithm)
{
    return algorithm == CollectiveAlgorithm::NVLS || algorithm == CollectiveAlgorithm::INA ||
           algorithm == CollectiveAlgorithm::NVLS_INA ||
           algorithm == CollectiveAlgorithm::NVLS_TREE;
}

/// The bit that marks a rate server key as a sender's LL ceiling of a channel (the others
/// are a channel's, or a sender's NVLink thread block of a channel; GetRateCharge).
constexpr uint64_t LL_SERVER = uint64_t{1} << 63;
/// With LL_SERVER: the server of one transfer alone (the key's low bits are its id).
constexpr uint64_t LL_OWN_SERVER = uint64_t{1} << 62;

/// \return true if NCCL runs the algorithm with Simple only (the switch ones and PAT)
bool
SimpleOnly(CollectiveAlgorithm algorithm)
{
    return SwitchAlgorithm(algorithm) || algorithm == CollectiveAlgorithm::PAT;
}
} // namespace

std::string
CollectiveProtocolToString(CollectiveProtocol protocol)
{
    for (const auto& e : PROTOCOLS)
    {
        if (e.protocol == protocol)
        {
            return e.name;
        }
    }
    NS_ABORT_MSG("CollectiveProtocol " << static_cast<int>(protocol) << " has no name");
    return "";
}

bool
CollectiveProtocolFromString(const std::string& name, CollectiveProtocol& protocol)
{
    auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
            return static_cast<char>(std::tolower(c));
        });
        return s;
    };
    for (const auto& e : PROTOCOLS)
    {
        if (lower(e.name) == lower(name))
        {
            protocol = e.protocol;
            return true;
        }
    }
    return false;
}

const std::vector<CollectiveProtocol>&
GetCollectiveProtocols()
{
    static const std::vector<CollectiveProtocol> protocols{CollectiveProtocol::LL,
                                                           CollectiveProtocol::LL128,
                                                           CollectiveProtocol::SIMPLE};
    return protocols;
}

std::string
GetCollectiveProtocolNameList()
{
    std::string list = CollectiveProtocolToString(CollectiveProtocol::AUTO);
    for (const auto& e : PROTOCOLS)
    {
        if (e.protocol != CollectiveProtocol::AUTO)
        {
            list += std::string(", ") + e.name;
        }
    }
    return list;
}

Ptr<const AttributeChecker>
MakeCollectiveProtocolChecker()
{
    auto name = [](CollectiveProtocol p) { return CollectiveProtocolToString(p); };
    static_assert(static_cast<int>(CollectiveProtocol::AUTO) == 4,
                  "a new protocol must be added to this checker");
    return aifabric::MakeEnumCheckerCompat(CollectiveProtocol::AUTO,
                                           name(CollectiveProtocol::AUTO),
                                           CollectiveProtocol::LL,
                                           name(CollectiveProtocol::LL),
                                           CollectiveProtocol::LL128,
                                           name(CollectiveProtocol::LL128),
                                           CollectiveProtocol::SIMPLE,
                                           name(CollectiveProtocol::SIMPLE),
                                           CollectiveProtocol::NONE,
                                           name(CollectiveProtocol::NONE));
}

std::ostream&
operator<<(std::ostream& os, CollectiveProtocol protocol)
{
    return os << CollectiveProtocolToString(protocol);
}

bool
CollectiveProtocolApplies(CollectiveAlgorithm algorithm, CollectiveProtocol protocol)
{
    if (protocol == CollectiveProtocol::NONE || protocol == CollectiveProtocol::AUTO ||
        protocol == CollectiveProtocol::SIMPLE)
    {
        return true;
    }
    return !SimpleOnly(algorithm);
}

uint64_t
CollectiveProtocolWireBytes(CollectiveProtocol protocol, uint64_t payload)
{
    switch (protocol)
    {
    case CollectiveProtocol::LL:
        return (payload / 8 + (payload % 8 ? 1 : 0)) * 16;
    case CollectiveProtocol::LL128:
        return (payload / 120 + (payload % 120 ? 1 : 0)) * 128;
    default:
        return payload;
    }
}

double
NcclBaseLatencyUs(CollectiveAlgorithm algorithm, CollectiveProtocol protocol)
{
    return NcclBaseLatencyUs(NcclRow(algorithm), protocol);
}

double
NcclHwLatencyUs(LinkHardware hardware, CollectiveAlgorithm algorithm, CollectiveProtocol protocol)
{
    return NcclHwLatencyUs(hardware, NcclRow(algorithm), protocol);
}

CollectiveProtocolCosts::CollectiveProtocolCosts(const CommPlan& plan,
                                                 const CollectiveTransport& carrier,
                                                 const std::vector<uint32_t>& rankMap,
                                                 Time netOverhead)
    : m_protocol(plan.GetProtocol())
{
    NS_ABORT_MSG_IF(m_protocol == CollectiveProtocol::AUTO,
                    "CollectiveProtocolCosts: plan '"
                        << plan.GetAlgorithm()
                        << "' has protocol auto, a choice CollectiveSelection makes, not one "
                           "a plan can run");
    auto carrierRank = [&rankMap](uint32_t r) { return rankMap.empty() ? r : rankMap[r]; };
    // The carrier's description of each pair of carrier ranks, asked once.
    std::map<std::pair<uint32_t, uint32_t>, CarrierPath> paths;
    auto pathOf = [&](const CommPlan::Transfer& tr) -> const CarrierPath& {
        const auto key = std::make_pair(carrierRank(tr.src), carrierRank(tr.dst));
        auto it = paths.find(key);
        if (it == paths.end())
        {
            it = paths.emplace(key, carrier.DescribePath(key.first, key.second)).first;
        }
        return it->second;
    };
    if (plan.IsCoarse())
    {
        // A transfer of several steps stands for steps that would each have paid its path's
        // latency (cables, a frame stored at every switch) and rate alone.
        m_coarse.assign(plan.GetNTransfers(), CoarseStep{});
        for (const CommPlan::Transfer& tr : plan.GetTransfers())
        {
            if (tr.steps < 2)
            {
                continue;
            }
            const CarrierPath& path = pathOf(tr);
            Time store(0);
            if (path.bytesPerSecond > 0)
            {
                store = Seconds(path.forwardHops * static_cast<double>(path.forwardUnit) /
                                path.bytesPerSecond);
            }
            m_coarse[tr.id] = CoarseStep{path.latency + store, path.bytesPerSecond, tr.steps};
        }
    }
    if (m_protocol == CollectiveProtocol::NONE)
    {
        return;
    }
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::RING;
    NS_ABORT_MSG_IF(!CollectiveAlgorithmFromString(plan.GetAlgorithm(), algorithm) ||
                        algorithm == CollectiveAlgorithm::AUTO,
                    "CollectiveProtocolCosts: plan of protocol "
                        << m_protocol << " names no algorithm ('" << plan.GetAlgorithm()
                        << "'): its latencies depend on it");
    NS_ABORT_MSG_IF(!CollectiveProtocolApplies(algorithm, m_protocol),
                    "CollectiveProtocolCosts: " << plan.GetAlgorithm() << " does not run the "
                                                << m_protocol << " protocol (Simple only)");
    const uint32_t nT = plan.GetNTransfers();
    m_hardware.assign(nT, LinkHardware::NET);
    m_pointToPoint.assign(nT, 0);
    bool network = false;   // some step crosses the network
    bool intra = false;     // some step stays inside a server
    bool inNetwork = false; // some transfer aggregates in the network
    for (uint32_t t = 0; t < nT; ++t)
    {
        const CommPlan::Transfer& tr = plan.GetTransfer(t);
        if (tr.kind != CommPlan::Kind::POINT_TO_POINT)
        {
            inNetwork = inNetwork || CommPlan::InNetwork(tr.kind);
            continue;
        }
        m_pointToPoint[t] = 1;
        m_hardware[t] = carrier.GetLinkHardware(carrierRank(tr.src), carrierRank(tr.dst));
        (m_hardware[t] == LinkHardware::NET ? network : intra) = true;
    }
    // Several ranks per server (NCCL's ppn > 1): a step inside a server, or neighbouring
    // ranks on one (switch plans have no point-to-point steps to tell).
    uint32_t servers = 1; // server boundaries between neighbouring ranks, plus one
    for (uint32_t r = 0; r + 1 < plan.GetGroupSize(); ++r)
    {
        const bool same =
            carrier.GetLinkHardware(carrierRank(r), carrierRank(r + 1)) != LinkHardware::NET;
        intra = intra || same;
        servers += same ? 0 : 1;
    }
    const CollectiveProtocol p = m_protocol;
    auto us = [](double v) { return NanoSeconds(static_cast<int64_t>(v * 1000.0 + 0.5)); };
    if (SwitchAlgorithm(algorithm))
    {
        // NCCL charges NVLS and CollNet as a whole call: the NVLS (or CollNet) hardware
        // latency, plus the network's when the call also aggregates across servers. With
        // one rank per server the network latency is fully exposed: NCCL takes the tree's.
        if (algorithm == CollectiveAlgorithm::INA)
        {
            m_callLatency = us(NcclHwLatencyUs(LinkHardware::NET,
                                               intra ? algorithm : CollectiveAlgorithm::TREE,
                                               p));
        }
        else
        {
            m_callLatency = us(NcclHwLatencyUs(LinkHardware::NVLINK, algorithm, p));
            if ((inNetwork || network) && algorithm != CollectiveAlgorithm::NVLS_TREE)
            {
                m_callLatency += us(NcclHwLatencyUs(LinkHardware::NET, algorithm, p));
            }
        }
    }
    else
    {
        m_callLatency = us(NcclBaseLatencyUs(algorithm, p));
        if (algorithm == CollectiveAlgorithm::PAT)
        {
            // PAT's linear part (NCCL: "hopefully we'll manage to remove it").
            m_callLatency += us(NCCL_PAT_PER_RANK_LATENCY_US * plan.GetGroupSize());
        }
    }
    for (LinkHardware hw : {LinkHardware::NVLINK, LinkHardware::PCI, LinkHardware::NET})
    {
        Time lat = us(NcclHwLatencyUs(hw, algorithm, p));
        if (hw == LinkHardware::NET && !intra && algorithm != CollectiveAlgorithm::TREE &&
            !SwitchAlgorithm(algorithm))
        {
            // One rank per server: the latencies are fully exposed (NCCL takes the tree's).
            lat = us(NcclHwLatencyUs(hw, CollectiveAlgorithm::TREE, p));
        }
        if (hw != LinkHardware::NET && network && algorithm != CollectiveAlgorithm::TREE)
        {
            // An inter-server ring still launches every step through the network proxy.
            const Time overhead = netOverhead * (p == CollectiveProtocol::SIMPLE ? 3 : 1);
            lat = std::max(lat, overhead);
        }
        if (algorithm == CollectiveAlgorithm::PAT)
        {
            // PAT: a network step pays the network latency / 3.5 (the tree's with one rank
            // per server); no network overhead rule (that is the ring's).
            lat = hw == LinkHardware::NET
                      ? us(NcclHwLatencyUs(hw, intra ? algorithm : CollectiveAlgorithm::TREE, p) /
                           NCCL_PAT_STEP_LATENCY_DIVISOR)
                      : us(NcclHwLatencyUs(hw, algorithm, p));
        }
        else if (algorithm == CollectiveAlgorithm::NVLS_TREE)
        {
            // NVLSTree: NVLS's latency once (above), the tree's network latency per hop.
            lat = hw == LinkHardware::NET ? us(NcclHwLatencyUs(hw, algorithm, p)) : Time(0);
        }
        else if (SwitchAlgorithm(algorithm))
        {
            lat = Time(0);
        }
        m_stepLatency[static_cast<int>(hw)] = lat;
    }
    // NCCL's step latency is the whole step, wire included; the carrier spends its own
    // path latency on every transfer, so a step pays only what the hardware adds to it:
    // less the shortest path of its kind in the call (one figure per kind, so transfers
    // released together still start together; a longer path pays its extra wire).
    Time shortest[3] = {Time::Max(), Time::Max(), Time::Max()};
    double slowestNvlink = std::numeric_limits<double>::max(); // bytes/s of one transfer alone
    for (uint32_t t = 0; t < nT; ++t)
    {
        if (!m_pointToPoint[t])
        {
            continue;
        }
        const CarrierPath& path = pathOf(plan.GetTransfer(t));
        Time& s = shortest[static_cast<int>(m_hardware[t])];
        s = std::min(s, path.latency);
        if (m_hardware[t] == LinkHardware::NVLINK && path.bytesPerSecond > 0)
        {
            slowestNvlink = std::min(slowestNvlink, path.bytesPerSecond);
        }
    }
    if (slowestNvlink < std::numeric_limits<double>::max() &&
        algorithm != CollectiveAlgorithm::TREE)
    {
        // NCCL runs a channel on one thread block, whose copy rate is its share of the
        // GPU's NVLink bandwidth: a channel waiting out its step latency leaves its share
        // unused rather than lending it to the others (so NCCL's model adds the step
        // latencies to the bytes' time); the data arrives the path's latency after it is
        // copied. One server per sender and channel (GetRateCharge). Not the tree's
        // chains: NCCL splits a channel's threads between the reduction going up and the
        // broadcast coming down, which one server per thread block would serialize.
        // A sender's share is the path's rate over the channels it sends over NVLink on
        // (a rail ring's GPU sends one of its channels out through its NIC).
        m_nvlinkRate = slowestNvlink;
        m_nvlinkPathLatency = shortest[static_cast<int>(LinkHardware::NVLINK)];
    }
    for (int hw = 0; hw < 3; ++hw)
    {
        m_chargedLatency[hw] = shortest[hw] == Time::Max()
                                   ? Time(0)
                                   : std::max(Time(0), m_stepLatency[hw] - shortest[hw]);
    }
    if (p == CollectiveProtocol::LL && network && servers > 1 && !SwitchAlgorithm(algorithm))
    {
        // Across servers NCCL indexes llMaxBws by CPU (x86 Intel), not by GPU.
        const double busBw = 1e9 * NcclLlMaxBwGBps(servers, 0, false);
        m_rateCap = busBw / plan.GetNChannels();
    }
    if (algorithm == CollectiveAlgorithm::NVLS_TREE && network && servers > 1)
    {
        const double perChannel =
            1e9 * NcclPerChannelMaxNvlsTreeGBps(servers, carrier.GetComputeCapability());
        const double n = plan.GetGroupSize();
        m_channelRate = perChannel * (servers - 1) * n / (n - 1);
    }
    if (m_channelRate > 0 || m_nvlinkRate > 0 || m_rateCap > 0)
    {
        // The rate servers, by transfer: a channel's (nvls-tree's network hops), a
        // sender's thread block of a channel (NVLink) or a sender's LL ceiling of a
        // channel (the network).
        m_server.assign(nT, 0);
        std::vector<std::set<uint32_t>> nvlinkChannels(m_nvlinkRate > 0 ? plan.GetGroupSize() : 0);
        for (uint32_t t = 0; t < nT; ++t)
        {
            const CommPlan::Transfer& tr = plan.GetTransfer(t);
            if (PassesChannelRate(t))
            {
                m_server[t] = uint64_t{tr.channel} + 1;
            }
            else if (m_nvlinkRate > 0 && m_pointToPoint[t] && m_hardware[t] == LinkHardware::NVLINK)
            {
                m_server[t] = ((uint64_t{tr.src} + 1) << 32) | tr.channel;
                nvlinkChannels[tr.src].insert(tr.channel);
            }
            else if (m_rateCap > 0 && m_pointToPoint[t] && m_hardware[t] == LinkHardware::NET)
            {
                // Not the tree's: NCCL splits a tree channel's threads between its sends up
                // and down, which one server per channel would serialize; each tree
                // transfer has a server of its own (the ceiling on its payload alone).
                m_server[t] = algorithm == CollectiveAlgorithm::TREE
                                  ? LL_SERVER | LL_OWN_SERVER | t
                                  : LL_SERVER | ((uint64_t{tr.src} + 1) << 32) | tr.channel;
            }
        }
        m_nvlinkChannels.resize(nvlinkChannels.size());
        for (std::size_t r = 0; r < nvlinkChannels.size(); ++r)
        {
            m_nvlinkChannels[r] = static_cast<uint32_t>(nvlinkChannels[r].size());
        }
    }
    NS_LOG_LOGIC(
        "protocol " << p << " for " << plan.GetAlgorithm() << ": call "
                    << m_callLatency.As(Time::US) << ", steps nvlink "
                    << m_stepLatency[0].As(Time::US) << " pci " << m_stepLatency[1].As(Time::US)
                    << " net " << m_stepLatency[2].As(Time::US) << " (charged "
                    << m_chargedLatency[0].As(Time::US) << ", " << m_chargedLatency[1].As(Time::US)
                    << ", " << m_chargedLatency[2].As(Time::US) << ")");
}

bool
CollectiveProtocolCosts::IsCharged() const
{
    return m_protocol != CollectiveProtocol::NONE;
}

Time
CollectiveProtocolCosts::GetCallLatency() const
{
    return m_callLatency;
}

Time
CollectiveProtocolCosts::GetStepLatency(uint32_t transfer) const
{
    if (!IsCharged() || !m_pointToPoint[transfer])
    {
        return Time(0);
    }
    return m_chargedLatency[static_cast<int>(m_hardware[transfer])];
}

Time
CollectiveProtocolCosts::GetCoarseHold(uint32_t transfer, uint64_t payload) const
{
    if (m_coarse.empty() || m_coarse[transfer].steps < 2)
    {
        return Time(0);
    }
    const CoarseStep& c = m_coarse[transfer];
    // All of the steps send their bytes at the path's rate alone, and the last arrives a
    // path latency after: g (wire + step + path) - step in all.
    const Time wire = c.bytesPerSecond > 0
                          ? Seconds(static_cast<double>(GetWireBytes(payload)) / c.bytesPerSecond)
                          : Time(0);
    return wire + GetCoarseLatency(transfer) + c.path;
}

Time
CollectiveProtocolCosts::GetCoarseLatency(uint32_t transfer) const
{
    if (m_coarse.empty() || m_coarse[transfer].steps < 2)
    {
        return Time(0);
    }
    // Steps 2..g each wait out the step latency and their path after the one before.
    const CoarseStep& c = m_coarse[transfer];
    return Time((GetStepLatency(transfer) + c.path).GetTimeStep() * int64_t{c.steps - 1});
}

Time
CollectiveProtocolCosts::GetStepLatency(LinkHardware hardware) const
{
    return IsCharged() ? m_stepLatency[static_cast<int>(hardware)] : Time(0);
}

CollectiveProtocolCosts::RateCharge
CollectiveProtocolCosts::GetRateCharge(uint32_t transfer, uint64_t payload) const
{
    RateCharge charge;
    if (m_server.empty() || m_server[transfer] == 0)
    {
        return charge;
    }
    charge.server = m_server[transfer];
    if (PassesChannelRate(transfer))
    {
        charge.service = Seconds(static_cast<double>(payload) / m_channelRate);
    }
    else if (charge.server & LL_SERVER)
    {
        charge.service = Seconds(static_cast<double>(payload) / m_rateCap);
    }
    else
    {
        const auto sender = static_cast<std::size_t>((charge.server >> 32) - 1);
        const double share = m_nvlinkRate / m_nvlinkChannels[sender];
        charge.service = Seconds(static_cast<double>(GetWireBytes(payload)) / share);
        charge.after = m_nvlinkPathLatency;
    }
    // A coarsened ring's transfer keeps its server through the latencies of its steps
    // after the first: a thread block (a channel's LL ceiling) waiting out a step does not
    // lend its rate to another, so these latencies are never hidden.
    charge.service += GetCoarseLatency(transfer);
    return charge;
}

bool
CollectiveProtocolCosts::PassesChannelRate(uint32_t transfer) const
{
    return m_channelRate > 0 && m_pointToPoint[transfer] &&
           m_hardware[transfer] == LinkHardware::NET;
}

double
CollectiveProtocolCosts::GetChannelRate() const
{
    return m_channelRate;
}

uint64_t
CollectiveProtocolCosts::GetWireBytes(uint64_t payload) const
{
    return CollectiveProtocolWireBytes(m_protocol, payload);
}

} // namespace ns3
