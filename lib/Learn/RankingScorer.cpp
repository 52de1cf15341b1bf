#include "cudaperf/Learn/RankingScorer.h"

#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/Subprocess.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cudaperf::learn {

namespace fs = std::filesystem;

RankScoring scoreAgainstBaseline(RankModel &model, const std::vector<RankExample> &candidates,
                                 const std::string &baselineSha256, const std::vector<RankExample> &baselineExamples,
                                 size_t top) {
  RankScoring out;
  out.scores = model.scores(candidates);
  out.attributions = model.attributions(candidates, top);
  for (size_t i = 0; i < candidates.size(); ++i)
    if (!baselineSha256.empty() && candidates[i].sourceSha256 == baselineSha256)
      out.baselineScore[candidates[i].configuration] = out.scores[i];
  if (out.baselineScore.empty() && !baselineExamples.empty()) {
    std::vector<double> s = model.scores(baselineExamples);
    for (size_t i = 0; i < baselineExamples.size(); ++i) out.baselineScore[baselineExamples[i].configuration] = s[i];
  }
  if (out.baselineScore.empty()) return out;
  std::map<std::string, size_t> index;
  std::vector<std::map<std::string, double>> contributions;
  for (size_t i = 0; i < candidates.size(); ++i) {
    auto b = out.baselineScore.find(candidates[i].configuration);
    if (b == out.baselineScore.end()) continue;
    auto [it, fresh] = index.emplace(candidates[i].implementation, out.versusBaseline.size());
    if (fresh) {
      out.versusBaseline.push_back({candidates[i].implementation, 0, 0, {}});
      contributions.emplace_back();
    }
    RankScoring::Versus &v = out.versusBaseline[it->second];
    v.meanScore += out.scores[i] - b->second;
    v.configurations += 1;
    for (const RankModel::Attribution &a : out.attributions[i]) contributions[it->second][a.feature] += a.contribution;
  }
  for (size_t k = 0; k < out.versusBaseline.size(); ++k) {
    RankScoring::Versus &v = out.versusBaseline[k];
    v.meanScore /= v.configurations;
    for (const auto &[feature, sum] : contributions[k]) v.topFeatures.emplace_back(feature, sum / v.configurations);
    std::stable_sort(v.topFeatures.begin(), v.topFeatures.end(),
                     [](const auto &a, const auto &b) { return std::fabs(a.second) > std::fabs(b.second); });
    if (v.topFeatures.size() > top) v.topFeatures.resize(top);
  }
  return out;
}

std::string defaultRankCheckpoint() {
  const std::string relative = "data/ranking/checkpoints/mlp-static";
  std::vector<fs::path> places = {fs::path(CUDAPERF_SOURCE_TREE) / relative,
                                  fs::path(support::executableDir()) / ".." / ".." / relative};
  for (const fs::path &p : places)
    if (fs::exists(p / "config.json")) return p.lexically_normal().string();
  throw LearnError("no shipped ranking model: neither " + places[0].string() + " nor " +
                   places[1].lexically_normal().string() + " has config.json (give --checkpoint)");
}

namespace {

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

RankExample candidateMeta(const std::string &taskDir, const std::string &implementation) {
  RankExample meta;
  meta.set = "candidates";
  meta.task = fs::path(taskDir).lexically_normal().filename().string();
  meta.implementation = implementation;
  return meta;
}

} // namespace

ModelCandidateRanker::ModelCandidateRanker(const std::string &checkpoint, const torch::Device &device,
                                           reward::AnalyzerOptions analyzer, size_t topFeatures)
    : checkpoint_(checkpoint), model_(RankModel::load(checkpoint, device)), analyzer_(std::move(analyzer)),
      top_(topFeatures) {}

std::string ModelCandidateRanker::describe() const {
  return std::string("ranking model ") + rankModelKindName(model_.config().kind) + " (" + checkpoint_ + ")";
}

std::shared_ptr<const ModelCandidateRanker::Baseline> ModelCandidateRanker::baselineOf(const std::string &taskDir) {
  std::promise<std::shared_ptr<const Baseline>> mine;
  std::shared_future<std::shared_ptr<const Baseline>> theirs; // another thread's (done or under way)
  {
    std::lock_guard<std::mutex> lock(baselineMutex_);
    auto it = baselines_.find(taskDir);
    if (it != baselines_.end())
      theirs = it->second;
    else
      baselines_.emplace(taskDir, mine.get_future().share());
  }
  if (theirs.valid()) return theirs.get(); // waits without the lock
  auto b = std::make_shared<Baseline>();
  fs::path path = fs::path(taskDir) / "impls" / "baseline.cu";
  std::error_code ec;
  if (fs::exists(path, ec)) {
    try {
      std::string text = readText(path.string());
      b->analysis = reward::runTaskAnalysis(analyzer_, taskDir, path.string());
      b->examples = rankExamplesFromAnalysis(*b->analysis, b->analysis, std::nullopt, candidateMeta(taskDir, path.string()),
                                             path.string(), text);
      b->sha256 = support::sha256Hex(text);
    } catch (const std::exception &) {
      b = std::make_shared<Baseline>(); // no comparison for this task: its candidates get no verdict
    }
  }
  mine.set_value(b);
  return b;
}

std::optional<features::AnalysisDocument> ModelCandidateRanker::baselineAnalysis(const std::string &taskDir) {
  return baselineOf(taskDir)->analysis;
}

std::vector<std::optional<RankingVerdict>> ModelCandidateRanker::rank(const std::vector<RankingCandidate> &batch) {
  std::vector<std::optional<RankingVerdict>> out(batch.size());
  // One batch per task (scores are compared with that task's baseline).
  std::map<std::string, std::vector<size_t>> byTask;
  for (size_t i = 0; i < batch.size(); ++i)
    if (batch[i].analysis) byTask[batch[i].taskDir].push_back(i);
  for (const auto &[taskDir, members] : byTask) {
    std::shared_ptr<const Baseline> baseline = baselineOf(taskDir);
    if (baseline->examples.empty()) continue;
    std::vector<RankExample> examples;
    for (size_t i : members) {
      // The implementation names the batch row, so that rows with the same file name stay apart.
      std::vector<RankExample> e = rankExamplesFromAnalysis(*batch[i].analysis, baseline->analysis, std::nullopt,
                                                            candidateMeta(taskDir, std::to_string(i)),
                                                            batch[i].sourcePath, batch[i].sourceText);
      examples.insert(examples.end(), e.begin(), e.end());
    }
    if (examples.empty()) continue;
    RankScoring scoring;
    {
      std::lock_guard<std::mutex> lock(modelMutex_);
      scoring = scoreAgainstBaseline(model_, examples, "", baseline->examples, top_);
    }
    for (const RankScoring::Versus &v : scoring.versusBaseline) {
      RankingVerdict verdict;
      verdict.score = v.meanScore;
      verdict.configurations = v.configurations;
      verdict.model = describe();
      verdict.topFeatures = v.topFeatures;
      out[std::stoul(v.candidate)] = verdict;
    }
  }
  return out;
}

} // namespace cudaperf::learn
