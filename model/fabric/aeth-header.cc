// SPDX-License-Identifier: GPL-2.0-only

#include "aeth-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(AethHeader);

AethHeader::AethHeader()
    : m_syndrome(SYNDROME_ACK),
      m_msn(0)
{
}

TypeId
AethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AethHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<AethHeader>();
    return tid;
}

TypeId
AethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
AethHeader::GetSerializedSize() const
{
    return SIZE;
}

void
AethHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteHtonU32((static_cast<uint32_t>(m_syndrome) << 24) | (m_msn & 0x00FFFFFF));
}

uint32_t
AethHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    uint32_t word = i.ReadNtohU32();
    m_syndrome = static_cast<uint8_t>(word >> 24);
    m_msn = word & 0x00FFFFFF;
    return SIZE;
}

void
AethHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "AETH syndrome=0x" << std::hex << static_cast<uint32_t>(m_syndrome) << std::dec
       << (IsAck() ? " (ACK)" : (IsNak() ? " (NAK)" : "")) << " msn=" << m_msn;
    os.flags(flags);
}

void
AethHeader::SetSyndrome(uint8_t syndrome)
{
    m_syndrome = syndrome;
}

uint8_t
AethHeader::GetSyndrome() const
{
    return m_syndrome;
}

void
AethHeader::SetMsn(uint32_t msn)
{
    m_msn = msn & 0x00FFFFFF;
}

uint32_t
AethHeader::GetMsn() const
{
    return m_msn;
}

bool
AethHeader::IsAck() const
{
    return (m_syndrome & 0xE0) == 0x00;
}

bool
AethHeader::IsNak() const
{
    return (m_syndrome & 0xE0) == 0x60;
}

} // namespace ns3
