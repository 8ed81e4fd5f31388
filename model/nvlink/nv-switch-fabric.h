// SPDX-License-Identifier: GPL-2.0-only
#ifndef NV_SWITCH_FABRIC_H
#define NV_SWITCH_FABRIC_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/gpu-preset.h"
#include "ns3/nstime.h"
#include "ns3/nv-switch.h"
#include "ns3/nvlink-port.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * N GPUs on one NVSwitch, modelled at chunk granularity: the scale-up engine. The
 * collective layer reaches it through NvLinkTransport (model/transport), the thin carrier
 * that turns its figures into the cost model's terms; the engine knows nothing of
 * collectives, plans or carriers.
 *
 * The fabric is made of one NvLinkPort per GPU (its NVLink device and links: LinkCount x
 * PerLinkRate per direction, Latency per hop) and one NvSwitch (egress credits,
 * reduction engine); the fabric's LinkCount, PerLinkRate, Latency, CreditChunks and
 * NvlsThroughput attributes configure them, and GetPort / GetSwitch reach each one to
 * change it alone (a slower GPU, say). The fabric itself schedules each GPU's uplink
 * and moves chunks through the switch. Per-packet events would be far too many at
 * hundreds of GB/s, so the unit of work is a chunk of ChunkBytes (the flow-control
 * unit).
 *
 * Point-to-point (Send): a transfer is cut into chunks. A chunk serializes on the
 * sender's uplink at rate x ProtocolEfficiency, crosses to the switch (Latency), waits
 * in the switch's egress buffer toward the receiver, serializes on the receiver's
 * downlink and reaches the GPU after Latency. Backpressure is credit based and the
 * fabric never drops: a chunk may start on an uplink only when the egress buffer toward
 * its receiver has a free credit (CreditChunks per port); the credit is taken then and
 * is usable again by senders Latency after the chunk has left the downlink (the credit
 * crosses the link back). Uplinks serve their transfers round-robin per chunk; transfers
 * of one (src, dst, channel) form one FIFO flow, so they arrive in the order sent. A flow
 * whose receiver has no credit is skipped, not waited for (virtual output queues), so one
 * congested receiver does not block a sender's other peers.
 *
 * NVLS (SwitchReduce, SwitchMulticast): NVSwitch SHARP, the way Hopper does it, and only
 * where NvlsSupported (Hopper and newer; the A100 preset clears it): otherwise
 * CanReduceInSwitch is false and the two operations abort, naming the attribute. A
 * reduction is issued by its destination (multimem.ld_reduce): for each chunk every
 * member sends its contribution up, the switch's reduction engine combines the chunk
 * once all contributions are in (one FIFO server at NvlsThroughput), and the result goes
 * down to the destination. The destination holds a reduction slot (CreditChunks per
 * GPU, separate from the egress credits) from issuing a chunk until its result has left
 * the downlink; reductions of one destination are served in the order posted. A
 * multicast (multimem.st) goes up once and the switch writes every chunk down each
 * member's downlink; a chunk needs a credit at every member's egress port. NVLS traffic
 * serializes at rate x ProtocolEfficiency x NvlsEfficiency. The NVLS plans
 * (NvlsAllReduce etc.) drive these through the CollectiveEngine; an all-reduce then
 * carries S (1 + 1/n) per GPU and direction, which is why published NVLS busbw rises
 * with n.
 *
 * Fast-forward (FastForward, off by default; ai-fabric-sim's --fast-forward turns it on
 * with the RDMA one): when no flow has started or ended on the fabric for two windows of
 * FastForwardRounds rounds (a round: one chunk of every flow of an uplink), no NVLS
 * operation is in flight, and in the last window no uplink with work waited for a credit
 * and no chunk waited for a downlink, every uplink is serving its point-to-point flows in
 * turn back to back, a strictly periodic state: the uplinks stop sending for as many
 * whole rounds as keep every transfer FastForwardEndChunks chunks or more from its end,
 * those chunks count as sent and delivered (bytes, chunk counters; not the chunk traces),
 * and every uplink starts again where its round robin stands, the next chunk at the time
 * it would have started: transfers end when they would have. A transfer or operation
 * posted during a skip ends it at each uplink's next chunk boundary, the round robin where
 * it would stand; the chunks of the last round trip are not in flight then (no credit
 * held, no downlink busy), a skip's only approximation.
 *
 * Cost: three events per point-to-point chunk (uplink done, switch arrival, delivery);
 * a switch reduction costs 2 per member + 2 per chunk, a multicast 2 + 1 per member copy. A
 * returning credit wakes idle uplinks in O(n).
 */
