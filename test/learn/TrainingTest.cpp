// Training on tiny random models: chunked log-probs against the full softmax, gradients against
// finite differences, checkpointing against plain backward, LoRA steps, merging and adapters,
// gradient accumulation, exact resume, and the compact trainer state (bf16 moments, no masters).
#include "TinyModels.h"

#include "cudaperf/Learn/Generation.h"
#include "cudaperf/Learn/TrainerState.h"
#include "cudaperf/Learn/Training.h"
#include "cudaperf/Support/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

using namespace cudaperf::learn;
using namespace cudaperf::learn::test;
namespace fs = std::filesystem;

namespace {

TrainingBatch sampleBatch() {
  // Two rows of different lengths; the first three tokens are the "prompt" (not targets).
  std::vector<std::vector<int32_t>> rows = {{5, 9, 2, 44, 17, 3, 3, 80}, {1, 2, 3, 4, 5, 6}};
  std::vector<std::vector<uint8_t>> masks = {{0, 0, 0, 1, 1, 1, 1, 1}, {0, 0, 0, 1, 1, 1}};
  return makeTrainingBatch(rows, masks, 0, torch::kCPU);
}

std::map<std::string, torch::Tensor> gradients(CausalLmImpl &m) {
  std::map<std::string, torch::Tensor> out;
  for (auto &p : m.named_parameters())
    if (p.value().grad().defined()) out[p.key()] = p.value().grad().clone();
  return out;
}

void clearGradients(CausalLmImpl &m) {
  for (auto &p : m.parameters()) p.mutable_grad() = torch::Tensor();
}

std::map<std::string, torch::Tensor> snapshot(CausalLmImpl &m) {
  std::map<std::string, torch::Tensor> out;
  for (auto &p : m.named_parameters()) out[p.key()] = p.value().detach().clone();
  return out;
}

} // namespace

TEST(Training, BatchTargetsSkipPromptFirstTokenAndPadding) {
  TrainingBatch b = sampleBatch();
  EXPECT_EQ(b.targetCount, 8);
  EXPECT_FALSE(b.targets[0][2].item<bool>());
  EXPECT_TRUE(b.targets[0][3].item<bool>());
  EXPECT_FALSE(b.targets[1][6].item<bool>()); // padding
  EXPECT_EQ(b.positions[1][5].item<int64_t>(), 5);
  EXPECT_THROW(makeTrainingBatch({{1, 2}}, {{1}}, 0, torch::kCPU), TrainerError);
}

TEST(Training, ChunkedLogProbsEqualTheFullSoftmax) {
  torch::manual_seed(0);
  torch::Tensor hidden = torch::randn({13, 8}, torch::requires_grad());
  torch::Tensor weight = torch::randn({11, 8}, torch::requires_grad());
  torch::Tensor targets = torch::randint(0, 11, {13}, torch::kInt64);
  torch::Tensor upstream = torch::randn({13});
  for (double temperature : {1.0, 0.7}) {
    torch::Tensor full = torch::log_softmax(torch::matmul(hidden, weight.t()) / temperature, -1)
                             .gather(1, targets.unsqueeze(1)).squeeze(1);
    auto fullGrads = torch::autograd::grad({(full * upstream).sum()}, {hidden, weight});
    for (int64_t chunk : {1, 4, 13, 0}) {
      torch::Tensor lp = tokenLogProbs(hidden, weight, targets, chunk, temperature);
      EXPECT_LT(maxAbsDiff(lp, full), 1e-5) << "chunk " << chunk;
      auto grads = torch::autograd::grad({(lp * upstream).sum()}, {hidden, weight});
      EXPECT_LT(maxAbsDiff(grads[0], fullGrads[0]), 1e-5) << "chunk " << chunk;
      EXPECT_LT(maxAbsDiff(grads[1], fullGrads[1]), 1e-5) << "chunk " << chunk;
    }
  }
  EXPECT_EQ(defaultChunkRows(151936), 110); // ~64 MB of fp32 logits per chunk
}

