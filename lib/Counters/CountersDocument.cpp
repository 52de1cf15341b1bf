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
  Json seconds = Json::object();
  for (const auto &[phase, value] : doc.profilerSeconds)
    if (std::isfinite(value))
      seconds[phase] = value;
  root["profiler_seconds"] = std::move(seconds);
  if (!doc.countersMode.empty()) // absent in the default mode: those documents stay as they were
    root["counters_mode"] = doc.countersMode;
  return root;
}

std::vector<CountersDocument> splitByLaunches(const CountersDocument &doc, const std::vector<size_t> &ends) {
  if (ends.empty())
    throw std::invalid_argument("splitByLaunches: no calls");
  for (size_t i = 1; i < ends.size(); ++i)
    if (ends[i] < ends[i - 1])
      throw std::invalid_argument("splitByLaunches: launch counts must not decrease");
  std::vector<CountersDocument> out;
  size_t begin = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    CountersDocument part = doc;
    part.kernels.clear();
    for (const KernelCounters &k : doc.kernels) {
      if (k.launch < 0 || size_t(k.launch) < begin || size_t(k.launch) >= ends[i])
        continue;
      part.kernels.push_back(k);
      part.kernels.back().launch = int(size_t(k.launch) - begin);
    }
    size_t launches = ends[i] - begin;
    part.kernelsNotProfiled = launches > part.kernels.size() ? launches - part.kernels.size() : 0;
    if (i > 0)
      part.profilerSeconds.clear();
    part.notes.push_back("one session for " + std::to_string(ends.size()) + " calls: this is call " +
                         std::to_string(i + 1) + "'s, launches " + std::to_string(begin) + " to " +
                         std::to_string(ends[i]) + " (exclusive) of every pass" +
                         (i > 0 ? "; the session's profiler_seconds are in call 1's document" : ""));
    out.push_back(std::move(part));
    begin = ends[i];
  }
  return out;
}

std::string writeCountersJson(const CountersDocument &doc, int indent) {
  return support::writeJson(countersToJson(doc), indent) + "\n";
}

} // namespace cudaperf::counters
