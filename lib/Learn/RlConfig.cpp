#include "cudaperf/Learn/RlConfig.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <variant>

namespace cudaperf::learn {

namespace {

using support::Json;

using Field = std::variant<std::string RlConfig::*, int64_t RlConfig::*, uint64_t RlConfig::*, double RlConfig::*,
                           bool RlConfig::*, std::vector<std::string> RlConfig::*>;

struct Key {
  const char *name;
  Field field;
  double lo, hi;          // numbers: the range allowed
  const char *choices;    // strings: "a|b|c", or "" for any
  const char *meaning;
};

constexpr double kBig = 1e18;

const std::vector<Key> &keys() {
  static const std::vector<Key> table = {
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
  };
  return table;
}

Json valueOf(const RlConfig &c, const Field &f) {
  return std::visit([&](auto member) { return Json(c.*member); }, f);
}

std::string typeOf(const Field &f) {
  switch (f.index()) {
  case 0: return "string";
  case 1: return "integer";
  case 2: return "unsigned";
  case 3: return "number";
  case 4: return "boolean";
  default: return "list of strings";
  }
}

void assign(RlConfig &c, const Key &k, const Json &v, const std::string &where) {
  auto bad = [&](const std::string &why) {
    throw LearnError(where + ": " + why + ", got " + support::jsonSnippet(v));
  };
  auto range = [&](double x) {
    if (!(x >= k.lo && x <= k.hi))
      bad("expected a value in [" + support::writeJson(Json(k.lo)) + ", " + support::writeJson(Json(k.hi)) + "]");
  };
  switch (k.field.index()) {
  case 0: {
    if (!v.is_string()) bad("expected a string");
    std::string s = v.get<std::string>();
    if (*k.choices) {
      std::string choices = std::string("|") + k.choices + "|";
      if (choices.find("|" + s + "|") == std::string::npos) bad(std::string("expected one of ") + k.choices);
    }
    c.*std::get<0>(k.field) = s;
    break;
  }
  case 1:
    if (!v.is_number_integer()) bad("expected a whole number");
    range(double(v.get<int64_t>()));
    c.*std::get<1>(k.field) = v.get<int64_t>();
    break;
  case 2:
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) bad("expected a whole number >= 0");
    c.*std::get<2>(k.field) = v.get<uint64_t>();
    break;
  case 3:
    if (!v.is_number()) bad("expected a number");
    range(v.get<double>());
    c.*std::get<3>(k.field) = v.get<double>();
    break;
  case 4:
    if (!v.is_boolean()) bad("expected true or false");
    c.*std::get<4>(k.field) = v.get<bool>();
    break;
  default: {
    if (!v.is_array()) bad("expected a list of strings");
    std::vector<std::string> list;
    for (const Json &e : v) {
      if (!e.is_string()) bad("expected a list of strings");
      list.push_back(e.get<std::string>());
    }
    c.*std::get<5>(k.field) = list;
  }
  }
}

const Key *findKey(const std::string &name) {
  for (const Key &k : keys())
    if (name == k.name) return &k;
  return nullptr;
}

} // namespace

std::vector<RlConfigKeyInfo> rlConfigKeys() {
  RlConfig defaults;
  std::vector<RlConfigKeyInfo> out;
  for (const Key &k : keys()) out.push_back({k.name, typeOf(k.field), k.meaning, valueOf(defaults, k.field)});
  return out;
}

Json rlConfigToJson(const RlConfig &config) {
  Json j = Json::object();
  j["schema"] = "cudaperf-rl-config/1";
  for (const Key &k : keys()) j[k.name] = valueOf(config, k.field);
  return j;
}

void applyRlConfigJson(RlConfig &config, const Json &doc, const std::string &source) {
  if (!doc.is_object()) throw LearnError(source + ": expected a JSON object of RL settings");
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() == "schema") {
      if (!it.value().is_string() || it.value().get<std::string>() != "cudaperf-rl-config/1")
        throw LearnError(source + ": schema: expected \"cudaperf-rl-config/1\", got " + support::jsonSnippet(it.value()));
      continue;
    }
    const Key *k = findKey(it.key());
    if (!k) throw LearnError(source + ": unknown key \"" + it.key() + "\" (cudaperf-train rl --print-config lists them)");
    assign(config, *k, it.value(), source + ": " + it.key());
  }
}

RlConfig loadRlConfig(const std::string &path) {
  RlConfig config;
  Json doc;
  try {
    doc = support::readJsonFile(path);
  } catch (const std::exception &e) {
    throw LearnError(e.what());
  }
  applyRlConfigJson(config, doc, path);
  return config;
}

void applyRlConfigOverride(RlConfig &config, const std::string &assignment) {
  size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw LearnError("--set " + assignment + ": expected KEY=VALUE");
  std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  Json value;
  const Key *k = findKey(key);
  if (k && k->field.index() == 0) {
    value = text; // strings are taken as written ("--set model=1" is a folder named 1)
  } else {
    try {
      value = support::parseJson(text, "--set " + key);
    } catch (const std::exception &) {
      value = text;
    }
  }
  applyRlConfigJson(config, Json::object({{key, value}}), "--set");
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
