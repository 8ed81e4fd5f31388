// SPDX-License-Identifier: GPL-2.0-only
// RdmaQueuePair: what a fast-forward (RdmaFastForward) needs of a queue pair — the
// steadiness window of its sending side, the plan of a skip, and the skipped packets
// counted at both ends.
#include "rdma-fast-forward.h"
#include "rdma-queue-pair.h"

#include "ns3/aeth-header.h"
#include "ns3/log.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

// The class's log component ("RdmaQueuePair"), defined in rdma-queue-pair.cc: NS_LOG
// finds it under this name.
LogComponent& RdmaQueuePairLogComponent();
static LogComponent& g_log = RdmaQueuePairLogComponent();

namespace
{
/// Gaps between packets that differ by at most this many time steps count as constant
/// (the port carries the sub-step part of each frame's time to the next one).
constexpr int64_t GAP_TOLERANCE_STEPS = 2;
/// Gaps may spread by 1/this of the shortest (a port serving queue pairs in turn between
/// control frames); the pace is what the means say.
constexpr int64_t GAP_SPREAD_DIVISOR = 20;
/// The mean gaps of the two halves of a steady window agree to this fraction.
constexpr double MEAN_TOLERANCE = 0.002;
/// A warm window's mean gap is its last skip's period to this fraction (an ACK frame more
/// or less in a short window is about 0.3 % of a gap at 8 queue pairs per port).
constexpr double WARM_PACE_TOLERANCE = 0.005;
} // namespace

void
RdmaQueuePair::SetPeerQueuePair(Ptr<RdmaQueuePair> peer)
{
    NS_LOG_FUNCTION(this << peer);
    m_peerQp = peer;
}

Ptr<RdmaQueuePair>
RdmaQueuePair::GetPeerQueuePair() const
{
    NS_LOG_FUNCTION(this);
    return m_peerQp;
}

void
RdmaQueuePair::SetFastForward(RdmaFastForward* controller)
{
    NS_LOG_FUNCTION(this << controller);
    if (!controller)
    {
        m_skip = nullptr;
        return;
    }
    m_skip = std::make_unique<SkipState>();
    m_skip->controller = controller;
}

void
RdmaQueuePair::RestartWindow()
{
    if (m_skip->steady)
    {
        NS_LOG_LOGIC("QP " << m_qpn << ": not steady any more");
        m_skip->steady = false;
        m_skip->controller->NotifySteady(this, false);
    }
    m_skip->sends = 0;
    m_skip->midSends = 0;
    m_skip->rttSamples = 0;
}

void
RdmaQueuePair::ResetSteadiness(Time notBefore)
{
    NS_LOG_FUNCTION(this << notBefore);
    if (m_skip)
    {
        m_skip->notBefore = std::max(m_skip->notBefore, notBefore);
        m_skip->warmSuspended = false; // the load on its ports changed back: warm again
        RestartWindow();
    }
}

void
RdmaQueuePair::SetWarm(uint64_t skip, uint32_t members, double periodPs)
{
    NS_LOG_FUNCTION(this << skip << members << periodPs);
    if (m_skip)
    {
        // this skip began on a warm window
        const bool warm = IsWarm();
        m_skip->warmSkip = skip;
        m_skip->warmSuspended = false;
        m_skip->warmMembers = skip == 0 ? 0 : members;
        m_skip->warmPeriodPs = skip == 0 ? 0 : periodPs;
        if (skip == 0 || !warm)
        {
            // The RTTs measured since its last full window: a chain of warm windows is
            // held to that window's, so a queue growing a little at every step is seen.
            m_skip->warmMinRtt = m_skip->minRtt;
            m_skip->warmMaxRtt = m_skip->maxRtt;
        }
    }
}

uint64_t
RdmaQueuePair::GetWarmSkip() const
{
    return m_skip ? m_skip->warmSkip : 0;
}

