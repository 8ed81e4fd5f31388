// SPDX-License-Identifier: GPL-2.0-only
// Every program refuses bad input the same way: exit status 1 and ONE line on stderr,
// "<program>: <option or file>: ... expected ...", before anything is built. Each program
// runs here with a table of bad command lines and files; --help documents the rule.
#include "test-util.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifndef AI_FABRIC_PROGRAM_DIR
#error "AI_FABRIC_PROGRAM_DIR must name the folder of the built programs"
#endif

namespace
{

/// What a program printed and how it ended.
struct Outcome
{
    int status{-1};  //!< exit status, or -1 if it did not exit (signal, abort)
    int signal{0};   //!< the signal that ended it, if any
    std::string out; //!< stdout
    std::string err; //!< stderr
};

/// Read a whole file.
std::string
Slurp(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// A fresh path in the test's temporary folder.
std::string
TempPath(const std::string& name)
{
    return aifabric::TestDir() + name;
}

/// Write text to a fresh temporary file; return its path.
std::string
TempFile(const std::string& name, const std::string& text)
{
    const std::string path = TempPath(name);
    std::ofstream(path) << text;
    return path;
}

/**
 * Run a built program with args, in the temporary folder (so that default outputs land
 * there), with a 120 s alarm: a program that starts simulating instead of refusing is
 * killed and the test fails on its status.
 */
Outcome
RunProgram(const std::string& program, const std::vector<std::string>& args)
{
    const std::string exe = std::string(AI_FABRIC_PROGRAM_DIR) + "/" + program;
    const std::string outFile = TempPath(program + "-stdout");
    const std::string errFile = TempPath(program + "-stderr");
    const std::string dir = aifabric::TestDir(); // before fork: the child's pid differs
    Outcome o;
    const pid_t pid = ::fork();
    if (pid == 0)
    {
        if (!std::freopen(outFile.c_str(), "w", stdout) ||
            !std::freopen(errFile.c_str(), "w", stderr) || ::chdir(dir.c_str()) != 0)
        {
            std::_Exit(127);
        }
        std::vector<char*> argv{const_cast<char*>(exe.c_str())};
        for (const auto& a : args)
        {
            argv.push_back(const_cast<char*>(a.c_str()));
        }
        argv.push_back(nullptr);
        ::alarm(120);
        ::execv(exe.c_str(), argv.data());
        std::_Exit(127);
    }
    int wstatus = 0;
    ::waitpid(pid, &wstatus, 0);
    if (WIFEXITED(wstatus))
    {
        o.status = WEXITSTATUS(wstatus);
    }
    else if (WIFSIGNALED(wstatus))
    {
        o.signal = WTERMSIG(wstatus);
    }
    o.out = Slurp(outFile);
    o.err = Slurp(errFile);
    std::remove(outFile.c_str());
    std::remove(errFile.c_str());
    return o;
}

/// One bad command line and the line it must produce.
struct BadCase
{
    std::vector<std::string> args;
    std::string message; //!< must appear in the one line, after "<program>: "
};

/// Run every case of a table; each must exit 1 with exactly one line naming the problem.
void
ExpectRefused(const std::string& program, const std::vector<BadCase>& table)
{
    for (const BadCase& c : table)
    {
        std::string cmd = program;
        for (const auto& a : c.args)
        {
            cmd += " " + a;
        }
        SCOPED_TRACE(cmd);
        const Outcome o = RunProgram(program, c.args);
        EXPECT_EQ(o.signal, 0) << "killed by signal " << o.signal << "; stderr: " << o.err;
        EXPECT_EQ(o.status, 1) << "stderr: " << o.err;
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "stderr: " << o.err;
        EXPECT_EQ(o.err.rfind(program + ": ", 0), 0u) << "stderr: " << o.err;
        EXPECT_NE(o.err.find(c.message), std::string::npos)
            << "expected '" << c.message << "' in: " << o.err;
    }
}

/// --help exits 0 and states the forms and the bad-input rule.
void
ExpectHelp(const std::string& program)
{
    SCOPED_TRACE(program + " --help");
    const Outcome o = RunProgram(program, {"--help"});
    EXPECT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("Sizes take units: 16M = 16 MiB"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("Bad options or files stop the program with exit status 1 and one line"),
              std::string::npos)
        << o.out;
}

/// A regular file, so that "<file>/x" is a path no one (not even root) can create.
std::string
NotAFolder()
{
    return TempFile("not-a-folder", "x\n"); // in this test's own folder, which it removes
}

/// The arguments every program shares through ProgramOptions: unknown options, stray
/// words, attributes and global values, checked by kind before ns-3 parses them.
std::vector<BadCase>
CommonCases()
{
    return {
        {{"--nonsense=1"}, "--nonsense=1: unknown option (see --help)"},
        {{"stray"}, "stray: unexpected argument (options are written --name=value"},
        {{"--ns3::NoSuchClass::Rate=1"}, "--ns3::NoSuchClass::Rate=1: no such attribute"},
        {{"--ns3::RoceDcqcn::NoSuchAttribute=1"},
         "--ns3::RoceDcqcn::NoSuchAttribute=1: no such attribute"},
        {{"--ns3::RoceDcqcn::RateAi=fast"},
         "--ns3::RoceDcqcn::RateAi=fast: expected a positive rate like 400Gbps"},
        {{"--ns3::RoceDcqcn::RateAi=5Gbit"},
         "--ns3::RoceDcqcn::RateAi=5Gbit: expected a positive rate"},
        {{"--ns3::RdmaNic::Mtu=1.5"},
         "--ns3::RdmaNic::Mtu=1.5: expected an integer (uint32_t 1:9000)"},
        {{"--ns3::RdmaNic::Mtu=0"}, "--ns3::RdmaNic::Mtu=0: expected an integer (uint32_t 1:9000)"},
        {{"--ns3::RoceNetDevice::DataRate=-1Gbps"},
         "--ns3::RoceNetDevice::DataRate=-1Gbps: expected a positive rate"},
        {{"--ns3::RoceChannel::Delay=soon"},
         "--ns3::RoceChannel::Delay=soon: expected a non-negative duration"},
        {{"--ns3::RoceChannel::Delay=-1us"},
         "--ns3::RoceChannel::Delay=-1us: expected a non-negative duration"},
        {{"--RngRun=first"}, "--RngRun=first: expected an integer"},
        {{"--SchedulerType=ns3::NoSuchScheduler"},
         "--SchedulerType=ns3::NoSuchScheduler: expected a registered TypeId"},
        {{"--PrintAttributes=ns3::NoSuchClass"},
         "--PrintAttributes: expected a registered TypeId name"},
    };
}

/// Append b to a.
std::vector<BadCase>
Join(std::vector<BadCase> a, const std::vector<BadCase>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace

TEST(ProgramBadInput, RoceIncast)
{
    ExpectRefused(
        "roce-incast",
        Join(CommonCases(),
             {
                 {{"--rate=0"},
                  "--rate=0: expected a rate like 400Gbps or 12.5GB/s from 1Mbps to 100Tbps"},
                 {{"--rate=0Gbps"}, "--rate=0Gbps: expected a rate"},
                 {{"--rate=400Gbit"},
                  "--rate=400Gbit: expected a rate like 400Gbps or 12.5GB/s from 1Mbps to 100Tbps: "
                  "unknown unit \"Gbit\""},
                 {{"--rate=1Pbps"}, "--rate=1Pbps: expected a rate"},
                 {{"--delay=-1us"}, "--delay=-1us: expected a non-negative duration like 1us"},
                 {{"--delay=1"}, "--delay=1: expected a non-negative duration"},
                 {{"--delay=2h"},
                  "--delay=2h: expected a non-negative duration like 1us or 2ms (s, ms, us, ns, "
                  "ps; at most an hour): unknown unit \"h\""},
                 {{"--cc=ns3::Cubic"},
                  "--cc=ns3::Cubic: expected a congestion-control TypeId "
                  "(ns3::NoCongestionControl, ns3::RoceDcqcn, "
                  "ns3::RoceDctcp, ns3::RoceHpcc, ns3::RoceSwift, ns3::RoceTimely) or none"},
                 {{"--cc=ns3::RdmaNic"},
                  "--cc=ns3::RdmaNic: expected a congestion-control TypeId "
                  "(ns3::NoCongestionControl, ns3::RoceDcqcn, "
                  "ns3::RoceDctcp, ns3::RoceHpcc, ns3::RoceSwift, ns3::RoceTimely) or none"},
                 {{"--cc=ns3::RoceTimely", "--ns3::RoceTimely::THigh=10us"},
                  "ns3::RoceTimely::THigh: +10us must exceed TLow (+50us)"},
                 {{"--cc=ns3::RoceDctcp", "--ns3::RoceDctcp::G=0"},
                  "--ns3::RoceDctcp::G=0: expected a number"},
                 {{"--cc=ns3::RoceDctcp", "--ns3::RoceDctcp::Mode=Both"},
                  "--ns3::RoceDctcp::Mode=Both: expected one of Rate|Window"},
                 {{"--bytes=-1"},
                  "--bytes=-1: expected a size from 1 B to 1T B like 4096, 64K, 16M or 1G"},
                 {{"--bytes=0"}, "--bytes=0: expected a size from 1 B"},
                 {{"--bytes=16Q"},
                  "--bytes=16Q: expected a size from 1 B to 1T B like 4096, 64K, 16M or 1G (K, M, "
                  "G, T, KiB, MiB, GiB, TiB binary; kB, MB, GB, TB decimal): unknown unit \"Q\""},
                 {{"--bytes=0.3K"},
                  "--bytes=0.3K: expected a size from 1 B to 1T B like 4096, 64K, 16M or 1G (K, M, "
                  "G, T, KiB, MiB, GiB, TiB binary; kB, MB, GB, TB decimal): not a whole number of "
                  "bytes"},
                 {{"--bytes=2T"}, "--bytes=2T: expected a size from 1 B to 1T B"},
                 {{"--bytes"}, "--bytes: expected --bytes=value"},
                 {{"--senders=0"}, "--senders=0: expected an integer from 1 to 1024"},
                 {{"--senders=-1"}, "--senders=-1: expected an integer from 1 to 1024"},
                 {{"--senders=1.5"}, "--senders=1.5: expected an integer from 1 to 1024"},
                 {{"--senders=8x"}, "--senders=8x: expected an integer from 1 to 1024"},
                 {{"--pfc=maybe"}, "--pfc=maybe: expected true, false, on, off, 1 or 0"},
                 // The first bad option is the one named.
                 {{"--senders=2", "--rate=fast", "--bytes=-1"}, "--rate=fast: expected a rate"},
             }));
    ExpectHelp("roce-incast");
}

TEST(ProgramBadInput, RoceIncastSizesTakeUnits)
{
    // 16M is 16 MiB, not 16 bytes: two senders deliver 2 x 16 MiB.
    const Outcome o = RunProgram("roce-incast", {"--senders=2", "--bytes=16M", "--rate=400Gbps"});
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("delivered        33554432 of 33554432 bytes"), std::string::npos)
        << o.out;
    const Outcome si = RunProgram("roce-incast", {"--senders=1", "--bytes=1MB", "--rate=400Gbps"});
    ASSERT_EQ(si.status, 0) << si.err;
    EXPECT_NE(si.out.find("delivered        1000000 of 1000000 bytes"), std::string::npos)
        << si.out;
}

// Command lines written before the Roce prefix still run: the old TypeId in --cc and in an
// attribute path select the same algorithm, with one warning line for the name.
TEST(ProgramBadInput, OldCongestionControlNamesStillRun)
{
    const Outcome o =
        RunProgram("roce-incast",
                   {"--senders=2", "--bytes=1M", "--cc=ns3::Dcqcn", "--ns3::Dcqcn::RateAi=20Mbps"});
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(o.err,
              "warning: ns3::Dcqcn is deprecated; use ns3::RoceDcqcn (the same congestion "
              "control)\n");
    EXPECT_NE(o.out.find("delivered        2097152 of 2097152 bytes"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("ns3::RoceDcqcn"), std::string::npos)
        << "the report names the TypeId: " << o.out;
}

TEST(ProgramBadInput, RoceDistributed)
{
    ExpectRefused(
        "roce-distributed",
        Join(CommonCases(),
             {
                 {{"--leaves=1"}, "--leaves=1: expected an integer from 2 to 1024"},
                 {{"--spines=0"}, "--spines=0: expected an integer from 1 to 1024"},
                 {{"--hostsPerLeaf=0"}, "--hostsPerLeaf=0: expected an integer from 1 to 1024"},
                 {{"--rails=0"}, "--rails=0: expected an integer from 1 to 64"},
                 {{"--delay=0ns"}, "--delay=0ns: expected a positive duration like 1us"},
                 {{"--bytes=0"}, "--bytes=0: expected a size from 1 B"},
                 {{"--orderArrivals=maybe"},
                  "--orderArrivals=maybe: expected true, false, on, off, 1 or 0"},
                 {{"--out=" + NotAFolder() + "/lines.txt"}, "--out="},
#ifndef NS3_MPI
                 // Debian's ns-3 has no mpi module: the distributed engine is not there.
                 {{"--distributed"},
                  "--distributed: this ns-3 has no distributed engine; expected ns-3 "
                  "configured with --enable-mpi"},
#endif
             }));
    ExpectHelp("roce-distributed");
}

// Started by mpirun on several processes but not told --distributed, each would run the
// whole fabric alone: refused in one line (Open MPI names the size in
// OMPI_COMM_WORLD_SIZE; the child inherits it from here).
TEST(ProgramBadInput, RoceDistributedUnderMpirunNeedsDistributed)
{
    ::setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    const Outcome o = RunProgram("roce-distributed", {});
    ::unsetenv("OMPI_COMM_WORLD_SIZE");
    EXPECT_EQ(o.status, 1);
    EXPECT_EQ(o.err,
              "roce-distributed: started as one of 2 MPI processes (OMPI_COMM_WORLD_SIZE) "
              "without --distributed; expected --distributed, or no mpirun\n");
    EXPECT_EQ(o.out, "");
}

// Without MPI, roce-distributed is the reference the distributed runs are compared with
// (scripts/check-distributed.sh): every write is delivered whole, and the incast into host
// 0 pauses the spines, so that in a distributed run pauses cross ranks.
TEST(ProgramOutput, RoceDistributedDeliversEveryWriteAndPausesTheSpines)
{
    const std::string lines = TempPath("roce-distributed-lines.txt");
    const Outcome o = RunProgram("roce-distributed", {"--out=" + lines});
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("leaf-spine 4 x 2, 16 hosts at 100Gbps, 28 writes, CC ns3::RoceDcqcn, "
                         "1 rank"),
              std::string::npos)
        << o.out;
    std::ifstream in(lines);
    uint32_t receivers = 0;
    uint32_t senders = 0;
    uint64_t spinePauses = 0;
    for (std::string line; std::getline(in, line);)
    {
        std::istringstream words(line);
        std::string kind;
        std::string index;
        words >> kind >> index;
        if (kind == "flow")
        {
            std::string role;
            uint32_t src = 0;
            std::string arrow;
            uint32_t dst = 0;
            words >> role >> src >> arrow >> dst;
            std::map<std::string, uint64_t> field;
            for (std::string key; words >> key;)
            {
                words >> field[key];
            }
            // Flows 0-15: host h to h + 4 (mod 16), 1 MiB; 16-27: hosts 4-15 to 0, 8 MiB.
            const uint64_t bytes = std::stoul(index) < 16 ? (1u << 20) : (8u << 20);
            if (role == "receiver")
            {
                ++receivers;
                EXPECT_EQ(field["bytes"], bytes) << line;
                EXPECT_GT(field["received_ps"], 0u) << line;
            }
            else
            {
                ++senders;
                EXPECT_EQ(field["bytes"], bytes) << line;
                EXPECT_GT(field["acked_ps"], 0u) << line;
                EXPECT_EQ(field["packets"], bytes / 4096) << line; // 4 KiB MTU, no losses
                EXPECT_EQ(field["retransmitted"], 0u) << line;
            }
        }
        else if (kind == "switch" && std::stoul(index) >= 4) // switches 4, 5: the spines
        {
            std::string key;
            uint64_t value = 0;
            while (words >> key >> value)
            {
                spinePauses += key == "pfc_sent" ? value : 0;
            }
        }
    }
    EXPECT_EQ(receivers, 28u);
    EXPECT_EQ(senders, 28u);
    EXPECT_GT(spinePauses, 0u) << "the incast's pauses reach the spines";
}

TEST(ProgramBadInput, DcqcnConvergence)
{
    const std::string csvInFile = NotAFolder() + "/series.csv";
    ExpectRefused(
        "dcqcn-convergence",
        Join(CommonCases(),
             {
                 {{"--flows=0"}, "--flows=0: expected an integer from 1 to 256"},
                 {{"--duration=0s"}, "--duration=0s: expected a positive duration"},
                 {{"--duration=-5ms"}, "--duration=-5ms: expected a positive duration"},
                 {{"--interval=0ns"}, "--interval=0ns: expected a positive duration"},
                 {{"--stagger=x"}, "--stagger=x: expected a non-negative duration"},
                 {{"--rate=100G"},
                  "--rate=100G: expected a rate like 400Gbps or 12.5GB/s from 1Mbps to 100Tbps: "
                  "unknown unit \"G\""},
                 {{"--duration=10s", "--interval=1ns"},
                  "--interval=1ns: expected at most a million samples over --duration=10s, an "
                  "interval of at least 10001ns"},
                 {{"--csv=" + csvInFile},
                  "--csv=" + csvInFile + ": expected a file in a writable folder (folder " +
                      NotAFolder() + " is not a folder)"},
                 {{"--csv=/nonexistent-ai-fabric-dir/series.csv"},
                  "expected a file in a writable folder (folder /nonexistent-ai-fabric-dir does "
                  "not exist)"},
                 {{"--csv=" + aifabric::TestDir()},
                  "expected a file in a writable folder (a folder, not a file)"},
             }));
    ExpectHelp("dcqcn-convergence");
}

TEST(ProgramBadInput, CcCompare)
{
    ExpectRefused(
        "cc-compare",
        Join(CommonCases(),
             {
                 {{"--ccs=ns3::RoceDcqcn,ns3::Cubic"},
                  "--ccs=ns3::RoceDcqcn,ns3::Cubic: \"ns3::Cubic\" is not a congestion control"},
                 {{"--ccs=ns3::RdmaNic"}, "\"ns3::RdmaNic\" is not a congestion control"},
                 {{"--ccs="}, "--ccs=: expected at least one congestion-control TypeId"},
                 {{"--ccs=ns3::RoceTimely", "--ns3::RoceTimely::THigh=10us"},
                  "ns3::RoceTimely::THigh: +10us must exceed TLow (+50us)"},
                 {{"--ccs=ns3::RoceSwift", "--ns3::RoceSwift::FsMaxCwnd=0.01"},
                  "ns3::RoceSwift::FsMaxCwnd: 0.01 must exceed FsMinCwnd (0.1)"},
                 {{"--flowSizes=webserch"},
                  "--flowSizes=webserch: ns3::BackgroundTraffic::FlowSizes: \"webserch\" is "
                  "neither a distribution (alistorage2019, fb-hadoop, websearch) nor a CDF file"},
                 {{"--load=0"}, "--load=0: expected a number from 1e-06 to 1"},
                 {{"--load=1.5"}, "--load=1.5: expected a number from 1e-06 to 1"},
                 {{"--duration=0ms"}, "--duration=0ms: expected a positive duration"},
                 {{"--leaves=0"}, "--leaves=0: expected an integer from 1 to 256"},
                 {{"--ccs=ns3::RoceHpcc", "--hostsPerLeaf=3"},
                  "--ccs=ns3::RoceHpcc: ns3::RoceHpcc needs in-band telemetry, whose hop records "
                  "cannot "
                  "name the 150 Gb/s of switch node"},
                 {{"--out=" + NotAFolder() + "/x"}, "--out=" + NotAFolder() + "/x"},
             }));
    ExpectHelp("cc-compare");
}

TEST(ProgramBadInput, CollectivePerf)
{
    ExpectRefused(
        "collective-perf",
        Join(
            CommonCases(),
            {
                {{"--collective=all-reduse"},
                 "--collective=all-reduse: expected one of all-reduce, all-gather, "
                 "reduce-scatter, all-to-all, broadcast or reduce"},
                {{"--algorithm=fastest"}, "--algorithm=fastest: expected one of auto, "},
                {{"--transport=infiniband"},
                 "--transport=infiniband: expected one of rdma, ideal or dgx"},
                {{"--nvlink=Z100"}, "--nvlink=Z100: expected one of "},
                {{"--minBytes=-1"}, "--minBytes=-1: expected a size from 1 B"},
                {{"--maxBytes=1Q"},
                 "--maxBytes=1Q: expected a size from 1 B to 1T B like 4096, 64K, 16M or 1G (K, M, "
                 "G, T, KiB, MiB, GiB, TiB binary; kB, MB, GB, TB decimal): unknown unit \"Q\""},
                {{"--minBytes=64M", "--maxBytes=1M"},
                 "--maxBytes=1M: expected at least --minBytes=64M"},
                {{"--stepFactor=1"}, "--stepFactor=1: expected an integer from 2 to 1024"},
                {{"--ranks=1"}, "--ranks=1: expected an integer from 2 to 4096"},
                {{"--channels=65"}, "--channels=65: expected an integer from 0 to 64"},
                {{"--channels=-1"}, "--channels=-1: expected an integer from 0 to 64"},
                {{"--qpsPerConnection=0"},
                 "--qpsPerConnection=0: expected an integer from 1 to 128"},
                {{"--transport=ideal", "--qpsPerConnection=2"},
                 "--qpsPerConnection=2: only used with --transport=rdma or --transport=dgx, not "
                 "--transport=ideal"},
                {{"--chunk=big"}, "--chunk=big: expected \"auto\" or a size from 4K B"},
                {{"--chunk=0"}, "--chunk=0: expected \"auto\" or a size from 4K B"},
                {{"--transport=ideal", "--servers=2"},
                 "--servers=2: only used with --transport=dgx, not --transport=ideal"},
                {{"--transport=dgx", "--leaves=2"},
                 "--leaves=2: only used with --transport=rdma, not --transport=dgx"},
                {{"--transport=ideal", "--cc=ns3::RoceDcqcn"},
                 "--cc=ns3::RoceDcqcn: only used with --transport=rdma or --transport=dgx, not "
                 "--transport=ideal"},
                {{"--chunk=4K", "--maxBytes=1T"},
                 "--chunk=4K: expected at least --maxBytes / 1048576 (a plan cuts a call into "
                 "at most that many pieces)"},
                {{"--rate=0"}, "--rate=0: expected a rate like 400Gbps"},
                {{"--latency=-1us"}, "--latency=-1us: expected a non-negative duration"},
                {{"--oversubscription=0"},
                 "--oversubscription=0: expected a number above 0 to 1000"},
                {{"--oversubscription=two"},
                 "--oversubscription=two: expected a number above 0 to 1000"},
                {{"--cc=ns3::Cubic"},
                 "--cc=ns3::Cubic: expected a congestion-control TypeId (ns3::NoCongestionControl, "
                 "ns3::RoceDcqcn, "
                 "ns3::RoceDctcp, ns3::RoceHpcc, ns3::RoceSwift, ns3::RoceTimely) or none"},
                {{"--csv=" + NotAFolder() + "/perf.csv"}, "expected a file in a writable folder"},
                {{"--ranks=6", "--leaves=4"}, "--leaves=4: expected a divisor of --ranks=6"},
                {{"--transport=dgx", "--ranks=12", "--servers=5"},
                 "--servers=5: expected a divisor of --ranks=12"},
                {{"--algorithm=nvls", "--transport=rdma"}, "--algorithm=nvls: "},
                {{"--algorithm=ina"}, "--algorithm=ina: ina needs aggregation switches: add --ina"},
                {{"--transport=ideal", "--ina"},
                 "--ina=true: only used with --transport=rdma or --transport=dgx, not "
                 "--transport=ideal"},
                {{"--ina", "--ns3::InaAggregationEngine::SlotBytes=1022"},
                 "ns3::InaAggregationEngine::SlotBytes: 1022 is not a multiple of ElementBytes "
                 "(4)"},
                {{"--ina", "--ns3::InaAggregationEngine::Slots=0"},
                 "--ns3::InaAggregationEngine::Slots=0: expected an integer (uint32_t 2:16777216)"},
                {{"--asNccl", "--algorithm=direct", "--collective=all-gather"},
                 "--asNccl=true: runs NCCL's own choice: expected --algorithm=auto or one NCCL "
                 "has"},
            }));
    ExpectHelp("collective-perf");
}

// --ncclModel prints NCCL's own choice and time beside each row; --asNccl runs that choice:
// on 2 x 8 H100 at 8 B NCCL's model takes Tree/LL (25.2 us), at 8 MiB NVLSTree (100.9 us),
// and the rows run tree/LL and nvls-tree/Simple.
TEST(ProgramBadInput, CollectivePerfRunsNcclsChoice)
{
    const Outcome o = RunProgram("collective-perf",
                                 {"--transport=dgx",
                                  "--servers=2",
                                  "--ranks=16",
                                  "--minBytes=8",
                                  "--maxBytes=8M",
                                  "--stepFactor=1024",
                                  "--csv=none",
                                  "--asNccl"});
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("ring 8 channels x 48.0 GB/s"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("tree/LL  nccl-model 25.2 us Tree/LL\n"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("nvls-tree/Simple  nccl-model 100.9 us NVLSTree/Simple\n"),
              std::string::npos)
        << o.out;
}

// An attribute on the command line wins over the preset --nvlink names (the preset only
// sets the defaults): 18 links of 1 Gb/s instead of 25 GB/s each make an 8-GPU all-reduce
// crawl (busbw bounded by 18 x 1 Gb/s = 2.25 GB/s).
TEST(ProgramBadInput, CollectivePerfAttributesBeatThePreset)
{
    const Outcome o = RunProgram("collective-perf",
                                 {"--transport=dgx",
                                  "--ranks=8",
                                  "--servers=1",
                                  "--algorithm=ring",
                                  "--minBytes=1M",
                                  "--maxBytes=1M",
                                  "--csv=none",
                                  "--ns3::NvSwitchFabric::PerLinkRate=1Gbps"});
    ASSERT_EQ(o.status, 0) << o.err;
    const size_t row = o.out.find("1048576");
    ASSERT_NE(row, std::string::npos) << o.out;
    std::istringstream line(o.out.substr(row));
    std::string bytes, count, type, redop, root, time, algbw, busbw;
    line >> bytes >> count >> type >> redop >> root >> time >> algbw >> busbw;
    EXPECT_GT(std::stod(busbw), 0.5) << o.out;
    EXPECT_LT(std::stod(busbw), 18 * 1e9 / 8 / 1e9) << o.out;
}

TEST(ProgramBadInput, TraceGenerator)
{
    const std::string config = TempFile("generator-config.json",
                                        R"({"layers": 2, "hidden": 256, "heads": 4, "seqLength": 64,
                                            "vocab": 100, "tp": 2, "dp": 1, "globalBatch": 1})");
    const std::string typo = TempFile("generator-typo.json", R"({"layers": 2, "hiden": 256})");
    ExpectRefused(
        "trace-generator",
        Join(CommonCases(),
             {
                 {{}, "--config: expected --config=FILE (required; see --help)"},
                 {{"--config=" + config}, "--out: expected --out=FILE (required; see --help)"},
                 {{"--config=/nonexistent/model.json", "--out=x.json"},
                  "--config=/nonexistent/model.json: expected a readable file (cannot open it: No "
                  "such file or directory)"},
                 {{"--config=" + aifabric::TestDir(), "--out=x.json"},
                  "expected a readable file (a folder, not a file)"},
                 {{"--config=" + config, "--out=" + NotAFolder() + "/trace.json"},
                  "--out=" + NotAFolder() + "/trace.json: expected a file in a writable folder"},
                 {{"--config=" + typo, "--out=x.json"}, typo + ": unknown setting 'hiden'"},
                 {{"--config=" + config,
                   "--out=x.json",
                   "--ns3::TransformerTraceGenerator::PeakFlops=lots"},
                  "--ns3::TransformerTraceGenerator::PeakFlops=lots: expected a number"},
             }));
    ExpectHelp("trace-generator");
}

TEST(ProgramBadInput, Bench)
{
    ExpectRefused(
        "ai-fabric-bench",
        Join(CommonCases(),
             {
                 {{"--hostsPerLeaf=0"}, "--hostsPerLeaf=0: expected an integer from 1 to 1024"},
                 {{"--spines=2000"}, "--spines=2000: expected an integer from 1 to 1024"},
                 {{"--bytes=-64M"}, "--bytes=-64M: expected a size from 1 B"},
                 {{"--rate=400"}, "--rate=400: expected a rate"},
                 {{"--cc=Dcqcn"}, // without the namespace
                  "--cc=Dcqcn: expected a congestion-control TypeId (ns3::NoCongestionControl, "
                  "ns3::RoceDcqcn, "
                  "ns3::RoceDctcp, ns3::RoceHpcc, ns3::RoceSwift, ns3::RoceTimely) or none"},
                 {{"--rate=1Mbps", "--hostsPerLeaf=1", "--spines=64"},
                  "--spines=64: expected at most 1 spines"},
             }));
    ExpectHelp("ai-fabric-bench");
}

TEST(ProgramBadInput, AiFabricSim)
{
    // A topology file with a misspelled key, a trace with a misspelled key, and the
    // scenarios that use them: the files' own messages come back as one line, exit 1.
    const std::string topology = TempFile("topology.json", R"({
      "hosts": {"count": 2}, "switches": [{"name": "sw"}],
      "defaults": {"rate": "100Gbps", "delay": "1us"},
      "links": [{"a": "h0", "b": "sw", "dealy": "1us"}, {"a": "h1", "b": "sw"}]})");
    const std::string trace = TempFile("trace.json", R"({"schema": "ai-fabric-trace/1", "ranks": 2,
      "groups": [{"name": "world", "ranks": [0, 1]}],
      "programs": [{"rank": 0, "ops": [{"kind": "compute", "duration_ns": 10, "durration_ns": 20}]},
                   {"rank": 1, "ops": [{"kind": "compute", "duration_ns": 10}]}]})");
    const std::string badTopology = TempFile("scenario-topology.json",
                                             R"({"cluster": {"topology": "file", "file": ")" +
                                                 topology + R"("}, "outputs": {"plots": false}})");
    const std::string badTrace = TempFile("scenario-trace.json",
                                          R"({"cluster": {"servers": 1, "gpusPerServer": 2},
                                              "workload": {"format": "json", "file": ")" +
                                              trace + R"("}, "outputs": {"plots": false}})");
    const std::string badOutputs =
        TempFile("scenario-outputs.json",
                 R"({"outputs": {"dir": ")" + NotAFolder() + R"(/results"}})");
    const std::string badIna =
        TempFile("scenario-ina.json",
                 R"({"fabric": {"ina": "sharp"}, "outputs": {"plots": false}})");
    // Parameter servers on CPU hosts with a topology file, whose hosts are all GPUs.
    const std::string starTopology = TempFile("star.json", R"({
      "hosts": {"count": 2}, "switches": [{"name": "sw"}],
      "defaults": {"rate": "100Gbps", "delay": "1us"},
      "links": [{"a": "h0", "b": "sw"}, {"a": "h1", "b": "sw"}]})");
    const std::string cpuOnFile =
        TempFile("scenario-cpu-hosts.json",
                 R"({"cluster": {"topology": "file", "file": ")" + starTopology + R"("},
            "parameterServers": "dp:1:cpu",
            "workload": {"format": "generator", "model": {"layers": 1, "hidden": 256,
            "heads": 4, "seqLength": 64, "vocab": 100, "tp": 1, "dp": 2, "globalBatch": 2}},
            "outputs": {"plots": false}})");
    // Jobs: a model config of 4 ranks (TP 2 x DP 2), and scenarios with "jobs".
    const std::string model = TempFile("job-model.json", R"({"layers": 2, "hidden": 256,
      "heads": 4, "seqLength": 64, "vocab": 100, "tp": 2, "dp": 2, "globalBatch": 4})");
    const std::string jobEntry =
        R"({"workload": {"format": "generator", "model": {"layers": 2, "hidden": 256,
            "heads": 4, "seqLength": 64, "vocab": 100, "tp": 2, "dp": 2, "globalBatch": 4}})";
    const std::string jobsAndWorkload = TempFile(
        "scenario-jobs-workload.json",
        R"({"workload": {"format": "json", "file": "t.json"}, "jobs": [)" + jobEntry + "}]}");
    const std::string jobsUnknownKey =
        TempFile("scenario-jobs-key.json", R"({"jobs": [)" + jobEntry + R"(, "gpu": "H100"}]})");
    const std::string jobsControlClass = TempFile(
        "scenario-jobs-class.json",
        R"({"jobs": [)" + jobEntry + R"(, "trafficClass": 6}], "outputs": {"plots": false}})");
    ExpectRefused(
        "ai-fabric-sim",
        Join(
            CommonCases(),
            {
                {{"--job=/nonexistent/job.json"}, "--job=/nonexistent/job.json: no such file"},
                {{"--ringTransfersPerPhase=few"},
                 "--ringTransfersPerPhase=few: expected an integer in 0..65536"},
                {{"--job=" + model + ":sideways"},
                 "--job=" + model +
                     ":sideways: expected packed, spread, random, or servers such as 0-1,4 "
                     "(each server once), got \"sideways\""},
                {{"--job=" + model,
                  "--job=" + model,
                  "--job=" + model,
                  "--job=" + model,
                  "--job=" + model},
                 "--job=" + model +
                     ": the jobs up to this one need 20 GPUs but the cluster has 16 (2 servers x "
                     "8)"},
                {{"--job=" + model, "--fast-forward=check"},
                 "--fast-forward=check: compares one workload's run, not jobs'"},
                {{"--job=" + model + ":0", "--job=" + model + ":0"},
                 "--job=" + model + ":0: placement 0 overlaps job job1 (server 0)"},
                {{"--job=" + model + ":5"},
                 "--job=" + model + ":5: placement 5: server 5 is not in the cluster of 2 servers"},
                {{"--job=" + model, "--straggler=1:2"},
                 "--straggler=1:2: slow GPUs, compute jitter, GPU failures and restarts apply "
                 "to the scenario's one workload, not to jobs"},
                {{"--job=" + model, "--failGpu=1:1ms", "--restart=1ms"},
                 "--failGpu=1:1ms: slow GPUs, compute jitter, GPU failures and restarts apply "
                 "to the scenario's one workload, not to jobs"},
                {{"--job=" + model, "--workload=" + model},
                 "--workload=" + model +
                     ": with jobs (--job, or the scenario's \"jobs\" or \"arrivals\"), each job "
                     "gives its workload"},
                {{"--scenario=" + jobsAndWorkload},
                 jobsAndWorkload + ": /jobs: with jobs, each job gives its workload: no /workload"},
                {{"--scenario=" + jobsUnknownKey},
                 jobsUnknownKey + ": /jobs/0/gpu: unknown setting"},
                {{"--scenario=" + jobsControlClass},
                 jobsControlClass + ": /jobs/0/trafficClass: 6 is the NICs' ControlPriority (ACK, "
                                    "NAK, CNP): give the job another class"},
                {{"--alone=maybe"}, "--alone=maybe: expected true, false, on, off, 1 or 0"},
                {{"--fabric=fluid"}, "--fabric=fluid: expected packet or flow"},
                {{"--servers=256", "--spines=32"},
                 "built-in default scenario: /cluster: a rail leaf of 288 ports: "
                 "SharedBufferMmu: reserves and PFC headroom (65867264 B over 288 ports) leave "
                 "no shared buffer in BufferSize = 33554432 B; raise BufferSize or lower "
                 "ReservePerQueue/HeadroomPerQueue (or split the servers into pods)"},
                {{"--fabric=flow", "--ina=streaming"},
                 "built-in default scenario: --fabric=flow: the flow-level fabric has no packets "
                 "for in-network aggregation: use the packet model"},
                {{"--restart=soon"},
                 "--restart=soon: expected a restart delay such as 5ms or 30s (0 to a day)"},
                {{"--restart=5ms"},
                 "--restart=5ms: a restart policy without failures restarts nothing"},
                {{"--job=" + model, "--interleave=true"},
                 "--interleave: expected two jobs or more (--job or the scenario's \"jobs\"), "
                 "got 1"},
                {{"--pods=3"}, "--pods=3: "},
                {{"--pods=2", "--topology=ideal"},
                 "--pods=2: only a rail-optimized cluster has pods here"},
                {{"--scenario=/nonexistent/scenario.json"},
                 "--scenario=/nonexistent/scenario.json: expected a readable file (cannot open "
                 "it: No such file or directory)"},
                {{"--out=" + NotAFolder() + "/results"},
                 "--out=" + NotAFolder() + "/results: expected a writable folder"},
                {{"--iterations=100001"},
                 "--iterations=100001: expected an integer from 0 to 100000"},
                {{"--iterations=two"}, "--iterations=two: expected an integer from 0 to 100000"},
                {{"--seed=-3"}, "--seed=-3: expected an integer"},
                {{"--progress=yes"}, "--progress=yes: expected true, false, on, off, 1 or 0"},
                {{"--scenario=" + badTopology}, topology + ": links[0]: unknown key \"dealy\""},
                {{"--scenario=" + badTrace},
                 trace + ": /programs/0/ops/0: unknown key 'durration_ns' (a compute op takes "
                         "kind, name, stream, iteration, deps, duration_us, duration_ns)"},
                {{"--scenario=" + badOutputs},
                 badOutputs + ": /outputs/dir: " + NotAFolder() +
                     "/results: expected a writable folder"},
                {{"--ina=sharp"}, "--ina=sharp: expected off, streaming or switchml"},
                {{"--ina=streaming", "--topology=ideal"},
                 "--ina=streaming: the ideal topology has no switches to aggregate in"},
                {{"--scenario=" + badIna},
                 badIna + ": /fabric/ina: expected \"off\" or a protocol (streaming or "
                          "switchml), got \"sharp\""},
                {{"--ina=streaming", "--ns3::InaAggregationEngine::StreamingBytes=4094"},
                 "ns3::InaAggregationEngine::StreamingBytes: 4094 is not a multiple of "
                 "ElementBytes (4)"},
                {{"--compress=dp:1.5"},
                 "--compress=dp:1.5: expected SELECTOR:FACTOR or SELECTOR:topk:DENSITY"},
                {{"--compress=dp:0.25,"}, "--compress=dp:0.25,: expected a comma-separated list"},
                {{"--compress=dp:0.25,,tp:0.5"}, "got \"\""},
                {{"--compress=pp:0.5"},
                 "--compress=pp:0.5: \"pp\" selects no collective of the trace (no group of "
                 "a collective has that kind or name)"},
                {{"--parameterServers=dp"}, "--parameterServers=dp: expected GROUP:SERVERS"},
                {{"--parameterServers=pp:2"},
                 "--parameterServers=pp:2: \"pp\" selects no all-reduce of the trace"},
                {{"--parameterServers=dp:3"},
                 "--parameterServers=dp:3: expected 1 to 2 servers (the ranks of dp0), got 3"},
                {{"--parameterServers=dp:2:gpu"},
                 "--parameterServers=dp:2:gpu: expected a placement after SERVERS: colocated, "
                 "cpu, byteps, got \"gpu\" in \"dp:2:gpu\""},
                {{"--scenario=" + cpuOnFile},
                 cpuOnFile + ": /parameterServers: parameter servers on 1 CPU host need the "
                             "rail-optimized or the ideal topology: a topology file's hosts "
                             "are all GPUs"},
                {{"--parameterServers=dp:1:cpu", "--job=" + model},
                 "--job=" + model +
                     ": the workload has 1 CPU host (dedicated parameter servers), which jobs "
                     "do not place: use the colocated placement"},
                {{"--straggler=3"}, "--straggler=3: expected RANKS:FACTOR"},
                {{"--straggler=99:2"},
                 "--straggler=99:2: rank 99 is not one of the workload's 16 ranks"},
                {{"--straggler=1:2,"}, "--straggler=1:2,: expected a comma-separated list"},
                {{"--jitter=normal:2"}, "--jitter=normal:2: expected normal:SIGMA"},
                {{"--failGpu=2:10"}, "--failGpu=2:10: expected RANK:TIME"},
                {{"--slowNic=3:fast"}, "--slowNic=3:fast: expected RANK:RATE"},
                {{"--slowNic=3:800Gbps"},
                 "--slowNic=3:800Gbps: 800000000000 bps is above the link's 400000000000 bps"},
                {{"--failGpu=16:1ms"},
                 "--failGpu=16:1ms: rank 16 is not one of the workload's 16 ranks"},
                {{"--compress=dp:0.5,dp:0.25"},
                 "--compress=dp:0.5,dp:0.25 (item 2): \"dp\" selects no collective of the "
                 "trace "
                 "(every collective it selects takes an earlier rule)"},
            }));
    ExpectHelp("ai-fabric-sim");
}

