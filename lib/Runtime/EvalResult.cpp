#include "cudaperf/Runtime/EvalResult.h"
#include "cudaperf/Schema/EvalResult.h"
#include "cudaperf/Schema/Protocol.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>

namespace cudaperf::runtime {

using support::Json;
using support::member;
using schema::WorkerEvent;
namespace events = schema::events;

namespace {

double numberOr(const Json *v, double fallback) { return v && v->is_number() ? v->get<double>() : fallback; }

std::string firstLines(const std::string &log, size_t maxLines, size_t maxChars) {
  std::string out;
  size_t lines = 0;
  for (char c : log) {
    if (out.size() >= maxChars || lines >= maxLines)
      break;
    out += c;
    if (c == '\n')
      ++lines;
  }
  while (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

Json timingOf(const Json &e) {
  Json t = Json::object();
  for (const char *k :
       {"median_ms", "min_ms", "max_ms", "mean_ms", "p10_ms", "p90_ms", "spread", "runs", "stable", "integrity"})
    if (const Json *v = member(e, k))
      t[k] = *v;
  return t;
}

std::string describePhase(const WorkerEvent *phase) {
  if (!phase)
    return "start-up";
  const events::Phase &p = *phase->as<events::Phase>();
  std::string s = p.step.value_or("") + " of the " + phase->impl.value_or("");
  if (!phase->config.value_or("").empty())
    s += ", config " + *phase->config;
  if (p.set)
    s += ", input set " + std::to_string(*p.set);
  return s;
}

// Where the worker's time went, per phase: from each phase event to the next phase event, the
// impl's verdict or the last event, summed per "impl step" (configurations and input sets together).
Json phaseSeconds(const std::vector<WorkerEvent> &events) {
  Json out = Json::object();
  std::string open;
  double since = -1;
  for (const WorkerEvent &e : events) {
    double t = e.t.value_or(-1);
    const events::Phase *phase = e.as<events::Phase>();
    bool closes = phase || e.is<events::Verdict>() || e.is<events::Done>();
    if (!closes || t < 0)
      continue;
    if (!open.empty() && since >= 0 && t >= since)
      out[open] = numberOr(member(out, open.c_str()), 0) + (t - since);
    open = phase ? e.impl.value_or("") + " " + phase->step.value_or("") : std::string();
    since = t;
  }
  return out;
}

} // namespace

bool retryableSetupError(const std::string &text) {
  for (const WorkerEvent &e : schema::readWorkerEvents(text))
    if (const events::Error *error = e.as<events::Error>())
      return error->retryable.value_or(false);
  return false;
}

Json gpuActivityJson(const GpuSharing &s) {
  Json a = Json::object();
  a["available"] = s.available;
  if (!s.available) {
    a["reason"] = s.reason;
    return a;
  }
  a["samples"] = s.samples;
  a["other_processes"] = Json::array();
  for (const OtherProcess &o : s.others)
    a["other_processes"].push_back({{"pid", o.pid}, {"name", o.name}, {"max_memory_bytes", o.maxBytes},
                                    {"samples", o.samples}});
  a["max_processes"] = s.maxProcesses;
  a["pid_namespace_matches"] = s.pidsMatched;
  a["utilization_max_pct"] = s.utilizationMax;
  a["utilization_mean_pct"] = s.utilizationMean;
  a["memory_used_max_bytes"] = s.memoryUsedMaxBytes;
  return a;
}

Outcome resultOutcome(const Json &result) {
  const Json *o = member(result, "outcome");
  if (o && o->is_string())
    if (auto parsed = parseOutcome(o->get<std::string>()))
      return *parsed;
  return Outcome::InternalError;
}

Json assembleResult(const EvalRecord &r) {
  schema::EvalResult doc;
  doc.task = r.task ? r.task->name : "";
  doc.taskDir = r.task ? r.task->dir : "";
  doc.candidate = r.candidatePath;
  doc.candidateSha256 = r.candidateSha256;
  doc.outcome = Outcome::InternalError;
  doc.detail = "";
  doc.speedup = std::optional<double>(); // null until every configuration is timed

  schema::CompileInfo &compile = doc.compile.emplace();
  compile.ok = r.candidateBuild.ok;
  compile.cached = r.candidateBuild.cached;
  compile.seconds = r.candidateBuild.seconds;
  compile.arch = r.arch;
  compile.command = r.candidateBuild.command;
  compile.log = r.candidateBuild.log;
  doc.compileOnly = r.compileOnly;

  schema::ToolVersions tools;
  tools.cudaperfEval = kEvalVersion;
  if (r.toolchain) {
    tools.nvcc = r.toolchain->nvccVersion;
    tools.hostCompiler = firstLines(r.toolchain->hostCompilerVersionText, 1, 200);
  }

  auto finishDoc = [&](Outcome o, const std::string &detail) {
    doc.outcome = o;
    doc.detail = detail;
    doc.tools = std::move(tools);
    doc.evaluationSeconds = r.evaluationSeconds;
    return doc.toJson();
  };

  if (!r.candidateBuild.ok)
    return finishDoc(Outcome::CompileError,
                     r.candidateBuild.timedOut ? "compilation timed out" : firstLines(r.candidateBuild.log, 20, 4000));
  if (r.compileOnly)
    return finishDoc(Outcome::Ok, "compiled (--compile-only: not run)");
  if (!r.workerRan)
    return finishDoc(Outcome::InternalError, "the worker was not started");

  doc.seed = (int64_t)r.seed;
  doc.sets = r.sets;
  // Untrusted input (docs/security.md): each field is read only where it has the type it should.
  std::vector<WorkerEvent> events = schema::readWorkerEvents(r.events);

  // Per-configuration record, in task order.
  std::vector<Json> configs;
  if (r.task)
    for (const Config &c : r.task->configs) {
      Json o = Json::object();
      o["name"] = c.name;
      Json params = Json::object();
      for (const auto &kv : c.params)
        params[kv.first] = kv.second == std::floor(kv.second) ? Json((long long)kv.second) : Json(kv.second);
      o["params"] = std::move(params);
      configs.push_back(std::move(o));
    }
  auto configIndex = [&](const std::string &name) -> int {
    for (size_t i = 0; i < configs.size(); ++i)
      if (configs[i]["name"] == name)
        return int(i);
    return -1;
  };

  const WorkerEvent *lastPhase = nullptr, *baselineVerdict = nullptr, *candidateVerdict = nullptr,
                    *setupError = nullptr;
  bool done = false, baselineCached = false, sharedDataIntact = true;
  int retries = 0;
  double memoryWaitSeconds = 0;
  std::string dataMode;
  Json memory;
  std::vector<std::vector<double>> referenceMs(configs.size());
  // Where the worker's time went: seconds from its start at which each stage ended.
  double tDevice = -1, tReference = -1, tBaseline = -1, tEnd = -1, tCandidateVerdict = -1;
  double contextSeconds = -1, contextWaitSeconds = -1;
  for (const WorkerEvent &e : events) {
    double t = e.t.value_or(-1);
    std::string impl = e.impl.value_or("");
    tEnd = t;
    if (const events::Start *start = e.as<events::Start>()) {
      contextSeconds = start->contextSeconds.value_or(-1);
      contextWaitSeconds = start->contextWaitSeconds.value_or(-1);
    } else if (e.is<events::Device>())
      tDevice = t;
    else if (e.is<events::Reference>())
      tReference = t;
    else if (e.is<events::Verdict>() && impl == "baseline")
      tBaseline = t;
    else if (e.is<events::Verdict>() && impl == "candidate")
      tCandidateVerdict = t;
    int ci = configIndex(e.config.value_or(""));
    if (e.is<events::Phase>()) {
      lastPhase = &e;
    } else if (e.is<events::Device>()) {
      Json gpu = schema::workerEventToJson(e);
      gpu.erase("event");
      gpu.erase("t");
      gpu.erase("pid");
      auto version = [&](const char *key) {
        const Json *v = member(gpu, key);
        return v && v->is_number_integer() ? std::optional<int64_t>(v->get<int64_t>()) : std::nullopt;
      };
      tools.driverVersion = version("driver_version");
      tools.cudaRuntimeVersion = version("runtime_version");
      doc.gpu = std::move(gpu);
    } else if (const events::Reference *ref = e.as<events::Reference>(); ref && ci >= 0) {
      referenceMs[size_t(ci)].push_back(ref->ms.value_or(0));
    } else if (const events::Check *check = e.as<events::Check>(); check && ci >= 0 && impl == "candidate") {
      Json c = schema::workerEventPayload(e);
      Json &corr = configs[size_t(ci)]["correctness"];
      if (!corr.is_object())
        corr = Json::object({{"pass", true}, {"checks", Json::array()}});
      if (!check->pass.value_or(false))
        corr["pass"] = false;
      corr["checks"].push_back(std::move(c));
    } else if (e.is<events::Timing>() && ci >= 0) {
      Json payload = schema::workerEventPayload(e);
      configs[size_t(ci)][impl] = timingOf(payload);
      // Whatever its value: a baseline line that says "cached" is an earlier worker's.
      if (impl == "baseline" && payload.contains("cached"))
        baselineCached = true;
    } else if (e.is<events::Audit>() && ci >= 0 && impl == "candidate") {
      // The launches of the audit call sit beside it, per configuration (the features join them
      // with the analyzer's launches).
      Json audit = schema::workerEventPayload(e);
      configs[size_t(ci)]["launches"] = audit.contains("launches") ? audit["launches"] : Json::array();
      configs[size_t(ci)]["launches_truncated"] = audit.value("launches_truncated", false);
      audit.erase("launches");
      audit.erase("launches_truncated");
      configs[size_t(ci)]["audit"] = std::move(audit);
    } else if (e.is<events::Memory>() && impl == "candidate") {
      memory = schema::workerEventPayload(e);
    } else if (e.is<events::Sandbox>()) {
      // Where the candidate ran and how it was confined (docs/security.md), in every result.
      doc.sandbox = schema::workerEventPayload(e);
    } else if (e.is<events::Retry>()) {
      ++retries;
    } else if (const events::DeviceData *data = e.as<events::DeviceData>()) {
      dataMode = data->mode.value_or("");
    } else if (const events::MemoryWait *wait = e.as<events::MemoryWait>()) {
      memoryWaitSeconds += wait->seconds.value_or(0);
    } else if (const events::SharedData *shared = e.as<events::SharedData>()) {
      sharedDataIntact = sharedDataIntact && shared->intact.value_or(false);
    } else if (e.is<events::Counters>() && ci >= 0 && impl == "candidate") {
      configs[size_t(ci)]["counters"] = schema::workerEventPayload(e);
    } else if (e.is<events::Verdict>()) {
      (impl == "baseline" ? baselineVerdict : candidateVerdict) = &e;
    } else if (e.is<events::Error>()) {
      setupError = &e;
    } else if (e.is<events::Done>()) {
      done = true;
    }
  }

  // Speedups per configuration and their geometric mean.
  double logSum = 0;
  int timed = 0;
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!referenceMs[i].empty()) {
      std::vector<double> v = referenceMs[i];
      std::sort(v.begin(), v.end());
      configs[i]["reference_ms"] = v[v.size() / 2];
    }
    // Read before anything is added to the object (which may move its members).
    const Json *cand = member(configs[i], "candidate");
    const Json *base = member(configs[i], "baseline");
    double c = cand ? numberOr(member(*cand, "median_ms"), 0) : 0;
    double b = base ? numberOr(member(*base, "median_ms"), 0) : 0;
    // pytorch-to-cuda: PyTorch eager is what the candidate is measured against; the baseline
    // implementation's ratio is kept beside it.
    const Json *eager = nullptr;
    if (r.pytorchEager)
      if (const Json *cs = member(*r.pytorchEager, "configs"))
        eager = member(*cs, configs[i]["name"].get<std::string>());
    const Json *eagerMedian = eager ? member(*eager, "median_ms") : nullptr;
    if (eagerMedian) {
      configs[i]["pytorch_eager"] = *eager;
      configs[i]["reference_ms"] = *eagerMedian;
    }
    double against = r.pytorchEager ? numberOr(eagerMedian, 0) : b;
    if (r.pytorchEager && c > 0 && b > 0)
      configs[i]["speedup_vs_baseline"] = b / c;
    else if (r.pytorchEager && c > 0 && r.task && !r.task->hasBaseline())
      configs[i]["speedup_vs_baseline"] = nullptr; // no impls/baseline.cu: eager is the one that counts
    if (c > 0 && against > 0) {
      configs[i]["speedup"] = against / c;
      logSum += std::log(against / c);
      ++timed;
    }
  }

