// The model and generation on tiny random models: forward against a reference written from the
// definitions (per head, per position, in double), padding, KV cache, sampling, checkpoints, and the
// Hugging Face fixtures made by scripts/gpu/lm-crosscheck.sh (replayed when present).
#include "TinyModels.h"

#include "cudaperf/Learn/Generation.h"

#include <gtest/gtest.h>

#include <set>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>

using namespace cudaperf::learn;
using namespace cudaperf::learn::test;
namespace fs = std::filesystem;

namespace {

struct ThreadSetup : ::testing::Environment {
  void SetUp() override { torch::set_num_threads(1); }
};
const auto *const kThreads = ::testing::AddGlobalTestEnvironment(new ThreadSetup);

// Reference logits of every position for one unpadded sequence, straight from the definitions.
torch::Tensor referenceLogits(CausalLmImpl &m, const std::vector<int32_t> &ids) {
  std::map<std::string, torch::Tensor> p;
  for (auto &kv : m.named_parameters()) p[kv.key()] = kv.value().detach().to(torch::kFloat64);
  const ModelConfig &c = m.config;
  auto rms = [&](const torch::Tensor &x, const torch::Tensor &w) {
    return x / torch::sqrt(x.pow(2).mean(-1, true) + c.rmsNormEps) * w;
  };
  auto linear = [&](const torch::Tensor &x, const std::string &name) {
    torch::Tensor y = torch::matmul(x, p.at(name + ".weight").t());
    return p.count(name + ".bias") ? y + p.at(name + ".bias") : y;
  };
  int64_t T = int64_t(ids.size()), hd = c.headDim, half = hd / 2;
  std::vector<int64_t> ids64(ids.begin(), ids.end());
  torch::Tensor x = p.at("model.embed_tokens.weight").index_select(0, torch::tensor(ids64));
  auto rotate = [&](torch::Tensor v) { // v [T, hd]: pairs (i, i + hd/2) turned by t * theta^(-2i/hd)
    torch::Tensor out = v.clone();
    for (int64_t t = 0; t < T; ++t)
      for (int64_t i = 0; i < half; ++i) {
        double angle = double(t) * std::pow(c.rope.theta, -2.0 * double(i) / double(hd));
        double a = v[t][i].item<double>(), b = v[t][i + half].item<double>();
        out[t][i] = a * std::cos(angle) - b * std::sin(angle);
        out[t][i + half] = b * std::cos(angle) + a * std::sin(angle);
      }
    return out;
  };
  for (int64_t l = 0; l < c.numLayers; ++l) {
    std::string pre = "model.layers." + std::to_string(l) + ".";
    torch::Tensor h = rms(x, p.at(pre + "input_layernorm.weight"));
    torch::Tensor q = linear(h, pre + "self_attn.q_proj"), k = linear(h, pre + "self_attn.k_proj"),
                  v = linear(h, pre + "self_attn.v_proj");
    std::vector<torch::Tensor> heads;
    for (int64_t head = 0; head < c.numHeads; ++head) {
      int64_t kvHead = head / (c.numHeads / c.numKvHeads);
      torch::Tensor qh = q.narrow(1, head * hd, hd), kh = k.narrow(1, kvHead * hd, hd), vh = v.narrow(1, kvHead * hd, hd);
      if (c.qkNorm) {
        qh = rms(qh, p.at(pre + "self_attn.q_norm.weight"));
        kh = rms(kh, p.at(pre + "self_attn.k_norm.weight"));
      }
      torch::Tensor scores = torch::matmul(rotate(qh), rotate(kh).t()) / std::sqrt(double(hd));
      for (int64_t i = 0; i < T; ++i)
        for (int64_t j = i + 1; j < T; ++j) scores[i][j] = -INFINITY;
      heads.push_back(torch::matmul(torch::softmax(scores, -1), vh));
    }
    x = x + linear(torch::cat(heads, 1), pre + "self_attn.o_proj");
    torch::Tensor h2 = rms(x, p.at(pre + "post_attention_layernorm.weight"));
    x = x + linear(torch::silu(linear(h2, pre + "mlp.gate_proj")) * linear(h2, pre + "mlp.up_proj"), pre + "mlp.down_proj");
  }
  x = rms(x, p.at("model.norm.weight"));
  torch::Tensor out = c.tieWordEmbeddings ? p.at("model.embed_tokens.weight") : p.at("lm_head.weight");
  return torch::matmul(x, out.t());
}

std::vector<int32_t> greedyReference(CausalLmImpl &m, std::vector<int32_t> ids, int steps) {
  std::vector<int32_t> out;
  for (int s = 0; s < steps; ++s) {
    int32_t next = int32_t(referenceLogits(m, ids)[int64_t(ids.size()) - 1].argmax().item<int64_t>());
    out.push_back(next);
    ids.push_back(next);
  }
  return out;
}

GenerationOptions greedyOptions(int64_t tokens) {
  GenerationOptions o;
  o.maxNewTokens = tokens;
  o.sampling.greedy = true;
  return o;
}

} // namespace

