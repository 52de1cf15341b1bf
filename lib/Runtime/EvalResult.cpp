#include "cudaperf/Runtime/EvalResult.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <sstream>

namespace cudaperf::runtime {

namespace {

std::vector<json::Value> parseEvents(const std::string &text) {
  std::vector<json::Value> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    if (line.empty())
      continue;
    try {
      json::Value v = json::parse(line);
      if (v.isObject() && v.get("event") && v.get("event")->isString())
        out.push_back(std::move(v));
    } catch (const json::ParseError &) {
      // A torn last line (process killed mid-write) is dropped.
    }
  }
  return out;
}

std::string str(const json::Value &e, const char *key) {
  const json::Value *v = e.get(key);
  return v && v->isString() ? v->asString() : "";
}

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

json::Object timingOf(const json::Value &e) {
  json::Object t;
  for (const char *k : {"median_ms", "min_ms", "max_ms", "mean_ms", "p10_ms", "p90_ms", "spread", "runs", "stable"})
    if (const json::Value *v = e.get(k))
      t[k] = *v;
  return t;
}

std::string describePhase(const json::Value *phase) {
  if (!phase)
    return "start-up";
  std::string s = str(*phase, "step") + " of the " + str(*phase, "impl");
  if (!str(*phase, "config").empty())
    s += ", config " + str(*phase, "config");
  if (const json::Value *set = phase->get("set"))
    s += ", input set " + std::to_string(set->asInteger());
  return s;
}

// An event's fields without the ones that route it (event, t, impl, config).
json::Object payloadOf(const json::Value &e) {
  json::Object o;
  for (const auto &kv : e.asObject().items())
    if (kv.first != "event" && kv.first != "t" && kv.first != "impl" && kv.first != "config")
      o[kv.first] = kv.second;
  return o;
}

} // namespace

Outcome resultOutcome(const json::Value &result) {
  const json::Value *o = result.get("outcome");
  if (o && o->isString())
    if (auto parsed = parseOutcome(o->asString()))
      return *parsed;
  return Outcome::InternalError;
}

