// SPDX-License-Identifier: GPL-2.0-only
#ifndef COMM_PLAN_H
#define COMM_PLAN_H

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The collectives a CommPlan can express.
 *
 * Byte counts follow nccl-tests, so busbw comes out the way users read it:
 * ALL_REDUCE, BROADCAST, REDUCE: the buffer size; ALL_GATHER: the output size (all
 * shards); REDUCE_SCATTER: the input size (all shards); ALL_TO_ALL: one rank's send
 * buffer, of which 1/n goes to each rank; ALL_TO_ALLV: the largest rank's send buffer
 * (the per-pair byte matrix is carried separately); SEND_RECV: the message.
 */
enum class CollectiveType
{
    ALL_REDUCE,
    REDUCE_SCATTER,
    ALL_GATHER,
    BROADCAST,
    REDUCE,
    ALL_TO_ALL,
    ALL_TO_ALLV,
    SEND_RECV,
};

/// \return a lower-case name such as "all-reduce" (the one table of collective names)
std::string CollectiveTypeToString(CollectiveType type);

/**
 * \param name a name as CollectiveTypeToString prints it
 * \param type set to the collective when found
 * \return true if name names a collective
 */
bool CollectiveTypeFromString(const std::string& name, CollectiveType& type);

/// \return every collective, in declaration order
const std::vector<CollectiveType>& GetCollectiveTypes();
std::ostream& operator<<(std::ostream& os, CollectiveType type);

/**
 * \return the nccl-tests factor that turns algorithm bandwidth (bytes / time) into bus
 * bandwidth for a group of n ranks: 2(n-1)/n for all-reduce, (n-1)/n for all-gather,
 * reduce-scatter and all-to-all, 1 for broadcast, reduce and send/recv.
 */
double CollectiveBusBwFactor(CollectiveType type, uint32_t n);

/// \return true for the collectives with a root: broadcast (from it) and reduce (to it)
bool IsRootedCollective(CollectiveType type);

/**
 * \ingroup ai-fabric
 * NCCL's protocols: how a collective's kernels hand data from one GPU to the next.
 *
 * LL ("low latency") writes 16-byte lines of two 4-byte words, each with its 4-byte flag, so the
 * receiver polls the data itself: the lowest latency, half the payload on the wire. LL128
 * writes 128-byte lines of 120 data bytes and an 8-byte flag. Simple moves whole buffers
 * and synchronises with flags per step: full payload, the highest latency per step. Their
 * names (CollectiveProtocolToString) are the one table of protocol names, as NCCL_PROTO
 * spells them; "none" is a what-if (payload at wire rate, no protocol latency: the wire
 * bound) and "auto" the choice per call by estimated time, as NCCL's tuner makes it.
 */
enum class CollectiveProtocol : uint8_t
{
    LL,     //!< "LL": 16-byte lines, half payload, lowest latency
    LL128,  //!< "LL128": 128-byte lines, 120/128 payload
    SIMPLE, //!< "Simple": full payload, flag per step
    NONE,   //!< "none": no protocol costs (wire time only)
    AUTO,   //!< "auto": the fastest protocol per call by the cost model
};

/// \return the protocol's name: "LL", "LL128", "Simple", "none" or "auto" (the one
/// table of protocol names, in collective-protocol.cc)
std::string CollectiveProtocolToString(CollectiveProtocol protocol);

/**
 * \ingroup ai-fabric
 * One collective call expanded into a DAG of point-to-point transfers: plain data.
 *
 * The data of the call is cut into blocks. A block is the unit the checker reasons
 * about: each transfer moves a run of consecutive blocks (usually one) from one rank to
 * another, either overwriting the receiver's copy or reducing into it. A transfer may
 * start once every transfer in its deps has been fully received; two transfers not
 * ordered by deps may run in any order or at the same time.
 *
 * Block descriptors say whose data a block is and who must end up with it, which is
 * what the PlanChecker needs to state the collective's goal; the engine only needs
 * src, dst, bytes, deps and channel. Nothing here knows about packets or time.
 *
 * Generators build plans with AddBlock/AddTransfer. Plans may also be edited by hand
 * (tests do, to break them); Validate() and the PlanChecker then say whether the
 * result still makes sense.
 */
