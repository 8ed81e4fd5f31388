// SPDX-License-Identifier: GPL-2.0-only
#include "chakra-reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <queue>
#include <set>
#include <sstream>

namespace ns3
{
namespace
{

// NodeType and CollectiveCommType of et_def.proto, indexed by their numbers.
const char* const NODE_TYPE_NAMES[] = {"INVALID_NODE",
                                       "METADATA_NODE",
                                       "MEM_LOAD_NODE",
                                       "MEM_STORE_NODE",
                                       "COMP_NODE",
                                       "COMM_SEND_NODE",
                                       "COMM_RECV_NODE",
                                       "COMM_COLL_NODE"};
const char* const COMM_TYPE_NAMES[] = {"ALL_REDUCE",
                                       "REDUCE",
                                       "ALL_GATHER",
                                       "GATHER",
                                       "SCATTER",
                                       "BROADCAST",
                                       "ALL_TO_ALL",
                                       "REDUCE_SCATTER",
                                       "REDUCE_SCATTER_BLOCK",
                                       "BARRIER"};
constexpr int64_t COMP_NODE = 4;
constexpr int64_t COMM_SEND_NODE = 5;
constexpr int64_t COMM_RECV_NODE = 6;
constexpr int64_t COMM_COLL_NODE = 7;

/// Longest op accepted (10^12 us, 11.6 days): far from overflowing Time at any resolution.
constexpr uint64_t MAX_DURATION_MICROS = 1000000000000ULL;

/// An attribute value, reduced to what the mapping needs.
struct AttrValue
{
    enum class Kind
    {
        INTEGER, //!< any integer kind or bool
        REAL,    //!< double or float
        TEXT,    //!< string
        OTHER,   //!< lists, bytes: never read by the mapping
    };

    Kind kind{Kind::OTHER};
    bool negative{false};  //!< INTEGER: sign
    uint64_t magnitude{0}; //!< INTEGER: absolute value
    double real{0};        //!< REAL
    std::string text;      //!< TEXT
};

AttrValue
SignedAttr(int64_t v)
{
    AttrValue a;
    a.kind = AttrValue::Kind::INTEGER;
    a.negative = v < 0;
    a.magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    return a;
}

AttrValue
UnsignedAttr(uint64_t v)
{
    AttrValue a;
    a.kind = AttrValue::Kind::INTEGER;
    a.magnitude = v;
    return a;
}

/// A node of either form, before it becomes an op.
struct RawNode
{
    uint64_t id{0};
    std::string name;
    int64_t type{0};
    std::vector<uint64_t> deps; //!< data_deps then ctrl_deps, as read
    uint64_t durationMicros{0};
    std::map<std::string, AttrValue> attrs;
    std::string where; //!< "message #3 at byte offset 120" or "node #3"
};

/// One rank's file, read.
struct RankInput
{
    std::string file;
    std::vector<RawNode> nodes;
};

/**
 * Protobuf wire-format reader over a bounded byte range. Every read checks the bounds
 * first, so no input can make it read outside the range or loop without progress.
 */
class WireReader
{
  public:
    /// \param base file offset of data[0], for messages
    WireReader(const uint8_t* data, size_t size, size_t base)
        : m_data(data),
          m_size(size),
          m_base(base)
    {
    }

    bool AtEnd() const
    {
        return m_pos >= m_size;
    }

    size_t Offset() const
    {
        return m_base + m_pos;
    }

    const std::string& Error() const
    {
        return m_error;
    }

    bool Fail(const std::string& reason)
    {
        std::ostringstream os;
        os << "at byte offset " << Offset() << ": " << reason;
        m_error = os.str();
        return false;
    }

    bool ReadVarint(uint64_t& v)
    {
        v = 0;
        for (unsigned i = 0; i < 10; ++i)
        {
            if (m_pos >= m_size)
            {
                return Fail("varint cut off by the end of the data (truncated?)");
            }
            uint8_t b = m_data[m_pos++];
            if (i == 9 && (b & 0x80) != 0)
            {
                return Fail("varint longer than 10 bytes");
            }
            if (i == 9 && b > 1)
            {
                return Fail("varint overflows 64 bits");
            }
            v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0)
            {
                return true;
            }
        }
        return false; // not reached: the tenth byte always returns
    }

    /// Little-endian fixed-width value (wire types 1 and 5).
    bool ReadFixed(size_t width, uint64_t& v)
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

