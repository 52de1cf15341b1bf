// The evaluator's result document, `cudaperf-eval-result/1` (docs/eval-result.md): one typed
// definition that every writer fills and every reader reads.
//
// Every member is optional except `schema` and `outcome`: the writers emit different subsets (a
// candidate that never reached a worker has no `configs`), so presence is part of the value. A
// member that may also be null ("speedup": null) is a Nullable. Parts that are the worker's event
// payloads copied through (gpu, sandbox, memory, audit, counters, launches, the correctness checks,
// ...) are kept as JSON: the worker's protocol owns their keys.
//
// The round trip is exact: fromJson keeps unknown keys (`extra`) and each object's key order
// (`keyOrder`), and toJson writes them back where they were, so a stored result reads and writes
// back byte-identically (test/schema pins this over every stored result in the repository).
// Readers fail with the field path: `configs[2].candidate.median_ms: expected a number, got "x"`.
#pragma once

#include "cudaperf/Schema/Outcome.h"
#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::schema {

using support::Json;

inline constexpr const char *kEvalResultSchema = "cudaperf-eval-result/1";

// A member that is absent (nullopt), null (a nullopt inside) or holds a value.
template <class T> using Nullable = std::optional<std::optional<T>>;

// The keys of an object in the order they were read; empty: the writer's own order.
using KeyOrder = std::vector<std::string>;

// configs[i].baseline / .candidate: the timing of one implementation at one configuration.
struct Timing {
  std::optional<double> medianMs, minMs, maxMs, meanMs, p10Ms, p90Ms, spread;
  std::optional<int64_t> runs;
  std::optional<bool> stable;
  std::optional<Json> integrity; // fresh_inputs, checked_calls, request_wall_median_ms, wall_clock
  Json extra = Json::object();
  KeyOrder keyOrder;
};

// configs[i].correctness.
struct Correctness {
  std::optional<bool> pass;
  std::optional<Json> checks; // an array of the worker's check events (set, seed, step, pass, ...)
  Json extra = Json::object();
  KeyOrder keyOrder;
};

// One entry of `configs`, in task order.
struct ConfigResult {
  std::optional<std::string> name;
  std::optional<Json> params; // an object: size name -> number
  std::optional<Timing> baseline, candidate;
  std::optional<Correctness> correctness;
  std::optional<Json> launches; // an array
  std::optional<bool> launchesTruncated;
  std::optional<Timing> pytorchEager; // pytorch-to-cuda: PyTorch eager's timing
  std::optional<Json> audit, counters; // objects: the worker's audit and counters events
  std::optional<double> referenceMs;
  Nullable<double> speedupVsBaseline;
  std::optional<double> speedup;
  Json extra = Json::object();
  KeyOrder keyOrder;
};

// One configuration read on its own (a writer that builds it from events); errors name
// `document` and the path inside the configuration.
ConfigResult configResultFromJson(const Json &config, const std::string &document);
Json configResultToJson(const ConfigResult &config);

// `compile`.
struct CompileInfo {
  std::optional<bool> ok, cached;
  std::optional<double> seconds;
  std::optional<std::string> arch, command, log;
  Json extra = Json::object();
  KeyOrder keyOrder;
};

// `tools`.
struct ToolVersions {
  std::optional<std::string> cudaperfEval, nvcc, hostCompiler;
  Nullable<int64_t> driverVersion, cudaRuntimeVersion;
  Json extra = Json::object();
  KeyOrder keyOrder;
};

// `worker`: how the worker process ended and where its time went.
struct WorkerInfo {
  std::optional<std::string> status;
  std::optional<double> seconds;
  std::optional<std::string> output;
  std::optional<int64_t> outputBytes;
  std::optional<bool> outputTruncated;
  std::optional<std::string> lastPhase;
  std::optional<Json> stageSeconds; // an object: stage -> seconds
  std::optional<Json> phaseSeconds; // an object: "impl step" -> seconds from its phase event to the next
  std::optional<int64_t> retries;
  std::optional<int64_t> maxConnections;
  std::optional<double> memoryWaitSeconds;
  std::optional<bool> sharedDataIntact;
  std::optional<std::string> dataMode;
  Json extra = Json::object();
  KeyOrder keyOrder;
};

struct EvalResult {
  std::string schema = kEvalResultSchema;
  std::optional<std::string> task, taskDir, candidate, candidateSha256;
  Outcome outcome = Outcome::InternalError;
  // The name when the document's outcome is one this build does not know (a newer evaluator adds
  // outcomes: docs/eval-result.md); `outcome` is then InternalError. Written back as it was.
  std::string unknownOutcome;
  std::optional<std::string> detail;
  Nullable<double> speedup;
  std::optional<CompileInfo> compile;
  std::optional<bool> compileOnly;
  std::optional<int64_t> seed, sets;
  std::optional<Json> gpu, sandbox; // objects: the worker's device and sandbox events
  std::optional<WorkerInfo> worker;
  std::optional<bool> baselineCached;
  Nullable<bool> gpuShared;
  std::optional<Json> gpuActivity, memory, stageSeconds, taskData; // objects
  std::optional<std::vector<ConfigResult>> configs;
  std::optional<ToolVersions> tools;
  std::optional<double> evaluationSeconds;
  Json extra = Json::object(); // unknown keys, kept for the round trip
  KeyOrder keyOrder;

  // Reads a document; `document` names it in errors ("result.json"). Throws support::SupportError
  // "DOCUMENT: PATH: WHAT" for a wrong schema, a missing outcome or a wrong type.
  static EvalResult fromJson(const Json &doc, const std::string &document = "eval result");
  Json toJson() const;

  // Named constructors for the failure documents.
  // A candidate that never reached a worker (the evaluator could not take it).
  static EvalResult notRun(const std::string &taskDir, const std::string &candidate, Outcome outcome,
                           const std::string &detail);
  // A candidate whose task data could not be prepared on its device (stage_seconds so far).
  static EvalResult taskDataFailed(const std::string &task, const std::string &taskDir, const std::string &candidate,
                                   const std::string &detail, const Json &stageSeconds);
  // A result made without the evaluator (a policy answer with no code block, a repair example's
  // failed build): the keys the reward reads, compile.{ok,log} only.
  static EvalResult synthetic(const std::string &task, const std::string &taskDir, const std::string &candidate,
                              const std::string &candidateSha256, Outcome outcome, const std::string &detail,
                              const std::string &compileLog, bool compileOnly);

  // The outcome's wire name (unknownOutcome when set).
  std::string outcomeText() const { return unknownOutcome.empty() ? outcomeName(outcome) : unknownOutcome; }

  // Convenience for readers.
  bool compiled() const { return compile && compile->ok.value_or(false); }
  std::optional<double> speedupValue() const { return speedup ? *speedup : std::nullopt; }
};

} // namespace cudaperf::schema
