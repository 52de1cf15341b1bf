// cudaperf-eval-worker: evaluates the baseline and one candidate of a task in this process,
// which the evaluator starts fresh for every candidate and kills on a stall (docs/eval-result.md,
// "Worker protocol"). Modes:
//   (default)  --events FILE --task DIR --device-data MANIFEST [--baseline SO] [--candidate SO] ...
//   --pool     creates its CUDA context at once, then reads its job (those arguments, as
//              {"argv": [...]}) from one line on stdin: started ahead, so a candidate does not
//              wait for a process and a context;
//   --probe    reports every visible device (no context is created) and exits;
//   --holder   keeps tasks' data on the device for the workers (Holder.cpp);
//   --runner   the confined process a worker starts for the candidate's code (Runner.cpp); not
//              for use by hand.
#include "Callee.h"
#include "DeviceInfo.h"
#include "Events.h"
#include "Holder.h"
#include "Worker.h"

#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Schema/Protocol.h"
#include "cudaperf/Support/ArgParser.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <unistd.h>

using namespace cudaperf;
using namespace cudaperf::worker;

namespace {

// CLOCK_MONOTONIC in seconds, as the evaluator's std::chrono::steady_clock (handed_at).
double monotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Modes {
  bool probe = false, holder = false, pool = false;
};

support::ArgParser workerArgs(WorkerOptions &opt, Modes &modes) {
  using support::parseInteger;
  using support::parseNumber;
  support::ArgParser p("cudaperf-eval-worker",
                       {"--events FILE --task DIR --device-data MANIFEST [--baseline SO] [--candidate SO] [options]",
                        "--pool   (then the job on stdin: {\"argv\": [those arguments]})", "--probe --events FILE",
                        "--holder"},
                       "Started by cudaperf-eval; not meant to be run by hand.");
  p.option("--events", "FILE", "append the event lines here", opt.eventsPath)
      .flag("--probe", "report every visible device and exit", modes.probe)
      .flag("--holder", "keep tasks' data on the device for workers (requests on stdin)", modes.holder)
      .flag("--pool", "create the CUDA context, then read the job from stdin", modes.pool)
      .option("--task", "DIR", "the task", opt.taskDir)
      .option("--device-data", "MANIFEST", "the task's data on the device, from the holder", opt.deviceData)
      .option("--baseline", "SO", "impls/baseline.cu, built (none for a task without one)", opt.baselineSo)
      .option("--candidate", "SO", "the candidate, built", opt.candidateSo)
      .option("--baseline-timing", "FILE", "the baseline's timing events from an earlier worker (not timed again)",
              opt.baselineTiming)
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
      .option("--leak-limit-mib", "X", "device (and pinned host) memory a candidate may leave allocated",
              [&](const std::string &v) { opt.leakLimitMiB = parseNumber(v, 0); })
      .option("--memory-wait", "S", "how long the worker's own allocations wait on a full device (30)",
              [&](const std::string &v) { opt.memoryWaitSeconds = parseNumber(v, 0); })
      .option("--device-index", "N", "the device's index as the evaluator numbers them (reported)",
              [&](const std::string &v) { opt.deviceIndex = int(parseInteger(v, 0, 1 << 20)); })
      .flag("--no-timing", "correctness only", [&] { opt.timing = false; })
      .flag("--counters", "hardware counters of the candidate after timing", opt.counters)
      .option("--counters-mode", "MODE", "shared (default): the profiler set up once for all configurations; per-config;\n"
              "or joint: one session, every configuration in each pass",
              [&](const std::string &v) { opt.countersMode = runtime::parseCountersMode(v); })
      .option("--counters-ranges", "N|auto", "the counter data image's capacity per configuration (auto)",
              [&](const std::string &v) { opt.countersRanges = runtime::parseCounterRanges(v); })
      .option("--isolation", "MODE",
              "where candidate code runs: runner (default: a confined process of its own), runner-unconfined\n"
              "(that process without the sandbox, for debugging) or none (in this process: trusted code only)",
              [&](const std::string &v) { opt.isolation = parseIsolation(v); })
      .flag("--allow-weak-sandbox", "run candidates although the kernel lacks part of the sandbox", opt.allowWeakSandbox)
      .option("--runner-cpu-seconds", "S", "CPU time the candidate's process may use (120)",
              [&](const std::string &v) { opt.timeoutSeconds = parseNumber(v, 1); })
      .option("--checked-share", "X", "share of the timed calls whose answers are checked (0.4)",
              [&](const std::string &v) { opt.checkedShare = parseNumber(v, 0); })
      .option("--configs", "A,B", "only these configurations",
              [&](const std::string &v) { opt.configs = runtime::parseConfigList(v); });
  return p;
}

void parseInto(const support::ArgParser &args, const std::vector<std::string> &argv) {
  support::ParsedArgs parsed = args.parse(argv);
  if (!parsed.positional.empty())
    throw support::SupportError("unexpected argument '" + parsed.positional[0] + "'");
}

// Every visible device, without creating a context on any.
[[noreturn]] void probe() {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count))
    setupError("no usable CUDA device: " + cudaErrorText(e));
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess)
      continue;
    schema::events::Device device;
    device.properties = deviceJson(prop);
    device.index = d;
    emit(schema::WorkerEvent::make(std::move(device)));
  }
  finish(0);
}

} // namespace

