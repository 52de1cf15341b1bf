#include "cudaperf/Learn/Rl.h"

#include "cudaperf/Reward/CodeExtraction.h"
#include "cudaperf/Schema/Outcome.h"
#include "cudaperf/Schema/RewardDocument.h"
#include "cudaperf/Support/Sha256.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cmath>
#include <future>
#include <map>
#include <numeric>
#include <random>
#include <set>

namespace cudaperf::learn {

using support::Json;

namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Samples in order, cut into micro-batches of at most `tokens` padded tokens (at least one row each).
std::vector<std::vector<size_t>> microBatches(const std::vector<const RlSample *> &rows, int64_t tokens) {
  std::vector<std::vector<size_t>> out;
  size_t longest = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    size_t length = rows[i]->prompt.size() + rows[i]->completion.size();
    size_t widest = std::max(longest, length);
    if (!out.empty() && int64_t(widest * (out.back().size() + 1)) <= tokens) {
      out.back().push_back(i);
      longest = widest;
    } else {
      out.push_back({i});
      longest = length;
    }
  }
  return out;
}

TrainingBatch batchOf(const std::vector<const RlSample *> &rows, int64_t padId, const torch::Device &device) {
  std::vector<std::vector<int32_t>> ids;
  std::vector<std::vector<uint8_t>> masks;
  for (const RlSample *s : rows) {
    std::vector<int32_t> row = s->prompt;
    row.insert(row.end(), s->completion.begin(), s->completion.end());
    std::vector<uint8_t> mask(row.size(), 0);
    std::fill(mask.begin() + long(s->prompt.size()), mask.end(), 1);
    ids.push_back(std::move(row));
    masks.push_back(std::move(mask));
  }
  return makeTrainingBatch(ids, masks, padId, device);
}

// [B, T] fp32 of per-sample values placed at each completion's positions (0 elsewhere).
torch::Tensor placed(const std::vector<const RlSample *> &rows, int64_t width,
                     const std::function<const std::vector<float> &(const RlSample &)> &values, const torch::Device &device) {
  torch::Tensor out = torch::zeros({int64_t(rows.size()), width}, torch::kFloat32);
  auto a = out.accessor<float, 2>();
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::vector<float> &v = values(*rows[i]);
    size_t start = rows[i]->prompt.size();
    for (size_t t = 0; t < v.size() && t < rows[i]->completion.size(); ++t) a[long(i)][long(start + t)] = v[t];
  }
  return out.to(device);
}

} // namespace