TEST(Training, GradientsMatchFiniteDifferences) {
  CausalLm m = tinyModel("qwen2", 31);
  m->train();
  TrainingBatch batch = sampleBatch();
  languageModelLoss(*m, batch).backward();
  // Directional derivative along a random direction over every parameter.
  torch::manual_seed(5);
  std::vector<torch::Tensor> params, directions;
  double analytic = 0;
  for (auto &p : m->parameters()) {
    ASSERT_TRUE(p.grad().defined());
    ASSERT_TRUE(torch::isfinite(p.grad()).all().item<bool>());
    params.push_back(p);
    directions.push_back(torch::randn_like(p));
    analytic += (p.grad() * directions.back()).sum().item<double>();
  }
  const double eps = 1e-3;
  auto lossAt = [&](double scale) {
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < params.size(); ++i) params[i].add_(directions[i] * scale);
    double loss = languageModelLoss(*m, batch).item<double>();
    for (size_t i = 0; i < params.size(); ++i) params[i].sub_(directions[i] * scale);
    return loss;
  };
  double numeric = (lossAt(eps) - lossAt(-eps)) / (2 * eps);
  EXPECT_NEAR(analytic, numeric, 0.02 * std::abs(numeric) + 1e-3) << "analytic " << analytic << " numeric " << numeric;
}

TEST(Training, CheckpointingGivesTheSameGradients) {
  for (bool lora : {false, true}) {
    SCOPED_TRACE(lora ? "LoRA with dropout" : "full");
    CausalLm m = tinyModel("qwen3", 37);
    if (lora) {
      LoraOptions options;
      options.rank = 4;
      options.dropout = 0.3;
      options.targetModules = {"q_proj", "v_proj", "down_proj"};
      m->attachLora(options);
      torch::NoGradGuard noGrad;
      for (auto &p : m->loraParameters()) p.normal_(0, 0.1); // B = 0 would hide A's gradient
    }
    m->train();
    TrainingBatch batch = sampleBatch();
    torch::manual_seed(99);
    languageModelLoss(*m, batch).backward();
    auto plain = gradients(*m);
    clearGradients(*m);
    torch::manual_seed(99);
    LogProbOptions checkpointing;
    checkpointing.gradientCheckpointing = true;
    languageModelLoss(*m, batch, checkpointing).backward();
    auto recomputed = gradients(*m);
    ASSERT_EQ(plain.size(), recomputed.size());
    ASSERT_FALSE(plain.empty());
    for (auto &[name, g] : plain) EXPECT_LT(maxAbsDiff(g, recomputed.at(name)), 1e-6) << name;
    if (lora) {
      // Dropout really acts: another seed gives other gradients.
      clearGradients(*m);
      torch::manual_seed(100);
      languageModelLoss(*m, batch, checkpointing).backward();
      EXPECT_GT(maxAbsDiff(gradients(*m).at("model.layers.0.self_attn.q_proj.lora_A.weight"),
                           plain.at("model.layers.0.self_attn.q_proj.lora_A.weight")),
                1e-6);
    }
  }
}

TEST(Training, GradientAccumulationEqualsOneBatch) {
  CausalLm m = tinyModel("llama", 41);
  m->train();
  std::vector<std::vector<int32_t>> rows = {{5, 9, 2, 44, 17, 3}, {1, 2, 3, 4}};
  std::vector<std::vector<uint8_t>> masks = {{0, 1, 1, 1, 1, 1}, {0, 0, 1, 1}};
  languageModelLoss(*m, makeTrainingBatch(rows, masks, 0, torch::kCPU)).backward();
  auto whole = gradients(*m);
  clearGradients(*m);
  int64_t total = 5 + 2;
  for (size_t i = 0; i < rows.size(); ++i) {
    TrainingBatch part = makeTrainingBatch({rows[i]}, {masks[i]}, 0, torch::kCPU);
    (languageModelLoss(*m, part) * (double(part.targetCount) / double(total))).backward();
  }
  for (auto &[name, g] : whole) EXPECT_LT(maxAbsDiff(g, gradients(*m).at(name)), 1e-6) << name;
}

