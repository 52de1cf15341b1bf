// The ranking metrics and pairs (no LibTorch): hand-worked groups whose accuracy, Kendall's τ and
// top-1 regret are known, the tie rule, and the examples file's round trip and errors.
#include "cudaperf/Learn/RankingData.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace cudaperf::learn;
namespace fs = std::filesystem;

namespace {

RankExample measured(const std::string &task, const std::string &impl, double ms, double spread = 0.01) {
  RankExample e;
  e.set = "dataset";
  e.task = task;
  e.family = task.substr(0, task.find('_'));
  e.split = "train";
  e.configuration = "large";
  e.implementation = impl;
  e.outcome = "ok";
  e.correct = true;
  e.medianMs = ms;
  e.spread = spread;
  e.features["x"] = ms;
  return e;
}

// Four implementations: 1, 2, 4 and 8 ms.
std::vector<RankExample> fourTimes() {
  return {measured("t_0", "a.cu", 1), measured("t_0", "b.cu", 2), measured("t_0", "c.cu", 4), measured("t_0", "d.cu", 8)};
}

std::vector<RankGroup> allGroups(const std::vector<RankExample> &e) {
  return rankGroups(e, [](const RankExample &) { return true; });
}

} // namespace

TEST(RankingData, PerfectReversedAndConstantScores) {
  std::vector<RankExample> e = fourTimes();
  std::vector<RankGroup> g = allGroups(e);
  ASSERT_EQ(g.size(), 1u);
  RankMetrics perfect = evaluateScores(e, g, {4, 3, 2, 1});
  EXPECT_EQ(perfect.pairs, 6u);
  EXPECT_DOUBLE_EQ(perfect.pairAccuracy(), 1.0);
  EXPECT_DOUBLE_EQ(perfect.kendallTau(), 1.0);
  EXPECT_DOUBLE_EQ(perfect.top1Regret(), 0.0);
  EXPECT_DOUBLE_EQ(perfect.top1Rate(), 1.0);
  RankMetrics reversed = evaluateScores(e, g, {1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(reversed.pairAccuracy(), 0.0);
  EXPECT_DOUBLE_EQ(reversed.kendallTau(), -1.0);
  EXPECT_DOUBLE_EQ(reversed.top1Regret(), 7.0); // 8 ms chosen, 1 ms best
  EXPECT_NEAR(reversed.top1GeometricRegret(), 7.0, 1e-12);
  // No prediction: every pair half right, τ 0, the top-1 choice is the mean over all four.
  RankMetrics constant = evaluateScores(e, g, {0, 0, 0, 0});
  EXPECT_DOUBLE_EQ(constant.pairAccuracy(), 0.5);
  EXPECT_DOUBLE_EQ(constant.kendallTau(), 0.0);
  EXPECT_DOUBLE_EQ(constant.top1Regret(), (0 + 1 + 3 + 7) / 4.0);
  EXPECT_DOUBLE_EQ(constant.top1Rate(), 0.25);
}

TEST(RankingData, OneSwapCostsOnePairAndMissingScoresAreTies) {
  std::vector<RankExample> e = fourTimes();
  std::vector<RankGroup> g = allGroups(e);
  RankMetrics swap = evaluateScores(e, g, {3, 4, 2, 1}); // a and b swapped
  EXPECT_DOUBLE_EQ(swap.pairAccuracy(), 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(swap.kendallTau(), (5.0 - 1.0) / 6.0);
  EXPECT_DOUBLE_EQ(swap.top1Regret(), 1.0);
  RankMetrics missing = evaluateScores(e, g, {std::nan(""), 3, 2, 1});
  EXPECT_DOUBLE_EQ(missing.pairAccuracy(), (3 * 0.5 + 3) / 6.0);
}

TEST(RankingData, PairsWithinNoiseOrUnderTenPercentAreNotCounted) {
  // 1.00 vs 1.05 ms: a tie under the rule's band for spreads of 0.1 (0.5 × hypot = 0.07 > ln 1.05).
  std::vector<RankExample> e = {measured("t_0", "a.cu", 1.0, 0.1), measured("t_0", "b.cu", 1.05, 0.1),
                                measured("t_0", "c.cu", 3.0, 0.1)};
  std::vector<RankGroup> g = allGroups(e);
  std::vector<RankPair> pairs = labelledPairs(e, g[0], TieRule{});
  ASSERT_EQ(pairs.size(), 2u);
  for (const RankPair &p : pairs) EXPECT_EQ(p.slower, 2u);
  EXPECT_NEAR(pairs[0].logRatio, std::log(3.0), 1e-12);
  RankMetrics m = evaluateScores(e, g, {0, 1, -1}); // the tied pair is ordered wrongly: no matter
  EXPECT_EQ(m.pairs, 2u);
  EXPECT_DOUBLE_EQ(m.pairAccuracy(), 1.0);
}

TEST(RankingData, GroupsKeepOnlyCorrectMeasuredImplementations) {
  std::vector<RankExample> e = fourTimes();
  e[1].correct = false;
  e[2].outcome = "timeout";
  e.push_back(measured("u_0", "lonely.cu", 1)); // a group of one is no group
  std::vector<RankGroup> g = allGroups(e);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].members, (std::vector<size_t>{0, 3}));
}

TEST(RankingData, ExamplesFileRoundTripAndErrors) {
  fs::path dir = fs::temp_directory_path() / ("rank-data-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  RankExample a = measured("t_0", "a.cu", 1.5);
  a.features["missing"] = std::nan("");
  a.staticScore = 0.25;
  {
    std::ofstream out(dir / "e.jsonl");
    out << rankExampleToJsonLine(a) << "\n";
  }
  std::vector<RankExample> back = readRankExamples((dir / "e.jsonl").string());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].task, "t_0");
  EXPECT_DOUBLE_EQ(back[0].medianMs, 1.5);
  EXPECT_DOUBLE_EQ(back[0].staticScore, 0.25);
  EXPECT_TRUE(std::isnan(back[0].rooflineUs));
  EXPECT_TRUE(std::isnan(back[0].features.at("missing")));
  EXPECT_DOUBLE_EQ(back[0].features.at("x"), 1.5);
  {
    std::ofstream out(dir / "bad.jsonl");
    out << rankExampleToJsonLine(a) << "\n{\"schema\": \"cudaperf-rank-examples/9\"}\n";
  }
  try {
    readRankExamples((dir / "bad.jsonl").string());
    FAIL() << "a line of another schema was read";
  } catch (const LearnError &e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(readRankExamples((dir / "absent.jsonl").string()), LearnError);
  fs::remove_all(dir);
}
