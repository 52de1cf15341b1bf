#include "cudaperf/Runtime/TimingStats.h"

#include <algorithm>

namespace cudaperf::runtime {

double percentile(const std::vector<double> &sorted, double q) {
  if (sorted.empty())
    return 0;
  double pos = q * double(sorted.size() - 1);
  size_t lo = size_t(pos);
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

TimingStats summarizeTimes(std::vector<double> samples) {
  TimingStats stats;
  std::sort(samples.begin(), samples.end());
  stats.runs = int(samples.size());
  if (samples.empty())
    return stats;
  stats.medianMs = percentile(samples, 0.5);
  stats.minMs = samples.front();
  stats.maxMs = samples.back();
  double sum = 0;
  for (double s : samples)
    sum += s;
  stats.meanMs = sum / double(samples.size());
  stats.p10Ms = percentile(samples, 0.1);
  stats.p90Ms = percentile(samples, 0.9);
  stats.spread = stats.medianMs > 0 ? (stats.p90Ms - stats.p10Ms) / stats.medianMs : 0;
  return stats;
}

support::Json timingJson(const TimingStats &stats) {
  support::Json t = support::Json::object();
  t["runs"] = stats.runs;
  t["median_ms"] = stats.medianMs;
  t["min_ms"] = stats.minMs;
  t["max_ms"] = stats.maxMs;
  t["mean_ms"] = stats.meanMs;
  t["p10_ms"] = stats.p10Ms;
  t["p90_ms"] = stats.p90Ms;
  t["spread"] = stats.spread;
  return t;
}

} // namespace cudaperf::runtime
