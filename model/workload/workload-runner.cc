// SPDX-License-Identifier: GPL-2.0-only
#include "workload-runner.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/collective-algorithms.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WorkloadRunner");

/// The WorkloadRunner log component, for the class's other source files.
LogComponent&
WorkloadRunnerLogComponent()
{
    return g_log;
}

NS_OBJECT_ENSURE_REGISTERED(WorkloadRunner);

TypeId
WorkloadRunner::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WorkloadRunner")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<WorkloadRunner>()
            .AddAttribute("Iterations",
                          "How many times the whole trace is replayed.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&WorkloadRunner::m_iterations),
                          MakeUintegerChecker<uint32_t>(1, 100000))
            .AddAttribute("HangTimeout",
                          "Simulated time without any op or transfer finishing (and no "
                          "compute running) after which the run is declared stuck.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&WorkloadRunner::m_hangTimeout),
                          MakeTimeChecker(MicroSeconds(1), Seconds(3600)))
            .AddAttribute("ComputeJitter",
                          "Random factor on each compute op's duration, drawn as the op "
                          "starts (e.g. ns3::NormalRandomVariable[Mean=1|Variance=0.0025]; "
                          "negative draws count as 0); none: durations as in the trace.",
                          PointerValue(),
                          MakePointerAccessor(&WorkloadRunner::m_jitter),
                          MakePointerChecker<RandomVariableStream>())
            .AddAttribute("RestartOnFailure",
                          "After a GPU fails (FailRank), stop every rank and, RestartDelay "
                          "later, start them all again from the last iteration they all "
                          "completed, the GPU replaced; false: the job stops making progress "
                          "and the watchdog reports it.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&WorkloadRunner::m_restartOnFailure),
                          MakeBooleanChecker())
            .AddAttribute("RestartDelay",
                          "With RestartOnFailure: from a failure to the restart (detection, "
                          "rescheduling, loading the checkpoint).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&WorkloadRunner::m_restartDelay),
                          MakeTimeChecker(Seconds(0), Seconds(86400)))
            .AddTraceSource("OpFinished",
                            "An op finished on its rank.",
                            MakeTraceSourceAccessor(&WorkloadRunner::m_opFinishedTrace),
                            "ns3::WorkloadRunner::OpTracedCallback");
    return tid;
}

WorkloadRunner::WorkloadRunner()
    : m_engine(CreateObject<CollectiveEngine>())
{
}

WorkloadRunner::~WorkloadRunner() = default;

void
WorkloadRunner::DoDispose()
{
    m_watchdog.Cancel();
    m_watchdog = EventId(); // its event holds this runner
    if (m_engine)
    {
        // The engine's trace holds this runner: whoever else keeps the engine (a carrier's
        // pending callbacks) must not keep the runner.
        m_engine->TraceDisconnectWithoutContext("TransferDone", m_transferDone);
        m_engine->Dispose();
    }
    m_transferDone = Callback<void, uint64_t, uint32_t>();
    m_callBytes.clear();
    m_jitter = nullptr;
    m_engine = nullptr;
    m_transport = nullptr;
    Object::DoDispose();
}

void
WorkloadRunner::Setup(const TrainingTrace& trace,
                      const CommGroup& world,
                      Ptr<CollectiveTransport> transport)
{
    Setup(std::make_shared<const TrainingTrace>(trace), world, transport);
}

