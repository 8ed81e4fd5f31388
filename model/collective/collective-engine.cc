// SPDX-License-Identifier: GPL-2.0-only
#include "collective-engine.h"

#include "../fabric/ai-fabric-compat.h"
#include "collective-selection.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveEngine");

/// \return this file's log component, for the engine's plans (collective-engine-plans.cc)
LogComponent&
CollectiveEngineLogComponent()
{
    return g_log;
}

NS_OBJECT_ENSURE_REGISTERED(CollectiveEngine);

std::ostream&
operator<<(std::ostream& os, const CollectiveResult& r)
{
    os << "#" << r.id << " " << r.type;
    if (!r.algorithm.empty())
    {
        os << " (" << r.algorithm;
        if (r.protocol != CollectiveProtocol::NONE)
        {
            os << ", " << r.protocol;
        }
        os << ")";
    }
    os << " n=" << r.nRanks << " bytes=" << r.bytes << " transfers=" << r.nTransfers
       << " time=" << r.GetDuration().GetSeconds() * 1e6 << "us"
       << " algbw=" << r.algBw / 1e9 << "GB/s busbw=" << r.busBw / 1e9 << "GB/s";
    return os;
}

TypeId
CollectiveEngine::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveEngine")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<CollectiveEngine>()
            .AddAttribute("Transport",
                          "The carrier that moves the transfers of every plan run here.",
                          PointerValue(),
                          MakePointerAccessor(&CollectiveEngine::SetTransport,
                                              &CollectiveEngine::GetTransport),
                          MakePointerChecker<CollectiveTransport>())
            .AddAttribute("Algorithm",
                          "Algorithm of collective calls that name none: " +
                              GetCollectiveAlgorithmNameList() +
                              " (auto: the fastest by CollectiveSelection's estimates).",
                          aifabric::MakeEnumValueCompat(CollectiveAlgorithm::AUTO),
                          aifabric::MakeEnumMemberAccessor(&CollectiveEngine::m_algorithm),
                          MakeCollectiveAlgorithmChecker())
            .AddAttribute("Protocol",
                          "NCCL protocol of collective calls (as NCCL_PROTO): " +
                              GetCollectiveProtocolNameList() +
                              " (auto: the fastest for each call by CollectiveSelection's "
                              "estimates, as NCCL's tuner picks; none: no protocol costs, "
                              "the wire bound). Plans run with Run keep their own.",
                          aifabric::MakeEnumValueCompat(CollectiveProtocol::AUTO),
                          aifabric::MakeEnumMemberAccessor(&CollectiveEngine::m_protocol),
                          MakeCollectiveProtocolChecker())
            .AddAttribute("NetOverhead",
                          "NCCL_NET_OVERHEAD: the least time a step inside a server of a "
                          "call that crosses the network waits for the network proxy (x3 "
                          "with Simple). NCCL's default: 1 us (x86 Intel), 2 us (AMD).",
                          TimeValue(MicroSeconds(NCCL_DEFAULT_NET_OVERHEAD_US)),
                          MakeTimeAccessor(&CollectiveEngine::m_netOverhead),
                          MakeTimeChecker(Seconds(0), MilliSeconds(1)))
            .AddAttribute("Channels",
                          "Ring channels (and send/recv connections) per call.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&CollectiveEngine::m_channels),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("ChunkBytes",
                          "Pipelining chunk of the plans (0: each algorithm's default, "
                          "CollectiveDefaultChunkBytes: tree and hierarchical 512 KiB, the "
                          "ring and rail-ring chains of broadcast and reduce one step of their "
                          "protocol's buffer (LL 32 KiB, LL128 576,000 B, Simple 512 KiB), "
                          "NVLS 128 KiB, others none).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CollectiveEngine::m_chunkBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("RingTransfersPerPhase",
                          "Coarsen ring and rail-ring all-reduce, reduce-scatter and "
                          "all-gather plans: at most this many transfers per connection and "
                          "phase, each carrying consecutive steps of the ring and their "
                          "latencies (RingCoarsened: when the ring's connections run at one "
                          "rate, the fine ring's time less the ACKs' share of its bytes' time, "
                          "with up to n / this times fewer transfers). 0: a transfer per step, "
                          "the reference.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CollectiveEngine::m_ringTransfersPerPhase),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PlanCacheTransfers",
                          "Most transfers the plan cache holds over all its plans (0: no "
                          "cache, every call planned anew). A training step repeats the same "
                          "calls on the same groups; a cached plan is the one a new build "
                          "would make, so results do not depend on it.",
                          UintegerValue(1 << 20),
                          MakeUintegerAccessor(&CollectiveEngine::m_planCacheTransfers),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ReplayIsolatedCalls",
                          "Replay calls instead of simulating them again where that gives the "
                          "same result: a call of a cached plan over every rank of one "
                          "isolated carrier (one server's NVSwitch), whose caller vouches "
                          "that nothing else is posted there while it runs (RunSelected's "
                          "alone), starting when that carrier is quiet, takes the time the "
                          "same call took there before (recorded the first time, when "
                          "nothing else shared the carrier); its work is counted, its chunks "
                          "are not simulated. A transfer posted on the carrier while a "
                          "replayed call would still be on it runs as if the call were not "
                          "there (counted: NvSwitchFabric::GetReplayOverlaps). Off: every "
                          "call simulated.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&CollectiveEngine::m_replay),
                          MakeBooleanChecker())
            .AddTraceSource("CollectiveDone",
                            "A collective call finished (fires before the caller's callback).",
                            MakeTraceSourceAccessor(&CollectiveEngine::m_doneTrace),
                            "ns3::CollectiveEngine::CollectiveDoneTracedCallback")
            .AddTraceSource("TransferStarted",
                            "A transfer was handed to the transport: (call id, transfer id).",
                            MakeTraceSourceAccessor(&CollectiveEngine::m_transferStartedTrace),
                            "ns3::CollectiveEngine::TransferTracedCallback")
            .AddTraceSource("TransferDone",
                            "The transport reported a transfer arrived: (call id, transfer id).",
                            MakeTraceSourceAccessor(&CollectiveEngine::m_transferDoneTrace),
                            "ns3::CollectiveEngine::TransferTracedCallback")
            .AddTraceSource("FlowCompleted",
                            "A transfer arrived, with its endpoints, payload and wire bytes, "
                            "channel and start (for flow completion times).",
                            MakeTraceSourceAccessor(&CollectiveEngine::m_flowCompletedTrace),
                            "ns3::CollectiveEngine::FlowTracedCallback");
    return tid;
}

