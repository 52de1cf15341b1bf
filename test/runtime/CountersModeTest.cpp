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
}
