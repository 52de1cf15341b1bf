// cudaperf-train dp-check (docs/training.md, "Data-parallel"): run once per rank, it checks on this
// machine and backend that data parallelism reproduces one process. Every rank builds the same tiny
// random model and the same batch, computes the one-process result on the whole batch itself, then
// the data-parallel one over the process group, and compares:
//   sft  the gradient of the per-token loss of a step of 6 micro-batches: each rank's micro-batches
//        divided by the all-reduced target count, gradients summed by DataParallel::reduceGradients;
//   rl   rlUpdate on the same 12 samples in 3 groups (2 mini-batches: shared behaviour log-probs;
//        each loss normalization; LoRA with the KL term: shared reference log-probs): the loss, the
//        gradient norm (relative difference within --tolerance) and the weights' change (within 10 x
//        --tolerance of the largest change: two AdamW steps compound the gradients' rounding).
// Exit 0 when every difference is within --tolerance (relative to the largest value compared), 1
// otherwise, with one JSON line of the differences on rank 0's stdout.
#include "cudaperf/Learn/DataParallel.h"
#include "cudaperf/Learn/ToolMain.h"
#ifdef CUDAPERF_HAVE_RL
#include "cudaperf/Learn/Rl.h"
#endif
#include "cudaperf/Learn/Training.h"
#include "cudaperf/Learn/Transformer.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Json.h"

#include <iostream>
#include <random>

namespace cudaperf::learn {

namespace {

ModelConfig checkConfig() {
  ModelConfig c;
  c.modelType = "qwen2";
  c.vocabSize = 97;
  c.hiddenSize = 32;
  c.intermediateSize = 48;
  c.numLayers = 2;
  c.numHeads = 4;
  c.numKvHeads = 2;
  c.headDim = 8;
  c.maxPositions = 256;
  c.rope.theta = 10000.0;
  c.qkvBias = true;
  c.initializerRange = 0.2;
  return c;
}

CausalLm checkModel(const torch::Device &device) {
  CausalLm m(checkConfig(), torch::TensorOptions().dtype(torch::kFloat32).device(device));
  m->initializeRandom(11);
  m->train();
  return m;
}

std::vector<int32_t> randomTokens(std::mt19937_64 &rng, size_t n) {
  std::vector<int32_t> v(n);
  for (int32_t &t : v) t = int32_t(1 + rng() % 96);
  return v;
}

// Largest |a - b| over the tensors, and the largest |a| (what the difference is relative to).
std::pair<double, double> difference(const std::vector<torch::Tensor> &a, const std::vector<torch::Tensor> &b) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    torch::Tensor x = a[i].to(torch::kFloat64).cpu(), y = b[i].to(torch::kFloat64).cpu();
    diff = std::max(diff, (x - y).abs().max().item<double>());
    scale = std::max(scale, x.abs().max().item<double>());
  }
  return {diff, scale};
}

std::vector<torch::Tensor> trainableCopies(const Trainer &t) {
  std::vector<torch::Tensor> out;
  for (auto &[name, p] : t.trainable()) out.push_back(p.detach().clone());
  return out;
}

// The SFT step: 6 micro-batches of 2 rows, targets on the second half of each row.
support::Json checkSft(DataParallel &dp, const torch::Device &device, double tolerance, bool &ok) {
  std::mt19937_64 rng(5);
  std::vector<TrainingBatch> micro;
  for (int m = 0; m < 6; ++m) {
    std::vector<std::vector<int32_t>> rows;
    std::vector<std::vector<uint8_t>> masks;
    for (int r = 0; r < 2; ++r) {
      size_t n = 8 + rng() % 40;
      rows.push_back(randomTokens(rng, n));
      std::vector<uint8_t> mask(n, 0);
      std::fill(mask.begin() + long(n / 2), mask.end(), 1);
      masks.push_back(mask);
    }
    micro.push_back(makeTrainingBatch(rows, masks, 0, device));
  }
  auto gradients = [&](bool parallel) {
    CausalLm model = checkModel(device);
    int64_t targets = 0;
    std::vector<size_t> mine;
    for (size_t m = 0; m < micro.size(); ++m)
      if (!parallel || int(m) % dp.worldSize() == dp.rank()) {
        mine.push_back(m);
        targets += micro[m].targetCount;
      }
    if (parallel) targets = int64_t(dp.sum(double(targets)));
    for (size_t m : mine) (-sequenceLogProbs(*model, micro[m]).sum() / double(targets)).backward();
    std::vector<torch::Tensor> params;
    for (auto &p : model->parameters()) params.push_back(p);
    if (parallel) dp.reduceGradients(params);
    std::vector<torch::Tensor> grads;
    for (auto &p : params) grads.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
    return grads;
  };
  std::vector<torch::Tensor> one = gradients(false), many = gradients(true);
  auto [diff, scale] = difference(one, many);
  bool pass = diff <= tolerance * std::max(scale, 1e-12);
  ok = ok && pass;
  return {{"check", "sft gradient"}, {"max_abs_difference", diff}, {"max_abs_gradient", scale}, {"pass", pass}};
}

