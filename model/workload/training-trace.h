// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRAINING_TRACE_H
#define TRAINING_TRACE_H

#include "ns3/comm-plan.h"
#include "ns3/nstime.h"
#include "ns3/trace-label.h"

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ns3
{

/// What one trace op does.
enum class TraceOpKind : uint8_t
{
    COMPUTE,    //!< the GPU is busy for a duration
    COLLECTIVE, //!< a collective call on a group (all members take part)
    SEND,       //!< point-to-point send to a peer (matched with the peer's RECV)
    RECV,       //!< point-to-point receive from a peer
};

/// \return "compute", "collective", "send" or "recv"
std::string TraceOpKindToString(TraceOpKind kind);

/**
 * \ingroup ai-fabric
 * One operation of one rank in a training trace.
 *
 * Ops of a rank are numbered 0, 1, ... in the order listed (their id). An op may start
 * once every op in deps (ids on the same rank) has finished and every earlier op of its
 * stream has started and finished: a stream is a FIFO, like a CUDA stream. Cross-rank
 * order comes from communication: the k-th collective a rank issues on a group meets the
 * k-th collective every other member issues on that group (NCCL's rule: same order on
 * every member), and the k-th SEND from a to b with tag t meets the k-th RECV at b from a
 * with tag t.
 */
struct TraceOp
{
    // Ordered to keep the padding small (88 bytes): a generated trace of 16,384
    // GPUs holds 20 M ops.
    uint32_t id{0};                                        //!< index within the rank
    TraceOpKind kind{TraceOpKind::COMPUTE};                //!< what it does
    TraceLabel name;                                       //!< label for reports, e.g. "fwd.l3"
    uint32_t stream{0};                                    //!< 0 = compute; 1.. = communication
    uint32_t iteration{0};                                 //!< training iteration it belongs to
    CollectiveType collective{CollectiveType::ALL_REDUCE}; //!< COLLECTIVE: which
    TraceLabel group;                                      //!< COLLECTIVE: group name
    TraceLabel algorithm;       //!< COLLECTIVE: "" = the runner's default
    uint32_t root{0};           //!< BROADCAST/REDUCE root (group rank)
    uint32_t peer{0};           //!< SEND/RECV: the other rank
    uint32_t tag{0};            //!< SEND/RECV: matching tag
    Time duration;              //!< COMPUTE: how long
    uint64_t bytes{0};          //!< COLLECTIVE (nccl-tests size), SEND/RECV
    std::vector<uint32_t> deps; //!< ops of this rank that finish first
};

/// A named set of ranks that run collectives together (TP, PP, DP, EP or custom).
struct TraceGroup
{
    std::string name;            //!< unique, e.g. "tp0", "dp3"
    std::string kind;            //!< "tp", "pp", "dp", "ep" or "custom" (informative)
    std::vector<uint32_t> ranks; //!< group rank i = global rank ranks[i]
};

/**
 * \ingroup ai-fabric
 * A training workload: ranks, their groups and per-rank op lists (the in-memory form all
 * readers produce; see doc/ai-fabric.rst, "Training traces").
 *
 * Plain data with a structural check (Validate) that every reader runs, so a trace that
 * passes it can be replayed without surprises: references resolve, dependency graphs are
 * acyclic, and collectives and send/recv pairs match across ranks.
 */
class TrainingTrace
{
  public:
    TrainingTrace() = default;
    /// \param nRanks number of ranks (GPUs)
    explicit TrainingTrace(uint32_t nRanks);

    /// Set the number of ranks (empties the op lists).
    void SetNRanks(uint32_t nRanks);
    /// \return number of ranks
    uint32_t GetNRanks() const;

    /**
     * Append empty ranks (their op lists empty), keeping every op of the others.
     * \param count ranks to add
     * \return the first new rank
     */
    uint32_t AddRanks(uint32_t count);

    /**
     * Say that the last count ranks are CPU hosts, not GPUs: dedicated parameter servers
     * with their own NICs (ParameterServerSync). They run sends, receives and compute
     * (a CPU's reduction) but belong to no group, and a cluster places them on hosts of
     * their own. At least one rank stays a GPU (Validate).
     * \param count the trailing ranks that are CPU hosts (0: all ranks are GPUs)
     */
    void SetNCpuRanks(uint32_t count);
    /// \return the trailing ranks that are CPU hosts
    uint32_t GetNCpuRanks() const;
    /// \return the ranks that are GPUs: ranks 0 .. GetNGpuRanks() - 1
    uint32_t GetNGpuRanks() const;
    /// \param rank a rank \return whether it is a CPU host
    bool IsCpuRank(uint32_t rank) const;

    /// Free-form name (model, configuration), for reports.
    void SetName(const std::string& name);
    /// \return the name
    const std::string& GetName() const;

    /**
     * The GPU whose compute the trace's durations describe (a GpuPreset name such as
     * "H100", as the trace generator records it; free text from other sources), or ""
     * when the trace does not say. Replays on another GPU warn (TrainingSimulation).
     */
    void SetGpu(const std::string& gpu);
    /// \return the GPU, or "" if not recorded
    const std::string& GetGpu() const;

    /**
     * Add a group. Aborts if the name exists already (readers check first with HasGroup).
     * \return its index
     */
    uint32_t AddGroup(const TraceGroup& group);
    /// \return true if a group of that name exists
    bool HasGroup(const std::string& name) const;
    /// \return the group of that name (aborts if unknown)
    const TraceGroup& GetGroup(const std::string& name) const;
    /// \return all groups, in the order added
    const std::vector<TraceGroup>& GetGroups() const;

    /**
     * Append an op to rank's list; its id becomes its index.
     * \return the id
     */
    uint32_t AddOp(uint32_t rank, TraceOp op);
    /// \return rank's ops
    const std::vector<TraceOp>& GetOps(uint32_t rank) const;
    /// \return rank's ops, for editing (run Validate afterwards)
    std::vector<TraceOp>& GetOps(uint32_t rank);
    /// \return ops over all ranks
    uint64_t GetNOps() const;
    /// \return 1 + the highest iteration of any op (0 for an empty trace)
    uint32_t GetNIterations() const;
    /// \return 1 + the highest stream of any op (1 for an empty trace)
    uint32_t GetNStreams() const;

    /// Name a stream for reports and timelines (e.g. "compute", "TP collectives").
    void SetStreamName(uint32_t stream, const std::string& name);
    /// \return the stream's name, or "" if it has none
    std::string GetStreamName(uint32_t stream) const;
    /// \return the names of streams 0, 1, ... (may be shorter than GetNStreams)
    const std::vector<std::string>& GetStreamNames() const;

    /**
     * Structural check. Problems reported (the first found, with rank and op id): no
     * ranks; no GPU rank (every rank a CPU host); a group that has a CPU host; a group that is
     * empty, names a rank out of range or twice; an op whose id is not its index, whose dep is
     * missing or itself, whose group is unknown or does not contain the rank, whose peer is out of
     * range or itself, whose root is out of the group, whose iteration goes backwards along the op
     * list; a COMPUTE of negative duration; a dependency cycle within a rank; members of a group
     * that disagree on the sequence of collectives on it (count, type, bytes); SENDs and RECVs that
     * do not pair up (count per (src, dst, tag)). \param reason if not null, set to the problem
     * (cleared when valid) \return true if the trace can be replayed
     */
    bool Validate(std::string* reason = nullptr) const;

    /**
     * What every reader returns: trace if it validates (error cleared), otherwise an
     * empty trace with error set to prefix + ": " + the problem.
     */
    static TrainingTrace Checked(TrainingTrace trace,
                                 const std::string& prefix,
                                 std::string* error);

  private:
    /// Per group: each member's sequence of collectives on it (type, bytes, root).
    using CollectiveSequences =
        std::map<std::string,
                 std::vector<std::vector<std::tuple<CollectiveType, uint64_t, uint32_t>>>>;
    /// Per (src, dst, tag): the sizes of its sends, in src's order, and of its receives,
    /// in dst's order.
    using MessageSizes = std::map<std::tuple<uint32_t, uint32_t, uint32_t>,
                                  std::pair<std::vector<uint64_t>, std::vector<uint64_t>>>;

    /// Validate: every group has ranks, all in range, none twice (problem written to why).
    bool CheckGroups(std::ostringstream& why) const;
    /// Validate: rank r's ops (ids, iterations, deps, CheckOpKind), recording their calls.
    bool CheckOps(uint32_t r,
                  CollectiveSequences& sequences,
                  MessageSizes& p2p,
                  std::ostringstream& why) const;
    /// Validate: one op of rank r by its kind; records its collective or message.
    bool CheckOpKind(uint32_t r,
                     const TraceOp& op,
                     CollectiveSequences& sequences,
                     MessageSizes& p2p,
                     std::ostringstream& why) const;
    /// Validate: the members of each group issue the same collectives on it.
    bool CheckSequences(const CollectiveSequences& sequences, std::ostringstream& why) const;
    /// Validate: the sends and receives of each (src, dst, tag) pair up, size for size.
    bool CheckMessages(const MessageSizes& p2p, std::ostringstream& why) const;

    uint32_t m_nRanks{0};
    uint32_t m_nCpuRanks{0}; //!< the trailing ranks that are CPU hosts
    std::string m_name;
    std::string m_gpu; //!< GPU the compute durations are for ("" if unknown)
    std::vector<TraceGroup> m_groups;
    std::map<std::string, uint32_t> m_groupIndex;
    std::vector<std::vector<TraceOp>> m_ops; //!< per rank
    std::vector<std::string> m_streamNames;  //!< by stream
};

/**
 * Parse a collective name as trace files spell it: case, '-' and '_' do not matter
 * ("all-reduce", "all_reduce", "ALLREDUCE"). Known: all-reduce, reduce-scatter,
 * all-gather, broadcast, reduce, all-to-all.
 * \param name the name
 * \param type set to the collective if known
 * \return true if known
 */
bool ParseCollectiveType(const std::string& name, CollectiveType& type);

} // namespace ns3

#endif // TRAINING_TRACE_H