CollectiveEngine::CollectiveEngine()
{
    NS_LOG_FUNCTION(this);
}

CollectiveEngine::~CollectiveEngine()
{
    NS_LOG_FUNCTION(this);
}

void
CollectiveEngine::DoDispose()
{
    NS_LOG_FUNCTION(this);
    // Callbacks still held by the transport find no run and do nothing.
    m_runs.clear();
    m_ready.clear();
    m_readyHead = 0;
    m_transport = nullptr;
    m_selections.clear();
    m_choiceBook = nullptr;
    m_plans.clear();
    m_validated.clear();
    m_replayBook.clear();
    Object::DoDispose();
}

void
CollectiveEngine::SetTransport(Ptr<CollectiveTransport> transport)
{
    NS_LOG_FUNCTION(this << transport);
    m_transport = transport;
    m_selections.clear(); // their estimates were for the previous carrier
    m_plans.clear();      // and so were the plans auto chose
    m_choiceBook = std::make_shared<CollectiveSelection::ChoiceBook>(); // and the choices
    m_validated.clear();
    m_replayBook.clear(); // records of the previous carrier's calls
    ++m_planGeneration;
    m_planStats.plans = 0;
    m_planStats.transfers = 0;
}

Ptr<CollectiveTransport>
CollectiveEngine::GetTransport() const
{
    return m_transport;
}

uint64_t
CollectiveEngine::Run(const CommPlan& plan, DoneCallback done)
{
    std::vector<uint32_t> identity(plan.GetGroupSize());
    std::iota(identity.begin(), identity.end(), 0u);
    return Run(plan, identity, std::move(done));
}

uint64_t
CollectiveEngine::Run(const CommPlan& plan, const std::vector<uint32_t>& rankMap, DoneCallback done)
{
    NS_LOG_FUNCTION(this << plan.GetType() << plan.GetGroupSize() << plan.GetTotalBytes());
    CheckRankMap(plan, rankMap);
    CheckCarrier(plan, rankMap);
    return Start(plan, rankMap, std::move(done));
}

