// SPDX-License-Identifier: GPL-2.0-only
#ifndef INA_SWITCH_ML_PROTOCOL_H
#define INA_SWITCH_ML_PROTOCOL_H

#include "ina-aggregation-protocol.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief SwitchML-like aggregation (InaProtocol::SWITCHML): synchronous slot pools.
 *
 * The switch has the engine's Slots aggregator slots (SetSlots). A job gets a pool of
 * poolSlots slots in two copies (SwitchML's shadow copy: a slot's previous result stays
 * available for retransmission while the next use fills the other copy), so it takes
 * 2 × poolSlots slots; a job that does not fit is refused.
 *
 * Per slot copy: a DATA packet from child c for sequence q into slot s (copy k) resets
 * the slot if it held an older sequence, then adds c's contribution unless c's bit is set
 * already (a duplicate: answered with the result if the slot is complete, or with the
 * partial aggregate sent up again if it waits for the parent). When every child has
 * contributed, the root multicasts the RESULT to its children and an inner switch sends
 * the aggregate (DATA, count = workers summed) to its parent; a RESULT from the parent
 * completes the slot and is multicast to the children. The RESULT doubles as the
 * acknowledgement: workers retransmit on timeout.
 */
class InaSwitchMlProtocol : public InaAggregationProtocol
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    InaSwitchMlProtocol();
    ~InaSwitchMlProtocol() override;

    /**
     * Give the protocol the switch's slots, all free (the engine's Slots attribute, when
     * it is installed).
     * \param slots aggregator slots of the switch
     */
    void SetSlots(uint32_t slots);
    /// \return slots not given to any job
    uint32_t GetFreeSlots() const;

    bool CheckJob(const InaJobConfig& config, std::string* why) const override;
    InaAggregationJob* AddJob(InaAggregationJob job) override;
    void RemoveJob(uint16_t job) override;
    uint32_t GetJobSlots(const InaAggregationJob& job) const override;
    void Process(InaAggregationJob& job,
                 uint32_t inPort,
                 const InaHeader& header,
                 bool ce) override;

  protected:
    void DoDispose() override;

  private:
    /// One copy of one slot: the sum it holds and where it stands.
    struct Slot : InaSum
    {
        bool used{false};     //!< ever used
        bool sentUp{false};   //!< aggregate sent to the parent, waiting for the result
        bool complete{false}; //!< result known
    };

    /// A SwitchML job: the engine's record and the job's pool.
    struct Job : InaAggregationJob
    {
        std::vector<Slot> slots; //!< 2 × poolSlots: copy k of slot s at 2s + k
    };

    /// A contribution from a child.
    void HandleData(Job& job, uint32_t child, const InaHeader& header, bool ce);
    /// The aggregate from the parent.
    void HandleResult(Job& job, const InaHeader& header);

    std::map<uint16_t, Job> m_jobs; //!< by job id
    uint32_t m_freeSlots{0};        //!< slots not given to a job
};

} // namespace ns3

#endif /* INA_SWITCH_ML_PROTOCOL_H */
