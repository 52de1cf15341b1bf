#include "cudaperf/Runtime/WallClock.h"

#include <algorithm>
#include <cstdio>

namespace cudaperf::runtime {

std::string wallClockViolation(double eventMedianMs, double wallMsPerCall, int launches, const WallClockRule &rule) {
  int counted = std::clamp(launches, 1, rule.maxLaunches);
  char buf[600];
  if (launches > 0 && eventMedianMs < rule.minMsPerLaunch * launches) {
    snprintf(buf, sizeof buf,
             "the candidate's timed calls claimed %.4f ms each for %d kernel launches, less than a launch takes "
             "(%.4f ms each), while calls in a row took %.4f ms each on the evaluator's own clock",
             eventMedianMs, launches, rule.minMsPerLaunch, wallMsPerCall);
    return buf;
  }
  double allowed = eventMedianMs * rule.factor + rule.launchAllowanceMs * counted;
  if (wallMsPerCall > allowed) {
    snprintf(buf, sizeof buf,
             "the candidate's timed calls claimed %.4f ms each (median of its CUDA events), but calls in a row took "
             "%.4f ms each on the evaluator's own clock (more than %.4f): a timer it changed, an answer it forged, "
             "or work its timed calls did not show (such as state rebuilt whenever its buffers change: the "
             "evaluator passes several buffer sets in turn)",
             eventMedianMs, wallMsPerCall, allowed);
    return buf;
  }
  return "";
}

} // namespace cudaperf::runtime
