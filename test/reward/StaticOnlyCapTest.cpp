// Issue 33, item 6: a static-only reward (nothing ran, correctness unknown) is provisional and
// below every correct candidate's; an entry point that does no work is the gate no_work; a model's
// completion goes through the code block extraction, and one without a block is no_code_block.
// The reproducers use the analyzer's stored documents of the shipped transpose task
// (test/reward/golden/static_only: tiled.cu and baseline.cu; golden/ok_counters: tiled.cu timed
// on the H200); test/reward/static_only_test.py runs the real analyzer on the candidates of
// test/reward/static-only/ where it is built.
#include "RewardFixtures.h"

#include "cudaperf/Reward/Requests.h"
#include "cudaperf/Reward/RewardError.h"
#include "cudaperf/Support/Json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unistd.h>

using namespace cudaperf;
using namespace cudaperf::reward;
using namespace rewardtest;
namespace fs = std::filesystem;

namespace {

const std::string kRoot = CUDAPERF_SOURCE_DIR;
const std::string kGolden = kRoot + "/test/reward/golden";

Json golden(const std::string &file) { return support::readJsonFile(kGolden + "/" + file); }

ConfigSpec oneLaunchSpec(const std::string &name, const LaunchSpec &s) { return {name, {s}, {}}; }

double uncapped(const RewardDocument &d) {
  const RewardTerm *p = d.term("provisional");
  return p ? *d.total - p->contribution : *d.total;
}

// The static-only reward of a candidate from its analysis, against the transpose baseline's.
RewardDocument staticOnly(const RewardConfig &c, const Json &analysisDoc) {
  return rewardOf(c, golden("static_only/result.json"), analysisDoc, golden("static_only/baseline.json"));
}

// copy_wrong.cu differs from baseline.cu only in the store's index: the baseline's analysis
// with the store as coalesced as the load (same pattern, sectors and efficiency).
Json copyAnalysis() {
  Json a = golden("static_only/baseline.json");
  for (Json &c : a["configurations"])
    for (Json &l : c["launches"]) {
      Json &accesses = l["report"]["accesses"];
      Json load = accesses[0], &store = accesses[1];
      EXPECT_EQ(load["op"], "load");
      EXPECT_EQ(store["op"], "store");
      store["pattern"] = load["pattern"];
      store["sectors_per_request"] = load["sectors_per_request"];
      l["report"]["coalescing_efficiency"] = 4.0 / load["sectors_per_request"].get<double>();
    }
  return a;
}

// empty.cu: the analyzer follows the entry point to its end and finds no launch.
Json emptyAnalysis() {
  Json a = golden("static_only/baseline.json");
  a["kernels"] = Json::array();
  for (Json &c : a["configurations"]) {
    c["launches"] = Json::array();
    c["diagnostics"] = Json::array();
  }
  return a;
}

} // namespace

// ---- the provisional band ----------------------------------------------------------------------

TEST(Provisional, BandDerivedFromTheConfig) {
  RewardConfig c;
  ProvisionalBand b = provisionalBand(c);
  EXPECT_DOUBLE_EQ(b.floor, c.gates.wrongAnswer); // the highest failure gate by default (-0.5)
  EXPECT_DOUBLE_EQ(b.ceiling, c.lowestCorrectTotal()); // 1 - 1 - 0.2 - 0.2 - 0.04 (learned) = -0.44
  EXPECT_NEAR(b.lowest, -0.485, 1e-12);
  EXPECT_NEAR(b.highest, -0.455, 1e-12);
  EXPECT_NEAR(b.rawLowest, c.lowestStaticOnlyTotal(), 1e-12);                        // -0.44
  EXPECT_NEAR(b.rawHighest, 0.5 + 0.5 + 0.04 + 0.025 + 0.035 + 0.05 + 0.04, 1e-12); // 1.19
  EXPECT_DOUBLE_EQ(b.map(b.rawLowest), b.lowest);
  EXPECT_DOUBLE_EQ(b.map(b.rawHighest), b.highest);
  EXPECT_LT(b.map(0.5), b.map(0.6)); // monotone: static-only candidates keep their order
  // Another config moves the band with it: a learned term widens the static-only range and lowers
  // the lowest correct total.
  c.learned.weight = 0.1;
  b = provisionalBand(c);
  EXPECT_NEAR(b.ceiling, -0.5 + 0.0, 1e-12);
  EXPECT_NEAR(b.rawHighest, 1.25, 1e-12);
}

