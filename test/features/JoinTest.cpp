// The join of static launches to measured kernels, and the reasons it gives for what did not join.
#include "Fixtures.h"

#include "cudaperf/Features/Join.h"

#include <functional>
#include <gtest/gtest.h>

using namespace cudaperf::features;
using cudaperf::support::Json;

namespace {

struct Docs {
  AnalysisDocument analysis;
  EvalResult result;
};

Docs docs(const std::function<void(Json &, Json &)> &change = {}) {
  Json a = fixtures::analysisDocument(), r = fixtures::evalResult();
  if (change)
    change(a, r);
  return {readAnalysis(a, "analysis.json"), readEvalResult(r, "result.json")};
}

JoinReport joinOf(const Docs &d, int config) {
  return joinLaunches(d.analysis, d.analysis.configurations[size_t(config)], &d.result.configs[size_t(config)]);
}

} // namespace

TEST(Join, EveryLaunchJoinsByNameAndOrder) {
  Docs d = docs();
  JoinReport j = joinOf(d, 0);
  EXPECT_TRUE(j.complete());
  EXPECT_EQ(j.measuredSource, "launches+counters");
  EXPECT_EQ(j.joined, 3);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(j.launches[size_t(i)].measured) << i;
    EXPECT_EQ(j.launches[size_t(i)].measured->order, i);
    EXPECT_EQ(j.launches[size_t(i)].measured->counters, &d.result.configs[0].counters->kernels[size_t(i)]);
    EXPECT_NE(j.launches[size_t(i)].measured->launch, nullptr);
  }
  Json report = j.toJson();
  EXPECT_EQ(report["complete"], true);
  EXPECT_EQ(report["joined"], 3);
  EXPECT_TRUE(report["unjoined_static"].empty());
}

TEST(Join, ALibraryKernelIsNamedAsSuch) {
  Docs d = docs();
  JoinReport j = joinOf(d, 1); // measured: scale, then a CUB kernel the file does not define
  EXPECT_FALSE(j.complete());
  EXPECT_EQ(j.measuredSource, "counters");
  EXPECT_EQ(j.joined, 1);
  ASSERT_EQ(j.unjoinedMeasured.size(), 1u);
  EXPECT_EQ(j.unjoinedMeasured[0].measured.kernel, "_ZN3cub11DeviceReduceEv");
  EXPECT_NE(j.unjoinedMeasured[0].reason.find("launched by a library"), std::string::npos);
}

TEST(Join, ALaunchTheAnalyzerMissedAfterStoppingEarly) {
  Docs d = docs([](Json &, Json &r) { r["configs"][1]["counters"]["kernels"][1]["name"] = "_Z6reducePfi"; });
  JoinReport j = joinOf(d, 1);
  ASSERT_EQ(j.unjoinedMeasured.size(), 1u);
  EXPECT_EQ(j.unjoinedMeasured[0].reason,
            "the analyzer's evaluation of the entry point stopped early (the step budget ran out)");
}

TEST(Join, OrderMismatchAndPredictedLaunchesThatDidNotRun) {
  // Measured reduce, scale; predicted scale, reduce, scale.
  Docs d = docs([](Json &, Json &r) {
    Json &c = r["configs"][0];
    c.erase("launches");
    Json &k = c["counters"]["kernels"];
    k.erase(2);
    std::swap(k[0]["name"], k[1]["name"]);
  });
  JoinReport j = joinOf(d, 0);
  EXPECT_EQ(j.joined, 2); // reduce, then scale
  ASSERT_EQ(j.unjoinedStatic.size(), 1u);
  EXPECT_EQ(j.unjoinedStatic[0].staticIndex, 0);
  EXPECT_EQ(j.unjoinedStatic[0].reason, "order mismatch: the GPU ran this kernel, but not at this point of the launch sequence");
  Docs gone = docs([](Json &, Json &r) {
    Json &c = r["configs"][0];
    c.erase("launches");
    c["counters"]["kernels"].erase(1); // reduce never ran
  });
  JoinReport g = joinOf(gone, 0);
  ASSERT_EQ(g.unjoinedStatic.size(), 1u);
  EXPECT_EQ(g.unjoinedStatic[0].kernel, "_Z6reducePfi");
  EXPECT_EQ(g.unjoinedStatic[0].reason,
            "the GPU did not run this launch (the analyzer predicts a launch the candidate did not make)");
}

