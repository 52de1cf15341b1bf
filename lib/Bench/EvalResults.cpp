#include "cudaperf/Bench/EvalResults.h"
#include "cudaperf/Bench/BenchError.h"
#include "cudaperf/Schema/EvalResult.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace cudaperf::bench {

using support::Json;

namespace {

constexpr const char *kTorchTimingSchema = "cudaperf-torch-timing/1";

[[noreturn]] void resultError(const std::string &message) { throw BenchError(BenchError::Kind::Results, message); }

std::string optionalString(const Json &obj, const char *key, const std::string &where) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null())
    return "";
  if (!it->is_string())
    resultError(where + "." + key + ": expected a string, got " + support::jsonSnippet(*it));
  return it->get<std::string>();
}

std::string requiredString(const Json &obj, const char *key, const std::string &where) {
  if (!obj.contains(key))
    resultError(where + ": missing \"" + key + "\"");
  return optionalString(obj, key, where);
}

double number(const Json &obj, const char *key, const std::string &where) {
  auto it = obj.find(key);
  if (it == obj.end())
    resultError(where + ": missing \"" + key + "\"");
  if (!it->is_number())
    resultError(where + "." + key + ": expected a number, got " + support::jsonSnippet(*it));
  return it->get<double>();
}

// A timing of the torch-timing document (cudaperf-torch-timing/1).
std::optional<Timing> timingAt(const Json &obj, const char *key, const std::string &where) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null())
    return std::nullopt;
  std::string at = where + "." + key;
  if (!it->is_object())
    resultError(at + ": expected a timing object, got " + support::jsonSnippet(*it));
  Timing t;
  t.medianMs = number(*it, "median_ms", at);
  t.p10Ms = it->contains("p10_ms") ? number(*it, "p10_ms", at) : t.medianMs;
  t.p90Ms = it->contains("p90_ms") ? number(*it, "p90_ms", at) : t.medianMs;
  if (!(t.medianMs > 0))
    resultError(at + ".median_ms: " + std::to_string(t.medianMs) + " is not a positive time");
  return t;
}

// One JSON value; `where` is FILE or FILE:LINE. A syntax error reads "FILE:LINE:COLUMN: not JSON: ...".
Json parseLine(const std::string &text, const std::string &where, bool oneLine) {
  try {
    return support::parseJson(text, where);
  } catch (const support::SupportError &e) {
    std::string msg = e.what();
    if (oneLine && msg.rfind(where + ":1:", 0) == 0)
      msg = where + ":" + msg.substr(where.size() + 3);
    size_t colon = msg.find(": ", where.size());
    if (colon != std::string::npos)
      msg.insert(colon + 2, "not JSON: ");
    resultError(msg);
  }
}

// An object whose "schema" is `schema`.
void requireDocument(const Json &doc, const char *schema, const std::string &where) {
  if (!doc.is_object())
    resultError(where + ": expected an object (" + schema + ")");
  std::string found = requiredString(doc, "schema", where);
  if (found != schema)
    resultError(where + ".schema: \"" + found + "\" is not " + schema);
}

// A timing the schema read: median_ms present and positive; p10/p90 default to it.
std::optional<Timing> benchTiming(const std::optional<schema::Timing> &t, const std::string &at) {
  if (!t)
    return std::nullopt;
  if (!t->medianMs)
    resultError(at + ": missing \"median_ms\"");
  Timing b;
  b.medianMs = *t->medianMs;
  b.p10Ms = t->p10Ms.value_or(b.medianMs);
  b.p90Ms = t->p90Ms.value_or(b.medianMs);
  if (!(b.medianMs > 0))
    resultError(at + ".median_ms: " + std::to_string(b.medianMs) + " is not a positive time");
  return b;
}

} // namespace

