// SPDX-License-Identifier: GPL-2.0-only
// RdmaFastForward: whether a group may skip (every member steady, the load settled, a warm
// group its last skip's), the plan of a skip (its NICs' rounds, each member's pace and
// packets), and its start and end. Watching the queue pairs and their ports is in
// rdma-fast-forward.cc.
#include "rdma-fast-forward.h"
#include "rdma-nic.h"
#include "rdma-queue-pair.h"

#include "ns3/log.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame-info.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

// The class's log component ("RdmaFastForward"), defined in rdma-fast-forward.cc: NS_LOG
// finds it under this name.
LogComponent& RdmaFastForwardLogComponent();
static LogComponent& g_log = RdmaFastForwardLogComponent();

namespace
{
/// A NIC's measured round may differ from the one its port's load gives by this fraction
/// (the ACKs that fell in the window); more, and the port is not what paces it.
constexpr double PACE_TOLERANCE = 0.005;
} // namespace

void
RdmaFastForward::TryStart(RdmaQueuePair* qp, std::unordered_map<RdmaQueuePair*, bool>& visited)
{
    NS_LOG_FUNCTION(this << qp);
    const Time now = Simulator::Now();
    if (m_unrouted > 0 || now - m_quietSince < m_window)
    {
        return; // Reroute tries again
    }
    bool paused = false;
    std::vector<RdmaQueuePair*> members = CollectGroup(qp, visited, paused);
    if (paused)
    {
        NS_LOG_LOGIC("group of QP " << qp->GetQpn() << ": a port was paused lately: no skip");
        return;
    }
    for (RdmaQueuePair* m : members)
    {
        Watched& w = m_watched.at(m);
        if (!w.steady || w.skip != 0 || !m->IsSteady(now) || !m->PlanSkip(m_endPackets, w.plan))
        {
            NS_LOG_LOGIC("group of QP " << qp->GetQpn() << " (" << members.size()
                                        << " queue pairs): QP " << m->GetQpn()
                                        << " is not steady, or near its end: no skip");
            return;
        }
    }
    if (!WarmGroupHolds(members) || !LoadSettled(members))
    {
        return;
    }
    const std::vector<Round> rounds = Rounds(members);
    if (!PaceRounds(rounds))
    {
        return;
    }
    // It ends with the first round of a NIC in which one of its queue pairs would pass its
    // last skippable packet.
    Time end = Time::Max();
    for (const Round& round : rounds)
    {
        end = std::min(end, m_watched.at(round.members.front()).plan.StartOf(round.maxRounds));
    }
    if (end - now < m_minSkip)
    {
        NS_LOG_LOGIC("group of QP " << qp->GetQpn() << ": a skip would end at " << end.As(Time::US)
                                    << ": too short");
        return;
    }
    StartSkip(std::move(members), end);
}

bool
RdmaFastForward::WarmGroupHolds(const std::vector<RdmaQueuePair*>& members)
{
    const uint64_t skip = members.front()->GetWarmSkip();
    const bool again = skip >= m_warmFloor && members.front()->GetWarmMembers() == members.size() &&
                       std::all_of(members.begin(), members.end(), [skip](RdmaQueuePair* m) {
                           return m->GetWarmSkip() == skip;
                       });
    if (again)
    {
        NS_LOG_LOGIC("group of QP " << members.front()->GetQpn() << ": the " << members.size()
                                    << " queue pairs of skip " << skip << " again");
        return true;
    }
    bool ok = true;
    const Time now = Simulator::Now();
    for (RdmaQueuePair* m : members)
    {
        if (m->GetWarmSkip() != 0)
        {
            NS_LOG_LOGIC("QP " << m->GetQpn() << ": warm from skip " << m->GetWarmSkip()
                               << ", but its group is not that skip's: a full window");
            m->SetWarm(0, 0, 0);
            m->ResetSteadiness(now);
            ok = false;
        }
    }
    return ok;
}

