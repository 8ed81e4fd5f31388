// SPDX-License-Identifier: GPL-2.0-only
#include "chakra-reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
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
    uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    return AttrValue{AttrValue::Kind::INTEGER, v < 0, magnitude, 0, ""};
}

AttrValue
UnsignedAttr(uint64_t v)
{
    return AttrValue{AttrValue::Kind::INTEGER, false, v, 0, ""};
}

/// A node of either form, before it becomes an op.
struct RawNode
{
    uint64_t id{0};
    std::string name;
    int64_t type{0};
    std::vector<uint64_t> deps; //!< data_deps and ctrl_deps, as read
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
    WireReader(const uint8_t* data = nullptr, size_t size = 0, size_t base = 0)
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
        m_error = "at byte offset " + std::to_string(Offset()) + ": " + reason;
        return false;
    }

    /// Take over the error of a sub-reader (its offsets are file offsets already).
    bool Propagate(const WireReader& inner)
    {
        m_error = inner.m_error;
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
            v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0)
            {
                return i < 9 || b <= 1 || Fail("varint overflows 64 bits");
            }
        }
        return Fail("varint longer than 10 bytes");
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
            std::string left = std::to_string(m_size - m_pos);
            m_pos = prefix; // report where the length starts
            return Fail("length " + std::to_string(len) + " runs past the end of the data (" +
                        left + " bytes left; truncated?)");
        }
        sub = WireReader(m_data + m_pos, static_cast<size_t>(len), Offset());
        m_pos += static_cast<size_t>(len);
        return true;
    }

    bool ReadString(std::string& s)
    {
        WireReader sub;
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
        WireReader sub;
        return wireType == 0   ? ReadVarint(ignored)
               : wireType == 1 ? ReadFixed(8, ignored)
               : wireType == 5 ? ReadFixed(4, ignored)
                               : ReadSub(sub);
    }

    /// Check that field has the wire type the schema gives it.
    bool Expect(uint32_t field, const char* name, uint32_t wireType, uint32_t expected)
    {
        return wireType == expected ||
               Fail("field " + std::to_string(field) + " (" + name + ") has wire type " +
                    std::to_string(wireType) + ", expected " + std::to_string(expected));
    }

  private:
    const uint8_t* m_data;
    size_t m_size;
    size_t m_base;
    size_t m_pos{0};
    std::string m_error;
};

/// How an AttributeProto scalar value field is encoded.
struct ScalarField
{
    enum Decode
    {
        SIGNED,   //!< two's complement
        UNSIGNED, //!< plain
        ZIGZAG,   //!< sint32/sint64
        REAL,     //!< IEEE 754
    };

    uint32_t wire; //!< wire type
    Decode decode; //!< how to read the bits
    unsigned bits; //!< 32 or 64 (1 for bool)
};

/// The scalar value fields of AttributeProto's oneof, by field number.
const std::map<uint32_t, ScalarField> SCALAR_FIELDS = {
    {3, {1, ScalarField::REAL, 64}},      // double
    {5, {5, ScalarField::REAL, 32}},      // float
    {7, {0, ScalarField::SIGNED, 32}},    // int32 (sign-extended varint)
    {9, {0, ScalarField::SIGNED, 64}},    // int64
    {11, {0, ScalarField::UNSIGNED, 32}}, // uint32
    {13, {0, ScalarField::UNSIGNED, 64}}, // uint64
    {15, {0, ScalarField::ZIGZAG, 32}},   // sint32
    {17, {0, ScalarField::ZIGZAG, 64}},   // sint64
    {19, {5, ScalarField::UNSIGNED, 32}}, // fixed32
    {21, {1, ScalarField::UNSIGNED, 64}}, // fixed64
    {23, {5, ScalarField::SIGNED, 32}},   // sfixed32
    {25, {1, ScalarField::SIGNED, 64}},   // sfixed64
    {27, {0, ScalarField::UNSIGNED, 1}},  // bool
};

