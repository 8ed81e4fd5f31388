// SPDX-License-Identifier: GPL-2.0-only
#include "program-options.h"

#include "attribute-text.h"
#include "quantity-text.h"

#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/string.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ProgramOptions");

namespace
{

/// The forms of the option kinds, as --help and the messages state them (one table).
struct Forms
{
    static constexpr const char* RATE = "a rate like 400Gbps or 12.5GB/s";
    static constexpr const char* TIME = "a duration like 1us or 2ms (s, ms, us, ns, ps)";
    /// The paragraph --help ends with.
    static constexpr const char* NOTE =
        "Sizes take units: 16M = 16 MiB, 1G = 1 GiB (K, M, G, T and KiB, MiB, GiB, TiB are "
        "binary, as in nccl-tests; kB, MB, GB, TB are decimal); rates like 400Gbps; durations "
        "like 1us. Bad options or files stop the program with exit status 1 and one line "
        "naming the option or file, the place and what was expected.";
};

/// CommandLine's own options: handed to it untouched.
bool
IsCommandLineBuiltin(const std::string& name)
{
    static const std::vector<std::string> builtins = {"help",
                                                      "PrintHelp",
                                                      "version",
                                                      "PrintVersion",
                                                      "PrintGlobals",
                                                      "PrintGroups",
                                                      "PrintGroup",
                                                      "PrintTypeIds",
                                                      "PrintAttributes"};
    return std::find(builtins.begin(), builtins.end(), name) != builtins.end();
}

/// "a, b or c"
std::string
JoinWords(const std::vector<std::string>& words)
{
    std::string out;
    for (size_t k = 0; k < words.size(); ++k)
    {
        out += (k == 0 ? "" : k + 1 == words.size() ? " or " : ", ") + words[k];
    }
    return out;
}

/// A number as people write it: 1, 0.5, 1e+12.
std::string
NumberText(double x)
{
    std::ostringstream os;
    os << x;
    return os.str();
}

/// "4M", "512K" or "4096": the largest binary unit that divides the size.
std::string
SizeText(uint64_t bytes)
{
    static const std::pair<const char*, uint64_t> units[] = {{"T", uint64_t{1} << 40},
                                                             {"G", uint64_t{1} << 30},
                                                             {"M", uint64_t{1} << 20},
                                                             {"K", uint64_t{1} << 10}};
    for (const auto& [unit, scale] : units)
    {
        if (bytes != 0 && bytes % scale == 0)
        {
            return std::to_string(bytes / scale) + unit;
        }
    }
    return std::to_string(bytes);
}

/// "100Gbps": the largest decimal unit that divides the rate.
std::string
RateText(DataRate rate)
{
    static const std::pair<const char*, uint64_t> units[] = {{"Tbps", 1000000000000ULL},
                                                             {"Gbps", 1000000000ULL},
                                                             {"Mbps", 1000000ULL},
                                                             {"kbps", 1000ULL}};
    const uint64_t bps = rate.GetBitRate();
    for (const auto& [unit, scale] : units)
    {
        if (bps != 0 && bps % scale == 0)
        {
            return std::to_string(bps / scale) + unit;
        }
    }
    return std::to_string(bps) + "bps";
}

/// "20ms": the largest unit that divides the duration.
std::string
TimeText(Time t)
{
    static const std::pair<const char*, int64_t> units[] = {{"s", 1000000000000LL},
                                                            {"ms", 1000000000LL},
                                                            {"us", 1000000LL},
                                                            {"ns", 1000LL}};
    const int64_t ps = t.GetPicoSeconds();
    for (const auto& [unit, scale] : units)
    {
        if (ps != 0 && ps % scale == 0)
        {
            return std::to_string(ps / scale) + unit;
        }
    }
    return ps == 0 ? "0s" : std::to_string(ps) + "ps";
}

std::string
SystemMessage(const std::error_code& ec)
{
    return ec ? ec.message() : std::string("unknown error");
}

} // namespace

const char* const ProgramOptions::DEFAULT_SCHEDULER = "ns3::PriorityQueueScheduler";

ProgramOptions::ProgramOptions(const std::string& program, const std::string& file)
    : m_program(program),
      m_cmd(file)
{
    m_cmd.Usage(Forms::NOTE);
    // The environment's choice (NS_GLOBAL_VALUE=SchedulerType=...) is the user's: keep it.
    const char* env = std::getenv("NS_GLOBAL_VALUE");
    if (!env || !std::strstr(env, "SchedulerType"))
    {
        GlobalValue::Bind("SchedulerType", StringValue(DEFAULT_SCHEDULER));
    }
}