bool
RdmaFastForward::LoadSettled(const std::vector<RdmaQueuePair*>& members)
{
    // A queue pair's load reaches every port of its paths within its RTT of its start (its
    // data, then its ACKs): a window that began sooner on a shared port measured a pace
    // without part of that load (typically the reverse flow's ACKs).
    // Per port the latest settling and whose it is, and the latest of the others.
    struct Latest
    {
        RdmaQueuePair* owner{nullptr};
        Time first;
        Time second;
    };

    std::unordered_map<const RoceNetDevice*, Latest> latest;
    for (RdmaQueuePair* m : members)
    {
        const Watched& w = m_watched.at(m);
        const Time since = m->GetLoadSince() + w.baseRtt;
        for (const auto* path : {&w.dataPath, &w.ackPath})
        {
            for (const Ptr<RoceNetDevice>& port : *path)
            {
                Latest& l = latest[PeekPointer(port)];
                if (l.owner == m)
                {
                    continue; // a port on both of its paths
                }
                if (since > l.first)
                {
                    l.second = l.first;
                    l.first = since;
                    l.owner = m;
                }
                else
                {
                    l.second = std::max(l.second, since);
                }
            }
        }
    }
    bool ok = true;
    for (RdmaQueuePair* m : members)
    {
        // Its own load does not change its pace: the ACKs on its sending port are the flows'
        // into its NIC, its own go through its receiver's.
        const Watched& w = m_watched.at(m);
        Time since;
        for (const auto* path : {&w.dataPath, &w.ackPath})
        {
            for (const Ptr<RoceNetDevice>& port : *path)
            {
                const Latest& l = latest[PeekPointer(port)];
                since = std::max(since, l.owner == m ? l.second : l.first);
            }
        }
        if (m->GetWindowStart() < since)
        {
            NS_LOG_LOGIC("QP " << m->GetQpn() << ": its window began at "
                               << m->GetWindowStart().As(Time::US)
                               << ", before the load on its ports settled at " << since.As(Time::US)
                               << ": it measures again");
            m->ResetSteadiness(since);
            ok = false;
        }
    }
    return ok;
}

std::vector<RdmaFastForward::Round>
RdmaFastForward::Rounds(const std::vector<RdmaQueuePair*>& members)
{
    // A steady NIC port is busy all the time (its queue pairs at line rate) and serves
    // them in turn: the one that sent longest ago is next.
    std::vector<Round> rounds;
    for (RdmaQueuePair* m : members)
    {
        const RoceSkippedFrames& plan = m_watched.at(m).plan;
        const RdmaNic* nic = PeekPointer(m->GetNic());
        auto it = std::find_if(rounds.begin(), rounds.end(), [nic](const Round& r) {
            return r.nic == nic;
        });
        if (it == rounds.end())
        {
            rounds.push_back({nic, {m}, plan.maxFrames});
            continue;
        }
        it->members.push_back(m);
        if (plan.last < m_watched.at(it->members.front()).plan.last)
        {
            std::swap(it->members.front(), it->members.back());
        }
        it->maxRounds = std::min(it->maxRounds, plan.maxFrames);
    }
    return rounds;
}

