// The persistent evaluator (`cudaperf-eval --serve`, docs/eval-serve.md) behind the pipeline's
// Evaluator interface: one child process for many candidates, requests written as JSON Lines on its
// stdin, results matched by id as they come back in completion order, so several threads can wait on
// their own candidates at once. A service that dies is started again on the next candidate; the
// candidates it was running get a RewardError (the caller's to turn into a reward).
#pragma once

#include "cudaperf/Reward/Pipeline.h"

#include <memory>
#include <string>
#include <vector>

namespace cudaperf::reward {

struct ServiceOptions {
  std::string evalPath;                // cudaperf-eval; default: beside this program, then PATH
  std::vector<std::string> extraArgs;  // e.g. --jobs 14 --devices 0 --sets 2
  bool compileOnly = false;
  double timeoutSeconds = 900;         // one candidate's wait for its result (then cancelled and an error)
  double startTimeoutSeconds = 120;    // until the service's ready line
};

std::unique_ptr<Evaluator> makeServiceEvaluator(const ServiceOptions &options);

} // namespace cudaperf::reward
