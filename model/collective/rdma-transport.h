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
    static TypeId GetTypeId();
    RdmaTransport();
    ~RdmaTransport() override;

    /// NIC of each rank, rank 0 first. Ranks may share a NIC.
    void SetNics(const std::vector<Ptr<RdmaNic>>& nics);

    void Send(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t channel, DoneCallback done) override;
    uint32_t GetNRanks() const override;
    /// Connections (queue pair pairs) opened so far.
    uint32_t GetNConnections() const;

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
    static void Invoke(DoneCallback done);
    static void MessageReceived(Connection* connection, Ptr<RdmaQueuePair>, uint64_t, uint64_t);

    std::vector<Ptr<RdmaNic>> m_nics;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::unique_ptr<Connection>> m_connections;
};

} // namespace ns3

#endif