class EveryFamily : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Learn, EveryFamily, ::testing::Values("qwen2", "qwen3", "llama"));

TEST_P(EveryFamily, ForwardMatchesTheDefinitions) {
  CausalLm m = tinyModel(GetParam(), 3, GetParam() == "llama");
  std::vector<int32_t> ids = {5, 17, 3, 96, 0, 42, 42, 8, 71};
  torch::NoGradGuard noGrad;
  PaddedBatch batch = leftPad({ids}, 0, torch::kCPU);
  torch::Tensor logits = m->logits(m->hiddenStates(batch.ids, batch.positions, AttentionInputs{})).squeeze(0);
  torch::Tensor expected = referenceLogits(*m, ids);
  EXPECT_LT(maxAbsDiff(logits, expected), 2e-5) << "logits span " << expected.abs().max().item<double>();
  // A different model gives different logits (the comparison can fail).
  CausalLm other = tinyModel(GetParam(), 4, GetParam() == "llama");
  EXPECT_GT(maxAbsDiff(other->logits(other->hiddenStates(batch.ids, batch.positions, AttentionInputs{})).squeeze(0),
                       expected),
            1e-2);
}

TEST_P(EveryFamily, GreedyGenerationFollowsTheReference) {
  CausalLm m = tinyModel(GetParam(), 5);
  std::vector<int32_t> prompt = {1, 2, 3, 4};
  auto out = generate(*m, {prompt}, greedyOptions(6));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tokens, greedyReference(*m, prompt, 6));
  EXPECT_EQ(out[0].finishReason, "length");
}

TEST(Transformer, LeftPaddingMatchesUnpaddedAndNeverMakesNaN) {
  CausalLm m = tinyModel("qwen2", 7);
  std::vector<int32_t> shortRow = {9, 8, 7}, longRow = {1, 2, 3, 4, 5, 6, 7, 8};
  torch::NoGradGuard noGrad;
  PaddedBatch batch = leftPad({shortRow, longRow}, 0, torch::kCPU);
  EXPECT_EQ(batch.positions[0][5].item<int64_t>(), 0); // the short row's first real token
  AttentionInputs attention;
  attention.mask = paddedCausalMask(batch.valid, 0, batch.ids.size(1));
  torch::Tensor hidden = m->hiddenStates(batch.ids, batch.positions, attention);
  EXPECT_FALSE(torch::isnan(hidden).any().item<bool>()); // padding queries too
  torch::Tensor last = m->logits(hidden.select(1, hidden.size(1) - 1));
  EXPECT_LT(maxAbsDiff(last[0], lastLogits(*m, shortRow)), 1e-5);
  EXPECT_LT(maxAbsDiff(last[1], lastLogits(*m, longRow)), 1e-5);
  // Without the mask the padding leaks into the short row (so the mask matters).
  torch::Tensor leaky = m->logits(m->hiddenStates(batch.ids, batch.positions, AttentionInputs{}).select(1, 7));
  EXPECT_GT(maxAbsDiff(leaky[0], lastLogits(*m, shortRow)), 1e-3);
}

