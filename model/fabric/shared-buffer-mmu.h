// SPDX-License-Identifier: GPL-2.0-only
#ifndef SHARED_BUFFER_MMU_H
#define SHARED_BUFFER_MMU_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"

#include <array>
#include <cstdint>
#include <string>
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
    /// Priorities (queues) per port, as IEEE 802.1Qbb has.
    static constexpr uint8_t N_PRIORITIES = 8;

    /// Outcome of Admit().
    enum Admission
    {
        ADMIT,              //!< charged to the queue: forward the frame
        DROP_HEADROOM_FULL, //!< lossless queue overran its headroom
        DROP_THRESHOLD,     //!< lossy queue above its dynamic threshold
        DROP_BUFFER_FULL    //!< lossy queue and no shared buffer left
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    SharedBufferMmu();

    /**
     * Size per-port state and derived thresholds (headroom, Kmin, Kmax) and empty the
     * shared pool. Aborts with a clear message when the configuration is impossible: not
     * one delay per rate, a zero rate, Kmin > Kmax, or reserves and headroom that leave no
     * shared buffer.
     * \param linkRatesBps rate of each port's link in bit/s (index = port)
     * \param linkDelays one-way propagation delay of each port's link
     * \param maxFrameBytes largest frame in bytes, without FCS (for the headroom)
     */
    void Configure(const std::vector<uint64_t>& linkRatesBps,
                   const std::vector<Time>& linkDelays,
                   uint32_t maxFrameBytes);

    /**
     * Whether Configure would accept these ports with the current attributes, without
     * changing anything: what a reader of a user's topology asks before it builds.
     * \param linkRatesBps rate of each port's link in bit/s (index = port)
     * \param linkDelays one-way propagation delay of each port's link
     * \param maxFrameBytes largest frame in bytes, without FCS (for the headroom)
     * \param why set to the message Configure would abort with, when not
     * \return true if Configure would accept them
     */
    bool CheckConfiguration(const std::vector<uint64_t>& linkRatesBps,
                            const std::vector<Time>& linkDelays,
                            uint32_t maxFrameBytes,
                            std::string* why) const;

    /**
     * Headroom a lossless queue needs on a link: 2 × delay × rate + 2 frames + a PFC frame,
     * frames counted as they occupy the wire.
     * \param rateBps the link's rate in bit/s
     * \param delay its one-way propagation delay
     * \param maxFrameBytes largest frame in bytes, without FCS
     * \return the headroom in bytes (the delay term rounded up)
     */
    static uint32_t ComputeHeadroom(uint64_t rateBps, Time delay, uint32_t maxFrameBytes);

    /**
     * \param priority 0 to 7
     * \return whether the priority is lossless (paused with PFC instead of dropped)
     */
    bool IsLossless(uint8_t priority) const;
    /**
     * Charge an arriving frame to (port, priority), or say why it must be dropped. The
     * bytes go to the queue's reserve if they fit, else to the shared pool if the queue
     * stays within the dynamic threshold and its headroom is empty, else (lossless
     * priorities only) to its headroom.
     * \param port ingress port
     * \param priority the frame's priority (0 to 7)
     * \param bytes its size in bytes (no FCS)
     * \return ADMIT, or the reason for the drop (nothing is charged then)
     */
    Admission Admit(uint32_t port, uint8_t priority, uint32_t bytes);
    /**
     * Give back a frame's bytes when it leaves the switch, from the headroom first, then
     * the shared pool, then the reserve.
     * \param port its ingress port
     * \param priority its priority
     * \param bytes its size in bytes as admitted
     */
    void Release(uint32_t port, uint8_t priority, uint32_t bytes);
    /**
     * \param port ingress port
     * \param priority priority
     * \return true when (port, priority) is lossless, not paused, and either holds bytes
     *         in its headroom or holds at least the dynamic threshold of shared buffer
     */
    bool ShouldSendXoff(uint32_t port, uint8_t priority) const;
    /**
     * \param port ingress port
     * \param priority priority
     * \return true when (port, priority) is paused, its headroom is empty and its shared
     *         use is zero or at least XonHysteresis bytes below the dynamic threshold
     */
    bool ShouldSendXon(uint32_t port, uint8_t priority) const;
    /**
     * Record that the switch paused (or resumed) the peer of an ingress queue.
     * \param port ingress port
     * \param priority priority
     * \param paused true after an XOFF, false after an XON
     */
    void SetPaused(uint32_t port, uint8_t priority, bool paused);
    /**
     * \param port ingress port
     * \param priority priority
     * \return whether the switch holds the peer of (port, priority) paused
     */
    bool IsPaused(uint32_t port, uint8_t priority) const;
    /**
     * RED decision (random, from the MMU's stream) for a frame leaving port. Draws a
     * random number only between Kmin and Kmax.
     * \param port egress port
     * \param egressQueueBytes bytes still queued in the frame's egress queue
     * \return whether to mark it CE (always false when EcnEnabled is false)
     */
    bool ShouldMarkEcn(uint32_t port, uint32_t egressQueueBytes);
    /**
     * \param port egress port
     * \param egressQueueBytes an egress queue length in bytes
     * \return the RED marking probability at that length: 0 up to Kmin, rising linearly
     *         to Pmax at Kmax, 1 above Kmax
     */
    double GetMarkingProbability(uint32_t port, uint32_t egressQueueBytes) const;

    /// \param port a port \return its lossless headroom per priority, in bytes
    uint32_t GetHeadroom(uint32_t port) const;
    /// \return bytes of the shared pool (buffer minus reserves and headroom)
    uint64_t GetSharedBufferSize() const;
    /// \return bytes of the shared pool in use now
    uint64_t GetSharedBufferUsed() const;
    /**
     * \param port ingress port
     * \param priority priority
     * \return bytes charged to that ingress queue now (reserve, shared and headroom)
     */
    uint32_t GetIngressBytes(uint32_t port, uint8_t priority) const;
    /// \param port egress port \return its ECN Kmin in bytes
    uint32_t GetKmin(uint32_t port) const;
    /// \param port egress port \return its ECN Kmax in bytes
    uint32_t GetKmax(uint32_t port) const;
    /// \return the marking probability at Kmax (EcnPmax)
    double GetEcnPmax() const;
    /// \return whether frames are marked at all (EcnEnabled)
    bool IsEcnEnabled() const;
    /// \return the dynamic threshold factor (Alpha)
    double GetAlpha() const;
    /// \return the dynamic threshold on one queue's shared-buffer use now, in bytes:
    /// Alpha × (shared pool size − shared pool in use)
    double GetDynamicThreshold() const;

    /**
     * Fix the random stream of ECN marking.
     * \param stream first stream number
     * \return the number of streams used (1)
     */
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

    /// Per-port headroom and thresholds and the bytes committed to reserves and headroom.
    /// \return false (why set) for a configuration Configure must refuse, but for a
    ///         buffer too small (CheckConfiguration's last test)
    bool Derive(const std::vector<uint64_t>& linkRatesBps,
                const std::vector<Time>& linkDelays,
                uint32_t maxFrameBytes,
                std::vector<PortState>& ports,
                uint64_t& committed,
                std::string* why) const;

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
