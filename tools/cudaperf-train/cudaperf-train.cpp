// cudaperf-train: training the policy (docs/training.md).
//   sft     supervised fine-tuning on the dataset's train split (`make sft`): a BPE tokenizer and a
//           small model trained here, or a Hugging Face checkpoint fine-tuned (full or LoRA); lib/Learn's
//           Sft.h (runSftCommand), as `rl` is Rl.h's runRlCommand
//   sample  candidates for held-out tasks, written for `cudaperf-eval --batch`
//   fit     one training step of a random model of a given shape, for memory-fit measurements
//   compact-state  a trainer state without fp32 masters and with bf16 moments (TrainerState.h)
#include "cudaperf/Learn/ToolMain.h"
#include "cudaperf/Learn/DataParallel.h"
#include "cudaperf/Learn/Generation.h"
#include "cudaperf/Learn/Manifest.h"
#include "cudaperf/Learn/Progress.h"
#ifdef CUDAPERF_HAVE_RL
#include "cudaperf/Learn/Rl.h"
#endif
#include "cudaperf/Learn/Prompt.h"
#include "cudaperf/Learn/Sft.h"
#include "cudaperf/Learn/SvgPlot.h"
#include "cudaperf/Learn/Tokenizer.h"
#include "cudaperf/Learn/TrainerState.h"
#include "cudaperf/Learn/Training.h"
#include "cudaperf/Learn/Transformer.h"
#include "cudaperf/Reward/CodeExtraction.h"
#include "cudaperf/Support/ArgParser.h"

#include "cudaperf/Support/Json.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace cudaperf;
using namespace cudaperf::learn;
namespace fs = std::filesystem;
using json = support::Json;
using ordered_json = support::Json;
using Clock = std::chrono::steady_clock;

namespace {

const char *kProgram = "cudaperf-train";

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }


// ---------------------------------------------------------------------------------------------
// sample: candidates for held-out tasks of the training families, for cudaperf-eval --batch.

