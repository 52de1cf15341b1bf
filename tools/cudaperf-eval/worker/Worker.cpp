#include "Worker.h"
#include "AllocationInterpose.h"
#include "CounterPass.h"
#include "DeviceInfo.h"
#include "Events.h"
#include "Interpose.h"

#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/Inputs.h"
#include "cudaperf/Runtime/TimingStats.h"

#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <thread>
#include <unistd.h>

namespace cudaperf::worker {

using namespace cudaperf::runtime;

namespace {

bool isStickyError(cudaError_t e) {
  switch (e) {
  case cudaErrorIllegalAddress:
  case cudaErrorLaunchFailure:
  case cudaErrorAssert:
  case cudaErrorIllegalInstruction:
  case cudaErrorMisalignedAddress:
  case cudaErrorInvalidAddressSpace:
  case cudaErrorInvalidPc:
  case cudaErrorHardwareStackError:
  case cudaErrorLaunchTimeout:
  case cudaErrorUnknown:
    return true;
  default:
    return false;
  }
}

std::string mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

Json memoryJson(const MemorySummary &m) {
  Json o = Json::object();
  o["device_bytes"] = m.deviceBytes;
  o["host_bytes"] = m.hostBytes;
  Json kinds = Json::object();
  for (const auto &[kind, bytes] : m.bytesByKind)
    kinds[memoryKindName(kind)] = bytes;
  o["bytes_by_kind"] = kinds;
  o["live_allocations"] = m.liveAllocations;
  o["allocations"] = m.allocations;
  o["frees"] = m.frees;
  o["failed_allocations"] = m.failedAllocations;
  o["failed_bytes"] = m.failedBytes;
  o["invalid_frees"] = m.invalidFrees;
  o["untracked_frees"] = m.untrackedFrees;
  o["refused_frees"] = m.refusedFrees;
  o["pool_reserved_bytes"] = m.poolReservedBytes;
  o["pools"] = m.pools;
  return o;
}

} // namespace

void emitVerdict(const std::string &impl, const Verdict &v) {
  Json o = event("verdict");
  o["impl"] = impl;
  o["outcome"] = outcomeName(v.outcome);
  if (!v.detail.empty())
    o["detail"] = v.detail;
  if (!v.config.empty())
    o["config"] = v.config;
  emit(std::move(o));
}

std::string Worker::setUp(bool &retryable) {
  retryable = false;
  WorkerAllocations own;
  if (cudaError_t e = cudaSetDevice(0)) {
    // From CUDA 12 cudaSetDevice creates the context itself: out of memory there is the device
    // being full for a moment (a previous candidate's worker still exiting with all of it, measured
    // on the H200 after allocate_all_memory), not a missing device.
    retryable = e == cudaErrorMemoryAllocation;
    return "no usable CUDA device: " + cudaErrorText(e);
  }
  if (cudaError_t e = cudaFree(nullptr)) {
    // Creating a context needs device memory: another process may have taken it all for a moment
    // (whatever the error says then), and nothing of the candidate has run yet.
    retryable = true;
    return "CUDA context creation failed: " + cudaErrorText(e);
  }
  cudaGetDeviceProperties(&prop_, 0);
  if (cudaError_t e = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking))
    return "cudaStreamCreate: " + cudaErrorText(e);
  if (cudaError_t e = flusher_.allocate(size_t(prop_.l2CacheSize), 10)) {
    retryable = e == cudaErrorMemoryAllocation;
    return "L2 flush buffer: " + cudaErrorText(e);
  }
  if (cudaError_t e = scratch_.init(stream_)) {
    retryable = e == cudaErrorMemoryAllocation;
    return "device scratch: " + cudaErrorText(e);
  }
  if (cudaError_t e = devicekernels::preloadKernels()) {
    retryable = e == cudaErrorMemoryAllocation;
    return "loading the evaluator's kernels: " + cudaErrorText(e);
  }
  return "";
}

void Worker::emitDevice() {
  Json o = deviceJson(prop_);
  o["index"] = opt_->deviceIndex;
  o["pid"] = getpid();
  emit(std::move(o));
}