    bool ReadTag(uint32_t& field, uint32_t& wireType)
    {
        uint64_t tag;
        if (!ReadVarint(tag))
        {
            return false;
        }
        field = static_cast<uint32_t>(tag >> 3);
        wireType = static_cast<uint32_t>(tag & 7);
        if ((tag >> 3) == 0 || (tag >> 3) > 536870911)
        {
            return Fail("invalid field number " + std::to_string(tag >> 3));
        }
        if (wireType != 0 && wireType != 1 && wireType != 2 && wireType != 5)
        {
            return Fail("unsupported wire type " + std::to_string(wireType) + " (field " +
                        std::to_string(field) + ")");
        }
        return true;
    }

    /// A length-delimited payload as a sub-reader; its length must fit what is left.
    bool ReadSub(WireReader& sub)
    {
        uint64_t len;
        size_t prefix = m_pos;
        if (!ReadVarint(len))
        {
            return false;
        }
        if (len > m_size - m_pos)
        {
            std::ostringstream os;
            os << "length " << len << " runs past the end of the data (" << (m_size - m_pos)
               << " bytes left; truncated?)";
            m_pos = prefix; // report where the length starts
            return Fail(os.str());
        }
        sub = WireReader(m_data + m_pos, static_cast<size_t>(len), Offset());
        m_pos += static_cast<size_t>(len);
        return true;
    }

    bool ReadString(std::string& s)
    {
        WireReader sub(nullptr, 0, 0);
        if (!ReadSub(sub))
        {
            return false;
        }
        s.assign(reinterpret_cast<const char*>(sub.m_data), sub.m_size);
        return true;
    }

    bool Skip(uint32_t wireType)
    {
        uint64_t ignored;
        WireReader sub(nullptr, 0, 0);
        switch (wireType)
        {
        case 0:
            return ReadVarint(ignored);
        case 1:
            return ReadFixed(8, ignored);
        case 5:
            return ReadFixed(4, ignored);
        default:
            return ReadSub(sub);
        }
    }

    /// Take over the error of a sub-reader (its offsets are file offsets already).
    bool Propagate(const WireReader& inner)
    {
        m_error = inner.m_error;
        return false;
    }

    /// Check that field has the wire type the schema gives it.
    bool Expect(uint32_t field, const char* name, uint32_t wireType, uint32_t expected)
    {
        if (wireType == expected)
        {
            return true;
        }
        return Fail("field " + std::to_string(field) + " (" + name + ") has wire type " +
                    std::to_string(wireType) + ", expected " + std::to_string(expected));
    }