TEST(Generation, CachedGreedyEqualsUncachedAndPerPrompt) {
  CausalLm m = tinyModel("qwen3", 11);
  std::vector<std::vector<int32_t>> prompts = {{3, 1, 4}, {1, 5, 9, 2, 6, 5}, {35}};
  GenerationOptions o = greedyOptions(24);
  auto cached = generate(*m, prompts, o);
  o.useCache = false;
  auto uncached = generate(*m, prompts, o);
  for (size_t i = 0; i < prompts.size(); ++i) {
    EXPECT_EQ(cached[i].tokens, uncached[i].tokens) << "row " << i;
    EXPECT_EQ(cached[i].tokens.size(), 24u);
    auto alone = generate(*m, {prompts[i]}, greedyOptions(24));
    EXPECT_EQ(cached[i].tokens, alone[0].tokens) << "row " << i << " depends on its batch";
  }
}

TEST(Generation, StopTokensStringsAndFinishedRowsLeavingTheBatch) {
  CausalLm m = tinyModel("llama", 13);
  std::vector<std::vector<int32_t>> prompts = {{2, 7}, {11, 3, 5, 8}, {60, 61, 62}, {4}};
  auto free = generate(*m, prompts, greedyOptions(16));
  // Stop on the third token row 0 produces: rows that produce it stop there, the rest run on.
  int32_t stop = free[0].tokens[2];
  GenerationOptions o = greedyOptions(16);
  o.stopTokenIds = {stop};
  auto cached = generate(*m, prompts, o);
  o.useCache = false;
  auto uncached = generate(*m, prompts, o);
  for (size_t i = 0; i < prompts.size(); ++i) {
    EXPECT_EQ(cached[i].tokens, uncached[i].tokens) << "row " << i;
    auto at = std::find(free[i].tokens.begin(), free[i].tokens.end(), stop);
    size_t expectedLength = at == free[i].tokens.end() ? 16 : size_t(at - free[i].tokens.begin()) + 1;
    EXPECT_EQ(cached[i].tokens.size(), expectedLength) << "row " << i;
    EXPECT_EQ(cached[i].finishReason, at == free[i].tokens.end() ? "length" : "stop_token");
    EXPECT_TRUE(std::equal(cached[i].tokens.begin(), cached[i].tokens.end(), free[i].tokens.begin()));
  }
  // Stop strings through a decode function: "<id>" per token; stop when "<s>" appears.
  GenerationOptions s = greedyOptions(16);
  int32_t sid = free[1].tokens[4];
  s.stopStrings = {"<" + std::to_string(sid) + ">"};
  s.decode = [](const std::vector<int32_t> &ids) {
    std::string t;
    for (int32_t id : ids) t += "<" + std::to_string(id) + ">";
    return t;
  };
  auto stopped = generate(*m, {prompts[1]}, s);
  size_t first = size_t(std::find(free[1].tokens.begin(), free[1].tokens.end(), sid) - free[1].tokens.begin());
  EXPECT_EQ(stopped[0].tokens.size(), first + 1);
  EXPECT_EQ(stopped[0].finishReason, "stop_string");
  EXPECT_EQ(truncateAtStop("abc```tail```", {"```"}), "abc");
  EXPECT_EQ(truncateAtStop("abc", {"x", ""}), "abc");
}

