// The learned term with the shipped default (issue 34, item 1): the ranking model's score moves a
// candidate's reward by exactly learned.weight x (tanh(s2 / scale) - tanh(s1 / scale)), every other term
// unchanged, and the default weight keeps every ordering rule of the config (docs/reward.md, "learned.weight").
#include "cudaperf/Reward/Pipeline.h"
#include "cudaperf/Reward/RewardConfig.h"
#include "RewardFixtures.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cudaperf;
using namespace cudaperf::reward;
using support::Json;

namespace {

// A correct candidate of two configurations, 1.5x and 1.2x over the baseline; no analysis.
double totalWith(const RewardConfig &c, std::optional<double> score) {
  RewardDocument d = rewardtest::rewardOf(c, rewardtest::evalResult({{"small", 1.0, 1.5}, {"large", 1.0, 1.2}}),
                                          std::nullopt, std::nullopt, score);
  EXPECT_FALSE(d.gate) << gateName(*d.gate);
  return *d.total;
}

} // namespace

TEST(LearnedTerm, DefaultWeightIsOnAndShippedConfigAgrees) {
  RewardConfig c;
  EXPECT_DOUBLE_EQ(c.learned.weight, 0.04);
  EXPECT_DOUBLE_EQ(c.learned.scale, 1.0);
  RewardConfig shipped = loadRewardConfig(std::string(CUDAPERF_SOURCE_DIR) + "/data/reward/default.json");
  EXPECT_DOUBLE_EQ(shipped.learned.weight, c.learned.weight);
  // The ordering rules hold with it: the worst correct total (the learned term at -1) above every failure.
  EXPECT_GT(c.lowestCorrectTotal(), c.highestFailureGate());
  EXPECT_NO_THROW(validateRewardConfig(c));
}

TEST(LearnedTerm, HigherScoreRaisesTheRewardByExactlyTheConfiguredAmount) {
  RewardConfig c; // the shipped default weight
  double base = totalWith(c, std::nullopt);
  for (double s1 : {-2.0, -0.3, 0.0, 0.4}) {
    for (double s2 : {0.5, 1.0, 3.0}) {
      double low = totalWith(c, s1), high = totalWith(c, s2);
      EXPECT_GT(high, low) << s1 << " -> " << s2;
      EXPECT_NEAR(high - low, c.learned.weight * (std::tanh(s2 / c.learned.scale) - std::tanh(s1 / c.learned.scale)),
                  1e-12);
    }
  }
  // A score of 0 (as fast as the task's baseline, in the model's eyes) adds nothing; the most it can add
  // or take is the weight itself.
  EXPECT_NEAR(totalWith(c, 0.0), base, 1e-12);
  EXPECT_NEAR(totalWith(c, 50.0) - base, c.learned.weight, 1e-12);
  EXPECT_NEAR(base - totalWith(c, -50.0), c.learned.weight, 1e-12);
  // Another weight and scale: the same rule with their values.
  c.learned.weight = 0.08;
  c.learned.scale = 2;
  EXPECT_NEAR(totalWith(c, 1.0) - totalWith(c, -1.0), 0.08 * 2 * std::tanh(0.5), 1e-12);
  c.learned.weight = 0;
  EXPECT_NEAR(totalWith(c, 3.0), totalWith(c, std::nullopt), 1e-12); // weight 0: the term is there, worth nothing
}

TEST(LearnedTerm, TheTermNamesItsInputs) {
  RewardConfig c;
  RewardDocument d = rewardtest::rewardOf(c, rewardtest::evalResult({{"small", 1.0, 1.5}}), std::nullopt, std::nullopt, 0.7);
  const RewardTerm *t = d.term("ranking");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->group, "learned");
  EXPECT_DOUBLE_EQ(*t->value, std::tanh(0.7));
  EXPECT_DOUBLE_EQ(t->contribution, c.learned.weight * std::tanh(0.7));
  EXPECT_DOUBLE_EQ(t->inputs["score"].get<double>(), 0.7);
}
