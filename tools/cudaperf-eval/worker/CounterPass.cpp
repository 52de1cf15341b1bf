#include "CounterPass.h"
#include "DeviceArgs.h"
#include "DeviceInfo.h"
#include "Events.h"

#ifdef CUDAPERF_HAVE_COUNTERS
#include "cudaperf/Counters/KernelProfiler.h"
#include <cuda.h>
#endif

#include <memory>
#include <vector>

namespace cudaperf::worker {

namespace {

#ifdef CUDAPERF_HAVE_COUNTERS
// Before each profiled call: fresh inputs, outputs poisoned, a cold and clean L2, the device idle.
cudaError_t prepareCall(const CounterPass &pass, DeviceArgs &dev, const SharedSet &set) {
  cudaError_t e = dev.prepare(set, pass.stream);
  if (e == cudaSuccess)
    e = pass.flusher.clean(pass.stream);
  return e == cudaSuccess ? cudaDeviceSynchronize() : e;
}

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
  options.rangesPerSession = pass.rangesPerSession;
  options.keepSetUp = keepSetUp;
  std::string why = profiler.begin(ctx, options);
  cudaError_t e = cudaSuccess;
  const char *stage = "";
  while (why.empty() && profiler.passNeeded()) {
    stage = "preparing a counter pass";
    if ((e = prepareCall(pass, dev, set)))
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
// --counters-mode joint: one user-replay session for all configurations. Each pass runs every configuration's
// call in turn, each from fresh inputs and a cold, clean L2 as in the other modes; those copies, memsets and
// synchronizations now fall inside the pass, which CUPTI's auto range leaves out of every range (they are not
// kernel launches). The launches seen after each call of pass 0 say which ranges are whose
// (counters::splitByLaunches). `fallback` says why the session's documents cannot be used (nothing of it is
// then emitted: the caller profiles the configurations one by one instead); else docs holds one document per
// configuration, or a single unavailable one when the candidate's call failed.
struct JointResult {
  std::string fallback;
  std::vector<counters::CountersDocument> docs;
};

JointResult profileJoint(const CounterPass &pass, EntryFn fn) {
  JointResult r;
  const size_t n = pass.task.configs.size();
  std::vector<std::unique_ptr<DeviceArgs>> devs;
  std::vector<SharedSet> sets;
  std::vector<runtime::PackedArgs> packed;
  for (size_t c = 0; c < n; ++c) {
    const runtime::Config &config = pass.task.configs[c];
    devs.push_back(std::make_unique<DeviceArgs>(pass.task, config));
    if (cudaError_t e = devs.back()->allocate(pass.memoryWaitSeconds)) {
      r.fallback = "allocating configuration " + config.name + "'s arguments: " + cudaErrorText(e);
      return r;
    }
    sets.push_back(pass.shared.set(config.name, 0));
    packed.push_back(devs.back()->packed());
  }
  CUcontext ctx = nullptr;
  if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) {
    r.fallback = "no current CUDA context";
    return r;
  }
  if (cudaError_t e = pass.flusher.prepareClean()) {
    r.fallback = "no buffers to clean L2 with (" + cudaErrorText(e) + ")";
    return r;
  }
  counters::KernelProfiler profiler;
  counters::ProfilerOptions options;
  options.replay = counters::Replay::User;
  options.maxPasses = 64;
  options.rangesPerSession = pass.rangesPerSession * n; // each configuration's call as many as in the other modes
  std::string why = profiler.begin(ctx, options);
  std::vector<size_t> ends; // launches seen after each configuration's call of pass 0
  cudaError_t e = cudaSuccess;
  const char *stage = "";
  size_t failedConfig = 0;
  while (why.empty() && e == cudaSuccess && profiler.passNeeded()) {
    bool first = profiler.passesRun() == 0;
    if (!(why = profiler.beginPass()).empty())
      break;
    for (size_t c = 0; c < n; ++c) {
      failedConfig = c;
      stage = "preparing a counter pass";
      if ((e = prepareCall(pass, *devs[c], sets[c])))
        break;
      stage = "the profiled call failed";
      callEntry(fn, packed[c].pointers.data(), pass.stream);
      if ((e = cudaDeviceSynchronize()))
        break;
      if (first)
        ends.push_back(profiler.launchesSeen());
    }
    std::string endWhy = profiler.endPass(); // the pass is stopped even when a call failed
    if (e == cudaSuccess)
      why = endWhy;
  }
  std::string endWhy = profiler.end();
  if (e != cudaSuccess) {
    // The candidate's own failure (no fallback, as in the other modes). The session did not finish, so no
    // configuration has counters: one unavailable document, the first configuration's, naming where it failed.
    counters::CountersDocument doc = profiler.document(pass.task.name);
    doc.available = false;
    doc.reason = std::string(stage) + " (configuration " + pass.task.configs[failedConfig].name +
                 "): " + cudaErrorText(e);
    r.docs.push_back(std::move(doc));
    return r;
  }
  if (why.empty())
    why = endWhy;
  if (!why.empty()) {
    r.fallback = why;
    return r;
  }
  if (ends.size() != n || !profiler.launchesAccountedFor() || ends.back() != profiler.launchesSeen()) {
    r.fallback = "the session's ranges could not be told apart by configuration (" +
                 std::to_string(profiler.kernels().size()) + " profiled of " +
                 std::to_string(profiler.launchesSeen()) + " launches; the notes say why)";
    return r;
  }
  r.docs = counters::splitByLaunches(profiler.document(pass.task.name), ends);
  return r;
}
#endif

} // namespace

void collectCounters(const CounterPass &pass, const std::string &impl, EntryFn fn) {
  // One "counters" event; true when the document was available (the next configuration follows).
  auto emitDocument = [&](const std::string &cfg, Json doc, bool available) {
    schema::events::Counters counters;
    for (const auto &kv : doc.items())
      if (kv.key() != "schema" && kv.key() != "program")
        counters.document[kv.key()] = kv.value();
    counters.available = available;
    schema::WorkerEvent e = schema::WorkerEvent::make(std::move(counters));
    e.impl = impl;
    e.config = cfg;
    emit(std::move(e));
    return available;
  };
#ifdef CUDAPERF_HAVE_COUNTERS
  std::string jointFallback;
  if (pass.mode == runtime::CountersMode::Joint && !pass.task.configs.empty()) {
    phase(impl, pass.task.configs[0].name, "counters");
    JointResult joint = profileJoint(pass, fn);
    for (size_t c = 0; c < joint.docs.size() && c < pass.task.configs.size(); ++c) {
      counters::CountersDocument &doc = joint.docs[c];
      doc.countersMode = runtime::countersModeRecorded(pass.mode);
      if (!emitDocument(pass.task.configs[c].name, counters::countersToJson(doc), doc.available))
        return;
    }
    if (joint.fallback.empty())
      return;
    jointFallback = "joint session not used (" + joint.fallback + "): one shared set-up per configuration instead";
  }
  // --counters-mode shared (and joint's fallback): one user-replay profiler for the candidate, its set-up kept
  // from one configuration to the next (runtime::counterSessionPlan); released at the latest when it goes out
  // of scope.
  std::unique_ptr<counters::KernelProfiler> shared;
  if (pass.mode != runtime::CountersMode::PerConfig)
    shared = std::make_unique<counters::KernelProfiler>();
  for (size_t c = 0; c < pass.task.configs.size(); ++c) {
    const std::string &cfg = pass.task.configs[c].name;
    phase(impl, cfg, "counters");
    runtime::CounterSessionPlan plan = runtime::counterSessionPlan(pass.mode, c, pass.task.configs.size());
    counters::CountersDocument doc = profileConfig(pass, c, fn, shared.get(), plan.keepsSetUp);
    // What was done: joint's fallback is shared, and its documents say why.
    doc.countersMode =
        runtime::countersModeRecorded(jointFallback.empty() ? pass.mode : runtime::CountersMode::Shared);
    if (!jointFallback.empty())
      doc.notes.insert(doc.notes.begin(), jointFallback);
    if (!emitDocument(cfg, counters::countersToJson(doc), doc.available))
      return;
  }
#else
  (void)fn;
  if (!pass.task.configs.empty()) {
    phase(impl, pass.task.configs[0].name, "counters");
    Json why = Json::object();
    why["reason"] = "this cudaperf-eval-worker was built without CUPTI";
    emitDocument(pass.task.configs[0].name, std::move(why), false);
  }
#endif
}

} // namespace cudaperf::worker
