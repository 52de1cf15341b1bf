// cudaperf-lm: the policy model from the command line (docs/policy-model.md).
//   info      the configuration, parameter count and memory estimates (no weights loaded)
//   tokenize  token ids of a file as JSON
//   logits    the last position's logits for token ids
//   generate  batched generation (greedy or sampled), with timing
//   init      a randomly initialised checkpoint from a config.json
//   convert   re-save a checkpoint (dtype, shards) in Hugging Face layout
#include "LmTool.h"
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
using namespace cudaperf::lmtool;
using ordered_json = support::Json;

namespace {

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
