// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-monitor.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/log.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricMonitor");
NS_OBJECT_ENSURE_REGISTERED(FabricMonitor);

TypeId
FabricMonitor::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricMonitor")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricMonitor>()
                            .AddAttribute("SampleInterval",
                                          "Time between samples of link utilisation and queues.",
                                          TimeValue(MicroSeconds(20)),
                                          MakeTimeAccessor(&FabricMonitor::m_interval),
                                          MakeTimeChecker(NanoSeconds(100), Seconds(10)))
                            .AddAttribute("IdleSleep",
                                          "Stop sampling while no link sends, every queue is "
                                          "empty and no fast-forwarded stream counts, and "
                                          "resume when a device sends, queues a frame or "
                                          "gets a stream (samples, "
                                          "totals and peaks unchanged; idle runs of samples "
                                          "kept as their first and last). False samples "
                                          "throughout, one event per interval.",
                                          BooleanValue(true),
                                          MakeBooleanAccessor(&FabricMonitor::m_idleSleep),
                                          MakeBooleanChecker())
                            .AddAttribute("ActiveLinksOnly",
                                          "A sample reads only the links that sent, queued "
                                          "or had a fast-forward stream since the last one "
                                          "(the others add zeros; samples unchanged). False "
                                          "reads every link at every sample.",
                                          BooleanValue(true),
                                          MakeBooleanAccessor(&FabricMonitor::m_activeOnly),
                                          MakeBooleanChecker());
    return tid;
}

void
FabricMonitor::DoDispose()
{
    Disarm();
    for (const Connection& c : m_connections)
    {
        c.sw->TraceDisconnectWithoutContext("QueueLength", c.queue);
        c.sw->TraceDisconnectWithoutContext("PfcSent", c.pfc);
    }
    m_connections.clear();
    m_portLink.clear();
    m_links.clear();
    m_switches.clear();
    m_keepGoing = nullptr;
    Object::DoDispose();
}

std::string
FabricMonitor::HostName(uint32_t i)
{
    return "nic" + std::to_string(i);
}

std::string
FabricMonitor::SwitchName(uint32_t j)
{
    return "sw" + std::to_string(j);
}

Ptr<Node>
FabricMonitor::FindNode(const RoceTopology& topo, const std::string& name)
{
    for (uint32_t i = 0; i < topo.hosts.GetN(); ++i)
    {
        if (HostName(i) == name)
        {
            return topo.hosts.Get(i);
        }
    }
    for (uint32_t j = 0; j < topo.switches.GetN(); ++j)
    {
        if (SwitchName(j) == name)
        {
            return topo.switches.Get(j);
        }
    }
    return nullptr;
}

namespace
{

/// The device at the other end of dev's cable, or null.
Ptr<NetDevice>
PeerOf(Ptr<NetDevice> dev)
{
    Ptr<Channel> ch = dev->GetChannel();
    if (!ch)
    {
        return nullptr;
    }
    for (std::size_t k = 0; k < ch->GetNDevices(); ++k)
    {
        if (ch->GetDevice(k) != dev)
        {
            return ch->GetDevice(k);
        }
    }
    return nullptr;
}

/// The switches with a host neighbour (the leaves), by node id.
std::map<uint32_t, bool>
FindLeaves(const RoceTopology& topo, const std::map<uint32_t, bool>& isHost)
{
    std::map<uint32_t, bool> isLeaf;
    for (uint32_t j = 0; j < topo.switchObjects.size(); ++j)
    {
        Ptr<RoceSwitch> sw = topo.switchObjects[j];
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            Ptr<NetDevice> peer = PeerOf(sw->GetPort(p));
            if (peer && isHost.count(peer->GetNode()->GetId()))
            {
                isLeaf[sw->GetPort(p)->GetNode()->GetId()] = true;
            }
        }
    }
    return isLeaf;
}

/// The class of the link from node id from to node id to (FabricMonitor::Link::cls).
std::string
LinkClass(const std::map<uint32_t, bool>& isHost,
          const std::map<uint32_t, bool>& isLeaf,
          uint32_t from,
          uint32_t to)
{
    if (isHost.count(from))
    {
        return "nic-up";
    }
    if (isHost.count(to))
    {
        return "leaf-down";
    }
    if (isLeaf.count(from) && !isLeaf.count(to))
    {
        return "leaf-up";
    }
    if (!isLeaf.count(from) && isLeaf.count(to))
    {
        return "spine-down";
    }
    return "switch";
}

} // namespace