uint64_t
CollectiveEngine::RunSelected(const CommPlan& plan,
                              const std::vector<uint32_t>& rankMap,
                              DoneCallback done,
                              bool alone)
{
    NS_LOG_FUNCTION(this << plan.GetType() << plan.GetGroupSize() << plan.GetTotalBytes());
    // The plan's CollectiveSelection (MakeCollectivePlan, same carrier and rank map) has
    // asked the carrier what it can reduce where: not again.
    // A cached plan is validated when first run: after that only its ranks are checked.
    auto cached = m_validated.find(&plan);
    CheckRankMap(plan, rankMap, cached == m_validated.end() || !cached->second);
    if (cached != m_validated.end())
    {
        cached->second = true;
    }
    return Start(plan, rankMap, std::move(done), alone);
}

void
CollectiveEngine::CheckRankMap(const CommPlan& plan,
                               const std::vector<uint32_t>& rankMap,
                               bool validate) const
{
    std::string reason;
    NS_ABORT_MSG_IF(validate && !plan.Validate(&reason),
                    "CollectiveEngine::Run: invalid plan ("
                        << plan.GetType() << " '" << plan.GetAlgorithm() << "', "
                        << plan.GetGroupSize() << " ranks, " << plan.GetNTransfers()
                        << " transfers): " << reason);
    NS_ABORT_MSG_IF(!m_transport, "CollectiveEngine::Run: no transport; call SetTransport first");
    const uint32_t n = plan.GetGroupSize();
    const uint32_t nTransportRanks = m_transport->GetNRanks();
    NS_ABORT_MSG_IF(rankMap.size() != n,
                    "CollectiveEngine::Run: the rank map has "
                        << rankMap.size() << " entries for a plan of " << n << " ranks");
    {
        std::vector<uint32_t> sorted(rankMap);
        std::sort(sorted.begin(), sorted.end());
        NS_ABORT_MSG_IF(!sorted.empty() && sorted.back() >= nTransportRanks,
                        "CollectiveEngine::Run: plan needs transport rank "
                            << sorted.back() << " but the transport connects only "
                            << nTransportRanks << " ranks");
        NS_ABORT_MSG_IF(std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end(),
                        "CollectiveEngine::Run: the rank map names a transport rank twice");
    }
}

void
CollectiveEngine::CheckCarrier(const CommPlan& plan, const std::vector<uint32_t>& rankMap) const
{
    // Every member set a switch transfer uses must be one the carrier serves.
    const std::vector<std::vector<uint32_t>> memberSets = CarrierMemberSets(plan, rankMap);
    std::vector<uint8_t> checked(plan.GetNMemberSets(), 0);
    for (const auto& t : plan.GetTransfers())
    {
        if (t.kind == CommPlan::Kind::POINT_TO_POINT)
        {
            continue;
        }
        // bit 1: NVLS, bit 2: in-network all-reduce, bit 4: in-network reduce/multicast
        const bool network = CommPlan::InNetwork(t.kind);
        const bool directed = network && t.kind != CommPlan::Kind::SWITCH_ALL_REDUCE;
        const uint8_t bit = directed ? 4 : (network ? 2 : 1);
        if (checked[t.members] & bit)
        {
            continue;
        }
        checked[t.members] |= bit;
        const std::vector<uint32_t>& members = memberSets[t.members];
        NS_ABORT_MSG_IF(!network && !m_transport->CanReduceInSwitch(members),
                        "CollectiveEngine::Run: plan '"
                            << plan.GetAlgorithm() << "' reduces or multicasts in a switch, but "
                            << m_transport->GetInstanceTypeId().GetName()
                            << " cannot do that over these " << members.size()
                            << " ranks (NVLS needs ranks that share one NVSwitch)");
        NS_ABORT_MSG_IF(directed && !m_transport->CanReduceInNetwork(members),
                        "CollectiveEngine::Run: plan '"
                            << plan.GetAlgorithm() << "' reduces or multicasts in the network, but "
                            << m_transport->GetInstanceTypeId().GetName()
                            << " cannot do that over these " << members.size()
                            << " ranks (they need aggregation switches with room for a job)");
        NS_ABORT_MSG_IF(network && !directed && !m_transport->CanAllReduceInNetwork(members),
                        "CollectiveEngine::Run: plan '"
                            << plan.GetAlgorithm() << "' all-reduces in the network, but "
                            << m_transport->GetInstanceTypeId().GetName()
                            << " cannot do that over these " << members.size()
                            << " ranks (they need aggregation switches with room for a job)");
    }
}

std::vector<std::vector<uint32_t>>
CollectiveEngine::CarrierMemberSets(const CommPlan& plan, const std::vector<uint32_t>& rankMap)
{
    std::vector<std::vector<uint32_t>> memberSets(plan.GetNMemberSets());
    for (uint32_t m = 0; m < plan.GetNMemberSets(); ++m)
    {
        for (uint32_t r : plan.GetMembers(m))
        {
            memberSets[m].push_back(rankMap[r]);
        }
    }
    return memberSets;
}