void
ProgramOptions::FixTimeResolution()
{
    static bool fixed = false;
    if (!fixed)
    {
        fixed = true;
        Time::SetResolution(Time::NS); // converts (none) and stops recording Time objects
    }
}

std::string
ProgramOptions::GetSchedulerType()
{
    StringValue scheduler;
    GlobalValue::GetValueByName("SchedulerType", scheduler);
    return scheduler.Get();
}

std::string
ProgramOptions::GetAllocator()
{
    // The allocator is whichever library defines the malloc this process calls (a
    // preloaded one, one linked first, or glibc's); ASan's interceptors are libasan's.
    Dl_info info{};
    void* (*const mallocAddress)(std::size_t) = &std::malloc;
    if (!dladdr(reinterpret_cast<void*>(mallocAddress), &info) || !info.dli_fname)
    {
        return "unknown";
    }
    const std::string file = std::filesystem::path(info.dli_fname).filename().string();
    for (const char* name : {"tcmalloc", "jemalloc", "asan"})
    {
        if (file.find(name) != std::string::npos)
        {
            return name;
        }
    }
    if (file.rfind("libc.so", 0) == 0)
    {
        return "glibc";
    }
    return file;
}

void
ProgramOptions::Usage(const std::string& usage)
{
    m_cmd.Usage(usage + "\n\n" + Forms::NOTE);
}

void
ProgramOptions::Add(const std::string& name,
                    const std::string& help,
                    const std::string& form,
                    const std::string& defaultText,
                    std::function<bool(const std::string&, std::string*)> convert,
                    bool flag)
{
    NS_ABORT_MSG_IF(m_options.count(name), "ProgramOptions: option --" << name << " added twice");
    m_helpDefaults.push_back(defaultText);
    m_cmd.AddValue(name, help + (form.empty() ? "" : " (" + form + ")"), m_helpDefaults.back());
    Option& o = m_options[name];
    o.text = defaultText;
    o.flag = flag;
    o.convert = std::move(convert);
}

void
ProgramOptions::AddValue(const std::string& name, const std::string& help, std::string& value)
{
    Add(name, help, "", value, [&value](const std::string& text, std::string*) {
        value = text;
        return true;
    });
}

void
ProgramOptions::AddList(const std::string& name,
                        const std::string& help,
                        std::vector<std::string>& values)
{
    Add(name, help + " (may be given several times)", "", "", [&values](const std::string& text, std::string*) {
        values.push_back(text);
        return true;
    });
}

void
ProgramOptions::AddValue(const std::string& name, const std::string& help, bool& value)
{
    Add(
        name,
        help,
        FLAG_FORMS,
        value ? "true" : "false",
        [&value](const std::string& text, std::string* expected) {
            *expected = FLAG_FORMS;
            return TextToBool(text, value);
        },
        true);
}

void
ProgramOptions::AddValue(const std::string& name,
                         const std::string& help,
                         uint32_t& value,
                         uint32_t min,
                         uint32_t max)
{
    const std::string form =
        "an integer from " + std::to_string(min) + " to " + std::to_string(max);
    Add(name,
        help,
        form,
        std::to_string(value),
        [&value, min, max, form](const std::string& text, std::string* expected) {
            *expected = form;
            if (!IsIntegerText(text))
            {
                return false;
            }
            const uint64_t v = std::strtoull(text.c_str(), nullptr, 10);
            if (v < min || v > max)
            {
                return false;
            }
            value = static_cast<uint32_t>(v);
            return true;
        });
}

void
ProgramOptions::AddValue(const std::string& name,
                         const std::string& help,
                         double& value,
                         double min,
                         double max,
                         bool minExclusive)
{
    const double huge = std::numeric_limits<double>::max();
    const std::string low =
        min == -huge ? "" : (minExclusive ? " above " : " from ") + NumberText(min);
    const std::string high =
        max == huge ? "" : (low.empty() ? " up to " : " to ") + NumberText(max);
    const std::string form = "a number" + low + high;
    Add(name,
        help,
        form,
        NumberText(value),
        [&value, min, max, minExclusive, form](const std::string& text, std::string* expected) {
            *expected = form;
            double v;
            if (!TextToNumber(text, v) || v > max || v < min || (minExclusive && v == min))
            {
                return false;
            }
            value = v;
            return true;
        });
}