TEST(Provisional, BestStaticOnlyCandidateBelowWorstCorrectOne) {
  RewardConfig c;
  c.learned.weight = 0.05; // the learned term at its best on one side, its worst on the other
  // The best a static-only candidate can show: writes its output, perfect structure, and 100x the
  // modeled speed of the baseline at every configuration, a top ranking score.
  LaunchSpec best, slowBaseline;
  best.storesOutput = slowBaseline.storesOutput = true;
  slowBaseline.occupancy = 0.01;
  slowBaseline.rooflineUs = 1000;
  slowBaseline.dramBytes = 43e8;
  RewardDocument top = rewardOf(c, compileOnlyResult(), analysis({{"small", {best}, {}}, {"large", {best}, {}}}),
                                analysis({{"small", {slowBaseline}, {}}, {"large", {slowBaseline}, {}}}), 50.0);
  ASSERT_TRUE(top.total);
  EXPECT_TRUE(top.provisional);
  EXPECT_EQ(top.gate, std::nullopt);
  // The worst a correct candidate can be: 100x slower everywhere, both barrier hazards, poor
  // structure, the lowest ranking score.
  LaunchSpec worst;
  worst.divergentBarriers = worst.missingBarriers = 1;
  worst.occupancy = 0.01;
  worst.sectors = 32;
  worst.coalescingEfficiency = 0.125;
  RewardDocument bottom = rewardOf(c, evalResult({{"small", 100, 1}, {"large", 100, 1}}),
                                   analysis({{"small", {worst}, {}}, {"large", {worst}, {}}}), std::nullopt, -50.0);
  ASSERT_TRUE(bottom.total);
  EXPECT_FALSE(bottom.provisional);
  EXPECT_GE(*bottom.total, c.lowestCorrectTotal() - 1e-12);
  EXPECT_LT(*top.total, *bottom.total);
  EXPECT_LT(*top.total, c.lowestCorrectTotal());
  EXPECT_LE(*top.total, provisionalBand(c).highest + 1e-12);
  // And above every failure gate.
  EXPECT_GT(*top.total, c.highestFailureGate());
}

TEST(Provisional, DocumentKeyAndTermSum) {
  RewardConfig c;
  LaunchSpec s;
  s.storesOutput = true;
  RewardDocument d = rewardOf(c, compileOnlyResult(), analysis({{"small", {s}, {}}}));
  EXPECT_TRUE(d.provisional);
  Json j = rewardToJson(d);
  EXPECT_EQ(j["provisional"], true);
  double sum = 0;
  for (const RewardTerm &t : d.terms)
    sum += t.contribution;
  EXPECT_NEAR(sum, *d.total, 1e-12); // the total is still the sum of the contributions
  const RewardTerm *p = d.term("provisional");
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->inputs["lowest_correct_total"].get<double>(), c.lowestCorrectTotal(), 1e-12);
  EXPECT_NEAR(provisionalBand(c).map(p->inputs["uncapped_total"].get<double>()), *d.total, 1e-12);
  // Measured: not provisional, the key is there and false.
  RewardDocument m = rewardOf(c, evalResult({{"small", 1, 2}}), analysis({{"small", {s}, {}}}));
  EXPECT_FALSE(m.provisional);
  EXPECT_EQ(rewardToJson(m)["provisional"], false);
  EXPECT_FALSE(m.term("provisional"));
  // Without an analysis: still provisional (correctness unknown), never gated no_work.
  RewardDocument none = rewardOf(c, compileOnlyResult());
  EXPECT_TRUE(none.provisional);
  EXPECT_EQ(none.gate, std::nullopt);
}

// ---- the two reproducers of issue 33 on the transpose task --------------------------------------

