// cudaperf-lm: the policy model from the command line (docs/policy-model.md).
//   info      the configuration, parameter count and memory estimates (no weights loaded)
//   tokenize  token ids of a file as JSON
//   logits    the last position's logits for token ids
//   generate  batched generation (greedy or sampled), with timing
//   init      a randomly initialised checkpoint from a config.json
//   convert   re-save a checkpoint (dtype, shards) in Hugging Face layout
#include "cudaperf/Learn/ToolMain.h"
#include "cudaperf/Learn/Generation.h"
#include "cudaperf/Learn/Tokenizer.h"
#include "cudaperf/Learn/Transformer.h"
#include "cudaperf/Support/ArgParser.h"

#include "cudaperf/Support/Json.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

using namespace cudaperf;
using namespace cudaperf::learn;
namespace fs = std::filesystem;
using ordered_json = support::Json;

namespace {

const char *kProgram = "cudaperf-lm";

std::string readFile(const std::string &path) {
  std::ostringstream s;
  if (path == "-") {
    s << std::cin.rdbuf();
    return s.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path + ": cannot open");
  s << in.rdbuf();
  return s.str();
}

std::vector<int32_t> parseIds(const std::string &text) {
  std::vector<int32_t> ids;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    ids.push_back(int32_t(support::parseInteger(item, 0, INT32_MAX)));
  }
  if (ids.empty()) throw support::UsageError("--ids: no token ids in '" + text + "'");
  return ids;
}

// What every model-using subcommand shares: where the model comes from, device, dtype, threads.
struct ModelArgs {
  std::string model, randomInit, device = "cpu", dtype, tokenizer;
  uint64_t seed = 0;
  int64_t threads = 1;
  bool eagerAttention = false;

  void declare(support::ArgParser &p, bool allowRandom) {
    p.option("--model", "DIR", "Hugging Face checkpoint folder (config.json, safetensors, tokenizer.json)", model);
    if (allowRandom)
      p.option("--random-init", "CONFIG", "no checkpoint: random weights of this config.json shape (benchmarks)",
               randomInit);
    p.option("--device", "DEV", "cpu (default), cuda or cuda:N", device);
    p.option("--dtype", "TYPE", "float32, bfloat16 or float16 (default: float32 on cpu, bfloat16 on cuda)", dtype);
    p.option("--tokenizer", "DIR", "folder with tokenizer.json (default: the model folder)", tokenizer);
    p.option("--seed", "N", "random seed (weights of --random-init; sampling)",
             [this](const std::string &v) { seed = support::parseUnsigned(v); });
    p.option("--threads", "N", "CPU threads for LibTorch (default 1)",
             [this](const std::string &v) { threads = support::parseInteger(v, 1, 256); });
    p.flag("--eager-attention", "the plain attention arithmetic even where LibTorch has the fused kernel",
           eagerAttention);
  }

  CausalLm load() const {
    if (model.empty() == randomInit.empty())
      throw support::UsageError(randomInit.empty() ? "--model DIR is required" : "give --model or --random-init, not both");
    torch::set_num_threads(int(threads));
    torch::Device dev = parseDevice(device);
    torch::Dtype type = dtype.empty() ? (dev.is_cuda() ? torch::kBFloat16 : torch::kFloat32) : parseTorchDtype(dtype);
    CausalLm m(nullptr);
    if (!randomInit.empty()) {
      ModelConfig config = ModelConfig::fromFile(randomInit);
      std::cerr << kProgram << ": random " << config.architecture() << ", " << humanCount(double(config.parameterCount()))
                << " parameters, " << humanBytes(weightBytes(config, type)) << " in " << torchDtypeName(type) << " on "
                << dev.str() << "\n";
      m = CausalLm(config, torch::TensorOptions().dtype(type).device(dev));
      m->initializeRandom(seed);
      m->eval();
    } else {
      m = loadPretrained(model, LoadOptions{dev, type, false});
    }
    if (eagerAttention) m->setFusedAttention(false);
    return m;
  }

