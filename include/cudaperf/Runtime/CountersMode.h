// How the worker sets up the CUPTI range profiler for a candidate's counter pass (docs/counters.md,
// "Counters mode"): `cudaperf-eval --counters-mode per-config|shared`, passed on to the worker. Pure C++:
// the evaluator (no CUDA) and the worker share it.
//   per-config (default): one profiler per configuration, set up and torn down each time (as before the
//                         option existed: the worker's command line and the documents are unchanged);
//   shared:               one profiler set-up for the whole candidate: the second and later configurations
//                         reuse the counter availability, host object, config image, the enabled range
//                         profiler and its counter data image (reset), each configuration still with its own
//                         user-replay passes and its own document ("counters_mode": "shared").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cudaperf::runtime {

enum class CountersMode { PerConfig, Shared };

const char *countersModeName(CountersMode mode); // "per-config", "shared"
// "per-config" or "shared"; anything else throws support::SupportError naming the accepted values.
CountersMode parseCountersMode(const std::string &text);

// The worker's arguments for the counter pass: none without counters; "--counters" in the default mode (the
// same command line as before the option existed); "--counters --counters-mode shared" otherwise.
std::vector<std::string> workerCounterArgs(bool counters, CountersMode mode);

// What the profiler does around configuration `config` of `configs` (in order).
struct CounterSessionPlan {
  bool reusesSetUp = false; // begin() takes over the set-up the previous configuration kept
  bool keepsSetUp = false;  // end() keeps the set-up for the next configuration (ProfilerOptions::keepSetUp)
};
CounterSessionPlan counterSessionPlan(CountersMode mode, size_t config, size_t configs);

// The counters document's "counters_mode": "" (key left out) in the default mode, else the mode's name.
std::string countersModeRecorded(CountersMode mode);

} // namespace cudaperf::runtime
