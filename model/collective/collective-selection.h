// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_SELECTION_H
#define COLLECTIVE_SELECTION_H

#include "carrier-query-log.h"
#include "collective-algorithms.h"
#include "collective-protocol.h"

#include "ns3/collective-transport.h"
#include "ns3/comm-group.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Plans by algorithm name, and the "auto" choice: the fastest plan the model offers.
 *
 * "auto" builds the plan of every algorithm that applies to the call (collective, group
 * shape, carrier), estimates each one's time on the carrier from the carrier's own
 * figures (CollectivePlanCost over CollectiveTransport::DescribePath: per-port rates,
 * latency, NVLS rate, which ranks share a server or a NIC), and takes the fastest. An
 * algorithm within TieTolerance of the fastest that comes earlier in the name table
 * (simpler: ring before rail-ring before tree ... before nvls) wins the tie. Choices are
 * cached per (collective, bytes, options), so a trace's thousands of calls cost a few
 * estimates; and, through a ChoiceBook, shared with the selections of other groups of the
 * same shape for which the carrier gives the same figures (the sixteen servers' tensor-
 * parallel groups of a symmetric cluster estimate once, not sixteen times).
 *
 * Which algorithms apply (CanMakePlan): the collectives IsCollectiveAlgorithmSupported
 * gives each algorithm; rail-ring and hierarchical only on a uniform group (same GPUs on
 * every server); nvls only where the carrier reduces in a
 * switch over the whole group (CanReduceInSwitch: one NVSwitch, NVLS-capable GPUs).
 * "auto" considers rail-ring and hierarchical only across several servers with several
 * GPUs each, where they differ from ring.
 */
class CollectiveSelection
{
  public:
    /// One algorithm and protocol's estimate for a call.
    struct Candidate
    {
        CollectiveAlgorithm algorithm; //!< the algorithm
        CollectiveProtocol protocol;   //!< the protocol its kernels use
        Time estimate;                 //!< its estimated time (CollectivePlanCost)
    };

    /// Relative margin within which a simpler algorithm is preferred to a faster one.
    static constexpr double TIE_TOLERANCE = 0.01;

    /// Selection with no carrier: NVLS is never offered and estimates use
    /// CollectiveTransport's default figures (one 100 Gb/s port per rank).
    CollectiveSelection();

    /// Key of the choice caches: collective, bytes, channels, chunk, root, network
    /// overhead, and the group's (server, local index) pairs, each as its rank among the
    /// group's servers and local indices, followed by the options'
    /// doubleTree and peer, the algorithm asked for and the protocol asked for.
    using ChoiceKey =
        std::tuple<int, uint64_t, uint32_t, uint64_t, uint32_t, int64_t, std::vector<uint32_t>>;

    /**
     * Choices shared by the selections of one carrier (one per rank map): a choice made
     * for one group, with the log of the carrier's answers it was made on, serves another
     * group of the same shape for which the carrier answers every logged question alike
     * (CarrierQueryLog::Holds); otherwise that group's own estimates are made and logged.
     */
    struct ChoiceBook
    {
        /// per call: the choices made, each with its log
        std::map<ChoiceKey, std::vector<std::pair<Ptr<CarrierQueryLog>, Candidate>>> choices;
        uint64_t estimated{0}; //!< choices made by estimating every candidate
        uint64_t shared{0};    //!< choices taken from another group's (its log held)
    };

    /**
     * \param carrier the carrier the plans run on (its figures and switch capability)
     * \param rankMap carrier rank of each group rank (empty: group rank r is carrier rank r)
     * \param book choices shared with the carrier's other selections (null: none)
     */
    CollectiveSelection(Ptr<const CollectiveTransport> carrier,
                        std::vector<uint32_t> rankMap = {},
                        std::shared_ptr<ChoiceBook> book = nullptr);

    /**
     * \param type collective
     * \param group the call's group (its servers and rails)
     * \param bytes call size
     * \param options channels, chunk, root, protocol (AUTO: every protocol each
     *        algorithm runs, one candidate each)
     * \return the applicable algorithms and protocols with their estimates, fastest first
     */
    std::vector<Candidate> Rank(
        CollectiveType type,
        const CommGroup& group,
        uint64_t bytes,
        const CollectivePlanOptions& options = CollectivePlanOptions()) const;

