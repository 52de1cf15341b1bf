// The cudaperf-features/1 vectors on the hand-made documents: each value worked out by hand from
// the fixture, missing values missing (not 0), and the table documented in docs/features.md.
#include "Fixtures.h"

#include "cudaperf/Features/Features.h"
#include "cudaperf/Features/FeaturesError.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

using namespace cudaperf::features;
using cudaperf::support::Json;

namespace {

std::unique_ptr<FeatureSet> features(bool withResult = true) {
  std::optional<EvalResult> result;
  if (withResult)
    result = readEvalResult(fixtures::evalResult(), "result.json");
  return std::make_unique<FeatureSet>(readAnalysis(fixtures::analysisDocument(), "analysis.json"), std::move(result));
}

double launchValue(const FeatureSet &s, int config, int launch, const char *name) {
  FeatureValue v = launchFeature(s.records()[size_t(config)].launchFeatures[size_t(launch)], name);
  EXPECT_TRUE(v) << name << " is missing";
  return v.value_or(-1);
}

double configValue(const FeatureSet &s, int config, const char *name) {
  FeatureValue v = configurationFeature(s.records()[size_t(config)].features, name);
  EXPECT_TRUE(v) << name << " is missing";
  return v.value_or(-1);
}

bool launchMissing(const FeatureSet &s, int config, int launch, const char *name) {
  return !launchFeature(s.records()[size_t(config)].launchFeatures[size_t(launch)], name);
}

bool configMissing(const FeatureSet &s, int config, const char *name) {
  return !configurationFeature(s.records()[size_t(config)].features, name);
}

// The roofline bound of 4 MB of DRAM traffic and 2000 fp32 FLOP on the H200 (measured copy
// bandwidth 4.3 TB/s, fp32 67 TFLOP/s): memory-bound.
const double kMeasuredRooflineUs = 4e6 / 4.3e12 * 1e6;

} // namespace

TEST(LaunchFeatures, StaticValuesFromTheReport) {
  auto s = features();
  EXPECT_EQ(launchValue(*s, 0, 0, "grid_blocks"), 8);
  EXPECT_EQ(launchValue(*s, 0, 0, "block_threads"), 256);
  EXPECT_EQ(launchValue(*s, 0, 1, "dynamic_smem_bytes"), 512);
  EXPECT_EQ(launchValue(*s, 0, 0, "waves"), 0.5);
  EXPECT_EQ(launchValue(*s, 0, 0, "last_wave_fraction"), 0.5);
  EXPECT_EQ(launchValue(*s, 0, 0, "theoretical_occupancy"), 0.75);
  EXPECT_EQ(launchValue(*s, 0, 0, "limiter_registers"), 1);
  EXPECT_EQ(launchValue(*s, 0, 0, "limiter_shared_memory"), 0);
  EXPECT_EQ(launchValue(*s, 0, 1, "limiter_shared_memory"), 1);
  EXPECT_EQ(launchValue(*s, 0, 0, "registers_per_thread"), 40);
  EXPECT_EQ(launchValue(*s, 0, 0, "spill_bytes"), 12);
  EXPECT_EQ(launchValue(*s, 0, 1, "smem_bytes_per_block"), 1024 + 512);
  // Load: 4 of 4 sectors, weight 4 B x 1; store: 4 of 32, weight 4 B x 3 executions.
  EXPECT_DOUBLE_EQ(launchValue(*s, 0, 0, "coalescing_efficiency"), (4.0 * 4 + 4.0 * 12) / (4.0 * 4 + 32.0 * 12));
  EXPECT_DOUBLE_EQ(launchValue(*s, 0, 0, "global_sectors_per_request"), (4.0 * 1 + 32.0 * 3) / 4);
  EXPECT_EQ(launchValue(*s, 0, 0, "bank_conflict_ways"), 4);
  EXPECT_EQ(launchValue(*s, 0, 0, "barriers_per_thread"), 2);
  EXPECT_EQ(launchValue(*s, 0, 0, "missing_barriers"), 1);
  EXPECT_EQ(launchValue(*s, 0, 0, "flops"), 4096);
  EXPECT_EQ(launchValue(*s, 0, 0, "dram_bytes"), 16384);
  EXPECT_EQ(launchValue(*s, 0, 0, "arithmetic_intensity"), 0.25);
  EXPECT_EQ(launchValue(*s, 0, 0, "roofline_time_us"), 2);
  EXPECT_EQ(launchValue(*s, 0, 0, "memory_bound"), 1);
  EXPECT_EQ(launchValue(*s, 0, 1, "memory_bound"), 0);
  // The third launch reuses the first one's report.
  EXPECT_EQ(launchValue(*s, 0, 2, "registers_per_thread"), 40);
}

