// The typed readers: the documents as written, and malformed ones, whose errors must name the
// document, the field path and what was wrong.
#include "Fixtures.h"

#ifndef CUDAPERF_NO_COUNTERS
#include "cudaperf/Counters/CountersDocument.h"
#endif
#include "cudaperf/Features/AnalysisDocument.h"
#include "cudaperf/Features/EvalDocument.h"
#include "cudaperf/Features/FeaturesError.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>

using namespace cudaperf::features;
using cudaperf::support::Json;

namespace {

std::string analysisError(const std::function<void(Json &)> &change) {
  Json doc = fixtures::analysisDocument();
  change(doc);
  try {
    readAnalysis(doc, "analysis.json");
  } catch (const FeaturesError &e) {
    return e.what();
  }
  return "(read without error)";
}

std::string resultError(const std::function<void(Json &)> &change) {
  Json doc = fixtures::evalResult();
  change(doc);
  try {
    readEvalResult(doc, "result.json");
  } catch (const FeaturesError &e) {
    return e.what();
  }
  return "(read without error)";
}

Json &launch(Json &doc, int config, int index) { return doc["configurations"][config]["launches"][index]; }

} // namespace

TEST(AnalysisReader, ReadsTheTaskDocument) {
  AnalysisDocument doc = readAnalysis(fixtures::analysisDocument(), "analysis.json");
  EXPECT_EQ(doc.arch, "sm_90");
  ASSERT_TRUE(doc.task);
  EXPECT_EQ(doc.task->entry, "toy");
  ASSERT_EQ(doc.configurations.size(), 2u);
  const ConfigurationAnalysis &small = doc.configurations[0];
  EXPECT_EQ(small.values.at("n"), 2048);
  EXPECT_EQ(small.pointerElements.at("x"), 2048);
  ASSERT_EQ(small.launches.size(), 3u);
  EXPECT_EQ(small.launches[1].dynamicSmemBytes, 512);
  EXPECT_EQ(*small.launches[1].grid, (Dim3{1, 1, 1}));
  EXPECT_EQ(small.launches[0].scalarArgs.at("n"), 2048);
  EXPECT_FALSE(small.launches[0].scalarArgs.at("x"));
  // same_report_as: the third launch has the first one's report.
  EXPECT_FALSE(small.launches[2].report);
  EXPECT_EQ(small.reportOf(small.launches[2]), &*small.launches[0].report);
  const KernelReport &k = *small.launches[0].report;
  EXPECT_EQ(k.registers, 40);
  EXPECT_EQ(k.limiter, "registers");
  EXPECT_EQ(k.missingBarriers, 1);
  EXPECT_EQ(k.accesses.size(), 3u);
  EXPECT_EQ(k.accesses[2].bankConflictWays, 4);
  EXPECT_EQ(k.flopsByPrecision[2], 4096);
  EXPECT_FALSE(k.flopsByPrecision[0]);
  const ConfigurationAnalysis &large = doc.configurations[1];
  EXPECT_FALSE(large.launchesComplete);
  EXPECT_EQ(large.reason, "the step budget ran out");
  EXPECT_FALSE(large.launches[0].resolved);
  EXPECT_FALSE(large.launches[0].grid);
  ASSERT_EQ(large.launches[0].unresolved.size(), 1u);
  EXPECT_EQ(large.launches[0].unresolved[0].part, "grid");
  EXPECT_FALSE(large.launches[0].report->flops); // null stays unknown
  EXPECT_TRUE(doc.knowsKernel("_Z6reducePfi"));
  EXPECT_FALSE(doc.knowsKernel("_ZN3cub11DeviceReduceEv"));
}

TEST(AnalysisReader, UnknownKeysAreIgnored) {
  Json doc = fixtures::analysisDocument();
  doc["future"] = {{"anything", 1}};
  doc["configurations"][0]["future"] = Json::array({1, 2});
  launch(doc, 0, 0)["future"] = "x";
  launch(doc, 0, 0)["report"]["occupancy"]["future"] = nullptr;
  EXPECT_NO_THROW(readAnalysis(doc, "analysis.json"));
}

