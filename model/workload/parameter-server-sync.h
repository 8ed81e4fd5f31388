// SPDX-License-Identifier: GPL-2.0-only
#ifndef PARAMETER_SERVER_SYNC_H
#define PARAMETER_SERVER_SYNC_H

#include "training-trace.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Synchronisation by parameter servers, as a rewrite of a trace's all-reduces into
 * point-to-point pushes and pulls (so every trace format, and the generator's traces,
 * run it).
 *
 * Each selected all-reduce of S bytes over a group of n ranks becomes, with k servers
 * colocated with the group's ranks (server j is group rank floor(j n / k), holding shard
 * j: SplitBytes(S, k, j)):
 * - push: every rank sends shard j to server j (its own shard stays), all shards at once
 *   (one stream per server);
 * - reduce: server j adds the n copies of its shard once they are in (a memory-bound
 *   kernel: (n + 1) x shard bytes at ReduceBandwidth, by default the GPU's HBM);
 * - pull: server j sends the reduced shard back to every other rank.
 *
 * On the rank, a zero-length "begin" op takes the all-reduce's place and dependencies,
 * and a zero-length "join" op, after every pull (and, on a server, its reduce), is what
 * the all-reduce's dependents wait for. Pushes and pulls use their own streams (per group
 * of the rank) and tags (PUSH_TAG, PULL_TAG with the group's index), so they overlap each
 * other and never meet the trace's own sends (a trace using those tags is refused).
 *
 * Placement (the attribute) says where the servers are:
 * - colocated: as above, on the group's own GPUs;
 * - cpu: on k dedicated CPU hosts with their own NICs, appended to the trace as CPU ranks
 *   (TrainingTrace::SetNCpuRanks) and shared by every selected group: each rank pushes
 *   shard j (SplitBytes(S, k, j)) to host j, which adds the n copies at
 *   CpuReduceBandwidth ((n + 1) x shard bytes) and sends the sum back;
 * - byteps: the BytePS hybrid (Jiang et al., OSDI 2020): the ranks of the group on one
 *   server (GpusPerServer: rank r on server r / GpusPerServer) first reduce-scatter over NVLink (a
 * collective on a new group per server, named GROUP.psS for the S-th server of the group), each
 * pushes its 1/g share, split over the k hosts, to them, and the hosts add the m servers' copies of
 * each piece and send them back; an all-gather on the server's group ends it. Every server must
 * hold the same number g of the group's ranks.
 */
class ParameterServerSync : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    ParameterServerSync();
    ~ParameterServerSync() override;

    /// The tags of pushes, a rank to a server ("PU" in the high half; the low half is
    /// the group's index): a rank that is both a server and a worker receives pushes and
    /// pulls from the same peers, told apart by tag, and each group's calls pair up on
    /// their own, whatever order groups that share ranks call in.
    static constexpr uint32_t PUSH_TAG = 0x50550000;
    /// The tags of pulls, a server to a rank ("PL" in the high half, the group's index).
    static constexpr uint32_t PULL_TAG = 0x504C0000;
    /// The low half of a push or pull tag: the group's index.
    static constexpr uint32_t GROUP_MASK = 0xFFFF;
    /// The most dedicated CPU hosts a rewrite adds.
    static constexpr uint32_t MAX_CPU_SERVERS = 4096;
    /// The bound of GpusPerServer (NvSwitchFabric's bound on GPUs per switch).
    static constexpr uint32_t MAX_GPUS_PER_SERVER = 1024;

    /// What the rewrite appends to an all-reduce's name, per new op (one table: the
    /// rewrites write them, reports and tests read them).
    struct OpSuffix
    {
        static constexpr const char* BEGIN = ".ps.begin";   //!< takes the all-reduce's place
        static constexpr const char* PUSH = ".ps.push";     //!< a rank's push to a server
        static constexpr const char* PULL = ".ps.pull";     //!< a rank's pull from a server
        static constexpr const char* IN = ".ps.in";         //!< a server's receive of a push
        static constexpr const char* REDUCE = ".ps.reduce"; //!< a server's sum
        static constexpr const char* OUT = ".ps.out";       //!< a server's send of the sum
        static constexpr const char* SCATTER = ".ps.rs";    //!< byteps: the server's reduce-scatter
        static constexpr const char* GATHER = ".ps.ag";     //!< byteps: the server's all-gather
        static constexpr const char* JOIN = ".ps.join";     //!< what the dependents wait for
    };

    /// byteps: the group of the ranks of GROUP on its m-th server is GROUP + this + m.
    static constexpr const char* SERVER_GROUP = ".ps";

    /// Where the servers are (the Placement attribute).
    enum Placement
    {
        COLOCATED, //!< on the group's GPUs
        CPU,       //!< on dedicated CPU hosts
        BYTEPS,    //!< reduce-scatter inside each server, then dedicated CPU hosts
    };

    /**
     * \param name a placement as the Placement attribute spells it
     * \param placement set to it when known
     * \return whether name is one
     */
    static bool PlacementFromString(const std::string& name, Placement* placement);
    /// \param placement a placement \return its name ("colocated", "cpu", "byteps")
    static std::string PlacementToString(Placement placement);
    /// \return the placements' names, comma-separated (for messages)
    static std::string GetPlacementNames();
    /// \param count CPU hosts \return "1 CPU host", "2 CPU hosts", ... (for messages)
    static std::string CountCpuHosts(uint32_t count);

    /// \param tag a send/recv tag \return whether it is a parameter server's push
    static bool IsPush(uint32_t tag);
    /// \param tag a send/recv tag \return whether it is a parameter server's pull
    static bool IsPull(uint32_t tag);

    /**
     * Rewrite the all-reduces on the groups of kind (or name) select.
     * \param trace a valid trace, changed in place (still valid after)
     * \param select a group kind ("dp") or name
     * \param servers servers per group (colocated: at least 1, at most the group's size);
     *        dedicated CPU hosts (cpu, byteps: 1 to MAX_CPU_SERVERS)
     * \param hbmBytesPerSecond the GPU's HBM bandwidth (when ReduceBandwidth is 0)
     * \param error set when nothing is selected, servers is out of range, the trace's own
     *        sends use the tags, a selected group's index is beyond GROUP_MASK; for the
     *        dedicated placements also a trace that has CPU ranks already, a group whose
     *        servers hold different numbers of its ranks (byteps) and a new group's name
     *        that the trace uses
     * \return true on success (the trace is unchanged otherwise: the rewrite is made on a
     *         copy and kept only if it validates)
     */
    bool Apply(TrainingTrace& trace,
               const std::string& select,
               uint32_t servers,
               double hbmBytesPerSecond,
               std::string* error);

    /// \return all-reduces rewritten by the last Apply (per rank, summed)
    uint64_t GetRewritten() const;

    /**
     * \param n the group's size \param k servers \param j a server
     * \return the group rank of server j
     */
    static uint32_t ServerOf(uint32_t n, uint32_t k, uint32_t j);

  private:
    /// What Scan finds: the selected groups and, per rank, their order.
    struct Selection
    {
        std::map<std::string, uint32_t> groupIndex; //!< every group's index, by name
        /// per rank: its selected groups in the order it first calls them
        std::vector<std::map<std::string, uint32_t>> ordinal;
        std::vector<std::string> groups; //!< the selected groups, in order of first call
        uint32_t mostGroups{0};          //!< most selected groups of one rank
        uint32_t largest{0};             //!< ranks of the largest selected group
    };

    /**
     * \param trace a trace \param op one of its ops \param select a kind or group name
     * \return whether op is an all-reduce of a group select names
     */
    static bool Selects(const TrainingTrace& trace, const TraceOp& op, const std::string& select);
    /**
     * Find the selected all-reduces; refuse the trace's own use of the tags.
     * \param trace the trace \param select a kind or group name
     * \param colocated whether to check perGroup against each group's size
     * \param perGroup the servers per group (colocated)
     * \param out what was found \param error set on refusal \return success
     */
    static bool Scan(const TrainingTrace& trace,
                     const std::string& select,
                     bool colocated,
                     uint32_t perGroup,
                     Selection& out,
                     std::string* error);
    /**
     * Replace rank r's ops: old op i becomes becomes[i] (one op: unchanged); in a
     * rewrite's ops, dep d of the first names old op d, of the others op d of the rewrite.
     * \param trace the trace whose rank r is rewritten \param r the rank
     * \param old its ops before \param becomes per old op, its new ops
     */
    static void Splice(TrainingTrace& trace,
                       uint32_t r,
                       const std::vector<TraceOp>& old,
                       const std::vector<std::vector<TraceOp>>& becomes);
    /// Apply for the cpu and byteps placements (see Apply).
    bool ApplyDedicated(TrainingTrace& trace,
                        const std::string& select,
                        uint32_t servers,
                        std::string* error);

    double m_reduceBandwidth{0};      //!< bytes per second; 0: the GPU's HBM
    double m_cpuReduceBandwidth{0};   //!< bytes per second, of a CPU host
    Placement m_placement{COLOCATED}; //!< where the servers are
    uint32_t m_gpusPerServer{0};      //!< byteps: rank r on server r / this
    uint64_t m_rewritten{0};          //!< all-reduces rewritten, over all ranks
};

} // namespace ns3

#endif // PARAMETER_SERVER_SYNC_H