TEST(LaunchFeatures, MeasuredValuesFromTheJoinedCounters) {
  auto s = features();
  EXPECT_EQ(launchValue(*s, 0, 0, "measured_duration_us"), 5);
  EXPECT_EQ(launchValue(*s, 0, 0, "measured_global_sectors_per_request"), 8);
  EXPECT_EQ(launchValue(*s, 0, 0, "measured_shared_wavefronts_per_request"), 2);
  EXPECT_EQ(launchValue(*s, 0, 0, "measured_dram_bytes"), 4e6);
  EXPECT_EQ(launchValue(*s, 0, 0, "measured_achieved_occupancy"), 0.5);
  EXPECT_EQ(launchValue(*s, 0, 0, "measured_flops"), 2000); // the 7 HFMA of a kernel without fp16 are not FLOPs
  EXPECT_EQ(launchValue(*s, 0, 0, "measured_registers_per_thread"), 40);
  EXPECT_NEAR(launchValue(*s, 0, 0, "measured_roofline_time_us"), kMeasuredRooflineUs, 1e-9);
  EXPECT_NEAR(launchValue(*s, 0, 0, "achieved_roofline_fraction"), kMeasuredRooflineUs / 5, 1e-9);
}

TEST(LaunchFeatures, UnknownsAreMissingNotZero) {
  auto s = features();
  // large: grid unknown, FLOPs unknown, roofline unknown; joined to counters.
  EXPECT_TRUE(launchMissing(*s, 1, 0, "grid_blocks"));
  EXPECT_TRUE(launchMissing(*s, 1, 0, "waves"));
  EXPECT_TRUE(launchMissing(*s, 1, 0, "last_wave_fraction"));
  EXPECT_TRUE(launchMissing(*s, 1, 0, "flops"));
  EXPECT_TRUE(launchMissing(*s, 1, 0, "roofline_time_us"));
  EXPECT_EQ(launchValue(*s, 1, 0, "block_threads"), 256);
  EXPECT_EQ(launchValue(*s, 1, 0, "measured_duration_us"), 5);
  // Without a result, nothing measured is known.
  auto bare = features(false);
  EXPECT_TRUE(launchMissing(*bare, 0, 0, "measured_duration_us"));
  EXPECT_TRUE(launchMissing(*bare, 0, 0, "achieved_roofline_fraction"));
  EXPECT_EQ(launchValue(*bare, 0, 0, "flops"), 4096);
  // No shared accesses: bank-conflict ways are missing, not 0.
  Json a = fixtures::analysisDocument();
  a["configurations"][0]["launches"][0]["report"]["accesses"].erase(2);
  FeatureSet noShared(readAnalysis(a, "analysis.json"), std::nullopt);
  EXPECT_TRUE(launchMissing(noShared, 0, 0, "bank_conflict_ways"));
  EXPECT_FALSE(launchMissing(noShared, 0, 0, "coalescing_efficiency"));
}

