// SPDX-License-Identifier: GPL-2.0-only
#ifndef WORKLOAD_RUNNER_H
#define WORKLOAD_RUNNER_H

#include "training-trace.h"

#include "ns3/collective-engine.h"
#include "ns3/comm-group.h"
#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{

/// One op as it ran (for timelines and breakdowns). Its name is the trace's
/// (WorkloadRunner::GetOpName): a 1,024-GPU iteration finishes over a million ops.
struct OpRecord
{
    uint32_t rank{0};
    uint32_t op{0}; //!< index in the rank's trace
    uint32_t stream{0};
    uint32_t iteration{0}; //!< repetition x trace iterations + the op's iteration
    TraceOpKind kind{TraceOpKind::COMPUTE};
    Time start;       //!< when the rank reached it (deps done, stream free)
    Time end;         //!< when it finished on this rank
    int64_t call{-1}; //!< index into GetCalls() for communication ops
};

/// One collective call or send/recv pair as the engine ran it.
struct CallRecord
{
    TraceLabel group;                                //!< group name ("" for send/recv)
    CollectiveType type{CollectiveType::ALL_REDUCE}; //!< SEND_RECV for point to point
    TraceLabel algorithm; //!< the plan's algorithm (what auto chose, if it was asked)
    TraceLabel requested; //!< the algorithm asked for: a name or "auto"
    TraceLabel protocol;  //!< the plan's NCCL protocol (CollectiveProtocolToString)
    TraceLabel name;      //!< the op's name (first member's)
    uint32_t nRanks{0};
    uint64_t bytes{0};
    uint32_t tag{0}; //!< send/recv: the tag
    uint32_t iteration{0};
    Time firstArrival;    //!< first member reached it
    Time launch;          //!< last member reached it: the plan started
    Time end;             //!< the plan finished (meaningless unless finished)
    double busBw{0};      //!< nccl-tests busbw over launch..end, B/s
    bool finished{false}; //!< the plan completed (false for calls a stuck run left)
};

/// Per rank and iteration: where the time went.
struct IterationBreakdown
{
    uint32_t rank{0};
    uint32_t iteration{0};
    Time start;       //!< end of the previous iteration on this rank (or the run's start)
    Time end;         //!< its last op finished
    Time compute;     //!< union of compute op intervals
    Time exposedComm; //!< communication running (from its call's launch) while no compute
                      //!< runs
    Time idle;        //!< neither: waiting for peers to reach a call, pipeline bubbles

    /// \return end - start
    Time GetTotal() const
    {
        return end - start;
    }
};

/**
 * \ingroup ai-fabric
 * Replays a TrainingTrace over the collective layer.
 *
 * Each rank runs its op list: an op starts when its deps have finished and the previous
 * op of its stream has finished (streams are FIFOs, like CUDA streams; stream 0 is
 * compute by convention, and communication streams overlap compute and each other).
 * COMPUTE ops take their duration. The k-th collective a rank issues on a group joins
 * the k-th call of that group: when the last member has arrived, the engine plans it
 * (CollectiveEngine::GetCollectivePlan, cached per call shape: the op's algorithm, or the engine's
 * Algorithm attribute, on the group's sub-group of the world, so hierarchy and NVLS are known, with
 * the engine's Channels and ChunkBytes), runs it, and every member's op finishes when it
 * completes. The engine is created with the runner: set its attributes through
 * ns3::CollectiveEngine defaults or GetEngine(). SEND/RECV pairs meet the same way
 * (rendezvous) and move bytes as a send/recv plan. The whole trace is repeated
 * Iterations times; a rank starts repetition q+1 when its ops of repetition q are done.
 *
 * Hang detection: while work remains, a watchdog checks every HangTimeout of simulated
 * time that some op or transfer finished; if none did (a PFC deadlock, collectives issued
 * in different orders, a send with no matching progress) the run stops, IsStuck() turns
 * true and GetStuckReport() names the stuck ranks, ops and flows.
 */
