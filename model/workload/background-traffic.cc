// SPDX-License-Identifier: GPL-2.0-only
#include "background-traffic.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame-info.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <deque>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BackgroundTraffic");
NS_OBJECT_ENSURE_REGISTERED(BackgroundTraffic);

TypeId
BackgroundTraffic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::BackgroundTraffic")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<BackgroundTraffic>()
            .AddAttribute("FlowSizes",
                          "Flow-size distribution: websearch, fb-hadoop, alistorage2019, or "
                          "the path of a CDF file (\"bytes percent\" lines).",
                          StringValue("websearch"),
                          MakeStringAccessor(&BackgroundTraffic::m_flowSizes),
                          MakeStringChecker())
            .AddAttribute("Load",
                          "Average load each host's flows put on its link, in (0, 1].",
                          DoubleValue(0.3),
                          MakeDoubleAccessor(&BackgroundTraffic::m_load),
                          MakeDoubleChecker<double>(1e-6, 1.0))
            .AddAttribute("Start",
                          "Time of the first arrivals.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&BackgroundTraffic::m_start),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Stop",
                          "No flow starts at or after this time (started flows finish).",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&BackgroundTraffic::m_stop),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("FlowFinished",
                            "A flow's last byte was acknowledged.",
                            MakeTraceSourceAccessor(&BackgroundTraffic::m_finishedTrace),
                            "ns3::BackgroundTraffic::FlowTracedCallback");
    return tid;
}