void
ProgramOptions::AddValue(const std::string& name,
                         const std::string& help,
                         DataRate& value,
                         DataRate min,
                         DataRate max)
{
    const std::string form =
        std::string(Forms::RATE) + " from " + RateText(min) + " to " + RateText(max);
    Add(name,
        help,
        form,
        RateText(value),
        [&value, min, max, form](const std::string& text, std::string* expected) {
            DataRate r;
            std::string why;
            if (!TextToDataRate(text, r, &why) || r < min || r > max)
            {
                *expected = form + (why.empty() ? "" : ": " + why);
                return false;
            }
            value = r;
            return true;
        });
}

void
ProgramOptions::AddValue(const std::string& name,
                         const std::string& help,
                         Time& value,
                         bool positive)
{
    const std::string form = std::string(Forms::TIME) + (positive ? ", above zero" : "");
    Add(name,
        help,
        form,
        TimeText(value),
        [&value, positive, form](const std::string& text, std::string* expected) {
            Time t;
            std::string why;
            if (!TextToTime(text, t, &why) || (positive && !t.IsStrictlyPositive()))
            {
                *expected = (positive ? "a positive duration" : "a non-negative duration") +
                            std::string(" like 1us or 2ms (s, ms, us, ns, ps; at most an hour)") +
                            (why.empty() ? "" : ": " + why);
                return false;
            }
            value = t;
            return true;
        });
}

void
ProgramOptions::AddSize(const std::string& name,
                        const std::string& help,
                        uint64_t& value,
                        uint64_t min,
                        uint64_t max,
                        const std::string& keyword,
                        uint64_t keywordValue)
{
    const std::string form = (keyword.empty() ? "" : "\"" + keyword + "\" or ") +
                             std::string("a size from ") + SizeText(min) + " B to " +
                             SizeText(max) + " B " + BYTES_FORMS;
    const std::string defaultText =
        !keyword.empty() && value == keywordValue ? keyword : SizeText(value);
    Add(name,
        help,
        form,
        defaultText,
        [&value, min, max, keyword, keywordValue, form](const std::string& text,
                                                        std::string* expected) {
            if (!keyword.empty() && text == keyword)
            {
                value = keywordValue;
                return true;
            }
            uint64_t b = 0;
            std::string why;
            if (!TextToBytes(text, b, &why) || b < min || b > max)
            {
                *expected = form + (why.empty() ? "" : ": " + why);
                return false;
            }
            value = b;
            return true;
        });
}

void
ProgramOptions::AddChoice(const std::string& name,
                          const std::string& help,
                          std::string& value,
                          const std::vector<std::string>& choices)
{
    const std::string form = "one of " + JoinWords(choices);
    Add(name,
        help,
        form,
        value,
        [&value, choices, form](const std::string& text, std::string* expected) {
            if (std::find(choices.begin(), choices.end(), text) == choices.end())
            {
                *expected = form;
                return false;
            }
            value = text;
            return true;
        });
}

void
ProgramOptions::AddCongestionControl(const std::string& name,
                                     const std::string& help,
                                     std::string& value)
{
    const std::string form = RoceCongestionControl::GetNameHint();
    Add(name, help, form, value, [&value, form](const std::string& text, std::string* expected) {
        TypeId tid;
        if (!RoceCongestionControl::LookupByName(text, &tid))
        {
            *expected = form;
            return false;
        }
        value = tid.GetName();
        return true;
    });
}

void
ProgramOptions::AddInputFile(const std::string& name, const std::string& help, std::string& value)
{
    Add(name,
        help,
        "a readable file",
        value,
        [&value](const std::string& text, std::string* expected) {
            std::string why;
            if (!text.empty() && !CheckInputFile(text, &why))
            {
                *expected = "a readable file (" + why + ")";
                return false;
            }
            value = text;
            return true;
        });
}

void
ProgramOptions::AddOutputFile(const std::string& name,
                              const std::string& help,
                              std::string& value,
                              const std::string& none)
{
    const std::string form = "a file in a writable folder" + (none.empty() ? "" : ", or " + none);
    Add(name, help, form, value, [&value, none](const std::string& text, std::string* expected) {
        std::string why;
        if (!text.empty() && text != none && !CheckOutputFile(text, &why))
        {
            *expected = "a file in a writable folder (" + why + ")";
            return false;
        }
        value = text;
        return true;
    });
}

