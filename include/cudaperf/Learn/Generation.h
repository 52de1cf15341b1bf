// Batched generation with a KV cache: prompts left-padded into one batch, sampled as a chain of
// small steps (llama.cpp's shape: temperature -> top-k -> top-p -> draw), each row with its own
// random stream, stopping per row at a stop token, a stop string or the token budget. Finished rows
// leave the batch (their cache rows are dropped), so long tails do not cost the whole batch.
#pragma once

#include "cudaperf/Learn/Transformer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace cudaperf::learn {

// One step of the chain: rewrites fp32 logits [rows, vocab] in place (masked entries become -inf).
class SamplerStep {
public:
  virtual ~SamplerStep() = default;
  virtual void apply(torch::Tensor &logits) const = 0;
  virtual std::string describe() const = 0;
};

class TemperatureStep : public SamplerStep { // logits / t (t > 0)
public:
  explicit TemperatureStep(double t);
  void apply(torch::Tensor &logits) const override;
  std::string describe() const override;
private:
  double temperature_;
};

class TopKStep : public SamplerStep { // keeps the k largest (ties at the k-th value kept)
public:
  explicit TopKStep(int64_t k);
  void apply(torch::Tensor &logits) const override;
  std::string describe() const override;
private:
  int64_t k_;
};

class TopPStep : public SamplerStep { // keeps the smallest prefix of the sorted distribution with mass >= p
public:
  explicit TopPStep(double p);
  void apply(torch::Tensor &logits) const override;
  std::string describe() const override;
private:
  double p_;
};

struct SamplingOptions {
  bool greedy = false;     // argmax; the steps below are ignored
  double temperature = 1.0;
  int64_t topK = 0;        // 0: off
  double topP = 1.0;       // 1: off
};

// Steps in order, then a draw: softmax, and per row the first token whose cumulative probability
// exceeds that row's uniform number (inverse CDF), so a row's draw depends only on its own stream.
class SamplerChain {
public:
  static SamplerChain fromOptions(const SamplingOptions &options);
  SamplerChain &add(std::unique_ptr<SamplerStep> step);
  bool greedy() const { return greedy_; }
  // logits [rows, vocab] (any float dtype); uniforms in [0, 1), one per row. Returns int64 [rows].
  torch::Tensor pick(const torch::Tensor &logits, const std::vector<double> &uniforms) const;
  // Applies the steps only (what pick draws from).
  torch::Tensor transform(const torch::Tensor &logits) const;
  std::string describe() const; // "temperature 0.8 -> top-k 50 -> top-p 0.95 -> draw"

private:
  bool greedy_ = false;
  std::vector<std::shared_ptr<SamplerStep>> steps_;
};

// A row's random stream (mt19937_64): reproducible from its seed on any machine.
class RowRandom {
public:
  explicit RowRandom(uint64_t seed) : engine_(seed) {}
  double uniform() { return double(engine_() >> 11) * 0x1.0p-53; }
private:
  std::mt19937_64 engine_;
};

// Where a generate() call's time went: the prompts' forward pass with the first pick (which waits for
// the device), then the decoding steps after it, each also ending in a pick that waits.
struct GenerationTiming {
  double firstTokenSeconds = 0;
  int64_t decodeSteps = 0; // steps after the first
  double decodeSeconds = 0;
};

struct GeneratedSequence;

struct GenerationOptions {
  int64_t maxNewTokens = 256;
  SamplingOptions sampling;
  uint64_t seed = 0;                  // row i's stream: seeds[i] if given, else seed + i
  std::vector<uint64_t> seeds;
  std::vector<int64_t> stopTokenIds;  // e.g. the config's eos ids (the caller decides)
  std::vector<std::string> stopStrings;
  // Needed for stop strings: the text of token ids (the tokenizer's decode).
  std::function<std::string(const std::vector<int32_t> &)> decode;
  int64_t padId = 0;
  bool useCache = true;               // false: every step re-runs the whole sequence (tests, checks)
  // Decoding with a static KV cache (KvCache::writeIndex): fixed shapes and addresses every step, finished
  // rows kept in the batch (not dropped), attention over the whole capacity under the mask. The same
  // tokens as the default path up to the rounding of a longer reduction. Needs useCache.
  bool staticCache = false;
  // The static decoding step captured once as a CUDA graph and replayed (one launch instead of the
  // step's ~250 kernel launches from the CPU: decoding a small model at RL batch sizes is launch-bound).
  // Implies staticCache; a CUDA device and a LibTorch with CUDA (ModelError otherwise).
  bool cudaGraph = false;
  bool logProbs = false;              // also return each token's log-probability (below)
  // A model with LoRA adapters generates with merged copies of its adapted weights (one product per
  // projection instead of three; the copies cost that weight memory once more while generating).
  // The sampled distribution differs from the adapter path's only by rounding. false: the adapter path.
  bool mergeLora = true;
  // Called after each step with the step index and the rows still generating.
  std::function<void(int64_t step, int64_t activeRows)> progress;
  // Called on the generating thread the moment a row stops (stop token, stop string or length), once per
  // row, with its index among the prompts and its final sequence (the same one generate() returns): an RL
  // rollout submits the row's candidate for reward while the other rows still generate.
  std::function<void(size_t row, const GeneratedSequence &sequence)> rowDone;
  GenerationTiming *timing = nullptr; // filled (overwritten) by each call when set
};

struct GeneratedSequence {
  std::vector<int32_t> tokens;        // generated ids, including a stop token or the stop string's last token
  std::string finishReason;           // "stop_token", "stop_string" or "length"
  // log p(token) under softmax(logits / temperature) of the model (before top-k/top-p); when asked.
  std::vector<float> logProbs;
};

// Generates for every prompt (token ids, each non-empty) in one batch. The model is used in eval
// mode without gradients. Throws ModelError on empty prompts or a budget beyond max positions.
std::vector<GeneratedSequence> generate(CausalLmImpl &model, const std::vector<std::vector<int32_t>> &prompts,
                                        const GenerationOptions &options);

// The text before the first stop string (the whole text when none occurs).
std::string truncateAtStop(const std::string &text, const std::vector<std::string> &stopStrings);

// Last-position logits of one unpadded sequence, fp32 on the CPU (cudaperf-lm logits).
torch::Tensor lastLogits(CausalLmImpl &model, const std::vector<int32_t> &ids);

} // namespace cudaperf::learn
