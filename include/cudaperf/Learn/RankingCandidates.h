// A candidate's ranking examples from its analysis document: the one place that turns the analyzer's
// output into the ranking model's inputs, shared by `cudaperf-rank prepare` and `score` (which run the
// analyzer themselves) and the RL environment's in-process ranker (which gets the document the reward
// pipeline made). No LibTorch.
#pragma once

#include "cudaperf/Features/Features.h"
#include "cudaperf/Learn/RankingData.h"

#include <optional>
#include <string>
#include <vector>

namespace cudaperf::learn {

// One example per configuration of the analysis: `meta`'s set, task, family, kind, split and
// implementation; every configuration feature of lib/Features by name (NaN where missing); with an
// eval result its outcome, correctness, median and spread; the analyzer's roofline time and the
// reward's static score at the configuration (rankStaticScore), the two baselines' inputs.
std::vector<RankExample> rankExamplesFromAnalysis(const features::AnalysisDocument &analysis,
                                                  const std::optional<features::AnalysisDocument> &baseline,
                                                  const std::optional<features::EvalResult> &result,
                                                  const RankExample &meta, const std::string &sourcePath,
                                                  const std::string &sourceText);

// The reward's static-only total with this configuration's weight alone (docs/reward.md): what
// `cudaperf-reward --static-only` would give the candidate if the task had only this configuration,
// under the default config with learned.weight 0 (the config every shipped ranking model was trained
// with: the learned weight moves the provisional band, and this is the models' own input). NaN when
// it cannot be computed.
double rankStaticScore(const features::AnalysisDocument &analysis,
                       const std::optional<features::AnalysisDocument> &baseline, const std::string &sourceSha256,
                       const std::string &candidatePath, const std::string &configuration);

} // namespace cudaperf::learn
