// SPDX-License-Identifier: GPL-2.0-only
#include "job-settings.h"

#include "scenario-section.h"

#include "ns3/log.h"

#include <cmath>
#include <random>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("JobSettings");

namespace
{

/// The placement names (PlaceJobs' policies other than a server list), one table.
constexpr std::pair<JobSpec::Placement, const char*> PLACEMENT_NAMES[] = {
    {JobSpec::Placement::PACKED, "packed"},
    {JobSpec::Placement::SPREAD, "spread"},
    {JobSpec::Placement::RANDOM, "random"},
};

/// \return text as an unsigned of at most 9 digits, or false
bool
ReadIndex(const std::string& text, uint32_t& value)
{
    if (text.empty() || text.size() > 9 ||
        text.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    value = static_cast<uint32_t>(std::stoul(text));
    return true;
}

} // namespace

GpuPool::GpuPool(uint32_t servers, uint32_t gpusPerServer)
    : m_gpusPerServer(gpusPerServer),
      m_owner(static_cast<size_t>(servers) * gpusPerServer, -1)
{
}

uint32_t
GpuPool::Free(uint32_t server) const
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < m_gpusPerServer; ++k)
    {
        n += m_owner[server * m_gpusPerServer + k] < 0;
    }
    return n;
}

uint32_t
GpuPool::TotalFree() const
{
    return static_cast<uint32_t>(std::count(m_owner.begin(), m_owner.end(), -1));
}

uint32_t
GpuPool::Held() const
{
    return static_cast<uint32_t>(m_owner.size()) - TotalFree();
}

uint32_t
GpuPool::Take(uint32_t server, uint32_t n, int job, std::vector<uint32_t>& out)
{
    uint32_t taken = 0;
    for (uint32_t k = 0; k < m_gpusPerServer && taken < n; ++k)
    {
        const uint32_t g = server * m_gpusPerServer + k;
        if (m_owner[g] < 0)
        {
            m_owner[g] = job;
            out.push_back(g);
            ++taken;
        }
    }
    return taken;
}

bool
GpuPool::TakeFirstFit(uint32_t n, int job, std::vector<uint32_t>& out)
{
    if (TotalFree() < n)
    {
        return false;
    }
    for (uint32_t g = 0; g < m_owner.size() && n > 0; ++g)
    {
        if (m_owner[g] < 0)
        {
            m_owner[g] = job;
            out.push_back(g);
            --n;
        }
    }
    return true;
}

int
GpuPool::Owner(uint32_t gpu) const
{
    return m_owner.at(gpu);
}

void
GpuPool::Own(uint32_t gpu, int job)
{
    m_owner.at(gpu) = job;
}

void
GpuPool::Release(int job)
{
    std::replace(m_owner.begin(), m_owner.end(), job, -1);
}

bool
JobSpec::ParsePlacement(const std::string& text, JobSpec& job, std::string* why)
{
    for (const auto& [placement, name] : PLACEMENT_NAMES)
    {
        if (text == name)
        {
            job.placement = placement;
            job.servers.clear();
            return true;
        }
    }
    std::vector<uint32_t> servers;
    std::set<uint32_t> seen;
    std::istringstream items(text);
    std::string item;
    bool ok = !text.empty() && text.back() != ',';
    while (ok && std::getline(items, item, ','))
    {
        const size_t dash = item.find('-');
        uint32_t first = 0;
        uint32_t last = 0;
        ok = dash == std::string::npos
                 ? ReadIndex(item, first) && ReadIndex(item, last)
                 : ReadIndex(item.substr(0, dash), first) && ReadIndex(item.substr(dash + 1), last);
        ok = ok && first <= last && last - first < (1u << 16);
        for (uint32_t s = first; ok && s <= last; ++s)
        {
            ok = seen.insert(s).second;
            servers.push_back(s);
        }
    }
    if (!ok)
    {
        *why = std::string("expected ") + PLACEMENT_FORMS + " (each server once), got \"" + text +
               "\"";
        return false;
    }
    job.placement = Placement::SERVERS;
    job.servers = servers;
    return true;
}