TEST(ConfigurationFeatures, SumsAndTimeWeightedMeans) {
  auto s = features();
  EXPECT_EQ(configValue(*s, 0, "launches"), 3);
  EXPECT_EQ(configValue(*s, 0, "launches_unresolved"), 0);
  EXPECT_EQ(configValue(*s, 0, "launches_complete"), 1);
  EXPECT_EQ(configValue(*s, 0, "kernels"), 2);
  EXPECT_EQ(configValue(*s, 0, "total_flops"), 3 * 4096);
  EXPECT_EQ(configValue(*s, 0, "total_dram_bytes"), 3 * 16384);
  EXPECT_EQ(configValue(*s, 0, "arithmetic_intensity"), 0.25);
  EXPECT_EQ(configValue(*s, 0, "total_roofline_time_us"), 2 + 6 + 2);
  EXPECT_DOUBLE_EQ(configValue(*s, 0, "memory_bound_fraction"), 4.0 / 10);
  EXPECT_DOUBLE_EQ(configValue(*s, 0, "mean_theoretical_occupancy"), 0.75);
  EXPECT_EQ(configValue(*s, 0, "max_registers_per_thread"), 40);
  EXPECT_EQ(configValue(*s, 0, "max_missing_barriers"), 1);
  EXPECT_EQ(configValue(*s, 0, "warnings"), 1);
  EXPECT_EQ(configValue(*s, 0, "launches_joined"), 3);
  EXPECT_EQ(configValue(*s, 0, "join_complete"), 1);
  EXPECT_EQ(configValue(*s, 0, "measured_total_duration_us"), 15);
  EXPECT_EQ(configValue(*s, 0, "measured_total_dram_bytes"), 12e6);
  EXPECT_EQ(configValue(*s, 0, "measured_total_flops"), 6000);
  EXPECT_NEAR(configValue(*s, 0, "measured_roofline_time_us"), 3 * kMeasuredRooflineUs, 1e-9);
  EXPECT_DOUBLE_EQ(configValue(*s, 0, "measured_mean_achieved_occupancy"), 0.5);
  EXPECT_DOUBLE_EQ(configValue(*s, 0, "measured_global_sectors_per_request"), 8);
  EXPECT_EQ(configValue(*s, 0, "outcome_ok"), 1);
  EXPECT_EQ(configValue(*s, 0, "outcome_wrong_answer"), 0);
  EXPECT_EQ(configValue(*s, 0, "correct"), 1);
  EXPECT_EQ(configValue(*s, 0, "median_ms"), 0.02);
  EXPECT_EQ(configValue(*s, 0, "spread"), 0.1);
  EXPECT_EQ(configValue(*s, 0, "baseline_median_ms"), 0.03);
  EXPECT_EQ(configValue(*s, 0, "speedup"), 1.5);
  EXPECT_NEAR(configValue(*s, 0, "achieved_roofline_fraction"), 3 * kMeasuredRooflineUs / 20, 1e-9);
  EXPECT_DOUBLE_EQ(configValue(*s, 0, "predicted_roofline_fraction"), 10.0 / 20);
}

TEST(ConfigurationFeatures, AnUnknownPartMakesTheSumMissing) {
  auto s = features();
  EXPECT_EQ(configValue(*s, 1, "launches_complete"), 0);
  EXPECT_EQ(configValue(*s, 1, "launches_unresolved"), 1);
  EXPECT_TRUE(configMissing(*s, 1, "total_flops"));
  EXPECT_TRUE(configMissing(*s, 1, "total_roofline_time_us"));
  EXPECT_TRUE(configMissing(*s, 1, "arithmetic_intensity"));
  EXPECT_TRUE(configMissing(*s, 1, "median_ms")); // "nan" in the result
  EXPECT_TRUE(configMissing(*s, 1, "predicted_roofline_fraction"));
  EXPECT_EQ(configValue(*s, 1, "join_complete"), 0); // a CUB kernel was not joined
  auto bare = features(false);
  EXPECT_TRUE(configMissing(*bare, 0, "outcome_ok"));
  EXPECT_TRUE(configMissing(*bare, 0, "join_complete"));
  EXPECT_TRUE(configMissing(*bare, 0, "measured_total_duration_us"));
  EXPECT_EQ(configValue(*bare, 0, "total_flops"), 3 * 4096);
}

