// cudaperf-eval: builds CUDA candidates for a task, runs each in a fresh sandboxed worker
// process, and writes one result document per candidate (docs/eval-result.md).
#include "cudaperf/Runtime/Evaluator.h"
#include "cudaperf/Runtime/Json.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace cudaperf;
using namespace cudaperf::runtime;

namespace {

// Exit codes (docs/eval-result.md).
constexpr int kExitOk = 0;           // every result written; no internal_error
constexpr int kExitInternal = 1;     // some result is internal_error, or the environment is unusable
constexpr int kExitUsage = 2;        // bad command line
constexpr int kExitInvalidTask = 3;  // the task does not load (problems on stderr)
constexpr int kExitBadCandidate = 4; // a candidate file cannot be read

const char *kUsage =
    "usage: cudaperf-eval TASK_DIR CANDIDATE.cu [CANDIDATE.cu ...] [options]\n"
    "       cudaperf-eval --batch FILE [options]   (lines \"TASK_DIR CANDIDATE.cu\"; '#' comments)\n"
    "       cudaperf-eval --validate TASK_DIR...\n"
    "\n"
    "Builds each candidate with nvcc (cached), runs it against the task's reference and times it\n"
    "against impls/baseline.cu in a fresh worker process, and prints one JSON result per candidate\n"
    "(pretty for one candidate, JSON Lines otherwise).\n"
    "\n"
    "options:\n"
    "  --compile-only        build only (works without a GPU)\n"
    "  --arch sm_XX          target (default: the GPU's; sm_90 when compiling without one)\n"
    "  --jobs N              parallel builds (default 1); runs are always one at a time\n"
    "  --seed N              base seed of the input sets (default 1)\n"
    "  --sets N              input sets per configuration (default 3, at least 3 recommended)\n"
    "  --no-timing           correctness only\n"
    "  --configs A,B         only these input configurations of each task (quick screening)\n"
    "  --warmup N --min-runs N --max-runs N --budget-ms X   timing loop (3, 20, 1000, 100)\n"
    "  --timeout S           kill a worker after S seconds in all (default 120)\n"
    "  --stall-timeout S     kill a worker that makes no progress for S seconds (default 10)\n"
    "  --compile-timeout S   per build (default 60)\n"
    "  --output-limit BYTES  worker stdout+stderr limit (default 1048576)\n"
    "  --cache-dir DIR       build cache (default $CUDAPERF_CACHE_DIR or ~/.cache/cudaperf/build)\n"
    "  --no-cache            always rebuild\n"
    "  --worker PATH         cudaperf-eval-worker to use\n"
    "  --counters            after timing, the candidate's hardware counters per kernel (CUPTI;\n"
    "                        docs/counters.md), a separate pass\n"
    "  --torch-reference PATH  cudaperf-torch-reference to use (pytorch-to-cuda tasks)\n"
    "  --nvcc PATH           nvcc to use\n"
    "  --output FILE         write results here instead of stdout\n"
    "  --jsonl               one line per result even for a single candidate\n"
    "  --summary             one line per candidate on stderr\n";

[[noreturn]] void usageError(const std::string &msg) {
  std::cerr << "cudaperf-eval: " << msg << "\n\n" << kUsage;
  std::exit(kExitUsage);
}

std::string summaryLine(const json::Value &r) {
  char speed[32] = "-";
  if (const json::Value *s = r.get("speedup"); s && s->isNumber())
    snprintf(speed, sizeof speed, "%.2fx", s->asNumber());
  std::string detail = r.get("detail") && r.get("detail")->isString() ? r.get("detail")->asString() : "";
  if (size_t nl = detail.find('\n'); nl != std::string::npos)
    detail = detail.substr(0, nl);
  return r.get("candidate")->asString() + ": " + r.get("outcome")->asString() + " speedup " + speed +
         (detail.empty() ? "" : " (" + detail + ")");
}

} // namespace