// The static KV cache (GenerationOptions::staticCache: fixed buffers, finished rows kept, attention over the
// whole capacity under the mask; what a CUDA graph replays): the same greedy tokens as the default path on
// padded rows of different lengths, with a stop token that ends some rows early, and log-probabilities
// equal up to the longer reduction's rounding; sampling with per-row seeds draws the same tokens too.
TEST(Generation, StaticCacheGivesTheDefaultPathsTokens) {
  for (const char *family : {"qwen2", "llama", "qwen3"}) {
    CausalLm m = tinyModel(family, 23);
    std::vector<std::vector<int32_t>> prompts = {{3, 1, 4}, {1, 5, 9, 2, 6, 5, 3, 5}, {35}, {8, 9}};
    GenerationOptions o = greedyOptions(20);
    o.logProbs = true;
    auto free = generate(*m, prompts, o);
    o.stopTokenIds = {free[1].tokens[3]}; // some rows stop early, the others run on beside them
    auto dynamic = generate(*m, prompts, o);
    o.staticCache = true;
    auto fixed = generate(*m, prompts, o);
    for (size_t i = 0; i < prompts.size(); ++i) {
      EXPECT_EQ(fixed[i].tokens, dynamic[i].tokens) << family << " row " << i;
      EXPECT_EQ(fixed[i].finishReason, dynamic[i].finishReason) << family << " row " << i;
      ASSERT_EQ(fixed[i].logProbs.size(), dynamic[i].logProbs.size());
      for (size_t t = 0; t < fixed[i].logProbs.size(); ++t)
        EXPECT_NEAR(fixed[i].logProbs[t], dynamic[i].logProbs[t], 1e-4) << family << " row " << i << " token " << t;
    }
    GenerationOptions sampled;
    sampled.maxNewTokens = 16;
    sampled.sampling.temperature = 1.3;
    sampled.seeds = {5, 6, 7, 8};
    auto drawn = generate(*m, prompts, sampled);
    sampled.staticCache = true;
    auto drawnStatic = generate(*m, prompts, sampled);
    for (size_t i = 0; i < prompts.size(); ++i) EXPECT_EQ(drawnStatic[i].tokens, drawn[i].tokens) << family << " row " << i;
  }
  CausalLm m = tinyModel("qwen2");
  GenerationOptions bad = greedyOptions(4);
  bad.staticCache = true;
  bad.useCache = false;
  EXPECT_THROW(generate(*m, {{1}}, bad), ModelError); // a static cache needs the cache
  GenerationOptions graph = greedyOptions(4);
  graph.cudaGraph = true;
  EXPECT_THROW(generate(*m, {{1}}, graph), ModelError); // CUDA graphs on the CPU
}

// RL submits a row's candidate the moment the row stops (GenerationOptions::rowDone): once per row, with the
// sequence generate() returns, rows that stop early before rows that run to the length limit; every decode path.
TEST(Generation, EachRowIsReportedOnceWhenItStops) {
  CausalLm m = tinyModel("qwen2", 23);
  std::vector<std::vector<int32_t>> prompts = {{3, 1, 4}, {1, 5, 9, 2, 6, 5, 3, 5}, {35}, {8, 9}};
  GenerationOptions o = greedyOptions(20);
  auto free = generate(*m, prompts, o);
  o.stopTokenIds = {free[1].tokens[3]};
  for (bool staticCache : {false, true}) {
    o.staticCache = staticCache;
    std::vector<std::pair<size_t, GeneratedSequence>> reported;
    o.rowDone = [&](size_t row, const GeneratedSequence &s) { reported.push_back({row, s}); };
    auto out = generate(*m, prompts, o);
    ASSERT_EQ(reported.size(), prompts.size()) << staticCache;
    std::set<size_t> rows;
    for (const auto &[row, s] : reported) {
      ASSERT_LT(row, out.size());
      rows.insert(row);
      EXPECT_EQ(s.tokens, out[row].tokens) << staticCache << " row " << row;
      EXPECT_EQ(s.finishReason, out[row].finishReason) << staticCache << " row " << row;
    }
    EXPECT_EQ(rows.size(), prompts.size()); // each row once
    ASSERT_EQ(out[1].finishReason, "stop_token");
    size_t lengthRows = 0;
    for (const auto &[row, s] : reported) lengthRows += s.finishReason == "length";
    ASSERT_LT(lengthRows, reported.size()); // at least one row stopped early...
    for (size_t k = 0; k + 1 < reported.size(); ++k) // ...and was reported before every row that ran to the limit
      if (reported[k].second.finishReason == "length") EXPECT_EQ(reported[k + 1].second.finishReason, "length");
  }
  GenerationOptions none = greedyOptions(0); // no new tokens: every row reported, as returned
  size_t calls = 0;
  none.rowDone = [&](size_t, const GeneratedSequence &s) { calls += s.tokens.empty() && s.finishReason == "length"; };
  EXPECT_EQ(generate(*m, prompts, none).size(), prompts.size());
  EXPECT_EQ(calls, prompts.size());
}

