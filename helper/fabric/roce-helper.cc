// SPDX-License-Identifier: GPL-2.0-only
#include "roce-helper.h"

#include "../../model/fabric/ai-fabric-compat.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/icrc-trailer.h"
#include "ns3/int-header.h"
#include "ns3/log.h"
#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/roce-remote-channel.h"
#endif
#include "ns3/pcap-file-wrapper.h"
#include "ns3/pointer.h"
#include "ns3/program-options.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame-info.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <deque>
#include <filesystem>
#include <map>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceHelper");

namespace
{
/// Write a frame to pcap with its RoCE ICRC computed for real (the model leaves it zero).
void
WriteFrameWithIcrc(Ptr<PcapFileWrapper> file, Ptr<const Packet> packet)
{
    // One buffer for every capture: the simulator runs one event at a time.
    static std::vector<uint8_t> buf;
    uint32_t size = packet->GetSize();
    buf.resize(size);
    packet->CopyData(buf.data(), size);
    RoceFrameInfo info;
    constexpr uint32_t minRoce = roce::DATA_HEADER_BYTES + roce::ICRC_BYTES;
    if (ParseRoceFrame(packet, info) && info.kind == RoceFrameInfo::ROCE && size >= minRoce)
    {
        const uint8_t* ip = buf.data() + roce::ETHERNET_HEADER_BYTES;
        uint32_t covered = size - roce::ETHERNET_HEADER_BYTES - roce::ICRC_BYTES;
        uint32_t icrc;
        if (info.intOffset == 0)
        {
            icrc = ComputeRoceIcrc(ip, covered);
        }
        else
        {
            // Telemetry is a transit header: the ICRC covers the RoCEv2 packet without it
            // (what the receiving transport checks), so lengths and port are restored.
            static std::vector<uint8_t> plain;
            const uint32_t intBytes =
                int_telemetry::FIXED_BYTES + info.intRoom * int_telemetry::HOP_BYTES;
            const uint32_t udpStart = info.intOffset - roce::UDP_HEADER_BYTES;
            plain.assign(buf.begin() + roce::ETHERNET_HEADER_BYTES, buf.begin() + info.intOffset);
            plain.insert(plain.end(), buf.begin() + info.intOffset + intBytes, buf.end());
            auto put16 = [](uint8_t* p, uint32_t v) {
                p[0] = static_cast<uint8_t>(v >> 8);
                p[1] = static_cast<uint8_t>(v);
            };
            const uint32_t ipTotal =
                (buf[roce::ETHERNET_HEADER_BYTES + 2] << 8 | buf[roce::ETHERNET_HEADER_BYTES + 3]) -
                intBytes;
            const uint32_t udpOffset = udpStart - roce::ETHERNET_HEADER_BYTES;
            put16(plain.data() + 2, ipTotal);
            put16(plain.data() + udpOffset + 2, roce::UDP_DEST_PORT);
            put16(plain.data() + udpOffset + 4,
                  (buf[udpStart + 4] << 8 | buf[udpStart + 5]) - intBytes);
            icrc = ComputeRoceIcrc(plain.data(), covered - intBytes);
        }
        WriteRoceIcrc(icrc, buf.data() + size - roce::ICRC_BYTES);
    }
    file->Write(Simulator::Now(), buf.data(), size);
}
} // namespace

RoceHelper::RoceHelper()
{
    m_deviceFactory.SetTypeId("ns3::RoceNetDevice");
    m_channelFactory.SetTypeId("ns3::RoceChannel");
    m_nicFactory.SetTypeId("ns3::RdmaNic");
    m_switchFactory.SetTypeId("ns3::RoceSwitch");
    m_mmuFactory.SetTypeId("ns3::SharedBufferMmu");
}

void
RoceHelper::SetDeviceAttribute(std::string name, const AttributeValue& value)
{
    m_deviceFactory.Set(name, value);
}

void
RoceHelper::SetChannelAttribute(std::string name, const AttributeValue& value)
{
    m_channelFactory.Set(name, value);
}

void
RoceHelper::SetNicAttribute(std::string name, const AttributeValue& value)
{
    m_nicFactory.Set(name, value);
}

void
RoceHelper::SetSwitchAttribute(std::string name, const AttributeValue& value)
{
    m_switchFactory.Set(name, value);
}