bool
RdmaFastForward::PaceRounds(const std::vector<Round>& rounds)
{
    // A steady NIC port is never idle: in a round it sends one data frame of each of its
    // queue pairs and the ACKs its receivers owe the flows into it (one per AckEvery of
    // their packets). The round's length follows from that exactly, where a measured mean
    // gap would be off by the ACKs that happen to fall in its window:
    //   P = data frames' time / (1 - sum over flows in of ACK time / (P_flow x every)).
    const std::size_t n = rounds.size();
    std::unordered_map<const RdmaNic*, std::size_t> roundOf;
    std::vector<double> dataPs(n, 0);
    std::vector<double> measured(n, 0);
    for (std::size_t r = 0; r < n; ++r)
    {
        roundOf[rounds[r].nic] = r;
        const double bps =
            static_cast<double>(rounds[r].nic->GetDevice()->GetDataRate().GetBitRate());
        for (RdmaQueuePair* m : rounds[r].members)
        {
            const RoceSkippedFrames& plan = m_watched.at(m).plan;
            dataPs[r] += roce::WireBytes(plan.frameBytes) * 8e12 / bps;
            measured[r] += plan.periodPs;
        }
        measured[r] /= static_cast<double>(rounds[r].members.size());
    }
    std::vector<double> period = measured;
    for (int iteration = 0; iteration < 4; ++iteration)
    {
        std::vector<double> ackShare(n, 0);
        for (std::size_t r = 0; r < n; ++r)
        {
            for (RdmaQueuePair* m : rounds[r].members)
            {
                const Ptr<RdmaNic> receiver = m->GetPeerQueuePair()->GetNic();
                auto in = roundOf.find(PeekPointer(receiver));
                if (in == roundOf.end())
                {
                    continue; // a receiver that sends nothing: its port paces nobody
                }
                const double ackPs =
                    roce::WireBytes(roce::ACK_FRAME_BYTES) * 8e12 /
                    static_cast<double>(receiver->GetDevice()->GetDataRate().GetBitRate());
                ackShare[in->second] +=
                    ackPs /
                    (period[r] * static_cast<double>(AckEvery(PeekPointer(receiver), period[r])));
            }
        }
        for (std::size_t r = 0; r < n; ++r)
        {
            period[r] = dataPs[r] / (1 - ackShare[r]);
        }
    }
    for (std::size_t r = 0; r < n; ++r)
    {
        if (std::abs(period[r] - measured[r]) > PACE_TOLERANCE * measured[r])
        {
            NS_LOG_LOGIC("NIC of QP " << rounds[r].members.front()->GetQpn() << ": a round of "
                                      << period[r] << " ps where " << measured[r]
                                      << " ps were measured: its port does not pace it, no skip");
            return false;
        }
    }
    for (std::size_t r = 0; r < n; ++r)
    {
        for (RdmaQueuePair* m : rounds[r].members)
        {
            m_watched.at(m).plan.periodPs = period[r];
        }
    }
    return true;
}

std::vector<RdmaQueuePair*>
RdmaFastForward::CollectGroup(RdmaQueuePair* qp,
                              std::unordered_map<RdmaQueuePair*, bool>& visited,
                              bool& paused)
{
    // Every watched queue pair reachable over shared ports, breadth first.
    const Time now = Simulator::Now();
    std::vector<RdmaQueuePair*> members{qp};
    visited[qp] = true;
    std::unordered_map<const RoceNetDevice*, bool> seenPorts;
    paused = false;
    for (std::size_t i = 0; i < members.size(); ++i)
    {
        const Watched& w = m_watched.at(members[i]);
        for (const auto* path : {&w.dataPath, &w.ackPath})
        {
            for (const Ptr<RoceNetDevice>& port : *path)
            {
                if (seenPorts[PeekPointer(port)])
                {
                    continue;
                }
                seenPorts[PeekPointer(port)] = true;
                auto pfc = m_lastPfc.find(PeekPointer(port));
                paused = paused || (pfc != m_lastPfc.end() && now - pfc->second < m_window);
                for (RdmaQueuePair* other : m_users[PeekPointer(port)])
                {
                    if (!visited[other])
                    {
                        visited[other] = true;
                        members.push_back(other);
                    }
                }
            }
        }
    }
    return members;
}

void
RdmaFastForward::StartSkip(std::vector<RdmaQueuePair*> members, Time end)
{
    const Time now = Simulator::Now();
    const uint64_t id = m_nextSkip++;
    for (RdmaQueuePair* m : members)
    {
        Watched& w = m_watched.at(m);
        w.skip = id;
        m->BeginSkip();
        // The data on its way, then one ACK every AckEvery packets on the way back; each
        // port sees a stream later than the one before (cable, store and forward).
        RoceSkippedFrames here = w.plan;
        here.source = m;
        for (const Ptr<RoceNetDevice>& port : w.dataPath)
        {
            port->AddSkippedFrames(here);
            here.delay += HopDelay(port, here.frameBytes);
        }
        w.dataDelay = here.delay;
        const uint64_t every =
            AckEvery(PeekPointer(m->GetPeerQueuePair()->GetNic()), w.plan.periodPs);
        w.ackEvery = every;
        here.periodPs = w.plan.periodPs * static_cast<double>(every);
        here.frameBytes = roce::ACK_FRAME_BYTES;
        here.maxFrames = w.plan.maxFrames / every;
        here.source = &w;
        for (const Ptr<RoceNetDevice>& port : w.ackPath)
        {
            port->AddSkippedFrames(here);
            here.delay += HopDelay(port, here.frameBytes);
        }
    }
    NS_LOG_INFO("skip " << id << " of " << members.size() << " queue pairs from "
                        << now.As(Time::US) << " to " << end.As(Time::US));
    Skip& skip = m_skips[id];
    skip.members = std::move(members);
    skip.start = now;
    skip.end = Simulator::Schedule(end - now, &RdmaFastForward::End, this, id, false);
    ++m_nSkips;
    m_skipStartedTrace(static_cast<uint32_t>(skip.members.size()), end);
}

