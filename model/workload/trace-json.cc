// SPDX-License-Identifier: GPL-2.0-only
#include "trace-json.h"

#include "json-text.h"

#include <fstream>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

namespace ns3
{

namespace
{

using Json = nlohmann::json;

/// A reader failure: where in the document and what was expected.
struct TraceJsonError
{
    std::string where;
    std::string what;
};

/**
 * The keys each kind of object may carry; any other key is an error, so that a
 * misspelled optional field ("durration_ns") is reported instead of silently ignored.
 * One list per object kind: a new optional field is added to its kind's list only.
 */
struct TraceKeys
{
    using List = std::vector<std::string>;

    static const List& Top()
    {
        static const List
            keys{"schema", "name", "gpu", "ranks", "cpuRanks", "streams", "groups", "programs"};
        return keys;
    }

    static const List& Group()
    {
        static const List keys{"name", "kind", "ranks"};
        return keys;
    }

    static const List& Program()
    {
        static const List keys{"rank", "ops"};
        return keys;
    }

    /// Every op, whatever its kind.
    static const List& Op()
    {
        static const List keys{"kind", "name", "stream", "iteration", "deps"};
        return keys;
    }

    /// Keys of one op kind, beyond Op().
    static const List& OpKind(TraceOpKind kind)
    {
        static const List compute{"duration_us", "duration_ns"};
        static const List collective{"collective", "bytes", "group", "algorithm", "root"};
        static const List p2p{"peer", "bytes", "tag"};
        return kind == TraceOpKind::COMPUTE      ? compute
               : kind == TraceOpKind::COLLECTIVE ? collective
                                                 : p2p;
    }
};

/// Reads one document, throwing TraceJsonError at the first problem.
class TraceJsonParser
{
  public:
    TrainingTrace Parse(const Json& doc);