TEST(AnalysisReader, ErrorsNameTheField) {
  EXPECT_EQ(analysisError([](Json &d) { launch(d, 0, 1)["grid"] = "x"; }),
            "analysis.json: configurations[0].launches[1].grid: expected an array, got \"x\"");
  EXPECT_EQ(analysisError([](Json &d) { launch(d, 0, 1)["grid"] = Json::array({1, "y", 1}); }),
            "analysis.json: configurations[0].launches[1].grid[1]: expected a whole number, got \"y\"");
  EXPECT_EQ(analysisError([](Json &d) { launch(d, 0, 1)["grid"] = Json::array({1, 2, 3, 4}); }),
            "analysis.json: configurations[0].launches[1].grid: expected [x, y, z] with 1 to 3 numbers, got 4");
  EXPECT_EQ(analysisError([](Json &d) { d["kernels"][1].erase("mangled_name"); }),
            "analysis.json: kernels[1].mangled_name: missing");
  EXPECT_EQ(analysisError([](Json &d) { d["schema_version"] = 2; }),
            "analysis.json: schema_version: expected 1 (the schema this reader knows), got 2");
  EXPECT_EQ(analysisError([](Json &d) { d.erase("kernels"); }), "analysis.json: kernels: missing");
  EXPECT_EQ(analysisError([](Json &d) { launch(d, 0, 0)["report"]["occupancy"]["theoretical"] = "high"; }),
            "analysis.json: configurations[0].launches[0].report.occupancy.theoretical: expected a number, got \"high\"");
  EXPECT_EQ(analysisError([](Json &d) { launch(d, 0, 0)["report"]["accesses"][1]["bytes"] = -4; }),
            "analysis.json: configurations[0].launches[0].report.accesses[1].bytes: expected a whole number from 0 "
            "to 1048576, got -4");
  EXPECT_EQ(analysisError([](Json &d) { launch(d, 0, 1)["index"] = 5; }),
            "analysis.json: configurations[0].launches[1].index: expected 1 (launches are listed in execution order), "
            "got 5");
  EXPECT_EQ(analysisError([](Json &d) { launch(d, 0, 2)["same_report_as"] = 2; }),
            "analysis.json: configurations[0].launches[2].same_report_as: expected a whole number from 0 to 1, got 2");
  EXPECT_EQ(analysisError([](Json &d) { launch(d, 1, 0)["resolved"] = "no"; }),
            "analysis.json: configurations[1].launches[0].resolved: expected true or false, got \"no\"");
  EXPECT_EQ(analysisError([](Json &d) { d["configurations"][1]["values"]["n"] = Json::object(); }),
            "analysis.json: configurations[1].values.n: expected a number, got an object");
  EXPECT_EQ(analysisError([](Json &d) { d["task"].erase("name"); }), "analysis.json: task.name: missing");
  EXPECT_EQ(analysisError([](Json &d) { d = Json::array(); }),
            "analysis.json: the top level: expected an object, got an array");
}

// estimated_saving_us (issue 36) orders the feedback's findings: read where present, absent in
// documents written before it, and refused where it could not be ordered (NaN, infinite, negative).
TEST(AnalysisReader, DiagnosticsCarryTheirEstimatedSaving) {
  AnalysisDocument old = readAnalysis(fixtures::analysisDocument(), "analysis.json");
  ASSERT_EQ(old.configurations.at(0).diagnostics.size(), 1u);
  EXPECT_FALSE(old.configurations[0].diagnostics[0].estimatedSavingUs);
  Json doc = fixtures::analysisDocument();
  doc["configurations"][0]["diagnostics"][0]["estimated_saving_us"] = 12.5;
  AnalysisDocument costed = readAnalysis(doc, "analysis.json");
  EXPECT_EQ(costed.configurations[0].diagnostics[0].estimatedSavingUs, 12.5);
  doc["configurations"][0]["diagnostics"][0]["estimated_saving_us"] = nullptr;
  EXPECT_FALSE(readAnalysis(doc, "analysis.json").configurations[0].diagnostics[0].estimatedSavingUs);
  auto setSaving = [](Json value) {
    return [value](Json &d) { d["configurations"][0]["diagnostics"][0]["estimated_saving_us"] = value; };
  };
  const std::string field = "analysis.json: configurations[0].diagnostics[0].estimated_saving_us: ";
  EXPECT_EQ(analysisError(setSaving("nan")), field + "expected a finite number of microseconds >= 0, got \"nan\"");
  EXPECT_EQ(analysisError(setSaving("inf")), field + "expected a finite number of microseconds >= 0, got \"inf\"");
  EXPECT_EQ(analysisError(setSaving(-3)), field + "expected a finite number of microseconds >= 0, got -3");
  EXPECT_EQ(analysisError(setSaving("fast")), field + "expected a number, got \"fast\"");
}