TEST(StaticOnlyReproducers, WrongCopyNoLongerOutranksTheCorrectTiledTranspose) {
  RewardConfig c;
  RewardDocument tiled = staticOnly(c, golden("static_only/analysis.json"));
  RewardDocument copy = staticOnly(c, copyAnalysis());
  // Before: the uncapped totals, the copy above the tiled transpose (0.774 against 0.745).
  EXPECT_NEAR(uncapped(tiled), 0.744551, 1e-6); // golden/static_only/expected-reward.json before the cap
  EXPECT_GT(uncapped(copy), uncapped(tiled));
  // After: both provisional, both below the lowest total any correct candidate can reach, and so
  // below the tiled transpose measured correct on the H200.
  EXPECT_TRUE(tiled.provisional);
  EXPECT_TRUE(copy.provisional);
  EXPECT_LT(*copy.total, c.lowestCorrectTotal());
  EXPECT_LT(*tiled.total, c.lowestCorrectTotal());
  RewardDocument measured = rewardOf(c, golden("ok_counters/result.json"), golden("ok_counters/analysis.json"));
  EXPECT_EQ(measured.gate, std::nullopt);
  EXPECT_FALSE(measured.provisional);
  EXPECT_NEAR(*measured.total, 1.549371, 1e-6);
  EXPECT_LT(*copy.total, *measured.total);
  // A wrong copy measured is a wrong answer, below its provisional reward too.
  EXPECT_LT(c.gates.wrongAnswer, *copy.total);
}

TEST(StaticOnlyReproducers, EmptyEntryPointIsGatedBelowTheBaseline) {
  RewardConfig c;
  RewardDocument empty = staticOnly(c, emptyAnalysis());
  RewardDocument baseline = staticOnly(c, golden("static_only/baseline.json"));
  EXPECT_EQ(empty.gate, Gate::NoWork);
  EXPECT_NE(empty.gateReason.find("launches no kernel"), std::string::npos);
  EXPECT_DOUBLE_EQ(*empty.total, c.gates.noWork);
  EXPECT_FALSE(empty.provisional);
  EXPECT_EQ(baseline.gate, std::nullopt);
  EXPECT_TRUE(baseline.provisional);
  EXPECT_LT(*empty.total, *baseline.total);
  EXPECT_LT(*baseline.total, c.lowestCorrectTotal());
  // The feedback says what to do.
  EXPECT_NE(empty.feedback.find("No work:"), std::string::npos) << empty.feedback;
}

// ---- the gate no_work --------------------------------------------------------------------------

TEST(NoWork, KernelsThatStoreNothingAreGated) {
  RewardConfig c;
  LaunchSpec loadsOnly; // the fixture's kernel: one global load, no store
  RewardDocument d = rewardOf(c, compileOnlyResult(), analysis({{"small", {loadsOnly, loadsOnly}, {}}}));
  EXPECT_EQ(d.gate, Gate::NoWork);
  EXPECT_NE(d.gateReason.find("2 launches over 1 configurations"), std::string::npos) << d.gateReason;
  // A shared-memory store does not reach an output either.
  loadsOnly.sharedWays = 1;
  EXPECT_EQ(rewardOf(c, compileOnlyResult(), analysis({oneLaunchSpec("small", loadsOnly)})).gate, Gate::NoWork);
  // An atomic to global memory is a write.
  LaunchSpec atomic;
  atomic.sameAddressAtomic = true;
  EXPECT_EQ(rewardOf(c, compileOnlyResult(), analysis({oneLaunchSpec("small", atomic)})).gate, std::nullopt);
  // A store at one configuration is enough.
  LaunchSpec stores;
  stores.storesOutput = true;
  EXPECT_EQ(rewardOf(c, compileOnlyResult(), analysis({{"small", {LaunchSpec{}}, {}}, {"large", {stores}, {}}})).gate,
            std::nullopt);
}