void
WorkloadRunner::Setup(std::shared_ptr<const TrainingTrace> shared,
                      const CommGroup& world,
                      Ptr<CollectiveTransport> transport)
{
    NS_ABORT_MSG_IF(!shared, "WorkloadRunner: no trace");
    const TrainingTrace& trace = *shared;
    std::string why;
    NS_ABORT_MSG_IF(!trace.Validate(&why), "WorkloadRunner: invalid trace: " << why);
    NS_ABORT_MSG_IF(!transport, "WorkloadRunner: no transport");
    NS_ABORT_MSG_IF(world.GetSize() < trace.GetNRanks() ||
                        transport->GetNRanks() < trace.GetNRanks(),
                    "WorkloadRunner: the trace has "
                        << trace.GetNRanks() << " ranks but the world has " << world.GetSize()
                        << " and the transport connects " << transport->GetNRanks());
    m_trace = std::move(shared);
    // Records name their ops by index into the trace: those of another trace go with it.
    m_records.clear();
    m_calls.clear();
    m_breakdownRecords = SIZE_MAX;
    m_world = world;
    m_transport = transport;
    m_engine->SetTransport(transport);
    if (!m_transferDone.IsNull())
    {
        // Set up again: one connection, or every transfer would count twice.
        m_engine->TraceDisconnectWithoutContext("TransferDone", m_transferDone);
    }
    m_transferDone = MakeCallback(&WorkloadRunner::OnTransferDone, Ptr<WorkloadRunner>(this));
    m_engine->TraceConnectWithoutContext("TransferDone", m_transferDone);
    // The runner, its engine and their callbacks point at each other while the run lasts;
    // Simulator::Destroy() disposes the runner, which breaks those links, as it disposes
    // the models living on the nodes.
    if (!m_disposeScheduled)
    {
        Simulator::ScheduleDestroy(&WorkloadRunner::Dispose, Ptr<WorkloadRunner>(this));
        m_disposeScheduled = true;
    }
    const uint32_t n = trace.GetNRanks();
    m_computeScale.assign(n, 1.0);
    m_failAt.clear();
    m_failed.assign(n, false);
    m_failures.clear();
    m_restarts.clear();
    m_generation = 0;
    m_halted = false;
    m_traceIterations = std::max(1u, trace.GetNIterations());
    m_traceStreams = trace.GetNStreams();
    m_dependents.assign(n, {});
    m_sequence.assign(n, {});
    m_sequenceLength.assign(n, {});
    m_groupIndex.clear();
    m_groupSpansServers.assign(trace.GetGroups().size(), false);
    for (uint32_t g = 0; g < trace.GetGroups().size(); ++g)
    {
        const TraceGroup& group = trace.GetGroups()[g];
        m_groupIndex[group.name] = g + 1;
        for (uint32_t r : group.ranks)
        {
            m_groupSpansServers[g] = m_groupSpansServers[g] ||
                                     world.GetServer(r) != world.GetServer(group.ranks.front());
        }
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        const auto& ops = trace.GetOps(r);
        Dependents& dependents = m_dependents[r];
        dependents.first.assign(ops.size() + 1, 0);
        for (const TraceOp& op : ops)
        {
            for (uint32_t d : op.deps)
            {
                ++dependents.first[d + 1];
            }
        }
        std::partial_sum(dependents.first.begin(),
                         dependents.first.end(),
                         dependents.first.begin());
        dependents.ops.resize(dependents.first.back());
        std::vector<uint32_t> filled(dependents.first.begin(), dependents.first.end() - 1);
        m_sequence[r].assign(ops.size(), 0);
        m_sequenceLength[r].assign(ops.size(), 0);
        std::map<CallKey, uint32_t> count;
        for (const TraceOp& op : ops)
        {
            for (uint32_t d : op.deps)
            {
                dependents.ops[filled[d]++] = op.id;
            }
            if (op.kind != TraceOpKind::COMPUTE)
            {
                m_sequence[r][op.id] = count[MatchKey(r, op)]++;
            }
        }
        for (const TraceOp& op : ops)
        {
            if (op.kind != TraceOpKind::COMPUTE)
            {
                m_sequenceLength[r][op.id] = count[MatchKey(r, op)];
            }
        }
    }
}

WorkloadRunner::CallKey
WorkloadRunner::MatchKey(uint32_t rank, const TraceOp& op) const
{
    CallKey key;
    switch (op.kind)
    {
    case TraceOpKind::COLLECTIVE:
        key.group = m_groupIndex.at(op.group);
        break;
    case TraceOpKind::SEND:
        key = {0, rank, op.peer, op.tag, 0};
        break;
    case TraceOpKind::RECV:
        key = {0, op.peer, rank, op.tag, 0};
        break;
    case TraceOpKind::COMPUTE:
        break;
    }
    return key;
}

std::string
WorkloadRunner::DescribeKey(const CallKey& key) const
{
    std::ostringstream os;
    if (key.group > 0)
    {
        os << "c:" << m_trace->GetGroups()[key.group - 1].name;
    }
    else
    {
        os << "p:" << key.src << ">" << key.dst << ":" << key.tag;
    }
    os << "#" << key.k;
    return os.str();
}

