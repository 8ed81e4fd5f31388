// SPDX-License-Identifier: GPL-2.0-only
#ifndef INA_CONTROLLER_H
#define INA_CONTROLLER_H

#include "ina-aggregation-engine.h"
#include "ina-worker.h"

#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-switch.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * An aggregation job as InaHelper::CreateJob set it up.
 */
struct InaJob
{
    InaJobInfo info;                                 //!< what its workers know
    bool inNetwork{false};                           //!< its tree is on the switches
    std::string reason;                              //!< why not, when not
    std::vector<Ptr<InaWorker>> workers;             //!< one per NIC, in the order given
    std::vector<Ptr<InaAggregationEngine>> switches; //!< engines of its tree, root first
    uint32_t levels{0};                              //!< switch levels of the tree (1: one switch)
};

/**
 * \ingroup ai-fabric
 * Sets up aggregation jobs over the aggregation-capable switches of a RoCE fabric, as a
 * fabric manager does for SHARP trees.
 *
 * CreateJob finds each worker's first switch (the other end of its NIC's link), picks as
 * root the aggregation-capable switch nearest to all of them (the least largest hop count;
 * among equals, the job id picks, so jobs spread over the spines), and builds the tree of
 * shortest paths from the root to those switches (a breadth-first search of the switch
 * graph, Boost.Graph). Every switch of the tree gets the job (children, parent, a pool of
 * PoolSlots slots); every worker gets an InaWorker on its NIC (one per NIC, shared by its
 * jobs). If some switch of the tree has no engine or no room, nothing is kept and the job
 * is not in-network (reason says why): the caller falls back to host-based collectives.
 */
class InaController : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    InaController();

    /**
     * \param name an attribute of ns3::InaWorker
     * \param value its value for the workers this controller creates
     */
    void SetWorkerAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Set up an aggregation job over workers' NICs.
     * \param job the job id (distinct per fabric)
     * \param nics the workers' NICs (at least 2, distinct)
     * \return the job (inNetwork false, with the reason, if it could not be placed)
     */
    InaJob CreateJob(uint16_t job, const std::vector<Ptr<RdmaNic>>& nics);

    /**
     * Take a job off its switches (its slots become free).
     * \param job the job as CreateJob returned it
     */
    static void RemoveJob(const InaJob& job);

  protected:
    void DoDispose() override;

  private:
    /// \return the worker of nic, created on first use
    Ptr<InaWorker> WorkerOf(Ptr<RdmaNic> nic);
    /// Set job's fragment size (streaming: window, addresses) from its switches and NICs
    void SizeFragments(InaJob& job,
                       const std::vector<Ptr<RdmaNic>>& nics,
                       const std::vector<Ipv4Address>& addresses) const;
    /// Give job to the worker of each NIC (rank: its index in nics)
    void AddJobToWorkers(InaJob& job, const std::vector<Ptr<RdmaNic>>& nics);

    ObjectFactory m_workerFactory;                    //!< makes workers
    uint32_t m_poolSlots;                             //!< PoolSlots attribute
    uint8_t m_priority;                               //!< Priority attribute
    InaProtocol m_protocol{InaProtocol::STREAMING};   //!< Protocol attribute
    std::map<Ptr<RdmaNic>, Ptr<InaWorker>> m_workers; //!< by NIC
};

} // namespace ns3

#endif /* INA_CONTROLLER_H */