int runSample(const std::vector<std::string> &argv) {
  std::string model, dataset, out, split = "test", device = "cuda", dtype = "bfloat16", kindList = "c,pytorch";
  int64_t tasksWanted = 64, perTask = 4, maxNew = 1536, batchRows = 64;
  double temperature = 0.8, topP = 1.0;
  uint64_t seed = 0;
  bool allFamilies = false;
  support::ArgParser p(std::string(kProgram) + " sample", {"--model DIR --dataset DIR --out DIR [options]"},
                       "Samples candidates for held-out tasks (split test, families seen in training unless "
                       "--all-families) and writes OUT/candidates/<task>/sample_<k>.cu, OUT/batch.txt (for "
                       "cudaperf-eval --batch) and OUT/samples.jsonl.");
  p.option("--model", "DIR", "the policy checkpoint", model);
  p.option("--dataset", "DIR", "the dataset (manifest.jsonl)", dataset);
  p.option("--out", "DIR", "output folder", out);
  p.option("--split", "NAME", "split to sample from (default test)", split);
  p.flag("--all-families", "also tasks of families never seen in training", allFamilies);
  p.option("--kinds", "LIST", "task kinds: c, pytorch (default both)", kindList);
  p.option("--tasks", "N", "tasks, spread over the families (default 64)",
           [&](const std::string &v) { tasksWanted = support::parseInteger(v, 1, 1 << 20); });
  p.option("--per-task", "K", "samples per task (default 4)", [&](const std::string &v) { perTask = support::parseInteger(v, 1, 4096); });
  p.option("--temperature", "T", "sampling temperature (default 0.8)",
           [&](const std::string &v) { temperature = support::parseNumber(v, 1e-6, 100); });
  p.option("--top-p", "P", "nucleus mass (default 1: off)", [&](const std::string &v) { topP = support::parseNumber(v, 1e-6, 1); });
  p.option("--max-new-tokens", "N", "tokens per candidate at most (default 1536)",
           [&](const std::string &v) { maxNew = support::parseInteger(v, 1, 1 << 20); });
  p.option("--batch", "N", "rows generated together (default 64)", [&](const std::string &v) { batchRows = support::parseInteger(v, 1, 1 << 16); });
  p.option("--seed", "N", "sample k of task i uses seed + i * per_task + k (default 0)",
           [&](const std::string &v) { seed = support::parseUnsigned(v); });
  p.option("--device", "DEV", "cuda (default) or cpu", device);
  p.option("--dtype", "TYPE", "bfloat16 (default) or float32", dtype);
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  if (model.empty() || dataset.empty() || out.empty()) throw support::UsageError("--model, --dataset and --out are required");
  auto start = Clock::now();
  std::vector<ManifestTask> manifest = readManifest(dataset);
  std::set<std::string> kinds;
  for (const std::string &k : splitList(kindList)) kinds.insert(k);
  std::vector<const ManifestTask *> chosen =
      selectRoundRobin(manifest, split, kinds, allFamilies ? FamilyFilter::Any : FamilyFilter::Within,
                       familiesOf(manifest, "train"), size_t(tasksWanted));
  if (chosen.empty()) throw ModelError(dataset + ": no " + split + " tasks of the training families");
  Tokenizer tokenizer = Tokenizer::fromFile((fs::path(model) / "tokenizer.json").string());
  CausalLm policy = loadPretrained(model, LoadOptions{parseDevice(device), parseTorchDtype(dtype), false});

  struct Row {
    size_t task;
    int64_t sample;
    std::vector<int32_t> prompt;
  };
  std::vector<Row> rows;
  std::vector<PolicyTask> tasks;
  std::vector<std::string> skipped;
  for (size_t i = 0; i < chosen.size(); ++i) {
    try {
      tasks.push_back(loadPolicyTask(chosen[i]->dir));
    } catch (const std::exception &e) {
      skipped.push_back(chosen[i]->name + ": " + e.what());
      continue;
    }
    std::vector<int32_t> prompt = tokenizer.encode(renderPolicyPrompt(policyMessages(tasks.back())), false);
    for (int64_t k = 0; k < perTask; ++k) rows.push_back({tasks.size() - 1, k, prompt});
  }
  fs::create_directories(fs::path(out) / "candidates");
  std::ofstream batchFile(fs::path(out) / "batch.txt"), samples(fs::path(out) / "samples.jsonl");
  GenerationOptions o;
  o.maxNewTokens = maxNew;
  o.sampling.temperature = temperature;
  o.sampling.topP = topP;
  o.stopTokenIds = policy->config.eosTokenIds;
  if (policy->config.padTokenId) o.padId = *policy->config.padTokenId;
  int64_t extracted = 0, generatedTokens = 0, decodeSteps = 0;
  double firstTokenSeconds = 0, decodeSeconds = 0;
  Progress progress(int64_t(rows.size()));
  for (size_t begin = 0; begin < rows.size(); begin += size_t(batchRows)) {
    size_t end = std::min(rows.size(), begin + size_t(batchRows));
    std::vector<std::vector<int32_t>> prompts;
    o.seeds.clear();
    for (size_t r = begin; r < end; ++r) {
      prompts.push_back(rows[r].prompt);
      o.seeds.push_back(seed + uint64_t(rows[r].task) * uint64_t(perTask) + uint64_t(rows[r].sample));
    }
    GenerationTiming timing; // the split of the batch's time, for sample-summary.json
    o.timing = &timing;
    std::vector<GeneratedSequence> result = generate(*policy, prompts, o);
    firstTokenSeconds += timing.firstTokenSeconds;
    decodeSeconds += timing.decodeSeconds;
    decodeSteps += timing.decodeSteps;
    for (size_t r = begin; r < end; ++r) {
      const GeneratedSequence &g = result[r - begin];
      const PolicyTask &task = tasks[rows[r].task];
      std::string text = tokenizer.decode(g.tokens, true);
      std::optional<std::string> source;
      if (auto block = reward::extractCodeBlock(text)) source = std::move(block->code);
      generatedTokens += int64_t(g.tokens.size());
      ordered_json line = {{"task", task.task.name}, {"task_dir", task.task.dir}, {"sample", rows[r].sample},
                           {"seed", o.seeds[r - begin]}, {"tokens", g.tokens.size()}, {"finish_reason", g.finishReason},
                           {"extracted", bool(source)}};
      if (source) {
        fs::path file = fs::absolute(fs::path(out) / "candidates" / task.task.name / ("sample_" + std::to_string(rows[r].sample) + ".cu"));
        fs::create_directories(file.parent_path());
        std::ofstream(file) << *source;
        batchFile << fs::absolute(task.task.dir).string() << " " << file.string() << "\n";
        line["candidate"] = file.string();
        ++extracted;
      }
      samples << support::writeJson(line) << "\n";
    }
    progress.update(int64_t(end), std::to_string(extracted) + " extracted");
  }
  progress.finish();
  for (const std::string &s : skipped) std::cerr << kProgram << ": skipped " << s << "\n";
  double seconds = since(start);
  ordered_json summary = {{"schema", "cudaperf-sample-summary/1"}, {"model", model}, {"split", split},
                          {"all_families", allFamilies}, {"tasks", tasks.size()}, {"samples", rows.size()},
                          {"extracted", extracted}, {"temperature", temperature}, {"top_p", topP},
                          {"max_new_tokens", maxNew}, {"generated_tokens", generatedTokens}, {"seconds", seconds},
                          {"first_token_seconds", firstTokenSeconds}, {"decode_steps", decodeSteps},
                          {"decode_seconds_per_step", decodeSteps > 0 ? decodeSeconds / double(decodeSteps) : 0.0}};
  std::ofstream(fs::path(out) / "sample-summary.json") << support::writeJson(summary, 2) << "\n";
  std::cerr << kProgram << ": " << rows.size() << " samples for " << tasks.size() << " tasks, " << extracted
            << " with a code block, " << generatedTokens << " tokens in " << seconds << " s (prompts + first token "
            << firstTokenSeconds << " s, " << decodeSteps << " decoding steps of "
            << (decodeSteps > 0 ? decodeSeconds / double(decodeSteps) * 1000 : 0.0) << " ms)\n";
  return kExitOk;
}

