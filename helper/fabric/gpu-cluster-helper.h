// SPDX-License-Identifier: GPL-2.0-only
#ifndef GPU_CLUSTER_HELPER_H
#define GPU_CLUSTER_HELPER_H

#include "roce-topology-helper.h"

#include "ns3/comm-group.h"
#include "ns3/ina-helper.h"
#include "ns3/nv-switch-fabric.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-transport.h"
#include "ns3/server-routing-transport.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A DGX/HGX-like cluster: servers of gpusPerServer GPUs on one NVSwitch each (an
 * NvSwitchFabric with a preset), one RDMA NIC per GPU, NICs rail-aligned on a
 * rail-optimized RoCE fabric. Rank = server × gpusPerServer + GPU; CPU hosts (dedicated
 * parameter servers, one NIC each) follow as ranks of their own, each a server of one.
 */
struct GpuCluster
{
    CommGroup world;                             //!< every GPU (rank, server, local index),
                                                 //!< then every CPU host
    uint32_t cpuHosts{0};                        //!< CPU hosts: the last world ranks
    RoceTopology network;                        //!< scale-out: nics[rank]
    std::vector<Ptr<NvSwitchFabric>> nvSwitches; //!< scale-up: one per server
    Ptr<ServerRoutingTransport> transport;       //!< what a CollectiveEngine should use
    Ptr<RdmaTransport> scaleOut; //!< between servers, numbering the ranks (an InaTransport
                                 //!< when EnableInNetworkAggregation was called)
};

/// The scale-up fabrics' work, summed over a cluster's NVSwitches.
struct NvlinkWork
{
    uint64_t chunks{0};         //!< chunks delivered to GPUs, skipped ones included
    uint64_t skippedChunks{0};  //!< of those, the ones a fast-forward skipped
    uint64_t skips{0};          //!< the fast-forward's skips
    uint64_t replays{0};        //!< calls replayed (CollectiveEngine::ReplayIsolatedCalls)
    uint64_t replayedChunks{0}; //!< of the chunks, the replayed calls' ones
    uint64_t replayOverlaps{0}; //!< transfers posted while a replayed call held the switch
};

/**
 * \param cluster a cluster
 * \return its NVSwitches' chunks, skipped chunks, skips and replays so far
 */
NvlinkWork GetNvlinkWork(const GpuCluster& cluster);

/**
 * \ingroup ai-fabric
 * Builds GpuClusters: the scale-out fabric (through a RoceHelper), an NvSwitchFabric per
 * server and the ServerRoutingTransport over both. Writes no global defaults: the
 * fabrics take the attributes given to this helper (SetNvSwitchAttribute,
 * SetNvSwitchPreset) over the defaults, and a preset given to Build over those.
 */
class GpuClusterHelper
{
  public:
    /// \param roce the helper that builds (and keeps) the scale-out fabric
    explicit GpuClusterHelper(RoceHelper& roce);

    /**
     * Set an attribute of every NvSwitchFabric built afterwards.
     * \param name an NvSwitchFabric attribute ("LinkCount", "Latency", ...)
     * \param value its value
     */
    void SetNvSwitchAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Set a GPU preset's NVLink attributes (NvSwitchFabric::GetPresetAttributes) on every
     * NvSwitchFabric built afterwards; later SetNvSwitchAttribute calls win over it.
     * \param gpu a GpuPreset name
     * \return false, changing nothing, if gpu is not one
     */
    bool SetNvSwitchPreset(const std::string& gpu);

