// SPDX-License-Identifier: GPL-2.0-only

#include "immediate-data-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ImmediateDataHeader);

ImmediateDataHeader::ImmediateDataHeader()
    : m_immediate(0)
{
}

TypeId
ImmediateDataHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ImmediateDataHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<ImmediateDataHeader>();
    return tid;
}

TypeId
ImmediateDataHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
ImmediateDataHeader::GetSerializedSize() const
{
    return SIZE;
}

void
ImmediateDataHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU32(m_immediate);
}

uint32_t
ImmediateDataHeader::Deserialize(Buffer::Iterator start)
{
    m_immediate = start.ReadNtohU32();
    return SIZE;
}

void
ImmediateDataHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "ImmDt 0x" << std::hex << m_immediate;
    os.flags(flags);
}

void
ImmediateDataHeader::SetImmediate(uint32_t imm)
{
    m_immediate = imm;
}

uint32_t
ImmediateDataHeader::GetImmediate() const
{
    return m_immediate;
}

} // namespace ns3
