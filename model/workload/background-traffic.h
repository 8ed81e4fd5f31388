// SPDX-License-Identifier: GPL-2.0-only
#ifndef BACKGROUND_TRAFFIC_H
#define BACKGROUND_TRAFFIC_H

#include "flow-size-cdf.h"

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rdma-nic.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * One background flow: an RDMA write on a queue pair of its own.
 */
struct BackgroundFlow
{
    uint32_t src{0};   //!< sending host (index into the NICs given to Install)
    uint32_t dst{0};   //!< receiving host
    uint64_t bytes{0}; //!< payload bytes
    Time start;        //!< when it was posted
    Time finish;       //!< when its last byte was acknowledged (zero: not yet)
    Time ideal;        //!< its completion time alone on the empty fabric
};

/**
 * \ingroup ai-fabric
 * Background traffic as congestion-control papers generate it (the HPCC traffic
 * generator's model): each host starts flows in a Poisson process whose rate loads its
 * link to Load on average (mean gap = mean flow size × 8 / (host rate × Load)), to a
 * destination drawn uniformly among the other hosts (or among its SetPairs
 * destinations), with sizes drawn from FlowSizes.
 * Each flow is one RDMA write on a new queue pair; its completion time (FCT) runs from
 * the post to the last acknowledgement. Its ideal FCT is the same write alone on the
 * empty, intact fabric (cut cables count), without in-band telemetry, over a shortest path: the
 * first packet's store-and-forward and the ACK's way back, plus the other packets at the slowest
 * link's rate (FctIdeal).
 */
class BackgroundTraffic : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    BackgroundTraffic();
    ~BackgroundTraffic() override;

    /**
     * Check the attributes that need more than a checker (FlowSizes names a distribution
     * or a readable CDF file; Stop after Start).
     * \param error set to one line naming the attribute, the file and line
     * \return true if they are usable
     */
    bool Configure(std::string* error);
    /**
     * Restrict the flows to given host pairs (before Install): a host that is the source
     * of some pairs starts flows at the Load of its link, each to one of its pairs'
     * destinations drawn uniformly; other hosts start none. Without pairs every host
     * sends to every other (all-to-all).
     * \param pairs (source, destination) indices into Install's NICs, source != destination
     */
    void SetPairs(const std::vector<std::pair<uint32_t, uint32_t>>& pairs);
    /**
     * Start generating among these hosts (at least two). Call after Configure, once the
     * fabric is built and routed. Aborts if a pair names a host beyond nics.
     * \param nics the hosts' NICs
     */
    void Install(const std::vector<Ptr<RdmaNic>>& nics);
    /**
     * Fix the random streams.
     * \param stream first stream number
     * \return the number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    /// Start no more flows from now on (those started finish).
    void StopArrivals();
    /// \return the flows started so far, in start order
    const std::vector<BackgroundFlow>& GetFlows() const;
    /// \return the distribution in use (after Configure)
    const FlowSizeCdf& GetFlowSizes() const;
    /// \return flows started and not yet finished
    uint32_t GetActiveFlows() const;

    /**
     * The completion time of a write alone on the empty fabric.
     * \param from sending NIC
     * \param to receiving NIC
     * \param bytes payload bytes
     * \return the ideal FCT over a shortest path (zero if there is none)
     */
    static Time FctIdeal(Ptr<RdmaNic> from, Ptr<RdmaNic> to, uint64_t bytes);
    /**
     * \param from sending NIC
     * \param to receiving NIC
     * \return the links (rate in bit/s, delay) of a shortest path, in order; empty if none
     */
    static std::vector<std::pair<double, Time>> ShortestPath(Ptr<RdmaNic> from, Ptr<RdmaNic> to);
    /**
     * \param path links of ShortestPath
     * \param mtu payload bytes per packet
     * \param bytes payload bytes
     * \return the ideal FCT over that path
     */
    static Time FctOverPath(const std::vector<std::pair<double, Time>>& path,
                            uint32_t mtu,
                            uint64_t bytes);

    /// Signature of the FlowFinished trace: the flow, complete.
    typedef void (*FlowTracedCallback)(const BackgroundFlow& flow);

  protected:
    void DoDispose() override;

  private:
    /// Start the next flow of host src and schedule the one after. \param src the host
    void Arrival(uint32_t src);
    /// A flow's write was acknowledged. \param index the flow
    void Finished(uint32_t index, Ptr<RdmaQueuePair>, uint64_t, uint64_t);

    // attributes
    std::string m_flowSizes; //!< FlowSizes
    double m_load;           //!< Load
    Time m_start;            //!< Start
    Time m_stop;             //!< Stop

    FlowSizeCdf m_cdf;
    bool m_configured{false};
    std::vector<Ptr<RdmaNic>> m_nics;
    std::vector<double> m_meanGap;                            //!< per host, seconds
    std::vector<std::pair<uint32_t, uint32_t>> m_pairs;       //!< SetPairs (empty: all-to-all)
    std::map<uint32_t, std::vector<uint32_t>> m_destinations; //!< by source, from m_pairs
    std::vector<BackgroundFlow> m_flows;
    /// Links (rate bit/s, delay) of a shortest path, by (src, dst)
    std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<double, Time>>> m_paths;
    uint32_t m_active{0};
    Ptr<UniformRandomVariable> m_sizeRng;
    Ptr<UniformRandomVariable> m_peerRng;
    Ptr<ExponentialRandomVariable> m_gapRng;
    TracedCallback<const BackgroundFlow&> m_finishedTrace;
};

} // namespace ns3

#endif /* BACKGROUND_TRAFFIC_H */
