// SPDX-License-Identifier: GPL-2.0-only
// The JSON forms of ChakraTraceReader (see chakra-reader.h): a file becomes a RankInput.
#include "chakra-reader.h"
#include "json-text.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

namespace ns3
{
namespace chakra
{
namespace
{

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
        return UnsignedFromReal(v.get<double>(), out);
    }
    return v.is_string() && UnsignedFromDecimal(v.get_ref<const std::string&>(), out);
}

/// A JSON attribute value. Decimal strings (protobuf's form of 64-bit integers) stay TEXT:
/// LookUp reads them as numbers where a number is expected.
ProtobufValue
JsonAttr(const nlohmann::json& v)
{
    if (v.is_boolean() || v.is_number_unsigned())
    {
        return ProtobufValue::FromUnsigned(v.is_boolean() ? v.get<bool>() : v.get<uint64_t>());
    }
    if (v.is_number_integer())
    {
        return ProtobufValue::FromSigned(v.get<int64_t>());
    }
    if (v.is_number_float())
    {
        return ProtobufValue::FromReal(v.get<double>());
    }
    return v.is_string() ? ProtobufValue::FromText(v.get<std::string>()) : ProtobufValue{};
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

/// Read a node's type if obj has one (a number or a NODE_TYPE_NAMES name, with or without
/// its "_NODE"); false with reason set if it is unknown.
bool
JsonNodeType(const nlohmann::json& obj, RawNode& node, std::string& reason)
{
    const nlohmann::json* v;
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
    return true;
}

/// Read a node's data and control dependencies; false with reason set if malformed.
bool
JsonNodeDeps(const nlohmann::json& obj, RawNode& node, std::string& reason)
{
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
    return true;
}

/// Read a node's attributes: keys of their own (the workload_graph form), then the attr
/// list; false with reason set if malformed.
bool
JsonNodeAttrs(const nlohmann::json& obj, RawNode& node, std::string& reason)
{
    const nlohmann::json* v;
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

/// Read a node object of either JSON form; false with reason set if it is malformed.
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
    if (!JsonNodeType(obj, node, reason) || !JsonNodeDeps(obj, node, reason))
    {
        return false;
    }
    if ((v = Find(obj, {"durationMicros", "duration_micros", "runtime"})) &&
        !JsonUnsigned(*v, node.durationMicros))
    {
        reason = "duration is not a non-negative integer (microseconds)";
        return false;
    }
    return JsonNodeAttrs(obj, node, reason);
}

} // namespace

bool
ReadJsonRank(const std::string& file, RankInput& input, std::string& error)
{
    std::string text;
    nlohmann::json doc;
    if (!LoadTraceFile(file, text, error))
    {
        return false;
    }
    input.file = file;
    if (!JsonText::Parse(text, file, &doc, &error))
    {
        return false;
    }
    const nlohmann::json* nodes = doc.is_object() ? Find(doc, {"workload_graph", "nodes"}) : &doc;
    if (!nodes || !nodes->is_array())
    {
        error = file + ": expected an array of nodes, or an object with a \"workload_graph\" "
                       "or \"nodes\" array";
        return false;
    }
    try
    {
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
    }
    catch (const nlohmann::json::exception& e)
    {
        // JsonNode checks every type before reading; this is a backstop, not a path.
        error = file + ": unexpected JSON content: " + JsonText::Describe(e);
        return false;
    }
    return true;
}

} // namespace chakra
} // namespace ns3
