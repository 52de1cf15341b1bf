// cudaperf-eval: builds CUDA candidates for a task, runs each in a fresh sandboxed worker
// process, and writes one result document per candidate (docs/eval-result.md).
#include "EvalModes.h"
#include "QueueModes.h"
#include "cudaperf/Runtime/EvalServer.h"
#include "cudaperf/Runtime/Evaluator.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Subprocess.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace cudaperf;
using namespace cudaperf::runtime;
using namespace cudaperf::evaltool;

namespace {

struct CommandLine {
  EvalOptions opt;
  std::string batchFile, outputPath, nvcc, socketPath;
  bool jsonl = false, summary = false, validateOnly = false, serve = false;
  ServePolicy servePolicy;
  evaltool::QueueCommand queue; // --worker redis://, --submit, --queue-status (QueueModes.h)
};

// "all", or indices: "0,2".
std::vector<int> parseDeviceList(const std::string &text) {
  std::vector<int> out;
  if (text == "all")
    return out;
  for (const std::string &item : parseConfigList(text))
    out.push_back(int(support::parseInteger(item, 0, 1 << 20)));
  if (out.empty())
    throw support::SupportError("expected \"all\" or GPU indices such as 0,1, got '" + text + "'");
  return out;
}

support::ArgParser evalArgs(CommandLine &c) {
  using support::parseInteger;
  using support::parseNumber;
  EvalOptions &o = c.opt;
  support::ArgParser p(
      "cudaperf-eval",
      {"TASK_DIR CANDIDATE.cu [CANDIDATE.cu ...] [options]",
       "--batch FILE [options]   (lines \"TASK_DIR CANDIDATE.cu\"; '#' comments)",
       "--serve [--socket PATH] [options]   (JSON Lines requests; docs/eval-serve.md)", "--validate TASK_DIR..."},
      "Builds each candidate with nvcc (cached), runs it against the task's reference and times it\n"
      "against impls/baseline.cu in a fresh worker process, and prints one JSON result per candidate\n"
      "(pretty for one candidate, JSON Lines otherwise).");
  p.flag("--compile-only", "build only (works without a GPU)", o.compileOnly)
      .option("--arch", "sm_XX", "target (default: the GPU's; sm_90 when compiling without one)", o.arch)
      .option("--jobs,-j", "N", "parallel builds (default 1); runs are one at a time per GPU",
              [&](const std::string &v) { o.jobs = int(parseInteger(v, 1, 1024)); })
      .option("--seed", "N", "base seed of the input sets (default 1)",
              [&](const std::string &v) { o.seed = support::parseUnsigned(v); })
      .option("--sets", "N", "input sets per configuration (default 3, at least 3 recommended)",
              [&](const std::string &v) { o.sets = int(parseInteger(v, 1, 1000000)); })
      .flag("--no-timing", "correctness only", [&] { o.timing = false; })
      .option("--configs", "A,B", "only these input configurations of each task (quick screening)",
              [&](const std::string &v) { o.configs = parseConfigList(v); })
      .option("--warmup", "N", "untimed calls before timing (default 3)",
              [&](const std::string &v) { o.warmup = int(parseInteger(v, 0, 1000000)); })
      .option("--min-runs", "N", "timed calls, at least (default 20)",
              [&](const std::string &v) { o.minRuns = int(parseInteger(v, 1, 100000000)); })
      .option("--max-runs", "N", "timed calls, at most (default 1000)",
              [&](const std::string &v) { o.maxRuns = int(parseInteger(v, 1, 100000000)); })
      .option("--budget-ms", "X", "time budget of the timing loop (default 100)",
              [&](const std::string &v) { o.budgetMs = parseNumber(v, 0); })
      .option("--timeout", "S", "kill a worker after S seconds in all (default 120)",
              [&](const std::string &v) { o.timeoutSeconds = parseNumber(v, 0); })
      .option("--stall-timeout", "S", "kill a worker that makes no progress for S seconds (default 10)",
              [&](const std::string &v) { o.stallSeconds = parseNumber(v, 0); })
      .option("--compile-timeout", "S", "per build (default 60)",
              [&](const std::string &v) { o.build.timeoutSeconds = parseNumber(v, 0); })
      .option("--output-limit", "BYTES", "worker stdout+stderr limit (default 1048576)",
              [&](const std::string &v) { o.outputLimitBytes = parseInteger(v, 0); })
      .option("--cache-dir", "DIR", "build cache (default $CUDAPERF_CACHE_DIR or ~/.cache/cudaperf/build)",
              o.build.cacheDir)
      .flag("--no-cache", "always rebuild", [&] { o.build.useCache = false; })
      .option("--worker", "PATH|redis://HOST:PORT/QUEUE",
              "cudaperf-eval-worker to use; or a queue URL: evaluate the queue's jobs as --serve\n"
              "would (docs/eval-serve.md, \"Many hosts: the Redis queue\")",
              [&](const std::string &v) { evaltool::takeWorkerOption(v, c.queue, o.workerPath); })
      .flag("--counters",
            "after timing, the candidate's hardware counters per kernel (CUPTI;\n"
            "docs/counters.md), a separate pass",
            o.counters)
      .option("--counters-mode", "MODE",
              "shared (default): the counter pass sets the CUPTI profiler up once per\n"
              "candidate, the later configurations reuse it; per-config: set up and torn\n"
              "down for each configuration (docs/counters.md, \"Counters mode\": the same\n"
              "counters, 1.6x the candidates per minute on the H200); joint: one profiling\n"
              "session whose passes run every configuration in turn (falls back to shared\n"
              "where its ranges cannot be split; slower than shared on the H200 and its\n"
              "small-configuration DRAM writes differ: docs/counters.md, \"Joint mode\")",
              [&](const std::string &v) { o.countersMode = parseCountersMode(v); })
      .option("--counters-ranges", "N|auto",
              "the counter data image's capacity in kernel launches per configuration\n"
              "(auto): auto sizes it from the launches of the candidate's audit call\n"
              "(256 without one), 1.4-1.7x the candidates per minute of a fixed 256 on the\n"
              "H200 with the same counters (docs/counters.md, \"Counter data image size\")",
              [&](const std::string &v) { o.countersRanges = parseCounterRanges(v); })
      .option("--torch-reference", "PATH", "cudaperf-torch-reference to use (pytorch-to-cuda tasks)",
              o.torchReferencePath)
      .option("--nvcc", "PATH", "nvcc to use", c.nvcc)
      .option("--batch", "FILE", "evaluate the \"TASK_DIR CANDIDATE.cu\" lines of FILE", c.batchFile)
      .option("--output,-o", "FILE", "write results here instead of stdout", c.outputPath)
      .flag("--jsonl", "one line per result even for a single candidate", c.jsonl)
      .flag("--summary", "one line per candidate on stderr", c.summary)
      .flag("--validate", "only load and check the task directories", c.validateOnly)
      .flag("--serve", "evaluate requests from stdin (JSON Lines), results in completion order", c.serve)
      .option("--socket", "PATH", "with --serve: listen on this Unix socket instead of stdin", c.socketPath)
      .option("--candidate-root", "DIR",
              "with --serve: requests may name candidate files (\"candidate\") that resolve inside DIR;\n"
              "without it only source text (\"source\") is taken (docs/eval-serve.md, \"Trust\")",
              c.servePolicy.candidateRoot)
      .option("--task-root", "DIR", "with --serve: task directories must resolve inside DIR", c.servePolicy.taskRoot)
      .flag("--trust-tasks", "tasks may carry any compiler flags (default: an allow-list, docs/task-format.md)",
            [&] { setenv("CUDAPERF_TRUST_TASKS", "1", 1); })
      .option("--devices", "LIST", "GPUs to use, one candidate at a time each: all (default) or 0,1,...",
              [&](const std::string &v) { o.devices = parseDeviceList(v); })
      .option("--queue", "N", "candidates waiting to run before requests stop being read (default 256)",
              [&](const std::string &v) { o.queueLimit = size_t(parseInteger(v, 1, 1 << 24)); })
      .option("--baseline-reuse", "N",
              "later candidates of a task that reuse its measured baseline timing on a GPU\n"
              "(default 20; 0: the baseline timed again in every worker)",
              [&](const std::string &v) {
                o.baselineReuse = int(parseInteger(v, 0, 1 << 30));
              })
      .option("--spare-workers", "N",
              "workers started ahead per GPU, each creating its CUDA context while\n"
              "earlier candidates run (default 2; 0: each worker started when needed)",
              [&](const std::string &v) { o.spareWorkers = int(parseInteger(v, 0, 64)); })
      .flag("--no-spare-workers", "the same as --spare-workers 0", [&] { o.spareWorkers = 0; })
      .flag("--wait-worker-exit",
            "the GPU's next candidate waits until the last worker's process has ended\n"
            "(its CUDA context torn down; by default that happens beside the next candidate)",
            o.waitWorkerExit)
      .option("--max-connections", "N",
              "CUDA_DEVICE_MAX_CONNECTIONS of the workers, 1-32 (default 2; CUDA's is 8): fewer make\n"
              "each worker's CUDA context faster to create; a candidate's streams beyond N share queues",
              [&](const std::string &v) { o.maxConnections = int(parseInteger(v, 1, 32)); })
      .option("--device-data-fraction", "X", "of each GPU's memory, at most, for the task data kept there (0.4)",
              [&](const std::string &v) { o.deviceDataFraction = parseNumber(v, 0, 1); })
      .option("--set-cache-limit-mib", "X", "expected outputs of an input set larger than this are not cached on disk (1024)",
              [&](const std::string &v) { o.setCacheLimitBytes = uint64_t(parseNumber(v, 0) * 1048576); })
      .option("--leak-limit-mib", "X", "memory a candidate may keep allocated after returning (1024)",
              [&](const std::string &v) { o.leakLimitMiB = parseNumber(v, 0); })
      .option("--memory-wait", "S", "how long the evaluator's own allocations wait on a full GPU (30)",
              [&](const std::string &v) { o.memoryWaitSeconds = parseNumber(v, 0); })
      .option("--isolation", "MODE",
              "where candidate code runs: runner (default: a confined process holding only its arguments),\n"
              "runner-unconfined (the same process unconfined, for debugging) or none (inside the worker:\n"
              "only for implementations you trust, e.g. the generated dataset with --counters; docs/security.md)",
              [&](const std::string &v) {
                if (v != "runner" && v != "runner-unconfined" && v != "none")
                  throw support::SupportError("--isolation: expected runner, runner-unconfined or none");
                o.isolation = v;
              })
      .flag("--allow-weak-sandbox",
            "run candidates where the kernel lacks part of the sandbox (Landlock, seccomp); every result says\n"
            "what was missing (\"sandbox\")",
            o.allowWeakSandbox)
      .epilog("exit codes: 0 every result written, 1 a result is internal_error or the environment is\n"
              "unusable, 2 bad usage, 3 the task does not load, 4 a candidate cannot be read\n"
              "(--serve: 0 after shutdown or end of input, 1 the environment is unusable)");
  evaltool::addQueueOptions(p, c.queue);
  return p;
}

} // namespace

