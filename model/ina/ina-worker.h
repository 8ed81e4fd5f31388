// SPDX-License-Identifier: GPL-2.0-only
#ifndef INA_WORKER_H
#define INA_WORKER_H

#include "ina-frame.h"
#include "ina-header.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/rdma-nic.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * What a worker needs to know of an aggregation job: set by the controller (InaHelper)
 * once the job's tree is in place.
 */
struct InaJobInfo
{
    uint16_t job{0};           //!< job id
    uint16_t workers{0};       //!< workers of the job (the count every result must carry)
    uint32_t poolSlots{0};     //!< slots of the job's pool: the worker's window
    uint32_t fragmentBytes{0}; //!< value bytes per packet (at most the slots' size)
    uint8_t priority{3};       //!< traffic class of the job's packets
    InaProtocol protocol{InaProtocol::SWITCHML}; //!< how the switches aggregate
    uint16_t rank{0};                            //!< this worker's rank in the job
    /// Streaming: every worker's address by rank (fragment q's fallback host is worker
    /// q mod workers).
    std::vector<Ipv4Address> addresses;
};

/**
 * \ingroup ai-fabric
 * Who gives values to an in-network reduction and who needs its sum. The default, every
 * worker for both, is an all-reduce. A single source is a multicast (broadcast,
 * all-gather): the other workers contribute zeros, which take no bytes (their DATA
 * packets are NO_VALUES). A single destination is a reduce (reduce, reduce-scatter): the
 * switches send the sum's values toward that worker only and acknowledge the others
 * (DIRECTED; jobs of at most ina::MAX_DIRECTED_WORKERS workers).
 */
struct InaReductionRoles
{
    /// Every worker (the default of both fields).
    static constexpr uint16_t EVERY = UINT16_MAX;

    uint16_t source{EVERY};      //!< rank of the only worker whose values count
    uint16_t destination{EVERY}; //!< rank of the only worker that needs the sum
};

/**
 * \ingroup ai-fabric
 * Result of one in-network reduction at one worker.
 */
struct InaReduction
{
    uint16_t job{0};              //!< the job
    uint64_t bytes{0};            //!< value bytes reduced
    uint32_t fragments{0};        //!< packets of values sent (first transmissions)
    Time start;                   //!< when it started
    Time end;                     //!< when the last result arrived
    uint64_t retransmissions{0};  //!< fragments sent again after a timeout
    uint64_t duplicateResults{0}; //!< results that arrived for a fragment already done
    uint64_t wrongCounts{0};      //!< results whose count was not the job's workers
    uint64_t ecnEchoes{0};        //!< results that echoed a CE mark
    uint64_t fallbackBytes{0};    //!< streaming: value bytes summed by a fallback host
    uint64_t valuesSent{0};       //!< value bytes this worker sent (first transmissions)
    uint64_t valuesReceived{0};   //!< value bytes in the results of its fragments
    uint32_t minWindow{0};        //!< streaming: the smallest window reached, in fragments
    bool failed{false};           //!< gave up: a fragment was sent MaxRetransmissions times
};

/**
 * \ingroup ai-fabric
 * \brief The worker side of in-network aggregation (SwitchML-like), on an RdmaNic's port.
 *
 * A reduction of S bytes is cut into fragments of fragmentBytes; fragment q goes into
 * slot q mod k of the job's pool (k = poolSlots) and copy (q div k) mod 2, so a worker
 * keeps at most k fragments outstanding and reuses a slot only after its result came
 * back (the result is the acknowledgement). A fragment whose result has not arrived
 * RetransmitTimeout after it left the port (after the worker's own frames queued ahead
 * of it) is sent again (the switch ignores the duplicate by
 * its bitmap, or answers it with the result). The reduction is done when every
 * fragment's result has arrived; each result must carry the job's worker count. A
 * fragment sent MaxRetransmissions times without a result ends the reduction as failed
 * (a tree that lost a switch, a job set up on one side only) instead of retrying forever.
 *
 * Streaming jobs (InaProtocol::STREAMING) send fragments in order within a window of
 * at most poolSlots fragments past the oldest outstanding one, and at most cwnd
 * outstanding: cwnd starts at poolSlots, grows by 1/cwnd per result and halves when a
 * result echoes CE (once per window) or a timeout fires, as ATP's workers do. A
 * fragment's DATA names its aggregator (slot = job hash + sequence) and its sender (its
 * rank's bit). The worker is also the fallback host of the fragments q with q mod n =
 * rank: it sums the contributions the switches could not aggregate, multicasts the result
 * when it has every worker's, and answers a retransmission with the result once it has
 * it; a fallback host missing a result every other worker has asks them in turn.
 *
 * Frames are queued on the NIC's port ahead of the NIC's RDMA traffic and received
 * through RdmaNic::SetUdpReceiveCallback, so INA and RDMA share the link.
 */
