#include "cudaperf/Features/EvalDocument.h"
#include "cudaperf/Features/FeaturesError.h"
#include "cudaperf/Schema/EvalResult.h"
#include "cudaperf/Support/JsonReader.h"

#include "FieldHelpers.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace cudaperf::features {

using support::JsonField;
using detail::optionalDim3;
using detail::stringOr;

std::string metric::sassInstructions(const char *precisionLetter, const char *op) {
  return std::string("smsp__sass_thread_inst_executed_op_") + precisionLetter + op + "_pred_on.sum";
}

std::optional<double> MeasuredKernel::get(const std::string &metricName) const {
  auto it = metrics.find(metricName);
  return it == metrics.end() ? std::nullopt : std::optional<double>(it->second);
}

namespace {

// The counters object of a configuration or a standalone document (its "schema" checked by the caller).
CountersSection readCounters(const JsonField &f) {
  CountersSection c;
  c.available = f.require("available").boolean();
  c.reason = stringOr(f, "reason");
  if (auto gpu = f.get("gpu")) {
    c.gpuName = stringOr(*gpu, "name");
    c.computeCapability = stringOr(*gpu, "compute_capability");
  }
  if (auto dropped = f.get("dropped_metrics"))
    for (const auto &[name, why] : dropped->members())
      c.droppedMetrics[name] = why.isNull() ? "" : why.string();
  if (auto kernels = f.get("kernels"))
    for (const JsonField &k : kernels->elements()) {
      MeasuredKernel m;
      m.name = k.require("name").string();
      m.demangled = stringOr(k, "demangled");
      m.launch = int(k.require("launch").integer(0, INT32_MAX));
      if (auto metrics = k.get("metrics"))
        for (const auto &[name, value] : metrics->members())
          m.metrics[name] = value.number();
      c.kernels.push_back(std::move(m));
    }
  std::stable_sort(c.kernels.begin(), c.kernels.end(),
                   [](const MeasuredKernel &a, const MeasuredKernel &b) { return a.launch < b.launch; });
  c.kernelsNotProfiled = f.optionalInteger("kernels_not_profiled", 0).value_or(0);
  if (auto notes = f.get("notes"))
    for (const JsonField &n : notes->elements())
      c.notes.push_back(n.string());
  return c;
}

// A timing the schema read; median_ms is required (`f` names it when missing).
TimingSummary timingOf(const schema::Timing &t, const JsonField &f) {
  if (!t.medianMs)
    f.require("median_ms");
  TimingSummary s;
  s.medianMs = *t.medianMs;
  s.minMs = t.minMs.value_or(s.medianMs);
  s.maxMs = t.maxMs.value_or(s.medianMs);
  s.meanMs = t.meanMs.value_or(s.medianMs);
  s.p10Ms = t.p10Ms.value_or(s.medianMs);
  s.p90Ms = t.p90Ms.value_or(s.medianMs);
  s.spread = t.spread.value_or(0);
  if (t.runs && *t.runs < 0)
    f.require("runs").fail("expected a whole number at least 0, got " + std::to_string(*t.runs));
  s.runs = t.runs.value_or(0);
  s.stable = t.stable;
  return s;
}

std::optional<TimingSummary> optionalTiming(const std::optional<schema::Timing> &t, const JsonField &parent,
                                            const char *key) {
  return t ? std::optional<TimingSummary>(timingOf(*t, parent.require(key))) : std::nullopt;
}

// One configuration: the typed part from the schema, the worker's payloads (counters, launches)
// read here from `f`, the same member in the document.
EvalConfiguration readConfiguration(const schema::ConfigResult &typed, const JsonField &f) {
  EvalConfiguration c;
  if (!typed.name)
    f.require("name");
  c.name = *typed.name;
  if (auto params = f.get("params"))
    for (const auto &[name, v] : params->members())
      c.params[name] = v.number();
  if (typed.correctness) {
    if (!typed.correctness->pass)
      f.require("correctness").require("pass");
    c.correct = *typed.correctness->pass;
  }
  c.candidate = optionalTiming(typed.candidate, f, "candidate");
  c.baseline = optionalTiming(typed.baseline, f, "baseline");
  c.pytorchEager = optionalTiming(typed.pytorchEager, f, "pytorch_eager");
  c.speedup = typed.speedup;
  c.referenceMs = typed.referenceMs;
  if (auto counters = f.get("counters"))
    c.counters = readCounters(*counters);
  if (auto launches = f.get("launches")) {
    c.launches.emplace();
    for (const JsonField &l : launches->elements()) {
      MeasuredLaunch m;
      m.kernel = l.require("kernel").string();
      m.grid = optionalDim3(l, "grid");
      m.block = optionalDim3(l, "block");
      m.dynamicSmemBytes = l.optionalInteger("dynamic_smem_bytes", 0);
      c.launches->push_back(std::move(m));
    }
    c.launchesTruncated = typed.launchesTruncated.value_or(false);
  }
  return c;
}

} // namespace

