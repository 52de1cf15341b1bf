#include "cudaperf/Learn/Schedule.h"

#include <algorithm>
#include <cmath>

namespace cudaperf::learn {

double learningRateAt(int64_t step, double peak, const ScheduleOptions &o) {
  if (o.warmupSteps < 0 || o.totalSteps < 0 || step < 0)
    throw std::invalid_argument("learning-rate schedule: negative step counts");
  if (o.kind != "cosine" && o.kind != "linear" && o.kind != "constant")
    throw std::invalid_argument("learning-rate schedule '" + o.kind + "' is unknown (cosine, linear, constant)");
  // Warm-up reaches the peak at step warmupSteps - 1 (step 0 already moves, as in transformers'
  // schedulers shifted by one so no step is wasted at zero).
  if (step < o.warmupSteps) return peak * double(step + 1) / double(o.warmupSteps);
  if (o.kind == "constant") return peak;
  int64_t decaySteps = std::max<int64_t>(1, o.totalSteps - o.warmupSteps);
  double progress = std::min(1.0, double(step - o.warmupSteps) / double(decaySteps));
  double shape = o.kind == "cosine" ? 0.5 * (1.0 + std::cos(M_PI * progress)) : 1.0 - progress;
  return peak * (o.minRatio + (1.0 - o.minRatio) * shape);
}

} // namespace cudaperf::learn