TEST(AnalysisReader, FilesThatAreNotJsonSayWhere) {
  std::string path = testing::TempDir() + "/cudaperf-not-json.json";
  std::ofstream(path) << "{\n  \"schema_version\": 1,\n  oops\n}";
  try {
    readAnalysisFile(path);
    FAIL() << "accepted";
  } catch (const FeaturesError &e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":3:3: syntax error", 0), 0u) << e.what();
  }
  EXPECT_THROW(readAnalysisFile(path + ".missing"), FeaturesError);
}

TEST(EvalResultReader, ReadsTheResult) {
  EvalResult r = readEvalResult(fixtures::evalResult(), "result.json");
  EXPECT_EQ(r.outcome, cudaperf::schema::Outcome::Ok);
  EXPECT_EQ(r.gpuName, "NVIDIA H200");
  ASSERT_EQ(r.configs.size(), 2u);
  const EvalConfiguration &small = r.configs[0];
  EXPECT_TRUE(*small.correct);
  EXPECT_DOUBLE_EQ(small.candidate->medianMs, 0.02);
  EXPECT_EQ(small.candidate->runs, 30);
  EXPECT_DOUBLE_EQ(*small.speedup, 1.5);
  ASSERT_TRUE(small.launches);
  EXPECT_EQ(small.launches->size(), 3u);
  EXPECT_EQ((*small.launches)[1].dynamicSmemBytes, 512);
  EXPECT_EQ(*(*small.launches)[0].grid, (Dim3{8, 1, 1}));
  EXPECT_EQ(*(*small.launches)[1].block, (Dim3{128, 1, 1}));
  ASSERT_TRUE(small.counters);
  ASSERT_EQ(small.counters->kernels.size(), 3u);
  EXPECT_EQ(small.counters->kernels[2].launch, 2);
  EXPECT_EQ(small.counters->kernels[0].get("gpu__time_duration.sum"), 5000);
  EXPECT_FALSE(small.counters->kernels[0].get("no.such.metric"));
  const EvalConfiguration &large = r.configs[1];
  EXPECT_TRUE(std::isnan(large.candidate->medianMs)); // the writers' "nan"
  EXPECT_FALSE(large.launches);
  EXPECT_FALSE(large.baseline);
}

TEST(EvalResultReader, ErrorsNameTheField) {
  EXPECT_EQ(resultError([](Json &d) { d["configs"][1]["candidate"]["median_ms"] = "abc"; }),
            "result.json: configs[1].candidate.median_ms: expected a number, got \"abc\"");
  EXPECT_EQ(resultError([](Json &d) { d["schema"] = "cudaperf-eval-result/2"; }),
            "result.json: schema: expected \"cudaperf-eval-result/1\", got \"cudaperf-eval-result/2\"");
  EXPECT_EQ(resultError([](Json &d) { d["configs"][0]["counters"]["kernels"][1]["launch"] = -1; }),
            "result.json: configs[0].counters.kernels[1].launch: expected a whole number from 0 to 2147483647, got -1");
  EXPECT_EQ(resultError([](Json &d) { d["configs"][0]["counters"]["kernels"][0]["metrics"]["dram__bytes_read.sum"] = true; }),
            "result.json: configs[0].counters.kernels[0].metrics.dram__bytes_read.sum: expected a number, got true");
  EXPECT_EQ(resultError([](Json &d) { d["configs"][0]["launches"][1].erase("kernel"); }),
            "result.json: configs[0].launches[1].kernel: missing");
  EXPECT_EQ(resultError([](Json &d) { d["configs"][0]["correctness"].erase("pass"); }),
            "result.json: configs[0].correctness.pass: missing");
  EXPECT_EQ(resultError([](Json &d) { d["configs"][0]["counters"]["available"] = 1; }),
            "result.json: configs[0].counters.available: expected true or false, got 1");
  EXPECT_EQ(resultError([](Json &d) { d["configs"] = Json::object(); }),
            "result.json: configs: expected an array, got an object");
  EXPECT_EQ(resultError([](Json &d) { d["outcome"] = nullptr; }), "result.json: outcome: expected a string, got null");
  // A launch's dimensions are read as the analysis document's are (schema::readDim3).
  EXPECT_EQ(resultError([](Json &d) { d["configs"][0]["launches"][1]["grid"] = Json::array({1, 2, 3, 4}); }),
            "result.json: configs[0].launches[1].grid: expected [x, y, z] with 1 to 3 numbers, got 4");
  EXPECT_EQ(resultError([](Json &d) { d["configs"][0]["launches"][1]["block"] = Json::array({32, "y"}); }),
            "result.json: configs[0].launches[1].block[1]: expected a whole number, got \"y\"");
}

