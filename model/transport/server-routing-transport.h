// SPDX-License-Identifier: GPL-2.0-only
#ifndef SERVER_ROUTING_TRANSPORT_H
#define SERVER_ROUTING_TRANSPORT_H

#include "ns3/collective-transport.h"
#include "ns3/comm-group.h"

#include <map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Routes each transfer by the servers of its two ranks: a transfer between GPUs of one
 * server goes to that server's scale-up carrier (NVLink through its NVSwitch), any
 * other to the scale-out carrier (RDMA over the RoCE fabric). Switch reductions and
 * multicasts (NVLS) go to the scale-up carrier of the server that holds all their ranks.
 *
 * The scale-up side is either one carrier per server, whose ranks are the server's local
 * GPU indices (an NvLinkTransport per server, as GpuClusterHelper builds), or one carrier
 * shared by every server that numbers the group's ranks itself (an IdealTransport
 * standing in for NVLink, say). The scale-out carrier numbers the group's ranks; without
 * one, transfers between servers are refused.
 *
 * For the cost model (DescribePath) the carriers' port ids are kept distinct: port p of
 * scale-up carrier i (of k) becomes 2 (p k + i), port p of the scale-out carrier 2 p + 1.
 */
class ServerRoutingTransport : public CollectiveTransport
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    ServerRoutingTransport();
    ~ServerRoutingTransport() override;

    /**
     * Route over one scale-up carrier per server.
     * \param group which ranks share a server, and each rank's local GPU index
     * \param scaleUp carrier of the i-th server of group.GetServers(); its ranks are the
     *        server's local GPU indices (null for a server of one rank, such as a CPU host)
     * \param scaleOut carrier between servers, numbering the group's ranks (null: none)
     */
    void Setup(const CommGroup& group,
               const std::vector<Ptr<CollectiveTransport>>& scaleUp,
               Ptr<CollectiveTransport> scaleOut);

    /**
     * Route over one scale-up carrier shared by every server.
     * \param group which ranks share a server
     * \param scaleUp carrier between GPUs of one server, numbering the group's ranks
     * \param scaleOut carrier between servers, numbering the group's ranks (null: none)
     */
    void SetupShared(const CommGroup& group,
                     Ptr<CollectiveTransport> scaleUp,
                     Ptr<CollectiveTransport> scaleOut);

    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t channel,
              DoneCallback done) override;
    uint32_t GetNRanks() const override;
    /**
     * The carrier the transfer takes describes it; port ids stay distinct across carriers.
     * \param src sending rank
     * \param dst receiving rank
     * \return the path's figures
     */
    CarrierPath DescribePath(uint32_t src, uint32_t dst) const override;
    /**
     * \param src sending rank
     * \param dst receiving rank
     * \return the server's carrier's answer for ranks of one server, the scale-out
     *         carrier's for the others
     */
    LinkHardware GetLinkHardware(uint32_t src, uint32_t dst) const override;
    /// \return the first scale-up carrier's (every server holds the same GPUs)
    uint32_t GetComputeCapability() const override;
    /**
     * The scale-up carrier's figures for members on one server; the scale-out carrier's
     * for an in-network aggregation group across servers.
     * \param members ranks of the multicast or aggregation group
     * \return the figures, ports in the order of members
     */
    CarrierSwitchPath DescribeSwitchPath(const std::vector<uint32_t>& members) const override;
    /**
     * \param ranks ranks of a call
     * \return the isolated carrier of their server's scale-up carrier (its NVSwitch)
     *         when one server holds them all, otherwise null: the scale-out carrier is
     *         shared by every server
     */
    Ptr<CollectiveTransport> GetIsolatedCarrier(const std::vector<uint32_t>& ranks) const override;
    /**
     * \param members ranks of a would-be multicast group
     * \return true when one server holds every member and its scale-up carrier reduces
     *         them in its switch
     */
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
    /**
     * \param members ranks of a would-be aggregation group
     * \return true when they are on several servers and the scale-out carrier aggregates
     *         them in the network (an InaTransport whose switches have room for their
     *         job); ranks on one server have their NVSwitch instead
     */
    bool CanAllReduceInNetwork(const std::vector<uint32_t>& members) const override;
    /**
     * In-network all-reduce over the scale-out carrier (which numbers the group's ranks).
     * \param members contributing ranks
     * \param bytes size of one copy
     * \param channel NCCL-style channel
     * \param done called when every member has the sum
     */
    void SwitchAllReduce(const std::vector<uint32_t>& members,
                         uint64_t bytes,
                         uint32_t channel,
                         DoneCallback done) override;
    /**
     * \param members ranks of a would-be aggregation group
     * \return true when they are on several servers and the scale-out carrier reduces
     *         and multicasts them in the network
     */
    bool CanReduceInNetwork(const std::vector<uint32_t>& members) const override;
    /**
     * In-network reduce over the scale-out carrier (which numbers the group's ranks).
     * \param members contributing ranks
     * \param dst rank that receives the sum
     * \param bytes size of one copy
     * \param channel NCCL-style channel
     * \param done called when dst has the sum
     */
    void NetworkReduce(const std::vector<uint32_t>& members,
                       uint32_t dst,
                       uint64_t bytes,
                       uint32_t channel,
                       DoneCallback done) override;
    /**
     * In-network multicast over the scale-out carrier.
     * \param src sending rank
     * \param members receiving ranks
     * \param bytes payload
     * \param channel NCCL-style channel
     * \param done called when every member has the last byte
     */
    void NetworkMulticast(uint32_t src,
                          const std::vector<uint32_t>& members,
                          uint64_t bytes,
                          uint32_t channel,
                          DoneCallback done) override;

    /// \return bytes handed to scale-up carriers so far (a switch reduction counts each
    ///         member's copy; a replayed call hands none over)
    uint64_t GetIntraServerBytes() const;
    /// \return bytes handed to the scale-out carrier so far
    uint64_t GetInterServerBytes() const;

  protected:
    void DoDispose() override;

  private:
    /// \return whether members span servers and a scale-out carrier could aggregate them
    bool AcrossServers(const std::vector<uint32_t>& members) const;

    /// Where the ranks of one server go on the scale-up side.
    struct ScaleUpHop
    {
        Ptr<CollectiveTransport> carrier; //!< null: the ranks are not on one server
        uint32_t index{0};                //!< the carrier's index, for port ids
        std::vector<uint32_t> ranks;      //!< the ranks as the carrier numbers them
    };

    /// \return the scale-up carrier and carrier ranks of ranks, or a null carrier if
    ///         they are not all (and in range) on one server
    ScaleUpHop ScaleUp(const std::vector<uint32_t>& ranks) const;
    /// \return the index in m_scaleUp of the carrier of rank's server
    uint32_t CarrierIndex(uint32_t rank) const;
    /// \return rank as its scale-up carrier numbers it
    uint32_t CarrierRank(uint32_t rank) const;
    /// \return the router's port id of port of scale-up carrier index
    uint64_t ScaleUpPort(uint32_t index, uint64_t port) const;
    /// Check the scale-out carrier and keep the group.
    void SetGroup(const CommGroup& group, Ptr<CollectiveTransport> scaleOut);

    CommGroup m_group;                               //!< ranks and their servers
    std::vector<Ptr<CollectiveTransport>> m_scaleUp; //!< per server, or one shared
    bool m_sharedScaleUp{false};                     //!< m_scaleUp[0] numbers group ranks
    std::map<uint32_t, uint32_t> m_carrierOfServer;  //!< server id -> index in m_scaleUp
    Ptr<CollectiveTransport> m_scaleOut;             //!< between servers (may be null)
    uint64_t m_intraBytes{0};                        //!< see GetIntraServerBytes
    uint64_t m_interBytes{0};                        //!< see GetInterServerBytes
};

} // namespace ns3

#endif // SERVER_ROUTING_TRANSPORT_H
