// The evaluation pipeline (docs/eval-result.md): candidates are built on a pool of threads
// (cached), then run one at a time per GPU, each in a fresh worker process that was started
// ahead with its CUDA context, against the task's data that a holder process keeps on that GPU.
// Used by `cudaperf-eval` for a batch (results in input order) and by `--serve` (results in
// completion order).
#pragma once

#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/CountersMode.h"
#include "cudaperf/Runtime/EvalResult.h"
#include "cudaperf/Runtime/Scheduler.h"
#include "cudaperf/Runtime/Task.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::runtime {

struct EvalOptions {
  std::string arch;          // empty: the GPU's (probed), or sm_90 with --compile-only and no GPU
  BuildOptions build;
  std::string workerPath;    // default: cudaperf-eval-worker beside the running executable
  std::string workDir;       // scratch for worker logs; default: a fresh directory under /tmp
  bool compileOnly = false;
  bool timing = true;
  uint64_t seed = 1;
  int sets = 3;
  int warmup = 3, minRuns = 20, maxRuns = 1000;
  double budgetMs = 100;
  double timeoutSeconds = 120; // whole worker
  double stallSeconds = 10;    // no new event line for this long: killed as a timeout
  // Where candidate code runs (docs/security.md): "runner" (a confined process of its own),
  // "runner-unconfined" (debugging) or "none" (in the worker: trusted implementations only).
  std::string isolation = "runner";
  bool allowWeakSandbox = false; // run candidates although the kernel lacks part of the sandbox
  int64_t outputLimitBytes = 1 << 20; // worker stdout+stderr (RLIMIT_FSIZE)
  int jobs = 1;                // parallel builds
  std::vector<std::string> configs; // only these configurations (empty: all)
  bool counters = false;       // hardware counters of the candidate's kernels (CUPTI), after timing
  CountersMode countersMode = CountersMode::Shared; // how the worker sets up the profiler (CountersMode.h)
  size_t countersRanges = kCounterRangesDefault;    // the counter data image's capacity (CountersMode.h)
  std::string torchReferencePath; // default: cudaperf-torch-reference beside the running executable
  double torchTimeoutSeconds = 600; // one task's reference run (every config and set), PyTorch or C
  std::vector<int> devices;    // indices of the visible GPUs to use (empty: all), one candidate at a time each
  int baselineReuse = 0;       // later candidates of a task that reuse a measured baseline timing (per GPU)
  double deviceDataFraction = 0.4; // of a GPU's memory, at most, for the task data kept there
  uint64_t setCacheLimitBytes = uint64_t(1) << 30; // expected outputs of a set above this stay off the disk
  double memoryWaitSeconds = 30; // the evaluator's own allocations wait this long on a full GPU
  double leakLimitMiB = 1024;  // memory a candidate may keep allocated after returning
  int spareWorkers = 2;        // workers started ahead per GPU, each creating its context (0: none)
  bool waitWorkerExit = false; // the GPU's next candidate waits until the last worker's process is gone
  // CUDA_DEVICE_MAX_CONNECTIONS of the workers: the hardware work queues a context gets. Fewer make a
  // context faster to create (the host's ceiling on fresh processes per second, docs/eval-serve.md;
  // on the H200 8 -> 2 took --serve from 207 to 492 candidates/min, timings unchanged); streams of one
  // candidate beyond this many share queues (their kernels may then serialize). CUDA's default is 8.
  int maxConnections = 2;
  int setupRetries = 20;       // workers started again when the GPU was full at their start (0.5 s to 4 s apart,
                               // about 66 s in all: 8 starts, 18 s, lost 2 of 200 to a neighbour holding the GPU)
  size_t queueLimit = 256;     // candidates waiting (submitted, not yet running) before submit blocks
  double gpuSamplePeriodSeconds = 0.05; // NVML sampling during a worker's run
};

struct EvalJob {
  std::string taskDir;
  std::string candidatePath;   // a file, unless hasSource
  bool hasSource = false;
  std::string candidateSource; // the candidate's text (written to the work directory)
  std::string candidateName;   // how a source-text candidate is named in its result
  std::optional<std::vector<std::string>> configs; // instead of EvalOptions::configs
  std::optional<bool> counters;                    // instead of EvalOptions::counters
};

class Evaluator {
public:
  Evaluator(EvalOptions options, Toolchain toolchain);
  ~Evaluator();
  Evaluator(const Evaluator &) = delete;
  Evaluator &operator=(const Evaluator &) = delete;

  // Probes the GPUs through the worker (no CUDA context) unless only compiling with a given arch.
  // Returns "" or why evaluation cannot proceed.
  std::string prepare();
  const support::Json &device() const; // the first GPU used (null when none)
  const std::vector<support::Json> &devices() const;
  const std::string &arch() const;
  const EvalOptions &options() const;

  // Results in job order; onResult is called in that order as soon as each is known.
  std::vector<support::Json> run(const std::vector<EvalJob> &jobs,
                                 const std::function<void(size_t, const support::Json &)> &onResult = {});

  // One candidate, its result delivered in completion order (or `cancelled`), from another thread.
  using Done = std::function<void(const support::Json &result, bool cancelled)>;
  Scheduler::Submit submit(const std::string &id, EvalJob job, Done done, bool block = true);
  Scheduler::Cancel cancel(const std::string &id);
  void close(bool drain);
  void wait();
  SchedulerStats stats() const;

  struct Impl; // lib/Runtime/Evaluator.cpp

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace cudaperf::runtime
