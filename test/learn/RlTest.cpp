// The RL update (docs/training.md, "cudaperf-train rl") on tiny random models: a completion with a
// positive advantage gains log-probability and one with a negative advantage loses it; the clip stops
// the gradient where the ratio left its range in the advantage's direction; micro-batching does not
// change the loss; the KL to the LoRA-off reference starts at 0; saving and resuming reproduce
// the next step exactly; and overlap_steps 1: recorded behaviour log-probs set the ratio, the next
// step's first turn is generated while the last turn is evaluated (a chain policy that writes code
// blocks, a stand-in evaluator with a delay), and a turn made ahead equals one made inline.
#include "TinyModels.h"

#include "cudaperf/Learn/Rl.h"
#include "cudaperf/Schema/EvalResult.h"
#include "cudaperf/Support/Sha256.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <thread>

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

// ---- overlap_steps (docs/training.md, "Overlapping rewards with generation") ----

TEST(RlUpdate, RecordedBehaviourLogProbsSetTheRatioAndTheOthersAreTheCurrentWeights) {
  CausalLm m = tinyModel("qwen2", 5);
  Trainer t(m, sgdLike(0)); // learning rate 0: the statistics of one step, the weights kept
  RlSample stale = sample({1, 2, 3}, {4, 5, 6}, 1.0), fresh = sample({7, 8}, {9, 10}, 1.0);
  std::vector<RlSample> probe = {stale};
  fillLogProbs(*m, probe, false, RlLossOptions{});
  // What a policy 0.5 nats per token less likely to write these tokens recorded when it generated them.
  for (float v : probe[0].oldLogProbs) stale.oldLogProbs.push_back(v - 0.5f);
  std::vector<RlSample> onlyStale = {stale};
  RlUpdateStats s = rlUpdate(*m, t, onlyStale, RlLossOptions{}, 1, 1, 1);
  EXPECT_NEAR(s.ratioMax, std::exp(0.5), 1e-3); // against the recorded ones, not ratio 1
  EXPECT_EQ(s.tokens, 3);
  EXPECT_EQ(s.clippedTokens, 3); // 1.65 > 1 + clip_high with a positive advantage: every token clipped
  // Mixed with a sample of the current weights: that one's behaviour log-probs are taken now (ratio 1).
  std::vector<RlSample> mixed = {stale, fresh};
  RlUpdateStats both = rlUpdate(*m, t, mixed, RlLossOptions{}, 1, 1, 1);
  EXPECT_NEAR(both.ratioMax, std::exp(0.5), 1e-3);
  EXPECT_EQ(both.tokens, 5);
  EXPECT_EQ(both.clippedTokens, 3); // the fresh sample's ratio is 1: none of its tokens clipped
  ASSERT_EQ(mixed[1].oldLogProbs.size(), 2u);
  std::vector<RlSample> bad = {stale};
  bad[0].oldLogProbs.pop_back();
  EXPECT_THROW(rlUpdate(*m, t, bad, RlLossOptions{}, 1, 1, 1), TrainerError);
}

