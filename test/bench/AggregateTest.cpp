// Aggregates over hand-made scores: K samples, ties, fast_p at its boundaries, turns, intervals.
#include "cudaperf/Bench/Aggregate.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cudaperf::bench;

namespace {

CandidateScore score(const std::string &task, const std::string &sample, int turn, const std::string &outcome,
                     std::map<Reference, Speedup> speedups = {}) {
  CandidateScore s;
  s.file = {task, sample, turn, "/c/" + task + "/" + sample + ".cu"};
  s.outcome = outcome;
  s.correct = outcome == "ok";
  s.speedups = std::move(speedups);
  return s;
}

Suite twoTasks() {
  Suite s;
  s.name = "hand";
  SuiteTask a, b;
  a.name = "A";
  a.kind = "c-to-cuda";
  b.name = "B";
  b.kind = "pytorch-to-cuda";
  s.tasks = {a, b};
  return s;
}

const std::map<std::string, std::vector<Reference>> kRefs = {
    {"A", {Reference::Baseline}}, {"B", {Reference::Baseline, Reference::Eager}}};

// A: three samples, 2.0x (margin 0.1), wrong, 1.02x (margin 0.05: a tie at p = 1).
// B: three samples, 0.8x over the baseline and exactly 1.5x over eager (margin 0), missing, a hack.
std::vector<CandidateScore> handScores() {
  return {
      score("A", "0", 1, "ok", {{Reference::Baseline, {2.0, 0.1, 3}}}),
      score("A", "1", 1, "wrong_answer"),
      score("A", "2", 1, "ok", {{Reference::Baseline, {1.02, 0.05, 3}}}),
      score("B", "0", 1, "ok", {{Reference::Baseline, {0.8, 0.0, 3}}, {Reference::Eager, {1.5, 0.0, 3}}}),
      score("B", "1", 1, "missing"),
      score("B", "2", 1, "timing_violation"),
  };
}

double figure(const Aggregate &a, const std::string &key) {
  auto it = a.figures.find(key);
  EXPECT_NE(it, a.figures.end()) << key;
  return it == a.figures.end() ? NAN : it->second.value;
}

} // namespace

TEST(Aggregate, HandComputedFiguresOverKSamples) {
  Suite suite = twoTasks();
  AggregateOptions o;
  o.resamples = 0;
  std::vector<TaskSummary> tasks = summarizeTasks(handScores(), suite, kRefs, 1, o.pValues);
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].n, 3);
  EXPECT_EQ(tasks[0].correct, 2);
  EXPECT_EQ(tasks[1].correct, 1);
  Aggregate a = aggregateTasks(tasks, o);
  EXPECT_EQ(a.kValues, (std::vector<int>{1, 2, 3}));
  EXPECT_DOUBLE_EQ(figure(a, "correctness"), (2.0 / 3 + 1.0 / 3) / 2);
  EXPECT_DOUBLE_EQ(figure(a, "pass@1"), 0.5);
  EXPECT_DOUBLE_EQ(figure(a, "pass@2"), (1.0 + 2.0 / 3) / 2); // A: n-c < k; B: 1 - C(2,2)/C(3,2)
  EXPECT_DOUBLE_EQ(figure(a, "pass@3"), 1.0);

  // fast_0 is correctness.
  EXPECT_DOUBLE_EQ(figure(a, "baseline.fast_0"), 0.5);
  // The 1.02x sample is a tie at p = 1: only the 2.0x one counts; strictly both do.
  EXPECT_DOUBLE_EQ(figure(a, "baseline.fast_1"), (1.0 / 3 + 0) / 2);
  EXPECT_DOUBLE_EQ(figure(a, "baseline.fast_1.strict"), (2.0 / 3 + 0) / 2);
  EXPECT_DOUBLE_EQ(figure(a, "baseline.fast_1.2"), (1.0 / 3) / 2); // 2.0 > 1.2 * 1.1
  EXPECT_DOUBLE_EQ(figure(a, "baseline.fast_2"), 0);               // 2.0 is not > 2 * 1.1
  EXPECT_DOUBLE_EQ(figure(a, "baseline.fast_2.strict"), 0);        // 2.0 is not > 2
  EXPECT_DOUBLE_EQ(figure(a, "baseline.fast_1@2"), (2.0 / 3 + 0) / 2); // A: 1 - C(2,2)/C(3,2)
  // Eager: only B is a PyTorch task; exactly 1.5x is not faster than 1.5x.
  EXPECT_EQ(a.referenceTasks.at(Reference::Eager), 1);
  EXPECT_DOUBLE_EQ(figure(a, "eager.fast_1"), 1.0 / 3);
  EXPECT_DOUBLE_EQ(figure(a, "eager.fast_1.2"), 1.0 / 3);
  EXPECT_DOUBLE_EQ(figure(a, "eager.fast_1.5"), 0);
  EXPECT_DOUBLE_EQ(figure(a, "eager.fast_1.5.strict"), 0);
  EXPECT_DOUBLE_EQ(figure(a, "eager.fast_1@3"), 1.0);
  EXPECT_EQ(a.figures.at("eager.fast_1").tasks, 1);
  // Speedups pool the correct samples: 2.0, 1.02 and 0.8; best per task 2.0 and 0.8.
  EXPECT_NEAR(figure(a, "baseline.geomean_speedup"), std::cbrt(2.0 * 1.02 * 0.8), 1e-12);
  EXPECT_DOUBLE_EQ(figure(a, "baseline.median_speedup"), 1.02);
  EXPECT_NEAR(figure(a, "baseline.best_geomean_speedup"), std::sqrt(1.6), 1e-12);
  // No compile timings anywhere: no figure.
  EXPECT_TRUE(std::isnan(figure(a, "compile.fast_1")));
  EXPECT_EQ(a.referenceTasks.at(Reference::Compile), 0);
}

