// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRACE_JSON_H
#define TRACE_JSON_H

#include "training-trace.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The module's own training-trace format: JSON, schema "ai-fabric-trace/1" (documented
 * in doc/ai-fabric.rst, "Training traces"). Reading checks every field and runs
 * TrainingTrace::Validate; a key the schema does not define for that kind of object is
 * an error too (a misspelled optional field would otherwise be ignored). Errors name the
 * file, the JSON place (e.g. "/programs/3/ops/17/bytes") and what was expected.
 */
class TraceJson
{
  public:
    /// The schema string every file carries in its "schema" field.
    static constexpr const char* SCHEMA = "ai-fabric-trace/1";

    /**
     * Read a trace file.
     * \param file path
     * \param error set to the reason on failure
     * \return the trace, or an empty one (no ranks) on failure
     */
    static TrainingTrace Read(const std::string& file, std::string* error);

    /**
     * Parse trace text.
     * \param text JSON text
     * \param source name used in error messages (the file name)
     * \param error set to the reason on failure
     * \return the trace, or an empty one on failure
     */
    static TrainingTrace Parse(const std::string& text,
                               const std::string& source,
                               std::string* error);

    /// \return the trace as JSON text (Parse reads it back to an equal trace)
    static std::string Serialize(const TrainingTrace& trace);

    /**
     * Write a trace file.
     * \return false, with error set, if the file cannot be written
     */
    static bool Write(const TrainingTrace& trace, const std::string& file, std::string* error);
};

} // namespace ns3

#endif // TRACE_JSON_H
