// cudaperf-eval-worker: evaluates the baseline and one candidate of a task in this process,
// which the evaluator starts fresh for every candidate and kills on a stall. It reports through
// an append-only file of JSON lines (docs/eval-result.md, "worker protocol"): a "phase" line
// before every step that runs candidate code, so whoever reads the file after a crash knows
// what was running; results as they are known; a "verdict" per implementation; then "done".
#include "DeviceArgs.h"
#include "Measure.h"

#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/Inputs.h"
#include "cudaperf/Runtime/Outcome.h"
#include "cudaperf/Runtime/Reference.h"
#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Sha256.h"

#ifdef CUDAPERF_HAVE_COUNTERS
#include "cudaperf/Counters/KernelProfiler.h"
#include <cuda.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

using namespace cudaperf;
using namespace cudaperf::runtime;
using namespace cudaperf::worker;
using cudaperf::support::Json;

namespace {

int gEventsFd = -1;
auto gStart = std::chrono::steady_clock::now();

void emit(Json o) {
  o["t"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - gStart).count();
  std::string line = support::writeJson(o) + "\n";
  const char *p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = write(gEventsFd, p, left);
    if (n <= 0)
      break;
    p += n;
    left -= size_t(n);
  }
}

Json event(const char *type) {
  Json o = Json::object();
  o["event"] = type;
  return o;
}

void phase(const std::string &impl, const std::string &config, const std::string &step, int set = -1) {
  Json o = event("phase");
  o["impl"] = impl;
  if (!config.empty())
    o["config"] = config;
  o["step"] = step;
  if (set >= 0)
    o["set"] = set;
  emit(std::move(o));
}

[[noreturn]] void finish(int code) {
  emit(event("done"));
  // _exit: no atexit handlers or static destructors of candidate code run after the verdict.
  _exit(code);
}

[[noreturn]] void setupError(const std::string &detail) {
  Json o = event("error");
  o["detail"] = detail;
  emit(std::move(o));
  finish(3);
}

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