TEST(Generation, RejectsBadRequests) {
  CausalLm m = tinyModel("qwen2");
  EXPECT_THROW(generate(*m, {{}}, greedyOptions(4)), ModelError);
  EXPECT_THROW(generate(*m, {{1000}}, greedyOptions(4)), ModelError);
  EXPECT_THROW(generate(*m, {{1}}, greedyOptions(1000)), ModelError); // beyond max_position_embeddings
  GenerationOptions o = greedyOptions(4);
  o.stopStrings = {"x"};
  EXPECT_THROW(generate(*m, {{1}}, o), ModelError); // no decode function
}

TEST(Sampler, SeededDrawsFollowTheDistribution) {
  torch::Tensor logits = torch::tensor({2.0f, 1.0f, 0.0f, -1.0f, -30.0f}).unsqueeze(0);
  SamplingOptions options;
  options.temperature = 0.7;
  SamplerChain chain = SamplerChain::fromOptions(options);
  EXPECT_EQ(chain.describe(), "temperature 0.7 -> draw");
  RowRandom random(42);
  std::vector<int> counts(5, 0);
  const int n = 20000;
  for (int i = 0; i < n; ++i) ++counts[size_t(chain.pick(logits, {random.uniform()}).item<int64_t>())];
  torch::Tensor probs = torch::softmax(logits[0] / 0.7, -1);
  for (int v = 0; v < 5; ++v) {
    double p = probs[v].item<double>();
    EXPECT_NEAR(double(counts[size_t(v)]) / n, p, 4 * std::sqrt(p * (1 - p) / n) + 1e-4) << "token " << v;
  }
  EXPECT_EQ(counts[4], 0);
  // The same seed gives the same draws; another seed other draws.
  auto draws = [&](uint64_t seed) {
    RowRandom r(seed);
    std::vector<int64_t> out;
    for (int i = 0; i < 50; ++i) out.push_back(chain.pick(logits, {r.uniform()}).item<int64_t>());
    return out;
  };
  EXPECT_EQ(draws(7), draws(7));
  EXPECT_NE(draws(7), draws(8));
}

TEST(Sampler, TopKTopPAndGreedy) {
  torch::Tensor logits = torch::tensor({{0.1f, 3.0f, 2.9f, -1.0f, 2.0f}, {5.0f, 0.0f, 0.0f, 0.0f, 4.0f}});
  torch::Tensor k2 = SamplerChain().add(std::make_unique<TopKStep>(2)).transform(logits);
  EXPECT_EQ(torch::isfinite(k2[0]).sum().item<int64_t>(), 2);
  EXPECT_TRUE(std::isfinite(k2[0][1].item<float>()) && std::isfinite(k2[0][2].item<float>()));
  // Row 1: p(0) = 0.72 < 0.8, so token 4 (0.27) joins; the three zeros (0.005 each) do not.
  torch::Tensor p8 = SamplerChain().add(std::make_unique<TopPStep>(0.8)).transform(logits);
  EXPECT_EQ(torch::isfinite(p8[1]).sum().item<int64_t>(), 2);
  torch::Tensor p1 = SamplerChain().add(std::make_unique<TopPStep>(0.01)).transform(logits);
  EXPECT_EQ(torch::isfinite(p1).sum().item<int64_t>(), 2); // the top token of each row stays
  SamplingOptions greedy;
  greedy.greedy = true;
  EXPECT_TRUE(SamplerChain::fromOptions(greedy).pick(logits, {}).equal(torch::tensor({1, 0}, torch::kInt64)));
  SamplingOptions top1;
  top1.topK = 1;
  EXPECT_TRUE(SamplerChain::fromOptions(top1).pick(logits, {0.99, 0.99}).equal(torch::tensor({1, 0}, torch::kInt64)));
  EXPECT_THROW(TopPStep(0.0), ModelError);
  EXPECT_THROW(TemperatureStep(0.0), ModelError);
}

