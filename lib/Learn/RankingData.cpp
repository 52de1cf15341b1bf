#include "cudaperf/Learn/RankingData.h"

#include "cudaperf/Support/JsonReader.h"

#include <algorithm>
#include <fstream>

namespace cudaperf::learn {

using support::Json;

namespace {

Json numberOrNull(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

double numberOrNaN(const support::JsonField &object, std::string_view key) {
  return object.optionalNumber(key).value_or(std::nan(""));
}

} // namespace

std::string rankExampleToJsonLine(const RankExample &e) {
  Json features = Json::object();
  for (const auto &[name, value] : e.features)
    features[name] = numberOrNull(value);
  Json j = {{"schema", kRankExamplesSchema},
            {"set", e.set},
            {"task", e.task},
            {"family", e.family},
            {"kind", e.kind},
            {"split", e.split},
            {"held_out_family", e.heldOutFamily},
            {"configuration", e.configuration},
            {"implementation", e.implementation},
            {"source", e.sourcePath},
            {"source_sha256", e.sourceSha256},
            {"source_text", e.sourceText},
            {"outcome", e.outcome},
            {"correct", e.correct},
            {"median_ms", numberOrNull(e.medianMs)},
            {"spread", numberOrNull(e.spread)},
            {"static_score", numberOrNull(e.staticScore)},
            {"roofline_time_us", numberOrNull(e.rooflineUs)},
            {"features", features}};
  return support::writeJson(j);
}

std::vector<RankExample> readRankExamples(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw LearnError(path + ": cannot read the examples file (make it with `cudaperf-rank prepare`)");
  std::vector<RankExample> out;
  std::string line;
  for (size_t lineNo = 1; std::getline(in, line); ++lineNo) {
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    std::string where = path + ":" + std::to_string(lineNo);
    try {
      Json doc = support::parseJson(line, where);
      support::JsonField root(doc, where);
      std::string schema = root.require("schema").string();
      if (schema != kRankExamplesSchema)
        root.require("schema").fail("schema \"" + schema + "\" is not " + kRankExamplesSchema);
      RankExample e;
      e.set = root.require("set").string();
      e.task = root.require("task").string();
      e.family = root.optionalString("family").value_or("");
      e.kind = root.optionalString("kind").value_or("");
      e.split = root.optionalString("split").value_or("");
      e.heldOutFamily = root.optionalBoolean("held_out_family").value_or(false);
      e.configuration = root.require("configuration").string();
      e.implementation = root.require("implementation").string();
      e.sourcePath = root.optionalString("source").value_or("");
      e.sourceSha256 = root.optionalString("source_sha256").value_or("");
      e.sourceText = root.optionalString("source_text").value_or("");
      e.outcome = root.optionalString("outcome").value_or("");
      e.correct = root.optionalBoolean("correct").value_or(false);
      e.medianMs = numberOrNaN(root, "median_ms");
      e.spread = numberOrNaN(root, "spread");
      e.staticScore = numberOrNaN(root, "static_score");
      e.rooflineUs = numberOrNaN(root, "roofline_time_us");
      for (const auto &[name, value] : root.require("features").members())
        e.features[name] = value.isNull() ? std::nan("") : value.number();
      out.push_back(std::move(e));
    } catch (const support::SupportError &err) {
      throw LearnError(err.what());
    }
  }
  return out;
}

double TieRule::band(double spreadA, double spreadB) const {
  double a = std::isfinite(spreadA) ? spreadA : 0, b = std::isfinite(spreadB) ? spreadB : 0;
  return std::max(minLog, spreadFactor * std::hypot(a, b));
}

std::vector<RankPair> labelledPairs(const std::vector<RankExample> &examples, const RankGroup &group,
                                    const TieRule &tie) {
  std::vector<RankPair> pairs;
  for (size_t a = 0; a < group.members.size(); ++a)
    for (size_t b = a + 1; b < group.members.size(); ++b) {
      const RankExample &x = examples[group.members[a]], &y = examples[group.members[b]];
      double lr = std::log(y.medianMs / x.medianMs); // > 0: x is faster
      if (std::abs(lr) <= tie.band(x.spread, y.spread))
        continue;
      if (lr > 0)
        pairs.push_back({group.members[a], group.members[b], lr});
      else
        pairs.push_back({group.members[b], group.members[a], -lr});
    }
  return pairs;
}

void RankMetrics::addGroup(const std::vector<RankExample> &examples, const RankGroup &group,
                           const std::vector<double> &scores, const TieRule &tie) {
  const std::vector<size_t> &m = group.members;
  ++groups;
  // Pairwise accuracy over pairs that differ by minRatio and lie outside the noise band; Kendall's
  // τ-b with measured ties (inside the band) and predicted ties (equal or missing scores).
  double concordant = 0, discordant = 0, measuredTies = 0, predictedTies = 0, all = 0;
  for (size_t a = 0; a < m.size(); ++a)
    for (size_t b = a + 1; b < m.size(); ++b) {
      const RankExample &x = examples[m[a]], &y = examples[m[b]];
      double lr = std::log(y.medianMs / x.medianMs);
      bool measuredTie = std::abs(lr) <= tie.band(x.spread, y.spread);
      double sx = scores[m[a]], sy = scores[m[b]];
      bool predictedTie = !std::isfinite(sx) || !std::isfinite(sy) || sx == sy;
      ++all;
      measuredTies += measuredTie;
      predictedTies += predictedTie;
      bool agree = (lr > 0) == (sx > sy);
      if (!measuredTie && !predictedTie)
        (agree ? concordant : discordant) += 1;
      if (!measuredTie && std::abs(lr) >= std::log(minRatio)) {
        ++pairs;
        correctPairs += predictedTie ? 0.5 : (agree ? 1.0 : 0.0);
      }
    }
  if (measuredTies < all) {
    double denominator = std::sqrt((all - measuredTies) * (all - predictedTies));
    tauSum += denominator > 0 ? (concordant - discordant) / denominator : 0.0;
    ++tauGroups;
  }
  // Top-1: the implementation with the highest score (all of them when none has a score).
  double best = std::numeric_limits<double>::infinity(), top = -std::numeric_limits<double>::infinity();
  for (size_t i : m) {
    best = std::min(best, examples[i].medianMs);
    if (std::isfinite(scores[i]))
      top = std::max(top, scores[i]);
  }
  std::vector<size_t> chosen;
  for (size_t i : m)
    if (!std::isfinite(top) || scores[i] == top)
      chosen.push_back(i);
  double regret = 0, logRegret = 0, hits = 0;
  for (size_t i : chosen) {
    regret += examples[i].medianMs / best - 1;
    logRegret += std::log(examples[i].medianMs / best);
    hits += examples[i].medianMs == best;
  }
  regretSum += regret / chosen.size();
  logRegretSum += logRegret / chosen.size();
  top1Best += hits / chosen.size();
}

void RankMetrics::add(const RankMetrics &o) {
  groups += o.groups;
  pairs += o.pairs;
  correctPairs += o.correctPairs;
  tauSum += o.tauSum;
  tauGroups += o.tauGroups;
  regretSum += o.regretSum;
  logRegretSum += o.logRegretSum;
  top1Best += o.top1Best;
}

RankMetrics evaluateScores(const std::vector<RankExample> &examples, const std::vector<RankGroup> &groups,
                           const std::vector<double> &scores, const TieRule &tie) {
  if (scores.size() != examples.size())
    throw LearnError("evaluateScores: " + std::to_string(scores.size()) + " scores for " +
                     std::to_string(examples.size()) + " examples");
  RankMetrics metrics;
  for (const RankGroup &g : groups)
    metrics.addGroup(examples, g, scores, tie);
  return metrics;
}

} // namespace cudaperf::learn