#ifdef CUDAPERF_HAVE_RL
// One rlUpdate (2 mini-batches) on the same samples, in one process and over the ranks.
support::Json checkRl(DataParallel &dp, const torch::Device &device, const std::string &normalization, bool lora,
                      double tolerance, bool &ok) {
  std::mt19937_64 rng(9);
  std::vector<RlSample> samples;
  for (size_t g = 0; g < 3; ++g) {
    std::vector<int32_t> prompt = randomTokens(rng, 6 + rng() % 10);
    for (int k = 0; k < 4; ++k) {
      RlSample s;
      s.group = g;
      s.prompt = prompt;
      s.completion = randomTokens(rng, 3 + rng() % 20);
      s.advantage = double(int(rng() % 2001) - 1000) / 1000.0;
      samples.push_back(s);
    }
  }
  RlLossOptions o;
  o.normalization = normalization;
  o.microBatchTokens = 64; // several micro-batches per mini-batch
  o.klCoef = lora ? 0.1 : 0.0;
  auto update = [&](bool parallel) {
    CausalLm model = checkModel(device);
    if (lora) {
      LoraOptions l;
      l.rank = 4;
      l.alpha = 8;
      model->attachLora(l);
      torch::NoGradGuard noGrad; // adapters away from zero, so the KL term is not 0
      for (auto &p : model->named_parameters())
        if (p.key().find("lora_B") != std::string::npos) p.value().normal_(0, 0.05);
    }
    TrainerOptions t;
    t.learningRate = 1e-2;
    t.gradClip = 0;
    t.epsilon = 1e-2; // AdamW's g / (|g| + eps) is then smooth where gradients are at rounding level
    Trainer trainer(model, t);
    std::vector<torch::Tensor> initial = trainableCopies(trainer);
    if (parallel)
      trainer.setGradientReducer([&dp](const std::vector<torch::Tensor> &params) { dp.reduceGradients(params); });
    std::vector<RlSample> copy = samples;
    RlUpdateStats st = rlUpdate(*model, trainer, copy, o, 2, 1, 3, nullptr, parallel ? &dp : nullptr);
    std::vector<torch::Tensor> after = trainableCopies(trainer), change;
    for (size_t i = 0; i < after.size(); ++i) change.push_back(after[i] - initial[i]);
    return std::make_pair(st, change);
  };
  auto [one, oneChange] = update(false);
  auto [many, manyChange] = update(true);
  auto [diff, scale] = difference(oneChange, manyChange);
  auto relative = [](double a, double b) { return std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1e-12}); };
  double lossDiff = relative(one.loss, many.loss), normDiff = relative(one.gradNorm, many.gradNorm);
  // The weights' change, relative to the largest change (AdamW with a large epsilon, above, so that
  // elements whose gradient is at rounding level do not move by amounts rounding decides).
  double changeDiff = diff / std::max(scale, 1e-30);
  bool pass = lossDiff <= tolerance && normDiff <= tolerance && changeDiff <= 10 * tolerance && one.tokens == many.tokens &&
              one.optimizerSteps == many.optimizerSteps;
  ok = ok && pass;
  return {{"check", std::string("rl update, ") + normalization + (lora ? ", LoRA + KL" : "")},
          {"loss", {one.loss, many.loss}},
          {"grad_norm", {one.gradNorm, many.gradNorm}},
          {"tokens", {one.tokens, many.tokens}},
          {"loss_relative_difference", lossDiff},
          {"grad_norm_relative_difference", normDiff},
          {"weight_change_relative_difference", changeDiff},
          {"pass", pass}};
}
#endif

} // namespace

int runDataParallelCheck(const std::vector<std::string> &argv) {
  DataParallelArgs dpArgs;
  std::string device = "cpu";
  double tolerance = 1e-5;
  support::ArgParser p("cudaperf-train dp-check", {"--world-size N --rank R [options]   (one process per rank)"},
                       "Checks that data parallelism reproduces one process on this machine and backend: the SFT "
                       "gradient of a step and an RL update on the same samples, computed on every rank in one "
                       "process and over the process group. Prints the differences as JSON (rank 0).");
  p.option("--device", "DEV", "cpu (default), cuda (cuda:LOCAL_RANK per rank)", device);
  p.option("--tolerance", "X", "largest relative difference accepted (default 1e-5: fp32 summation order)",
           [&](const std::string &v) { tolerance = support::parseNumber(v, 0, 1); });
  declareDataParallelOptions(p, dpArgs);
  p.epilog("Exit codes: 0 every check within the tolerance, 1 a difference over it or a failed rendezvous or "
           "collective, 2 bad usage.");
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  torch::set_num_threads(1);
  std::unique_ptr<DataParallel> dp = openDataParallel(dpArgs, device);
  torch::Device dev = parseDevice(device);
  bool ok = true;
  support::Json checks = support::Json::array();
  checks.push_back(checkSft(*dp, dev, tolerance, ok));
#ifdef CUDAPERF_HAVE_RL
  for (const char *n : {"token", "sequence", "group"}) checks.push_back(checkRl(*dp, dev, n, false, tolerance, ok));
  checks.push_back(checkRl(*dp, dev, "token", true, tolerance, ok));
#endif
  if (dp->isRoot())
    std::cout << support::writeJson(support::Json{{"schema", "cudaperf-dp-check/1"},
                                                  {"data_parallel", dp->describe()},
                                                  {"tolerance", tolerance},
                                                  {"pass", ok},
                                                  {"checks", checks}})
              << "\n";
  if (!ok) std::cerr << "cudaperf-train dp-check: rank " << dp->rank() << ": a difference over the tolerance\n";
  return ok ? kExitOk : kExitFailed;
}

} // namespace cudaperf::learn