int main(int argc, char **argv) {
  // Workers, holders and builds run in process groups of their own: a `timeout` or a trainer's
  // SIGTERM must not leave them running on the GPU.
  support::killChildrenOnTermination();
  CommandLine cl;
  // The command's default in every mode (the library's is 0, for its other callers): a task's baseline
  // timing measured by one worker serves the next 20 candidates of the task on that GPU.
  cl.opt.baselineReuse = 20;
  support::ArgParser args = evalArgs(cl);
  std::vector<std::string> positional = args.parseOrExit(argc, argv, kExitUsage).positional;
  auto usageError = [&](const std::string &msg) { args.usageError(msg, kExitUsage); };
  EvalOptions &opt = cl.opt;
  const std::string &batchFile = cl.batchFile, &outputPath = cl.outputPath, &nvcc = cl.nvcc;
  bool jsonl = cl.jsonl, summary = cl.summary, validateOnly = cl.validateOnly;

  if (cl.queue.any()) { // the Redis queue (QueueModes.cpp)
    const evaltool::QueueCommand &q = cl.queue;
    if (int(!q.workerUrl.empty()) + int(!q.submitUrl.empty()) + int(!q.statusUrl.empty()) > 1 || cl.serve ||
        !positional.empty())
      usageError("--worker redis://, --submit and --queue-status go alone (no --serve, no positional arguments)");
    if (!evaltool::checkQueueUrls(q))
      return kExitUsage;
    if (!q.statusUrl.empty())
      return evaltool::runQueueStatusMode(q);
    if (!q.submitUrl.empty())
      return evaltool::runSubmitMode(q, batchFile, opt, outputPath);
    std::unique_ptr<Evaluator> evaluator = startEvaluator(opt, nvcc);
    if (!evaluator)
      return kExitInternal;
    return evaltool::runQueueWorkerMode(q, *evaluator, cl.servePolicy);
  }
  if (cl.serve) {
    if (!positional.empty() || !batchFile.empty())
      usageError("--serve takes its candidates as requests, not on the command line");
    std::unique_ptr<Evaluator> evaluator = startEvaluator(opt, nvcc);
    if (!evaluator)
      return kExitInternal;
    return cl.socketPath.empty() ? serveStream(*evaluator, 0, 1, cl.servePolicy)
                                 : serveSocket(*evaluator, cl.socketPath, cl.servePolicy);
  }
  if (!cl.socketPath.empty())
    usageError("--socket needs --serve");

  if (validateOnly)
    return evaltool::runValidateMode(positional, usageError);

  std::vector<EvalJob> jobs;
  if (!batchFile.empty()) {
    if (!positional.empty())
      usageError("--batch takes no positional arguments");
    jobs = evaltool::readBatchJobs(batchFile, usageError);
  } else {
    if (positional.size() < 2)
      usageError("expected TASK_DIR and at least one CANDIDATE.cu");
    for (size_t i = 1; i < positional.size(); ++i) {
      EvalJob job;
      job.taskDir = positional[0];
      job.candidatePath = positional[i];
      jobs.push_back(job);
    }
    try {
      loadTask(positional[0]);
    } catch (const TaskError &e) {
      std::cerr << "cudaperf-eval: " << positional[0] << ": " << e.what() << "\n";
      return kExitInvalidTask;
    }
    for (const auto &j : jobs)
      if (access(j.candidatePath.c_str(), R_OK) != 0) {
        std::cerr << "cudaperf-eval: " << j.candidatePath << ": cannot be read\n";
        return kExitBadCandidate;
      }
  }
  if (jobs.empty())
    usageError("nothing to evaluate");

  return evaltool::runJobs(jobs, opt, nvcc, outputPath, jsonl, summary, usageError);
}
