#include "CounterPass.h"
#include "DeviceArgs.h"
#include "DeviceInfo.h"
#include "Events.h"

#ifdef CUDAPERF_HAVE_COUNTERS
#include "cudaperf/Counters/KernelProfiler.h"
#include <cuda.h>
#endif

#include <memory>

namespace cudaperf::worker {

namespace {

#ifdef CUDAPERF_HAVE_COUNTERS
// Returns why user replay could not be used ("" when it was); a failure of the candidate's own
// call goes to callWhy instead (no fallback then). User replay: the call runs once per counter
// pass, each pass starting from fresh inputs and a cold, clean L2 (as ncu --cache-control all),
// so DRAM counters mean what Nsight Compute's mean.
// keepSetUp (--counters-mode shared, not the last configuration): a successful session keeps the profiler's
// set-up for the next configuration's begin() (KernelProfiler.h).
std::string profileUserReplay(const CounterPass &pass, counters::KernelProfiler &profiler, CUcontext ctx,
                              DeviceArgs &dev, const SharedSet &set, const runtime::PackedArgs &packed, EntryFn fn,
                              std::string &callWhy, bool keepSetUp) {
  if (cudaError_t e = pass.flusher.prepareClean())
    return "no buffers to clean L2 with (" + cudaErrorText(e) + ")";
  counters::ProfilerOptions options;
  options.replay = counters::Replay::User;
  options.maxPasses = 64;
  options.rangesPerSession = 256;
  options.keepSetUp = keepSetUp;
  std::string why = profiler.begin(ctx, options);
  cudaError_t e = cudaSuccess;
  const char *stage = "";
  while (why.empty() && profiler.passNeeded()) {
    stage = "preparing a counter pass";
    if ((e = dev.prepare(set, pass.stream)) || (e = pass.flusher.clean(pass.stream)) || (e = cudaDeviceSynchronize()))
      break;
    if (!(why = profiler.beginPass()).empty())
      break;
    stage = "the profiled call failed";
    callEntry(fn, packed.pointers.data(), pass.stream);
    e = cudaDeviceSynchronize();
    std::string endWhy = profiler.endPass(); // the pass is stopped even when the call failed
    if (e != cudaSuccess)
      break;
    why = endWhy;
  }
  std::string endWhy = profiler.end();
  if (e != cudaSuccess)
    callWhy = std::string(stage) + ": " + cudaErrorText(e);
  return why.empty() ? endWhy : why;
}

// Kernel replay: CUPTI saves and restores memory around each kernel. Returns "" or why not.
std::string profileKernelReplay(const CounterPass &pass, counters::KernelProfiler &profiler, CUcontext ctx,
                                DeviceArgs &dev, const SharedSet &set, const runtime::PackedArgs &packed,
                                EntryFn fn) {
  if (cudaError_t e = dev.prepare(set, pass.stream))
    return "preparing inputs: " + cudaErrorText(e);
  if (cudaError_t e = cudaDeviceSynchronize())
    return "preparing inputs: " + cudaErrorText(e);
  if (std::string why = profiler.begin(ctx); !why.empty())
    return why;
  callEntry(fn, packed.pointers.data(), pass.stream);
  cudaError_t e = cudaDeviceSynchronize();
  std::string endWhy = profiler.end();
  return e != cudaSuccess ? "the profiled call failed: " + cudaErrorText(e) : endWhy;
}

// One call of configuration c under the profiler: user replay, or kernel replay where CUPTI
// refuses user replay. `shared` (--counters-mode shared): the candidate's user-replay profiler, whose set-up
// a previous configuration may have kept and this one keeps when keepSetUp; null: a profiler of its own (the
// default). Every failure takes the default path: what the shared profiler kept is released before a
// kernel-replay profiler enables the range profiler on the context, and a document comes from a profiler of
// this configuration only.
counters::CountersDocument profileConfig(const CounterPass &pass, size_t c, EntryFn fn,
                                         counters::KernelProfiler *shared, bool keepSetUp) {
  DeviceArgs dev(pass.task, pass.task.configs[c]);
  SharedSet set = pass.shared.set(pass.task.configs[c].name, 0);
  std::string why;
  CUcontext ctx = nullptr;
  if (cudaError_t e = dev.allocate(pass.memoryWaitSeconds))
    why = "allocating arguments: " + cudaErrorText(e);
  else if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS)
    why = "no current CUDA context";
  runtime::PackedArgs packed;
  if (why.empty())
    packed = dev.packed();

  std::unique_ptr<counters::KernelProfiler> own;
  counters::KernelProfiler *profiler = shared;
  if (!why.empty() || !shared) {
    if (shared)
      shared->release(); // not profiled at all: nothing of this configuration in the shared profiler
    own = std::make_unique<counters::KernelProfiler>();
    profiler = own.get();
  }
  std::string userWhy;
  if (why.empty())
    userWhy = profileUserReplay(pass, *profiler, ctx, dev, set, packed, fn, why, keepSetUp && shared);
  bool kernelReplay = why.empty() && !userWhy.empty();
  if (kernelReplay) {
    if (shared)
      shared->release(); // (ended without keeping anything, unless begin() was never reached)
    own = std::make_unique<counters::KernelProfiler>();
    profiler = own.get();
    why = profileKernelReplay(pass, *profiler, ctx, dev, set, packed, fn);
  }
  counters::CountersDocument doc = profiler->document(pass.task.name);
  if (kernelReplay)
    doc.notes.insert(doc.notes.begin(), "user replay not used (" + userWhy + "): kernel replay instead");
  if (!why.empty()) {
    doc.available = false;
    doc.reason = why;
  }
  return doc;
}
#endif

} // namespace

void collectCounters(const CounterPass &pass, const std::string &impl, EntryFn fn) {
#ifdef CUDAPERF_HAVE_COUNTERS
  // --counters-mode shared: one user-replay profiler for the candidate, its set-up kept from one configuration
  // to the next (runtime::counterSessionPlan); released at the latest when it goes out of scope.
  std::unique_ptr<counters::KernelProfiler> shared;
  if (pass.mode == runtime::CountersMode::Shared)
    shared = std::make_unique<counters::KernelProfiler>();
#endif
  for (size_t c = 0; c < pass.task.configs.size(); ++c) {
    const std::string &cfg = pass.task.configs[c].name;
    phase(impl, cfg, "counters");
    Json o = event("counters");
    o["impl"] = impl;
    o["config"] = cfg;
    bool available = false;
#ifdef CUDAPERF_HAVE_COUNTERS
    runtime::CounterSessionPlan plan = runtime::counterSessionPlan(pass.mode, c, pass.task.configs.size());
    counters::CountersDocument doc = profileConfig(pass, c, fn, shared.get(), plan.keepsSetUp);
    doc.countersMode = runtime::countersModeRecorded(pass.mode);
    available = doc.available;
    Json v = counters::countersToJson(doc);
    for (const auto &kv : v.items())
      if (kv.key() != "schema" && kv.key() != "program")
        o[kv.key()] = kv.value();
#else
    (void)fn;
    o["reason"] = "this cudaperf-eval-worker was built without CUPTI";
#endif
    o["available"] = available;
    emit(std::move(o));
    if (!available)
      return;
  }
}

} // namespace cudaperf::worker
