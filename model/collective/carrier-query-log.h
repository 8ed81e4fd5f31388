// SPDX-License-Identifier: GPL-2.0-only
#ifndef CARRIER_QUERY_LOG_H
#define CARRIER_QUERY_LOG_H

#include "ns3/collective-transport.h"

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A carrier's answers to the questions one group's "auto" choice asked, so that another
 * group can tell whether the carrier would answer it alike.
 *
 * It stands in for the carrier while CollectiveSelection ranks the algorithms for a group
 * (through its rank map): every question the selection and its cost model ask (paths,
 * switch paths, link hardware, what the switches can reduce, the GPUs' generation) goes to
 * the carrier, and the log keeps each distinct question in the group's own ranks with the
 * answer. Ids in the answers (ports, link sets, reduction engines) are kept only as the
 * order in which they first appeared, since the cost model uses them only to tell two
 * resources apart. Holds asks the same questions for another group's ranks, in the same
 * order: if every answer is the same, the selection and its cost model would compute the
 * same thing for that group, step by step, and the first group's choice is the other's.
 */
class CarrierQueryLog : public CollectiveTransport
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \param carrier the carrier asked
     * \param rankMap carrier rank of each group rank (empty: group rank r is carrier rank r)
     */
    CarrierQueryLog(Ptr<const CollectiveTransport> carrier, std::vector<uint32_t> rankMap);

    /**
     * The log sends nothing: it aborts.
     * \param src sending rank
     * \param dst receiving rank
     * \param bytes payload bytes
     * \param channel NCCL-style channel
     * \param done not called
     */
    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t channel,
              DoneCallback done) override;
    uint32_t GetNRanks() const override; //!< \return the carrier's
    bool CanReduceInSwitch(const std::vector<uint32_t>& members) const override;
    bool CanAllReduceInNetwork(const std::vector<uint32_t>& members) const override;
    bool CanReduceInNetwork(const std::vector<uint32_t>& members) const override;
    CarrierPath DescribePath(uint32_t src, uint32_t dst) const override;
    LinkHardware GetLinkHardware(uint32_t src, uint32_t dst) const override;
    uint32_t GetComputeCapability() const override;
    CarrierSwitchPath DescribeSwitchPath(const std::vector<uint32_t>& members) const override;

    /// \return true if the rank map names each carrier rank once and every question named
    ///         ranks of the group only (else Holds is false)
    bool IsPortable() const;

    /**
     * \param carrier a carrier (the logged one, or another: only its answers count)
     * \param rankMap carrier rank of each rank of another group of the same shape
     * \return true if carrier answers every logged question for that group as the logged
     *         carrier did for this one (ids by first appearance)
     */
    bool Holds(const CollectiveTransport& carrier, const std::vector<uint32_t>& rankMap) const;

  private:
    /// What a question asks.
    enum class Kind : uint8_t
    {
        N_RANKS,               //!< GetNRanks
        REDUCE_IN_SWITCH,      //!< CanReduceInSwitch
        ALL_REDUCE_IN_NETWORK, //!< CanAllReduceInNetwork
        REDUCE_IN_NETWORK,     //!< CanReduceInNetwork
        PATH,                  //!< DescribePath
        HARDWARE,              //!< GetLinkHardware
        COMPUTE_CAPABILITY,    //!< GetComputeCapability
        SWITCH_PATH,           //!< DescribeSwitchPath
    };

    /// A question: its kind and its ranks, in the group's ranks.
    using Question = std::pair<Kind, std::vector<uint32_t>>;

    /// Ids in the order they first appeared in a run of questions.
    class Ids
    {
      public:
        /// \param id an id from an answer \return its place in order of appearance
        uint64_t operator()(uint64_t id);

      private:
        std::unordered_map<uint64_t, uint64_t> m_order; //!< id -> place
    };

    /**
     * Ask a carrier a question.
     * \param carrier the carrier
     * \param question the question (group ranks)
     * \param rankMap group rank -> carrier rank (empty: identity)
     * \param ids the run's ids so far (the answer's are added)
     * \return the answer as Encode gives it
     */
    static std::vector<uint64_t> Ask(const CollectiveTransport& carrier,
                                     const Question& question,
                                     const std::vector<uint32_t>& rankMap,
                                     Ids& ids);
    /// \return a yes/no or a number as one number
    static std::vector<uint64_t> Encode(uint64_t answer, Ids& ids);
    /// \return a path's figures as numbers, ids replaced by their places in ids
    static std::vector<uint64_t> Encode(const CarrierPath& answer, Ids& ids);
    /// \return a switch path's figures as numbers, ids replaced by their places in ids
    static std::vector<uint64_t> Encode(const CarrierSwitchPath& answer, Ids& ids);

    /**
     * Log a question the first time it is asked.
     * \param kind what it asks
     * \param carrierRanks its ranks, the carrier's
     * \param answer the carrier's answer
     * \return answer
     */
    template <class Answer>
    Answer Note(Kind kind, const std::vector<uint32_t>& carrierRanks, Answer answer) const;

    Ptr<const CollectiveTransport> m_carrier;           //!< the carrier asked
    std::vector<uint32_t> m_rankMap;                    //!< group rank -> carrier rank
    std::unordered_map<uint32_t, uint32_t> m_groupRank; //!< carrier rank -> group rank
    /// The distinct questions, in the order first asked, with their answers
    mutable std::vector<std::pair<Question, std::vector<uint64_t>>> m_log;
    mutable std::map<Question, std::size_t> m_asked; //!< question -> place in m_log
    mutable Ids m_ids;                               //!< the ids of m_log's answers
    mutable bool m_portable{true};                   //!< IsPortable
};

} // namespace ns3

#endif
