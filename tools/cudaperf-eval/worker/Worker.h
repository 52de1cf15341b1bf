// The evaluation of a task's baseline and one candidate in this process (docs/eval-result.md,
// "What happens to a candidate"): correctness on every input set of every configuration, the
// audit call, timing, a checked call after timing, the memory the candidate holds after each call
// (from the worker's own accounting, AllocationInterpose.h), and the integrity of the task data
// it shares with other workers. Everything is reported as events (Events.h).
#pragma once

#include "Callee.h"
#include "DeviceArgs.h"
#include "Measure.h"
#include "SharedData.h"

#include "cudaperf/DeviceKernels/DeviceKernels.h"
#include "cudaperf/Runtime/AllocationLedger.h"
#include "cudaperf/Runtime/CountersMode.h"
#include "cudaperf/Runtime/Outcome.h"
#include "cudaperf/Runtime/Task.h"

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace cudaperf::worker {

// Where candidate code runs (docs/security.md): in a confined runner process (the default), or
// in the worker itself (only for implementations one trusts: the generated dataset's, measured
// with hardware counters).
enum class Isolation { Runner, RunnerUnconfined, None };
Isolation parseIsolation(const std::string &s);
const char *isolationName(Isolation i);

struct WorkerOptions {
  Isolation isolation = Isolation::Runner;
  bool allowWeakSandbox = false; // run although the kernel lacks part of the confinement (said in the result)
  double timeoutSeconds = 120;   // the evaluator's --timeout: the runner's CPU-time limit
  // Of the timed calls, the share whose outputs are checked against the baseline run on the same
  // fresh inputs (at least kMinCheckedTimedCalls per configuration).
  double checkedShare = 0.4; // a cheat on the 11+ calls that make a median of 20 escapes with 0.6^11 = 0.4%
  // The wall-clock check's rule is runtime::wallClockViolation (WallClock.h).
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
  std::string setUp(const WorkerOptions &early, bool &retryable);
  // The whole evaluation; never returns (finish()).
  [[noreturn]] void run(const WorkerOptions &options);

private:
  using EntryFn = worker::EntryFn;
  static constexpr int kMinCheckedTimedCalls = 3;

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

  Callee *current_ = nullptr;
  uint64_t lastOutOfMemory_ = 0;           // of the last checked call
  runtime::MemorySummary lastMemory_;      // after the last checked call            // whose calls are being evaluated
  std::unique_ptr<RunnerCallee> runner_; // the candidate's process (started ahead, in setUp)
  std::string runnerStartError_;
  EntryFn baselineFn_ = nullptr;
  std::unique_ptr<DeviceArgs> oracle_;    // the baseline's buffers for checking timed calls
  size_t oracleConfig_ = ~size_t(0);          // the oracle of checked timed calls (when the task has a baseline)
  std::mt19937_64 secret_;                // fresh seeds and which timed calls are checked: unknown to the runner
  // Where one configuration's timed-call loop spends its time (host seconds; the timing event's
  // integrity.loop_seconds): diagnostics only, never a verdict.
  struct LoopCost {
    double prepare = 0;        // fresh inputs and poisoned outputs, synchronized
    double calls = 0;          // the callee's timed calls, request to answer
    double checks = 0;         // checked answers, the oracle's allocation included
    double oracleAllocate = 0; // of which allocating the oracle's buffers
    double oracleFill = 0;     // of which the oracle's inputs and poisoned outputs
    double baseline = 0;       // of which the baseline's calls on the oracle
    double compare = 0;        // of which guards, inputs and outputs compared on the device
  } loop_;

  void emitDevice();
  void openSharedData();
  EntryFn load(const std::string &impl, const std::string &path, Verdict &v);
  Verdict evaluate(const std::string &impl, Callee &callee, bool candidate);
  bool emitCachedBaseline();
  Verdict checkCorrectness(const std::string &impl, Callee &callee);
  Verdict measure(const std::string &impl, Callee &callee, bool candidate);
  Verdict audit(const std::string &impl, Callee &callee, size_t c, DeviceArgs &dev, int slot);
  Verdict timeCalls(const std::string &impl, Callee &callee, size_t c, DeviceArgs &dev, int slot, bool candidate,
                    TimingStats &stats, support::Json &check);
  Verdict checkTimedCall(const std::string &impl, size_t c, const DeviceArgs &dev, uint64_t seed, const char *what);
  Verdict wallClockCheck(const std::string &impl, Callee &callee, size_t c, DeviceArgs &dev, int devSlot,
                         double eventMedianMs, support::Json &check);
  Verdict callAndCheck(const std::string &impl, Callee &callee, size_t c, DeviceArgs &dev, int slot, int set,
                       const char *what);
  Verdict callAndCheckOnce(const std::string &impl, Callee &callee, size_t c, DeviceArgs &dev, int slot, int set,
                           const char *what);
  Verdict fromCall(const CallResult &r, const std::string &config, const std::string &when);
  Verdict bindFailure(const std::string &config, const std::string &error);
  Verdict heldMemory(const std::string &config, const runtime::MemorySummary &m);
  void emitMemory(const std::string &impl, const runtime::MemorySummary &m);
  // "" or what changed in the shared data.
  std::string verifySharedData(const std::string &after);
  Verdict fromCudaError(cudaError_t e, bool atLaunch, const std::string &config, const std::string &when);
  bool allocate(DeviceArgs &dev, const std::string &impl, const std::string &config, Verdict &v);
  uint64_t freshSeed() { return secret_(); }
  // The runner, ready and with the candidate loaded: null and `v` set when it is not.
  RunnerCallee *candidateRunner(const std::string &soPath, Verdict &v);
  void emitUnavailableCounters(const std::string &reason);
};

void emitVerdict(const std::string &impl, const Verdict &v);

} // namespace cudaperf::worker
