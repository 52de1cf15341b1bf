// Multi-turn GRPO for the policy (docs/training.md, "cudaperf-train rl"), in two halves kept apart so
// data parallelism can split the second (issue 21):
//   rollout  runEpisodes: per task G trajectories of T refinement turns; turn t's prompt is the task,
//            the earlier candidates and their feedback (the policy's prompt format, fitted to a token
//            budget); every candidate goes to the environment (lib/Reward) while the next batch generates.
//   update   rlUpdate: PPO-clipped importance ratio on each completion token, weighted by its turn's
//            group-normalized advantage, optional k3 KL to the reference policy, the token weights of
//            the configured loss normalization (RlAdvantages.h), micro-batched by tokens.
#pragma once

#include "cudaperf/Learn/DataParallel.h"
#include "cudaperf/Learn/Generation.h"
#include "cudaperf/Learn/Prompt.h"
#include "cudaperf/Learn/RlAdvantages.h"
#include "cudaperf/Learn/RlConfig.h"
#include "cudaperf/Learn/RlEnvironment.h"
#include "cudaperf/Learn/Tokenizer.h"
#include "cudaperf/Learn/Training.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::learn {

// ---- update ----

// One completion to learn from.
struct RlSample {
  size_t group = 0;                  // the task group (loss normalization "group")
  std::vector<int32_t> prompt, completion;
  double advantage = 0;
  std::vector<float> oldLogProbs;    // the behaviour policy's; empty: taken as the current ones, detached
  std::vector<float> refLogProbs;    // the reference policy's, when the KL term is on
};

struct RlLossOptions {
  double clipLow = 0.2, clipHigh = 0.2;
  double klCoef = 0;
  std::string normalization = "token";
  int64_t microBatchTokens = 16384;  // padded tokens per forward
  LogProbOptions logProbs;           // temperature (the sampling one), gradient checkpointing
  int64_t padId = 0;
};

struct RlLossTerms {
  torch::Tensor loss;                // differentiable: sum_i w_i sum_t l_{i,t}
  double policyLoss = 0, kl = 0;     // weighted sums, as in the loss
  int64_t tokens = 0, clippedTokens = 0;
  double ratioMax = 1, ratioMin = 1;
};

// The loss of one micro-batch of samples with their per-token weights w_i:
//   l_{i,t} = -min(rho A_i, clip(rho, 1 - low, 1 + high) A_i) + beta (exp(d) - d - 1),
//   rho = exp(log p - log p_old), d = log p_ref - log p.
RlLossTerms rlMicroBatchLoss(CausalLmImpl &policy, const std::vector<const RlSample *> &rows,
                             const std::vector<double> &tokenWeights, const RlLossOptions &options);

// log p of every completion token under `model` (no gradient), into each sample's oldLogProbs, or
// refLogProbs when `reference` (with LoRA attached, the policy with its adapters turned off).
void fillLogProbs(CausalLmImpl &model, std::vector<RlSample> &samples, bool reference, const RlLossOptions &options);

struct RlUpdateStats {
  int64_t optimizerSteps = 0, tokens = 0, clippedTokens = 0, skippedSteps = 0;
  double loss = 0, policyLoss = 0, kl = 0, gradNorm = 0, learningRate = 0; // means over the optimizer steps
  double ratioMax = 1, ratioMin = 1;
};

// epochs x miniBatches optimizer steps over the samples (mini-batches cut from a shuffle seeded by
// `shuffleSeed`); behaviour log-probs are computed first when more than one step is taken, the
// reference's when klCoef > 0 (`reference` null: the policy with LoRA off).
// Data parallel (`dp` with W > 1): every rank passes the same samples (all of the step's, gathered);
// the log-probs are computed a share per rank, each mini-batch's weights from the whole mini-batch,
// its rows dealt to the ranks (row k to rank k mod W), and `trainer`'s gradient reducer (set by the
// caller: DataParallel::reduceGradients) sums the gradients, so the update is the one-process update
// up to summation order; the statistics returned are the whole mini-batches'.
RlUpdateStats rlUpdate(CausalLmImpl &policy, Trainer &trainer, std::vector<RlSample> &samples,
                       const RlLossOptions &options, int64_t miniBatches, int64_t epochs, uint64_t shuffleSeed,
                       CausalLmImpl *reference = nullptr, DataParallel *dp = nullptr);

// ---- rollout ----

struct RolloutTask {
  std::string name, family;
  PolicyTask task;
  std::string kind; // "c" or "pytorch" (the manifest's)
};

