// From a candidate to its reward document: `cudaperf-analyze --task` and an evaluator, each in its
// own process, then computeReward and the feedback text. What `cudaperf-reward TASK_DIR
// CANDIDATE.cu`, its --batch mode and its HTTP service run, so all three give the same numbers.
#pragma once

#include "cudaperf/Features/Features.h"
#include "cudaperf/Reward/Reward.h"
#include "cudaperf/Reward/RewardConfig.h"
#include "cudaperf/Reward/Trajectory.h"
#include "cudaperf/Support/Json.h"

#include <condition_variable>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::reward {

// What runs a candidate on the GPU (or only builds it, static-only) and returns its eval result
// document. One interface so the per-candidate process can be swapped for the persistent
// evaluator (`cudaperf-eval --serve`) without touching the rest.
class Evaluator {
public:
  virtual ~Evaluator() = default;
  // Throws RewardError when no result could be had (the evaluator could not start, printed no
  // document, the task does not load); a candidate's own failure is a result, not an error.
  virtual support::Json evaluate(const std::string &taskDir, const std::string &candidatePath) = 0;
  virtual std::string describe() const = 0;
};

struct EvaluatorOptions {
  std::string evalPath;              // cudaperf-eval; default: beside this program, then PATH
  bool compileOnly = false;          // --static-only
  bool counters = false;             // --counters
  std::vector<std::string> extraArgs; // passed through (--configs small, --budget-ms 50, ...)
  double timeoutSeconds = 900;       // the whole evaluation of one candidate
  int gpuSlots = 1;                  // evaluations at once (per GPU of `devices`; compile-only: any number)
  std::vector<int> devices;          // GPUs to spread candidates over (cudaperf-eval --devices D each); empty: its choice
};

// A fresh `cudaperf-eval TASK_DIR CANDIDATE --jsonl` per candidate; at most gpuSlots at once (per
// GPU of `devices`, the least busy first) unless compile-only.
std::unique_ptr<Evaluator> makeProcessEvaluator(const EvaluatorOptions &options);

struct AnalyzerOptions {
  std::string analyzerPath; // default: beside this program, then PATH; "none" turns the analysis off
  std::vector<std::string> flags;
  double timeoutSeconds = 300;
};

struct CandidateRequest {
  std::string taskDir;
  std::string candidatePath; // a file; or
  std::string source;        // the source text (written to the pipeline's work directory); or
  // a model's completion (prose and a fenced code block): the block CodeExtraction.h picks is the
  // source; without one the reward is the gate no_code_block and nothing is compiled. When
  // `source` is set too, it is the block already extracted (parseRewardRequest does, so that the
  // service's source gate sees the code).
  std::optional<std::string> completion;
  std::optional<double> rankingScore;
};

struct CandidateResult {
  RewardDocument reward;
  support::Json resultJson;           // the eval result it was computed from
  std::shared_ptr<features::FeatureSet> analysis; // null when the analysis failed or was off
};

class RewardPipeline {
public:
  RewardPipeline(RewardConfig config, std::unique_ptr<Evaluator> evaluator, AnalyzerOptions analyzer,
                 std::string workDir);
  ~RewardPipeline();

  const RewardConfig &config() const { return config_; }
  // The reward of one candidate (analysis and evaluation run at the same time). Results are
  // cached by task, candidate SHA-256 and ranking score. Thread-safe. Throws RewardError for a
  // request that cannot be served (missing task or file, no evaluator output).
  CandidateResult run(const CandidateRequest &request);
  // A trajectory: every turn's reward (earlier turns usually come from the cache) and the rules
  // and returns over them; the last turn is the candidate the caller asks about.
  std::vector<TurnReward> trajectory(const std::vector<CandidateResult> &turns) const;

  // The reward document as JSON with its feedback text.
  support::Json documentJson(const CandidateResult &result) const;
  std::string describe() const;

private:
  std::string materialize(const CandidateRequest &request); // the candidate file to run
  void release(const std::string &path); // its request is done: removed when no other uses it

  RewardConfig config_;
  std::unique_ptr<Evaluator> evaluator_;
  AnalyzerOptions analyzer_;
  std::string workDir_;
  bool ownsWorkDir_ = false;

  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<features::FeatureSet>> baselines_; // by task dir + sha
  std::list<std::pair<std::string, std::shared_ptr<CandidateResult>>> cache_; // most recent first
  static constexpr size_t kCacheEntries = 512;
  static constexpr size_t kBaselineEntries = 256;
  std::map<std::string, int> materialized_; // work-directory files of requests in flight: their users
};

// The reward of a completion with no code to compile (gate no_code_block, `reason` why): nothing
// is compiled or analysed; the document's mode is "not-run" and its outcome "no_code_block".
CandidateResult noCodeBlockResult(const RewardConfig &config, const std::string &taskDir,
                                  const std::string &completion, const std::string &reason);

// The analysis document of `candidate` at every configuration of the task, as lib/Features reads
// it; throws RewardError with the analyzer's message.
features::AnalysisDocument runTaskAnalysis(const AnalyzerOptions &options, const std::string &taskDir,
                                           const std::string &candidate);

// Everything at hand already: the documents of `cudaperf-reward --analysis A --result R`.
CandidateResult rewardFromDocuments(const RewardConfig &config, const support::Json &resultJson,
                                    const std::string &resultSource, std::optional<features::AnalysisDocument> analysis,
                                    std::optional<features::AnalysisDocument> baseline,
                                    std::optional<double> rankingScore, std::string analysisError = "");

} // namespace cudaperf::reward