  std::optional<Tokenizer> tokenizerIfAny() const {
    std::string dir = !tokenizer.empty() ? tokenizer : model;
    if (dir.empty() || !fs::exists(fs::path(dir) / "tokenizer.json")) return std::nullopt;
    return Tokenizer::fromFile((fs::path(dir) / "tokenizer.json").string());
  }
  Tokenizer requireTokenizer(const std::string &why) const {
    auto t = tokenizerIfAny();
    if (!t) throw ModelError("no tokenizer.json in " + (!tokenizer.empty() ? tokenizer : model.empty() ? "(none)" : model) +
                             " (needed for " + why + "; --tokenizer DIR names another folder)");
    return *t;
  }
};

std::vector<float> toVector(const torch::Tensor &t) {
  torch::Tensor c = t.to(torch::kCPU, torch::kFloat32).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void synchronize(const torch::Device &device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

// ---------------------------------------------------------------------------------------------

int runInfo(const std::vector<std::string> &args) {
  std::string model;
  support::ArgParser p(std::string(kProgram) + " info", {"--model DIR"},
                       "Prints the model's shape, parameter count and memory estimates as JSON; loads no weights.");
  p.option("--model", "DIR", "Hugging Face checkpoint folder", model);
  if (p.parse(args).helpRequested) return std::cout << p.help(), kExitOk;
  if (model.empty()) throw support::UsageError("--model DIR is required");
  ModelConfig c = ModelConfig::fromFolder(model);
  double params = double(c.parameterCount());
  ordered_json out = {{"schema", "cudaperf-lm-info/1"},
                      {"model", model},
                      {"architecture", c.architecture()},
                      {"model_type", c.modelType},
                      {"parameters", c.parameterCount()},
                      {"layers", c.numLayers},
                      {"hidden_size", c.hiddenSize},
                      {"intermediate_size", c.intermediateSize},
                      {"heads", c.numHeads},
                      {"kv_heads", c.numKvHeads},
                      {"head_dim", c.headDim},
                      {"vocab_size", c.vocabSize},
                      {"tie_word_embeddings", c.tieWordEmbeddings},
                      {"rope", {{"type", c.rope.type}, {"theta", c.rope.theta}}},
                      {"checkpoint_dtype", c.dtype}};
  // Estimates by arithmetic (docs/training.md): bytes per parameter of each use.
  out["memory_bytes"] = {{"weights_float32", params * 4},
                         {"weights_bfloat16", params * 2},
                         {"kv_cache_per_token_bfloat16", c.kvCacheBytesPerToken(2)},
                         {"full_finetune_bf16_adamw_fp32_master", params * 16},
                         {"lora_bf16_base", params * 2}};
  try {
    SafetensorsCheckpoint ckpt = SafetensorsCheckpoint::openFolder(model);
    out["checkpoint"] = {{"files", ckpt.files().size()}, {"tensors", ckpt.names().size()}, {"bytes", ckpt.totalBytes()}};
  } catch (const SafetensorsError &e) {
    out["checkpoint"] = {{"error", e.what()}};
  }
  if (fs::exists(fs::path(model) / "tokenizer.json"))
    out["tokenizer_vocab_size"] = Tokenizer::fromFile((fs::path(model) / "tokenizer.json").string()).vocabSize();
  std::cout << support::writeJson(out, 2) << "\n";
  std::cerr << kProgram << ": " << c.architecture() << ", " << humanCount(params) << " parameters; weights "
            << humanBytes(params * 2) << " in bf16, " << humanBytes(params * 4) << " in fp32\n";
  return kExitOk;
}

int runTokenize(const std::vector<std::string> &args) {
  std::string model;
  bool noSpecial = false, withTokens = false;
  support::ArgParser p(std::string(kProgram) + " tokenize", {"--model DIR FILE"},
                       "Prints the token ids of FILE ('-': stdin) as JSON (schema cudaperf-tokens/1).");
  p.option("--model", "DIR", "folder with tokenizer.json", model);
  p.flag("--no-special", "do not apply the post-processor's special tokens (BOS of Llama 3)", noSpecial);
  p.flag("--tokens", "also print the token strings", withTokens);
  support::ParsedArgs parsed = p.parse(args);
  if (parsed.helpRequested) return std::cout << p.help(), kExitOk;
  if (model.empty()) throw support::UsageError("--model DIR is required");
  if (parsed.positional.size() != 1) throw support::UsageError("one FILE to tokenize expected");
  ModelArgs m;
  m.model = model;
  Tokenizer tokenizer = m.requireTokenizer("tokenize");
  TokensJsonOptions options;
  options.addSpecialTokens = !noSpecial;
  options.withTokens = withTokens;
  std::cout << encodeToJson(tokenizer, readFile(parsed.positional[0]), options) << "\n";
  return kExitOk;
}

int runLogits(const std::vector<std::string> &args) {
  ModelArgs m;
  std::string ids, idsFile;
  support::ArgParser p(std::string(kProgram) + " logits", {"--model DIR --ids 1,2,3 [--dtype bf16] [--device cuda]",
                                                           "--model DIR --ids-file FILE"},
                       "Prints the last position's logits (fp32) for the token ids as JSON (schema "
                       "cudaperf-logits/1); with --ids-file, one JSON line per input line {\"ids\": [...]}.");
  m.declare(p, true);
  p.option("--ids", "LIST", "comma-separated token ids", ids);
  p.option("--ids-file", "FILE", "JSON Lines of {\"ids\": [...]} (one model load for many sequences)", idsFile);
  if (p.parse(args).helpRequested) return std::cout << p.help(), kExitOk;
  if (ids.empty() == idsFile.empty()) throw support::UsageError("give --ids or --ids-file");
  std::vector<std::vector<int32_t>> sequences;
  if (!ids.empty()) {
    sequences.push_back(parseIds(ids));
  } else {
    std::istringstream lines(readFile(idsFile));
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      sequences.push_back(support::withErrorContext(idsFile + ": line " + std::to_string(sequences.size() + 1), [&] {
        return support::parseJson(line).at("ids").get<std::vector<int32_t>>();
      }));
    }
  }
  CausalLm model = m.load();
  for (const auto &seq : sequences) {
    for (int32_t id : seq)
      if (id >= model->config.vocabSize)
        throw ModelError("token id " + std::to_string(id) + " outside the vocabulary (" +
                         std::to_string(model->config.vocabSize) + ")");
    ordered_json out = {{"schema", "cudaperf-logits/1"}, {"ids", seq}, {"dtype", torchDtypeName(model->options.dtype().toScalarType())},
                        {"device", model->options.device().str()}, {"logits", toVector(lastLogits(*model, seq))}};
    std::cout << support::writeJson(out) << "\n";
  }
  return kExitOk;
}

int runGenerate(const std::vector<std::string> &args) {
  ModelArgs m;
  std::string prompt, ids, promptsFile;
  bool chat = false, greedy = false, ignoreEos = false, each = false, noCache = false, logProbs = false, quiet = false;
  bool loraMerge = true;
  int64_t maxNew = 128, batch = 1, repeat = 1, randomPromptLength = 0, loraRank = 0;
  SamplingOptions sampling;
  std::vector<std::string> stops;
  support::ArgParser p(std::string(kProgram) + " generate",
                       {"--model DIR --prompt TEXT [--chat] [--greedy] [--max-new-tokens N] [--temperature T] [--seed S]",
                        "--model DIR --ids 1,2,3 | --prompts-file FILE [options]",
                        "--random-init CONFIG --random-prompt-length L --batch 64 [options]   (speed benchmark)"},
                       "Generates continuations in one left-padded batch and prints them as JSON (schema "
                       "cudaperf-generation/1) with timing. Sampling: temperature -> top-k -> top-p -> draw, each "
                       "row with its own seed (seed + row).");
  m.declare(p, true);
  p.option("--prompt", "TEXT", "the prompt text (needs tokenizer.json)", prompt);
  p.flag("--chat", "wrap --prompt as a ChatML user turn and open the assistant turn", chat);
  p.option("--ids", "LIST", "the prompt as comma-separated token ids", ids);
  p.option("--prompts-file", "FILE", "JSON Lines of {\"ids\": [...]} or {\"prompt\": \"...\"}, one row each", promptsFile);
  p.option("--random-prompt-length", "L", "random prompts of L token ids (benchmarks; seeded by --seed)",
           [&](const std::string &v) { randomPromptLength = support::parseInteger(v, 1, 1 << 20); });
  p.option("--batch", "N", "repeat the prompt(s) N times in the batch (default 1)",
           [&](const std::string &v) { batch = support::parseInteger(v, 1, 1 << 16); });
  p.flag("--each", "generate for each prompt alone instead of one batch", each);
  p.option("--max-new-tokens", "N", "tokens to generate at most (default 128)",
           [&](const std::string &v) { maxNew = support::parseInteger(v, 0, 1 << 20); });
  p.flag("--greedy", "argmax decoding (the sampling options are ignored)", greedy);
  p.option("--temperature", "T", "sampling temperature > 0 (default 1)",
           [&](const std::string &v) { sampling.temperature = support::parseNumber(v, 1e-6, 1e6); });
  p.option("--top-k", "K", "keep the K most likely tokens (default 0: off)",
           [&](const std::string &v) { sampling.topK = support::parseInteger(v, 0, INT32_MAX); });
  p.option("--top-p", "P", "nucleus sampling mass in (0, 1] (default 1: off)",
           [&](const std::string &v) { sampling.topP = support::parseNumber(v, 1e-9, 1.0); });
  p.option("--stop", "TEXT", "stop a row when its text contains TEXT (repeatable; needs tokenizer.json)",
           [&](const std::string &v) { stops.push_back(v); });
  p.flag("--ignore-eos", "do not stop at the config's eos_token_id (benchmarks: always max tokens)", ignoreEos);
  p.flag("--no-cache", "recompute the whole sequence at every step (checks; slow)", noCache);
  p.flag("--logprobs", "print each generated token's log-probability", logProbs);
  p.option("--repeat", "N", "run the generation N times (the first warms up; timing reports each)",
           [&](const std::string &v) { repeat = support::parseInteger(v, 1, 1000); });
  p.flag("--quiet", "no per-row output, timing only", quiet);
  p.option("--random-lora", "R", "attach random rank-R LoRA adapters to every projection (benchmarks: the RL policy's shape)",
           [&](const std::string &v) { loraRank = support::parseInteger(v, 1, 4096); });
  p.option("--lora-merge", "on|off", "generate with merged copies of the adapted weights (default on) or the adapter path",
           [&](const std::string &v) { loraMerge = support::parseOnOff(v); });
  if (p.parse(args).helpRequested) return std::cout << p.help(), kExitOk;
  int sources = !prompt.empty() + !ids.empty() + !promptsFile.empty() + (randomPromptLength > 0);
  if (sources != 1) throw support::UsageError("give one of --prompt, --ids, --prompts-file, --random-prompt-length");
  if (chat && prompt.empty()) throw support::UsageError("--chat applies to --prompt");

  std::optional<Tokenizer> tokenizer = m.tokenizerIfAny();
  auto encode = [&](const std::string &text) {
    if (!tokenizer) tokenizer = m.requireTokenizer("--prompt");
    return tokenizer->encode(chat ? applyChatMl({{"user", text}}, true) : text);
  };
  std::vector<std::vector<int32_t>> prompts;
  if (!prompt.empty()) prompts.push_back(encode(prompt));
  if (!ids.empty()) prompts.push_back(parseIds(ids));
  if (!promptsFile.empty()) {
    std::istringstream lines(readFile(promptsFile));
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      support::Json row = support::withErrorContext(promptsFile + ": line " + std::to_string(prompts.size() + 1),
                                                    [&] { return support::parseJson(line); });
      if (row.contains("ids")) prompts.push_back(row["ids"].get<std::vector<int32_t>>());
      else if (row.contains("prompt")) prompts.push_back(encode(row["prompt"].get<std::string>()));
      else throw ModelError(promptsFile + ": line " + std::to_string(prompts.size() + 1) + ": needs \"ids\" or \"prompt\"");
    }
  }
  CausalLm model = m.load();
  if (loraRank > 0) { // adapters that change the output (B is zero at attach), both drawn from --seed
    torch::manual_seed(m.seed);
    model->attachLora(LoraOptions{loraRank, double(2 * loraRank), 0.0, kProjectionNames});
    torch::NoGradGuard noGrad;
    for (auto &[name, t] : model->namedLoraParameters())
      if (name.find(".lora_B") != std::string::npos) t.normal_(0.0, 0.02);
  }
  if (randomPromptLength > 0) {
    std::mt19937_64 rng(m.seed);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<int32_t> row;
      for (int64_t i = 0; i < randomPromptLength; ++i) row.push_back(int32_t(rng() % uint64_t(model->config.vocabSize)));
      prompts.push_back(row);
    }
  } else if (batch > 1) {
    std::vector<std::vector<int32_t>> repeated;
    for (int64_t b = 0; b < batch; ++b) repeated.insert(repeated.end(), prompts.begin(), prompts.end());
    prompts = repeated;
  }

  GenerationOptions o;
  o.maxNewTokens = maxNew;
  o.sampling = sampling;
  o.sampling.greedy = greedy;
  o.seed = m.seed;
  o.useCache = !noCache;
  o.logProbs = logProbs;
  o.mergeLora = loraMerge;
  if (!ignoreEos) o.stopTokenIds = model->config.eosTokenIds;
  if (model->config.padTokenId) o.padId = *model->config.padTokenId;
  if (!stops.empty()) {
    if (!tokenizer) tokenizer = m.requireTokenizer("--stop");
    o.stopStrings = stops;
  }
  if (tokenizer) {
    Tokenizer t = *tokenizer;
    o.decode = [t](const std::vector<int32_t> &tokens) { return t.decode(tokens); };
  }
  torch::Device device = model->options.device();
  std::vector<GeneratedSequence> result;
  ordered_json runs = ordered_json::array();
  for (int64_t r = 0; r < repeat; ++r) {
    synchronize(device);
    auto start = std::chrono::steady_clock::now();
    GenerationTiming timing;
    o.timing = &timing;
    result.clear();
    if (each) {
      for (const auto &one : prompts) result.push_back(generate(*model, {one}, o)[0]);
    } else {
      result = generate(*model, prompts, o);
    }
    synchronize(device);
    double s = seconds(start);
    int64_t generated = 0;
    for (const auto &g : result) generated += int64_t(g.tokens.size());
    ordered_json run = {{"seconds", s}, {"generated_tokens", generated}, {"tokens_per_second", double(generated) / s}};
    if (!each && timing.firstTokenSeconds > 0) { // keys added: the split of a single batch's time
      run["first_token_seconds"] = timing.firstTokenSeconds;
      run["decode_steps"] = timing.decodeSteps + 1;
      run["decode_seconds_per_step"] = timing.decodeSteps > 0 ? timing.decodeSeconds / double(timing.decodeSteps) : 0.0;
    }
    runs.push_back(run);
    std::cerr << kProgram << ": run " << r + 1 << "/" << repeat << ": " << generated << " tokens in " << s << " s ("
              << double(generated) / s << " tokens/s)\n";
  }
  ordered_json rows = ordered_json::array();
  if (!quiet)
    for (size_t i = 0; i < result.size(); ++i) {
      ordered_json row = {{"prompt_tokens", prompts[i].size()}, {"tokens", result[i].tokens},
                          {"finish_reason", result[i].finishReason}};
      if (tokenizer) row["text"] = truncateAtStop(tokenizer->decode(result[i].tokens), stops);
      if (logProbs) row["logprobs"] = result[i].logProbs;
      rows.push_back(row);
    }
  ordered_json out = {{"schema", "cudaperf-generation/1"},
                      {"sampler", SamplerChain::fromOptions(o.sampling).describe()},
                      {"batch", prompts.size()},
                      {"device", device.str()},
                      {"dtype", torchDtypeName(model->options.dtype().toScalarType())},
                      {"torch", compat::versionText()},
                      {"lora_rank", loraRank},
                      {"lora_merge", loraRank > 0 && loraMerge},
                      {"runs", runs},
                      {"rows", rows}};
  std::cout << support::writeJson(out) << "\n";
  return kExitOk;
}

