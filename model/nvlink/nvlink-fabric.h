// SPDX-License-Identifier: GPL-2.0-only
#ifndef NVLINK_FABRIC_H
#define NVLINK_FABRIC_H

#include "ns3/collective-engine.h"
#include "ns3/collective-transport.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * N GPUs on one NVSwitch, modelled at chunk granularity (the scale-up carrier).
 *
 * Each GPU has one aggregate NVLink port to the switch: LinkCount x PerLinkRate per
 * direction. Per-packet events would be far too many at hundreds of GB/s, so the unit
 * of work is a chunk of ChunkBytes (the flow-control unit).
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
 * NVLS (AllReduceNvls): NCCL's NVLS all-reduce, done the way Hopper does it: GPU g owns
 * 1/n of the buffer. For each chunk of g's shard every GPU sends its contribution up
 * (multimem.ld_reduce), the switch's reduction engine combines the chunk once all n
 * contributions are in (FIFO server at NvlsThroughput), the result goes down to g, and g
 * sends it up once more for the switch to multicast down all n downlinks (multimem.st).
 * Per GPU each direction carries S (1 + 1/n), which is why published NVLS busbw rises
 * with n. NVLS traffic serializes at rate x ProtocolEfficiency x NvlsEfficiency. The
 * reduction holds a per-owner slot (CreditChunks per port, separate from the egress
 * credits) from issue until the result leaves g's downlink; multicast copies need a
 * credit at every egress port.
 *
 * Cost: three events per point-to-point chunk (uplink done, switch arrival, delivery);
 * NVLS costs n + 4 events per chunk plus n per multicast copy. A returning credit wakes
 * idle uplinks in O(n).
 */
class NvSwitchFabric : public CollectiveTransport
{
  public:
    /// Called when an NVLS call has finished, with nccl-tests style figures.
    typedef Callback<void, const CollectiveResult&> NvlsDoneCallback;

    static TypeId GetTypeId();

    NvSwitchFabric();
    ~NvSwitchFabric() override;

    void Send(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t channel, DoneCallback done)
        override;
    uint32_t GetNRanks() const override;

    /// Set the number of GPUs (also NGpus). Only while nothing is in flight.
    void SetNGpus(uint32_t n);

    /**
     * Figures of one GPU generation, from REFERENCE.md (NVLink, NVSwitch, NCCL).
     * "A100": 12 x 25 GB/s = 300 GB/s per direction; "H100": 18 x 25 GB/s = 450 GB/s;
     * "B200": 18 x 50 GB/s = 900 GB/s. Efficiencies are not changed (calibrated on H100).
     * CreditChunks is part of a preset because the credits must cover the bandwidth-delay
     * product of the credit loop (two chunk times + two hops): 8 x 64 KiB suffice up to
     * ~390 GB/s of payload with 0.5 us hops, B200 needs 16 (measured: 445 GB/s with 8).
     */
    struct Preset
    {
        uint32_t linkCount;    //!< NVLinks per GPU
        DataRate perLinkRate;  //!< per link, per direction
        uint32_t creditChunks; //!< egress credits per port
    };

    /// \return the preset of name; aborts, listing the names, if unknown
    static Preset GetPreset(const std::string& name);
    /// Make name's figures the defaults (LinkCount, PerLinkRate, CreditChunks) of later fabrics.
    static void SetPreset(const std::string& name);
    /// Apply name's figures to this fabric.
    void ApplyPreset(const std::string& name);

    /// \return LinkCount x PerLinkRate: line rate of one GPU port, per direction
    DataRate GetPortRate() const;
    /// \return port rate x ProtocolEfficiency: what point-to-point payload gets
    DataRate GetPayloadRate() const;
    /// \return port rate x ProtocolEfficiency x NvlsEfficiency: what NVLS payload gets
    DataRate GetNvlsRate() const;

    /**
     * Start an NVLS all-reduce of bytes over all GPUs now (in-switch reduction and
     * multicast). done gets start, end, algBw and busBw (busBw = algBw x 2(n-1)/n, as
     * nccl-tests prints for NVLS too).
     * \return an id, also in the result
     */
    uint64_t AllReduceNvls(uint64_t bytes, NvlsDoneCallback done);

