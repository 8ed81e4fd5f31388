// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_ENGINE_H
#define COLLECTIVE_ENGINE_H

#include "collective-selection.h"
#include "comm-plan.h"

#include "ns3/callback.h"
#include "ns3/collective-transport.h"
#include "ns3/comm-group.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * What the engine reports when a collective call has finished.
 *
 * Bandwidths follow nccl-tests: algBw = bytes / duration (bytes as defined by
 * CollectiveType), busBw = algBw x CollectiveBusBwFactor(type, nRanks). Both are in
 * bytes per second; both are 0 when the duration is 0 (a plan with no transfers).
 */
struct CollectiveResult
{
    uint64_t id{0};                                  //!< the id Run returned
    CollectiveType type{CollectiveType::ALL_REDUCE}; //!< collective
    std::string algorithm;                           //!< CommPlan::GetAlgorithm (may be empty)
    CollectiveProtocol protocol{CollectiveProtocol::NONE}; //!< CommPlan::GetProtocol
    uint32_t nRanks{0};                                    //!< group size
    uint64_t bytes{0};                                     //!< call size (CommPlan::GetTotalBytes)
    uint32_t nTransfers{0};                                //!< transfers executed
    Time start;                                            //!< when Run was called
    Time end;                                              //!< when the last transfer arrived
    double algBw{0};                                       //!< bytes / (end - start), B/s
    double busBw{0};                                       //!< algBw x bus factor, B/s

    /// \return end - start
    Time GetDuration() const
    {
        return end - start;
    }
};

std::ostream& operator<<(std::ostream& os, const CollectiveResult& result);

/**
 * \ingroup ai-fabric
 * Executes CommPlans over a CollectiveTransport.
 *
 * A transfer is handed to the transport as soon as every transfer in its deps has been
 * reported done by the transport (its last byte arrived), never earlier. Transfers that
 * become ready at the same moment are sent in the order they became ready, and those
 * released together in id order, so a generator's issue order (round, then step) reaches
 * a FIFO carrier unchanged. When the last transfer has arrived the call is finished: the
 * CollectiveDone trace fires and then the caller's callback runs.
 *
 * Several calls may run at once on one engine (e.g. the data-parallel all-reduce and a
 * pipeline send); each Run keeps its own state and gets its own id and result. Their
 * transfers share the transport, so they compete for it exactly as the carrier models.
 *
 * Cost: Run is linear in the plan (it precomputes, per transfer, the list of transfers
 * waiting for it and a counter of deps still missing); each completion is O(1) amortized
 * plus its dependents.
 *
 * Hangs: if the carrier never reports some transfer (a lost message, a deadlocked
 * fabric), the simulation simply runs out of events with the call unfinished. The engine
 * sets no timers of its own; GetPendingTransfers() lists what is in flight so a caller or
 * a watchdog can say what is stuck.
 */
class CollectiveEngine : public Object
{
  public:
    /// Called once per Run when the call has finished.
    typedef Callback<void, const CollectiveResult&> DoneCallback;

    /// A transfer handed to the transport that has not been reported done yet.
    struct PendingTransfer
    {
        uint64_t runId{0};    //!< the call it belongs to
        uint32_t transfer{0}; //!< its id in the plan
        uint32_t src{0};      //!< sending rank (transport numbering)
        uint32_t dst{0};      //!< receiving rank (transport numbering)
        uint64_t bytes{0};    //!< payload
        uint32_t channel{0};  //!< channel
        Time sentAt;          //!< when it was handed to the transport
        CommPlan::Kind kind{CommPlan::Kind::POINT_TO_POINT}; //!< point to point or switch
        /// what the carrier moves: the payload in the call's protocol lines (LL 16 bytes
        /// per 8, LL128 128 per 120; CollectiveProtocolWireBytes)
        uint64_t wireBytes{0};
    };

    static TypeId GetTypeId();

    CollectiveEngine();
    ~CollectiveEngine() override;

    /// Set the carrier (also the Transport attribute). Needed before Run.
    void SetTransport(Ptr<CollectiveTransport> transport);
    /// \return the carrier
    Ptr<CollectiveTransport> GetTransport() const;

