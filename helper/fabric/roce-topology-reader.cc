// SPDX-License-Identifier: GPL-2.0-only
#include "roce-topology-reader.h"

#include "../../model/workload/json-text.h"

#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/quantity-text.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceTopologyReader");

namespace
{

using Json = nlohmann::json;

/// One cable as read from the file, already checked.
struct LinkSpec
{
    uint32_t a;
    uint32_t b;
    DataRate rate;
    Time delay;
};

/// A problem in the file: "<file>: <place>: <what>".
struct TopologyFileError
{
    std::string message;
};

/// Upper bound on a count form, so that a typo like 1e9 fails clearly instead of
/// exhausting memory while creating nodes.
constexpr uint64_t MAX_COUNT = 1000000;

/**
 * Checks one parsed document. Every error goes through Fail() so that each message has
 * the same "<file>: <json path>: <problem>" shape.
 */
class Parser
{
  public:
    explicit Parser(const std::string& file)
        : m_file(file)
    {
    }

    /// Stop checking: the reader catches this and returns the message as its error.
    [[noreturn]] void Fail(const std::string& where, const std::string& what) const
    {
        throw TopologyFileError{m_file + ": " + where + ": " + what};
    }

    static std::string TypeName(const Json& j)
    {
        if (j.is_number_float())
        {
            return "a number";
        }
        if (j.is_number())
        {
            return "an integer";
        }
        std::string t = j.type_name();
        return (t[0] == 'a' || t[0] == 'o' ? "an " : "a ") + t;
    }

    /// Reject keys we do not know, so misspellings are reported rather than ignored.
    void CheckKeys(const Json& obj,
                   const std::string& where,
                   const std::set<std::string>& allowed) const
    {
        for (auto it = obj.begin(); it != obj.end(); ++it)
        {
            if (allowed.count(it.key()) == 0)
            {
                std::string list;
                for (const auto& k : allowed)
                {
                    list += (list.empty() ? "\"" : ", \"") + k + "\"";
                }
                Fail(where, "unknown key \"" + it.key() + "\" (expected one of " + list + ")");
            }
        }
    }

    std::string GetString(const Json& obj, const std::string& key, const std::string& where) const
    {
        std::string path = where.empty() ? key : where + "." + key;
        if (!obj.contains(key))
        {
            Fail(where.empty() ? "top level" : where, "missing \"" + key + "\"");
        }
        const Json& v = obj.at(key);
        if (!v.is_string())
        {
            Fail(path, "expected a string, got " + TypeName(v) + " (" + v.dump() + ")");
        }
        return v.get<std::string>();
    }

    uint64_t GetPositiveInteger(const Json& v, const std::string& path) const
    {
        // Unsigned in nlohmann's terms means a non-negative integer literal.
        if (!v.is_number_unsigned() || v.get<uint64_t>() == 0)
        {
            Fail(path, "expected a positive integer, got " + v.dump());
        }
        return v.get<uint64_t>();
    }

    /// Node names from the list form [{"name": ...}] or the count form {"count", "prefix"}.
    std::vector<std::string> ReadNodes(const Json& doc,
                                       const std::string& key,
                                       const std::string& defaultPrefix) const
    {
        if (!doc.contains(key))
        {
            Fail("top level", "missing \"" + key + "\"");
        }
        const Json& v = doc.at(key);
        std::vector<std::string> names;
        if (v.is_array())
        {
            for (std::size_t i = 0; i < v.size(); ++i)
            {
                std::string where = key + "[" + std::to_string(i) + "]";
                if (!v[i].is_object())
                {
                    Fail(where,
                         "expected an object like {\"name\": \"" + defaultPrefix + "0\"}, got " +
                             TypeName(v[i]));
                }
                CheckKeys(v[i], where, {"name"});
                std::string name = GetString(v[i], "name", where);
                if (name.empty())
                {
                    Fail(where + ".name", "expected a non-empty name");
                }
                names.push_back(name);
            }
        }
        else if (v.is_object())
        {
            CheckKeys(v, key, {"count", "prefix"});
            if (!v.contains("count"))
            {
                Fail(key, "missing \"count\"");
            }
            uint64_t count = GetPositiveInteger(v.at("count"), key + ".count");
            if (count > MAX_COUNT)
            {
                Fail(key + ".count",
                     "at most " + std::to_string(MAX_COUNT) + " nodes, got " +
                         std::to_string(count));
            }
            std::string prefix = v.contains("prefix") ? GetString(v, "prefix", key) : defaultPrefix;
            for (uint64_t i = 0; i < count; ++i)
            {
                names.push_back(prefix + std::to_string(i));
            }
        }
        else
        {
            Fail(key,
                 "expected a list of {\"name\": ...} objects or {\"count\": N, \"prefix\": ...}, "
                 "got " +
                     TypeName(v));
        }
        return names;
    }