TEST(Training, FullFineTuningLearnsATinyBatch) {
  CausalLm m = tinyModel("qwen2", 43);
  m->train();
  TrainerOptions options;
  options.learningRate = 3e-3;
  options.schedule.warmupSteps = 2;
  options.schedule.totalSteps = 40;
  Trainer trainer(m, options);
  TrainingBatch batch = sampleBatch();
  double first = 0, last = 0;
  for (int step = 0; step < 40; ++step) {
    trainer.zeroGrad();
    torch::Tensor loss = languageModelLoss(*m, batch);
    loss.backward();
    StepResult r = trainer.step();
    EXPECT_EQ(r.step, step + 1);
    EXPECT_GT(r.gradNorm, 0);
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, first * 0.3) << "first " << first << " last " << last;
}

TEST(Training, LoraStepChangesOnlyAdaptersAndMergesExactly) {
  CausalLm m = tinyModel("qwen2", 47);
  LoraOptions lora;
  lora.rank = 4;
  lora.alpha = 8;
  m->attachLora(lora);
  auto before = snapshot(*m);
  std::vector<int32_t> probe = {3, 1, 4, 1, 5};
  torch::Tensor baseLogits = lastLogits(*m, probe);
  TrainerOptions options;
  options.learningRate = 1e-2;
  options.schedule.kind = "constant";
  Trainer trainer(m, options);
  EXPECT_EQ(trainer.trainable().size(), 2u * 4u * 2u); // A and B of 4 projections in 2 layers
  m->train();
  for (int i = 0; i < 3; ++i) {
    trainer.zeroGrad();
    languageModelLoss(*m, sampleBatch()).backward();
    trainer.step();
  }
  for (auto &[name, value] : snapshot(*m)) {
    bool adapter = name.find(".lora_") != std::string::npos;
    if (adapter) EXPECT_FALSE(value.equal(before.at(name))) << name << " did not move";
    else EXPECT_TRUE(value.equal(before.at(name))) << name << " moved";
  }
  torch::Tensor adapted = lastLogits(*m, probe);
  EXPECT_GT(maxAbsDiff(adapted, baseLogits), 1e-4);
  // Adapters off: exactly the base model.
  m->setLoraEnabled(false);
  EXPECT_TRUE(lastLogits(*m, probe).equal(baseLogits));
  m->setLoraEnabled(true);
  // Merged export in fp32 loads as a plain model with the adapted logits.
  fs::path merged = freshDir("merged");
  SaveOptions save;
  save.dtype = torch::kFloat32;
  savePretrained(*m, merged.string(), save);
  EXPECT_EQ(SafetensorsCheckpoint::openFolder(merged.string()).find("model.layers.0.self_attn.q_proj.lora_A.weight"), nullptr);
  CausalLm plain = loadPretrained(merged.string(), LoadOptions{torch::kCPU, std::nullopt, true});
  EXPECT_LT(maxAbsDiff(lastLogits(*plain, probe), adapted), 1e-5);
  // Adapter-only save, loaded onto a fresh copy of the base.
  fs::path adapterDir = freshDir("adapter");
  saveLoraAdapter(*m, adapterDir.string(), lora, "tiny-base");
  EXPECT_TRUE(fs::exists(adapterDir / "adapter_config.json"));
  EXPECT_NE(SafetensorsFile::open((adapterDir / "adapter_model.safetensors").string())
                .find("base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight"),
            nullptr);
  CausalLm fresh = tinyModel("qwen2", 47);
  loadLoraAdapter(*fresh, adapterDir.string());
  EXPECT_TRUE(lastLogits(*fresh, probe).equal(adapted));
  // Generation with merged copies of the adapted weights (the default) samples what the adapter path
  // samples, and leaves the adapter path in place afterwards.
  {
    GenerationOptions g;
    g.maxNewTokens = 12;
    g.sampling.greedy = true;
    std::vector<std::vector<int32_t>> prompts = {probe, {2, 7, 1, 8}};
    g.mergeLora = false;
    auto viaAdapters = generate(*m, prompts, g);
    g.mergeLora = true;
    auto viaMerged = generate(*m, prompts, g);
    for (size_t i = 0; i < prompts.size(); ++i) EXPECT_EQ(viaMerged[i].tokens, viaAdapters[i].tokens) << "row " << i;
    m->setMergedLoraCopies(true);
    torch::Tensor mergedLogits = lastLogits(*m, probe);
    m->setMergedLoraCopies(false);
    EXPECT_LT(maxAbsDiff(mergedLogits, adapted), 1e-5);
    EXPECT_FALSE(mergedLogits.equal(adapted)) << "the merged copy was not used";
    EXPECT_TRUE(lastLogits(*m, probe).equal(adapted)) << "the copies were not cleared";
    m->setLoraEnabled(false);
    m->setMergedLoraCopies(true);
    EXPECT_TRUE(lastLogits(*m, probe).equal(baseLogits)) << "adapters off means the base, copies or not";
    m->setMergedLoraCopies(false);
    m->setLoraEnabled(true);
  }
  // In-place merge.
  m->mergeLora();
  EXPECT_FALSE(m->hasLora());
  EXPECT_LT(maxAbsDiff(lastLogits(*m, probe), adapted), 1e-5);
  EXPECT_THROW(m->attachLora(LoraOptions{4, 8, 0, {"qkv"}}), ModelError);
}

