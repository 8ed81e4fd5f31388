// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_DCQCN_TERM_H
#define COLLECTIVE_DCQCN_TERM_H

#include "ns3/collective-transport.h"
#include "ns3/roce-dcqcn-fluid.h"

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The cost model's term for DCQCN (used by CollectivePlanCost): what the rate cuts of a
 * plan's flows cost when its transfers queue at a receiving port past the switch's ECN
 * threshold.
 *
 * Each flow (sender, receiver, channel: the queue pairs of one connection) carries a
 * RoceDcqcnFluid. When a slice of the flow leaves the receiving port's queue, it is marked
 * with RED's probability at the length of the queue behind it then (the estimate's backlog
 * of that port, in bytes; switches mark as frames leave), per packet (CarrierQueue Kmin,
 * Kmax, Pmax). The receiver sends a CNP for the first mark after CnpInterval has passed
 * since its last one: expected marks are counted from the end of that interval, and a CNP
 * goes when they reach one (the mean of RED's geometric wait for a mark), back at the
 * sender one path latency later. The flow's slices leave at the fluid's rate as it moves.
 *
 * PFC: a port's queue cannot hold more than its inputs' dynamic thresholds allow (the
 * senders with transfers in service into it, each Alpha × the shared pool left after every
 * queue of the same buffer in the estimate, Capacity); a slice that would find more waits
 * at its sender, which is paused meanwhile (CollectivePlanCost). So a lone 2:1 incast on a
 * switch marks (its 1.6 MB Kmin at 400G is reached long before the threshold), while many
 * incasts on one switch leave each port's share below Kmin and are held by pauses instead,
 * as the packet model shows.
 *
 * Each flow's first CNP waits for its own draw of that wait (an exponential of mean one
 * mark, from a fraction that differs per flow), so the flows of one queue are not cut in
 * lockstep. The term acts on ports with at most
 * MAX_INPUTS senders (Acts); beyond, its slices go as without it.
 *
 * What it leaves out: queues inside the fabric (only the receiving port's), the queue pairs
 * of one connection taken as one flow, the randomness of RED, and DCQCN into ports of many
 * senders.
 */
class CollectiveDcqcnTerm
{
  public:
    /// A transfer is moved in at most this many slices under the term.
    static constexpr uint64_t MAX_SLICES = 1024;
    /// The term acts on receiving ports with at most this many senders in service: the
    /// incasts it is checked on (2:1 and 4:1, nvls-tree's and tree's parents).
    static constexpr size_t MAX_INPUTS = 4;

    /// \param p a path \return whether the term applies to transfers over it
    static bool Applies(const CarrierPath& p);

    /**
     * \param p a path the term applies to
     * \return whether it acts on the next slice over p: its receiving port has at most
     *         MAX_INPUTS senders with transfers in service. Into a port of many senders
     *         (an all-to-all's) the packet model keeps the port busy (its random marks
     *         cut the flows at different times, and the others fill in), which marks
     *         counted in expectation do not reproduce: there the slices go as without
     *         the term (they still count in the buffer's queues)
     */
    bool Acts(const CarrierPath& p) const;

    /**
     * \param flow a flow \param p its path \param now when its next slice leaves
     * \param unit the slice the estimate would move without the term
     * \param transfer the bytes of the slice's transfer
     * \return the slice to move: unit while the flow is at line rate and its receiving
     *         port's queue below a quarter of Kmin; else a quarter of a RateDecreasePeriod
     *         at the flow's rate, so that cuts, CNPs, the byte counter and PFC's pauses
     *         interleave with its bytes as they do in the NIC, but at least a packet and
     *         a MAX_SLICES-th of the transfer (and at most unit)
     */
    uint64_t SliceBytes(uint64_t flow,
                        const CarrierPath& p,
                        double now,
                        uint64_t unit,
                        uint64_t transfer);

    /**
     * A transfer over p enters (on) or leaves its receiving port's set of inputs.
     * \param p its path \param on entering
     */
    void InService(const CarrierPath& p, bool on);

    /**
     * A slice of flow leaves at now: apply the CNPs that have reached the sender by now and
     * send it at the flow's rate as it moves (RoceDcqcnFluid::Transmit).
     * \param flow the flow \param p its path \param now when the slice starts to leave
     * \param ser its time at line rate, in seconds
     * \return its time at the flow's rate (ser at line rate)
     */
    double Send(uint64_t flow, const CarrierPath& p, double now, double ser);

    /**
     * A slice's bytes join the receiving port's queue from from on (the estimate's
     * receiving port serves them from start to done); book them, in the port's order.
     * \param p their path \param from when they arrive \param start when the port
     *        starts on them \param done when it is through \param bytes how many
     */
    void Book(const CarrierPath& p, double from, double start, double done, double bytes);

    /**
     * \param p a slice's path \param now the estimate's time \param done when the slice
     *        will have left its receiving port
     * \return whether the queue behind it then could pass Kmin (what is booked there and
     *         not gone, and what every input could send until then): if not, it needs no
     *         marking
     */
    bool MayMark(const CarrierPath& p, double now, double done);

    /**
     * PFC: how long a slice that would join the receiving port's queue at from waits at
     * its sender, until the queue is down to what the port may hold (Capacity).
     * \param p its path \param from when it would arrive \param now the estimate's time
     * \return seconds (0 without PFC)
     */
    double Hold(const CarrierPath& p, double from, double now);

    /**
     * \param rxPort a receiving port \param t a time, not before now
     * \param now the estimate's time (slices gone by then are forgotten)
     * \return the bytes queued at the port at t: booked slices there by t, less what the
     *         port has served of them
     */
    double QueueAt(uint64_t rxPort, double t, double now);

    /**
     * PFC's bound on a receiving port's queue: what its inputs may hold under the dynamic
     * threshold, on the shared pool the buffer's queues leave at that time.
     * \param p a path into the port \param at the time \param now the estimate's time
     * \return bytes (infinite without PFC)
     */
    double Capacity(const CarrierPath& p, double at, double now);

    /**
     * A slice of flow left the receiving port from from to done with queued bytes behind
     * it: mark it and book its CNPs (handle slices in the order of done).
     * \param flow the flow \param p its path \param slice its payload bytes
     * \param from when its first bytes left \param done when its last did
     * \param queued the receiving port's queue behind it, in bytes
     */
    void Arrived(uint64_t flow,
                 const CarrierPath& p,
                 uint64_t slice,
                 double from,
                 double done,
                 double queued);

    /// \return the rate cuts of every flow so far
    uint64_t GetCuts() const;
    /// \return the CNPs booked so far
    uint64_t GetCnps() const;

  private:
    /// One flow's DCQCN.
    struct Flow
    {
        /// \param r its reaction point, at line rate
        explicit Flow(const RoceDcqcnFluid& r)
            : rate(r)
        {
        }

        RoceDcqcnFluid rate;     //!< its reaction point
        std::deque<double> cnps; //!< CNPs on their way back, by time
        double marks{0};         //!< expected marks since the CNP interval ended
        double need{1};          //!< expected marks that make the next CNP
        double lastCnp{-1};      //!< the receiver's last CNP, s
        bool sending{false};     //!< its last slice's bytes are not counted yet
        double sendStart{0};     //!< that slice started to leave
        double sendEnd{0};       //!< and was gone
        uint64_t sendBytes{0};   //!< its bytes on the wire
        uint64_t sendCounted{0}; //!< of which counted
    };

    /// \return the senders with transfers in service into rxPort (at least one)
    double InputsOf(uint64_t rxPort) const;
    /// \return flow's state, created at line rate
    Flow& FlowOf(uint64_t flow, const CarrierPath& p);
    /// \return flow's state with the CNPs that have reached it by now applied
    Flow& CatchUp(uint64_t flow, const CarrierPath& p, double now);

    std::unordered_map<uint64_t, Flow> m_flows; //!< by flow
    /// per receiving port: transfers in service by sending port
    std::unordered_map<uint64_t, std::unordered_map<uint64_t, uint32_t>> m_inputs;

    /// A slice booked at a receiving port.
    struct Slice
    {
        double from;  //!< its bytes arrive
        double start; //!< the port starts on them
        double done;  //!< the port is through
        double bytes; //!< how many
        double upTo;  //!< bytes booked at the port up to and with this slice
    };

    /// A receiving port's slices not yet gone, in booking order.
    struct Port
    {
        std::deque<Slice> slices; //!< booked, not gone before the estimate's time
        double booked{0};         //!< bytes ever booked
        uint64_t buffer{0};       //!< the buffer it is in
    };

    /// Forget the port's slices gone by now. \return the port (null: nothing booked)
    Port* Prune(uint64_t rxPort, double now);

    /// per buffer: its receiving ports
    std::unordered_map<uint64_t, std::vector<uint64_t>> m_buffers;
    std::unordered_map<uint64_t, Port> m_queues; //!< per receiving port
    /// per buffer: booked bytes not yet forgotten (at least those not gone)
    std::unordered_map<uint64_t, double> m_pending;
    uint64_t m_cnps{0}; //!< CNPs booked
};

} // namespace ns3

#endif