    /// "400Gbps" -> DataRate, or a Fail naming the place (TextToDataRate's rules).
    DataRate ParseRate(const std::string& s, const std::string& path) const
    {
        DataRate rate;
        std::string why;
        if (!TextToDataRate(s, rate, &why))
        {
            Fail(path,
                 "expected a positive rate like \"400Gbps\", got \"" + s + "\"" +
                     (why.empty() ? "" : " (" + why + ")"));
        }
        return rate;
    }

    /// "1us" -> Time, or a Fail naming the place (TextToTime's rules).
    Time ParseDelay(const std::string& s, const std::string& path) const
    {
        Time delay;
        std::string why;
        if (!TextToTime(s, delay, &why))
        {
            Fail(path,
                 "expected a non-negative delay like \"1us\", got \"" + s + "\"" +
                     (why.empty() ? "" : " (" + why + ")"));
        }
        return delay;
    }

    const std::string& File() const
    {
        return m_file;
    }

  private:
    std::string m_file;
};

/// Link defaults ("defaults"): for links that leave out rate or delay.
struct LinkDefaults
{
    bool haveRate{false};  //!< "rate" given
    bool haveDelay{false}; //!< "delay" given
    DataRate rate;         //!< the default rate
    Time delay;            //!< the default delay
};

/// Index of every node name (hosts first, then switches); Fail on a duplicate name.
std::map<std::string, uint32_t>
IndexNodes(const Parser& p,
           const std::vector<std::string>& hostNames,
           const std::vector<std::string>& switchNames)
{
    // One namespace for hosts and switches: a link names its ends without saying which.
    std::map<std::string, uint32_t> index; // node index: hosts first, then switches
    for (std::size_t i = 0; i < hostNames.size() + switchNames.size(); ++i)
    {
        bool isHost = i < hostNames.size();
        const std::string& n = isHost ? hostNames[i] : switchNames[i - hostNames.size()];
        std::string where = isHost ? "hosts[" + std::to_string(i) + "]"
                                   : "switches[" + std::to_string(i - hostNames.size()) + "]";
        auto [it, fresh] = index.emplace(n, static_cast<uint32_t>(i));
        if (!fresh)
        {
            p.Fail(where, "duplicate node name '" + n + "'");
        }
    }
    return index;
}

/// Read the optional "defaults" object.
LinkDefaults
ReadDefaults(const Parser& p, const Json& doc)
{
    LinkDefaults defaults;
    if (doc.contains("defaults"))
    {
        const Json& d = doc.at("defaults");
        if (!d.is_object())
        {
            p.Fail("defaults",
                   "expected an object like {\"rate\": \"400Gbps\", \"delay\": \"1us\"}, got " +
                       Parser::TypeName(d));
        }
        p.CheckKeys(d, "defaults", {"rate", "delay"});
        if (d.contains("rate"))
        {
            defaults.rate = p.ParseRate(p.GetString(d, "rate", "defaults"), "defaults.rate");
            defaults.haveRate = true;
        }
        if (d.contains("delay"))
        {
            defaults.delay = p.ParseDelay(p.GetString(d, "delay", "defaults"), "defaults.delay");
            defaults.haveDelay = true;
        }
    }
    return defaults;
}

/// Read "gpusPerServer" (1 if absent) and check "servers" against it.
uint32_t
ReadServerGrouping(const Parser& p, const Json& doc, const std::vector<std::string>& hostNames)
{
    uint32_t gpusPerServer = 1;
    if (doc.contains("gpusPerServer"))
    {
        uint64_t g = p.GetPositiveInteger(doc.at("gpusPerServer"), "gpusPerServer");
        if (hostNames.size() % g != 0)
        {
            p.Fail("gpusPerServer",
                   "expected a divisor of the host count " + std::to_string(hostNames.size()) +
                       ", got " + std::to_string(g));
        }
        gpusPerServer = static_cast<uint32_t>(g);
    }
    if (doc.contains("servers"))
    {
        uint64_t s = p.GetPositiveInteger(doc.at("servers"), "servers");
        uint64_t expected = hostNames.size() / gpusPerServer;
        if (s != expected)
        {
            p.Fail("servers",
                   "expected " + std::to_string(expected) + " (" +
                       std::to_string(hostNames.size()) + " hosts / " +
                       std::to_string(gpusPerServer) + " GPUs per server), got " +
                       std::to_string(s));
        }
    }
    return gpusPerServer;
}

/// Read and check links[i]: its two ends, rate and delay.
LinkSpec
ReadLink(const Parser& p,
         const Json& links,
         std::size_t i,
         const std::map<std::string, uint32_t>& index,
         const LinkDefaults& defaults)
{
    std::string where = "links[" + std::to_string(i) + "]";
    const Json& l = links[i];
    if (!l.is_object())
    {
        p.Fail(where,
               "expected an object like {\"a\": \"h0\", \"b\": \"leaf0\"}, got " +
                   Parser::TypeName(l));
    }
    p.CheckKeys(l, where, {"a", "b", "rate", "delay"});
    uint32_t ends[2];
    const char* keys[2] = {"a", "b"};
    for (int e = 0; e < 2; ++e)
    {
        std::string n = p.GetString(l, keys[e], where);
        auto it = index.find(n);
        if (it == index.end())
        {
            p.Fail(where + "." + keys[e], "unknown node '" + n + "'");
        }
        ends[e] = it->second;
    }
    if (ends[0] == ends[1])
    {
        p.Fail(where,
               "links node '" + l.at("a").get<std::string>() +
                   "' to itself (expected two different nodes)");
    }
    LinkSpec spec{ends[0], ends[1], defaults.rate, defaults.delay};
    if (l.contains("rate"))
    {
        spec.rate = p.ParseRate(p.GetString(l, "rate", where), where + ".rate");
    }
    else if (!defaults.haveRate)
    {
        p.Fail(where, "missing \"rate\" (and no \"defaults\": {\"rate\": ...})");
    }
    if (l.contains("delay"))
    {
        spec.delay = p.ParseDelay(p.GetString(l, "delay", where), where + ".delay");
    }
    else if (!defaults.haveDelay)
    {
        p.Fail(where, "missing \"delay\" (and no \"defaults\": {\"delay\": ...})");
    }
    return spec;
}

/// Every host has exactly one cable and every switch at least one.
void
CheckPorts(const Parser& p,
           const std::vector<std::string>& hostNames,
           const std::vector<std::string>& switchNames,
           const std::vector<std::vector<std::size_t>>& linksOf)
{
    const uint32_t nHosts = static_cast<uint32_t>(hostNames.size());
    const uint32_t nNodes = nHosts + static_cast<uint32_t>(switchNames.size());
    // A NIC has one port, so a host takes exactly one cable.
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        std::string where = "hosts[" + std::to_string(h) + "]";
        if (linksOf[h].empty())
        {
            p.Fail(where, "host '" + hostNames[h] + "' has no link (expected exactly one)");
        }
        if (linksOf[h].size() > 1)
        {
            p.Fail(where,
                   "host '" + hostNames[h] + "' has " + std::to_string(linksOf[h].size()) +
                       " links (links[" + std::to_string(linksOf[h][0]) + "] and links[" +
                       std::to_string(linksOf[h][1]) +
                       "]); expected exactly one, a NIC has one port");
        }
    }
    // A switch without ports cannot forward anything and cannot be set up.
    for (uint32_t s = nHosts; s < nNodes; ++s)
    {
        if (linksOf[s].empty())
        {
            p.Fail("switches[" + std::to_string(s - nHosts) + "]",
                   "switch '" + switchNames[s - nHosts] + "' has no link");
        }
    }
}

