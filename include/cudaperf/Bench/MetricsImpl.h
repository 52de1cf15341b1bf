// The template part of Metrics.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace cudaperf::bench {

template <typename OnDraw>
void forEachBootstrapDraw(size_t n, int resamples, uint64_t seed, OnDraw onDraw) {
  if (n == 0)
    return;
  Rng rng(seed);
  std::vector<size_t> draw(n);
  for (int r = 0; r < resamples; ++r) {
    for (size_t i = 0; i < n; ++i)
      draw[i] = rng.index(n);
    onDraw(static_cast<const std::vector<size_t> &>(draw));
  }
}

template <typename Statistic>
Interval bootstrapInterval(size_t n, int resamples, uint64_t seed, double confidence, Statistic statistic) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> values;
  forEachBootstrapDraw(n, resamples, seed, [&](const std::vector<size_t> &draw) {
    double v = statistic(draw);
    if (std::isfinite(v))
      values.push_back(v);
  });
  if (values.empty())
    return {nan, nan};
  std::sort(values.begin(), values.end());
  return {percentileOfSorted(values, (1 - confidence) / 2), percentileOfSorted(values, (1 + confidence) / 2)};
}

} // namespace cudaperf::bench