namespace {

// hf-small's tokenizer with "```" one token (two merges put first), so that a model whose next token
// depends on the last one only can open a code block.
struct FenceTokenizer {
  Tokenizer tokenizer;
  int32_t fence, vocab;
};
FenceTokenizer fenceTokenizer() {
  std::ifstream in(std::string(CUDAPERF_SOURCE_DIR) + "/test/learn/fixtures/tokenizer/hf-small/tokenizer.json");
  nlohmann::json j = nlohmann::json::parse(in);
  int32_t next = 0;
  for (auto &item : j["model"]["vocab"].items()) next = std::max(next, item.value().get<int32_t>() + 1);
  for (auto &added : j["added_tokens"]) next = std::max(next, added["id"].get<int32_t>() + 1);
  j["model"]["vocab"]["``"] = next;
  j["model"]["vocab"]["```"] = next + 1;
  auto &merges = j["model"]["merges"];
  merges.insert(merges.begin(), nlohmann::json::array({"``", "`"}));
  merges.insert(merges.begin(), nlohmann::json::array({"`", "`"}));
  return {Tokenizer::fromJson(j.dump()), next + 1, next + 2};
}

// A policy that answers "```" then a blank line then a random run of "x" and " x": attention and MLP
// outputs zeroed, so the hidden state is the last token's embedding, which picks the next token.
CausalLm chainPolicy(const FenceTokenizer &f) {
  ModelConfig c = tinyConfig("qwen2");
  c.vocabSize = f.vocab;
  c.maxPositions = 4096;
  CausalLm m(c, torch::TensorOptions().dtype(torch::kFloat32));
  m->initializeRandom(3);
  torch::NoGradGuard noGrad;
  for (auto &p : m->named_parameters()) {
    if (p.key().find("o_proj") != std::string::npos || p.key().find("down_proj") != std::string::npos) p.value().zero_();
    if (p.key().find("norm") != std::string::npos) p.value().fill_(1);
  }
  int32_t blank = *f.tokenizer.tokenToId("ĊĊ"), x = *f.tokenizer.tokenToId("x"), spaceX = *f.tokenizer.tokenToId("Ġx");
  torch::Tensor emb = m->model->embed_tokens->weight, head = m->lm_head->weight;
  emb.zero_();
  emb.select(1, 0).fill_(1); // every other token: state 0
  for (int32_t id : {f.fence, blank, x, spaceX}) emb[id].zero_();
  emb[f.fence][1] = 1;
  emb[blank][2] = 1;
  emb[x][3] = 1;
  emb[spaceX][3] = 1;
  head.zero_();
  head[f.fence][0] = 10; // state 0 -> ```
  head[blank][1] = 10;   // ``` -> blank line
  head[x][2] = 10;       // blank line -> x
  head[x][3] = 1;        // x -> x or " x", about evenly
  head[spaceX][3] = 1;
  m->eval();
  return m;
}

// A compile-only evaluator behind a delay that passes every candidate, noting when each evaluation
// ends. In-process: a LibTorch process whose BLAS threads have run must not fork from several threads.
class SlowEvaluator : public cudaperf::reward::Evaluator {
public:
  SlowEvaluator(double seconds, std::vector<std::chrono::steady_clock::time_point> &ends, std::mutex &mutex)
      : seconds_(seconds), ends_(ends), mutex_(mutex) {}
  cudaperf::support::Json evaluate(const std::string &taskDir, const std::string &candidatePath) override {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds_));
    std::ifstream in(candidatePath, std::ios::binary);
    std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    cudaperf::support::Json j =
        cudaperf::schema::EvalResult::synthetic(std::filesystem::path(taskDir).filename().string(), taskDir, candidatePath,
                                                cudaperf::support::sha256Hex(source), cudaperf::schema::Outcome::Ok, "",
                                                "", true)
            .toJson();
    std::lock_guard<std::mutex> lock(mutex_);
    ends_.push_back(std::chrono::steady_clock::now());
    return j;
  }
  std::string describe() const override { return "slow stand-in"; }

private:
  double seconds_;
  std::vector<std::chrono::steady_clock::time_point> &ends_;
  std::mutex &mutex_;
};

struct SlowEnvironment {
  std::vector<std::chrono::steady_clock::time_point> ends;
  std::mutex mutex;
  std::unique_ptr<RlEnvironment> env;
  explicit SlowEnvironment(double seconds, const std::string &name) {
    EnvironmentOptions o;
    o.analyzerPath = "none";
    o.staticOnly = true;
    o.jobs = 16;
    o.workDir = freshDir("rl-overlap-" + name).string();
    env = std::make_unique<RlEnvironment>(o, std::make_unique<SlowEvaluator>(seconds, ends, mutex));
  }
};

std::vector<RolloutTask> rolloutTasks(const std::vector<std::string> &names) {
  std::vector<RolloutTask> out;
  for (const std::string &n : names) {
    RolloutTask t;
    t.name = n;
    t.task = loadPolicyTask(std::string(CUDAPERF_SOURCE_DIR) + "/data/tasks/" + n);
    t.kind = "c";
    out.push_back(std::move(t));
  }
  return out;
}

RolloutOptions rolloutOptions(const FenceTokenizer &f, uint64_t seed, int64_t version) {
  RolloutOptions o;
  o.groupSize = 2;
  o.turns = 2;
  o.generation.maxNewTokens = 10;
  o.generation.padId = 0;
  o.generation.decode = [&f](const std::vector<int32_t> &ids) { return f.tokenizer.decode(ids, true); };
  o.contextTokens = 3000;
  o.generationBatch = 64;
  o.seed = seed;
  o.policyVersion = version;
  return o;
}

