// SPDX-License-Identifier: GPL-2.0-only
#ifndef FAST_FORWARD_FEATURE_H
#define FAST_FORWARD_FEATURE_H

#include "training-feature.h"

#include "ns3/rdma-fast-forward.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Steady-state fast-forward of the RDMA fabric (an RdmaFastForward over every NIC and
 * switch) and of the NVSwitches' periodic chunk streams (NvSwitchFabric's FastForward),
 * as the scenario's /run/fastForward asks: "on", "off" (the packet reference), or
 * "check" (ai-fabric-sim runs the scenario both ways and compares; see
 * FastForwardFigures). It stays off, and says why, where skipped packets would be
 * missed: with a pcap capture, and with in-network aggregation (whose frames it does not
 * model). Whenever it is not "off", the runners' engines also replay NVSwitch calls
 * (CollectiveEngine::ReplayIsolatedCalls): a call on one server's quiet NVSwitch that
 * ran there before, alone, takes the time it took then, without its chunks.
 */
class FastForwardFeature : public TrainingFeature
{
  public:
    std::string GetName() const override;
    /// Installs the fast-forward on a packet fabric when the scenario asks for it.
    bool Install(const TrainingContext& context, std::string* error) override;
    /// \return the fast-forward, or null when it is off
    Ptr<RdmaFastForward> GetFastForward() const;
    /// \return what the run used, for reports: "on", "off", or "off: <why>" (of the
    ///         skips; ReplaysCalls says whether NVSwitch calls are replayed)
    std::string GetStatus() const;
    /// \return whether the runners' engines replay NVSwitch calls (ReplaysCalls)
    bool ReplaysCalls() const;

  private:
    Ptr<RdmaFastForward> m_fastForward; //!< null when off
    std::string m_status{"off"};        //!< GetStatus
    bool m_replayCalls{false};          //!< ReplaysCalls
};

} // namespace ns3

#endif // FAST_FORWARD_FEATURE_H