class InaWorker : public Object
{
  public:
    /// Called when a reduction is done.
    typedef Callback<void, const InaReduction&> DoneCallback;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    InaWorker();
    ~InaWorker() override;

    /**
     * Use a NIC's port for INA: takes the NIC's INA receive hook.
     * \param nic the worker's NIC (its address is the worker's)
     */
    void SetNic(Ptr<RdmaNic> nic);
    /// \return the NIC (null before SetNic)
    Ptr<RdmaNic> GetNic() const;

    /**
     * Join a job (its tree is set up on the switches).
     * \param info the job
     */
    void AddJob(const InaJobInfo& info);

    /**
     * Reduce bytes of values with the other workers of job. The job's reductions form
     * one stream: their fragments are numbered on from one to the next (so every
     * worker's n-th fragment meets the others' in the same slot), a reduction's
     * fragments follow the previous one's as the window allows, without waiting for
     * its results, and reductions are reported in call order. Every worker of the job
     * must ask for the same reductions (sizes and roles) in the same order. Aborts if
     * the job is unknown or the roles name a rank outside it.
     * \param job the job
     * \param bytes value bytes (at least 1)
     * \param done called when every result has arrived (may be null)
     * \param roles who gives values and who needs the sum (default: all-reduce)
     */
    void Reduce(uint16_t job,
                uint64_t bytes,
                DoneCallback done,
                InaReductionRoles roles = InaReductionRoles());

    /**
     * \param job a job id
     * \return whether a reduction of the job is not yet reported
     */
    bool IsBusy(uint16_t job) const;

    /**
     * Signature of the ReductionDone trace.
     * \param reduction the finished reduction
     */
    typedef void (*ReductionTracedCallback)(const InaReduction& reduction);

  protected:
    void DoDispose() override;

  private:
    /// A slot of the job's pool as the worker sees it: the one fragment it holds.
    struct PoolSlot
    {
        uint32_t sequence{0}; //!< the fragment last sent into it
        Time sentAt;          //!< its last transmission
        uint32_t retries{0};  //!< retransmissions of that fragment
        bool done{true};      //!< its result arrived
    };

    /// What a streaming fallback host holds of one fragment.
    struct Fallback
    {
        uint64_t workers{0};    //!< workers summed (by rank)
        uint64_t requesters{0}; //!< workers that asked for the result
        uint16_t count{0};      //!< workers summed
        uint16_t length{0};     //!< value bytes
        uint32_t asked{0};      //!< workers asked for a result this host lacks
        bool values{false};     //!< some contribution carried values
    };

    /// One reduction asked for: a run of consecutive job sequences.
    struct Segment
    {
        uint32_t base{0};        //!< job sequence of its first fragment
        uint32_t done{0};        //!< fragments whose result arrived
        InaReduction result;     //!< filled in as it goes
        DoneCallback callback;   //!< the caller's
        InaReductionRoles roles; //!< who gives values, who needs the sum
    };

