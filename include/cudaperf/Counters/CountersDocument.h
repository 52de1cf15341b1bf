// Per-kernel counter results and their JSON document ("schema": "cudaperf-counters/1", docs/counters.md).
// Pure C++ (no CUDA): the collector fills it, the injection library and the tests write it.
#pragma once

#include "cudaperf/Support/Json.h"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace cudaperf::counters {

struct KernelCounters {
  std::string name;      // mangled, as the driver reports it
  std::string demangled; // the mangled name when it does not demangle (extern "C" kernels)
  int launch = 0;        // index of the launch among the launches seen in the context, in launch order
  std::map<std::string, double> metrics; // metric name (CounterMetrics.h) -> value; absent when not collected
};

struct CountersDocument {
  std::string program;
  std::string gpuName;
  std::string computeCapability; // "9.0"
  bool available = false;        // false: nothing could be collected; reason says why
  std::string reason;
  std::map<std::string, std::string> droppedMetrics; // metric -> why it was not collected
  std::vector<KernelCounters> kernels;
  // Additions to the lead's format (documented in docs/counters.md):
  size_t kernelsNotProfiled = 0;  // launches seen but not profiled (cap reached, profiler failure, ...)
  size_t maxKernels = 0;          // the cap in force (0: none)
  size_t replayPasses = 0;        // passes per kernel that the metric configuration needs
  std::vector<std::string> notes; // anything that limits the numbers (range count mismatches, dropped ranges)
  // Host time of the profiler's own phases, seconds per phase (KernelProfiler's keys, docs/counters.md,
  // "profiler_seconds"); empty when the document is not one profiler's (the injection library's merge).
  std::map<std::string, double> profilerSeconds;
  // How the evaluator's worker set its profiler up ("counters_mode", docs/counters.md): "shared" (one set-up
  // for all the candidate's configurations, cudaperf-eval --counters-mode shared), "joint" (one session for all
  // of them, split by splitByLaunches); empty: the key is left out,
  // which is the default per-configuration set-up (and every document written before the option existed).
  std::string countersMode;
};

support::Json countersToJson(const CountersDocument &doc);
// Pretty (indent 2) by default; non-finite metric values are left out and named in "notes".
std::string writeCountersJson(const CountersDocument &doc, int indent = 2);
// lib/Features reads it (features::readCountersDocument).

// A document of one session that ran several calls in turn (cudaperf-eval --counters-mode joint: each
// configuration's call in every user-replay pass), split into one document per call. ends[i] is the number of
// launches seen after call i (ascending; launches are numbered in launch order, KernelCounters::launch). Document i
// gets the kernels with launch in [ends[i-1], ends[i]) (ends[-1] = 0), their launch re-based to 0 as if the call had
// been profiled alone; kernelsNotProfiled = that interval's launches without a result; the profiler's seconds go to
// the first document only (one session: summing the documents' seconds gives the session's); every other field
// (availability, reason, GPU, dropped metrics, passes, notes, mode) is copied, and each document's notes say which
// launches of the session it holds. Throws std::invalid_argument when ends is empty or descending.
std::vector<CountersDocument> splitByLaunches(const CountersDocument &doc, const std::vector<size_t> &ends);

// Itanium demangling; returns the input when it is not a mangled name.
std::string demangleKernelName(const std::string &mangled);

} // namespace cudaperf::counters