/// Every host is reachable from host 0.
void
CheckConnected(const Parser& p,
               const std::vector<std::string>& hostNames,
               const std::vector<std::vector<uint32_t>>& adjacency)
{
    const uint32_t nHosts = static_cast<uint32_t>(hostNames.size());
    const uint32_t nNodes = static_cast<uint32_t>(adjacency.size());
    // Routes only transit switches; hosts have one port, so a plain BFS over the cables
    // from host 0 finds exactly the hosts it can reach.
    std::vector<bool> seen(nNodes, false);
    std::deque<uint32_t> frontier{0};
    seen[0] = true;
    while (!frontier.empty())
    {
        uint32_t n = frontier.front();
        frontier.pop_front();
        for (uint32_t m : adjacency[n])
        {
            if (!seen[m])
            {
                seen[m] = true;
                frontier.push_back(m);
            }
        }
    }
    for (uint32_t h = 1; h < nHosts; ++h)
    {
        if (!seen[h])
        {
            p.Fail("hosts[" + std::to_string(h) + "]",
                   "host '" + hostNames[h] + "' is disconnected: no path to host '" + hostNames[0] +
                       "'");
        }
    }
}

/**
 * Check a parsed document completely; nothing is created. Throws TopologyFileError at
 * the first problem.
 * \param doc the document
 * \param name the file's name, for messages
 * \param specs set to the checked cables
 * \return the names and server grouping (the topology itself still empty)
 */
