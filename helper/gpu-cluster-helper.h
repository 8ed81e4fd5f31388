// SPDX-License-Identifier: GPL-2.0-only
#ifndef GPU_CLUSTER_HELPER_H
#define GPU_CLUSTER_HELPER_H

#include "roce-topology-helper.h"

#include "ns3/comm-group.h"
#include "ns3/nvlink-fabric.h"
#include "ns3/server-aware-transport.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Routes transfers between GPUs of one server to that server's NVSwitch fabric, with
 * global ranks translated to the server's local GPU indices.
 */
class PerServerTransport : public CollectiveTransport
{
  public:
    static TypeId GetTypeId();
    void Setup(const CommGroup& group, const std::vector<Ptr<CollectiveTransport>>& servers);
    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t channel,
              DoneCallback done) override;
    uint32_t GetNRanks() const override;
    /// The server's carrier describes it; ports of different servers stay distinct.
    CarrierPath DescribePath(uint32_t src, uint32_t dst) const override;
    /// The server's carrier describes it, as DescribePath.
    CarrierSwitchPath DescribeSwitchPath(const std::vector<uint32_t>& members) const override;
    bool CanReduceInSwitch(const std::vector<uint32_t>& members) const override;
    void SwitchReduce(const std::vector<uint32_t>& members,
                      uint32_t dst,
                      uint64_t bytes,
                      uint32_t channel,
                      DoneCallback done) override;
    void SwitchMulticast(uint32_t src,
                         const std::vector<uint32_t>& members,
                         uint64_t bytes,
                         uint32_t channel,
                         DoneCallback done) override;

  protected:
    void DoDispose() override;

  private:
    /// \return the server's carrier and the members' local indices, or a null carrier
    /// if the members do not share one server
    std::pair<Ptr<CollectiveTransport>, std::vector<uint32_t>> Local(
        const std::vector<uint32_t>& members) const;

    CommGroup m_group;
    std::vector<Ptr<CollectiveTransport>> m_servers;
    std::map<uint32_t, uint32_t> m_carrierOfServer; //!< server id -> index in m_servers
};

/**
 * \ingroup ai-fabric
 * A DGX/HGX-like cluster: servers of gpusPerServer GPUs on one NVSwitch each (an
 * NvSwitchFabric with a preset), one RDMA NIC per GPU, NICs rail-aligned on a
 * rail-optimized RoCE fabric. Rank = server × gpusPerServer + GPU.
 */
struct GpuCluster
{
    CommGroup world;
    RoceTopology network;                        //!< scale-out: nics[rank]
    std::vector<Ptr<NvSwitchFabric>> nvSwitches; //!< scale-up: one per server
    Ptr<ServerAwareTransport> transport;         //!< what a CollectiveEngine should use
};

class GpuClusterHelper
{
  public:
    explicit GpuClusterHelper(RoceHelper& roce);

    /**
     * \param servers servers
     * \param gpusPerServer GPUs (and NICs) per server
     * \param nvlinkPreset a GpuPreset name ("A100", "H100", "H200", "B200"), applied to
     *        each fabric with NvSwitchFabric::ApplyPreset over its attributes; "" keeps
     *        the NvSwitchFabric defaults (e.g. a preset made the default with
     *        SetGpuDefaults, then overridden)
     * \param nicRate rate of every NIC and leaf port
     * \param spines spines of the rail-optimized fabric
     * \param oversubscription rail leaf downlink / uplink capacity
     * \param delay cable delay
     * \param pods pods of the rail-optimized fabric (each with its own rail leaves; the
     *        spines join them); must divide servers
     */
    GpuCluster Build(uint32_t servers,
                     uint32_t gpusPerServer,
                     const std::string& nvlinkPreset,
                     DataRate nicRate,
                     uint32_t spines,
                     double oversubscription,
                     Time delay,
                     uint32_t pods = 1);

    /**
     * The servers, NVSwitches and carriers of a cluster on a scale-out fabric built
     * elsewhere (a topology file, FatTree, Clos ...): host i is GPU i mod gpusPerServer of
     * server i / gpusPerServer, so network.nics[rank] serves rank.
     * \param network the RoCE fabric, one host per GPU (its size a multiple of gpusPerServer)
     * \param gpusPerServer GPUs per server, on one NVSwitch each
     * \param nvlinkPreset as for Build
     */
    GpuCluster BuildOn(const RoceTopology& network,
                       uint32_t gpusPerServer,
                       const std::string& nvlinkPreset);

    /**
     * Make a GPU preset the default of the objects built afterwards, so that settings
     * made after this call (Config::SetDefault, --ns3:: options) win over it: the
     * NvSwitchFabric's LinkCount, PerLinkRate, CreditChunks and NvlsSupported, and the
     * TransformerTraceGenerator's Gpu (its compute figures).
     * \param gpu a GpuPreset name
     * \return false, changing nothing, if gpu is not one
     */
    static bool SetGpuDefaults(const std::string& gpu);

  private:
    RoceHelper& m_roce;
};

} // namespace ns3

#endif