std::string
JobSpec::PlacementToString() const
{
    for (const auto& [p, name] : PLACEMENT_NAMES)
    {
        if (p == placement)
        {
            return name;
        }
    }
    return IndexRangesToString(servers);
}

std::string
IndexRangesToString(const std::vector<uint32_t>& values)
{
    std::string text;
    for (size_t i = 0; i < values.size();)
    {
        size_t j = i;
        while (j + 1 < values.size() && values[j + 1] == values[j] + 1)
        {
            ++j;
        }
        text += (text.empty() ? "" : ",") + std::to_string(values[i]) +
                (j > i ? "-" + std::to_string(values[j]) : "");
        i = j + 1;
    }
    return text;
}

bool
PlaceJobs(const std::vector<JobSpec>& jobs,
          uint32_t servers,
          uint32_t gpusPerServer,
          uint32_t pods,
          uint32_t seed,
          std::vector<std::vector<uint32_t>>& result,
          std::string* error)
{
    result.assign(jobs.size(), {});
    const uint32_t total = servers * gpusPerServer;
    uint64_t needed = 0;
    for (const JobSpec& job : jobs)
    {
        needed += job.gpus;
        if (needed > total)
        {
            // The first job that does not fit beside those before it.
            *error = job.place + ": the jobs up to this one need " + std::to_string(needed) +
                     " GPUs but the cluster has " + std::to_string(total) + " (" +
                     std::to_string(servers) + " servers x " + std::to_string(gpusPerServer) + ")";
            return false;
        }
    }
    GpuPool free(servers, gpusPerServer);
    auto overlap = [&](uint32_t j, uint32_t gpu) {
        *error = jobs[j].place + ": placement " +
                 (jobs[j].fixedGpus.empty() ? jobs[j].PlacementToString() : "of fixed GPUs") +
                 " overlaps job " + jobs[free.Owner(gpu)].name + " (server " +
                 std::to_string(gpu / gpusPerServer) + ")";
        return false;
    };
    // First the jobs whose place is given: fixed GPUs, then server lists.
    for (uint32_t j = 0; j < jobs.size(); ++j)
    {
        const JobSpec& job = jobs[j];
        if (job.fixedGpus.empty())
        {
            continue;
        }
        for (uint32_t g : job.fixedGpus)
        {
            if (g >= total)
            {
                *error = job.place + ": GPU " + std::to_string(g) + " is not in the cluster of " +
                         std::to_string(total);
                return false;
            }
            if (free.Owner(g) >= 0)
            {
                return overlap(j, g);
            }
            free.Own(g, static_cast<int>(j));
        }
        result[j] = job.fixedGpus;
    }
    for (uint32_t j = 0; j < jobs.size(); ++j)
    {
        const JobSpec& job = jobs[j];
        if (!job.fixedGpus.empty() || job.placement != JobSpec::Placement::SERVERS)
        {
            continue;
        }
        for (uint32_t s : job.servers)
        {
            if (s >= servers)
            {
                *error = job.place + ": placement " + job.PlacementToString() + ": server " +
                         std::to_string(s) + " is not in the cluster of " +
                         std::to_string(servers) + " servers";
                return false;
            }
        }
        uint32_t left = job.gpus;
        for (uint32_t s : job.servers)
        {
            if (left == 0)
            {
                break;
            }
            if (free.Free(s) < gpusPerServer)
            {
                for (uint32_t k = 0; k < gpusPerServer; ++k)
                {
                    if (free.Owner(s * gpusPerServer + k) >= 0)
                    {
                        return overlap(j, s * gpusPerServer + k);
                    }
                }
            }
            left -= free.Take(s, left, static_cast<int>(j), result[j]);
        }
        if (left > 0)
        {
            *error = job.place + ": placement " + job.PlacementToString() + " has " +
                     std::to_string(job.servers.size() * gpusPerServer) + " GPUs, the job needs " +
                     std::to_string(job.gpus);
            return false;
        }
    }
    // Then the policies, in list order, on what is left.
    const uint32_t perPod = servers / std::max(1u, pods);
    for (uint32_t j = 0; j < jobs.size(); ++j)
    {
        const JobSpec& job = jobs[j];
        if (!job.fixedGpus.empty() || job.placement == JobSpec::Placement::SERVERS)
        {
            continue;
        }
        if (free.TotalFree() < job.gpus)
        {
            *error = job.place + ": the job needs " + std::to_string(job.gpus) + " GPUs, " +
                     std::to_string(free.TotalFree()) + " are free after the jobs placed before it";
            return false;
        }
        std::vector<uint32_t> order(servers);
        for (uint32_t s = 0; s < servers; ++s)
        {
            order[s] = s;
        }
        uint32_t left = job.gpus;
        const int owner = static_cast<int>(j);
        switch (job.placement)
        {
        case JobSpec::Placement::RANDOM: {
            // Fisher-Yates with the engine's raw draws: the same on every platform.
            std::mt19937 rng(seed * 7919u + j);
            for (uint32_t i = servers; i > 1; --i)
            {
                std::swap(order[i - 1], order[rng() % i]);
            }
            [[fallthrough]];
        }
        case JobSpec::Placement::PACKED:
            for (uint32_t s : order)
            {
                left -= free.Take(s, left, owner, result[j]);
            }
            break;
        case JobSpec::Placement::SPREAD: {
            // Pods in turn: the first server of every pod, then the second, ...
            std::vector<uint32_t> turn;
            for (uint32_t i = 0; i < perPod; ++i)
            {
                for (uint32_t p = 0; p < pods; ++p)
                {
                    turn.push_back(p * perPod + i);
                }
            }
            std::vector<uint32_t> candidates;
            for (uint32_t s : turn)
            {
                if (free.Free(s) > 0)
                {
                    candidates.push_back(s);
                }
            }
            // The same share on every server with free GPUs (consecutive ranks together),
            // again over those with room while some remain.
            while (left > 0)
            {
                const uint32_t share = (left + static_cast<uint32_t>(candidates.size()) - 1) /
                                       static_cast<uint32_t>(candidates.size());
                std::vector<uint32_t> next;
                for (uint32_t s : candidates)
                {
                    left -= free.Take(s, std::min(share, left), owner, result[j]);
                    if (free.Free(s) > 0)
                    {
                        next.push_back(s);
                    }
                }
                candidates.swap(next);
            }
            break;
        }
        case JobSpec::Placement::SERVERS:
            break;
        }
        NS_LOG_INFO("job " << job.name << ": " << job.gpus << " GPUs placed "
                           << job.PlacementToString() << ", first GPU " << result[j].front());
    }
    return true;
}