bool
WorkloadRunner::IsMemberOf(const CallKey& key, uint32_t rank) const
{
    if (key.group == 0)
    {
        return rank == key.src || rank == key.dst;
    }
    const auto& ranks = m_trace->GetGroups()[key.group - 1].ranks;
    return std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
}

void
WorkloadRunner::SetProgressProbe(std::function<uint64_t()> probe)
{
    m_probe = std::move(probe);
}

void
WorkloadRunner::SetFinishedCallback(std::function<void()> finished)
{
    m_finished = std::move(finished);
}

void
WorkloadRunner::OnTransferDone(uint64_t runId, uint32_t transfer)
{
    ++m_progress;
    auto it = m_callBytes.find(runId);
    if (it != m_callBytes.end())
    {
        it->second.doneBytes += it->second.plan->GetTransfer(transfer).bytes;
    }
}

void
WorkloadRunner::Start()
{
    NS_ABORT_MSG_IF(m_trace->GetNRanks() == 0, "WorkloadRunner::Start before Setup");
    m_start = Simulator::Now();
    m_breakdownRecords = SIZE_MAX;
    m_opsTotal = m_trace->GetNOps() * m_iterations;
    // Every op finishes once a repetition (again after a restart): a record each, in one
    // block (a vector grown by doubling would hold up to twice its records while it
    // moves them).
    m_records.reserve(m_records.size() + m_opsTotal);
    m_fabricBytesDone = 0;
    m_fabricBytesTotal = 0;
    m_callBytes.clear();
    for (uint32_t r = 0; r < m_trace->GetNRanks(); ++r)
    {
        for (const TraceOp& o : m_trace->GetOps(r))
        {
            m_fabricBytesTotal += FabricBytes(r, o) * m_iterations;
        }
    }
    m_ranks.assign(m_trace->GetNRanks(), RankState());
    m_ranksDone = 0;
    m_loneCaller.clear();
    // A restart starts new calls while the stopped ones still run in the engine: no call
    // is alone on its switch then, so none is vouched for when a failure may restart.
    if (m_engine->GetReplayIsolatedCalls() && !(m_restartOnFailure && !m_failAt.empty()))
    {
        FindLoneCallers();
    }
    for (uint32_t r = 0; r < m_trace->GetNRanks(); ++r)
    {
        Simulator::ScheduleNow(&WorkloadRunner::StartRepetition, Ptr<WorkloadRunner>(this), r);
    }
    for (const auto& [rank, at] : m_failAt)
    {
        Simulator::Schedule(at, &WorkloadRunner::Fail, Ptr<WorkloadRunner>(this), rank);
    }
    m_watchdog =
        Simulator::Schedule(m_hangTimeout, &WorkloadRunner::Watchdog, Ptr<WorkloadRunner>(this));
}

void
WorkloadRunner::SetComputeScale(uint32_t rank, double factor)
{
    NS_LOG_FUNCTION(this << rank << factor);
    NS_ABORT_MSG_IF(rank >= m_computeScale.size(),
                    "WorkloadRunner::SetComputeScale: rank "
                        << rank << " of " << m_computeScale.size() << " (call after Setup)");
    NS_ABORT_MSG_IF(!(factor > 0), "WorkloadRunner::SetComputeScale: factor " << factor);
    m_computeScale[rank] = factor;
}

double
WorkloadRunner::GetComputeScale(uint32_t rank) const
{
    return rank < m_computeScale.size() ? m_computeScale[rank] : 1.0;
}

void
WorkloadRunner::FailRank(uint32_t rank, Time at)
{
    NS_LOG_FUNCTION(this << rank << at);
    NS_ABORT_MSG_IF(rank >= m_failed.size(),
                    "WorkloadRunner::FailRank: rank " << rank << " of " << m_failed.size()
                                                      << " (call after Setup)");
    NS_ABORT_MSG_IF(at.IsNegative(), "WorkloadRunner::FailRank: negative time");
    m_failAt.emplace_back(rank, at);
}

const std::vector<std::pair<uint32_t, Time>>&
WorkloadRunner::GetFailures() const
{
    return m_failures;
}

int64_t
WorkloadRunner::AssignStreams(int64_t stream)
{
    if (!m_jitter)
    {
        return 0;
    }
    m_jitter->SetStream(stream);
    return 1;
}

