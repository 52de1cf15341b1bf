#pragma once
// SFT's measured refinement examples (issue 34, item 4; docs/training.md, "Measured refinement examples"):
// turn 2 as RL asks for it, built from what was measured. For a task with at least two implementations
// measured ok (scripts/gpu/measure-dataset.sh's results, data/measured/dataset-h200), the earlier answer is
// the slowest one, the feedback is the text RL's environment gives that very result (lib/Reward's feedback
// on the stored evaluator document: its measured speedups per configuration), and the answer is the fastest
// one, when it was measured at least `minRatio` times faster. Torch-free (lib/Reward).
#include "cudaperf/Support/Json.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::learn {

struct MeasuredImplementation {
  std::string file;      // under the task's impls/ ("baseline.cu")
  std::string sha256;    // of the file measured
  double speedup = 0;    // against the task's baseline (the result's "speedup")
  support::Json result;  // the cudaperf-eval-result/1 document
};

// Task name -> implementation file -> its latest ok measurement (later files and lines replace earlier
// ones). Only "ok" results with a positive speedup are kept.
struct MeasuredResults {
  std::map<std::string, std::map<std::string, MeasuredImplementation>> byTask;
  size_t documents = 0, kept = 0;
};

// Every *.jsonl and *.jsonl.zst of DIR, in name order. LearnError when DIR has none or a file is unreadable.
MeasuredResults readMeasuredResults(const std::string &dir);

struct MeasuredPair {
  std::string slower, faster;  // implementation files (under impls/)
  double slowerSpeedup = 0, fasterSpeedup = 0;
  std::string feedback;        // what RL's environment says of the slower one's result
};

// The slowest and fastest of a task's measured implementations whose files still hash as measured
// (`currentSha256`: file -> sha256 of the dataset's file now; a file missing there or changed is left out),
// when the fastest is at least minRatio times the slowest; nullopt otherwise.
std::optional<MeasuredPair> chooseMeasuredPair(const std::map<std::string, MeasuredImplementation> &measured,
                                               const std::map<std::string, std::string> &currentSha256,
                                               double minRatio = 1.25);

} // namespace cudaperf::learn
