// Per-kernel hardware counters of one CUDA context through the CUPTI Range Profiler (auto range: one range
// per kernel launch). Nothing here throws or aborts: every failure becomes a reason string (docs/counters.md).
//
// Kernel replay (default; any program, e.g. the injection library): CUPTI re-runs each kernel once per counter
// pass, restoring memory between passes; caches are not controlled, so DRAM counters are not comparable to
// Nsight Compute's (the document carries a note).
//   KernelProfiler p;
//   if (std::string why = p.begin(ctx); !why.empty()) { ...profiling unavailable: why... }
//   ...launch kernels in ctx (any number)...
//   p.end();                        // stop, decode, evaluate
//   for (const KernelCounters &k : p.kernels()) ...
//
// User replay (ProfilerOptions::replay = Replay::User; in-process callers that can repeat their workload):
// the caller runs the same launches once per pass and may restore inputs and clean caches between passes.
//   ProfilerOptions o; o.replay = Replay::User;
//   if (std::string why = p.begin(ctx, o); !why.empty()) { ...refused: fall back to Replay::Kernel... }
//   while (p.passNeeded()) {
//     ...restore inputs, flush L2, synchronize (no kernel launches here count; keep them out of the pass)...
//     if (!(why = p.beginPass()).empty()) break;  // cuptiRangeProfilerStart
//     ...the workload: the same launches, in the same order, every pass; then synchronize...
//     if (!(why = p.endPass()).empty()) break;    // cuptiRangeProfilerStop (isAllPassSubmitted ends the loop)
//   }
//   p.end();                                      // decode, evaluate; "" or why
// Launches are recorded (names, launch attributes) in pass 0; range i is the i-th launch of pass 0. Later
// passes that launch different kernels are named in notes(). At most rangesPerSession launches per pass are
// profiled and at most maxPasses passes are run (then beginPass() fails with the reason).
//
// Sessions sharing one set-up (ProfilerOptions::keepSetUp, Replay::User only; the worker's
// --counters-mode shared): end() decodes and evaluates as usual but keeps the host configuration (counter
// availability, host object, config image), the range profiler enabled on the context and its counter data
// image; the next begin() on the same profiler with the same context, metrics and rangesPerSession then
// only resets that image and sets the configuration again (cuptiRangeProfilerCounterDataImageInitialize,
// cuptiRangeProfilerSetConfig) before its passes. A session that fails keeps nothing; a begin() that cannot
// reuse what was kept releases it and sets up from scratch. release() (or the destructor) tears it down.
//   ProfilerOptions o; o.replay = Replay::User; o.keepSetUp = true;   // false for the last session
//   p.begin(ctx, o); ...passes...; p.end(); doc1 = p.document(...);
//   o.keepSetUp = false; p.begin(ctx, o); ...passes...; p.end(); doc2 = p.document(...);  // torn down
//
// Only one CUPTI subscriber can exist per process, so at most one KernelProfiler with its own subscriber
// is active at a time; under ncu/nsys begin() reports that another CUPTI client holds it. (A kept set-up
// holds no subscriber: end() unsubscribes as always.)
#pragma once

#include "cudaperf/Counters/CountersDocument.h"

#include <cuda.h>
#include <cupti_callbacks.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cudaperf::counters {

enum class Replay {
  Kernel, // CUPTI_KernelReplay: CUPTI replays each kernel, saving and restoring memory
  User,   // CUPTI_UserReplay: the caller repeats the workload once per pass (beginPass/endPass)
};

struct ProfilerOptions {
  std::vector<std::string> metrics; // names from metricTable(); empty: all of them
  size_t maxKernels = 0;            // 0: no cap; launches past the cap run unprofiled and are counted
  size_t rangesPerSession = 64;     // counter data image capacity; kernel replay: decoded and reset when full;
                                    // user replay: launches per pass beyond it are not profiled
  Replay replay = Replay::Kernel;
  size_t maxPasses = 64;            // user replay: beginPass() refuses more passes than this
  // true: begin() subscribes to CUPTI itself. false: the caller owns the (single) CUPTI subscriber and
  // forwards the driver-API launch callbacks (launchCallbackIds()) to onDriverApiCallback().
  bool ownSubscriber = true;
  // Replay::User: end() of a successful session keeps the set-up for the next begin() of this profiler
  // (top of this file). Default false: end() tears everything down, as it always did.
  bool keepSetUp = false;
};

