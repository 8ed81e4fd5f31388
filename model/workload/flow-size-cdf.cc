// SPDX-License-Identifier: GPL-2.0-only
#include "flow-size-cdf.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{
/// The built-in distributions: (bytes, cumulative percent). Sources in doc/ai-fabric.rst,
/// "Background traffic".
const std::map<std::string, std::vector<std::pair<double, double>>>&
Tables()
{
    static const std::map<std::string, std::vector<std::pair<double, double>>> tables = {
        // Web search (Alizadeh et al., DCTCP, SIGCOMM 2010), as the HPCC traffic generator
        // publishes it: 12 points, largest 30 MB.
        {"websearch",
         {{0, 0},
          {10000, 15},
          {20000, 20},
          {30000, 30},
          {50000, 40},
          {80000, 53},
          {200000, 60},
          {1000000, 70},
          {2000000, 80},
          {5000000, 90},
          {10000000, 97},
          {30000000, 100}}},
        // Facebook Hadoop (Roy et al., SIGCOMM 2015), as the HPCC traffic generator
        // publishes it: 20 points, largest 10 MB.
        {"fb-hadoop",
         {{0, 0},       {100, 1},     {200, 2},        {300, 5},      {350, 15},
          {400, 20},    {500, 30},    {600, 40},       {700, 50},     {1000, 60},
          {2000, 67},   {7000, 70},   {30000, 72},     {50000, 82},   {80000, 87},
          {120000, 90}, {300000, 95}, {1000000, 97.5}, {2000000, 99}, {10000000, 100}}},
        // Alibaba distributed storage, 2019 (published with the HPCC traffic generator):
        // 9 points, largest 2 MB.
        {"alistorage2019",
         {{0, 0},
          {4000, 22.93},
          {8000, 69.21},
          {16000, 80.61},
          {32000, 90.47},
          {64000, 93.53},
          {128000, 96.77},
          {256000, 97.53},
          {2000000, 100}}},
    };
    return tables;
}
} // namespace

const std::vector<std::string>&
FlowSizeCdf::Names()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& [name, points] : Tables())
        {
            v.push_back(name);
        }
        return v;
    }();
    return names;
}

std::string
FlowSizeCdf::GetNameList()
{
    std::string text;
    for (const auto& name : Names())
    {
        text += (text.empty() ? "" : ", ") + name;
    }
    return text;
}

bool
FlowSizeCdf::Named(const std::string& name, FlowSizeCdf& out)
{
    auto it = Tables().find(name);
    if (it == Tables().end())
    {
        return false;
    }
    std::string error;
    return FromPoints(it->second, out, &error);
}

bool
FlowSizeCdf::FromPoints(const std::vector<std::pair<double, double>>& points,
                        FlowSizeCdf& out,
                        std::string* error,
                        const std::vector<uint32_t>* lines,
                        const std::string& quantity)
{
    const std::string values = quantity == "bytes" ? "sizes" : quantity;
    if (points.size() < 2)
    {
        *error = "expected at least two points";
        return false;
    }
    for (std::size_t i = 0; i < points.size(); ++i)
    {
        const auto& [bytes, percent] = points[i];
        const std::string where = lines ? "line " + std::to_string(lines->at(i)) + ": "
                                        : "point " + std::to_string(i + 1) + ": ";
        if (!std::isfinite(bytes) || bytes < 0 || bytes > MAX_BYTES || !std::isfinite(percent) ||
            percent < 0 || percent > 100)
        {
            *error = where + "expected " + quantity + " from 0 to 2^40 and a percent from 0 to 100";
            return false;
        }
        if (i > 0 && (bytes <= points[i - 1].first || percent < points[i - 1].second))
        {
            *error = where + "expected " + values + " that rise and percents that do not fall";
            return false;
        }
    }
    if (points.back().second != 100)
    {
        *error = "the last point's percent is " + std::to_string(points.back().second) +
                 ", expected 100";
        return false;
    }
    out.m_points.clear();
    for (const auto& [bytes, percent] : points)
    {
        out.m_points.emplace_back(bytes, percent / 100);
    }
    return true;
}

bool
FlowSizeCdf::Load(const std::string& path,
                  FlowSizeCdf& out,
                  std::string* error,
                  const std::string& quantity)
{
    std::ifstream in(path);
    if (!in)
    {
        *error = path + ": cannot be read";
        return false;
    }
    std::vector<std::pair<double, double>> points;
    std::vector<uint32_t> lines;
    std::string line;
    for (uint32_t number = 1; std::getline(in, line); ++number)
    {
        line = line.substr(0, line.find('#'));
        std::istringstream fields(line);
        double bytes;
        double percent;
        std::string rest;
        if (!(fields >> bytes))
        {
            if (line.find_first_not_of(" \t\r") == std::string::npos)
            {
                continue; // blank or comment
            }
            *error = path + ":" + std::to_string(number) + ": expected \"" + quantity +
                     " percent\" (two numbers)";
            return false;
        }
        if (!(fields >> percent) || (fields >> rest))
        {
            *error = path + ":" + std::to_string(number) + ": expected \"" + quantity +
                     " percent\" (two numbers)";
            return false;
        }
        points.emplace_back(bytes, percent);
        lines.push_back(number);
    }
    std::string why;
    if (!FromPoints(points, out, &why, &lines, quantity))
    {
        *error = path + ": " + why;
        return false;
    }
    return true;
}

uint64_t
FlowSizeCdf::Sample(double u) const
{
    const double p = std::clamp(u, 0.0, 1.0);
    // The first point whose cumulative fraction reaches p; interpolate from the one before.
    auto it =
        std::lower_bound(m_points.begin(),
                         m_points.end(),
                         p,
                         [](const std::pair<double, double>& a, double v) { return a.second < v; });
    double bytes;
    if (it == m_points.begin())
    {
        bytes = it->first;
    }
    else
    {
        const auto& [x1, p1] = *it;
        const auto& [x0, p0] = *(it - 1);
        bytes = p1 > p0 ? x0 + (x1 - x0) * (p - p0) / (p1 - p0) : x1;
    }
    return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(bytes)));
}

double
FlowSizeCdf::Mean() const
{
    double mean = m_points.front().first * m_points.front().second;
    for (std::size_t i = 1; i < m_points.size(); ++i)
    {
        const auto& [x1, p1] = m_points[i];
        const auto& [x0, p0] = m_points[i - 1];
        mean += (p1 - p0) * (x0 + x1) / 2;
    }
    return mean;
}

const std::vector<std::pair<double, double>>&
FlowSizeCdf::Points() const
{
    return m_points;
}

} // namespace ns3