TEST(Generation, PerRowSeedsDoNotDependOnTheBatch) {
  CausalLm m = tinyModel("qwen2", 17);
  GenerationOptions o;
  o.maxNewTokens = 12;
  o.sampling.temperature = 1.5;
  o.seeds = {100, 200};
  auto pair = generate(*m, {{4, 5, 6}, {4, 5, 6}}, o);
  EXPECT_NE(pair[0].tokens, pair[1].tokens); // different seeds, same prompt
  o.seeds = {200};
  auto alone = generate(*m, {{4, 5, 6}}, o);
  EXPECT_EQ(alone[0].tokens, pair[1].tokens);
  o.logProbs = true;
  auto withLogProbs = generate(*m, {{4, 5, 6}}, o);
  ASSERT_EQ(withLogProbs[0].logProbs.size(), withLogProbs[0].tokens.size());
  // The first token's log-probability under softmax(logits / T) of the prompt.
  torch::Tensor first = torch::log_softmax(lastLogits(*m, {4, 5, 6}) / 1.5, -1);
  EXPECT_NEAR(withLogProbs[0].logProbs[0], first[withLogProbs[0].tokens[0]].item<float>(), 1e-5);
}

TEST(Checkpoint, SaveAndLoadAreExactAndShardsWork) {
  CausalLm m = tinyModel("qwen2", 19);
  fs::path dir = freshDir("save");
  SaveOptions fp32;
  fp32.dtype = torch::kFloat32;
  fp32.maxShardBytes = 20000; // several shards with an index
  savePretrained(*m, dir.string(), fp32);
  EXPECT_TRUE(fs::exists(dir / "model.safetensors.index.json"));
  EXPECT_TRUE(fs::exists(dir / "config.json"));
  LoadOptions quiet;
  quiet.quiet = true;
  CausalLm back = loadPretrained(dir.string(), quiet);
  auto a = m->named_parameters(), b = back->named_parameters();
  ASSERT_EQ(a.size(), b.size());
  for (auto &p : a) EXPECT_TRUE(p.value().equal(b[p.key()])) << p.key();
  EXPECT_TRUE(lastLogits(*m, {1, 2, 3}).equal(lastLogits(*back, {1, 2, 3})));
  // bf16: every weight is the bf16 rounding of the original.
  fs::path bf = freshDir("save-bf16");
  savePretrained(*m, bf.string());
  EXPECT_TRUE(fs::exists(bf / "model.safetensors"));
  CausalLm rounded = loadPretrained(bf.string(), quiet);
  for (auto &p : a)
    EXPECT_TRUE(rounded->named_parameters()[p.key()].equal(p.value().to(torch::kBFloat16).to(torch::kFloat32))) << p.key();
  EXPECT_EQ(ModelConfig::fromFolder(bf.string()).dtype, "bfloat16");
}

TEST(Checkpoint, TiedEmbeddingsAreNotWrittenTwice) {
  CausalLm m = tinyModel("qwen3", 23, /*tied=*/true);
  fs::path dir = freshDir("tied");
  savePretrained(*m, dir.string());
  SafetensorsCheckpoint ckpt = SafetensorsCheckpoint::openFolder(dir.string());
  EXPECT_EQ(ckpt.find("lm_head.weight"), nullptr);
  EXPECT_NE(ckpt.find("model.embed_tokens.weight"), nullptr);
  EXPECT_NE(ckpt.find("model.layers.1.self_attn.q_norm.weight"), nullptr);
}

