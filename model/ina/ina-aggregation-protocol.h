// SPDX-License-Identifier: GPL-2.0-only
#ifndef INA_AGGREGATION_PROTOCOL_H
#define INA_AGGREGATION_PROTOCOL_H

#include "ina-aggregation-engine.h"
#include "ina-header.h"

#include "ns3/object.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * How the jobs of one aggregation protocol aggregate on one switch, as a strategy of
 * InaAggregationEngine.
 *
 * The engine creates one instance per protocol it serves and picks, per job, the one
 * its InaJobConfig::protocol names. A strategy admits jobs (CheckJob, AddJob: it owns
 * their records, InaAggregationJob or a type of its own that extends it, and whatever
 * memory it gives them), takes them off (RemoveJob) and processes every INA packet of
 * its jobs (Process: one virtual call per packet). What the protocols share, the engine
 * does: the switch, the job table, the reduction unit, sending sums up and down, the
 * counters and the SlotComplete trace, which a strategy reaches through the protected
 * helpers below. New protocols derive from this class.
 */
class InaAggregationProtocol : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    InaAggregationProtocol();
    ~InaAggregationProtocol() override;

    /**
     * Serve an engine's jobs (the engine calls it when it creates the strategy).
     * \param engine the engine, which owns this strategy
     */
    void SetEngine(InaAggregationEngine* engine);

    /**
     * Whether a job fits, in what this protocol checks: called by AddJob after the checks
     * every protocol shares (job id, children) and before MaxJobs.
     * \param config the job
     * \param why set to the reason when it does not fit
     * \return true if it fits
     */
    virtual bool CheckJob(const InaJobConfig& config, std::string* why) const = 0;
    /**
     * Take a job that CheckJob accepted: keep its record, give it its memory.
     * \param job the job's shared record, as the engine built it
     * \return the record kept (valid until RemoveJob or disposal), which the engine's job
     *         table indexes
     */
    virtual InaAggregationJob* AddJob(InaAggregationJob job) = 0;
    /**
     * Take a job off: free its memory and its record.
     * \param job the job id (one AddJob took)
     */
    virtual void RemoveJob(uint16_t job) = 0;
    /**
     * \param job a record AddJob returned
     * \return the slots the job holds (0, the default: none)
     */
    virtual uint32_t GetJobSlots(const InaAggregationJob& job) const;
    /**
     * Reduce one INA packet of a job, once the engine has released its buffer.
     * \param job a record AddJob returned
     * \param inPort the port it arrived on
     * \param header its INA header
     * \param ce whether it arrived marked CE
     */
    virtual void Process(InaAggregationJob& job,
                         uint32_t inPort,
                         const InaHeader& header,
                         bool ce) = 0;

  protected:
    void DoDispose() override;

    /// \return the engine this strategy serves (null before SetEngine)
    InaAggregationEngine* GetEngine() const
    {
        return m_engine;
    }

    // The engine's side, for the strategies (this class is InaAggregationEngine's only
    // friend): inline, so the packet path pays no extra call for them.

    /**
     * Send a complete sum on: the RESULT to every child at the root, the aggregate to the
     * parent elsewhere.
     * \param job the job
     * \param request the packet that completed the sum
     * \param sum the sum
     */
    void SendSum(const InaAggregationJob& job, const InaHeader& request, const InaSum& sum)
    {
        m_engine->SendSum(job, request, sum);
    }

    /**
     * Send a sum's RESULT to one child (counted as a result sent).
     * \param job the job
     * \param child the child's index
     * \param request the packet it answers
     * \param sum the sum
     * \param retransmission whether to flag it RETRANSMISSION
     */
    void SendResult(const InaAggregationJob& job,
                    uint32_t child,
                    const InaHeader& request,
                    const InaSum& sum,
                    bool retransmission)
    {
        m_engine->SendResult(job, child, request, sum, retransmission);
    }

    /**
     * Send a sum up to the parent as DATA (counted as an aggregate sent).
     * \param job the job
     * \param request the packet it answers
     * \param sum the sum
     * \param retransmission whether to flag it RETRANSMISSION
     */
    void SendAggregate(const InaAggregationJob& job,
                       const InaHeader& request,
                       const InaSum& sum,
                       bool retransmission)
    {
        m_engine->SendAggregate(job, request, sum, retransmission);
    }

    /**
     * Send a DATA packet to the parent switch, as this switch's child (counted as an
     * aggregate sent).
     * \param job the job
     * \param h the packet
     */
    void SendUp(const InaAggregationJob& job, const InaHeader& h)
    {
        m_engine->SendUp(job, h);
    }

    /**
     * Send a RESULT on a port of the job's tree, with its values only if they go that way
     * (counted as a result sent).
     * \param job the job
     * \param port the port
     * \param dst its destination address
     * \param child the child on that port, -1 for the parent
     * \param h the packet
     */
    void SendResultOn(const InaAggregationJob& job,
                      uint32_t port,
                      Ipv4Address dst,
                      int32_t child,
                      const InaHeader& h)
    {
        m_engine->SendResultOn(job, port, dst, child, h);
    }

    /**
     * Send a packet of the job on a port (not counted).
     * \param job the job
     * \param port the port
     * \param dst its destination address
     * \param h the packet
     */
    void Send(const InaAggregationJob& job, uint32_t port, Ipv4Address dst, const InaHeader& h)
    {
        m_engine->Send(job, port, dst, h);
    }

    /**
     * \param dst a host
     * \param flow the flow, for ECMP
     * \return the port toward dst by the switch's routes; UINT32_MAX (the packet counted
     *         as discarded) if there is none
     */
    uint32_t RouteTo(Ipv4Address dst, uint64_t flow)
    {
        return m_engine->RouteTo(dst, flow);
    }

    /// Count a contribution added (InaAggregationEngine::GetContributions).
    void CountContribution()
    {
        ++m_engine->m_contributions;
    }

    /// Count a duplicate DATA packet (InaAggregationEngine::GetDuplicates).
    void CountDuplicate()
    {
        ++m_engine->m_duplicates;
    }

    /// Count a discarded packet (InaAggregationEngine::GetDiscarded).
    void CountDiscarded()
    {
        ++m_engine->m_discarded;
    }

    /// Count a contribution sent to the fallback host (InaAggregationEngine::GetCollisions).
    void CountCollision()
    {
        ++m_engine->m_collisions;
    }

    /// Count a partial sum flushed to the fallback host (InaAggregationEngine::GetFlushes).
    void CountFlush()
    {
        ++m_engine->m_flushes;
    }

    /**
     * Fire the engine's SlotComplete trace.
     * \param job the job
     * \param sequence the fragment whose aggregate is complete at this switch
     * \param count workers summed into it
     */
    void NotifySlotComplete(uint16_t job, uint32_t sequence, uint16_t count)
    {
        m_engine->m_slotCompleteTrace(job, sequence, count);
    }

  private:
    InaAggregationEngine* m_engine{nullptr}; //!< the engine it serves (which owns it)
};

} // namespace ns3

#endif /* INA_AGGREGATION_PROTOCOL_H */