  schema::WorkerInfo &worker = doc.worker.emplace();
  worker.status = r.worker.describe();
  worker.seconds = r.worker.seconds;
  worker.output = r.worker.output;
  worker.outputBytes = (int64_t)r.worker.outputBytes;
  worker.outputTruncated = r.worker.outputTruncated;
  if (lastPhase)
    worker.lastPhase = describePhase(lastPhase);
  if (tDevice >= 0) {
    Json stages = Json::object();
    stages["start_and_context"] = tDevice;
    if (contextSeconds >= 0)
      stages["context"] = contextSeconds;
    if (contextWaitSeconds >= 0)
      stages["context_wait"] = contextWaitSeconds;
    if (tReference >= 0)
      stages["inputs_and_reference"] = tReference - tDevice;
    if (tBaseline >= 0 && tReference >= 0)
      stages["baseline"] = tBaseline - tReference;
    // Without a baseline (a pytorch-to-cuda task without impls/baseline.cu) the candidate follows
    // the reference.
    bool noBaseline = r.task && !r.task->hasBaseline();
    double tCandidate = tBaseline >= 0 ? tBaseline : noBaseline ? tReference : -1;
    if (tCandidate >= 0 && tEnd >= tCandidate)
      stages["candidate"] = tEnd - tCandidate;
    // The hardware counters follow the candidate's verdict (part of "candidate" above).
    if (r.counters && tCandidateVerdict >= 0 && tEnd >= tCandidateVerdict)
      stages["counters"] = tEnd - tCandidateVerdict;
    worker.stageSeconds = std::move(stages);
    if (Json phases = phaseSeconds(events); !phases.empty())
      worker.phaseSeconds = std::move(phases);
  }
  worker.retries = retries;
  if (r.maxConnections > 0)
    worker.maxConnections = r.maxConnections;
  worker.memoryWaitSeconds = memoryWaitSeconds;
  worker.sharedDataIntact = sharedDataIntact;
  if (!dataMode.empty())
    worker.dataMode = dataMode; // "ipc": the holder's data mapped; "copy": a copy of its own
  doc.baselineCached = baselineCached;
  if (r.sharing) {
    Json activity = gpuActivityJson(*r.sharing);
    double spread = 0;
    for (const Json &c : configs)
      for (const char *impl : {"baseline", "candidate"})
        if (const Json *t = member(c, impl))
          spread = std::max(spread, numberOr(member(*t, "spread"), 0));
    activity["timing_spread_max"] = spread;
    doc.gpuShared = r.sharing->available ? std::optional<bool>(r.sharing->shared) : std::nullopt;
    doc.gpuActivity = std::move(activity);
  }
  if (memory.is_object())
    doc.memory = std::move(memory);
  if (r.stageSeconds.is_object())
    doc.stageSeconds = r.stageSeconds;
  // Each configuration, built from the worker's events above, becomes the schema's type: events that
  // do not make one (a wrong type where a number belongs) are the evaluator's failure, said here.
  doc.configs.emplace();
  for (size_t i = 0; i < configs.size(); ++i) {
    try {
      doc.configs->push_back(schema::configResultFromJson(configs[i], "configs[" + std::to_string(i) + "]"));
    } catch (const support::SupportError &e) {
      doc.configs->clear();
      return finishDoc(Outcome::InternalError, std::string("the worker's events do not make a result: ") + e.what());
    }
  }

