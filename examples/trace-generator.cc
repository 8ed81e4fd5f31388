// SPDX-License-Identifier: GPL-2.0-only
//
// trace-generator: write a Megatron-style training trace (ai-fabric-trace/1 JSON) for a
// transformer (or data-parallel CNN) described by a model config file.
//
//   trace-generator --config=traces/configs/gpt3-13b.json --out=traces/gpt3-13b.json
//   trace-generator --config=traces/configs/resnet50-dp.json --gpu=A100 --out=...
//   trace-generator --config=... --ns3::TransformerTraceGenerator::PeakFlops=312e12
//
#include "ns3/core-module.h"
#include "ns3/gpu-preset.h"
#include "ns3/program-options.h"
#include "ns3/trace-json.h"
#include "ns3/transformer-trace-generator.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    ProgramOptions::FixTimeResolution();
    std::string config;
    std::string out;
    std::string gpu = "H100";
    ProgramOptions cmd("trace-generator", __FILE__);
    cmd.Usage("Write a training trace for a transformer model config (JSON keys as in "
              "TransformerConfig: layers, hidden, heads, seqLength, vocab, microBatch, "
              "globalBatch, tp, pp, dp, ep, experts, topK, zeroStage, sequenceParallel, ...). "
              "Compute times come from the TransformerTraceGenerator roofline: the --gpu "
              "preset's figures unless its attributes are set.");
    cmd.AddInputFile("config", "Model config JSON file (required)", config);
    cmd.AddOutputFile("out", "Trace file to write (required)", out);
    std::vector<std::string> gpus;
    for (const GpuPreset& preset : GpuPreset::GetAll())
    {
        gpus.push_back(preset.name);
    }
    cmd.AddChoice("gpu",
                  "GPU preset whose peak dense BF16 FLOP/s and HBM bandwidth time the ops; the "
                  "trace records it",
                  gpu,
                  gpus);
    if (!cmd.Parse(argc, argv))
    {
        return 1;
    }
    for (const char* required : {"config", "out"})
    {
        if (!cmd.IsGiven(required) || cmd.GetText(required).empty())
        {
            return cmd.Fail(required,
                            std::string("expected --") + required + "=FILE (required; see --help)");
        }
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
    if (cmd.IsGiven("gpu"))
    {
        generator->SetAttribute("Gpu", StringValue(gpu));
    }
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
              << " B parameters, " << trace.GetNRanks() << " ranks, " << trace.GetNOps() << " ops, "
              << model.GetMicroBatches() << " micro-batches per pipeline\n";
    return 0;
}
