// SPDX-License-Identifier: GPL-2.0-only

#include "reth-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RethHeader);

RethHeader::RethHeader()
    : m_virtualAddress(0),
      m_rkey(0),
      m_dmaLength(0)
{
}

TypeId
RethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RethHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RethHeader>();
    return tid;
}

TypeId
RethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RethHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RethHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteHtonU64(m_virtualAddress);
    i.WriteHtonU32(m_rkey);
    i.WriteHtonU32(m_dmaLength);
}

uint32_t
RethHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_virtualAddress = i.ReadNtohU64();
    m_rkey = i.ReadNtohU32();
    m_dmaLength = i.ReadNtohU32();
    return SIZE;
}

void
RethHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "RETH va=0x" << std::hex << m_virtualAddress << " rkey=0x" << m_rkey << std::dec
       << " dmalen=" << m_dmaLength;
    os.flags(flags);
}

void
RethHeader::SetVirtualAddress(uint64_t va)
{
    m_virtualAddress = va;
}

uint64_t
RethHeader::GetVirtualAddress() const
{
    return m_virtualAddress;
}

void
RethHeader::SetRKey(uint32_t rkey)
{
    m_rkey = rkey;
}

uint32_t
RethHeader::GetRKey() const
{
    return m_rkey;
}

void
RethHeader::SetDmaLength(uint32_t length)
{
    m_dmaLength = length;
}

uint32_t
RethHeader::GetDmaLength() const
{
    return m_dmaLength;
}

} // namespace ns3