RoceTopologyFile
CheckDocument(const Json& doc, const std::string& name, std::vector<LinkSpec>* specsOut)
{
    Parser p(name);
    if (!doc.is_object())
    {
        p.Fail("top level",
               "expected a JSON object with \"hosts\", \"switches\" and \"links\", got " +
                   Parser::TypeName(doc));
    }
    p.CheckKeys(doc,
                "top level",
                {"hosts", "switches", "links", "defaults", "gpusPerServer", "servers"});

    std::vector<std::string> hostNames = p.ReadNodes(doc, "hosts", "h");
    std::vector<std::string> switchNames = p.ReadNodes(doc, "switches", "sw");
    if (hostNames.empty())
    {
        p.Fail("hosts", "expected at least one host");
    }
    const std::map<std::string, uint32_t> index = IndexNodes(p, hostNames, switchNames);
    const LinkDefaults defaults = ReadDefaults(p, doc);
    const uint32_t gpusPerServer = ReadServerGrouping(p, doc, hostNames);

    if (!doc.contains("links"))
    {
        p.Fail("top level", "missing \"links\"");
    }
    const Json& links = doc.at("links");
    if (!links.is_array())
    {
        p.Fail("links", "expected a list of link objects, got " + Parser::TypeName(links));
    }
    std::vector<LinkSpec>& specs = *specsOut;
    const uint32_t nHosts = static_cast<uint32_t>(hostNames.size());
    const uint32_t nNodes = nHosts + static_cast<uint32_t>(switchNames.size());
    std::vector<std::vector<uint32_t>> adjacency(nNodes);
    std::vector<std::vector<std::size_t>> linksOf(nNodes); // link indices, for messages
    for (std::size_t i = 0; i < links.size(); ++i)
    {
        const LinkSpec spec = ReadLink(p, links, i, index, defaults);
        const uint32_t ends[2] = {spec.a, spec.b};
        specs.push_back(spec);
        for (int e = 0; e < 2; ++e)
        {
            adjacency[ends[e]].push_back(ends[1 - e]);
            linksOf[ends[e]].push_back(i);
        }
    }
    CheckPorts(p, hostNames, switchNames, linksOf);
    CheckConnected(p, hostNames, adjacency);

    RoceTopologyFile result;
    result.hostNames = hostNames;
    result.switchNames = switchNames;
    result.gpusPerServer = gpusPerServer;
    return result;
}

/**
 * Create the checked fabric: nodes, cables, NICs in host order, switches, routes. Nodes
 * are created only here, so a bad file leaves no half-built fabric in the global NodeList.
 */