uint64_t mixSeed(uint64_t a, uint64_t b) {
  // splitmix64 of the combination: nearby (seed, step) pairs give unrelated streams
  uint64_t z = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

RlLossTerms rlMicroBatchLoss(CausalLmImpl &policy, const std::vector<const RlSample *> &rows,
                             const std::vector<double> &tokenWeights, const RlLossOptions &o) {
  torch::Device device = policy.options.device();
  TrainingBatch batch = batchOf(rows, o.padId, device);
  int64_t width = batch.ids.size(1);
  torch::Tensor logp = sequenceLogProbs(policy, batch, o.logProbs); // [B, T] fp32, 0 off target
  torch::Tensor mask = batch.targets.to(torch::kFloat32);
  bool haveOld = std::all_of(rows.begin(), rows.end(), [](const RlSample *s) { return !s->oldLogProbs.empty(); });
  torch::Tensor old = haveOld ? placed(rows, width, [](const RlSample &s) -> const std::vector<float> & { return s.oldLogProbs; }, device)
                              : logp.detach();
  std::vector<float> adv(rows.size()), w(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    adv[i] = float(rows[i]->advantage);
    w[i] = float(tokenWeights[i]);
  }
  torch::Tensor advantage = torch::tensor(adv).to(device).unsqueeze(1);
  torch::Tensor weight = torch::tensor(w).to(device).unsqueeze(1) * mask;
  torch::Tensor ratio = torch::exp((logp - old) * mask);
  torch::Tensor unclipped = ratio * advantage;
  torch::Tensor clipped = torch::clamp(ratio, 1.0 - o.clipLow, 1.0 + o.clipHigh) * advantage;
  torch::Tensor policyTerm = -torch::min(unclipped, clipped);
  torch::Tensor perToken = policyTerm;
  torch::Tensor klTerm;
  if (o.klCoef > 0) {
    torch::Tensor ref = placed(rows, width, [](const RlSample &s) -> const std::vector<float> & { return s.refLogProbs; }, device);
    torch::Tensor d = (ref - logp) * mask;
    klTerm = torch::exp(d) - d - 1;
    perToken = perToken + o.klCoef * klTerm;
  }
  RlLossTerms out;
  out.loss = (perToken * weight).sum();
  {
    torch::NoGradGuard noGrad;
    out.policyLoss = (policyTerm * weight).sum().item<double>();
    if (klTerm.defined()) out.kl = (klTerm * weight).sum().item<double>();
    out.tokens = int64_t(mask.sum().item<double>());
    out.clippedTokens = int64_t(((clipped < unclipped).to(torch::kFloat32) * mask).sum().item<double>());
    torch::Tensor live = ratio.masked_select(batch.targets);
    if (live.numel() > 0) {
      out.ratioMax = live.max().item<double>();
      out.ratioMin = live.min().item<double>();
    }
  }
  return out;
}

void fillLogProbs(CausalLmImpl &model, std::vector<RlSample> &samples, bool reference, const RlLossOptions &o) {
  torch::NoGradGuard noGrad;
  bool lora = model.hasLora();
  if (reference && lora) model.setLoraEnabled(false);
  std::vector<const RlSample *> rows;
  for (const RlSample &s : samples) rows.push_back(&s);
  LogProbOptions lp = o.logProbs;
  lp.gradientCheckpointing = false;
  try {
    for (const std::vector<size_t> &mb : microBatches(rows, o.microBatchTokens)) {
      std::vector<const RlSample *> part;
      for (size_t i : mb) part.push_back(rows[i]);
      TrainingBatch batch = batchOf(part, o.padId, model.options.device());
      torch::Tensor logp = sequenceLogProbs(model, batch, lp).to(torch::kCPU);
      auto a = logp.accessor<float, 2>();
      for (size_t k = 0; k < mb.size(); ++k) {
        RlSample &s = samples[mb[k]];
        std::vector<float> &target = reference ? s.refLogProbs : s.oldLogProbs;
        target.resize(s.completion.size());
        for (size_t t = 0; t < s.completion.size(); ++t) target[t] = a[long(k)][long(s.prompt.size() + t)];
      }
    }
  } catch (...) {
    if (reference && lora) model.setLoraEnabled(true);
    throw;
  }
  if (reference && lora) model.setLoraEnabled(true);
}

namespace {

// fillLogProbs over the ranks: each computes its contiguous share of the samples, then every rank
// gets all of them (the mini-batches below need every sample's values on every rank).
void fillLogProbsShared(CausalLmImpl &model, std::vector<RlSample> &samples, bool reference, bool intoRef,
                        const RlLossOptions &o, DataParallel *dp) {
  auto target = [intoRef](RlSample &s) -> std::vector<float> & { return intoRef ? s.refLogProbs : s.oldLogProbs; };
  int world = dp ? dp->worldSize() : 1;
  auto [begin, end] = shardRange(samples.size(), dp ? dp->rank() : 0, world);
  std::vector<RlSample> part(samples.begin() + long(begin), samples.begin() + long(end));
  fillLogProbs(model, part, reference, o);
  if (world == 1) {
    for (size_t i = 0; i < part.size(); ++i) target(samples[i]) = std::move(reference ? part[i].refLogProbs : part[i].oldLogProbs);
    return;
  }
  std::string bytes;
  for (RlSample &s : part) {
    const std::vector<float> &v = reference ? s.refLogProbs : s.oldLogProbs;
    uint64_t n = v.size();
    bytes.append(reinterpret_cast<const char *>(&n), sizeof n);
    bytes.append(reinterpret_cast<const char *>(v.data()), n * sizeof(float));
  }
  std::vector<std::string> all = dp->allGather(bytes);
  size_t next = 0;
  for (const std::string &b : all)
    for (size_t at = 0; at < b.size(); ++next) {
      if (next >= samples.size()) throw TrainerError("data-parallel log-probs: more samples gathered than there are");
      uint64_t n = 0;
      std::memcpy(&n, b.data() + at, sizeof n);
      at += sizeof n;
      std::vector<float> &v = target(samples[next]);
      v.resize(n);
      std::memcpy(v.data(), b.data() + at, n * sizeof(float));
      at += n * sizeof(float);
    }
  if (next != samples.size()) throw TrainerError("data-parallel log-probs: " + std::to_string(next) + " of " +
                                                 std::to_string(samples.size()) + " samples gathered");
}

} // namespace

RlUpdateStats rlUpdate(CausalLmImpl &policy, Trainer &trainer, std::vector<RlSample> &samples, const RlLossOptions &o,
                       int64_t miniBatches, int64_t epochs, uint64_t shuffleSeed, CausalLmImpl *reference,
                       DataParallel *dp) {
  RlUpdateStats stats;
  if (samples.empty()) return stats;
  int world = dp ? dp->worldSize() : 1, rank = dp ? dp->rank() : 0;
  bool wasTraining = policy.is_training();
  policy.eval(); // behaviour and reference log-probs without dropout
  // Samples generated by earlier weights (overlap_steps 1) carry their behaviour log-probs; the
  // others were generated by the current weights, whose log-probs are then taken so that every
  // ratio has its own behaviour policy (otherwise, with one optimizer step, ratio 1 is implied).
  std::vector<size_t> missing;
  for (size_t i = 0; i < samples.size(); ++i)
    if (samples[i].oldLogProbs.empty()) missing.push_back(i);
  if (missing.size() == samples.size()) {
    if (miniBatches * epochs > 1) fillLogProbsShared(policy, samples, false, false, o, dp);
  } else if (!missing.empty()) {
    std::vector<RlSample> part;
    for (size_t i : missing) {
      RlSample s;
      s.prompt = samples[i].prompt;
      s.completion = samples[i].completion;
      part.push_back(std::move(s));
    }
    fillLogProbsShared(policy, part, false, false, o, dp);
    for (size_t k = 0; k < missing.size(); ++k) samples[missing[k]].oldLogProbs = std::move(part[k].oldLogProbs);
  }
  for (const RlSample &s : samples)
    if (s.oldLogProbs.size() != s.completion.size() && !s.oldLogProbs.empty())
      throw TrainerError("rlUpdate: a sample's behaviour log-probs (" + std::to_string(s.oldLogProbs.size()) +
                         ") do not match its completion (" + std::to_string(s.completion.size()) + " tokens)");
  if (o.klCoef > 0) {
    if (reference) {
      fillLogProbsShared(*reference, samples, false, true, o, dp);
    } else if (policy.hasLora()) {
      fillLogProbsShared(policy, samples, true, true, o, dp);
    } else {
      throw TrainerError("kl_coef > 0 without LoRA needs the reference model");
    }
  }
  (void)wasTraining;
  policy.train(); // LoRA dropout, if any, in the gradient passes
  std::vector<size_t> order(samples.size());
  for (int64_t epoch = 0; epoch < epochs; ++epoch) {
    std::iota(order.begin(), order.end(), size_t(0));
    std::shuffle(order.begin(), order.end(), std::mt19937_64(mixSeed(shuffleSeed, uint64_t(epoch))));
    size_t per = (samples.size() + size_t(miniBatches) - 1) / size_t(miniBatches);
    for (size_t begin = 0; begin < order.size(); begin += per) {
      std::vector<const RlSample *> rows;
      for (size_t k = begin; k < std::min(order.size(), begin + per); ++k) rows.push_back(&samples[order[k]]);
      // Longest first inside the mini-batch: micro-batches of similar lengths pad less.
      std::stable_sort(rows.begin(), rows.end(), [](const RlSample *a, const RlSample *b) {
        return a->prompt.size() + a->completion.size() > b->prompt.size() + b->completion.size();
      });
      std::vector<size_t> tokens, groups;
      for (const RlSample *s : rows) {
        tokens.push_back(s->completion.size());
        groups.push_back(s->group);
      }
      // The weights come from the whole mini-batch, so they are the one-process weights on every
      // rank; each rank then takes every W-th row (the rows are sorted by length: shares balance).
      std::vector<double> weights = lossTokenWeights(tokens, groups, o.normalization);
      std::vector<const RlSample *> mine;
      std::vector<double> myWeights;
      for (size_t k = size_t(rank); k < rows.size(); k += size_t(world)) {
        mine.push_back(rows[k]);
        myWeights.push_back(weights[k]);
      }
      trainer.zeroGrad();
      double loss = 0, pl = 0, kl = 0, ratioMax = 1, ratioMin = 1;
      int64_t tokensDone = 0, clipped = 0;
      for (const std::vector<size_t> &mb : microBatches(mine, o.microBatchTokens)) {
        std::vector<const RlSample *> part;
        std::vector<double> w;
        for (size_t i : mb) {
          part.push_back(mine[i]);
          w.push_back(myWeights[i]);
        }
        RlLossTerms terms = rlMicroBatchLoss(policy, part, w, o);
        terms.loss.backward();
        loss += terms.loss.item<double>();
        pl += terms.policyLoss;
        kl += terms.kl;
        tokensDone += terms.tokens;
        clipped += terms.clippedTokens;
        ratioMax = std::max(ratioMax, terms.ratioMax);
        ratioMin = std::min(ratioMin, terms.ratioMin);
      }
      if (world > 1) { // the statistics of the whole mini-batch
        std::vector<double> sums = dp->sum({loss, pl, kl, double(tokensDone), double(clipped)});
        std::vector<double> maxima = dp->max({ratioMax, -ratioMin});
        loss = sums[0], pl = sums[1], kl = sums[2], tokensDone = int64_t(sums[3]), clipped = int64_t(sums[4]);
        ratioMax = maxima[0], ratioMin = -maxima[1];
      }
      stats.tokens += tokensDone;
      stats.clippedTokens += clipped;
      stats.ratioMax = std::max(stats.ratioMax, ratioMax);
      stats.ratioMin = std::min(stats.ratioMin, ratioMin);
      StepResult step = trainer.step(); // the trainer's reducer sums the gradients over the ranks
      ++stats.optimizerSteps;
      stats.loss += loss;
      stats.policyLoss += pl;
      stats.kl += kl;
      stats.gradNorm += step.gradNorm;
      stats.learningRate = step.learningRate;
      stats.skippedSteps += step.skipped;
    }
  }
  double n = double(std::max<int64_t>(1, stats.optimizerSteps));
  stats.loss /= n;
  stats.policyLoss /= n;
  stats.kl /= n;
  stats.gradNorm /= n;
  return stats;
}

std::vector<std::pair<size_t, size_t>> generationBatches(size_t tasks, size_t groupSize, size_t batch) {
  size_t rows = tasks * groupSize;
  batch = std::max<size_t>(1, batch);
  if (groupSize > 0 && batch >= groupSize) batch -= batch % groupSize; // whole groups per batch
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t begin = 0; begin < rows; begin += batch) out.push_back({begin, std::min(rows, begin + batch)});
  return out;
}