// ---------------------------------------------------------------------------------------------
// fit: does one training step of this shape fit? (peak memory is read from outside: nvidia-smi)

int runFit(const std::vector<std::string> &argv) {
  std::string config, device = "cuda", dtype = "bfloat16", loraTargets;
  int64_t batch = 1, seq = 2048, loraRank = 0;
  bool checkpointing = false;
  support::ArgParser p(std::string(kProgram) + " fit", {"--config CONFIG.json [--lora-rank R] [--gradient-checkpointing]"},
                       "Builds a random model of the shape on the device and runs one full training step (forward, "
                       "backward, AdamW with fp32 masters). Exit 0 and a JSON line when it fits, 3 when the device "
                       "runs out of memory.");
  p.option("--config", "FILE", "config.json of the shape", config);
  p.option("--device", "DEV", "cuda (default)", device);
  p.option("--dtype", "TYPE", "bfloat16 (default)", dtype);
  p.option("--batch", "N", "sequences per step (default 1)", [&](const std::string &v) { batch = support::parseInteger(v, 1, 1 << 20); });
  p.option("--seq", "N", "tokens per sequence (default 2048)", [&](const std::string &v) { seq = support::parseInteger(v, 2, 1 << 24); });
  p.option("--lora-rank", "R", "LoRA adapters instead of full fine-tuning", [&](const std::string &v) { loraRank = support::parseInteger(v, 0, 4096); });
  p.option("--lora-targets", "LIST", "LoRA modules (default q_proj,k_proj,v_proj,o_proj)", loraTargets);
  p.flag("--gradient-checkpointing", "recompute each layer in backward", checkpointing);
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  if (config.empty()) throw support::UsageError("--config is required");
  ModelConfig c = ModelConfig::fromFile(config);
  torch::Device dev = parseDevice(device);
  auto start = Clock::now();
  CausalLm model(c, torch::TensorOptions().dtype(parseTorchDtype(dtype)).device(dev));
  model->initializeRandom(0);
  if (loraRank > 0) model->attachLora(loraOptionsFrom(loraRank, 0, 0, loraTargets));
  model->train();
  Trainer trainer(model, TrainerOptions{});
  std::vector<std::vector<int32_t>> rows(static_cast<size_t>(batch));
  std::vector<std::vector<uint8_t>> masks(static_cast<size_t>(batch));
  std::mt19937_64 rng(1);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < seq; ++t) {
      rows[size_t(b)].push_back(int32_t(rng() % uint64_t(c.vocabSize)));
      masks[size_t(b)].push_back(1);
    }
  TrainingBatch data = makeTrainingBatch(rows, masks, 0, dev);
  LogProbOptions lp;
  lp.gradientCheckpointing = checkpointing;
  auto stepStart = Clock::now();
  trainer.zeroGrad();
  languageModelLoss(*model, data, lp).backward();
  StepResult r = trainer.step();
  if (dev.is_cuda()) torch::cuda::synchronize(dev.index());
  ordered_json out = {{"schema", "cudaperf-fit/1"}, {"architecture", c.architecture()}, {"parameters", c.parameterCount()},
                      {"mode", loraRank > 0 ? "lora" : "full"}, {"lora_rank", loraRank}, {"gradient_checkpointing", checkpointing},
                      {"batch", batch}, {"seq", seq}, {"fits", true}, {"grad_norm", r.gradNorm},
                      {"step_seconds", since(stepStart)}, {"total_seconds", since(start)}};
  std::cout << support::writeJson(out) << "\n";
  return kExitOk;
}

} // namespace

namespace cudaperf::learn {
int runDataParallelCheck(const std::vector<std::string> &argv); // dp-check.cpp
int runPromptCommand(const std::vector<std::string> &argv);     // prompt.cpp
#ifdef CUDAPERF_HAVE_RL
int runRepairExamples(const std::vector<std::string> &argv);    // repair-examples.cpp
#endif
}

int main(int argc, char **argv) {
  return runSubcommands(kProgram, argc, argv,
                        {{"sft", "supervised fine-tuning on the dataset's train split (make sft)", runSftCommand},
                         {"sample", "candidates for held-out tasks, for cudaperf-eval --batch", runSample},
                         {"fit", "one training step of a model shape (memory-fit measurements)", runFit},
                         {"compact-state", "a trainer state without fp32 masters, bf16 moments (~40% of the bytes)",
                          runCompactStateCommand},
                         {"dp-check", "data parallelism against one process on this machine (one call per rank)",
                          runDataParallelCheck},
                         {"prompt", "the policy prompt of a task (messages or ChatML), for outside trainers",
                          runPromptCommand},
#ifdef CUDAPERF_HAVE_RL
                         {"rl", "multi-turn GRPO from the SFT checkpoint (make train)", runRlCommand},
                         {"repair-examples", "the broken answers, nvcc logs and feedback of sft's repair examples",
                          runRepairExamples},
                         {"eval-policy", "held-out evaluation, turn 1 and best-of-T (make eval-policy)", runEvalPolicyCommand},
#endif
                        });
}
