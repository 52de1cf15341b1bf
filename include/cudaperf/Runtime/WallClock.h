// The wall-clock check of a candidate's timing (docs/security.md, "Timing that a candidate cannot
// forge"): the runner's CUDA-event median is a claim; K calls in a row timed on the worker's own
// clock bound it from below. The rule is a pure function so that stored GPU runs replay it on the
// CPU (test/runtime/WallClockTest.cpp).
#pragma once

#include <string>

namespace cudaperf::runtime {

struct WallClockRule {
  // Calls in a row may take this many times the claimed per-call time (measured on the H100:
  // honest candidates reach 1.5 on memory-bound configurations of 20-85 µs)...
  double factor = 1.6;
  // ...plus this much host time per kernel launch of a call (host-bound calls of a few µs: the
  // launch path is on the wall clock, the events see only the GPU), for at most maxLaunches.
  double launchAllowanceMs = 0.005;
  int maxLaunches = 4;
  // A call that launches kernels cannot take less GPU time than this per launch (the events
  // around one empty launch).
  double minMsPerLaunch = 0.0015;
};

// "" when the claimed median is plausible, else why not.
std::string wallClockViolation(double eventMedianMs, double wallMsPerCall, int launches,
                               const WallClockRule &rule = WallClockRule());

} // namespace cudaperf::runtime
