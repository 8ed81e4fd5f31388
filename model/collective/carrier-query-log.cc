// SPDX-License-Identifier: GPL-2.0-only
#include "carrier-query-log.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <cstring>
#include <type_traits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CarrierQueryLog");
NS_OBJECT_ENSURE_REGISTERED(CarrierQueryLog);

namespace
{
/// \return a double's bits (answers are compared exactly)
uint64_t
Bits(double x)
{
    uint64_t bits = 0;
    static_assert(sizeof(bits) == sizeof(x));
    std::memcpy(&bits, &x, sizeof(x));
    return bits;
}
} // namespace

TypeId
CarrierQueryLog::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CarrierQueryLog").SetParent<CollectiveTransport>().SetGroupName("AiFabric");
    return tid;
}

CarrierQueryLog::CarrierQueryLog(Ptr<const CollectiveTransport> carrier,
                                 std::vector<uint32_t> rankMap)
    : m_carrier(carrier),
      m_rankMap(std::move(rankMap))
{
    NS_LOG_FUNCTION(this << m_rankMap.size());
    NS_ABORT_MSG_IF(!m_carrier, "CarrierQueryLog: no carrier to ask");
    for (uint32_t r = 0; r < m_rankMap.size(); ++r)
    {
        if (!m_groupRank.emplace(m_rankMap[r], r).second)
        {
            NS_LOG_LOGIC("carrier rank " << m_rankMap[r] << " twice in the rank map: not portable");
            m_portable = false;
        }
    }
}

uint64_t
CarrierQueryLog::Ids::operator()(uint64_t id)
{
    return m_order.emplace(id, m_order.size()).first->second;
}

template <class Answer>
Answer
CarrierQueryLog::Note(Kind kind, const std::vector<uint32_t>& carrierRanks, Answer answer) const
{
    Question question{kind, {}};
    question.second.reserve(carrierRanks.size());
    for (uint32_t c : carrierRanks)
    {
        if (m_rankMap.empty())
        {
            question.second.push_back(c);
            continue;
        }
        auto it = m_groupRank.find(c);
        if (it == m_groupRank.end())
        {
            NS_LOG_LOGIC("a question about carrier rank " << c
                                                          << ", outside the group: not portable");
            m_portable = false;
            return answer;
        }
        question.second.push_back(it->second);
    }
    if (m_asked.count(question) != 0)
    {
        return answer;
    }
    m_asked.emplace(question, m_log.size());
    if constexpr (std::is_same_v<Answer, CarrierPath> || std::is_same_v<Answer, CarrierSwitchPath>)
    {
        m_log.emplace_back(std::move(question), Encode(answer, m_ids));
    }
    else
    {
        m_log.emplace_back(std::move(question), Encode(static_cast<uint64_t>(answer), m_ids));
    }
    return answer;
}

void
CarrierQueryLog::Send(uint32_t, uint32_t, uint64_t, uint32_t, DoneCallback)
{
    NS_ABORT_MSG("CarrierQueryLog: a log of a carrier's answers sends nothing");
}

uint32_t
CarrierQueryLog::GetNRanks() const
{
    return Note(Kind::N_RANKS, {}, m_carrier->GetNRanks());
}

bool
CarrierQueryLog::CanReduceInSwitch(const std::vector<uint32_t>& members) const
{
    return Note(Kind::REDUCE_IN_SWITCH, members, m_carrier->CanReduceInSwitch(members));
}

bool
CarrierQueryLog::CanAllReduceInNetwork(const std::vector<uint32_t>& members) const
{
    return Note(Kind::ALL_REDUCE_IN_NETWORK, members, m_carrier->CanAllReduceInNetwork(members));
}

bool
CarrierQueryLog::CanReduceInNetwork(const std::vector<uint32_t>& members) const
{
    return Note(Kind::REDUCE_IN_NETWORK, members, m_carrier->CanReduceInNetwork(members));
}

CarrierPath
CarrierQueryLog::DescribePath(uint32_t src, uint32_t dst) const
{
    return Note(Kind::PATH, {src, dst}, m_carrier->DescribePath(src, dst));
}

LinkHardware
CarrierQueryLog::GetLinkHardware(uint32_t src, uint32_t dst) const
{
    return Note(Kind::HARDWARE, {src, dst}, m_carrier->GetLinkHardware(src, dst));
}

uint32_t
CarrierQueryLog::GetComputeCapability() const
{
    return Note(Kind::COMPUTE_CAPABILITY, {}, m_carrier->GetComputeCapability());
}

CarrierSwitchPath
CarrierQueryLog::DescribeSwitchPath(const std::vector<uint32_t>& members) const
{
    return Note(Kind::SWITCH_PATH, members, m_carrier->DescribeSwitchPath(members));
}

bool
CarrierQueryLog::IsPortable() const
{
    return m_portable;
}

std::vector<uint64_t>
CarrierQueryLog::Encode(uint64_t answer, Ids& /* ids */)
{
    return {answer};
}