AttrValue
DecodeScalar(const ScalarField& f, uint64_t v)
{
    if (f.decode == ScalarField::REAL)
    {
        double d;
        float x;
        uint32_t low = static_cast<uint32_t>(v);
        std::memcpy(&d, &v, sizeof(d));
        std::memcpy(&x, &low, sizeof(x));
        return AttrValue{AttrValue::Kind::REAL, false, 0, f.bits == 64 ? d : x, ""};
    }
    if (f.decode == ScalarField::ZIGZAG)
    {
        v = (v >> 1) ^ (0 - (v & 1));
    }
    if (f.decode == ScalarField::UNSIGNED)
    {
        return UnsignedAttr(f.bits == 1 ? (v != 0) : f.bits == 32 ? static_cast<uint32_t>(v) : v);
    }
    return SignedAttr(f.bits == 32 ? static_cast<int32_t>(static_cast<uint32_t>(v))
                                   : static_cast<int64_t>(v));
}

/// Decode an AttributeProto: its name and, for the kinds the mapping reads, its value.
bool
ParseAttr(WireReader& r, std::string& name, AttrValue& value)
{
    while (!r.AtEnd())
    {
        uint32_t field;
        uint32_t wire;
        uint64_t v = 0;
        if (!r.ReadTag(field, wire))
        {
            return false;
        }
        auto scalar = SCALAR_FIELDS.find(field);
        bool ok;
        if (scalar != SCALAR_FIELDS.end())
        {
            const ScalarField& f = scalar->second;
            ok = r.Expect(field, "attribute value", wire, f.wire) &&
                 (wire == 0 ? r.ReadVarint(v) : r.ReadFixed(wire == 1 ? 8 : 4, v));
            value = ok ? DecodeScalar(f, v) : value;
        }
        else if (field == 1 || field == 29) // name, string_val
        {
            ok = r.Expect(field, field == 1 ? "name" : "string_val", wire, 2) &&
                 r.ReadString(field == 1 ? name : value.text);
            value.kind = field == 29 ? AttrValue::Kind::TEXT : value.kind;
        }
        else // doc_string, bytes, the *List messages, fields of later schemas
        {
            ok = r.Skip(wire);
        }
        if (!ok)
        {
            return false;
        }
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
        uint64_t v = 0;
        WireReader sub;
        std::string name;
        AttrValue value;
        if (!r.ReadTag(field, wire))
        {
            return false;
        }
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
            node.type = static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX));
            break;
        case 4: // ctrl_deps
        case 5: // data_deps: one per tag (wire type 0) or packed (2)
            if (wire == 0)
            {
                ok = r.ReadVarint(v);
                node.deps.push_back(v);
                break;
            }
            ok = r.Expect(field, field == 4 ? "ctrl_deps" : "data_deps", wire, 2) && r.ReadSub(sub);
            while (ok && !sub.AtEnd())
            {
                ok = sub.ReadVarint(v) || r.Propagate(sub);
                node.deps.push_back(v);
            }
            break;
        case 7:
            ok = r.Expect(field, "duration_micros", wire, 0) && r.ReadVarint(node.durationMicros);
            break;
        case 10:
            ok = r.Expect(field, "attr", wire, 2) && r.ReadSub(sub) &&
                 (ParseAttr(sub, name, value) || r.Propagate(sub));
            node.attrs[name] = value;
            break;
        default: // start_time_micros, inputs, outputs, fields of later schemas
            ok = r.Skip(wire);
        }
        if (!ok)
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
    if (bytes.size() >= 2 && bytes[0] == '\x1f' && bytes[1] == '\x8b')
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
    if (bytes.empty())
    {
        error = file + ": empty file (no GlobalMetadata message)";
        return false;
    }
    WireReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0);
    for (uint64_t k = 0; !r.AtEnd(); ++k)
    {
        WireReader message;
        RawNode node;
        node.where =
            "message #" + std::to_string(k) + " at byte offset " + std::to_string(r.Offset());
        // GlobalMetadata (version, attrs) is informative: only checked to be well formed.
        uint32_t field;
        uint32_t wire;
        bool ok = r.ReadSub(message);
        while (ok && k == 0 && !message.AtEnd())
        {
            ok = message.ReadTag(field, wire) && message.Skip(wire);
        }
        if (!ok || (k > 0 && !ParseNode(message, node)))
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
        out = d >= 0 && d < 1.8e19 ? static_cast<uint64_t>(d) : 0;
        return d >= 0 && d < 1.8e19 && std::floor(d) == d;
    }
    if (!v.is_string())
    {
        return false;
    }
    const std::string& s = v.get_ref<const std::string&>();
    char* end = nullptr;
    errno = 0;
    out = std::strtoull(s.c_str(), &end, 10);
    return !s.empty() && std::isdigit(static_cast<unsigned char>(s[0])) && errno == 0 &&
           *end == '\0';
}

