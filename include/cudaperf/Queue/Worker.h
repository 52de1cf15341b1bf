// The queue's worker loop (`cudaperf-eval --worker redis://...`) and submitter (`--submit`), apart
// from the evaluator: a JobEvaluator takes serve requests and gives back serve messages, so the
// real worker drives the very `--serve` code path and the tests drive a double.
#pragma once

#include "cudaperf/Queue/Jobs.h"
#include "cudaperf/Queue/WorkQueue.h"

#include <functional>

namespace cudaperf::queue {

// A JobEvaluator that can take no more work throws this; the worker then exits with status 1.
class EvaluatorStopped : public QueueError {
public:
  using QueueError::QueueError;
};

class JobEvaluator {
public:
  virtual ~JobEvaluator() = default;
  // Starts one `--serve` request (docs/eval-serve.md) whose "id" is a string chosen by the worker.
  virtual void start(const support::Json &request) = 0;
  // Messages ("result", "error", "cancelled") of started requests; waits at most `seconds` for one.
  virtual std::vector<support::Json> poll(double seconds) = 0;
};

struct WorkerOptions {
  std::string consumer;          // this worker's name (default HOSTNAME-PID)
  int inFlight = 2;              // jobs held at once
  double heartbeatSeconds = 2;   // heartbeat and renewal period (the heartbeat lives 3 periods)
  std::string workDir;           // where task files are unpacked (default $TMPDIR)
  std::string taskRoot;          // requests may name a shared "task_dir" inside it; none without it
  TaskFileLimits limits;
};

// Runs until `stop` becomes true (or forever); returns 0, or 1 when Redis cannot be reached at start
// or the evaluator stopped.
int runQueueWorker(const RedisUrl &url, const QueueConfig &config, JobEvaluator &evaluator,
                   const WorkerOptions &options, const volatile bool *stop = nullptr);

struct SubmitOptions {
  bool shareTaskPaths = false; // send "task_dir" as a path (workers need it under their --task-root)
  double timeoutSeconds = 3600;
  // Redis unreachable for this long after the first connection (it went away mid-run): give up
  // (exit 1) instead of retrying until timeoutSeconds.
  double unreachableSeconds = 60;
  std::string who = "cudaperf-eval --submit"; // how its messages on stderr begin
  bool quiet = false;                         // no messages on stderr (the reason is in SubmitStats::error)
  TaskFileLimits limits;
};

struct SubmitStats {
  long long submitted = 0, unique = 0, results = 0, fullWaits = 0, maxLength = 0, ignored = 0;
  double seconds = 0;
  std::string error; // why it returned 1 or 2 (also on stderr unless quiet)
};

// Submits serve requests (each with an "id" and a local "task_dir"), waits for every result and
// hands each message to onMessage with the request's own id, once per request. Returns 0 when all
// came back, 1 on timeout or an unreachable queue (reason on stderr), 2 for a bad request.
int submitAndWait(const RedisUrl &url, const QueueConfig &config, const std::vector<support::Json> &requests,
                  const SubmitOptions &options, const std::function<void(const support::Json &)> &onMessage,
                  SubmitStats &stats);

// `--queue-status`: one line per host and the queue's length; returns 0, or 1 when unreachable.
int printQueueStatus(const RedisUrl &url, std::ostream &out);

} // namespace cudaperf::queue
