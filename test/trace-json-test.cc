// SPDX-License-Identifier: GPL-2.0-only
// The module's own trace format: good files parse into the expected ops, every malformed
// file gets an error naming the file, the place and the problem, and traces round-trip.
#include "ns3/trace-json.h"

#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
/// Two ranks, one TP group: compute, an all-reduce on a second stream, a send/recv pair.
const char* GOOD = R"({
  "schema": "ai-fabric-trace/1",
  "name": "tiny",
  "ranks": 2,
  "streams": ["compute", "TP collectives", "pipeline"],
  "groups": [{"name": "tp0", "kind": "tp", "ranks": [0, 1]}],
  "programs": [
    {"rank": 0, "ops": [
      {"kind": "compute", "name": "fwd", "duration_us": 12.5},
      {"kind": "collective", "name": "ar", "collective": "all-reduce", "bytes": 1048576,
       "group": "tp0", "stream": 1, "deps": [0]},
      {"kind": "send", "peer": 1, "bytes": 4096, "stream": 2, "deps": [0]},
      {"kind": "compute", "name": "bwd", "duration_ns": 25000, "deps": [1], "iteration": 1}
    ]},
    {"rank": 1, "ops": [
      {"kind": "compute", "name": "fwd", "duration_us": 12.5},
      {"kind": "collective", "name": "ar", "collective": "ALLREDUCE", "bytes": 1048576,
       "group": "tp0", "stream": 1, "deps": [0]},
      {"kind": "recv", "peer": 0, "bytes": 4096, "stream": 2},
      {"kind": "compute", "name": "bwd", "duration_ns": 25000, "deps": [1, 2], "iteration": 1}
    ]}
  ]
})";

/// Replace the first occurrence of from by to in GOOD.
std::string
Edit(const std::string& from, const std::string& to)
{
    std::string s(GOOD);
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
}
} // namespace

