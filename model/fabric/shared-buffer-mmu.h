// SPDX-License-Identifier: GPL-2.0-only
#ifndef SHARED_BUFFER_MMU_H
#define SHARED_BUFFER_MMU_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Shared-buffer memory management unit of a switch: ingress admission, PFC thresholds
 * and egress ECN marking.
 *
 * Every (ingress port, priority) has a reserve, may borrow from a shared pool up to a
 * dynamic threshold α × (free shared buffer) (Choudhury & Hahne), and for lossless
 * priorities has a headroom that absorbs what is still in flight after it asked the
 * upstream port to pause. XOFF is due when a lossless queue's use beyond its reserve
 * reaches the threshold; XON when it has fallen XonHysteresis below it with its headroom
 * empty. Headroom defaults to what physics requires (see ComputeHeadroom).
 *
 * ECN marking is RED-like on the egress queue: never below Kmin, probability rising
 * linearly to Pmax at Kmax, always above Kmax; thresholds scale with the egress link rate
 * unless set.
 */
class SharedBufferMmu : public Object
{
  public:
    static constexpr uint8_t N_PRIORITIES = 8;

    /// Outcome of Admit().
    enum Admission
    {
        ADMIT,
        DROP_HEADROOM_FULL, //!< lossless queue overran its headroom
        DROP_THRESHOLD,     //!< lossy queue above its dynamic threshold
        DROP_BUFFER_FULL    //!< lossy queue and no shared buffer left
    };

    static TypeId GetTypeId();
    SharedBufferMmu();

    /**
     * Size per-port state and derived thresholds. Aborts with a clear message when the
     * configuration is impossible (Kmin > Kmax, reserves and headroom exceed the buffer).
     * \param linkRatesBps rate of each port's link
     * \param linkDelays one-way delay of each port's link
     * \param maxFrameBytes largest frame, without FCS (for the headroom)
     */
    void Configure(const std::vector<uint64_t>& linkRatesBps,
                   const std::vector<Time>& linkDelays,
                   uint32_t maxFrameBytes);

    /// Headroom a lossless queue needs on a link: 2 × delay × rate + 2 frames + a PFC frame,
    /// frames counted as they occupy the wire (maxFrameBytes is without FCS).
    static uint32_t ComputeHeadroom(uint64_t rateBps, Time delay, uint32_t maxFrameBytes);

    bool IsLossless(uint8_t priority) const;
    /// Charge an arriving frame to (port, priority), or say why it must be dropped.
    Admission Admit(uint32_t port, uint8_t priority, uint32_t bytes);
    /// Give back a frame's bytes when it leaves the switch.
    void Release(uint32_t port, uint8_t priority, uint32_t bytes);
    /// True when (port, priority) should be paused now and is not.
    bool ShouldSendXoff(uint32_t port, uint8_t priority) const;
    /// True when (port, priority) is paused and may resume.
    bool ShouldSendXon(uint32_t port, uint8_t priority) const;
    void SetPaused(uint32_t port, uint8_t priority, bool paused);
    bool IsPaused(uint32_t port, uint8_t priority) const;
    /// RED decision for a frame leaving port with egressQueueBytes still queued behind it.
    bool ShouldMarkEcn(uint32_t port, uint32_t egressQueueBytes);
    /// Marking probability for a queue length on a port (no randomness).
    double GetMarkingProbability(uint32_t port, uint32_t egressQueueBytes) const;

    uint32_t GetHeadroom(uint32_t port) const;
    uint64_t GetSharedBufferSize() const;
    uint64_t GetSharedBufferUsed() const;
    uint32_t GetIngressBytes(uint32_t port, uint8_t priority) const;
    uint32_t GetKmin(uint32_t port) const;
    uint32_t GetKmax(uint32_t port) const;
    /// Dynamic threshold on shared-buffer use of one queue, now.
    double GetDynamicThreshold() const;

    int64_t AssignStreams(int64_t stream);

  private:
    struct QueueState
    {
        uint32_t reserveUsed{0};
        uint32_t sharedUsed{0};
        uint32_t headroomUsed{0};
        bool paused{false};
    };

    struct PortState
    {
        std::array<QueueState, N_PRIORITIES> queues;
        uint32_t headroom{0};
        uint32_t kmin{0};
        uint32_t kmax{0};
    };

    // attributes
    uint64_t m_bufferBytes;
    uint32_t m_reserveBytes;
    double m_alpha;
    uint32_t m_xonHysteresis;
    uint32_t m_headroomBytes;
    uint8_t m_losslessMask;
    uint32_t m_kmin;
    uint32_t m_kmax;
    double m_pmax;
    bool m_ecnEnabled;

    std::vector<PortState> m_ports;
    uint64_t m_sharedSize{0};
    uint64_t m_sharedUsed{0};
    Ptr<UniformRandomVariable> m_uniform;
};

} // namespace ns3

#endif