  private:
    const uint8_t* m_data;
    size_t m_size;
    size_t m_base;
    size_t m_pos{0};
    std::string m_error;
};

int64_t
ZigZag(uint64_t v)
{
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

/// Decode an AttributeProto: its name and, for the value kinds the mapping reads, the value.
bool
ParseAttr(WireReader& r, std::string& name, AttrValue& value)
{
    while (!r.AtEnd())
    {
        uint32_t field;
        uint32_t wire;
        if (!r.ReadTag(field, wire))
        {
            return false;
        }
        uint64_t v = 0;
        // Expected wire type of the scalar value fields 3..27 (odd numbers); 0 = none.
        static const std::map<uint32_t, uint32_t> SCALAR_WIRE = {
            {3, 1}, {5, 5}, {7, 0}, {9, 0}, {11, 0}, {13, 0}, {15, 0},
            {17, 0}, {19, 5}, {21, 1}, {23, 5}, {25, 1}, {27, 0}};
        auto scalar = SCALAR_WIRE.find(field);
        if (scalar != SCALAR_WIRE.end())
        {
            if (!r.Expect(field, "attribute value", wire, scalar->second))
            {
                return false;
            }
            bool ok = wire == 0 ? r.ReadVarint(v) : r.ReadFixed(wire == 1 ? 8 : 4, v);
            if (!ok)
            {
                return false;
            }
        }
        double d;
        float f;
        switch (field)
        {
        case 1:
            if (!r.Expect(field, "name", wire, 2) || !r.ReadString(name))
            {
                return false;
            }
            break;
        case 3:
            std::memcpy(&d, &v, sizeof(d));
            value = AttrValue{AttrValue::Kind::REAL, false, 0, d, ""};
            break;
        case 5: {
            uint32_t bits = static_cast<uint32_t>(v);
            std::memcpy(&f, &bits, sizeof(f));
            value = AttrValue{AttrValue::Kind::REAL, false, 0, f, ""};
            break;
        }
        case 7:  // int32 (sign-extended varint)
        case 23: // sfixed32
            value = SignedAttr(static_cast<int32_t>(static_cast<uint32_t>(v)));
            break;
        case 9:  // int64
        case 25: // sfixed64
            value = SignedAttr(static_cast<int64_t>(v));
            break;
        case 11: // uint32
        case 19: // fixed32
            value = UnsignedAttr(static_cast<uint32_t>(v));
            break;
        case 13: // uint64
        case 21: // fixed64
            value = UnsignedAttr(v);
            break;
        case 15: // sint32
            value = SignedAttr(static_cast<int32_t>(ZigZag(v)));
            break;
        case 17: // sint64
            value = SignedAttr(ZigZag(v));
            break;
        case 27: // bool
            value = UnsignedAttr(v != 0 ? 1 : 0);
            break;
        case 29:
            if (!r.Expect(field, "string_val", wire, 2) || !r.ReadString(value.text))
            {
                return false;
            }
            value.kind = AttrValue::Kind::TEXT;
            break;
        default: // doc_string, bytes, the *List messages, fields of later schemas
            if (!r.Skip(wire))
            {
                return false;
            }
        }
    }
    return true;
}

/// Append repeated uint64 field values, packed (wire type 2) or one per tag (0).
bool
ReadRepeatedUint64(WireReader& r, uint32_t field, uint32_t wire, std::vector<uint64_t>& out)
{
    uint64_t v;
    if (wire == 0)
    {
        if (!r.ReadVarint(v))
        {
            return false;
        }
        out.push_back(v);
        return true;
    }
    WireReader packed(nullptr, 0, 0);
    if (!r.Expect(field, field == 4 ? "ctrl_deps" : "data_deps", wire, 2) || !r.ReadSub(packed))
    {
        return false;
    }
    while (!packed.AtEnd())
    {
        if (!packed.ReadVarint(v))
        {
            return r.Propagate(packed);
        }
        out.push_back(v);
    }
    return true;
}

bool
ParseNode(WireReader& r, RawNode& node)
{
    while (!r.AtEnd())
    {
        uint32_t field;
        uint32_t wire;
        if (!r.ReadTag(field, wire))
        {
            return false;
        }
        uint64_t v;
        bool ok = true;
        switch (field)
        {
        case 1:
            ok = r.Expect(field, "id", wire, 0) && r.ReadVarint(node.id);
            break;
        case 2:
            ok = r.Expect(field, "name", wire, 2) && r.ReadString(node.name);
            break;
        case 3:
            ok = r.Expect(field, "type", wire, 0) && r.ReadVarint(v);
            node.type = static_cast<int64_t>(v);
            break;
        case 4:
        case 5:
            ok = ReadRepeatedUint64(r, field, wire, node.deps);
            break;
        case 7:
            ok = r.Expect(field, "duration_micros", wire, 0) && r.ReadVarint(node.durationMicros);
            break;
        case 10: {
            WireReader sub(nullptr, 0, 0);
            std::string name;
            AttrValue value;
            if (!r.Expect(field, "attr", wire, 2) || !r.ReadSub(sub))
            {
                return false;
            }
            if (!ParseAttr(sub, name, value))
            {
                return r.Propagate(sub);
            }
            node.attrs[name] = value;
            break;
        }
        default: // start_time_micros, inputs, outputs, later fields
            ok = r.Skip(wire);
        }
        if (!ok)
        {
            return false;
        }
    }
    return true;
}

/// GlobalMetadata: only checked for well-formedness (version, attrs are informative).
bool
ParseMetadata(WireReader& r)
{
    while (!r.AtEnd())
    {
        uint32_t field;
        uint32_t wire;
        if (!r.ReadTag(field, wire) || !r.Skip(wire))
        {
            return false;
        }
    }
    return true;
}

/// Read a whole file; false with a reason naming it if unreadable or gzip'd.
bool
LoadFile(const std::string& file, std::string& bytes, std::string& error)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
    {
        error = file + ": cannot open the file";
        return false;
    }
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad())
    {
        error = file + ": read error";
        return false;
    }
    if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f &&
        static_cast<uint8_t>(bytes[1]) == 0x8b)
    {
        error = file + ": gzip-compressed; gunzip it first (this reader has no zlib)";
        return false;
    }
    return true;
}

