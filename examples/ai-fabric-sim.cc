// SPDX-License-Identifier: GPL-2.0-only
//
// ai-fabric-sim: how long is one training iteration on this fabric, and why?
//
// Replays a training trace (the module's JSON, or generated from a model config) over a
// GPU cluster: NVSwitch inside each server, one RDMA NIC per GPU on a rail-optimized RoCE
// fabric. Prints a summary and writes results JSON/CSV, a Perfetto timeline, FCT and PFC
// CSVs and gnuplot PNGs into --out.
//
//   ai-fabric-sim                                   # built-in default scenario
//   ai-fabric-sim --scenario=my.json --iterations=2
//   ai-fabric-sim --oversubscription=2 --spines=1   # what-ifs: one setting each
//   ai-fabric-sim --workload=aicb.txt --gpu=A100 --servers=4 --cc=none
//   ai-fabric-sim --ns3::RoceDcqcn::RateAi=20Mbps       # any attribute, as in every ns-3 program
//
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-forward-check.h"
#include "ns3/training-report.h"
#include "ns3/training-simulation.h"

#include <algorithm>
#include <iostream>

#ifndef AI_FABRIC_TRACES_DIR
#define AI_FABRIC_TRACES_DIR "traces"
#endif

using namespace ns3;

int
main(int argc, char* argv[])
{
    ProgramOptions::FixTimeResolution();
    std::string scenarioFile;
    std::string out;
    uint32_t iterations = 0;
    uint32_t seed = 0;
    bool progress = true;
    bool plots = true;
    bool alone = true;
    bool interleave = false;
    std::string pcap;
    std::string pcapNodes;

    ProgramOptions cmd("ai-fabric-sim", __FILE__);
    cmd.Usage("Simulate DNN training iterations on a GPU cluster fabric. Without --scenario "
              "the built-in default runs: 2 H100 servers x 8 GPUs, 400G rail-optimized RoCE "
              "fabric with DCQCN, replaying the shipped GPT-3 1.3B trace (TP 8, DP 2). The "
              "what-if options (--workload to --computeScale) each override one setting of "
              "the scenario, or of that default; e.g. --ina=streaming lets the switches "
              "aggregate collectives in the network.");
    cmd.AddInputFile("scenario",
                     "Scenario JSON file (see doc/ai-fabric.rst, Scenario files)",
                     scenarioFile);
    cmd.AddOutputFolder("out", "Output folder (overrides the scenario's)", out);
    cmd.AddValue("iterations", "Iterations to run (0: the scenario's)", iterations, 0, 100000);
    cmd.AddValue("seed", "Random run number (0: the scenario's)", seed);
    cmd.AddValue("progress", "Progress line on stderr during long runs", progress);
    cmd.AddValue("plots", "Draw PNG plots with gnuplot", plots);
    cmd.AddValue("alone",
                 "With jobs (--job or the scenario's \"jobs\"): also run each job alone on its "
                 "GPUs, and report its slowdown against that",
                 alone);
    cmd.AddValue("interleave",
                 "With two jobs or more: start each job after the first later by the shift that "
                 "least overlaps its network phases with the others' (measured alone, "
                 "CASSINI-like), and report each job as given and shifted",
                 interleave);
    cmd.AddPcapPrefix(
        "pcap",
        "Capture every RoCE port into PREFIX-nic<i>.pcap and PREFIX-sw<j>-<port>.pcap "
        "(nanosecond stamps; overrides the scenario's outputs/pcap)",
        pcap);
    cmd.AddValue("pcapNodes",
                 "With --pcap: capture only these nodes, comma-separated names as in links.csv "
                 "(e.g. nic0,sw2; default all)",
                 pcapNodes);
    // What-ifs: one setting of the scenario (or of the default) each.
    ScenarioOverrides whatIf;
    whatIf.AddTo(cmd);
    if (!cmd.Parse(argc, argv))
    {
        return 1;
    }

    TrainingScenario scenario = TrainingScenario::Default(AI_FABRIC_TRACES_DIR);
    if (!scenarioFile.empty())
    {
        std::string error;
        if (!TrainingScenario::Read(scenarioFile, scenario, &error))
        {
            std::cerr << "ai-fabric-sim: " << error << "\n";
            return 1;
        }
    }
    {
        std::string error;
        if (!whatIf.Apply(scenario, &error))
        {
            std::cerr << "ai-fabric-sim: " << error << "\n";
            return 1;
        }
    }
    if (!out.empty())
    {
        scenario.outputDir = out;
    }
    scenario.iterations = iterations ? iterations : scenario.iterations;
    scenario.seed = seed ? seed : scenario.seed;
    scenario.plots = scenario.plots && plots;
    scenario.pcapPrefix = pcap.empty() ? scenario.pcapPrefix : pcap;
    scenario.pcapNodes = pcapNodes.empty() ? scenario.pcapNodes : pcapNodes;

    // --ns3::Class::Attribute=value on the command line wins over the same attribute in
    // the scenario's fabric/config: it joins that list last (the simulation applies the
    // list over the GPU preset and the scenario's own settings).
    for (int k = 1; k < argc; ++k)
    {
        const std::string arg(argv[k]);
        const size_t eq = arg.find('=');
        if (arg.rfind("--ns3::", 0) == 0 && eq != std::string::npos)
        {
            const std::string name = arg.substr(2, eq - 2);
            auto& cfg = scenario.config;
            cfg.erase(std::remove_if(cfg.begin(),
                                     cfg.end(),
                                     [&](const auto& kv) { return kv.first == name; }),
                      cfg.end());
            cfg.emplace_back(name, arg.substr(eq + 1));
        }
    }
    if (scenario.iterations > 100000)
    {
        std::cerr << "ai-fabric-sim: --iterations must be at most 100000\n";
        return 1;
    }

    // The outputs are written after the run: a folder that cannot take them is found now.
    std::string outError;
    if (!CheckOutputFolder(scenario.outputDir, &outError))
    {
        std::cerr << "ai-fabric-sim: "
                  << (out.empty() ? scenario.source + ": /outputs/dir" : "--out") << ": "
                  << scenario.outputDir << ": expected a writable folder (" << outError << ")\n";
        return 1;
    }
    // --fast-forward=check: the packet reference first, then the fast-forwarded run, which
    // writes the outputs; the two are compared at the end.
    const bool check = scenario.fastForward == "check";
    if (check && (!scenario.jobs.empty() || !scenario.arrivals.mix.empty()))
    {
        std::cerr << "ai-fabric-sim: --fast-forward=check: compares one workload's run, not "
                     "jobs' (--job, \"jobs\" or \"arrivals\")\n";
        return 1;
    }
    FastForwardFigures reference;
    std::string error;
    if (check)
    {
        TrainingScenario off = scenario;
        off.fastForward = "off";
        TrainingSimulation ref(off);
        if (!ref.ApplyGlobalSettings(&error) || !ref.Build(&error))
        {
            std::cerr << "ai-fabric-sim: " << error << "\n";
            return 1;
        }
        std::cerr << "ai-fabric-sim: --fast-forward=check: the packet reference first\n";
        ref.Run(progress);
        reference = FastForwardFigures::Of(ref);
        ref.GetRunner()->Dispose();
        Simulator::Destroy();
        scenario.fastForward = "on";
    }
    // Jobs: each one alone on its GPUs first (their slowdowns are against these runs).
    if (interleave && scenario.jobs.size() < 2)
    {
        std::cerr << "ai-fabric-sim: --interleave: expected two jobs or more (--job or the "
                     "scenario's \"jobs\"), got "
                  << scenario.jobs.size() << "\n";
        return 1;
    }
    std::vector<TrainingSimulation::AloneRun> aloneRuns;
    if (!scenario.jobs.empty() && (alone || interleave) &&
        !TrainingSimulation::RunJobsAlone(scenario, progress, aloneRuns, &error))
    {
        std::cerr << "ai-fabric-sim: " << error << "\n";
        return 1;
    }
    std::vector<std::vector<Time>> aloneTimes;
    for (const auto& run : aloneRuns)
    {
        aloneTimes.push_back(run.iterations);
    }
    // --interleave: the jobs as given first, then shifted (the run reported).
    std::vector<Time> shifts;
    std::vector<Time> asGiven;
    if (interleave)
    {
        std::vector<BusyIntervals> busy;
        std::vector<Time> periods;
        for (size_t j = 0; j < aloneRuns.size(); ++j)
        {
            // From the run's start: a job given a start begins its phases then.
            busy.push_back(Shifted(aloneRuns[j].network, scenario.jobs[j].start));
            periods.push_back(MeanTime(aloneRuns[j].iterations));
        }
        shifts = InterleaveShifts(busy, periods);
        {
            TrainingSimulation given(scenario);
            if (!given.ApplyGlobalSettings(&error) || !given.Build(&error))
            {
                std::cerr << "ai-fabric-sim: " << error << "\n";
                return 1;
            }
            std::cerr << "ai-fabric-sim: --interleave: the jobs as given first\n";
            given.Run(progress);
            if (!given.GetRunError().empty())
            {
                std::cerr << "ai-fabric-sim: " << given.GetRunError() << "\n";
                return 1;
            }
            for (const auto& job : given.GetJobs())
            {
                if (!job.spec.arrives && job.runner)
                {
                    asGiven.push_back(MeanTime(WorkloadRunner::GetIterationTimes(
                        job.runner->GetBreakdown(),
                        job.runner->GetNIterations())));
                }
                if (job.runner)
                {
                    job.runner->Dispose();
                }
            }
        }
        Simulator::Destroy();
        for (size_t j = 0; j < shifts.size(); ++j)
        {
            scenario.jobs[j].start += shifts[j];
        }
    }
    // The program owns process-wide state: the scenario's attribute defaults and seed
    // here, Simulator::Destroy() once the reports are written.
    TrainingSimulation sim(scenario);
    if (!sim.ApplyGlobalSettings(&error) || !sim.Build(&error))
    {
        std::cerr << "ai-fabric-sim: " << error << "\n";
        return 1;
    }
    for (const std::string& warning : sim.GetWarnings())
    {
        std::cerr << "ai-fabric-sim: warning: " << warning << "\n";
    }
    sim.Run(progress);
    if (!sim.GetRunError().empty())
    {
        std::cerr << "ai-fabric-sim: " << sim.GetRunError() << "\n";
        Simulator::Destroy();
        return 1;
    }

    TrainingReport report(sim);
    report.SetAlone(aloneTimes);
    report.SetInterleave(shifts, asGiven);
    report.PrintSummary(std::cout);
    std::string writeError;
    const auto files = report.Write(scenario.outputDir, scenario.plots, &writeError);
    const bool stuck = sim.IsStuck();
    const std::string stuckReport = stuck ? sim.GetStuckReport() : "";
    std::string checkFailure;
    bool checkPassed = true;
    if (check)
    {
        std::cout << "\n  fast-forward against the packet reference (bounds: iterations "
                  << 100 * FastForwardFigures::ITERATION_TOLERANCE << " %, collectives "
                  << 100 * FastForwardFigures::COLLECTIVE_TOLERANCE << " %)\n";
        checkPassed = FastForwardFigures::Compare(reference,
                                                  FastForwardFigures::Of(sim),
                                                  std::cout,
                                                  &checkFailure);
    }
    Simulator::Destroy();
    if (files.empty())
    {
        std::cerr << "ai-fabric-sim: " << writeError << "\n";
        return 1;
    }
    if (!writeError.empty())
    {
        std::cerr << "ai-fabric-sim: warning: " << writeError << "\n";
    }
    std::cout << "\n  outputs  : " << scenario.outputDir << "/ (";
    for (size_t k = 0; k < files.size(); ++k)
    {
        // Relative to the folder (a job's files are in jobs/NAME/).
        const std::string& f = files[k];
        const std::string prefix = scenario.outputDir + "/";
        std::cout << (k ? ", " : "")
                  << (f.rfind(prefix, 0) == 0 ? f.substr(prefix.size())
                                              : f.substr(f.find_last_of('/') + 1));
    }
    std::cout << ")\n";
    if (stuck)
    {
        std::cerr << "ai-fabric-sim: the simulation made no progress and was stopped:\n"
                  << stuckReport;
        return 2;
    }
    if (!checkPassed)
    {
        std::cerr << "ai-fabric-sim: --fast-forward=check: " << checkFailure << "\n";
        return 3;
    }
    return 0;
}