bool sameRecords(const std::vector<TurnRecord> &a, const std::vector<TurnRecord> &b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].prompt != b[i].prompt || a[i].completion != b[i].completion || a[i].source != b[i].source ||
        a[i].outcome.reward != b[i].outcome.reward || a[i].scored.discountedReturn != b[i].scored.discountedReturn)
      return false;
  return true;
}

} // namespace

TEST(RlRollout, NextStepsFirstTurnIsGeneratedWhileTheLastTurnIsEvaluated) {
  FenceTokenizer f = fenceTokenizer();
  CausalLm policy = chainPolicy(f);
  std::vector<RolloutTask> step1 = rolloutTasks({"vector_add"}), step2 = rolloutTasks({"saxpy"});
  RolloutOptions o1 = rolloutOptions(f, 11, 0), o2 = rolloutOptions(f, 12, 1);
  RlLossOptions loss;
  const double delay = 1.2; // every evaluation's
  SlowEnvironment slow(delay, "pipelined");
  RlEnvironment &env = *slow.env;

  // Step 1, overlap 1: the hook makes step 2's first turn once step 1's last turn is all submitted.
  auto evaluationsDone = [&] {
    std::lock_guard<std::mutex> lock(slow.mutex);
    return slow.ends.size();
  };
  std::optional<RolloutAhead> ahead;
  size_t submittedAtHook = 0, doneAtHook = 0;
  RolloutStats s1;
  std::vector<TurnRecord> r1 = runEpisodes(*policy, f.tokenizer, step1, env, o1, &s1, nullptr, nullptr, [&](RolloutStats &st) {
    submittedAtHook = env.submissions();
    doneAtHook = evaluationsDone();
    ahead = generateFirstTurn(*policy, f.tokenizer, step2, env, o2, &loss, &st);
  });
  size_t doneAfterStep1 = evaluationsDone();
  ASSERT_EQ(r1.size(), 4u);
  ASSERT_TRUE(ahead.has_value());
  EXPECT_EQ(submittedAtHook, 4u);       // both turns of step 1 were in before the hook
  EXPECT_EQ(env.submissions(), 6u);    // and step 2's first turn after it
  for (const TurnRecord &r : r1) {
    ASSERT_TRUE(r.source.has_value()) << f.tokenizer.decode(r.completion, true);
    EXPECT_TRUE(r.outcome.correct) << r.outcome.outcome;
    EXPECT_EQ(r.policyVersion, 0);
    EXPECT_TRUE(r.behaviourLogProbs.empty());
  }
  // Step 2's first turn was generated while step 1's last turn was still being evaluated.
  EXPECT_LT(doneAtHook, doneAfterStep1);
  EXPECT_GT(s1.overlappedSeconds, 0);
  EXPECT_EQ(s1.overlappedTokens, 2 * 10);
  for (const TurnRecord &r : ahead->records) {
    EXPECT_EQ(r.policyVersion, 1);
    EXPECT_EQ(r.behaviourLogProbs.size(), r.completion.size()); // taken with the generating weights
  }

  // Step 2 starts from the turn made ahead: its turn-1 rewards have been coming since step 1.
  RolloutStats s2;
  std::vector<TurnRecord> r2 = runEpisodes(*policy, f.tokenizer, step2, env, o2, &s2, nullptr, &*ahead);
  ASSERT_EQ(r2.size(), 4u);
  EXPECT_EQ(s2.generatedTokens, 2 * 10); // the second turn only
  // One generation batch per turn: without the overlap every turn's evaluation is waited for whole
  // after its generation (4 delays over the two steps); with it, step 2's first turn is evaluated
  // while step 1's last turn is, so the steps wait about 3 delays in all.
  EXPECT_LT(s1.rewardWaitSeconds + s2.rewardWaitSeconds, 3.5 * delay);
  for (const TurnRecord &r : r2) EXPECT_EQ(r.policyVersion, 1);
  std::vector<RlSample> samples = samplesFromRecords(r2, "none");
  size_t recorded = 0;
  for (const RlSample &s : samples) recorded += !s.oldLogProbs.empty();
  size_t firstTurnSamples = 0;
  for (const TurnRecord &r : r2) firstTurnSamples += r.turn == 0 && r.advantage.has_value();
  EXPECT_EQ(recorded, firstTurnSamples); // the first turn's samples carry the behaviour log-probs

  // The same weights throughout: step 2 from the turn made ahead is step 2 made in one go (overlap 0).
  SlowEnvironment quick(0.0, "inline");
  std::vector<TurnRecord> inline2 = runEpisodes(*policy, f.tokenizer, step2, *quick.env, o2);
  EXPECT_TRUE(sameRecords(r2, inline2));
}