bool
ReadBinaryFile(const std::string& file, RankInput& input, std::string& error)
{
    std::string bytes;
    if (!LoadFile(file, bytes, error))
    {
        return false;
    }
    input.file = file;
    WireReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0);
    for (uint64_t k = 0; !r.AtEnd(); ++k)
    {
        std::ostringstream where;
        where << "message #" << k << " at byte offset " << r.Offset();
        WireReader message(nullptr, 0, 0);
        RawNode node;
        node.where = where.str();
        bool ok = r.ReadSub(message) &&
                  (k == 0 ? ParseMetadata(message) : ParseNode(message, node));
        if (!ok)
        {
            error = file + ": " + node.where + " (" + (k == 0 ? "GlobalMetadata" : "Node") +
                    "): " + (message.Error().empty() ? r.Error() : message.Error());
            return false;
        }
        if (k > 0)
        {
            input.nodes.push_back(std::move(node));
        }
    }
    if (bytes.empty())
    {
        error = file + ": empty file (no GlobalMetadata message)";
        return false;
    }
    return true;
}

// ----------------------------------------------------------------------------- JSON

/// Unsigned integer given as a JSON number or (protobuf's 64-bit mapping) a decimal string.
bool
JsonUnsigned(const nlohmann::json& v, uint64_t& out)
{
    if (v.is_number_unsigned())
    {
        out = v.get<uint64_t>();
        return true;
    }
    if (v.is_number_float())
    {
        double d = v.get<double>();
        out = static_cast<uint64_t>(d);
        return d >= 0 && d < 1.8e19 && std::floor(d) == d;
    }
    if (v.is_string())
    {
        const std::string& s = v.get_ref<const std::string&>();
        char* end = nullptr;
        errno = 0;
        out = std::strtoull(s.c_str(), &end, 10);
        return !s.empty() && s[0] != '-' && errno == 0 && *end == '\0';
    }
    return false;
}

/// A JSON attribute value. Decimal strings (protobuf's form of 64-bit integers) stay TEXT:
/// GetUnsigned reads them as numbers where a number is expected.
AttrValue
JsonAttr(const nlohmann::json& v)
{
    if (v.is_boolean())
    {
        return UnsignedAttr(v.get<bool>() ? 1 : 0);
    }
    if (v.is_number_unsigned())
    {
        return UnsignedAttr(v.get<uint64_t>());
    }
    if (v.is_number_integer())
    {
        return SignedAttr(v.get<int64_t>());
    }
    if (v.is_number_float())
    {
        return AttrValue{AttrValue::Kind::REAL, false, 0, v.get<double>(), ""};
    }
    if (v.is_string())
    {
        return AttrValue{AttrValue::Kind::TEXT, false, 0, 0, v.get<std::string>()};
    }
    return AttrValue{};
}

/// The first of keys that obj has, or null.
const nlohmann::json*
Find(const nlohmann::json& obj, std::initializer_list<const char*> keys)
{
    for (const char* key : keys)
    {
        auto it = obj.find(key);
        if (it != obj.end())
        {
            return &*it;
        }
    }
    return nullptr;
}