void
FabricMonitor::Attach(const RoceTopology& topo)
{
    std::map<uint32_t, std::string> nameOfNode;
    std::map<uint32_t, bool> isHost;
    for (uint32_t i = 0; i < topo.hosts.GetN(); ++i)
    {
        nameOfNode[topo.hosts.Get(i)->GetId()] = HostName(i);
        isHost[topo.hosts.Get(i)->GetId()] = true;
    }
    for (uint32_t j = 0; j < topo.switches.GetN(); ++j)
    {
        nameOfNode[topo.switches.Get(j)->GetId()] = SwitchName(j);
    }
    // A switch with a host neighbour is a leaf.
    const std::map<uint32_t, bool> isLeaf = FindLeaves(topo, isHost);
    auto addLink = [&](Ptr<RoceNetDevice> dev, Ptr<RoceSwitch> sw, uint32_t port) {
        Ptr<NetDevice> peer = PeerOf(dev);
        if (!peer)
        {
            return;
        }
        Link l;
        const uint32_t from = dev->GetNode()->GetId();
        const uint32_t to = peer->GetNode()->GetId();
        l.from = nameOfNode[from];
        l.to = nameOfNode[to];
        l.cls = LinkClass(isHost, isLeaf, from, to);
        l.device = dev;
        l.sw = sw;
        l.port = port;
        auto it = std::find(m_classes.begin(), m_classes.end(), l.cls);
        if (it == m_classes.end())
        {
            m_classes.push_back(l.cls);
            it = m_classes.end() - 1;
        }
        m_classOf.push_back(static_cast<uint32_t>(it - m_classes.begin()));
        m_links.push_back(l);
    };
    for (uint32_t i = 0; i < topo.nics.size(); ++i)
    {
        addLink(topo.nics[i]->GetDevice(), nullptr, 0);
    }
    for (uint32_t j = 0; j < topo.switchObjects.size(); ++j)
    {
        Ptr<RoceSwitch> sw = topo.switchObjects[j];
        const std::string name = SwitchName(j);
        m_switches.emplace_back(name, sw);
        // Port -> link, -1 for a port without a cable.
        std::vector<int32_t> portLink(sw->GetNPorts(), -1);
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            const size_t before = m_links.size();
            addLink(sw->GetPort(p), sw, p);
            if (m_links.size() > before)
            {
                portLink[p] = static_cast<int32_t>(before);
            }
        }
        m_portLink.push_back(portLink);
        ConnectSwitch(j, sw, name);
    }
}

void
FabricMonitor::ConnectSwitch(uint32_t j, Ptr<RoceSwitch> sw, const std::string& name)
{
    FabricMonitor* self = this; // disconnected in DoDispose
    Connection c;
    c.sw = sw;
    c.queue = Callback<void, uint32_t, uint8_t, uint32_t>(
        [self, j](uint32_t port, uint8_t priority, uint32_t bytes) {
            self->OnQueue(j, port, priority, bytes);
        });
    c.pfc = Callback<void, uint32_t, uint8_t, uint16_t>(
        [self, j, name](uint32_t port, uint8_t priority, uint16_t quanta) {
            self->OnPfc(name, j, port, priority, quanta);
        });
    sw->TraceConnectWithoutContext("QueueLength", c.queue);
    sw->TraceConnectWithoutContext("PfcSent", c.pfc);
    m_connections.push_back(c);
}

int32_t
FabricMonitor::LinkOf(uint32_t sw, uint32_t port) const
{
    if (sw >= m_portLink.size() || port >= m_portLink[sw].size())
    {
        return -1;
    }
    return m_portLink[sw][port];
}

void
FabricMonitor::OnQueue(uint32_t sw, uint32_t port, uint8_t, uint32_t bytes)
{
    const int32_t link = LinkOf(sw, port);
    if (link >= 0)
    {
        m_links[link].maxQueueBytes = std::max(m_links[link].maxQueueBytes, bytes);
    }
}

void
FabricMonitor::OnPfc(const std::string& sw,
                     uint32_t swIndex,
                     uint32_t port,
                     uint8_t priority,
                     uint16_t quanta)
{
    m_pfc.push_back({Simulator::Now(), sw, port, priority, quanta});
    const int32_t link = LinkOf(swIndex, port);
    if (quanta != 0 && link >= 0)
    {
        ++m_links[link].pfcSent;
    }
}

void
FabricMonitor::Start(std::function<bool()> keepGoing)
{
    m_keepGoing = std::move(keepGoing);
    m_start = Simulator::Now();
    m_last = m_start;
    Disarm(); // a second Start: no notification of the first may stay on a device
    m_lastBytes.resize(m_links.size());
    m_classCount.assign(m_classes.size(), 0);
    m_active.clear();
    m_isActive.assign(m_links.size(), 1);
    m_activeSorted = true;
    m_activity.clear();
    FabricMonitor* self = this; // Disarm cancels these before the monitor goes
    for (uint32_t i = 0; i < m_links.size(); ++i)
    {
        m_links[i].baseBytes = m_links[i].device->GetTxBytes();
        m_links[i].baseFrames = m_links[i].device->GetTxFrames();
        m_links[i].baseSkippedFrames = m_links[i].device->GetSkippedTxFrames();
        m_lastBytes[i] = m_links[i].baseBytes;
        ++m_classCount[m_classOf[i]];
        m_active.push_back(i); // the first sample reads every link
        m_activity.emplace_back([self, i]() { self->OnActivity(i); });
    }
    Simulator::Schedule(m_interval, &FabricMonitor::TakeSample, Ptr<FabricMonitor>(this));
}