void Worker::openSharedData() {
  if (opt_->deviceData.empty())
    setupError("no task data on the device (--device-data)");
  if (std::string err = shared_.open(opt_->deviceData, task_, stream_); !err.empty())
    setupError(err);
  Json mode = event("device_data");
  mode["mode"] = shared_.copied() ? "copy" : "ipc";
  if (shared_.copied()) {
    mode["copied_sets"] = shared_.copied();
    mode["reason"] = "CUDA IPC refused: " + shared_.ipcError();
  }
  emit(std::move(mode));
  const DeviceData &d = shared_.data();
  if (d.seed != opt_->seed || d.sets != opt_->sets)
    setupError(opt_->deviceData + ": made for another seed or number of sets");
  for (const Config &c : task_.configs) {
    const DeviceConfigData *dc = d.config(c.name);
    if (!dc || dc->sets.size() != size_t(opt_->sets))
      setupError(opt_->deviceData + ": no data for config " + c.name);
    for (size_t s = 0; s < dc->sets.size(); ++s) {
      Json o = event("reference");
      o["cached"] = dc->sets[s].expectedFromCache;
      o["config"] = c.name;
      o["set"] = s;
      o["seed"] = dc->sets[s].seed;
      o["ms"] = dc->sets[s].referenceMs;
      emit(std::move(o));
    }
  }
}

Worker::EntryFn Worker::load(const std::string &impl, const std::string &path, Verdict &v) {
  phase(impl, "", "load");
  void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    // Unresolved symbols surface here: a link problem of the candidate, not of the GPU.
    v.outcome = Outcome::CompileError;
    v.detail = std::string("loading the built object failed: ") + dlerror();
    return nullptr;
  }
  auto fn = reinterpret_cast<EntryFn>(dlsym(h, kEntryShimSymbol));
  if (!fn) {
    v.outcome = Outcome::CompileError;
    v.detail = std::string("built object has no ") + kEntryShimSymbol;
  }
  return fn;
}

Verdict Worker::fromCudaError(cudaError_t e, bool atLaunch, const std::string &config, const std::string &when) {
  Verdict v;
  v.config = config;
  if (isStickyError(e)) {
    v.outcome = Outcome::RuntimeFault;
    v.fatal = true;
  } else if (e == cudaErrorMemoryAllocation) {
    v.outcome = Outcome::RuntimeFault;
  } else {
    v.outcome = atLaunch ? Outcome::LaunchError : Outcome::RuntimeFault;
  }
  v.detail = cudaErrorText(e) + " (" + when + ", config " + config + ")";
  return v;
}

// The worker's own argument buffers; a device the candidate filled is the candidate's fault,
// one that other processes filled is waited for.
bool Worker::allocate(DeviceArgs &dev, const std::string &impl, const std::string &config, Verdict &v) {
  phase(impl, config, "allocate");
  double waited = 0;
  cudaError_t e = dev.allocate(opt_->memoryWaitSeconds, &waited);
  if (waited > 0) {
    Json o = event("memory_wait");
    o["impl"] = impl;
    o["config"] = config;
    o["seconds"] = waited;
    emit(std::move(o));
  }
  if (e == cudaSuccess)
    return true;
  MemorySummary held = candidateMemory();
  if (e == cudaErrorMemoryAllocation && held.deviceBytes <= memoryAtStart_.deviceBytes + (uint64_t(1) << 30))
    setupError("the device had no memory for the arguments of config " + config + " for " +
                   std::to_string(int(opt_->memoryWaitSeconds)) + " s (other processes hold it)",
               true);
  v = fromCudaError(e, false, config, "allocating arguments");
  v.detail += " (the candidate holds " + mib(held.deviceBytes) + ")";
  return false;
}

Verdict Worker::heldMemory(const std::string &config) {
  Verdict v;
  v.config = config;
  MemorySummary m = candidateMemory();
  uint64_t held = m.deviceBytes > memoryAtStart_.deviceBytes ? m.deviceBytes - memoryAtStart_.deviceBytes : 0;
  uint64_t pinned = m.hostBytes > memoryAtStart_.hostBytes ? m.hostBytes - memoryAtStart_.hostBytes : 0;
  peakHeldBytes_ = std::max(peakHeldBytes_, held);
  uint64_t limit = uint64_t(opt_->leakLimitMiB * 1024 * 1024);
  if (m.refusedFrees > memoryAtStart_.refusedFrees) {
    v.outcome = Outcome::RuntimeFault;
    v.detail = "the entry point tried to free the evaluator's own buffers (" +
               std::to_string(m.refusedFrees - memoryAtStart_.refusedFrees) + " times; config " + config + ")";
  } else if (held > limit) {
    v.outcome = Outcome::RuntimeFault;
    v.detail = "the entry point kept " + mib(held) + " of device memory allocated after returning (limit " +
               std::to_string(int64_t(opt_->leakLimitMiB)) + " MiB; config " + config + ")";
  } else if (pinned > limit) {
    v.outcome = Outcome::RuntimeFault;
    v.detail = "the entry point kept " + mib(pinned) + " of pinned host memory allocated after returning (limit " +
               std::to_string(int64_t(opt_->leakLimitMiB)) + " MiB; config " + config + ")";
  }
  return v;
}

