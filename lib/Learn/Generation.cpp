// Sampling steps, the sampler chain and the batched generation loop (docs/policy-model.md).
#include "cudaperf/Learn/Generation.h"

#ifdef CUDAPERF_TORCH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>
#endif

#include <algorithm>
#include <chrono>
#include <limits>
#include <sstream>

namespace cudaperf::learn {

namespace {
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Restores the model's training flag when generation ends (LoRA dropout is off meanwhile).
struct EvalModeScope {
  CausalLmImpl &model;
  bool wasTraining;
  explicit EvalModeScope(CausalLmImpl &m) : model(m), wasTraining(m.is_training()) { model.eval(); }
  ~EvalModeScope() { model.train(wasTraining); }
};

// Merged copies of the adapted weights for the duration of one generate() call (GenerationOptions::mergeLora).
struct MergedLoraScope {
  CausalLmImpl &model;
  bool on;
  MergedLoraScope(CausalLmImpl &m, bool want) : model(m), on(want && m.hasLora()) {
    if (on) model.setMergedLoraCopies(true);
  }
  ~MergedLoraScope() {
    if (on) model.setMergedLoraCopies(false);
  }
};
} // namespace

TemperatureStep::TemperatureStep(double t) : temperature_(t) {
  if (!(t > 0)) throw ModelError("temperature must be positive (use greedy decoding for 0), got " + number(t));
}
void TemperatureStep::apply(torch::Tensor &logits) const {
  if (temperature_ != 1.0) logits.div_(temperature_);
}
std::string TemperatureStep::describe() const { return "temperature " + number(temperature_); }

TopKStep::TopKStep(int64_t k) : k_(k) {
  if (k <= 0) throw ModelError("top-k must be positive, got " + std::to_string(k));
}
void TopKStep::apply(torch::Tensor &logits) const {
  if (k_ >= logits.size(-1)) return;
  torch::Tensor kth = std::get<0>(logits.topk(k_, -1)).narrow(-1, k_ - 1, 1);
  logits.masked_fill_(logits < kth, kMinusInf);
}
std::string TopKStep::describe() const { return "top-k " + std::to_string(k_); }

TopPStep::TopPStep(double p) : p_(p) {
  if (!(p > 0 && p <= 1)) throw ModelError("top-p must be in (0, 1], got " + number(p));
}
void TopPStep::apply(torch::Tensor &logits) const {
  if (p_ >= 1.0) return;
  auto [sorted, order] = logits.sort(-1, /*descending=*/true);
  torch::Tensor probs = torch::softmax(sorted, -1);
  // A token goes when the tokens ranked before it already hold p of the mass; the first always stays.
  torch::Tensor drop = (probs.cumsum(-1) - probs) >= p_;
  logits.masked_fill_(torch::zeros_like(drop).scatter(-1, order, drop), kMinusInf);
}
std::string TopPStep::describe() const { return "top-p " + number(p_); }

SamplerChain SamplerChain::fromOptions(const SamplingOptions &o) {
  SamplerChain chain;
  chain.greedy_ = o.greedy;
  if (o.greedy) return chain;
  chain.add(std::make_unique<TemperatureStep>(o.temperature));
  if (o.topK > 0) chain.add(std::make_unique<TopKStep>(o.topK));
  if (o.topP < 1.0) chain.add(std::make_unique<TopPStep>(o.topP));
  return chain;
}

SamplerChain &SamplerChain::add(std::unique_ptr<SamplerStep> step) {
  steps_.push_back(std::shared_ptr<SamplerStep>(std::move(step)));
  return *this;
}

torch::Tensor SamplerChain::transform(const torch::Tensor &logits) const {
  torch::Tensor out = logits.to(torch::kFloat32).clone();
  for (const auto &step : steps_) step->apply(out);
  return out;
}

torch::Tensor SamplerChain::pick(const torch::Tensor &logits, const std::vector<double> &uniforms) const {
  if (greedy_) return logits.argmax(-1);
  if (int64_t(uniforms.size()) != logits.size(0)) throw ModelError("sampler: one uniform number per row needed");
  torch::Tensor cdf = torch::softmax(transform(logits), -1).cumsum(-1);
  std::vector<float> u(uniforms.begin(), uniforms.end());
  torch::Tensor draws = torch::from_blob(u.data(), {int64_t(u.size()), 1}, torch::kFloat32).to(cdf.device());
  torch::Tensor targets = draws * cdf.narrow(-1, cdf.size(-1) - 1, 1);
  // First index whose cumulative mass exceeds the target: never a token of probability zero.
  torch::Tensor picked = torch::searchsorted(cdf, targets, /*out_int32=*/false, /*right=*/true).squeeze(-1);
  return picked.clamp_max(cdf.size(-1) - 1);
}

std::string SamplerChain::describe() const {
  if (greedy_) return "greedy";
  std::string s;
  for (const auto &step : steps_) s += step->describe() + " -> ";
  return s + "draw";
}

std::string truncateAtStop(const std::string &text, const std::vector<std::string> &stopStrings) {
  size_t cut = text.size();
  for (const std::string &stop : stopStrings)
    if (!stop.empty())
      if (size_t at = text.find(stop); at != std::string::npos) cut = std::min(cut, at);
  return text.substr(0, cut);
}

torch::Tensor lastLogits(CausalLmImpl &model, const std::vector<int32_t> &ids) {
  if (ids.empty()) throw ModelError("logits: no token ids");
  EvalModeScope evalMode(model);
  torch::NoGradGuard noGrad;
  torch::Device device = model.options.device();
  PaddedBatch batch = leftPad({ids}, 0, device);
  torch::Tensor hidden = model.hiddenStates(batch.ids, batch.positions, AttentionInputs{});
  return model.logits(hidden.select(1, hidden.size(1) - 1)).to(torch::kFloat32).squeeze(0).cpu();
}

namespace {

// Per original row: what it produced and whether it is done.
struct RowState {
  GeneratedSequence out;
  bool done = false;
};

bool endsWithStopString(const std::vector<int32_t> &tokens, const GenerationOptions &o, size_t longestStop) {
  // A stop string of n bytes spans at most n tokens; one more covers a character split across tokens.
  size_t window = std::min(tokens.size(), longestStop + 1);
  std::vector<int32_t> tail(tokens.end() - std::ptrdiff_t(window), tokens.end());
  std::string text = o.decode(tail);
  for (const std::string &stop : o.stopStrings)
    if (!stop.empty() && text.find(stop) != std::string::npos) return true;
  return false;
}

} // namespace

std::vector<GeneratedSequence> generate(CausalLmImpl &model, const std::vector<std::vector<int32_t>> &prompts,
                                        const GenerationOptions &o) {
  int64_t B = int64_t(prompts.size());
  if (B == 0) return {};
  int64_t longest = 0;
  for (size_t i = 0; i < prompts.size(); ++i) {
    if (prompts[i].empty()) throw ModelError("generate: prompt " + std::to_string(i) + " has no tokens");
    for (int32_t id : prompts[i])
      if (id < 0 || id >= model.config.vocabSize)
        throw ModelError("generate: prompt " + std::to_string(i) + " has token id " + std::to_string(id) +
                         " outside the vocabulary (" + std::to_string(model.config.vocabSize) + ")");
    longest = std::max<int64_t>(longest, int64_t(prompts[i].size()));
  }
  if (o.maxNewTokens <= 0) {
    std::vector<GeneratedSequence> none(size_t(B), GeneratedSequence{{}, "length", {}});
    if (o.rowDone)
      for (size_t i = 0; i < none.size(); ++i) o.rowDone(i, none[i]);
    return none;
  }
  if (longest + o.maxNewTokens > model.config.maxPositions)
    throw ModelError("generate: prompt (" + std::to_string(longest) + " tokens) + max new tokens (" +
                     std::to_string(o.maxNewTokens) + ") exceed max_position_embeddings " +
                     std::to_string(model.config.maxPositions));
  if (!o.stopStrings.empty() && !o.decode) throw ModelError("generate: stop strings need a decode function");
  if (!o.seeds.empty() && int64_t(o.seeds.size()) != B)
    throw ModelError("generate: " + std::to_string(o.seeds.size()) + " seeds for " + std::to_string(B) + " prompts");
  bool staticCache = o.staticCache || o.cudaGraph;
  if (staticCache && !o.useCache) throw ModelError("generate: a static KV cache needs useCache");
#ifndef CUDAPERF_TORCH_CUDA
  if (o.cudaGraph) throw ModelError("generate: CUDA graphs need a LibTorch with CUDA; this build's has none");
#endif
  if (o.cudaGraph && !model.options.device().is_cuda()) throw ModelError("generate: CUDA graphs need a CUDA device");


  EvalModeScope evalMode(model);
  torch::NoGradGuard noGrad;
  MergedLoraScope mergedLora(model, o.mergeLora);
  const torch::Device device = model.options.device();
  SamplerChain chain = SamplerChain::fromOptions(o.sampling);
  double logProbTemperature = o.sampling.greedy ? 1.0 : o.sampling.temperature;
  size_t longestStop = 0;
  for (const std::string &s : o.stopStrings) longestStop = std::max(longestStop, s.size());

  std::vector<RowState> rows(static_cast<size_t>(B));
  std::vector<RowRandom> random;
  for (int64_t i = 0; i < B; ++i) random.emplace_back(o.seeds.empty() ? o.seed + uint64_t(i) : o.seeds[size_t(i)]);

  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  GenerationTiming timing;
  PaddedBatch batch = leftPad(prompts, o.padId, device);
  int64_t L = batch.ids.size(1), capacity = L + o.maxNewTokens;
  bool padded = false;
  for (const auto &p : prompts) padded |= int64_t(p.size()) != L;

  // active[j] = the original row in batch slot j (slots shrink as rows finish, with a cache).
  std::vector<int64_t> active(static_cast<size_t>(B));
  for (int64_t i = 0; i < B; ++i) active[size_t(i)] = i;
  torch::Tensor keyValid = torch::zeros({B, capacity}, torch::TensorOptions().dtype(torch::kBool).device(device));
  keyValid.narrow(1, 0, L).copy_(batch.valid);
  torch::Tensor nextPositions = batch.positions.select(1, L - 1) + 1; // [B]
  torch::Tensor sequence = batch.ids, sequencePositions = batch.positions; // uncached mode only

  KvCache cache;
  torch::Tensor logits;
  if (o.useCache) {
    cache = KvCache::allocate(model.config, B, capacity, model.options);
    if (staticCache) // every key and value the mask hides must still be a number (KvCache::writeIndex)
      for (size_t i = 0; i < cache.keys.size(); ++i) cache.keys[i].zero_(), cache.values[i].zero_();
    AttentionInputs attention;
    if (padded) attention.mask = paddedCausalMask(keyValid.narrow(1, 0, L), 0, L);
    torch::Tensor hidden = model.hiddenStates(batch.ids, batch.positions, attention, &cache);
    logits = model.logits(hidden.select(1, L - 1)).to(torch::kFloat32);
  } else {
    AttentionInputs attention;
    if (padded) attention.mask = paddedCausalMask(keyValid.narrow(1, 0, L), 0, L);
    torch::Tensor hidden = model.hiddenStates(sequence, sequencePositions, attention);
    logits = model.logits(hidden.select(1, L - 1)).to(torch::kFloat32);
  }

  // Static decoding (GenerationOptions::staticCache, cudaGraph): the step's inputs live in fixed buffers,
  // the position written in cache.writeIndex, the visible keys in keyValid (the mask is a view of it).
  torch::Tensor stepIds, stepPositions;
  AttentionInputs staticAttention;
  if (staticCache) {
    auto longs = torch::TensorOptions().dtype(torch::kInt64).device(device);
    stepIds = torch::zeros({B, 1}, longs);
    stepPositions = torch::zeros({B, 1}, longs);
    cache.writeIndex = torch::zeros({1}, longs);
    staticAttention.mask = keyValid.view({B, 1, 1, capacity});
  }
  auto staticStep = [&] {
    torch::Tensor hidden = model.hiddenStates(stepIds, stepPositions, staticAttention, &cache);
    return model.logits(hidden.select(1, 0)).to(torch::kFloat32);
  };
#ifdef CUDAPERF_TORCH_CUDA
  std::unique_ptr<at::cuda::CUDAGraph> graph;
  torch::Tensor graphLogits;
#endif

  for (int64_t step = 0; step < o.maxNewTokens; ++step) {
    // Slots of rows still generating (in uncached mode finished rows stay in the batch, ignored).
    std::vector<int64_t> slots;
    for (size_t j = 0; j < active.size(); ++j)
      if (!rows[size_t(active[j])].done) slots.push_back(int64_t(j));
    std::vector<double> uniforms(active.size(), 0.5);
    if (!chain.greedy())
      for (int64_t j : slots) uniforms[size_t(j)] = random[size_t(active[size_t(j)])].uniform();
    torch::Tensor picked = chain.pick(logits, uniforms);
    torch::Tensor chosenLogProbs;
    if (o.logProbs)
      chosenLogProbs = torch::log_softmax(logits / logProbTemperature, -1).gather(1, picked.unsqueeze(1)).squeeze(1).cpu();
    torch::Tensor pickedCpu = picked.to(torch::kCPU, torch::kInt64);
    auto pickedA = pickedCpu.accessor<int64_t, 1>();
    for (int64_t j : slots) {
      RowState &row = rows[size_t(active[size_t(j)])];
      int32_t token = int32_t(pickedA[j]);
      row.out.tokens.push_back(token);
      if (o.logProbs) row.out.logProbs.push_back(chosenLogProbs[j].item<float>());
      if (std::find(o.stopTokenIds.begin(), o.stopTokenIds.end(), token) != o.stopTokenIds.end()) {
        row.done = true;
        row.out.finishReason = "stop_token";
      } else if (!o.stopStrings.empty() && endsWithStopString(row.out.tokens, o, longestStop)) {
        row.done = true;
        row.out.finishReason = "stop_string";
      } else if (int64_t(row.out.tokens.size()) >= o.maxNewTokens) {
        row.done = true;
        row.out.finishReason = "length";
      }
      if (row.done && o.rowDone) o.rowDone(size_t(active[size_t(j)]), row.out);
    }
    int64_t stillActive = 0;
    for (int64_t j : slots) stillActive += rows[size_t(active[size_t(j)])].done ? 0 : 1;
    double now = elapsed();
    if (step == 0) {
      timing.firstTokenSeconds = now;
    } else {
      timing.decodeSteps = step;
      timing.decodeSeconds = now - timing.firstTokenSeconds;
    }
    if (o.progress) o.progress(step, stillActive);
    if (stillActive == 0) break;

    if (staticCache) {
      int64_t length = cache.length;
      keyValid.select(1, length).fill_(true);
      cache.writeIndex.fill_(length);
      stepIds.copy_(picked.view({B, 1}));
      stepPositions.copy_(nextPositions.view({B, 1}));
#ifdef CUDAPERF_TORCH_CUDA
      if (o.cudaGraph) {
        if (!graph) {
          // PyTorch's recipe: warm up on a side stream (workspaces allocated outside the capture), then
          // capture there. The warm-up writes this step's keys and values, which the replay writes again.
          torch::cuda::synchronize();
          c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, device.index());
          {
            c10::cuda::CUDAStreamGuard guard(side);
            staticStep();
            side.synchronize();
            graph = std::make_unique<at::cuda::CUDAGraph>();
            graph->capture_begin();
            graphLogits = staticStep();
            graph->capture_end();
          }
          side.synchronize();
        }
        graph->replay();
        logits = graphLogits;
      } else {
        logits = staticStep();
      }
#else
      logits = staticStep();
#endif
      cache.length = length + 1;
      nextPositions = nextPositions + 1;
    } else if (o.useCache) {
      torch::Tensor input = picked;
      int64_t finished = int64_t(active.size()) - stillActive;
      if (finished > 0 && finished >= std::max<int64_t>(1, int64_t(active.size()) / 8)) {
        std::vector<int64_t> keepSlots, keepRows;
        for (size_t j = 0; j < active.size(); ++j)
          if (!rows[size_t(active[j])].done) {
            keepSlots.push_back(int64_t(j));
            keepRows.push_back(active[j]);
          }
        torch::Tensor index = torch::tensor(keepSlots, torch::kInt64).to(device);
        cache.selectRows(index);
        keyValid = keyValid.index_select(0, index);
        nextPositions = nextPositions.index_select(0, index);
        input = input.index_select(0, index);
        active = keepRows;
      }
      int64_t length = cache.length;
      keyValid.select(1, length).fill_(true);
      AttentionInputs attention;
      if (padded) attention.mask = paddedCausalMask(keyValid.narrow(1, 0, length + 1), length, 1);
      torch::Tensor hidden = model.hiddenStates(input.unsqueeze(1), nextPositions.unsqueeze(1), attention, &cache);
      nextPositions = nextPositions + 1;
      logits = model.logits(hidden.select(1, 0)).to(torch::kFloat32);
    } else {
      int64_t length = sequence.size(1);
      keyValid.select(1, length).fill_(true);
      sequence = torch::cat({sequence, picked.unsqueeze(1)}, 1);
      sequencePositions = torch::cat({sequencePositions, nextPositions.unsqueeze(1)}, 1);
      nextPositions = nextPositions + 1;
      AttentionInputs attention;
      if (padded) attention.mask = paddedCausalMask(keyValid.narrow(1, 0, length + 1), 0, length + 1);
      torch::Tensor hidden = model.hiddenStates(sequence, sequencePositions, attention);
      logits = model.logits(hidden.select(1, length)).to(torch::kFloat32);
    }
  }
  if (o.timing) *o.timing = timing;
  std::vector<GeneratedSequence> out;
  out.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    RowState &r = rows[i];
    if (r.out.finishReason.empty()) { // never stopped in the loop (no new tokens asked for)
      r.out.finishReason = "length";
      if (o.rowDone) o.rowDone(i, r.out);
    }
    out.push_back(std::move(r.out));
  }
  return out;
}

} // namespace cudaperf::learn
