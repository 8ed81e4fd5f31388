// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_TRANSPORT_H
#define RDMA_TRANSPORT_H

#include "collective-transport.h"

#include "ns3/rdma-nic.h"

#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The collective carrier over the RoCE fabric: RDMA WRITEs.
 *
 * Rank r sends through NIC r. A connection is opened on first use for each (source,
 * destination, channel) and reused afterwards, as NCCL keeps its connections per peer and
 * channel. A connection has QpsPerConnection reliable connections (pairs of queue pairs,
 * NCCL_IB_QPS_PER_CONNECTION), each with its own UDP source port, so ECMP may route them
 * apart. A transfer is one WRITE per queue pair that carries part of it: with
 * SplitDataOnQps (NCCL_IB_SPLIT_DATA_ON_QPS=1) its bytes are split evenly over all of them
 * (shares rounded up to 128 B); without (NCCL's default) NCCL posts requests of RequestBytes
 * round robin over the queue pairs of the connection, and each queue pair carries the sum
 * of its requests. A transfer is done when the receiver's queue pairs report every part
 * complete (its last byte arrived in order); messages of one queue pair complete in order,
 * so the parts wait in a FIFO per queue pair.
 */
class RdmaTransport : public CollectiveTransport
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    /// The most QpsPerConnection takes (NCCL's limit, NCCL_IB_MAX_QPS).
    static constexpr uint32_t MAX_QPS_PER_CONNECTION = 128;
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
    /// \return connections opened so far (each of QpsPerConnection queue pair pairs)
    uint32_t GetNConnections() const;
    /**
     * How a transfer is spread over the queue pairs of its connection.
     * \param bytes the transfer's bytes
     * \param nQps queue pairs of the connection
     * \param split SplitDataOnQps
     * \param requestBytes RequestBytes (without split)
     * \param nextRequest the connection's next request number (without split; advanced
     *        by the requests of this transfer)
     * \return bytes per queue pair, nQps entries
     */
    static std::vector<uint64_t> SpreadOverQps(uint64_t bytes,
                                               uint32_t nQps,
                                               bool split,
                                               uint64_t requestBytes,
                                               uint64_t& nextRequest);
    /**
     * \param src sending rank
     * \param dst receiving rank
     * \param channel the channel
     * \return the sending queue pairs of that connection (empty if not opened yet)
     */
    std::vector<Ptr<RdmaQueuePair>> GetSenders(uint32_t src, uint32_t dst, uint32_t channel) const;
    /// \param rank a rank \return its NIC
    Ptr<RdmaNic> GetNic(uint32_t rank) const;

  protected:
    void DoDispose() override;

    /**
     * What Send does before anything crosses the fabric: it aborts on ranks it does not
     * connect or that share a NIC, and completes a transfer that moves nothing (no bytes,
     * or a rank to itself) at once.
     * \param src sending rank \param dst receiving rank \param bytes payload bytes
     * \param done the transfer's callback (scheduled now when it completes so)
     * \return true if the transfer was completed so
     */
    bool CompletesLocally(uint32_t src, uint32_t dst, uint64_t bytes, const DoneCallback& done) const;
    /**
     * A transfer's parts over the queue pairs of a connection (SpreadOverQps with this
     * carrier's attributes), in the order NCCL posts them: the queue pair of the first
     * request first.
     * \param bytes the transfer's bytes
     * \param nextRequest the connection's next request number (advanced)
     * \return (queue pair index, bytes) of every part with bytes
     */
    std::vector<std::pair<uint32_t, uint64_t>> SplitTransfer(uint64_t bytes,
                                                             uint64_t& nextRequest) const;
    /// \return queue pairs per connection (QpsPerConnection)
    uint32_t GetQpsPerConnection() const;
    /**
     * \param rank a sending rank
     * \param rate a link's bytes per second on the wire
     * \return the payload bytes per second of that link for the rank's full-MTU frames
     */
    double PayloadRate(uint32_t rank, double rate) const;

  private:
    /// A transfer under way: its parts still to arrive.
    struct Transfer
    {
        uint32_t parts{0};
        DoneCallback done;
    };

    /// One reliable connection of a Connection, with the transfers of its messages.
    struct Lane
    {
        Ptr<RdmaQueuePair> sender;
        Ptr<RdmaQueuePair> receiver;
        std::deque<std::shared_ptr<Transfer>> pending;
    };

    struct Connection
    {
        std::vector<Lane> lanes; //!< QpsPerConnection, never resized (callbacks hold them)
        uint64_t nextRequest{0}; //!< NCCL's request number, without SplitDataOnQps
    };

    Connection& GetConnection(uint32_t src, uint32_t dst, uint32_t channel);
    /// Unhook every connection's receive callback and forget the connections.
    void CloseConnections();
    static void Invoke(DoneCallback done);
    static void MessageReceived(Lane* lane, Ptr<RdmaQueuePair>, uint64_t, uint64_t);

    uint32_t m_qpsPerConnection{1}; //!< QpsPerConnection attribute
    bool m_splitDataOnQps{false};   //!< SplitDataOnQps attribute
    uint64_t m_requestBytes{0};     //!< RequestBytes attribute

    /// Links and summed cable delay from one node to another (links 0: not reached).
    typedef std::pair<uint32_t, Time> Reach;

    /**
     * \param from a node \param to a node
     * \return the links and cable delay from one to the other along the first shortest
     *         path a breadth-first walk over the RoCE channels (devices in index order)
     *         finds; computed once per pair: a cache of every node's reach of every node
     *         would grow with the square of the cluster (13 GB at 16,384 GPUs)
     */
    Reach GetReach(Ptr<Node> from, Ptr<Node> to) const;

    /// The RoCE cables as a graph: a node's neighbours and the cables' delays, by node id.
    struct CableGraph
    {
        std::vector<uint32_t> begin;    //!< node id -> first of its cables (size nodes + 1)
        std::vector<uint32_t> peer;     //!< per cable: the node at its other end
        std::vector<int64_t> delay;     //!< per cable: its delay (time steps)
        std::vector<uint32_t> links;    //!< a walk's scratch: links to each node (0: not reached)
        std::vector<int64_t> reached;   //!< its scratch: the delay to each reached node
        std::vector<uint32_t> frontier; //!< its scratch: nodes reached, in walk order
    };

    /**
     * The equal-cost link sets a flow from NIC src to NIC dst crosses between their
     * switches, by the switches' routing tables: at every stage, every egress port any
     * switch of the stage may choose towards dst (computed once per sending device and
     * receiving address).
     * \param src sending rank \param dst receiving rank
     * \return the sets in path order
     */
    const std::vector<CarrierBundle>& GetBundles(uint32_t src, uint32_t dst) const;

    /**
     * The queue of the switch port that leads to NIC dst, and NIC src's DCQCN, for the
     * cost model (computed once per pair of NICs' switch port and sender).
     * \param src sending rank \param dst receiving rank
     * \return its figures (no dcqcn when the sender runs another congestion control, dst
     *         hangs on no switch, or the switch does not mark)
     */
    CarrierQueue DescribeQueue(uint32_t src, uint32_t dst) const;

    std::vector<Ptr<RdmaNic>> m_nics;
    mutable CableGraph m_cables;                         //!< GetReach's graph (made on first use)
    mutable std::unordered_map<uint64_t, Reach> m_reach; //!< cache of GetReach, by node pair
    /// cache of GetBundles, by (sending node, its device's index, receiving address)
    mutable std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<CarrierBundle>>
        m_bundles;
    /// id of every link set GetBundles met, by its (switch node, port) pairs
    mutable std::map<std::vector<std::pair<uint32_t, uint32_t>>, uint64_t> m_bundleIds;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::unique_ptr<Connection>> m_connections;
    /// cache of the senders' DCQCN figures, by rank (empty: another congestion control)
    mutable std::map<uint32_t, std::optional<RoceDcqcn::Figures>> m_dcqcn;
};

} // namespace ns3

#endif