void
FabricMonitor::Stop()
{
    NS_LOG_FUNCTION(this);
    if (m_stopped || m_finished)
    {
        return;
    }
    m_stopped = true;
    if (m_asleep)
    {
        // The samples the idle time owes end here: the last sample time before now gets
        // its zero sample, and the next one, if the simulation runs on, is the last.
        NS_LOG_LOGIC("stopped while asleep");
        m_asleep = false;
        CatchUp();
        ScheduleNextSample();
    }
}

void
FabricMonitor::ScheduleNextSample()
{
    // Sample times are start + k x interval, as if the monitor had sampled throughout: the
    // first one not before now and after the last sample taken.
    const Time now = Simulator::Now();
    const int64_t step = m_interval.GetTimeStep();
    const int64_t k = ((now - m_start).GetTimeStep() + step - 1) / step;
    Time next = m_start + TimeStep(k * step);
    if (next <= m_last)
    {
        next = m_last + m_interval;
    }
    Simulator::Schedule(next - now, &FabricMonitor::TakeSample, Ptr<FabricMonitor>(this));
}

void
FabricMonitor::CatchUp()
{
    const Time now = Simulator::Now();
    if (now <= m_last)
    {
        return;
    }
    const int64_t step = m_interval.GetTimeStep();
    const int64_t k = ((now - m_start).GetTimeStep() - 1) / step;
    const Time last = m_start + TimeStep(k * step); // the last sample time before now
    if (last <= m_last)
    {
        return;
    }
    Sample s;
    s.time = last;
    s.utilisation.assign(m_classes.size(), 0.0);
    m_samples.push_back(std::move(s));
    m_last = last;
}

void
FabricMonitor::Sleep()
{
    NS_LOG_LOGIC("idle at " << Simulator::Now().As(Time::US)
                            << ": sleeping until a device is active");
    m_asleep = true;
    ++m_sleeps;
    if (!m_activeOnly)
    {
        // Every link is quiet; any of them wakes the monitor.
        for (const uint32_t i : m_active)
        {
            Deactivate(i);
        }
        m_active.clear();
    }
}

void
FabricMonitor::Wake()
{
    NS_LOG_LOGIC("woken at " << Simulator::Now().As(Time::US));
    m_asleep = false;
    if (!m_activeOnly)
    {
        // Read every link again.
        Disarm();
        m_active.resize(m_links.size());
        std::iota(m_active.begin(), m_active.end(), 0u);
        m_activeSorted = true;
    }
    CatchUp();
    ScheduleNextSample();
}

void
FabricMonitor::OnActivity(uint32_t link)
{
    NS_LOG_LOGIC("link " << m_links[link].from << "->" << m_links[link].to << " active at "
                         << Simulator::Now().As(Time::US));
    m_isActive[link] = 1;
    if (!m_active.empty() && m_active.back() > link)
    {
        m_activeSorted = false;
    }
    m_active.push_back(link);
    if (m_asleep)
    {
        Wake();
    }
}

void
FabricMonitor::Deactivate(uint32_t link)
{
    m_isActive[link] = 0;
    m_links[link].device->NotifyOnActivity(m_activity[link]);
}

void
FabricMonitor::Disarm()
{
    for (uint32_t i = 0; i < m_isActive.size() && i < m_activity.size(); ++i)
    {
        if (!m_isActive[i])
        {
            m_links[i].device->CancelActivityNotification(m_activity[i]);
            m_isActive[i] = 1;
        }
    }
}

uint64_t
FabricMonitor::GetSleeps() const
{
    return m_sleeps;
}

uint64_t
FabricMonitor::GetLinkReads() const
{
    return m_linkReads;
}

