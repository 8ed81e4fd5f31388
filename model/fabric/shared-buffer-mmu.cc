// SPDX-License-Identifier: GPL-2.0-only
#include "shared-buffer-mmu.h"

#include "roce-frame-info.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SharedBufferMmu");
NS_OBJECT_ENSURE_REGISTERED(SharedBufferMmu);

TypeId
SharedBufferMmu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SharedBufferMmu")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<SharedBufferMmu>()
            .AddAttribute("BufferSize",
                          "Total packet buffer of the switch in bytes.",
                          UintegerValue(32 * 1024 * 1024),
                          MakeUintegerAccessor(&SharedBufferMmu::m_bufferBytes),
                          MakeUintegerChecker<uint64_t>(1024, uint64_t(1) << 40))
            .AddAttribute("ReservePerQueue",
                          "Guaranteed bytes per (ingress port, priority).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&SharedBufferMmu::m_reserveBytes),
                          MakeUintegerChecker<uint32_t>(0, 1u << 30))
            .AddAttribute("Alpha",
                          "Dynamic threshold factor: a queue may hold Alpha × free shared "
                          "buffer beyond its reserve.",
                          DoubleValue(1.0 / 8),
                          MakeDoubleAccessor(&SharedBufferMmu::m_alpha),
                          MakeDoubleChecker<double>(1.0 / 1024, 1024))
            .AddAttribute("XonHysteresis",
                          "XON is sent once the queue is this many bytes below the XOFF point.",
                          UintegerValue(3072),
                          MakeUintegerAccessor(&SharedBufferMmu::m_xonHysteresis),
                          MakeUintegerChecker<uint32_t>(0, 1u << 30))
            .AddAttribute("HeadroomPerQueue",
                          "PFC headroom per lossless (port, priority) in bytes; 0 = computed "
                          "from the link (2 × delay × rate + two frames + a PFC frame).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SharedBufferMmu::m_headroomBytes),
                          MakeUintegerChecker<uint32_t>(0, 1u << 30))
            .AddAttribute("LosslessPriorities",
                          "Bitmask of lossless priorities (bit n = priority n); 0 disables PFC.",
                          UintegerValue(1u << 3),
                          MakeUintegerAccessor(&SharedBufferMmu::m_losslessMask),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("EcnKmin",
                          "RED Kmin in bytes; 0 = 100 KB × link rate / 25 Gb/s.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SharedBufferMmu::m_kmin),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnKmax",
                          "RED Kmax in bytes; 0 = 400 KB × link rate / 25 Gb/s.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SharedBufferMmu::m_kmax),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnPmax",
                          "Marking probability at Kmax.",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&SharedBufferMmu::m_pmax),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("EcnEnabled",
                          "Mark ECN-capable frames at egress.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SharedBufferMmu::m_ecnEnabled),
                          MakeBooleanChecker());
    return tid;
}

SharedBufferMmu::SharedBufferMmu()
    : m_uniform(CreateObject<UniformRandomVariable>())
{
}

uint32_t
SharedBufferMmu::ComputeHeadroom(uint64_t rateBps, Time delay, uint32_t maxFrameBytes)
{
    // After the XOFF decision: the frame being sent on our side finishes, the PFC frame is
    // serialized and propagates, the upstream port finishes its current frame, and what
    // it had put on the cable keeps arriving: two cable delays of bytes at line rate,
    // two frames and a PFC frame.
    double bdpBytes = 2.0 * delay.GetSeconds() * static_cast<double>(rateBps) / 8.0;
    uint32_t pfcWire = roce::WireBytes(roce::MIN_FRAME_BYTES_WITHOUT_FCS);
    return static_cast<uint32_t>(std::ceil(bdpBytes)) + 2 * roce::WireBytes(maxFrameBytes) +
           pfcWire;
}

bool
SharedBufferMmu::CheckConfiguration(const std::vector<uint64_t>& linkRatesBps,
                                    const std::vector<Time>& linkDelays,
                                    uint32_t maxFrameBytes,
                                    std::string* why) const
{
    std::vector<PortState> ports;
    uint64_t committed = 0;
    if (!Derive(linkRatesBps, linkDelays, maxFrameBytes, ports, committed, why))
    {
        return false;
    }
    if (committed >= m_bufferBytes)
    {
        std::ostringstream os;
        os << "SharedBufferMmu: reserves and PFC headroom (" << committed << " B over "
           << ports.size() << " ports) leave no shared buffer in BufferSize = " << m_bufferBytes
           << " B; raise BufferSize or lower ReservePerQueue/HeadroomPerQueue";
        *why = os.str();
        return false;
    }
    return true;
}

