// SPDX-License-Identifier: GPL-2.0-only
#include "json-text.h"

namespace ns3
{

namespace
{

/// Accepts every value and records where the parser failed (parse_error's byte offset is
/// the only place the library gives the position of a number overflow).
class FailurePosition : public nlohmann::json_sax<nlohmann::json>
{
  public:
    bool null() override
    {
        return true;
    }

    bool boolean(bool) override
    {
        return true;
    }

    bool number_integer(number_integer_t) override
    {
        return true;
    }

    bool number_unsigned(number_unsigned_t) override
    {
        return true;
    }

    bool number_float(number_float_t, const string_t&) override
    {
        return true;
    }

    bool string(string_t&) override
    {
        return true;
    }

    bool binary(binary_t&) override
    {
        return true;
    }

    bool start_object(std::size_t) override
    {
        return true;
    }

    bool key(string_t&) override
    {
        return true;
    }

    bool end_object() override
    {
        return true;
    }

    bool start_array(std::size_t) override
    {
        return true;
    }

    bool end_array() override
    {
        return true;
    }

    bool parse_error(std::size_t position,
                     const std::string& lastToken,
                     const nlohmann::json::exception& e) override
    {
        failed = true;
        byte = position;
        token = lastToken;
        what = JsonText::Describe(e);
        return false;
    }

    bool failed{false};  //!< the parser reported an error
    std::size_t byte{0}; //!< bytes read when it failed (just past the offending token)
    std::string token;   //!< the offending token as the library prints it
    std::string what;    //!< what it said
};

} // namespace

std::pair<std::size_t, std::size_t>
JsonText::LineColumn(const std::string& text, std::size_t byte)
{
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < byte && i < text.size(); ++i)
    {
        if (text[i] == '\n')
        {
            ++line;
            column = 1;
        }
        else
        {
            ++column;
        }
    }
    return {line, column};
}

std::string
JsonText::Describe(const nlohmann::json::exception& e)
{
    std::string what = e.what();
    const std::size_t tag = what.find("] ");
    if (what.rfind("[json.exception.", 0) == 0 && tag != std::string::npos)
    {
        what = what.substr(tag + 2);
    }
    if (what.rfind("parse error", 0) == 0)
    {
        const std::size_t colon = what.find(": ");
        if (colon != std::string::npos)
        {
            what = what.substr(colon + 2);
        }
    }
    if (e.id == 406)
    {
        what += " (larger than a double can hold)";
    }
    return what;
}

bool
JsonText::Parse(const std::string& text,
                const std::string& source,
                nlohmann::json* doc,
                std::string* error)
{
    try
    {
        *doc = nlohmann::json::parse(text);
        return true;
    }
    catch (const nlohmann::json::exception& e)
    {
        // Parse again, only to find where: the exception carries no position for every
        // kind of failure, the SAX interface does.
        FailurePosition where;
        std::size_t at = 0;
        std::string what = Describe(e);
        if (!nlohmann::json::sax_parse(text, &where) && where.failed)
        {
            // The offset is just past the offending token: point at its first byte where
            // the text holds it as printed, else at its last byte.
            const std::size_t size = where.token.size();
            at = where.byte > 0 ? where.byte - 1 : 0;
            if (size > 0 && size <= where.byte &&
                text.compare(where.byte - size, size, where.token) == 0)
            {
                at = where.byte - size;
            }
            what = where.what;
        }
        const auto [line, column] = LineColumn(text, at);
        *error = source + ": line " + std::to_string(line) + ", column " + std::to_string(column) +
                 ": not valid JSON: " + what;
        return false;
    }
}

} // namespace ns3