void Worker::emitMemory(const std::string &impl) {
  MemorySummary m = candidateMemory();
  Json o = memoryJson(m);
  o["event"] = "memory";
  o["impl"] = impl;
  o["held_bytes"] = m.deviceBytes > memoryAtStart_.deviceBytes ? m.deviceBytes - memoryAtStart_.deviceBytes : 0;
  o["peak_held_bytes"] = peakHeldBytes_;
  emit(std::move(o));
}

Verdict Worker::callAndCheck(const std::string &impl, EntryFn fn, size_t c, DeviceArgs &dev, int set,
                             const char *what) {
  for (int attempt = 0;; ++attempt) {
    takeCandidateOutOfMemory();
    Verdict v = callAndCheckOnce(impl, fn, c, dev, set, what);
    uint64_t outOfMemory = takeCandidateOutOfMemory();
    if (v.fatal || outOfMemory == 0 || attempt >= opt_->outOfMemoryRetries)
      return v;
    // The candidate's own allocations found the device full: whatever the call's outcome, it is
    // not what the candidate does on a GPU of its own. Unless it is what holds the memory, that is
    // another process's doing: the same call again, a little later.
    if (heldMemory(task_.configs[c].name).outcome != Outcome::Ok)
      return v;
    double pause = std::min(4.0, 0.5 * (1 << attempt));
    Json o = event("retry");
    o["impl"] = impl;
    o["config"] = task_.configs[c].name;
    o["set"] = set;
    o["reason"] = "the candidate's allocations failed with out-of-memory " + std::to_string(outOfMemory) +
                  " times (" + v.detail + ")";
    o["pause_seconds"] = pause;
    emit(std::move(o));
    std::this_thread::sleep_for(std::chrono::duration<double>(pause));
  }
}

Verdict Worker::callAndCheckOnce(const std::string &impl, EntryFn fn, size_t c, DeviceArgs &dev, int setIndex,
                                 const char *what) {
  const std::string &cfg = task_.configs[c].name;
  SharedSet set = shared_.set(cfg, size_t(setIndex));
  if (cudaError_t e = dev.prepare(set, stream_))
    return fromCudaError(e, false, cfg, "preparing inputs");
  PackedArgs packed = dev.packed();
  phase(impl, cfg, what, setIndex);
  callEntry(fn, packed.pointers.data(), stream_);
  if (cudaError_t e = cudaGetLastError())
    return fromCudaError(e, true, cfg, std::string(what) + " call");
  if (cudaError_t e = cudaDeviceSynchronize())
    return fromCudaError(e, false, cfg, std::string(what) + " call");
  if (cudaError_t e = cudaGetLastError())
    return fromCudaError(e, true, cfg, std::string(what) + " call");
  Verdict v;
  v.config = cfg;
  cudaError_t err;
  std::string guard = dev.checkGuards(scratch_, err);
  if (err)
    return fromCudaError(err, false, cfg, "reading guards");
  if (!guard.empty()) {
    v.outcome = Outcome::RuntimeFault;
    v.detail = "out-of-bounds write: " + guard + " (config " + cfg + ")";
    return v;
  }
  std::string changed = dev.checkInputsUnchanged(set, scratch_, err);
  if (err)
    return fromCudaError(err, false, cfg, "reading inputs");
  Mismatch m = dev.compareOutputs(set, scratch_, err);
  if (err)
    return fromCudaError(err, false, cfg, "comparing outputs");

  Json o = event("check");
  o["impl"] = impl;
  o["config"] = cfg;
  o["set"] = setIndex;
  o["seed"] = set.meta->seed;
  o["step"] = what;
  o["pass"] = m.pass && changed.empty();
  if (!m.pass) {
    o["argument"] = m.argument;
    o["index"] = m.index;
    o["got"] = m.got;
    o["expected"] = m.expected;
    o["bad_elements"] = m.badElements;
    o["nan_elements"] = m.nanElements;
  }
  if (!changed.empty())
    o["input_modified"] = changed;
  emit(std::move(o));

  if (!changed.empty()) {
    v.outcome = Outcome::WrongAnswer;
    v.detail = changed + " (config " + cfg + ", seed " + std::to_string(set.meta->seed) + ")";
    return v;
  }
  if (!m.pass) {
    char buf[512];
    snprintf(buf, sizeof buf,
             "%s[%lld] = %.9g, expected %.9g; %lld of the outputs' elements wrong%s (config %s, seed %llu, %s)",
             m.argument.c_str(), (long long)m.index, m.got, m.expected, (long long)m.badElements,
             m.nanElements ? (", " + std::to_string(m.nanElements) + " NaN/unwritten").c_str() : "", cfg.c_str(),
             (unsigned long long)set.meta->seed, what);
    v.outcome = Outcome::WrongAnswer;
    v.detail = buf;
    return v;
  }
  return heldMemory(cfg);
}

