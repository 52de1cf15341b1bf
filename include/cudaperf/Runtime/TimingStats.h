// Summary statistics of timed runs, shared by the worker (candidates and baselines) and
// cudaperf-torch-reference (PyTorch eager), so every time in a result is summarized the same way.
#pragma once

#include "cudaperf/Support/Json.h"

#include <vector>

namespace cudaperf::runtime {

struct TimingStats {
  int runs = 0;
  double medianMs = 0, minMs = 0, maxMs = 0, meanMs = 0, p10Ms = 0, p90Ms = 0;
  double spread = 0; // (p90 - p10) / median
  bool stable = false; // stopped because the median settled, not because of the budget
};

// Linear interpolation between the closest ranks of an ascending vector; 0 when empty.
double percentile(const std::vector<double> &sorted, double q);

// Every field but `stable` from the samples (milliseconds, any order).
TimingStats summarizeTimes(std::vector<double> samplesMs);

// runs, median_ms, min_ms, max_ms, mean_ms, p10_ms, p90_ms, spread (not stable: callers that
// decide it add it).
support::Json timingJson(const TimingStats &stats);

} // namespace cudaperf::runtime