TEST(Checkpoint, LoaderNamesMissingMisshapedAndForeignTensors) {
  CausalLm m = tinyModel("llama", 29);
  fs::path dir = freshDir("broken");
  SaveOptions fp32;
  fp32.dtype = torch::kFloat32;
  savePretrained(*m, dir.string(), fp32);
  // The same weights read as Qwen2: its q/k/v biases are missing.
  ModelConfig asQwen2 = m->config;
  asQwen2.modelType = "qwen2";
  asQwen2.qkvBias = true;
  std::ofstream(dir / "config.json") << asQwen2.toJson();
  try {
    loadPretrained(dir.string(), LoadOptions{torch::kCPU, std::nullopt, true});
    FAIL() << "loaded a checkpoint without the biases";
  } catch (const ModelError &e) {
    EXPECT_NE(std::string(e.what()).find("model.layers.0.self_attn.q_proj.bias: missing"), std::string::npos) << e.what();
  }
  // A config with a different intermediate size: shapes named.
  ModelConfig wider = m->config;
  wider.intermediateSize = 64;
  std::ofstream(dir / "config.json") << wider.toJson();
  try {
    loadPretrained(dir.string(), LoadOptions{torch::kCPU, std::nullopt, true});
    FAIL() << "loaded mis-shaped weights";
  } catch (const ModelError &e) {
    EXPECT_NE(std::string(e.what()).find("model.layers.0.mlp.gate_proj.weight: shape [48, 32] in the checkpoint, "
                                         "the configuration needs [64, 32]"),
              std::string::npos)
        << e.what();
  }
  // Tensors the model does not have: a Llama with attention biases read by a config without them.
  ModelConfig biasedConfig = m->config;
  biasedConfig.qkvBias = biasedConfig.outputBias = true;
  CausalLm biased(biasedConfig, torch::TensorOptions());
  biased->initializeRandom(2);
  fs::path extra = freshDir("extra");
  savePretrained(*biased, extra.string(), fp32);
  std::ofstream(extra / "config.json") << m->config.toJson();
  try {
    loadPretrained(extra.string(), LoadOptions{torch::kCPU, std::nullopt, true});
    FAIL() << "ignored tensors the model lacks";
  } catch (const ModelError &e) {
    EXPECT_NE(std::string(e.what()).find("model.layers.0.self_attn.o_proj.bias: in the checkpoint but not part of this model"),
              std::string::npos)
        << e.what();
  }
}

// Fixtures written by scripts/gpu/lm-crosscheck.sh on the GPU host: tiny checkpoints saved by
// transformers, with transformers' fp32 logits and greedy generations. Skipped until they exist.
TEST(HfFixtures, LogitsAndGreedyMatchTransformers) {
  fs::path root = fs::path(CUDAPERF_SOURCE_DIR) / "test/learn/fixtures/hf";
  if (!fs::is_directory(root)) GTEST_SKIP() << "no fixtures yet (scripts/gpu/lm-crosscheck.sh writes them)";
  int checked = 0;
  for (const auto &entry : fs::directory_iterator(root)) {
    fs::path expectedPath = entry.path() / "expected.json";
    if (!fs::exists(expectedPath)) continue;
    SCOPED_TRACE(entry.path().filename().string());
    nlohmann::json expected = nlohmann::json::parse(std::ifstream(expectedPath));
    CausalLm model = loadPretrained(entry.path().string(), LoadOptions{torch::kCPU, torch::kFloat32, true});
    double tolerance = expected.value("logits_tolerance", 1e-4);
    for (const auto &c : expected["cases"]) {
      auto ids = c["ids"].get<std::vector<int32_t>>();
      torch::Tensor want = torch::tensor(c["last_logits"].get<std::vector<float>>());
      EXPECT_LT(maxAbsDiff(lastLogits(*model, ids), want), tolerance);
    }
    for (const auto &g : expected["greedy"]) {
      auto ids = g["ids"].get<std::vector<int32_t>>();
      auto want = g["tokens"].get<std::vector<int32_t>>();
      EXPECT_EQ(generate(*model, {ids}, greedyOptions(int64_t(want.size())))[0].tokens, want);
    }
    if (expected.contains("batch")) {
      auto prompts = expected["batch"]["prompts"].get<std::vector<std::vector<int32_t>>>();
      auto want = expected["batch"]["tokens"].get<std::vector<std::vector<int32_t>>>();
      auto got = generate(*model, prompts, greedyOptions(int64_t(want[0].size())));
      for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i].tokens, want[i]) << "batch row " << i;
    }
    ++checked;
  }
  EXPECT_GT(checked, 0) << "fixture folder without any expected.json";
}