bool
SharedBufferMmu::Derive(const std::vector<uint64_t>& linkRatesBps,
                        const std::vector<Time>& linkDelays,
                        uint32_t maxFrameBytes,
                        std::vector<PortState>& ports,
                        uint64_t& committed,
                        std::string* why) const
{
    std::ostringstream os;
    if (linkRatesBps.size() != linkDelays.size())
    {
        *why = "SharedBufferMmu::Configure: one rate and one delay per port";
        return false;
    }
    if (m_kmin != 0 && m_kmax != 0 && m_kmin > m_kmax)
    {
        os << "SharedBufferMmu: EcnKmin (" << m_kmin << " B) must not exceed EcnKmax (" << m_kmax
           << " B)";
        *why = os.str();
        return false;
    }
    ports.assign(linkRatesBps.size(), PortState());
    committed = 0;
    uint32_t nLossless = 0;
    for (uint8_t p = 0; p < N_PRIORITIES; ++p)
    {
        nLossless += IsLossless(p) ? 1 : 0;
    }
    for (std::size_t i = 0; i < ports.size(); ++i)
    {
        PortState& port = ports[i];
        if (linkRatesBps[i] == 0)
        {
            os << "SharedBufferMmu: port " << i << " has a zero link rate";
            *why = os.str();
            return false;
        }
        port.headroom = m_headroomBytes != 0
                            ? m_headroomBytes
                            : ComputeHeadroom(linkRatesBps[i], linkDelays[i], maxFrameBytes);
        double scale = static_cast<double>(linkRatesBps[i]) / 25e9;
        port.kmin = m_kmin != 0 ? m_kmin : static_cast<uint32_t>(100e3 * scale);
        port.kmax = m_kmax != 0 ? m_kmax : static_cast<uint32_t>(400e3 * scale);
        if (port.kmin > port.kmax)
        {
            os << "SharedBufferMmu: on port " << i << " Kmin (" << port.kmin << " B) exceeds Kmax ("
               << port.kmax << " B)";
            *why = os.str();
            return false;
        }
        committed += static_cast<uint64_t>(m_reserveBytes) * N_PRIORITIES +
                     static_cast<uint64_t>(port.headroom) * nLossless;
    }
    return true;
}

void
SharedBufferMmu::Configure(const std::vector<uint64_t>& linkRatesBps,
                           const std::vector<Time>& linkDelays,
                           uint32_t maxFrameBytes)
{
    std::string why;
    NS_ABORT_MSG_IF(!CheckConfiguration(linkRatesBps, linkDelays, maxFrameBytes, &why), why);
    uint64_t committed = 0;
    Derive(linkRatesBps, linkDelays, maxFrameBytes, m_ports, committed, &why);
    m_sharedSize = m_bufferBytes - committed;
    m_sharedUsed = 0;
}

bool
SharedBufferMmu::IsLossless(uint8_t priority) const
{
    return (m_losslessMask >> priority) & 1;
}

double
SharedBufferMmu::GetDynamicThreshold() const
{
    return m_alpha * static_cast<double>(m_sharedSize - m_sharedUsed);
}

SharedBufferMmu::Admission
SharedBufferMmu::Admit(uint32_t port, uint8_t priority, uint32_t bytes)
{
    QueueState& q = m_ports[port].queues[priority];
    if (q.reserveUsed + bytes <= m_reserveBytes)
    {
        q.reserveUsed += bytes;
        return ADMIT;
    }
    bool sharedFits = m_sharedUsed + bytes <= m_sharedSize;
    // A paused queue keeps filling its headroom: what arrives now was sent before the
    // upstream saw the pause.
    if (sharedFits && q.headroomUsed == 0 && q.sharedUsed + bytes <= GetDynamicThreshold())
    {
        q.sharedUsed += bytes;
        m_sharedUsed += bytes;
        return ADMIT;
    }
    if (IsLossless(priority))
    {
        if (q.headroomUsed + bytes <= m_ports[port].headroom)
        {
            q.headroomUsed += bytes;
            NS_LOG_LOGIC("port " << port << " priority " << int(priority) << ": " << bytes
                                 << " B admitted into headroom (" << q.headroomUsed << " of "
                                 << m_ports[port].headroom << " B)");
            return ADMIT;
        }
        NS_LOG_DEBUG("port " << port << " priority " << int(priority) << ": headroom full ("
                             << q.headroomUsed << " + " << bytes << " > " << m_ports[port].headroom
                             << " B)");
        return DROP_HEADROOM_FULL;
    }
    NS_LOG_DEBUG("port " << port << " priority " << int(priority) << ": lossy drop, queue "
                         << q.sharedUsed << " B, threshold " << GetDynamicThreshold()
                         << " B, shared pool " << m_sharedUsed << " of " << m_sharedSize << " B");
    return sharedFits ? DROP_THRESHOLD : DROP_BUFFER_FULL;
}

