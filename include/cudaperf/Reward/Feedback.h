// The feedback text the next refinement turn reads (docs/reward.md, "Feedback"): deterministic,
// at most feedback.max_chars characters, actionable. In order of priority: the outcome and reward;
// for a compile error the first errors with their line numbers (nvcc's log trimmed, directories
// removed); for a wrong answer the configuration, the worst element and how many are wrong; for a
// hack what gave it away; the speedup per configuration; the roofline fraction; the analyzer's top
// findings with their lines and fixes; counters that disagree with the static prediction.
#pragma once

#include "cudaperf/Features/Features.h"
#include "cudaperf/Reward/Reward.h"
#include "cudaperf/Reward/RewardConfig.h"

#include <string>
#include <vector>

namespace cudaperf::reward {

// `analysis` gives the findings (null: none are quoted).
std::string feedbackText(const RewardConfig &config, const RewardDocument &doc, const features::FeatureSet *analysis);

// nvcc's log reduced to its first `maxErrors` errors (each with its source line and caret), paths
// without directories, the evaluator's hints kept; the first lines of the log when it has no
// recognisable error.
std::string trimCompileLog(const std::string &log, int maxErrors);

// Absolute paths reduced to their last component ("/tmp/x/candidate.cu(6)" -> "candidate.cu(6)").
std::string withoutDirectories(const std::string &text);

} // namespace cudaperf::reward
