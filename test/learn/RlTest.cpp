// The RL update (docs/training.md, "cudaperf-train rl") on tiny random models: a completion with a
// positive advantage gains log-probability and one with a negative advantage loses it; the clip stops
// the gradient where the ratio left its range in the advantage's direction; micro-batching does not
// change the loss; the KL to the LoRA-off reference starts at 0; and saving and resuming reproduce
// the next step exactly.
#include "TinyModels.h"

#include "cudaperf/Learn/Rl.h"

#include <gtest/gtest.h>

using namespace cudaperf::learn;
using namespace cudaperf::learn::test;

namespace {

RlSample sample(std::vector<int32_t> prompt, std::vector<int32_t> completion, double advantage, size_t group = 0) {
  RlSample s;
  s.group = group;
  s.prompt = std::move(prompt);
  s.completion = std::move(completion);
  s.advantage = advantage;
  return s;
}

double completionLogProb(CausalLmImpl &model, const RlSample &s) {
  std::vector<RlSample> one = {s};
  one[0].oldLogProbs.clear();
  fillLogProbs(model, one, false, RlLossOptions{});
  double sum = 0;
  for (float v : one[0].oldLogProbs) sum += v;
  return sum;
}

TrainerOptions sgdLike(double lr) {
  TrainerOptions o;
  o.learningRate = lr;
  o.weightDecay = 0;
  o.schedule.kind = "constant";
  return o;
}

} // namespace

TEST(RlUpdate, PositiveAdvantageGainsLogProbNegativeLoses) {
  CausalLm model = tinyModel("qwen2", 3);
  std::vector<RlSample> samples = {sample({5, 6, 7}, {10, 11, 12, 13}, +1.0), sample({5, 6, 7}, {20, 21, 22}, -1.0)};
  double goodBefore = completionLogProb(*model, samples[0]), badBefore = completionLogProb(*model, samples[1]);
  Trainer trainer(model, sgdLike(1e-2));
  for (const std::string norm : {"token", "sequence", "group"}) {
    RlLossOptions o;
    o.normalization = norm;
    RlUpdateStats st = rlUpdate(*model, trainer, samples, o, 1, 1, 0);
    EXPECT_EQ(st.optimizerSteps, 1);
    EXPECT_EQ(st.tokens, 7);
    EXPECT_GT(st.gradNorm, 0);
  }
  EXPECT_GT(completionLogProb(*model, samples[0]), goodBefore + 0.05);
  EXPECT_LT(completionLogProb(*model, samples[1]), badBefore - 0.05);
}

TEST(RlUpdate, ClipStopsTheGradientOutsideTheRange) {
  CausalLm model = tinyModel("qwen2", 4);
  RlSample s = sample({3, 4}, {8, 9, 10}, +1.0);
  s.oldLogProbs.assign(3, 0.0f);
  std::vector<RlSample> current = {s};
  fillLogProbs(*model, current, false, RlLossOptions{});
  RlLossOptions o;
  auto gradNorm = [&](double advantage, float shift) {
    RlSample x = s;
    x.advantage = advantage;
    for (size_t t = 0; t < 3; ++t) x.oldLogProbs[t] = current[0].oldLogProbs[t] + shift; // ratio = exp(-shift)
    model->zero_grad();
    RlLossTerms terms = rlMicroBatchLoss(*model, {&x}, {1.0 / 3}, o);
    terms.loss.backward();
    double n = 0;
    for (auto &p : model->parameters())
      if (p.grad().defined()) n += p.grad().pow(2).sum().item<double>();
    return std::make_pair(std::sqrt(n), terms.clippedTokens);
  };
  auto [aboveGood, clippedGood] = gradNorm(+1.0, -1.0f); // ratio e > 1.2 with A > 0: clipped, no gradient
  EXPECT_EQ(aboveGood, 0.0);
  EXPECT_EQ(clippedGood, 3);
  auto [aboveBad, clippedBad] = gradNorm(-1.0, -1.0f);   // the same ratio with A < 0: still pushed down
  EXPECT_GT(aboveBad, 0.0);
  EXPECT_EQ(clippedBad, 0);
  auto [inside, clippedInside] = gradNorm(+1.0, 0.0f);   // ratio 1: plain policy gradient
  EXPECT_GT(inside, 0.0);
  EXPECT_EQ(clippedInside, 0);
}

