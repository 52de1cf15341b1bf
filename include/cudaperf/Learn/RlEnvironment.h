// The RL trainer's environment (docs/training.md, "The environment"): a candidate of the policy goes
// through lib/Reward's pipeline (cudaperf-analyze and an evaluator, each in its own processes) and
// comes back as a reward and a feedback text. Candidates run on a pool of `jobs` threads while the
// trainer goes on generating; identical candidates (same task, same source SHA-256) are evaluated
// once; whatever happens to a candidate (no code block, compile error, crash, timeout, hack, an
// evaluator that dies on it) becomes its reward, never the trainer's failure. No LibTorch.
#pragma once

#include "cudaperf/Reward/Pipeline.h"
#include "cudaperf/Reward/RewardConfig.h"
#include "cudaperf/Reward/Trajectory.h"
#include "cudaperf/Schema/RewardDocument.h"
#include "cudaperf/Support/Json.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace cudaperf::learn {

// The ranking model's verdict on a candidate (docs/training.md, "The ranking model in the reward"): its
// mean score difference to the task's impls/baseline.cu over the configurations (the reward's learned
// term input, as `cudaperf-rank score` prints it) and the features that weighed most.
struct RankingVerdict {
  double score = 0;
  int configurations = 0;
  std::string model;                                        // the checkpoint's kind and folder
  std::vector<std::pair<std::string, double>> topFeatures;  // feature, mean contribution over configurations
};

// A candidate the ranker scores: its task, its file and the analysis the reward pipeline made of it.
struct RankingCandidate {
  std::string taskDir, sourcePath, sourceText;
  const features::AnalysisDocument *analysis = nullptr;
};

// Scores candidates with a ranking model (lib/Learn/RankingScorer.h implements it with LibTorch; the
// environment stays torch-free). nullopt for a candidate it cannot rank (e.g. the task's baseline has
// no analysis). Thread-safe.
class CandidateRanker {
public:
  virtual ~CandidateRanker() = default;
  virtual std::vector<std::optional<RankingVerdict>> rank(const std::vector<RankingCandidate> &batch) = 0;
  // The task baseline's analysis it compares with (cached; nullopt when it has none).
  virtual std::optional<features::AnalysisDocument> baselineAnalysis(const std::string &taskDir) = 0;
  // Work for a task's later rank() calls that a reward worker can do ahead (the baseline's analysis), so
  // that it is not done on the trainer's thread while it waits. Must not throw.
  virtual void prepare(const std::string &taskDir) { (void)taskDir; }
  virtual std::string describe() const = 0;
};

struct EnvironmentOptions {
  std::string rewardConfigPath;        // empty: the built-in reward config
  std::string rewardMode = "unified";  // "unified" or "outcome" (correctness + speed terms only)
  double gamma = 0.4;                  // replaces the reward config's trajectory.gamma
  bool staticOnly = false;             // cudaperf-eval --compile-only: no GPU
  std::string evaluator = "process";   // "process", "serve" or "queue"
  std::string queueUrl;                // evaluator "queue": redis://HOST:PORT/QUEUE
  std::string evalPath, analyzerPath;  // empty: beside this program, then PATH
  std::vector<std::string> evalArgs;
  int jobs = 4;
  double evalTimeout = 300;
  std::string workDir;                 // candidates' files; empty: a temporary folder
  // The ranking model's score becomes the reward's learned term (null: no learned term). It needs the
  // candidate's analysis (analyzer_path not none).
  std::shared_ptr<CandidateRanker> ranker;
};

// What one candidate earned.
struct CandidateOutcome {
  std::string taskDir, sha256;
  bool extracted = false;           // the completion had a code block
  std::string outcome;              // the evaluator's ("ok", "compile_error", ...), or "no_code_block"
  std::string gate;                 // "" when it passed every gate
  std::optional<double> reward;     // own reward in the environment's mode; null: excluded (internal_error)
  std::optional<double> total;      // the unified reward's total
  bool correct = false;             // passed every gate (static-only: compiled)
  std::optional<double> speedup;    // measured speedup over the task's reference (null unless measured)
  std::optional<RankingVerdict> ranking; // the ranking model's score (the learned term's input)
  std::string feedback;             // for the next turn's prompt
  bool cached = false;              // an identical earlier candidate's result
  std::string evaluatorError;       // the evaluator failed on it (twice): its runtime_fault reward then
  double seconds = 0;               // analysis + evaluation time (0 when cached)
  // Where the evaluator's time went (its result's stage_seconds: queued, build, wait_for_device, task_data,
  // worker, ...; the worker's own split prefixed "worker.": context, inputs_and_reference, baseline,
  // candidate); null when the result has none (no code block, a synthetic result).
  support::Json evaluatorStages;
  reward::TurnInput turn;           // what the trajectory rules see
  std::optional<schema::RewardDocument> document; // the reward document (cudaperf-reward/1) with its feedback
};

// The evaluator's stage seconds of one result (CandidateOutcome::evaluatorStages), and their means over the
// candidate lines (cudaperf-rl-candidate/1) that carry them and were evaluated, not reused (a stage a candidate
// did not reach, such as the worker of a compile error, counts 0 for it): {"candidates": n,
// stage: mean seconds...}, the step line's "evaluator_stages".
support::Json evaluatorStagesOf(const support::Json &evalResult);
support::Json meanEvaluatorStages(const std::vector<support::Json> &candidateLines);

