// `cudaperf-train sft`'s command line: --config FILE first, then the flags and --set KEY=VALUE in the order
// given, into one SftConfig (SftConfig.h); then runSft (Sft.cpp). A flag's value is checked as it is read
// (a bad one is a usage error, exit 2); a config file's or a --set's bad key or value is an input error
// (exit 1) that names the key.
#include "cudaperf/Learn/Sft.h"
#include "cudaperf/Learn/ToolMain.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Json.h"

#include <functional>
#include <iostream>

namespace cudaperf::learn {

int runSftCommand(const std::vector<std::string> &argv) {
  std::string configPath;
  bool printConfig = false;
  DataParallelArgs dp;
  std::vector<std::function<void(SftConfig &)>> settings; // the flags and --set, in command-line order
  support::ArgParser p("cudaperf-train sft", {"--dataset DIR --out DIR [options]", "--config FILE [--set KEY=VALUE]..."},
                       "Supervised fine-tuning on the dataset's train split: prompts are the tasks (the policy's "
                       "prompt format, no strategy label), answers their implementations (every strategy). "
                       "Trains a byte-level BPE tokenizer and a ~23M-parameter model unless --init names a "
                       "checkpoint. Writes OUT/checkpoint (Hugging Face layout), OUT/train-log.jsonl, "
                       "OUT/loss.svg, OUT/sft-config.json (every setting), OUT/sft-report.json.");
  auto text = [&](std::string SftConfig::*field) {
    return [&settings, field](const std::string &v) { settings.push_back([field, v](SftConfig &c) { c.*field = v; }); };
  };
  auto integer = [&](int64_t SftConfig::*field, int64_t lo, int64_t hi) {
    return [&settings, field, lo, hi](const std::string &v) {
      int64_t x = support::parseInteger(v, lo, hi);
      settings.push_back([field, x](SftConfig &c) { c.*field = x; });
    };
  };
  auto number = [&](double SftConfig::*field, double lo, double hi) {
    return [&settings, field, lo, hi](const std::string &v) {
      double x = support::parseNumber(v, lo, hi);
      settings.push_back([field, x](SftConfig &c) { c.*field = x; });
    };
  };
  auto onOff = [&](bool SftConfig::*field) {
    return [&settings, field](const std::string &v) {
      bool x = support::parseOnOff(v);
      settings.push_back([field, x](SftConfig &c) { c.*field = x; });
    };
  };
  auto flag = [&](bool SftConfig::*field) {
    return [&settings, field] { settings.push_back([field](SftConfig &c) { c.*field = true; }); };
  };
  p.option("--config", "FILE", "SFT config (JSON, the keys of --print-config), read before the other options", configPath);
  p.option("--set", "KEY=VALUE", "override one config key (repeatable; VALUE as JSON, else a string)",
           [&settings](const std::string &v) { settings.push_back([v](SftConfig &c) { applySftConfigOverride(c, v); }); });
  p.flag("--print-config", "print the config in effect (every key) and exit", printConfig);
  p.option("--dataset", "DIR", "the generated dataset (manifest.jsonl; cudaperf-dataset generate)", text(&SftConfig::dataset));
  p.option("--out", "DIR", "output folder", text(&SftConfig::out));
  p.option("--init", "DIR", "fine-tune this Hugging Face checkpoint (its tokenizer) instead of a new model", text(&SftConfig::init));
  p.option("--tokenizer", "DIR", "use this folder's tokenizer.json instead of training one", text(&SftConfig::tokenizer));
  p.option("--model-config", "FILE", "config.json shape of the new model (default: the built-in ~23M shape)",
           text(&SftConfig::modelConfig));
  p.option("--vocab", "N", "tokenizer vocabulary when one is trained (default 8192)", integer(&SftConfig::vocab, 300, 1 << 20));
  p.option("--tokenizer-sample-mb", "MB", "text the tokenizer is trained on (default 8)",
           number(&SftConfig::tokenizerSampleMb, 0.01, 1e4));
  p.option("--kinds", "LIST", "task kinds: c, pytorch (default both)", text(&SftConfig::kinds));
  p.option("--device", "DEV", "cuda (default) or cpu", text(&SftConfig::device));
  p.option("--dtype", "TYPE", "bfloat16 (default; fp32 master weights) or float32", text(&SftConfig::dtype));
  p.option("--epochs", "E", "passes over the train split (default 3), unless --steps", number(&SftConfig::epochs, 0.001, 1e6));
  p.option("--steps", "N", "optimizer steps (overrides --epochs)", integer(&SftConfig::steps, 1, 1 << 30));
  p.option("--max-seconds", "S", "stop after S seconds of training; the schedule is re-planned to end there",
           number(&SftConfig::maxSeconds, 1, 1e7));
  p.option("--batch-tokens", "N", "padded tokens per optimizer step (default 32768)",
           integer(&SftConfig::batchTokens, 16, 1 << 30));
  p.option("--micro-batch-tokens", "N", "padded tokens per forward pass (default 16384)",
           integer(&SftConfig::microBatchTokens, 16, 1 << 30));
  p.option("--max-seq-len", "N", "longer examples are dropped (default 2048)", integer(&SftConfig::maxSeqLen, 16, 1 << 20));
  p.option("--lr", "X", "peak learning rate (default 1e-3; LoRA and fine-tuning want less)", number(&SftConfig::lr, 0, 10));
  p.option("--warmup", "N", "warm-up steps (default 100)", integer(&SftConfig::warmup, 0, 1 << 30));
  p.option("--min-lr-ratio", "X", "final learning rate / peak (default 0.1; cosine decay)", number(&SftConfig::minLrRatio, 0, 1));
  p.option("--weight-decay", "X", "AdamW weight decay (default 0.1)", number(&SftConfig::weightDecay, 0, 10));
  p.option("--grad-clip", "X", "max gradient norm (default 1; 0 off)", number(&SftConfig::gradClip, 0, 1e9));
  p.option("--eval-every", "N", "validation loss every N steps (default 200)", integer(&SftConfig::evalEvery, 1, 1 << 30));
  p.option("--eval-batches", "N", "validation micro-batches per evaluation (default 16)",
           integer(&SftConfig::evalBatches, 1, 1 << 20));
  p.option("--save-every", "N", "trainer state (exact resume) every N steps into OUT/state (default: only at the end)",
           integer(&SftConfig::saveEvery, 1, 1 << 30));
  p.option("--resume", "DIR", "continue from a trainer state (OUT/state)", text(&SftConfig::resume));
  p.option("--stop-after-steps", "N", "stop (and save the state) after step N, the schedule unchanged: a run split "
           "over several sessions, continued with --resume", integer(&SftConfig::stopAfterSteps, 1, 1 << 30));
  p.option("--lora-rank", "R", "LoRA of rank R instead of full fine-tuning (with --init)", integer(&SftConfig::loraRank, 0, 4096));
  p.option("--lora-alpha", "X", "LoRA alpha (default 2 * rank)", number(&SftConfig::loraAlpha, 0, 1e6));
  p.option("--lora-dropout", "X", "LoRA dropout (default 0)", number(&SftConfig::loraDropout, 0, 0.99));
  p.option("--lora-targets", "LIST", "LoRA modules (default q_proj,k_proj,v_proj,o_proj)", text(&SftConfig::loraTargets));
  p.flag("--gradient-checkpointing", "recompute each layer in backward (less memory)", flag(&SftConfig::gradientCheckpointing));
  p.option("--refinement-examples", "on|off",
           "also one two-turn example per task: a slow implementation with its feedback, then a fast one (default on)",
           onOff(&SftConfig::refinementExamples));
  p.option("--repair-examples", "on|off",
           "also one two-turn example per task: one of its implementations broken so that nvcc rejects it (cut off "
           "as at the token cap, or an undeclared name), the feedback RL gives that, then the intact implementation "
           "(default on)",
           onOff(&SftConfig::repairExamples));
  p.option("--measured-examples", "DIR|none",
           "also one two-turn example per task measured in DIR (results-*.jsonl[.zst], e.g. data/measured/dataset-h200): "
           "its slowest measured implementation, the feedback RL gives that result, then its fastest (default none)",
           text(&SftConfig::measuredExamples));
  p.flag("--dry-run", "build, tokenize and count the examples, write OUT/sft-report.json, and stop before the model",
         flag(&SftConfig::dryRun));
  p.option("--dump-examples", "FILE", "write the examples kept (JSON Lines: split, kind, prompt, answer, tokens)",
           text(&SftConfig::dumpExamples));
  p.option("--seed", "N", "seed of the weights, the data order and dropout (default 0)", [&settings](const std::string &v) {
    uint64_t x = support::parseUnsigned(v);
    settings.push_back([x](SftConfig &c) { c.seed = x; });
  });
  p.option("--threads", "N", "LibTorch CPU threads (default 1)", integer(&SftConfig::threads, 1, 256));
  p.option("--max-shard-mb", "MB", "largest checkpoint file (default 15)", number(&SftConfig::maxShardMb, 0.01, 1e6));
  declareDataParallelOptions(p, dp);
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  SftConfig config = configPath.empty() ? SftConfig{} : loadSftConfig(configPath);
  for (const auto &apply : settings) apply(config);
  if (printConfig) return std::cout << support::writeJson(sftConfigToJson(config), 2) << "\n", kExitOk;
  if (config.dataset.empty() || config.out.empty()) throw support::UsageError("--dataset and --out are required");
  if (config.loraRank > 0 && config.init.empty()) throw support::UsageError("--lora-rank needs --init (a model to adapt)");
  return runSft(config, dp);
}

} // namespace cudaperf::learn