  bool inCandidate = lastPhase && lastPhase->impl == "candidate";
  if (setupError)
    return finishDoc(Outcome::InternalError,
                     "worker set-up failed: " + setupError->as<events::Error>()->detail.value_or(""));
  if (baselineVerdict) {
    const events::Verdict &v = *baselineVerdict->as<events::Verdict>();
    std::string outcome = v.outcome.value_or("");
    if (parseOutcome(outcome) != Outcome::Ok)
      return finishDoc(Outcome::InternalError,
                       "the task's baseline failed (" + outcome + "): " + v.detail.value_or(""));
  }
  if (candidateVerdict && done) {
    const events::Verdict &v = *candidateVerdict->as<events::Verdict>();
    Outcome o = parseOutcome(v.outcome.value_or("")).value_or(Outcome::InternalError);
    if (o == Outcome::Ok && timed == int(doc.configs->size()) && timed > 0)
      doc.speedup = std::optional<double>(std::exp(logSum / timed));
    return finishDoc(o, v.detail.value_or(""));
  }
  // The worker ended without a verdict: the way it ended is the outcome, if candidate code was running.
  if (!inCandidate) {
    std::string why = r.worker.timedOut ? "timed out" : "ended (" + r.worker.describe() + ")";
    return finishDoc(Outcome::InternalError, "the worker " + why + " during " + describePhase(lastPhase) +
                                                 ", before the candidate ran");
  }
  std::string where = describePhase(lastPhase);
  if (r.worker.timedOut) {
    std::string how = r.worker.stalled ? "no progress for " + std::to_string(int(r.stallSeconds)) + " s"
                                       : "the time limit was exceeded (" + std::to_string(int(r.worker.seconds)) + " s)";
    return finishDoc(Outcome::Timeout, how + " during " + where + "; the worker was killed");
  }
  if (!r.worker.exited)
    return finishDoc(Outcome::RuntimeFault, "the worker was killed by signal " + std::to_string(r.worker.signal) +
                                                " (" + strsignal(r.worker.signal) + ") during " + where);
  return finishDoc(Outcome::RuntimeFault, "the candidate ended the worker process (exit status " +
                                              std::to_string(r.worker.exitCode) + ") during " + where);
}

} // namespace cudaperf::runtime