uint64_t
CollectiveEngine::Start(const CommPlan& plan,
                        const std::vector<uint32_t>& rankMap,
                        DoneCallback done,
                        bool alone)
{
    const uint64_t id = m_nextId++;
    RunState& run = m_runs[id];
    run.done = std::move(done);
    CollectiveResult& r = run.result;
    r.id = id;
    r.type = plan.GetType();
    r.algorithm = plan.GetAlgorithm();
    r.protocol = plan.GetProtocol();
    r.nRanks = plan.GetGroupSize();
    r.bytes = plan.GetTotalBytes();
    r.nTransfers = plan.GetNTransfers();
    r.start = Simulator::Now();
    if (m_replay && alone && TryReplay(id, plan, rankMap))
    {
        return id;
    }
    NS_LOG_LOGIC("call " << id << (m_replay && !alone ? ": not vouched alone, simulated" : ""));
    run.memberSets = CarrierMemberSets(plan, rankMap);

    // Build, once, what each completion needs so that it costs O(1) plus its
    // dependents: a counter of missing deps per transfer and, in compressed-row form,
    // the list of transfers that wait for each one.
    const std::vector<CommPlan::Transfer>& transfers = plan.GetTransfers();
    const uint32_t nT = plan.GetNTransfers();
    run.protocol =
        std::make_shared<const CollectiveProtocolCosts>(plan, *m_transport, rankMap, m_netOverhead);
    const CollectiveProtocolCosts& protocol = *run.protocol;
    run.transfers.resize(nT);
    run.dependentsBegin.assign(static_cast<size_t>(nT) + 1, 0);
    size_t nEdges = 0;
    for (uint32_t t = 0; t < nT; ++t)
    {
        const CommPlan::Transfer& tr = transfers[t];
        TransferState& ts = run.transfers[t];
        ts.src = rankMap[tr.src];
        ts.dst = rankMap[tr.dst];
        ts.bytes = tr.bytes;
        ts.wireBytes = protocol.GetWireBytes(tr.bytes);
        ts.latency = protocol.GetStepLatency(t);
        ts.minDuration = Time(0);
        ts.channel = tr.channel;
        ts.kind = tr.kind;
        ts.members = tr.members;
        ts.missingDeps = static_cast<uint32_t>(tr.deps.size());
        ts.sent = false;
        ts.done = false;
        for (uint32_t d : tr.deps)
        {
            ++run.dependentsBegin[d + 1];
        }
        nEdges += tr.deps.size();
    }
    NS_ABORT_MSG_IF(nEdges > std::numeric_limits<uint32_t>::max(),
                    "CollectiveEngine::Run: the plan has " << nEdges
                                                           << " dependencies, more than 2^32");
    std::partial_sum(run.dependentsBegin.begin(),
                     run.dependentsBegin.end(),
                     run.dependentsBegin.begin());
    run.dependents.resize(nEdges);
    {
        // Filling in id order keeps every dependents list ascending, so transfers freed
        // by one completion are sent in plan (issue) order.
        std::vector<uint32_t> fill(run.dependentsBegin.begin(), run.dependentsBegin.end() - 1);
        for (uint32_t t = 0; t < nT; ++t)
        {
            for (uint32_t d : transfers[t].deps)
            {
                run.dependents[fill[d]++] = t;
            }
        }
    }

    if (nT == 0)
    {
        // Nothing to move: finish at once, but from an event, so a caller never sees its
        // callback run before Run has returned.
        Simulator::ScheduleNow(&CollectiveEngine::Finish, Ptr<CollectiveEngine>(this), id);
        return id;
    }
    const Time callLatency = protocol.GetCallLatency();
    for (uint32_t t = 0; t < nT; ++t)
    {
        if (run.transfers[t].missingDeps == 0)
        {
            Release(id, t, callLatency);
        }
    }
    SendReleased();
    return id;
}

void
CollectiveEngine::Release(uint64_t runId, uint32_t transfer, Time extra)
{
    const Time latency = extra + m_runs[runId].transfers[transfer].latency;
    if (latency.IsStrictlyPositive())
    {
        NS_LOG_LOGIC("call " << runId << " transfer " << transfer << " waits "
                             << latency.As(Time::US) << " (protocol)");
        Simulator::Schedule(latency,
                            &CollectiveEngine::ReleaseNow,
                            Ptr<CollectiveEngine>(this),
                            runId,
                            transfer);
        return;
    }
    m_ready.emplace_back(runId, transfer);
}

