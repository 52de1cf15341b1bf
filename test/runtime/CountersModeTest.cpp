// cudaperf-eval --counters-mode (docs/counters.md, "Counters mode"): the option's values and default (shared
// since the H200 A/B), the worker's command line it turns into (the mode always named), the profiler set-up
// plan per configuration and what the counters document records. CPU only: the CUPTI side needs the GPU (scripts/gpu/counters-ab.sh).
#include "cudaperf/Runtime/CountersMode.h"
#include "cudaperf/Runtime/Evaluator.h"
#include "cudaperf/Support/Error.h"
#include "cudaperf/Support/Subprocess.h"

#include <gtest/gtest.h>

using namespace cudaperf;
using namespace cudaperf::runtime;

TEST(CountersMode, ParsesTheThreeModesAndNamesThem) {
  EXPECT_EQ(parseCountersMode("per-config"), CountersMode::PerConfig);
  EXPECT_EQ(parseCountersMode("shared"), CountersMode::Shared);
  EXPECT_EQ(parseCountersMode("joint"), CountersMode::Joint);
  EXPECT_STREQ(countersModeName(CountersMode::PerConfig), "per-config");
  EXPECT_STREQ(countersModeName(CountersMode::Shared), "shared");
  EXPECT_STREQ(countersModeName(CountersMode::Joint), "joint");
  for (const char *bad : {"", "Shared", "per_config", "once", "shared ", "Joint", "joined"}) {
    try {
      parseCountersMode(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const support::SupportError &e) {
      EXPECT_NE(std::string(e.what()).find("expected per-config, shared or joint"), std::string::npos) << e.what();
    }
  }
}

TEST(CountersMode, WorkerArgumentsNameTheMode) {
  using V = std::vector<std::string>;
  EXPECT_EQ(workerCounterArgs(false, CountersMode::PerConfig), V{});
  EXPECT_EQ(workerCounterArgs(false, CountersMode::Shared), V{}); // no counters, no mode
  // Always named: the worker's own default cannot decide what the evaluator asked for.
  EXPECT_EQ(workerCounterArgs(true, CountersMode::PerConfig), (V{"--counters", "--counters-mode", "per-config"}));
  EXPECT_EQ(workerCounterArgs(true, CountersMode::Shared), (V{"--counters", "--counters-mode", "shared"}));
  EXPECT_EQ(workerCounterArgs(true, CountersMode::Joint), (V{"--counters", "--counters-mode", "joint"}));
  // The ranges only where they are not the default, auto (docs/counters.md, "Counter data image size").
  EXPECT_EQ(kCounterRangesDefault, kCounterRangesAuto);
  EXPECT_EQ(workerCounterArgs(true, CountersMode::Shared, kCounterRangesAuto),
            (V{"--counters", "--counters-mode", "shared"}));
  EXPECT_EQ(workerCounterArgs(true, CountersMode::Shared, kCounterRangesFallback),
            (V{"--counters", "--counters-mode", "shared", "--counters-ranges", "256"}));
  EXPECT_EQ(workerCounterArgs(true, CountersMode::PerConfig, 32),
            (V{"--counters", "--counters-mode", "per-config", "--counters-ranges", "32"}));
  EXPECT_EQ(workerCounterArgs(false, CountersMode::Shared, 32), V{});
}

TEST(CountersMode, CounterRangesOptionAndAutoSizing) {
  EXPECT_EQ(parseCounterRanges("auto"), kCounterRangesAuto);
  EXPECT_EQ(parseCounterRanges("1"), 1u);
  EXPECT_EQ(parseCounterRanges("256"), 256u);
  EXPECT_EQ(parseCounterRanges("65536"), kCounterRangesMax);
  for (const char *bad : {"", "0", "-1", "65537", "1000000", "12a", " 16", "Auto", "1e3"}) {
    try {
      parseCounterRanges(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const support::SupportError &e) {
      EXPECT_NE(std::string(e.what()).find("expected auto or a number of ranges from 1 to 65536"), std::string::npos)
          << e.what();
    }
  }
  // A number is used as given, audit or not.
  EXPECT_EQ(counterRanges(256, {1, 1}), 256u);
  EXPECT_EQ(counterRanges(4, {100}), 4u);
  // auto: twice the most launches of one call plus 8, at least 16, at most the maximum; the fallback, 256, without
  // an audit (--no-timing).
  EXPECT_EQ(counterRanges(kCounterRangesAuto, {1, 2}), 16u);  // 2*2+8 = 12 -> 16
  EXPECT_EQ(counterRanges(kCounterRangesAuto, {0}), 16u);
  EXPECT_EQ(counterRanges(kCounterRangesAuto, {3, 10}), 28u); // the larger configuration's 10
  EXPECT_EQ(counterRanges(kCounterRangesAuto, {210, 190}), 428u); // more than the default: none left out
  EXPECT_EQ(counterRanges(kCounterRangesAuto, {1 << 20}), kCounterRangesMax);
  EXPECT_EQ(counterRanges(kCounterRangesAuto, {-5}), 16u);
  EXPECT_EQ(counterRanges(kCounterRangesAuto, {}), 256u);
}

TEST(CountersMode, SetUpPlanPerConfiguration) {
  // Default: every configuration sets up and tears down its own profiler.
  for (size_t c = 0; c < 3; ++c) {
    CounterSessionPlan p = counterSessionPlan(CountersMode::PerConfig, c, 3);
    EXPECT_FALSE(p.reusesSetUp);
    EXPECT_FALSE(p.keepsSetUp);
  }
  // Shared, two configurations (the dataset's small and large): the first keeps, the second reuses and tears
  // down.
  CounterSessionPlan first = counterSessionPlan(CountersMode::Shared, 0, 2);
  CounterSessionPlan second = counterSessionPlan(CountersMode::Shared, 1, 2);
  EXPECT_FALSE(first.reusesSetUp);
  EXPECT_TRUE(first.keepsSetUp);
  EXPECT_TRUE(second.reusesSetUp);
  EXPECT_FALSE(second.keepsSetUp);
  // Three: the middle one does both.
  CounterSessionPlan middle = counterSessionPlan(CountersMode::Shared, 1, 3);
  EXPECT_TRUE(middle.reusesSetUp);
  EXPECT_TRUE(middle.keepsSetUp);
  // One configuration (or --configs with one): nothing to share.
  CounterSessionPlan only = counterSessionPlan(CountersMode::Shared, 0, 1);
  EXPECT_FALSE(only.reusesSetUp);
  EXPECT_FALSE(only.keepsSetUp);
  // Joint: its per-configuration plan is its fallback's, shared's.
  for (size_t configs : {1, 2, 3})
    for (size_t c = 0; c < configs; ++c) {
      CounterSessionPlan j = counterSessionPlan(CountersMode::Joint, c, configs);
      CounterSessionPlan s = counterSessionPlan(CountersMode::Shared, c, configs);
      EXPECT_EQ(j.reusesSetUp, s.reusesSetUp) << c << " of " << configs;
      EXPECT_EQ(j.keepsSetUp, s.keepsSetUp) << c << " of " << configs;
    }
  // Out of range: nothing.
  CounterSessionPlan past = counterSessionPlan(CountersMode::Shared, 2, 2);
  EXPECT_FALSE(past.reusesSetUp);
  EXPECT_FALSE(past.keepsSetUp);
}

TEST(CountersMode, SharedIsTheEvaluatorsDefault) {
  EXPECT_EQ(EvalOptions{}.countersMode, CountersMode::Shared);
  // auto since the A/B of 2026-12-02 (docs/counters.md, "Counter data image size"); 256, what every version
  // before --counters-ranges used, where no audit ran.
  EXPECT_EQ(EvalOptions{}.countersRanges, kCounterRangesAuto);
  EXPECT_EQ(kCounterRangesFallback, 256u);
}

TEST(CountersMode, RecordedInTheDocumentUnlessPerConfiguration) {
  EXPECT_EQ(countersModeRecorded(CountersMode::PerConfig), "");
  EXPECT_EQ(countersModeRecorded(CountersMode::Shared), "shared");
  EXPECT_EQ(countersModeRecorded(CountersMode::Joint), "joint");
}

TEST(CountersMode, EvalToolOptionAndHelp) {
  support::ProcessOptions o;
  o.timeoutSeconds = 60;
  o.maxCapturedBytes = 1 << 20;
  support::ProcessResult help = support::runProcess({CUDAPERF_EVAL, "--help"}, o);
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.output.find("--counters-mode MODE"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("shared (default)"), std::string::npos) << help.output;
  support::ProcessResult bad = support::runProcess({CUDAPERF_EVAL, "--counters-mode", "once", "--validate", "x"}, o);
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.output.find("expected per-config, shared or joint, got 'once'"), std::string::npos) << bad.output;
  EXPECT_NE(help.output.find("joint: one profiling"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("--counters-ranges N|auto"), std::string::npos) << help.output;
  support::ProcessResult badRanges =
      support::runProcess({CUDAPERF_EVAL, "--counters-ranges", "0", "--validate", "x"}, o);
  EXPECT_EQ(badRanges.exitCode, 2);
  EXPECT_NE(badRanges.output.find("expected auto or a number of ranges from 1 to 65536, got '0'"), std::string::npos)
      << badRanges.output;
}