TEST(EvalResultReader, LaunchDimensionsOfOneOrTwoNumbers) {
  Json doc = fixtures::evalResult();
  doc["configs"][0]["launches"][0]["grid"] = Json::array({4});
  doc["configs"][0]["launches"][0]["block"] = Json::array({32, 8});
  EvalResult r = readEvalResult(doc, "result.json");
  EXPECT_EQ(*(*r.configs[0].launches)[0].grid, (Dim3{4, 1, 1}));
  EXPECT_EQ(*(*r.configs[0].launches)[0].block, (Dim3{32, 8, 1}));
}

TEST(EvalResultReader, JsonLinesFilesNameTheLine) {
  std::string path = testing::TempDir() + "/cudaperf-results.jsonl";
  Json good = fixtures::evalResult(), bad = fixtures::evalResult();
  bad["configs"][0]["speedup"] = "fast";
  std::ofstream(path) << cudaperf::support::writeJson(good) << "\n\n" << cudaperf::support::writeJson(bad) << "\n";
  try {
    readEvalResultFile(path);
    FAIL() << "accepted";
  } catch (const FeaturesError &e) {
    EXPECT_EQ(std::string(e.what()), path + ":3: configs[0].speedup: expected a number, got \"fast\"");
  }
  std::ofstream(path) << cudaperf::support::writeJson(good, 2) << "\n"; // one pretty document
  EXPECT_EQ(readEvalResultFile(path).size(), 1u);
  std::ofstream(path) << cudaperf::support::writeJson(good) << "\n" << cudaperf::support::writeJson(good) << "\n";
  EXPECT_EQ(readEvalResultFile(path).size(), 2u);
  std::ofstream(path) << "\n \n";
  EXPECT_THROW(readEvalResultFile(path), FeaturesError);
}

#ifndef CUDAPERF_NO_COUNTERS
// lib/Counters writes the counters document; lib/Features reads it.
TEST(CountersReader, ReadsWhatTheCollectorWrites) {
  using namespace cudaperf::counters;
  CountersDocument doc;
  doc.program = "./p";
  doc.gpuName = "NVIDIA H200";
  doc.computeCapability = "9.0";
  doc.available = true;
  doc.droppedMetrics["sm__maximum_warps_per_active_cycle_pct"] = "not accepted";
  KernelCounters a;
  a.name = "_Z5scalePfi";
  a.demangled = demangleKernelName(a.name);
  a.launch = 1;
  a.metrics["dram__bytes_read.sum"] = 4096;
  a.metrics["gpu__time_duration.sum"] = std::nan(""); // left out by the writer, named in notes
  KernelCounters b = a;
  b.launch = 0;
  doc.kernels = {a, b};
  doc.kernelsNotProfiled = 3;
  CountersSection c = readCountersDocument(cudaperf::support::parseJson(writeCountersJson(doc)), "counters.json");
  EXPECT_TRUE(c.available);
  EXPECT_EQ(c.gpuName, "NVIDIA H200");
  EXPECT_EQ(c.droppedMetrics.size(), 1u);
  ASSERT_EQ(c.kernels.size(), 2u);
  EXPECT_EQ(c.kernels[0].launch, 0); // sorted by launch
  EXPECT_EQ(c.kernels[0].demangled, "scale(float*, int)");
  EXPECT_EQ(c.kernels[0].get("dram__bytes_read.sum"), 4096);
  EXPECT_FALSE(c.kernels[0].get("gpu__time_duration.sum"));
  EXPECT_EQ(c.kernelsNotProfiled, 3);
  EXPECT_EQ(c.notes.size(), 2u);
  Json wrong = cudaperf::support::parseJson(writeCountersJson(doc));
  wrong["schema"] = "cudaperf-counters/9";
  EXPECT_THROW(readCountersDocument(wrong, "counters.json"), FeaturesError);
  wrong = cudaperf::support::parseJson(writeCountersJson(doc));
  wrong["kernels"][0]["name"] = 7;
  try {
    readCountersDocument(wrong, "counters.json");
    FAIL() << "accepted";
  } catch (const FeaturesError &e) {
    EXPECT_STREQ(e.what(), "counters.json: kernels[0].name: expected a string, got 7");
  }
}
#endif
