// cudaperf-lm generate: batched generation (greedy or sampled) with timing (docs/policy-model.md).
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
using ordered_json = support::Json;

namespace cudaperf::lmtool {

int runGenerate(const std::vector<std::string> &args) {
  ModelArgs m;
  std::string prompt, ids, promptsFile;
  bool chat = false, greedy = false, ignoreEos = false, each = false, noCache = false, logProbs = false, quiet = false;
  std::string decode = "dynamic";
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
  p.option("--decode", "dynamic|static|graph",
           "dynamic (default): the KV cache grows and finished rows leave; static: fixed buffers and shapes; "
           "graph: the static step captured as a CUDA graph and replayed (CUDA only)",
           [&](const std::string &v) {
             if (v != "dynamic" && v != "static" && v != "graph") throw support::UsageError("--decode: dynamic, static or graph");
             decode = v;
           });
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
  o.staticCache = decode == "static";
  o.cudaGraph = decode == "graph";
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

} // namespace cudaperf::lmtool