class CommPlan
{
  public:
    /// Marks "every rank" (or "no particular rank") in Block::origin / Block::target.
    static constexpr uint32_t ANY_RANK = std::numeric_limits<uint32_t>::max();

    /// A piece of the collective's data.
    struct Block
    {
        uint64_t bytes{0};         //!< size of the block
        uint32_t origin{ANY_RANK}; //!< rank whose data it is; ANY_RANK if every rank
                                   //!< contributes (the reducing collectives)
        uint32_t target{ANY_RANK}; //!< rank that must end up with it; ANY_RANK if all do
    };

    /**
     * How a transfer moves its blocks. The switch kinds act on the whole plan group (NCCL
     * binds one multicast object, or one aggregation tree, per communicator) and are
     * issued by one rank, so src == dst. SWITCH_REDUCE and SWITCH_MULTICAST are NVLS
     * (NVSwitch SHARP); SWITCH_ALL_REDUCE is in-network aggregation on the scale-out
     * fabric (SwitchML, SHARP): every rank's copy goes up a tree of switches once and
     * the sum comes back to every rank. NETWORK_REDUCE and NETWORK_MULTICAST do to the
     * data what SWITCH_REDUCE and SWITCH_MULTICAST do, in the scale-out fabric's
     * aggregation switches (SHARP's reduce and multicast; see DataEffect).
     */
    enum class Kind : uint8_t
    {
        POINT_TO_POINT,    //!< src sends its copy to dst (reduce: dst combines it into its own)
        SWITCH_REDUCE,     //!< every rank sends its copy up, the switch reduces them and
                           //!< delivers the result to dst, replacing dst's copy
                           //!< (multimem.ld_reduce issued by dst)
        SWITCH_MULTICAST,  //!< src sends its copy up once and the switch writes it to
                           //!< every rank, src included (multimem.st)
        SWITCH_ALL_REDUCE, //!< every rank sends its copy up, the switches sum them and
                           //!< the sum replaces every rank's copy (the transfer is done
                           //!< when every rank has it)
        NETWORK_REDUCE,    //!< SWITCH_REDUCE in the aggregation switches of the network
        NETWORK_MULTICAST, //!< SWITCH_MULTICAST in the aggregation switches of the network
    };

    /**
     * \param kind a transfer kind
     * \return what it does to the data: SWITCH_REDUCE for NETWORK_REDUCE,
     *         SWITCH_MULTICAST for NETWORK_MULTICAST, the kind itself otherwise
     */
    static Kind DataEffect(Kind kind);
    /**
     * \param kind a transfer kind
     * \return whether it runs in the scale-out fabric's aggregation switches
     *         (SWITCH_ALL_REDUCE, NETWORK_REDUCE, NETWORK_MULTICAST)
     */
    static bool InNetwork(Kind kind);

    /// Member set 0: every rank of the plan (what switch transfers involve by default).
    static constexpr uint32_t ALL_MEMBERS = 0;

    /// One move of data: point to point, or through the switch (see Kind).
    struct Transfer
    {
        uint32_t id{0};             //!< index in the plan; AddTransfer sets it
        uint32_t src{0};            //!< sending rank
        uint32_t dst{0};            //!< receiving rank
        uint64_t bytes{0};          //!< payload: the sum of the blocks moved; AddTransfer sets it
        std::vector<uint32_t> deps; //!< transfers that must have arrived before this starts
        uint32_t chunk{0};          //!< first block moved
        uint32_t chunkCount{1};     //!< number of consecutive blocks moved (one message)
        bool reduce{false};         //!< the receiver combines the data into its own copy
                                    //!< instead of replacing it
        uint32_t channel{0};        //!< channel (parallel ring/tree) the transfer belongs to;
                                    //!< transports may map channels to separate queue pairs
        uint32_t step{0};           //!< algorithm step, for printing and closed-form checks
                                    //!< (a transfer of several steps: the first)
        /// Consecutive steps of its connection the transfer carries back to back: 1 in a
        /// data plan. More in a coarsened ring (CollectivePlanOptions::
        /// ringTransfersPerPhase), a timing schedule: its bytes are those steps', taken
        /// as given, and the PlanChecker refuses it (the steps' blocks are not contiguous).
        uint32_t steps{1};
        Kind kind{Kind::POINT_TO_POINT}; //!< how the blocks move
        uint32_t members{ALL_MEMBERS};   //!< switch transfers: the ranks taking part, a
                                         //!< member set of the plan (AddMemberSet)
    };