void
RoceHelper::SetMmuAttribute(std::string name, const AttributeValue& value)
{
    m_mmuFactory.Set(name, value);
}

void
RoceHelper::SetCongestionControl(std::string typeName)
{
    TypeId tid;
    NS_ABORT_MSG_IF(!RoceCongestionControl::LookupByName(typeName, &tid),
                    "RoceHelper::SetCongestionControl: '" << typeName << "' is not "
                                                          << RoceCongestionControl::GetNameHint());
    m_nicFactory.Set("CongestionControl", TypeIdValue(tid));
}

bool
RoceHelper::CheckCongestionControl(const std::string& typeName, std::string* error)
{
    TypeId tid;
    if (!RoceCongestionControl::LookupByName(typeName, &tid))
    {
        *error = typeName + " is not a congestion control: expected " +
                 RoceCongestionControl::GetNameHint();
        return false;
    }
    ObjectFactory factory(tid.GetName());
    return factory.Create<RoceCongestionControl>()->CheckConfiguration(error);
}

bool
RoceHelper::CheckTelemetryRates(std::string* error) const
{
    if (m_nics.empty())
    {
        return true;
    }
    TypeIdValue cc;
    m_nics.front()->GetAttribute("CongestionControl", cc);
    ObjectFactory factory;
    factory.SetTypeId(cc.Get());
    if (!factory.Create<RoceCongestionControl>()->GetSignalNeeds().intTelemetry)
    {
        return true;
    }
    for (const auto& sw : m_switches)
    {
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            const uint64_t rate = sw->GetPort(p)->GetDataRate().GetBitRate();
            if (IntRateCode(rate) < 0)
            {
                std::ostringstream os;
                os << cc.Get().GetName() << " needs in-band telemetry, whose hop records "
                   << "cannot name the " << rate / 1e9 << " Gb/s of switch node "
                   << sw->GetPort(p)->GetNode()->GetId() << " port " << p << " (they encode "
                   << IntRateList() << ")";
                *error = os.str();
                return false;
            }
        }
    }
    return true;
}

NetDeviceContainer
RoceHelper::Link(Ptr<Node> a, Ptr<Node> b)
{
    return Link(a, b, m_deviceFactory, m_channelFactory);
}

NetDeviceContainer
RoceHelper::Link(Ptr<Node> a, Ptr<Node> b, DataRate rate, Time delay)
{
    ObjectFactory device = m_deviceFactory;
    device.Set("DataRate", DataRateValue(rate));
    ObjectFactory channel = m_channelFactory;
    channel.Set("Delay", TimeValue(delay));
    return Link(a, b, device, channel);
}

NetDeviceContainer
RoceHelper::Link(Ptr<Node> a,
                 Ptr<Node> b,
                 const ObjectFactory& deviceFactory,
                 const ObjectFactory& channelFactory)
{
    Ptr<RoceNetDevice> da = deviceFactory.Create<RoceNetDevice>();
    Ptr<RoceNetDevice> db = deviceFactory.Create<RoceNetDevice>();
    Ptr<RoceChannel> channel;
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled() && a->GetSystemId() != b->GetSystemId())
    {
        // The same attributes (Delay) on the cable between ranks.
        ObjectFactory remote = channelFactory;
        remote.SetTypeId(RoceRemoteChannel::GetTypeId());
        channel = remote.Create<RoceChannel>();
        NS_LOG_LOGIC("cable between node " << a->GetId() << " (rank " << a->GetSystemId()
                                           << ") and node " << b->GetId() << " (rank "
                                           << b->GetSystemId() << ") crosses ranks");
    }
    else
#endif
    {
        channel = channelFactory.Create<RoceChannel>();
    }
    a->AddDevice(da);
    b->AddDevice(db);
    da->Attach(channel);
    db->Attach(channel);
    NetDeviceContainer link;
    link.Add(da);
    link.Add(db);
    return link;
}

Ptr<RdmaNic>
RoceHelper::InstallNic(Ptr<NetDevice> port, Ipv4Address address)
{
    Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(port);
    NS_ABORT_MSG_IF(!dev, "RoceHelper::InstallNic: the port is not a RoceNetDevice");
    Ptr<RdmaNic> nic = m_nicFactory.Create<RdmaNic>();
    nic->SetAddress(address);
    nic->SetDevice(dev);
    m_nics.push_back(nic);
    return nic;
}