std::string cudaErrorText(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

struct Verdict {
  Outcome outcome = Outcome::Ok;
  std::string detail;
  std::string config;
  bool fatal = false; // the CUDA context is unusable: stop the process after reporting
};

struct Options {
  std::string taskDir, referenceSo, baselineSo, candidateSo, eventsPath;
  std::string dataCache; // where computed input sets are kept between workers ("" = none)
  std::string expectedDir; // precomputed expected sets (<config>.<set>.set), instead of a reference
  bool counters = false;   // a hardware-counter pass over the candidate after timing
  std::vector<std::string> configs; // only these configurations (empty: all)
  uint64_t seed = 1;
  int sets = 3;
  bool timing = true;
  bool probe = false;
  TimingOptions timingOptions;
  double leakLimitMiB = 1024;
};

class Worker {
public:
  Worker(const Options &opt, const Task &task) : opt_(opt), task_(task) {}

  void setUp() {
    if (cudaError_t e = cudaSetDevice(0))
      setupError("no usable CUDA device: " + cudaErrorText(e));
    if (cudaError_t e = cudaFree(nullptr))
      setupError("CUDA context creation failed: " + cudaErrorText(e));
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int driver = 0, runtimeVersion = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtimeVersion);
    size_t freeB = 0, totalB = 0;
    cudaMemGetInfo(&freeB, &totalB);
    Json o = event("device");
    o["name"] = prop.name;
    o["compute_capability"] = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    o["arch"] = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
    o["multiprocessors"] = prop.multiProcessorCount;
    o["l2_bytes"] = prop.l2CacheSize;
    o["memory_bytes"] = (long long)totalB;
    o["driver_version"] = driver;
    o["runtime_version"] = runtimeVersion;
    emit(std::move(o));
    if (opt_.probe)
      finish(0);
    if (cudaError_t e = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking))
      setupError("cudaStreamCreate: " + cudaErrorText(e));
    if (cudaError_t e = flusher_.allocate(size_t(prop.l2CacheSize)))
      setupError("L2 flush buffer: " + cudaErrorText(e));
    totalMemory_ = totalB;
  }

  // Expected sets computed beforehand (a pytorch-to-cuda task's reference runs in its own process,
  // cudaperf-torch-reference, which writes <config>.<set>.set files).
  void loadPrecomputed() {
    for (size_t c = 0; c < task_.configs.size(); ++c) {
      expected_.emplace_back();
      for (int s = 0; s < opt_.sets; ++s) {
        phase("reference", task_.configs[c].name, "load-expected", s);
        std::string path = opt_.expectedDir + "/" + task_.configs[c].name + "." + std::to_string(s) + ".set";
        ExpectedSet set;
        if (!loadExpected(path, task_, task_.configs[c], set))
          setupError(path + ": missing or not a set of this task's shapes");
        if (set.seed != inputSeed(opt_.seed, c, size_t(s)))
          setupError(path + ": made with another seed");
        expected_[c].push_back(std::move(set));
        Json o = event("reference");
        o["cached"] = true;
        o["config"] = task_.configs[c].name;
        o["set"] = s;
        o["seed"] = (long long)expected_[c].back().seed;
        o["ms"] = expected_[c].back().referenceMs;
        emit(std::move(o));
      }
    }
  }

  void computeReferences() {
    if (!opt_.expectedDir.empty())
      return loadPrecomputed();
    ReferenceLibrary ref;
    bool loaded = false;
    std::string taskText;
    readFile(task_.dir + "/task.json", taskText);
    for (size_t c = 0; c < task_.configs.size(); ++c) {
      expected_.emplace_back();
      for (int s = 0; s < opt_.sets; ++s) {
        phase("reference", task_.configs[c].name, "reference", s);
        uint64_t seed = inputSeed(opt_.seed, c, size_t(s));
        // The reference object's path names its build (source, flags, compiler).
        std::string cachePath;
        if (!opt_.dataCache.empty())
          cachePath = opt_.dataCache + "/" +
                      support::Sha256().field(opt_.referenceSo).field(taskText).field(task_.configs[c].name)
                          .field(std::to_string(seed)).hex() + ".set";
        ExpectedSet set;
        bool cached = !cachePath.empty() && loadExpected(cachePath, task_, task_.configs[c], set) && set.seed == seed;
        if (!cached) {
          std::string err;
          if (!loaded && !(loaded = ref.load(opt_.referenceSo, err)))
            setupError("reference: " + err);
          set = computeExpected(task_, task_.configs[c], seed, ref);
          if (!cachePath.empty())
            saveExpected(cachePath, task_, set);
        }
        expected_[c].push_back(std::move(set));
        Json o = event("reference");
        o["cached"] = cached;
        o["config"] = task_.configs[c].name;
        o["set"] = s;
        o["seed"] = (long long)seed;
        o["ms"] = expected_[c].back().referenceMs;
        emit(std::move(o));
      }
    }
  }

  EntryFn load(const std::string &impl, const std::string &path, Verdict &v) {
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

  Verdict evaluate(const std::string &impl, EntryFn fn) {
    Verdict v = checkCorrectness(impl, fn);
    if (v.outcome == Outcome::Ok && opt_.timing)
      v = measure(impl, fn);
    return v;
  }

  // A separate pass after correctness and timing (replay changes timing): per configuration, the call is
  // profiled with the CUPTI range profiler, every kernel it launches counted. User replay: the call runs once
  // per counter pass, each pass starting from fresh inputs and a cold, clean L2 (as ncu --cache-control all),
  // so DRAM counters mean what Nsight Compute's mean. Where CUPTI refuses user replay: kernel replay, with a note.
  void collectCounters(const std::string &impl, EntryFn fn) {
    for (size_t c = 0; c < task_.configs.size(); ++c) {
      const std::string &cfg = task_.configs[c].name;
      phase(impl, cfg, "counters");
      Json o = event("counters");
      o["impl"] = impl;
      o["config"] = cfg;
      bool available = false;
#ifdef CUDAPERF_HAVE_COUNTERS
      counters::CountersDocument doc = profileConfig(c, fn);
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
        return; // the same reason would repeat for every configuration
    }
  }

private:
#ifdef CUDAPERF_HAVE_COUNTERS
  // One call of configuration c under the profiler: user replay (each pass on fresh inputs and a
  // clean L2), or kernel replay where CUPTI refuses user replay.
  counters::CountersDocument profileConfig(size_t c, EntryFn fn) {
    DeviceArgs dev(task_, task_.configs[c]);
    const auto &inputs = expected_[c][0].inputs;
    std::string why;
    CUcontext ctx = nullptr;
    if (cudaError_t e = dev.allocate())
      why = "allocating arguments: " + cudaErrorText(e);
    else if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS)
      why = "no current CUDA context";
    PackedArgs packed;
    if (why.empty())
      packed = packArgs(task_, inputs, &dev.pointers());

    auto profiler = std::make_unique<counters::KernelProfiler>();
    std::string userWhy;
    if (why.empty())
      userWhy = profileUserReplay(*profiler, ctx, dev, inputs, packed, fn, why);
    bool kernelReplay = why.empty() && !userWhy.empty();
    if (kernelReplay) {
      profiler = std::make_unique<counters::KernelProfiler>();
      why = profileKernelReplay(*profiler, ctx, dev, inputs, packed, fn);
    }
    counters::CountersDocument doc = profiler->document(task_.name);
    if (kernelReplay)
      doc.notes.insert(doc.notes.begin(), "user replay not used (" + userWhy + "): kernel replay instead");
    if (!why.empty()) {
      doc.available = false;
      doc.reason = why;
    }
    return doc;
  }

  // Returns why user replay could not be used ("" when it was); a failure of the candidate's own
  // call goes to callWhy instead (no fallback then).
  std::string profileUserReplay(counters::KernelProfiler &profiler, CUcontext ctx, DeviceArgs &dev,
                                const HostArgs &inputs, const PackedArgs &packed, EntryFn fn,
                                std::string &callWhy) {
    if (cudaError_t e = flusher_.prepareClean())
      return "no buffers to clean L2 with (" + cudaErrorText(e) + ")";
    counters::ProfilerOptions options;
    options.replay = counters::Replay::User;
    options.maxPasses = 64;
    options.rangesPerSession = 256;
    std::string why = profiler.begin(ctx, options);
    cudaError_t e = cudaSuccess;
    const char *stage = "";
    while (why.empty() && profiler.passNeeded()) {
      stage = "preparing a counter pass";
      if ((e = dev.prepare(inputs, stream_)) || (e = flusher_.clean(stream_)) || (e = cudaDeviceSynchronize()))
        break;
      if (!(why = profiler.beginPass()).empty())
        break;
      stage = "the profiled call failed";
      callEntry(fn, packed.pointers.data(), stream_);
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
  std::string profileKernelReplay(counters::KernelProfiler &profiler, CUcontext ctx, DeviceArgs &dev,
                                  const HostArgs &inputs, const PackedArgs &packed, EntryFn fn) {
    if (cudaError_t e = dev.prepare(inputs, stream_))
      return "preparing inputs: " + cudaErrorText(e);
    if (cudaError_t e = cudaDeviceSynchronize())
      return "preparing inputs: " + cudaErrorText(e);
    if (std::string why = profiler.begin(ctx); !why.empty())
      return why;
    callEntry(fn, packed.pointers.data(), stream_);
    cudaError_t e = cudaDeviceSynchronize();
    std::string endWhy = profiler.end();
    return e != cudaSuccess ? "the profiled call failed: " + cudaErrorText(e) : endWhy;
  }
#endif

  const Options &opt_;
  const Task &task_;
  cudaStream_t stream_ = nullptr;
  L2Flusher flusher_;
  size_t totalMemory_ = 0;
  std::vector<std::vector<ExpectedSet>> expected_;

  // Turns a CUDA error into the outcome it stands for.
  Verdict fromCudaError(cudaError_t e, bool atLaunch, const std::string &config, const std::string &when) {
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

  Verdict callAndCheck(const std::string &impl, EntryFn fn, size_t c, DeviceArgs &dev, const ExpectedSet &set,
                       int setIndex, const char *what, size_t memoryBefore) {
    const std::string &cfg = task_.configs[c].name;
    if (cudaError_t e = dev.prepare(set.inputs, stream_))
      return fromCudaError(e, false, cfg, "preparing inputs");
    PackedArgs packed = packArgs(task_, set.inputs, &dev.pointers());
    phase(impl, cfg, what, setIndex);
    CallActivity act = callEntry(fn, packed.pointers.data(), stream_);
    (void)act;
    if (cudaError_t e = cudaGetLastError())
      return fromCudaError(e, true, cfg, std::string(what) + " call");
    if (cudaError_t e = cudaDeviceSynchronize())
      return fromCudaError(e, false, cfg, std::string(what) + " call");
    if (cudaError_t e = cudaGetLastError())
      return fromCudaError(e, true, cfg, std::string(what) + " call");
    Verdict v;
    v.config = cfg;
    cudaError_t err;
    std::string guard = dev.checkGuards(err);
    if (err)
      return fromCudaError(err, false, cfg, "reading guards");
    if (!guard.empty()) {
      v.outcome = Outcome::RuntimeFault;
      v.detail = "out-of-bounds write: " + guard + " (config " + cfg + ")";
      return v;
    }
    std::string changed = dev.checkInputsUnchanged(set.inputs, err);
    if (err)
      return fromCudaError(err, false, cfg, "reading inputs");
    std::vector<std::vector<unsigned char>> got;
    if ((err = dev.download(got)))
      return fromCudaError(err, false, cfg, "reading outputs");
    Mismatch m = compareOutputs(task_, got, set.expected);

    Json o = event("check");
    o["impl"] = impl;
    o["config"] = cfg;
    o["set"] = setIndex;
    o["seed"] = (long long)set.seed;
    o["step"] = what;
    o["pass"] = m.pass && changed.empty();
    if (!m.pass) {
      o["argument"] = m.argument;
      o["index"] = (long long)m.index;
      o["got"] = m.got;
      o["expected"] = m.expected;
      o["bad_elements"] = (long long)m.badElements;
      o["nan_elements"] = (long long)m.nanElements;
    }
    if (!changed.empty())
      o["input_modified"] = changed;
    emit(std::move(o));

    if (!changed.empty()) {
      v.outcome = Outcome::WrongAnswer;
      v.detail = changed + " (config " + cfg + ", seed " + std::to_string(set.seed) + ")";
      return v;
    }
    if (!m.pass) {
      char buf[512];
      snprintf(buf, sizeof buf,
               "%s[%lld] = %.9g, expected %.9g; %lld of the outputs' elements wrong%s (config %s, seed %llu, %s)",
               m.argument.c_str(), (long long)m.index, m.got, m.expected, (long long)m.badElements,
               m.nanElements ? (", " + std::to_string(m.nanElements) + " NaN/unwritten").c_str() : "",
               cfg.c_str(), (unsigned long long)set.seed, what);
      v.outcome = Outcome::WrongAnswer;
      v.detail = buf;
      return v;
    }
    size_t freeB = 0, totalB = 0;
    cudaMemGetInfo(&freeB, &totalB);
    double heldMiB = (double(memoryBefore) - double(freeB)) / (1024.0 * 1024.0);
    if (heldMiB > opt_.leakLimitMiB) {
      v.outcome = Outcome::RuntimeFault;
      v.detail = "the entry point kept " + std::to_string(int64_t(heldMiB)) +
                 " MiB of device memory allocated after returning (limit " +
                 std::to_string(int64_t(opt_.leakLimitMiB)) + " MiB)";
    }
    return v;
  }

  Verdict checkCorrectness(const std::string &impl, EntryFn fn) {
    Verdict first;
    for (size_t c = 0; c < task_.configs.size(); ++c) {
      const std::string &cfg = task_.configs[c].name;
      phase(impl, cfg, "allocate");
      DeviceArgs dev(task_, task_.configs[c]);
      if (cudaError_t e = dev.allocate()) {
        Verdict v = fromCudaError(e, false, cfg, "allocating arguments");
        v.detail += " (device memory may be held by the candidate)";
        return v;
      }
      size_t freeB = 0, totalB = 0;
      cudaMemGetInfo(&freeB, &totalB);
      // Calls in a row with fresh inputs in the same buffers: results cached from an earlier
      // call, or outputs left from it, fail here.
      for (int s = 0; s < opt_.sets; ++s) {
        Verdict v = callAndCheck(impl, fn, c, dev, expected_[c][size_t(s)], s, "correctness", freeB);
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

  Verdict measure(const std::string &impl, EntryFn fn) {
    for (size_t c = 0; c < task_.configs.size(); ++c) {
      const std::string &cfg = task_.configs[c].name;
      phase(impl, cfg, "allocate");
      DeviceArgs dev(task_, task_.configs[c]);
      if (cudaError_t e = dev.allocate())
        return fromCudaError(e, false, cfg, "allocating arguments");
      size_t freeB = 0, totalB = 0;
      cudaMemGetInfo(&freeB, &totalB);
      const ExpectedSet &set = expected_[c][0];
      if (cudaError_t e = dev.prepare(set.inputs, stream_))
        return fromCudaError(e, false, cfg, "preparing inputs");
      PackedArgs packed = packArgs(task_, set.inputs, &dev.pointers());

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
      a["kernels_default_stream"] = audit.activity.kernelsOnDefaultStream;
      a["kernels_other_streams"] = audit.activity.kernelsOnOtherStreams;
      a["pending_streams"] = audit.pendingStreams;
      a["host_copies"] = audit.activity.hostCopies;
      a["threads_left"] = audit.threadsLeft;
      if (!audit.violation.empty())
        a["violation"] = audit.violation;
      emit(std::move(a));
      if (!audit.violation.empty()) {
        Verdict v;
        v.outcome = Outcome::TimingViolation;
        v.config = cfg;
        v.detail = audit.violation + " (config " + cfg + ")";
        return v;
      }

      phase(impl, cfg, "timing");
      TimingStats st;
      if (cudaError_t e = timeEntry(fn, packed.pointers.data(), stream_, flusher_, opt_.timingOptions, st))
        return fromCudaError(e, true, cfg, "timed calls");
      Json t = timingJson(st);
      t["event"] = "timing";
      t["impl"] = impl;
      t["config"] = cfg;
      t["stable"] = st.stable;
      emit(std::move(t));

      // Once more after the timed calls, with outputs poisoned again: what was timed must still
      // compute the answer.
      Verdict v = callAndCheck(impl, fn, c, dev, set, 0, "after-timing", freeB);
      if (v.outcome != Outcome::Ok)
        return v;
    }
    return Verdict();
  }
};

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

support::ArgParser workerArgs(Options &opt) {
  using support::parseInteger;
  using support::parseNumber;
  support::ArgParser p("cudaperf-eval-worker",
                       {"--events FILE (--probe | --task DIR --reference SO --baseline SO [options])"},
                       "Started by cudaperf-eval for each candidate; not meant to be run by hand.");
  p.option("--events", "FILE", "append the event lines here (required)", opt.eventsPath)
      .flag("--probe", "report the device and exit", opt.probe)
      .option("--task", "DIR", "the task", opt.taskDir)
      .option("--reference", "SO", "the task's reference, built as a shared object", opt.referenceSo)
      .option("--expected-dir", "DIR", "expected outputs from cudaperf-torch-reference instead of --reference",
              opt.expectedDir)
      .option("--baseline", "SO", "impls/baseline.cu, built", opt.baselineSo)
      .option("--candidate", "SO", "the candidate, built", opt.candidateSo)
      .option("--data-cache", "DIR", "cache of generated inputs and reference outputs", opt.dataCache)
      .option("--seed", "N", "base seed of the input sets",
              [&](const std::string &v) { opt.seed = support::parseUnsigned(v); })
      .option("--sets", "N", "input sets per configuration",
              [&](const std::string &v) { opt.sets = int(parseInteger(v, 1, 1000000)); })
      .option("--warmup", "N", "untimed calls before timing",
              [&](const std::string &v) { opt.timingOptions.warmup = int(parseInteger(v, 0, 1000000)); })
      .option("--min-runs", "N", "timed calls, at least",
              [&](const std::string &v) { opt.timingOptions.minRuns = int(parseInteger(v, 1, 100000000)); })
      .option("--max-runs", "N", "timed calls, at most",
              [&](const std::string &v) { opt.timingOptions.maxRuns = int(parseInteger(v, 1, 100000000)); })
      .option("--budget-ms", "X", "time budget of the timing loop",
              [&](const std::string &v) { opt.timingOptions.budgetMs = parseNumber(v, 0); })
      .option("--leak-limit-mib", "X", "device memory a candidate may leave allocated",
              [&](const std::string &v) { opt.leakLimitMiB = parseNumber(v, 0); })
      .flag("--no-timing", "correctness only", [&] { opt.timing = false; })
      .flag("--counters", "hardware counters of the candidate after timing", opt.counters)
      .option("--configs", "A,B", "only these configurations",
              [&](const std::string &v) { opt.configs = parseConfigList(v); });
  return p;
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  support::ArgParser args = workerArgs(opt);
  if (support::ParsedArgs parsed = args.parseOrExit(argc, argv); !parsed.positional.empty())
    args.usageError("unexpected argument '" + parsed.positional[0] + "'");
  if (opt.eventsPath.empty())
    args.usageError("--events is required");
  gEventsFd = open(opt.eventsPath.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (gEventsFd < 0) {
    perror(opt.eventsPath.c_str());
    return 2;
  }
  opt.timingOptions.maxRuns = std::max(opt.timingOptions.maxRuns, opt.timingOptions.minRuns);
  if (opt.probe) {
    Task none;
    Worker w(opt, none);
    w.setUp();
  }
  if (opt.taskDir.empty() || (opt.referenceSo.empty() && opt.expectedDir.empty()) || opt.baselineSo.empty())
    args.usageError("--task, --reference (or --expected-dir) and --baseline are required");

  Task task;
  try {
    task = loadTask(opt.taskDir);
    selectConfigs(task, opt.configs);
  } catch (const std::exception &e) {
    setupError(e.what());
  }
  emit(event("start"));
  Worker worker(opt, task);
  worker.setUp();
  worker.computeReferences();

  Verdict bv;
  EntryFn baseline = worker.load("baseline", opt.baselineSo, bv);
  if (baseline)
    bv = worker.evaluate("baseline", baseline);
  emitVerdict("baseline", bv);
  if (bv.outcome != Outcome::Ok || opt.candidateSo.empty())
    finish(0);

  Verdict cv;
  EntryFn candidate = worker.load("candidate", opt.candidateSo, cv);
  if (candidate)
    cv = worker.evaluate("candidate", candidate);
  emitVerdict("candidate", cv);
  if (opt.counters && cv.outcome == Outcome::Ok)
    worker.collectCounters("candidate", candidate);
  finish(0);
}