TEST(Aggregate, BestOfTurnsUpToT) {
  Suite suite = twoTasks();
  suite.tasks.pop_back();
  std::vector<CandidateScore> scores = {
      score("A", "0", 1, "wrong_answer"),
      score("A", "0", 2, "ok", {{Reference::Baseline, {1.5, 0.0, 1}}}),
      score("A", "0", 3, "ok", {{Reference::Baseline, {1.1, 0.0, 1}}}), // worse than turn 2: best stays 1.5
      score("A", "1", 1, "ok", {{Reference::Baseline, {0.9, 0.0, 1}}}),
  };
  AggregateOptions o;
  o.resamples = 0;
  auto at = [&](int turn) { return aggregateTasks(summarizeTasks(scores, suite, kRefs, turn, o.pValues), o); };
  EXPECT_DOUBLE_EQ(figure(at(1), "correctness"), 0.5);
  EXPECT_DOUBLE_EQ(figure(at(1), "baseline.fast_1"), 0);
  EXPECT_DOUBLE_EQ(figure(at(2), "correctness"), 1.0);
  EXPECT_DOUBLE_EQ(figure(at(2), "baseline.fast_1.2"), 0.5);
  EXPECT_DOUBLE_EQ(figure(at(3), "baseline.fast_1.2"), 0.5);
  EXPECT_NEAR(figure(at(3), "baseline.geomean_speedup"), std::sqrt(1.5 * 0.9), 1e-12);
  // A sample whose first file is turn 2 is a failed slot at turn 1, not an absent one.
  scores.push_back(score("A", "2", 2, "ok", {{Reference::Baseline, {3.0, 0.0, 1}}}));
  EXPECT_DOUBLE_EQ(figure(at(1), "correctness"), 1.0 / 3);
  EXPECT_DOUBLE_EQ(figure(at(2), "correctness"), 1.0);
}

TEST(Aggregate, BootstrapIntervalsAreSeededAndBracketTheValue) {
  Suite suite;
  suite.name = "many";
  std::vector<CandidateScore> scores;
  std::map<std::string, std::vector<Reference>> refs;
  for (int t = 0; t < 40; ++t) {
    SuiteTask task;
    task.name = "t" + std::to_string(t);
    task.kind = "c-to-cuda";
    suite.tasks.push_back(task);
    refs[task.name] = {Reference::Baseline};
    bool ok = t % 4 != 0;
    scores.push_back(score(task.name, "0", 1, ok ? "ok" : "wrong_answer",
                           ok ? std::map<Reference, Speedup>{{Reference::Baseline, {0.5 + 0.05 * t, 0.02, 1}}}
                              : std::map<Reference, Speedup>{}));
  }
  AggregateOptions o;
  o.resamples = 400;
  o.seed = 11;
  auto tasks = summarizeTasks(scores, suite, refs, 1, o.pValues);
  Aggregate a = aggregateTasks(tasks, o), b = aggregateTasks(tasks, o);
  const Estimate &c = a.figures.at("correctness");
  EXPECT_DOUBLE_EQ(c.value, 0.75);
  EXPECT_LT(c.ci.low, 0.75);
  EXPECT_GT(c.ci.high, 0.75);
  EXPECT_GE(c.ci.low, 0.0);
  EXPECT_LE(c.ci.high, 1.0);
  EXPECT_EQ(c.ci.low, b.figures.at("correctness").ci.low);
  EXPECT_EQ(a.figures.at("baseline.geomean_speedup").ci.high, b.figures.at("baseline.geomean_speedup").ci.high);
  o.seed = 12;
  Aggregate other = aggregateTasks(tasks, o);
  EXPECT_TRUE(other.figures.at("baseline.fast_1").ci.low != a.figures.at("baseline.fast_1").ci.low ||
              other.figures.at("baseline.fast_1").ci.high != a.figures.at("baseline.fast_1").ci.high);
}

TEST(Aggregate, PassAtKOnlyUpToTheSmallestSampleCount) {
  Suite suite = twoTasks();
  std::vector<CandidateScore> scores = handScores();
  scores.pop_back(); // B now has 2 samples
  AggregateOptions o;
  o.resamples = 0;
  o.kValues = {1, 2, 3, 8};
  Aggregate a = aggregateTasks(summarizeTasks(scores, suite, kRefs, 1, o.pValues), o);
  EXPECT_EQ(a.kValues, (std::vector<int>{1, 2}));
  EXPECT_EQ(a.figures.count("pass@3"), 0u);
}

TEST(Aggregate, DefaultKValues) {
  EXPECT_EQ(defaultKValues(1), (std::vector<int>{1}));
  EXPECT_EQ(defaultKValues(5), (std::vector<int>{1, 2, 4, 5}));
  EXPECT_EQ(defaultKValues(8), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(pLabel(1.2), "1.2");
  EXPECT_EQ(pLabel(2), "2");
}
