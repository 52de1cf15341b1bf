// Per-kernel hardware counters of one CUDA context through the CUPTI Range Profiler (auto range: one range
// per kernel launch; kernel replay: CUPTI re-runs each kernel once per counter pass, restoring memory between
// passes). Nothing here throws or aborts: every failure becomes a reason string (docs/counters.md).
//
// In-process use (the evaluator's worker):
//   KernelProfiler p;
//   if (std::string why = p.begin(ctx); !why.empty()) { ...profiling unavailable: why... }
//   ...launch kernels in ctx (any number)...
//   p.end();                        // stop, decode, evaluate
//   for (const KernelCounters &k : p.kernels()) ...
//
// Only one CUPTI subscriber can exist per process, so at most one KernelProfiler with its own subscriber
// is active at a time; under ncu/nsys begin() reports that another CUPTI client holds it.
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

struct ProfilerOptions {
  std::vector<std::string> metrics; // names from metricTable(); empty: all of them
  size_t maxKernels = 0;            // 0: no cap; launches past the cap run unprofiled and are counted
  size_t rangesPerSession = 64;     // counter data image capacity; decoded and reset when full
  // true: begin() subscribes to CUPTI itself. false: the caller owns the (single) CUPTI subscriber and
  // forwards the driver-API launch callbacks (launchCallbackIds()) to onDriverApiCallback().
  bool ownSubscriber = true;
};

class KernelProfiler {
public:
  KernelProfiler();
  ~KernelProfiler(); // ends an active session
  KernelProfiler(const KernelProfiler &) = delete;
  KernelProfiler &operator=(const KernelProfiler &) = delete;

  // Starts profiling every kernel launched in ctx. Returns "" or why profiling is unavailable (profiling not
  // permitted, unsupported device, another CUPTI client, no metric known to this chip, ...).
  std::string begin(CUcontext ctx, const std::vector<std::string> &metrics = {});
  std::string begin(CUcontext ctx, const ProfilerOptions &options);
  // Stops, decodes and evaluates what is left; results are then in kernels(). Returns "" or the reason the
  // collection failed (the reason of begin() when that failed). Safe to call twice or without begin().
  std::string end();

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
};

} // namespace cudaperf::counters