namespace {

// Turn t of the rows [begin, end): prompts from the earlier turns' records, one generate() call, code
// extraction and submission to the environment (submitted[r]).
void generateTurnBatch(CausalLmImpl &policy, const Tokenizer &tokenizer, const std::vector<RolloutTask> &tasks,
                       RlEnvironment &environment, const RolloutOptions &o, size_t t, size_t begin, size_t end,
                       const std::function<TurnRecord &(size_t row, size_t turn)> &at,
                       std::vector<std::shared_future<CandidateOutcome>> &submitted, RolloutStats &local) {
  using Clock = std::chrono::steady_clock;
  size_t G = size_t(o.groupSize), T = size_t(o.turns);
  auto countTokens = [&](const std::string &text) { return tokenizer.encode(text, false).size(); };
  // Prompts: the task, then every earlier turn's candidate and feedback, fitted to the budget.
  auto promptStart = Clock::now();
  std::vector<std::vector<int32_t>> part;
  GenerationOptions g = o.generation;
  g.seeds.clear();
  for (size_t r = begin; r < end; ++r) {
    size_t i = r / G, traj = r % G;
    std::vector<PolicyTurn> earlier;
    for (size_t k = 0; k < t; ++k) {
      const TurnRecord &prev = at(r, k);
      earlier.push_back({prev.source ? *prev.source : tokenizer.decode(prev.completion, true), prev.outcome.feedback, false});
    }
    std::vector<PolicyTurn> kept = fitPolicyPrompt(tasks[i].task, earlier, size_t(o.contextTokens), countTokens);
    TurnRecord &rec = at(r, t);
    rec.group = o.firstGroup + i;
    rec.trajectory = traj;
    rec.turn = t;
    rec.policyVersion = o.policyVersion;
    rec.turnsShown = kept.size();
    rec.codeOmitted = size_t(std::count_if(kept.begin(), kept.end(), [](const PolicyTurn &p) { return p.candidateOmitted; }));
    rec.prompt = tokenizer.encode(renderPolicyPrompt(policyMessages(tasks[i].task, kept)), false);
    local.promptTokens += int64_t(rec.prompt.size());
    part.push_back(rec.prompt);
    g.seeds.push_back(mixSeed(o.seed, (uint64_t(o.firstGroup + i) * G + traj) * T + t));
  }
  local.promptSeconds += since(promptStart);
  // A row's completion: code extracted and submitted for reward. With submitAsFinished it runs from
  // generate() as the row stops, so the reward workers analyse and evaluate it while longer rows of the
  // batch still generate; its seconds count as extraction, not generation.
  std::vector<char> sent(end - begin, 0);
  double extractInGeneration = 0;
  auto finishRow = [&](size_t k, const GeneratedSequence &sequence) {
    size_t r = begin + k;
    TurnRecord &rec = at(r, t);
    rec.completion = sequence.tokens;
    rec.finishReason = sequence.finishReason;
    local.generatedTokens += int64_t(rec.completion.size());
    if (auto block = reward::extractCodeBlock(tokenizer.decode(rec.completion, true))) rec.source = std::move(block->code);
    submitted[r] = environment.submit(tasks[r / G].task.task.dir, rec.source);
    sent[k] = 1;
  };
  if (o.submitAsFinished)
    g.rowDone = [&](size_t k, const GeneratedSequence &sequence) {
      if (k >= sent.size() || sent[k]) return;
      auto at0 = Clock::now();
      finishRow(k, sequence);
      extractInGeneration += since(at0);
    };
  auto start = Clock::now();
  std::vector<GeneratedSequence> generated = generate(policy, part, g);
  local.generationSeconds += since(start) - extractInGeneration;
  auto extractStart = Clock::now();
  for (size_t k = 0; k < end - begin; ++k)
    if (!sent[k]) finishRow(k, generated[k]);
  local.extractSeconds += since(extractStart) + extractInGeneration;
}

} // namespace