    /**
     * Start a collective call now. Plan rank r is transport rank r.
     * Aborts, with the reason, if the plan is not well formed (CommPlan::Validate), if no
     * transport is set, or if the plan has more ranks than the transport.
     * \param plan the call; copied what is needed, so the caller may discard it
     * \param done called when the call has finished (may be null)
     * \return the call's id (distinct per engine, from 1)
     */
    uint64_t Run(const CommPlan& plan, DoneCallback done = DoneCallback());

    /**
     * Run a collective call on group (group rank r = carrier rank r), with the plan built
     * by the Algorithm attribute ("auto": the fastest plan by CollectiveSelection's
     * estimates on this carrier; Channels and ChunkBytes apply). Aborts as MakePlan does
     * for an unsupported pair.
     * \return the id of the call
     */
    uint64_t RunCollective(CollectiveType type,
                           const CommGroup& group,
                           uint64_t bytes,
                           DoneCallback done = DoneCallback());

    /**
     * The plan of a collective call as this engine's attributes make it: algorithm (the
     * Algorithm attribute unless the call names one; "auto": the fastest by
     * CollectiveSelection's estimates on this carrier), Channels and ChunkBytes. Calls
     * with the same rankMap share one CollectiveSelection, so auto's choices are kept
     * across them. Aborts as CollectiveSelection::MakePlan does for an unsupported pair.
     * \param type the collective
     * \param group the call's group (its servers and rails)
     * \param bytes call size
     * \param rankMap carrier rank of each group rank (empty: group rank r = carrier rank r)
     * \param root root rank of broadcast and reduce
     * \param algorithm the algorithm (CollectiveAlgorithm::AUTO: the fastest); none for
     *        the Algorithm attribute
     *
eturn the plan (GetAlgorithm names the algorithm taken)
     */
    CommPlan MakeCollectivePlan(CollectiveType type,
                                const CommGroup& group,
                                uint64_t bytes,
                                const std::vector<uint32_t>& rankMap = {},
                                uint32_t root = 0,
                                std::optional<CollectiveAlgorithm> algorithm = {}) const;

    /**
     * The plan MakeCollectivePlan would make, from the plan cache when the same call
     * (collective, rank map, group shape, size, root, algorithm asked for, Channels and
     * ChunkBytes) was planned before: a training step repeats the same calls on the same
     * groups, layer after layer. The cache holds at most PlanCacheTransfers transfers
     * over all plans and forgets the least recently used plans beyond that; a plan is
     * immutable once cached, so a cached plan is the one a new build would make. The
     * carrier's capabilities (what it can reduce where) are taken as fixed between
     * SetTransport calls, which empty the cache.
     * \param type the collective
     * \param group the call's group (its servers and rails)
     * \param bytes call size
     * \param rankMap carrier rank of each group rank (empty: group rank r = carrier rank r)
     * \param root root rank of broadcast and reduce
     * \param algorithm the algorithm (CollectiveAlgorithm::AUTO: the fastest); none for
     *        the Algorithm attribute
     * \return the plan, shared with the cache
     */
    std::shared_ptr<const CommPlan> GetCollectivePlan(
        CollectiveType type,
        const CommGroup& group,
        uint64_t bytes,
        const std::vector<uint32_t>& rankMap = {},
        uint32_t root = 0,
        std::optional<CollectiveAlgorithm> algorithm = {}) const;

    /// How often GetCollectivePlan found its plan in the cache (hits, builds and
    /// evictions count from the engine's creation; plans and transfers are what the
    /// cache holds now).
    struct PlanCacheStats
    {
        uint64_t hits{0};      //!< calls answered from the cache
        uint64_t builds{0};    //!< plans built (not in the cache)
        uint64_t evictions{0}; //!< plans forgotten to stay within PlanCacheTransfers
        uint64_t plans{0};     //!< plans held now
        uint64_t transfers{0}; //!< their transfers
        /// "auto" choices made by estimating every candidate on the carrier
        uint64_t choicesEstimated{0};
        /// "auto" choices taken from another group's, the carrier describing both alike
        /// (CollectiveSelection::ChoiceBook)
        uint64_t choicesShared{0};
    };

    /// \return the plan cache's counters
    PlanCacheStats GetPlanCacheStats() const;

    /**
     * The plan of a send/recv of bytes from plan rank 0 to plan rank 1 over the Channels
     * attribute's channels.
     * \param bytes message size
     *
eturn the plan
     */
    CommPlan MakeSendRecvPlan(uint64_t bytes) const;