bool
JsonNode(const nlohmann::json& obj, RawNode& node, std::string& reason)
{
    const nlohmann::json* v;
    if ((v = Find(obj, {"id", "Id"})) && !JsonUnsigned(*v, node.id))
    {
        reason = "id is not an unsigned integer";
        return false;
    }
    if ((v = Find(obj, {"name", "Name"})) && v->is_string())
    {
        node.name = v->get<std::string>();
    }
    if ((v = Find(obj, {"type", "NodeType", "node_type"})))
    {
        uint64_t t = 0;
        bool known = JsonUnsigned(*v, t);
        for (size_t i = 0; !known && v->is_string() && i < std::size(NODE_TYPE_NAMES); ++i)
        {
            std::string n = NODE_TYPE_NAMES[i];
            known = (v->get<std::string>() == n || v->get<std::string>() + "_NODE" == n);
            t = i;
        }
        if (!known)
        {
            reason = "unknown node type " +
                     v->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
            return false;
        }
        node.type = static_cast<int64_t>(std::min<uint64_t>(t, INT64_MAX));
    }
    for (const char* key : {"dataDeps", "data_deps", "ctrlDeps", "ctrl_deps"})
    {
        auto deps = obj.find(key);
        if (deps == obj.end())
        {
            continue;
        }
        uint64_t d = 0;
        for (size_t i = 0; deps->is_array() && i < deps->size(); ++i)
        {
            if (!JsonUnsigned((*deps)[i], d))
            {
                reason = std::string(key) + "[" + std::to_string(i) + "] is not a node id";
                return false;
            }
            node.deps.push_back(d);
        }
        if (!deps->is_array())
        {
            reason = std::string(key) + " is not an array";
            return false;
        }
    }
    if ((v = Find(obj, {"durationMicros", "duration_micros", "runtime"})) &&
        !JsonUnsigned(*v, node.durationMicros))
    {
        reason = "duration is not a non-negative integer (microseconds)";
        return false;
    }
    // Attributes named directly as keys (the workload_graph form), then the attr list.
    for (const char* key : {"is_cpu_op", "num_ops", "tensor_size", "comm_type", "comm_size",
                            "comm_src", "comm_dst", "comm_tag", "comm_priority", "pg_name"})
    {
        if ((v = Find(obj, {key})))
        {
            node.attrs[key] = JsonAttr(*v);
        }
    }
    auto attrs = obj.find("attr");
    for (size_t i = 0; attrs != obj.end() && attrs->is_array() && i < attrs->size(); ++i)
    {
        const nlohmann::json& a = (*attrs)[i];
        const nlohmann::json* name = a.is_object() ? Find(a, {"name"}) : nullptr;
        if (!name || !name->is_string())
        {
            reason = "attr[" + std::to_string(i) + "] has no name";
            return false;
        }
        AttrValue& value = node.attrs[name->get<std::string>()];
        for (auto it = a.begin(); it != a.end(); ++it)
        {
            if (it.key() != "name" && it.key() != "docString" && it.key() != "doc_string")
            {
                value = JsonAttr(it.value()); // the oneof: one value key per attribute
            }
        }
    }
    return true;
}

bool
ReadJsonFile(const std::string& file, RankInput& input, std::string& error)
{
    std::string text;
    if (!LoadFile(file, text, error))
    {
        return false;
    }
    input.file = file;
    nlohmann::json doc;
    try
    {
        doc = nlohmann::json::parse(text);
    }
    catch (const nlohmann::json::exception& e)
    {
        error = file + ": not valid JSON: " + e.what();
        return false;
    }
    const nlohmann::json* nodes = doc.is_array() ? &doc : nullptr;
    if (doc.is_object())
    {
        nodes = Find(doc, {"workload_graph", "nodes"});
    }
    if (!nodes || !nodes->is_array())
    {
        error = file + ": expected an array of nodes, or an object with a \"workload_graph\" "
                       "or \"nodes\" array";
        return false;
    }
    for (size_t k = 0; k < nodes->size(); ++k)
    {
        const nlohmann::json& obj = (*nodes)[k];
        RawNode node;
        node.where = "node #" + std::to_string(k);
        std::string reason;
        if (!obj.is_object())
        {
            error = file + ": " + node.where + ": not an object";
            return false;
        }
        // A GlobalMetadata may lead the list: it has a version and no node fields.
        if (k == 0 && obj.contains("version") && !Find(obj, {"id", "Id", "type", "NodeType"}))
        {
            continue;
        }
        if (!JsonNode(obj, node, reason))
        {
            error = file + ": " + node.where + ": " + reason;
            return false;
        }
        input.nodes.push_back(std::move(node));
    }
    return true;
}

// -------------------------------------------------------------------------- mapping

/**
 * Look up an integer attribute in [0, max]. Integer kinds, integral reals and decimal
 * strings are accepted alike.
 * \return false with reason set if present but unusable; found says if present
 */
bool
GetUnsigned(const RawNode& node,
            const std::string& name,
            uint64_t max,
            uint64_t& value,
            bool& found,
            std::string& reason)
{
    auto it = node.attrs.find(name);
    found = it != node.attrs.end();
    if (!found)
    {
        return true;
    }
    const AttrValue& a = it->second;
    bool ok = false;
    if (a.kind == AttrValue::Kind::INTEGER)
    {
        ok = !a.negative || a.magnitude == 0;
        value = a.magnitude;
    }
    else if (a.kind == AttrValue::Kind::REAL)
    {
        ok = a.real >= 0 && a.real < 1.8e19 && std::floor(a.real) == a.real;
        value = ok ? static_cast<uint64_t>(a.real) : 0;
    }
    else if (a.kind == AttrValue::Kind::TEXT)
    {
        ok = JsonUnsigned(nlohmann::json(a.text), value);
    }
    if (!ok || value > max)
    {
        std::ostringstream os;
        os << "attribute " << name << " is not an integer in [0, " << max << "]";
        if (a.kind == AttrValue::Kind::INTEGER)
        {
            os << " (" << (a.negative ? "-" : "") << a.magnitude << ")";
        }
        reason = os.str();
        return false;
    }
    return true;
}