RolloutAhead generateFirstTurn(CausalLmImpl &policy, const Tokenizer &tokenizer, const std::vector<RolloutTask> &tasks,
                               RlEnvironment &environment, const RolloutOptions &o, const RlLossOptions *behaviour,
                               RolloutStats *stats) {
  size_t rowCount = tasks.size() * size_t(o.groupSize);
  RolloutAhead ahead;
  ahead.records.resize(rowCount);
  ahead.futures.resize(rowCount);
  RolloutStats local;
  auto at = [&](size_t row, size_t) -> TurnRecord & { return ahead.records[row]; };
  for (auto [begin, end] : generationBatches(tasks.size(), size_t(o.groupSize), size_t(o.generationBatch)))
    generateTurnBatch(policy, tokenizer, tasks, environment, o, 0, begin, end, at, ahead.futures, local);
  if (behaviour) {
    // The behaviour policy's log-probs, taken now: by the time this turn is learned from, the
    // weights that generated it have been updated.
    std::vector<RlSample> samples;
    std::vector<size_t> rows;
    for (size_t r = 0; r < rowCount; ++r) {
      if (ahead.records[r].completion.empty()) continue;
      RlSample s;
      s.prompt = ahead.records[r].prompt;
      s.completion = ahead.records[r].completion;
      samples.push_back(std::move(s));
      rows.push_back(r);
    }
    bool wasTraining = policy.is_training();
    policy.eval(); // as rlUpdate takes them: no dropout
    try {
      fillLogProbs(policy, samples, false, *behaviour);
    } catch (...) {
      if (wasTraining) policy.train();
      throw;
    }
    if (wasTraining) policy.train();
    for (size_t k = 0; k < rows.size(); ++k) ahead.records[rows[k]].behaviourLogProbs = std::move(samples[k].oldLogProbs);
  }
  if (stats) {
    stats->promptSeconds += local.promptSeconds;
    stats->generationSeconds += local.generationSeconds;
    stats->extractSeconds += local.extractSeconds;
    stats->promptTokens += local.promptTokens;
    stats->generatedTokens += local.generatedTokens;
    stats->overlappedTokens += local.generatedTokens;
  }
  return ahead;
}

