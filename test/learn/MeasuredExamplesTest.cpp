// SFT's measured refinement examples (include/cudaperf/Learn/MeasuredExamples.h, docs/training.md "Measured
// refinement examples"): which measurements count, which pair is chosen, and the feedback RL would give.
#include "cudaperf/Learn/Error.h"
#include "cudaperf/Learn/MeasuredExamples.h"
#include "cudaperf/Learn/ResultFiles.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <unistd.h>

using namespace cudaperf::learn;
using cudaperf::support::Json;
namespace fs = std::filesystem;

namespace {

Json result(const std::string &task, const std::string &impl, const std::string &outcome, double speedup,
            const std::string &sha) {
  Json r = {{"schema", "cudaperf-eval-result/1"}, {"task", task}, {"dataset_task", task}, {"dataset_impl", impl},
            {"candidate_sha256", sha}, {"outcome", outcome}, {"detail", ""}, {"speedup", speedup},
            {"configs", Json::array({{{"name", "small"}, {"weight", 1.0}, {"correct", outcome == "ok"},
                                       {"speedup", speedup}, {"median_ms", 0.5 / speedup}, {"baseline_median_ms", 0.5},
                                       {"spread", 0.01}, {"baseline_spread", 0.01}}})}};
  return r;
}

struct Folder {
  static inline int next = 0;
  fs::path dir = fs::temp_directory_path() / ("cudaperf-measured-" + std::to_string(getpid()) + "-" + std::to_string(next++));
  Folder() { fs::create_directories(dir); }
  ~Folder() { fs::remove_all(dir); }
  void write(const std::string &name, const std::vector<Json> &docs) {
    std::ofstream out(dir / name);
    for (const Json &d : docs) out << d.dump() << "\n";
  }
};

} // namespace

TEST(MeasuredExamples, LaterMeasurementsReplaceEarlierOnesAndOnlyOkCounts) {
  Folder f;
  f.write("results-1.jsonl", {result("t", "baseline.cu", "ok", 1.0, "a"), result("t", "fast.cu", "ok", 1.5, "b"),
                              result("t", "broken.cu", "ok", 0.9, "c"), result("u", "baseline.cu", "wrong_answer", 1.0, "d")});
  f.write("results-2.jsonl", {result("t", "fast.cu", "ok", 3.0, "b"),              // measured again: replaces 1.5
                              result("t", "broken.cu", "runtime_fault", 0, "c")}); // a later failure: no longer ok
  f.write("notes.txt", {});                                                        // not a results file
  MeasuredResults m = readMeasuredResults(f.dir.string());
  EXPECT_EQ(m.documents, 6u);
  ASSERT_EQ(m.byTask.count("t"), 1u);
  EXPECT_EQ(m.byTask.count("u"), 0u);
  ASSERT_EQ(m.byTask["t"].size(), 2u);
  EXPECT_DOUBLE_EQ(m.byTask["t"]["fast.cu"].speedup, 3.0);
  EXPECT_EQ(m.byTask["t"].count("broken.cu"), 0u);
  EXPECT_EQ(m.kept, 2u);
  EXPECT_THROW(readMeasuredResults((f.dir / "none").string()), LearnError);
  Folder empty;
  EXPECT_THROW(readMeasuredResults(empty.dir.string()), LearnError); // no results in it
}

TEST(MeasuredExamples, TheSlowestAndTheFastestOfTheFilesAsMeasuredWithRlsFeedback) {
  std::map<std::string, MeasuredImplementation> m;
  for (auto [file, speedup, sha] : {std::tuple{"baseline.cu", 1.0, "a"}, {"tiled.cu", 2.6, "b"}, {"naive.cu", 0.5, "c"},
                                    {"changed.cu", 9.0, "old"}}) {
    MeasuredImplementation x;
    x.file = file;
    x.speedup = speedup;
    x.sha256 = sha;
    x.result = result("t", file, "ok", speedup, sha);
    m[file] = x;
  }
  std::map<std::string, std::string> now = {{"baseline.cu", "a"}, {"tiled.cu", "b"}, {"naive.cu", "c"}, {"changed.cu", "new"}};
  std::optional<MeasuredPair> p = chooseMeasuredPair(m, now);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->slower, "naive.cu");
  EXPECT_EQ(p->faster, "tiled.cu"); // changed.cu's 9x was measured on another file
  EXPECT_DOUBLE_EQ(p->fasterSpeedup, 2.6);
  EXPECT_NE(p->feedback.find("Outcome: ok"), std::string::npos) << p->feedback;
  EXPECT_EQ(p->feedback.find("Static analysis unavailable"), std::string::npos) << p->feedback;
  EXPECT_FALSE(chooseMeasuredPair(m, now, 6.0).has_value()); // 2.6 / 0.5 = 5.2 < 6
  EXPECT_FALSE(chooseMeasuredPair(m, {{"tiled.cu", "b"}}).has_value()); // one file left: no pair
}

// The committed measurements (data/measured/dataset-h200, zstd) read as the SFT command reads them.
TEST(MeasuredExamples, TheCommittedShardsRead) {
  std::string dir = std::string(CUDAPERF_SOURCE_DIR) + "/data/measured/dataset-h200";
  if (!fs::exists(dir)) GTEST_SKIP() << dir << " is not in this checkout";
  MeasuredResults m = readMeasuredResults(dir);
  EXPECT_GT(m.documents, 1000u);
  EXPECT_GT(m.byTask.size(), 100u);
  size_t pairs = 0;
  for (const auto &[task, impls] : m.byTask) {
    std::map<std::string, std::string> asMeasured;
    for (const auto &[file, x] : impls) asMeasured[file] = x.sha256;
    pairs += chooseMeasuredPair(impls, asMeasured).has_value();
  }
  EXPECT_GT(pairs, 50u);
  // The feedback of a real stored result names its measured speedup per configuration, as RL's does.
  for (const auto &[task, impls] : m.byTask) {
    std::map<std::string, std::string> asMeasured;
    for (const auto &[file, x] : impls) asMeasured[file] = x.sha256;
    std::optional<MeasuredPair> p = chooseMeasuredPair(impls, asMeasured);
    if (!p) continue;
    const Json &slower = impls.at(p->slower).result;
    EXPECT_NE(p->feedback.find("Outcome: ok"), std::string::npos) << p->feedback;
    for (const Json &c : slower.at("configs")) {
      std::ostringstream want;
      want << c.at("name").get<std::string>() << " " << std::fixed << std::setprecision(2) << c.at("speedup").get<double>() << "x";
      EXPECT_NE(p->feedback.find(want.str()), std::string::npos) << want.str() << " in\n" << p->feedback;
    }
    EXPECT_LT(p->slowerSpeedup * 1.25, p->fasterSpeedup + 1e-12);
    break;
  }
}