Verdict Worker::checkCorrectness(const std::string &impl, EntryFn fn) {
  Verdict first;
  for (size_t c = 0; c < task_.configs.size(); ++c) {
    const std::string &cfg = task_.configs[c].name;
    DeviceArgs dev(task_, task_.configs[c]);
    Verdict v;
    if (!allocate(dev, impl, cfg, v))
      return v;
    // Calls in a row with fresh inputs in the same buffers: results cached from an earlier
    // call, or outputs left from it, fail here.
    for (int s = 0; s < opt_->sets; ++s) {
      v = callAndCheck(impl, fn, c, dev, s, "correctness");
      if (v.outcome != Outcome::Ok) {
        if (v.fatal || v.outcome != Outcome::WrongAnswer)
          return v;
        if (first.outcome == Outcome::Ok)
          first = v;
        break; // next configuration, for a complete picture of where it is wrong
      }
    }
  }
  return first;
}

Verdict Worker::measure(const std::string &impl, EntryFn fn) {
  for (size_t c = 0; c < task_.configs.size(); ++c) {
    const std::string &cfg = task_.configs[c].name;
    DeviceArgs dev(task_, task_.configs[c]);
    Verdict v;
    if (!allocate(dev, impl, cfg, v))
      return v;
    if (cudaError_t e = dev.prepare(shared_.set(cfg, 0), stream_))
      return fromCudaError(e, false, cfg, "preparing inputs");
    PackedArgs packed = dev.packed();

    phase(impl, cfg, "audit");
    AuditResult audit;
    if (cudaError_t e = auditCall(fn, packed.pointers.data(), stream_, audit))
      return fromCudaError(e, false, cfg, "audit call");
    Json a = event("audit");
    a["impl"] = impl;
    a["config"] = cfg;
    a["stream_span_ms"] = audit.streamSpanMs;
    a["host_return_ms"] = audit.hostReturnMs;
    a["drain_ms"] = audit.drainMs;
    a["kernels"] = audit.activity.kernels;
    if (impl == "candidate") { // sizes the counter pass's image (--counters-ranges auto)
      if (candidateAuditLaunches_.size() <= c)
        candidateAuditLaunches_.resize(c + 1, 0);
      candidateAuditLaunches_[c] = audit.activity.kernels;
    }
    a["kernels_default_stream"] = audit.activity.kernelsOnDefaultStream;
    a["kernels_other_streams"] = audit.activity.kernelsOnOtherStreams;
    a["pending_streams"] = audit.pendingStreams;
    a["host_copies"] = audit.activity.hostCopies;
    a["threads_left"] = audit.threadsLeft;
    a["attempts"] = audit.attempts;
    if (!audit.violation.empty())
      a["violation"] = audit.violation;
    Json launches = Json::array();
    for (const LaunchRecord &l : recordedLaunches())
      launches.push_back({{"kernel", l.kernel},
                          {"grid", {l.grid[0], l.grid[1], l.grid[2]}},
                          {"block", {l.block[0], l.block[1], l.block[2]}},
                          {"dynamic_smem_bytes", l.dynamicSmemBytes},
                          {"stream", l.stream}});
    a["launches"] = std::move(launches);
    a["launches_truncated"] = recordedLaunchesTruncated();
    emit(std::move(a));
    if (!audit.violation.empty()) {
      v.outcome = Outcome::TimingViolation;
      v.config = cfg;
      v.detail = audit.violation + " (config " + cfg + ")";
      return v;
    }

    phase(impl, cfg, "timing");
    TimingStats st;
    if (cudaError_t e = timeEntry(fn, packed.pointers.data(), stream_, flusher_, opt_->timingOptions, st))
      return fromCudaError(e, true, cfg, "timed calls");
    Json t = timingJson(st);
    t["event"] = "timing";
    t["impl"] = impl;
    t["config"] = cfg;
    t["stable"] = st.stable;
    emit(std::move(t));

    // Once more after the timed calls, with outputs poisoned again: what was timed must still
    // compute the answer.
    v = callAndCheck(impl, fn, c, dev, 0, "after-timing");
    if (v.outcome != Outcome::Ok)
      return v;
  }
  return Verdict();
}

