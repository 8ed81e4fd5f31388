// SPDX-License-Identifier: GPL-2.0-only
#include "trace-label.h"

#include "ns3/abort.h"

#include <deque>
#include <limits>
#include <ostream>
#include <unordered_map>

namespace ns3
{

namespace
{

/// The texts labelled so far: a deque keeps each text where it is as the table grows,
/// so the map's keys (views of them) and the references str() hands out stay valid.
struct LabelTable
{
    std::deque<std::string> texts{std::string()};
    std::unordered_map<std::string_view, uint32_t> index{{std::string_view(), 0}};
};

LabelTable&
Table()
{
    static LabelTable table;
    return table;
}

uint32_t
Intern(std::string_view text)
{
    LabelTable& t = Table();
    if (auto it = t.index.find(text); it != t.index.end())
    {
        return it->second;
    }
    NS_ABORT_MSG_IF(t.texts.size() >= std::numeric_limits<uint32_t>::max(),
                    "TraceLabel: more than 2^32 - 1 distinct texts");
    const auto id = static_cast<uint32_t>(t.texts.size());
    t.texts.emplace_back(text);
    t.index.emplace(std::string_view(t.texts.back()), id);
    return id;
}

} // namespace

TraceLabel::TraceLabel(std::string_view text)
    : m_id(Intern(text))
{
}

TraceLabel::TraceLabel(const std::string& text)
    : m_id(Intern(text))
{
}

TraceLabel::TraceLabel(const char* text)
    : m_id(Intern(text))
{
}

const std::string&
TraceLabel::str() const
{
    return Table().texts[m_id];
}

std::size_t
TraceLabel::GetNTexts()
{
    return Table().texts.size();
}

std::ostream&
operator<<(std::ostream& os, const TraceLabel& label)
{
    return os << label.str();
}

} // namespace ns3
