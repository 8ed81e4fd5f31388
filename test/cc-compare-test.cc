// SPDX-License-Identifier: GPL-2.0-only
// cc-compare as users run it (the built program), on its default 16-host leaf-spine with
// websearch flows at 50 % load, 10 ms of arrivals: every algorithm finishes every flow
// (the same flows: same seed), and the orderings the README states for its table hold.
#include "test-dir.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace
{

/// One row of cc-compare's summary table.
struct Row
{
    double smallP50{0};
    double smallP95{0};
    double smallP99{0};
    double largeP50{0};
    double largeP95{0};
    double largeP99{0};
    double queueMeanKb{0};
    double queueMaxKb{0};
    uint64_t pauses{0};
    double utilisation{0};
};

/// \return the lines of a file
std::vector<std::string>
Lines(const std::string& file)
{
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
    {
        lines.push_back(line);
    }
    return lines;
}

} // namespace

TEST(CcCompare, EveryAlgorithmFinishesEveryFlowAndTheTableKeepsItsOrder)
{
    const std::string dir = aifabric::TestDir();
    const std::string out = dir + "out";
    const std::string log = dir + "stdout.txt";
    const std::string command = std::string(AI_FABRIC_PROGRAM_DIR) +
                                "/cc-compare --duration=10ms --out=" + out + " > " + log + " 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const std::vector<std::string> algorithms{"RoceDcqcn",
                                              "RoceHpcc",
                                              "RoceDctcp",
                                              "RoceTimely",
                                              "RoceSwift"};
    std::map<std::string, Row> rows;
    std::map<std::string, uint64_t> finished;
    for (const std::string& line : Lines(log))
    {
        std::istringstream words(line);
        std::string first;
        words >> first;
        const std::string name = first.rfind("ns3::", 0) == 0 ? first.substr(5) : "";
        if (name.empty())
        {
            continue;
        }
        if (!name.empty() && name.back() == ':')
        {
            // "ns3::RoceHpcc: 570 flows finished (1.2 s)"
            words >> finished[name.substr(0, name.size() - 1)];
            continue;
        }
        Row r;
        std::string slash;
        words >> r.smallP50 >> r.smallP95 >> r.smallP99 >> r.largeP50 >> r.largeP95 >> r.largeP99 >>
            r.queueMeanKb >> slash >> r.queueMaxKb >> r.pauses >> r.utilisation;
        if (words && slash == "/")
        {
            rows[name] = r;
        }
    }
    ASSERT_EQ(rows.size(), algorithms.size()) << "the table has a row per algorithm";
    // Every flow finished, the same flows under every algorithm.
    uint64_t flows = 0;
    for (const std::string& a : algorithms)
    {
        const std::vector<std::string> fct = Lines(out + "/fct-" + a + ".csv");
        ASSERT_GT(fct.size(), 100u) << a;
        uint64_t done = 0;
        for (std::size_t i = 1; i < fct.size(); ++i)
        {
            const std::string& row = fct[i];
            // src,dst,bytes,start_us,fct_us,ideal_us,slowdown: an unfinished flow has no FCT.
            std::istringstream cells(row);
            std::string cell;
            std::vector<std::string> c;
            while (std::getline(cells, cell, ','))
            {
                c.push_back(cell);
            }
            ASSERT_EQ(c.size(), 7u) << a << ": " << row;
            done += !c[4].empty() && std::stod(c[4]) > 0 ? 1 : 0;
        }
        EXPECT_EQ(done, fct.size() - 1) << a << ": a flow did not finish";
        EXPECT_EQ(finished[a], done) << a;
        if (flows == 0)
        {
            flows = done;
        }
        EXPECT_EQ(done, flows) << a << ": not the same flows as the first algorithm";
    }
    const Row& dcqcn = rows["RoceDcqcn"];
    const Row& hpcc = rows["RoceHpcc"];
    const Row& dctcp = rows["RoceDctcp"];
    const Row& timely = rows["RoceTimely"];
    const Row& swift = rows["RoceSwift"];
    std::cout << "[ measured ] small-flow p99: DCQCN " << dcqcn.smallP99 << ", HPCC "
              << hpcc.smallP99 << ", DCTCP " << dctcp.smallP99 << ", TIMELY " << timely.smallP99
              << ", Swift " << swift.smallP99 << "; " << flows << " flows each\n";
    // HPCC: the shortest small-flow tail and the smallest queues.
    for (const Row* other : {&dcqcn, &dctcp, &timely, &swift})
    {
        EXPECT_LT(hpcc.smallP99, other->smallP99);
        EXPECT_LT(hpcc.queueMeanKb, other->queueMeanKb);
    }
    EXPECT_LT(hpcc.smallP99 * 3, dcqcn.smallP99) << "HPCC cuts DCQCN's small-flow p99 3x or more";
    // Swift: the next shortest small-flow tail.
    for (const Row* other : {&dcqcn, &dctcp, &timely})
    {
        EXPECT_LT(swift.smallP99, other->smallP99);
    }
    // DCTCP (rate-based here, no CNP pacing): the longest small-flow tail, the deepest
    // queues and the only PFC pauses.
    for (const Row* other : {&dcqcn, &hpcc, &timely, &swift})
    {
        EXPECT_GT(dctcp.smallP99, other->smallP99);
        EXPECT_GT(dctcp.queueMeanKb, other->queueMeanKb);
        EXPECT_EQ(other->pauses, 0u);
    }
    EXPECT_GT(dctcp.pauses, 0u);
    // TIMELY: the longest large-flow tail (its fixed additive steps recover slowly).
    for (const Row* other : {&dcqcn, &hpcc, &dctcp, &swift})
    {
        EXPECT_GT(timely.largeP99, other->largeP99);
    }
}