uint32_t
RdmaQueuePair::GetWarmMembers() const
{
    return m_skip ? m_skip->warmMembers : 0;
}

bool
RdmaQueuePair::IsWarm() const
{
    return m_skip->warmSkip != 0 && !m_skip->warmSuspended;
}

std::size_t
RdmaQueuePair::CurrentMessage() const
{
    std::size_t index = m_sendCursor;
    while (index < m_messages.size() && m_messages[index].endPsn <= m_sndNxt)
    {
        ++index;
    }
    return index;
}

void
RdmaQueuePair::Disturb()
{
    // Go-back-N resends PSNs: a probe out now would time the resent packet from the
    // first send.
    m_skip->probes.clear();
    m_skip->probesHead = 0;
    m_skip->loadSince = Simulator::Now();
    m_skip->warmSkip = 0; // its pace may change: a full window
    m_skip->warmMembers = 0;
    m_skip->warmSuspended = false;
    RestartWindow();
}

Time
RdmaQueuePair::GetWindowStart() const
{
    NS_LOG_FUNCTION(this);
    return m_skip->first;
}

Time
RdmaQueuePair::GetLoadSince() const
{
    NS_LOG_FUNCTION(this);
    return m_skip->loadSince;
}

void
RdmaQueuePair::TrackSteadiness(uint32_t frameBytes, bool retransmission)
{
    SkipState& s = *m_skip;
    const Time now = Simulator::Now();
    // A pause in sending (a gap of more than twice the one before) starts a new load on
    // the ports: the others' pace changes within this queue pair's RTT.
    const int64_t sinceLast = (now - m_lastSendTime).GetTimeStep();
    if (s.lastGap == 0 || sinceLast > 2 * s.lastGap + GAP_TOLERANCE_STEPS)
    {
        s.loadSince = now;
        s.controller->NotifyResumed(this);
    }
    s.lastGap = std::max<int64_t>(sinceLast, 1);
    if (retransmission || now < s.notBefore)
    {
        RestartWindow();
        return;
    }
    if (s.tailEnd != 0)
    {
        // The tail of a skip: a window starts with this packet, unjudged, until the queue
        // pair has sent the message its skip ended in.
        s.sends = 0;
        if (m_sndNxt >= s.tailEnd)
        {
            NS_LOG_LOGIC("QP " << m_qpn << ": past the tail of its last skip");
            s.tailEnd = 0;
        }
    }
    if (s.sends > 0 && frameBytes == s.frameBytes)
    {
        // Gaps vary a little when the port serves several queue pairs in turn and slips
        // control frames in between; the pace holds if they stay in a narrow band and the
        // two halves of the window have the same mean.
        const int64_t gap = (now - m_lastSendTime).GetTimeStep();
        const int64_t lo = std::min(s.minGap, gap);
        const int64_t hi = std::max(s.maxGap, gap);
        if (hi - lo <= lo / GAP_SPREAD_DIVISOR + GAP_TOLERANCE_STEPS)
        {
            s.minGap = lo;
            s.maxGap = hi;
            ++s.sends;
            const bool warm = IsWarm();
            const Time window =
                warm ? s.controller->GetWarmWindow() : s.controller->GetSteadyWindow();
            if (s.midSends == 0 && now - s.first >= window / 2)
            {
                s.mid = now;
                s.midSends = s.sends;
            }
            // A warm window compares its pace and RTT with its last skip's: one sample
            // does; a full one needs two to see that the RTT holds.
            const bool enough = warm ? s.sends >= 3 && s.rttSamples >= 1
                                     : s.midSends >= 2 && s.sends > s.midSends && s.rttSamples >= 2;
            if (!s.steady && enough && now - s.first >= window)
            {
                if (warm ? WarmPaceHolds(now) : HalvesAgree(now))
                {
                    NS_LOG_LOGIC("QP " << m_qpn << ": steady, a packet every " << s.minGap << " to "
                                       << s.maxGap << " steps, RTT " << s.minRtt.As(Time::NS)
                                       << " to " << s.maxRtt.As(Time::NS)
                                       << (warm ? " (warm)" : ""));
                    s.steady = true;
                    s.controller->NotifySteady(this, true);
                    return;
                }
            }
            else
            {
                return;
            }
        }
    }
    // A new window starts with this packet.
    RestartWindow();
    s.first = now;
    s.sends = 1;
    s.frameBytes = frameBytes;
    s.minGap = std::numeric_limits<int64_t>::max();
    s.maxGap = 0;
}

