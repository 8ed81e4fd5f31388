// SPDX-License-Identifier: GPL-2.0-only
#ifndef NO_CONGESTION_CONTROL_H
#define NO_CONGESTION_CONTROL_H

#include "ns3/roce-congestion-control.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * No congestion control: the queue pair always sends at line rate and has no window.
 *
 * This is the baseline against which the reactive algorithms are compared, and what a
 * lossless fabric with PFC alone does: the switches pause the sender instead of the
 * sender slowing down. Every signal is ignored on purpose.
 */
class NoCongestionControl : public RoceCongestionControl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    NoCongestionControl();
    ~NoCongestionControl() override;

    void Start(uint64_t lineRateBps) override;
    /// \return true: the rate is the line rate, always
    bool IsRateSteady() const override;
};

} // namespace ns3

#endif
