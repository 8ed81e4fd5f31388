// SPDX-License-Identifier: GPL-2.0-only
#include "ina-header.h"

namespace ns3
{

const char*
InaProtocolName(InaProtocol protocol)
{
    switch (protocol)
    {
    case InaProtocol::SWITCHML:
        return "switchml";
    case InaProtocol::STREAMING:
        return "streaming";
    }
    return "unknown";
}

NS_OBJECT_ENSURE_REGISTERED(InaHeader);

InaHeader::InaHeader()
{
}

TypeId
InaHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::InaHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<InaHeader>();
    return tid;
}

TypeId
InaHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
InaHeader::GetSerializedSize() const
{
    return ina::HEADER_BYTES;
}

void
InaHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(static_cast<uint8_t>(ina::VERSION << 4 | (type & 0x0F)));
    start.WriteU8(flags);
    start.WriteHtonU16(job);
    start.WriteHtonU32(sequence);
    start.WriteHtonU32((copy ? 0x80000000u : 0u) | (slot & 0x7FFFFFFFu));
    start.WriteHtonU16(sender);
    start.WriteHtonU16(count);
    start.WriteHtonU64(bitmap);
    start.WriteHtonU16(length);
    start.WriteU8(element);
    start.WriteU8(destination);
}

uint32_t
InaHeader::Deserialize(Buffer::Iterator start)
{
    const uint8_t first = start.ReadU8();
    type = static_cast<Type>(first & 0x0F);
    flags = start.ReadU8();
    job = start.ReadNtohU16();
    sequence = start.ReadNtohU32();
    const uint32_t slotWord = start.ReadNtohU32();
    copy = (slotWord & 0x80000000u) != 0;
    slot = slotWord & 0x7FFFFFFFu;
    sender = start.ReadNtohU16();
    count = start.ReadNtohU16();
    bitmap = start.ReadNtohU64();
    length = start.ReadNtohU16();
    element = static_cast<ElementType>(start.ReadU8());
    destination = start.ReadU8();
    return ina::HEADER_BYTES;
}

void
InaHeader::Print(std::ostream& os) const
{
    os << "INA "
       << (type == DATA     ? "DATA"
           : type == RESULT ? "RESULT"
                            : "?")
       << " job=" << job << " seq=" << sequence << " slot=" << slot << (copy ? "'" : "")
       << " sender=" << sender << " count=" << count << " bitmap=0x" << std::hex << bitmap
       << std::dec << " len=" << length;
    if (flags & RETRANSMISSION)
    {
        os << " retx";
    }
    if (flags & ECN_ECHO)
    {
        os << " ece";
    }
    if (flags & FALLBACK)
    {
        os << " fallback";
    }
    if (flags & NO_VALUES)
    {
        os << " no-values";
    }
    if (flags & DIRECTED)
    {
        os << " to=" << +destination;
    }
}

uint32_t
InaHeader::GetValueBytes() const
{
    return (flags & NO_VALUES) ? 0 : length;
}

bool
InaNeedsValues(const InaHeader& h, uint32_t rank, uint32_t workers)
{
    if (!(h.flags & InaHeader::DIRECTED) || h.destination == rank)
    {
        return true;
    }
    return workers > 0 && h.sequence % workers == rank;
}

void
InaHeader::SetValues(bool values)
{
    flags = static_cast<uint8_t>(values ? flags & ~NO_VALUES : flags | NO_VALUES);
}

uint32_t
InaHeader::GetElementBytes(ElementType element)
{
    switch (element)
    {
    case INT32:
    case FLOAT32:
        return 4;
    case FLOAT16:
        return 2;
    }
    return 0;
}

} // namespace ns3
