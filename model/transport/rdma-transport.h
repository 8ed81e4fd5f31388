// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_TRANSPORT_H
#define RDMA_TRANSPORT_H

#include "collective-transport.h"

#include "ns3/rdma-nic.h"

#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The collective carrier over the RoCE fabric: one RDMA WRITE per transfer.
 *
 * Rank r sends through NIC r. A reliable connection (a pair of queue pairs) is opened on
 * first use for each (source, destination, channel) and reused afterwards, as NCCL keeps
 * its connections per peer and channel. A transfer is done when the receiver's queue
 * pair reports the message complete (its last byte arrived in order); messages of one
 * connection complete in order, so their callbacks wait in a FIFO.
 */
class RdmaTransport : public CollectiveTransport
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RdmaTransport();
    ~RdmaTransport() override;

    /**
     * Set the NIC of each rank.
     * \param nics NIC of each rank, rank 0 first; ranks may share a NIC
     */
    void SetNics(const std::vector<Ptr<RdmaNic>>& nics);

    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t channel,
              DoneCallback done) override;
    uint32_t GetNRanks() const override;
    /**
     * Ports are the NICs (two ranks on one NIC share them); the rate is the slower NIC's
     * payload rate (MTU payload over its wire frame); the latency is the cable delays of
     * the shortest path of links between the two NICs' nodes (the path ECMP routes take),
     * with one packet stored and forwarded at every switch on it.
     * \param src sending rank
     * \param dst receiving rank
     * \return the path's figures
     */
    CarrierPath DescribePath(uint32_t src, uint32_t dst) const override;
    /// \return connections (queue pair pairs) opened so far
    uint32_t GetNConnections() const;
    /// \param rank a rank \return its NIC
    Ptr<RdmaNic> GetNic(uint32_t rank) const;

  protected:
    void DoDispose() override;

  private:
    struct Connection
    {
        Ptr<RdmaQueuePair> sender;
        Ptr<RdmaQueuePair> receiver;
        std::deque<DoneCallback> pending;
    };

    Connection& GetConnection(uint32_t src, uint32_t dst, uint32_t channel);
    /// Unhook every connection's receive callback and forget the connections.
    void CloseConnections();
    static void Invoke(DoneCallback done);
    static void MessageReceived(Connection* connection, Ptr<RdmaQueuePair>, uint64_t, uint64_t);

    /// Links and summed cable delay from one node to every node it reaches.
    struct Reach
    {
        std::map<uint32_t, std::pair<uint32_t, Time>> byNode; //!< node id -> (links, delay)
    };

    /// \return the reach of node (computed once, breadth first over the RoCE channels)
    const Reach& GetReach(Ptr<Node> node) const;

    std::vector<Ptr<RdmaNic>> m_nics;
    mutable std::map<uint32_t, Reach> m_reach; //!< cache of GetReach, by node id
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::unique_ptr<Connection>> m_connections;
};

} // namespace ns3

#endif