    /// A job's stream of reductions (memory: one PoolSlot per slot, not per fragment).
    struct Run
    {
        InaJobInfo info;               //!< the job
        std::deque<Segment> segments;  //!< reductions not yet reported, in call order
        uint32_t nextBase{0};          //!< job sequence after the last one asked for
        uint32_t nextToSend{0};        //!< job sequence of the next new fragment
        std::vector<PoolSlot> slots;   //!< by slot index
        std::deque<uint32_t> timeouts; //!< fragments by send time (stale entries skipped)
        // streaming
        double cwnd{0};                         //!< window, in fragments
        uint32_t lowest{0};                     //!< oldest fragment not known done
        uint32_t outstanding{0};                //!< fragments sent, result not arrived
        uint32_t recover{0};                    //!< no window cut for results before this
        std::map<uint32_t, Fallback> fallbacks; //!< as fallback host, by sequence
    };

    /// \return whether fragment q of run is outstanding (sent, result not arrived)
    static bool Outstanding(const Run& run, uint32_t q);
    /// \return the segment of run that holds job sequence q (null if none)
    static Segment* SegmentOf(Run& run, uint32_t q);

    /// Send what the window allows: streaming, in order within cwnd and the pool;
    /// switchml, every fragment whose slot is free.
    void SendWindow(Run& run);
    /// Send fragment q (job sequence) of run (first time or again).
    void SendFragment(Run& run, uint32_t q, bool retransmission);
    /// Report the finished reductions at the front of run, in call order.
    void FinishDone(Run& run);
    /// Give up every reduction of run (a fragment was never answered).
    void Fail(Run& run);
    /// An INA frame arrived.
    void Receive(Ptr<Packet> frame, const RoceFrameInfo& info);
    /// A RESULT for run's job arrived (or a fallback host made one).
    void OnResult(Run& run, const InaHeader& h);
    /// Streaming: a contribution or a request reached this worker as fallback host.
    void OnFallbackData(Run& run, const InaHeader& h);
    /// Fallback host: send the result of h's fragment again to requester, who asked for it
    void ResendResult(Run& run, const InaHeader& h, int32_t requester, uint64_t all);
    /// \return whether h's workers were new to f (then their contribution is added to it)
    static bool AddFallbackContribution(Fallback& f, const InaHeader& h);
    /// \return the RESULT a fallback host makes of f, which holds every worker of h's fragment
    static InaHeader FallbackResult(const InaHeader& h, const Fallback& f);
    /// Fallback host: multicast result r down the tree and take it here (values: f.values)
    void DeliverFallbackResult(Run& run, InaHeader& r, bool values);
    /**
     * \param run the job
     * \param h a packet of the job
     * \param rank a worker
     * \return whether the worker needs (and, once it has the result, holds) the values of
     *         h's sum (InaNeedsValues)
     */
    static bool NeedsValues(const Run& run, const InaHeader& h, uint32_t rank);
    /// Queue an INA frame to dst on the NIC's port.
    void SendFrame(const InaHeader& h, Ipv4Address dst, uint8_t priority);
    /// \return whether the result of fragment q of run's job has arrived here
    static bool HasResult(const Run& run, uint32_t q);
    /// \return the aggregator a streaming fragment names
    static uint32_t AggregatorOf(uint16_t job, uint32_t q);
    /// Arm the timer for the oldest outstanding fragment.
    void ArmTimer(uint16_t job);
    /// The timer of job fired.
    void OnTimeout(uint16_t job);
    /// \return bytes of segment's fragment q (a job sequence)
    uint16_t FragmentLength(const Run& run, const Segment& segment, uint32_t q) const;

    Time m_rto;                           //!< RetransmitTimeout attribute
    uint32_t m_maxRetransmissions;        //!< MaxRetransmissions attribute
    Time m_portFreeAt;                    //!< when the frames this worker queued have left
    Ptr<RdmaNic> m_nic;                   //!< the port's NIC
    InaFrameAddress m_address;            //!< frame fields toward the first switch
    std::map<uint16_t, Run> m_runs;       //!< by job
    std::map<uint16_t, EventId> m_timers; //!< retransmission timer by job

    TracedCallback<const InaReduction&> m_doneTrace; //!< ReductionDone
};

} // namespace ns3

#endif /* INA_WORKER_H */