EvalResult parseEvalResult(const Json &doc, const std::string &where) {
  if (!doc.is_object())
    resultError(where + ": expected an object (" + std::string(schema::kEvalResultSchema) + ")");
  schema::EvalResult typed;
  try {
    typed = schema::EvalResult::fromJson(doc, where);
  } catch (const support::SupportError &e) {
    resultError(e.what());
  }
  EvalResult r;
  r.where = where;
  if (!typed.candidate)
    resultError(where + ": missing \"candidate\"");
  r.candidate = *typed.candidate;
  r.outcome = typed.outcome;
  r.unknownOutcome = typed.unknownOutcome;
  r.task = typed.task.value_or("");
  r.taskDir = typed.taskDir.value_or("");
  if (r.task.empty() && r.taskDir.empty())
    resultError(where + ": neither \"task\" nor \"task_dir\" says which task " + r.candidate + " was for");
  r.detail = typed.detail.value_or("");
  if (typed.gpu)
    if (const Json *name = support::member(*typed.gpu, "name")) {
      if (!name->is_string())
        resultError(where + ".gpu.name: expected a string, got " + support::jsonSnippet(*name));
      r.gpu = name->get<std::string>();
    }
  if (typed.tools)
    r.evaluatorVersion = typed.tools->cudaperfEval.value_or("");
  r.gpuShared = typed.gpuShared && typed.gpuShared->value_or(false);
  r.baselineCached = typed.baselineCached.value_or(false);
  if (typed.configs)
    for (size_t i = 0; i < typed.configs->size(); ++i) {
      const schema::ConfigResult &c = (*typed.configs)[i];
      std::string at = where + ".configs[" + std::to_string(i) + "]";
      ConfigResult cr;
      if (!c.name)
        resultError(at + ": missing \"name\"");
      cr.name = *c.name;
      cr.candidate = benchTiming(c.candidate, at + ".candidate");
      cr.baseline = benchTiming(c.baseline, at + ".baseline");
      cr.eager = benchTiming(c.pytorchEager, at + ".pytorch_eager");
      cr.audited = c.audit.has_value();
      if (c.launches)
        for (const Json &l : *c.launches)
          if (const Json *kernel = support::member(l, "kernel"); kernel && kernel->is_string())
            cr.launchedKernels.push_back(kernel->get<std::string>());
      r.configs.push_back(std::move(cr));
    }
  return r;
}

std::vector<EvalResult> readEvalResults(const std::string &path) {
  // Only a regular file, read with a size limit: a FIFO or /dev/zero is an error at once (issue 35).
  std::string text;
  try {
    text = support::readRegularFile(path);
  } catch (const support::SupportError &e) {
    resultError(e.what());
  }
  std::vector<EvalResult> results;
  // One pretty-printed document (cudaperf-eval with a single candidate) or JSON Lines.
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    resultError(path + ": empty (no results)");
  if (text.find("\n", first) != std::string::npos && text.compare(first, 2, "{\n") == 0) {
    results.push_back(parseEvalResult(parseLine(text, path, false), path));
    return results;
  }
  std::stringstream lines(text);
  std::string line;
  for (int lineNo = 1; std::getline(lines, line); ++lineNo) {
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    std::string where = path + ":" + std::to_string(lineNo);
    results.push_back(parseEvalResult(parseLine(line, where, true), where));
  }
  return results;
}

std::string torchTimingsPath(const std::string &taskDir) {
  return (std::filesystem::path(taskDir) / "exported" / "torch-timing.json").string();
}

TorchTimings parseTorchTimings(const Json &doc, const std::string &path) {
  requireDocument(doc, kTorchTimingSchema, path);
  TorchTimings t;
  t.path = path;
  t.task = optionalString(doc, "task", path);
  t.torchVersion = optionalString(doc, "torch_version", path);
  t.device = optionalString(doc, "device", path);
  auto configs = doc.find("configs");
  if (configs == doc.end() || !configs->is_object())
    resultError(path + ".configs: expected an object {config: {eager, compile}}");
  for (const auto &item : configs->items()) {
    std::string at = path + ".configs." + item.key();
    if (!item.value().is_object())
      resultError(at + ": expected an object");
    if (auto e = timingAt(item.value(), "eager", at))
      t.eager[item.key()] = *e;
    auto compiled = item.value().find("compile");
    if (compiled != item.value().end() && compiled->is_object() && compiled->contains("error"))
      t.compileErrors[item.key()] = optionalString(*compiled, "error", at + ".compile");
    else if (auto c = timingAt(item.value(), "compile", at))
      t.compiled[item.key()] = *c;
  }
  return t;
}

std::optional<TorchTimings> readTorchTimings(const std::string &taskDir) {
  std::string path = torchTimingsPath(taskDir);
  std::ifstream in(path);
  if (!in)
    return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return parseTorchTimings(parseLine(ss.str(), path, false), path);
}

std::map<std::string, TorchTimings> readTorchTimingsFile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    resultError(path + ": cannot be read");
  std::map<std::string, TorchTimings> byTask;
  std::string line;
  for (int lineNo = 1; std::getline(in, line); ++lineNo) {
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    std::string where = path + ":" + std::to_string(lineNo);
    TorchTimings t = parseTorchTimings(parseLine(line, where, true), where);
    if (t.task.empty())
      resultError(where + ": missing \"task\"");
    byTask[t.task] = std::move(t);
  }
  return byTask;
}

} // namespace cudaperf::bench
