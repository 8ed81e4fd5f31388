// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_DEADLOCK_DETECTOR_H
#define PFC_DEADLOCK_DETECTOR_H

#include "roce-switch.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * One egress queue of a PFC deadlock's cycle.
 */
struct PfcWaitingQueue
{
    uint32_t node{0};    //!< the switch's node id
    std::string name;    //!< its name (ns-3 Names), or "node N"
    uint32_t port{0};    //!< the egress port
    uint8_t priority{0}; //!< the paused priority
};

/**
 * \ingroup ai-fabric
 * A cyclic buffer dependency the PfcDeadlockDetector found.
 */
struct PfcDeadlock
{
    Time detectedAt;                    //!< when the check found it
    Time formedAt;                      //!< when its last queue became paused for good
    std::vector<PfcWaitingQueue> cycle; //!< each waits for the next, the last for the first

    /// \return "name port p prio q -> ... -> (first again)"
    std::string Describe() const;
};

/**
 * \ingroup ai-fabric
 * \brief Finds PFC deadlocks: cycles in the wait-for graph of paused egress queues.
 *
 * A vertex is an egress queue (switch, port, priority) that the peer has paused without
 * a break for at least PersistTime and that holds frames. Queue X = (A, p) waits for
 * queue Y = (B, q) when A's port p is cabled to B's port p' and Y holds a frame that
 * came in on p': B paused A because its buffer for p' is full, and that buffer drains
 * only through Y. A cycle (a strongly connected component of two or more queues, or a
 * queue that waits for itself; Boost.Graph) is a deadlock: no queue of it can move until
 * another does. Each cycle is reported once (Deadlock trace, GetDeadlocks), with the
 * time its last queue's unbroken pause began.
 *
 * Checks run only while pauses persist: a PFC XOFF on a watched port schedules one
 * after PersistTime, and a check that still finds persistent paused queues schedules
 * the next after CheckInterval.
 */
class PfcDeadlockDetector : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    PfcDeadlockDetector();
    ~PfcDeadlockDetector() override;

    /**
     * Watch these switches' ports (after RoceSwitch::Setup); the detector is disposed at
     * Simulator::Destroy.
     * \param switches the switches
     */
    void Install(const std::vector<Ptr<RoceSwitch>>& switches);

    /// \return every deadlock found so far, in the order found
    const std::vector<PfcDeadlock>& GetDeadlocks() const;

    /// Check the wait-for graph now (also what the timers call).
    void Check();

    /**
     * Signature of the Deadlock trace.
     * \param deadlock the cycle found
     */
    typedef void (*DeadlockTracedCallback)(const PfcDeadlock& deadlock);

  protected:
    void DoDispose() override;

  private:
    /// A port received PFC: schedule a check after PersistTime if none is pending.
    void OnPfc(uint8_t priority, uint16_t quanta);
    /// Schedule a check after delay unless one is pending.
    void ScheduleCheck(Time delay);

    Time m_persist;  //!< PersistTime
    Time m_interval; //!< CheckInterval

    std::vector<Ptr<RoceSwitch>> m_switches;    //!< watched
    std::vector<PfcDeadlock> m_deadlocks;       //!< found
    std::set<std::vector<uint64_t>> m_reported; //!< cycles found, as sorted vertex keys
    EventId m_checkEvent;                       //!< next check

    TracedCallback<const PfcDeadlock&> m_deadlockTrace; //!< Deadlock
};

} // namespace ns3

#endif /* PFC_DEADLOCK_DETECTOR_H */
