// cudaperf-train: training the policy (docs/training.md).
//   sft     supervised fine-tuning on the dataset's train split (`make sft`): a BPE tokenizer and a
//           small model trained here, or a Hugging Face checkpoint fine-tuned (full or LoRA)
//   sample  candidates for held-out tasks, written for `cudaperf-eval --batch`
//   fit     one training step of a random model of a given shape, for memory-fit measurements
// The loop is short and linear: batches, forward, backward, step, a log line, eval every N steps.
#include "cudaperf/Learn/ToolMain.h"
#include "cudaperf/Learn/DataParallel.h"
#include "cudaperf/Learn/Generation.h"
#include "cudaperf/Learn/Manifest.h"
#include "cudaperf/Learn/Progress.h"
#ifdef CUDAPERF_HAVE_RL
#include "cudaperf/Learn/Rl.h"
#endif
#include "cudaperf/Learn/Prompt.h"
#ifdef CUDAPERF_HAVE_RL
#include "cudaperf/Learn/RepairExamples.h"
#endif
#include "cudaperf/Learn/SvgPlot.h"
#include "cudaperf/Learn/Tokenizer.h"
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

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path.string() + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

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

// Runs f(i) for i in [0, n) on `threads` threads; the first exception is rethrown.
void parallelFor(size_t n, unsigned threads, const std::function<void(size_t)> &f) {
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex errorMutex;
  auto work = [&] {
    for (size_t i; (i = next++) < n;) {
      try {
        f(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1u, threads); ++t) pool.emplace_back(work);
  work();
  for (auto &t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

unsigned hardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

// One SFT example: the rendered prompt and one implementation as the answer.
struct Example {
  std::string prompt, answer;
  std::vector<int32_t> ids;
  size_t promptTokens = 0;
  bool refinement = false; // a second turn: an earlier answer and its feedback in the prompt
  std::string repair;      // a repair example's mutation (RepairExamples.h); empty for the others
};

struct ExampleSet {
  std::vector<Example> examples;
  size_t tasks = 0, skippedTasks = 0;
  std::vector<std::string> skipReasons; // the first few
};

// The feedback of a refinement example (docs/training.md, "Refinement examples"). Only what is true of
// the earlier answer by construction: a dataset implementation is correct, and its strategy labels say
// what its code does; it was not timed.
std::string refinementFeedback(const std::vector<std::string> &strategies) {
  std::string what;
  for (const std::string &s : strategies) {
    std::string words = s;
    std::replace(words.begin(), words.end(), '_', ' ');
    what += (what.empty() ? "" : ", ") + words;
  }
  return "Outcome: ok, correct (a training example: not timed).\n" +
         (what.empty() ? std::string() : "The code's strategy: " + what + ".\n");
}

// A task's refinement example: an implementation the generator expects to be slow (else the baseline)
// as the earlier turn, one it expects to be fast as the answer. -1, -1 when the task has no such pair.
std::pair<int, int> refinementPair(const ManifestTask &t) {
  int fast = -1, slow = -1, neutral = -1;
  for (size_t i = 0; i < t.expected.size(); ++i) {
    if (t.expected[i] == "fast" && fast < 0) fast = int(i);
    if (t.expected[i] == "slow" && slow < 0) slow = int(i);
    if (t.expected[i] == "neutral" && neutral < 0) neutral = int(i);
  }
  int earlier = slow >= 0 ? slow : neutral;
  return fast >= 0 && earlier >= 0 ? std::pair<int, int>{earlier, fast} : std::pair<int, int>{-1, -1};
}

// One example per implementation (the task's first turn); with `refinement`, also one two-turn example
// per task that has a slow-then-fast pair (the turn the RL trainer's later turns ask for); with `repair`,
// also one two-turn example per task whose earlier answer is one of its implementations broken so that
// it does not compile, with the feedback RL gives that, and whose answer is the intact implementation
// (docs/training.md, "Repair examples"; chosen from (seed, task name)). The examples of a task keep this
// order, so without repair examples the set is the one built before they existed.
ExampleSet buildExamples(const std::vector<ManifestTask> &tasks, const std::string &split,
                         const std::set<std::string> &kinds, const PromptOptions &promptOptions, bool refinement,
                         bool repair = false, uint64_t seed = 0) {
  std::vector<const ManifestTask *> chosen;
  for (const ManifestTask &t : tasks)
    if (t.split == split && (kinds.empty() || kinds.count(t.kind))) chosen.push_back(&t);
  std::vector<std::vector<Example>> perTask(chosen.size());
  std::vector<std::string> errors(chosen.size());
  parallelFor(chosen.size(), hardwareThreads(), [&](size_t i) {
    try {
      const ManifestTask &t = *chosen[i];
      PolicyTask task = loadPolicyTask(t.dir);
      std::string prompt = renderPolicyPrompt(policyMessages(task, {}, promptOptions));
      std::vector<std::string> sources;
      for (const std::string &file : t.implementations) sources.push_back(readFile(fs::path(t.dir) / file));
      for (const std::string &source : sources) perTask[i].push_back({prompt, candidateAnswer(source), {}, 0, false, ""});
      if (auto [earlier, answer] = refinementPair(t); refinement && earlier >= 0) {
        PolicyTurn turn{sources[size_t(earlier)], refinementFeedback(t.strategies[size_t(earlier)]), false};
        perTask[i].push_back({renderPolicyPrompt(policyMessages(task, {turn}, promptOptions)),
                              candidateAnswer(sources[size_t(answer)]), {}, 0, true, ""});
      }
#ifdef CUDAPERF_HAVE_RL
      if (repair) {
        if (std::optional<RepairChoice> r = chooseRepair(task.task, sources, seed)) {
          PolicyTurn turn{r->broken.source, r->broken.feedback, false};
          perTask[i].push_back({renderPolicyPrompt(policyMessages(task, {turn}, promptOptions)),
                                candidateAnswer(sources[r->implementation]), {}, 0, false,
                                repairMutationName(r->broken.mutation)});
        }
      }
#else
      (void)repair, (void)seed;
#endif
    } catch (const std::exception &e) {
      errors[i] = chosen[i]->name + ": " + e.what();
    }
  });
  ExampleSet set;
  for (size_t i = 0; i < chosen.size(); ++i) {
    if (!errors[i].empty()) {
      ++set.skippedTasks;
      if (set.skipReasons.size() < 5) set.skipReasons.push_back(errors[i]);
      continue;
    }
    ++set.tasks;
    for (Example &e : perTask[i]) set.examples.push_back(std::move(e));
  }
  return set;
}

// prompt ids, answer ids, end-of-turn id; the loss covers the answer and the end of turn.
void encodeExamples(std::vector<Example> &examples, const Tokenizer &tokenizer, int32_t endOfTurn) {
  parallelFor(examples.size(), hardwareThreads(), [&](size_t i) {
    Example &e = examples[i];
    e.ids = tokenizer.encode(e.prompt, false);
    e.promptTokens = e.ids.size();
    std::vector<int32_t> answer = tokenizer.encode(e.answer, false);
    e.ids.insert(e.ids.end(), answer.begin(), answer.end());
    e.ids.push_back(endOfTurn);
  });
}

// Micro-batches of similar lengths, each at most `tokens` padded tokens (at least one row).
std::vector<std::vector<size_t>> packByLength(const std::vector<Example> &examples, int64_t tokens) {
  std::vector<size_t> order(examples.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return examples[a].ids.size() < examples[b].ids.size(); });
  std::vector<std::vector<size_t>> batches;
  std::vector<size_t> current;
  for (size_t i : order) {
    int64_t longest = int64_t(examples[i].ids.size()); // sorted: the newest row is the longest
    if (!current.empty() && longest * int64_t(current.size() + 1) > tokens) {
      batches.push_back(current);
      current.clear();
    }
    current.push_back(i);
  }
  if (!current.empty()) batches.push_back(current);
  return batches;
}

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

// A progress line on stderr: rewritten in place on a terminal, every ~5% or 30 s otherwise.
// The default shape of the model trained here (docs/training.md): 7 layers of width 512, ~23M
// parameters with the generated dataset's ~1.9k-token vocabulary (the BPE trainer runs out of merges
// there: the generated code has few distinct words), so its bf16 checkpoint (~46 MB) travels between
// machines in four files of <= 15 MB. The vocabulary is rounded up to a multiple of 128 (unused rows).
ModelConfig defaultSftConfig(int64_t tokenizerVocab) {
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

LoraOptions parseLora(int64_t rank, double alpha, double dropout, const std::string &targets) {
  LoraOptions lora;
  lora.rank = rank;
  lora.alpha = alpha > 0 ? alpha : double(2 * rank);
  lora.dropout = dropout;
  if (!targets.empty()) lora.targetModules = splitList(targets);
  return lora;
}

// ---------------------------------------------------------------------------------------------
// sft

struct SftArgs {
  std::string dataset, out, init, tokenizerDir, modelConfig, resume, device = "cuda", dtype = "bfloat16";
  std::string kinds = "c,pytorch", loraTargets, dumpExamples;
  int64_t vocab = 8192, steps = 0, batchTokens = 32768, microTokens = 16384, maxSeqLen = 2048, warmup = 100;
  int64_t evalEvery = 200, evalBatches = 16, saveEvery = 0, loraRank = 0, threads = 1, stopAfter = 0;
  double epochs = 3, maxSeconds = 0, lr = 1e-3, minLrRatio = 0.1, weightDecay = 0.1, gradClip = 1.0;
  double loraAlpha = 0, loraDropout = 0, tokenizerSampleMb = 8, shardMb = 15;
  uint64_t seed = 0;
  bool checkpointing = false, refinement = true, repair = true, dryRun = false;
  DataParallelArgs dp;
};

int runSft(const std::vector<std::string> &argv) {
  SftArgs a;
  support::ArgParser p(std::string(kProgram) + " sft", {"--dataset DIR --out DIR [options]"},
                       "Supervised fine-tuning on the dataset's train split: prompts are the tasks (the policy's "
                       "prompt format, no strategy label), answers their implementations (every strategy). "
                       "Trains a byte-level BPE tokenizer and a ~23M-parameter model unless --init names a "
                       "checkpoint. Writes OUT/checkpoint (Hugging Face layout), OUT/train-log.jsonl, "
                       "OUT/loss.svg, OUT/sft-report.json.");
  auto integer = [](int64_t &target, int64_t lo, int64_t hi) {
    return [&target, lo, hi](const std::string &v) { target = support::parseInteger(v, lo, hi); };
  };
  auto number = [](double &target, double lo, double hi) {
    return [&target, lo, hi](const std::string &v) { target = support::parseNumber(v, lo, hi); };
  };
  p.option("--dataset", "DIR", "the generated dataset (manifest.jsonl; cudaperf-dataset generate)", a.dataset);
  p.option("--out", "DIR", "output folder", a.out);
  p.option("--init", "DIR", "fine-tune this Hugging Face checkpoint (its tokenizer) instead of a new model", a.init);
  p.option("--tokenizer", "DIR", "use this folder's tokenizer.json instead of training one", a.tokenizerDir);
  p.option("--model-config", "FILE", "config.json shape of the new model (default: the built-in ~23M shape)", a.modelConfig);
  p.option("--vocab", "N", "tokenizer vocabulary when one is trained (default 8192)", integer(a.vocab, 300, 1 << 20));
  p.option("--tokenizer-sample-mb", "MB", "text the tokenizer is trained on (default 8)", number(a.tokenizerSampleMb, 0.01, 1e4));
  p.option("--kinds", "LIST", "task kinds: c, pytorch (default both)", a.kinds);
  p.option("--device", "DEV", "cuda (default) or cpu", a.device);
  p.option("--dtype", "TYPE", "bfloat16 (default; fp32 master weights) or float32", a.dtype);
  p.option("--epochs", "E", "passes over the train split (default 3), unless --steps", number(a.epochs, 0.001, 1e6));
  p.option("--steps", "N", "optimizer steps (overrides --epochs)", integer(a.steps, 1, 1 << 30));
  p.option("--max-seconds", "S", "stop after S seconds of training; the schedule is re-planned to end there",
           number(a.maxSeconds, 1, 1e7));
  p.option("--batch-tokens", "N", "padded tokens per optimizer step (default 32768)", integer(a.batchTokens, 16, 1 << 30));
  p.option("--micro-batch-tokens", "N", "padded tokens per forward pass (default 16384)", integer(a.microTokens, 16, 1 << 30));
  p.option("--max-seq-len", "N", "longer examples are dropped (default 2048)", integer(a.maxSeqLen, 16, 1 << 20));
  p.option("--lr", "X", "peak learning rate (default 1e-3; LoRA and fine-tuning want less)", number(a.lr, 0, 10));
  p.option("--warmup", "N", "warm-up steps (default 100)", integer(a.warmup, 0, 1 << 30));
  p.option("--min-lr-ratio", "X", "final learning rate / peak (default 0.1; cosine decay)", number(a.minLrRatio, 0, 1));
  p.option("--weight-decay", "X", "AdamW weight decay (default 0.1)", number(a.weightDecay, 0, 10));
  p.option("--grad-clip", "X", "max gradient norm (default 1; 0 off)", number(a.gradClip, 0, 1e9));
  p.option("--eval-every", "N", "validation loss every N steps (default 200)", integer(a.evalEvery, 1, 1 << 30));
  p.option("--eval-batches", "N", "validation micro-batches per evaluation (default 16)", integer(a.evalBatches, 1, 1 << 20));
  p.option("--save-every", "N", "trainer state (exact resume) every N steps into OUT/state (default: only at the end)",
           integer(a.saveEvery, 1, 1 << 30));
  p.option("--resume", "DIR", "continue from a trainer state (OUT/state)", a.resume);
  p.option("--stop-after-steps", "N", "stop (and save the state) after step N, the schedule unchanged: a run split "
           "over several sessions, continued with --resume", integer(a.stopAfter, 1, 1 << 30));
  p.option("--lora-rank", "R", "LoRA of rank R instead of full fine-tuning (with --init)", integer(a.loraRank, 0, 4096));
  p.option("--lora-alpha", "X", "LoRA alpha (default 2 * rank)", number(a.loraAlpha, 0, 1e6));
  p.option("--lora-dropout", "X", "LoRA dropout (default 0)", number(a.loraDropout, 0, 0.99));
  p.option("--lora-targets", "LIST", "LoRA modules (default q_proj,k_proj,v_proj,o_proj)", a.loraTargets);
  p.flag("--gradient-checkpointing", "recompute each layer in backward (less memory)", a.checkpointing);
  p.option("--refinement-examples", "on|off",
           "also one two-turn example per task: a slow implementation with its feedback, then a fast one (default on)",
           [&](const std::string &v) { a.refinement = support::parseOnOff(v); });
  p.option("--repair-examples", "on|off",
           "also one two-turn example per task: one of its implementations broken so that nvcc rejects it (cut off "
           "as at the token cap, or an undeclared name), the feedback RL gives that, then the intact implementation "
           "(default on)",
           [&](const std::string &v) { a.repair = support::parseOnOff(v); });
  p.flag("--dry-run", "build, tokenize and count the examples, write OUT/sft-report.json, and stop before the model",
         a.dryRun);
  p.option("--dump-examples", "FILE", "write the examples kept (JSON Lines: split, kind, prompt, answer, tokens)",
           a.dumpExamples);
  p.option("--seed", "N", "seed of the weights, the data order and dropout (default 0)",
           [&](const std::string &v) { a.seed = support::parseUnsigned(v); });
  p.option("--threads", "N", "LibTorch CPU threads (default 1)", integer(a.threads, 1, 256));
  p.option("--max-shard-mb", "MB", "largest checkpoint file (default 15)", number(a.shardMb, 0.01, 1e6));
  declareDataParallelOptions(p, a.dp);
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  if (a.dataset.empty() || a.out.empty()) throw support::UsageError("--dataset and --out are required");
  if (a.loraRank > 0 && a.init.empty()) throw support::UsageError("--lora-rank needs --init (a model to adapt)");
  // A dry run stops before the model: it needs no GPU, whatever --device says.
  if (a.dryRun) a.device = "cpu";
  torch::set_num_threads(int(a.threads));
  // Data parallel: every rank builds the same data, tokenizer and model (all deterministic), takes
  // every W-th micro-batch of a step and divides its loss by the step's global target count, so the
  // summed gradient is the one-process gradient; rank 0 writes every output.
  std::unique_ptr<DataParallel> dp = openDataParallel(a.dp, a.device);
  const bool root = dp->isRoot();
  const int world = dp->worldSize();
  torch::Device device = parseDevice(a.device);
  torch::Dtype dtype = parseTorchDtype(a.dtype);
  auto start = Clock::now();
  std::optional<MutedStderr> mute;
  if (!root) mute.emplace(); // one voice: rank 0's
  else if (world > 1) std::cerr << kProgram << ": data parallel: " << dp->describe() << "\n";
  fs::create_directories(a.out);
  fs::path checkpointDir = fs::path(a.out) / "checkpoint", stateDir = fs::path(a.out) / "state";

  // Data.
  std::vector<ManifestTask> manifest = readManifest(a.dataset);
  std::set<std::string> kinds;
  for (const std::string &k : splitList(a.kinds)) kinds.insert(k);
  PromptOptions promptOptions;
#ifndef CUDAPERF_HAVE_RL
  if (a.repair) std::cerr << kProgram << ": no repair examples: this build has no lib/Reward (their feedback)\n";
#endif
  ExampleSet train = buildExamples(manifest, "train", kinds, promptOptions, a.refinement, a.repair, a.seed);
  ExampleSet val = buildExamples(manifest, "val", kinds, promptOptions, a.refinement, a.repair, a.seed);
  auto refinements = [](const ExampleSet &set) {
    return std::count_if(set.examples.begin(), set.examples.end(), [](const Example &e) { return e.refinement; });
  };
  auto repairs = [](const std::vector<Example> &examples, const std::string &mutation = "") {
    return std::count_if(examples.begin(), examples.end(), [&](const Example &e) {
      return !e.repair.empty() && (mutation.empty() || e.repair == mutation);
    });
  };
  std::cerr << kProgram << ": " << train.examples.size() << " training examples (" << refinements(train)
            << " refinement, " << repairs(train.examples) << " repair) from " << train.tasks << " tasks, "
            << val.examples.size() << " validation examples (" << refinements(val) << " refinement, "
            << repairs(val.examples) << " repair) from " << val.tasks << " tasks (" << since(start) << " s)\n";
  for (const std::string &why : train.skipReasons) std::cerr << kProgram << ": skipped " << why << "\n";
  if (train.examples.empty()) throw ModelError(a.dataset + ": no training examples (kinds " + a.kinds + ")");

  // Tokenizer: from the checkpoint, a given folder, the state being resumed, or trained here.
  std::optional<Tokenizer> tokenizer;
  std::string tokenizerSource;
  for (const std::string &dir : {a.resume, a.init, a.tokenizerDir})
    if (!dir.empty() && !tokenizer && fs::exists(fs::path(dir) / "tokenizer.json")) {
      tokenizer = Tokenizer::fromFile((fs::path(dir) / "tokenizer.json").string());
      tokenizerSource = dir;
    }
  if (!tokenizer) {
    if (!a.init.empty() || !a.tokenizerDir.empty() || !a.resume.empty())
      throw ModelError("no tokenizer.json in " + (a.init.empty() ? a.tokenizerDir.empty() ? a.resume : a.tokenizerDir : a.init));
    // A deterministic sample: every task's prompt once, then answers, up to the size limit.
    std::vector<std::string> texts;
    size_t budget = size_t(a.tokenizerSampleMb * 1e6), used = 0;
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
    bpe.vocabSize = size_t(a.vocab);
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
  int32_t endOfTurn = special("<|im_end|>");
  int32_t padId = tokenizer->tokenToId("<|pad|>").value_or(tokenizer->tokenToId("<|endoftext|>").value_or(0));
  auto t1 = Clock::now();
  encodeExamples(train.examples, *tokenizer, endOfTurn);
  encodeExamples(val.examples, *tokenizer, endOfTurn);
  auto dropLong = [&](std::vector<Example> &ex) {
    size_t before = ex.size();
    ex.erase(std::remove_if(ex.begin(), ex.end(), [&](const Example &e) { return int64_t(e.ids.size()) > a.maxSeqLen; }),
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
            << a.maxSeqLen << " tokens\n";
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
                              {"skipped_tasks", train.skippedTasks}, {"refinement_examples", refinements(train)}};
  ordered_json valReport = {{"tasks", val.tasks}, {"examples", val.examples.size()}, {"dropped_too_long", droppedVal},
                            {"refinement_examples", refinements(val)}};
  repairReport(trainReport, train.examples, repairBuiltTrain);
  repairReport(valReport, val.examples, repairBuiltVal);
  // sft-report.json's data part; a dry run adds its options, training adds the model and the run's figures.
  ordered_json report = {{"schema", "cudaperf-sft-report/1"},
                         {"dataset", a.dataset},
                         {"train", trainReport},
                         {"val", valReport},
                         {"strategy_label_in_prompt", false},
                         {"tokenizer", {{"source", tokenizerSource}, {"vocab_size", tokenizer->vocabSize()}}}};
  if (root && !a.dumpExamples.empty()) {
    std::ofstream dump(a.dumpExamples);
    for (const auto &[split, set] : {std::pair<const char *, const ExampleSet *>{"train", &train}, {"val", &val}})
      for (const Example &e : set->examples)
        dump << support::writeJson(ordered_json{{"split", split},
                                                {"kind", !e.repair.empty() ? "repair:" + e.repair
                                                         : e.refinement    ? std::string("refinement")
                                                                           : std::string("single")},
                                                {"prompt", e.prompt}, {"answer", e.answer}, {"tokens", e.ids.size()}})
             << "\n";
    if (!dump) throw ModelError(a.dumpExamples + ": cannot write");
  }
  if (a.dryRun) {
    if (root) {
      report["dry_run"] = true;
      report["steps"] = 0;
      report["options"] = {{"max_seq_len", a.maxSeqLen}, {"seed", a.seed}, {"refinement_examples", a.refinement},
                           {"repair_examples", a.repair}};
      report["total_seconds"] = since(start);
      std::ofstream(fs::path(a.out) / "sft-report.json") << support::writeJson(report, 2) << "\n";
    }
    std::cerr << kProgram << ": --dry-run: " << train.examples.size() << " training examples kept ("
              << repairs(train.examples) << " repair), report in " << (fs::path(a.out) / "sft-report.json").string()
              << "\n";
    return kExitOk;
  }

  // Model.
  torch::manual_seed(a.seed);
  CausalLm model(nullptr);
  LoraOptions lora;
  if (!a.init.empty()) {
    model = loadPretrained(a.init, LoadOptions{device, dtype, false});
  } else {
    ModelConfig config = !a.modelConfig.empty() ? ModelConfig::fromFile(a.modelConfig) : defaultSftConfig(int64_t(tokenizer->vocabSize()));
    if (config.vocabSize < int64_t(tokenizer->vocabSize()))
      throw ModelError("the model's vocab_size " + std::to_string(config.vocabSize) + " is smaller than the tokenizer's " +
                       std::to_string(tokenizer->vocabSize()));
    config.eosTokenIds = {endOfTurn};
    config.padTokenId = padId;
    config.bosTokenId.reset();
    config.dtype = torchDtypeName(dtype);
    std::cerr << kProgram << ": new " << config.architecture() << ": " << humanCount(double(config.parameterCount()))
              << " parameters, weights " << humanBytes(weightBytes(config, dtype)) << " + training state "
              << humanBytes(double(config.parameterCount()) * (dtype == torch::kFloat32 ? 12 : 14)) << " on " << device.str()
              << "\n";
    model = CausalLm(config, torch::TensorOptions().dtype(dtype).device(device));
    model->initializeRandom(a.seed);
  }
  if (a.loraRank > 0) {
    lora = parseLora(a.loraRank, a.loraAlpha, a.loraDropout, a.loraTargets);
    model->attachLora(lora);
  }
  model->train();

  // Batches and the plan.
  std::vector<std::vector<size_t>> trainBatches = packByLength(train.examples, a.microTokens);
  std::vector<std::vector<size_t>> valBatches = packByLength(val.examples, a.microTokens);
  int64_t accumulation = std::max<int64_t>(1, (a.batchTokens + a.microTokens - 1) / a.microTokens);
  int64_t stepsPerEpoch = std::max<int64_t>(1, int64_t(trainBatches.size()) / accumulation);
  int64_t plannedSteps = a.steps > 0 ? a.steps : std::max<int64_t>(1, int64_t(a.epochs * double(stepsPerEpoch)));
  TrainerOptions options;
  options.learningRate = a.lr;
  options.weightDecay = a.weightDecay;
  options.gradClip = a.gradClip;
  options.schedule.warmupSteps = std::min(a.warmup, plannedSteps / 4);
  options.schedule.totalSteps = plannedSteps;
  options.schedule.minRatio = a.minLrRatio;
  if (!a.resume.empty()) { // the schedule as it was (a time budget may have shortened it)
    json state = support::parseJson(readFile(fs::path(a.resume) / "trainer_state.json"), a.resume + "/trainer_state.json");
    options.schedule.totalSteps = state["extra"].value("total_steps", options.schedule.totalSteps);
    options.schedule.warmupSteps = state["options"]["schedule"].value("warmup_steps", options.schedule.warmupSteps);
  }
  Trainer trainer(model, options);
  if (world > 1)
    trainer.setGradientReducer([&dp](const std::vector<torch::Tensor> &params) { dp->reduceGradients(params); });
  if (!a.resume.empty()) {
    trainer.load(a.resume);
    std::cerr << kProgram << ": resumed " << a.resume << " at step " << trainer.stepsDone() << "\n";
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
    std::shuffle(order.begin(), order.end(), std::mt19937_64(a.seed * 1000003 + uint64_t(epoch)));
    return order[size_t(index)];
  };
  std::cerr << kProgram << ": " << trainBatches.size() << " micro-batches of <= " << a.microTokens << " tokens, "
            << accumulation << " per step, " << stepsPerEpoch << " steps per epoch; planned " << plannedSteps << " steps\n";

  std::ofstream log;
  if (root) log.open(fs::path(a.out) / "train-log.jsonl", a.resume.empty() ? std::ios::trunc : std::ios::app);
  std::vector<std::pair<double, double>> trainCurve, valCurve;
  auto evaluate = [&]() {
    torch::NoGradGuard noGrad;
    model->eval();
    double nll = 0;
    int64_t count = 0;
    for (int64_t b = dp->rank(); b < std::min<int64_t>(a.evalBatches, int64_t(valBatches.size())); b += world) {
      // Spread over the sorted batches, so short and long examples are both measured.
      size_t index = size_t(b * int64_t(valBatches.size()) / std::max<int64_t>(1, std::min<int64_t>(a.evalBatches, int64_t(valBatches.size()))));
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
  lp.gradientCheckpointing = a.checkpointing;
  while (trainer.stepsDone() < options.schedule.totalSteps && (a.stopAfter == 0 || trainer.stepsDone() < a.stopAfter)) {
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
    if (a.maxSeconds > 0 && windowStart >= 0 && r.step >= nextEstimateAt) {
      double elapsed = trainElapsed;
      double stepSeconds = (elapsed - windowStartTime) / double(r.step - windowStart);
      windowStartTime = elapsed;
      windowStart = r.step;
      nextEstimateAt = r.step - firstStep < 50 ? firstStep + 50 : firstStep + (r.step - firstStep) * 2;
      int64_t affordable = r.step + int64_t((a.maxSeconds - elapsed) / std::max(1e-6, stepSeconds));
      int64_t total = std::max<int64_t>(r.step + 1, std::min<int64_t>(plannedSteps, affordable));
      if (total != options.schedule.totalSteps) {
        std::cerr << "\n" << kProgram << ": --max-seconds " << a.maxSeconds << " allows ~" << affordable
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
    if (r.step % a.evalEvery == 0 || r.step == options.schedule.totalSteps) {
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
    if (a.maxSeconds > 0 && trainElapsed > a.maxSeconds && r.step < options.schedule.totalSteps) {
      std::cerr << "\n" << kProgram << ": --max-seconds reached at step " << r.step << " of "
                << options.schedule.totalSteps << "\n";
      break;
    }
    if (root && a.saveEvery > 0 && r.step % a.saveEvery == 0) {
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
  save.maxShardBytes = size_t(a.shardMb * 1e6);
  savePretrained(*model, checkpointDir.string(), save);
  if (a.loraRank > 0) saveLoraAdapter(*model, (fs::path(a.out) / "adapter").string(), lora, a.init);
  TokenizerConfigOptions tokenizerConfig;
  tokenizerConfig.padToken = tokenizer->idToToken(padId);
  if (!a.init.empty()) copyTokenizerFiles(a.init, checkpointDir.string());
  else saveTokenizerDirectory(*tokenizer, checkpointDir.string(), tokenizerConfig);
  trainer.save(stateDir.string(), {{"total_steps", options.schedule.totalSteps}});
  tokenizer->save((stateDir / "tokenizer.json").string());
  writeSvgLinePlot((fs::path(a.out) / "loss.svg").string(),
                   {{"train loss", trainCurve}, {"validation loss", valCurve}},
                   {"cudaperf-train sft", "optimizer step", "loss (nats per answer token)"});
  report["model"] = {{"architecture", model->config.architecture()}, {"parameters", model->config.parameterCount()},
                     {"init", a.init.empty() ? json("random") : json(a.init)}, {"lora_rank", a.loraRank}};
  report["device"] = device.str();
  report["dtype"] = torchDtypeName(dtype);
  report["steps"] = trainer.stepsDone();
  report["epochs"] = double(trainer.stepsDone()) / double(stepsPerEpoch);
  report["tokens_seen"] = tokensSeen;
  report["train_seconds"] = trainSeconds;
  report["final_train_loss"] = lastLoss;
  report["final_val_loss"] = lastVal;
  report["options"] = {{"lr", a.lr}, {"warmup", options.schedule.warmupSteps}, {"batch_tokens", a.batchTokens},
                       {"micro_batch_tokens", a.microTokens}, {"max_seq_len", a.maxSeqLen}, {"seed", a.seed},
                       {"gradient_checkpointing", a.checkpointing}, {"refinement_examples", a.refinement},
                       {"repair_examples", a.repair}};
  report["total_seconds"] = since(start);
  report["world_size"] = world;
  std::ofstream(fs::path(a.out) / "sft-report.json") << support::writeJson(report, 2) << "\n";
  std::cerr << kProgram << ": " << trainer.stepsDone() << " steps in " << trainSeconds << " s; train loss " << lastLoss
            << ", validation loss " << lastVal << "; checkpoint in " << checkpointDir.string() << "\n";
  return kExitOk;
}

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
  if (loraRank > 0) model->attachLora(parseLora(loraRank, 0, 0, loraTargets));
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

#ifdef CUDAPERF_HAVE_RL
// ---------------------------------------------------------------------------------------------
// repair-examples: what SFT's repair examples are made of (docs/training.md, "Repair examples"): per task
// the broken answer, nvcc's predicted log and the feedback; with --every, the eligible mutations themselves
// (for checking them against nvcc: test/learn/repair-nvcc-test.sh).

int runRepairExamples(const std::vector<std::string> &argv) {
  std::string dataset, out, splitList = "train,val", kindList = "c,pytorch";
  uint64_t seed = 0;
  int64_t every = 0;
  support::ArgParser p(std::string(kProgram) + " repair-examples", {"--dataset DIR --out FILE [options]"},
                       "Writes, per task, the earlier answer of the repair example `sft` builds (one of the task's "
                       "implementations broken so that nvcc rejects it), the log nvcc prints for it in the "
                       "evaluator's build and the feedback RL gives that, as JSON Lines. Nothing is compiled.");
  p.option("--dataset", "DIR", "the generated dataset (manifest.jsonl)", dataset);
  p.option("--out", "FILE", "JSON Lines output", out);
  p.option("--splits", "LIST", "splits (default train,val: those sft uses)", splitList);
  p.option("--kinds", "LIST", "task kinds: c, pytorch (default both)", kindList);
  p.option("--seed", "N", "as sft's --seed (default 0)", [&](const std::string &v) { seed = support::parseUnsigned(v); });
  p.option("--every", "N",
           "instead of the chosen example, up to N mutations of each kind per implementation, spread over the "
           "eligible ones",
           [&](const std::string &v) { every = support::parseInteger(v, 1, 1 << 20); });
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  if (dataset.empty() || out.empty()) throw support::UsageError("--dataset and --out are required");
  std::vector<ManifestTask> manifest = readManifest(dataset);
  std::set<std::string> splits, kinds;
  for (const std::string &s : learn::splitList(splitList)) splits.insert(s);
  for (const std::string &k : learn::splitList(kindList)) kinds.insert(k);
  std::ofstream file(out);
  if (!file) throw ModelError(out + ": cannot write");
  std::map<std::string, int64_t> counts;
  int64_t tasks = 0, without = 0;
  for (const ManifestTask &t : manifest) {
    if (!splits.count(t.split) || (!kinds.empty() && !kinds.count(t.kind))) continue;
    PolicyTask task = loadPolicyTask(t.dir);
    std::vector<std::string> sources;
    for (const std::string &f : t.implementations) sources.push_back(readFile(fs::path(t.dir) / f));
    auto write = [&](size_t implementation, const BrokenAnswer &b) {
      ++counts[repairMutationName(b.mutation)];
      ordered_json line = {{"task", t.name}, {"task_dir", t.dir}, {"split", t.split},
                           {"implementation", t.implementations[implementation]},
                           {"mutation", repairMutationName(b.mutation)}, {"line", b.line}};
      if (b.mutation == RepairMutation::Truncation) line["open_blocks"] = b.openBlocks;
      else line["identifier"] = b.identifier, line["replaced"] = b.replaced;
      line["source"] = b.source;
      line["compile_log"] = b.compileLog;
      line["feedback"] = b.feedback;
      file << support::writeJson(line) << "\n";
    };
    ++tasks;
    if (every == 0) {
      if (std::optional<RepairChoice> r = chooseRepair(task.task, sources, seed)) write(r->implementation, r->broken);
      else ++without;
      continue;
    }
    for (size_t i = 0; i < sources.size(); ++i) {
      std::vector<std::string> others;
      for (size_t j = 0; j < sources.size(); ++j)
        if (j != i) others.push_back(sources[j]);
      for (std::vector<BrokenAnswer> found :
           {truncations(task.task, sources[i]), undeclaredIdentifiers(task.task, sources[i], others)}) {
        size_t n = std::min(found.size(), size_t(every));
        for (size_t k = 0; k < n; ++k) {
          BrokenAnswer &b = found[k * found.size() / n];
          b.feedback = repairFeedback(task.task, b.compileLog);
          write(i, b);
        }
      }
    }
  }
  if (!file.flush()) throw ModelError(out + ": cannot write");
  std::cerr << kProgram << ": " << tasks << " tasks: " << counts["truncation"] << " truncations, "
            << counts["undeclared_identifier"] << " undeclared identifiers";
  if (every == 0) std::cerr << ", " << without << " tasks without a repair example";
  std::cerr << "\n";
  return kExitOk;
}
#endif

} // namespace

namespace cudaperf::learn {
int runDataParallelCheck(const std::vector<std::string> &argv); // dp-check.cpp
int runPromptCommand(const std::vector<std::string> &argv);     // prompt.cpp
}

int main(int argc, char **argv) {
  return runSubcommands(kProgram, argc, argv,
                        {{"sft", "supervised fine-tuning on the dataset's train split (make sft)", runSft},
                         {"sample", "candidates for held-out tasks, for cudaperf-eval --batch", runSample},
                         {"fit", "one training step of a model shape (memory-fit measurements)", runFit},
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