void
RdmaFastForward::End(uint64_t id, bool interrupted)
{
    NS_LOG_FUNCTION(this << id << interrupted);
    auto it = m_skips.find(id);
    if (it == m_skips.end())
    {
        return;
    }
    // Out of the map first: ending a queue pair's skip may make its NIC send at once.
    Skip skip = std::move(it->second);
    m_skips.erase(it);
    skip.end.Cancel();
    const Time now = Simulator::Now();
    uint64_t packets = 0;
    for (const Round& round : Rounds(skip.members))
    {
        // Whole rounds: the next one starts with the queue pair that sent longest ago (it
        // is where the NIC's round robin stands), after the last round that began by now.
        const RoceSkippedFrames& lead = m_watched.at(round.members.front()).plan;
        const uint64_t k = std::min(lead.FramesBy(now), round.maxRounds);
        const Time resumeAt = lead.StartOf(k + 1);
        // The lead first: it may send at once, the others wait for their turn.
        for (RdmaQueuePair* m : round.members)
        {
            Watched& w = m_watched.at(m);
            const Ptr<RdmaNic> nic = m->GetNic();
            nic->CountSkippedPackets(k);
            packets += k;
            m_skippedBytes += k * nic->GetPayloadMtu();
            w.skip = 0;
            m->SetWarm(interrupted ? 0 : id,
                       static_cast<uint32_t>(skip.members.size()),
                       w.plan.periodPs);
            // Near its message's end (as close as the skip's end packets once more): the
            // NIC's queue pairs end one by one, the pace changes until it is through.
            const bool tail = !interrupted && w.plan.maxFrames - k <= m_endPackets;
            const uint64_t acks = m->EndSkip(w.plan, k, resumeAt, w.dataDelay, w.ackEvery, tail);
            for (const Ptr<RoceNetDevice>& port : w.dataPath)
            {
                port->SettleSkippedFrames(m, k);
            }
            for (const Ptr<RoceNetDevice>& port : w.ackPath)
            {
                port->SettleSkippedFrames(&w, acks);
            }
        }
    }
    m_skippedPackets += packets;
    m_interrupted += interrupted ? 1 : 0;
    NS_LOG_INFO("skip " << id << " ended at " << now.As(Time::US)
                        << (interrupted ? " (interrupted)" : "") << ": " << packets
                        << " packets of " << skip.members.size() << " queue pairs");
    m_skipEndedTrace(now - skip.start, packets, interrupted);
}

Time
RdmaFastForward::HopDelay(const Ptr<RoceNetDevice>& port, uint32_t frameBytes)
{
    return port->GetRoceChannel()->GetDelay() +
           port->GetDataRate().CalculateBytesTxTime(roce::WireBytes(frameBytes));
}

uint64_t
RdmaFastForward::AckEvery(const RdmaNic* receiver, double periodPs)
{
    // The receiver acknowledges after AckInterval packets, or at the first packet that
    // comes AckCoalescingTime or more after its last ACK.
    const double coalescingPs =
        static_cast<double>(receiver->GetAckCoalescingTime().GetPicoSeconds());
    const auto byTime = static_cast<uint64_t>(std::max(1.0, std::ceil(coalescingPs / periodPs)));
    return std::min<uint64_t>(receiver->GetAckInterval(), byTime);
}

} // namespace ns3