struct RolloutOptions {
  int64_t groupSize = 4, turns = 4;
  GenerationOptions generation;      // sampling, max new tokens, stop ids, pad id (seeds are set per row)
  int64_t contextTokens = 4096;      // prompt budget (fitPolicyPrompt)
  int64_t generationBatch = 64;
  uint64_t seed = 0;                 // row (task i, trajectory g, turn t) draws with mix(seed, i, g, t)
  size_t firstGroup = 0;             // the step's index of tasks[0] (data parallel: a rank's share of the step's tasks)
};

// The generation batches of a rollout turn: [begin, end) row ranges of at most `batch` rows, cut at
// group boundaries when a batch holds several groups (so a group's candidates are submitted together
// as soon as its batch is generated). rows = tasks x G, a group's G rows adjacent.
std::vector<std::pair<size_t, size_t>> generationBatches(size_t tasks, size_t groupSize, size_t batch);

struct TurnRecord {
  size_t group = 0, trajectory = 0, turn = 0;
  std::vector<int32_t> prompt, completion;
  std::string finishReason;
  std::optional<std::string> source;
  size_t turnsShown = 0, codeOmitted = 0; // earlier turns in the prompt, and those whose code the budget dropped
  CandidateOutcome outcome;
  reward::TurnReward scored;               // after the trajectory rules: reward and discounted return
  std::optional<double> advantage;
};

// What a rollout cost, per phase (docs/training.md, "RL step throughput"). Seconds are the trainer
// thread's wall time except evaluateSeconds (summed over candidates: the workers run them at once,
// overlapped with generation) and rankSeconds (the scorer calls, made from the trainer thread).
struct RolloutStats {
  double promptSeconds = 0;      // prompts built and tokenized
  double generationSeconds = 0;  // generate()
  double extractSeconds = 0;     // completions decoded, code blocks extracted, candidates submitted
  double rewardWaitSeconds = 0;  // blocked on rewards (includes rankSeconds)
  double evaluateSeconds = 0;    // analysis + evaluation, summed over the candidates evaluated
  double rankSeconds = 0;        // batched ranking-model calls with their reward recomputation
  double scoreSeconds = 0;       // trajectory rules and returns
  int64_t generatedTokens = 0, promptTokens = 0;
  int64_t candidates = 0;        // turn records
  int64_t uniqueCandidates = 0;  // distinct (task, extracted code) among them
  int64_t reused = 0;            // outcomes reused from an identical candidate (this step's or an earlier one)
  int64_t evaluated = 0;         // candidates analysed/evaluated for this rollout
  int64_t ranked = 0, rankingCalls = 0;
};

// Runs the episodes and scores every trajectory (env.score); records ordered by (group, trajectory, turn),
// group = firstGroup + the task's index (which also picks the rows' sampling streams).
std::vector<TurnRecord> runEpisodes(CausalLmImpl &policy, const Tokenizer &tokenizer,
                                    const std::vector<RolloutTask> &tasks, RlEnvironment &environment,
                                    const RolloutOptions &options, RolloutStats *stats = nullptr,
                                    const std::function<void(const std::string &)> &progress = nullptr);

// A record from its candidates.jsonl line (candidateLine in RlCommand.cpp): group, trajectory, turn,
// the outcome, reward and return, without prompt and completion tokens. Statistics and evaluation
// summaries are computed from these, so they are the same whether one rank or several made them.
TurnRecord recordFromCandidateLine(const support::Json &line);

// Group-normalized advantages into the records; the samples to learn from (records with a return
// and a non-empty completion).
std::vector<RlSample> samplesFromRecords(std::vector<TurnRecord> &records, const std::string &advantageScale);

// Data parallel: every rank's samples (each made from its share of the step's task groups), in rank
// order, on every rank: the step's samples in the order one process would have made them.
std::vector<RlSample> gatherSamples(DataParallel &dp, const std::vector<RlSample> &mine);

uint64_t mixSeed(uint64_t a, uint64_t b);

// ---- evaluation ----

// Turn 1 and best-of-T on one set of tasks (G = 1 per task): correctness, fast_1, mean speedup per turn.
support::Json evaluationSummary(const std::vector<TurnRecord> &records, size_t tasks, int64_t turns);

// ---- the commands (cudaperf-train rl, cudaperf-train eval-policy) ----
int runRlCommand(const std::vector<std::string> &argv);
int runEvalPolicyCommand(const std::vector<std::string> &argv);

} // namespace cudaperf::learn