int main(int argc, char **argv) {
  EvalOptions opt;
  std::vector<std::string> positional;
  std::string batchFile, outputPath, nvcc;
  bool jsonl = false, summary = false, validateOnly = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usageError("missing value for " + a);
      return argv[++i];
    };
    auto number = [&]() -> double {
      std::string v = value();
      char *end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || d < 0)
        usageError("bad number for " + a + ": " + v);
      return d;
    };
    if (a == "-h" || a == "--help") { std::cout << kUsage; return kExitOk; }
    else if (a == "--compile-only") opt.compileOnly = true;
    else if (a == "--arch") opt.arch = value();
    else if (a == "--jobs" || a == "-j") opt.jobs = int(number());
    else if (a == "--seed") opt.seed = uint64_t(number());
    else if (a == "--sets") opt.sets = std::max(1, int(number()));
    else if (a == "--no-timing") opt.timing = false;
    else if (a == "--warmup") opt.warmup = int(number());
    else if (a == "--min-runs") opt.minRuns = std::max(1, int(number()));
    else if (a == "--max-runs") opt.maxRuns = std::max(1, int(number()));
    else if (a == "--budget-ms") opt.budgetMs = number();
    else if (a == "--timeout") opt.timeoutSeconds = number();
    else if (a == "--stall-timeout") opt.stallSeconds = number();
    else if (a == "--compile-timeout") opt.build.timeoutSeconds = number();
    else if (a == "--output-limit") opt.outputLimitBytes = int64_t(number());
    else if (a == "--cache-dir") opt.build.cacheDir = value();
    else if (a == "--no-cache") opt.build.useCache = false;
    else if (a == "--worker") opt.workerPath = value();
    else if (a == "--counters") opt.counters = true;
    else if (a == "--configs") opt.configs = parseConfigList(value());
    else if (a == "--torch-reference") opt.torchReferencePath = value();
    else if (a == "--nvcc") nvcc = value();
    else if (a == "--batch") batchFile = value();
    else if (a == "--output" || a == "-o") outputPath = value();
    else if (a == "--jsonl") jsonl = true;
    else if (a == "--summary") summary = true;
    else if (a == "--validate") validateOnly = true;
    else if (a.size() > 1 && a[0] == '-') usageError("unknown option " + a);
    else positional.push_back(a);
  }

  if (validateOnly) {
    if (positional.empty())
      usageError("--validate needs task directories");
    int rc = kExitOk;
    for (const auto &dir : positional) {
      try {
        Task t = loadTask(dir);
        std::cout << dir << ": ok (" << t.name << ", " << t.args.size() << " arguments, " << t.configs.size()
                  << " configurations, impls:";
        for (const auto &n : t.implNames())
          std::cout << " " << n;
        std::cout << ")\n";
      } catch (const TaskError &e) {
        std::cerr << dir << ": " << e.what() << "\n";
        rc = kExitInvalidTask;
      }
    }
    return rc;
  }

  std::vector<EvalJob> jobs;
  if (!batchFile.empty()) {
    if (!positional.empty())
      usageError("--batch takes no positional arguments");
    std::ifstream in(batchFile);
    if (!in)
      usageError("cannot read " + batchFile);
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
      ++lineNo;
      std::stringstream ss(line);
      EvalJob job;
      if (!(ss >> job.taskDir) || job.taskDir[0] == '#')
        continue;
      if (!(ss >> job.candidatePath))
        usageError(batchFile + ":" + std::to_string(lineNo) + ": expected \"TASK_DIR CANDIDATE.cu\"");
      jobs.push_back(job);
    }
  } else {
    if (positional.size() < 2)
      usageError("expected TASK_DIR and at least one CANDIDATE.cu");
    for (size_t i = 1; i < positional.size(); ++i)
      jobs.push_back({positional[0], positional[i]});
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

  Toolchain tc;
  try {
    tc = findToolchain(nvcc);
  } catch (const std::exception &e) {
    std::cerr << "cudaperf-eval: " << e.what() << "\n";
    return kExitInternal;
  }
  Evaluator evaluator(opt, tc);
  if (std::string err = evaluator.prepare(); !err.empty()) {
    std::cerr << "cudaperf-eval: " << err << "\n";
    return kExitInternal;
  }

  std::ofstream file;
  if (!outputPath.empty()) {
    file.open(outputPath, std::ios::trunc);
    if (!file)
      usageError("cannot write " + outputPath);
  }
  std::ostream &out = outputPath.empty() ? std::cout : file;
  bool pretty = jobs.size() == 1 && !jsonl;
  int rc = kExitOk;
  evaluator.run(jobs, [&](size_t, const json::Value &r) {
    out << json::write(r, pretty ? 2 : -1) << "\n";
    out.flush();
    if (summary)
      std::cerr << summaryLine(r) << "\n";
    if (resultOutcome(r) == Outcome::InternalError)
      rc = kExitInternal;
  });
  return rc;
}
