// cudaperf-eval's Redis queue modes (docs/eval-serve.md, "Many hosts: the Redis queue"):
// --worker redis://HOST:PORT/QUEUE, --submit redis://... --batch FILE, --queue-status redis://...
#pragma once

#include "cudaperf/Runtime/Evaluator.h"
#include "cudaperf/Runtime/ServeProtocol.h"
#include "cudaperf/Support/ArgParser.h"

#include <string>

namespace cudaperf::evaltool {

struct QueueCommand {
  std::string workerUrl, submitUrl, statusUrl;
  std::string workerName, workDir;
  int inFlight = 0; // default: the evaluator's --jobs + 1
  double heartbeatSeconds = 2, reclaimAfterSeconds = 60, waitSeconds = 3600;
  long maxOutstanding = 1000, resultTtlSeconds = 86400;
  bool shareTaskPaths = false;
  bool any() const { return !workerUrl.empty() || !submitUrl.empty() || !statusUrl.empty(); }
};

// The queue's options (--submit, --queue-status and the --queue-* settings).
void addQueueOptions(support::ArgParser &parser, QueueCommand &q);
// `--worker VALUE`: a redis:// URL selects the queue worker, anything else is the worker program's path.
void takeWorkerOption(const std::string &value, QueueCommand &q, std::string &workerPath);

// The URLs given parse (the reason on stderr when not), checked before the evaluator starts.
bool checkQueueUrls(const QueueCommand &q);

// Each returns the process's exit status. The worker evaluates through serveStream (the --serve
// code path) with the evaluator and policy given.
int runQueueWorkerMode(const QueueCommand &q, runtime::Evaluator &evaluator, const runtime::ServePolicy &policy);
int runSubmitMode(const QueueCommand &q, const std::string &batchFile, const runtime::EvalOptions &opt,
                  const std::string &outputPath);
int runQueueStatusMode(const QueueCommand &q);

} // namespace cudaperf::evaltool
