// SPDX-License-Identifier: GPL-2.0-only
#include "quantity-text.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

namespace ns3
{

namespace
{

/// Split "<digits>[.<digits>][e<exp>]<unit>" (no sign, no spaces); unit may be empty
/// only if emptyUnit.
bool
SplitNumber(const std::string& s, double* value, std::string* unit, bool emptyUnit = false)
{
    std::size_t i = 0;
    std::size_t digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
    {
        ++i;
        ++digits;
    }
    if (i < s.size() && s[i] == '.')
    {
        ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
        {
            ++i;
            ++digits;
        }
    }
    if (digits == 0)
    {
        return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E') && i + 1 < s.size() &&
        (std::isdigit(static_cast<unsigned char>(s[i + 1])) ||
         ((s[i + 1] == '+' || s[i + 1] == '-') && i + 2 < s.size() &&
          std::isdigit(static_cast<unsigned char>(s[i + 2])))))
    {
        i += 2;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
        {
            ++i;
        }
    }
    *value = std::strtod(s.substr(0, i).c_str(), nullptr);
    *unit = s.substr(i);
    return std::isfinite(*value) && (emptyUnit || !unit->empty());
}

void
SetWhy(std::string* why, const std::string& text)
{
    if (why)
    {
        *why = text;
    }
}

} // namespace

bool
TextToDataRate(const std::string& text, DataRate& rate, std::string* why)
{
    static const std::map<std::string, double> units = {{"bps", 1},
                                                        {"b/s", 1},
                                                        {"Bps", 8},
                                                        {"B/s", 8},
                                                        {"kbps", 1e3},
                                                        {"kb/s", 1e3},
                                                        {"Kbps", 1e3},
                                                        {"Kb/s", 1e3},
                                                        {"kBps", 8e3},
                                                        {"kB/s", 8e3},
                                                        {"KBps", 8e3},
                                                        {"KB/s", 8e3},
                                                        {"Kib/s", 1024.0},
                                                        {"KiB/s", 8192.0},
                                                        {"Mbps", 1e6},
                                                        {"Mb/s", 1e6},
                                                        {"MBps", 8e6},
                                                        {"MB/s", 8e6},
                                                        {"Mib/s", 1048576.0},
                                                        {"MiB/s", 8388608.0},
                                                        {"Gbps", 1e9},
                                                        {"Gb/s", 1e9},
                                                        {"GBps", 8e9},
                                                        {"GB/s", 8e9},
                                                        {"Gib/s", 1073741824.0},
                                                        {"GiB/s", 8589934592.0},
                                                        {"Tbps", 1e12},
                                                        {"Tb/s", 1e12},
                                                        {"TBps", 8e12},
                                                        {"TB/s", 8e12},
                                                        {"Tib/s", 1099511627776.0},
                                                        {"TiB/s", 8796093022208.0}};
    SetWhy(why, "");
    double value;
    std::string unit;
    if (!SplitNumber(text, &value, &unit))
    {
        return false;
    }
    auto it = units.find(unit);
    if (it == units.end())
    {
        SetWhy(why,
               "unknown unit \"" + unit +
                   "\"; use bps, kbps, Mbps, Gbps, Tbps, B/s, GB/s, Gib/s, ...");
        return false;
    }
    const double bps = std::round(value * it->second);
    // 1.8e19 bit/s is where uint64_t ends; nothing physical gets near it.
    if (!(bps >= 1) || bps >= 1.8e19)
    {
        return false;
    }
    rate = DataRate(static_cast<uint64_t>(bps));
    return true;
}

bool
TextToTime(const std::string& text, Time& time, std::string* why)
{
    // Unit and its length in seconds (for the bound).
    static const std::map<std::string, std::pair<Time::Unit, double>> units = {
        {"s", {Time::S, 1}},
        {"ms", {Time::MS, 1e-3}},
        {"us", {Time::US, 1e-6}},
        {"ns", {Time::NS, 1e-9}},
        {"ps", {Time::PS, 1e-12}}};
    SetWhy(why, "");
    double value;
    std::string unit;
    if (!SplitNumber(text, &value, &unit))
    {
        return false;
    }
    auto it = units.find(unit);
    if (it == units.end())
    {
        SetWhy(why, "unknown unit \"" + unit + "\"; use s, ms, us, ns or ps");
        return false;
    }
    if (value * it->second.second > 3600)
    {
        SetWhy(why, "longer than an hour");
        return false;
    }
    time = Time::FromDouble(value, it->second.first);
    return true;
}

bool
IsIntegerText(const std::string& text, bool allowMinus)
{
    const bool minus = allowMinus && !text.empty() && text[0] == '-';
    const std::string digits = minus ? text.substr(1) : text;
    return !digits.empty() && digits.size() <= 19 &&
           digits.find_first_not_of("0123456789") == std::string::npos;
}

bool
TextToNumber(const std::string& text, double& value)
{
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])))
    {
        return false;
    }
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(v))
    {
        return false;
    }
    value = v;
    return true;
}

const char* const FLAG_FORMS = "true, false, on, off, 1 or 0";

bool
TextToBool(const std::string& text, bool& value)
{
    if (text == "true" || text == "1" || text == "on" || text == "false" || text == "0" ||
        text == "off")
    {
        value = text == "true" || text == "1" || text == "on";
        return true;
    }
    return false;
}

const char* const BYTES_FORMS =
    "like 4096, 64K, 16M or 1G (K, M, G, T, KiB, MiB, GiB, TiB binary; kB, MB, GB, TB decimal)";

bool
TextToBytes(const std::string& text, uint64_t& bytes, std::string* why)
{
    // Binary: single letters (as nccl-tests reads sizes) and IEC names; decimal: SI names.
    static const std::map<std::string, double> units = {{"", 1},
                                                        {"B", 1},
                                                        {"K", 1024.0},
                                                        {"k", 1024.0},
                                                        {"KiB", 1024.0},
                                                        {"M", 1048576.0},
                                                        {"m", 1048576.0},
                                                        {"MiB", 1048576.0},
                                                        {"G", 1073741824.0},
                                                        {"g", 1073741824.0},
                                                        {"GiB", 1073741824.0},
                                                        {"T", 1099511627776.0},
                                                        {"t", 1099511627776.0},
                                                        {"TiB", 1099511627776.0},
                                                        {"kB", 1e3},
                                                        {"KB", 1e3},
                                                        {"MB", 1e6},
                                                        {"GB", 1e9},
                                                        {"TB", 1e12}};
    SetWhy(why, "");
    // Plain digits are read exactly (a double holds only 53 bits).
    if (!text.empty() && text.size() <= 18 &&
        text.find_first_not_of("0123456789") == std::string::npos)
    {
        bytes = std::strtoull(text.c_str(), nullptr, 10);
        return true;
    }
    double value;
    std::string unit;
    if (!SplitNumber(text, &value, &unit, true))
    {
        return false;
    }
    auto it = units.find(unit);
    if (it == units.end())
    {
        SetWhy(why,
               "unknown unit \"" + unit +
                   "\"; use K, M, G, T, KiB, MiB, GiB, TiB (binary) or kB, MB, GB, TB (decimal)");
        return false;
    }
    const double b = value * it->second;
    if (b >= 4611686018427387904.0) // 2^62
    {
        SetWhy(why, "too large (at most 2^62 bytes)");
        return false;
    }
    if (b != std::floor(b))
    {
        SetWhy(why, "not a whole number of bytes");
        return false;
    }
    bytes = static_cast<uint64_t>(b);
    return true;
}

} // namespace ns3
