// schema::AnalysisDocument, the analyzer's JSON: every stored analysis document in the repository
// (test/reward/golden, the fuzz seeds, data/) reads and writes back byte-identically with no key
// unknown to the schema; the current analyzer's output for the lit inputs (and a --task document)
// reads with no unknown key; errors name the field path.
#include "cudaperf/Schema/AnalysisDocument.h"
#include "cudaperf/Support/JsonReader.h"
#include "cudaperf/Support/Subprocess.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using cudaperf::schema::AnalysisDocument;
using cudaperf::support::Json;

namespace {

const fs::path kRoot = CUDAPERF_SOURCE_DIR;

std::string readText(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// An analyzer document: schema_version and kernels, each kernel with a mangled name, or the
// configurations of --task (the corpus manifest has schema_version and kernels too, but neither).
bool isAnalysisDocument(const Json &doc) {
  if (!doc.is_object() || !doc.contains("schema_version") || !doc.contains("kernels") || !doc["kernels"].is_array())
    return false;
  if (doc.contains("configurations"))
    return true;
  for (const Json &k : doc["kernels"])
    if (!k.is_object() || !k.contains("mangled_name"))
      return false;
  return !doc["kernels"].empty();
}

std::vector<fs::path> storedDocuments() {
  std::vector<fs::path> out;
  for (const char *top : {"test", "data"})
    for (auto it = fs::recursive_directory_iterator(kRoot / top); it != fs::recursive_directory_iterator(); ++it) {
      if (!it->is_regular_file() || it->path().extension() != ".json")
        continue;
      std::string text = readText(it->path());
      if (text.find("\"schema_version\"") == std::string::npos || text.find("\"kernels\"") == std::string::npos)
        continue;
      try {
        if (isAnalysisDocument(cudaperf::support::parseJson(text)))
          out.push_back(it->path());
      } catch (const std::exception &) {
      }
    }
  std::sort(out.begin(), out.end());
  return out;
}

// "" when `doc` reads and writes back byte-identically with no unknown key, else what differs.
std::string roundTripProblem(const Json &doc, const std::string &where) {
  AnalysisDocument read = AnalysisDocument::fromJson(doc, where);
  std::string problems;
  for (const std::string &key : read.unknownKeyPaths)
    problems += where + ": key unknown to lib/Schema: " + key + "\n";
  std::string before = cudaperf::support::writeJson(doc);
  std::string after = cudaperf::support::writeJson(read.toJson());
  if (before != after) {
    size_t i = 0;
    while (i < before.size() && i < after.size() && before[i] == after[i])
      ++i;
    size_t from = i > 60 ? i - 60 : 0;
    problems += where + ": differs at byte " + std::to_string(i) + "\n  read:    ..." + before.substr(from, 160) +
                "\n  written: ..." + after.substr(from, 160) + "\n";
  }
  return problems;
}

std::string readError(const std::function<void(Json &)> &change) {
  Json doc = cudaperf::support::parseJson(readText(kRoot / "test/reward/golden/static_only/analysis.json"));
  change(doc);
  try {
    AnalysisDocument::fromJson(doc, "analysis.json");
  } catch (const cudaperf::support::SupportError &e) {
    return e.what();
  }
  return "(read without error)";
}

fs::path analyzerBinary() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    return {};
  fs::path analyzer = self.parent_path() / "cudaperf-analyze";
  return fs::exists(analyzer) ? analyzer : fs::path();
}

} // namespace

// Every stored document: 4 reward goldens, the static-only baseline, the fuzz seed (at least).
TEST(AnalysisDocument, StoredDocumentsRoundTripWithEveryKeyKnown) {
  std::vector<fs::path> docs = storedDocuments();
  EXPECT_GE(docs.size(), 6u);
  std::string problems;
  for (const fs::path &p : docs) {
    std::string where = fs::relative(p, kRoot).string();
    try {
      problems += roundTripProblem(cudaperf::support::parseJson(readText(p)), where);
    } catch (const std::exception &e) {
      problems += where + ": " + e.what() + "\n";
    }
  }
  EXPECT_EQ(problems, "");
}

// The reward goldens were written before sync.war_hazard_sites and sync.atomic_sites: the keys are
// optional (absent, not empty), so the goldens stay as the analyzer wrote them then.
TEST(AnalysisDocument, OlderDocumentsLackTheNewerSyncSites) {
  Json json = cudaperf::support::parseJson(readText(kRoot / "test/reward/golden/static_only/analysis.json"));
  AnalysisDocument doc = AnalysisDocument::fromJson(json, "analysis.json");
  ASSERT_TRUE(doc.configurations && !doc.configurations->empty());
  const auto &launch = doc.configurations->at(0).launches.at(0);
  ASSERT_TRUE(launch.report && launch.report->sync);
  EXPECT_TRUE(launch.report->sync->barrierSites);
  EXPECT_FALSE(launch.report->sync->warHazardSites);
  EXPECT_FALSE(launch.report->sync->atomicSites);
  EXPECT_EQ(doc.task->name, "transpose");
}

