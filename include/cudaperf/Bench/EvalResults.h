// Typed readers of what cudaperf-bench scores: cudaperf-eval's result documents
// (docs/eval-result.md, schema cudaperf-eval-result/1) and the PyTorch timings of
// scripts/torch-baselines.py (<task>/exported/torch-timing.json, schema cudaperf-torch-timing/1).
// Unknown keys are ignored: both contracts add keys. The result is read with lib/Schema's
// EvalResult (the document's one reader); this is what the bench scores of it.
#pragma once

#include "cudaperf/Bench/Metrics.h"

#include "cudaperf/Schema/Outcome.h"
#include "cudaperf/Support/Json.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::bench {

struct ConfigResult {
  std::string name;
  std::optional<Timing> candidate, baseline, eager; // eager: pytorch_eager (pytorch-to-cuda tasks)
  bool audited = false;                             // the audit call ran (docs/eval-result.md)
  std::vector<std::string> launchedKernels;         // launches[].kernel, when the evaluator recorded them
};

struct EvalResult {
  std::string where; // file:line it was read from
  std::string task, taskDir, candidate, detail;
  schema::Outcome outcome = schema::Outcome::InternalError;
  std::string unknownOutcome; // an outcome a newer evaluator added (outcome is then InternalError)
  std::string gpu, evaluatorVersion;
  bool gpuShared = false; // the evaluator saw other work on the GPU during the run
  bool baselineCached = false; // the baseline's timing was reused from an earlier worker (--baseline-reuse)
  std::vector<ConfigResult> configs;

  bool ok() const { return unknownOutcome.empty() && outcome == schema::Outcome::Ok; }
  std::string outcomeText() const { return unknownOutcome.empty() ? schema::outcomeName(outcome) : unknownOutcome; }
};

// Throws BenchError (Results) naming `where` and the field: not an object, another schema, a
// missing task/candidate/outcome, a timing that is not an object of numbers.
EvalResult parseEvalResult(const support::Json &doc, const std::string &where);
// A JSON Lines file of results (blank lines skipped), or one pretty-printed document.
std::vector<EvalResult> readEvalResults(const std::string &path);

struct TorchTimings {
  std::string path, task, torchVersion, device;
  std::map<std::string, Timing> eager, compiled; // per configuration name
  std::map<std::string, std::string> compileErrors; // configurations torch.compile failed on, and why
};
// <taskDir>/exported/torch-timing.json; nullopt when absent. Throws BenchError (Results) when it
// exists but cannot be used.
std::optional<TorchTimings> readTorchTimings(const std::string &taskDir);
std::string torchTimingsPath(const std::string &taskDir);
TorchTimings parseTorchTimings(const support::Json &doc, const std::string &where);
// A JSON Lines file of such documents, one per task (each with its "task"), as stored beside
// results under data/eval-runs/ (--torch-timings): by task name.
std::map<std::string, TorchTimings> readTorchTimingsFile(const std::string &path);

} // namespace cudaperf::bench