/// A JSON attribute value. Decimal strings (protobuf's form of 64-bit integers) stay TEXT:
/// LookUp reads them as numbers where a number is expected.
AttrValue
JsonAttr(const nlohmann::json& v)
{
    if (v.is_boolean() || v.is_number_unsigned())
    {
        return UnsignedAttr(v.is_boolean() ? v.get<bool>() : v.get<uint64_t>());
    }
    if (v.is_number_integer())
    {
        return SignedAttr(v.get<int64_t>());
    }
    if (v.is_number_float())
    {
        return AttrValue{AttrValue::Kind::REAL, false, 0, v.get<double>(), ""};
    }
    return v.is_string() ? AttrValue{AttrValue::Kind::TEXT, false, 0, 0, v.get<std::string>()}
                         : AttrValue{};
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
    if ((v = Find(obj, {"type", "NodeType"})))
    {
        uint64_t t = 0;
        bool known = JsonUnsigned(*v, t);
        for (size_t i = 0; !known && v->is_string() && i < std::size(NODE_TYPE_NAMES); ++i)
        {
            known = v->get<std::string>() == NODE_TYPE_NAMES[i] ||
                    v->get<std::string>() + "_NODE" == NODE_TYPE_NAMES[i];
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
        for (size_t i = 0; deps != obj.end() && i < deps->size(); ++i)
        {
            if (!deps->is_array() || !JsonUnsigned((*deps)[i], node.deps.emplace_back()))
            {
                reason = std::string(key) + " is not an array of node ids";
                return false;
            }
        }
    }
    if ((v = Find(obj, {"durationMicros", "duration_micros", "runtime"})) &&
        !JsonUnsigned(*v, node.durationMicros))
    {
        reason = "duration is not a non-negative integer (microseconds)";
        return false;
    }
    // Attributes as keys of their own (the workload_graph form), then the attr list.
    for (const char* key : {"is_cpu_op",
                            "num_ops",
                            "tensor_size",
                            "comm_type",
                            "comm_size",
                            "comm_src",
                            "comm_dst",
                            "comm_tag",
                            "comm_priority",
                            "pg_name"})
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
        for (auto it = a.begin(); it != a.end(); ++it)
        {
            if (it.key() != "name" && it.key() != "docString" && it.key() != "doc_string")
            {
                node.attrs[name->get<std::string>()] = JsonAttr(it.value()); // the oneof value
            }
        }
    }
    return true;
}