/**
 * Refuse, before anything is built, a switch whose shared buffer cannot hold its ports'
 * reserves and PFC headroom (a long cable's headroom grows with its delay): the MMU would
 * abort when the switch is installed.
 */
void
CheckSwitchBuffers(const RoceHelper& roce,
                   const RoceTopologyFile& result,
                   const std::vector<LinkSpec>& specs,
                   const std::string& name)
{
    const auto nHosts = static_cast<uint32_t>(result.hostNames.size());
    for (uint32_t s = 0; s < result.switchNames.size(); ++s)
    {
        // The switch's ports in the order Link gives them: its links in file order.
        std::vector<DataRate> rates;
        std::vector<Time> delays;
        for (const auto& spec : specs)
        {
            if (spec.a == nHosts + s || spec.b == nHosts + s)
            {
                rates.push_back(spec.rate);
                delays.push_back(spec.delay);
            }
        }
        std::string why;
        if (!rates.empty() && !roce.CheckSwitchPorts(rates, delays, &why))
        {
            throw TopologyFileError{name + ": switch \"" + result.switchNames[s] +
                                    "\": its links do not fit its buffer (" + why + ")"};
        }
    }
}

void
BuildFabric(RoceHelper& roce, RoceTopologyFile& result, const std::vector<LinkSpec>& specs)
{
    const auto nHosts = static_cast<uint32_t>(result.hostNames.size());
    const auto nNodes = nHosts + static_cast<uint32_t>(result.switchNames.size());
    RoceTopology& topo = result.topology;
    topo.hosts.Create(nHosts);
    topo.switches.Create(nNodes - nHosts);
    auto node = [&topo, nHosts](uint32_t i) {
        return i < nHosts ? topo.hosts.Get(i) : topo.switches.Get(i - nHosts);
    };
    std::vector<Ptr<NetDevice>> hostPort(nHosts);
    for (const auto& spec : specs)
    {
        NetDeviceContainer devs = roce.Link(node(spec.a), node(spec.b), spec.rate, spec.delay);
        if (spec.a < nHosts)
        {
            hostPort[spec.a] = devs.Get(0);
        }
        if (spec.b < nHosts)
        {
            hostPort[spec.b] = devs.Get(1);
        }
    }
    // NICs in host order, so nics[i] and HostAddress(i) match hostNames[i].
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        topo.nics.push_back(roce.InstallNic(hostPort[h], RoceTopologyHelper::HostAddress(h)));
    }
    // Switches last: a switch takes as ports the devices its node has when installed.
    for (uint32_t s = 0; s < topo.switches.GetN(); ++s)
    {
        topo.switchObjects.push_back(roce.InstallSwitch(topo.switches.Get(s)));
    }
    roce.PopulateRoutes();
}
} // namespace

RoceTopologyReader::RoceTopologyReader(RoceHelper& roce)
    : m_roce(roce)
{
}

bool
RoceTopologyReader::Read(const std::string& path, RoceTopologyFile& file, std::string* error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        *error = path + ": cannot open topology file (" + std::strerror(errno) + ")";
        return false;
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
    {
        *error = path + ": cannot read topology file (" + std::strerror(errno) + ")";
        return false;
    }
    return ReadString(text.str(), path, file, error);
}

bool
RoceTopologyReader::ReadString(const std::string& json,
                               const std::string& name,
                               RoceTopologyFile& file,
                               std::string* error)
{
    Json doc;
    if (!JsonText::Parse(json, name, &doc, error))
    {
        return false;
    }
    std::vector<LinkSpec> specs;
    try
    {
        file = CheckDocument(doc, name, &specs);
        CheckSwitchBuffers(m_roce, file, specs, name);
    }
    catch (const TopologyFileError& e)
    {
        NS_LOG_INFO("refused " << name << ": " << e.message);
        *error = e.message;
        return false;
    }
    catch (const Json::exception& e)
    {
        // The checks read every type before using it; this is a backstop, not a path.
        *error = name + ": unexpected JSON content: " + JsonText::Describe(e);
        return false;
    }
    BuildFabric(m_roce, file, specs);
    return true;
}

} // namespace ns3