void
CollectiveEngine::ReleaseNow(uint64_t runId, uint32_t transfer)
{
    m_ready.emplace_back(runId, transfer);
    SendReleased();
}

void
CollectiveEngine::SendReleased()
{
    // A carrier may call back from inside Send (one that completes zero-byte transfers
    // at once, say). Handling the completion recursively would nest as deep as the
    // plan's longest chain and could finish a run under our feet, so a completion that
    // arrives while we are sending only queues what it frees, and this loop sends it.
    if (m_sending)
    {
        return;
    }
    m_sending = true;
    while (m_readyHead < m_ready.size())
    {
        const auto [runId, t] = m_ready[m_readyHead++];
        auto it = m_runs.find(runId);
        if (it == m_runs.end())
        {
            continue;
        }
        TransferState& ts = it->second.transfers[t];
        ts.sent = true;
        ts.sentAt = Simulator::Now();
        const CollectiveProtocolCosts::RateCharge charge =
            it->second.protocol->GetRateCharge(t, ts.bytes);
        if (charge.server != 0)
        {
            // The protocol's rate servers (a channel's ceiling, a thread block's copy
            // rate): their transfers pass one at a time in the order they are handed over.
            Time& free = it->second.serverFree[charge.server];
            free = std::max(free, ts.sentAt) + charge.service;
            ts.minDuration = free + charge.after - ts.sentAt;
        }
        if (const Time hold = it->second.protocol->GetCoarseHold(t, ts.bytes);
            hold > ts.minDuration)
        {
            // A coarsened ring's transfer: its steps' latencies as they would add up.
            ts.minDuration = hold;
        }
        ++it->second.nInFlight;
        const uint32_t src = ts.src;
        const uint32_t dst = ts.dst;
        const uint64_t bytes = ts.wireBytes;
        const uint32_t channel = ts.channel;
        NS_LOG_LOGIC("call " << runId << " transfer " << t << ": " << src << " -> " << dst << " "
                             << bytes << " B ch " << channel);
        m_transferStartedTrace(runId, t);
        // The callback holds a reference to the engine, so a transport that outlives the
        // engine's owner never calls into freed memory; after DoDispose it finds no run.
        Ptr<CollectiveEngine> self(this);
        CollectiveTransport::DoneCallback done(
            [self, runId = runId, t = t]() { self->TransferDone(runId, t); });
        switch (ts.kind)
        {
        case CommPlan::Kind::POINT_TO_POINT:
            m_transport->Send(src, dst, bytes, channel, done);
            break;
        case CommPlan::Kind::SWITCH_REDUCE:
            m_transport->SwitchReduce(it->second.memberSets[ts.members], dst, bytes, channel, done);
            break;
        case CommPlan::Kind::SWITCH_MULTICAST:
            m_transport->SwitchMulticast(src,
                                         it->second.memberSets[ts.members],
                                         bytes,
                                         channel,
                                         done);
            break;
        case CommPlan::Kind::SWITCH_ALL_REDUCE:
            m_transport->SwitchAllReduce(it->second.memberSets[ts.members], bytes, channel, done);
            break;
        case CommPlan::Kind::NETWORK_REDUCE:
            m_transport->NetworkReduce(it->second.memberSets[ts.members],
                                       dst,
                                       bytes,
                                       channel,
                                       done);
            break;
        case CommPlan::Kind::NETWORK_MULTICAST:
            m_transport->NetworkMulticast(src,
                                          it->second.memberSets[ts.members],
                                          bytes,
                                          channel,
                                          done);
            break;
        }
    }
    m_ready.clear();
    m_readyHead = 0;
    m_sending = false;
}

