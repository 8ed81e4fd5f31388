// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRACE_LABEL_H
#define TRACE_LABEL_H

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A trace op's label (its name, group or algorithm): the text held once in a
 * process-wide table, the label only its index there.
 *
 * A generated trace repeats a handful of texts millions of times (every rank of a
 * 16,384-GPU job has its "fwd.mb3.l47.rs" and its "dp12"): as std::string each op held
 * three of 32 bytes and a heap block for every name past 15 characters. A label is 4 bytes
 * and reads as the const std::string it stands for; two labels are equal exactly when
 * their texts are. The table only grows (by the distinct texts ever labelled) and, like
 * the simulator, is not safe to use from several threads at once.
 */
class TraceLabel
{
  public:
    /// The empty text.
    TraceLabel() = default;
    /// \param text the text (copied into the table once; explicit, so that comparing a
    ///        label with a view never adds the view's text to the table)
    explicit TraceLabel(std::string_view text);
    /// \param text the text
    TraceLabel(const std::string& text); // NOLINT
    /// \param text the text (null-terminated)
    TraceLabel(const char* text); // NOLINT

    /// \return the text
    const std::string& str() const;

    /// \return the text
    operator const std::string&() const // NOLINT: reads as its text
    {
        return str();
    }

    /// \return the text as a C string
    const char* c_str() const
    {
        return str().c_str();
    }

    /// \return whether the text is empty
    bool empty() const
    {
        return m_id == 0;
    }

    /// \return the text's length
    std::size_t size() const
    {
        return str().size();
    }

    /// \param o another label \return whether the texts are equal
    bool operator==(const TraceLabel& o) const
    {
        return m_id == o.m_id;
    }

    /// \param o another label \return whether the texts differ
    bool operator!=(const TraceLabel& o) const
    {
        return m_id != o.m_id;
    }

    /// \param o another label \return whether the text orders before o's (as strings)
    bool operator<(const TraceLabel& o) const
    {
        return str() < o.str();
    }

    /// \return distinct texts labelled so far (the empty one included)
    static std::size_t GetNTexts();

  private:
    uint32_t m_id{0}; //!< index of the text in the table (0: empty)
};

/// \param a a label \param b a text \return whether a's text is b
inline bool
operator==(const TraceLabel& a, const std::string& b)
{
    return a.str() == b;
}

/// \param a a text \param b a label \return whether b's text is a
inline bool
operator==(const std::string& a, const TraceLabel& b)
{
    return a == b.str();
}

/// \param a a label \param b a text \return whether a's text is b
inline bool
operator==(const TraceLabel& a, const char* b)
{
    return a.str() == b;
}

/// \param a a label \param b a text \return whether a's text is not b
inline bool
operator!=(const TraceLabel& a, const std::string& b)
{
    return a.str() != b;
}

/// \param a a label \param b a text \return whether a's text is not b
inline bool
operator!=(const TraceLabel& a, const char* b)
{
    return a.str() != b;
}

/// \param a a label \param b a text \return a's text followed by b
inline std::string
operator+(const TraceLabel& a, std::string_view b)
{
    std::string s = a.str();
    s.append(b);
    return s;
}

/// \param a a text \param b a label \return a followed by b's text
inline std::string
operator+(std::string_view a, const TraceLabel& b)
{
    std::string s(a);
    s.append(b.str());
    return s;
}

/// \param os a stream \param label a label \return os, with the label's text written
std::ostream& operator<<(std::ostream& os, const TraceLabel& label);

} // namespace ns3

#endif