namespace
{
using namespace scenario_json;

/**
 * Read what a job of the "jobs" list and an entry of the arrivals' mix share: name,
 * workload, gpus, iterations, trafficClass.
 * \return false (error set) on a refused generator model
 */
bool
ReadJobEntry(Section& j,
             const std::string& where,
             const std::string& source,
             const std::string& defaultName,
             std::set<std::string>& names,
             JobSpec& job,
             std::string* error)
{
    job.place = source + ": " + where;
    job.name = j.Text("name", defaultName);
    // The name is a folder of the outputs (jobs/NAME/).
    const bool plain = !job.name.empty() && job.name.size() <= 64 && job.name[0] != '.' &&
                       job.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
                                                  "QRSTUVWXYZ0123456789._-") == std::string::npos;
    if (!plain || !names.insert(job.name).second)
    {
        Fail(j.Where("name"),
             "expected a name no other job has, of letters, digits, '.', '_' and '-' (not "
             "starting with '.'), got \"" +
                 job.name + "\"");
    }
    if (!j.Has("workload"))
    {
        Fail(where, "a job needs a \"workload\" object (as the scenario's \"workload\")");
    }
    TrainingScenario w;
    if (!ParseWorkloadSection(j.Get("workload"), j.Where("workload"), source, w, error))
    {
        return false;
    }
    job.traceFormat = w.traceFormat;
    job.traceFile = w.traceFile;
    job.generator = w.generator;
    job.traceRanks = w.traceRanks;
    job.computeScale = w.computeScale;
    job.gpus = static_cast<uint32_t>(j.Unsigned("gpus", 0, 1, 1u << 20));
    job.iterations = static_cast<uint32_t>(j.Unsigned("iterations", 0, 1, 100000));
    job.trafficClass = static_cast<uint8_t>(
        j.Unsigned("trafficClass", job.trafficClass, 0, JobSpec::MAX_TRAFFIC_CLASS));
    return true;
}
} // namespace

