// Supervised fine-tuning on the dataset's train split (docs/training.md, "cudaperf-train sft"), as a
// library command like RL's (Rl.h): SftConfig (SftConfig.h) holds every option, the command line
// (runSftCommand) fills it from --config FILE, the flags and --set KEY=VALUE, and runSft trains from it,
// writing OUT/sft-config.json and the config inside OUT/sft-report.json.
#pragma once

#include "cudaperf/Learn/DataParallel.h"
#include "cudaperf/Learn/SftConfig.h"
#include "cudaperf/Learn/Transformer.h"

#include <string>
#include <vector>

namespace cudaperf::learn {

// `cudaperf-train sft ARGS`: parses ARGS (usage errors throw support::UsageError), then runSft.
int runSftCommand(const std::vector<std::string> &argv);

// Trains (or, with dryRun, builds and counts the examples) as `config` says; rank 0 of `dp` writes every
// output. Returns the exit code (0).
int runSft(const SftConfig &config, const DataParallelArgs &dp);

// LoRA options from the command line's values: alpha 0 is 2 x rank; empty targets keep the default modules.
LoraOptions loraOptionsFrom(int64_t rank, double alpha, double dropout, const std::string &targets);

} // namespace cudaperf::learn