    /// An empty all-reduce plan over one rank; assign a real one before use.
    CommPlan();

    /**
     * \param type collective
     * \param groupSize number of ranks, at least 1
     * \param totalBytes size of the call, in the nccl-tests sense of CollectiveType
     */
    CommPlan(CollectiveType type, uint32_t groupSize, uint64_t totalBytes);

    /**
     * Split total bytes into parts that differ by at most one byte and add up exactly
     * (the first total % parts parts get the extra byte).
     * \return the size of part index
     */
    static uint64_t SplitBytes(uint64_t total, uint32_t parts, uint32_t index);

    /// \return the collective
    CollectiveType GetType() const;
    /// \return the number of ranks
    uint32_t GetGroupSize() const;
    /// \return the size of the call (see CollectiveType)
    uint64_t GetTotalBytes() const;

    /// Name the algorithm that produced the plan, e.g. "ring" (for printing only).
    void SetAlgorithm(const std::string& name);
    /// \return the algorithm name
    const std::string& GetAlgorithm() const;

    /// Set the protocol the call's kernels use (what CollectiveProtocolCosts charges).
    void SetProtocol(CollectiveProtocol protocol);
    /// \return the protocol (NONE unless set: a plan built by hand moves payload only)
    CollectiveProtocol GetProtocol() const;

    /// Set the root of BROADCAST / REDUCE, or the sender of SEND_RECV.
    void SetRoot(uint32_t root);
    /// \return the root (0 unless set)
    uint32_t GetRoot() const;
    /// Set the receiver of SEND_RECV.
    void SetPeer(uint32_t peer);
    /// \return the SEND_RECV receiver (0 unless set)
    uint32_t GetPeer() const;
    /**
     * Set the ALL_TO_ALLV byte matrix: pairBytes[src * n + dst] is what src sends dst.
     * The diagonal (a rank's data to itself) is never moved.
     */
    void SetPairBytes(std::vector<uint64_t> pairBytes);
    /// \return the ALL_TO_ALLV byte matrix (empty for other collectives)
    const std::vector<uint64_t>& GetPairBytes() const;

    /**
     * Append a block.
     * \return its index
     */
    uint32_t AddBlock(uint64_t bytes, uint32_t origin = ANY_RANK, uint32_t target = ANY_RANK);
    /// \return the number of blocks
    uint32_t GetNBlocks() const;
    /// \return block index
    const Block& GetBlock(uint32_t index) const;
    /// \return all blocks
    const std::vector<Block>& GetBlocks() const;

    /**
     * Append a transfer. Its id becomes the next index and its bytes the sum of the
     * blocks it moves (a transfer of several steps: its bytes as given, positive);
     * everything else is taken as given. Aborts if the blocks do not exist, since the
     * size could not be computed.
     * \return the id
     */
    uint32_t AddTransfer(Transfer transfer);
    /// \return the number of transfers
    uint32_t GetNTransfers() const;
    /// \return transfer id
    const Transfer& GetTransfer(uint32_t id) const;
    /// \return transfer id, for editing (run Validate afterwards)
    Transfer& GetTransfer(uint32_t id);
    /// \return all transfers, in id order
    const std::vector<Transfer>& GetTransfers() const;

    /**
     * Name the ranks of a switch transfer that involves only some of the plan's (the
     * GPUs of one server under one NVSwitch, one rail's ranks under one aggregation tree).
     * Aborts on an empty set, a rank out of range or a rank named twice.
     * \param ranks the ranks, in the order the carrier numbers their ports
     * \return the set's id for Transfer::members
     */
    uint32_t AddMemberSet(std::vector<uint32_t> ranks);
    /// \param set a member set id \return its ranks (set ALL_MEMBERS: 0..n-1)
    const std::vector<uint32_t>& GetMembers(uint32_t set) const;
    /// \return the number of member sets, ALL_MEMBERS included
    uint32_t GetNMemberSets() const;
    /**
     * \param t a transfer
     * \param rank a rank
     * \return whether rank takes part in t: src or dst of a point-to-point transfer, a
     *         member of a switch transfer's set
     */
    bool Involves(const Transfer& t, uint32_t rank) const;
    /**
     * \param set a member set id
     * \param rank one of its ranks
     * \return rank's position in the set (the carrier's port index), the set's size if
     *         rank is not in it
     */
    uint32_t GetMemberIndex(uint32_t set, uint32_t rank) const;
    /// Replace all transfers (ids must equal indices; see Validate).
    void SetTransfers(std::vector<Transfer> transfers);

