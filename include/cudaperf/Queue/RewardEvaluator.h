// The work queue behind lib/Reward's Evaluator interface (docs/eval-serve.md, "Many hosts: the
// Redis queue"; docs/reward.md, "Through the queue"): `cudaperf-reward --queue redis://...` and
// `cudaperf-train rl --queue redis://...` submit each candidate, with its task's files, to the
// queue instead of starting a local cudaperf-eval, and wait for the result a worker
// (`cudaperf-eval --worker redis://...`) stores. The reward is then computed here exactly as for a
// local evaluator's result.
#pragma once

#include "cudaperf/Queue/WorkQueue.h"
#include "cudaperf/Reward/Pipeline.h"

#include <memory>
#include <string>
#include <vector>

namespace cudaperf::queue {

struct QueueEvaluatorOptions {
  std::string url;            // redis://HOST:PORT/QUEUE
  bool compileOnly = false;   // what the run expects of the workers: a result of the other mode is an error
  bool counters = false;      // each request asks for the counter pass
  // Evaluator arguments of the local path: only --configs A,B travels in a request (and --devices,
  // which the workers choose, is dropped); anything else is refused: it is the workers' to set.
  std::vector<std::string> extraArgs;
  double timeoutSeconds = 900;      // one candidate's wait for its result (then a RewardError)
  double unreachableSeconds = 60;   // Redis gone for this long mid-wait: a RewardError
  QueueConfig config;
};

// Parses the URL and connects once (creating the stream's group): a bad URL, an argument that
// cannot travel, or an unreachable Redis throws reward::RewardError naming it, before any work.
std::unique_ptr<reward::Evaluator> makeQueueEvaluator(const QueueEvaluatorOptions &options);

} // namespace cudaperf::queue