// Programs' outputs that other tools read: collective-perf --ina writes captures that
// the INA Wireshark dissector (doc/wireshark/ai-fabric-ina.lua) decodes.
TEST(ProgramOutput, CollectivePerfInaCapturesDecodeInTshark)
{
    if (!aifabric::HaveTshark())
    {
        GTEST_SKIP() << "tshark not installed (apt-get install tshark): the INA dissector is "
                        "not checked on collective-perf's captures";
    }
    const std::string prefix = TempPath("ina");
    const Outcome o = RunProgram("collective-perf",
                                 {"--transport=rdma",
                                  "--ranks=4",
                                  "--ina",
                                  "--algorithm=ina",
                                  "--minBytes=8K",
                                  "--maxBytes=8K",
                                  "--csv=none",
                                  "--pcap=" + prefix});
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("# In-network aggregation: 8192 B reduced or multicast in the network"),
              std::string::npos)
        << o.out;
    // Host 0 is node 0: with the default protocol (streaming, full-MTU fragments) its 2
    // fragments of 4 KiB go up to job 1's group address and the 2 results come back from
    // the switch's engine with all 4 contributions.
    const std::string lua = std::string(AI_FABRIC_SOURCE_DIR) + "/doc/wireshark/ai-fabric-ina.lua";
    const auto rows = aifabric::Tshark(
        prefix + "-0-0.pcap",
        "ai_fabric_ina",
        {"ai_fabric_ina.type", "ai_fabric_ina.count", "ai_fabric_ina.length", "ip.dst"},
        "-X lua_script:" + lua);
    const std::vector<std::string> up{"1", "1", "4096", "239.255.0.1"};
    const std::vector<std::string> down{"2", "4", "4096", "10.0.0.1"};
    EXPECT_EQ(std::count(rows.begin(), rows.end(), up), 2);
    EXPECT_EQ(std::count(rows.begin(), rows.end(), down), 2);
    EXPECT_EQ(rows.size(), 4u);
}