void
SharedBufferMmu::Release(uint32_t port, uint8_t priority, uint32_t bytes)
{
    QueueState& q = m_ports[port].queues[priority];
    uint32_t fromHeadroom = std::min(bytes, q.headroomUsed);
    q.headroomUsed -= fromHeadroom;
    bytes -= fromHeadroom;
    uint32_t fromShared = std::min(bytes, q.sharedUsed);
    q.sharedUsed -= fromShared;
    m_sharedUsed -= fromShared;
    bytes -= fromShared;
    q.reserveUsed -= std::min(bytes, q.reserveUsed);
}

bool
SharedBufferMmu::ShouldSendXoff(uint32_t port, uint8_t priority) const
{
    const QueueState& q = m_ports[port].queues[priority];
    if (q.paused || !IsLossless(priority))
    {
        return false;
    }
    // A queue that holds nothing beyond its reserve is never the cause, even when the
    // shared pool is full and the threshold has fallen to zero.
    return q.headroomUsed > 0 || (q.sharedUsed > 0 && q.sharedUsed >= GetDynamicThreshold());
}

bool
SharedBufferMmu::ShouldSendXon(uint32_t port, uint8_t priority) const
{
    const QueueState& q = m_ports[port].queues[priority];
    if (!q.paused || q.headroomUsed > 0)
    {
        return false;
    }
    return q.sharedUsed == 0 ||
           static_cast<double>(q.sharedUsed) + m_xonHysteresis <= GetDynamicThreshold();
}

void
SharedBufferMmu::SetPaused(uint32_t port, uint8_t priority, bool paused)
{
    m_ports[port].queues[priority].paused = paused;
}

bool
SharedBufferMmu::IsPaused(uint32_t port, uint8_t priority) const
{
    return m_ports[port].queues[priority].paused;
}

double
SharedBufferMmu::GetMarkingProbability(uint32_t port, uint32_t egressQueueBytes) const
{
    const PortState& p = m_ports[port];
    if (egressQueueBytes <= p.kmin)
    {
        return 0.0;
    }
    if (egressQueueBytes > p.kmax)
    {
        return 1.0;
    }
    if (p.kmax == p.kmin)
    {
        return m_pmax;
    }
    return m_pmax * static_cast<double>(egressQueueBytes - p.kmin) /
           static_cast<double>(p.kmax - p.kmin);
}

bool
SharedBufferMmu::ShouldMarkEcn(uint32_t port, uint32_t egressQueueBytes)
{
    if (!m_ecnEnabled || egressQueueBytes <= m_ports[port].kmin)
    {
        return false;
    }
    double prob = GetMarkingProbability(port, egressQueueBytes);
    bool mark = prob >= 1.0 || m_uniform->GetValue() < prob;
    NS_LOG_LOGIC("port " << port << ": egress queue " << egressQueueBytes << " B (Kmin "
                         << m_ports[port].kmin << " B), marking probability " << prob
                         << (mark ? ": mark" : ": no mark"));
    return mark;
}

uint32_t
SharedBufferMmu::GetHeadroom(uint32_t port) const
{
    return m_ports[port].headroom;
}

uint64_t
SharedBufferMmu::GetSharedBufferSize() const
{
    return m_sharedSize;
}

uint64_t
SharedBufferMmu::GetSharedBufferUsed() const
{
    return m_sharedUsed;
}

uint32_t
SharedBufferMmu::GetIngressBytes(uint32_t port, uint8_t priority) const
{
    const QueueState& q = m_ports[port].queues[priority];
    return q.reserveUsed + q.sharedUsed + q.headroomUsed;
}

uint32_t
SharedBufferMmu::GetKmin(uint32_t port) const
{
    return m_ports[port].kmin;
}

uint32_t
SharedBufferMmu::GetKmax(uint32_t port) const
{
    return m_ports[port].kmax;
}

double
SharedBufferMmu::GetEcnPmax() const
{
    return m_pmax;
}

bool
SharedBufferMmu::IsEcnEnabled() const
{
    return m_ecnEnabled;
}

double
SharedBufferMmu::GetAlpha() const
{
    return m_alpha;
}

int64_t
SharedBufferMmu::AssignStreams(int64_t stream)
{
    m_uniform->SetStream(stream);
    return 1;
}

} // namespace ns3
