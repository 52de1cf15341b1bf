// cudaperf-eval-worker: evaluates the baseline and one candidate of a task in this process,
// which the evaluator starts fresh for every candidate and kills on a stall (docs/eval-result.md,
// "Worker protocol"). Modes:
//   (default)  --events FILE --task DIR --device-data MANIFEST [--baseline SO] [--candidate SO] ...
//   --pool     creates its CUDA context at once, then reads its job (those arguments, as
//              {"argv": [...]}) from one line on stdin: started ahead, so a candidate does not
//              wait for a process and a context;
//   --probe    reports every visible device (no context is created) and exits;
//   --holder   keeps tasks' data on the device for the workers (Holder.cpp).
#include "DeviceInfo.h"
#include "Events.h"
#include "Holder.h"
#include "Worker.h"

#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Support/ArgParser.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

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
    Json o = deviceJson(prop);
    o["index"] = d;
    emit(std::move(o));
  }
  finish(0);
}

} // namespace

int main(int argc, char **argv) {
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
    setUpError = worker.setUp(retryable);
    double ready = monotonicSeconds();
    std::string line;
    if (!std::getline(std::cin, line))
      return 0; // the evaluator went away before giving a job
    try {
      Json job = support::parseJson(line, "job");
      std::vector<std::string> jobArgs = job.at("argv").get<std::vector<std::string>>();
      parseInto(args, jobArgs);
      opt.pool = true;
      opt.contextSeconds = ready - began;
      // The evaluator's clock is the same monotonic clock (one machine).
      if (const Json *handed = support::member(job, "handed_at"); handed && handed->is_number())
        opt.contextWaitSeconds = std::max(0.0, ready - handed->get<double>());
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
    setUpError = worker.setUp(retryable);
    opt.contextSeconds = opt.contextWaitSeconds = monotonicSeconds() - began;
  }
  if (!setUpError.empty())
    setupError(setUpError, retryable);
  worker.run(opt);
}
