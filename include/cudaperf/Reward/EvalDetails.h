// The parts of an eval result (docs/eval-result.md) that the reward and the feedback read beyond
// lib/Features' EvalResult: every correctness check of every configuration, the compile log,
// whether the run was --compile-only, and whether another process shared the GPU. Read with
// lib/Schema's EvalResult (the document's one reader).
#pragma once

#include "cudaperf/Support/Json.h"

#include <optional>
#include <string>
#include <vector>

namespace cudaperf::reward {

struct CorrectnessCheck {
  int set = 0;
  std::string step; // "correctness", "after-timing"
  bool pass = true;
  std::string argument;
  std::optional<int64_t> index, badElements, nanElements;
  std::optional<double> got, expected; // NaN when the output was NaN or unwritten
  std::string inputModified;           // "modified its input 'a' (element 0)"
};

struct ConfigurationChecks {
  std::string name;
  std::vector<std::pair<std::string, double>> params; // in the result's order
  std::vector<CorrectnessCheck> checks;
};

struct EvalDetails {
  bool compileOnly = false;
  std::string compileLog;
  std::string compileCommand;
  std::optional<bool> gpuShared;
  std::vector<ConfigurationChecks> configs;
};

// Throws RewardError naming `source` and the field path.
EvalDetails readEvalDetails(const support::Json &result, const std::string &source);

} // namespace cudaperf::reward