void
ProgramOptions::AddPcapPrefix(const std::string& name, const std::string& help, std::string& value)
{
    Add(name,
        help,
        "a file-name prefix in a writable folder, or empty for none",
        value,
        [&value](const std::string& text, std::string* expected) {
            std::string why;
            if (!text.empty() && !CheckOutputPrefix(text, &why))
            {
                *expected = "a file-name prefix in a writable folder (" + why + ")";
                return false;
            }
            value = text;
            return true;
        });
}

void
ProgramOptions::AddOutputFolder(const std::string& name,
                                const std::string& help,
                                std::string& value)
{
    Add(name,
        help,
        "a writable folder, created if missing",
        value,
        [&value](const std::string& text, std::string* expected) {
            std::string why;
            if (!text.empty() && !CheckOutputFolder(text, &why))
            {
                *expected = "a writable folder (" + why + ")";
                return false;
            }
            value = text;
            return true;
        });
}

bool
ProgramOptions::SplitArguments(int argc,
                               char* argv[],
                               std::vector<std::string>& forward,
                               std::vector<Arg>& args) const
{
    for (int k = 1; k < argc; ++k)
    {
        Arg a{argv[k], "", "", false};
        if (a.text.size() < 2 || a.text[0] != '-')
        {
            Error(a.text + ": unexpected argument (options are written --name=value; see --help)");
            return false;
        }
        const std::string body = a.text.substr(a.text[1] == '-' ? 2 : 1);
        const size_t eq = body.find('=');
        a.name = body.substr(0, eq);
        a.hasValue = eq != std::string::npos;
        a.value = a.hasValue ? body.substr(eq + 1) : "";
        if (IsCommandLineBuiltin(a.name))
        {
            TypeId tid;
            if (a.name == "PrintAttributes" && !TypeId::LookupByNameFailSafe(a.value, &tid))
            {
                Fail(a.name, "expected a registered TypeId name (see --PrintTypeIds)");
                return false;
            }
            forward.push_back(a.text);
            continue;
        }
        args.push_back(a);
    }
    return true;
}

bool
ProgramOptions::Parse(int argc, char* argv[])
{
    std::vector<std::string> forward{argc > 0 ? argv[0] : m_program};
    std::vector<Arg> args;
    if (!SplitArguments(argc, argv, forward, args))
    {
        return false;
    }
    // --help and the Print* options answer (and exit) before any other argument is judged.
    if (forward.size() > 1)
    {
        m_cmd.Parse(forward);
    }
    // The program's options first, then the hook, then --ns3:: attributes and global
    // values (so the user's attributes win over defaults the hook sets from the options).
    for (const Arg& a : args)
    {
        auto it = m_options.find(a.name);
        if (it == m_options.end())
        {
            continue;
        }
        Option& o = it->second;
        if (!a.hasValue && !o.flag)
        {
            Error(a.text + ": expected --" + a.name + "=value");
            return false;
        }
        const std::string text = a.hasValue ? a.value : "true";
        std::string expected;
        if (!o.convert(text, &expected))
        {
            Error(a.text + ": expected " + expected);
            return false;
        }
        o.text = text;
        o.given = true;
        NS_LOG_INFO(m_program << ": --" << a.name << " = " << text);
    }
    if (m_beforeAttributes && !m_beforeAttributes())
    {
        return false;
    }
    for (const Arg& a : args)
    {
        if (m_options.find(a.name) == m_options.end() && !SetAttribute(a.text, a.name, a.value))
        {
            return false;
        }
    }
    m_cmd.Parse(forward); // records the program name for CommandLine's users
    return true;
}

void
ProgramOptions::SetBeforeAttributes(std::function<bool()> hook)
{
    m_beforeAttributes = std::move(hook);
}