void
FabricMonitor::TakeSample()
{
    if (m_finished)
    {
        return;
    }
    const Time now = Simulator::Now();
    const double dt = (now - m_last).GetSeconds();
    bool idle = false; // nothing sent on any link and every queue empty since the last
    if (dt > 0)
    {
        Sample s;
        s.time = now;
        std::vector<double> sum(m_classes.size(), 0);
        // Inactive links add zeros: the sums over the active ones in link order are the
        // sums over all.
        if (!m_activeSorted)
        {
            std::sort(m_active.begin(), m_active.end());
            m_activeSorted = true;
        }
        size_t kept = 0;
        idle = true;
        m_linkReads += m_active.size();
        for (const uint32_t i : m_active)
        {
            Link& l = m_links[i];
            const uint64_t tx = l.device->GetTxBytes();
            const bool sent = tx != m_lastBytes[i];
            const double util = static_cast<double>(tx - m_lastBytes[i]) * 8.0 /
                                (static_cast<double>(l.device->GetDataRate().GetBitRate()) * dt);
            m_lastBytes[i] = tx;
            l.peakUtilisation = std::max(l.peakUtilisation, util);
            sum[m_classOf[i]] += util;
            uint32_t queued = 0;
            for (uint8_t p = 0; p < 8; ++p)
            {
                queued += l.device->GetQueueBytes(p);
            }
            s.maxQueueBytes = std::max(s.maxQueueBytes, queued);
            l.maxQueueBytes = std::max(l.maxQueueBytes, queued); // NIC ports have no trace
            const bool quiet = !sent && queued == 0 && !l.device->HasSkippedFramesPending();
            idle = idle && quiet;
            if (quiet && m_activeOnly)
            {
                Deactivate(i);
            }
            else
            {
                m_active[kept++] = i;
            }
        }
        m_active.resize(kept);
        for (size_t c = 0; c < sum.size(); ++c)
        {
            s.utilisation.push_back(m_classCount[c] ? sum[c] / m_classCount[c] : 0);
        }
        m_samples.push_back(std::move(s));
        m_last = now;
    }
    if (m_stopped || !(m_keepGoing && m_keepGoing()))
    {
        return; // the last sample
    }
    if (idle && m_idleSleep)
    {
        Sleep();
        return;
    }
    Simulator::Schedule(m_interval, &FabricMonitor::TakeSample, Ptr<FabricMonitor>(this));
}

void
FabricMonitor::Finish()
{
    // No sample here: the simulator's clock may have run past the workload (timers of
    // idle queue pairs), and the samples stop with the workload.
    if (m_asleep)
    {
        // The run ended while nothing moved: the samples owed up to now.
        m_asleep = false;
        CatchUp();
    }
    Disarm();
    m_finished = true;
    for (Link& l : m_links)
    {
        l.bytes = l.device->GetTxBytes() - l.baseBytes;
        l.frames = l.device->GetTxFrames() - l.baseFrames;
        l.skippedFrames = l.device->GetSkippedTxFrames() - l.baseSkippedFrames;
        l.ecnMarks = l.sw ? l.sw->GetEcnMarks(l.port) : 0;
    }
}

const std::vector<FabricMonitor::Link>&
FabricMonitor::GetLinks() const
{
    return m_links;
}

const std::vector<FabricMonitor::PfcEvent>&
FabricMonitor::GetPfcEvents() const
{
    return m_pfc;
}

const std::vector<FabricMonitor::Sample>&
FabricMonitor::GetSamples() const
{
    return m_samples;
}

const std::vector<std::string>&
FabricMonitor::GetClasses() const
{
    return m_classes;
}

const std::vector<std::pair<std::string, Ptr<RoceSwitch>>>&
FabricMonitor::GetSwitches() const
{
    return m_switches;
}

Time
FabricMonitor::GetDuration() const
{
    return m_last - m_start;
}

void
FabricMonitor::WriteLinksCsv(std::ostream& os) const
{
    const double secs = GetDuration().GetSeconds();
    os << "from,to,class,bytes,mean_util,peak_util,max_queue_bytes,pfc_pauses_sent,ecn_marks\n";
    for (const Link& l : m_links)
    {
        const double mean =
            secs > 0 ? l.bytes * 8.0 / (l.device->GetDataRate().GetBitRate() * secs) : 0;
        os << l.from << "," << l.to << "," << l.cls << "," << l.bytes << "," << mean << ","
           << l.peakUtilisation << "," << l.maxQueueBytes << "," << l.pfcSent << "," << l.ecnMarks
           << "\n";
    }
}

void
FabricMonitor::WritePfcCsv(std::ostream& os) const
{
    os << "time_us,switch,port,priority,quanta,kind\n" << std::fixed << std::setprecision(3);
    for (const PfcEvent& e : m_pfc)
    {
        os << e.time.GetSeconds() * 1e6 << "," << e.sw << "," << e.port << ","
           << static_cast<uint32_t>(e.priority) << "," << e.quanta << ","
           << (e.quanta ? "pause" : "resume") << "\n";
    }
}

void
FabricMonitor::WriteSamples(std::ostream& os) const
{
    os << "# time_us";
    for (const std::string& c : m_classes)
    {
        os << " " << c;
    }
    os << " max_queue_KiB\n";
    for (const Sample& s : m_samples)
    {
        os << s.time.GetSeconds() * 1e6;
        for (double u : s.utilisation)
        {
            os << " " << u;
        }
        os << " " << s.maxQueueBytes / 1024.0 << "\n";
    }
}

} // namespace ns3
