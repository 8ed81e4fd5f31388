// SPDX-License-Identifier: GPL-2.0-only
#include "protobuf-wire.h"

#include <cstring>
#include <utility>

namespace ns3
{

ProtobufValue
ProtobufValue::FromSigned(int64_t v)
{
    ProtobufValue value;
    value.kind = Kind::INTEGER;
    value.negative = v < 0;
    value.magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    return value;
}

ProtobufValue
ProtobufValue::FromUnsigned(uint64_t v)
{
    ProtobufValue value;
    value.kind = Kind::INTEGER;
    value.magnitude = v;
    return value;
}

ProtobufValue
ProtobufValue::FromReal(double v)
{
    ProtobufValue value;
    value.kind = Kind::REAL;
    value.real = v;
    return value;
}

ProtobufValue
ProtobufValue::FromText(std::string v)
{
    ProtobufValue value;
    value.kind = Kind::TEXT;
    value.text = std::move(v);
    return value;
}

ProtobufWireReader::ProtobufWireReader(const uint8_t* data, size_t size, size_t base)
    : m_data(data),
      m_size(size),
      m_base(base)
{
}

bool
ProtobufWireReader::AtEnd() const
{
    return m_pos >= m_size;
}

size_t
ProtobufWireReader::Offset() const
{
    return m_base + m_pos;
}

const std::string&
ProtobufWireReader::Error() const
{
    return m_error;
}

bool
ProtobufWireReader::Fail(const std::string& reason)
{
    m_error = "at byte offset " + std::to_string(Offset()) + ": " + reason;
    return false;
}

bool
ProtobufWireReader::Propagate(const ProtobufWireReader& inner)
{
    m_error = inner.m_error;
    return false;
}

bool
ProtobufWireReader::ReadVarint(uint64_t& v)
{
    v = 0;
    for (unsigned i = 0; i < 10; ++i)
    {
        if (m_pos >= m_size)
        {
            return Fail("varint cut off by the end of the data (truncated?)");
        }
        uint8_t b = m_data[m_pos++];
        v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
        if ((b & 0x80) == 0)
        {
            // The tenth byte holds bit 63 only.
            return i < 9 || b <= 1 || Fail("varint overflows 64 bits");
        }
    }
    return Fail("varint longer than 10 bytes");
}

bool
ProtobufWireReader::ReadFixed(size_t width, uint64_t& v)
{
    if (m_size - m_pos < width)
    {
        return Fail("fixed-width value cut off by the end of the data (truncated?)");
    }
    v = 0;
    for (size_t i = 0; i < width; ++i)
    {
        v |= static_cast<uint64_t>(m_data[m_pos + i]) << (8 * i);
    }
    m_pos += width;
    return true;
}

bool
ProtobufWireReader::ReadTag(uint32_t& field, uint32_t& wireType)
{
    uint64_t tag;
    if (!ReadVarint(tag))
    {
        return false;
    }
    field = static_cast<uint32_t>(tag >> 3);
    wireType = static_cast<uint32_t>(tag & 7);
    if ((tag >> 3) == 0 || (tag >> 3) > 536870911) // 2^29 - 1, the largest field number
    {
        return Fail("invalid field number " + std::to_string(tag >> 3));
    }
    if (wireType != VARINT && wireType != FIXED64 && wireType != LENGTH_DELIMITED &&
        wireType != FIXED32)
    {
        return Fail("unsupported wire type " + std::to_string(wireType) + " (field " +
                    std::to_string(field) + ")");
    }
    return true;
}

bool
ProtobufWireReader::ReadLengthDelimited(ProtobufWireReader& payload)
{
    uint64_t len;
    size_t prefix = m_pos;
    if (!ReadVarint(len))
    {
        return false;
    }
    if (len > m_size - m_pos)
    {
        std::string left = std::to_string(m_size - m_pos);
        m_pos = prefix; // report where the length starts
        return Fail("length " + std::to_string(len) + " runs past the end of the data (" + left +
                    " bytes left; truncated?)");
    }
    payload = ProtobufWireReader(m_data + m_pos, static_cast<size_t>(len), Offset());
    m_pos += static_cast<size_t>(len);
    return true;
}

bool
ProtobufWireReader::ReadString(std::string& s)
{
    ProtobufWireReader payload;
    if (!ReadLengthDelimited(payload))
    {
        return false;
    }
    s.assign(reinterpret_cast<const char*>(payload.m_data), payload.m_size);
    return true;
}

bool
ProtobufWireReader::SkipValue(uint32_t wireType)
{
    uint64_t ignored;
    ProtobufWireReader payload;
    return wireType == VARINT    ? ReadVarint(ignored)
           : wireType == FIXED64 ? ReadFixed(8, ignored)
           : wireType == FIXED32 ? ReadFixed(4, ignored)
                                 : ReadLengthDelimited(payload);
}

bool
ProtobufWireReader::ExpectWireType(uint32_t field,
                                   const char* name,
                                   uint32_t wireType,
                                   uint32_t expected)
{
    return wireType == expected ||
           Fail("field " + std::to_string(field) + " (" + name + ") has wire type " +
                std::to_string(wireType) + ", expected " + std::to_string(expected));
}

bool
ProtobufWireReader::ReadRepeatedVarint(uint32_t field,
                                       const char* name,
                                       uint32_t wireType,
                                       std::vector<uint64_t>& values)
{
    uint64_t v;
    if (wireType == VARINT)
    {
        if (!ReadVarint(v))
        {
            return false;
        }
        values.push_back(v);
        return true;
    }
    ProtobufWireReader packed;
    if (!ExpectWireType(field, name, wireType, LENGTH_DELIMITED) || !ReadLengthDelimited(packed))
    {
        return false;
    }
    while (!packed.AtEnd())
    {
        if (!packed.ReadVarint(v))
        {
            return Propagate(packed);
        }
        values.push_back(v);
    }
    return true;
}

bool
ProtobufWireReader::ReadScalar(uint32_t field,
                               const char* name,
                               uint32_t wireType,
                               ProtobufScalarType type,
                               ProtobufValue& value)
{
    uint64_t bits = 0;
    if (!ExpectWireType(field, name, wireType, ProtobufWireTypeOf(type)) ||
        !(wireType == VARINT ? ReadVarint(bits) : ReadFixed(wireType == FIXED64 ? 8 : 4, bits)))
    {
        return false;
    }
    value = DecodeProtobufScalar(type, bits);
    return true;
}

bool
ProtobufWireReader::ForEachField(const FieldHandler& onField)
{
    while (!AtEnd())
    {
        uint32_t field;
        uint32_t wireType;
        if (!ReadTag(field, wireType) || !onField(field, wireType))
        {
            return false;
        }
    }
    return true;
}

bool
ProtobufWireReader::SkipMessage()
{
    return ForEachField([this](uint32_t, uint32_t wireType) { return SkipValue(wireType); });
}

uint32_t
ProtobufWireTypeOf(ProtobufScalarType type)
{
    switch (type)
    {
    case ProtobufScalarType::DOUBLE:
    case ProtobufScalarType::FIXED64:
    case ProtobufScalarType::SFIXED64:
        return ProtobufWireReader::FIXED64;
    case ProtobufScalarType::FLOAT:
    case ProtobufScalarType::FIXED32:
    case ProtobufScalarType::SFIXED32:
        return ProtobufWireReader::FIXED32;
    default: // the integer kinds encoded as varints, and bool
        return ProtobufWireReader::VARINT;
    }
}

ProtobufValue
DecodeProtobufScalar(ProtobufScalarType type, uint64_t bits)
{
    auto zigzag = [bits]() { return (bits >> 1) ^ (0 - (bits & 1)); };
    auto low = static_cast<uint32_t>(bits);
    switch (type)
    {
    case ProtobufScalarType::DOUBLE: {
        double d;
        std::memcpy(&d, &bits, sizeof(d));
        return ProtobufValue::FromReal(d);
    }
    case ProtobufScalarType::FLOAT: {
        float f;
        std::memcpy(&f, &low, sizeof(f));
        return ProtobufValue::FromReal(f);
    }
    case ProtobufScalarType::INT32:
    case ProtobufScalarType::SFIXED32:
        return ProtobufValue::FromSigned(static_cast<int32_t>(low));
    case ProtobufScalarType::INT64:
    case ProtobufScalarType::SFIXED64:
        return ProtobufValue::FromSigned(static_cast<int64_t>(bits));
    case ProtobufScalarType::SINT32:
        return ProtobufValue::FromSigned(static_cast<int32_t>(static_cast<uint32_t>(zigzag())));
    case ProtobufScalarType::SINT64:
        return ProtobufValue::FromSigned(static_cast<int64_t>(zigzag()));
    case ProtobufScalarType::UINT32:
    case ProtobufScalarType::FIXED32:
        return ProtobufValue::FromUnsigned(low);
    case ProtobufScalarType::BOOL:
        return ProtobufValue::FromUnsigned(bits != 0);
    default: // UINT64, FIXED64
        return ProtobufValue::FromUnsigned(bits);
    }
}

} // namespace ns3