  private:
    static const Json& Need(const Json& obj, const std::string& key, const std::string& where);
    static uint64_t Unsigned(const Json& v, const std::string& where, uint64_t max);
    static std::string Text(const Json& v, const std::string& where);
    /// Throw at the first key of obj in none of the lists (what names the object kind).
    static void CheckKeys(const Json& obj,
                          const std::string& where,
                          const std::string& what,
                          std::initializer_list<const TraceKeys::List*> lists);
    /// "streams": the stream names, stream 0 first.
    void ParseStreams(const Json& streams);
    /// "groups": every group, its ranks below n.
    void ParseGroups(const Json& groups, uint32_t n);
    /// "programs": each of the n ranks' ops, one program per rank.
    void ParsePrograms(const Json& programs, uint32_t n);
    TraceOp ParseOp(const Json& v, uint32_t rank, const std::string& where) const;
    /// The fields every op may have: name, stream, iteration, deps.
    static void ParseOpCommon(const Json& v, const std::string& where, TraceOp& op);
    /// The fields of a compute op: its duration.
    static void ParseCompute(const Json& v, const std::string& where, TraceOp& op);
    /// The fields of a collective op: type, bytes, group, algorithm, root.
    void ParseCollective(const Json& v, const std::string& where, TraceOp& op) const;
    /// The fields of a send or recv op of rank: peer, bytes, tag.
    void ParsePointToPoint(const Json& v,
                           uint32_t rank,
                           const std::string& where,
                           TraceOp& op) const;
    TrainingTrace m_trace;
};

[[noreturn]] void
Throw(const std::string& where, const std::string& what)
{
    throw TraceJsonError{where, what};
}

const Json&
TraceJsonParser::Need(const Json& obj, const std::string& key, const std::string& where)
{
    auto it = obj.find(key);
    if (it == obj.end())
    {
        Throw(where, "missing field '" + key + "'");
    }
    return *it;
}

uint64_t
TraceJsonParser::Unsigned(const Json& v, const std::string& where, uint64_t max)
{
    if (v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0))
    {
        const uint64_t x = v.get<uint64_t>();
        if (x > max)
        {
            Throw(where, "must be at most " + std::to_string(max) + ", got " + std::to_string(x));
        }
        return x;
    }
    Throw(where, "expected a non-negative integer, got " + v.dump());
}

std::string
TraceJsonParser::Text(const Json& v, const std::string& where)
{
    if (!v.is_string())
    {
        Throw(where, "expected a string, got " + v.dump());
    }
    return v.get<std::string>();
}

void
TraceJsonParser::CheckKeys(const Json& obj,
                           const std::string& where,
                           const std::string& what,
                           std::initializer_list<const TraceKeys::List*> lists)
{
    for (auto it = obj.begin(); it != obj.end(); ++it)
    {
        bool known = false;
        std::string all;
        for (const TraceKeys::List* list : lists)
        {
            for (const std::string& key : *list)
            {
                known = known || key == it.key();
                all += (all.empty() ? "" : ", ") + key;
            }
        }
        if (!known)
        {
            Throw(where, "unknown key '" + it.key() + "' (" + what + " takes " + all + ")");
        }
    }
}

TraceOp
TraceJsonParser::ParseOp(const Json& v, uint32_t rank, const std::string& where) const
{
    if (!v.is_object())
    {
        Throw(where, "expected an op object, got " + v.dump());
    }
    TraceOp op;
    const std::string kind = Text(Need(v, "kind", where), where + "/kind");
    if (kind == "compute")
    {
        op.kind = TraceOpKind::COMPUTE;
    }
    else if (kind == "collective")
    {
        op.kind = TraceOpKind::COLLECTIVE;
    }
    else if (kind == "send")
    {
        op.kind = TraceOpKind::SEND;
    }
    else if (kind == "recv")
    {
        op.kind = TraceOpKind::RECV;
    }
    else
    {
        Throw(where + "/kind", "expected compute, collective, send or recv, got '" + kind + "'");
    }
    CheckKeys(v, where, "a " + kind + " op", {&TraceKeys::Op(), &TraceKeys::OpKind(op.kind)});
    ParseOpCommon(v, where, op);
    switch (op.kind)
    {
    case TraceOpKind::COMPUTE:
        ParseCompute(v, where, op);
        break;
    case TraceOpKind::COLLECTIVE:
        ParseCollective(v, where, op);
        break;
    case TraceOpKind::SEND:
    case TraceOpKind::RECV:
        ParsePointToPoint(v, rank, where, op);
        break;
    }
    return op;
}

void
TraceJsonParser::ParseOpCommon(const Json& v, const std::string& where, TraceOp& op)
{
    if (v.contains("name"))
    {
        op.name = Text(v["name"], where + "/name");
    }
    if (v.contains("stream"))
    {
        op.stream = static_cast<uint32_t>(Unsigned(v["stream"], where + "/stream", 1023));
    }
    if (v.contains("iteration"))
    {
        op.iteration =
            static_cast<uint32_t>(Unsigned(v["iteration"], where + "/iteration", 1u << 20));
    }
    if (v.contains("deps"))
    {
        const Json& deps = v["deps"];
        if (!deps.is_array())
        {
            Throw(where + "/deps", "expected an array of op indices, got " + deps.dump());
        }
        for (size_t k = 0; k < deps.size(); ++k)
        {
            op.deps.push_back(
                static_cast<uint32_t>(Unsigned(deps[k],
                                               where + "/deps/" + std::to_string(k),
                                               std::numeric_limits<uint32_t>::max())));
        }
    }
}

void
TraceJsonParser::ParseCompute(const Json& v, const std::string& where, TraceOp& op)
{
    const bool us = v.contains("duration_us");
    const bool ns = v.contains("duration_ns");
    if (us == ns)
    {
        Throw(where, "a compute op needs exactly one of 'duration_us' and 'duration_ns'");
    }
    if (ns)
    {
        op.duration = NanoSeconds(static_cast<int64_t>(
            Unsigned(v["duration_ns"], where + "/duration_ns", uint64_t{1} << 62)));
    }
    else
    {
        const Json& d = v["duration_us"];
        if (!d.is_number() || d.get<double>() < 0 || d.get<double>() > 1e12)
        {
            Throw(where + "/duration_us",
                  "expected a duration in microseconds >= 0, got " + d.dump());
        }
        op.duration = NanoSeconds(static_cast<int64_t>(d.get<double>() * 1e3 + 0.5));
    }
}

void
TraceJsonParser::ParseCollective(const Json& v, const std::string& where, TraceOp& op) const
{
    const std::string type = Text(Need(v, "collective", where), where + "/collective");
    if (!ParseCollectiveType(type, op.collective))
    {
        Throw(where + "/collective",
              "expected all-reduce, reduce-scatter, all-gather, broadcast, reduce or "
              "all-to-all, got '" +
                  type + "'");
    }
    op.bytes = Unsigned(Need(v, "bytes", where), where + "/bytes", uint64_t{1} << 50);
    op.group = Text(Need(v, "group", where), where + "/group");
    if (!m_trace.HasGroup(op.group))
    {
        Throw(where + "/group", "unknown group '" + op.group + "' (not in /groups)");
    }
    if (v.contains("algorithm"))
    {
        op.algorithm = Text(v["algorithm"], where + "/algorithm");
    }
    if (v.contains("root"))
    {
        op.root = static_cast<uint32_t>(Unsigned(v["root"], where + "/root", 1u << 24));
    }
}

void
TraceJsonParser::ParsePointToPoint(const Json& v,
                                   uint32_t rank,
                                   const std::string& where,
                                   TraceOp& op) const
{
    op.peer = static_cast<uint32_t>(
        Unsigned(Need(v, "peer", where), where + "/peer", m_trace.GetNRanks() - 1));
    if (op.peer == rank)
    {
        Throw(where + "/peer", "a rank cannot send to or receive from itself");
    }
    op.bytes = Unsigned(Need(v, "bytes", where), where + "/bytes", uint64_t{1} << 50);
    if (v.contains("tag"))
    {
        op.tag = static_cast<uint32_t>(
            Unsigned(v["tag"], where + "/tag", std::numeric_limits<uint32_t>::max()));
    }
}

TrainingTrace
TraceJsonParser::Parse(const Json& doc)
{
    if (!doc.is_object())
    {
        Throw("/", "expected a JSON object");
    }
    CheckKeys(doc, "/", "the top level", {&TraceKeys::Top()});
    const std::string schema = Text(Need(doc, "schema", ""), "/schema");
    if (schema != TraceJson::SCHEMA)
    {
        Throw("/schema",
              std::string("expected \"") + TraceJson::SCHEMA + "\", got \"" + schema + "\"");
    }
    const uint32_t n = static_cast<uint32_t>(Unsigned(Need(doc, "ranks", ""), "/ranks", 1u << 20));
    if (n == 0)
    {
        Throw("/ranks", "a trace needs at least one rank");
    }
    m_trace.SetNRanks(n);
    if (doc.contains("cpuRanks"))
    {
        // The trailing ranks that are CPU hosts (dedicated parameter servers).
        m_trace.SetNCpuRanks(static_cast<uint32_t>(Unsigned(doc["cpuRanks"], "/cpuRanks", n - 1)));
    }
    if (doc.contains("name"))
    {
        m_trace.SetName(Text(doc["name"], "/name"));
    }
    if (doc.contains("gpu"))
    {
        m_trace.SetGpu(Text(doc["gpu"], "/gpu"));
    }
    if (doc.contains("streams"))
    {
        ParseStreams(doc["streams"]);
    }
    if (doc.contains("groups"))
    {
        ParseGroups(doc["groups"], n);
    }
    ParsePrograms(Need(doc, "programs", ""), n);
    return std::move(m_trace);
}

void
TraceJsonParser::ParseStreams(const Json& streams)
{
    if (!streams.is_array() || streams.size() > 1024)
    {
        Throw("/streams", "expected an array of stream names (stream 0 first)");
    }
    for (size_t k = 0; k < streams.size(); ++k)
    {
        m_trace.SetStreamName(static_cast<uint32_t>(k),
                              Text(streams[k], "/streams/" + std::to_string(k)));
    }
}

void
TraceJsonParser::ParseGroups(const Json& groups, uint32_t n)
{
    if (!groups.is_array())
    {
        Throw("/groups", "expected an array of groups");
    }
    for (size_t i = 0; i < groups.size(); ++i)
    {
        const std::string where = "/groups/" + std::to_string(i);
        if (!groups[i].is_object())
        {
            Throw(where, "expected a group object");
        }
        CheckKeys(groups[i], where, "a group", {&TraceKeys::Group()});
        TraceGroup g;
        g.name = Text(Need(groups[i], "name", where), where + "/name");
        g.kind = groups[i].contains("kind") ? Text(groups[i]["kind"], where + "/kind") : "custom";
        if (m_trace.HasGroup(g.name))
        {
            Throw(where + "/name", "group '" + g.name + "' is defined twice");
        }
        const Json& ranks = Need(groups[i], "ranks", where);
        if (!ranks.is_array() || ranks.empty())
        {
            Throw(where + "/ranks", "expected a non-empty array of ranks");
        }
        for (size_t k = 0; k < ranks.size(); ++k)
        {
            g.ranks.push_back(static_cast<uint32_t>(
                Unsigned(ranks[k], where + "/ranks/" + std::to_string(k), n - 1)));
        }
        m_trace.AddGroup(g);
    }
}

void
TraceJsonParser::ParsePrograms(const Json& programs, uint32_t n)
{
    if (!programs.is_array())
    {
        Throw("/programs", "expected an array with one {rank, ops} per rank");
    }
    std::vector<bool> seen(n, false);
    for (size_t p = 0; p < programs.size(); ++p)
    {
        const std::string where = "/programs/" + std::to_string(p);
        if (!programs[p].is_object())
        {
            Throw(where, "expected an object {rank, ops}");
        }
        CheckKeys(programs[p], where, "a program", {&TraceKeys::Program()});
        const uint32_t rank = static_cast<uint32_t>(
            Unsigned(Need(programs[p], "rank", where), where + "/rank", n - 1));
        if (seen[rank])
        {
            Throw(where + "/rank", "rank " + std::to_string(rank) + " has two programs");
        }
        seen[rank] = true;
        const Json& ops = Need(programs[p], "ops", where);
        if (!ops.is_array())
        {
            Throw(where + "/ops", "expected an array of ops");
        }
        for (size_t i = 0; i < ops.size(); ++i)
        {
            m_trace.AddOp(rank, ParseOp(ops[i], rank, where + "/ops/" + std::to_string(i)));
        }
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        if (!seen[r])
        {
            Throw("/programs", "rank " + std::to_string(r) + " has no program");
        }
    }
}

/// One op as trace JSON (fields at their defaults left out).
Json
OpToJson(const TraceOp& op)
{
    Json o;
    o["kind"] = TraceOpKindToString(op.kind);
    if (!op.name.empty())
    {
        o["name"] = op.name;
    }
    if (op.stream != 0)
    {
        o["stream"] = op.stream;
    }
    if (op.iteration != 0)
    {
        o["iteration"] = op.iteration;
    }
    switch (op.kind)
    {
    case TraceOpKind::COMPUTE:
        o["duration_ns"] = op.duration.GetNanoSeconds();
        break;
    case TraceOpKind::COLLECTIVE:
        o["collective"] = CollectiveTypeToString(op.collective);
        o["bytes"] = op.bytes;
        o["group"] = op.group;
        if (!op.algorithm.empty())
        {
            o["algorithm"] = op.algorithm;
        }
        if (IsRootedCollective(op.collective))
        {
            o["root"] = op.root;
        }
        break;
    case TraceOpKind::SEND:
    case TraceOpKind::RECV:
        o["peer"] = op.peer;
        o["bytes"] = op.bytes;
        if (op.tag != 0)
        {
            o["tag"] = op.tag;
        }
        break;
    }
    if (!op.deps.empty())
    {
        o["deps"] = op.deps;
    }
    return o;
}

} // namespace

