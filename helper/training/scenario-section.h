// SPDX-License-Identifier: GPL-2.0-only
#ifndef SCENARIO_SECTION_H
#define SCENARIO_SECTION_H

// Private to the scenario readers (TrainingScenario::Parse and its sections, the jobs
// list): how one JSON object of a scenario file is read, so that every section refuses
// unknown keys and wrong types the same way, with the place in the file.

#include "training-scenario.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace ns3
{
namespace scenario_json
{

using Json = nlohmann::json;

/// A problem at a place of the scenario file (caught by TrainingScenario::Parse).
struct ScenarioError
{
    std::string where; //!< the JSON place, such as "/cluster/servers"
    std::string what;  //!< what was expected
};

/// Throw a ScenarioError. \param where the place \param what what was expected
[[noreturn]] inline void
Fail(const std::string& where, const std::string& what)
{
    throw ScenarioError{where, what};
}

/// Reads one object, remembering which keys were used so unknown ones are errors.
class Section
{
  public:
    Section(const Json& obj, std::string where)
        : m_obj(obj),
          m_where(std::move(where))
    {
        if (!obj.is_object())
        {
            Fail(m_where, "expected an object, got " + obj.dump());
        }
    }

    bool Has(const std::string& key)
    {
        m_used.push_back(key);
        return m_obj.contains(key);
    }

    std::string Where(const std::string& key) const
    {
        return m_where + "/" + key;
    }

    const Json& Get(const std::string& key)
    {
        return m_obj.at(key);
    }

    std::string Text(const std::string& key, const std::string& fallback)
    {
        if (!Has(key))
        {
            return fallback;
        }
        if (!m_obj[key].is_string())
        {
            Fail(Where(key), "expected a string, got " + m_obj[key].dump());
        }
        return m_obj[key].get<std::string>();
    }

    uint64_t Unsigned(const std::string& key, uint64_t fallback, uint64_t lo, uint64_t hi)
    {
        if (!Has(key))
        {
            return fallback;
        }
        const Json& v = m_obj[key];
        if (!v.is_number_integer() || v.get<int64_t>() < static_cast<int64_t>(lo) ||
            v.get<uint64_t>() > hi)
        {
            Fail(Where(key),
                 "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                     ", got " + v.dump());
        }
        return v.get<uint64_t>();
    }

    double Number(const std::string& key, double fallback, double lo, double hi)
    {
        if (!Has(key))
        {
            return fallback;
        }
        const Json& v = m_obj[key];
        if (!v.is_number() || v.get<double>() < lo || v.get<double>() > hi)
        {
            Fail(Where(key),
                 "expected a number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "], got " + v.dump());
        }
        return v.get<double>();
    }

    bool Bool(const std::string& key, bool fallback)
    {
        if (!Has(key))
        {
            return fallback;
        }
        if (!m_obj[key].is_boolean())
        {
            Fail(Where(key), "expected true or false, got " + m_obj[key].dump());
        }
        return m_obj[key].get<bool>();
    }

    Time Duration(const std::string& key, Time fallback)
    {
        if (!Has(key))
        {
            return fallback;
        }
        const std::string text = Text(key, "");
        Time t;
        if (!TrainingScenario::ParseDuration(text, t))
        {
            Fail(Where(key),
                 "expected a duration such as \"1us\" or \"10ms\", got \"" + text + "\"");
        }
        return t;
    }

    DataRate Rate(const std::string& key, DataRate fallback)
    {
        if (!Has(key))
        {
            return fallback;
        }
        const std::string text = Text(key, "");
        DataRate r;
        if (!TrainingScenario::ParseRate(text, r))
        {
            Fail(Where(key), "expected a positive rate such as \"400Gbps\", got \"" + text + "\"");
        }
        return r;
    }

    /// Fail on any key not asked for.
    void Done() const
    {
        for (auto it = m_obj.begin(); it != m_obj.end(); ++it)
        {
            if (std::find(m_used.begin(), m_used.end(), it.key()) == m_used.end())
            {
                Fail(Where(it.key()), "unknown setting");
            }
        }
    }

  private:
    const Json& m_obj;
    std::string m_where;
    std::vector<std::string> m_used;
};

/// \return path resolved against the folder of the file source (absolute paths as they are)
inline std::string
Resolve(const std::string& path, const std::string& source)
{
    if (path.empty() || path[0] == '/')
    {
        return path;
    }
    const size_t slash = source.find_last_of('/');
    return slash == std::string::npos ? path : source.substr(0, slash + 1) + path;
}

/**
 * Read a list of texts at where (replacing out), each item by parse with its place
 * (source: where/i); example shows the form when the value is not a list.
 */
template <typename T>
void
ReadList(const Json& list,
         const std::string& where,
         const std::string& source,
         const std::string& example,
         std::vector<T>& out,
         bool (*parse)(const std::string&, T&, std::string*))
{
    if (!list.is_array())
    {
        Fail(where, "expected a list such as " + example);
    }
    out.clear();
    for (std::size_t i = 0; i < list.size(); ++i)
    {
        const std::string place = where + "/" + std::to_string(i);
        T item;
        item.place = source + ": " + place;
        std::string why;
        if (!parse(list[i].is_string() ? list[i].get<std::string>() : list[i].dump(), item, &why))
        {
            Fail(place, why);
        }
        out.push_back(item);
    }
}

/**
 * Read a "workload" object (format, file or model, ranks, computeScale) into s's workload
 * fields.
 * \param obj the object \param where its place ("/workload", "/jobs/0/workload")
 * \param source the scenario file \param s the scenario to fill in
 * \param error set when the generator model is refused (its own message)
 * \return false (error set) on a refused model; other problems throw ScenarioError
 */
bool ParseWorkloadSection(const Json& obj,
                          const std::string& where,
                          const std::string& source,
                          TrainingScenario& s,
                          std::string* error);

/**
 * Read a "jobs" list (JobSpec: name, workload, gpus, placement, start, iterations,
 * trafficClass) into s.jobs.
 * \param list the list \param source the scenario file \param s the scenario
 * \param error set when a job's generator model is refused (its own message)
 * \return false (error set) on a refused model; other problems throw ScenarioError
 */
bool ParseJobsSection(const Json& list,
                      const std::string& source,
                      TrainingScenario& s,
                      std::string* error);

/**
 * Read an "arrivals" object (JobArrivals: meanInterarrival, window, mix) into
 * s.arrivals (after the "jobs" list: names stay distinct from its).
 * \param obj the object \param source the scenario file \param s the scenario
 * \param error set when a mix entry's generator model is refused (its own message)
 * \return false (error set) on a refused model; other problems throw ScenarioError
 */
bool ParseArrivalsSection(const Json& obj,
                          const std::string& source,
                          TrainingScenario& s,
                          std::string* error);

} // namespace scenario_json
} // namespace ns3

#endif // SCENARIO_SECTION_H
