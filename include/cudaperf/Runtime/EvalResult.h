// Turns what happened to one candidate (its build, the worker's event lines, how the worker
// process ended) into the result document of docs/eval-result.md (schema::EvalResult, lib/Schema). A pure function of its
// inputs, so every outcome rule is unit-tested without a GPU.
#pragma once

#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/GpuMonitor.h"
#include "cudaperf/Runtime/Outcome.h"
#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Schema/EvalResult.h"
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Subprocess.h"

#include <string>
#include <vector>

namespace cudaperf::runtime {

constexpr const char *kResultSchema = schema::kEvalResultSchema; // the document: schema::EvalResult
constexpr const char *kEvalVersion = "0.1.0";

struct EvalRecord {
  const Task *task = nullptr;
  std::string candidatePath;
  std::string candidateSha256;
  std::string arch;
  BuildResult candidateBuild;
  bool compileOnly = false;
  bool workerRan = false;
  support::ProcessResult worker;  // when workerRan
  std::string events;             // the worker's event file, JSON lines
  uint64_t seed = 0;
  int sets = 0;
  double stallSeconds = 0;
  bool counters = false;          // the worker collected hardware counters after the candidate's verdict
  int maxConnections = 0;         // the workers' CUDA_DEVICE_MAX_CONNECTIONS (0: not recorded)
  const Toolchain *toolchain = nullptr;
  // pytorch-to-cuda: cudaperf-torch-reference's timing document (docs/pytorch-tasks.md); the
  // speedup is then PyTorch eager's median over the candidate's.
  const support::Json *pytorchEager = nullptr;
  double evaluationSeconds = 0;
  // What else used the GPU during the worker's run (NVML); null: not sampled.
  const GpuSharing *sharing = nullptr;
  // Where the evaluator's time went for this candidate (queued, build, wait_for_device, task_data,
  // worker, ...), in seconds; an object, or null.
  support::Json stageSeconds;
};

support::Json assembleResult(const EvalRecord &record);

// The outcome a result document carries (InternalError if it has none).
Outcome resultOutcome(const support::Json &result);

// True when the worker's event file ends in a set-up error it marked as passing (the device was
// full for a moment): the evaluator may start the worker again.
bool retryableSetupError(const std::string &events);

// The document's "gpu_activity" object (and whether anything else ran) from NVML's samples.
support::Json gpuActivityJson(const GpuSharing &sharing);

} // namespace cudaperf::runtime