class NvSwitchFabric : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NvSwitchFabric();
    ~NvSwitchFabric() override;

    /// Run once when a transfer or switch operation is complete.
    typedef Callback<void> DoneCallback;

    /**
     * Move bytes from GPU src to GPU dst through the switch (point-to-point). Transfers of
     * one (src, dst, channel) arrive in the order sent.
     * \param src sending GPU
     * \param dst receiving GPU
     * \param bytes payload
     * \param channel FIFO flow id (NCCL's channel)
     * \param done run when the last chunk has reached dst
     */
    void Send(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t channel, DoneCallback done);
    /// \return GPUs on the switch (the NGpus attribute)
    uint32_t GetNGpus() const;

    /// \return the GPUs' CUDA compute capability x 10 (ComputeCapability)
    uint32_t GetComputeCapability() const;

    /**
     * Set the number of GPUs (also NGpus). Only while nothing is in flight.
     * \param n GPUs on the switch, 1..1024
     */
    void SetNGpus(uint32_t n);

    /**
     * Apply a GPU preset (GpuPreset, the module's one GPU table) to this fabric: the
     * attributes of GetPresetAttributes. Efficiencies are not changed (they are
     * calibrated on H100). Aborts, listing the names, on an unknown name: programs check
     * names first (GpuPreset::Find).
     * \param name "A100", "H100", "H200" or "B200"
     */
    void ApplyPreset(const std::string& name);

    /// Attribute settings: (attribute name, value) pairs.
    typedef std::vector<std::pair<std::string, Ptr<const AttributeValue>>> AttributeList;

    /**
     * What a GPU preset means to this class, the one mapping from GpuPreset to fabric
     * attributes: LinkCount, PerLinkRate, CreditChunks, NvlsSupported and
     * ComputeCapability. ApplyPreset sets them on one fabric; GpuClusterHelper on the
     * fabrics it builds (or as defaults a program makes with Config::SetDefault).
     * \param preset the GPU
     * \return the attributes' names (as this class's TypeId spells them) and values
     */
    static AttributeList GetPresetAttributes(const GpuPreset& preset);

    /**
     * \param gpu a GPU of the switch (aborts if out of range)
     * \return GPU gpu's NVLink port
     */
    Ptr<NvLinkPort> GetPort(uint32_t gpu) const;
    /// \return the switch
    Ptr<NvSwitch> GetSwitch() const;

    /// \return LinkCount x PerLinkRate: line rate of one GPU port, per direction (as the
    /// fabric's attributes say; a port changed alone reports its own GetRate)
    DataRate GetPortRate() const;
    /// \return port rate x ProtocolEfficiency: what point-to-point payload gets
    DataRate GetPayloadRate() const;
    /// \return port rate x ProtocolEfficiency x NvlsEfficiency: what NVLS payload gets
    DataRate GetNvlsRate() const;

    /**
     * False when NvlsSupported is false (A100: no NVLink SHARP), so "auto" never picks
     * NVLS there; otherwise true for two or more distinct GPUs of this switch.
     * \param members GPUs of a would-be multicast group
     * \return whether SwitchReduce and SwitchMulticast work over them
     */
    bool CanReduceInSwitch(const std::vector<uint32_t>& members) const;
    /**
     * NVLS reduction issued by dst: every member's bytes are combined in the switch and the
     * result goes down to dst. Aborts, naming NvlsSupported, where the switch cannot.
     * \param members contributing GPUs (dst among them)
     * \param dst the GPU that receives the result
     * \param bytes per member
     * \param channel ignored: a destination's reductions are served in the order posted
     * \param done run when the last result chunk has reached dst
     */
    void SwitchReduce(const std::vector<uint32_t>& members,
                      uint32_t dst,
                      uint64_t bytes,
                      uint32_t channel,
                      DoneCallback done);
    /**
     * NVLS multicast: src's bytes go up once and down to every member.
     * \param src sending GPU
     * \param members receiving GPUs
     * \param bytes payload
     * \param channel ignored: a source's multicasts are served in the order posted
     * \param done run when every member has every chunk
     */
    void SwitchMulticast(uint32_t src,
                         const std::vector<uint32_t>& members,
                         uint64_t bytes,
                         uint32_t channel,
                         DoneCallback done);

    /**
     * \param nvls whether for NVLS traffic
     * \return the fraction of a port's line rate payload gets: ProtocolEfficiency, times
     *         NvlsEfficiency for NVLS traffic
     */
    double GetEfficiency(bool nvls) const;
    /// \return the flow-control unit (ChunkBytes): what the switch stores before forwarding
    uint64_t GetChunkBytes() const;
    /// \return the reduction engine's rate (NvlsThroughput), output bytes over all ports
    DataRate GetNvlsThroughput() const;

    /// \return chunks delivered to GPUs so far (multicast copies count once per GPU; a
    ///         fast-forward's skipped chunks count, round by round, as they would have)
    uint64_t GetChunksDelivered() const;
    /// \return point-to-point payload bytes delivered so far
    uint64_t GetBytesDelivered() const;
    /// \return transfers and switch operations posted but not yet complete
    uint64_t GetTransfersInFlight() const;
    /// \return the most credits ever in use at one egress port (never above CreditChunks)
    uint32_t GetMaxEgressOccupancy() const;
    /// \return skips of the fast-forward (FastForward)
    uint64_t GetSkips() const;
    /// \return chunks the fast-forward let through (counted in GetChunksDelivered too)
    uint64_t GetSkippedChunks() const;

    /**
     * What the fabric has done so far, in counters that add up: what a replayed call
     * adds to them (Replay).
     */
    struct Work
    {
        uint64_t transfers{0};              //!< point-to-point transfers (posted and done)
        uint64_t switchOps{0};              //!< NVLS operations (posted and done)
        uint64_t chunks{0};                 //!< chunks delivered (GetChunksDelivered)
        uint64_t bytes{0};                  //!< point-to-point payload (GetBytesDelivered)
        uint64_t skips{0};                  //!< fast-forward skips (GetSkips)
        uint64_t skippedChunks{0};          //!< chunks they let through (GetSkippedChunks)
        uint64_t posts{0};                  //!< transfers and operations posted (GetPosts)
        std::vector<uint64_t> portSent;     //!< per GPU: payload sent up
        std::vector<uint64_t> portReceived; //!< per GPU: payload received
    };

    /// \return the counters now (only meaningful while nothing is in flight)
    Work GetWork() const;
    /**
     * \param after counters at the end of a stretch
     * \param before counters at its start
     * \return what the fabric did in between
     */
    static Work Difference(const Work& after, const Work& before);
    /// \return transfers and switch operations posted so far, zero-byte ones and the
    ///         replayed calls' included
    uint64_t GetPosts() const;
    /**
     * Whether nothing is left of past traffic: no transfer or operation in flight, every
     * credit and reduction slot back, every link idle, no skip or skip try pending
     * (NoteDrained cancels the try when the fabric drains) and no replayed call holding
     * the fabric. A call that starts on a quiet fabric and has it to itself takes the
     * same time whenever it starts (the fabric's state is the same), which is what
     * CollectiveEngine's call replay rests on.
     * \return whether the fabric is quiet now
     */
    bool IsQuiet() const;
    /**
     * Count a call's work as done now without simulating it (CollectiveEngine's call
     * replay: the same call on this fabric, started quiet, did it before, had the fabric
     * to itself and left it quiet). The fabric is not quiet for hold; a transfer or
     * operation posted within it is counted as an overlap (GetReplayOverlaps) and runs
     * as if the replayed call were not there, the replay's one approximation.
     * \param work the call's counters (Difference of its recording)
     * \param hold the call's duration
     */
    void Replay(const Work& work, Time hold);
    /// \return calls replayed on this fabric (Replay)
    uint64_t GetReplays() const;
    /// \return chunks of the replayed calls that their recordings simulated (counted in
    ///         GetChunksDelivered too; the ones their recordings skipped count in
    ///         GetSkippedChunks)
    uint64_t GetReplayedChunks() const;
    /// \return transfers and operations posted while a replayed call held the fabric
    uint64_t GetReplayOverlaps() const;

    /**
     * Signature of ChunkSent / ChunkDelivered.
     * \param src sending GPU (the destination, for an NVLS result)
     * \param dst receiving GPU (ANY for an NVLS contribution, which ends in the switch,
     *            and for a multicast chunk going up)
     * \param bytes chunk payload
     */
    typedef void (*ChunkTracedCallback)(uint32_t src, uint32_t dst, uint64_t bytes);

    /// dst of a chunk that ends in the switch (NVLS contribution) or goes to every GPU.
    static constexpr uint32_t ANY = 0xffffffffu;

  protected:
    void DoDispose() override;

  private:
    /// What a chunk is for.
    enum class Kind : uint8_t
    {
        P2P,     //!< point-to-point payload
        CONTRIB, //!< one GPU's NVLS contribution, ends in the reduction engine
        RESULT,  //!< reduced NVLS chunk, switch -> destination
        MCAST,   //!< multicast chunk, source -> switch -> every member
    };

    /// Work queued on an uplink flow: a whole transfer or multicast (cut lazily) or one
    /// reduction contribution.
    struct Job
    {
        Kind kind;
        uint32_t dst;       //!< P2P receiver
        uint64_t remaining; //!< P2P, MCAST: bytes not yet put on the uplink
        uint64_t op;        //!< switch operation
        uint32_t index;     //!< CONTRIB: chunk
        DoneCallback done;  //!< P2P: run when the last chunk arrived
    };

    /// One chunk on its way.
    struct Chunk
    {
        Kind kind;
        uint32_t src;
        uint32_t dst;
        uint64_t bytes;
        uint64_t op;
        uint32_t index;
        bool last;         //!< P2P: last chunk of its transfer
        DoneCallback done; //!< P2P, last chunk only
    };

    /// (kind, peer, channel or op): one FIFO flow of an uplink.
    typedef std::tuple<uint8_t, uint32_t, uint64_t> FlowKey;
    /// Flow kinds: part of the key so NVLS and point-to-point flows never merge.
    static constexpr uint8_t KEY_P2P = 0;     //!< (P2P, receiver, channel)
    static constexpr uint8_t KEY_CONTRIB = 1; //!< a GPU's NVLS contributions, one FIFO
    static constexpr uint8_t KEY_MCAST = 2;   //!< a GPU's multicasts, one FIFO

    /// A GPU's uplink scheduler: round-robin over its flows, per chunk.
    struct Uplink
    {
        /// The flows, each with its jobs (a flow is here exactly while it has jobs).
        typedef std::map<FlowKey, std::deque<Job>> Flows;
        Uplink() = default;
        Uplink(const Uplink&) = delete; //!< the ring points into this uplink's flows
        Uplink& operator=(const Uplink&) = delete;
        Uplink(Uplink&&) = default;            //!< map nodes move with the map
        Uplink& operator=(Uplink&&) = default; //!< map nodes move with the map
        Flows flows;                           //!< the flows with work, by key
        std::deque<Flows::iterator> ring;      //!< the same flows, in round-robin order
        bool waiting{false}; //!< idle with work (credit stall, or work just added)
        // The fast-forward's (FastForward on only).
        Time lastStart;           //!< when its last chunk started
        Time lastSer;             //!< that chunk's serialization
        bool lastFull{false};     //!< that chunk was ChunkBytes long
        bool skipping{false};     //!< a skip holds it
        Time skipFrom;            //!< the skip's first round starts here
        Time round;               //!< one chunk of each of its flows
        uint64_t rounds{0};       //!< rounds the skip lets through
        std::size_t skipFlows{0}; //!< the skip's flows: the ring's first (new ones behind)
        std::size_t extra{0};     //!< a cut skip: its first flows that sent one chunk more
        EventId resume;           //!< the skip's end on this uplink
    };

    /// State of one switch reduction or multicast.
    struct SwitchOp
    {
        std::vector<uint32_t> members; //!< GPUs that contribute / receive
        uint32_t owner{0};             //!< reduction destination, multicast source
        uint64_t bytes{0};
        uint32_t next{0};               //!< reduction: next chunk to issue
        std::vector<uint32_t> arrivals; //!< reduction: contributions in, per chunk
        uint64_t left{0}; //!< results (reduction) or copies (multicast) not yet delivered
        DoneCallback done;
    };

    void ConfigurePorts();
    void ConfigureSwitch();
    void SetOnPorts(const std::string& name, const AttributeValue& value);
    void SetLinkCount(uint32_t n);
    uint32_t GetLinkCount() const;
    void SetPerLinkRate(DataRate rate);
    DataRate GetPerLinkRate() const;
    void SetLatency(Time latency);
    Time GetLatency() const;
    void SetCreditChunks(uint32_t n);
    uint32_t GetCreditChunks() const;
    void SetNvlsThroughput(DataRate rate);
    void AddJob(uint32_t gpu, const FlowKey& key, Job job);
    bool Eligible(const Job& job) const;
    void TryStartUplink(uint32_t gpu);
    /// Try every uplink that is idle with work (in GPU order), as a returning credit or
    /// slot may let it start: the ones that are busy or have nothing to send cannot.
    void KickUplinks();
    /// \param gpu its uplink \param waiting whether it is idle with work
    void SetWaiting(uint32_t gpu, bool waiting);
    void UplinkDone(uint32_t gpu);
    void ArriveSwitch(Chunk chunk);
    void ReduceDone(uint64_t op, uint32_t index);
    void EnqueueDown(uint32_t port, Chunk chunk);
    void AfterDown(uint32_t port, Chunk chunk, bool returnCredit);
    void MulticastDown(Chunk chunk);
    void AfterMulticastDown(Chunk chunk, std::vector<uint32_t> gpus);
    void CreditBack(uint32_t port);
    uint64_t ChunkSize(uint64_t bytes, uint32_t index) const;
    uint32_t ChunkCount(uint64_t bytes) const;
    void FinishSwitchChunk(uint64_t op);
    void IssueReductions(uint32_t owner);
    void CheckMembers(const char* what, const std::vector<uint32_t>& members) const;
    uint64_t NewSwitchOp(Kind kind,
                         const std::vector<uint32_t>& members,
                         uint32_t owner,
                         uint64_t bytes,
                         DoneCallback done);
    void RunDone(DoneCallback done);
    /// A transfer or operation is posted: count it an overlap if a replay holds the fabric.
    void NotePost();
    /// The fabric's flows change (a transfer, contribution or multicast is posted, one
    /// leaves its uplink): a skip under way ends, the next try waits for the new state.
    void NoteChange();
    /// Something not periodic happened (a credit stall, a chunk queued on a downlink).
    void NoteIrregular();
    /// \return whether no transfer or switch operation is under way, zero-byte ones included
    bool IsDrained() const;
    /// A transfer or operation completed: if none is left, forget the pending skip try
    /// (an empty fabric's state does not depend on its past: IsQuiet).
    void NoteDrained();
    /// \return one round of the fabric's busiest uplink at the chunk's serialization
    Time LongestRound() const;
    /// \return how long the flows must not change before a skip: two windows
    Time QuietTime() const;
    /// Start a skip if the fabric is in the periodic state (see the class description).
    void TrySkip();
    /// End the skip under way at each uplink's next chunk boundary.
    void CutSkip();
    /// A skip's end on one uplink: count what it let through, send again. \param gpu it
    void ResumeUplink(uint32_t gpu);
    /// \return chunks of the skips under way that would have been sent by now (whole
    ///         rounds), not yet counted: the counters grow through a skip as without it
    uint64_t SkippedSoFar() const;

    uint32_t m_nGpus{0};
    // In-class values: NGpus may be set (and ports configured) before these attributes.
    uint32_t m_linkCount{18};
    DataRate m_perLinkRate{"200Gbps"};
    Time m_latency{NanoSeconds(500)};
    uint64_t m_chunkBytes;
    uint32_t m_creditChunks{8};
    double m_protocolEfficiency;
    double m_nvlsEfficiency;
    DataRate m_nvlsThroughput{"28800Gbps"};
    bool m_nvlsSupported{true};       //!< the switch reduces (NVLS): Hopper and newer
    uint32_t m_computeCapability{90}; //!< the GPUs' CUDA compute capability x 10

    std::vector<Ptr<NvLinkPort>> m_ports; //!< per GPU
    Ptr<NvSwitch> m_switch;
    std::vector<Uplink> m_uplinks;                   //!< per GPU: what it sends next
    uint32_t m_nWaiting{0};                          //!< uplinks idle with work
    std::vector<std::deque<uint64_t>> m_reduceQueue; //!< per GPU: reductions to issue
    std::unordered_map<uint64_t, SwitchOp> m_ops;
    uint64_t m_switchOpsStarted{0};
    uint64_t m_switchOpsDone{0};
    uint64_t m_nextOp{1};
    uint64_t m_transfersSent{0};
    uint64_t m_transfersDone{0};
    uint64_t m_chunksDelivered{0};
    uint64_t m_bytesDelivered{0};
    bool m_disposed{false};

    bool m_ff{false};              //!< FastForward
    uint32_t m_ffRounds{8};        //!< FastForwardRounds
    uint32_t m_ffEndChunks{4};     //!< FastForwardEndChunks
    Time m_lastChange;             //!< the flows' last change
    Time m_lastIrregular;          //!< the last stall or downlink queue
    EventId m_ffTry;               //!< the next TrySkip
    uint32_t m_skippingUplinks{0}; //!< uplinks a skip holds
    uint64_t m_ffSkips{0};         //!< GetSkips
    uint64_t m_ffChunks{0};        //!< GetSkippedChunks

    uint64_t m_posts{0};            //!< GetPosts
    uint32_t m_emptyOpsInFlight{0}; //!< zero-byte NVLS operations under way
    Time m_replayUntil;             //!< a replayed call holds the fabric until then
    uint64_t m_replays{0};          //!< GetReplays
    uint64_t m_replayedChunks{0};   //!< GetReplayedChunks
    uint64_t m_replayOverlaps{0};   //!< GetReplayOverlaps

    TracedCallback<uint32_t, uint32_t, uint64_t> m_chunkSentTrace;
    TracedCallback<uint32_t, uint32_t, uint64_t> m_chunkDeliveredTrace;
};

} // namespace ns3

#endif // NV_SWITCH_FABRIC_H