TEST(NoWork, UnknownIsNotGated) {
  RewardConfig c;
  // A launch whose kernel the analyzer has no report of may write anything.
  Json a = analysis({oneLaunchSpec("small", LaunchSpec{})});
  a["configurations"][0]["launches"][0].erase("report");
  a["configurations"][0]["launches"][0]["no_report_reason"] = "unknown kernel";
  EXPECT_EQ(rewardOf(c, compileOnlyResult(), a).gate, std::nullopt);
  // Launches not followed to the end: a later one may write.
  Json b = emptyAnalysis();
  b["configurations"][1]["launches_complete"] = false;
  b["configurations"][1]["reason"] = "control flow it cannot follow";
  EXPECT_EQ(staticOnly(c, b).gate, std::nullopt);
  // Measured: the evaluator's verdict stands (an ok candidate did write its outputs, by copies
  // the report does not list, say).
  EXPECT_EQ(rewardOf(c, evalResult({{"small", 1, 1}}), analysis({oneLaunchSpec("small", LaunchSpec{})})).gate,
            std::nullopt);
}

// ---- config rules of the new gates -------------------------------------------------------------

TEST(NewGates, ConfigKeysAndOrderingRules) {
  auto errorOf = [](const char *text) -> std::string {
    try {
      parseRewardConfig(Json::parse(text), "cfg.json");
    } catch (const RewardError &e) {
      return e.what();
    }
    return "";
  };
  RewardConfig c = parseRewardConfig(Json::parse(R"({"gates": {"no_work": -0.55, "no_code_block": -0.85}})"), "cfg");
  EXPECT_DOUBLE_EQ(c.gates.noWork, -0.55);
  EXPECT_DOUBLE_EQ(c.gates.noCodeBlock, -0.85);
  EXPECT_DOUBLE_EQ(gateReward(c, Gate::NoWork), -0.55);
  EXPECT_DOUBLE_EQ(gateReward(c, Gate::NoCodeBlock), -0.85);
  EXPECT_NE(errorOf(R"({"gates": {"no_work": -0.9}})").find("gates.no_work"), std::string::npos);
  EXPECT_NE(errorOf(R"({"gates": {"no_code_block": -0.7}})").find("gates.no_code_block"), std::string::npos);
  EXPECT_NE(errorOf(R"({"gates": {"no_code_block": -0.95}})").find("gates.no_code_block"), std::string::npos);
  // no_work is a failure: the band's floor follows it.
  RewardConfig high = parseRewardConfig(Json::parse(R"({"gates": {"no_work": -0.45}})"), "cfg");
  EXPECT_DOUBLE_EQ(provisionalBand(high).floor, -0.45);
  EXPECT_NE(errorOf(R"({"gates": {"no_work": -0.3}})").find("lowest total of a correct candidate"),
            std::string::npos);
}

// ---- completions through the pipeline and the requests -----------------------------------------

namespace {

// Records what it was asked to evaluate; answers as cudaperf-eval --compile-only does.
class RecordingEvaluator : public Evaluator {
public:
  explicit RecordingEvaluator(std::vector<std::string> *sources) : sources_(sources) {}
  Json evaluate(const std::string &, const std::string &candidatePath) override {
    std::ifstream in(candidatePath);
    std::stringstream ss;
    ss << in.rdbuf();
    sources_->push_back(ss.str());
    return compileOnlyResult();
  }
  std::string describe() const override { return "recording"; }

private:
  std::vector<std::string> *sources_;
};

struct PipelineFixture {
  std::vector<std::string> sources;
  std::string workDir = (fs::temp_directory_path() / ("cudaperf-extract-test-" + std::to_string(::getpid()))).string();
  RewardPipeline pipeline{RewardConfig{}, std::make_unique<RecordingEvaluator>(&sources), AnalyzerOptions{"none", {}, 10},
                          workDir};
  ~PipelineFixture() { fs::remove_all(workDir); }
};

} // namespace

