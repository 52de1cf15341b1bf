// The ranking model's scores of candidates against their task's impls/baseline.cu, in-process and
// batched: what `cudaperf-rank score` prints and what the RL environment feeds the reward's learned
// term (docs/ranking.md, docs/training.md "The ranking model in the reward"). Both go through
// rankExamplesFromAnalysis (RankingCandidates.h) and scoreAgainstBaseline below.
#pragma once

#include "cudaperf/Learn/RankingCandidates.h"
#include "cudaperf/Learn/RankingModel.h"
#include "cudaperf/Learn/RlEnvironment.h"
#include "cudaperf/Reward/Pipeline.h"

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cudaperf::learn {

struct RankScoring {
  std::vector<double> scores;                                     // per candidate example
  std::vector<std::vector<RankModel::Attribution>> attributions;  // per candidate example, the top ones
  std::map<std::string, double> baselineScore;                    // per configuration
  // Per candidate (RankExample::implementation, in order of first appearance): the mean over the
  // configurations of score − the baseline's at that configuration (the reward's ranking score), and
  // the features that weighed most (contributions averaged over its configurations, largest |mean| first).
  struct Versus {
    std::string candidate;
    double meanScore = 0;
    int configurations = 0;
    std::vector<std::pair<std::string, double>> topFeatures;
  };
  std::vector<Versus> versusBaseline; // empty without a baseline
};

// Scores `candidates` in one batch. The baseline's scores: those of the candidates' examples whose
// source has `baselineSha256` (so the baseline's own difference is exactly 0), else `baselineExamples`
// scored in a second batch (empty: no comparison).
RankScoring scoreAgainstBaseline(RankModel &model, const std::vector<RankExample> &candidates,
                                 const std::string &baselineSha256, const std::vector<RankExample> &baselineExamples,
                                 size_t top);

// The shipped model: data/ranking/checkpoints/mlp-static (docs/ranking.md: best on held-out families
// among the models that rank unmeasured candidates, 97.0 %, and leave-one-family-out, 95.5 %), in the
// source tree this was built from, else beside the program (../../data/...). Throws naming both places.
std::string defaultRankCheckpoint();

// The RL environment's ranker: one model, candidates scored under a lock (they come from the reward
// workers); the baseline of each task analysed once with the pipeline's analyzer and cached (prepare()
// starts it from a reward worker; a second caller for the same task waits for the first's analysis).
class ModelCandidateRanker : public CandidateRanker {
public:
  ModelCandidateRanker(const std::string &checkpoint, const torch::Device &device, reward::AnalyzerOptions analyzer,
                       size_t topFeatures = 3);
  std::vector<std::optional<RankingVerdict>> rank(const std::vector<RankingCandidate> &batch) override;
  std::optional<features::AnalysisDocument> baselineAnalysis(const std::string &taskDir) override;
  void prepare(const std::string &taskDir) override { baselineOf(taskDir); }
  std::string describe() const override;

private:
  std::string checkpoint_;
  RankModel model_;
  reward::AnalyzerOptions analyzer_;
  size_t top_;
  std::mutex modelMutex_, baselineMutex_;
  struct Baseline {
    std::optional<features::AnalysisDocument> analysis;
    std::vector<RankExample> examples;
    std::string sha256;
  };
  std::map<std::string, std::shared_future<std::shared_ptr<const Baseline>>> baselines_; // by task dir
  std::shared_ptr<const Baseline> baselineOf(const std::string &taskDir);
};

} // namespace cudaperf::learn