TEST(Join, LaunchesTheCounterPassLeftOut) {
  Docs d = docs([](Json &, Json &r) {
    Json &c = r["configs"][0];
    c.erase("launches");
    c["counters"]["kernels"].erase(2);
    c["counters"]["kernels_not_profiled"] = 1;
  });
  JoinReport j = joinOf(d, 0);
  ASSERT_EQ(j.unjoinedStatic.size(), 1u);
  EXPECT_EQ(j.unjoinedStatic[0].reason, "not profiled: the counter pass profiled 2 launches and left 1 out");
}

TEST(Join, ShapesThatDifferAreMismatches) {
  Docs d = docs([](Json &, Json &r) {
    r["configs"][0]["launches"][0]["grid"] = Json::array({9, 1, 1});
    r["configs"][0]["launches"][1]["dynamic_smem_bytes"] = 1024;
  });
  JoinReport j = joinOf(d, 0);
  EXPECT_EQ(j.joined, 3);
  EXPECT_EQ(j.configMismatches, 2);
  EXPECT_FALSE(j.complete());
  ASSERT_EQ(j.launches[0].mismatches.size(), 1u);
  EXPECT_EQ(j.launches[0].mismatches[0], "grid [8, 1, 1] predicted, [9, 1, 1] measured");
  EXPECT_EQ(j.launches[1].mismatches[0], "dynamic shared memory 512 B predicted, 1024 B measured");
  EXPECT_EQ(j.toJson()["mismatches"].size(), 2u);
}

TEST(Join, CountersThatDisagreeWithTheLaunchList) {
  Docs d = docs([](Json &, Json &r) { r["configs"][0]["counters"]["kernels"][1]["name"] = "_Z5scalePfi"; });
  JoinReport j = joinOf(d, 0);
  EXPECT_FALSE(j.complete());
  ASSERT_EQ(j.unjoinedMeasured.size(), 1u);
  EXPECT_NE(j.unjoinedMeasured[0].reason.find("do not match the recorded launch"), std::string::npos);
  EXPECT_EQ(j.launches[1].measured->counters, nullptr); // the launch joined, without counters
}

TEST(Join, NothingToJoinWith) {
  Docs d = docs([](Json &, Json &r) { r["configs"][1]["counters"] = {{"available", false}, {"reason", "not permitted"}}; });
  JoinReport none = joinLaunches(d.analysis, d.analysis.configurations[0], nullptr);
  EXPECT_FALSE(none.measuredAvailable);
  EXPECT_FALSE(none.complete());
  EXPECT_EQ(none.measuredSource, "no measurement of this configuration");
  EXPECT_EQ(none.launches.size(), 3u);
  JoinReport off = joinOf(d, 1);
  EXPECT_EQ(off.measuredSource, "counters not available: not permitted");
  EXPECT_TRUE(off.unjoinedStatic.empty()); // not measured is not "did not run"
}

TEST(Join, UnknownKernelsSayWhy) {
  Docs d = docs([](Json &a, Json &) {
    Json &l = a["configurations"][0]["launches"][1];
    l["mangled_name"] = "";
    l["resolved"] = false;
    l["unresolved"] = Json::array({{{"part", "kernel"}, {"reason", "a function pointer from a table"}}});
  });
  JoinReport j = joinOf(d, 0);
  ASSERT_EQ(j.unjoinedStatic.size(), 1u);
  EXPECT_EQ(j.unjoinedStatic[0].reason,
            "the analyzer does not know which kernel this launch runs (a function pointer from a table)");
}

TEST(Join, LaunchesPastATruncatedListAreNotRecorded) {
  Docs d = docs([](Json &, Json &r) {
    Json &c = r["configs"][0];
    c["launches"].erase(2);
    c["launches_truncated"] = true;
    c["counters"]["kernels"].erase(2);
  });
  JoinReport j = joinOf(d, 0);
  ASSERT_EQ(j.unjoinedStatic.size(), 1u);
  EXPECT_EQ(j.unjoinedStatic[0].reason, "not recorded: the worker's launch list stops after 2 launches");
}
