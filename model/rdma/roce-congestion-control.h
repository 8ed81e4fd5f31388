// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_CONGESTION_CONTROL_H
#define ROCE_CONGESTION_CONTROL_H

#include "ns3/int-header.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Everything an ACK tells the sender.
 */
struct RoceAckSignal
{
    uint64_t newlyAckedBytes{0};     //!< bytes of the messages this ACK completed
    uint64_t inflightBytes{0};       //!< payload bytes sent but not acknowledged, after this ACK
    uint32_t ackedPackets{0};        //!< packets acknowledged for the first time
    uint64_t ackedBytes{0};          //!< their payload, counted as inflightBytes counts it
                                     //!< (packets x payload MTU)
    Time rtt;                        //!< RTT sample; zero when this ACK carries none (one sample
                                     //!< per round trip, or one per ACK: RoceSignalNeeds)
    bool ecnEcho{false};             //!< some packet this ACK acknowledges arrived CE-marked
                                     //!< (the BTH BECN bit of the ACK)
    const RoceIntHop* hops{nullptr}; //!< telemetry echoed by the receiver, nHops entries, the
                                     //!< first switch's first (RoceSignalNeeds::intTelemetry)
    uint32_t nHops{0};               //!< entries in hops
};

/**
 * \ingroup ai-fabric
 * What an algorithm needs the NICs to measure or echo beyond what every ACK carries. Each
 * costs per-packet work, so the queue pair does it only for algorithms that ask
 * (RoceCongestionControl::GetSignalNeeds); both ends of a connection run the same
 * algorithm, so the receiver asks its own.
 */
struct RoceSignalNeeds
{
    /// The receiver acknowledges at once when the CE mark of the in-order packets it
    /// receives changes, so every ACK's ECN echo covers packets of one state (DCTCP's
    /// receiver state machine, Alizadeh et al. 2010, 3.1).
    bool exactEcnEcho{false};
    /// An RTT sample with every ACK: the sender keeps the send time of every packet in
    /// flight (sender-side timestamps, as NICs take them) instead of one probe per round
    /// trip.
    bool rttPerAck{false};
    /// Data packets carry an INT header (IntHeader) with room for the NIC's
    /// IntHopCapacity hop records, which every switch on the way stamps as the packet
    /// leaves; the receiver echoes the stack in its ACK, and the sender finds it in
    /// RoceAckSignal::hops (HPCC, Li et al. 2019).
    bool intTelemetry{false};
    /// The receiver acknowledges every in-order packet instead of coalescing AckInterval
    /// of them (as the HPCC simulator runs HPCC): per-packet feedback, and no coalescing
    /// delay on top of the base RTT that window = rate × T assumes.
    bool ackEveryPacket{false};
};

/**
 * \ingroup ai-fabric
 * Congestion control of one queue pair's sending side, as a strategy.
 *
 * The NIC creates one instance per queue pair (from the NIC's CongestionControl
 * attribute), calls Start() once with the line rate, hands it every signal it sees and
 * reads back the sending rate and, for window-based algorithms, a window. New algorithms
 * derive from this class; the NIC never changes for them.
 */
class RoceCongestionControl : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoceCongestionControl();
    ~RoceCongestionControl() override;

    /**
     * The one vocabulary of congestion-control names, for programs, scenario files and
     * helpers alike: a TypeId name derived from ns3::RoceCongestionControl, "none"
     * (ns3::NoCongestionControl), or a deprecated name from before the Roce prefix
     * (ns3::Dcqcn, ns3::Dctcp, ns3::Timely, ns3::Hpcc, ns3::Swift: the same algorithm,
     * with a warning on stderr once per name).
     * \param name the name
     * \param tid set to the congestion control's TypeId on success
     * \return true if name selects a congestion control
     */
    static bool LookupByName(const std::string& name, TypeId* tid);
    /**
     * An attribute path with a deprecated congestion-control name ("ns3::Dcqcn::RateAi",
     * from before the Roce prefix) as the current one ("ns3::RoceDcqcn::RateAi"), with a
     * warning on stderr once per name; any other path as it is. The scenario's
     * fabric.config and the programs' --ns3:: options pass through it.
     * \param path ns3::Class::Attribute
     * \return the path to use
     */
    static std::string ResolveAttributePath(const std::string& path);
    /// \return what LookupByName accepts, for error messages
    static std::string GetNameHint();

    /**
     * Called once before the first packet; starts sending at line rate.
     * \param lineRateBps the NIC's line rate in bit/s
     */
    virtual void Start(uint64_t lineRateBps);
    /**
     * An ACK arrived.
     * \param signal what it acknowledged, its ECN echo and any telemetry
     */
    virtual void OnAck(const RoceAckSignal& signal);
    /// A congestion notification packet arrived for this queue pair.
    virtual void OnCnp();
    /// A NAK (PSN sequence error) arrived.
    virtual void OnNak();
    /// The retransmission timer fired.
    virtual void OnTimeout();
    /**
     * A data packet was sent.
     * \param wireBytes the whole frame on the wire, in bytes
     */
    virtual void OnSend(uint32_t wireBytes);
    /**
     * The queue pair has nothing left to send or acknowledge. Algorithms may stop their
     * timers; whatever they would have done meanwhile they must catch up in OnActive, so
     * that the rate at the next send is the one a running timer would have produced.
     */
    virtual void OnIdle();
    /// The queue pair has data again after OnIdle.
    virtual void OnActive();

    /// \return the signals this algorithm needs beyond the default (none here)
    virtual RoceSignalNeeds GetSignalNeeds() const;
    /**
     * Whether the rate and window stay as they are until a congestion signal (a CNP, an
     * ECN echo, a NAK, a timeout, an RTT or telemetry sample that differs from the last
     * ones): no timer, byte counter or send can change them meanwhile. A fast-forward
     * (RdmaFastForward) skips only queue pairs whose algorithm says so, and sends them no
     * OnSend for the packets it skips. The default is false: an algorithm that does not
     * know is never skipped.
     * \return true if the rate and window are steady
     */
    virtual bool IsRateSteady() const;

    /**
     * Check what the attribute checkers cannot: attributes that must fit together.
     * Programs call it (through RoceHelper::CheckCongestionControl) before they build.
     * \param error set to a one-line reason, naming the attribute, when they do not fit
     * \return true if they fit (the default: always)
     */
    virtual bool CheckConfiguration(std::string* error) const;

    /// \return the current sending rate in bit/s (never above line rate, never zero)
    double GetRateBps() const;
    /**
     * \return the window in payload bytes: the algorithm's, capped by WindowLimit; 0 when
     *         neither imposes one
     */
    uint64_t GetWindowBytes() const;
    uint64_t GetLineRateBps() const; //!< \return the NIC's line rate in bit/s (set by Start)

    /// Signature of the RateChange trace: old and new rate in bit/s.
    typedef void (*RateTracedCallback)(double oldBps, double newBps);

  protected:
    /// Set the rate, clamped to [1 bit/s, line rate]; fires RateChange. \param bps bit/s
    void SetRateBps(double bps);
    void SetWindowBytes(uint64_t bytes); //!< \param bytes window in payload bytes (0: none)

  private:
    uint64_t m_windowLimit{0}; //!< WindowLimit attribute
    uint64_t m_lineRateBps{0};
    double m_rateBps{0};
    uint64_t m_windowBytes{0};
    TracedCallback<double, double> m_rateTrace;
};

} // namespace ns3

#endif