Ptr<RoceSwitch>
RoceHelper::InstallSwitch(Ptr<Node> node)
{
    Ptr<RoceSwitch> sw = m_switchFactory.Create<RoceSwitch>();
    sw->SetAttribute("Mmu", PointerValue(m_mmuFactory.Create<SharedBufferMmu>()));
    node->AggregateObject(sw);
    sw->Setup(node);
    m_switches.push_back(sw);
    return sw;
}

std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>
RoceHelper::Connect(Ptr<RdmaNic> a, Ptr<RdmaNic> b)
{
    return RdmaNic::Connect(a, b);
}

void
RoceHelper::PopulateRoutes()
{
    ComputeRoutes(m_switches, m_nics);
}

void
RoceHelper::ComputeRoutes(const std::vector<Ptr<RoceSwitch>>& switches,
                          const std::vector<Ptr<RdmaNic>>& nics)
{
    // Graph over nodes; an edge per cable that is up, remembered as (neighbour, local
    // port).
    std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> adjacency;
    std::map<uint32_t, Ptr<RoceSwitch>> switchOf;
    for (const auto& sw : switches)
    {
        Ptr<Node> node = sw->GetObject<Node>();
        switchOf[node->GetId()] = sw;
        sw->GetRoutingTable().Clear();
    }
    auto addEdges = [&adjacency](Ptr<Node> node) {
        auto& edges = adjacency[node->GetId()];
        edges.clear();
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(node->GetDevice(i));
            if (dev && dev->GetRoceChannel() && dev->GetRoceChannel()->IsUp())
            {
                Ptr<RoceNetDevice> peer = dev->GetRoceChannel()->GetPeer(dev);
                edges.emplace_back(peer->GetNode()->GetId(), i);
            }
        }
    };
    for (const auto& sw : switches)
    {
        addEdges(sw->GetObject<Node>());
    }
    for (const auto& nic : nics)
    {
        addEdges(nic->GetDevice()->GetNode());
    }
    // Breadth-first search from each NIC's host; a switch routes towards the host on
    // every port whose neighbour is one hop closer. Paths only transit switches.
    for (const auto& nic : nics)
    {
        uint32_t hostId = nic->GetDevice()->GetNode()->GetId();
        uint32_t dst = nic->GetAddress().Get();
        std::map<uint32_t, uint32_t> dist;
        std::deque<uint32_t> frontier{hostId};
        dist[hostId] = 0;
        while (!frontier.empty())
        {
            uint32_t u = frontier.front();
            frontier.pop_front();
            if (u != hostId && switchOf.find(u) == switchOf.end())
            {
                continue; // another host: traffic never transits hosts
            }
            for (const auto& [v, port] : adjacency[u])
            {
                if (dist.find(v) == dist.end())
                {
                    dist[v] = dist[u] + 1;
                    frontier.push_back(v);
                }
            }
        }
        for (const auto& [swId, sw] : switchOf)
        {
            auto it = dist.find(swId);
            if (it == dist.end())
            {
                continue;
            }
            for (const auto& [v, port] : adjacency[swId])
            {
                auto dv = dist.find(v);
                bool towardsHost = v == hostId || switchOf.count(v) > 0;
                if (towardsHost && dv != dist.end() && dv->second + 1 == it->second)
                {
                    sw->GetRoutingTable().AddRoute(dst, port);
                }
            }
        }
    }
}

Ptr<RoceChannel>
RoceHelper::FindLink(Ptr<Node> a, Ptr<Node> b)
{
    for (uint32_t i = 0; i < a->GetNDevices(); ++i)
    {
        Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(a->GetDevice(i));
        if (dev && dev->GetRoceChannel() && dev->GetRoceChannel()->GetPeer(dev)->GetNode() == b)
        {
            return dev->GetRoceChannel();
        }
    }
    return nullptr;
}