namespace {

// A resumed candidates.jsonl line: its reward_document is read through schema::RewardDocument, so
// the terms the step statistics sum are typed, the document is written back as it was read, and a
// damaged one is an error naming the field.
TEST(RlResume, CandidateLineReadsTheRewardDocumentTyped) {
  cudaperf::schema::RewardDocument doc;
  doc.task = "t";
  doc.mode = "measured";
  doc.outcome = "ok";
  doc.total = 1.25;
  doc.provisional = false;
  cudaperf::schema::RewardTerm term;
  term.name = "correct";
  term.group = "outcome";
  term.value = 1;
  term.weight = 1;
  term.contribution = 1.25;
  doc.terms.push_back(term);
  cudaperf::support::Json line = {{"schema", "cudaperf-rl-candidate/1"}, {"outcome", "ok"}, {"reward_document", doc.toJson()}};
  TurnRecord r = recordFromCandidateLine(line);
  ASSERT_TRUE(r.outcome.document.has_value());
  ASSERT_NE(r.outcome.document->term("correct"), nullptr);
  EXPECT_EQ(r.outcome.document->term("correct")->contribution, 1.25);
  EXPECT_EQ(cudaperf::support::writeJson(r.outcome.document->toJson()), cudaperf::support::writeJson(line["reward_document"]));
  line["reward_document"] = nullptr;
  EXPECT_FALSE(recordFromCandidateLine(line).outcome.document.has_value());
  line["reward_document"] = doc.toJson();
  line["reward_document"]["terms"][0]["contribution"] = "x";
  try {
    recordFromCandidateLine(line);
    ADD_FAILURE() << "a damaged reward_document was read";
  } catch (const cudaperf::support::SupportError &e) {
    EXPECT_NE(std::string(e.what()).find("reward_document: terms[0].contribution: expected a number"), std::string::npos)
        << e.what();
  }
}

// eval_samples G > 1: records in runEpisodes' order (task, sample, turn); rates are per sample, best-of-T
// is each sample's best turn. 2 tasks x G = 2 x T = 2, computed by hand.
TEST(RlEvaluation, SummaryCountsEverySampleOfEveryTask) {
  auto record = [](bool correct, std::optional<double> speedup) {
    TurnRecord r;
    r.outcome.extracted = true;
    r.outcome.outcome = correct ? "ok" : "compile_error";
    r.outcome.correct = correct;
    r.outcome.speedup = speedup;
    return r;
  };
  std::vector<TurnRecord> records = {
      record(false, std::nullopt), record(true, 2.0),         // task 0, sample 0: turn 1, turn 2
      record(true, 0.5), record(true, 1.5),                   // task 0, sample 1
      record(true, 3.0), record(false, std::nullopt),         // task 1, sample 0
      record(false, std::nullopt), record(false, std::nullopt)}; // task 1, sample 1
  cudaperf::support::Json j = evaluationSummary(records, 2, 2, 2);
  EXPECT_EQ(j["tasks"], 2);
  EXPECT_EQ(j["samples_per_task"], 2);
  EXPECT_DOUBLE_EQ(j["turn1"]["correct"].get<double>(), 0.5);   // 2 of 4 samples
  EXPECT_DOUBLE_EQ(j["turn1"]["fast_1"].get<double>(), 0.25);   // only 3.0
  EXPECT_DOUBLE_EQ(j["turn1"]["mean_speedup_correct"].get<double>(), 1.75);
  EXPECT_DOUBLE_EQ(j["per_turn"][1]["correct"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["per_turn"][1]["fast_1"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["best_of_turns"]["correct"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(j["best_of_turns"]["fast_1"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(j["best_of_turns"]["mean_speedup_correct"].get<double>(), (2.0 + 1.5 + 3.0) / 3);
  // G = 1 reads one sample per task (here the first two records); too few records for the shape is an error.
  cudaperf::support::Json one = evaluationSummary(records, 1, 2);
  EXPECT_EQ(one["samples_per_task"], 1);
  EXPECT_DOUBLE_EQ(one["turn1"]["correct"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(one["best_of_turns"]["correct"].get<double>(), 1);
  EXPECT_THROW(evaluationSummary(records, 3, 2, 2), TrainerError);
}

} // namespace