int runInit(const std::vector<std::string> &args) {
  std::string config, out, tokenizerDir, dtype = "float32";
  uint64_t seed = 0;
  double shardMb = 5000;
  support::ArgParser p(std::string(kProgram) + " init", {"--config CONFIG.json --out DIR [--seed S] [--dtype D]"},
                       "Writes a randomly initialised checkpoint (normal(0, initializer_range)) in Hugging Face layout.");
  p.option("--config", "FILE", "config.json of the shape", config);
  p.option("--out", "DIR", "output folder", out);
  p.option("--seed", "N", "random seed (default 0)", [&](const std::string &v) { seed = support::parseUnsigned(v); });
  p.option("--dtype", "TYPE", "stored dtype (default float32)", dtype);
  p.option("--max-shard-mb", "MB", "largest shard in MB (default 5000)",
           [&](const std::string &v) { shardMb = support::parseNumber(v, 0.001, 1e7); });
  p.option("--tokenizer", "DIR", "copy tokenizer files from DIR", tokenizerDir);
  if (p.parse(args).helpRequested) return std::cout << p.help(), kExitOk;
  if (config.empty() || out.empty()) throw support::UsageError("--config and --out are required");
  CausalLm model(ModelConfig::fromFile(config), torch::TensorOptions().dtype(torch::kFloat32));
  model->initializeRandom(seed);
  SaveOptions save;
  save.dtype = parseTorchDtype(dtype);
  save.maxShardBytes = size_t(shardMb * 1e6);
  savePretrained(*model, out, save);
  if (!tokenizerDir.empty()) copyTokenizerFiles(tokenizerDir, out);
  std::cerr << kProgram << ": wrote " << out << "\n";
  return kExitOk;
}

