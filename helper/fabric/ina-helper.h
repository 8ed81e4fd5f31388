// SPDX-License-Identifier: GPL-2.0-only
#ifndef INA_HELPER_H
#define INA_HELPER_H

#include "ns3/ina-aggregation-engine.h"
#include "ns3/ina-controller.h"
#include "ns3/object-factory.h"
#include "ns3/roce-switch.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Makes RoCE switches aggregation-capable (an InaAggregationEngine each, built with the
 * helper's engine attributes) and sets up aggregation jobs over them through its
 * InaController.
 */
class InaHelper
{
  public:
    InaHelper();

    /**
     * \param name an attribute of ns3::InaAggregationEngine
     * \param value its value for the engines Install creates
     */
    void SetEngineAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \param name an attribute of ns3::InaWorker
     * \param value its value for the workers CreateJob creates
     */
    void SetWorkerAttribute(const std::string& name, const AttributeValue& value);
    /// \param slots slots of each new job's pool (the controller's PoolSlots)
    void SetPoolSlots(uint32_t slots);
    /// \param priority traffic class of the jobs' packets (the controller's Priority)
    void SetPriority(uint8_t priority);
    /// \param protocol how new jobs aggregate (the controller's Protocol)
    void SetProtocol(InaProtocol protocol);

    /**
     * Put an aggregation engine on each switch (aggregated to its node). Aborts on
     * inconsistent engine attributes (InaAggregationEngine::CheckConfiguration).
     * \param switches switches already Setup
     * \return the engines
     */
    std::vector<Ptr<InaAggregationEngine>> Install(const std::vector<Ptr<RoceSwitch>>& switches);

    /**
     * Set up an aggregation job (InaController::CreateJob).
     * \param job the job id (distinct per fabric)
     * \param nics the workers' NICs
     * \return the job
     */
    InaJob CreateJob(uint16_t job, const std::vector<Ptr<RdmaNic>>& nics);

    /**
     * Take a job off its switches (InaController::RemoveJob).
     * \param job the job
     */
    static void RemoveJob(const InaJob& job);

    /// \return the controller that places the jobs
    Ptr<InaController> GetController() const;

    /**
     * \param name a protocol name as InaProtocolName writes it
     * \param protocol set to the protocol when name is one
     * \return whether name is a protocol
     */
    static bool ParseProtocol(const std::string& name, InaProtocol* protocol);
    /// \return every protocol, the default (the best the model offers) first
    static const std::vector<InaProtocol>& GetProtocols();
    /// \return "streaming or switchml": the protocol names, for messages and help texts
    static std::string GetProtocolNameList();

  private:
    ObjectFactory m_engineFactory;   //!< makes engines
    Ptr<InaController> m_controller; //!< places jobs
};

} // namespace ns3

#endif /* INA_HELPER_H */
