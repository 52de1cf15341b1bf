#include "cudaperf/Learn/RlConfig.h"

#include "cudaperf/Learn/ConfigFields.h"

#include <algorithm>

namespace cudaperf::learn {

namespace {

using support::Json;

constexpr double kBig = 1e18;

const ConfigFields<RlConfig> &fields() {
  static const ConfigFields<RlConfig> table("cudaperf-rl-config/1", "RL settings", "cudaperf-train rl --print-config", {
      {"model", &RlConfig::model, 0, 0, "", "the SFT checkpoint folder (Hugging Face layout with tokenizer.json)"},
      {"dataset", &RlConfig::dataset, 0, 0, "", "the generated dataset (manifest.jsonl)"},
      {"device", &RlConfig::device, 0, 0, "", "cuda, cuda:N or cpu"},
      {"dtype", &RlConfig::dtype, 0, 0, "bfloat16|float32", "model dtype; bf16 trains through fp32 master weights"},
      {"lora_rank", &RlConfig::loraRank, 0, 4096, "", "LoRA rank on lora_targets; 0: full fine-tuning"},
      {"lora_alpha", &RlConfig::loraAlpha, 0, 1e6, "", "LoRA alpha (scaling alpha / rank); 0: 2 x rank"},
      {"lora_dropout", &RlConfig::loraDropout, 0, 0.9, "", "dropout on the adapters' input"},
      {"lora_targets", &RlConfig::loraTargets, 0, 0, "", "projections that get adapters, comma-separated"},
      {"gradient_checkpointing", &RlConfig::gradientCheckpointing, 0, 0, "", "recompute each layer in backward"},
      {"steps", &RlConfig::steps, 1, 1e9, "", "RL steps (one rollout batch each); the schedule's length"},
      {"max_seconds", &RlConfig::maxSeconds, 0, kBig, "", "stop (and save) once the training steps have taken this many seconds (evaluations not counted); 0: off"},
      {"seed", &RlConfig::seed, 0, 0, "", "tasks of a step, sampling streams, LoRA init: all derive from (seed, step)"},
      {"save_every", &RlConfig::saveEvery, 1, 1e9, "", "trainer state (exact resume) every N steps and at the end"},
      {"tasks_per_step", &RlConfig::tasksPerStep, 1, 1e6, "", "tasks (prompts) per step, drawn from train_split"},
      {"group_size", &RlConfig::groupSize, 2, 1e6, "", "G: trajectories per task; advantages are relative within it"},
      {"turns", &RlConfig::turns, 1, 64, "", "T: refinement turns per trajectory (1: single-turn)"},
      {"gamma", &RlConfig::gamma, 0, 1, "", "discount: a turn's return is r_t + gamma r_t+1 + gamma^2 r_t+2 + ..."},
      {"advantage_scale", &RlConfig::advantageScale, 0, 0, "std|none",
       "std: (R - mean) / (std + 1e-6) over a group's trajectories at one turn index; none: R - mean (Dr. GRPO)"},
      {"clip_low", &RlConfig::clipLow, 0, 1, "", "importance ratio clipped below at 1 - clip_low (PPO)"},
      {"clip_high", &RlConfig::clipHigh, 0, 10, "", "importance ratio clipped above at 1 + clip_high"},
      {"kl_coef", &RlConfig::klCoef, 0, 100, "", "beta of the k3 KL estimate to the reference policy (LoRA off, or the initial weights); 0: off"},
      {"loss_normalization", &RlConfig::lossNormalization, 0, 0, "token|sequence|group",
       "token: sum over every completion token of the mini-batch / their count; sequence: mean per completion, then "
       "mean over completions; group: mean over a task group's tokens, then mean over groups"},
      {"mini_batches", &RlConfig::miniBatches, 1, 1e6, "", "optimizer steps per rollout batch (each on 1/M of the samples)"},
      {"ppo_epochs", &RlConfig::ppoEpochs, 1, 100, "", "passes over the rollout batch; > 1 or mini_batches > 1 makes the clip active"},
      {"micro_batch_tokens", &RlConfig::microBatchTokens, 64, kBig, "", "padded tokens per forward/backward (gradient accumulation)"},
      {"learning_rate", &RlConfig::learningRate, 0, 10, "", "peak learning rate (AdamW)"},
      {"warmup_steps", &RlConfig::warmupSteps, 0, 1e9, "", "linear warm-up (optimizer steps), then constant"},
      {"weight_decay", &RlConfig::weightDecay, 0, 10, "", "AdamW decoupled weight decay"},
      {"grad_clip", &RlConfig::gradClip, 0, 1e9, "", "max global gradient norm; 0: off"},
      {"temperature", &RlConfig::temperature, 1e-3, 100, "", "sampling temperature of rollouts (and of the log-probs in the loss)"},
      {"top_p", &RlConfig::topP, 1e-6, 1, "", "nucleus mass of rollouts; 1: off"},
      {"max_new_tokens", &RlConfig::maxNewTokens, 1, 1e6, "", "tokens per answer at most"},
      {"context_tokens", &RlConfig::contextTokens, 16, 1e7, "", "prompt budget: the oldest turns' code is dropped first, then whole oldest turns"},
      {"generation_batch", &RlConfig::generationBatch, 1, 1e6, "", "rows generated together; a batch's candidates are evaluated while the next batch generates"},
      {"submit_as_finished", &RlConfig::submitAsFinished, 0, 0, "",
       "true: a row's candidate is extracted and submitted for reward the moment the row stops, so its analysis and "
       "evaluation overlap the batch's longer rows; false: after the whole batch is generated"},
      {"decode", &RlConfig::decode, 0, 0, "dynamic|static|graph",
       "how rollouts decode: dynamic (the KV cache grows, finished rows leave the batch), static (fixed buffers), graph "
       "(the static step captured as a CUDA graph and replayed: one launch a token instead of ~250; CUDA only)"},
      {"overlap_steps", &RlConfig::overlapSteps, 0, 1, "",
       "1: while a step's last turn is evaluated, the next step's first turn is generated with the not yet updated "
       "weights (one step off-policy; the loss's ratio is against those weights' log-probs); 0: strictly on-policy"},
      {"reward_config", &RlConfig::rewardConfig, 0, 0, "", "reward config file (docs/reward.md); empty: built-in"},
      {"reward_mode", &RlConfig::rewardMode, 0, 0, "unified|outcome",
       "unified: the reward's total; outcome: only its outcome and speed terms (the ablation)"},
      {"static_only", &RlConfig::staticOnly, 0, 0, "", "compile + static analysis only (no GPU): predicted speedup instead of measured"},
      {"evaluator", &RlConfig::evaluator, 0, 0, "process|serve|queue",
       "process: cudaperf-eval per candidate; serve: one persistent cudaperf-eval --serve; queue: the Redis work queue "
       "queue_url (workers: cudaperf-eval --worker URL on the GPU hosts; docs/eval-serve.md)"},
      {"queue_url", &RlConfig::queueUrl, 0, 0, "",
       "evaluator queue: redis://HOST:PORT/QUEUE; each candidate travels with its task's files (--queue URL sets both)"},
      {"eval_path", &RlConfig::evalPath, 0, 0, "", "cudaperf-eval; empty: beside cudaperf-train, then PATH"},
      {"analyzer_path", &RlConfig::analyzerPath, 0, 0, "", "cudaperf-analyze; empty: beside cudaperf-train, then PATH; none: no static terms"},
      {"ranking_checkpoint", &RlConfig::rankingCheckpoint, 0, 0, "",
       "ranking model whose score is the reward's learned term (in-process, on the policy's device); default: the shipped "
       "data/ranking/checkpoints/mlp-static; none: no learned term. Needs the analysis (analyzer_path not none)"},
      {"eval_args", &RlConfig::evalArgs, 0, 0, "", "extra cudaperf-eval options, e.g. [\"--sets\", \"2\"]"},
      {"reward_jobs", &RlConfig::rewardJobs, 1, 1024, "", "candidates analyzed and evaluated at once"},
      {"eval_timeout", &RlConfig::evalTimeout, 1, 1e6, "", "seconds one candidate's evaluation may take (then a timeout reward)"},
      {"train_split", &RlConfig::trainSplit, 0, 0, "", "split the training tasks come from"},
      {"kinds", &RlConfig::kinds, 0, 0, "", "task kinds, comma-separated: c, pytorch"},
      {"task_selection", &RlConfig::taskSelection, 0, 0, "all|uncertain",
       "all: steps draw from every training task; uncertain: before RL, selection_samples turn-1 samples per task from "
       "the starting policy are rewarded and steps draw only from tasks whose samples differ (some correct and some not, "
       "or different rewards), listed in OUT/task-selection.json"},
      {"selection_samples", &RlConfig::selectionSamples, 2, 1024, "", "samples per task measured for task_selection uncertain"},
      {"selection_tasks", &RlConfig::selectionTasks, 0, 1e9, "", "training tasks measured for task_selection uncertain (a seeded draw, kinds in turn); 0: all"},
      {"eval_split", &RlConfig::evalSplit, 0, 0, "", "split of the held-out evaluation"},
      {"eval_tasks", &RlConfig::evalTasks, 0, 1e6, "", "held-out tasks of the training families per evaluation"},
      {"eval_held_out_family_tasks", &RlConfig::evalHeldOutFamilyTasks, 0, 1e6, "", "tasks of families never trained on per evaluation"},
      {"eval_every", &RlConfig::evalEvery, 0, 1e9, "", "validation every N steps; 0: before and after the run only"},
      {"eval_temperature", &RlConfig::evalTemperature, 0, 100, "", "sampling temperature of evaluations; 0: greedy"},
      {"eval_samples", &RlConfig::evalSamples, 1, 64, "",
       "trajectories (samples) per task in evaluations, each with its own sampling stream; rates are per sample "
       "(issue 34: 4 at eval_temperature 0.8). Greedy decoding gives the same answer G times"},
  });
  return table;
}

} // namespace

std::vector<RlConfigKeyInfo> rlConfigKeys() { return fields().keys(); }

Json rlConfigToJson(const RlConfig &config) { return fields().toJson(config); }

void applyRlConfigJson(RlConfig &config, const Json &doc, const std::string &source) {
  fields().apply(config, doc, source);
}

RlConfig loadRlConfig(const std::string &path) { return fields().load(path); }

void applyRlConfigOverride(RlConfig &config, const std::string &assignment) {
  fields().applyOverride(config, assignment);
}

const std::vector<std::string> &rlConfigRunLocalKeys() {
  // steps: the schedule is constant after warm-up (RlCommand), so a longer run is the same run continued.
  // generation_batch and submit_as_finished change when candidates are generated and submitted, not which.
  static const std::vector<std::string> keys = {
      "model", "dataset", "device", "steps", "max_seconds", "save_every", "generation_batch", "submit_as_finished",
      "reward_config", "evaluator", "queue_url", "eval_path", "analyzer_path", "reward_jobs", "eval_timeout",
      "eval_split", "eval_tasks", "eval_held_out_family_tasks", "eval_every", "eval_temperature", "eval_samples"};
  return keys;
}

std::vector<std::string> rlConfigResumeChanges(const Json &stateConfig, const RlConfig &now) {
  std::vector<std::string> changes;
  if (!stateConfig.is_object()) return changes;
  const auto &local = rlConfigRunLocalKeys();
  Json current = rlConfigToJson(now);
  for (const auto &key : rlConfigKeys()) {
    if (std::find(local.begin(), local.end(), key.key) != local.end()) continue;
    auto was = stateConfig.find(key.key);
    if (was == stateConfig.end()) continue;
    const Json &is = current[key.key];
    if (*was != is) changes.push_back(key.key + ": was " + was->dump() + ", now " + is.dump());
  }
  return changes;
}

void validateRlConfig(const RlConfig &c) {
  if (c.model.empty()) throw LearnError("model: an SFT checkpoint folder is required");
  if (c.dataset.empty()) throw LearnError("dataset: a dataset folder is required");
  if (c.clipLow >= 1) throw LearnError("clip_low: must be below 1 (the ratio's lower bound is 1 - clip_low)");
  if (c.kinds.empty()) throw LearnError("kinds: at least one task kind");
  if (c.evaluator == "queue" && c.queueUrl.rfind("redis://", 0) != 0)
    throw LearnError("queue_url: evaluator queue needs a redis://HOST:PORT/QUEUE URL (--queue URL)");
  if (c.evaluator != "queue" && !c.queueUrl.empty())
    throw LearnError("queue_url: given, but the evaluator is " + c.evaluator + " (set evaluator to queue, or use --queue URL)");
}

} // namespace cudaperf::learn