TEST(Training, ResumeReproducesTheNextStepExactly) {
  for (bool bf16Lora : {false, true}) {
    SCOPED_TRACE(bf16Lora ? "bf16 LoRA with masters and dropout" : "fp32 full");
    auto makeModel = [&] {
      CausalLm m = tinyModel("llama", 53, false, bf16Lora ? torch::kBFloat16 : torch::kFloat32);
      if (bf16Lora) {
        LoraOptions lora;
        lora.rank = 2;
        lora.dropout = 0.2;
        m->attachLora(lora);
      }
      m->train();
      return m;
    };
    TrainerOptions options;
    options.learningRate = 5e-3;
    options.schedule.warmupSteps = 1;
    options.schedule.totalSteps = 10;
    auto trainStep = [](CausalLm &m, Trainer &t) {
      t.zeroGrad();
      LogProbOptions lp;
      lp.gradientCheckpointing = true;
      languageModelLoss(*m, sampleBatch(), lp).backward();
      return t.step();
    };
    fs::path dir = freshDir(bf16Lora ? "resume-lora" : "resume-full");
    torch::manual_seed(7);
    CausalLm a = makeModel();
    Trainer ta(a, options);
    trainStep(a, ta);
    trainStep(a, ta);
    ta.save(dir.string(), {{"position", 2}});
    StepResult third = trainStep(a, ta);
    auto expected = snapshot(*a);

    torch::manual_seed(12345); // a different RNG state, which load must replace
    CausalLm b = makeModel();
    Trainer tb(b, options);
    nlohmann::json extra = tb.load(dir.string());
    EXPECT_EQ(extra["position"], 2);
    EXPECT_EQ(tb.stepsDone(), 2);
    StepResult again = trainStep(b, tb);
    EXPECT_EQ(again.step, third.step);
    EXPECT_EQ(again.learningRate, third.learningRate);
    EXPECT_EQ(again.gradNorm, third.gradNorm);
    for (auto &[name, value] : snapshot(*b)) EXPECT_TRUE(value.equal(expected.at(name))) << name;
  }
}

TEST(Training, NonFiniteGradientsSkipTheUpdate) {
  CausalLm m = tinyModel("qwen2", 59);
  Trainer trainer(m, TrainerOptions{});
  auto before = snapshot(*m);
  trainer.zeroGrad();
  for (auto &p : m->parameters()) p.mutable_grad() = torch::full_like(p, NAN);
  StepResult r = trainer.step();
  EXPECT_TRUE(r.skipped);
  for (auto &[name, value] : snapshot(*m)) EXPECT_TRUE(value.equal(before.at(name))) << name;
}

// ---------------------------------------------------------------------------------------------
// The compact trainer state (TrainerState.h): no masters, bf16 moments; Trainer::load takes it.

