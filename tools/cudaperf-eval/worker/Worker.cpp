#include "Worker.h"
#include "AllocationInterpose.h"
#include "CounterPass.h"
#include "DeviceInfo.h"
#include "Events.h"
#include "Interpose.h"

#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/Inputs.h"
#include "cudaperf/Runtime/TimingStats.h"
#include "cudaperf/Runtime/WallClock.h"

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

// A failed comparison's worst element, in a "check" event.
void addMismatch(Json &o, const Mismatch &m) {
  if (m.pass)
    return;
  o["argument"] = m.argument;
  o["index"] = m.index;
  o["got"] = m.got;
  o["expected"] = m.expected;
  o["bad_elements"] = m.badElements;
  o["nan_elements"] = m.nanElements;
}

// An event with its routing fields.
template <class Body>
schema::WorkerEvent routedEvent(Body body, std::optional<std::string> impl,
                                std::optional<std::string> config = std::nullopt) {
  schema::WorkerEvent e = schema::WorkerEvent::make(std::move(body));
  e.impl = std::move(impl);
  e.config = std::move(config);
  return e;
}

} // namespace

Isolation parseIsolation(const std::string &s) {
  if (s == "runner")
    return Isolation::Runner;
  if (s == "runner-unconfined")
    return Isolation::RunnerUnconfined;
  if (s == "none")
    return Isolation::None;
  throw support::SupportError("--isolation: expected runner, runner-unconfined or none, not '" + s + "'");
}

const char *isolationName(Isolation i) {
  switch (i) {
  case Isolation::Runner:
    return "runner";
  case Isolation::RunnerUnconfined:
    return "runner-unconfined";
  case Isolation::None:
    return "none";
  }
  return "?";
}

void emitVerdict(const std::string &impl, const Verdict &v) {
  schema::events::Verdict verdict;
  verdict.outcome = outcomeName(v.outcome);
  if (!v.detail.empty())
    verdict.detail = v.detail;
  emit(routedEvent(std::move(verdict), impl, v.config.empty() ? std::nullopt : std::optional(v.config)));
}

std::string Worker::setUp(const WorkerOptions &early, bool &retryable) {
  retryable = false;
  secret_.seed((uint64_t(std::random_device()()) << 32) ^ std::random_device()() ^
               uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()));
  // The candidate's process starts first, so its sandbox and CUDA context are set up while this
  // one's are and while the baseline runs.
  if (early.isolation != Isolation::None) {
    runner_ = std::make_unique<RunnerCallee>();
    RunnerOptions ro;
    ro.sandbox = early.isolation == Isolation::Runner;
    ro.allowWeakSandbox = early.allowWeakSandbox;
    ro.cpuSeconds = early.timeoutSeconds;
    runnerStartError_ = runner_->start(ro);
  }
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
  schema::events::Device device;
  device.properties = deviceJson(prop_);
  device.index = opt_->deviceIndex;
  device.pid = getpid();
  emit(schema::WorkerEvent::make(std::move(device)));
}

