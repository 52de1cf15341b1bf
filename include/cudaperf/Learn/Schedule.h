// Learning-rate schedules: linear warm-up from 0 to the peak, then cosine or linear decay to
// minRatio * peak at totalSteps (constant after). No LibTorch, so schedules are tested in isolation.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cudaperf::learn {

struct ScheduleOptions {
  std::string kind = "cosine"; // "cosine", "linear" or "constant"
  int64_t warmupSteps = 0;
  int64_t totalSteps = 1000;
  double minRatio = 0.1;       // final learning rate as a fraction of the peak
};

// Learning rate for optimizer step `step` (0-based: the first update uses step 0). Throws
// std::invalid_argument for an unknown kind or negative counts.
double learningRateAt(int64_t step, double peak, const ScheduleOptions &options);

} // namespace cudaperf::learn