/// Same, but the attribute must be present.
bool
RequireUnsigned(const RawNode& node, const std::string& name, uint64_t max, uint64_t& value,
                std::string& reason)
{
    bool found;
    if (!GetUnsigned(node, name, max, value, found, reason))
    {
        return false;
    }
    if (!found)
    {
        reason = std::string(NODE_TYPE_NAMES[node.type]) + " without attribute " + name;
    }
    return found;
}

/// The collective of a COMM_COLL node (comm_type by number, or by name as a string).
bool
MapCommType(const RawNode& node, CollectiveType& type, std::string& reason)
{
    static const std::map<uint64_t, CollectiveType> SUPPORTED = {
        {0, CollectiveType::ALL_REDUCE},
        {1, CollectiveType::REDUCE},
        {2, CollectiveType::ALL_GATHER},
        {5, CollectiveType::BROADCAST},
        {6, CollectiveType::ALL_TO_ALL},
        {7, CollectiveType::REDUCE_SCATTER}};
    auto it = node.attrs.find("comm_type");
    uint64_t number = UINT64_MAX;
    for (size_t i = 0; it != node.attrs.end() && i < std::size(COMM_TYPE_NAMES); ++i)
    {
        number = it->second.text == COMM_TYPE_NAMES[i] ? i : number; // by name, in JSON
    }
    if (number == UINT64_MAX && !RequireUnsigned(node, "comm_type", UINT64_MAX, number, reason))
    {
        return false;
    }
    auto supported = SUPPORTED.find(number);
    if (supported != SUPPORTED.end())
    {
        type = supported->second;
        return true;
    }
    reason = number < std::size(COMM_TYPE_NAMES)
                 ? "comm_type " + std::to_string(number) + " (" + COMM_TYPE_NAMES[number] +
                       ") is not supported"
                 : "unknown comm_type " + std::to_string(number);
    return false;
}

/// The op of a node, without deps; group is the pg_name ("" = all ranks).
bool
MapNode(const RawNode& node, uint32_t rank, uint32_t nRanks, TraceOp& op, std::string& reason)
{
    op.name = node.name.empty() ? "node" + std::to_string(node.id) : node.name;
    if (node.type <= 0 || node.type > COMM_COLL_NODE)
    {
        reason = node.type == 0 ? "node type INVALID_NODE (0)"
                                : "unknown node type " + std::to_string(node.type);
        return false;
    }
    if (node.type <= COMP_NODE)
    {
        if (node.durationMicros > MAX_DURATION_MICROS)
        {
            reason = "duration_micros " + std::to_string(node.durationMicros) +
                     " is implausibly large (more than 10^12 us)";
            return false;
        }
        op.kind = TraceOpKind::COMPUTE;
        op.stream = 0;
        op.duration = MicroSeconds(node.durationMicros);
        return true;
    }
    op.stream = 1;
    if (!RequireUnsigned(node, "comm_size", UINT64_MAX, op.bytes, reason))
    {
        return false;
    }
    if (node.type == COMM_COLL_NODE)
    {
        op.kind = TraceOpKind::COLLECTIVE;
        auto pg = node.attrs.find("pg_name");
        if (pg != node.attrs.end() && pg->second.kind == AttrValue::Kind::INTEGER)
        {
            op.group = (pg->second.negative ? "-" : "") + std::to_string(pg->second.magnitude);
        }
        else if (pg != node.attrs.end() && pg->second.kind == AttrValue::Kind::TEXT)
        {
            op.group = pg->second.text;
        }
        return MapCommType(node, op.collective, reason);
    }
    op.kind = node.type == COMM_SEND_NODE ? TraceOpKind::SEND : TraceOpKind::RECV;
    uint64_t peer;
    uint64_t tag = 0;
    bool found;
    if (!RequireUnsigned(node,
                         op.kind == TraceOpKind::SEND ? "comm_dst" : "comm_src",
                         UINT32_MAX,
                         peer,
                         reason) ||
        !GetUnsigned(node, "comm_tag", UINT32_MAX, tag, found, reason))
    {
        return false;
    }
    if (peer >= nRanks || peer == rank)
    {
        reason = (op.kind == TraceOpKind::SEND ? "comm_dst " : "comm_src ") +
                 std::to_string(peer) +
                 (peer == rank ? " is the rank itself"
                               : " is not a rank (the trace has " + std::to_string(nRanks) +
                                     " files)");
        return false;
    }
    op.peer = static_cast<uint32_t>(peer);
    op.tag = static_cast<uint32_t>(tag);
    return true;
}