bool
ProgramOptions::SetAttribute(const std::string& arg,
                             const std::string& given,
                             const std::string& value)
{
    // A congestion control's attribute may name it as it was named before the Roce prefix.
    const std::string name = RoceCongestionControl::ResolveAttributePath(given);
    const size_t split = name.rfind("::");
    if (split != std::string::npos)
    {
        TypeId tid;
        TypeId::AttributeInformation info;
        if (!TypeId::LookupByNameFailSafe(name.substr(0, split), &tid) ||
            !tid.LookupAttributeByName(name.substr(split + 2), &info))
        {
            Error(arg + ": no such attribute (expected --ns3::Class::Attribute=value; "
                        "see --PrintAttributes=ns3::Class)");
            return false;
        }
        std::string expected;
        Ptr<AttributeValue> v = AttributeValueFromText(info.checker, value, &expected);
        if (!v || !Config::SetDefaultFailSafe(name, *v))
        {
            Error(arg + ": expected " + expected);
            return false;
        }
        NS_LOG_INFO(m_program << ": default " << name << " = " << value);
        return true;
    }
    for (auto g = GlobalValue::Begin(); g != GlobalValue::End(); ++g)
    {
        if ((*g)->GetName() == name)
        {
            std::string expected;
            Ptr<AttributeValue> v = AttributeValueFromText((*g)->GetChecker(), value, &expected);
            if (!v || !(*g)->SetValue(*v))
            {
                Error(arg + ": expected " + expected);
                return false;
            }
            return true;
        }
    }
    Error(arg + ": unknown option (see --help)");
    return false;
}

bool
ProgramOptions::IsGiven(const std::string& name) const
{
    auto it = m_options.find(name);
    return it != m_options.end() && it->second.given;
}

std::string
ProgramOptions::GetText(const std::string& name) const
{
    auto it = m_options.find(name);
    NS_ABORT_MSG_IF(it == m_options.end(), "ProgramOptions: no option --" << name);
    return it->second.text;
}

int
ProgramOptions::Fail(const std::string& name, const std::string& what) const
{
    auto it = m_options.find(name);
    const std::string value =
        it == m_options.end() || !it->second.given ? "" : "=" + it->second.text;
    return Error("--" + name + value + ": " + what);
}

int
ProgramOptions::Error(const std::string& message) const
{
    std::cerr << m_program << ": " << message << std::endl;
    return 1;
}

const std::string&
ProgramOptions::GetProgram() const
{
    return m_program;
}

bool
CheckOutputFolder(const std::string& folder, std::string* why)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (!fs::is_directory(folder, ec))
    {
        *why = fs::exists(folder, ec) ? "not a folder" : "cannot create it: " + SystemMessage(ec);
        return false;
    }
    // Permissions say little (root may write anywhere, a read-only mount refuses root):
    // a probe file says it all.
    const std::string probe = folder + "/.ai-fabric-write-probe-" + std::to_string(::getpid());
    {
        std::ofstream out(probe);
        if (!out)
        {
            *why = std::string("cannot write in it: ") + std::strerror(errno);
            return false;
        }
    }
    fs::remove(probe, ec);
    return true;
}

bool
CheckOutputFile(const std::string& file, std::string* why)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(file, ec))
    {
        *why = "a folder, not a file";
        return false;
    }
    const fs::path parent = fs::path(file).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec))
    {
        *why = "folder " + parent.string() +
               (fs::exists(parent, ec) ? " is not a folder" : " does not exist");
        return false;
    }
    const bool existed = fs::exists(file, ec);
    {
        std::ofstream out(file, std::ios::app);
        if (!out)
        {
            *why = std::string("cannot write it: ") + std::strerror(errno);
            return false;
        }
    }
    if (!existed)
    {
        fs::remove(file, ec);
    }
    return true;
}

bool
CheckInputFile(const std::string& file, std::string* why)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(file, ec))
    {
        *why = "a folder, not a file";
        return false;
    }
    std::ifstream in(file);
    if (!in)
    {
        *why = std::string("cannot open it: ") + std::strerror(errno);
        return false;
    }
    return true;
}

bool
CheckOutputPrefix(const std::string& prefix, std::string* error)
{
    if (prefix.empty())
    {
        *error = "expected a file name prefix such as \"out/run\", got an empty one";
        return false;
    }
    std::filesystem::path folder = std::filesystem::path(prefix).parent_path();
    if (folder.empty())
    {
        folder = ".";
    }
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec))
    {
        *error = "folder '" + folder.string() + "' of prefix '" + prefix + "' does not exist";
        return false;
    }
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
    {
        *error = "folder '" + folder.string() + "' of prefix '" + prefix + "' is not writable";
        return false;
    }
    return true;
}

} // namespace ns3
