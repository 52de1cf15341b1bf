// cudaperf-bench --queue (docs/bench.md): the candidates evaluated through the Redis work queue
// (cudaperf-eval --submit URL) instead of a local cudaperf-eval.
#pragma once

#include "cudaperf/Bench/Bench.h"

#include <string>
#include <vector>

namespace cudaperf::benchtool {

struct QueueSettings {
  std::string queueUrl;               // redis://HOST:PORT/QUEUE
  double queueWait = 3600;            // --queue-wait S
  std::vector<std::string> evalArgs;  // those that can travel in a request (--configs, --counters) go along
};

// --queue: every candidate through `cudaperf-eval --submit URL` (lib/Queue's submitter, the one
// cudaperf-reward --queue and cudaperf-train rl --queue use); its messages become the result
// documents the scoring reads, each with the candidate's and task's local paths. A request a worker
// answered with an error has no result (the scoring counts the slot as a failure). Returns the command.
std::vector<std::string> runThroughQueue(const std::string &evalPath, const QueueSettings &queue,
                                         const bench::CandidateSet &candidates, const bench::Suite &suite,
                                         const std::string &workDir, const std::string &resultsPath);

} // namespace cudaperf::benchtool