/**
 * Order a rank's nodes: topological over deps, file order among the ready ones.
 * \param deps per node (file position), positions of the nodes it depends on
 * \return the positions in op order, or fewer than all if there is a cycle
 */
std::vector<uint32_t>
DependencyOrder(const std::vector<std::vector<uint32_t>>& deps)
{
    size_t n = deps.size();
    std::vector<uint32_t> waiting(n, 0);
    std::vector<std::vector<uint32_t>> next(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        waiting[i] = static_cast<uint32_t>(deps[i].size());
        for (uint32_t d : deps[i])
        {
            next[d].push_back(i);
        }
    }
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (waiting[i] == 0)
        {
            ready.push(i);
        }
    }
    std::vector<uint32_t> order;
    while (!ready.empty())
    {
        uint32_t x = ready.top();
        ready.pop();
        order.push_back(x);
        for (uint32_t y : next[x])
        {
            if (--waiting[y] == 0)
            {
                ready.push(y);
            }
        }
    }
    return order;
}

/// Name the nodes of one cycle among those DependencyOrder could not place.
std::string
DescribeCycle(const RankInput& in,
              const std::vector<std::vector<uint32_t>>& deps,
              const std::vector<uint32_t>& order)
{
    std::vector<bool> placed(deps.size(), false);
    for (uint32_t p : order)
    {
        placed[p] = true;
    }
    // Every unplaced node waits on an unplaced one: following those waits must revisit.
    uint32_t x = 0;
    while (placed[x])
    {
        ++x;
    }
    std::vector<int64_t> step(deps.size(), -1);
    std::vector<uint32_t> path;
    while (step[x] < 0)
    {
        step[x] = static_cast<int64_t>(path.size());
        path.push_back(x);
        for (uint32_t d : deps[x])
        {
            if (!placed[d])
            {
                x = d;
                break;
            }
        }
    }
    std::ostringstream os;
    os << in.file << ": node id " << in.nodes[x].id << " (" << in.nodes[x].where
       << ") is on a dependency cycle: node id";
    for (size_t i = static_cast<size_t>(step[x]); i < path.size(); ++i)
    {
        os << " " << in.nodes[path[i]].id << " ->";
    }
    os << " " << in.nodes[x].id << " (each depends on the next)";
    return os.str();
}

std::string
DescribeFiles(const std::vector<RankInput>& inputs)
{
    std::string s = "chakra trace " + inputs.front().file;
    if (inputs.size() > 1)
    {
        s += (inputs.size() > 2 ? " ... " : ", ") + inputs.back().file;
    }
    return s + " (" + std::to_string(inputs.size()) + " ranks)";
}

