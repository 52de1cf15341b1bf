// The statistics of cudaperf-bench against values computed by hand.
#include "cudaperf/Bench/BenchError.h"
#include "cudaperf/Bench/Metrics.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cudaperf::bench;

TEST(PassAtK, HandComputedValues) {
  EXPECT_DOUBLE_EQ(passAtK(5, 2, 1), 0.4);
  EXPECT_DOUBLE_EQ(passAtK(5, 2, 2), 1.0 - 3.0 / 10.0);    // 1 - C(3,2)/C(5,2)
  EXPECT_DOUBLE_EQ(passAtK(10, 3, 5), 1.0 - 21.0 / 252.0); // 1 - C(7,5)/C(10,5)
  EXPECT_DOUBLE_EQ(passAtK(5, 0, 3), 0.0);
  EXPECT_DOUBLE_EQ(passAtK(5, 5, 1), 1.0);
  EXPECT_DOUBLE_EQ(passAtK(4, 1, 4), 1.0); // every draw of 4 of 4 holds the good one
  EXPECT_DOUBLE_EQ(passAtK(3, 1, 3), 1.0);
  EXPECT_NEAR(passAtK(200, 1, 1), 0.005, 1e-15);
  EXPECT_NEAR(passAtK(200, 10, 100), 1.0 - 0.0007710260627178503, 1e-12); // C(190,100)/C(200,100), exact
}

TEST(PassAtK, RejectsImpossibleCounts) {
  EXPECT_THROW(passAtK(3, 4, 1), BenchError);
  EXPECT_THROW(passAtK(3, 1, 4), BenchError);
  EXPECT_THROW(passAtK(3, 1, 0), BenchError);
  EXPECT_THROW(passAtK(0, 0, 1), BenchError);
  EXPECT_THROW(passAtK(3, -1, 1), BenchError);
}

TEST(Summaries, GeometricMeanMedianPercentile) {
  EXPECT_DOUBLE_EQ(geometricMean({1, 4}), 2);
  EXPECT_NEAR(geometricMean({2, 8, 4}), 4, 1e-12);
  EXPECT_TRUE(std::isnan(geometricMean({})));
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(median({})));
  EXPECT_DOUBLE_EQ(percentileOfSorted({0, 10}, 0.25), 2.5);
  EXPECT_DOUBLE_EQ(percentileOfSorted({0, 10, 20}, 1.0), 20);
}

TEST(Speedup, GeometricMeanOverConfigsAndHalfSpreadMargin) {
  Timing ref{2, 2, 2}, cand{1, 1, 1};
  Speedup one = speedupOver({{ref, cand}});
  EXPECT_DOUBLE_EQ(one.value, 2);
  EXPECT_DOUBLE_EQ(one.margin, 0);
  EXPECT_EQ(one.configs, 1);
  // 2x on one configuration, 0.5x on the other: 1x overall.
  Speedup two = speedupOver({{ref, cand}, {cand, ref}});
  EXPECT_NEAR(two.value, 1, 1e-12);
  // Spreads 0.2 (reference) and 0.1 (candidate): margin (0.2 + 0.1) / 2.
  Speedup spread = speedupOver({{Timing{1, 0.9, 1.1}, Timing{0.5, 0.475, 0.525}}});
  EXPECT_DOUBLE_EQ(spread.value, 2);
  EXPECT_NEAR(spread.margin, 0.15, 1e-12);
  EXPECT_THROW(speedupOver({}), BenchError);
  EXPECT_THROW(speedupOver({{Timing{0, 0, 0}, cand}}), BenchError);
}

TEST(Speedup, NearTiesAreNotFasterAndBoundariesAreStrict) {
  Speedup tie{1.03, 0.05, 1};
  EXPECT_FALSE(countsAsFaster(tie, 1));
  EXPECT_TRUE(strictlyFaster(tie, 1)); // what a strict fast_1 would count
  Speedup exact{1.5, 0, 1};
  EXPECT_FALSE(countsAsFaster(exact, 1.5)); // speedup > p, not >=
  EXPECT_FALSE(strictlyFaster(exact, 1.5));
  EXPECT_TRUE(countsAsFaster(exact, 1.2));
  Speedup atMargin{1.1, 0.1, 1};
  EXPECT_FALSE(countsAsFaster(atMargin, 1));          // 1.1 is not > 1 * 1.1
  EXPECT_TRUE(countsAsFaster(Speedup{1.1001, 0.1, 1}, 1));
  EXPECT_TRUE(countsAsFaster(Speedup{0.01, 0.5, 1}, 0)); // fast_0: correct is enough
}

TEST(Rng, SplitMix64IsTheSameEverywhere) {
  Rng r(0);
  EXPECT_EQ(r.next(), 0xE220A8397B1DCDAFull); // SplitMix64's first output for seed 0
  EXPECT_EQ(r.next(), 0x6E789E6AA1B965F4ull);
  Rng a(42), b(42);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(a.index(7), b.index(7));
  Rng c(1);
  for (int i = 0; i < 1000; ++i)
    EXPECT_LT(c.index(3), 3u);
}

TEST(Bootstrap, SeededAndHandCheckable) {
  // Two tasks valued 0 and 1: a draw's mean is 0, 0.5 or 1 (1/4, 1/2, 1/4), so a 95% interval over
  // 1000 draws spans [0, 1].
  std::vector<double> v = {0, 1};
  auto mean = [&](const std::vector<size_t> &idx) {
    double s = 0;
    for (size_t i : idx)
      s += v[i];
    return s / double(idx.size());
  };
  Interval i = bootstrapInterval(2, 1000, 7, 0.95, mean);
  EXPECT_DOUBLE_EQ(i.low, 0);
  EXPECT_DOUBLE_EQ(i.high, 1);
  // A 40% interval of the same draws is [0.5, 0.5].
  Interval narrow = bootstrapInterval(2, 1000, 7, 0.40, mean);
  EXPECT_DOUBLE_EQ(narrow.low, 0.5);
  EXPECT_DOUBLE_EQ(narrow.high, 0.5);
  // The same seed gives the same interval; a constant statistic a zero-width one.
  std::vector<double> many(50);
  for (size_t k = 0; k < many.size(); ++k)
    many[k] = double(k % 5);
  v = many;
  Interval a = bootstrapInterval(50, 500, 3, 0.9, mean), b = bootstrapInterval(50, 500, 3, 0.9, mean);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_LT(a.low, 2.0);
  EXPECT_GT(a.high, 2.0);
  Interval other = bootstrapInterval(50, 500, 4, 0.9, mean);
  EXPECT_TRUE(other.low != a.low || other.high != a.high);
  Interval constant = bootstrapInterval(50, 100, 1, 0.95, [](const std::vector<size_t> &) { return 3.0; });
  EXPECT_DOUBLE_EQ(constant.low, 3);
  EXPECT_DOUBLE_EQ(constant.high, 3);
  Interval none = bootstrapInterval(0, 100, 1, 0.95, mean);
  EXPECT_TRUE(std::isnan(none.low));
}