class WorkloadRunner : public Object
{
  public:
    static TypeId GetTypeId();

    WorkloadRunner();
    ~WorkloadRunner() override;

    /**
     * Set what to run and where. Aborts if the trace does not validate or has more ranks
     * than world and transport.
     * \param trace the workload (copied)
     * \param world rank -> GPU placement of the trace's ranks (rank r of the trace is
     *        rank r of world and of the transport)
     * \param transport the carrier
     */
    void Setup(const TrainingTrace& trace,
               const CommGroup& world,
               Ptr<CollectiveTransport> transport);

    /**
     * As Setup above, sharing the trace instead of copying it (a generated 1,024-GPU
     * trace holds over a million ops).
     * \param trace the workload, not changed while the runner has it
     * \param world rank -> GPU placement of the trace's ranks
     * \param transport the carrier
     */
    void Setup(std::shared_ptr<const TrainingTrace> trace,
               const CommGroup& world,
               Ptr<CollectiveTransport> transport);

    /// Start replaying now (schedule it; Simulator::Run does the rest).
    void Start();

    /// \return true once every rank has run every op of every repetition
    bool IsFinished() const;
    /// \return true if the watchdog stopped the run for lack of progress
    bool IsStuck() const;
    /**
     * \return a readable description of what is stuck (ranks, ops, what each waits for,
     * transfers in flight); empty if nothing is
     */
    std::string GetStuckReport() const;
    /// \return ops finished so far and ops in the whole run
    std::pair<uint64_t, uint64_t> GetProgress() const;
    /**
     * What the packet fabric still has to carry, the part of a run that costs wall time:
     * the bytes of the collectives on groups that span servers and of the sends to
     * another server, each counted once per rank taking part (its op's bytes). A call
     * under way counts the part of those bytes its plan's finished transfers make of all
     * its transfers' bytes, so the figure moves while a long call runs.
     * \return those bytes of the ops finished so far (and of the calls' finished
     * transfers), and of the whole run
     */
    std::pair<uint64_t, uint64_t> GetFabricBytesProgress() const;

    /// \return every op that finished, in finishing order
    const std::vector<OpRecord>& GetOps() const;
    /// \param record one of GetOps() \return its op's name in the trace
    const std::string& GetOpName(const OpRecord& record) const;
    /// \return every collective call and send/recv pair, in launch order
    const std::vector<CallRecord>& GetCalls() const;
    /// \return per GPU rank and iteration breakdowns (rank-major; CPU hosts have none),
    ///         computed on demand (again only when ops have finished since)
    std::vector<IterationBreakdown> GetBreakdown() const;
    /**
     * \param breakdown a run's GetBreakdown()
     * \param iterations its GetNIterations()
     * \return per iteration, the time of its slowest rank (end - start on that rank)
     */
    static std::vector<Time> GetIterationTimes(const std::vector<IterationBreakdown>& breakdown,
                                               uint32_t iterations);
    /// \return the engine (e.g. to hook its traces)
    Ptr<CollectiveEngine> GetEngine() const;
    /// \return the number of iterations run (Iterations x trace iterations)
    uint32_t GetNIterations() const;
    /// \return when the last op finished
    Time GetEndTime() const;

    /**
     * A measure of the carrier's progress below whole transfers (bytes moved, chunks
     * delivered): the watchdog counts any change as progress, so a single long transfer
     * is not mistaken for a hang.
     */
    void SetProgressProbe(std::function<uint64_t()> probe);

    /// Called once, when the last rank has finished (e.g. to stop the simulator).
    void SetFinishedCallback(std::function<void()> finished);

    /**
     * A straggler: every compute op of rank takes factor x its duration (a slow or
     * throttled GPU). Call after Setup (which resets every rank to 1).
     * \param rank a rank of the trace
     * \param factor above 0 (above 1: slower)
     */
    void SetComputeScale(uint32_t rank, double factor);
    /// \param rank a rank of the trace \return its compute factor (1 unless set)
    double GetComputeScale(uint32_t rank) const;

