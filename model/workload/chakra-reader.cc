// SPDX-License-Identifier: GPL-2.0-only
// ChakraTraceReader: the binary form, and the mapping of nodes to ops shared with the JSON
// forms (chakra-json-reader.cc). The wire format itself is read by protobuf-wire.
#include "chakra-reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <queue>
#include <set>
#include <sstream>

namespace ns3
{
namespace chakra
{

const char* const NODE_TYPE_NAMES[8] = {"INVALID_NODE",
                                        "METADATA_NODE",
                                        "MEM_LOAD_NODE",
                                        "MEM_STORE_NODE",
                                        "COMP_NODE",
                                        "COMM_SEND_NODE",
                                        "COMM_RECV_NODE",
                                        "COMM_COLL_NODE"};

bool
LoadTraceFile(const std::string& file, std::string& bytes, std::string& error)
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
UnsignedFromReal(double d, uint64_t& out)
{
    out = d >= 0 && d < 1.8e19 ? static_cast<uint64_t>(d) : 0;
    return d >= 0 && d < 1.8e19 && std::floor(d) == d;
}

bool
UnsignedFromDecimal(const std::string& s, uint64_t& out)
{
    char* end = nullptr;
    errno = 0;
    out = std::strtoull(s.c_str(), &end, 10);
    return !s.empty() && std::isdigit(static_cast<unsigned char>(s[0])) && errno == 0 &&
           *end == '\0';
}

namespace
{

// CollectiveCommType of et_def.proto, indexed by number.
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

// ---------------------------------------------------------------------- binary form

/// The scalar value fields of AttributeProto's oneof, by field number.
const std::map<uint32_t, ProtobufScalarType> ATTRIBUTE_SCALAR_FIELDS = {
    {3, ProtobufScalarType::DOUBLE},
    {5, ProtobufScalarType::FLOAT},
    {7, ProtobufScalarType::INT32},
    {9, ProtobufScalarType::INT64},
    {11, ProtobufScalarType::UINT32},
    {13, ProtobufScalarType::UINT64},
    {15, ProtobufScalarType::SINT32},
    {17, ProtobufScalarType::SINT64},
    {19, ProtobufScalarType::FIXED32},
    {21, ProtobufScalarType::FIXED64},
    {23, ProtobufScalarType::SFIXED32},
    {25, ProtobufScalarType::SFIXED64},
    {27, ProtobufScalarType::BOOL},
};

/// Decode an AttributeProto: its name and, for the kinds the mapping reads, its value.
bool
ParseAttr(ProtobufWireReader& r, std::string& name, ProtobufValue& value)
{
    return r.ForEachField([&](uint32_t field, uint32_t wire) {
        auto scalar = ATTRIBUTE_SCALAR_FIELDS.find(field);
        if (scalar != ATTRIBUTE_SCALAR_FIELDS.end())
        {
            return r.ReadScalar(field, "attribute value", wire, scalar->second, value);
        }
        if (field == 1 || field == 29) // name, string_val
        {
            value.kind = field == 29 ? ProtobufValue::Kind::TEXT : value.kind;
            return r.ExpectWireType(field,
                                    field == 1 ? "name" : "string_val",
                                    wire,
                                    ProtobufWireReader::LENGTH_DELIMITED) &&
                   r.ReadString(field == 1 ? name : value.text);
        }
        return r.SkipValue(wire); // doc_string, bytes, the *List messages, later fields
    });
}

/// Decode a Node message.
bool
ParseNode(ProtobufWireReader& r, RawNode& node)
{
    constexpr uint32_t VARINT = ProtobufWireReader::VARINT;
    constexpr uint32_t LENGTH_DELIMITED = ProtobufWireReader::LENGTH_DELIMITED;
    return r.ForEachField([&](uint32_t field, uint32_t wire) {
        uint64_t v = 0;
        ProtobufWireReader attr;
        std::string name;
        ProtobufValue value;
        switch (field)
        {
        case 1:
            return r.ExpectWireType(field, "id", wire, VARINT) && r.ReadVarint(node.id);
        case 2:
            return r.ExpectWireType(field, "name", wire, LENGTH_DELIMITED) &&
                   r.ReadString(node.name);
        case 3:
            if (!r.ExpectWireType(field, "type", wire, VARINT) || !r.ReadVarint(v))
            {
                return false;
            }
            node.type = static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX));
            return true;
        case 4:
        case 5:
            return r.ReadRepeatedVarint(field,
                                        field == 4 ? "ctrl_deps" : "data_deps",
                                        wire,
                                        node.deps);
        case 7:
            return r.ExpectWireType(field, "duration_micros", wire, VARINT) &&
                   r.ReadVarint(node.durationMicros);
        case 10:
            if (!r.ExpectWireType(field, "attr", wire, LENGTH_DELIMITED) ||
                !r.ReadLengthDelimited(attr) ||
                !(ParseAttr(attr, name, value) || r.Propagate(attr)))
            {
                return false;
            }
            node.attrs[name] = value;
            return true;
        default: // start_time_micros, inputs, outputs, fields of later schemas
            return r.SkipValue(wire);
        }
    });
}

/// Read one rank's file in the binary form; false with error naming file and message.
bool
ReadBinaryRank(const std::string& file, RankInput& input, std::string& error)
{
    std::string bytes;
    if (!LoadTraceFile(file, bytes, error))
    {
        return false;
    }
    input.file = file;
    if (bytes.empty())
    {
        error = file + ": empty file (no GlobalMetadata message)";
        return false;
    }
    ProtobufWireReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0);
    for (uint64_t k = 0; !r.AtEnd(); ++k)
    {
        ProtobufWireReader message;
        RawNode node;
        node.where =
            "message #" + std::to_string(k) + " at byte offset " + std::to_string(r.Offset());
        // GlobalMetadata (version, attrs) is informative: only checked to be well formed.
        bool ok = r.ReadLengthDelimited(message) &&
                  (k == 0 ? message.SkipMessage() : ParseNode(message, node));
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
    const ProtobufValue& a = it->second;
    bool ok = a.kind == ProtobufValue::Kind::INTEGER && (!a.negative || a.magnitude == 0);
    value = a.magnitude;
    if (a.kind == ProtobufValue::Kind::REAL || a.kind == ProtobufValue::Kind::TEXT)
    {
        ok = a.kind == ProtobufValue::Kind::REAL ? UnsignedFromReal(a.real, value)
                                                 : UnsignedFromDecimal(a.text, value);
    }
    if (ok && value <= max)
    {
        return true;
    }
    reason = "attribute " + name + " is not an integer in [0, " + std::to_string(max) + "]" +
             (a.kind == ProtobufValue::Kind::INTEGER
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
            const ProtobufValue& a = pg->second;
            op.group = a.kind == ProtobufValue::Kind::INTEGER
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
            return Fail(in,
                        p,
                        "duplicate node id (first at " + in.nodes[first->second].where + ")",
                        error);
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
} // namespace chakra

TrainingTrace
ChakraTraceReader::ReadFiles(const std::vector<std::string>& files, std::string* error)
{
    return chakra::ReadAll(files, chakra::ReadBinaryRank, error);
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
    return chakra::ReadAll(files, chakra::ReadJsonRank, error);
}

} // namespace ns3