bool
RdmaQueuePair::HalvesAgree(Time now) const
{
    const SkipState& s = *m_skip;
    const double first =
        static_cast<double>((s.mid - s.first).GetTimeStep()) / static_cast<double>(s.midSends - 1);
    const double second = static_cast<double>((now - s.mid).GetTimeStep()) /
                          static_cast<double>(s.sends - s.midSends);
    if (std::abs(first - second) > first * MEAN_TOLERANCE + GAP_TOLERANCE_STEPS)
    {
        NS_LOG_LOGIC("QP " << m_qpn << ": mean gap " << first << " then " << second
                           << " steps: the window starts again");
        return false;
    }
    return true;
}

bool
RdmaQueuePair::WarmPaceHolds(Time now)
{
    SkipState& s = *m_skip;
    const double mean =
        static_cast<double>((now - s.first).GetPicoSeconds()) / static_cast<double>(s.sends - 1);
    const Time tolerance = RttTolerance();
    const bool rttHolds =
        s.minRtt >= s.warmMinRtt - tolerance && s.maxRtt <= s.warmMaxRtt + tolerance;
    if (rttHolds && mean < s.warmPeriodPs * (1 - WARM_PACE_TOLERANCE))
    {
        // Faster than in its skip, its path as it was: a queue pair on its port is between
        // messages. Full windows until the load on its ports changes again.
        NS_LOG_LOGIC("QP " << m_qpn << ": a packet every " << mean << " ps, faster than skip "
                           << s.warmSkip << "'s " << s.warmPeriodPs
                           << " ps: full windows until a queue pair starts on its ports");
        s.warmSuspended = true;
        return false;
    }
    if (!rttHolds || std::abs(mean - s.warmPeriodPs) > s.warmPeriodPs * WARM_PACE_TOLERANCE)
    {
        NS_LOG_LOGIC("QP " << m_qpn << ": a packet every " << mean << " ps, RTT "
                           << s.minRtt.As(Time::NS) << " to " << s.maxRtt.As(Time::NS)
                           << ", where skip " << s.warmSkip << " had one every " << s.warmPeriodPs
                           << " ps, RTT " << s.warmMinRtt.As(Time::NS) << " to "
                           << s.warmMaxRtt.As(Time::NS) << ": a full window");
        s.warmSkip = 0;
        s.warmMembers = 0;
        return false;
    }
    return true;
}

Time
RdmaQueuePair::RttTolerance() const
{
    // The ACK that carries a sample waits for up to AckInterval packets.
    const SkipState& s = *m_skip;
    const int64_t gap = s.sends > 1 ? s.maxGap : 0;
    return TimeStep(static_cast<int64_t>(m_config.ackInterval) * gap + GAP_TOLERANCE_STEPS);
}

