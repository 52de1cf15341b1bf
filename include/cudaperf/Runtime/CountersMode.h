// How the worker sets up the CUPTI range profiler for a candidate's counter pass (docs/counters.md,
// "Counters mode"): `cudaperf-eval --counters-mode per-config|shared|joint`, passed on to the worker. Pure C++:
// the evaluator (no CUDA) and the worker share it.
//   shared (default):     one profiler set-up for the whole candidate: the second and later configurations
//                         reuse the counter availability, host object, config image, the enabled range
//                         profiler and its counter data image (reset), each configuration still with its own
//                         user-replay passes and its own document ("counters_mode": "shared"). The default
//                         since the H200 A/B (data/eval-runs/2026-12-02-h200-counters-ab): the same counters,
//                         51 candidates per minute against 32;
//   per-config:           one profiler per configuration, set up and torn down each time (the only way before
//                         the option existed; its documents have no "counters_mode");
//   joint:                one user-replay session for all configurations: each pass runs every configuration
//                         in turn (inputs restored and L2 cleaned before each call), so the candidate pays one
//                         set of pass starts instead of one per configuration; the ranges are split back into
//                         one document per configuration by launch order ("counters_mode": "joint"). Where
//                         the split cannot be trusted (ranges and launches disagree, a launch unprofiled, the
//                         session failed) the worker falls back to `shared` and says so in the notes.
//                         Measured on the H200 (data/eval-runs/2026-12-02-h200-counters-ab-joint): the same
//                         deterministic counters, but slower than shared (42 against 47-51 candidates per
//                         minute) and the small configuration's DRAM writes differ; not the default.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cudaperf::runtime {

enum class CountersMode { PerConfig, Shared, Joint };

const char *countersModeName(CountersMode mode); // "per-config", "shared", "joint"
// "per-config", "shared" or "joint"; anything else throws support::SupportError naming the accepted values.
CountersMode parseCountersMode(const std::string &text);

// The capacity of the counter data image, in ranges (one per kernel launch) per configuration's session
// (counters::ProfilerOptions::rangesPerSession; `cudaperf-eval --counters-ranges N|auto`). The default is
// `auto` (0 here): sized from the launches the audit call made (counterRanges below), so a candidate that
// launches one kernel gets a small image. The first session's pass starts, the image's initialisation and the
// range profiler's disable cost in proportion to the capacity: the A/B on the H200 (docs/counters.md, "Counter
// data image size") measured auto at 70.8 candidates per minute against 41.3 and 49.1 with the fixed 256 that
// every version before the option used, with the same counters. kCounterRangesFallback (256) is the capacity
// where auto has no audit to go by (--no-timing).
constexpr size_t kCounterRangesAuto = 0;
constexpr size_t kCounterRangesDefault = kCounterRangesAuto;
constexpr size_t kCounterRangesFallback = 256;
constexpr size_t kCounterRangesMax = 65536;
// "auto" -> kCounterRangesAuto; an integer in [1, kCounterRangesMax]; else support::SupportError.
size_t parseCounterRanges(const std::string &text);
// The image's capacity for a candidate whose audit calls (one per configuration, in order) launched
// `auditedLaunches` kernels: the option itself unless auto; auto: room for twice the most launches of one call
// plus 8 (a call that launches more than its audit did loses only the launches past that, which the document
// counts and notes), at least 16, at most kCounterRangesMax; kCounterRangesFallback where no audit ran
// (--no-timing).
size_t counterRanges(size_t option, const std::vector<int> &auditedLaunches);

// The worker's arguments for the counter pass: none without counters; else "--counters --counters-mode MODE",
// the mode always named (a worker of another default still does what the evaluator asked), and
// "--counters-ranges N|auto" where the ranges are not the default (auto).
std::vector<std::string> workerCounterArgs(bool counters, CountersMode mode,
                                           size_t ranges = kCounterRangesDefault);

// What the profiler does around configuration `config` of `configs` (in order), in the modes with one session
// per configuration (per-config, shared; and joint's fallback, which is shared's plan: counterSessionPlan
// treats joint as shared).
struct CounterSessionPlan {
  bool reusesSetUp = false; // begin() takes over the set-up the previous configuration kept
  bool keepsSetUp = false;  // end() keeps the set-up for the next configuration (ProfilerOptions::keepSetUp)
};
CounterSessionPlan counterSessionPlan(CountersMode mode, size_t config, size_t configs);

// The counters document's "counters_mode": "" (key left out) for per-config, as in every document written
// before the option existed; else the mode's name.
std::string countersModeRecorded(CountersMode mode);

} // namespace cudaperf::runtime
