// SPDX-License-Identifier: GPL-2.0-only
#ifndef PARAMETER_SERVER_SYNC_H
#define PARAMETER_SERVER_SYNC_H

#include "training-trace.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <string>

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
 * other and never meet the trace's own sends (a trace using those tags is refused). Servers on
 * dedicated hosts (CPU servers with their own NICs) are not modelled.
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

    /// \param tag a send/recv tag \return whether it is a parameter server's push
    static bool IsPush(uint32_t tag);
    /// \param tag a send/recv tag \return whether it is a parameter server's pull
    static bool IsPull(uint32_t tag);

    /**
     * Rewrite the all-reduces on the groups of kind (or name) select.
     * \param trace a valid trace, changed in place (still valid after)
     * \param select a group kind ("dp") or name
     * \param servers servers per group (at least 1, at most the group's size)
     * \param hbmBytesPerSecond the GPU's HBM bandwidth (when ReduceBandwidth is 0)
     * \param error set when nothing is selected, servers is out of range, the trace's own
     *        sends use the tags or a selected group's index is beyond GROUP_MASK
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
    double m_reduceBandwidth{0}; //!< bytes per second; 0: the GPU's HBM
    uint64_t m_rewritten{0};     //!< all-reduces rewritten, over all ranks
};

} // namespace ns3

#endif // PARAMETER_SERVER_SYNC_H
