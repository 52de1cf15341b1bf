#include "cudaperf/Counters/CountersDocument.h"

#include <cmath>
#include <cstdlib>
#include <cxxabi.h>
#include <memory>
#include <stdexcept>

namespace cudaperf::counters {

using support::Json;

std::string demangleKernelName(const std::string &mangled) {
  if (mangled.rfind("_Z", 0) != 0)
    return mangled;
  int status = 0;
  std::unique_ptr<char, void (*)(void *)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

Json countersToJson(const CountersDocument &doc) {
  std::vector<std::string> notes = doc.notes;
  Json root = Json::object();
  root["schema"] = "cudaperf-counters/1";
  root["program"] = doc.program;
  Json gpu = Json::object();
  gpu["name"] = doc.gpuName;
  gpu["compute_capability"] = doc.computeCapability;
  root["gpu"] = std::move(gpu);
  root["available"] = doc.available;
  root["reason"] = doc.reason;
  Json dropped = Json::object();
  for (const auto &[metric, why] : doc.droppedMetrics)
    dropped[metric] = why;
  root["dropped_metrics"] = std::move(dropped);
  Json kernels = Json::array();
  for (const KernelCounters &k : doc.kernels) {
    Json kj = Json::object();
    kj["name"] = k.name;
    kj["demangled"] = k.demangled;
    kj["launch"] = k.launch;
    Json metrics = Json::object();
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
  root["notes"] = notes;
  return root;
}

std::string writeCountersJson(const CountersDocument &doc, int indent) {
  return support::writeJson(countersToJson(doc), indent) + "\n";
}

namespace {
enum class Kind { String, Object, Array, Number, Bool };
const Json &require(const Json &obj, const char *key, Kind kind) {
  const Json *v = support::member(obj, key);
  bool ok = v && (kind == Kind::String   ? v->is_string()
                  : kind == Kind::Object ? v->is_object()
                  : kind == Kind::Array  ? v->is_array()
                  : kind == Kind::Number ? v->is_number()
                                         : v->is_boolean());
  if (!ok)
    throw std::runtime_error(std::string("counters document: missing or mistyped key '") + key + "'");
  return *v;
}
size_t optionalCount(const Json &obj, const char *key) {
  const Json *v = support::member(obj, key);
  return v && v->is_number_integer() && v->get<int64_t>() >= 0 ? size_t(v->get<int64_t>()) : 0;
}
} // namespace

CountersDocument parseCountersJson(const std::string &text) {
  Json root = support::parseJson(text, "counters document");
  using K = Kind;
  if (require(root, "schema", K::String) != "cudaperf-counters/1")
    throw std::runtime_error("counters document: unknown schema");
  CountersDocument doc;
  doc.program = require(root, "program", K::String).get<std::string>();
  const Json &gpu = require(root, "gpu", K::Object);
  doc.gpuName = require(gpu, "name", K::String).get<std::string>();
  doc.computeCapability = require(gpu, "compute_capability", K::String).get<std::string>();
  doc.available = require(root, "available", K::Bool).get<bool>();
  doc.reason = require(root, "reason", K::String).get<std::string>();
  for (const auto &item : require(root, "dropped_metrics", K::Object).items())
    doc.droppedMetrics[item.key()] = item.value().is_string() ? item.value().get<std::string>() : "";
  for (const Json &kj : require(root, "kernels", K::Array)) {
    KernelCounters k;
    k.name = require(kj, "name", K::String).get<std::string>();
    k.demangled = require(kj, "demangled", K::String).get<std::string>();
    k.launch = int(require(kj, "launch", K::Number).get<int64_t>());
    for (const auto &item : require(kj, "metrics", K::Object).items()) {
      if (!item.value().is_number())
        throw std::runtime_error("counters document: metric '" + item.key() + "' is not a number");
      k.metrics[item.key()] = item.value().get<double>();
    }
    doc.kernels.push_back(std::move(k));
  }
  doc.kernelsNotProfiled = optionalCount(root, "kernels_not_profiled");
  doc.maxKernels = optionalCount(root, "max_kernels");
  doc.replayPasses = optionalCount(root, "replay_passes");
  if (const Json *notes = support::member(root, "notes"); notes && notes->is_array())
    for (const Json &n : *notes)
      if (n.is_string())
        doc.notes.push_back(n.get<std::string>());
  return doc;
}

} // namespace cudaperf::counters
