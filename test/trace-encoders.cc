// SPDX-License-Identifier: GPL-2.0-only
#include "trace-encoders.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace ns3
{
namespace tracetest
{

std::string
Varint(uint64_t v)
{
    std::string s;
    while (v >= 0x80)
    {
        s += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    return s + static_cast<char>(v);
}

std::string
Tag(uint32_t field, uint32_t wire)
{
    return Varint((static_cast<uint64_t>(field) << 3) | wire);
}

std::string
Var(uint32_t field, uint64_t v)
{
    return Tag(field, 0) + Varint(v);
}

std::string
Len(uint32_t field, const std::string& payload)
{
    return Tag(field, 2) + Varint(payload.size()) + payload;
}

std::string
Fixed(uint32_t field, uint64_t v, size_t width)
{
    std::string s = Tag(field, width == 8 ? 1 : 5);
    for (size_t i = 0; i < width; ++i)
    {
        s += static_cast<char>((v >> (8 * i)) & 0xff);
    }
    return s;
}

std::string
Message(const std::string& m)
{
    return Varint(m.size()) + m;
}

std::string
ChakraMetadata(const std::string& version)
{
    return Message(Len(1, version));
}

std::string
ChakraAttr(const std::string& name, const std::string& valueField)
{
    return Len(10, Len(1, name) + valueField);
}

std::string
ChakraNodeHead(uint64_t id, const std::string& name, uint64_t type)
{
    return (id != 0 ? Var(1, id) : "") + Len(2, name) + Var(3, type);
}

std::string
ChakraPackedDeps(const std::vector<uint64_t>& deps)
{
    std::string payload;
    for (uint64_t d : deps)
    {
        payload += Varint(d);
    }
    return Len(5, payload);
}

std::string
ChakraCollective(uint64_t id,
                 uint64_t commType,
                 uint64_t bytes,
                 const std::string& extra,
                 const std::string& name)
{
    // int64_val is field 9 of AttributeProto.
    return Message(ChakraNodeHead(id, name, CHAKRA_COMM_COLL) +
                   ChakraAttr("comm_type", Var(9, commType)) +
                   ChakraAttr("comm_size", Var(9, bytes)) + extra);
}

std::vector<std::string>
WriteChakraCollective(const std::string& prefix,
                      uint32_t ranks,
                      uint64_t commType,
                      uint64_t bytes,
                      const std::string& name)
{
    std::vector<std::string> files;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        // is_cpu_op false (bool_val, field 27), as the generator writes it.
        files.push_back(WriteFile(
            prefix + "." + std::to_string(r) + ".et",
            ChakraMetadata() +
                ChakraCollective(0, commType, bytes, ChakraAttr("is_cpu_op", Var(27, 0)), name)));
    }
    return files;
}

std::string
AicbWorkload(const std::string& header, const std::vector<AicbLayer>& layers)
{
    std::ostringstream out;
    out << header << "\n" << layers.size() << "\n";
    for (const AicbLayer& l : layers)
    {
        out << l.name << "\t-1\t" << l.fwdNs << "\t" << l.fwdComm << "\t" << l.fwdBytes << "\t"
            << l.igNs << "\t" << l.igComm << "\t" << l.igBytes << "\t" << l.wgNs << "\t" << l.wgComm
            << "\t" << l.wgBytes << "\t" << l.updateNs << "\n";
    }
    return out.str();
}

const TraceOp&
FindOp(const TrainingTrace& trace, uint32_t rank, const std::string& name)
{
    static const TraceOp NONE;
    for (const TraceOp& op : trace.GetOps(rank))
    {
        if (op.name == name)
        {
            return op;
        }
    }
    ADD_FAILURE() << "rank " << rank << " has no op " << name;
    return NONE;
}

size_t
Count(const TrainingTrace& trace, uint32_t rank, TraceOpKind kind)
{
    size_t n = 0;
    for (const TraceOp& op : trace.GetOps(rank))
    {
        n += op.kind == kind ? 1 : 0;
    }
    return n;
}

std::string
WriteFile(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    return path;
}

} // namespace tracetest
} // namespace ns3
