// SPDX-License-Identifier: GPL-2.0-only
#ifndef CHAKRA_READER_H
#define CHAKRA_READER_H

#include "protobuf-wire.h"
#include "training-trace.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Reads MLCommons Chakra execution traces (schema et_def.proto) into a TrainingTrace.
 *
 * Input: one file per rank. The binary form is a stream of messages, each preceded by
 * its length as a varint: a GlobalMetadata first, then Nodes. The reader decodes the
 * protobuf wire format itself (no protobuf dependency) and never trusts a length: every
 * one is bounded by what is left of its enclosing buffer, varints longer than 10 bytes
 * and the wire types protobuf no longer uses (3, 4) or never defined (6, 7) are errors.
 * Unknown fields of a known wire type are skipped, as protobuf does. gzip'd files are
 * recognised by their magic bytes and refused with a hint (zlib is not linked).
 *
 * Mapping of a node (all integer attribute kinds are accepted for the same attribute,
 * since generators differ in the kind they pick):
 * - COMP_NODE, METADATA_NODE, MEM_LOAD_NODE, MEM_STORE_NODE: COMPUTE on stream 0 lasting
 *   duration_micros (zero-duration ops are kept so dependencies through them stay);
 * - COMM_COLL_NODE: COLLECTIVE on stream 1; attr comm_type (ALL_REDUCE, REDUCE,
 *   ALL_GATHER, BROADCAST, ALL_TO_ALL, REDUCE_SCATTER; others are refused), comm_size
 *   (bytes); group = attr pg_name, whose members are the ranks whose files name it, or
 *   "world" (all ranks) without pg_name. Chakra has no root: BROADCAST/REDUCE root 0;
 * - COMM_SEND_NODE / COMM_RECV_NODE: SEND / RECV on stream 1 to comm_dst / from
 *   comm_src, tag comm_tag (default 0), comm_size bytes;
 * - data_deps and ctrl_deps both become deps; a dep on a node the file lacks is an error.
 *
 * Op order: node ids are arbitrary, so ops are numbered in file order. Because a stream
 * is a FIFO, an op depending on a later op of its own stream would deadlock; the reader
 * therefore lists the ops in a topological order of their deps that keeps file order
 * wherever the deps allow (a file that is already in dependency order keeps it exactly).
 * A real dependency cycle is an error naming nodes on it.
 *
 * JSON forms (ReadJson): a file holds an array of nodes in protobuf's JSON mapping
 * (camelCase or original field names, 64-bit integers as strings or numbers, enums by
 * name or number), or an object with "nodes" or "workload_graph" (keys "Id", "Name",
 * "NodeType", "ctrlDeps", "data_deps", "runtime" in microseconds); attributes come from
 * "attr" or from keys named like the attributes (comm_type, comm_size, ...).
 *
 * Errors: the returned trace is empty (GetNRanks() == 0) and *error names the file, the
 * record (message number and byte offset, or node id) and the reason.
 */
class ChakraTraceReader
{
  public:
    /**
     * Read binary traces.
     * \param files file i holds rank i
     * \param error set to the problem on failure (may be null)
     * \return the trace, or an empty one on failure
     */
    static TrainingTrace ReadFiles(const std::vector<std::string>& files, std::string* error);

    /**
     * Read binary traces named {prefix}.{rank}.et for rank 0 .. nRanks-1.
     * \param prefix path up to the rank number
     * \param nRanks number of ranks (files)
     * \param error set to the problem on failure (may be null)
     * \return the trace, or an empty one on failure
     */
    static TrainingTrace ReadPrefix(const std::string& prefix, uint32_t nRanks, std::string* error);

    /**
     * Read JSON traces (see the class description for the accepted forms).
     * \param files file i holds rank i
     * \param error set to the problem on failure (may be null)
     * \return the trace, or an empty one on failure
     */
    static TrainingTrace ReadJson(const std::vector<std::string>& files, std::string* error);
};

/**
 * \internal
 * What the two halves of ChakraTraceReader share: chakra-reader.cc reads the binary form
 * and maps nodes to ops, chakra-json-reader.cc reads the JSON forms. Not for other uses.
 */
namespace chakra
{

/// NodeType of et_def.proto, indexed by number.
extern const char* const NODE_TYPE_NAMES[8];

/// A node of either form, before it becomes an op.
struct RawNode
{
    uint64_t id{0};                             //!< node id (arbitrary, unique in a file)
    std::string name;                           //!< node name ("" if none)
    int64_t type{0};                            //!< NodeType number
    std::vector<uint64_t> deps;                 //!< data_deps and ctrl_deps, as read
    uint64_t durationMicros{0};                 //!< duration_micros
    std::map<std::string, ProtobufValue> attrs; //!< attributes by name
    std::string where;                          //!< "message #3 at byte offset 120" or "node #3"
};

/// One rank's file, read.
struct RankInput
{
    std::string file;           //!< file name
    std::vector<RawNode> nodes; //!< its nodes in file order
};

/**
 * Read a whole trace file.
 * \param file file name
 * \param bytes set to its content
 * \param error set to a reason naming the file if it is unreadable or gzip'd
 * \return false on failure
 */
bool LoadTraceFile(const std::string& file, std::string& bytes, std::string& error);

/**
 * Read an unsigned integer given as a floating-point number.
 * \param d the number
 * \param out set to its value (0 if out of range)
 * \return whether d is integral and in [0, 1.8e19)
 */
bool UnsignedFromReal(double d, uint64_t& out);

/**
 * Read an unsigned integer given as a decimal string (protobuf's JSON form of 64-bit
 * integers).
 * \param s the string
 * \param out set to its value
 * \return whether s is all decimal digits and fits 64 bits
 */
bool UnsignedFromDecimal(const std::string& s, uint64_t& out);

/**
 * Read one rank's file in a JSON form (see ChakraTraceReader).
 * \param file file name
 * \param input set to its nodes
 * \param error set to a reason naming the file and node on failure
 * \return false on failure
 */
bool ReadJsonRank(const std::string& file, RankInput& input, std::string& error);

} // namespace chakra

} // namespace ns3

#endif // CHAKRA_READER_H