std::vector<TurnRecord> runEpisodes(CausalLmImpl &policy, const Tokenizer &tokenizer,
                                    const std::vector<RolloutTask> &tasks, RlEnvironment &environment,
                                    const RolloutOptions &o, RolloutStats *stats,
                                    const std::function<void(const std::string &)> &progress, RolloutAhead *ahead,
                                    const std::function<void(RolloutStats &)> &whileLastTurnEvaluates) {
  size_t G = size_t(o.groupSize), T = size_t(o.turns);
  size_t rowCount = tasks.size() * G; // row r: task r / G, trajectory r % G
  std::vector<TurnRecord> records(rowCount * T);
  auto at = [&](size_t row, size_t t) -> TurnRecord & { return records[row * T + t]; };
  using Clock = std::chrono::steady_clock;
  RolloutStats local;
  RlEnvironment::Counts before = environment.counts();
  std::vector<std::pair<size_t, size_t>> batches = generationBatches(tasks.size(), G, size_t(o.generationBatch));
  std::vector<std::shared_future<CandidateOutcome>> futures(rowCount); // the previous turn's
  auto collect = [&](size_t begin, size_t end, size_t t) {
    auto start = Clock::now();
    for (size_t r = begin; r < end; ++r) at(r, t).outcome = futures[r].get();
    local.rewardWaitSeconds += since(start);
  };
  size_t firstTurn = 0;
  if (ahead && T > 0) {
    if (ahead->records.size() != rowCount || ahead->futures.size() != rowCount)
      throw TrainerError("runEpisodes: the turn generated ahead has " + std::to_string(ahead->records.size()) +
                         " rows, the rollout " + std::to_string(rowCount));
    for (size_t r = 0; r < rowCount; ++r) at(r, 0) = std::move(ahead->records[r]);
    futures = std::move(ahead->futures);
    firstTurn = 1;
  }
  for (size_t t = firstTurn; t < T; ++t) {
    std::vector<std::shared_future<CandidateOutcome>> submitted(rowCount);
    // Batch by batch; a batch's candidates are analysed and evaluated while the next batch generates,
    // and turn t + 1 of a batch starts as soon as that batch's turn-t rewards are in (the later
    // batches' may still be coming).
    for (auto [begin, end] : batches) {
      if (t > 0) collect(begin, end, t - 1);
      generateTurnBatch(policy, tokenizer, tasks, environment, o, t, begin, end, at, submitted, local);
      if (progress) progress("turn " + std::to_string(t + 1) + ": " + std::to_string(end) + "/" + std::to_string(rowCount) + " generated");
    }
    futures = std::move(submitted);
  }
  if (T > 0) {
    // The last turn: every candidate is analysed before the first is ranked (one scorer call for the
    // turn). What was submitted after this mark (the next step's first turn) is not waited for.
    size_t mark = environment.submissions();
    if (whileLastTurnEvaluates) {
      auto start = Clock::now();
      whileLastTurnEvaluates(local);
      local.overlappedSeconds += since(start);
    }
    auto start = Clock::now();
    environment.waitStaged(mark);
    local.rewardWaitSeconds += since(start);
    collect(0, rowCount, T - 1);
  }
  auto scoreStart = Clock::now();
  for (size_t r = 0; r < rowCount; ++r) {
    std::vector<const CandidateOutcome *> turns;
    for (size_t t = 0; t < T; ++t) turns.push_back(&at(r, t).outcome);
    std::vector<reward::TurnReward> scored = environment.score(turns);
    for (size_t t = 0; t < T; ++t) at(r, t).scored = scored[t];
  }
  local.scoreSeconds = since(scoreStart);
  RlEnvironment::Counts after = environment.counts();
  local.candidates = int64_t(records.size());
  std::set<std::string> unique;
  for (size_t k = 0; k < records.size(); ++k) {
    const TurnRecord &rec = records[k];
    unique.insert(tasks[k / T / G].task.task.dir + "\n" +
                  (rec.source ? support::sha256Hex(*rec.source) : std::string("no code block")));
  }
  local.uniqueCandidates = int64_t(unique.size());
  for (const TurnRecord &r : records) local.reused += r.outcome.cached;
  local.evaluated = int64_t(after.evaluated - before.evaluated);
  local.ranked = int64_t(after.ranked - before.ranked);
  local.rankingCalls = int64_t(after.rankingCalls - before.rankingCalls);
  local.rankingErrors = int64_t(after.rankingErrors - before.rankingErrors);
  if (local.rankingErrors > 0) local.rankingError = after.lastRankingError;
  local.evaluateSeconds = after.evaluateSeconds - before.evaluateSeconds;
  local.rankSeconds = after.rankSeconds - before.rankSeconds;
  if (stats) *stats = local;
  return records;
}