class KernelProfiler {
public:
  KernelProfiler();
  ~KernelProfiler(); // ends an active session and releases a kept set-up
  KernelProfiler(const KernelProfiler &) = delete;
  KernelProfiler &operator=(const KernelProfiler &) = delete;

  // Starts profiling every kernel launched in ctx. Returns "" or why profiling is unavailable (profiling not
  // permitted, unsupported device, another CUPTI client, no metric known to this chip, ...).
  std::string begin(CUcontext ctx, const std::vector<std::string> &metrics = {});
  std::string begin(CUcontext ctx, const ProfilerOptions &options);
  // Stops, decodes and evaluates what is left; results are then in kernels(). Returns "" or the reason the
  // collection failed (the reason of begin() when that failed). Safe to call twice or without begin().
  std::string end();
  // Tears down a set-up kept by end() (ProfilerOptions::keepSetUp): range profiler disabled, host object
  // destroyed. No-op when nothing is kept or a session is active.
  void release();
  // end() kept the set-up (until the next begin() or release()).
  bool setUpKept() const;
  // This session's begin() reused a set-up kept by the previous session.
  bool setUpReused() const;

  // Replay::User only (see the top of this file). passNeeded(): begin() succeeded, nothing failed and CUPTI
  // has not yet said all passes are submitted (with no counter metric: until one pass ran). beginPass()/endPass()
  // return "" or why; after a failure passNeeded() is false and end() returns the same reason.
  bool passNeeded() const;
  std::string beginPass();
  std::string endPass();
  size_t passesRun() const;
  // Launches seen so far: in user replay those of pass 0 (later passes repeat them), else the session's. A
  // caller that runs several calls per pass reads it after each call of pass 0 to know which launches are whose
  // (the worker's --counters-mode joint; splitByLaunches in CountersDocument.h).
  size_t launchesSeen() const;
  // After end(): every launch seen was profiled, each got exactly one decoded range (matched in order), and, in
  // user replay, every pass launched the same kernels as pass 0. False is what the notes explain; a caller that
  // splits the ranges between calls (joint) must not trust the split then.
  bool launchesAccountedFor() const;

  bool active() const;
  const std::vector<KernelCounters> &kernels() const;
  std::vector<std::string> droppedMetrics() const;                     // names only
  const std::map<std::string, std::string> &droppedMetricReasons() const; // name -> reason
  const std::vector<std::string> &collectedMetrics() const;            // what the configuration holds
  size_t kernelsNotProfiled() const;
  size_t replayPasses() const;
  const std::vector<std::string> &notes() const;
  std::string gpuName() const;
  std::string computeCapability() const; // "9.0"
  // Host seconds spent in the profiler's phases so far (docs/counters.md, "profiler_seconds"): CUPTI/NVPW
  // initialization, metric configuration, images, pass start/stop, decoding, evaluation, teardown. Measured
  // only; nothing depends on them.
  const std::map<std::string, double> &phaseSeconds() const;
  // The result document; available = begin() and end() succeeded.
  CountersDocument document(const std::string &program) const;

  // For a caller that owns the CUPTI subscriber (ProfilerOptions::ownSubscriber = false): forward every
  // CUPTI_CB_DOMAIN_DRIVER_API callback of launchCallbackIds(), entry and exit. Launches in other contexts
  // are ignored.
  void onDriverApiCallback(CUpti_CallbackId cbid, const CUpti_CallbackData *data);
  static const std::vector<CUpti_CallbackId> &launchCallbackIds();

  struct State; // implementation (KernelProfiler.cpp)

private:
  std::unique_ptr<State> state_;
  std::string beginFresh(CUcontext ctx, const ProfilerOptions &options);
  // "" when `kept`'s set-up was reused (state_ then holds the new session), else why not (kept torn down).
  std::string beginReusing(std::unique_ptr<State> kept, CUcontext ctx, const ProfilerOptions &options);
};

} // namespace cudaperf::counters