std::vector<uint64_t>
CarrierQueryLog::Encode(const CarrierPath& p, Ids& ids)
{
    std::vector<uint64_t> out{ids(p.txPort),
                              ids(p.rxPort),
                              Bits(p.bytesPerSecond),
                              static_cast<uint64_t>(p.latency.GetTimeStep()),
                              p.forwardUnit,
                              p.forwardHops,
                              p.latencyHoldsSender,
                              p.modelReceiver,
                              p.servesInSendOrder,
                              p.lanes,
                              p.laneRequestBytes,
                              p.fabric.size()};
    for (const CarrierBundle& b : p.fabric)
    {
        out.push_back(ids(b.id));
        out.push_back(b.links);
        out.push_back(Bits(b.bytesPerSecond));
    }
    const CarrierQueue& q = p.queue;
    out.insert(out.end(),
               {q.buffer == 0 ? ~uint64_t{0} : ids(q.buffer),
                Bits(q.kminBytes),
                Bits(q.kmaxBytes),
                Bits(q.pmax),
                Bits(q.pfcAlpha),
                Bits(q.sharedBytes),
                Bits(q.cnpInterval),
                q.packetBytes,
                Bits(q.lineBps),
                q.dcqcn.has_value()});
    if (q.dcqcn)
    {
        const RoceDcqcn::Figures& f = *q.dcqcn;
        out.insert(out.end(),
                   {Bits(f.alphaPeriod),
                    Bits(f.decreasePeriod),
                    Bits(f.increasePeriod),
                    f.byteCounter,
                    f.fastRecoverySteps,
                    Bits(f.rateAiBps),
                    Bits(f.rateHaiBps),
                    f.hyperLinear,
                    Bits(f.g),
                    Bits(f.minRateBps),
                    Bits(f.rateOnFirstCnp),
                    f.clampTargetRate,
                    Bits(f.initialAlpha)});
    }
    return out;
}

std::vector<uint64_t>
CarrierQueryLog::Encode(const CarrierSwitchPath& s, Ids& ids)
{
    std::vector<uint64_t> out{s.txPorts.size(),
                              s.rxPorts.size(),
                              Bits(s.bytesPerSecond),
                              static_cast<uint64_t>(s.latency.GetTimeStep()),
                              s.forwardUnit,
                              Bits(s.engineBytesPerSecond),
                              ids(s.engine)};
    for (uint64_t port : s.txPorts)
    {
        out.push_back(ids(port));
    }
    for (uint64_t port : s.rxPorts)
    {
        out.push_back(ids(port));
    }
    return out;
}

std::vector<uint64_t>
CarrierQueryLog::Ask(const CollectiveTransport& carrier,
                     const Question& question,
                     const std::vector<uint32_t>& rankMap,
                     Ids& ids)
{
    std::vector<uint32_t> ranks;
    ranks.reserve(question.second.size());
    for (uint32_t r : question.second)
    {
        ranks.push_back(rankMap.empty() ? r : rankMap.at(r));
    }
    switch (question.first)
    {
    case Kind::N_RANKS:
        return Encode(carrier.GetNRanks(), ids);
    case Kind::REDUCE_IN_SWITCH:
        return Encode(carrier.CanReduceInSwitch(ranks), ids);
    case Kind::ALL_REDUCE_IN_NETWORK:
        return Encode(carrier.CanAllReduceInNetwork(ranks), ids);
    case Kind::REDUCE_IN_NETWORK:
        return Encode(carrier.CanReduceInNetwork(ranks), ids);
    case Kind::PATH:
        return Encode(carrier.DescribePath(ranks.at(0), ranks.at(1)), ids);
    case Kind::HARDWARE:
        return Encode(static_cast<uint64_t>(carrier.GetLinkHardware(ranks.at(0), ranks.at(1))),
                      ids);
    case Kind::COMPUTE_CAPABILITY:
        return Encode(carrier.GetComputeCapability(), ids);
    case Kind::SWITCH_PATH:
        return Encode(carrier.DescribeSwitchPath(ranks), ids);
    }
    NS_ABORT_MSG("CarrierQueryLog: unknown question");
    return {};
}

bool
CarrierQueryLog::Holds(const CollectiveTransport& carrier,
                       const std::vector<uint32_t>& rankMap) const
{
    NS_LOG_FUNCTION(this << rankMap.size());
    if (!m_portable || rankMap.size() != m_rankMap.size())
    {
        return false;
    }
    Ids ids;
    for (std::size_t q = 0; q < m_log.size(); ++q)
    {
        const auto& [question, answer] = m_log[q];
        if (Ask(carrier, question, rankMap, ids) != answer)
        {
            NS_LOG_LOGIC("question " << q << " of " << m_log.size() << " (kind "
                                     << static_cast<int>(question.first) << ") answered otherwise");
            return false;
        }
    }
    return true;
}

} // namespace ns3