class RlEnvironment {
public:
  // `evaluator`: replaces the one the options name (tests).
  explicit RlEnvironment(const EnvironmentOptions &options, std::unique_ptr<reward::Evaluator> evaluator = nullptr);
  ~RlEnvironment();
  RlEnvironment(const RlEnvironment &) = delete;
  RlEnvironment &operator=(const RlEnvironment &) = delete;

  // Queues a candidate (nullopt: the completion had no code block); the future is ready when its
  // reward is. Never throws for the candidate's own sake. Identical candidates (same task, same
  // source SHA-256, same environment options) share one evaluation, analysis and ranking verdict.
  // With a ranker, a candidate's get() first waits for its analysis and evaluation, then ranks every
  // candidate whose analysis is ready and not yet ranked in one scorer call (ranking is batched
  // over what the workers have finished, not done per candidate); waitIdle() first makes that batch
  // the whole of what was submitted.
  std::shared_future<CandidateOutcome> submit(const std::string &taskDir, const std::optional<std::string> &source);
  // Blocks until no candidate is queued or being analysed/evaluated (the ranking stage may remain).
  void waitIdle();
  // How many candidates have been submitted so far: a mark for waitStaged.
  size_t submissions() const;
  // Blocks until every candidate among the first `mark` submitted is analysed/evaluated (the ranking
  // stage may remain); later ones may still be queued (overlap_steps: the next step's first turn is
  // submitted while this step's last turn is awaited).
  void waitStaged(size_t mark);

  // The trajectory rules (repeat, regression) and the discounted returns over one trajectory's turns, oldest first.
  std::vector<reward::TurnReward> score(const std::vector<const CandidateOutcome *> &turns) const;

  const reward::RewardConfig &rewardConfig() const { return config_; }
  std::string describe() const;
  struct Counts {
    size_t submitted = 0, evaluated = 0, cached = 0, evaluatorFailures = 0;
    size_t ranked = 0, rankingCalls = 0;  // candidates given a verdict; scorer calls (batches)
    size_t rankingErrors = 0;             // scorer calls that threw (their batch got no learned term)
    std::string lastRankingError;         // the latest such call's message
    double evaluateSeconds = 0;           // analysis + evaluation, summed over candidates (the workers run them at once)
    double rankSeconds = 0;               // wall time of the scorer calls with their reward recomputation
  };
  Counts counts() const;

private:
  // A submitted candidate: analysed and evaluated by a worker (staged), then ranked in a batch.
  struct Entry {
    std::string taskDir, source, sha;
    bool staged = false, rankTaken = false;
    size_t sequence = 0;                            // its submission's index
    std::optional<CandidateOutcome> outcome;        // final
    std::optional<reward::CandidateResult> result;  // staged, waiting for its ranking
    double seconds = 0;
  };
  CandidateOutcome evaluate(const std::string &taskDir, const std::optional<std::string> &source,
                            std::optional<reward::CandidateResult> *forRanking = nullptr);
  void stage(const std::shared_ptr<Entry> &entry, const std::optional<std::string> &source);
  CandidateOutcome await(const std::shared_ptr<Entry> &entry);
  void rankBatch(const std::vector<std::shared_ptr<Entry>> &batch);
  CandidateOutcome fromResult(reward::CandidateResult result, const std::string &taskDir, const std::string &sha,
                              bool extracted) const;
  void applyRanking(reward::CandidateResult &result, const std::string &taskDir, const RankingVerdict &verdict) const;
  void workerLoop();

  EnvironmentOptions options_;
  reward::RewardConfig config_;
  std::unique_ptr<reward::RewardPipeline> pipeline_;

  mutable std::mutex mutex_;
  std::condition_variable wake_, staged_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::map<std::string, std::shared_future<CandidateOutcome>> cache_; // options + task dir + source SHA-256
  std::vector<std::shared_ptr<Entry>> rankPending_;  // staged, not yet ranked
  size_t inStage_ = 0;                               // queued or being analysed/evaluated
  std::set<size_t> inStageSequences_;                // their submission indices
  std::string optionsDigest_;                        // part of the cache key
  Counts counts_;
};

// The service client (cudaperf-eval --serve) behind lib/Reward's Evaluator interface.
std::unique_ptr<reward::Evaluator> makeEnvironmentEvaluator(const EnvironmentOptions &options);

// The verdict as feedback for the next turn: one line.
std::string rankingFeedback(const RankingVerdict &verdict);

// The evaluator's fault by kind. `internal_error` is the evaluator's own failure, never the candidate's
// (the red-team suite holds it to that), so a step in which every candidate of one kind got it means the
// evaluator cannot reward that kind at all: e.g. pytorch-to-cuda tasks when cudaperf-torch-reference is not
// beside cudaperf-eval (2026-12-07: 62 steps of an arm trained on the C tasks alone, the PyTorch half
// unrewarded). Training on would learn from the other kinds only while the config says "c,pytorch".
struct KindOutcomes {
  int64_t candidates = 0, internalErrors = 0;
  int64_t unevaluated = 0;  // compile errors and answers without a code block: never reached the reference
  std::string firstDetail; // the first internal_error's detail, for the message
};
void countKindOutcome(std::map<std::string, KindOutcomes> &byKind, const std::string &kind, const CandidateOutcome &o);
// "" unless a kind has at least `minimum` internal_error candidates and every candidate of it that compiled
// got internal_error (compile errors never reach the evaluator's reference, so they do not show that the
// kind can be rewarded); otherwise the message naming the kind, the counts and the first detail.
std::string unrewardableKind(const std::map<std::string, KindOutcomes> &byKind, int64_t minimum = 4);

} // namespace cudaperf::learn