namespace {

template <class T> void put(std::string &out, const T &value) { out.append(reinterpret_cast<const char *>(&value), sizeof value); }
template <class T> void putVector(std::string &out, const std::vector<T> &v) {
  put(out, uint64_t(v.size()));
  out.append(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T));
}

struct Reader {
  const std::string &bytes;
  size_t at = 0;
  template <class T> T get() {
    if (at + sizeof(T) > bytes.size()) throw TrainerError("data-parallel samples: truncated message");
    T value;
    std::memcpy(&value, bytes.data() + at, sizeof value);
    at += sizeof value;
    return value;
  }
  template <class T> std::vector<T> getVector() {
    uint64_t n = get<uint64_t>();
    if (at + n * sizeof(T) > bytes.size()) throw TrainerError("data-parallel samples: truncated message");
    std::vector<T> v(n);
    std::memcpy(v.data(), bytes.data() + at, n * sizeof(T));
    at += n * sizeof(T);
    return v;
  }
};

} // namespace

std::vector<RlSample> gatherSamples(DataParallel &dp, const std::vector<RlSample> &mine) {
  if (dp.worldSize() == 1) return mine;
  std::string bytes;
  for (const RlSample &s : mine) {
    put(bytes, uint64_t(s.group));
    put(bytes, s.advantage);
    putVector(bytes, s.prompt);
    putVector(bytes, s.completion);
    putVector(bytes, s.oldLogProbs);
    putVector(bytes, s.refLogProbs);
  }
  std::vector<RlSample> all;
  for (const std::string &part : dp.allGather(bytes)) {
    Reader r{part};
    while (r.at < part.size()) {
      RlSample s;
      s.group = size_t(r.get<uint64_t>());
      s.advantage = r.get<double>();
      s.prompt = r.getVector<int32_t>();
      s.completion = r.getVector<int32_t>();
      s.oldLogProbs = r.getVector<float>();
      s.refLogProbs = r.getVector<float>();
      all.push_back(std::move(s));
    }
  }
  return all;
}

