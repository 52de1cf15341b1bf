// From scored candidates to the figures the field reports (docs/bench.md, "Metrics"): per task the
// samples' state after turns <= t, then across tasks correctness, pass@k, fast_p and fast_p@k per
// reference, geometric-mean and median speedups, each with a bootstrap interval over tasks.
#pragma once

#include "cudaperf/Bench/Metrics.h"
#include "cudaperf/Bench/Scoring.h"
#include "cudaperf/Bench/Suite.h"

#include <map>
#include <string>
#include <vector>

namespace cudaperf::bench {

struct AggregateOptions {
  std::vector<double> pValues = {0, 1, 1.2, 1.5, 2};
  std::vector<int> kValues; // empty: 1, 2, 4, ... up to the smallest sample count, and that count
  int resamples = 1000;     // bootstrap draws (0: no intervals)
  uint64_t seed = 0;
  double confidence = 0.95;
};

// One task at one turn: n sample slots, how many are correct, and per reference how many count as
// faster at each p (tie-aware and strict) and the correct samples' speedups.
struct TaskSummary {
  std::string task;
  int n = 0;
  int correct = 0;
  std::vector<Reference> references; // those this task is compared with
  std::map<Reference, std::vector<int>> faster, fasterStrict; // indexed like AggregateOptions::pValues
  std::map<Reference, std::vector<double>> speedups;          // best over turns <= t, per correct sample
};

// scores: every scored file of the present suite tasks, plus missing slots (turn 1). A sample's
// state at `turn` is the best of its turns <= turn: correct if any is, and per reference its
// highest speedup and whether any turn was faster at p.
std::vector<TaskSummary> summarizeTasks(const std::vector<CandidateScore> &scores, const Suite &suite,
                                        const std::map<std::string, std::vector<Reference>> &references,
                                        int turn, const std::vector<double> &pValues);

struct Estimate {
  double value = 0;
  Interval ci;   // NaN bounds without resamples
  int tasks = 0; // tasks the figure is over
};

// Keys: "correctness", "pass@K", and per reference R: "R.fast_P", "R.fast_P.strict", "R.fast_P@K",
// "R.geomean_speedup", "R.median_speedup", "R.best_geomean_speedup" (P as %g: 0, 1, 1.2, ...).
struct Aggregate {
  int tasks = 0;
  std::vector<int> kValues; // the pass@k values reported
  std::map<std::string, Estimate> figures;
  std::map<Reference, int> referenceTasks;
};

Aggregate aggregateTasks(const std::vector<TaskSummary> &tasks, const AggregateOptions &options);

std::string pLabel(double p);             // 1.2 -> "1.2", 2 -> "2"
std::vector<int> defaultKValues(int minSamples);

} // namespace cudaperf::bench