void
WorkloadRunner::Fail(uint32_t rank)
{
    if (m_failed[rank] || IsFinished())
    {
        return; // once, and only while there is work to lose
    }
    NS_LOG_INFO("WorkloadRunner: the GPU of rank " << rank << " fails");
    m_failed[rank] = true;
    m_failures.emplace_back(rank, Simulator::Now());
    if (m_restartOnFailure)
    {
        Abort(rank);
    }
}

Time
WorkloadRunner::ComputeDuration(uint32_t rank, const TraceOp& o)
{
    if (o.duration.IsZero())
    {
        return o.duration; // markers (a rewrite's begin and join ops) draw nothing
    }
    double factor = m_computeScale[rank];
    if (m_jitter)
    {
        factor *= std::max(0.0, m_jitter->GetValue());
    }
    if (factor == 1.0)
    {
        return o.duration;
    }
    const Time d = TimeStep(static_cast<uint64_t>(
        std::llround(static_cast<double>(o.duration.GetTimeStep()) * factor)));
    NS_LOG_LOGIC("rank " << rank << " " << o.name << ": " << o.duration.As(Time::US) << " x "
                         << factor << " = " << d.As(Time::US));
    return d;
}

void
WorkloadRunner::StartRepetition(uint32_t rank)
{
    RankState& s = m_ranks[rank];
    const auto& ops = m_trace->GetOps(rank);
    s.missingDeps.assign(ops.size(), 0);
    s.started.assign(ops.size(), false);
    s.finished.assign(ops.size(), false);
    s.startTime.assign(ops.size(), Time());
    s.streamOps.assign(m_traceStreams, {});
    s.streamHead.assign(m_traceStreams, 0);
    s.nFinished = 0;
    for (const TraceOp& op : ops)
    {
        s.missingDeps[op.id] = static_cast<uint32_t>(op.deps.size());
        s.streamOps[op.stream].push_back(op.id);
    }
    if (ops.empty())
    {
        RankDone();
        return;
    }
    for (uint32_t st = 0; st < s.streamOps.size(); ++st)
    {
        if (!s.streamOps[st].empty())
        {
            TryStart(rank, s.streamOps[st][0]);
        }
    }
}

void
WorkloadRunner::TryStart(uint32_t rank, uint32_t op)
{
    RankState& s = m_ranks[rank];
    const TraceOp& o = m_trace->GetOps(rank)[op];
    const auto& stream = s.streamOps[o.stream];
    if (s.started[op] || s.missingDeps[op] != 0 || s.streamHead[o.stream] >= stream.size() ||
        stream[s.streamHead[o.stream]] != op || m_failed[rank] || m_halted)
    {
        return;
    }
    Begin(rank, op);
}

void
WorkloadRunner::Begin(uint32_t rank, uint32_t op)
{
    RankState& s = m_ranks[rank];
    const TraceOp& o = m_trace->GetOps(rank)[op];
    s.started[op] = true;
    s.startTime[op] = Simulator::Now();
    if (o.kind == TraceOpKind::COMPUTE)
    {
        Simulator::Schedule(ComputeDuration(rank, o),
                            &WorkloadRunner::FinishCompute,
                            Ptr<WorkloadRunner>(this),
                            m_generation,
                            rank,
                            op);
        return;
    }
    // The call this op joins: its place in list order, continued across repetitions.
    const uint64_t k = uint64_t{s.repetition} * m_sequenceLength[rank][op] + m_sequence[rank][op];
    const uint32_t needed = o.kind == TraceOpKind::COLLECTIVE
                                ? static_cast<uint32_t>(m_trace->GetGroup(o.group).ranks.size())
                                : 2;
    CallKey key = MatchKey(rank, o);
    key.k = k;
    Arrive(key, needed, rank, op);
}

void
WorkloadRunner::Arrive(const CallKey& key, uint32_t needed, uint32_t rank, uint32_t op)
{
    PendingCall& call = m_pending[key];
    if (call.members.empty())
    {
        call.needed = needed;
        call.firstArrival = Simulator::Now();
    }
    call.members.emplace_back(rank, op);
    if (call.members.size() == call.needed)
    {
        Launch(key);
    }
}