    /**
     * The GPU of rank fails at time at (from Start): from then on it starts no op, its
     * running compute never ends, and it joins no further call; calls it already joined
     * go on. The others stop at their next call with it, and the watchdog's report names
     * the failed rank and when. Call after Setup, before Start.
     * \param rank a rank of the trace
     * \param at when, after Start
     */
    void FailRank(uint32_t rank, Time at);
    /// \return the GPUs that failed so far: (rank, when)
    const std::vector<std::pair<uint32_t, Time>>& GetFailures() const;

    /// A restart after a failure (RestartOnFailure).
    struct Restart
    {
        uint32_t rank{0};          //!< the rank whose GPU failed
        Time failedAt;             //!< when
        Time restartedAt;          //!< when every rank started again (failedAt + RestartDelay)
        uint32_t fromIteration{0}; //!< the iteration they started again from
    };

    /// \return the restarts so far, in order
    const std::vector<Restart>& GetRestarts() const;

    /**
     * Assign a fixed random variable stream number to the random variables used by this
     * model (ComputeJitter).
     * \param stream first stream index to use
     * \return the number of stream indices assigned
     */
    int64_t AssignStreams(int64_t stream);

    /// The critical path of one iteration: what its time was spent on, per rank.
    struct CriticalPath
    {
        uint32_t iteration{0};     //!< the iteration (GetNIterations' numbering)
        Time start;                //!< where the path begins
        Time end;                  //!< the iteration's last op finishes
        std::vector<Time> compute; //!< per rank: its compute ops on the path
        Time communication;        //!< calls on the path, from launch to end
    };

    /**
     * Walk each iteration back from its last op: a compute op to whichever of its
     * dependencies, stream predecessor or previous iteration finished last; a call to
     * the member that arrived last (it launched the call), then on from that member's
     * op. Ties go to the lowest rank and op.
     * \return per iteration with finished ops (a stuck run's last: as far as it got), its
     *         critical path
     */
    std::vector<CriticalPath> GetCriticalPaths() const;

    /// Signature of OpFinished: the finished op's record.
    typedef void (*OpTracedCallback)(const OpRecord& record);

  protected:
    void DoDispose() override;

  private:
    /// Execution state of one rank.
    struct RankState
    {
        uint32_t repetition{0};
        std::vector<uint32_t> missingDeps;            //!< per op
        std::vector<bool> started;                    //!< per op
        std::vector<bool> finished;                   //!< per op
        std::vector<Time> startTime;                  //!< per op
        std::vector<std::vector<uint32_t>> streamOps; //!< per stream: op ids in order
        std::vector<uint32_t> streamHead;             //!< per stream: index of the next op
        uint32_t nFinished{0};
    };

    /// A call waiting for its members (collective) or its two sides (send/recv).
    struct PendingCall
    {
        uint32_t needed{0};
        std::vector<std::pair<uint32_t, uint32_t>> members; //!< (rank, op) arrived
        Time firstArrival;
    };

    /**
     * What ops that meet each other share: a collective's group, or a send/recv's
     * source, destination and tag; and which such call of the pass (k) it is.
     */
    struct CallKey
    {
        uint32_t group{0}; //!< collectives: the group's index + 1; send/recv: 0
        uint32_t src{0};   //!< send/recv: the sending rank
        uint32_t dst{0};   //!< send/recv: the receiving rank
        uint32_t tag{0};   //!< send/recv: the tag
        uint64_t k{0};     //!< the k-th call with these fields, counted across passes

        /// \param o another key \return the strict weak order of the fields
        bool operator<(const CallKey& o) const
        {
            return std::tie(group, src, dst, tag, k) < std::tie(o.group, o.src, o.dst, o.tag, o.k);
        }
    };