int runConvert(const std::vector<std::string> &args) {
  std::string model, out, dtype = "bfloat16";
  double shardMb = 5000;
  support::ArgParser p(std::string(kProgram) + " convert", {"--model DIR --out DIR [--dtype D] [--max-shard-mb MB]"},
                       "Re-saves a checkpoint in Hugging Face layout (another dtype, other shards), tokenizer files included.");
  p.option("--model", "DIR", "checkpoint folder", model);
  p.option("--out", "DIR", "output folder", out);
  p.option("--dtype", "TYPE", "stored dtype (default bfloat16)", dtype);
  p.option("--max-shard-mb", "MB", "largest shard in MB (default 5000)",
           [&](const std::string &v) { shardMb = support::parseNumber(v, 0.001, 1e7); });
  if (p.parse(args).helpRequested) return std::cout << p.help(), kExitOk;
  if (model.empty() || out.empty()) throw support::UsageError("--model and --out are required");
  CausalLm m = loadPretrained(model, LoadOptions{torch::kCPU, torch::kFloat32, false});
  SaveOptions save;
  save.dtype = parseTorchDtype(dtype);
  save.maxShardBytes = size_t(shardMb * 1e6);
  savePretrained(*m, out, save);
  copyTokenizerFiles(model, out);
  std::cerr << kProgram << ": wrote " << out << "\n";
  return kExitOk;
}

} // namespace

int main(int argc, char **argv) {
  return runSubcommands(kProgram, argc, argv,
                        {{"info", "model shape, parameters and memory estimates (no weights loaded)", runInfo},
                         {"tokenize", "token ids of a file as JSON", runTokenize},
                         {"logits", "last-position logits for token ids", runLogits},
                         {"generate", "batched generation with timing", runGenerate},
                         {"init", "a random checkpoint from a config.json", runInit},
                         {"convert", "re-save a checkpoint (dtype, shards)", runConvert}});
}