BackgroundTraffic::BackgroundTraffic()
    : m_sizeRng(CreateObject<UniformRandomVariable>()),
      m_peerRng(CreateObject<UniformRandomVariable>()),
      m_gapRng(CreateObject<ExponentialRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

BackgroundTraffic::~BackgroundTraffic()
{
    NS_LOG_FUNCTION(this);
}

void
BackgroundTraffic::DoDispose()
{
    m_nics.clear();
    Object::DoDispose();
}

bool
BackgroundTraffic::Configure(std::string* error)
{
    if (!FlowSizeCdf::Named(m_flowSizes, m_cdf))
    {
        std::string why;
        if (!FlowSizeCdf::Load(m_flowSizes, m_cdf, &why))
        {
            *error = "ns3::BackgroundTraffic::FlowSizes: \"" + m_flowSizes +
                     "\" is neither a distribution (" + FlowSizeCdf::GetNameList() +
                     ") nor a CDF file (" + why + ")";
            return false;
        }
    }
    if (m_stop <= m_start)
    {
        *error = "ns3::BackgroundTraffic::Stop (" + std::to_string(m_stop.GetMicroSeconds()) +
                 " us) must come after Start (" + std::to_string(m_start.GetMicroSeconds()) +
                 " us)";
        return false;
    }
    m_configured = true;
    return true;
}

int64_t
BackgroundTraffic::AssignStreams(int64_t stream)
{
    m_sizeRng->SetStream(stream);
    m_peerRng->SetStream(stream + 1);
    m_gapRng->SetStream(stream + 2);
    return 3;
}

void
BackgroundTraffic::Install(const std::vector<Ptr<RdmaNic>>& nics)
{
    NS_LOG_FUNCTION(this << nics.size());
    NS_ABORT_MSG_IF(!m_configured, "BackgroundTraffic::Install before Configure");
    NS_ABORT_MSG_IF(nics.size() < 2, "BackgroundTraffic::Install: needs two hosts at least");
    m_nics = nics;
    for (const auto& [src, dst] : m_pairs)
    {
        NS_ABORT_MSG_IF(src >= nics.size() || dst >= nics.size() || src == dst,
                        "BackgroundTraffic: pair (" << src << ", " << dst << ") is not two "
                                                    << "different hosts of " << nics.size());
        m_destinations[src].push_back(dst);
    }
    const double mean = m_cdf.Mean();
    for (uint32_t i = 0; i < nics.size(); ++i)
    {
        const double rate = static_cast<double>(nics[i]->GetDevice()->GetDataRate().GetBitRate());
        m_meanGap.push_back(mean * 8 / (rate * m_load));
        if (!m_pairs.empty() && !m_destinations.count(i))
        {
            continue; // not a source of any pair
        }
        const Time first = m_start + Seconds(m_gapRng->GetValue(m_meanGap[i], 0));
        if (first < m_stop)
        {
            Simulator::Schedule(first - Simulator::Now(), &BackgroundTraffic::Arrival, this, i);
        }
    }
    NS_LOG_INFO(nics.size() << " hosts, mean flow " << mean << " B, load " << m_load
                            << ": mean gap " << m_meanGap[0] * 1e6 << " us per host");
}

void
BackgroundTraffic::SetPairs(const std::vector<std::pair<uint32_t, uint32_t>>& pairs)
{
    NS_LOG_FUNCTION(this << pairs.size());
    m_pairs = pairs;
}

void
BackgroundTraffic::StopArrivals()
{
    NS_LOG_FUNCTION(this);
    m_stop = Simulator::Now();
}

void
BackgroundTraffic::Arrival(uint32_t src)
{
    if (Simulator::Now() >= m_stop)
    {
        return; // StopArrivals
    }
    uint32_t dst;
    if (m_pairs.empty())
    {
        const uint32_t n = static_cast<uint32_t>(m_nics.size());
        dst = m_peerRng->GetInteger(0, n - 2);
        if (dst >= src)
        {
            ++dst; // uniform among the others
        }
    }
    else
    {
        const std::vector<uint32_t>& mine = m_destinations[src];
        dst = mine[m_peerRng->GetInteger(0, static_cast<uint32_t>(mine.size()) - 1)];
    }
    BackgroundFlow flow;
    flow.src = src;
    flow.dst = dst;
    flow.bytes = m_cdf.Sample(m_sizeRng->GetValue());
    flow.start = Simulator::Now();
    auto key = std::make_pair(src, dst);
    auto it = m_paths.find(key);
    if (it == m_paths.end())
    {
        it = m_paths.emplace(key, ShortestPath(m_nics[src], m_nics[dst])).first;
    }
    flow.ideal = FctOverPath(it->second, m_nics[src]->GetPayloadMtu(), flow.bytes);
    const uint32_t index = static_cast<uint32_t>(m_flows.size());
    m_flows.push_back(flow);
    ++m_active;
    NS_LOG_LOGIC("flow " << index << ": host " << src << " -> " << dst << ", " << flow.bytes
                         << " B (ideal " << flow.ideal.As(Time::US) << ")");
    auto qps = RdmaNic::Connect(m_nics[src], m_nics[dst]);
    qps.first->SetSendCompleteCallback(
        MakeCallback(&BackgroundTraffic::Finished, this).Bind(index));
    qps.first->PostWrite(flow.bytes);
    const Time next = Simulator::Now() + Seconds(m_gapRng->GetValue(m_meanGap[src], 0));
    if (next < m_stop)
    {
        Simulator::Schedule(next - Simulator::Now(), &BackgroundTraffic::Arrival, this, src);
    }
}

void
BackgroundTraffic::Finished(uint32_t index, Ptr<RdmaQueuePair>, uint64_t, uint64_t)
{
    BackgroundFlow& flow = m_flows[index];
    flow.finish = Simulator::Now();
    --m_active;
    NS_LOG_LOGIC("flow " << index << " done: FCT " << (flow.finish - flow.start).As(Time::US)
                         << ", slowdown "
                         << (flow.finish - flow.start).GetSeconds() / flow.ideal.GetSeconds());
    m_finishedTrace(flow);
}

const std::vector<BackgroundFlow>&
BackgroundTraffic::GetFlows() const
{
    return m_flows;
}

const FlowSizeCdf&
BackgroundTraffic::GetFlowSizes() const
{
    return m_cdf;
}

uint32_t
BackgroundTraffic::GetActiveFlows() const
{
    return m_active;
}

Time
BackgroundTraffic::FctIdeal(Ptr<RdmaNic> from, Ptr<RdmaNic> to, uint64_t bytes)
{
    return FctOverPath(ShortestPath(from, to), from->GetPayloadMtu(), bytes);
}

std::vector<std::pair<double, Time>>
BackgroundTraffic::ShortestPath(Ptr<RdmaNic> from, Ptr<RdmaNic> to)
{
    // Breadth-first over the cables (every node's RoceNetDevices), from the sender's node.
    const Ptr<Node> source = from->GetDevice()->GetNode();
    const uint32_t target = to->GetDevice()->GetNode()->GetId();
    std::map<uint32_t, std::pair<uint32_t, Ptr<RoceNetDevice>>> parent; // node -> (prev, dev)
    std::map<uint32_t, Ptr<Node>> nodes{{source->GetId(), source}};
    std::deque<Ptr<Node>> frontier{source};
    parent[source->GetId()] = {source->GetId(), nullptr};
    while (!frontier.empty() && !parent.count(target))
    {
        Ptr<Node> node = frontier.front();
        frontier.pop_front();
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(node->GetDevice(i));
            // Cables that are down count: the ideal is the empty, intact fabric.
            if (!dev || !dev->GetRoceChannel())
            {
                continue;
            }
            Ptr<Node> next = dev->GetRoceChannel()->GetPeer(dev)->GetNode();
            if (parent.count(next->GetId()))
            {
                continue;
            }
            parent[next->GetId()] = {node->GetId(), dev};
            // Hosts other than the target do not forward.
            if (next->GetId() != target && next->GetNDevices() > 1)
            {
                frontier.push_back(next);
            }
        }
    }
    std::vector<std::pair<double, Time>> path;
    if (!parent.count(target))
    {
        return path;
    }
    for (uint32_t at = target; at != source->GetId(); at = parent[at].first)
    {
        const Ptr<RoceNetDevice>& dev = parent[at].second;
        path.emplace_back(static_cast<double>(dev->GetDataRate().GetBitRate()),
                          dev->GetRoceChannel()->GetDelay());
    }
    std::reverse(path.begin(), path.end());
    return path;
}