    /// \return the key of the calls op belongs to (k = 0)
    CallKey MatchKey(uint32_t rank, const TraceOp& op) const;
    /// \return the key as the stuck report prints it ("c:tp0#3", "p:0>1:7#2")
    std::string DescribeKey(const CallKey& key) const;
    /// \return whether rank takes part in the calls of key (its group, or src/dst)
    bool IsMemberOf(const CallKey& key, uint32_t rank) const;
    void StartRepetition(uint32_t rank);
    void TryStart(uint32_t rank, uint32_t op);
    void Begin(uint32_t rank, uint32_t op);
    void Arrive(const CallKey& key, uint32_t needed, uint32_t rank, uint32_t op);
    void Launch(const CallKey& key);
    /**
     * A call finished: its ops finish on every member.
     * \param callIndex the call's index in m_calls
     * \param members its (rank, op) pairs
     * \param fabricBytes their FabricBytes, all together
     * \param result the engine's result
     */
    void CallDone(uint64_t callIndex,
                  std::vector<std::pair<uint32_t, uint32_t>> members,
                  uint64_t fabricBytes,
                  const CollectiveResult& result);
    void Finish(uint32_t rank, uint32_t op, int64_t call);
    void Watchdog();
    /// \return true if some rank has a compute op started and not finished
    bool AnyComputeRunning() const;
    /// Write to os the stuck report's lines on running and blocked ops (at most 40)
    void ReportStuckOps(std::ostream& os) const;
    /// Write to os the stuck report's line on op i of rank r, started and not finished
    void ReportRunningOp(std::ostream& os, uint32_t r, uint32_t i) const;
    /// Write to os the stuck report's lines on the engine's transfers in flight
    void ReportPendingTransfers(std::ostream& os) const;
    void OnTransferDone(uint64_t runId, uint32_t transfer);
    void RankDone();
    /// The GPU of rank fails now (FailRank).
    void Fail(uint32_t rank);
    /// A compute op's end, unless a restart since it began (generation) dropped it.
    void FinishCompute(uint64_t generation, uint32_t rank, uint32_t op);
    /// After a failure (RestartOnFailure): stop every rank and drop what runs now (its
    /// compute ends and calls' completions), then Restart after RestartDelay.
    void Abort(uint32_t rank);
    /// Every rank again from the last iteration all of them completed (the failed GPU
    /// replaced), unless a later failure's restart superseded this one (generation).
    void RestartFrom(uint64_t generation);
    /// \return how long compute op o of rank takes this time (scale and jitter applied;
    ///         a zero-length op draws no jitter)
    Time ComputeDuration(uint32_t rank, const TraceOp& o);

    std::shared_ptr<const TrainingTrace> m_trace{std::make_shared<const TrainingTrace>()};
    CommGroup m_world;
    Ptr<CollectiveTransport> m_transport;
    Ptr<CollectiveEngine> m_engine;

    /// A rank's ops that wait for each of its ops, in one list (a 16,384-GPU trace has
    /// 20 M ops: a vector per op would cost more than the ops' own dependency lists).
    struct Dependents
    {
        std::vector<uint32_t> first; //!< per op and one past the last: its run in ops
        std::vector<uint32_t> ops;   //!< the waiting ops, each op's in list order
    };

    std::vector<Dependents> m_dependents; //!< per rank
    /// rank -> op -> the op's place among its rank's ops on the same group (collectives)
    /// or the same (peer, tag) and direction (send/recv), in list order: the k-th such op
    /// of every member meets the k-th of the others, whatever order streams start them.
    std::vector<std::vector<uint32_t>> m_sequence;
    /// rank -> op -> how many ops share the op's group or (peer, tag, direction) per pass
    std::vector<std::vector<uint32_t>> m_sequenceLength;
    uint32_t m_traceIterations{1}; //!< iterations in one pass of the trace
    uint32_t m_traceStreams{1};    //!< streams of the trace
    std::function<uint64_t()> m_probe;
    uint64_t m_probeAtCheck{0};
    std::function<void()> m_finished;
    std::vector<RankState> m_ranks;
    std::map<CallKey, PendingCall> m_pending;
    std::unordered_map<std::string, uint32_t> m_groupIndex; //!< group name -> index + 1
    std::vector<OpRecord> m_records;
    std::vector<CallRecord> m_calls;