void
WorkloadRunner::Launch(const CallKey& key)
{
    auto it = m_pending.find(key);
    std::vector<std::pair<uint32_t, uint32_t>> members = std::move(it->second.members);
    const Time firstArrival = it->second.firstArrival;
    m_pending.erase(it);

    const auto [rank0, op0] = members.front();
    const TraceOp& first = m_trace->GetOps(rank0)[op0];
    CallRecord rec;
    rec.name = first.name;
    rec.firstArrival = firstArrival;
    rec.launch = Simulator::Now();
    rec.iteration = m_ranks[rank0].repetition * m_traceIterations + first.iteration;
    std::shared_ptr<const CommPlan> plan;
    std::vector<uint32_t> rankMap;
    if (first.kind == TraceOpKind::COLLECTIVE)
    {
        const TraceGroup& g = m_trace->GetGroup(first.group);
        rec.requested =
            first.algorithm.empty() ? m_engine->GetAlgorithmName() : first.algorithm.str();
        // The trace's name was checked when it was read; the engine's attribute otherwise.
        std::optional<CollectiveAlgorithm> algorithm;
        CollectiveAlgorithm named;
        if (!first.algorithm.empty() && CollectiveAlgorithmFromString(first.algorithm, named))
        {
            algorithm = named;
        }
        plan = m_engine->GetCollectivePlan(first.collective,
                                           m_world.SubGroup(g.ranks),
                                           first.bytes,
                                           g.ranks,
                                           first.root,
                                           algorithm);
        rankMap = g.ranks;
        rec.group = g.name;
        rec.type = first.collective;
        rec.bytes = first.bytes;
    }
    else
    {
        // The sender's op says how much moves; plan rank 0 sends to plan rank 1.
        const auto [sr, so] = first.kind == TraceOpKind::SEND ? members[0] : members[1];
        const TraceOp& send = m_trace->GetOps(sr)[so];
        plan = std::make_shared<const CommPlan>(m_engine->MakeSendRecvPlan(send.bytes));
        rankMap = {sr, send.peer};
        rec.type = CollectiveType::SEND_RECV;
        rec.bytes = send.bytes;
        rec.name = send.name;
        rec.tag = send.tag;
    }
    rec.algorithm = plan->GetAlgorithm();
    rec.protocol = CollectiveProtocolToString(plan->GetProtocol());
    if (rec.requested.empty())
    {
        rec.requested = rec.algorithm; // send/recv: direct, nothing to choose
    }
    rec.nRanks = plan->GetGroupSize();
    const uint64_t index = m_calls.size();
    m_calls.push_back(rec);
    uint64_t fabricBytes = 0;
    for (const auto& [rank, op] : members)
    {
        fabricBytes += FabricBytes(rank, m_trace->GetOps(rank)[op]);
    }
    Ptr<WorkloadRunner> self(this);
    const uint64_t generation = m_generation;
    // The engine made the plan for these ranks (its selection asked the carrier).
    const bool alone =
        !m_loneCaller.empty() &&
        std::all_of(rankMap.begin(), rankMap.end(), [this](uint32_t r) { return m_loneCaller[r]; });
    const uint64_t runId = m_engine->RunSelected(
        *plan,
        rankMap,
        CollectiveEngine::DoneCallback(
            [self, index, members, fabricBytes, generation](const CollectiveResult& r) {
                if (generation == self->m_generation)
                {
                    self->CallDone(index, members, fabricBytes, r);
                }
                else
                {
                    // Its ranks were stopped for a restart: its bytes arrived for nothing.
                    self->m_callBytes.erase(r.id);
                }
            }),
        alone);
    if (fabricBytes > 0 && !m_calls[index].finished)
    {
        // The progress line follows its transfers (GetFabricBytesProgress).
        uint64_t planBytes = 0;
        for (const CommPlan::Transfer& t : plan->GetTransfers())
        {
            planBytes += t.bytes;
        }
        if (planBytes > 0)
        {
            m_callBytes[runId] = CallBytes{plan, fabricBytes, planBytes, 0};
        }
    }
}

