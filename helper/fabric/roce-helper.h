// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_HELPER_H
#define ROCE_HELPER_H

#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/trace-helper.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Builds RoCE fabrics: cables with a RoceNetDevice at each end, RDMA NICs on hosts,
 * switches with their MMU, connected queue pairs, shortest-path ECMP routes and pcap.
 *
 * \code
 *   RoceHelper roce;
 *   roce.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
 *   roce.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
 *   roce.SetCongestionControl("ns3::RoceDcqcn");
 *   NetDeviceContainer link = roce.Link(host, sw);
 *   Ptr<RdmaNic> nic = roce.InstallNic(link.Get(0), Ipv4Address("10.0.0.1"));
 *   roce.InstallSwitch(sw);
 *   roce.PopulateRoutes();
 * \endcode
 */
class RoceHelper : public PcapHelperForDevice
{
  public:
    RoceHelper();

    void SetDeviceAttribute(std::string name, const AttributeValue& value);
    void SetChannelAttribute(std::string name, const AttributeValue& value);
    void SetNicAttribute(std::string name, const AttributeValue& value);
    void SetSwitchAttribute(std::string name, const AttributeValue& value);
    void SetMmuAttribute(std::string name, const AttributeValue& value);
    /// Congestion control for NICs installed from now on, e.g. "ns3::RoceDcqcn".
    void SetCongestionControl(std::string typeName);
    /**
     * Check that the attributes of a congestion control (its defaults, as
     * Config::SetDefault and --ns3:: options left them) fit together
     * (RoceCongestionControl::CheckConfiguration).
     * \param typeName a TypeId derived from ns3::RoceCongestionControl
     * \param error set to a one-line reason when they do not
     * \return true if they fit
     */
    static bool CheckCongestionControl(const std::string& typeName, std::string* error);
    /**
     * Check, once the fabric is built, that switches can stamp in-band telemetry on
     * every port if the NICs' congestion control asks for it (HPCC): hop records name
     * 10, 25, 40, 50, 100, 200, 400 or 800 Gb/s only.
     * \param error set to one line naming the algorithm, the rate, the switch node and
     *        port, and the rates hop records can name
     * \return true if no telemetry is needed or every port's rate has a code
     */
    bool CheckTelemetryRates(std::string* error) const;

    /**
     * Cable a and b; returns {device on a, device on b}. When ns-3's distributed engine
     * is on (built with --enable-mpi, MpiInterface enabled), nodes of different system ids
     * get a RoceRemoteChannel with the channel attributes set here, as PointToPointHelper
     * does; otherwise every cable is a RoceChannel, whatever the system ids.
     */
    NetDeviceContainer Link(Ptr<Node> a, Ptr<Node> b);
    /// Same, with this link's own rate and delay.
    NetDeviceContainer Link(Ptr<Node> a, Ptr<Node> b, DataRate rate, Time delay);
    /// Put an RDMA NIC with this address on a host's port.
    Ptr<RdmaNic> InstallNic(Ptr<NetDevice> port, Ipv4Address address);
    /// Make node a switch over all its (already cabled) ports.
    Ptr<RoceSwitch> InstallSwitch(Ptr<Node> node);
    /// A connected queue pair between two NICs: {qp on a, qp on b}.
    static std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> Connect(Ptr<RdmaNic> a,
                                                                     Ptr<RdmaNic> b);
    /**
     * Fill every installed switch's table with all shortest paths to every installed NIC
     * (hop count; ties become ECMP sets). Call after the whole topology is cabled.
     */
    void PopulateRoutes();
    /**
     * Shortest-path ECMP routes over the cables that are up (RoceChannel::IsUp) for
     * these switches towards these NICs' hosts (what PopulateRoutes does for the
     * helper's own).
     * \param switches the switches whose tables are rebuilt
     * \param nics the destinations
     */
    static void ComputeRoutes(const std::vector<Ptr<RoceSwitch>>& switches,
                              const std::vector<Ptr<RdmaNic>>& nics);

    /**
     * \param a a node
     * \param b another node
     * \return the cable between them (the first, if parallel), or null
     */
    static Ptr<RoceChannel> FindLink(Ptr<Node> a, Ptr<Node> b);
    /**
     * Cut (up = false) or mend a cable at a given time, and recompute the routes of this
     * helper's switches convergence later (until then they keep using it). A cut loses
     * the frames on the cable, and both ports flush their queues and drop what is queued
     * for them while it is down; the transports recover the frames (go-back-N, RTO).
     * \param link the cable (FindLink)
     * \param up false to cut, true to mend
     * \param at when (absolute simulation time, not in the past)
     * \param convergence how long routing takes to react
     */
    void ScheduleLinkState(Ptr<RoceChannel> link, bool up, Time at, Time convergence);

    const std::vector<Ptr<RdmaNic>>& GetNics() const;
    const std::vector<Ptr<RoceSwitch>>& GetSwitches() const;

    /**
     * Fix the random streams of every NIC and switch installed by this helper.
     * \return the number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * Check that pcap files can be created with this prefix: it is not empty and its
     * folder exists and is writable. Programs call it on their --pcap option before
     * building anything, so that a bad prefix is one line and exit status 1 rather than
     * an abort when the first file is opened.
     * \param prefix the file name prefix, possibly with a folder ("out/run1")
     * \param error set to the reason (naming the folder) when files cannot be created
     * \return true if files with this prefix can be created
     */
    static bool CheckPcapPrefix(const std::string& prefix, std::string* error);

    /**
     * Whether a switch built by this helper could have ports of these rates and cable
     * delays: its MMU (with this helper's MMU attributes) must find room for every port's
     * reserves and PFC headroom (SharedBufferMmu::CheckConfiguration). Readers of a
     * user's topology ask before they build, instead of the MMU's abort.
     * \param rates each port's link rate
     * \param delays each port's cable delay
     * \param error set to the reason when not
     * \return true if the switch can be built
     */
    bool CheckSwitchPorts(const std::vector<DataRate>& rates,
                          const std::vector<Time>& delays,
                          std::string* error) const;

  private:
    NetDeviceContainer Link(Ptr<Node> a,
                            Ptr<Node> b,
                            const ObjectFactory& deviceFactory,
                            const ObjectFactory& channelFactory);
    /**
     * Capture one RoceNetDevice (other devices are ignored) into a DLT_EN10MB file with
     * nanosecond timestamps. The file is closed, and so complete on disk, at
     * Simulator::Destroy(). Aborts if the file cannot be created (see CheckPcapPrefix).
     * \param prefix file name prefix, or the file name if explicitFilename
     * \param nd the device
     * \param promiscuous ignored: a point-to-point port sees only its own frames
     * \param explicitFilename use prefix as the whole file name
     */
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;

    ObjectFactory m_deviceFactory;
    ObjectFactory m_channelFactory;
    ObjectFactory m_nicFactory;
    ObjectFactory m_switchFactory;
    ObjectFactory m_mmuFactory;
    std::vector<Ptr<RdmaNic>> m_nics;
    std::vector<Ptr<RoceSwitch>> m_switches;
};

} // namespace ns3

#endif