    uint32_t m_iterations{1};
    Time m_hangTimeout;
    Ptr<RandomVariableStream> m_jitter;                //!< factor per compute op (none: exact)
    std::vector<double> m_computeScale;                //!< per rank: factor on its compute
    std::vector<std::pair<uint32_t, Time>> m_failAt;   //!< FailRank's (rank, when)
    std::vector<bool> m_failed;                        //!< per rank: its GPU failed
    std::vector<std::pair<uint32_t, Time>> m_failures; //!< (rank, when), as they happened
    bool m_restartOnFailure{false};                    //!< RestartOnFailure attribute
    Time m_restartDelay;                               //!< RestartDelay attribute
    /// how many times the ranks were stopped for a restart: work begun in an earlier
    /// generation finishes nothing
    uint64_t m_generation{0};
    bool m_halted{false};            //!< stopped, waiting for a restart
    std::vector<Restart> m_restarts; //!< the restarts so far

    uint64_t m_progress{0}; //!< ops and transfers finished
    uint64_t m_progressAtCheck{0};
    uint64_t m_opsDone{0};
    uint64_t m_opsTotal{0};
    /// \return the bytes op o of rank puts on the fabric (GetFabricBytesProgress)
    uint64_t FabricBytes(uint32_t rank, const TraceOp& o) const;
    std::vector<bool> m_groupSpansServers; //!< per trace group (m_groupIndex - 1)
    uint64_t m_fabricBytesDone{0};
    uint64_t m_fabricBytesTotal{0};

    /// A call under way whose ops put bytes on the fabric: how far its plan is.
    struct CallBytes
    {
        std::shared_ptr<const CommPlan> plan; //!< its plan (transfer sizes)
        uint64_t fabricBytes{0};              //!< its members' FabricBytes, all together
        uint64_t planBytes{0};                //!< its plan's transfers' bytes, all together
        uint64_t doneBytes{0};                //!< bytes of its finished transfers
    };

    std::unordered_map<uint64_t, CallBytes> m_callBytes; //!< by the engine's run id
    uint32_t m_ranksDone{0};
    bool m_stuck{false};
    std::string m_stuckReport;
    EventId m_watchdog;
    bool m_disposeScheduled{false}; //!< Simulator::ScheduleDestroy(Dispose) was called
    Callback<void, uint64_t, uint32_t> m_transferDone; //!< connected to the engine's trace
    Time m_start;
    /// GetBreakdown's last answer and the records it was computed from (a report asks
    /// several times; records only grow between Setup and the next Start)
    mutable std::vector<IterationBreakdown> m_breakdown;
    mutable size_t m_breakdownRecords{SIZE_MAX}; //!< m_records.size() then; MAX: none
    Time m_end;

    /**
     * For the engine's call replay: mark the ranks with at most one stream of calls that
     * post inside their server (collectives whose group has another rank there, send/recv
     * to a rank there). A call over such ranks runs alone on their NVSwitch: while it
     * runs, none of them can start another call there (RunSelected's alone). Not called
     * when a failure may restart the ranks (the stopped calls still run then).
     */
    void FindLoneCallers();
    /// per rank: FindLoneCallers's answer (empty when the engine does not replay calls)
    std::vector<bool> m_loneCaller;

    TracedCallback<const OpRecord&> m_opFinishedTrace;
};

} // namespace ns3

#endif // WORKLOAD_RUNNER_H