    /**
     * \return the algorithm and protocol "auto" takes for this call (see the class)
     */
    Candidate Choose(CollectiveType type,
                     const CommGroup& group,
                     uint64_t bytes,
                     const CollectivePlanOptions& options = CollectivePlanOptions()) const;

    /**
     * Whether MakePlan builds this pair for group and the carrier can run it: "auto"
     * always; the others as the class says. Lets a caller refuse a bad choice before a
     * run instead of aborting in it.
     * \param type collective
     * \param algorithm a name from GetCollectiveAlgorithmNameList
     * \param group the call's group
     * \param known if not null, set to whether algorithm names an algorithm at all
     * \param reason if not null and the answer is false, set to why (one phrase)
     */
    bool CanMakePlan(CollectiveType type,
                     const std::string& algorithm,
                     const CommGroup& group,
                     bool* known = nullptr,
                     std::string* reason = nullptr) const;

    /**
     * Whether MakePlan builds this pair for group and the carrier can run it (AUTO:
     * always).
     * \param type collective
     * \param algorithm the algorithm
     * \param group the call's group
     * \param reason if not null and the answer is false, set to why (one phrase)
     */
    bool CanMakePlan(CollectiveType type,
                     CollectiveAlgorithm algorithm,
                     const CommGroup& group,
                     std::string* reason = nullptr) const;

    /**
     * Build the plan for an algorithm, or for the fastest one with AUTO (the plan's
     * GetAlgorithm names the choice), with options.protocol, or with the fastest protocol
     * for that algorithm when it is AUTO (GetProtocol names it). Aborts, naming
     * collective, algorithm and group size, when CanMakePlan says no or the algorithm
     * does not run the protocol (CollectiveProtocolApplies).
     */
    CommPlan MakePlan(CollectiveType type,
                      CollectiveAlgorithm algorithm,
                      const CommGroup& group,
                      uint64_t bytes,
                      const CollectivePlanOptions& options = CollectivePlanOptions()) const;

  private:
    /// Rank, over one algorithm only unless only is AUTO (then as the public Rank).
    std::vector<Candidate> Rank(CollectiveType type,
                                const CommGroup& group,
                                uint64_t bytes,
                                const CollectivePlanOptions& options,
                                CollectiveAlgorithm only) const;
    /// The candidate MakePlan takes for requested (AUTO: any algorithm), cached.
    Candidate Pick(CollectiveType type,
                   CollectiveAlgorithm requested,
                   const CommGroup& group,
                   uint64_t bytes,
                   const CollectivePlanOptions& options) const;
    /// \return whether the carrier reduces in a switch over all of group's ranks
    bool SwitchReduction(const CommGroup& group) const;
    /**
     * \param group the group
     * \param type the collective
     * \return whether the carrier runs type's in-network transfers over all of group's
     *         ranks: all-reduces (CanAllReduceInNetwork) for all-reduce, reduces and
     *         multicasts (CanReduceInNetwork) for the others
     */
    bool NetworkReduction(const CommGroup& group, CollectiveType type) const;
    /**
     * \param group the group
     * \param members set to the group's carrier ranks
     * \return true if the group spans several servers (the same GPUs on each) and every
     *         server's ranks reduce in their switch (nvls-tree)
     */
    bool EveryServerReduces(const CommGroup& group, std::vector<uint32_t>& members) const;
    /// \return true if EveryServerReduces and every rail's ranks aggregate in the network
    ///         (nvls-ina)
    bool ServerAndRailReduction(const CommGroup& group) const;
    /// \return false without a carrier; else sets members to group's carrier ranks
    bool CarrierMembers(const CommGroup& group, std::vector<uint32_t>& members) const;
    /// \return whether algorithm applies to the call (reason set when not)
    bool Applies(CollectiveType type,
                 CollectiveAlgorithm algorithm,
                 const CommGroup& group,
                 std::string* reason) const;
    /// \return the plan of a known, applicable algorithm
    CommPlan Build(CollectiveType type,
                   CollectiveAlgorithm algorithm,
                   const CommGroup& group,
                   uint64_t bytes,
                   const CollectivePlanOptions& options) const;

    Ptr<const CollectiveTransport> m_carrier;         //!< where plans run (may be null)
    std::vector<uint32_t> m_rankMap;                  //!< group rank -> carrier rank
    mutable std::map<ChoiceKey, Candidate> m_choices; //!< cache of Pick
    std::shared_ptr<ChoiceBook> m_book;               //!< shared with other selections
};

} // namespace ns3

#endif
