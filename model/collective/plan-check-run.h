// SPDX-License-Identifier: GPL-2.0-only
#ifndef PLAN_CHECK_RUN_H
#define PLAN_CHECK_RUN_H

// PlanChecker's one run over one plan, shared by its two source files (not installed):
// plan-checker.cc checks the plan's blocks, its races and its goal; plan-checker-dataflow.cc
// moves every block's contributions through the transfers in a topological order.

#include "plan-checker.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ns3
{
namespace plancheck
{

/**
 * \param type a collective
 * \return true for the collectives whose every rank starts with a contribution to
 *         every block and whose transfers may reduce
 */
inline bool
IsReducing(CollectiveType type)
{
    return type == CollectiveType::ALL_REDUCE || type == CollectiveType::REDUCE_SCATTER ||
           type == CollectiveType::REDUCE;
}

/// How a transfer touches one (rank, block) location.
enum AccessKind : uint8_t
{
    READ,   //!< the location is the sender's copy
    WRITE,  //!< the location is the receiver's copy, replaced
    REDUCE, //!< the location is the receiver's copy, reduced into
};

/// One touch of one location, for the race check.
struct Access
{
    uint64_t location; //!< block * n + rank
    uint32_t pos;      //!< topological position of the transfer
    uint32_t id;       //!< transfer id
    AccessKind kind;   //!< how
};

/**
 * One run of the checker over one plan. Kept out of the installed header plan-checker.h:
 * the algorithm is an implementation detail, and its state lives only for one Check call.
 */
class PlanCheckRun
{
  public:
    /// \param plan the plan to check (it must outlive the run)
    explicit PlanCheckRun(const CommPlan& plan);
    /// \return the verdict of PlanChecker::Check on the plan
    PlanCheckResult Check();

  private:
    PlanCheckResult Fail(const std::string& reason,
                         uint32_t transfer = PlanCheckResult::NO_TRANSFER) const;
    bool CheckBlocks(std::string& why) const;
    /// \return whether block's origin and target fit the collective; adds its bytes to
    /// its rank's (perRank) or pair's (perPair) sum when the collective's goal is per rank
    bool BlockFits(const CommPlan::Block& block,
                   std::vector<uint64_t>& perRank,
                   std::vector<uint64_t>& perPair) const;
    /// \return whether each rank's shard holds its SplitBytes share (else why says not)
    bool CheckShardBytes(const std::vector<uint64_t>& perRank, std::string& why) const;
    /// \return whether each (src, dst) pair's blocks hold its bytes (else why says not)
    bool CheckPairBytes(const std::vector<uint64_t>& perPair, std::string& why) const;
    bool CheckRaces(PlanCheckResult& result);
    /// \return every transfer's accesses, by location, then by topological position
    std::vector<Access> CollectAccesses() const;
    bool HappensBefore(uint32_t earlier, uint32_t later);
    bool Simulate(PlanCheckResult& result);
    /// Set the initial holdings (see the class documentation).
    void HoldInitialBlocks();
    /// \return whether point-to-point transfer id moves its blocks (else result says why)
    bool SimulatePointToPoint(uint32_t id, PlanCheckResult& result);
    /// \return whether transfer id reduces block b from pool offset from into offset to
    bool ReduceBlock(uint32_t id, uint32_t b, int64_t from, int64_t to, PlanCheckResult& result);
    /// \return whether transfer id copies block b from pool offset from over offset to
    bool CopyBlock(uint32_t id, uint32_t b, int64_t from, int64_t to, PlanCheckResult& result);
    bool SimulateSwitch(const CommPlan::Transfer& t, PlanCheckResult& result);
    /// \return whether switch reduction t (effect: its DataEffect) reduces block b
    bool SwitchReduceBlock(const CommPlan::Transfer& t,
                           CommPlan::Kind effect,
                           uint32_t b,
                           PlanCheckResult& result);
    /// \return whether switch multicast t delivers block b to every other member
    bool MulticastBlock(const CommPlan::Transfer& t, uint32_t b, PlanCheckResult& result);
    bool CheckGoal(std::string& why) const;
    /// \return whether rank r ends holding block b, with every rank's contribution (full)
    /// or with only its origin's data (!full); if not, os says why
    bool HoldsAtEnd(uint32_t r, uint32_t b, bool full, std::ostream& os) const;

    uint64_t Location(uint32_t rank, uint32_t block) const;
    /// \return the pool offset of the holding at location, or -1 if nothing is held
    int64_t Held(uint64_t location) const;
    /// \return the pool offset of a fresh, empty holding at location
    uint64_t Hold(uint64_t location);
    bool IsFull(uint64_t offset) const;
    std::string Describe(uint64_t offset, bool missing) const;

    const CommPlan& m_plan;
    CollectiveType m_type;
    uint32_t m_n;                                  //!< ranks
    uint32_t m_words;                              //!< 64-bit words per contribution set
    std::vector<uint32_t> m_order;                 //!< topological order
    std::vector<uint32_t> m_pos;                   //!< id -> position in m_order
    std::vector<uint32_t> m_visit;                 //!< DFS stamps, indexed by id
    uint32_t m_stamp{0};                           //!< current DFS stamp
    std::unordered_set<uint64_t> m_ordered;        //!< (earlier, later) pairs already proven
    std::unordered_map<uint64_t, uint64_t> m_held; //!< location -> offset in m_pool
    std::vector<uint64_t> m_pool;                  //!< contribution sets, m_words each
    std::vector<uint32_t> m_deliveries; //!< per block, plain copies received by its target
};

} // namespace plancheck
} // namespace ns3

#endif
