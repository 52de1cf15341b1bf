// The evaluation loop: build (cached, optionally several at once), then one fresh worker
// process per candidate, one at a time so timings never overlap on the GPU.
#pragma once

#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/EvalResult.h"
#include "cudaperf/Runtime/Task.h"

#include <functional>
#include <memory>
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
  int64_t outputLimitBytes = 1 << 20; // worker stdout+stderr (RLIMIT_FSIZE)
  int jobs = 1;                // parallel builds
  std::vector<std::string> configs; // only these configurations (empty: all)
  bool counters = false;       // hardware counters of the candidate's kernels (CUPTI), after timing
  std::string torchReferencePath; // default: cudaperf-torch-reference beside the running executable
  double torchTimeoutSeconds = 600; // one task's PyTorch reference run (every config and set)
};

struct EvalJob {
  std::string taskDir;
  std::string candidatePath;
};

class Evaluator {
public:
  Evaluator(EvalOptions options, Toolchain toolchain);

  // Probes the GPU through the worker unless an arch is given or only compiling. Returns "" or
  // why evaluation cannot proceed.
  std::string prepare();
  const support::Json &device() const { return device_; }
  const std::string &arch() const { return options_.arch; }

  // Results in job order; onResult is called as each finishes (for streaming output).
  std::vector<support::Json> run(const std::vector<EvalJob> &jobs,
                               const std::function<void(size_t, const support::Json &)> &onResult = {});

private:
  struct TaskEntry;
  EvalOptions options_;
  Toolchain toolchain_;
  support::Json device_;
  std::vector<std::shared_ptr<TaskEntry>> tasks_;
  std::shared_ptr<TaskEntry> taskFor(const std::string &dir, std::string &error);
  support::Json runWorker(const TaskEntry &task, const EvalJob &job, const BuildResult &build, size_t index);
  support::Json taskFailure(const EvalJob &job, Outcome outcome, const std::string &detail);
  // A pytorch-to-cuda task's expected outputs and eager timings, from cudaperf-torch-reference
  // (run once per task and cached on disk); "" or why they are not available.
  std::string preparePyTorchReference(TaskEntry &task);
};

} // namespace cudaperf::runtime
