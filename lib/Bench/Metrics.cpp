#include "cudaperf/Bench/Metrics.h"
#include "cudaperf/Bench/BenchError.h"

#include <string>

namespace cudaperf::bench {

double passAtK(int n, int c, int k) {
  if (n < 1 || c < 0 || c > n || k < 1 || k > n)
    throw BenchError(BenchError::Kind::Usage, "pass@k needs 0 <= c <= n and 1 <= k <= n (n=" + std::to_string(n) +
                                                  ", c=" + std::to_string(c) + ", k=" + std::to_string(k) + ")");
  if (n - c < k)
    return 1.0; // every choice of k holds a good sample
  double allBad = 1.0;
  for (int i = n - c + 1; i <= n; ++i)
    allBad *= 1.0 - double(k) / double(i);
  return 1.0 - allBad;
}

double geometricMean(const std::vector<double> &values) {
  if (values.empty())
    return std::numeric_limits<double>::quiet_NaN();
  double logSum = 0;
  for (double v : values)
    logSum += std::log(v);
  return std::exp(logSum / double(values.size()));
}

double percentileOfSorted(const std::vector<double> &sorted, double q) {
  if (sorted.empty())
    return std::numeric_limits<double>::quiet_NaN();
  double pos = std::clamp(q, 0.0, 1.0) * double(sorted.size() - 1);
  size_t lo = size_t(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return percentileOfSorted(values, 0.5);
}

double Timing::relativeSpread() const { return medianMs > 0 ? (p90Ms - p10Ms) / medianMs : 0; }

Speedup speedupOver(const std::vector<std::pair<Timing, Timing>> &pairs) {
  if (pairs.empty())
    throw BenchError(BenchError::Kind::Results, "a speedup needs at least one timed configuration");
  Speedup s;
  double logSum = 0, marginSum = 0;
  for (const auto &[reference, candidate] : pairs) {
    if (!(reference.medianMs > 0) || !(candidate.medianMs > 0))
      throw BenchError(BenchError::Kind::Results, "a timing has a median of " +
                                                      std::to_string(std::min(reference.medianMs, candidate.medianMs)) +
                                                      " ms; medians must be positive");
    logSum += std::log(reference.medianMs / candidate.medianMs);
    marginSum += (std::max(0.0, reference.relativeSpread()) + std::max(0.0, candidate.relativeSpread())) / 2;
  }
  s.configs = int(pairs.size());
  s.value = std::exp(logSum / s.configs);
  s.margin = marginSum / s.configs;
  return s;
}

bool countsAsFaster(const Speedup &s, double p) { return p <= 0 || s.value > p * (1 + s.margin); }

bool strictlyFaster(const Speedup &s, double p) { return p <= 0 || s.value > p; }

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

size_t Rng::index(size_t n) {
  // Rejection of the top partial range keeps every index equally likely.
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t v;
  do
    v = next();
  while (v >= limit);
  return size_t(v % n);
}

} // namespace cudaperf::bench
