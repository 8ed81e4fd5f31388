// SPDX-License-Identifier: GPL-2.0-only
#ifndef JSON_TEXT_H
#define JSON_TEXT_H

// Private header (not installed): the module's JSON readers (traces, model configs,
// Chakra JSON, scenarios, topology files) parse their text through here, so that every
// failure of the JSON library becomes one line naming the file, line and column.

#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Parsing JSON text for the module's readers. nlohmann::json throws parse_error for a
 * syntax error and out_of_range (406) for a number no double can hold (1e309); both, and
 * any other exception of the library, become one line "SOURCE: line L, column C: not
 * valid JSON: WHAT", never an uncaught exception.
 */
class JsonText
{
  public:
    /**
     * Parse text.
     * \param text the JSON text
     * \param source the name errors start with (a file name)
     * \param doc set to the document on success
     * \param error set on failure: "SOURCE: line L, column C: not valid JSON: ..."
     * \return true on success
     */
    static bool Parse(const std::string& text,
                      const std::string& source,
                      nlohmann::json* doc,
                      std::string* error);

    /**
     * The line and column (both from 1) of a byte offset into text.
     * \param text the text
     * \param byte the offset (clamped to the text's size)
     * \return {line, column}
     */
    static std::pair<std::size_t, std::size_t> LineColumn(const std::string& text,
                                                          std::size_t byte);

    /**
     * What a JSON library exception says, without its "[json.exception.NAME] " and
     * "parse error at line L, column C: " prefixes.
     * \param e the exception
     * \return the message
     */
    static std::string Describe(const nlohmann::json::exception& e);
};

} // namespace ns3

#endif // JSON_TEXT_H
