#include "cudaperf/Counters/CountersDocument.h"

#include <cmath>
#include <cstdlib>
#include <cxxabi.h>
#include <memory>
#include <stdexcept>

namespace cudaperf::counters {

std::string demangleKernelName(const std::string &mangled) {
  if (mangled.rfind("_Z", 0) != 0)
    return mangled;
  int status = 0;
  std::unique_ptr<char, void (*)(void *)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

json::Value countersToJson(const CountersDocument &doc) {
  std::vector<std::string> notes = doc.notes;
  json::Object root;
  root["schema"] = "cudaperf-counters/1";
  root["program"] = doc.program;
  json::Object gpu;
  gpu["name"] = doc.gpuName;
  gpu["compute_capability"] = doc.computeCapability;
  root["gpu"] = std::move(gpu);
  root["available"] = doc.available;
  root["reason"] = doc.reason;
  json::Object dropped;
  for (const auto &[metric, why] : doc.droppedMetrics)
    dropped[metric] = why;
  root["dropped_metrics"] = std::move(dropped);
  json::Array kernels;
  for (const KernelCounters &k : doc.kernels) {
    json::Object kj;
    kj["name"] = k.name;
    kj["demangled"] = k.demangled;
    kj["launch"] = k.launch;
    json::Object metrics;
    for (const auto &[metric, value] : k.metrics) {
      if (std::isfinite(value))
        metrics[metric] = value;
      else
        notes.push_back("launch " + std::to_string(k.launch) + ": " + metric + " evaluated to a non-finite value");
    }
    kj["metrics"] = std::move(metrics);
    kernels.push_back(std::move(kj));
  }
  root["kernels"] = std::move(kernels);
  root["kernels_not_profiled"] = (unsigned long long)doc.kernelsNotProfiled;
  root["max_kernels"] = (unsigned long long)doc.maxKernels;
  root["replay_passes"] = (unsigned long long)doc.replayPasses;
  json::Array notesJson;
  for (const std::string &n : notes)
    notesJson.emplace_back(n);
  root["notes"] = std::move(notesJson);
  return json::Value(std::move(root));
}

std::string writeCountersJson(const CountersDocument &doc, int indent) {
  return json::write(countersToJson(doc), indent) + "\n";
}

namespace {
const json::Value &require(const json::Value &obj, const char *key, json::Value::Kind kind) {
  const json::Value *v = obj.isObject() ? obj.get(key) : nullptr;
  if (!v || v->kind() != kind)
    throw std::runtime_error(std::string("counters document: missing or mistyped key '") + key + "'");
  return *v;
}
size_t optionalCount(const json::Value &obj, const char *key) {
  const json::Value *v = obj.get(key);
  return v && v->isInteger() && v->asInteger() >= 0 ? size_t(v->asInteger()) : 0;
}
} // namespace

CountersDocument parseCountersJson(const std::string &text) {
  json::Value root = json::parse(text);
  using K = json::Value::Kind;
  if (require(root, "schema", K::String).asString() != "cudaperf-counters/1")
    throw std::runtime_error("counters document: unknown schema");
  CountersDocument doc;
  doc.program = require(root, "program", K::String).asString();
  const json::Value &gpu = require(root, "gpu", K::Object);
  doc.gpuName = require(gpu, "name", K::String).asString();
  doc.computeCapability = require(gpu, "compute_capability", K::String).asString();
  doc.available = require(root, "available", K::Bool).asBool();
  doc.reason = require(root, "reason", K::String).asString();
  for (const auto &[metric, why] : require(root, "dropped_metrics", K::Object).asObject().items())
    doc.droppedMetrics[metric] = why.isString() ? why.asString() : "";
  for (const json::Value &kj : require(root, "kernels", K::Array).asArray()) {
    KernelCounters k;
    k.name = require(kj, "name", K::String).asString();
    k.demangled = require(kj, "demangled", K::String).asString();
    k.launch = int(require(kj, "launch", K::Number).asInteger());
    for (const auto &[metric, value] : require(kj, "metrics", K::Object).asObject().items()) {
      if (!value.isNumber())
        throw std::runtime_error("counters document: metric '" + metric + "' is not a number");
      k.metrics[metric] = value.asNumber();
    }
    doc.kernels.push_back(std::move(k));
  }
  doc.kernelsNotProfiled = optionalCount(root, "kernels_not_profiled");
  doc.maxKernels = optionalCount(root, "max_kernels");
  doc.replayPasses = optionalCount(root, "replay_passes");
  if (const json::Value *notes = root.get("notes"); notes && notes->isArray())
    for (const json::Value &n : notes->asArray())
      if (n.isString())
        doc.notes.push_back(n.asString());
  return doc;
}

} // namespace cudaperf::counters
