// SPDX-License-Identifier: GPL-2.0-only
//
// trace-generator: write a Megatron-style training trace (ai-fabric-trace/1 JSON) for a
// transformer (or data-parallel CNN) described by a model config file.
//
//   trace-generator --config=traces/configs/gpt3-13b.json --out=traces/gpt3-13b.json
//   trace-generator --config=... --ns3::TransformerTraceGenerator::PeakFlops=312e12
//
#include "ns3/core-module.h"
#include "ns3/trace-json.h"
#include "ns3/transformer-trace-generator.h"

#include <fstream>
#include <iostream>
#include <sstream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string config;
    std::string out;
    CommandLine cmd(__FILE__);
    cmd.Usage("Write a training trace for a transformer model config (JSON keys as in "
              "TransformerConfig: layers, hidden, heads, seqLength, vocab, microBatch, "
              "globalBatch, tp, pp, dp, ep, experts, topK, zeroStage, sequenceParallel, ...). "
              "Compute times come from the TransformerTraceGenerator roofline attributes.");
    cmd.AddValue("config", "Model config JSON file", config);
    cmd.AddValue("out", "Trace file to write", out);
    cmd.Parse(argc, argv);
    if (config.empty() || out.empty())
    {
        std::cerr << "trace-generator: --config and --out are required (see --help)\n";
        return 1;
    }
    std::ifstream in(config);
    if (!in)
    {
        std::cerr << "trace-generator: " << config << ": cannot open the file\n";
        return 1;
    }
    std::ostringstream text;
    text << in.rdbuf();
    TransformerConfig model;
    std::string error;
    if (!TransformerTraceGenerator::ParseConfig(text.str(), config, model, &error))
    {
        std::cerr << "trace-generator: " << error << "\n";
        return 1;
    }
    auto generator = CreateObject<TransformerTraceGenerator>();
    TrainingTrace trace = generator->Generate(model, &error);
    if (trace.GetNRanks() == 0)
    {
        std::cerr << "trace-generator: " << error << "\n";
        return 1;
    }
    if (!TraceJson::Write(trace, out, &error))
    {
        std::cerr << "trace-generator: " << error << "\n";
        return 1;
    }
    const TransformerCounts counts = TransformerTraceGenerator::Count(model);
    std::cout << out << ": " << trace.GetName() << "\n  " << counts.totalParams / 1e9
              << " B parameters, " << trace.GetNRanks() << " ranks, " << trace.GetNOps()
              << " ops, " << model.GetMicroBatches() << " micro-batches per pipeline\n";
    return 0;
}