TurnRecord recordFromCandidateLine(const Json &j) {
  auto opt = [&](const char *key) -> std::optional<double> {
    const Json *v = support::member(j, key);
    return v && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
  };
  TurnRecord r;
  r.group = j.value("group", size_t(0));
  r.trajectory = j.value("trajectory", size_t(0));
  r.turn = j.value("turn", size_t(1)) - 1;
  r.policyVersion = j.value("policy_version", int64_t(0));
  r.finishReason = j.value("finish_reason", std::string());
  r.turnsShown = j.value("turns_shown", size_t(0));
  r.codeOmitted = j.value("code_omitted", size_t(0));
  if (const Json *src = support::member(j, "source"); src && src->is_string()) r.source = src->get<std::string>();
  CandidateOutcome &o = r.outcome;
  o.sha256 = j.value("source_sha256", std::string());
  o.extracted = r.source.has_value();
  o.outcome = j.value("outcome", std::string());
  if (const Json *gate = support::member(j, "gate"); gate && gate->is_string()) o.gate = gate->get<std::string>();
  o.reward = opt("own_reward");
  o.correct = j.value("correct", false);
  o.speedup = opt("speedup");
  o.cached = j.value("cached", false);
  o.evaluatorError = j.value("evaluator_error", std::string());
  o.seconds = j.value("evaluation_seconds", 0.0);
  if (const Json *stages = support::member(j, "evaluator_stages"); stages && stages->is_object())
    o.evaluatorStages = *stages;
  if (const Json *doc = support::member(j, "reward_document"); doc && !doc->is_null())
    o.document = schema::RewardDocument::fromJson(*doc, "reward_document");
  r.scored.reward = opt("reward");
  r.scored.discountedReturn = opt("return");
  r.scored.rule = j.value("rule", std::string());
  r.advantage = opt("advantage");
  return r;
}

