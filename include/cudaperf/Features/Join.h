// The join of the launches the analyzer found at a configuration (`--task`) to the kernels the
// GPU ran there (the eval result's configs[].launches[] and configs[].counters.kernels[]): by
// mangled name, in launch order (the longest common subsequence of the two name sequences), with
// a reason for everything that did not join.
#pragma once

#include "cudaperf/Features/AnalysisDocument.h"
#include "cudaperf/Features/EvalDocument.h"

#include <optional>
#include <string>
#include <vector>

namespace cudaperf::features {

// What the GPU did for one launch: the launch the worker recorded and/or its counters.
struct MeasuredSide {
  int order = 0;                          // position in the measured launch sequence
  std::string kernel;                     // mangled
  const MeasuredLaunch *launch = nullptr; // configs[].launches[order], when recorded
  const MeasuredKernel *counters = nullptr;
};

struct JoinedLaunch {
  int staticIndex = 0; // LaunchReport::index
  std::optional<MeasuredSide> measured;
  // Where the recorded grid / block / dynamic shared memory differ from the analyzer's:
  // "grid [4, 1, 1] predicted, [5, 1, 1] measured".
  std::vector<std::string> mismatches;
  std::string kernel; // mangled
};

struct UnjoinedMeasured {
  MeasuredSide measured;
  std::string reason;
};

struct UnjoinedStatic {
  int staticIndex = 0;
  std::string kernel; // mangled
  std::string reason;
};

struct JoinReport {
  bool measuredAvailable = false; // a launch list or available counters to join with
  std::string measuredSource;     // "launches", "counters", "launches+counters", or why none
  std::vector<JoinedLaunch> launches; // one per static launch, in order
  std::vector<UnjoinedMeasured> unjoinedMeasured;
  std::vector<UnjoinedStatic> unjoinedStatic;
  int staticLaunches = 0, measuredLaunches = 0, joined = 0;
  int configMismatches = 0; // joined launches whose grid, block or shared memory differ

  // Every static launch joined and every measured one used, with equal launch configurations.
  bool complete() const {
    return measuredAvailable && unjoinedMeasured.empty() && unjoinedStatic.empty() && configMismatches == 0;
  }
  support::Json toJson() const;
};

// `analysis` gives the file's kernels (to tell a library's kernel from one of the candidate's).
JoinReport joinLaunches(const AnalysisDocument &analysis, const ConfigurationAnalysis &predicted,
                        const EvalConfiguration *measured);

} // namespace cudaperf::features