void
RdmaQueuePair::TrackRtt(Time rtt)
{
    SkipState& s = *m_skip;
    if (s.rttSamples > 0)
    {
        const Time tolerance = RttTolerance();
        const Time lo = std::min(s.minRtt, rtt);
        const Time hi = std::max(s.maxRtt, rtt);
        if (hi - lo <= tolerance)
        {
            s.minRtt = lo;
            s.maxRtt = hi;
            ++s.rttSamples;
            return;
        }
        // The queues on the path changed: the window starts again, this sample first.
        NS_LOG_LOGIC("QP " << m_qpn << ": RTT " << rtt.As(Time::NS) << " outside "
                           << s.minRtt.As(Time::NS) << " to " << s.maxRtt.As(Time::NS));
        const uint64_t sends = s.sends;
        RestartWindow();
        if (sends > 0)
        {
            s.first = m_lastSendTime;
            s.sends = 1;
            s.minGap = std::numeric_limits<int64_t>::max();
            s.maxGap = 0;
        }
    }
    s.minRtt = rtt;
    s.maxRtt = rtt;
    s.rttSamples = 1;
}

bool
RdmaQueuePair::IsSteady(Time now) const
{
    NS_LOG_FUNCTION(this);
    if (!m_skip || !m_skip->steady || m_skip->skipping || !m_peerQp || !m_peerQp->m_skip)
    {
        return false;
    }
    return m_sndNxt < m_psnAssigned && m_sndNxt == m_sndMax && m_skip->from == m_skip->to &&
           m_peerQp->m_skip->jumpPackets == 0 && m_cc->IsRateSteady() &&
           (now - m_lastSendTime).GetTimeStep() <= m_skip->maxGap + GAP_TOLERANCE_STEPS;
}

bool
RdmaQueuePair::PlanSkip(uint32_t endPackets, RoceSkippedFrames& plan) const
{
    NS_LOG_FUNCTION(this << endPackets);
    if (!m_skip || m_skip->sends < 2)
    {
        return false;
    }
    const std::size_t index = CurrentMessage();
    if (index == m_messages.size() || m_messages[index].firstPsn > m_sndNxt)
    {
        return false;
    }
    const Message& msg = m_messages[index];
    // The skip ends inside the current WRITE (at most MAX_WRITE_BYTES) of the message:
    // its last endPackets packets are sent for real, and with them the opcode that ends it.
    const uint64_t opPackets = MAX_WRITE_BYTES / m_config.payloadMtu;
    const uint64_t offset = m_sndNxt - msg.firstPsn;
    const uint64_t opEnd =
        std::min(msg.endPsn, msg.firstPsn + (offset / opPackets + 1) * opPackets);
    if (opEnd <= m_sndNxt + endPackets)
    {
        return false;
    }
    const SkipState& s = *m_skip;
    const double periodPs = static_cast<double>((m_lastSendTime - s.first).GetPicoSeconds()) /
                            static_cast<double>(s.sends - 1);
    plan.last = m_lastSendTime;
    plan.periodPs = periodPs;
    plan.frameBytes = s.frameBytes;
    plan.maxFrames = opEnd - endPackets - m_sndNxt;
    return true;
}

void
RdmaQueuePair::BeginSkip()
{
    NS_LOG_FUNCTION(this);
    m_skip->skipping = true;
}

uint64_t
RdmaQueuePair::EndSkip(const RoceSkippedFrames& plan,
                       uint64_t packets,
                       Time resumeAt,
                       Time pathDelay,
                       uint64_t ackEvery,
                       bool tail)
{
    NS_LOG_FUNCTION(this << packets << resumeAt << tail);
    SkipState& s = *m_skip;
    s.skipping = false;
    RestartWindow();
    s.resumeAt = resumeAt;
    uint64_t acks = 0;
    if (packets > 0)
    {
        const uint64_t first = m_sndNxt;
        s.from = first;
        s.to = first + packets;
        m_sndNxt = s.to;
        m_sndMax = s.to;
        m_packetsSent += packets;
        m_lastSendTime = plan.StartOf(packets);
        // An RTT probe still out would time the skip, not the path.
        m_rttProbeActive = false;
        m_skip->probes.clear();
        m_skip->probesHead = 0;
        if (m_sndUna >= first)
        {
            m_sndUna = s.to; // nothing sent before the skip is outstanding
            s.from = s.to;
        }
        NS_LOG_INFO("QP " << m_qpn << ": skipped PSNs " << first << " to " << s.to - 1
                          << ", next packet at " << s.resumeAt.As(Time::US));
        acks = m_peerQp->ExpectSkippedPackets(first,
                                              packets,
                                              packets * static_cast<uint64_t>(m_config.payloadMtu),
                                              plan,
                                              pathDelay,
                                              ackEvery);
    }
    // The message the skip ended in: its last packets go out as the NIC's other queue pairs
    // end theirs, at a changing pace.
    const std::size_t current = tail ? CurrentMessage() : m_messages.size();
    s.tailEnd = current < m_messages.size() ? m_messages[current].endPsn : 0;
    m_services->NotifyHasData(m_qpn);
    return acks;
}