    /// \return 1 + the highest channel used (1 for an empty plan)
    uint32_t GetNChannels() const;
    /// \return 1 + the highest step used, counting every step of a transfer of several
    ///         (0 for an empty plan)
    uint32_t GetNSteps() const;
    /// \return whether a transfer carries several steps (a coarsened ring: a timing
    ///         schedule, not a data plan)
    bool IsCoarse() const;
    /// \return bytes rank sends over the whole plan (a switch reduction counts once per
    /// rank, a multicast once for its source)
    uint64_t GetBytesSent(uint32_t rank) const;
    /// \return bytes rank receives over the whole plan (a multicast counts once per rank,
    /// its source included: the copy comes back through the switch)
    uint64_t GetBytesReceived(uint32_t rank) const;
    /// \return number of transfers rank sends
    uint32_t GetTransfersSent(uint32_t rank) const;
    /// \return number of distinct steps in which rank sends
    uint32_t GetStepsSent(uint32_t rank) const;

    /**
     * Structural check: ids equal indices; ranks, blocks and roots are in range; a
     * point-to-point transfer does not send to itself, a switch transfer has src == dst
     * and no reduce flag; bytes equal the sum of the blocks moved; deps name
     * existing other transfers, once each; and the dependency graph is acyclic.
     * Says nothing about whether the plan performs its collective: that is PlanChecker.
     * \param reason if not null, set to the first problem found (cleared when valid)
     * \return true if the plan is well formed
     */
    bool Validate(std::string* reason = nullptr) const;

    /**
     * A topological order of the transfers (every transfer after its deps; among ready
     * transfers the lowest id first, so plans built in dependency order come back in
     * id order).
     * \return the order, or an empty vector if deps form a cycle or name missing ids
     */
    std::vector<uint32_t> GetTopologicalOrder() const;

    /**
     * Write a summary line and one line per transfer:
     * "#id step s ch c: src -> dst block b[..last] (B B) [reduce] [deps {...}]"; switch
     * transfers read "switch-reduce -> dst", "src -> switch-multicast" and "switch-all-reduce"
     * ("network-reduce -> dst" and "src -> network-multicast" in the network).
     */
    void Print(std::ostream& os) const;

  private:
    /// \return whether root, peer, byte matrix and blocks are well formed (else why says not)
    bool ValidateShape(std::ostream& why) const;
    /// \return whether transfer i, deps included, is well formed (else why says not)
    bool ValidateTransfer(uint32_t i, std::ostream& why) const;
    /// \return whether transfer i's deps name other transfers, once each (else why says not)
    bool ValidateDeps(uint32_t i, std::ostream& why) const;

    CollectiveType m_type;                                   //!< collective
    uint32_t m_groupSize;                                    //!< ranks
    uint64_t m_totalBytes;                                   //!< size of the call
    std::string m_algorithm;                                 //!< producing algorithm, for printing
    CollectiveProtocol m_protocol{CollectiveProtocol::NONE}; //!< the kernels' protocol
    uint32_t m_root{0};                              //!< broadcast/reduce root, send/recv sender
    uint32_t m_peer{0};                              //!< send/recv receiver
    std::vector<uint64_t> m_pairBytes;               //!< all-to-allv matrix, row = sender
    std::vector<Block> m_blocks;                     //!< data blocks
    std::vector<Transfer> m_transfers;               //!< DAG nodes, indexed by id
    std::vector<std::vector<uint32_t>> m_memberSets; //!< by id; 0 = every rank
};

std::ostream& operator<<(std::ostream& os, const CommPlan& plan);

} // namespace ns3

#endif // COMM_PLAN_H
