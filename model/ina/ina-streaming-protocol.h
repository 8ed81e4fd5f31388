// SPDX-License-Identifier: GPL-2.0-only
#ifndef INA_STREAMING_PROTOCOL_H
#define INA_STREAMING_PROTOCOL_H

#include "ina-aggregation-protocol.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Streaming aggregation (InaProtocol::STREAMING, ATP/SHARP-like): aggregators
 * shared by the jobs, a fallback host for what collides.
 *
 * Jobs take no pool: they share the switch's aggregators (the engine's
 * StreamingAggregators, allocated when the first job arrives), each holding up to
 * StreamingBytes of values. A
 * DATA packet names its aggregator (the slot field, job hash + sequence, as ATP's workers
 * compute it); the first contribution to a free aggregator takes it for (job, sequence),
 * and it is free again as soon as every child has contributed and the sum has gone on (up
 * to the parent, or from the root down to every child). A contribution whose aggregator
 * holds another fragment (of this job or another) is not aggregated: it goes, marked
 * FALLBACK, to the fragment's fallback host (worker q mod n of the job), which sums what
 * reaches it and multicasts the result down the tree when it has every worker. A
 * retransmission is never aggregated: it takes the partial sum of its fragment off every
 * switch on its way up (sent to the fallback host, FALLBACK) and goes on to the fallback
 * host, which answers it with the result, or adds it. A RESULT is forwarded to every port
 * of the job's tree but the one it came from, and frees its fragment's aggregator.
 */
class InaStreamingProtocol : public InaAggregationProtocol
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    InaStreamingProtocol();
    ~InaStreamingProtocol() override;

    bool CheckJob(const InaJobConfig& config, std::string* why) const override;
    InaAggregationJob* AddJob(InaAggregationJob job) override;
    void RemoveJob(uint16_t job) override;
    void Process(InaAggregationJob& job,
                 uint32_t inPort,
                 const InaHeader& header,
                 bool ce) override;

  protected:
    void DoDispose() override;

  private:
    /// An aggregator: one fragment of one job while its children's sums arrive.
    struct Aggregator
    {
        uint32_t sequence{0}; //!< the fragment
        uint64_t children{0}; //!< children that contributed
        uint64_t workers{0};  //!< workers summed (by rank)
        uint16_t job{0};      //!< the job
        uint16_t count{0};    //!< workers summed
        uint16_t length{0};   //!< value bytes
        bool used{false};     //!< held by (job, sequence)
        bool ecn{false};      //!< some contribution arrived marked CE
        bool values{false};   //!< some contribution carried values (not NO_VALUES)
    };

    /// A RESULT: forward it along the tree, free its aggregator.
    void ForwardResult(const InaAggregationJob& job, uint32_t inPort, const InaHeader& header);
    /**
     * A retransmitted fragment is never aggregated: the partial sum this switch holds of
     * it (a mine) goes to the fallback host, and so does the retransmission, up the tree.
     * \param job its job
     * \param header the retransmission
     * \param a the aggregator of its slot
     * \param mine whether a holds this fragment
     */
    void ProcessRetransmission(InaAggregationJob& job,
                               const InaHeader& header,
                               Aggregator& a,
                               bool mine);
    /// Send a packet to its fragment's fallback host.
    void SendToFallbackHost(const InaAggregationJob& job, const InaHeader& header);

    std::map<uint16_t, InaAggregationJob> m_jobs; //!< by job id
    std::vector<Aggregator> m_aggregators;        //!< the aggregators (sized on first use)
};

} // namespace ns3

#endif /* INA_STREAMING_PROTOCOL_H */
