// SPDX-License-Identifier: GPL-2.0-only
#ifndef PROGRAM_OPTIONS_H
#define PROGRAM_OPTIONS_H

#include "ns3/attribute-text.h"
#include "ns3/attribute.h"
#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The command line of an ai-fabric program, checked before anything is built.
 *
 * ns-3's CommandLine aborts on some bad values (a Time given "x", an unsigned given
 * "1.5" through an attribute), reads others partly ("16M" into an integer is 16, "-1"
 * wraps) and prints its whole help on the rest. ProgramOptions reads every option as
 * text and converts it itself, so that bad input always ends the same way: Parse prints
 * ONE line
 *
 *     program: --option=value: expected ...
 *
 * on stderr and returns false, and the program returns exit status 1. CommandLine still
 * prints --help (with the forms every option takes) and the Print* introspection.
 *
 * What Parse accepts:
 * - the options added here, written --name=value (a flag also as --name), the last one
 *   given winning;
 * - --ns3::Class::Attribute=value: checked by the attribute's kind (AttributeValueFromText)
 *   and made the attribute's default, as CommandLine does;
 * - --Global=value for ns-3 global values (RngRun, SchedulerType, ...), checked the same way;
 * - --help, --PrintHelp, --PrintGlobals, --PrintGroups, --PrintGroup=, --PrintTypeIds,
 *   --PrintAttributes=, --version, handed to CommandLine.
 * Anything else (an unknown option, a bare word) is an error.
 *
 * The forms (one table, also in --help): sizes as TextToBytes reads them (16M = 16 MiB,
 * 16MB = 16e6 B), rates as TextToDataRate ("400Gbps"), durations as TextToTime ("1us"),
 * integers in digits only and numbers in full (nothing before or after),
 * flags true/false/1/0.
 */
class ProgramOptions
{
  public:
    /**
     * \param program the program's name, first word of every message
     * \param file the program's source (__FILE__), as CommandLine takes it
     */
    explicit ProgramOptions(const std::string& program, const std::string& file = "");

    /**
     * The scheduler every ai-fabric program runs on unless told otherwise: the constructor
     * makes it the SchedulerType global value, which --SchedulerType=... and NS_GLOBAL_VALUE
     * still override. It is the stock ns-3 scheduler that runs the packet path fastest
     * (the measurement is in doc/). Results do not depend on it: every ns-3 scheduler runs
     * events in time order, ties in the order they were scheduled (suite determinism).
     */
    static const char* const DEFAULT_SCHEDULER;
    /// \return the SchedulerType the simulation runs on (for reports)
    static std::string GetSchedulerType();
    /**
     * The memory allocator this process runs on: the library that defines the malloc it
     * calls. "tcmalloc" (the standalone build links it into the programs,
     * AI_FABRIC_ALLOCATOR), "jemalloc" (one preloaded, say), "asan" (a sanitized build),
     * "glibc", or that library's file name. Results do not depend on it, only the wall
     * time.
     * \return its name (for reports)
     */
    static std::string GetAllocator();

    /**
     * Fix ns-3's time resolution at its default (nanoseconds) now, as Simulator::Run
     * would. Until then ns-3 records every Time object in a std::set (about 48 bytes and
     * a tree insertion each), so that Time::SetResolution could convert it; the trace
     * and runner of a 16,384-GPU job make about 39 M of them before the simulation
     * starts (one in each of its 19.6 M ops, and the runner's start time of each).
     * A program calls this first thing in main, once: ns-3 allows one call per process,
     * and none after a simulation has run (it does nothing when called again).
     */
    static void FixTimeResolution();

    /// Text printed by --help above the options (a sentence on bad input is appended).
    void Usage(const std::string& usage);

    /// Free text (a name, a prefix): anything is accepted.
    void AddValue(const std::string& name, const std::string& help, std::string& value);
    /// Free text that may be given several times (--job=a --job=b): every one is
    /// appended to values, in the order given.
    void AddList(const std::string& name, const std::string& help, std::vector<std::string>& values);
    /// A flag: true, false, on, off, 1 or 0; --name alone means true.
    void AddValue(const std::string& name, const std::string& help, bool& value);
    /// An integer from min to max, digits only.
    void AddValue(const std::string& name,
                  const std::string& help,
                  uint32_t& value,
                  uint32_t min = 0,
                  uint32_t max = UINT32_MAX);
    /// A finite number from min to max (above min, not at it, if minExclusive).
    void AddValue(const std::string& name,
                  const std::string& help,
                  double& value,
                  double min = -std::numeric_limits<double>::max(),
                  double max = std::numeric_limits<double>::max(),
                  bool minExclusive = false);
    /// A rate like "400Gbps" from min to max (the default 1 Mbps is the slowest link the
    /// topology helpers build; 100 Tbps keeps frame times above a picosecond and the bytes
    /// of an hour within 64 bits).
    void AddValue(const std::string& name,
                  const std::string& help,
                  DataRate& value,
                  DataRate min = DataRate(1000000ULL),
                  DataRate max = DataRate(100000000000000ULL));
    /// A duration like "1us" (at most an hour); zero refused if positive.
    void AddValue(const std::string& name,
                  const std::string& help,
                  Time& value,
                  bool positive = false);
    /**
     * A byte size like "16M" from min to max.
     * \param keyword if not empty, a word accepted instead of a size (e.g. "auto"),
     *        which sets value to keywordValue
     * \param keywordValue the value keyword stands for
     */
    void AddSize(const std::string& name,
                 const std::string& help,
                 uint64_t& value,
                 uint64_t min = 1,
                 uint64_t max = uint64_t{1} << 50,
                 const std::string& keyword = "",
                 uint64_t keywordValue = 0);
    /// One of a list of words.
    void AddChoice(const std::string& name,
                   const std::string& help,
                   std::string& value,
                   const std::vector<std::string>& choices);
    /**
     * A congestion control, in the one vocabulary of RoceCongestionControl::LookupByName
     * (a TypeId, "none", or a deprecated name, with a warning); value is set to the
     * TypeId's name.
     */
    void AddCongestionControl(const std::string& name, const std::string& help, std::string& value);
    /// A file the program reads: must exist and be readable when not empty.
    void AddInputFile(const std::string& name, const std::string& help, std::string& value);
    /// A file the program writes: CheckOutputFile when not empty and not none.
    void AddOutputFile(const std::string& name,
                       const std::string& help,
                       std::string& value,
                       const std::string& none = "");
    /// A folder the program writes into: CheckOutputFolder when not empty.
    void AddOutputFolder(const std::string& name, const std::string& help, std::string& value);
    /// A pcap file-name prefix: CheckOutputPrefix when not empty (empty: none).
    void AddPcapPrefix(const std::string& name, const std::string& help, std::string& value);