bool
ReadJsonFile(const std::string& file, RankInput& input, std::string& error)
{
    std::string text;
    nlohmann::json doc;
    if (!LoadFile(file, text, error))
    {
        return false;
    }
    input.file = file;
    try
    {
        doc = nlohmann::json::parse(text);
    }
    catch (const nlohmann::json::exception& e)
    {
        error = file + ": not valid JSON: " + e.what();
        return false;
    }
    const nlohmann::json* nodes = doc.is_object() ? Find(doc, {"workload_graph", "nodes"}) : &doc;
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
        std::string reason = "not an object";
        // A GlobalMetadata may lead the list: it has a version and no node fields.
        if (k == 0 && obj.is_object() && obj.contains("version") &&
            !Find(obj, {"id", "Id", "type", "NodeType"}))
        {
            continue;
        }
        if (!obj.is_object() || !JsonNode(obj, node, reason))
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
 * Look up an integer attribute that must lie in [0, max]. Integer kinds, integral reals
 * and decimal strings are accepted alike.
 * \param required whether its absence is an error
 * \return false with reason set if unusable or missing though required
 */
bool
LookUp(const RawNode& node,
       const std::string& name,
       uint64_t max,
       bool required,
       uint64_t& value,
       std::string& reason)
{
    auto it = node.attrs.find(name);
    if (it == node.attrs.end())
    {
        reason = std::string(NODE_TYPE_NAMES[node.type]) + " without attribute " + name;
        return !required;
    }
    const AttrValue& a = it->second;
    bool ok = a.kind == AttrValue::Kind::INTEGER && (!a.negative || a.magnitude == 0);
    value = a.magnitude;
    if (a.kind == AttrValue::Kind::REAL || a.kind == AttrValue::Kind::TEXT)
    {
        ok = JsonUnsigned(a.kind == AttrValue::Kind::REAL ? nlohmann::json(a.real)
                                                          : nlohmann::json(a.text),
                          value);
    }
    if (ok && value <= max)
    {
        return true;
    }
    reason = "attribute " + name + " is not an integer in [0, " + std::to_string(max) + "]" +
             (a.kind == AttrValue::Kind::INTEGER
                  ? std::string(" (") + (a.negative ? "-" : "") + std::to_string(a.magnitude) + ")"
                  : "");
    return false;
}

/// The collective of a COMM_COLL node (comm_type by number, or by name in JSON).
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
        number = it->second.text == COMM_TYPE_NAMES[i] ? i : number;
    }
    if (number == UINT64_MAX && !LookUp(node, "comm_type", UINT64_MAX, true, number, reason))
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

/// The op of a node, without deps; a collective's group is its pg_name ("" = all ranks).
bool
MapNode(const RawNode& node, uint32_t rank, uint32_t nRanks, TraceOp& op, std::string& reason)
{
    op.name = node.name.empty() ? "node" + std::to_string(node.id) : node.name;
    op.stream = node.type <= COMP_NODE ? 0 : 1;
    if (node.type <= 0 || node.type > COMM_COLL_NODE)
    {
        reason = node.type == 0 ? "node type INVALID_NODE (0)"
                                : "unknown node type " + std::to_string(node.type);
        return false;
    }
    if (node.type <= COMP_NODE) // metadata, memory and compute nodes: time on the GPU
    {
        op.kind = TraceOpKind::COMPUTE;
        op.duration = MicroSeconds(std::min(node.durationMicros, MAX_DURATION_MICROS));
        reason = "duration_micros " + std::to_string(node.durationMicros) +
                 " is implausibly large (more than 10^12 us)";
        return node.durationMicros <= MAX_DURATION_MICROS;
    }
    if (!LookUp(node, "comm_size", UINT64_MAX, true, op.bytes, reason))
    {
        return false;
    }
    if (node.type == COMM_COLL_NODE)
    {
        op.kind = TraceOpKind::COLLECTIVE;
        auto pg = node.attrs.find("pg_name");
        if (pg != node.attrs.end())
        {
            const AttrValue& a = pg->second;
            op.group = a.kind == AttrValue::Kind::INTEGER
                           ? (a.negative ? "-" : "") + std::to_string(a.magnitude)
                           : a.text;
        }
        return MapCommType(node, op.collective, reason);
    }
    op.kind = node.type == COMM_SEND_NODE ? TraceOpKind::SEND : TraceOpKind::RECV;
    std::string peerName = op.kind == TraceOpKind::SEND ? "comm_dst" : "comm_src";
    uint64_t peer = 0;
    uint64_t tag = 0;
    if (!LookUp(node, peerName, UINT32_MAX, true, peer, reason) ||
        !LookUp(node, "comm_tag", UINT32_MAX, false, tag, reason))
    {
        return false;
    }
    op.peer = static_cast<uint32_t>(peer);
    op.tag = static_cast<uint32_t>(tag);
    reason = peerName + " " + std::to_string(peer) +
             (peer == rank ? " is the rank itself"
                           : " is not a rank (ranks are 0 to " + std::to_string(nRanks - 1) + ")");
    return peer < nRanks && peer != rank;
}