TEST(FeatureValues, NumericFormIsNaNWithAMask) {
  auto s = features();
  FeatureValues::Numeric n = s->records()[1].launchFeatures[0].numeric();
  ASSERT_EQ(n.values.size(), launchFeatureSpecs().size());
  ASSERT_EQ(n.mask.size(), n.values.size());
  for (size_t i = 0; i < n.values.size(); ++i) {
    EXPECT_EQ(n.mask[i] == 0, std::isnan(n.values[i])) << launchFeatureSpecs()[i].name;
  }
  EXPECT_EQ(n.mask[0], 0); // grid_blocks unknown
  EXPECT_EQ(n.mask[1], 1);
  EXPECT_THROW(launchFeature(s->records()[0].launchFeatures[0], "no_such_feature"), FeaturesError);
}

TEST(FeatureRecord, JsonLinesRecordCarriesEverything) {
  auto s = features();
  Json r = s->recordJson(s->records()[0]);
  EXPECT_EQ(r["schema"], "cudaperf-features/1");
  EXPECT_EQ(r["task"], "toy");
  EXPECT_EQ(r["configuration"], "small");
  EXPECT_EQ(r["outcome"], "ok");
  EXPECT_EQ(r["values"]["n"], 2048);
  EXPECT_EQ(r["features"].size(), configurationFeatureSpecs().size());
  EXPECT_EQ(r["join"]["complete"], true);
  ASSERT_EQ(r["launches"].size(), 3u);
  EXPECT_EQ(r["launches"][1]["mangled_name"], "_Z6reducePfi");
  EXPECT_EQ(r["launches"][1]["measured"]["order"], 1);
  EXPECT_EQ(r["launches"][1]["features"].size(), launchFeatureSpecs().size());
  Json large = s->recordJson(s->records()[1]);
  EXPECT_TRUE(large["launches"][0]["features"]["grid_blocks"].is_null()); // null, not 0
  EXPECT_TRUE(large["launches"][0]["grid"].is_null());
  EXPECT_EQ(large["reason"], "the step budget ran out");
  // The writer never emits NaN.
  EXPECT_EQ(cudaperf::support::writeJson(large).find("nan"), std::string::npos);
}

TEST(FeatureRecord, ConfigurationsAreChosenByName) {
  FeatureSet one(readAnalysis(fixtures::analysisDocument(), "a.json"), std::nullopt, "large");
  ASSERT_EQ(one.records().size(), 1u);
  EXPECT_EQ(one.records()[0].analysis->name, "large");
  FeatureSet both(readAnalysis(fixtures::analysisDocument(), "a.json"), std::nullopt, "large,small");
  EXPECT_EQ(both.records().size(), 2u);
  EXPECT_THROW(FeatureSet(readAnalysis(fixtures::analysisDocument(), "a.json"), std::nullopt, "huge"), FeaturesError);
  Json plain = fixtures::analysisDocument();
  plain.erase("task");
  try {
    FeatureSet bad(readAnalysis(plain, "plain.json"), std::nullopt);
    FAIL() << "accepted a document without --task";
  } catch (const FeaturesError &e) {
    EXPECT_NE(std::string(e.what()).find("plain.json: not a `cudaperf-analyze --task` document"), std::string::npos);
  }
}

TEST(FeatureTables, NamesAreUniqueAndDocumented) {
  std::set<std::string> names;
  for (const auto &s : launchFeatureSpecs()) {
    EXPECT_TRUE(names.insert(std::string("launch.") + s.name).second) << s.name;
    EXPECT_GT(std::string(s.definition).size(), 10u) << s.name;
  }
  for (const auto &s : configurationFeatureSpecs())
    EXPECT_TRUE(names.insert(std::string("configuration.") + s.name).second) << s.name;
  std::ifstream page(std::string(CUDAPERF_SOURCE_DIR) + "/docs/features.md");
  ASSERT_TRUE(page) << "docs/features.md";
  std::stringstream text;
  text << page.rdbuf();
  EXPECT_NE(text.str().find(featureTablesMarkdown()), std::string::npos)
      << "docs/features.md does not carry the tables of `cudaperf-features --list-features`; paste them in";
}
