// SPDX-License-Identifier: GPL-2.0-only

#include "pfc-header.h"

#include "ns3/abort.h"

#include <iomanip>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PfcHeader);

PfcHeader::PfcHeader()
    : m_opcode(OPCODE),
      m_enableVector(0)
{
    m_pauseTime.fill(0);
}

TypeId
PfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PfcHeader>();
    return tid;
}

TypeId
PfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
PfcHeader::GetSerializedSize() const
{
    return SIZE;
}

void
PfcHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteHtonU16(OPCODE);
    i.WriteHtonU16(m_enableVector);
    for (uint16_t t : m_pauseTime)
    {
        i.WriteHtonU16(t);
    }
    i.WriteU8(0, SIZE - 4 - 2 * NUM_CLASSES);
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_opcode = i.ReadNtohU16();
    m_enableVector = i.ReadNtohU16() & 0x00FF;
    for (auto& t : m_pauseTime)
    {
        t = i.ReadNtohU16();
    }
    i.Next(SIZE - 4 - 2 * NUM_CLASSES);
    return SIZE;
}

void
PfcHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "PFC opcode=0x" << std::hex << std::setw(4) << std::setfill('0') << m_opcode
       << " enable=0x" << std::setw(2) << m_enableVector << std::dec << std::setfill(' ');
    if (!IsValid())
    {
        os << " (invalid opcode)";
    }
    for (uint8_t p = 0; p < NUM_CLASSES; ++p)
    {
        if (IsEnabled(p))
        {
            os << " p" << static_cast<uint32_t>(p) << "=" << m_pauseTime[p];
        }
    }
    os.flags(flags);
}

void
PfcHeader::SetPauseTime(uint8_t priority, uint16_t quanta)
{
    NS_ABORT_MSG_IF(priority >= NUM_CLASSES, "PFC priority out of range: " << +priority);
    m_pauseTime[priority] = quanta;
    m_enableVector |= static_cast<uint16_t>(1u << priority);
}

void
PfcHeader::ClearClass(uint8_t priority)
{
    NS_ABORT_MSG_IF(priority >= NUM_CLASSES, "PFC priority out of range: " << +priority);
    m_pauseTime[priority] = 0;
    m_enableVector &= static_cast<uint16_t>(~(1u << priority));
}

bool
PfcHeader::IsEnabled(uint8_t priority) const
{
    if (priority >= NUM_CLASSES)
    {
        return false;
    }
    return (m_enableVector >> priority) & 0x1;
}

uint16_t
PfcHeader::GetPauseTime(uint8_t priority) const
{
    if (priority >= NUM_CLASSES)
    {
        return 0;
    }
    return m_pauseTime[priority];
}

uint16_t
PfcHeader::GetEnableVector() const
{
    return m_enableVector;
}

bool
PfcHeader::IsValid() const
{
    return m_opcode == OPCODE;
}

uint16_t
PfcHeader::GetOpcode() const
{
    return m_opcode;
}

Mac48Address
PfcHeader::GetMulticastAddress()
{
    return Mac48Address("01:80:c2:00:00:01");
}

} // namespace ns3
