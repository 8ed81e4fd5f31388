// SPDX-License-Identifier: GPL-2.0-only
#ifndef COMM_GROUP_H
#define COMM_GROUP_H

#include <cstdint>
#include <ostream>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The ranks of a communicator and the GPUs they run on.
 *
 * Rank r of the group is one GPU, named by the server it sits in and its local index in
 * that server (0..gpusPerServer-1). The local index is also the GPU's rail: in a
 * rail-optimized cluster the NIC of local GPU i on every server connects to the same
 * leaf, so ranks with equal local index talk to each other without crossing the spine.
 * Algorithms read this hierarchy to decide what goes over NVLink (same server) and what
 * goes over RDMA (same rail, different server).
 *
 * Server indices are cluster-wide, not group-relative: a sub-group of servers 2 and 5
 * still reports servers 2 and 5, so the engine can find the hardware without carrying
 * a chain of rank translations.
 *
 * A CommGroup is a value: cheap to copy, never changes after construction.
 */
class CommGroup
{
  public:
    /// Where one rank runs.
    struct Gpu
    {
        uint32_t server{0}; //!< cluster-wide server index
        uint32_t local{0};  //!< GPU index inside the server, which is also its rail
    };

    /// An empty group (size 0); only useful as a placeholder to assign to.
    CommGroup();

    /**
     * A group whose rank r runs on gpus[r].
     * Aborts if a GPU appears twice.
     * \param gpus one entry per rank
     */
    explicit CommGroup(std::vector<Gpu> gpus);

    /**
     * The usual world group: nServers servers with gpusPerServer GPUs each, ranks
     * numbered server-major (rank = server * gpusPerServer + local).
     * \param nServers number of servers, at least 1
     * \param gpusPerServer GPUs per server, at least 1
     * \param hosts hosts of one rank each after the GPUs (CPU hosts such as dedicated
     *        parameter servers): rank nServers * gpusPerServer + h is server nServers + h,
     *        local index 0
     * \return the group
     */
    static CommGroup Uniform(uint32_t nServers, uint32_t gpusPerServer, uint32_t hosts = 0);

    /**
     * A group of some of this group's ranks, in the order given: rank i of the new group
     * is rank ranks[i] of this one and runs on the same GPU, so the hierarchy carries over.
     * Aborts on an empty list, a rank out of range or a repeated rank.
     * \param ranks ranks of this group
     * \return the sub-group
     */
    CommGroup SubGroup(const std::vector<uint32_t>& ranks) const;

    /// \return the number of ranks
    uint32_t GetSize() const;
    /**
     * \param rank a rank of the group (aborts if out of range)
     * \return the GPU rank runs on
     */
    Gpu GetGpu(uint32_t rank) const;
    /**
     * \param rank a rank of the group
     * \return the cluster-wide server index of rank
     */
    uint32_t GetServer(uint32_t rank) const;
    /**
     * \param rank a rank of the group
     * \return the local GPU index (rail) of rank
     */
    uint32_t GetLocalIndex(uint32_t rank) const;
    /**
     * \param a a rank of the group
     * \param b another
     * \return true if ranks a and b run on the same server
     */
    bool SameServer(uint32_t a, uint32_t b) const;

    /**
     * The group's shape: what a plan built for it depends on besides its size (the
     * server and local index of every rank), as one list to key caches by.
     * \return server and local index of rank 0, then of rank 1, and so on
     */
    std::vector<uint32_t> GetShape() const;
    /// \return the servers the group spans, ascending
    std::vector<uint32_t> GetServers() const;
    /// \return the number of distinct servers the group spans
    uint32_t GetNServers() const;
    /**
     * \param server a cluster-wide server index
     * \return the ranks on server (ascending; empty if the group has none there)
     */
    std::vector<uint32_t> GetRanksOnServer(uint32_t server) const;
    /**
     * \param server a cluster-wide server index
     * \return the ranks on server in the order of their local index (so position p is
     *         the same rail on every server of a uniform group)
     */
    std::vector<uint32_t> GetRanksOnServerByLocalIndex(uint32_t server) const;
    /// \return the local indices (rails) the group uses, ascending
    std::vector<uint32_t> GetRails() const;
    /**
     * \param localIndex a local GPU index (rail)
     * \return the ranks whose local index is localIndex, ascending (possibly empty)
     */
    std::vector<uint32_t> GetRail(uint32_t localIndex) const;

    /**
     * Look a GPU up.
     * \param server cluster-wide server index
     * \param local local GPU index
     * \param rank set to the GPU's rank when found
     * \return true if the group has a rank on that GPU
     */
    bool FindRank(uint32_t server, uint32_t local, uint32_t& rank) const;

    /**
     * \return true if every server of the group holds the same number of ranks on the same
     * set of local indices: the shape hierarchical algorithms (intra-server, then one ring
     * per rail) need.
     */
    bool IsUniform() const;

    /**
     * Write one line per server: "server s: rank(local) ...".
     * \param os the stream
     */
    void Print(std::ostream& os) const;

  private:
    std::vector<Gpu> m_gpus; //!< indexed by rank
};

/**
 * \param os the stream
 * \param group the group, written as CommGroup::Print writes it
 * \return os
 */
std::ostream& operator<<(std::ostream& os, const CommGroup& group);

} // namespace ns3

#endif // COMM_GROUP_H