std::vector<RlSample> samplesFromRecords(std::vector<TurnRecord> &records, const std::string &advantageScale) {
  std::vector<TurnReturn> returns;
  for (const TurnRecord &r : records) returns.push_back({r.group, r.trajectory, r.turn, r.scored.discountedReturn});
  std::vector<std::optional<double>> advantages = groupAdvantages(returns, advantageScale);
  std::vector<RlSample> samples;
  for (size_t i = 0; i < records.size(); ++i) {
    records[i].advantage = advantages[i];
    if (!advantages[i] || records[i].completion.empty()) continue;
    RlSample s;
    s.group = records[i].group;
    s.prompt = records[i].prompt;
    s.completion = records[i].completion;
    s.advantage = *advantages[i];
    s.oldLogProbs = records[i].behaviourLogProbs;
    samples.push_back(std::move(s));
  }
  return samples;
}

Json evaluationSummary(const std::vector<TurnRecord> &records, size_t tasks, int64_t turns, int64_t samplesPerTask) {
  // runEpisodes' order: task i's sample g (trajectory), turn t at (i * G + g) * T + t. Rates are per
  // sample (tasks x G); best-of-T is each sample's best turn.
  size_t T = size_t(turns), G = size_t(samplesPerTask), samples = tasks * G;
  if (records.size() < samples * T)
    throw TrainerError("evaluationSummary: " + std::to_string(records.size()) + " records for " + std::to_string(tasks) +
                       " tasks x " + std::to_string(G) + " samples x " + std::to_string(T) + " turns");
  auto mean = [](const std::vector<double> &v) { return v.empty() ? Json(nullptr) : Json(std::accumulate(v.begin(), v.end(), 0.0) / double(v.size())); };
  auto rate = [&](size_t n) { return samples ? Json(double(n) / double(samples)) : Json(nullptr); };
  Json perTurn = Json::array();
  std::vector<int> bestCorrect(samples, 0), bestFast(samples, 0), bestCompiled(samples, 0);
  std::vector<std::optional<double>> bestSpeedup(samples);
  std::vector<double> bestReward(samples, -1e9);
  for (size_t t = 0; t < T; ++t) {
    size_t correct = 0, compiled = 0, fast = 0;
    std::vector<double> speedups, rewards;
    for (size_t k = 0; k < samples; ++k) { // k = i * G + g
      const TurnRecord &r = records[k * T + t];
      const CandidateOutcome &o = r.outcome;
      std::optional<schema::Outcome> evaluated = schema::parseOutcome(o.outcome);
      bool didCompile = o.extracted && evaluated != schema::Outcome::CompileError &&
                        evaluated != schema::Outcome::InternalError;
      compiled += didCompile;
      bestCompiled[k] |= didCompile;
      if (o.reward) {
        rewards.push_back(*o.reward);
        bestReward[k] = std::max(bestReward[k], *o.reward);
      }
      if (!o.correct) continue;
      ++correct;
      bestCorrect[k] = 1;
      if (o.speedup) {
        speedups.push_back(*o.speedup);
        fast += *o.speedup > 1;
        bestFast[k] |= *o.speedup > 1;
        if (!bestSpeedup[k] || *o.speedup > *bestSpeedup[k]) bestSpeedup[k] = o.speedup;
      }
    }
    perTurn.push_back({{"turn", t + 1}, {"correct", rate(correct)}, {"compiled", rate(compiled)}, {"fast_1", rate(fast)},
                       {"mean_speedup_correct", mean(speedups)}, {"mean_reward", mean(rewards)}});
  }
  std::vector<double> best, bestRewards;
  for (size_t k = 0; k < samples; ++k) {
    if (bestSpeedup[k]) best.push_back(*bestSpeedup[k]);
    if (bestReward[k] > -1e9) bestRewards.push_back(bestReward[k]);
  }
  auto count = [](const std::vector<int> &v) { return size_t(std::accumulate(v.begin(), v.end(), 0)); };
  Json turn1 = perTurn.empty() ? Json(nullptr) : perTurn[0];
  return Json{{"tasks", tasks},
              {"samples_per_task", samplesPerTask},
              {"turns", turns},
              {"turn1", turn1},
              {"best_of_turns", {{"correct", rate(count(bestCorrect))}, {"compiled", rate(count(bestCompiled))},
                                 {"fast_1", rate(count(bestFast))}, {"mean_speedup_correct", mean(best)},
                                 {"mean_reward", mean(bestRewards)}}},
              {"per_turn", perTurn}};
}

} // namespace cudaperf::learn