TEST(AnalysisDocument, UnknownKeysAreKeptAndListed) {
  Json json = cudaperf::support::parseJson(readText(kRoot / "test/reward/golden/static_only/analysis.json"));
  json["configurations"][0]["launches"][0]["report"]["occupancy"]["future"] = Json::array({1, 2});
  json["future"] = nullptr;
  AnalysisDocument doc = AnalysisDocument::fromJson(json, "analysis.json");
  EXPECT_EQ(doc.unknownKeyPaths,
            (std::vector<std::string>{"configurations[0].launches[0].report.occupancy.future", "future"}));
  EXPECT_EQ(cudaperf::support::writeJson(doc.toJson()), cudaperf::support::writeJson(json));
}

TEST(AnalysisDocument, ErrorsNameTheField) {
  auto report = [](Json &d) -> Json & { return d["configurations"][0]["launches"][0]["report"]; };
  EXPECT_EQ(readError([](Json &d) { d["schema_version"] = 2; }),
            "analysis.json: schema_version: expected 1 (the schema this reader knows), got 2");
  EXPECT_EQ(readError([](Json &d) { d.erase("kernels"); }), "analysis.json: kernels: missing");
  EXPECT_EQ(readError([&](Json &d) { report(d)["sync"]["barriers"] = "two"; }),
            "analysis.json: configurations[0].launches[0].report.sync.barriers: expected a whole number, got "
            "\"two\"");
  EXPECT_EQ(readError([&](Json &d) { report(d)["work"]["flops"]["fp32"]["fma"] = true; }),
            "analysis.json: configurations[0].launches[0].report.work.flops.fp32.fma: expected a number, got true");
  EXPECT_EQ(readError([&](Json &d) { report(d)["accesses"][0]["bytes"] = -4; }),
            "analysis.json: configurations[0].launches[0].report.accesses[0].bytes: expected a whole number from 0 "
            "to 1048576, got -4");
  EXPECT_EQ(readError([&](Json &d) { report(d).erase("mangled_name"); }),
            "analysis.json: configurations[0].launches[0].report.mangled_name: missing");
  EXPECT_EQ(readError([](Json &d) { d["configurations"][0]["launches"][0]["index"] = 3; }),
            "analysis.json: configurations[0].launches[0].index: expected 0 (launches are listed in execution "
            "order), got 3");
  EXPECT_EQ(readError([](Json &d) { d["configurations"][0]["launches"][0]["grid"] = Json::array({1, 2, 3, 4}); }),
            "analysis.json: configurations[0].launches[0].grid: expected [x, y, z] with 1 to 3 numbers, got 4");
}

// The analyzer built beside this test (build/bin), on the lit inputs that it analyses as JSON, on
// an example with --gpu and on one task (--task): every key it writes is known to lib/Schema, and the document writes back as read.
// Skipped where the analyzer is not built (the GPU host builds without it).
TEST(AnalysisDocument, TheAnalyzersOutputIsKnownToTheSchema) {
  fs::path analyzer = analyzerBinary();
  if (analyzer.empty())
    GTEST_SKIP() << "cudaperf-analyze is not built beside this test";
  std::vector<std::vector<std::string>> runs;
  for (const char *folder : {"Coalescing", "SharedMemory", "Synchronization", "Occupancy", "Work", "Tool"})
    for (const auto &e : fs::directory_iterator(kRoot / "test" / folder))
      if (e.path().extension() == ".cu" && readText(e.path()).find("--format=json") != std::string::npos)
        runs.push_back({analyzer.string(), "--cuda-headers=builtin", "--format=json", e.path().string()});
  runs.push_back({analyzer.string(), "--cuda-headers=builtin", "--format=json", "--gpu=H100-SXM",
                  (kRoot / "data/examples/transpose.cu").string()});
  runs.push_back({analyzer.string(), "--cuda-headers=builtin", "--format=json", "--task",
                  (kRoot / "data/tasks/transpose").string(), (kRoot / "data/tasks/transpose/impls/baseline.cu").string()});
  std::sort(runs.begin(), runs.end());
  ASSERT_GE(runs.size(), 10u);
  std::string problems;
  size_t read = 0;
  for (const auto &argv : runs) {
    cudaperf::support::ProcessOptions options;
    options.separateStderr = true;
    options.timeoutSeconds = 300;
    options.maxCapturedBytes = size_t(256) << 20;
    auto r = cudaperf::support::runProcess(argv, options);
    std::string where = fs::relative(argv.back(), kRoot).string();
    Json doc;
    try {
      doc = cudaperf::support::parseJson(r.output);
    } catch (const std::exception &e) {
      problems += where + ": the analyzer wrote no JSON (" + r.describe() + ")\n";
      continue;
    }
    try {
      problems += roundTripProblem(doc, where);
      ++read;
    } catch (const std::exception &e) {
      problems += where + ": " + e.what() + "\n";
    }
  }
  EXPECT_EQ(problems, "");
  EXPECT_EQ(read, runs.size());
}