/**
 * Order a rank's nodes: topological over deps, file order among the ready ones.
 * \param deps per node (file position), positions of the nodes it depends on
 * \return the positions in op order; fewer than all if there is a cycle
 */
std::vector<uint32_t>
DependencyOrder(const std::vector<std::vector<uint32_t>>& deps)
{
    std::vector<size_t> waiting(deps.size());
    std::vector<std::vector<uint32_t>> next(deps.size());
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
    for (uint32_t i = 0; i < deps.size(); ++i)
    {
        waiting[i] = deps[i].size();
        for (uint32_t d : deps[i])
        {
            next[d].push_back(i);
        }
        if (waiting[i] == 0)
        {
            ready.push(i);
        }
    }
    std::vector<uint32_t> order;
    while (!ready.empty())
    {
        order.push_back(ready.top());
        ready.pop();
        for (uint32_t y : next[order.back()])
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
    // Every unplaced node waits for an unplaced one: following those waits must revisit.
    uint32_t x =
        static_cast<uint32_t>(std::find(placed.begin(), placed.end(), false) - placed.begin());
    std::vector<int64_t> step(deps.size(), -1);
    std::vector<uint32_t> path;
    while (step[x] < 0)
    {
        step[x] = static_cast<int64_t>(path.size());
        path.push_back(x);
        x = *std::find_if(deps[x].begin(), deps[x].end(), [&](uint32_t d) { return !placed[d]; });
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
    std::string last =
        inputs.size() > 1 ? (inputs.size() > 2 ? " ... " : ", ") + inputs.back().file : "";
    return "chakra trace " + inputs.front().file + last + " (" + std::to_string(inputs.size()) +
           " ranks)";
}

/// Set error to the problem of node p of a file; return false.
bool
Fail(const RankInput& in, uint32_t p, const std::string& reason, std::string& error)
{
    error = in.file + ": node id " + std::to_string(in.nodes[p].id) + " (" + in.nodes[p].where +
            "): " + reason;
    return false;
}

/// A rank's ops in dependency order; false with error set on a bad node.
bool
BuildRank(const RankInput& in,
          uint32_t rank,
          uint32_t nRanks,
          std::vector<TraceOp>& ops,
          std::string& error)
{
    std::map<uint64_t, uint32_t> position;
    std::vector<std::vector<uint32_t>> deps(in.nodes.size());
    std::vector<TraceOp> fileOps(in.nodes.size());
    for (uint32_t p = 0; p < in.nodes.size(); ++p)
    {
        auto [first, fresh] = position.emplace(in.nodes[p].id, p);
        if (!fresh)
        {
            return Fail(
                in, p, "duplicate node id (first at " + in.nodes[first->second].where + ")", error);
        }
    }
    for (uint32_t p = 0; p < in.nodes.size(); ++p)
    {
        std::string reason;
        if (!MapNode(in.nodes[p], rank, nRanks, fileOps[p], reason))
        {
            return Fail(in, p, reason, error);
        }
        for (uint64_t d : in.nodes[p].deps)
        {
            auto it = position.find(d);
            if (it == position.end() || it->second == p)
            {
                return Fail(in,
                            p,
                            "depends on node id " + std::to_string(d) +
                                (it == position.end() ? ", which is not in the file" : ", itself"),
                            error);
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
        return false;
    }
    std::vector<uint32_t> opIndex(in.nodes.size());
    for (uint32_t i = 0; i < order.size(); ++i)
    {
        opIndex[order[i]] = i;
    }
    for (uint32_t p : order)
    {
        for (uint32_t d : deps[p])
        {
            fileOps[p].deps.push_back(opIndex[d]);
        }
        ops.push_back(std::move(fileOps[p]));
    }
    return true;
}

TrainingTrace
BuildTrace(const std::vector<RankInput>& inputs, std::string& error)
{
    uint32_t nRanks = static_cast<uint32_t>(inputs.size());
    std::vector<std::vector<TraceOp>> ops(nRanks);
    std::vector<std::string> groupOrder;             // by first use
    std::map<std::string, std::set<uint32_t>> users; // group -> its members
    for (uint32_t rank = 0; rank < nRanks; ++rank)
    {
        if (!BuildRank(inputs[rank], rank, nRanks, ops[rank], error))
        {
            return TrainingTrace();
        }
        for (TraceOp& op : ops[rank])
        {
            if (op.kind != TraceOpKind::COLLECTIVE)
            {
                continue;
            }
            op.group = op.group.empty() ? "world" : op.group;
            if (users.count(op.group) == 0)
            {
                groupOrder.push_back(op.group);
            }
            users[op.group].insert(rank);
            for (uint32_t r = 0; op.group == "world" && r < nRanks; ++r)
            {
                users[op.group].insert(r);
            }
        }
    }

    TrainingTrace trace(nRanks);
    trace.SetName(DescribeFiles(inputs));
    for (const std::string& name : groupOrder)
    {
        const std::set<uint32_t>& members = users[name];
        trace.AddGroup(TraceGroup{name, "custom", {members.begin(), members.end()}});
    }
    for (uint32_t rank = 0; rank < nRanks; ++rank)
    {
        for (TraceOp& op : ops[rank])
        {
            trace.AddOp(rank, std::move(op));
        }
    }
    std::string why;
    uint32_t rank;
    if (!trace.Validate(&why))
    {
        error = DescribeFiles(inputs) + ": " + why;
        if (std::sscanf(why.c_str(), "rank %u op", &rank) == 1 && rank < nRanks)
        {
            error += " (rank " + std::to_string(rank) + " is " + inputs[rank].file + ")";
        }
        return TrainingTrace();
    }
    return trace;
}

using FileReader = std::function<bool(const std::string&, RankInput&, std::string&)>;

TrainingTrace
ReadAll(const std::vector<std::string>& files, const FileReader& readOne, std::string* error)
{
    std::string message = files.empty() ? "chakra trace: no files given" : "";
    std::vector<RankInput> inputs(files.size());
    bool ok = !files.empty();
    for (size_t r = 0; ok && r < files.size(); ++r)
    {
        ok = readOne(files[r], inputs[r], message);
    }
    TrainingTrace trace = ok ? BuildTrace(inputs, message) : TrainingTrace();
    if (error)
    {
        *error = trace.GetNRanks() == 0 ? message : "";
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
    std::vector<std::string> files;
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        files.push_back(prefix + "." + std::to_string(r) + ".et");
    }
    if (nRanks == 0 && error)
    {
        *error = "chakra trace " + prefix + ": nRanks must be at least 1";
    }
    return nRanks == 0 ? TrainingTrace() : ReadFiles(files, error);
}

TrainingTrace
ChakraTraceReader::ReadJson(const std::vector<std::string>& files, std::string* error)
{
    return ReadAll(files, ReadJsonFile, error);
}

} // namespace ns3
