// SPDX-License-Identifier: GPL-2.0-only
#include "fct-report.h"

#include "report-files.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <limits>

namespace ns3
{

double
NearestRankPercentile(const std::vector<double>& v, double p)
{
    if (v.empty())
    {
        return 0;
    }
    const std::size_t rank = static_cast<std::size_t>(std::ceil(p * v.size()));
    return v[std::min(v.size(), std::max<std::size_t>(rank, 1)) - 1];
}

const std::vector<std::pair<std::string, uint64_t>>&
FctReport::Buckets()
{
    static const std::vector<std::pair<std::string, uint64_t>> buckets = {
        {"<10K", 10000},
        {"10K-100K", SMALL_BYTES},
        {"100K-1M", LARGE_BYTES},
        {"1M-10M", 10000000},
        {">=10M", std::numeric_limits<uint64_t>::max()},
    };
    return buckets;
}

FctReport::FctReport(const std::vector<BackgroundFlow>& flows)
    : m_flows(flows)
{
}

SlowdownStats
FctReport::Range(uint64_t lo, uint64_t hi, const std::string& label) const
{
    SlowdownStats s;
    s.label = label;
    s.lo = lo;
    s.hi = hi;
    std::vector<double> v;
    for (const auto& f : m_flows)
    {
        if (f.bytes >= lo && f.bytes < hi && f.finish.IsStrictlyPositive() &&
            f.ideal.IsStrictlyPositive())
        {
            v.push_back((f.finish - f.start).GetSeconds() / f.ideal.GetSeconds());
        }
    }
    std::sort(v.begin(), v.end());
    s.flows = static_cast<uint32_t>(v.size());
    s.p50 = NearestRankPercentile(v, 0.50);
    s.p95 = NearestRankPercentile(v, 0.95);
    s.p99 = NearestRankPercentile(v, 0.99);
    double sum = 0;
    for (double x : v)
    {
        sum += x;
    }
    s.mean = v.empty() ? 0 : sum / v.size();
    return s;
}

std::vector<SlowdownStats>
FctReport::ByBucket() const
{
    std::vector<SlowdownStats> rows;
    uint64_t lo = 0;
    for (const auto& [label, hi] : Buckets())
    {
        rows.push_back(Range(lo, hi, label));
        lo = hi;
    }
    return rows;
}

uint32_t
FctReport::GetFinished() const
{
    return static_cast<uint32_t>(
        std::count_if(m_flows.begin(), m_flows.end(), [](const BackgroundFlow& f) {
            return f.finish.IsStrictlyPositive();
        }));
}

uint32_t
FctReport::GetUnfinished() const
{
    return static_cast<uint32_t>(m_flows.size()) - GetFinished();
}

void
FctReport::WriteFctCsv(std::ostream& os) const
{
    os << "src,dst,bytes,start_us,fct_us,ideal_us,slowdown\n";
    for (const auto& f : m_flows)
    {
        os << f.src << "," << f.dst << "," << f.bytes << "," << f.start.GetNanoSeconds() / 1e3
           << ",";
        if (f.finish.IsStrictlyPositive())
        {
            const Time fct = f.finish - f.start;
            os << fct.GetNanoSeconds() / 1e3 << "," << f.ideal.GetNanoSeconds() / 1e3 << ",";
            if (f.ideal.IsStrictlyPositive())
            {
                os << fct.GetSeconds() / f.ideal.GetSeconds();
            }
        }
        else
        {
            os << "," << f.ideal.GetNanoSeconds() / 1e3 << ",";
        }
        os << "\n";
    }
}

void
FctReport::WriteSlowdownCsv(std::ostream& os, const std::string& label, bool header) const
{
    if (header)
    {
        os << "run,bucket,flows,p50,p95,p99,mean\n";
    }
    for (const auto& s : ByBucket())
    {
        os << label << "," << s.label << "," << s.flows << "," << s.p50 << "," << s.p95 << ","
           << s.p99 << "," << s.mean << "\n";
    }
}

void
FctReport::PrintTable(std::ostream& os) const
{
    const std::ios::fmtflags flags = os.flags();
    const std::streamsize precision = os.precision();
    os << "  flow size     flows   slowdown p50     p95     p99    mean\n";
    for (const auto& s : ByBucket())
    {
        os << "  " << std::left << std::setw(12) << s.label << std::right << std::setw(7) << s.flows
           << std::fixed << std::setprecision(2) << std::setw(15) << s.p50 << std::setw(8) << s.p95
           << std::setw(8) << s.p99 << std::setw(8) << s.mean << "\n";
    }
    os.flags(flags);
    os.precision(precision);
    if (GetUnfinished() > 0)
    {
        os << "  (" << GetUnfinished() << " flows unfinished, not counted)\n";
    }
}

bool
FctReport::Plot(const std::vector<std::pair<std::string, FctReport>>& runs,
                const std::string& file,
                std::string* error)
{
    const std::string data = file + ".dat";
    {
        std::ofstream os(data);
        if (!os)
        {
            *error = data + ": cannot be written";
            return false;
        }
        for (std::size_t b = 0; b < Buckets().size(); ++b)
        {
            os << b << " \"" << Buckets()[b].first << "\"";
            for (const auto& [label, report] : runs)
            {
                const SlowdownStats s = report.ByBucket()[b];
                os << " " << (s.flows ? s.p50 : NAN) << " " << (s.flows ? s.p99 : NAN);
            }
            os << "\n";
        }
    }
    const std::string scriptFile = file + ".gp";
    {
        std::ofstream script(scriptFile);
        script << "set terminal pngcairo size 1000,500 font ',10'\n"
               << "set output " << GnuplotQuoted(file) << "\n"
               << "set logscale y\nset grid ytics\nset key outside right\n"
               << "set xlabel 'flow size'\nset ylabel 'FCT slowdown (FCT / ideal)'\n"
               << "set title 'FCT slowdown by flow size: median (dashed) and 99th percentile'\n"
               << "plot ";
        for (std::size_t i = 0; i < runs.size(); ++i)
        {
            const std::string label = GnuplotQuoted(runs[i].first);
            script << (i ? ", " : "") << GnuplotQuoted(data) << " using 1:" << 4 + 2 * i
                   << ":xtic(2) with linespoints lw 2 lc " << i + 1 << " title " << label << "."
                   << GnuplotQuoted(" p99") << ", " << GnuplotQuoted(data)
                   << " using 1:" << 3 + 2 * i << " with linespoints dt 2 lc " << i + 1 << " title "
                   << label << "." << GnuplotQuoted(" p50");
        }
        script << "\n";
    }
    if (!RunGnuplot(scriptFile, file + ".log"))
    {
        *error = "gnuplot failed (is it installed?), see " + file + ".log";
        return false;
    }
    std::remove(scriptFile.c_str());
    std::remove((file + ".log").c_str());
    std::remove(data.c_str());
    return true;
}

} // namespace ns3
