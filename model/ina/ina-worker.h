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
     * Reduce bytes of values with the other workers of job: now, or after the job's
     * reductions already asked for (they run one after another, in call order, and their
     * fragments are numbered on from one to the next, so every worker's n-th fragment
     * meets the others' in the same slot). Aborts if the job is unknown.
     * \param job the job
     * \param bytes value bytes (at least 1)
     * \param done called when every result has arrived (may be null)
     */
    void Reduce(uint16_t job, uint64_t bytes, DoneCallback done);

    /**
     * \param job a job id
     * \return whether a reduction of the job is running (others may be queued)
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

    /// A reduction in progress (memory: one PoolSlot per slot, not per fragment).
    struct Run
    {
        InaJobInfo info;      //!< the job
        InaReduction result;  //!< filled in as it goes
        uint32_t base{0};     //!< job sequence of the reduction's first fragment
        uint32_t nextBase{0}; //!< job sequence of the next reduction's first
        std::deque<std::pair<uint64_t, DoneCallback>> queue; //!< reductions waiting
        uint32_t done{0};                                    //!< fragments whose result arrived
        std::vector<PoolSlot> slots;                         //!< by slot index
        std::deque<uint32_t> timeouts; //!< fragments by send time (stale entries skipped)
        DoneCallback callback;         //!< the caller's
        bool active{false};            //!< a reduction is running
    };

    /// \return whether fragment q of run is outstanding (sent, result not arrived)
    static bool Outstanding(const Run& run, uint32_t q);

    /// Start a reduction of bytes on run's job now.
    void Start(Run& run, uint64_t bytes, DoneCallback done);
    /// Send fragment q (job sequence) of run (first time or again).
    void SendFragment(Run& run, uint32_t q, bool retransmission);
    /// End run (done or failed): report it.
    void Finish(Run& run);
    /// A RESULT frame arrived.
    void Receive(Ptr<Packet> frame, const RoceFrameInfo& info);
    /// Arm the timer for the oldest outstanding fragment.
    void ArmTimer(uint16_t job);
    /// The timer of job fired.
    void OnTimeout(uint16_t job);
    /// \return bytes of the reduction's fragment q (0 = its first)
    static uint16_t FragmentLength(const Run& run, uint32_t q);

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