TEST(TraceJson, GoodFileParsesIntoTheExpectedOps)
{
    std::string error;
    TrainingTrace t = TraceJson::Parse(GOOD, "good.json", &error);
    ASSERT_TRUE(error.empty()) << error;
    EXPECT_EQ(t.GetNRanks(), 2u);
    EXPECT_EQ(t.GetName(), "tiny");
    EXPECT_EQ(t.GetNOps(), 8u);
    EXPECT_EQ(t.GetNIterations(), 2u);
    EXPECT_EQ(t.GetNStreams(), 3u);
    const auto& ops = t.GetOps(0);
    EXPECT_EQ(ops[0].kind, TraceOpKind::COMPUTE);
    EXPECT_EQ(ops[0].duration, NanoSeconds(12500));
    EXPECT_EQ(ops[1].kind, TraceOpKind::COLLECTIVE);
    EXPECT_EQ(ops[1].collective, CollectiveType::ALL_REDUCE);
    EXPECT_EQ(ops[1].bytes, 1048576u);
    EXPECT_EQ(ops[1].group, "tp0");
    EXPECT_EQ(ops[1].stream, 1u);
    EXPECT_EQ(ops[1].deps, std::vector<uint32_t>{0});
    EXPECT_EQ(ops[2].kind, TraceOpKind::SEND);
    EXPECT_EQ(ops[2].peer, 1u);
    EXPECT_EQ(ops[3].duration, MicroSeconds(25));
    EXPECT_EQ(ops[3].iteration, 1u);
    EXPECT_EQ(t.GetOps(1)[3].deps, (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(t.GetGroup("tp0").kind, "tp");
    EXPECT_EQ(t.GetStreamName(1), "TP collectives");
    EXPECT_EQ(t.GetStreamName(7), "");
}

TEST(TraceJson, RoundTrip)
{
    std::string error;
    TrainingTrace t = TraceJson::Parse(GOOD, "good.json", &error);
    ASSERT_TRUE(error.empty()) << error;
    const std::string text = TraceJson::Serialize(t);
    TrainingTrace back = TraceJson::Parse(text, "again.json", &error);
    ASSERT_TRUE(error.empty()) << error;
    EXPECT_EQ(TraceJson::Serialize(back), text);
    EXPECT_EQ(back.GetNOps(), t.GetNOps());
}

TEST(TraceJson, MalformedFilesAreNamed)
{
    struct Case
    {
        std::string text;
        std::vector<std::string> expect; //!< substrings of the error
    };

    const std::string good(GOOD);
    const std::vector<Case> cases = {
        {good.substr(0, good.size() / 2), {"bad.json", "not valid JSON"}},
        {"[]", {"bad.json", "expected a JSON object"}},
        {Edit("ai-fabric-trace/1", "ai-fabric-trace/9"), {"/schema", "ai-fabric-trace/1"}},
        {Edit("\"ranks\": 2,", "\"ranks\": \"two\","), {"/ranks", "non-negative integer"}},
        {Edit("\"streams\": [\"compute\"", "\"streams\": [7"), {"/streams/0", "expected a string"}},
        {Edit("\"bytes\": 1048576", "\"bytes\": -5"),
         {"/programs/0/ops/1/bytes", "non-negative", "-5"}},
        {Edit("\"duration_us\": 12.5", "\"duration_us\": -1"),
         {"/programs/0/ops/0/duration_us", ">= 0"}},
        {Edit("\"group\": \"tp0\", \"stream\"", "\"group\": \"tp9\", \"stream\""),
         {"/programs/0/ops/1/group", "unknown group 'tp9'"}},
        {Edit("\"collective\": \"all-reduce\"", "\"collective\": \"all-mix\""), {"all-mix"}},
        {Edit("\"kind\": \"send\"", "\"kind\": \"sned\""), {"/programs/0/ops/2/kind", "sned"}},
        {Edit("\"peer\": 1", "\"peer\": 7"), {"/programs/0/ops/2/peer", "at most 1"}},
        {Edit("\"deps\": [0]}", "\"deps\": [3]}"), {"rank 0 op 1", "dependency cycle"}},
        {Edit("\"deps\": [0]}", "\"deps\": [9]}"), {"rank 0 op 1", "depends on op 9"}},
        {Edit("\"rank\": 1,", "\"rank\": 0,"), {"/programs/1/rank", "two programs"}},
        {Edit("\"ranks\": [0, 1]", "\"ranks\": [0, 5]"), {"/groups/0/ranks/1", "at most 1"}},
        {Edit("{\"kind\": \"compute\", \"name\": \"fwd\", \"duration_us\": 12.5}",
              "{\"kind\": \"compute\", \"name\": \"fwd\"}"),
         {"/programs/0/ops/0", "duration_us"}},
        // The two ranks disagree on the collective's size.
        {Edit("\"bytes\": 1048576", "\"bytes\": 1048577"), {"group 'tp0'", "differs"}},
        // A send without its receive.
        {Edit("\"kind\": \"recv\", \"peer\": 0, \"bytes\": 4096",
              "\"kind\": \"compute\", \"duration_us\": 1"),
         {"rank 0 sends 1 messages to rank 1", "receives 0"}},
    };
    for (const Case& c : cases)
    {
        std::string error;
        TrainingTrace t = TraceJson::Parse(c.text, "bad.json", &error);
        EXPECT_EQ(t.GetNRanks(), 0u);
        EXPECT_NE(error.find("bad.json"), std::string::npos) << error;
        for (const std::string& e : c.expect)
        {
            EXPECT_NE(error.find(e), std::string::npos) << "expected '" << e << "' in: " << error;
        }
    }
    std::string error;
    TraceJson::Read("/nonexistent/trace.json", &error);
    EXPECT_NE(error.find("/nonexistent/trace.json: cannot open"), std::string::npos) << error;
}

// A trace op's name, group and algorithm are labels: 4 bytes each that read as their text.
TEST(TraceLabel, ReadsAsItsTextAndComparesByIt)
{
    const std::size_t before = TraceLabel::GetNTexts();
    const TraceLabel empty;
    EXPECT_TRUE(empty.empty());
    EXPECT_EQ(empty.str(), "");
    EXPECT_EQ(empty, TraceLabel(""));
    // Texts no other test labels, past the short-string buffer.
    const std::string text = "trace-label-test.fwd.mb3.l47.reduce-scatter";
    const TraceLabel a(text);
    const TraceLabel b(text.c_str());
    EXPECT_EQ(a, b);
    EXPECT_EQ(a.str(), text);
    EXPECT_EQ(a.size(), text.size());
    EXPECT_STREQ(a.c_str(), text.c_str());
    EXPECT_EQ(a, text);
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(&a.str(), &b.str());                  // one copy of the text
    EXPECT_EQ(TraceLabel::GetNTexts(), before + 1); // "" is the table's first text
    const std::size_t known = TraceLabel::GetNTexts();
    const TraceLabel again(std::string("trace-label-test.fwd.mb3.l47.") + "reduce-scatter");
    EXPECT_EQ(TraceLabel::GetNTexts(), known); // a known text adds nothing
    EXPECT_EQ(again, a);
    const TraceLabel other("trace-label-test.dp12");
    EXPECT_NE(other, a);
    EXPECT_EQ(TraceLabel::GetNTexts(), known + 1);
    // Ordered as their texts, not as they were labelled: "…dp2" first, then "…dp12".
    const TraceLabel later("trace-label-test.dp2");
    const TraceLabel earlier("trace-label-test.dp12");
    EXPECT_TRUE(earlier < later);
    EXPECT_FALSE(later < earlier);
    EXPECT_EQ(a + ".encode", text + ".encode");
    EXPECT_EQ("grad." + other, "grad.trace-label-test.dp12");
    std::ostringstream os;
    os << other;
    EXPECT_EQ(os.str(), "trace-label-test.dp12");
    // A label's text stays where it is however many labels are made after it (a short
    // text lives inside its string: a table that moved its strings would leave this
    // reference dangling, which the sanitized build reports).
    const TraceLabel shortText("tl-test.short");
    const std::string& held = shortText.str();
    for (int i = 0; i < 5000; ++i)
    {
        TraceLabel("trace-label-test." + std::to_string(i));
    }
    EXPECT_EQ(held, "tl-test.short");
    EXPECT_EQ(&held, &shortText.str());
    EXPECT_EQ(a.str(), text);
    EXPECT_EQ(TraceLabel(text), a);
    EXPECT_EQ(sizeof(TraceLabel), 4u);
}