uint64_t
RdmaQueuePair::ExpectSkippedPackets(uint64_t firstPsn,
                                    uint64_t packets,
                                    uint64_t bytes,
                                    const RoceSkippedFrames& plan,
                                    Time pathDelay,
                                    uint64_t ackEvery)
{
    NS_LOG_FUNCTION(this << firstPsn << packets << bytes);
    m_skip->jumpFrom = firstPsn;
    m_skip->jumpPackets = packets;
    m_skip->jumpBytes = bytes;
    if (m_rcvExpected != firstPsn)
    {
        // Packets sent before the skip are still on their way: the skipped ones count when
        // they are in, and their ACKs as the ports counted them.
        return packets / ackEvery;
    }
    // The receiver would have acknowledged every ackEvery-th packet counted on from the ones
    // it has not acknowledged yet. The ACKs of packets that arrived by now are counted by the
    // ports; those of the packets still on their way take the receiver's port as they would
    // (a few per skip: one base delay's worth), so the packets sent after the skip meet them.
    const uint64_t unacked = m_unackedPackets;
    ApplySkippedPackets();
    const Time now = Simulator::Now();
    uint64_t acks = 0;
    for (uint64_t j = ackEvery - unacked % ackEvery; j <= packets; j += ackEvery)
    {
        const Time arrival = plan.StartOf(j) + pathDelay;
        if (arrival <= now)
        {
            ++acks;
        }
        else
        {
            Simulator::Schedule(arrival - now,
                                &RdmaQueuePair::SendSkippedAck,
                                Ptr<RdmaQueuePair>(this),
                                firstPsn + j - 1);
        }
    }
    m_unackedPackets = static_cast<uint32_t>((unacked + packets) % ackEvery);
    return acks;
}

void
RdmaQueuePair::SendSkippedAck(uint64_t psn)
{
    NS_LOG_FUNCTION(this << psn);
    const uint32_t unacked = m_unackedPackets; // the packets after it are counted already
    SendAck(psn, AethHeader::SYNDROME_ACK);
    m_unackedPackets = unacked;
}

void
RdmaQueuePair::ApplySkippedPackets()
{
    SkipState& s = *m_skip;
    NS_LOG_LOGIC("QP " << m_qpn << ": the peer's skipped PSNs " << s.jumpFrom << " to "
                       << s.jumpFrom + s.jumpPackets - 1 << " count as received");
    m_rcvExpected += s.jumpPackets;
    m_bytesReceived += s.jumpBytes;
    m_rcvMessageBytes += s.jumpBytes;
    m_unackedPackets = 0; // their ACKs are skipped with them
    m_ceUnacked = false;
    m_nakOutstanding = false;
    s.jumpPackets = 0;
    s.jumpBytes = 0;
}

uint64_t
RdmaQueuePair::OutstandingPackets() const
{
    uint64_t packets = m_sndNxt - m_sndUna;
    if (m_skip && m_skip->from != m_skip->to && m_sndNxt >= m_skip->to)
    {
        packets -= m_skip->to - m_skip->from; // skipped, acknowledged with what precedes
    }
    return packets;
}

} // namespace ns3