    /**
     * \param servers servers
     * \param gpusPerServer GPUs (and NICs) per server
     * \param nvlinkPreset a GpuPreset name ("A100", "H100", "H200", "B200"), applied to
     *        each fabric with NvSwitchFabric::ApplyPreset over its attributes; "" keeps
     *        the attributes the fabrics are built with (this helper's, over the
     *        defaults)
     * \param nicRate rate of every NIC and leaf port
     * \param spines spines of the rail-optimized fabric
     * \param oversubscription rail leaf downlink / uplink capacity
     * \param delay cable delay
     * \param pods pods of the rail-optimized fabric (each with its own rail leaves; the
     *        spines join them); must divide servers
     * \param cpuHosts hosts without GPUs (RoceTopologyHelper::RailOptimized): ranks
     *        servers × gpusPerServer + h, each a server of its own without NVSwitch
     * \return the cluster
     */
    GpuCluster Build(uint32_t servers,
                     uint32_t gpusPerServer,
                     const std::string& nvlinkPreset,
                     DataRate nicRate,
                     uint32_t spines,
                     double oversubscription,
                     Time delay,
                     uint32_t pods = 1,
                     uint32_t cpuHosts = 0);

    /**
     * The servers, NVSwitches and carriers of a cluster on a scale-out fabric built
     * elsewhere (a topology file, FatTree, Clos ...): host i is GPU i mod gpusPerServer of
     * server i / gpusPerServer, so network.nics[rank] serves rank.
     * \param network the RoCE fabric, one host per GPU (their number a multiple of
     *        gpusPerServer), then the CPU hosts
     * \param gpusPerServer GPUs per server, on one NVSwitch each
     * \param nvlinkPreset as for Build
     * \param cpuHosts the network's last hosts that are CPU hosts
     * \return the cluster
     */
    GpuCluster BuildOn(const RoceTopology& network,
                       uint32_t gpusPerServer,
                       const std::string& nvlinkPreset,
                       uint32_t cpuHosts = 0);

    /// Attribute settings: (full attribute name, value) pairs, for Config::SetDefault.
    typedef std::vector<std::pair<std::string, Ptr<const AttributeValue>>> AttributeList;

    /**
     * What a GPU preset means as defaults, for a program that makes it the default of the
     * objects it builds so that its users' settings (--ns3:: options, a scenario's
     * config) win over it: the NvSwitchFabric attributes of
     * NvSwitchFabric::GetPresetAttributes and the TransformerTraceGenerator's Gpu (its
     * compute figures). The program writes them:
     * `for (const auto& [name, value] : defaults) Config::SetDefault(name, *value);`
     * \param gpu a GpuPreset name
     * \param defaults set to the full attribute names ("ns3::NvSwitchFabric::LinkCount")
     *        and their values
     * \return false, leaving defaults alone, if gpu is not one
     */
    static bool GetGpuDefaults(const std::string& gpu, AttributeList* defaults);

    /**
     * Make the scale-out fabric of clusters built afterwards aggregation-capable: ina
     * installs an engine on every RoCE switch, and the scale-out carrier is an
     * InaTransport over ina's controller (so NCCL-style CollNet/NVLS+SHARP plans can run
     * their inter-server phase in the network).
     * \param ina the INA helper (kept by reference: it must outlive the builds)
     */
    void EnableInNetworkAggregation(InaHelper& ina);

    /**
     * The scale-out carrier of clusters built afterwards: RdmaTransport (the default, the
     * packet model) or a subclass of it, FlowTransport for the flow-level fabric.
     * In-network aggregation needs RdmaTransport's own (its InaTransport).
     * \param type a TypeId that is RdmaTransport or a child of it (aborts otherwise)
     */
    void SetScaleOutType(TypeId type);
    /**
     * Set an attribute of the scale-out carrier of clusters built afterwards.
     * \param name an attribute of the scale-out type ("QpsPerConnection", ...)
     * \param value its value
     */
    void SetScaleOutAttribute(const std::string& name, const AttributeValue& value);

  private:
    RoceHelper& m_roce;              //!< builds the scale-out fabric
    InaHelper* m_ina{nullptr};       //!< see EnableInNetworkAggregation
    ObjectFactory m_nvSwitchFactory; //!< makes each server's NvSwitchFabric
    ObjectFactory m_scaleOutFactory; //!< makes the scale-out carrier (without INA)
};

} // namespace ns3

#endif
