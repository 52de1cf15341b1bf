#include "cudaperf/Learn/SftConfig.h"

#include "cudaperf/Learn/ConfigFields.h"

namespace cudaperf::learn {

namespace {

using support::Json;

constexpr double kInt30 = double(1 << 30);

// The key of each flag is its name without "--", dashes as underscores; the on|off flags are booleans.
// Numbers: the range allowed (the flag's, with 0 where 0 means "off").
const ConfigFields<SftConfig> &fields() {
  static const ConfigFields<SftConfig> table("cudaperf-sft-config/1", "SFT settings", "cudaperf-train sft --print-config", {
      {"dataset", &SftConfig::dataset, 0, 0, "the generated dataset (manifest.jsonl; cudaperf-dataset generate)"},
      {"out", &SftConfig::out, 0, 0, "output folder"},
      {"kinds", &SftConfig::kinds, 0, 0, "task kinds, comma-separated: c, pytorch"},
      {"refinement_examples", &SftConfig::refinementExamples, 0, 0,
       "also one two-turn example per task: a slow implementation with its feedback, then a fast one"},
      {"repair_examples", &SftConfig::repairExamples, 0, 0,
       "also one two-turn example per task: an implementation broken so that nvcc rejects it, the feedback RL gives "
       "that, then the intact implementation"},
      {"measured_examples", &SftConfig::measuredExamples, 0, 0,
       "folder of measured evaluator results (*.jsonl[.zst], e.g. data/measured/dataset-h200): also one two-turn example "
       "per measured task of the split: its slowest measured implementation, the feedback RL gives that result, then "
       "its fastest (at least 1.25x faster); none: off"},
      {"max_seq_len", &SftConfig::maxSeqLen, 16, double(1 << 20), "longer examples are dropped"},
      {"dump_examples", &SftConfig::dumpExamples, 0, 0, "write the examples kept (JSON Lines); empty: none"},
      {"dry_run", &SftConfig::dryRun, 0, 0, "build, tokenize and count the examples, write the report, stop before the model"},
      {"init", &SftConfig::init, 0, 0, "fine-tune this Hugging Face checkpoint (its tokenizer); empty: a new model"},
      {"tokenizer", &SftConfig::tokenizer, 0, 0, "use this folder's tokenizer.json instead of training one"},
      {"model_config", &SftConfig::modelConfig, 0, 0, "config.json shape of the new model; empty: the built-in ~23M shape"},
      {"vocab", &SftConfig::vocab, 300, double(1 << 20), "tokenizer vocabulary when one is trained"},
      {"tokenizer_sample_mb", &SftConfig::tokenizerSampleMb, 0.01, 1e4, "text the tokenizer is trained on (MB)"},
      {"device", &SftConfig::device, 0, 0, "cuda, cuda:N or cpu"},
      {"dtype", &SftConfig::dtype, 0, 0, "bfloat16 (fp32 master weights) or float32"},
      {"lora_rank", &SftConfig::loraRank, 0, 4096, "LoRA of this rank instead of full fine-tuning (with init); 0: off"},
      {"lora_alpha", &SftConfig::loraAlpha, 0, 1e6, "LoRA alpha; 0: 2 x rank"},
      {"lora_dropout", &SftConfig::loraDropout, 0, 0.99, "LoRA dropout"},
      {"lora_targets", &SftConfig::loraTargets, 0, 0, "LoRA modules, comma-separated; empty: q_proj,k_proj,v_proj,o_proj"},
      {"gradient_checkpointing", &SftConfig::gradientCheckpointing, 0, 0, "recompute each layer in backward"},
      {"epochs", &SftConfig::epochs, 0.001, 1e6, "passes over the train split, unless steps"},
      {"steps", &SftConfig::steps, 0, kInt30, "optimizer steps (overrides epochs); 0: from epochs"},
      {"max_seconds", &SftConfig::maxSeconds, 0, 1e7, "stop after this many seconds of training, the schedule re-planned to end there; 0: off"},
      {"batch_tokens", &SftConfig::batchTokens, 16, kInt30, "padded tokens per optimizer step"},
      {"micro_batch_tokens", &SftConfig::microBatchTokens, 16, kInt30, "padded tokens per forward pass"},
      {"lr", &SftConfig::lr, 0, 10, "peak learning rate"},
      {"warmup", &SftConfig::warmup, 0, kInt30, "warm-up steps (at most a quarter of the planned steps)"},
      {"min_lr_ratio", &SftConfig::minLrRatio, 0, 1, "final learning rate / peak (cosine decay)"},
      {"weight_decay", &SftConfig::weightDecay, 0, 10, "AdamW weight decay"},
      {"grad_clip", &SftConfig::gradClip, 0, 1e9, "max gradient norm; 0: off"},
      {"eval_every", &SftConfig::evalEvery, 1, kInt30, "validation loss every N steps"},
      {"eval_batches", &SftConfig::evalBatches, 1, double(1 << 20), "validation micro-batches per evaluation"},
      {"save_every", &SftConfig::saveEvery, 0, kInt30, "trainer state (exact resume) every N steps into OUT/state; 0: only at the end"},
      {"resume", &SftConfig::resume, 0, 0, "continue from this trainer state (OUT/state); empty: a new run"},
      {"stop_after_steps", &SftConfig::stopAfterSteps, 0, kInt30, "stop (and save the state) after this step, the schedule unchanged; 0: off"},
      {"seed", &SftConfig::seed, 0, 0, "seed of the weights, the data order, dropout and the repair examples"},
      {"threads", &SftConfig::threads, 1, 256, "LibTorch CPU threads"},
      {"max_shard_mb", &SftConfig::maxShardMb, 0.01, 1e6, "largest checkpoint file (MB)"},
  });
  return table;
}

} // namespace

std::vector<SftConfigKeyInfo> sftConfigKeys() { return fields().keys(); }

Json sftConfigToJson(const SftConfig &config) { return fields().toJson(config); }

void applySftConfigJson(SftConfig &config, const Json &doc, const std::string &source) {
  fields().apply(config, doc, source);
}

SftConfig sftConfigFromJson(const Json &doc, const std::string &source) {
  SftConfig config;
  applySftConfigJson(config, doc, source);
  return config;
}

SftConfig loadSftConfig(const std::string &path) { return fields().load(path); }

void applySftConfigOverride(SftConfig &config, const std::string &assignment) {
  fields().applyOverride(config, assignment);
}

} // namespace cudaperf::learn