TrainingTrace
TraceJson::Parse(const std::string& text, const std::string& source, std::string* error)
{
    Json doc;
    std::string why;
    if (!JsonText::Parse(text, source, &doc, &why))
    {
        if (error)
        {
            *error = why;
        }
        return TrainingTrace();
    }
    TrainingTrace trace;
    try
    {
        TraceJsonParser parser;
        trace = parser.Parse(doc);
    }
    catch (const TraceJsonError& e)
    {
        if (error)
        {
            *error = source + ": " + (e.where.empty() ? "/" : e.where) + ": " + e.what;
        }
        return TrainingTrace();
    }
    catch (const Json::exception& e)
    {
        // The parser checks every type before reading; this is a backstop, not a path.
        if (error)
        {
            *error = source + ": unexpected JSON content: " + JsonText::Describe(e);
        }
        return TrainingTrace();
    }
    return TrainingTrace::Checked(std::move(trace), source, error);
}

TrainingTrace
TraceJson::Read(const std::string& file, std::string* error)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
    {
        if (error)
        {
            *error = file + ": cannot open the file";
        }
        return TrainingTrace();
    }
    std::ostringstream text;
    text << in.rdbuf();
    return Parse(text.str(), file, error);
}

std::string
TraceJson::Serialize(const TrainingTrace& trace)
{
    Json doc;
    doc["schema"] = SCHEMA;
    doc["name"] = trace.GetName();
    doc["ranks"] = trace.GetNRanks();
    doc["groups"] = Json::array();
    for (const TraceGroup& g : trace.GetGroups())
    {
        doc["groups"].push_back({{"name", g.name}, {"kind", g.kind}, {"ranks", g.ranks}});
    }
    doc["programs"] = Json::array();
    for (uint32_t r = 0; r < trace.GetNRanks(); ++r)
    {
        Json ops = Json::array();
        for (const TraceOp& op : trace.GetOps(r))
        {
            ops.push_back(OpToJson(op));
        }
        doc["programs"].push_back({{"rank", r}, {"ops", std::move(ops)}});
    }
    // One op per line keeps big traces diffable without the size of full indentation.
    std::ostringstream os;
    os << "{\n  \"schema\": " << doc["schema"].dump() << ",\n  \"name\": " << doc["name"].dump();
    if (!trace.GetGpu().empty())
    {
        os << ",\n  \"gpu\": " << Json(trace.GetGpu()).dump();
    }
    os << ",\n  \"ranks\": " << doc["ranks"].dump();
    if (trace.GetNCpuRanks() > 0)
    {
        os << ",\n  \"cpuRanks\": " << trace.GetNCpuRanks();
    }
    if (!trace.GetStreamNames().empty())
    {
        os << ",\n  \"streams\": " << Json(trace.GetStreamNames()).dump();
    }
    os << ",\n  \"groups\": [";
    for (size_t i = 0; i < doc["groups"].size(); ++i)
    {
        os << (i ? ",\n    " : "\n    ") << doc["groups"][i].dump();
    }
    os << "\n  ],\n  \"programs\": [";
    for (size_t p = 0; p < doc["programs"].size(); ++p)
    {
        const Json& prog = doc["programs"][p];
        os << (p ? ",\n" : "\n") << "    {\"rank\": " << prog["rank"].dump() << ", \"ops\": [";
        for (size_t i = 0; i < prog["ops"].size(); ++i)
        {
            os << (i ? ",\n      " : "\n      ") << prog["ops"][i].dump();
        }
        os << "\n    ]}";
    }
    os << "\n  ]\n}\n";
    return os.str();
}

bool
TraceJson::Write(const TrainingTrace& trace, const std::string& file, std::string* error)
{
    std::ofstream out(file, std::ios::binary);
    out << Serialize(trace);
    if (!out)
    {
        if (error)
        {
            *error = file + ": cannot write the file";
        }
        return false;
    }
    return true;
}

} // namespace ns3