// ai-fabric-sim with two jobs and --interleave: the jobs alone, as given and shifted; the
// report's tables and every file of a jobs run (per-job folders, job-links.csv).
TEST(ProgramOutput, AiFabricSimInterleavesJobs)
{
    const std::string job =
        R"({"workload": {"format": "generator", "model": {"layers": 2, "hidden": 1024,
            "heads": 8, "seqLength": 256, "vocab": 1000, "tp": 2, "dp": 2, "globalBatch": 4}},
            "iterations": 2)";
    const std::string out = TempPath("interleave-out");
    const std::string scenario =
        TempFile("scenario-interleave.json",
                 R"({"cluster": {"servers": 4, "gpusPerServer": 2, "spines": 2, "pods": 2,
             "oversubscription": 2},
            "jobs": [)" +
                     job + R"(, "name": "a", "placement": "0,2"}, )" + job +
                     R"(, "name": "b", "placement": "1,3"}],
            "outputs": {"plots": false, "dir": ")" +
                     out + R"("}})");
    const Outcome o =
        RunProgram("ai-fabric-sim",
                   {"--scenario=" + scenario, "--interleave=true", "--progress=false"});
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("jobs: mean iteration shared, and alone on the same GPUs"),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("interleaved: each job started later by the shift"), std::string::npos)
        << o.out;
    const auto results = nlohmann::json::parse(Slurp(out + "/results.json"));
    ASSERT_EQ(results["jobs"].size(), 2u);
    EXPECT_EQ(results["jobs"][0]["interleave"]["shift_s"], 0.0);
    EXPECT_GT(results["jobs"][1]["interleave"]["shift_s"].get<double>(), 0);
    // The shifted run: b's first op at its shift, both faster than as given.
    EXPECT_EQ(results["jobs"][1]["start_s"], results["jobs"][1]["interleave"]["shift_s"]);
    for (const auto& j : results["jobs"])
    {
        EXPECT_LT(j["mean_iteration_s"].get<double>(),
                  j["interleave"]["as_given_mean_iteration_s"].get<double>())
            << j["name"];
        EXPECT_TRUE(j.contains("slowdown")) << j["name"];
    }
    for (const char* file : {"/jobs/a/iterations.csv",
                             "/jobs/a/collectives.csv",
                             "/jobs/b/iterations.csv",
                             "/jobs/b/collectives.csv",
                             "/job-links.csv",
                             "/timeline.json"})
    {
        EXPECT_FALSE(Slurp(out + file).empty()) << file;
    }
    // job-links.csv: a column per job, the shared spine links among its rows.
    const std::string links = Slurp(out + "/job-links.csv");
    EXPECT_EQ(
        links.rfind("from,to,class,bytes,peak_util,a_payload_bytes,b_payload_bytes,jobs\n", 0),
        0u)
        << links.substr(0, 200);
    EXPECT_NE(links.find(",2\n"), std::string::npos);
}