    /// \return the Algorithm attribute's name ("auto" or an algorithm)
    std::string GetAlgorithmName() const;
    /// \return the Protocol attribute ("auto", a protocol, or "none")
    CollectiveProtocol GetProtocol() const;

    /**
     * Start a collective call now on some of the transport's ranks: plan rank r is
     * transport rank rankMap[r] (e.g. the data-parallel peers of one tensor slice).
     * Aborts as Run above, if rankMap has not one entry per plan rank, names a rank
     * the transport does not have, or repeats a rank, and if a switch transfer's ranks
     * are ones the carrier cannot reduce or multicast over (CanReduceInSwitch,
     * CanReduceInNetwork, CanAllReduceInNetwork).
     * \param plan the call
     * \param rankMap transport rank of each plan rank
     * \param done called when the call has finished (may be null)
     * \return the call's id
     */
    uint64_t Run(const CommPlan& plan,
                 const std::vector<uint32_t>& rankMap,
                 DoneCallback done = DoneCallback());

    /**
     * Run a plan that MakeCollectivePlan made with the same rankMap: as Run, but without
     * asking the carrier again what it can reduce where (its CollectiveSelection did when
     * it chose the plan). The workload runner's path.
     * \param plan the call, from MakeCollectivePlan
     * \param rankMap transport rank of each plan rank (the one given to MakeCollectivePlan)
     * \param done called when the call has finished (may be null)
     * \param alone the caller knows that no other call can post on the call's isolated
     *        carrier while it runs (a workload whose GPUs have one stream of calls inside
     *        their server): only such calls are replayed (ReplayIsolatedCalls)
     * \return the call's id
     */
    uint64_t RunSelected(const CommPlan& plan,
                         const std::vector<uint32_t>& rankMap,
                         DoneCallback done = DoneCallback(),
                         bool alone = false);

    /// \return the ReplayIsolatedCalls attribute
    bool GetReplayIsolatedCalls() const;

    /// What call replay (ReplayIsolatedCalls) did.
    struct ReplayStats
    {
        uint64_t recorded{0}; //!< calls recorded (simulated, then kept for replay)
        uint64_t replayed{0}; //!< calls replayed instead of simulated
        uint64_t voided{0};   //!< recordings given up: something else shared the carrier,
                              //!< it was not quiet at the end, or the plan cache changed
    };

    /// \return the call replay's counters
    ReplayStats GetReplayStats() const;

    /// \return number of calls started and not yet finished
    uint32_t GetNRunning() const;
    /// \return true if call id has started and not yet finished
    bool IsRunning(uint64_t id) const;
    /// \return number of transfers in flight over all running calls (O(number of calls))
    uint64_t GetNPendingTransfers() const;
    /**
     * For hang diagnosis: every transfer handed to the transport and not yet reported
     * done, over all running calls, by call id then transfer id. Walks every running
     * plan, so it is meant for reports, not for the hot path.
     * \return the pending transfers
     */
    std::vector<PendingTransfer> GetPendingTransfers() const;

    /**
     * Signature of the CollectiveDone trace source.
     * \param result the finished call
     */
    typedef void (*CollectiveDoneTracedCallback)(const CollectiveResult& result);
    /**
     * Signature of the FlowCompleted trace source.
     * \param flow the transfer, with sentAt its start (the flow's completion time is now)
     */
    typedef void (*FlowTracedCallback)(const PendingTransfer& flow);

    /**
     * Signature of the TransferStarted and TransferDone trace sources.
     * \param runId the call
     * \param transfer transfer id in its plan
     */
    typedef void (*TransferTracedCallback)(uint64_t runId, uint32_t transfer);

  protected:
    void DoDispose() override;

  private:
    /// Abort unless the plan is well formed (if validate) and rankMap maps it onto
    /// distinct carrier ranks.
    void CheckRankMap(const CommPlan& plan,
                      const std::vector<uint32_t>& rankMap,
                      bool validate = true) const;
    /// Abort unless the carrier can run every switch transfer over its ranks.
    void CheckCarrier(const CommPlan& plan, const std::vector<uint32_t>& rankMap) const;
    /// \return the plan's member sets as carrier ranks
    static std::vector<std::vector<uint32_t>> CarrierMemberSets(
        const CommPlan& plan,
        const std::vector<uint32_t>& rankMap);
    /// Start a checked plan. \return the call's id
    /// \param alone RunSelected's: the call may be replayed
    uint64_t Start(const CommPlan& plan,
                   const std::vector<uint32_t>& rankMap,
                   DoneCallback done,
                   bool alone = false);