Time
BackgroundTraffic::FctOverPath(const std::vector<std::pair<double, Time>>& path,
                               uint32_t mtu,
                               uint64_t bytes)
{
    if (path.empty())
    {
        return Time();
    }
    // Data frames: headers, payload, ICRC; the first carries a RETH, the last immediate
    // data (a one-packet write carries both). The ACK: headers, AETH, ICRC.
    const uint64_t packets = (bytes + mtu - 1) / mtu;
    const uint32_t firstPayload = static_cast<uint32_t>(std::min<uint64_t>(bytes, mtu));
    const uint32_t lastPayload = static_cast<uint32_t>(bytes - (packets - 1) * mtu);
    auto frame = [](uint32_t payload, bool first, bool last) {
        return roce::WireBytes(roce::DATA_HEADER_BYTES + (first ? roce::RETH_BYTES : 0) +
                               (last ? roce::IMMEDIATE_BYTES : 0) + payload + roce::ICRC_BYTES);
    };
    const double ack = roce::WireBytes(roce::ACK_FRAME_BYTES);
    double slowest = path.front().first;
    double seconds = 0;
    const double firstFrame = frame(firstPayload, true, packets == 1);
    for (const auto& [rate, delay] : path)
    {
        slowest = std::min(slowest, rate);
        // the first packet, store and forward, and the ACK of the last one back
        seconds += firstFrame * 8 / rate + ack * 8 / rate + 2 * delay.GetSeconds();
    }
    // the others follow back to back at the slowest link
    if (packets > 1)
    {
        const double middle = static_cast<double>(frame(mtu, false, false));
        seconds += ((packets - 2) * middle + frame(lastPayload, false, true)) * 8 / slowest;
    }
    return Seconds(seconds);
}

} // namespace ns3