    /**
     * Check and convert the command line (see the class description).
     * \return false, after printing one line on stderr, on the first bad argument
     */
    bool Parse(int argc, char* argv[]);

    /**
     * Run hook after the program's own options are converted and before --ns3:: attribute
     * and global-value arguments are applied, so defaults that depend on an option (a GPU
     * preset, say) are set first and the user's attributes still win over them.
     * \param hook what to run; it returns false, after printing its one line, to stop
     */
    void SetBeforeAttributes(std::function<bool()> hook);

    /// \return whether option name was on the command line
    bool IsGiven(const std::string& name) const;
    /// \return the text option name was given (or its default's text)
    std::string GetText(const std::string& name) const;

    /**
     * Report a bad option found by the program's own checks (combinations of options):
     * prints "program: --name=text: what" on stderr ("program: --name: what" if the
     * option was not given).
     * \return 1, the exit status for bad input: `return cmd.Fail("ranks", "...");`
     */
    int Fail(const std::string& name, const std::string& what) const;
    /**
     * Print "program: message" on stderr (e.g. a file's own "file: place: what").
     * \return 1, the exit status for bad input
     */
    int Error(const std::string& message) const;
    /// \return the program's name
    const std::string& GetProgram() const;

  private:
    /// One option: its text and how to convert it.
    struct Option
    {
        std::string text;  //!< as given, or the default's text
        bool given{false}; //!< on the command line
        bool flag{false};  //!< --name alone means "true"
        /// Convert text into the program's variable; on failure set expected.
        std::function<bool(const std::string& text, std::string* expected)> convert;
    };

    /// One command-line argument, split.
    struct Arg
    {
        std::string text;     //!< as given
        std::string name;     //!< without its dashes and value
        std::string value;    //!< after the '='
        bool hasValue{false}; //!< it has a '='
    };

    /// Split the arguments of Parse: CommandLine's built-ins (checked) to forward, the
    /// others to args; false (after an error message) on a malformed one.
    bool SplitArguments(int argc,
                        char* argv[],
                        std::vector<std::string>& forward,
                        std::vector<Arg>& args) const;
    /// Register name with CommandLine (for --help) and with the converter.
    void Add(const std::string& name,
             const std::string& help,
             const std::string& form,
             const std::string& defaultText,
             std::function<bool(const std::string&, std::string*)> convert,
             bool flag = false);
    /// Check and apply --ns3::Class::Attribute=value or --Global=value.
    bool SetAttribute(const std::string& arg, const std::string& name, const std::string& value);

    std::string m_program;
    CommandLine m_cmd;
    std::map<std::string, Option> m_options;
    std::deque<std::string> m_helpDefaults;   //!< CommandLine keeps pointers to these
    std::function<bool()> m_beforeAttributes; //!< see SetBeforeAttributes
};

/**
 * Check that folder can receive the program's outputs before a long run: it is created
 * if missing, must be a folder, and a probe file must be creatable in it.
 * \param why set to the reason ("not a folder", the system's message) on failure
 */
bool CheckOutputFolder(const std::string& folder, std::string* why);

/**
 * Check that file can be written: not a folder, its folder exists, and it can be opened
 * for writing (a file that did not exist is removed again).
 * \param why set to the reason on failure
 */
bool CheckOutputFile(const std::string& file, std::string* why);

/**
 * Check that files can be created with a name prefix (pcap captures): it is not empty
 * and its folder exists and is writable.
 * \param prefix the file name prefix, possibly with a folder ("out/run1")
 * \param error set to the reason (naming the folder) when files cannot be created
 * \return true if files with this prefix can be created
 */
bool CheckOutputPrefix(const std::string& prefix, std::string* error);

/**
 * Check that file exists, is a regular file and can be opened for reading.
 * \param why set to the reason on failure
 */
bool CheckInputFile(const std::string& file, std::string* why);

} // namespace ns3

#endif // PROGRAM_OPTIONS_H
