#include "cudaperf/Schema/EvalResult.h"

#include "ObjectIO.h"

#include "cudaperf/Support/JsonReader.h"

#include <set>

namespace cudaperf::schema {

using support::JsonField;

namespace {

using detail::ObjectReader;
using detail::ObjectWriter;

Timing readTiming(const JsonField &f) {
  Timing t;
  ObjectReader r(f, t.extra, t.keyOrder);
  t.medianMs = r.number("median_ms");
  t.minMs = r.number("min_ms");
  t.maxMs = r.number("max_ms");
  t.meanMs = r.number("mean_ms");
  t.p10Ms = r.number("p10_ms");
  t.p90Ms = r.number("p90_ms");
  t.spread = r.number("spread");
  t.runs = r.integer("runs");
  t.stable = r.boolean("stable");
  t.integrity = r.object("integrity");
  r.keepRest();
  return t;
}

Json writeTiming(const Timing &t) {
  ObjectWriter w;
  w.put("median_ms", t.medianMs);
  w.put("min_ms", t.minMs);
  w.put("max_ms", t.maxMs);
  w.put("mean_ms", t.meanMs);
  w.put("p10_ms", t.p10Ms);
  w.put("p90_ms", t.p90Ms);
  w.put("spread", t.spread);
  w.put("runs", t.runs);
  w.put("stable", t.stable);
  w.put("integrity", t.integrity);
  return w.finish(t.extra, t.keyOrder);
}

Correctness readCorrectness(const JsonField &f) {
  Correctness c;
  ObjectReader r(f, c.extra, c.keyOrder);
  c.pass = r.boolean("pass");
  c.checks = r.array("checks");
  r.keepRest();
  return c;
}

Json writeCorrectness(const Correctness &c) {
  ObjectWriter w;
  w.put("pass", c.pass);
  w.put("checks", c.checks);
  return w.finish(c.extra, c.keyOrder);
}

ConfigResult readConfig(const JsonField &f) {
  ConfigResult c;
  ObjectReader r(f, c.extra, c.keyOrder);
  c.name = r.string("name");
  c.params = r.object("params");
  if (auto b = r.take("baseline"))
    c.baseline = readTiming(*b);
  if (auto k = r.take("correctness"))
    c.correctness = readCorrectness(*k);
  c.launches = r.array("launches");
  c.launchesTruncated = r.boolean("launches_truncated");
  c.audit = r.object("audit");
  if (auto k = r.take("candidate"))
    c.candidate = readTiming(*k);
  c.counters = r.object("counters");
  c.referenceMs = r.number("reference_ms");
  if (auto k = r.take("pytorch_eager"))
    c.pytorchEager = readTiming(*k);
  c.speedupVsBaseline = r.nullableNumber("speedup_vs_baseline");
  c.speedup = r.number("speedup");
  r.keepRest();
  return c;
}

Json writeConfig(const ConfigResult &c) {
  ObjectWriter w;
  w.put("name", c.name);
  w.put("params", c.params);
  if (c.baseline)
    w.put("baseline", writeTiming(*c.baseline));
  if (c.correctness)
    w.put("correctness", writeCorrectness(*c.correctness));
  w.put("launches", c.launches);
  w.put("launches_truncated", c.launchesTruncated);
  w.put("audit", c.audit);
  if (c.candidate)
    w.put("candidate", writeTiming(*c.candidate));
  w.put("counters", c.counters);
  w.put("reference_ms", c.referenceMs);
  if (c.pytorchEager)
    w.put("pytorch_eager", writeTiming(*c.pytorchEager));
  w.put("speedup_vs_baseline", c.speedupVsBaseline);
  w.put("speedup", c.speedup);
  return w.finish(c.extra, c.keyOrder);
}

CompileInfo readCompile(const JsonField &f) {
  CompileInfo c;
  ObjectReader r(f, c.extra, c.keyOrder);
  c.ok = r.boolean("ok");
  c.cached = r.boolean("cached");
  c.seconds = r.number("seconds");
  c.arch = r.string("arch");
  c.command = r.string("command");
  c.log = r.string("log");
  r.keepRest();
  return c;
}

Json writeCompile(const CompileInfo &c) {
  ObjectWriter w;
  w.put("ok", c.ok);
  w.put("cached", c.cached);
  w.put("seconds", c.seconds);
  w.put("arch", c.arch);
  w.put("command", c.command);
  w.put("log", c.log);
  return w.finish(c.extra, c.keyOrder);
}

ToolVersions readTools(const JsonField &f) {
  ToolVersions t;
  ObjectReader r(f, t.extra, t.keyOrder);
  t.cudaperfEval = r.string("cudaperf_eval");
  t.nvcc = r.string("nvcc");
  t.hostCompiler = r.string("host_compiler");
  t.driverVersion = r.nullableInteger("driver_version");
  t.cudaRuntimeVersion = r.nullableInteger("cuda_runtime_version");
  r.keepRest();
  return t;
}

Json writeTools(const ToolVersions &t) {
  ObjectWriter w;
  w.put("cudaperf_eval", t.cudaperfEval);
  w.put("nvcc", t.nvcc);
  w.put("host_compiler", t.hostCompiler);
  w.put("driver_version", t.driverVersion);
  w.put("cuda_runtime_version", t.cudaRuntimeVersion);
  return w.finish(t.extra, t.keyOrder);
}

WorkerInfo readWorker(const JsonField &f) {
  WorkerInfo k;
  ObjectReader r(f, k.extra, k.keyOrder);
  k.status = r.string("status");
  k.seconds = r.number("seconds");
  k.output = r.string("output");
  k.outputBytes = r.integer("output_bytes");
  k.outputTruncated = r.boolean("output_truncated");
  k.lastPhase = r.string("last_phase");
  k.stageSeconds = r.object("stage_seconds");
  k.phaseSeconds = r.object("phase_seconds");
  k.retries = r.integer("retries");
  k.maxConnections = r.integer("max_connections");
  k.memoryWaitSeconds = r.number("memory_wait_seconds");
  k.sharedDataIntact = r.boolean("shared_data_intact");
  k.dataMode = r.string("data_mode");
  r.keepRest();
  return k;
}

Json writeWorker(const WorkerInfo &k) {
  ObjectWriter w;
  w.put("status", k.status);
  w.put("seconds", k.seconds);
  w.put("output", k.output);
  w.put("output_bytes", k.outputBytes);
  w.put("output_truncated", k.outputTruncated);
  w.put("last_phase", k.lastPhase);
  w.put("stage_seconds", k.stageSeconds);
  w.put("phase_seconds", k.phaseSeconds);
  w.put("retries", k.retries);
  w.put("max_connections", k.maxConnections);
  w.put("memory_wait_seconds", k.memoryWaitSeconds);
  w.put("shared_data_intact", k.sharedDataIntact);
  w.put("data_mode", k.dataMode);
  return w.finish(k.extra, k.keyOrder);
}

} // namespace

ConfigResult configResultFromJson(const Json &config, const std::string &document) {
  return readConfig(JsonField(config, document));
}

Json configResultToJson(const ConfigResult &config) { return writeConfig(config); }

EvalResult EvalResult::fromJson(const Json &doc, const std::string &document) {
  JsonField root(doc, document);
  EvalResult e;
  e.schema.clear();
  ObjectReader r(root, e.extra, e.keyOrder);
  auto schema = r.take("schema");
  if (!schema)
    throw support::SupportError(document + ": missing \"schema\" (expected \"" + std::string(kEvalResultSchema) + "\")");
  e.schema = schema->string();
  if (e.schema != kEvalResultSchema)
    schema->fail("expected \"" + std::string(kEvalResultSchema) + "\", got \"" + e.schema + "\"");
  e.task = r.string("task");
  e.taskDir = r.string("task_dir");
  e.candidate = r.string("candidate");
  e.candidateSha256 = r.string("candidate_sha256");
  auto outcome = r.take("outcome");
  if (!outcome)
    throw support::SupportError(document + ": missing \"outcome\"");
  std::string name = outcome->string();
  std::optional<Outcome> parsed = parseOutcome(name);
  e.outcome = parsed.value_or(Outcome::InternalError);
  if (!parsed)
    e.unknownOutcome = name;
  e.detail = r.string("detail");
  e.speedup = r.nullableNumber("speedup");
  if (auto c = r.take("compile"))
    e.compile = readCompile(*c);
  e.compileOnly = r.boolean("compile_only");
  e.seed = r.integer("seed");
  e.sets = r.integer("sets");
  e.gpu = r.object("gpu");
  e.sandbox = r.object("sandbox");
  if (auto w = r.take("worker"))
    e.worker = readWorker(*w);
  e.baselineCached = r.boolean("baseline_cached");
  e.gpuShared = r.nullableBoolean("gpu_shared");
  e.gpuActivity = r.object("gpu_activity");
  e.memory = r.object("memory");
  e.stageSeconds = r.object("stage_seconds");
  if (auto cs = r.take("configs")) {
    if (!cs->json().is_array())
      cs->expected("an array");
    e.configs.emplace();
    for (const JsonField &c : cs->elements())
      e.configs->push_back(readConfig(c));
  }
  if (auto t = r.take("tools"))
    e.tools = readTools(*t);
  e.evaluationSeconds = r.number("evaluation_seconds");
  e.taskData = r.object("task_data");
  r.keepRest();
  return e;
}

Json EvalResult::toJson() const {
  ObjectWriter w;
  w.put("schema", Json(schema));
  w.put("task", task);
  w.put("task_dir", taskDir);
  w.put("candidate", candidate);
  w.put("candidate_sha256", candidateSha256);
  w.put("outcome", Json(outcomeText()));
  w.put("detail", detail);
  w.put("speedup", speedup);
  if (compile)
    w.put("compile", writeCompile(*compile));
  w.put("compile_only", compileOnly);
  w.put("seed", seed);
  w.put("sets", sets);
  w.put("gpu", gpu);
  w.put("sandbox", sandbox);
  if (worker)
    w.put("worker", writeWorker(*worker));
  w.put("baseline_cached", baselineCached);
  w.put("gpu_shared", gpuShared);
  w.put("gpu_activity", gpuActivity);
  w.put("memory", memory);
  w.put("stage_seconds", stageSeconds);
  if (configs) {
    Json a = Json::array();
    for (const ConfigResult &c : *configs)
      a.push_back(writeConfig(c));
    w.put("configs", a);
  }
  if (tools)
    w.put("tools", writeTools(*tools));
  w.put("evaluation_seconds", evaluationSeconds);
  w.put("task_data", taskData);
  return w.finish(extra, keyOrder);
}

EvalResult EvalResult::notRun(const std::string &taskDir, const std::string &candidate, Outcome outcome,
                              const std::string &detail) {
  EvalResult e;
  e.taskDir = taskDir;
  e.candidate = candidate;
  e.outcome = outcome;
  e.detail = detail;
  return e;
}

EvalResult EvalResult::taskDataFailed(const std::string &task, const std::string &taskDir,
                                      const std::string &candidate, const std::string &detail,
                                      const Json &stageSeconds) {
  EvalResult e;
  e.task = task;
  e.taskDir = taskDir;
  e.candidate = candidate;
  e.outcome = Outcome::InternalError;
  e.detail = detail;
  e.stageSeconds = stageSeconds;
  return e;
}

EvalResult EvalResult::synthetic(const std::string &task, const std::string &taskDir, const std::string &candidate,
                                 const std::string &candidateSha256, Outcome outcome, const std::string &detail,
                                 const std::string &compileLog, bool compileOnly) {
  EvalResult e;
  e.task = task;
  e.taskDir = taskDir;
  e.candidate = candidate;
  e.candidateSha256 = candidateSha256;
  e.outcome = outcome;
  e.detail = detail;
  e.speedup = std::optional<double>();
  e.compile.emplace();
  e.compile->ok = outcome != Outcome::CompileError;
  e.compile->log = compileLog;
  e.compileOnly = compileOnly;
  return e;
}

} // namespace cudaperf::schema