Verdict Worker::evaluate(const std::string &impl, EntryFn fn) {
  memoryAtStart_ = candidateMemory();
  peakHeldBytes_ = 0;
  Verdict v = checkCorrectness(impl, fn);
  if (v.outcome == Outcome::Ok && opt_->timing)
    v = measure(impl, fn);
  if (!v.fatal)
    emitMemory(impl);
  return v;
}

// The baseline's timing from an earlier worker of the same evaluator (same task, device and
// options): its lines again, marked as cached. False if the file is unusable.
bool Worker::emitCachedBaseline() {
  std::ifstream in(opt_->baselineTiming);
  std::string line;
  std::vector<Json> lines;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    try {
      Json e = support::parseJson(line);
      if (!e.is_object() || e.value("impl", "") != "baseline" || e.value("event", "") != "timing")
        return false;
      lines.push_back(std::move(e));
    } catch (const std::exception &) {
      return false;
    }
  }
  if (lines.size() != task_.configs.size())
    return false;
  for (Json &e : lines) {
    e["cached"] = true;
    emit(std::move(e));
  }
  return true;
}

std::string Worker::verifySharedData(const std::string &after) {
  cudaError_t err;
  std::string damage = shared_.verify(scratch_, err);
  Json o = event("shared_data");
  o["after"] = after;
  o["intact"] = err == cudaSuccess && damage.empty();
  if (err)
    o["detail"] = "could not be verified: " + cudaErrorText(err);
  else if (!damage.empty())
    o["detail"] = damage;
  emit(std::move(o));
  return err ? "" : damage;
}

void Worker::run(const WorkerOptions &options) {
  opt_ = &options;
  try {
    task_ = loadTask(options.taskDir);
    selectConfigs(task_, options.configs);
  } catch (const std::exception &e) {
    setupError(e.what());
  }
  Json start = event("start");
  start["pool"] = options.pool;
  if (options.contextSeconds >= 0)
    start["context_seconds"] = options.contextSeconds;
  if (options.contextWaitSeconds >= 0)
    start["context_wait_seconds"] = options.contextWaitSeconds;
  emit(std::move(start));
  emitDevice();
  openSharedData();

  Verdict bv;
  if (options.baselineSo.empty()) {
    // No impls/baseline.cu (a pytorch-to-cuda task measured against PyTorch eager): no baseline verdict.
  } else if (!options.baselineTiming.empty() && emitCachedBaseline()) {
    emitVerdict("baseline", bv);
  } else {
    EntryFn baseline = load("baseline", options.baselineSo, bv);
    if (baseline)
      bv = evaluate("baseline", baseline);
    if (bv.outcome == Outcome::Ok && !verifySharedData("baseline").empty()) {
      bv.outcome = Outcome::RuntimeFault;
      bv.detail = "the baseline changed the evaluator's shared data";
    }
    emitVerdict("baseline", bv);
  }
  if (bv.outcome != Outcome::Ok || options.candidateSo.empty())
    finish(0);

  Verdict cv;
  EntryFn candidate = load("candidate", options.candidateSo, cv);
  if (candidate)
    cv = evaluate("candidate", candidate);
  if (!cv.fatal)
    if (std::string damage = verifySharedData("candidate"); !damage.empty()) {
      cv.outcome = Outcome::RuntimeFault;
      cv.detail = "wrote outside its buffers, into the evaluator's shared task data: " + damage;
    }
  emitVerdict("candidate", cv);
  if (options.counters && cv.outcome == Outcome::Ok) {
    WorkerAllocations own; // the profiler's memory is not the candidate's
    CounterPass pass{task_, shared_, stream_, flusher_, options.memoryWaitSeconds, options.countersMode};
    pass.rangesPerSession = runtime::counterRanges(options.countersRanges, candidateAuditLaunches_);
    collectCounters(pass, "candidate", candidate);
  }
  finish(0);
}

} // namespace cudaperf::worker
