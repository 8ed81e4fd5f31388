// SPDX-License-Identifier: GPL-2.0-only
#ifndef INA_TRANSPORT_H
#define INA_TRANSPORT_H

#include "rdma-transport.h"

#include "ns3/ina-controller.h"

#include <map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The collective carrier over a RoCE fabric whose switches aggregate: point-to-point
 * transfers are RDMA WRITEs (RdmaTransport), and in-network all-reduces, reduces and
 * multicasts (plan kinds SWITCH_ALL_REDUCE, NETWORK_REDUCE and NETWORK_MULTICAST,
 * algorithm "ina") run on InaWorkers through aggregation trees: a reduce sends the sum's
 * values to its destination only, a multicast takes values from its source only (see
 * InaReductionRoles).
 *
 * Each set of member ranks gets one aggregation job, placed by the InaController the
 * first time it is asked for (CanAllReduceInNetwork, CanReduceInNetwork,
 * DescribeSwitchPath or a transfer): first come, first served, as
 * switch memory allows. A set whose job could not be placed is refused from then on
 * (GetJob says why), so "auto" and the named "ina" fall back to host algorithms. The
 * channels of a call share its job: their reductions run in the order they are issued.
 */
class InaTransport : public RdmaTransport
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    InaTransport();
    ~InaTransport() override;

    /**
     * \param controller places the jobs (its engines must be installed on the fabric)
     */
    void SetController(Ptr<InaController> controller);

    bool CanAllReduceInNetwork(const std::vector<uint32_t>& members) const override;
    void SwitchAllReduce(const std::vector<uint32_t>& members,
                         uint64_t bytes,
                         uint32_t channel,
                         DoneCallback done) override;
    /**
     * \param members ranks of a would-be aggregation group
     * \return whether their job is in the network and small enough for reductions to one
     *         member (at most ina::MAX_DIRECTED_WORKERS)
     */
    bool CanReduceInNetwork(const std::vector<uint32_t>& members) const override;
    void NetworkReduce(const std::vector<uint32_t>& members,
                       uint32_t dst,
                       uint64_t bytes,
                       uint32_t channel,
                       DoneCallback done) override;
    void NetworkMulticast(uint32_t src,
                          const std::vector<uint32_t>& members,
                          uint64_t bytes,
                          uint32_t channel,
                          DoneCallback done) override;
    /**
     * Each member's NIC port up and down, at the INA payload rate (fragment over its wire
     * frame), with the longest member-to-member path's latency.
     * \param members the group
     * \return the figures
     */
    CarrierSwitchPath DescribeSwitchPath(const std::vector<uint32_t>& members) const override;

    /**
     * \param members a member set, as the engine passes it
     * \return its job (placed or refused, with the reason), or null if never asked for
     */
    const InaJob* GetJob(const std::vector<uint32_t>& members) const;

    /// What one member set's job did.
    struct JobUsage
    {
        std::vector<uint32_t> members;    //!< the member set (sorted)
        const InaJob* job{nullptr};       //!< its job (placed or refused)
        uint64_t bytesInNetwork{0};       //!< bytes per member reduced (or multicast) in the
                                          //!< network
        uint64_t bytesViaFallbackHost{0}; //!< of those, bytes fallback hosts summed
    };

    /// \return every member set asked for, in job id order, with what its job did
    std::vector<JobUsage> GetJobUsage() const;

    /// \return bytes reduced or multicast in the network so far (per member, summed over
    ///         calls)
    uint64_t GetBytesInNetwork() const;
    /**
     * \return value bytes per rank of those (GetBytesInNetwork) that fallback hosts summed
     *         because a streaming job's aggregator was taken (collisions, retransmissions)
     */
    uint64_t GetBytesViaFallbackHost() const;

  protected:
    void DoDispose() override;

  private:
    /// A member set's job and what it did.
    struct JobState
    {
        InaJob job;                       //!< placed or refused
        uint64_t bytesInNetwork{0};       //!< see JobUsage
        uint64_t bytesViaFallbackHost{0}; //!< see JobUsage
    };

    /// \return members sorted: the key of their job
    static std::vector<uint32_t> Key(const std::vector<uint32_t>& members);
    /// \return the job of members, placed on first use
    JobState& JobOf(const std::vector<uint32_t>& members) const;
    /// \return the job of members; aborts, naming what and the reason, if it was refused
    JobState& PlacedJob(const char* what, const std::vector<uint32_t>& members) const;
    /// \return the rank in job of the worker on rank's NIC (aborts if it has none)
    uint16_t JobRank(const InaJob& job, uint32_t rank) const;
    /**
     * Run one reduction of a placed job on every worker.
     * \param what the caller's name, for messages
     * \param state the job (PlacedJob)
     * \param bytes size of one copy
     * \param roles source and destination as ranks in the job
     * \param done called when every worker's reduction is done
     */
    void RunReduction(const char* what,
                      JobState& state,
                      uint64_t bytes,
                      InaReductionRoles roles,
                      DoneCallback done);

    Ptr<InaController> m_controller;                          //!< places jobs
    uint32_t m_firstJob;                                      //!< FirstJobId attribute
    mutable std::map<std::vector<uint32_t>, JobState> m_jobs; //!< by sorted member set
};

} // namespace ns3

#endif /* INA_TRANSPORT_H */