json::Value assembleResult(const EvalRecord &r) {
  json::Object doc;
  doc["schema"] = kResultSchema;
  doc["task"] = r.task ? r.task->name : "";
  doc["task_dir"] = r.task ? r.task->dir : "";
  doc["candidate"] = r.candidatePath;
  doc["candidate_sha256"] = r.candidateSha256;
  doc["outcome"] = "internal_error";
  doc["detail"] = "";
  doc["speedup"] = nullptr;

  json::Object compile;
  compile["ok"] = r.candidateBuild.ok;
  compile["cached"] = r.candidateBuild.cached;
  compile["seconds"] = r.candidateBuild.seconds;
  compile["arch"] = r.arch;
  compile["command"] = r.candidateBuild.command;
  compile["log"] = r.candidateBuild.log;
  doc["compile"] = json::Value(std::move(compile));
  doc["compile_only"] = r.compileOnly;

  json::Object tools;
  tools["cudaperf_eval"] = kEvalVersion;
  if (r.toolchain) {
    tools["nvcc"] = r.toolchain->nvccVersion;
    tools["host_compiler"] = firstLines(r.toolchain->hostCompilerVersionText, 1, 200);
  }

  auto finishDoc = [&](Outcome o, const std::string &detail) {
    doc["outcome"] = outcomeName(o);
    doc["detail"] = detail;
    doc["tools"] = json::Value(std::move(tools));
    doc["evaluation_seconds"] = r.evaluationSeconds;
    return json::Value(std::move(doc));
  };

  if (!r.candidateBuild.ok)
    return finishDoc(Outcome::CompileError,
                     r.candidateBuild.timedOut ? "compilation timed out" : firstLines(r.candidateBuild.log, 20, 4000));
  if (r.compileOnly)
    return finishDoc(Outcome::Ok, "compiled (--compile-only: not run)");
  if (!r.workerRan)
    return finishDoc(Outcome::InternalError, "the worker was not started");

  doc["seed"] = (long long)r.seed;
  doc["sets"] = r.sets;
  std::vector<json::Value> events = parseEvents(r.events);

  // Per-configuration record, in task order.
  std::vector<json::Object> configs;
  if (r.task)
    for (const Config &c : r.task->configs) {
      json::Object o;
      o["name"] = c.name;
      json::Object params;
      for (const auto &kv : c.params)
        params[kv.first] = kv.second == std::floor(kv.second) ? json::Value((long long)kv.second) : json::Value(kv.second);
      o["params"] = json::Value(std::move(params));
      configs.push_back(std::move(o));
    }
  auto configIndex = [&](const std::string &name) -> int {
    for (size_t i = 0; i < configs.size(); ++i)
      if (configs[i]["name"].asString() == name)
        return int(i);
    return -1;
  };

  const json::Value *lastPhase = nullptr, *baselineVerdict = nullptr, *candidateVerdict = nullptr,
                    *setupError = nullptr;
  bool done = false;
  std::vector<std::vector<double>> referenceMs(configs.size());
  // Where the worker's time went: seconds from its start at which each stage ended.
  double tDevice = -1, tReference = -1, tBaseline = -1, tEnd = -1;
  for (const json::Value &e : events) {
    std::string type = str(e, "event");
    double t = e.get("t") && e.get("t")->isNumber() ? e.get("t")->asNumber() : -1;
    tEnd = t;
    if (type == "device")
      tDevice = t;
    else if (type == "reference")
      tReference = t;
    else if (type == "verdict" && str(e, "impl") == "baseline")
      tBaseline = t;
    int ci = configIndex(str(e, "config"));
    if (type == "phase") {
      lastPhase = &e;
    } else if (type == "device") {
      json::Object gpu;
      for (const auto &kv : e.asObject().items())
        if (kv.first != "event" && kv.first != "t")
          gpu[kv.first] = kv.second;
      tools["driver_version"] = e.get("driver_version") ? *e.get("driver_version") : json::Value();
      tools["cuda_runtime_version"] = e.get("runtime_version") ? *e.get("runtime_version") : json::Value();
      doc["gpu"] = json::Value(std::move(gpu));
    } else if (type == "reference" && ci >= 0) {
      referenceMs[size_t(ci)].push_back(e.get("ms") ? e.get("ms")->asNumber() : 0);
    } else if (type == "check" && ci >= 0 && str(e, "impl") == "candidate") {
      json::Object c = payloadOf(e);
      json::Value &corr = configs[size_t(ci)]["correctness"];
      if (!corr.isObject()) {
        json::Object fresh;
        fresh["pass"] = true;
        fresh["checks"] = json::Array();
        corr = json::Value(std::move(fresh));
      }
      bool pass = e.get("pass") && e.get("pass")->asBool();
      if (!pass)
        corr.asObject()["pass"] = false;
      corr.asObject()["checks"].asArray().push_back(json::Value(std::move(c)));
    } else if (type == "timing" && ci >= 0) {
      configs[size_t(ci)][str(e, "impl")] = json::Value(timingOf(e));
    } else if (type == "audit" && ci >= 0 && str(e, "impl") == "candidate") {
      configs[size_t(ci)]["audit"] = json::Value(payloadOf(e));
    } else if (type == "counters" && ci >= 0 && str(e, "impl") == "candidate") {
      configs[size_t(ci)]["counters"] = json::Value(payloadOf(e));
    } else if (type == "verdict") {
      (str(e, "impl") == "baseline" ? baselineVerdict : candidateVerdict) = &e;
    } else if (type == "error") {
      setupError = &e;
    } else if (type == "done") {
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
    const json::Value *cand = configs[i].find("candidate");
    const json::Value *base = configs[i].find("baseline");
    double c = cand && cand->get("median_ms") ? cand->get("median_ms")->asNumber() : 0;
    double b = base && base->get("median_ms") ? base->get("median_ms")->asNumber() : 0;
    // pytorch-to-cuda: PyTorch eager is what the candidate is measured against; the baseline
    // implementation's ratio is kept beside it.
    const json::Value *eager = nullptr;
    if (r.pytorchEager)
      if (const json::Value *cs = r.pytorchEager->get("configs"))
        eager = cs->get(configs[i]["name"].asString());
    if (eager && eager->get("median_ms")) {
      configs[i]["pytorch_eager"] = *eager;
      configs[i]["reference_ms"] = *eager->get("median_ms");
    }
    double against = r.pytorchEager ? (eager && eager->get("median_ms") ? eager->get("median_ms")->asNumber() : 0) : b;
    if (r.pytorchEager && c > 0 && b > 0)
      configs[i]["speedup_vs_baseline"] = b / c;
    if (c > 0 && against > 0) {
      configs[i]["speedup"] = against / c;
      logSum += std::log(against / c);
      ++timed;
    }
  }

  json::Object worker;
  worker["status"] = r.worker.describe();
  worker["seconds"] = r.worker.seconds;
  worker["output"] = r.worker.output;
  worker["output_bytes"] = (long long)r.worker.outputBytes;
  worker["output_truncated"] = r.worker.outputTruncated;
  if (lastPhase)
    worker["last_phase"] = describePhase(lastPhase);
  if (tDevice >= 0) {
    json::Object stages;
    stages["start_and_context"] = tDevice;
    if (tReference >= 0)
      stages["inputs_and_reference"] = tReference - tDevice;
    if (tBaseline >= 0 && tReference >= 0)
      stages["baseline"] = tBaseline - tReference;
    if (tBaseline >= 0 && tEnd >= tBaseline)
      stages["candidate"] = tEnd - tBaseline;
    worker["stage_seconds"] = json::Value(std::move(stages));
  }
  doc["worker"] = json::Value(std::move(worker));
  json::Array cfgArray;
  for (auto &c : configs)
    cfgArray.push_back(json::Value(std::move(c)));
  doc["configs"] = json::Value(std::move(cfgArray));

  bool inCandidate = lastPhase && str(*lastPhase, "impl") == "candidate";
  if (setupError)
    return finishDoc(Outcome::InternalError, "worker set-up failed: " + str(*setupError, "detail"));
  if (baselineVerdict && str(*baselineVerdict, "outcome") != "ok")
    return finishDoc(Outcome::InternalError, "the task's baseline failed (" + str(*baselineVerdict, "outcome") +
                                                 "): " + str(*baselineVerdict, "detail"));
  if (candidateVerdict && done) {
    Outcome o = parseOutcome(str(*candidateVerdict, "outcome")).value_or(Outcome::InternalError);
    if (o == Outcome::Ok && timed == int(doc["configs"].asArray().size()) && timed > 0)
      doc["speedup"] = std::exp(logSum / timed);
    return finishDoc(o, str(*candidateVerdict, "detail"));
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
