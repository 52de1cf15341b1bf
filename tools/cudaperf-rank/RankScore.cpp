// cudaperf-rank score and bench: candidates of a task ordered without running them; the scoring throughput.
#include "RankTool.h"


#include "cudaperf/Learn/RankingModel.h"
#include "cudaperf/Learn/RankingScorer.h"
#include "cudaperf/Learn/SvgPlot.h"
#include "cudaperf/Learn/ToolMain.h"
#include "cudaperf/Learn/Transformer.h" // parseDevice
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Sha256.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <iomanip>
#include <map>
#include <iostream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using namespace cudaperf;
using namespace cudaperf::learn;

namespace cudaperf::ranktool {

// --- scoring -----------------------------------------------------------------------------------

int runScore(const std::vector<std::string> &argv) {
  std::string checkpoint, configuration = "all", format = "text", analyzer, cache, device = "cpu";
  int top = 3, jobs = 2;
  support::ArgParser p(std::string(kProgram) + " score", {"TASK_DIR CANDIDATE.cu... --checkpoint DIR [options]"},
                       "Orders candidates without running them: each is analysed at every configuration of the task "
                       "(cudaperf-analyze --task, lib/Features), scored by the model, and printed best first with the "
                       "features that weighed most (gradient x input of the standardized feature).");
  p.option("--checkpoint", "DIR", "a trained model (cudaperf-rank train; default: the shipped "
           "data/ranking/checkpoints/mlp-static)", checkpoint);
  p.option("--config", "NAME", "one configuration (default all)", configuration);
  p.option("--top", "N", "features shown per candidate (default 3)", integerInto(top, 0, 1000));
  p.option("--format", "FMT", "text (default) or json (schema cudaperf-rank-scores/1)", format);
  p.option("--analyzer", "PATH", "cudaperf-analyze (default: beside this program, then PATH)", analyzer);
  p.option("--cache", "DIR", "analysis documents by SHA-256 (default: none)", cache);
  p.option("--jobs", "N", "analyses at once (default 2)", integerInto(jobs, 1, 256));
  p.option("--device", "DEV", "cpu (default) or cuda", device);
  support::ParsedArgs parsed = p.parse(argv);
  if (parsed.helpRequested) return std::cout << p.help(), kExitOk;
  if (parsed.positional.size() < 2) throw support::UsageError("give the task folder and at least one candidate");
  if (checkpoint.empty()) checkpoint = defaultRankCheckpoint();
  if (format != "text" && format != "json") throw support::UsageError("--format: expected text or json, got '" + format + "'");
  torch::set_num_threads(1);
  RankModel model = RankModel::load(checkpoint, parseDevice(device));
  std::string taskDir = parsed.positional[0];
  std::vector<std::string> candidates(parsed.positional.begin() + 1, parsed.positional.end());
  std::vector<RankExample> examples = rank::prepareCandidates(taskDir, candidates, prepareOptions(analyzer, cache, jobs));
  if (configuration != "all") {
    std::vector<RankExample> kept;
    for (RankExample &e : examples)
      if (e.configuration == configuration) kept.push_back(std::move(e));
    if (kept.empty()) throw LearnError(taskDir + ": the task has no configuration '" + configuration + "'");
    examples = std::move(kept);
  }
  // Scores are differences within a task and configuration; against the task's impls/baseline.cu they
  // become one number per candidate (the reward's --ranking-score): the mean over configurations. The
  // baseline among the candidates (by content) keeps its own scores, so its difference is exactly 0.
  std::string baseSha;
  std::vector<RankExample> base;
  fs::path baseline = fs::path(taskDir) / "impls" / "baseline.cu";
  if (fs::exists(baseline)) {
    std::ifstream in(baseline, std::ios::binary);
    baseSha = support::sha256Hex(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
    bool among = std::any_of(examples.begin(), examples.end(), [&](const RankExample &e) { return e.sourceSha256 == baseSha; });
    if (!among) base = rank::prepareCandidates(taskDir, {baseline.string()}, prepareOptions(analyzer, cache, jobs));
  }
  RankScoring scoring = scoreAgainstBaseline(model, examples, baseSha, base, size_t(top));
  const std::vector<double> &scores = scoring.scores;
  const auto &attributions = scoring.attributions;
  std::map<std::string, std::vector<size_t>> byConfig;
  std::vector<std::string> order;
  for (size_t i = 0; i < examples.size(); ++i) {
    if (!byConfig.count(examples[i].configuration)) order.push_back(examples[i].configuration);
    byConfig[examples[i].configuration].push_back(i);
  }
  Json configs = Json::array();
  std::ostringstream text;
  text << std::fixed;
  for (const std::string &c : order) {
    std::vector<size_t> idx = byConfig[c];
    std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return scores[x] > scores[y]; });
    Json ranking = Json::array();
    text << "configuration " << c << ":\n";
    for (size_t r = 0; r < idx.size(); ++r) {
      size_t i = idx[r];
      Json features = Json::array();
      text << "  " << r + 1 << ". " << std::setprecision(3) << std::showpos << scores[i] << std::noshowpos << "  "
           << examples[i].implementation << "\n";
      for (const auto &at : attributions[i]) {
        features.push_back({{"feature", at.feature}, {"value", numberOrNull(at.value)}, {"contribution", at.contribution}});
        text << "       " << std::setprecision(3) << std::showpos << at.contribution << std::noshowpos << "  " << at.feature
             << " = " << (std::isfinite(at.value) ? std::to_string(at.value) : std::string("missing")) << "\n";
      }
      ranking.push_back({{"rank", r + 1}, {"candidate", examples[i].implementation}, {"score", scores[i]},
                         {"static_score", numberOrNull(examples[i].staticScore)},
                         {"roofline_time_us", numberOrNull(examples[i].rooflineUs)}, {"top_features", features}});
    }
    configs.push_back({{"name", c}, {"ranking", ranking}});
  }
  Json versusBaseline = Json::array();
  if (!scoring.versusBaseline.empty())
    text << "versus impls/baseline.cu (mean score difference over configurations; the reward's --ranking-score):\n";
  for (const RankScoring::Versus &v : scoring.versusBaseline) {
    Json features = Json::array();
    for (const auto &[feature, contribution] : v.topFeatures) features.push_back({{"feature", feature}, {"contribution", contribution}});
    versusBaseline.push_back({{"candidate", v.candidate}, {"mean_score_vs_baseline", v.meanScore},
                              {"configurations", v.configurations}, {"top_features", features}});
    text << "  " << std::setprecision(3) << std::showpos << v.meanScore << std::noshowpos << "  " << v.candidate << "\n";
  }
  if (format == "json")
    std::cout << support::writeJson(Json{{"schema", kScoresSchema}, {"task", taskDir}, {"checkpoint", checkpoint},
                                         {"model", rankModelKindName(model.config().kind)}, {"configurations", configs},
                                         {"versus_baseline", versusBaseline}},
                                    1)
              << "\n";
  else
    std::cout << text.str();
  return kExitOk;
}

