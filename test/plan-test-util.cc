// SPDX-License-Identifier: GPL-2.0-only
#include "plan-test-util.h"

#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <vector>

namespace ns3
{

CommPlan
DropTransfer(const CommPlan& plan, uint32_t drop)
{
    auto remap = [drop](uint32_t id) { return id > drop ? id - 1 : id; };
    const CommPlan::Transfer& gone = plan.GetTransfer(drop);
    std::vector<CommPlan::Transfer> kept;
    for (const auto& t : plan.GetTransfers())
    {
        if (t.id == drop)
        {
            continue;
        }
        CommPlan::Transfer c = t;
        c.id = remap(t.id);
        std::set<uint32_t> deps;
        for (uint32_t d : t.deps)
        {
            for (uint32_t inherited : (d == drop ? gone.deps : std::vector<uint32_t>{d}))
            {
                deps.insert(remap(inherited));
            }
        }
        c.deps.assign(deps.begin(), deps.end());
        kept.push_back(c);
    }
    CommPlan copy = plan;
    copy.SetTransfers(kept);
    return copy;
}

CollectiveAlgorithm
NamedAlgorithm(const std::string& name)
{
    CollectiveAlgorithm a = CollectiveAlgorithm::AUTO;
    EXPECT_TRUE(CollectiveAlgorithmFromString(name, a)) << "no algorithm named " << name;
    return a;
}

uint32_t
CeilLog2(uint32_t n)
{
    uint32_t l = 0;
    while ((1u << l) < n)
    {
        ++l;
    }
    return l;
}

std::vector<PublishedRow>
PublishedNcclTests(const std::string& source)
{
    std::ifstream in(std::string(AI_FABRIC_SOURCE_DIR) + "/test/data/nccl-tests-published.csv");
    EXPECT_TRUE(in.good()) << "test/data/nccl-tests-published.csv";
    std::vector<PublishedRow> rows;
    std::string line;
    while (std::getline(in, line))
    {
        if (line.empty() || line[0] == '#' || line.rfind("source,", 0) == 0)
        {
            continue;
        }
        std::stringstream ss(line);
        std::vector<std::string> f;
        std::string cell;
        while (std::getline(ss, cell, ','))
        {
            f.push_back(cell);
        }
        if (f.size() == 8 && f[0] == source)
        {
            rows.push_back({f[0], f[4], std::stoull(f[6]), std::stod(f[7])});
        }
    }
    return rows;
}

} // namespace ns3