TEST(RlUpdate, MicroBatchesAddUpToTheWholeLoss) {
  CausalLm model = tinyModel("llama", 5);
  std::vector<RlSample> samples = {sample({1, 2, 3}, {4, 5}, 0.5, 0), sample({1, 2}, {6, 7, 8, 9}, -0.25, 0),
                                   sample({7, 7, 7, 7}, {3}, 1.5, 1)};
  std::vector<size_t> tokens = {2, 4, 1}, groups = {0, 0, 1};
  for (const std::string norm : {"token", "sequence", "group"}) {
    std::vector<double> w = lossTokenWeights(tokens, groups, norm);
    RlLossOptions o;
    o.normalization = norm;
    double whole = rlMicroBatchLoss(*model, {&samples[0], &samples[1], &samples[2]}, w, o).loss.item<double>();
    double parts = rlMicroBatchLoss(*model, {&samples[0]}, {w[0]}, o).loss.item<double>() +
                   rlMicroBatchLoss(*model, {&samples[1], &samples[2]}, {w[1], w[2]}, o).loss.item<double>();
    EXPECT_NEAR(whole, parts, 1e-6) << norm;
  }
}

TEST(RlUpdate, KlToTheLoraOffReferenceStartsAtZero) {
  CausalLm model = tinyModel("qwen2", 6);
  torch::manual_seed(0);
  model->attachLora(LoraOptions{4, 8, 0.0, {"q_proj", "v_proj"}});
  std::vector<RlSample> samples = {sample({5, 6}, {7, 8, 9}, 1.0), sample({5, 6}, {1, 2}, -1.0)};
  RlLossOptions o;
  o.klCoef = 0.1;
  Trainer trainer(model, sgdLike(5e-2));
  RlUpdateStats first = rlUpdate(*model, trainer, samples, o, 1, 1, 0);
  EXPECT_NEAR(first.kl, 0.0, 1e-9); // B = 0: the adapted policy is the reference
  RlUpdateStats second = rlUpdate(*model, trainer, samples, o, 1, 1, 0);
  EXPECT_GT(second.kl, 0.0);
}

TEST(RlUpdate, SaveAndResumeReproduceTheNextStep) {
  auto fresh = [] {
    CausalLm m = tinyModel("qwen2", 7);
    torch::manual_seed(11);
    m->attachLora(LoraOptions{4, 8, 0.1, {"q_proj", "k_proj", "v_proj", "o_proj"}}); // dropout: the RNG state matters
    m->train();
    return m;
  };
  std::vector<RlSample> first = {sample({1, 2, 3}, {4, 5, 6}, 1.0), sample({1, 2, 3}, {9, 8}, -1.0)};
  std::vector<RlSample> second = {sample({3, 2}, {1, 1, 2, 3}, 0.7), sample({3, 2}, {5}, -0.7), sample({4}, {6, 6}, 0.2, 1)};
  RlLossOptions o;
  o.klCoef = 0.05;
  auto dir = freshDir("rl-resume");
  CausalLm a = fresh();
  Trainer ta(a, sgdLike(1e-2));
  rlUpdate(*a, ta, first, o, 2, 1, 1);
  ta.save(dir.string(), {{"rl_step", 1}});
  RlUpdateStats continued = rlUpdate(*a, ta, second, o, 2, 2, 2);

  CausalLm b = fresh();
  Trainer tb(b, sgdLike(1e-2));
  torch::manual_seed(999); // a different generator state, which load must replace
  EXPECT_EQ(tb.load(dir.string())["rl_step"], 1);
  RlUpdateStats resumed = rlUpdate(*b, tb, second, o, 2, 2, 2);
  EXPECT_EQ(continued.loss, resumed.loss);
  EXPECT_EQ(continued.gradNorm, resumed.gradNorm);
  auto pa = a->namedLoraParameters(), pb = b->namedLoraParameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(torch::equal(pa[i].second, pb[i].second)) << pa[i].first;
  std::filesystem::remove_all(dir);
}