// --runner --channel FD --scratch DIR [--cpu-seconds S] [--no-sandbox] [--read-path P]...
[[noreturn]] void runnerMain(int argc, char **argv) {
  int fd = -1;
  std::string scratch;
  double cpuSeconds = 120;
  bool sandbox = true;
  std::vector<std::string> readPaths;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--channel")
      fd = std::atoi(next().c_str());
    else if (a == "--scratch")
      scratch = next();
    else if (a == "--cpu-seconds")
      cpuSeconds = std::atof(next().c_str());
    else if (a == "--no-sandbox")
      sandbox = false;
    else if (a == "--read-path")
      readPaths.push_back(next());
  }
  if (fd < 0 || scratch.empty()) {
    fprintf(stderr, "cudaperf-eval-worker --runner: started by a worker, not by hand\n");
    _exit(2);
  }
  runRunner(fd, scratch, cpuSeconds, sandbox, readPaths);
}

int main(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "--runner")
    runnerMain(argc, argv);
  WorkerOptions opt;
  Modes modes;
  support::ArgParser args = workerArgs(opt, modes);
  if (support::ParsedArgs parsed = args.parseOrExit(argc, argv); !parsed.positional.empty())
    args.usageError("unexpected argument '" + parsed.positional[0] + "'");
  if (modes.holder)
    return runHolder();

  Worker worker;
  std::string setUpError;
  bool retryable = false;
  if (modes.pool) {
    // Context first, then wait for the job; a failure is reported once the job names the event file.
    double began = monotonicSeconds();
    setUpError = worker.setUp(opt, retryable);
    double ready = monotonicSeconds();
    std::string line;
    if (!std::getline(std::cin, line))
      return 0; // the evaluator went away before giving a job
    try {
      schema::PoolJob job = schema::poolJobFromJson(support::parseJson(line, "job"), "job");
      parseInto(args, job.argv);
      opt.pool = true;
      opt.contextSeconds = ready - began;
      // The evaluator's clock is the same monotonic clock (one machine).
      if (job.handedAt)
        opt.contextWaitSeconds = std::max(0.0, ready - *job.handedAt);
    } catch (const std::exception &e) {
      if (!opt.eventsPath.empty() && openEvents(opt.eventsPath))
        setupError(std::string("bad job: ") + e.what());
      args.usageError(std::string("bad job: ") + e.what());
    }
  }
  if (opt.eventsPath.empty())
    args.usageError("--events is required");
  if (!openEvents(opt.eventsPath)) {
    perror(opt.eventsPath.c_str());
    return 2;
  }
  if (modes.probe)
    probe();
  if (opt.taskDir.empty() || opt.deviceData.empty())
    args.usageError("--task and --device-data are required");
  opt.timingOptions.maxRuns = std::max(opt.timingOptions.maxRuns, opt.timingOptions.minRuns);
  if (!modes.pool) {
    double began = monotonicSeconds();
    setUpError = worker.setUp(opt, retryable);
    opt.contextSeconds = opt.contextWaitSeconds = monotonicSeconds() - began;
  }
  if (!setUpError.empty())
    setupError(setUpError, retryable);
  worker.run(opt);
}
