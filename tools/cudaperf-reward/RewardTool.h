// cudaperf-reward's options and what it does with them (RewardRun.cpp): cudaperf-reward.cpp parses the
// command line into Options and calls runReward.
#pragma once

#include "cudaperf/Reward/Pipeline.h"
#include "cudaperf/Reward/Requests.h"
#include "cudaperf/Reward/Server.h"
#include "cudaperf/Support/Subprocess.h"

#include <optional>
#include <string>
#include <vector>

namespace cudaperf::rewardtool {

using namespace cudaperf::reward;

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitInternalError = 3;

struct Options {
  std::string configPath, format = "json";
  bool staticOnly = false, counters = false, batch = false, serve = false, printConfig = false, withResults = false;
  std::optional<double> rankingScore;
  std::string analysisPath, resultPath, baselineAnalysisPath;
  AnalyzerOptions analyzer;
  EvaluatorOptions evaluator;
  std::string workDir;
  RequestPolicy requests;
  support::ChildPolicy children;
  int jobs = 2;
  std::string queueUrl; // --queue redis://...: the work queue instead of a local cudaperf-eval
  ServerOptions server;
  Options() { children.addressSpaceLimit = int64_t(8192) << 20; }
};

// The mode the options name (one candidate, --result documents, --batch, --serve); the exit code.
int runReward(Options &o, const std::vector<std::string> &positional);

} // namespace cudaperf::rewardtool