void
WorkloadRunner::CallDone(uint64_t callIndex,
                         std::vector<std::pair<uint32_t, uint32_t>> members,
                         uint64_t fabricBytes,
                         const CollectiveResult& result)
{
    // The call's bytes count whole from now on, all members' at once with its share
    // forgotten, so that the count never dips while the members finish one by one.
    m_fabricBytesDone += fabricBytes;
    m_callBytes.erase(result.id);
    CallRecord& rec = m_calls[callIndex];
    rec.end = Simulator::Now();
    rec.busBw = result.busBw;
    rec.finished = true;
    for (const auto& [rank, op] : members)
    {
        Finish(rank, op, static_cast<int64_t>(callIndex));
    }
}

void
WorkloadRunner::Finish(uint32_t rank, uint32_t op, int64_t call)
{
    if (m_failed[rank])
    {
        return; // a failed GPU finishes nothing: what waits for it waits for ever
    }
    RankState& s = m_ranks[rank];
    const TraceOp& o = m_trace->GetOps(rank)[op];
    s.finished[op] = true;
    ++s.nFinished;
    ++m_progress;
    ++m_opsDone;
    OpRecord rec;
    rec.rank = rank;
    rec.op = op;
    rec.stream = o.stream;
    rec.iteration = s.repetition * m_traceIterations + o.iteration;
    rec.kind = o.kind;
    rec.start = s.startTime[op];
    rec.end = Simulator::Now();
    rec.call = call;
    m_records.push_back(rec);
    m_end = rec.end;
    m_opFinishedTrace(rec);

    if (s.nFinished == m_trace->GetOps(rank).size())
    {
        if (++s.repetition < m_iterations)
        {
            StartRepetition(rank);
        }
        else
        {
            RankDone();
        }
        return;
    }
    ++s.streamHead[o.stream];
    const Dependents& dependents = m_dependents[rank];
    for (uint32_t i = dependents.first[op]; i < dependents.first[op + 1]; ++i)
    {
        const uint32_t d = dependents.ops[i];
        if (--s.missingDeps[d] == 0)
        {
            TryStart(rank, d);
        }
    }
    const auto& stream = s.streamOps[o.stream];
    if (s.streamHead[o.stream] < stream.size())
    {
        TryStart(rank, stream[s.streamHead[o.stream]]);
    }
}

void
WorkloadRunner::RankDone()
{
    if (++m_ranksDone < m_trace->GetNRanks())
    {
        return;
    }
    // Remove, not Cancel: a cancelled event still advances the clock to its time.
    Simulator::Remove(m_watchdog);
    if (m_finished)
    {
        m_finished();
    }
}

bool
WorkloadRunner::IsFinished() const
{
    return !m_ranks.empty() && m_ranksDone == m_ranks.size();
}

std::pair<uint64_t, uint64_t>
WorkloadRunner::GetProgress() const
{
    return {m_opsDone, m_opsTotal};
}

uint64_t
WorkloadRunner::FabricBytes(uint32_t rank, const TraceOp& o) const
{
    switch (o.kind)
    {
    case TraceOpKind::COLLECTIVE:
        return m_groupSpansServers[m_groupIndex.at(o.group) - 1] ? o.bytes : 0;
    case TraceOpKind::SEND:
        return m_world.GetServer(rank) != m_world.GetServer(o.peer) ? o.bytes : 0;
    default:
        return 0;
    }
}

std::pair<uint64_t, uint64_t>
WorkloadRunner::GetFabricBytesProgress() const
{
    // The calls under way: their bytes in the proportion of their plans' bytes moved.
    uint64_t done = m_fabricBytesDone;
    for (const auto& [runId, call] : m_callBytes)
    {
        done += static_cast<uint64_t>(static_cast<double>(call.fabricBytes) *
                                      static_cast<double>(call.doneBytes) /
                                      static_cast<double>(call.planBytes));
    }
    return {done, m_fabricBytesTotal};
}

const std::vector<OpRecord>&
WorkloadRunner::GetOps() const
{
    return m_records;
}

const std::string&
WorkloadRunner::GetOpName(const OpRecord& record) const
{
    return m_trace->GetOps(record.rank).at(record.op).name;
}

const std::vector<CallRecord>&
WorkloadRunner::GetCalls() const
{
    return m_calls;
}

Ptr<CollectiveEngine>
WorkloadRunner::GetEngine() const
{
    return m_engine;
}

uint32_t
WorkloadRunner::GetNIterations() const
{
    return m_iterations * m_traceIterations;
}

Time
WorkloadRunner::GetEndTime() const
{
    return m_end;
}

} // namespace ns3