// Scoring throughput of a checkpoint on prepared examples (the analysis excluded: prepare's cost).
int runBench(const std::vector<std::string> &argv) {
  std::vector<std::string> examplesFiles;
  std::string checkpoint, device = "cpu", jsonOut;
  int count = 20000, batchSize = 1024, threads = 1;
  support::ArgParser p(std::string(kProgram) + " bench", {"--examples FILE --checkpoint DIR [options]"},
                       "Candidates scored per second from prepared examples: in batches (features to tensors, the "
                       "forward pass, scores back) and one at a time.");
  p.option("--examples", "FILE", "examples (repeatable)", collectInto(examplesFiles));
  p.option("--checkpoint", "DIR", "the model", checkpoint);
  p.option("--count", "N", "candidates scored in batches (default 20000)", integerInto(count, 1, 1 << 30));
  p.option("--batch", "N", "batch size (default 1024)", integerInto(batchSize, 1, 1 << 24));
  p.option("--threads", "N", "LibTorch CPU threads (default 1)", integerInto(threads, 1, 256));
  p.option("--device", "DEV", "cpu (default) or cuda", device);
  p.option("--json", "FILE", "write the measurement", jsonOut);
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  if (checkpoint.empty()) throw support::UsageError("--checkpoint is required");
  torch::set_num_threads(threads);
  std::vector<RankExample> pool = readAllExamples(examplesFiles);
  RankModel model = RankModel::load(checkpoint, parseDevice(device));
  std::vector<RankExample> batch;
  for (int i = 0; i < batchSize; ++i) batch.push_back(pool[size_t(i) % pool.size()]);
  model.scores(batch); // warm-up (and the token cache)
  auto start = Clock::now();
  int scored = 0;
  while (scored < count) {
    model.scores(batch);
    scored += batchSize;
  }
  double batched = scored / secondsSince(start);
  int single = std::min(count, 2000);
  start = Clock::now();
  for (int i = 0; i < single; ++i) model.scores({pool[size_t(i) % pool.size()]});
  double oneByOne = single / secondsSince(start);
  Json j = {{"schema", "cudaperf-rank-bench/1"}, {"model", rankModelKindName(model.config().kind)},
            {"parameters", model.parameterCount()}, {"device", device}, {"threads", threads}, {"batch", batchSize},
            {"candidates_per_second_batched", batched}, {"candidates_per_second_single", oneByOne},
            {"libtorch", compat::versionText()}};
  if (!jsonOut.empty()) writeText(jsonOut, support::writeJson(j, 1) + "\n");
  std::cout << kProgram << " bench: " << rankModelKindName(model.config().kind) << " on " << device << " (" << threads
            << " threads): " << std::fixed << std::setprecision(0) << batched << " candidates/s in batches of "
            << batchSize << ", " << oneByOne << " candidates/s one at a time\n";
  return kExitOk;
}
} // namespace cudaperf::ranktool