    /// \return chunks delivered to GPUs so far (multicast copies count once per GPU)
    uint64_t GetChunksDelivered() const;
    /// \return point-to-point payload bytes delivered so far
    uint64_t GetBytesDelivered() const;
    /// \return transfers sent but not yet delivered
    uint64_t GetTransfersInFlight() const;
    /// \return the most credits ever in use at one egress port (never above CreditChunks)
    uint32_t GetMaxEgressOccupancy() const;

    /**
     * Signature of ChunkSent / ChunkDelivered.
     * \param src sending GPU (the owner, for NVLS)
     * \param dst receiving GPU (ANY for an NVLS contribution, which goes to the switch)
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
        RESULT,  //!< reduced NVLS chunk, switch -> owner
        MCAST,   //!< reduced NVLS chunk, owner -> switch -> every GPU
    };

    /// Work queued on an uplink flow: a whole transfer (P2P, cut lazily) or one NVLS chunk.
    struct Job
    {
        Kind kind;
        uint32_t dst;       //!< P2P receiver
        uint64_t remaining; //!< bytes not yet put on the uplink
        uint64_t op;        //!< NVLS call
        uint32_t index;     //!< NVLS chunk
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

    /// A GPU's uplink: round-robin over its flows, per chunk.
    struct Uplink
    {
        bool busy{false};
        std::deque<FlowKey> ring;                  //!< flows with work, in RR order
        std::map<FlowKey, std::deque<Job>> flows; //!< their jobs
    };

    /// State of one NVLS call.
    struct NvlsOp
    {
        uint64_t id;
        uint64_t bytes;
        Time start;
        NvlsDoneCallback done;
        std::vector<uint64_t> chunkBytes;   //!< per chunk, shards in owner order
        std::vector<uint32_t> chunkOwner;   //!< per chunk
        std::vector<uint32_t> arrivals;     //!< contributions in, per chunk
        std::vector<uint32_t> next;         //!< per owner: next chunk to issue
        std::vector<uint32_t> end;          //!< per owner: one past its last chunk
        std::vector<uint32_t> slots;        //!< per owner: free reduction slots
        uint64_t copiesLeft;                //!< multicast copies not yet delivered
    };

    Time SerializationTime(uint64_t bytes, bool nvls) const;
    void AddJob(uint32_t gpu, const FlowKey& key, Job job);
    bool Eligible(const Job& job) const;
    void TryStartUplink(uint32_t gpu);
    void KickUplinks();
    void UplinkDone(uint32_t gpu);
    void ArriveSwitch(Chunk chunk);
    void ReduceDone(uint64_t op, uint32_t index);
    void EnqueueDown(uint32_t port, Chunk chunk);
    void AfterDown(uint32_t port, Chunk chunk);
    void IssueNvls(NvlsOp& op, uint32_t owner);

    uint32_t m_nGpus{0};
    uint32_t m_linkCount;
    DataRate m_perLinkRate;
    Time m_latency;
    uint64_t m_chunkBytes;
    uint32_t m_creditChunks;
    double m_protocolEfficiency;
    double m_nvlsEfficiency;
    DataRate m_nvlsThroughput;

    std::vector<Uplink> m_uplinks;      //!< per GPU
    std::vector<uint32_t> m_creditsUsed; //!< per egress port
    std::vector<Time> m_downFree;       //!< per downlink: when it becomes idle (FIFO clock)
    Time m_reduceFree;                  //!< reduction engine FIFO clock
    std::unordered_map<uint64_t, NvlsOp> m_ops;
    uint64_t m_nextOp{1};
    uint64_t m_transfersSent{0};
    uint64_t m_transfersDone{0};
    uint64_t m_chunksDelivered{0};
    uint64_t m_bytesDelivered{0};
    uint32_t m_maxOccupancy{0};
    bool m_disposed{false};

    TracedCallback<uint32_t, uint32_t, uint64_t> m_chunkSentTrace;
    TracedCallback<uint32_t, uint32_t, uint64_t> m_chunkDeliveredTrace;
    TracedCallback<const CollectiveResult&> m_nvlsDoneTrace;
};

} // namespace ns3

#endif // NVLINK_FABRIC_H