void Worker::openSharedData() {
  if (opt_->deviceData.empty())
    setupError("no task data on the device (--device-data)");
  if (std::string err = shared_.open(opt_->deviceData, task_, stream_); !err.empty())
    setupError(err);
  schema::events::DeviceData mode;
  mode.mode = shared_.copied() ? "copy" : "ipc";
  if (shared_.copied()) {
    mode.copiedSets = int64_t(shared_.copied());
    mode.reason = "CUDA IPC refused: " + shared_.ipcError();
  }
  emit(schema::WorkerEvent::make(std::move(mode)));
  const DeviceData &d = shared_.data();
  if (d.seed != opt_->seed || d.sets != opt_->sets)
    setupError(opt_->deviceData + ": made for another seed or number of sets");
  for (const Config &c : task_.configs) {
    const DeviceConfigData *dc = d.config(c.name);
    if (!dc || dc->sets.size() != size_t(opt_->sets))
      setupError(opt_->deviceData + ": no data for config " + c.name);
    for (size_t s = 0; s < dc->sets.size(); ++s) {
      schema::events::Reference ref;
      ref.cached = dc->sets[s].expectedFromCache;
      ref.set = int64_t(s);
      ref.seed = dc->sets[s].seed;
      ref.ms = dc->sets[s].referenceMs;
      emit(routedEvent(std::move(ref), std::nullopt, c.name));
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
    emit(routedEvent(schema::events::MemoryWait{waited}, impl, config));
  }
  if (e == cudaSuccess)
    return true;
  MemorySummary held = current_ ? current_->memory() : candidateMemory();
  if (e == cudaErrorMemoryAllocation && held.deviceBytes <= memoryAtStart_.deviceBytes + (uint64_t(1) << 30))
    setupError("the device had no memory for the arguments of config " + config + " for " +
                   std::to_string(int(opt_->memoryWaitSeconds)) + " s (other processes hold it)",
               true);
  v = fromCudaError(e, false, config, "allocating arguments");
  v.detail += " (the candidate holds " + mib(held.deviceBytes) + ")";
  return false;
}

Verdict Worker::heldMemory(const std::string &config, const MemorySummary &m) {
  Verdict v;
  v.config = config;
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

void Worker::emitMemory(const std::string &impl, const MemorySummary &m) {
  schema::events::Memory memory;
  memory.summary = memorySummaryJson(m);
  memory.heldBytes = m.deviceBytes > memoryAtStart_.deviceBytes ? m.deviceBytes - memoryAtStart_.deviceBytes : 0;
  memory.peakHeldBytes = peakHeldBytes_;
  emit(routedEvent(std::move(memory), impl));
}

// The runner could not map a set of arguments: its CUDA context is the candidate's (a sticky
// error its code left, memory it took), so that is the candidate's failure, not the evaluator's.
Verdict Worker::bindFailure(const std::string &config, const std::string &error) {
  Verdict v;
  v.config = config;
  v.outcome = runner_ && runner_->lost() ? runner_->lostOutcome() : Outcome::RuntimeFault;
  v.detail = "the candidate's process could not take the arguments of config " + config + " (" + error +
             "): its CUDA context is no longer usable";
  v.fatal = true;
  return v;
}

// A call's failure as a verdict: the runner gone (its sandbox killed it, it crashed or exited),
// a rejected launch, or an error of the synchronize after it.
Verdict Worker::fromCall(const CallResult &r, const std::string &config, const std::string &when) {
  if (r.lost != Outcome::Ok) {
    Verdict v;
    v.outcome = r.lost;
    v.config = config;
    v.detail = r.lostDetail + " (" + when + ", config " + config + ")";
    v.fatal = true;
    return v;
  }
  if (r.launchError)
    return fromCudaError(r.launchError, true, config, when);
  return fromCudaError(r.error, false, config, when);
}

Verdict Worker::callAndCheck(const std::string &impl, Callee &callee, size_t c, DeviceArgs &dev, int slot, int set,
                             const char *what) {
  for (int attempt = 0;; ++attempt) {
    Verdict v = callAndCheckOnce(impl, callee, c, dev, slot, set, what);
    uint64_t outOfMemory = lastOutOfMemory_;
    if (v.fatal || outOfMemory == 0 || attempt >= opt_->outOfMemoryRetries)
      return v;
    // The candidate's own allocations found the device full: whatever the call's outcome, it is
    // not what the candidate does on a GPU of its own. Unless it is what holds the memory, that is
    // another process's doing: the same call again, a little later.
    if (heldMemory(task_.configs[c].name, lastMemory_).outcome != Outcome::Ok)
      return v;
    double pause = std::min(4.0, 0.5 * (1 << attempt));
    schema::events::Retry retry;
    retry.set = set;
    retry.reason = "the candidate's allocations failed with out-of-memory " + std::to_string(outOfMemory) +
                   " times (" + v.detail + ")";
    retry.pauseSeconds = pause;
    emit(routedEvent(std::move(retry), impl, task_.configs[c].name));
    std::this_thread::sleep_for(std::chrono::duration<double>(pause));
  }
}

Verdict Worker::callAndCheckOnce(const std::string &impl, Callee &callee, size_t c, DeviceArgs &dev, int slot,
                                 int setIndex, const char *what) {
  const std::string &cfg = task_.configs[c].name;
  lastOutOfMemory_ = 0;
  SharedSet set = shared_.set(cfg, size_t(setIndex));
  if (cudaError_t e = dev.prepare(set, stream_))
    return fromCudaError(e, false, cfg, "preparing inputs");
  phase(impl, cfg, what, setIndex);
  CallResult r = callee.check(slot);
  lastOutOfMemory_ = r.outOfMemory;
  lastMemory_ = r.memory;
  if (!r.ok())
    return fromCall(r, cfg, std::string(what) + " call");
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

  schema::events::Check check;
  check.set = setIndex;
  check.seed = set.meta->seed;
  check.step = what;
  check.pass = m.pass && changed.empty();
  addMismatch(check.mismatch, m);
  if (!changed.empty())
    check.mismatch["input_modified"] = changed;
  emit(routedEvent(std::move(check), impl, cfg));

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
  return heldMemory(cfg, r.memory);
}

Verdict Worker::checkCorrectness(const std::string &impl, Callee &callee) {
  Verdict first;
  for (size_t c = 0; c < task_.configs.size(); ++c) {
    const std::string &cfg = task_.configs[c].name;
    DeviceArgs dev(task_, task_.configs[c]);
    Verdict v;
    if (!allocate(dev, impl, cfg, v))
      return v;
    std::string bindError;
    int slot = callee.bind(dev, bindError);
    if (slot < 0)
      return bindFailure(cfg, bindError);
    // Calls in a row with fresh inputs in the same buffers: results cached from an earlier
    // call, or outputs left from it, fail here.
    for (int s = 0; s < opt_->sets; ++s) {
      v = callAndCheck(impl, callee, c, dev, slot, s, "correctness");
      if (v.outcome != Outcome::Ok) {
        if (v.fatal || v.outcome != Outcome::WrongAnswer)
          return v;
        if (first.outcome == Outcome::Ok)
          first = v;
        break; // next configuration, for a complete picture of where it is wrong
      }
    }
    callee.unbind(slot);
  }
  return first;
}

Verdict Worker::audit(const std::string &impl, Callee &callee, size_t c, DeviceArgs &dev, int slot) {
  const std::string &cfg = task_.configs[c].name;
  if (cudaError_t e = dev.prepare(shared_.set(cfg, 0), stream_))
    return fromCudaError(e, false, cfg, "preparing inputs");
  phase(impl, cfg, "audit");
  AuditReport report;
  CallResult r = callee.audit(slot, report);
  if (!r.ok())
    return fromCall(r, cfg, "audit call");
  const AuditResult &audit = report.audit;
  schema::events::Audit auditEvent;
  Json &a = auditEvent.figures;
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
  for (const LaunchRecord &l : report.launches)
    launches.push_back({{"kernel", l.kernel},
                        {"grid", {l.grid[0], l.grid[1], l.grid[2]}},
                        {"block", {l.block[0], l.block[1], l.block[2]}},
                        {"dynamic_smem_bytes", l.dynamicSmemBytes},
                        {"stream", l.stream}});
  a["launches"] = std::move(launches);
  a["launches_truncated"] = report.launchesTruncated;
  emit(routedEvent(std::move(auditEvent), impl, cfg));
  Verdict v;
  if (!audit.violation.empty()) {
    v.outcome = Outcome::TimingViolation;
    v.config = cfg;
    v.detail = audit.violation + " (config " + cfg + ")";
  }
  return v;
}

// A timed call's outputs against the task's baseline run here on the same fresh inputs (the
// baseline was found correct against the reference; twice the tolerance covers both errors).
Verdict Worker::checkTimedCall(const std::string &impl, size_t c, const DeviceArgs &dev, uint64_t seed,
                               const char *what) {
  const std::string &cfg = task_.configs[c].name;
  Verdict v;
  v.config = cfg;
  cudaError_t err;
  // Read at once: work the candidate left running past its answer has not written its outputs yet.
  std::string guard = dev.checkGuards(scratch_, err);
  if (err)
    return fromCudaError(err, false, cfg, "reading guards");
  Stopwatch clock;
  if (!oracle_ || oracleConfig_ != c) {
    oracle_.reset();
    oracle_ = std::make_unique<DeviceArgs>(task_, task_.configs[c]);
    oracleConfig_ = c;
    if (!allocate(*oracle_, "evaluator", cfg, v)) {
      oracle_.reset();
      return v;
    }
    // Back to the step that asked, so that phase_seconds does not count what follows as allocation.
    phase(impl, cfg, std::string(what) == "timed-call" ? "timing" : "wall-clock check");
    loop_.oracleAllocate += clock.lap();
  }
  DeviceArgs &oracle = *oracle_;
  InProcessCallee baseline(baselineFn_, stream_, flusher_);
  std::string unused;
  int slot = baseline.bind(oracle, unused);
  if (cudaError_t e = oracle.fill(seed, stream_))
    return fromCudaError(e, false, cfg, "preparing the baseline's inputs");
  if (cudaError_t e = cudaStreamSynchronize(stream_))
    return fromCudaError(e, false, cfg, "preparing the baseline's inputs");
  loop_.oracleFill += clock.lap();
  CallResult r;
  {
    WorkerAllocations own; // the baseline's memory here is not the candidate's
    r = baseline.check(slot);
  }
  loop_.baseline += clock.lap();
  if (!r.ok())
    setupError("the baseline failed on a timed call's inputs (config " + cfg + "): " + cudaErrorText(r.error));
  std::string changed = guard.empty() ? dev.checkInputsMatch(oracle, scratch_, err) : "";
  Mismatch m;
  if (!err && guard.empty() && changed.empty())
    m = dev.compareOutputsWith(oracle, 2.0, scratch_, err);
  loop_.compare += clock.lap();
  if (err)
    return fromCudaError(err, false, cfg, "checking a timed call");
  schema::events::Check check;
  check.seed = seed;
  check.step = what;
  check.pass = guard.empty() && changed.empty() && m.pass;
  addMismatch(check.mismatch, m);
  emit(routedEvent(std::move(check), impl, cfg));
  if (!guard.empty()) {
    v.outcome = Outcome::RuntimeFault;
    v.detail = "out-of-bounds write: " + guard + " (config " + cfg + ", " + what + ")";
  } else if (!changed.empty()) {
    v.outcome = Outcome::WrongAnswer;
    v.detail = changed + " (config " + cfg + ", " + what + ")";
  } else if (!m.pass) {
    char buf[512];
    snprintf(buf, sizeof buf,
             "%s[%lld] = %.9g where the baseline computes %.9g on the same inputs; %lld elements differ%s (config %s, "
             "%s: the answer of a timed call, on inputs no earlier call saw)",
             m.argument.c_str(), (long long)m.index, m.got, m.expected, (long long)m.badElements,
             m.nanElements ? (", " + std::to_string(m.nanElements) + " NaN/unwritten").c_str() : "", cfg.c_str(), what);
    v.outcome = Outcome::WrongAnswer;
    v.detail = buf;
  }
  return v;
}

// Every timed call gets inputs drawn afresh with a seed nobody has seen (or, for a task without a
// baseline to check them against, one of the holder's sets) and poisoned outputs, prepared here
// outside the timed interval; a random share of them has its answer checked.
Verdict Worker::timeCalls(const std::string &impl, Callee &callee, size_t c, DeviceArgs &dev, int slot,
                          bool candidate, TimingStats &stats, Json &check) {
  const std::string &cfg = task_.configs[c].name;
  const TimingOptions &o = opt_->timingOptions;
  bool fresh = baselineFn_ != nullptr;
  std::bernoulli_distribution checked(std::clamp(opt_->checkedShare, 0.0, 1.0));
  int setIndex = 0;
  auto prepare = [&](uint64_t &seed) {
    if (fresh) {
      seed = freshSeed();
      cudaError_t e = dev.fill(seed, stream_);
      return e ? e : cudaStreamSynchronize(stream_);
    }
    setIndex = int(secret_() % uint64_t(opt_->sets));
    return dev.prepare(shared_.set(cfg, size_t(setIndex)), stream_);
  };
  // Fresh inputs, then one timed call, each counted in loop_.
  loop_ = LoopCost();
  auto prepareAndCall = [&](uint64_t &seed, CallResult &r) -> cudaError_t {
    Stopwatch clock;
    cudaError_t e = prepare(seed);
    loop_.prepare += clock.lap();
    if (e)
      return e;
    r = callee.timed(slot);
    loop_.calls += clock.lap();
    return cudaSuccess;
  };
  // Checks one timed call's answer (its buffers still hold it).
  int checks = 0;
  auto checkAnswer = [&](uint64_t seed) -> Verdict {
    if (fresh)
      return checkTimedCall(impl, c, dev, seed, "timed-call");
    cudaError_t err;
    SharedSet set = shared_.set(cfg, size_t(setIndex));
    Mismatch m = dev.compareOutputs(set, scratch_, err);
    Verdict v;
    v.config = cfg;
    if (err)
      return fromCudaError(err, false, cfg, "checking a timed call");
    if (!m.pass) {
      v.outcome = Outcome::WrongAnswer;
      v.detail = "a timed call's answer is wrong: " + m.argument + "[" + std::to_string(m.index) + "] (config " + cfg +
                 ", set " + std::to_string(setIndex) + ")";
    }
    return v;
  };
  auto verify = [&](uint64_t seed) {
    ++checks;
    Stopwatch clock;
    Verdict v = checkAnswer(seed);
    loop_.checks += clock.lap();
    return v;
  };

  for (int i = 0; i < o.warmup; ++i) {
    uint64_t seed = 0;
    if (cudaError_t e = prepare(seed))
      return fromCudaError(e, false, cfg, "preparing inputs");
    CallResult r = callee.timed(slot);
    if (!r.ok())
      return fromCall(r, cfg, "warm-up call");
  }
  std::vector<double> samples, walls, hosts;
  double lastMedian = -1;
  auto began = std::chrono::steady_clock::now();
  while (int(samples.size()) < o.maxRuns) {
    uint64_t seed = 0;
    CallResult r;
    if (cudaError_t e = prepareAndCall(seed, r))
      return fromCudaError(e, false, cfg, "preparing inputs");
    if (!r.ok())
      return fromCall(r, cfg, "timed calls");
    samples.push_back(r.eventMs);
    walls.push_back(r.wallMs);
    hosts.push_back(r.hostMs);
    if (candidate && checked(secret_))
      if (Verdict v = verify(seed); v.outcome != Outcome::Ok)
        return v;
    if (int(samples.size()) < o.minRuns || samples.size() % 10 != 0)
      continue;
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    double median = runtime::percentile(sorted, 0.5);
    if (lastMedian > 0 && std::fabs(median - lastMedian) <= 0.005 * lastMedian) {
      stats.stable = true;
      break;
    }
    lastMedian = median;
    if (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count() >= o.budgetMs)
      break;
  }
  // At least a few checked answers per configuration, whatever the draw gave.
  while (candidate && checks < kMinCheckedTimedCalls) {
    uint64_t seed = 0;
    CallResult r;
    if (cudaError_t e = prepareAndCall(seed, r))
      return fromCudaError(e, false, cfg, "preparing inputs");
    if (!r.ok())
      return fromCall(r, cfg, "timed calls");
    if (Verdict v = verify(seed); v.outcome != Outcome::Ok)
      return v;
  }
  bool stable = stats.stable;
  stats = runtime::summarizeTimes(samples);
  stats.stable = stable;
  std::sort(walls.begin(), walls.end());
  check["fresh_inputs"] = fresh;
  check["checked_calls"] = checks;
  check["request_wall_median_ms"] = walls.empty() ? 0.0 : runtime::percentile(walls, 0.5);
  // The callee's own clock while the entry issued its work (the runner's figure is its claim:
  // diagnostics only, never a verdict).
  std::sort(hosts.begin(), hosts.end());
  check["issue_host_median_ms"] = hosts.empty() ? 0.0 : runtime::percentile(hosts, 0.5);
  check["loop_seconds"] = Json{{"prepare", loop_.prepare},           {"calls", loop_.calls},
                               {"checks", loop_.checks},             {"oracle_allocate", loop_.oracleAllocate},
                               {"oracle_fill", loop_.oracleFill},    {"baseline", loop_.baseline},
                               {"compare", loop_.compare}};
  return Verdict();
}

// The runner's event figures are its own claim. K calls in a row, each on its own buffers with
// fresh inputs (together at least twice L2, so each call's data is cold as in a timed call), are
// timed on this process's clock from the request to the answer; every answer is then checked, the
// last ones first (an answer sent before the work was done leaves them unwritten). The event median
// may not be much smaller than what the calls took each.
Verdict Worker::wallClockCheck(const std::string &impl, Callee &callee, size_t c, DeviceArgs &dev, int devSlot,
                               double eventMedianMs, Json &check) {
  const std::string &cfg = task_.configs[c].name;
  Verdict v;
  v.config = cfg;
  if (!baselineFn_) {
    check["wall_clock"] = "skipped: the task has no baseline to check the batch's answers against";
    return v;
  }
  uint64_t bytes = 0;
  std::vector<int64_t> counts = task_.counts(task_.configs[c]);
  for (size_t i = 0; i < task_.args.size(); ++i)
    if (task_.args[i].isPointer())
      bytes += uint64_t(counts[i]) * runtime::dtypeSize(task_.args[i].dtype) + 2 * DeviceArgs::kGuardBytes + 256;
  uint64_t budget = std::min<uint64_t>(uint64_t(2) << 30, uint64_t(prop_.totalGlobalMem) / 10);
  int byCache = int((2 * uint64_t(prop_.l2CacheSize) + bytes - 1) / std::max<uint64_t>(bytes, 1));
  int byTime = eventMedianMs > 0 ? int(std::ceil(2.0 / eventMedianMs)) : 64; // about 2 ms of work
  int k = std::clamp(std::max(byCache, byTime), 2, 128);
  k = int(std::min<uint64_t>(uint64_t(k), budget / std::max<uint64_t>(bytes, 1)));
  phase(impl, cfg, "wall-clock check");
  std::vector<std::unique_ptr<DeviceArgs>> sets;
  std::vector<DeviceArgs *> views;
  std::vector<int> slots;
  std::vector<uint64_t> seeds;
  if (k < 2) {
    // Sets too large for two more in the budget: one call on the timed buffers (a call this large
    // takes far longer than the request's round trip).
    k = 1;
    views.push_back(&dev);
    slots.push_back(devSlot);
    seeds.push_back(freshSeed());
    if (cudaError_t e = dev.fill(seeds.back(), stream_))
      return fromCudaError(e, false, cfg, "preparing inputs");
  }
  for (int i = 0; k > 1 && i < k; ++i) {
    sets.push_back(std::make_unique<DeviceArgs>(task_, task_.configs[c]));
    if (!allocate(*sets.back(), "evaluator", cfg, v))
      return v;
    views.push_back(sets.back().get());
    std::string error;
    int slot = callee.bind(*sets.back(), error);
    if (slot < 0)
      return bindFailure(cfg, error);
    slots.push_back(slot);
    seeds.push_back(freshSeed());
    if (cudaError_t e = sets.back()->fill(seeds.back(), stream_))
      return fromCudaError(e, false, cfg, "preparing inputs");
  }
  std::vector<double> noops;
  for (int i = 0; i < 3; ++i) {
    CallResult n = callee.batch({});
    if (!n.ok())
      return fromCall(n, cfg, "wall-clock check");
    noops.push_back(n.wallMs);
  }
  std::sort(noops.begin(), noops.end());
  // Three batches, the fastest counting (a host thread descheduled once must not look like a
  // forged figure); inputs are fresh for the first, and only its answers are checked: the later
  // ones recompute the same answers, which is all the clock needs.
  double best = -1;
  for (int round = 0; round < 3; ++round) {
    if (cudaError_t e = flusher_.flush(stream_))
      return fromCudaError(e, false, cfg, "flushing L2");
    if (cudaError_t e = cudaStreamSynchronize(stream_))
      return fromCudaError(e, false, cfg, "flushing L2");
    CallResult r = callee.batch(slots);
    if (!r.ok())
      return fromCall(r, cfg, "wall-clock check");
    if (round == 0)
      for (int i = k - 1; i >= 0; --i)
        if (Verdict cv = checkTimedCall(impl, c, *views[size_t(i)], seeds[size_t(i)], "wall-clock-batch");
            cv.outcome != Outcome::Ok)
          return cv;
    best = best < 0 ? r.wallMs : std::min(best, r.wallMs);
  }
  for (size_t i = 0; i < sets.size(); ++i)
    callee.unbind(slots[i]);
  double perCall = std::max(0.0, best - noops[1]) / k;
  int launches = c < candidateAuditLaunches_.size() ? candidateAuditLaunches_[c] : 1;
  Json w = Json::object();
  w["calls"] = k;
  w["batch_wall_ms"] = best;
  w["noop_wall_ms"] = noops[1];
  w["wall_ms_per_call"] = perCall;
  w["event_median_ms"] = eventMedianMs;
  w["launches"] = launches;
  check["wall_clock"] = w;
  if (std::string why = runtime::wallClockViolation(eventMedianMs, perCall, launches); !why.empty()) {
    v.outcome = Outcome::TimingViolation;
    v.detail = why + " (config " + cfg + ", " + std::to_string(k) + " calls in a row)";
  }
  return v;
}

Verdict Worker::measure(const std::string &impl, Callee &callee, bool candidate) {
  for (size_t c = 0; c < task_.configs.size(); ++c) {
    const std::string &cfg = task_.configs[c].name;
    DeviceArgs dev(task_, task_.configs[c]);
    Verdict v;
    if (!allocate(dev, impl, cfg, v))
      return v;
    std::string bindError;
    int slot = callee.bind(dev, bindError);
    if (slot < 0)
      return bindFailure(cfg, bindError);
    if (v = audit(impl, callee, c, dev, slot); v.outcome != Outcome::Ok)
      return v;

    phase(impl, cfg, "timing");
    TimingStats st;
    Json check = Json::object();
    if (v = timeCalls(impl, callee, c, dev, slot, candidate, st, check); v.outcome != Outcome::Ok)
      return v;
    // The wall-clock check's figures go into the timing event whatever it decides.
    Verdict wall;
    if (candidate && runner_ && &callee == runner_.get())
      wall = wallClockCheck(impl, callee, c, dev, slot, st.medianMs, check);
    schema::events::Timing timing;
    timing.figures = timingJson(st);
    timing.stable = st.stable;
    timing.integrity = check;
    emit(routedEvent(std::move(timing), impl, cfg));
    if (wall.outcome != Outcome::Ok)
      return wall;

    // Once more after the timed calls, with outputs poisoned again: what was timed must still
    // compute the answer.
    v = callAndCheck(impl, callee, c, dev, slot, 0, "after-timing");
    callee.unbind(slot);
    if (v.outcome != Outcome::Ok)
      return v;
  }
  return Verdict();
}

Verdict Worker::evaluate(const std::string &impl, Callee &callee, bool candidate) {
  current_ = &callee;
  memoryAtStart_ = callee.memory();
  peakHeldBytes_ = 0;
  Verdict v = checkCorrectness(impl, callee);
  if (v.outcome == Outcome::Ok && opt_->timing)
    v = measure(impl, callee, candidate);
  if (!v.fatal)
    emitMemory(impl, callee.memory());
  current_ = nullptr;
  return v;
}

// The baseline's timing from an earlier worker of the same evaluator (same task, device and
// options): its lines again, marked as cached. False if the file is unusable.
bool Worker::emitCachedBaseline() {
  std::ifstream in(opt_->baselineTiming);
  std::string line;
  std::vector<schema::WorkerEvent> lines;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    try {
      schema::WorkerEvent e = schema::workerEventFromJson(support::parseJson(line), opt_->baselineTiming);
      if (e.impl != "baseline" || !e.is<schema::events::Timing>())
        return false;
      lines.push_back(std::move(e));
    } catch (const std::exception &) {
      return false;
    }
  }
  if (lines.size() != task_.configs.size())
    return false;
  for (schema::WorkerEvent &e : lines) {
    std::get<schema::events::Timing>(e.body).cached = true;
    emit(std::move(e));
  }
  return true;
}

std::string Worker::verifySharedData(const std::string &after) {
  cudaError_t err;
  std::string damage = shared_.verify(scratch_, err);
  schema::events::SharedData shared;
  shared.after = after;
  shared.intact = err == cudaSuccess && damage.empty();
  if (err)
    shared.detail = "could not be verified: " + cudaErrorText(err);
  else if (!damage.empty())
    shared.detail = damage;
  emit(schema::WorkerEvent::make(std::move(shared)));
  return err ? "" : damage;
}

RunnerCallee *Worker::candidateRunner(const std::string &soPath, Verdict &v) {
  schema::events::Sandbox s;
  s.isolation = isolationName(opt_->isolation);
  if (!runnerStartError_.empty())
    setupError("the candidate's runner could not be started: " + runnerStartError_);
  phase("candidate", "", "runner");
  bool retryable = false;
  std::string err = runner_->ready(retryable);
  s.runner = runner_->sandboxJson();
  s.pid = runner_->pid();
  emit(schema::WorkerEvent::make(std::move(s)));
  if (!err.empty())
    setupError(err, retryable);
  const std::optional<schema::runner::SandboxReport> &sandbox = runner_->sandboxReport();
  if (opt_->isolation == Isolation::Runner && !(sandbox && sandbox->complete.value_or(false)) &&
      !opt_->allowWeakSandbox)
    setupError("the candidate's sandbox is incomplete on this machine (" +
               support::writeJson(sandbox && sandbox->missing ? Json(*sandbox->missing) : Json::array()) +
               "); cudaperf-eval --allow-weak-sandbox runs candidates with what there is, and says so in every result");
  phase("candidate", "", "load");
  if (std::string e = runner_->load(soPath); !e.empty()) {
    // A load that failed is the candidate's build; a runner that died loading it (its static
    // constructors ran there) is what the runner's end says.
    v.outcome = runner_->lost() ? runner_->lostOutcome() : Outcome::CompileError;
    v.detail = runner_->lost() ? e + " (while its shared object was loaded: static constructors)" : e;
    return nullptr;
  }
  return runner_.get();
}

void Worker::emitUnavailableCounters(const std::string &reason) {
  for (const Config &c : task_.configs) {
    // Here `available` comes before `reason` (the counter pass writes its document first).
    schema::events::Counters counters;
    counters.document = Json{{"available", false}, {"reason", reason}};
    emit(routedEvent(std::move(counters), std::string("candidate"), c.name));
    break; // as collectCounters: the reason would repeat
  }
}

void Worker::run(const WorkerOptions &options) {
  opt_ = &options;
  try {
    task_ = loadTask(options.taskDir);
    selectConfigs(task_, options.configs);
  } catch (const std::exception &e) {
    setupError(e.what());
  }
  schema::events::Start start;
  start.pool = options.pool;
  start.isolation = isolationName(options.isolation);
  if (options.contextSeconds >= 0)
    start.contextSeconds = options.contextSeconds;
  if (options.contextWaitSeconds >= 0)
    start.contextWaitSeconds = options.contextWaitSeconds;
  emit(schema::WorkerEvent::make(std::move(start)));
  emitDevice();
  openSharedData();

  Verdict bv;
  if (!options.baselineSo.empty()) {
    // Loaded even when its timing is reused: it checks the candidate's timed calls.
    baselineFn_ = load("baseline", options.baselineSo, bv);
    if (!baselineFn_)
      setupError("the task's baseline does not load: " + bv.detail);
  }
  if (options.baselineSo.empty()) {
    // No impls/baseline.cu (a pytorch-to-cuda task measured against PyTorch eager): no baseline verdict.
  } else if (!options.baselineTiming.empty() && emitCachedBaseline()) {
    emitVerdict("baseline", bv);
  } else {
    InProcessCallee baseline(baselineFn_, stream_, flusher_);
    bv = evaluate("baseline", baseline, false);
    if (bv.outcome == Outcome::Ok && !verifySharedData("baseline").empty()) {
      bv.outcome = Outcome::RuntimeFault;
      bv.detail = "the baseline changed the evaluator's shared data";
    }
    emitVerdict("baseline", bv);
  }
  if (bv.outcome != Outcome::Ok || options.candidateSo.empty())
    finish(0);

  Verdict cv;
  if (options.isolation == Isolation::None) {
    // Trusted implementations only (docs/security.md): the candidate runs in this process.
    schema::events::Sandbox s;
    s.isolation = "none";
    emit(schema::WorkerEvent::make(std::move(s)));
    EntryFn candidate = load("candidate", options.candidateSo, cv);
    if (candidate) {
      InProcessCallee inProcess(candidate, stream_, flusher_);
      cv = evaluate("candidate", inProcess, true);
    }
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

  if (RunnerCallee *runner = candidateRunner(options.candidateSo, cv))
    cv = evaluate("candidate", *runner, true);
  if (runner_)
    runner_->stop(); // no process of the candidate outlives its verdict
  // The runner never maps the holder's data; this only confirms it (the worker's context is intact
  // whatever happened in the runner's).
  if (std::string damage = verifySharedData("candidate"); !damage.empty() && cv.outcome == Outcome::Ok) {
      cv.outcome = Outcome::RuntimeFault;
    cv.detail = "the evaluator's shared task data changed while the candidate ran: " + damage;
  }
  emitVerdict("candidate", cv);
  if (options.counters && cv.outcome == Outcome::Ok)
    emitUnavailableCounters("hardware counters are not taken inside the candidate's sandboxed runner yet; "
                            "--isolation none measures trusted implementations with counters (docs/security.md)");
  finish(0);
}

} // namespace cudaperf::worker