void
RoceHelper::ScheduleLinkState(Ptr<RoceChannel> link, bool up, Time at, Time convergence)
{
    NS_ABORT_MSG_IF(!link, "RoceHelper::ScheduleLinkState: no such link");
    auto apply = [link, up]() {
        NS_LOG_INFO("link between nodes " << link->GetRoceDevice(0)->GetNode()->GetId() << " and "
                                          << link->GetRoceDevice(1)->GetNode()->GetId()
                                          << (up ? " restored" : " failed"));
        link->SetUp(up);
        for (std::size_t end = 0; end < 2; ++end)
        {
            // A port whose cable is cut flushes its queues and drops what arrives for it
            // until the routes move away (its owner releases the buffer).
            Ptr<RoceNetDevice> dev = link->GetRoceDevice(end);
            for (uint8_t p = 0; p < RoceNetDevice::N_PRIORITIES; ++p)
            {
                if (!up)
                {
                    dev->DropQueued(p);
                }
                dev->SetDropArrivals(p, !up);
            }
        }
    };
    Simulator::Schedule(at - Simulator::Now(), apply);
    // The fabric's routing converges later: until then switches keep sending into the cut.
    Simulator::Schedule(at + convergence - Simulator::Now(),
                        [switches = m_switches, nics = m_nics]() {
                            NS_LOG_INFO("routes recomputed");
                            ComputeRoutes(switches, nics);
                        });
}

const std::vector<Ptr<RdmaNic>>&
RoceHelper::GetNics() const
{
    return m_nics;
}

const std::vector<Ptr<RoceSwitch>>&
RoceHelper::GetSwitches() const
{
    return m_switches;
}

int64_t
RoceHelper::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (const auto& nic : m_nics)
    {
        used += nic->AssignStreams(stream + used);
    }
    for (const auto& sw : m_switches)
    {
        used += sw->AssignStreams(stream + used);
    }
    return used;
}

bool
RoceHelper::CheckSwitchPorts(const std::vector<DataRate>& rates,
                             const std::vector<Time>& delays,
                             std::string* error) const
{
    Ptr<SharedBufferMmu> mmu = m_mmuFactory.Create<SharedBufferMmu>();
    const uint32_t maxFrame =
        m_deviceFactory.Create<RoceNetDevice>()->GetMtu() + roce::ETHERNET_HEADER_BYTES;
    std::vector<uint64_t> bps;
    for (const DataRate& r : rates)
    {
        bps.push_back(r.GetBitRate());
    }
    return mmu->CheckConfiguration(bps, delays, maxFrame, error);
}

bool
RoceHelper::CheckPcapPrefix(const std::string& prefix, std::string* error)
{
    return CheckOutputPrefix(prefix, error);
}

void
RoceHelper::EnablePcapInternal(std::string prefix,
                               Ptr<NetDevice> nd,
                               bool /* promiscuous: a point-to-point port sees only its frames */,
                               bool explicitFilename)
{
    Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(nd);
    if (!dev)
    {
        return;
    }
    PcapHelper pcapHelper;
    std::string filename =
        explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, dev);
    // PcapHelper::CreateFile would stamp in microseconds, where consecutive 400G frames
    // (84 ns apart) share a stamp: the wrapper's own NanosecMode writes the nanosecond
    // magic 0xa1b23c4d and stamps. Other attributes (CaptureSize) keep their defaults.
    ObjectFactory factory("ns3::PcapFileWrapper");
    factory.Set("NanosecMode", BooleanValue(true));
    Ptr<PcapFileWrapper> file = factory.Create<PcapFileWrapper>();
    file->Open(filename, std::ios::out);
    NS_ABORT_MSG_IF(file->Fail(), "RoceHelper: cannot write pcap file '" << filename << "'");
    file->Init(aifabric::PCAP_LINKTYPE_ETHERNET);
    NS_ABORT_MSG_IF(file->Fail(), "RoceHelper: cannot write pcap file '" << filename << "'");
    NS_LOG_INFO("capturing node " << dev->GetNode()->GetId() << " device " << dev->GetIfIndex()
                                  << " into " << filename);
    dev->TraceConnectWithoutContext("Sniffer", MakeBoundCallback(&WriteFrameWithIcrc, file));
    // The device may outlive the simulation (nothing else would close the file), and a
    // stream never closed loses its buffered tail: the last frames of the run.
    Simulator::ScheduleDestroy(&PcapFileWrapper::Close, file);
}

} // namespace ns3
