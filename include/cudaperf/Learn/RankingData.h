// The ranking model's data (docs/ranking.md), without LibTorch: the examples `cudaperf-rank prepare`
// writes (one per candidate × configuration: its feature vector, its measured time and what it was
// measured on), the groups a ranking compares (implementations of one task at one configuration),
// the labelled pairs inside a group (ties within timing noise are not labels), and the metrics
// (pairwise accuracy, Kendall's τ, top-1 regret) that every method is judged by.
#pragma once

#include "cudaperf/Learn/Error.h"
#include "cudaperf/Schema/Outcome.h"

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::learn {

constexpr const char *kRankExamplesSchema = "cudaperf-rank-examples/1";
// The name under which a model may take the reward's static score (RankExample::staticScore) as an
// input beside lib/Features' vector (cudaperf-rank train --static-score-input, docs/ranking.md).
constexpr const char *kStaticScoreInput = "reward_static_score";

struct RankExample {
  std::string set;            // "dataset" (generated and measured) or "shipped" (data/tasks)
  std::string task, family, kind, split; // family/split from the dataset manifest ("shipped" tasks: split "test")
  bool heldOutFamily = false; // the family's tasks are never in training (dataset.json `held_out`)
  std::string configuration;
  std::string implementation; // file name in impls/
  std::string sourcePath, sourceSha256;
  std::string sourceText;     // the implementation itself, so an examples file travels without its dataset
  std::string outcome;        // the eval result's; "" for a candidate that was not run
  bool correct = false;
  double medianMs = std::numeric_limits<double>::quiet_NaN();
  double spread = std::numeric_limits<double>::quiet_NaN();
  // Configuration-level features of lib/Features by name; NaN where missing.
  std::map<std::string, double> features;
  // Baselines computed by prepare: the reward's static-only score at this configuration alone
  // (higher = better), the analyzer's roofline time (lower = faster); NaN when unknown.
  double staticScore = std::numeric_limits<double>::quiet_NaN();
  double rooflineUs = std::numeric_limits<double>::quiet_NaN();

  // A model input by name: a configuration feature, or kStaticScoreInput (the static score). nullopt
  // when the example has no such entry (NaN: present, but the value is missing).
  std::optional<double> input(const std::string &name) const {
    if (name == kStaticScoreInput)
      return staticScore;
    auto it = features.find(name);
    return it == features.end() ? std::nullopt : std::optional<double>(it->second);
  }

  bool measuredOk() const {
    return schema::parseOutcome(outcome) == schema::Outcome::Ok && correct && std::isfinite(medianMs) && medianMs > 0;
  }
  std::string groupKey() const { return set + "/" + task + "/" + configuration; }
};

std::string rankExampleToJsonLine(const RankExample &example); // one line, no newline
// Every example of a JSON Lines file; throws LearnError naming PATH:LINE and the field.
std::vector<RankExample> readRankExamples(const std::string &path);

// Implementations of one task at one configuration that ran correctly (indices into the examples).
struct RankGroup {
  std::string key;
  std::vector<size_t> members;
};
// Groups with at least two measured-ok members among the examples `keep` accepts, in key order.
template <class Keep> std::vector<RankGroup> rankGroups(const std::vector<RankExample> &examples, Keep keep) {
  std::map<std::string, RankGroup> byKey;
  for (size_t i = 0; i < examples.size(); ++i)
    if (examples[i].measuredOk() && keep(examples[i])) {
      RankGroup &g = byKey[examples[i].groupKey()];
      g.key = examples[i].groupKey();
      g.members.push_back(i);
    }
  std::vector<RankGroup> groups;
  for (auto &[key, g] : byKey)
    if (g.members.size() >= 2)
      groups.push_back(std::move(g));
  return groups;
}

// Timing noise: two times are a tie when |ln(a/b)| ≤ max(minLog, spreadFactor × hypot(spreads)), the
// reward's tie rule (docs/reward.md: speedup.tie_min_log, speedup.tie_spread_factor).
struct TieRule {
  double minLog = 0.01;
  double spreadFactor = 0.5;
  double band(double spreadA, double spreadB) const;
};

// A labelled pair: `faster` ran faster than `slower` by logRatio = ln(t_slower / t_faster) > the tie band.
struct RankPair {
  size_t faster = 0, slower = 0;
  double logRatio = 0;
};
std::vector<RankPair> labelledPairs(const std::vector<RankExample> &examples, const RankGroup &group,
                                    const TieRule &tie);

// Metrics accumulated over groups (so folds of a cross-validation pool by adding).
// Scores: higher = predicted faster; NaN = no prediction (a tie with everything).
struct RankMetrics {
  double minRatio = 1.1;    // pairs counted for the accuracy differ by at least this factor (and are no tie)
  size_t groups = 0, pairs = 0;
  double correctPairs = 0;  // a predicted tie counts one half
  double tauSum = 0;        // Kendall's τ-b per group
  size_t tauGroups = 0;
  double regretSum = 0;     // t(chosen) / t(best) − 1 per group; tied top scores: their mean
  double logRegretSum = 0;  // ln(t(chosen) / t(best)) per group: the geometric mean is robust to one huge outlier
  double top1Best = 0;      // groups whose chosen implementation is the fastest (tied top scores: a share)

  void addGroup(const std::vector<RankExample> &examples, const RankGroup &group, const std::vector<double> &scores,
                const TieRule &tie);
  void add(const RankMetrics &other);
  double pairAccuracy() const { return pairs ? correctPairs / pairs : std::nan(""); }
  double kendallTau() const { return tauGroups ? tauSum / tauGroups : std::nan(""); }
  double top1Regret() const { return groups ? regretSum / groups : std::nan(""); }
  double top1GeometricRegret() const { return groups ? std::expm1(logRegretSum / groups) : std::nan(""); }
  double top1Rate() const { return groups ? top1Best / groups : std::nan(""); }
};

// Scores for every example, indexed like `examples` (NaN where none).
RankMetrics evaluateScores(const std::vector<RankExample> &examples, const std::vector<RankGroup> &groups,
                           const std::vector<double> &scores, const TieRule &tie = {});

} // namespace cudaperf::learn