const EvalConfiguration *EvalResult::configuration(const std::string &name) const {
  for (const EvalConfiguration &c : configs)
    if (c.name == name)
      return &c;
  return nullptr;
}

EvalResult readEvalResult(const support::Json &json, const std::string &source) {
  try {
    schema::EvalResult doc = schema::EvalResult::fromJson(json, source);
    JsonField root(json, source);
    EvalResult r;
    r.source = source;
    r.task = doc.task.value_or("");
    r.taskDir = doc.taskDir.value_or("");
    if (!doc.candidate)
      root.require("candidate");
    r.candidate = *doc.candidate;
    r.candidateSha256 = doc.candidateSha256.value_or("");
    r.outcome = doc.outcome;
    r.unknownOutcome = doc.unknownOutcome;
    r.detail = doc.detail.value_or("");
    r.speedup = doc.speedupValue();
    if (auto gpu = root.get("gpu")) {
      r.gpuName = stringOr(*gpu, "name");
      r.arch = stringOr(*gpu, "arch");
      r.multiprocessors = gpu->optionalInteger("multiprocessors", 0);
    }
    if (doc.configs) {
      std::vector<JsonField> fields = root.require("configs").elements();
      for (size_t i = 0; i < doc.configs->size(); ++i)
        r.configs.push_back(readConfiguration((*doc.configs)[i], fields[i]));
    }
    return r;
  } catch (const support::SupportError &e) {
    throw FeaturesError(e.what());
  }
}

std::vector<EvalResult> readEvalResultFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw FeaturesError(path + ": cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::vector<EvalResult> results;
  try {
    // JSON Lines when the first non-blank line is a whole document; otherwise one (pretty) document.
    std::stringstream ls(text);
    std::string line;
    int firstLine = 0;
    for (int number = 1; std::getline(ls, line); ++number)
      if (line.find_first_not_of(" \t\r") != std::string::npos) {
        firstLine = number;
        break;
      }
    bool jsonLines = false;
    if (firstLine > 0) {
      try {
        support::parseJson(line);
        jsonLines = true;
      } catch (const support::SupportError &) {
      }
    }
    if (!jsonLines) {
      results.push_back(readEvalResult(support::parseJson(text, path), path));
      return results;
    }
    ls.clear();
    ls.seekg(0);
    for (int number = 1; std::getline(ls, line); ++number) {
      if (line.find_first_not_of(" \t\r") == std::string::npos)
        continue;
      std::string where = path + ":" + std::to_string(number);
      results.push_back(readEvalResult(support::parseJson(line, where), where));
    }
  } catch (const support::SupportError &e) {
    throw FeaturesError(e.what());
  }
  if (results.empty())
    throw FeaturesError(path + ": no result in the file");
  return results;
}

CountersSection readCountersDocument(const support::Json &json, const std::string &source) {
  try {
    JsonField root(json, source);
    std::string schema = root.require("schema").string();
    if (schema != "cudaperf-counters/1")
      root.require("schema").fail("expected \"cudaperf-counters/1\", got \"" + schema + "\"");
    return readCounters(root);
  } catch (const support::SupportError &e) {
    throw FeaturesError(e.what());
  }
}

} // namespace cudaperf::features
