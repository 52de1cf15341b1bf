// Training pieces shared by SFT (cudaperf-train sft) and the RL trainer: token log-probabilities in
// chunks over the vocabulary (never a [tokens, vocab] logits tensor kept for backward), gradient
// checkpointing per decoder layer (a custom autograd Function that recomputes the layer), and a
// Trainer that owns AdamW, fp32 master weights for bf16 models, clipping, the schedule and exact
// resume. The loop itself stays with the caller, short and linear (nanoGPT's train.py shape).
#pragma once

#include "cudaperf/Learn/Error.h"

#include "cudaperf/Learn/Schedule.h"
#include "cudaperf/Learn/Transformer.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cudaperf::learn {

// log softmax(hidden W^T / temperature)[target] per row: hidden [N, d], weight [V, d], targets [N]
// int64 -> [N] fp32. Forward and backward work chunkRows rows at a time (0: ~64 MB of fp32 logits
// per chunk), so memory is O(chunk x V) whatever N is. Differentiable in hidden and weight.
torch::Tensor tokenLogProbs(const torch::Tensor &hidden, const torch::Tensor &weight, const torch::Tensor &targets,
                            int64_t chunkRows = 0, double temperature = 1.0);
int64_t defaultChunkRows(int64_t vocabSize);

// A layer runner that keeps only each layer's input and recomputes the layer during backward.
// Dropout (LoRA's) is replayed with the generator states of the forward pass.
LayerRunner checkpointedLayers();

// Right-padded sequences for teacher forcing: ids [B, T], positions [B, T] (0..n-1, padding 0),
// targets [B, T] bool: where the token at t is scored given ids[< t] (never t = 0, never padding).
struct TrainingBatch {
  torch::Tensor ids, positions, targets;
  int64_t targetCount = 0;
};
// targetMasks[i][t] != 0 marks token t of row i as a target (e.g. the completion of a prompt).
TrainingBatch makeTrainingBatch(const std::vector<std::vector<int32_t>> &rows,
                                const std::vector<std::vector<uint8_t>> &targetMasks, int64_t padId,
                                const torch::Device &device);

struct LogProbOptions {
  bool gradientCheckpointing = false;
  int64_t chunkRows = 0;
  double temperature = 1.0;
};
// log p(ids[t] | ids[< t]) at every target position, [B, T] fp32 with 0 elsewhere; differentiable.
torch::Tensor sequenceLogProbs(CausalLmImpl &model, const TrainingBatch &batch, const LogProbOptions &options = {});
// Mean negative log-likelihood over the batch's targets (the SFT loss).
torch::Tensor languageModelLoss(CausalLmImpl &model, const TrainingBatch &batch, const LogProbOptions &options = {});

struct TrainerOptions {
  double learningRate = 3e-4;
  double weightDecay = 0.1;  // on matrices and embeddings; never on norms and biases
  double beta1 = 0.9, beta2 = 0.95, epsilon = 1e-8;
  double gradClip = 1.0;     // max global L2 norm; 0: off
  ScheduleOptions schedule;
  bool masterWeights = true; // fp32 copies of bf16/fp16 trainable weights, updated by AdamW
};

struct StepResult {
  int64_t step = 0;          // optimizer steps done, after this one
  double learningRate = 0;
  double gradNorm = 0;       // before clipping
  bool skipped = false;      // non-finite gradients: no update (the step still counts)
};

// Optimizes the model's parameters that require gradients (all of them for full fine-tuning, the
// adapters after attachLora) with AdamW (torch.optim.AdamW's update). Use: zeroGrad(); forward +
// backward over the micro-batches (each loss scaled by its share of the batch); step(), which also
// releases the gradients. Memory: weights + gradients + fp32 master (when separate) + two fp32
// moments, i.e. 16 bytes per bf16 parameter.
class Trainer {
public:
  Trainer(CausalLm model, const TrainerOptions &options);
  ~Trainer();

  void zeroGrad();
  StepResult step();
  int64_t stepsDone() const { return steps_; }
  const TrainerOptions &options() const { return options_; }
  void setSchedule(const ScheduleOptions &schedule) { options_.schedule = schedule; } // e.g. a time budget
  std::vector<std::pair<std::string, torch::Tensor>> trainable() const;
  // Called by step() with the trainable parameters before the norm is taken: data parallelism sums
  // the gradients over the ranks here (DataParallel::reduceGradients), so clipping, the skip on
  // non-finite gradients and the update see the global gradient on every rank alike.
  void setGradientReducer(std::function<void(const std::vector<torch::Tensor> &)> reducer) { reducer_ = std::move(reducer); }

  // DIR/trainer_state.json (schema cudaperf-trainer-state/1: step, options, `extra` from the caller
  // such as the data position), trainable.safetensors (trainable weights, their dtype),
  // master.safetensors (fp32 masters), optimizer.safetensors (AdamW moments "<name>.exp_avg",
  // "<name>.exp_avg_sq"), rng.safetensors (CPU and CUDA generator states).
  void save(const std::string &dir, const nlohmann::json &extra = nlohmann::json::object()) const;
  // Restores everything save wrote into this trainer (same model shape and trainable set); returns `extra`.
  // Also a compact state (TrainerState.h: "compact": true, no master.safetensors, moments of any
  // floating dtype): the masters become fp32 copies of the loaded trainable weights. A state that says
  // compact but has master.safetensors, or a full one without it while this trainer has masters, is
  // refused (TrainerError), as is a moment of a non-floating dtype.
  nlohmann::json load(const std::string &dir);

private:
  struct State;
  CausalLm model_;
  TrainerOptions options_;
  int64_t steps_ = 0;
  std::unique_ptr<State> state_;
  std::function<void(const std::vector<torch::Tensor> &)> reducer_;
};

} // namespace cudaperf::learn
