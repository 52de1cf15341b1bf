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
#include "cudaperf/Support/Json.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace cudaperf::learn {

struct EnvironmentOptions {
  std::string rewardConfigPath;        // empty: the built-in reward config
  std::string rewardMode = "unified";  // "unified" or "outcome" (correctness + speed terms only)
  double gamma = 0.4;                  // replaces the reward config's trajectory.gamma
  bool staticOnly = false;             // cudaperf-eval --compile-only: no GPU
  std::string evaluator = "process";   // "process" or "serve"
  std::string evalPath, analyzerPath;  // empty: beside this program, then PATH
  std::vector<std::string> evalArgs;
  int jobs = 4;
  double evalTimeout = 300;
  std::string workDir;                 // candidates' files; empty: a temporary folder
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
  std::string feedback;             // for the next turn's prompt
  bool cached = false;              // an identical earlier candidate's result
  std::string evaluatorError;       // the evaluator failed on it (twice): its runtime_fault reward then
  double seconds = 0;               // analysis + evaluation time (0 when cached)
  reward::TurnInput turn;           // what the trajectory rules see
  support::Json document;           // the reward document (cudaperf-reward/1) with its feedback
};

class RlEnvironment {
public:
  // `evaluator`: replaces the one the options name (tests).
  explicit RlEnvironment(const EnvironmentOptions &options, std::unique_ptr<reward::Evaluator> evaluator = nullptr);
  ~RlEnvironment();
  RlEnvironment(const RlEnvironment &) = delete;
  RlEnvironment &operator=(const RlEnvironment &) = delete;

  // Queues a candidate (nullopt: the completion had no code block); the future is ready when its
  // reward is. Never throws for the candidate's own sake.
  std::shared_future<CandidateOutcome> submit(const std::string &taskDir, const std::optional<std::string> &source);

  // The trajectory rules (repeat, regression) and the discounted returns over one trajectory's turns, oldest first.
  std::vector<reward::TurnReward> score(const std::vector<const CandidateOutcome *> &turns) const;

  const reward::RewardConfig &rewardConfig() const { return config_; }
  std::string describe() const;
  struct Counts {
    size_t submitted = 0, evaluated = 0, cached = 0, evaluatorFailures = 0;
  };
  Counts counts() const;

private:
  CandidateOutcome evaluate(const std::string &taskDir, const std::optional<std::string> &source);
  CandidateOutcome fromResult(reward::CandidateResult result, const std::string &taskDir, const std::string &sha,
                              bool extracted) const;
  void workerLoop();

  EnvironmentOptions options_;
  reward::RewardConfig config_;
  std::unique_ptr<reward::RewardPipeline> pipeline_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::map<std::string, std::shared_future<CandidateOutcome>> cache_; // task dir + source SHA-256
  Counts counts_;
};

// The service client (cudaperf-eval --serve) behind lib/Reward's Evaluator interface.
std::unique_ptr<reward::Evaluator> makeEnvironmentEvaluator(const EnvironmentOptions &options);

} // namespace cudaperf::learn
