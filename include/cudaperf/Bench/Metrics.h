// The statistics behind cudaperf-bench's aggregates (docs/bench.md, "Metrics"), as pure functions
// so every one is tested against hand-computed values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudaperf::bench {

// The unbiased estimator of pass@k (Chen et al. 2021): the probability that at least one of k
// samples drawn without replacement from n, c of them good, is good: 1 - C(n-c, k) / C(n, k),
// computed as 1 - prod_{i=n-c+1}^{n} (1 - k/i) so it stays exact for large n. Throws BenchError
// (Usage) unless 0 <= c <= n and 1 <= k <= n.
double passAtK(int n, int c, int k);

// exp(mean(log x)); NaN for an empty vector. Every value must be > 0.
double geometricMean(const std::vector<double> &values);
// Middle value (mean of the two middle ones for an even count); NaN for an empty vector.
double median(std::vector<double> values);
// Linear interpolation between closest ranks of an ascending vector, q in [0, 1]; NaN when empty.
double percentileOfSorted(const std::vector<double> &sorted, double q);

// A timed implementation as the evaluator reports it: median and the 10th/90th percentiles.
struct Timing {
  double medianMs = 0, p10Ms = 0, p90Ms = 0;
  // (p90 - p10) / median: the width of the middle 80 % of runs, relative to the median.
  double relativeSpread() const;
};

// A candidate's speedup over a reference across a task's configurations: the geometric mean of
// reference median / candidate median, and the tie margin, the mean over configurations of half
// the two timings' relative spreads. Faster than p x the reference means value > p * (1 + margin):
// a ratio inside the timings' own spread is a near-tie and does not count (KernelBench issue 166:
// an unchanged model passes a strict fast_1 about half of the time).
struct Speedup {
  double value = 0;
  double margin = 0;
  int configs = 0;
};
// pairs: (reference, candidate) per configuration; every median must be > 0. Throws BenchError
// (Results) for an empty list or a non-positive median.
Speedup speedupOver(const std::vector<std::pair<Timing, Timing>> &pairs);
// p <= 0 is correctness alone (fast_0).
bool countsAsFaster(const Speedup &s, double p);
// The usual strict rule (value > p), reported beside the tie-aware one for comparison.
bool strictlyFaster(const Speedup &s, double p);

// A seeded generator whose output is the same on every platform (std's distributions are not):
// SplitMix64, with uniform indices by rejection.
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  size_t index(size_t n); // uniform in [0, n); n > 0
private:
  uint64_t state_;
};

struct Interval {
  double low = 0, high = 0;
};
// Bootstrap over units (tasks): `resamples` draws of n indices with replacement from Rng(seed),
// each passed to onDraw(const std::vector<size_t> &). The same seed gives the same draws.
template <typename OnDraw>
void forEachBootstrapDraw(size_t n, int resamples, uint64_t seed, OnDraw onDraw);
// Percentile interval of statistic(draw) over those draws: the (1-confidence)/2 and
// (1+confidence)/2 percentiles of the finite values; NaN bounds when none is finite.
template <typename Statistic>
Interval bootstrapInterval(size_t n, int resamples, uint64_t seed, double confidence, Statistic statistic);

} // namespace cudaperf::bench

#include "cudaperf/Bench/MetricsImpl.h"