    /// Per-transfer execution state, kept compact: plans can have millions of transfers.
    struct TransferState
    {
        uint32_t src;
        uint32_t dst;
        uint64_t bytes;     //!< payload
        uint64_t wireBytes; //!< what the protocol puts on the wire (handed to the carrier)
        Time latency;       //!< the protocol's step latency before it is handed over
        Time minDuration;   //!< from hand-over to when its rate server is through (0: none)
        uint32_t channel;
        CommPlan::Kind kind;
        uint32_t members;     //!< switch transfers: member set (RunState::memberSets)
        uint32_t missingDeps; //!< deps not yet done; the transfer is sent when it hits 0
        bool sent;            //!< handed to the transport
        bool done;            //!< reported done by the transport
        Time sentAt;          //!< when it was handed to the transport
    };

    /// Everything one Run needs.
    struct RunState
    {
        CollectiveResult result;                       //!< filled in as the call proceeds
        std::vector<TransferState> transfers;          //!< indexed by transfer id
        std::vector<uint32_t> dependentsBegin;         //!< CSR offsets into dependents, size T+1
        std::vector<uint32_t> dependents;              //!< transfers waiting on each transfer
        uint32_t nDone{0};                             //!< transfers reported done
        uint32_t nInFlight{0};                         //!< sent and not done
        std::vector<std::vector<uint32_t>> memberSets; //!< the plan's member sets, as
                                                       //!< transport ranks
        DoneCallback done;                             //!< the caller's callback
        /// The protocol's costs of the call (its rate servers)
        std::shared_ptr<const CollectiveProtocolCosts> protocol;
        std::map<uint64_t, Time> serverFree; //!< per rate server: when it is free
        /// Call replay: the isolated carrier the call is being recorded on (else null)
        Ptr<CollectiveTransport> recordOn;
        Ptr<CarrierRecord> record;     //!< its record so far
        const CommPlan* plan{nullptr}; //!< the cached plan recorded
        std::vector<uint32_t> rankMap; //!< and its rank map
        uint64_t generation{0};        //!< m_planGeneration when it started
    };

    /// What makes two calls the same for replay: carrier, plan and ranks.
    struct ReplayKey
    {
        const CollectiveTransport* carrier; //!< the isolated carrier
        const CommPlan* plan;               //!< a cached (immutable) plan
        std::vector<uint32_t> rankMap;      //!< carrier rank of each plan rank

        /// \param o another key \return a strict weak order over keys
        bool operator<(const ReplayKey& o) const;
    };

    /**
     * Call replay, when a call starts: replay it if its isolated carrier is quiet and it
     * was recorded there, otherwise start recording it if it is quiet.
     * \param id the call
     * \param plan its plan
     * \param rankMap carrier rank of each plan rank
     * \return true when replayed (nothing else to do)
     */
    bool TryReplay(uint64_t id, const CommPlan& plan, const std::vector<uint32_t>& rankMap);
    /// A replayed call's time is up: report its transfers done, then finish it.
    void FinishReplay(uint64_t runId);
    /// A recorded call has finished: keep its record if it had its carrier to itself.
    void EndRecord(RunState& run);
    /// Forget the records of a plan the cache forgets. \param plan the plan
    void ForgetReplays(const CommPlan* plan) const;

    /// A transfer's deps are done: queue it for sending after its step latency (plus extra).
    void Release(uint64_t runId, uint32_t transfer, Time extra = Time(0));
    /// Queue a transfer whose latency has passed, and send what is queued.
    void ReleaseNow(uint64_t runId, uint32_t transfer);
    /// Send every queued transfer (safe if the transport calls back inside Send).
    void SendReleased();
    /// The transport reports transfer of run runId done.
    void TransferDone(uint64_t runId, uint32_t transfer);
    /**
     * \param runId a call
     * \param transfer a transfer of it
     * \param ts its state
     * \return the transfer as FlowCompleted and GetPendingTransfers report it
     */
    static PendingTransfer Describe(uint64_t runId, uint32_t transfer, const TransferState& ts);
    /// Report and forget a finished run.
    void Finish(uint64_t runId);