TEST(Completion, NoCodeBlockIsGatedAndNothingRuns) {
  PipelineFixture f;
  CandidateRequest r;
  r.taskDir = kRoot + "/data/tasks/transpose";
  r.completion = "I would stage tiles through shared memory to coalesce the writes.";
  CandidateResult res = f.pipeline.run(r);
  EXPECT_TRUE(f.sources.empty());
  EXPECT_EQ(res.reward.gate, Gate::NoCodeBlock);
  EXPECT_EQ(res.reward.outcome, std::nullopt); // nothing was evaluated
  EXPECT_EQ(res.reward.outcomeText(), "no_code_block");
  EXPECT_EQ(res.reward.mode, "not-run");
  EXPECT_DOUBLE_EQ(*res.reward.total, RewardConfig{}.gates.noCodeBlock);
  EXPECT_FALSE(res.reward.provisional);
  EXPECT_NE(res.reward.feedback.find("single ```cuda code block"), std::string::npos) << res.reward.feedback;
  Json j = rewardToJson(res.reward);
  EXPECT_EQ(j["gate"], "no_code_block");
  // An empty block is no code either.
  r.completion = "```cuda\n\n```";
  EXPECT_EQ(f.pipeline.run(r).reward.gate, Gate::NoCodeBlock);
  EXPECT_TRUE(f.sources.empty());
}

TEST(Completion, TheExtractedCodeIsWhatIsCompiled) {
  PipelineFixture f;
  CandidateRequest r;
  r.taskDir = kRoot + "/data/tasks/transpose";
  std::string code = "#include <cuda_runtime.h>\nextern \"C\" void transpose(const float *, float *, int, int, "
                     "cudaStream_t) {}\n";
  r.completion = "The fix tiles the transpose.\n```cuda\n" + code + "```\nIt coalesces both sides.";
  CandidateResult res = f.pipeline.run(r);
  ASSERT_EQ(f.sources.size(), 1u);
  EXPECT_EQ(f.sources[0], code);
  EXPECT_EQ(res.reward.mode, "static-only");
  EXPECT_TRUE(res.reward.provisional);
  // The same code sent as `source` is the same candidate (the cache answers, nothing runs again).
  CandidateRequest same;
  same.taskDir = r.taskDir;
  same.source = code;
  EXPECT_DOUBLE_EQ(*f.pipeline.run(same).reward.total, *res.reward.total);
  EXPECT_EQ(f.sources.size(), 1u);
}

TEST(Completion, RequestsAcceptCompletion) {
  std::string task = kRoot + "/data/tasks/transpose";
  Json q = {{"id", 1}, {"task", task}, {"completion", "```cuda\nK\n```"},
            {"turns", Json::array({Json{{"completion", "no code"}}})}};
  RewardRequest r = parseRewardRequest(q, "stdin:1", RequestPolicy{});
  ASSERT_TRUE(r.candidate.completion);
  EXPECT_EQ(*r.candidate.completion, "```cuda\nK\n```");
  EXPECT_EQ(r.candidate.source, "K\n"); // extracted at once: the service's source gate sees the code
  ASSERT_EQ(r.earlier.size(), 1u);
  ASSERT_TRUE(r.earlier[0].completion);
  EXPECT_NO_THROW(checkRequestPaths(r));
  Json both = {{"task", task}, {"completion", "x"}, {"source", "y"}};
  try {
    parseRewardRequest(both, "stdin:2", RequestPolicy{});
    ADD_FAILURE() << "two candidates accepted";
  } catch (const RewardError &e) {
    EXPECT_NE(std::string(e.what()).find("\"completion\""), std::string::npos) << e.what();
  }
  // Served: a completion without code is a record with the gate, not an error.
  std::vector<std::string> sources;
  std::string workDir = (fs::temp_directory_path() / ("cudaperf-extract-req-" + std::to_string(::getpid()))).string();
  RewardPipeline pipeline(RewardConfig{}, std::make_unique<RecordingEvaluator>(&sources), AnalyzerOptions{"none", {}, 10},
                          workDir);
  Json record = serveRewardRequest(pipeline, parseRewardRequest(
                                                 Json{{"id", "a"}, {"task", task}, {"completion", "no code here"}},
                                                 "stdin:3", RequestPolicy{}));
  fs::remove_all(workDir);
  EXPECT_EQ(record["ok"], true);
  EXPECT_DOUBLE_EQ(record["total"].get<double>(), RewardConfig{}.gates.noCodeBlock);
  EXPECT_EQ(record["reward"]["gate"], "no_code_block");
}
