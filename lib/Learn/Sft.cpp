// Supervised fine-tuning (docs/training.md, "cudaperf-train sft"): the `sft` command of cudaperf-train.
// The loop is short and linear: batches, forward, backward, step, a log line, eval every N steps.
#include "cudaperf/Learn/Sft.h"
#include "cudaperf/Learn/Progress.h"
#include "cudaperf/Learn/SvgPlot.h"
#include "cudaperf/Learn/ToolMain.h"
#include "cudaperf/Support/Json.h"

#include "SftExamples.h"

#ifdef CUDAPERF_HAVE_RL
#include "cudaperf/Learn/MeasuredExamples.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <set>

namespace cudaperf::learn {

namespace {

using namespace sft;
namespace fs = std::filesystem;
using json = support::Json;
using ordered_json = support::Json;
using Clock = std::chrono::steady_clock;

const char *kProgram = "cudaperf-train";

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// std::cerr discarded while it lives (data-parallel ranks other than 0); errors still reach the
// terminal through runToolMain, after it is gone.
class MutedStderr {
public:
  MutedStderr() : saved_(std::cerr.rdbuf(nullptr)) {}
  ~MutedStderr() { std::cerr.rdbuf(saved_); }
  MutedStderr(const MutedStderr &) = delete;
  MutedStderr &operator=(const MutedStderr &) = delete;

private:
  std::streambuf *saved_;
};

TrainingBatch toBatch(const std::vector<Example> &examples, const std::vector<size_t> &rows, int64_t padId,
                      const torch::Device &device) {
  std::vector<std::vector<int32_t>> ids;
  std::vector<std::vector<uint8_t>> masks;
  for (size_t i : rows) {
    ids.push_back(examples[i].ids);
    std::vector<uint8_t> mask(examples[i].ids.size(), 0);
    std::fill(mask.begin() + std::ptrdiff_t(examples[i].promptTokens), mask.end(), 1);
    masks.push_back(std::move(mask));
  }
  return makeTrainingBatch(ids, masks, padId, device);
}

// The default shape of the model trained here (docs/training.md): 7 layers of width 512, ~23M
// parameters with the generated dataset's ~1.9k-token vocabulary (the BPE trainer runs out of merges
// there: the generated code has few distinct words), so its bf16 checkpoint (~46 MB) travels between
// machines in four files of <= 15 MB. The vocabulary is rounded up to a multiple of 128 (unused rows).
ModelConfig defaultSftModelConfig(int64_t tokenizerVocab) {
  ModelConfig c;
  c.modelType = "qwen2";
  c.vocabSize = (tokenizerVocab + 127) / 128 * 128;
  c.hiddenSize = 512;
  c.intermediateSize = 1536;
  c.numLayers = 7;
  c.numHeads = 8;
  c.numKvHeads = 4;
  c.headDim = 64;
  c.maxPositions = 4096;
  c.rope.theta = 10000;
  c.tieWordEmbeddings = true;
  c.qkvBias = true;
  c.initializerRange = 0.02;
  return c;
}

// The examples, encoded, and their tokenizer: everything before the model, the same on every rank.
struct SftData {
  ExampleSet train, val;
  std::optional<Tokenizer> tokenizer;
  int32_t endOfTurn = 0, padId = 0;
  ordered_json report; // sft-report.json's data part; a dry run adds its options, training the model and the run's figures
};

SftData prepareData(const SftConfig &c, bool root, Clock::time_point start) {
  SftData d;
  ExampleSet &train = d.train, &val = d.val;
  std::vector<ManifestTask> manifest = readManifest(c.dataset);
  std::set<std::string> kinds;
  for (const std::string &k : splitList(c.kinds)) kinds.insert(k);
  PromptOptions promptOptions;
#ifndef CUDAPERF_HAVE_RL
  if (c.repairExamples) std::cerr << kProgram << ": no repair examples: this build has no lib/Reward (their feedback)\n";
#endif
  const MeasuredResults *m = nullptr;
  bool wantMeasured = c.measuredExamples != "none" && !c.measuredExamples.empty();
#ifdef CUDAPERF_HAVE_RL
  std::optional<MeasuredResults> measured;
  if (wantMeasured) {
    measured = readMeasuredResults(c.measuredExamples);
    std::cerr << kProgram << ": measured examples from " << c.measuredExamples << ": " << measured->kept << " ok results of "
              << measured->byTask.size() << " tasks (" << measured->documents << " documents)\n";
    m = &*measured;
  }
#else
  if (wantMeasured) throw ModelError("--measured-examples: this build has no lib/Reward (the examples' feedback)");
#endif
  train = buildExamples(manifest, "train", kinds, promptOptions, c.refinementExamples, c.repairExamples, c.seed, m);
  val = buildExamples(manifest, "val", kinds, promptOptions, c.refinementExamples, c.repairExamples, c.seed, m);
  auto refinements = [](const ExampleSet &set) { return countRefinements(set.examples); };
  auto repairs = [](const std::vector<Example> &examples, const std::string &mutation = "") {
    return countRepairs(examples, mutation);
  };
  std::cerr << kProgram << ": " << train.examples.size() << " training examples (" << refinements(train)
            << " refinement, " << repairs(train.examples) << " repair) from " << train.tasks << " tasks, "
            << val.examples.size() << " validation examples (" << refinements(val) << " refinement, "
            << repairs(val.examples) << " repair) from " << val.tasks << " tasks (" << since(start) << " s)\n";
  if (m)
    std::cerr << kProgram << ": measured refinement examples: " << countMeasured(train.examples) << " training, "
              << countMeasured(val.examples) << " validation\n";
  for (const std::string &why : train.skipReasons) std::cerr << kProgram << ": skipped " << why << "\n";
  if (train.examples.empty()) throw ModelError(c.dataset + ": no training examples (kinds " + c.kinds + ")");

  // Tokenizer: from the checkpoint, a given folder, the state being resumed, or trained here.
  std::optional<Tokenizer> &tokenizer = d.tokenizer;
  std::string tokenizerSource;
  for (const std::string &dir : {c.resume, c.init, c.tokenizer})
    if (!dir.empty() && !tokenizer && fs::exists(fs::path(dir) / "tokenizer.json")) {
      tokenizer = Tokenizer::fromFile((fs::path(dir) / "tokenizer.json").string());
      tokenizerSource = dir;
    }
  if (!tokenizer) {
    if (!c.init.empty() || !c.tokenizer.empty() || !c.resume.empty())
      throw ModelError("no tokenizer.json in " + (c.init.empty() ? c.tokenizer.empty() ? c.resume : c.tokenizer : c.init));
    // A deterministic sample: every task's prompt once, then answers, up to the size limit.
    std::vector<std::string> texts;
    size_t budget = size_t(c.tokenizerSampleMb * 1e6), used = 0;
    std::string lastPrompt;
    for (const Example &e : train.examples) {
      if (used >= budget) break;
      if (e.prompt != lastPrompt) {
        texts.push_back(e.prompt);
        used += e.prompt.size();
        lastPrompt = e.prompt;
      }
      texts.push_back(e.answer);
      used += e.answer.size();
    }
    auto t0 = Clock::now();
    BpeTrainingOptions bpe;
    bpe.vocabSize = size_t(c.vocab);
    bpe.progress = [](const std::string &line) { std::cerr << kProgram << ": tokenizer: " << line << "\n"; };
    tokenizer = trainByteLevelBpe(texts, bpe);
    tokenizerSource = "trained here on " + std::to_string(used / 1000) + " kB";
    std::cerr << kProgram << ": tokenizer of " << tokenizer->vocabSize() << " tokens trained on " << used / 1000
              << " kB in " << since(t0) << " s\n";
  }
  auto special = [&](const char *token) {
    auto id = tokenizer->tokenToId(token);
    if (!id) throw ModelError(std::string("the tokenizer has no ") + token + " token (ChatML needs it)");
    return *id;
  };
  d.endOfTurn = special("<|im_end|>");
  d.padId = tokenizer->tokenToId("<|pad|>").value_or(tokenizer->tokenToId("<|endoftext|>").value_or(0));
  auto t1 = Clock::now();
  encodeExamples(train.examples, *tokenizer, d.endOfTurn);
  encodeExamples(val.examples, *tokenizer, d.endOfTurn);
  auto dropLong = [&](std::vector<Example> &ex) {
    size_t before = ex.size();
    ex.erase(std::remove_if(ex.begin(), ex.end(), [&](const Example &e) { return int64_t(e.ids.size()) > c.maxSeqLen; }),
             ex.end());
    return before - ex.size();
  };
  size_t repairBuiltTrain = size_t(repairs(train.examples)), repairBuiltVal = size_t(repairs(val.examples));
  size_t droppedTrain = dropLong(train.examples), droppedVal = dropLong(val.examples);
  int64_t trainTokens = 0, answerTokens = 0;
  for (const Example &e : train.examples) {
    trainTokens += int64_t(e.ids.size());
    answerTokens += int64_t(e.ids.size() - e.promptTokens);
  }
  std::cerr << kProgram << ": encoded in " << since(t1) << " s: " << trainTokens << " training tokens (" << answerTokens
            << " in answers); dropped " << droppedTrain << " training and " << droppedVal << " validation examples longer than "
            << c.maxSeqLen << " tokens\n";
  if (train.examples.empty()) throw ModelError("every training example is longer than --max-seq-len");
  // The data's part of sft-report.json (the counts are of the examples kept, after the length limit).
  auto repairReport = [&](ordered_json &section, const std::vector<Example> &kept, size_t built) {
    section["repair_examples"] = repairs(kept);
    section["repair_dropped_too_long"] = built - size_t(repairs(kept));
    section["repair_mutations"] = {{"truncation", repairs(kept, "truncation")},
                                   {"undeclared_identifier", repairs(kept, "undeclared_identifier")}};
  };
  ordered_json trainReport = {{"tasks", train.tasks}, {"examples", train.examples.size()}, {"tokens", trainTokens},
                              {"answer_tokens", answerTokens}, {"dropped_too_long", droppedTrain},
                              {"skipped_tasks", train.skippedTasks}, {"refinement_examples", refinements(train)},
                              {"measured_examples", countMeasured(train.examples)}};
  ordered_json valReport = {{"tasks", val.tasks}, {"examples", val.examples.size()}, {"dropped_too_long", droppedVal},
                            {"refinement_examples", refinements(val)},
                            {"measured_examples", countMeasured(val.examples)}};
  repairReport(trainReport, train.examples, repairBuiltTrain);
  repairReport(valReport, val.examples, repairBuiltVal);
  // sft-report.json's data part; a dry run adds its options, training adds the model and the run's figures.
  d.report = {{"schema", "cudaperf-sft-report/1"},
                         {"dataset", c.dataset},
                         {"train", trainReport},
                         {"val", valReport},
                         {"strategy_label_in_prompt", false},
                         {"tokenizer", {{"source", tokenizerSource}, {"vocab_size", tokenizer->vocabSize()}}}};
  if (root && !c.dumpExamples.empty()) {
    std::ofstream dump(c.dumpExamples);
    for (const auto &[split, set] : {std::pair<const char *, const ExampleSet *>{"train", &train}, {"val", &val}})
      for (const Example &e : set->examples)
        dump << support::writeJson(ordered_json{{"split", split},
                                                {"kind", !e.repair.empty() ? "repair:" + e.repair
                                                         : e.measured      ? std::string("measured")
                                                         : e.refinement    ? std::string("refinement")
                                                                           : std::string("single")},
                                                {"prompt", e.prompt}, {"answer", e.answer}, {"tokens", e.ids.size()}})
             << "\n";
    if (!dump) throw ModelError(c.dumpExamples + ": cannot write");
  }
  return d;
}

// The model trained: the checkpoint of init, or a new one of model_config (else the built-in shape) with
// random weights from the seed; LoRA adapters when lora_rank > 0. In training mode.
CausalLm buildModel(const SftConfig &c, const SftData &data, const torch::Device &device, torch::Dtype dtype) {
  torch::manual_seed(c.seed);
  CausalLm model(nullptr);
  if (!c.init.empty()) {
    model = loadPretrained(c.init, LoadOptions{device, dtype, false});
  } else {
    ModelConfig config = !c.modelConfig.empty() ? ModelConfig::fromFile(c.modelConfig) : defaultSftModelConfig(int64_t(data.tokenizer->vocabSize()));
    if (config.vocabSize < int64_t(data.tokenizer->vocabSize()))
      throw ModelError("the model's vocab_size " + std::to_string(config.vocabSize) + " is smaller than the tokenizer's " +
                       std::to_string(data.tokenizer->vocabSize()));
    config.eosTokenIds = {data.endOfTurn};
    config.padTokenId = data.padId;
    config.bosTokenId.reset();
    config.dtype = torchDtypeName(dtype);
    std::cerr << kProgram << ": new " << config.architecture() << ": " << humanCount(double(config.parameterCount()))
              << " parameters, weights " << humanBytes(weightBytes(config, dtype)) << " + training state "
              << humanBytes(double(config.parameterCount()) * (dtype == torch::kFloat32 ? 12 : 14)) << " on " << device.str()
              << "\n";
    model = CausalLm(config, torch::TensorOptions().dtype(dtype).device(device));
    model->initializeRandom(c.seed);
  }
  if (c.loraRank > 0) {
    model->attachLora(loraOptionsFrom(c.loraRank, c.loraAlpha, c.loraDropout, c.loraTargets));
  }
  model->train();
  return model;
}

} // namespace

LoraOptions loraOptionsFrom(int64_t rank, double alpha, double dropout, const std::string &targets) {
  LoraOptions lora;
  lora.rank = rank;
  lora.alpha = alpha > 0 ? alpha : double(2 * rank);
  lora.dropout = dropout;
  if (!targets.empty()) lora.targetModules = splitList(targets);
  return lora;
}

int runSft(const SftConfig &config, const DataParallelArgs &dpArgs) {
  SftConfig c = config;
  // A dry run stops before the model: it needs no GPU, whatever the device says.
  if (c.dryRun) c.device = "cpu";
  torch::set_num_threads(int(c.threads));
  // Data parallel: every rank builds the same data, tokenizer and model (all deterministic), takes
  // every W-th micro-batch of a step and divides its loss by the step's global target count, so the
  // summed gradient is the one-process gradient; rank 0 writes every output.
  std::unique_ptr<DataParallel> dp = openDataParallel(dpArgs, c.device);
  const bool root = dp->isRoot();
  const int world = dp->worldSize();
  torch::Device device = parseDevice(c.device);
  torch::Dtype dtype = parseTorchDtype(c.dtype);
  auto start = Clock::now();
  std::optional<MutedStderr> mute;
  if (!root) mute.emplace(); // one voice: rank 0's
  else if (world > 1) std::cerr << kProgram << ": data parallel: " << dp->describe() << "\n";
  fs::create_directories(c.out);
  fs::path checkpointDir = fs::path(c.out) / "checkpoint", stateDir = fs::path(c.out) / "state";
  if (root) std::ofstream(fs::path(c.out) / "sft-config.json") << support::writeJson(sftConfigToJson(config), 2) << "\n";

  SftData data = prepareData(c, root, start);
  ExampleSet &train = data.train, &val = data.val;
  std::optional<Tokenizer> &tokenizer = data.tokenizer;
  const int32_t padId = data.padId;
  ordered_json &report = data.report;
  if (c.dryRun) {
    if (root) {
      report["dry_run"] = true;
      report["steps"] = 0;
      report["options"] = {{"max_seq_len", c.maxSeqLen}, {"seed", c.seed}, {"refinement_examples", c.refinementExamples},
                           {"repair_examples", c.repairExamples}, {"measured_examples", c.measuredExamples}};
      report["config"] = sftConfigToJson(config);
      report["total_seconds"] = since(start);
      std::ofstream(fs::path(c.out) / "sft-report.json") << support::writeJson(report, 2) << "\n";
    }
    std::cerr << kProgram << ": --dry-run: " << train.examples.size() << " training examples kept ("
              << countRepairs(train.examples) << " repair), report in " << (fs::path(c.out) / "sft-report.json").string()
              << "\n";
    return kExitOk;
  }

  // Model.
  CausalLm model = buildModel(c, data, device, dtype);
  const LoraOptions lora = loraOptionsFrom(c.loraRank, c.loraAlpha, c.loraDropout, c.loraTargets); // used when lora_rank > 0

  // Batches and the plan.
  std::vector<std::vector<size_t>> trainBatches = packByLength(train.examples, c.microBatchTokens);
  std::vector<std::vector<size_t>> valBatches = packByLength(val.examples, c.microBatchTokens);
  int64_t accumulation = std::max<int64_t>(1, (c.batchTokens + c.microBatchTokens - 1) / c.microBatchTokens);
  int64_t stepsPerEpoch = std::max<int64_t>(1, int64_t(trainBatches.size()) / accumulation);
  int64_t plannedSteps = c.steps > 0 ? c.steps : std::max<int64_t>(1, int64_t(c.epochs * double(stepsPerEpoch)));
  TrainerOptions options;
  options.learningRate = c.lr;
  options.weightDecay = c.weightDecay;
  options.gradClip = c.gradClip;
  options.schedule.warmupSteps = std::min(c.warmup, plannedSteps / 4);
  options.schedule.totalSteps = plannedSteps;
  options.schedule.minRatio = c.minLrRatio;
  if (!c.resume.empty()) { // the schedule as it was (a time budget may have shortened it)
    json state = support::parseJson(readFile((fs::path(c.resume) / "trainer_state.json").string()), c.resume + "/trainer_state.json");
    options.schedule.totalSteps = state["extra"].value("total_steps", options.schedule.totalSteps);
    options.schedule.warmupSteps = state["options"]["schedule"].value("warmup_steps", options.schedule.warmupSteps);
  }
  Trainer trainer(model, options);
  if (world > 1)
    trainer.setGradientReducer([&dp](const std::vector<torch::Tensor> &params) { dp->reduceGradients(params); });
  if (!c.resume.empty()) {
    trainer.load(c.resume);
    std::cerr << kProgram << ": resumed " << c.resume << " at step " << trainer.stepsDone() << "\n";
  }
  {
    std::vector<torch::Tensor> weights;
    for (auto &[name, t] : trainer.trainable()) weights.push_back(t);
    dp->checkSame(tensorChecksum(weights) + " " + std::to_string(train.examples.size()) + " " +
                      std::to_string(trainBatches.size()) + " " + std::to_string(trainer.stepsDone()),
                  "model, data or resumed step");
  }
  // The epoch order of micro-batches is a function of (seed, epoch), so a step number is a data position.
  auto microBatchAt = [&](int64_t k) {
    int64_t epoch = k / int64_t(trainBatches.size()), index = k % int64_t(trainBatches.size());
    std::vector<size_t> order(trainBatches.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937_64(c.seed * 1000003 + uint64_t(epoch)));
    return order[size_t(index)];
  };
  std::cerr << kProgram << ": " << trainBatches.size() << " micro-batches of <= " << c.microBatchTokens << " tokens, "
            << accumulation << " per step, " << stepsPerEpoch << " steps per epoch; planned " << plannedSteps << " steps\n";

  std::ofstream log;
  if (root) log.open(fs::path(c.out) / "train-log.jsonl", c.resume.empty() ? std::ios::trunc : std::ios::app);
  std::vector<std::pair<double, double>> trainCurve, valCurve;
  auto evaluate = [&]() {
    torch::NoGradGuard noGrad;
    model->eval();
    double nll = 0;
    int64_t count = 0;
    for (int64_t b = dp->rank(); b < std::min<int64_t>(c.evalBatches, int64_t(valBatches.size())); b += world) {
      // Spread over the sorted batches, so short and long examples are both measured.
      size_t index = size_t(b * int64_t(valBatches.size()) / std::max<int64_t>(1, std::min<int64_t>(c.evalBatches, int64_t(valBatches.size()))));
      TrainingBatch batch = toBatch(val.examples, valBatches[index], padId, device);
      nll += -sequenceLogProbs(*model, batch).sum().item<double>();
      count += batch.targetCount;
    }
    model->train();
    std::vector<double> total = dp->sum({nll, double(count)});
    return total[1] > 0 ? total[0] / total[1] : std::nan("");
  };

  Progress progress(plannedSteps);
  auto trainStart = Clock::now();
  double lastLoss = std::nan(""), lastVal = std::nan(""), windowStartTime = 0;
  const int64_t firstStep = trainer.stepsDone(); // > 0 when resumed
  int64_t windowStart = -1, nextEstimateAt = firstStep + 20;
  int64_t lastEvalStep = -1;
  int64_t tokensSeen = 0;
  LogProbOptions lp;
  lp.gradientCheckpointing = c.gradientCheckpointing;
  while (trainer.stepsDone() < options.schedule.totalSteps && (c.stopAfterSteps == 0 || trainer.stepsDone() < c.stopAfterSteps)) {
    int64_t step = trainer.stepsDone();
    auto stepStart = Clock::now();
    std::vector<TrainingBatch> micro;
    int64_t targets = 0, tokens = 0, examples = 0;
    for (int64_t j = dp->rank(); j < accumulation; j += world) { // this rank's micro-batches of the step
      const std::vector<size_t> &rows = trainBatches[microBatchAt(step * accumulation + j)];
      micro.push_back(toBatch(train.examples, rows, padId, device));
      targets += micro.back().targetCount;
      examples += int64_t(rows.size());
      for (size_t i : rows) tokens += int64_t(train.examples[i].ids.size());
    }
    if (world > 1) { // the loss is per token of the whole step: the global count divides every rank's loss
      std::vector<double> counts = dp->sum({double(targets), double(tokens), double(examples)});
      targets = int64_t(counts[0]), tokens = int64_t(counts[1]), examples = int64_t(counts[2]);
    }
    trainer.zeroGrad();
    torch::Tensor lossSum = torch::zeros({}, torch::TensorOptions().device(device));
    for (const TrainingBatch &b : micro) {
      torch::Tensor nll = -sequenceLogProbs(*model, b, lp).sum() / double(std::max<int64_t>(1, targets));
      nll.backward();
      lossSum += nll.detach();
    }
    StepResult r = trainer.step();
    lastLoss = dp->sum(lossSum.item<double>());
    tokensSeen += tokens;
    double seconds = dp->fromRoot(since(stepStart));
    double trainElapsed = dp->fromRoot(since(trainStart)); // rank 0's clock decides the time budget for all
    // A time budget: once the step time is known (after step 20: the first steps pay for kernel selection and
    // the allocator's growth), end the schedule where the budget ends. The estimate is redone at steps 50, 100,
    // 200, ... from the steps since the previous one: on the H200 the first 20 steps ran 5x slower than the
    // steady state (0.31 vs 0.06 s), so a single early estimate used 132 s of a 309 s budget.
    if (r.step == firstStep + 10) { windowStartTime = trainElapsed; windowStart = r.step; }
    if (c.maxSeconds > 0 && windowStart >= 0 && r.step >= nextEstimateAt) {
      double elapsed = trainElapsed;
      double stepSeconds = (elapsed - windowStartTime) / double(r.step - windowStart);
      windowStartTime = elapsed;
      windowStart = r.step;
      nextEstimateAt = r.step - firstStep < 50 ? firstStep + 50 : firstStep + (r.step - firstStep) * 2;
      int64_t affordable = r.step + int64_t((c.maxSeconds - elapsed) / std::max(1e-6, stepSeconds));
      int64_t total = std::max<int64_t>(r.step + 1, std::min<int64_t>(plannedSteps, affordable));
      if (total != options.schedule.totalSteps) {
        std::cerr << "\n" << kProgram << ": --max-seconds " << c.maxSeconds << " allows ~" << affordable
                  << " steps at " << stepSeconds << " s/step (step " << r.step << "): the schedule now ends at step "
                  << total << "\n";
        options.schedule.totalSteps = total;
        trainer.setSchedule(options.schedule);
        progress.setTotal(options.schedule.totalSteps);
      }
    }
    ordered_json line = {{"step", r.step}, {"loss", lastLoss}, {"lr", r.learningRate}, {"grad_norm", r.gradNorm},
                         {"skipped", r.skipped}, {"tokens", tokens}, {"target_tokens", targets},
                         {"tokens_per_second", double(tokens) / seconds}, {"elapsed", trainElapsed},
                         {"examples", examples}, {"examples_per_second", double(examples) / seconds}};
    if (world > 1) line["world_size"] = world;
    trainCurve.emplace_back(double(r.step), lastLoss);
    if (r.step % c.evalEvery == 0 || r.step == options.schedule.totalSteps) {
      lastVal = evaluate();
      lastEvalStep = r.step;
      line["val_loss"] = lastVal;
      valCurve.emplace_back(double(r.step), lastVal);
    }
    log << support::writeJson(line) << "\n" << std::flush;
    char text[160];
    std::string val = std::isnan(lastVal) ? std::string("-") : std::to_string(lastVal).substr(0, 5);
    std::snprintf(text, sizeof text, "loss %.3f val %s lr %.2e %.1fk tok/s", lastLoss, val.c_str(), r.learningRate,
                  double(tokens) / seconds / 1000);
    progress.update(r.step, text);
    if (c.maxSeconds > 0 && trainElapsed > c.maxSeconds && r.step < options.schedule.totalSteps) {
      std::cerr << "\n" << kProgram << ": --max-seconds reached at step " << r.step << " of "
                << options.schedule.totalSteps << "\n";
      break;
    }
    if (root && c.saveEvery > 0 && r.step % c.saveEvery == 0) {
      trainer.save(stateDir.string(), {{"total_steps", options.schedule.totalSteps}});
      tokenizer->save((stateDir / "tokenizer.json").string());
    }
  }
  progress.finish();
  double trainSeconds = since(trainStart);
  if (lastEvalStep != trainer.stepsDone() && !val.examples.empty()) { // stopped early: the final validation loss
    lastVal = evaluate();
    valCurve.emplace_back(double(trainer.stepsDone()), lastVal);
    log << support::writeJson(ordered_json{{"step", trainer.stepsDone()}, {"val_loss", lastVal}}) << "\n";
  }
  if (!root) return kExitOk; // rank 0 writes the checkpoint, state, curves and report

  // The checkpoint: bf16, Hugging Face layout, files small enough to travel.
  SaveOptions save;
  save.dtype = torch::kBFloat16;
  save.maxShardBytes = size_t(c.maxShardMb * 1e6);
  savePretrained(*model, checkpointDir.string(), save);
  if (c.loraRank > 0) saveLoraAdapter(*model, (fs::path(c.out) / "adapter").string(), lora, c.init);
  TokenizerConfigOptions tokenizerConfig;
  tokenizerConfig.padToken = tokenizer->idToToken(padId);
  if (!c.init.empty()) copyTokenizerFiles(c.init, checkpointDir.string());
  else saveTokenizerDirectory(*tokenizer, checkpointDir.string(), tokenizerConfig);
  trainer.save(stateDir.string(), {{"total_steps", options.schedule.totalSteps}});
  tokenizer->save((stateDir / "tokenizer.json").string());
  writeSvgLinePlot((fs::path(c.out) / "loss.svg").string(),
                   {{"train loss", trainCurve}, {"validation loss", valCurve}},
                   {"cudaperf-train sft", "optimizer step", "loss (nats per answer token)"});
  report["model"] = {{"architecture", model->config.architecture()}, {"parameters", model->config.parameterCount()},
                     {"init", c.init.empty() ? json("random") : json(c.init)}, {"lora_rank", c.loraRank}};
  report["device"] = device.str();
  report["dtype"] = torchDtypeName(dtype);
  report["steps"] = trainer.stepsDone();
  report["epochs"] = double(trainer.stepsDone()) / double(stepsPerEpoch);
  report["tokens_seen"] = tokensSeen;
  report["train_seconds"] = trainSeconds;
  report["final_train_loss"] = lastLoss;
  report["final_val_loss"] = lastVal;
  report["options"] = {{"lr", c.lr}, {"warmup", options.schedule.warmupSteps}, {"batch_tokens", c.batchTokens},
                       {"micro_batch_tokens", c.microBatchTokens}, {"max_seq_len", c.maxSeqLen}, {"seed", c.seed},
                       {"gradient_checkpointing", c.gradientCheckpointing}, {"refinement_examples", c.refinementExamples},
                       {"repair_examples", c.repairExamples}, {"measured_examples", c.measuredExamples}};
  report["config"] = sftConfigToJson(config);
  report["total_seconds"] = since(start);
  report["world_size"] = world;
  std::ofstream(fs::path(c.out) / "sft-report.json") << support::writeJson(report, 2) << "\n";
  std::cerr << kProgram << ": " << trainer.stepsDone() << " steps in " << trainSeconds << " s; train loss " << lastLoss
            << ", validation loss " << lastVal << "; checkpoint in " << checkpointDir.string() << "\n";
  return kExitOk;
}

} // namespace cudaperf::learn
