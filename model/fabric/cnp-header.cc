// SPDX-License-Identifier: GPL-2.0-only

#include "cnp-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CnpHeader);

CnpHeader::CnpHeader()
{
}

TypeId
CnpHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CnpHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<CnpHeader>();
    return tid;
}

TypeId
CnpHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
CnpHeader::GetSerializedSize() const
{
    return SIZE;
}

void
CnpHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(0, SIZE);
}

uint32_t
CnpHeader::Deserialize(Buffer::Iterator start)
{
    start.Next(SIZE);
    return SIZE;
}

void
CnpHeader::Print(std::ostream& os) const
{
    os << "CNP (16 reserved bytes)";
}

} // namespace ns3