namespace {

struct CompactFixture {
  TrainerOptions options = trainerOptions();
  fs::path full, compact;
  static TrainerOptions trainerOptions() {
    TrainerOptions o;
    o.learningRate = 5e-3;
    o.schedule.kind = "constant";
    return o;
  }
  CompactFixture() {
    full = freshDir("state-full");
    compact = freshDir("state-compact") / "out"; // compaction creates it
  }
  // bf16 LoRA adapters with fp32 masters: the RL arm's trainer.
  static CausalLm model() {
    CausalLm m = tinyModel("llama", 61, false, torch::kBFloat16);
    LoraOptions lora;
    lora.rank = 2;
    m->attachLora(lora);
    m->train();
    return m;
  }
  static StepResult trainStep(CausalLm &m, Trainer &t) {
    t.zeroGrad();
    languageModelLoss(*m, sampleBatch()).backward();
    return t.step();
  }
  // Three steps, saved to `full`, compacted into `compact`.
  void build() {
    CausalLm m = model();
    Trainer t(m, options);
    for (int i = 0; i < 3; ++i) trainStep(m, t);
    t.save(full.string(), {{"rl_step", 3}});
    writeCompactTrainerState(readCompactTrainerState(full.string()), compact.string());
  }
};

std::map<std::string, torch::Tensor> readTensors(const fs::path &file) {
  std::map<std::string, torch::Tensor> out;
  SafetensorsFile f = SafetensorsFile::open(file.string());
  for (const TensorView &v : f.tensors()) out[v.name] = tensorFromView(v);
  return out;
}

nlohmann::json readJson(const fs::path &file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

void writeJson(const fs::path &file, const nlohmann::json &j) { std::ofstream(file) << j.dump(2) << "\n"; }

// Replaces one tensor of a safetensors file by an int32 tensor of the same shape.
void makeIntTensor(const fs::path &file, const std::string &name) {
  std::map<std::string, torch::Tensor> tensors = readTensors(file);
  tensors.at(name) = torch::ones_like(tensors.at(name), torch::kInt32);
  std::vector<CpuTensorBytes> keep;
  std::vector<TensorToWrite> out;
  keep.reserve(tensors.size());
  for (auto &[n, t] : tensors) {
    keep.push_back(toCpuBytes(t, t.scalar_type()));
    out.push_back({n, keep.back().dtype, t.sizes().vec(), keep.back().tensor.data_ptr(), size_t(t.nbytes())});
  }
  writeSafetensors(file.string(), out);
}

std::string loadError(const fs::path &dir) {
  CausalLm m = CompactFixture::model();
  Trainer t(m, CompactFixture::trainerOptions());
  try {
    t.load(dir.string());
  } catch (const TrainerError &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(TrainerState, Bfloat16BitsRoundLikeTorch) {
  torch::manual_seed(3);
  torch::Tensor x = torch::randn({4096}) * torch::pow(10.0, torch::randint(-30, 30, {4096}).to(torch::kFloat32));
  // Exact ties (low 16 bits 0x8000) with an even and an odd kept bit, and the specials.
  std::vector<float> special = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 3.4e38f, 1e-40f};
  for (uint32_t bits : {0x3f808000u, 0x3f818000u, 0xbf808000u, 0x7f7fffffu}) {
    float f;
    std::memcpy(&f, &bits, 4);
    special.push_back(f);
  }
  x = torch::cat({x, torch::tensor(special)});
  torch::Tensor expected = x.to(torch::kBFloat16);
  const uint16_t *want = reinterpret_cast<const uint16_t *>(expected.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) {
    float value = x[i].item<float>();
    if (std::isnan(value)) EXPECT_EQ(bfloat16Bits(value) & 0x7fc0, 0x7fc0) << "NaN stays a quiet NaN";
    else EXPECT_EQ(bfloat16Bits(value), want[i]) << value;
  }
}

TEST(TrainerState, CompactStateResumesWithinBfloat16Rounding) {
  CompactFixture fx;
  fx.build();
  EXPECT_FALSE(fs::exists(fx.compact / "master.safetensors"));
  EXPECT_EQ(SafetensorsFile::open((fx.compact / "optimizer.safetensors").string()).tensors().front().dtype,
            TensorDtype::BF16);
  nlohmann::json state = readJson(fx.compact / "trainer_state.json");
  EXPECT_EQ(state["compact"], true);
  EXPECT_EQ(state["compacted_from"].size(), 3u);
  EXPECT_EQ(state["step"], 3);
  auto dataBytes = [](const fs::path &file) {
    size_t n = 0;
    for (const TensorView &v : SafetensorsFile::open(file.string()).tensors()) n += v.bytes;
    return n;
  };
  EXPECT_EQ(2 * dataBytes(fx.compact / "optimizer.safetensors"), dataBytes(fx.full / "optimizer.safetensors"));

  // One more step from the full state: the reference.
  CausalLm a = CompactFixture::model();
  Trainer ta(a, fx.options);
  ta.load(fx.full.string());
  CompactFixture::trainStep(a, ta);
  auto fromFull = snapshot(*a);

  CausalLm b = CompactFixture::model();
  Trainer tb(b, fx.options);
  nlohmann::json extra = tb.load(fx.compact.string());
  EXPECT_EQ(extra["rl_step"], 3);
  EXPECT_EQ(tb.stepsDone(), 3);
  // What the trainer holds now, through save (masters and moments are not public).
  fs::path resaved = freshDir("state-resaved");
  tb.save(resaved.string());
  auto savedWeights = readTensors(fx.full / "trainable.safetensors");
  auto weights = readTensors(resaved / "trainable.safetensors");
  auto masters = readTensors(resaved / "master.safetensors");
  ASSERT_EQ(weights.size(), 16u); // A and B of 4 projections in 2 layers
  ASSERT_EQ(masters.size(), weights.size());
  for (auto &[name, w] : weights) {
    EXPECT_TRUE(w.equal(savedWeights.at(name))) << name << ": the trainable weights are not bit for bit";
    EXPECT_TRUE(masters.at(name).equal(w.to(torch::kFloat32))) << name << ": master is not fp32(trainable)";
  }
  auto savedMoments = readTensors(fx.full / "optimizer.safetensors");
  auto moments = readTensors(resaved / "optimizer.safetensors");
  ASSERT_EQ(moments.size(), savedMoments.size());
  ASSERT_EQ(moments.size(), 2 * weights.size());
  bool anyRounded = false;
  for (auto &[name, m] : moments) {
    torch::Tensor want = savedMoments.at(name);
    ASSERT_EQ(m.scalar_type(), torch::kFloat32) << name;
    // Round to nearest: |bf16(x) - x| <= half a bf16 ulp <= 2^-8 |x| (plus bf16's subnormal spacing).
    torch::Tensor excess = (m - want).abs() - (want.abs() * std::ldexp(1.0, -8) + 1e-39);
    EXPECT_LE(excess.max().item<double>(), 0.0) << name;
    anyRounded = anyRounded || !m.equal(want);
  }
  EXPECT_TRUE(anyRounded) << "the compact moments were not rounded (still fp32?)";

  CompactFixture::trainStep(b, tb);
  // Against the full state's next step. Both are bf16(master + update): the compact master lacks the
  // bits below bf16 (half a bf16 ulp u), the update lr * m^ / (sqrt(v^) + eps) changes by d <= lr * 0.6%
  // (m rounded by 2^-8, sqrt(v) by 2^-9, and |m^| / sqrt(v^) <= ~1.01 after 4 steps of betas (0.9, 0.95)
  // by Cauchy-Schwarz), and each result is rounded by u / 2: |diff| <= 1.5 u + d on the bf16 grid,
  // so <= u + 2 d <= 2^-7 |w| + lr * 2^-6. Masters left at the initial weights miss by ~3 lr.
  for (auto &[name, w] : snapshot(*b)) {
    torch::Tensor want = fromFull.at(name).to(torch::kFloat64), got = w.to(torch::kFloat64);
    torch::Tensor bound = torch::max(want.abs(), got.abs()) * std::ldexp(1.0, -7) + fx.options.learningRate * std::ldexp(1.0, -6);
    EXPECT_LE(((got - want).abs() - bound).max().item<double>(), 0.0) << name;
  }
}

TEST(TrainerState, LoadRefusesMixedStates) {
  CompactFixture fx;
  fx.build();
  // "compact": true next to a master file.
  fs::copy_file(fx.full / "master.safetensors", fx.compact / "master.safetensors");
  std::string e = loadError(fx.compact);
  EXPECT_NE(e.find("\"compact\": true, yet"), std::string::npos) << e;
  fs::remove(fx.compact / "master.safetensors");
  EXPECT_EQ(loadError(fx.compact), "");
  // A full state whose master file is gone.
  fs::path noMasters = freshDir("state-no-masters");
  for (const char *f : {"trainer_state.json", "trainable.safetensors", "optimizer.safetensors", "rng.safetensors"})
    fs::copy_file(fx.full / f, noMasters / f);
  e = loadError(noMasters);
  EXPECT_NE(e.find("master.safetensors: missing"), std::string::npos) << e;
  // A compact flag that is not a boolean.
  nlohmann::json state = readJson(fx.compact / "trainer_state.json");
  state["compact"] = "yes";
  writeJson(fx.compact / "trainer_state.json", state);
  e = loadError(fx.compact);
  EXPECT_NE(e.find("\"compact\" is not true or false"), std::string::npos) << e;
}

TEST(TrainerState, NonFloatOrMisshapenMomentsAreRefused) {
  CompactFixture fx;
  fx.build();
  std::string moment = SafetensorsFile::open((fx.full / "optimizer.safetensors").string()).tensors().front().name;
  // Loading: an int moment in a compact and in a full state; a moment of another shape.
  for (const fs::path &dir : {fx.compact, fx.full}) {
    fs::path copy = freshDir("state-int-moment");
    for (const auto &entry : fs::directory_iterator(dir)) fs::copy_file(entry.path(), copy / entry.path().filename());
    makeIntTensor(copy / "optimizer.safetensors", moment);
    std::string e = loadError(copy);
    EXPECT_NE(e.find("optimizer.safetensors: " + moment + " is I32, expected a floating dtype"), std::string::npos) << e;
    // Compaction refuses it too (the full copy; the compact one is refused as already compact).
    if (dir == fx.full) {
      try {
        readCompactTrainerState(copy.string());
        ADD_FAILURE() << "an int moment was compacted";
      } catch (const TrainerError &err) {
        EXPECT_NE(std::string(err.what()).find(moment + " is I32"), std::string::npos) << err.what();
      }
    }
  }
  fs::path wrongShape = freshDir("state-wrong-shape");
  for (const auto &entry : fs::directory_iterator(fx.compact))
    fs::copy_file(entry.path(), wrongShape / entry.path().filename());
  {
    std::map<std::string, torch::Tensor> tensors = readTensors(wrongShape / "optimizer.safetensors");
    tensors.at(moment) = torch::zeros({3}, torch::kBFloat16);
    std::vector<TensorToWrite> out;
    for (auto &[n, t] : tensors) out.push_back({n, TensorDtype::BF16, t.sizes().vec(), t.data_ptr(), size_t(t.nbytes())});
    writeSafetensors((wrongShape / "optimizer.safetensors").string(), out);
  }
  std::string e = loadError(wrongShape);
  EXPECT_NE(e.find(moment + " has shape [3]"), std::string::npos) << e;
}

TEST(TrainerState, CompactCommandExitCodes) {
  CompactFixture fx;
  fx.build();
  auto run = [](std::vector<std::string> args) { return runCompactStateCommand(args); };
  fs::path out = freshDir("state-cmd") / "out";
  EXPECT_EQ(run({"--state", fx.full.string(), "--out", out.string()}), 0);
  EXPECT_TRUE(fs::exists(out / "trainer_state.json"));
  EXPECT_FALSE(fs::exists(out / "master.safetensors"));
  // --out not empty; already compact; not a directory; not a trainer state.
  EXPECT_EQ(run({"--state", fx.full.string(), "--out", out.string()}), 2);
  fs::path other = freshDir("state-cmd-2") / "out";
  EXPECT_EQ(run({"--state", out.string(), "--out", other.string()}), 2);
  EXPECT_EQ(run({"--state", (fx.full / "absent").string(), "--out", other.string()}), 2);
  EXPECT_EQ(run({"--state", fx.full.parent_path().string(), "--out", other.string()}), 2);
  EXPECT_FALSE(fs::exists(other)) << "a refused state wrote something";
  EXPECT_THROW(run({"--state", fx.full.string()}), cudaperf::support::UsageError);
}
