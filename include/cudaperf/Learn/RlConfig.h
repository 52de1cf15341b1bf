// The RL trainer's configuration (docs/training.md, "cudaperf-train rl"): one struct, read from a JSON
// config file (snake_case keys; unknown keys are errors that name the key) and `--set KEY=VALUE`
// overrides, written back whole into every run folder so a run says what it was. No LibTorch.
#pragma once

#include "cudaperf/Learn/ConfigFields.h"
#include "cudaperf/Learn/Error.h"
#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf::learn {

struct RlConfig {
  // The policy.
  std::string model = "data/models/sft"; // the SFT checkpoint (Hugging Face layout, tokenizer.json inside)
  std::string dataset = "build/dataset"; // manifest.jsonl of cudaperf-dataset generate
  std::string device = "cuda";
  std::string dtype = "bfloat16";        // fp32 masters for bf16 trainable weights
  int64_t loraRank = 16;                 // 0: full fine-tuning
  double loraAlpha = 0;                  // 0: 2 x rank
  double loraDropout = 0;
  std::string loraTargets = "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj";
  bool gradientCheckpointing = false;
  // The run.
  int64_t steps = 100;
  double maxSeconds = 0;                 // 0: no time limit; else the run stops (and saves) when it is spent
  uint64_t seed = 0;
  int64_t saveEvery = 5;                 // trainer state every N steps (and at the end)
  // GRPO, multi-turn.
  int64_t tasksPerStep = 4;              // prompts (tasks) per step
  int64_t groupSize = 4;                 // G: trajectories per task
  int64_t turns = 4;                     // T: refinement turns per trajectory
  double gamma = 0.4;                    // discount of later turns' rewards in a turn's return
  std::string advantageScale = "std";    // "std": (R - mean) / (std + 1e-6) per group and turn; "none": R - mean
  double clipLow = 0.2, clipHigh = 0.2;  // ratio clipped to [1 - low, 1 + high]
  double klCoef = 0;                     // beta of the k3 KL estimate to the reference (LoRA off / the initial model)
  std::string lossNormalization = "token"; // "token", "sequence" or "group"
  int64_t miniBatches = 1;               // optimizer steps per rollout batch (each over 1/M of the samples)
  int64_t ppoEpochs = 1;                 // passes over the rollout batch
  int64_t microBatchTokens = 16384;      // padded tokens per forward/backward
  double learningRate = 1e-4;
  int64_t warmupSteps = 0;
  double weightDecay = 0;
  double gradClip = 1.0;
  // Sampling.
  double temperature = 1.0;
  double topP = 1.0;
  std::string decode = "dynamic"; // GenerationOptions: dynamic, static (staticCache), graph (cudaGraph)
  int64_t maxNewTokens = 1024;
  int64_t contextTokens = 4096;          // prompt budget: oldest turns' code dropped first (fitPolicyPrompt)
  int64_t generationBatch = 64;          // rows generated together
  bool submitAsFinished = true;          // a row's candidate goes to the reward workers when the row stops
  int64_t overlapSteps = 0;              // 1: the next step's first turn generated while this step's last turn is evaluated
  // The environment (lib/Reward).
  std::string rewardConfig;              // empty: the built-in reward config
  std::string rewardMode = "unified";    // "unified" (every term) or "outcome" (correctness + speed only)
  bool staticOnly = false;               // compile + analysis, no GPU
  std::string evaluator = "process";     // "process" (cudaperf-eval per candidate), "serve" (cudaperf-eval --serve)
                                         // or "queue" (the Redis work queue at queueUrl)
  std::string queueUrl;                  // evaluator "queue": redis://HOST:PORT/QUEUE (cudaperf-eval --worker URL)
  std::string evalPath;                  // default: beside cudaperf-train, then PATH
  std::string analyzerPath;              // default: beside cudaperf-train, then PATH; "none": no analysis
  std::string rankingCheckpoint = "default"; // the ranking model of the learned term; "default": the shipped one; "none": off
  std::vector<std::string> evalArgs;     // passed to cudaperf-eval (e.g. "--sets", "2")
  int64_t rewardJobs = 4;                // candidates analyzed/evaluated at once
  double evalTimeout = 300;              // seconds per candidate evaluation
  // Data and evaluation.
  std::string trainSplit = "train";
  std::string kinds = "c,pytorch";       // task kinds: c, pytorch (a step takes them in turn: RlTaskDraw.h)
  std::string taskSelection = "all";     // "all" or "uncertain": only tasks whose SFT-policy samples differ (RlTaskDraw.h)
  int64_t selectionSamples = 4;          // samples per task measured before RL (uncertain)
  int64_t selectionTasks = 0;            // training tasks measured (a seeded, kind-balanced draw); 0: all
  std::string evalSplit = "test";
  int64_t evalTasks = 16;                // held-out tasks of the training families
  int64_t evalHeldOutFamilyTasks = 8;    // tasks of families never trained on
  int64_t evalEvery = 0;                 // validation every N steps (0: before and after only)
  double evalTemperature = 0;            // 0: greedy
  int64_t evalSamples = 1;               // trajectories per task in evaluations (each its own sampling stream)
};

// Every key with its meaning and default, in the order of the struct (docs/training.md's table).
using RlConfigKeyInfo = ConfigKeyInfo;
std::vector<RlConfigKeyInfo> rlConfigKeys();

support::Json rlConfigToJson(const RlConfig &config);
// Applies the keys of `doc` (an object) over `config`; throws LearnError naming `source`, the key and
// the value (unknown key, wrong type, out of range, unknown choice).
void applyRlConfigJson(RlConfig &config, const support::Json &doc, const std::string &source);
RlConfig loadRlConfig(const std::string &path); // defaults, then the file
// KEY=VALUE: VALUE read as JSON when it parses, else as a string.
void applyRlConfigOverride(RlConfig &config, const std::string &assignment);
void validateRlConfig(const RlConfig &config); // the cross-key rules

// A resumed run must be the run it continues: the keys that define what is learned (the algorithm, the
// reward, the sampling, the tasks, the decoding) must equal the state's. Returns one line per differing key,
// "KEY: was X, now Y", in the table's order; empty when they agree. Keys that only say where things are or how
// one call runs (paths, max_seconds, steps under the constant schedule, save_every, reward workers and
// timeouts, the evaluations) may change (rlConfigRunLocalKeys). A key the state does not name (an older
// version's state) is not compared.
std::vector<std::string> rlConfigResumeChanges(const support::Json &stateConfig, const RlConfig &now);
const std::vector<std::string> &rlConfigRunLocalKeys();

} // namespace cudaperf::learn
