// The evaluation of a task's baseline and one candidate in this process (docs/eval-result.md,
// "What happens to a candidate"): correctness on every input set of every configuration, the
// audit call, timing, a checked call after timing, the memory the candidate holds after each call
// (from the worker's own accounting, AllocationInterpose.h), and the integrity of the task data
// it shares with other workers. Everything is reported as events (Events.h).
#pragma once

#include "DeviceArgs.h"
#include "Measure.h"
#include "SharedData.h"

#include "cudaperf/DeviceKernels/DeviceKernels.h"
#include "cudaperf/Runtime/AllocationLedger.h"
#include "cudaperf/Runtime/CountersMode.h"
#include "cudaperf/Runtime/Outcome.h"
#include "cudaperf/Runtime/Task.h"

#include <string>
#include <vector>

namespace cudaperf::worker {

struct WorkerOptions {
  std::string eventsPath;
  std::string taskDir;
  std::string deviceData;     // the holder's manifest (runtime::DeviceData)
  std::string baselineSo, candidateSo;
  std::string baselineTiming; // the baseline's timing events from an earlier worker: not timed again
  bool counters = false;      // a hardware-counter pass over the candidate after timing
  runtime::CountersMode countersMode = runtime::CountersMode::Shared; // its profiler set-up (--counters-mode)
  size_t countersRanges = runtime::kCounterRangesDefault; // its counter data image's capacity (--counters-ranges)
  std::vector<std::string> configs;
  uint64_t seed = 1;
  int sets = 3;
  bool timing = true;
  TimingOptions timingOptions;
  double leakLimitMiB = 1024;
  double memoryWaitSeconds = 30; // the worker's own allocations wait this long on a full device
  int outOfMemoryRetries = 5;    // calls repeated when the candidate's allocations found the device full
  int deviceIndex = 0;           // as the evaluator numbers its devices (reported)
  // Where the time before the job went (reported in the "start" event): the CUDA context's
  // set-up, and how long the job waited for it after the evaluator handed it over (a pool worker
  // started ahead: 0 when it was ready; a worker started for the job: all of its set-up).
  bool pool = false;
  double contextSeconds = -1, contextWaitSeconds = -1;
};

struct Verdict {
  runtime::Outcome outcome = runtime::Outcome::Ok;
  std::string detail;
  std::string config;
  bool fatal = false; // the CUDA context is unusable: stop after reporting
};

class Worker {
public:
  // CUDA context, stream, L2 flush buffer and device scratch: "" or why not (retryable: the
  // device was full). In a pool worker this happens before its job arrives.
  std::string setUp(bool &retryable);
  // The whole evaluation; never returns (finish()).
  [[noreturn]] void run(const WorkerOptions &options);

private:
  using EntryFn = worker::EntryFn;

  const WorkerOptions *opt_ = nullptr;
  runtime::Task task_;
  SharedData shared_;
  cudaStream_t stream_ = nullptr;
  L2Flusher flusher_;
  devicekernels::DeviceScratch scratch_;
  cudaDeviceProp prop_{};
  runtime::MemorySummary memoryAtStart_;
  uint64_t peakHeldBytes_ = 0;
  std::vector<int> candidateAuditLaunches_; // kernels of the candidate's audit call, per configuration

  void emitDevice();
  void openSharedData();
  EntryFn load(const std::string &impl, const std::string &path, Verdict &v);
  Verdict evaluate(const std::string &impl, EntryFn fn);
  bool emitCachedBaseline();
  Verdict checkCorrectness(const std::string &impl, EntryFn fn);
  Verdict measure(const std::string &impl, EntryFn fn);
  Verdict callAndCheck(const std::string &impl, EntryFn fn, size_t c, DeviceArgs &dev, int set, const char *what);
  Verdict callAndCheckOnce(const std::string &impl, EntryFn fn, size_t c, DeviceArgs &dev, int set,
                           const char *what);
  Verdict heldMemory(const std::string &config);
  void emitMemory(const std::string &impl);
  // "" or what changed in the shared data.
  std::string verifySharedData(const std::string &after);
  Verdict fromCudaError(cudaError_t e, bool atLaunch, const std::string &config, const std::string &when);
  bool allocate(DeviceArgs &dev, const std::string &impl, const std::string &config, Verdict &v);
};

void emitVerdict(const std::string &impl, const Verdict &v);

} // namespace cudaperf::worker