void
CollectiveEngine::TransferDone(uint64_t runId, uint32_t transfer)
{
    NS_LOG_FUNCTION(this << runId << transfer);
    auto it = m_runs.find(runId);
    if (it == m_runs.end())
    {
        return; // disposed meanwhile
    }
    RunState& run = it->second;
    TransferState& ts = run.transfers[transfer];
    if (ts.minDuration.IsStrictlyPositive() && ts.sent && !ts.done)
    {
        // The protocol's ceiling: the data arrived, the GPU's copy has not finished.
        const Time due = ts.sentAt + ts.minDuration;
        ts.minDuration = Time(0);
        if (Simulator::Now() < due)
        {
            NS_LOG_LOGIC("call " << runId << " transfer " << transfer << " held to "
                                 << due.As(Time::US) << " (protocol ceiling)");
            Simulator::Schedule(due - Simulator::Now(),
                                &CollectiveEngine::TransferDone,
                                Ptr<CollectiveEngine>(this),
                                runId,
                                transfer);
            return;
        }
    }
    NS_ABORT_MSG_IF(!ts.sent || ts.done,
                    "CollectiveEngine: the transport reported transfer "
                        << transfer << " of call " << runId
                        << (ts.done ? " done twice" : " done before it was sent"));
    ts.done = true;
    --run.nInFlight;
    ++run.nDone;
    m_transferDoneTrace(runId, transfer);
    if (!m_flowCompletedTrace.IsEmpty())
    {
        m_flowCompletedTrace(Describe(runId, transfer, ts));
    }
    for (uint32_t k = run.dependentsBegin[transfer]; k < run.dependentsBegin[transfer + 1]; ++k)
    {
        const uint32_t d = run.dependents[k];
        if (--run.transfers[d].missingDeps == 0)
        {
            Release(runId, d);
        }
    }
    if (run.nDone == run.transfers.size())
    {
        Finish(runId);
        return;
    }
    SendReleased();
}

void
CollectiveEngine::Finish(uint64_t runId)
{
    auto it = m_runs.find(runId);
    if (it == m_runs.end())
    {
        return;
    }
    if (it->second.record)
    {
        EndRecord(it->second);
    }
    CollectiveResult result = std::move(it->second.result);
    DoneCallback done = std::move(it->second.done);
    // Forget the run before calling out, so the callback may start new calls freely.
    m_runs.erase(it);
    result.end = Simulator::Now();
    const double seconds = result.GetDuration().GetSeconds();
    if (seconds > 0)
    {
        result.algBw = static_cast<double>(result.bytes) / seconds;
        result.busBw = result.algBw * CollectiveBusBwFactor(result.type, result.nRanks);
    }
    NS_LOG_INFO(result);
    m_doneTrace(result);
    if (!done.IsNull())
    {
        done(result);
    }
}

uint32_t
CollectiveEngine::GetNRunning() const
{
    return static_cast<uint32_t>(m_runs.size());
}

bool
CollectiveEngine::IsRunning(uint64_t id) const
{
    return m_runs.count(id) != 0;
}

uint64_t
CollectiveEngine::GetNPendingTransfers() const
{
    uint64_t total = 0;
    for (const auto& [id, run] : m_runs)
    {
        total += run.nInFlight;
    }
    return total;
}

std::vector<CollectiveEngine::PendingTransfer>
CollectiveEngine::GetPendingTransfers() const
{
    std::vector<uint64_t> ids;
    ids.reserve(m_runs.size());
    for (const auto& entry : m_runs)
    {
        ids.push_back(entry.first);
    }
    std::sort(ids.begin(), ids.end());
    std::vector<PendingTransfer> pending;
    for (uint64_t id : ids)
    {
        const RunState& run = m_runs.at(id);
        for (uint32_t t = 0; t < run.transfers.size(); ++t)
        {
            const TransferState& ts = run.transfers[t];
            if (ts.sent && !ts.done)
            {
                pending.push_back(Describe(id, t, ts));
            }
        }
    }
    return pending;
}

CollectiveEngine::PendingTransfer
CollectiveEngine::Describe(uint64_t runId, uint32_t transfer, const TransferState& ts)
{
    return PendingTransfer{runId,
                           transfer,
                           ts.src,
                           ts.dst,
                           ts.bytes,
                           ts.channel,
                           ts.sentAt,
                           ts.kind,
                           ts.wireBytes};
}

uint64_t
CollectiveEngine::RunCollective(CollectiveType type,
                                const CommGroup& group,
                                uint64_t bytes,
                                DoneCallback done)
{
    NS_ABORT_MSG_IF(!m_transport,
                    "CollectiveEngine::RunCollective: no transport; call SetTransport first");
    std::vector<uint32_t> identity(group.GetSize());
    std::iota(identity.begin(), identity.end(), 0u);
    return RunSelected(MakeCollectivePlan(type, group, bytes), identity, std::move(done));
}

std::string
CollectiveEngine::GetAlgorithmName() const
{
    return CollectiveAlgorithmToString(m_algorithm);
}

CollectiveProtocol
CollectiveEngine::GetProtocol() const
{
    return m_protocol;
}

} // namespace ns3
