// SPDX-License-Identifier: GPL-2.0-only
#include "plan-test-util.h"

#include <gtest/gtest.h>
#include <set>
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

} // namespace ns3