TrainingTrace
BuildTrace(const std::vector<RankInput>& inputs, std::string& error)
{
    uint32_t nRanks = static_cast<uint32_t>(inputs.size());
    std::vector<std::vector<TraceOp>> ops(nRanks);
    std::vector<std::string> groupOrder;             // first use first
    std::map<std::string, std::set<uint32_t>> users; // group -> ranks naming it
    for (uint32_t rank = 0; rank < nRanks; ++rank)
    {
        const RankInput& in = inputs[rank];
        std::map<uint64_t, uint32_t> position;
        for (uint32_t p = 0; p < in.nodes.size(); ++p)
        {
            auto [it, fresh] = position.emplace(in.nodes[p].id, p);
            if (!fresh)
            {
                error = in.file + ": node id " + std::to_string(in.nodes[p].id) + " (" +
                        in.nodes[p].where + "): duplicate node id (first at " +
                        in.nodes[it->second].where + ")";
                return TrainingTrace();
            }
        }
        std::vector<std::vector<uint32_t>> deps(in.nodes.size());
        std::vector<TraceOp> fileOps(in.nodes.size());
        for (uint32_t p = 0; p < in.nodes.size(); ++p)
        {
            const RawNode& node = in.nodes[p];
            std::string where = in.file + ": node id " + std::to_string(node.id) + " (" +
                                node.where + "): ";
            std::string reason;
            if (!MapNode(node, rank, nRanks, fileOps[p], reason))
            {
                error = where + reason;
                return TrainingTrace();
            }
            for (uint64_t d : node.deps)
            {
                auto it = position.find(d);
                if (it == position.end() || it->second == p)
                {
                    error = where + "depends on node id " + std::to_string(d) +
                            (it == position.end() ? ", which is not in the file" : ", itself");
                    return TrainingTrace();
                }
                if (std::find(deps[p].begin(), deps[p].end(), it->second) == deps[p].end())
                {
                    deps[p].push_back(it->second);
                }
            }
        }
        std::vector<uint32_t> order = DependencyOrder(deps);
        if (order.size() != in.nodes.size())
        {
            error = DescribeCycle(in, deps, order);
            return TrainingTrace();
        }
        std::vector<uint32_t> opIndex(in.nodes.size());
        for (uint32_t i = 0; i < order.size(); ++i)
        {
            opIndex[order[i]] = i;
        }
        for (uint32_t p : order)
        {
            TraceOp& op = fileOps[p];
            for (uint32_t d : deps[p])
            {
                op.deps.push_back(opIndex[d]);
            }
            if (op.kind == TraceOpKind::COLLECTIVE)
            {
                if (op.group.empty())
                {
                    op.group = "world";
                }
                if (users.count(op.group) == 0)
                {
                    groupOrder.push_back(op.group);
                }
                users[op.group].insert(rank);
                if (op.group == "world")
                {
                    for (uint32_t r = 0; r < nRanks; ++r)
                    {
                        users["world"].insert(r);
                    }
                }
            }
            ops[rank].push_back(std::move(op));
        }
    }

    TrainingTrace trace(nRanks);
    trace.SetName(DescribeFiles(inputs));
    for (const std::string& name : groupOrder)
    {
        const std::set<uint32_t>& members = users[name];
        bool world = members.size() == nRanks;
        trace.AddGroup(TraceGroup{name,
                                  world ? "world" : "custom",
                                  std::vector<uint32_t>(members.begin(), members.end())});
    }
    for (uint32_t rank = 0; rank < nRanks; ++rank)
    {
        for (TraceOp& op : ops[rank])
        {
            trace.AddOp(rank, std::move(op));
        }
    }
    std::string why;
    if (!trace.Validate(&why))
    {
        error = DescribeFiles(inputs) + ": " + why;
        uint32_t rank;
        if (std::sscanf(why.c_str(), "rank %u op", &rank) == 1 && rank < nRanks)
        {
            error += " (rank " + std::to_string(rank) + " is " + inputs[rank].file + ")";
        }
        return TrainingTrace();
    }
    error.clear();
    return trace;
}

TrainingTrace
ReadAll(const std::vector<std::string>& files,
        const std::function<bool(const std::string&, RankInput&, std::string&)>& readOne,
        std::string* error)
{
    std::string message;
    std::vector<RankInput> inputs(files.size());
    TrainingTrace trace;
    if (files.empty())
    {
        message = "chakra trace: no files given";
    }
    else if (files.size() > UINT32_MAX)
    {
        message = "chakra trace: too many files";
    }
    else
    {
        bool ok = true;
        for (size_t r = 0; ok && r < files.size(); ++r)
        {
            ok = readOne(files[r], inputs[r], message);
        }
        if (ok)
        {
            trace = BuildTrace(inputs, message);
        }
    }
    if (error)
    {
        *error = message;
    }
    return trace;
}

} // namespace

TrainingTrace
ChakraTraceReader::ReadFiles(const std::vector<std::string>& files, std::string* error)
{
    return ReadAll(files, ReadBinaryFile, error);
}

TrainingTrace
ChakraTraceReader::ReadPrefix(const std::string& prefix, uint32_t nRanks, std::string* error)
{
    if (nRanks == 0)
    {
        if (error)
        {
            *error = "chakra trace " + prefix + ": nRanks must be at least 1";
        }
        return TrainingTrace();
    }
    std::vector<std::string> files;
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        files.push_back(prefix + "." + std::to_string(r) + ".et");
    }
    return ReadFiles(files, error);
}

TrainingTrace
ChakraTraceReader::ReadJson(const std::vector<std::string>& files, std::string* error)
{
    return ReadAll(files, ReadJsonFile, error);
}

} // namespace ns3