bool
scenario_json::ParseJobsSection(const Json& list,
                                const std::string& source,
                                TrainingScenario& s,
                                std::string* error)
{
    if (!list.is_array() || list.empty())
    {
        Fail("/jobs",
             "expected a list of job objects such as [{\"workload\": {...}, "
             "\"placement\": \"packed\"}]");
    }
    std::vector<JobSpec> jobs;
    std::set<std::string> names;
    for (size_t i = 0; i < list.size(); ++i)
    {
        const std::string where = "/jobs/" + std::to_string(i);
        Section j(list[i], where);
        JobSpec job;
        if (!ReadJobEntry(j, where, source, "job" + std::to_string(i + 1), names, job, error))
        {
            return false;
        }
        if (j.Has("placement"))
        {
            const Json& p = j.Get("placement");
            std::string text;
            if (p.is_string())
            {
                text = p.get<std::string>();
            }
            else if (p.is_array())
            {
                for (const Json& v : p)
                {
                    text += (text.empty() ? "" : ",") + (v.is_number_unsigned() ? v.dump() : "?");
                }
            }
            std::string why;
            if (!JobSpec::ParsePlacement(text, job, &why))
            {
                Fail(j.Where("placement"),
                     p.is_string() ? why
                                   : std::string("expected ") + JobSpec::PLACEMENT_FORMS +
                                         " or a list of server indices, got " + p.dump());
            }
        }
        job.start = j.Duration("start", Time());
        j.Done();
        jobs.push_back(job);
    }
    s.jobs = jobs;
    return true;
}

bool
scenario_json::ParseArrivalsSection(const Json& obj,
                                    const std::string& source,
                                    TrainingScenario& s,
                                    std::string* error)
{
    Section a(obj, "/arrivals");
    JobArrivals& out = s.arrivals;
    out.place = source + ": /arrivals";
    if (!a.Has("meanInterarrival") || !a.Has("window") || !a.Has("mix"))
    {
        Fail("/arrivals", "expected \"meanInterarrival\", \"window\" and \"mix\"");
    }
    out.meanInterarrival = a.Duration("meanInterarrival", Time());
    out.window = a.Duration("window", Time());
    if (!out.meanInterarrival.IsStrictlyPositive())
    {
        Fail(a.Where("meanInterarrival"), "must be above 0");
    }
    if (!out.window.IsStrictlyPositive())
    {
        Fail(a.Where("window"), "must be above 0");
    }
    if (out.window / out.meanInterarrival > JobArrivals::MAX_EXPECTED_JOBS)
    {
        Fail(a.Where("window"),
             "window / meanInterarrival expects more than " +
                 std::to_string(JobArrivals::MAX_EXPECTED_JOBS) + " jobs");
    }
    const Json& mix = a.Get("mix");
    if (!mix.is_array() || mix.empty())
    {
        Fail(a.Where("mix"), "expected a list of {\"workload\", \"gpus\", \"probability\"}");
    }
    std::set<std::string> names;
    for (const JobSpec& job : s.jobs)
    {
        names.insert(job.name);
    }
    double sum = 0;
    out.mix.clear();
    for (size_t i = 0; i < mix.size(); ++i)
    {
        const std::string where = "/arrivals/mix/" + std::to_string(i);
        Section m(mix[i], where);
        JobArrivals::Kind kind;
        if (!ReadJobEntry(m, where, source, "mix" + std::to_string(i + 1), names, kind.job, error))
        {
            return false;
        }
        kind.probability = m.Number("probability", 0, 0, 1);
        if (!(kind.probability > 0))
        {
            Fail(m.Where("probability"), "expected a probability in (0, 1]");
        }
        sum += kind.probability;
        m.Done();
        out.mix.push_back(kind);
    }
    if (std::abs(sum - 1) > 1e-6)
    {
        Fail(a.Where("mix"), "the probabilities add up to " + std::to_string(sum) + ", expected 1");
    }
    a.Done();
    return true;
}

} // namespace ns3