    Ptr<CollectiveTransport> m_transport;                       //!< the carrier
    CollectiveAlgorithm m_algorithm{CollectiveAlgorithm::AUTO}; //!< Algorithm attribute
    CollectiveProtocol m_protocol{CollectiveProtocol::AUTO};    //!< Protocol attribute
    Time m_netOverhead;                                         //!< NetOverhead attribute
    /// Plans on m_transport by rank map (keeps auto's choices across calls)
    mutable std::map<std::vector<uint32_t>, CollectiveSelection> m_selections;
    /// the selections' shared choices (for the current carrier)
    std::shared_ptr<CollectiveSelection::ChoiceBook> m_choiceBook;

    /// What makes two GetCollectivePlan calls the same call.
    struct PlanKey
    {
        std::vector<uint32_t> rankMap; //!< carrier rank of each group rank
        std::vector<uint32_t> shape;   //!< server and local GPU of each group rank
        int type;                      //!< CollectiveType
        int algorithm;                 //!< CollectiveAlgorithm asked for (AUTO included)
        uint64_t bytes;                //!< call size
        uint32_t root;                 //!< root rank
        uint32_t channels;             //!< Channels when planned
        uint64_t chunkBytes;           //!< ChunkBytes when planned
        int protocol;                  //!< Protocol when planned
        int64_t netOverhead;           //!< NetOverhead when planned (time steps)
        uint32_t ringTransfersPerPhase; //!< RingTransfersPerPhase when planned

        /// \param o another key \return a strict weak order over keys
        bool operator<(const PlanKey& o) const;
    };

    /// A cached plan and when it was last asked for.
    struct CachedPlan
    {
        std::shared_ptr<const CommPlan> plan; //!< the plan
        uint64_t lastUse{0};                  //!< m_planUses when last asked for
    };

    /// Forget the least recently used plans until the cache holds at most transfers.
    void TrimPlans(uint64_t transfers) const;

    uint64_t m_planCacheTransfers{0};              //!< PlanCacheTransfers attribute
    mutable std::map<PlanKey, CachedPlan> m_plans; //!< the plan cache
    mutable uint64_t m_planUses{0};                //!< GetCollectivePlan calls so far
    mutable PlanCacheStats m_planStats;            //!< its counters
    /// The cached plans, and whether RunSelected has validated each (then it checks only
    /// the ranks of a run)
    mutable std::unordered_map<const CommPlan*, bool> m_validated;
    uint32_t m_channels{1};                        //!< ring channels
    uint64_t m_chunkBytes{0};                      //!< chunk size (0: each algorithm's default)
    uint32_t m_ringTransfersPerPhase{0};           //!< RingTransfersPerPhase attribute
    uint64_t m_nextId{1};                          //!< id of the next Run
    std::unordered_map<uint64_t, RunState> m_runs; //!< running calls
    std::vector<std::pair<uint64_t, uint32_t>> m_ready; //!< released, not yet sent
    size_t m_readyHead{0};                              //!< next entry of m_ready to send
    bool m_sending{false};                              //!< SendReleased is on the stack

    bool m_replay{false}; //!< ReplayIsolatedCalls
    /// Bumps when a cached plan may go (an eviction, SetTransport): a recording that
    /// began before names a plan that may be gone
    mutable uint64_t m_planGeneration{0};
    /// Recorded calls (mutable: the plan cache's evictions forget theirs)
    mutable std::map<ReplayKey, Ptr<CarrierRecord>> m_replayBook;
    ReplayStats m_replayStats; //!< GetReplayStats

    TracedCallback<const CollectiveResult&> m_doneTrace;         //!< CollectiveDone
    TracedCallback<uint64_t, uint32_t> m_transferStartedTrace;   //!< TransferStarted
    TracedCallback<uint64_t, uint32_t> m_transferDoneTrace;      //!< TransferDone
    TracedCallback<const PendingTransfer&> m_flowCompletedTrace; //!< FlowCompleted
};

} // namespace ns3

#endif // COLLECTIVE_ENGINE_H
