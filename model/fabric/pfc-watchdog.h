// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_WATCHDOG_H
#define PFC_WATCHDOG_H

#include "roce-net-device.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A PFC watchdog on one egress port, as switch vendors ship it (SONiC's pfcwd,
 * Arista's and Cisco's PFC watchdogs).
 *
 * A priority the peer has paused without a break for DetectionTime is declared stormed
 * (a PFC storm: a broken NIC pausing for ever, or a deadlock). Then, for RecoveryTime,
 * the port ignores the peer's pauses of that priority, and with Action Drop also drops
 * the frames queued on it and those that arrive (so they stop holding buffer upstream:
 * lossless traffic becomes lossy until recovery, and the transport recovers the
 * frames); with Action Ignore it sends them. After RecoveryTime the port honours pauses
 * again and the watchdog re-arms. Costs nothing until the peer pauses.
 *
 * RoceSwitch installs one per port when its PfcWatchdog attribute is true (the
 * watchdog's own attributes take their defaults, Config::SetDefault or --ns3::).
 */
class PfcWatchdog : public Object
{
  public:
    /// What a storm does to its priority during recovery.
    enum Action
    {
        DROP,   //!< drop its queued and arriving frames, ignore pauses
        IGNORE, //!< ignore pauses, send its frames
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    PfcWatchdog();
    ~PfcWatchdog() override;

    /**
     * Watch a port: it starts counting when the peer pauses a priority.
     * \param device the port
     */
    void Install(Ptr<RoceNetDevice> device);

    /// \return storms declared so far
    uint64_t GetStorms() const;
    /// \return the port's frames dropped by storms (RoceNetDevice::GetStormDrops)
    uint64_t GetDrops() const;
    /// \param priority 0 to 7 \return whether the priority is in recovery now
    bool IsStormed(uint8_t priority) const;

    /**
     * Signature of the Storm trace.
     * \param priority the stormed priority
     * \param pausedFor how long it had been paused without a break
     */
    typedef void (*StormTracedCallback)(uint8_t priority, Time pausedFor);

  protected:
    void DoDispose() override;

  private:
    /// The port received a PFC frame.
    void OnPfc(uint8_t priority, uint16_t quanta);
    /// Detection time may have passed for a priority.
    void Check(uint8_t priority);
    /// Recovery of a priority is over.
    void Restore(uint8_t priority);

    Time m_detection; //!< DetectionTime
    Time m_recovery;  //!< RecoveryTime
    Action m_action;  //!< Action

    Ptr<RoceNetDevice> m_device;                                  //!< the port
    std::array<EventId, RoceNetDevice::N_PRIORITIES> m_check{};   //!< detection
    std::array<EventId, RoceNetDevice::N_PRIORITIES> m_restore{}; //!< recovery end
    uint64_t m_storms{0};                                         //!< GetStorms

    TracedCallback<uint8_t, Time> m_stormTrace; //!< Storm
};

} // namespace ns3

#endif /* PFC_WATCHDOG_H */
