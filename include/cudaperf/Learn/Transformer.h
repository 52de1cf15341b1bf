// A decoder-only transformer of the Llama / Qwen2 / Qwen3 family in LibTorch, readable top to bottom
// in lib/Learn/Transformer.cpp (nanoGPT's shape): RMSNorm, rotary attention with grouped-query heads
// (Qwen2's q/k/v biases, Qwen3's q/k norms), SwiGLU MLP, tied or untied output head. Parameter names
// are Hugging Face's ("model.layers.3.self_attn.q_proj.weight"), so a checkpoint maps one to one.
// LoRA adapters live inside the projections ("...q_proj.lora_A", PEFT's layout on export).
#pragma once

#include "cudaperf/Learn/Error.h"

#include "cudaperf/Learn/ModelConfig.h"
#include "cudaperf/Learn/Safetensors.h"
#include "cudaperf/Learn/TorchCompat.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::learn {

torch::Dtype parseTorchDtype(const std::string &name); // float32/fp32, bfloat16/bf16, float16/fp16
std::string torchDtypeName(torch::Dtype dtype);        // "float32", "bfloat16", "float16"
torch::Device parseDevice(const std::string &name);    // "cpu", "cuda", "cuda:1"; ModelError if CUDA is absent

// Keys and values of every layer, preallocated for `capacity` positions: [B, kv_heads, capacity, head_dim].
struct KvCache {
  std::vector<torch::Tensor> keys, values;
  int64_t length = 0; // positions filled
  int64_t capacity = 0;
  // Static mode (decoding with one query per row, as a CUDA graph replays it): when defined, an int64
  // device tensor [1] holding the position the step writes; attention then reads the whole capacity and
  // the caller's mask hides the positions not written yet (the cache must be zeroed: a masked key times a
  // garbage NaN value would still poison the sum). Shapes and addresses never change between steps, so
  // the step can be captured once and replayed. `length` is then the caller's to advance.
  torch::Tensor writeIndex;

  static KvCache allocate(const ModelConfig &config, int64_t batch, int64_t capacity, const torch::TensorOptions &options);
  // Keeps the rows `rows` (int64 indices), e.g. to drop finished sequences from a batch.
  void selectRows(const torch::Tensor &rows);
};

// What attention may see. mask: bool [B, 1, Q, K] (true = attend), undefined when every key is
// visible to every query under plain causality (no padding), in which case `causal` applies.
struct AttentionInputs {
  torch::Tensor mask;
  bool causal = true;
};

// Every projection a decoder layer has, by module name: the possible LoRA targets.
inline const std::vector<std::string> kProjectionNames = {"q_proj", "k_proj", "v_proj", "o_proj",
                                                          "gate_proj", "up_proj", "down_proj"};

// LoRA settings (PEFT's meaning): rank r, scaling alpha / r, dropout on the adapter's input, and the
// projections that get adapters, by module name (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj).
struct LoraOptions {
  int64_t rank = 16;
  double alpha = 32;
  double dropout = 0.0;
  std::vector<std::string> targetModules = {"q_proj", "k_proj", "v_proj", "o_proj"};
};

// y = x W^T + b, plus the LoRA term (dropout(x) A^T B^T) * alpha / r when adapters are attached.
struct ProjectionImpl : torch::nn::Module {
  ProjectionImpl(int64_t in, int64_t out, bool bias, const torch::TensorOptions &options);
  torch::Tensor forward(const torch::Tensor &x);
  void attachLora(int64_t rank, double alpha, double dropout);
  void mergeLora();  // W += B A * scaling; adapters removed
  bool hasLora() const { return loraA.defined(); }
  // Inference only: a copy of W + B A * scaling that forward uses instead of the three products while
  // it is set and the adapter is enabled (cleared: the adapter path again). Not a parameter.
  void setMergedCopy(bool on);

  torch::Tensor weight, bias, loraA, loraB, merged;
  double loraScaling = 0, loraDropout = 0;
  bool loraEnabled = true; // false: the base projection only (the RL trainer's reference policy)
};
TORCH_MODULE(Projection);

struct RmsNormImpl : torch::nn::Module {
  RmsNormImpl(int64_t size, double eps, const torch::TensorOptions &options);
  torch::Tensor forward(const torch::Tensor &x);
  torch::Tensor weight;
  double eps;
};
TORCH_MODULE(RmsNorm);

struct AttentionImpl : torch::nn::Module {
  AttentionImpl(const ModelConfig &config, const torch::TensorOptions &options);
  // x [B, T, d]; cos/sin [B, T, head_dim]; cache: this layer's slot in a KvCache, or null.
  torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &cos, const torch::Tensor &sin,
                        const AttentionInputs &attention, KvCache *cache, int64_t layer);
  Projection q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, o_proj{nullptr};
  RmsNorm q_norm{nullptr}, k_norm{nullptr};
  int64_t numHeads, numKvHeads, headDim;
  bool preferFused = true;
};
TORCH_MODULE(Attention);

struct MlpImpl : torch::nn::Module {
  MlpImpl(const ModelConfig &config, const torch::TensorOptions &options);
  torch::Tensor forward(const torch::Tensor &x);
  Projection gate_proj{nullptr}, up_proj{nullptr}, down_proj{nullptr};
};
TORCH_MODULE(Mlp);

struct DecoderLayerImpl : torch::nn::Module {
  DecoderLayerImpl(const ModelConfig &config, const torch::TensorOptions &options);
  torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &cos, const torch::Tensor &sin,
                        const AttentionInputs &attention, KvCache *cache, int64_t layer);
  RmsNorm input_layernorm{nullptr}, post_attention_layernorm{nullptr};
  Attention self_attn{nullptr};
  Mlp mlp{nullptr};
};
TORCH_MODULE(DecoderLayer);

struct EmbeddingImpl : torch::nn::Module {
  EmbeddingImpl(int64_t vocab, int64_t dim, const torch::TensorOptions &options);
  torch::Tensor forward(const torch::Tensor &ids) { return torch::embedding(weight, ids); }
  torch::Tensor weight;
};
TORCH_MODULE(Embedding);

struct BackboneImpl : torch::nn::Module {
  BackboneImpl(const ModelConfig &config, const torch::TensorOptions &options);
  Embedding embed_tokens{nullptr};
  torch::nn::ModuleList layers;
  RmsNorm norm{nullptr};
};
TORCH_MODULE(Backbone);

// Runs one decoder layer; the training code substitutes a recomputing one (gradient checkpointing).
using LayerRunner = std::function<torch::Tensor(DecoderLayerImpl &, const torch::Tensor &x, const torch::Tensor &cos,
                                                const torch::Tensor &sin, const AttentionInputs &)>;

struct CausalLmImpl : torch::nn::Module {
  CausalLmImpl(const ModelConfig &config, const torch::TensorOptions &options);

  // Hidden states after the final norm, [B, T, d]. positions [B, T] int64 (left padding: a row's
  // first real token is position 0). With a cache, keys/values are appended at cache->length and the
  // cache length advances by T.
  torch::Tensor hiddenStates(const torch::Tensor &ids, const torch::Tensor &positions, const AttentionInputs &attention,
                             KvCache *cache = nullptr, const LayerRunner &runner = nullptr);
  // Logits of the given hidden states [.., d] -> [.., vocab], in the model's dtype.
  torch::Tensor logits(const torch::Tensor &hidden);
  // The output projection's weight [vocab, d] (the embedding's when tied).
  torch::Tensor outputWeight() const;

  // cos/sin [B, T, head_dim] for the positions, as transformers computes them (fp32, then the model dtype).
  std::pair<torch::Tensor, torch::Tensor> rotary(const torch::Tensor &positions, torch::Dtype dtype) const;

  void initializeRandom(uint64_t seed); // normal(0, initializer_range) weights, unit norms, zero biases
  void attachLora(const LoraOptions &options);
  void setLoraEnabled(bool enabled);
  void mergeLora();
  bool hasLora() const;
  // Each adapted projection computes with a merged copy of its weight (on) or its adapter again (off):
  // generate() turns it on for its duration, so a rollout costs one product per projection, not three.
  // The copies take the adapted projections' weight memory once more while on.
  void setMergedLoraCopies(bool on);
  std::vector<torch::Tensor> loraParameters();
  // HF names of the adapters ("model.layers.0.self_attn.q_proj.lora_A") with their tensors.
  std::vector<std::pair<std::string, torch::Tensor>> namedLoraParameters();
  // HF names of the base weights only (no adapters).
  std::vector<std::pair<std::string, torch::Tensor>> namedBaseParameters();
  void setFusedAttention(bool on); // off: the eager arithmetic even where the fused kernel exists

  ModelConfig config;
  torch::TensorOptions options;
  torch::Tensor invFreq; // fp32, [head_dim / 2], on the model's device
  Backbone model{nullptr};
  Projection lm_head{nullptr}; // null when tie_word_embeddings
};
TORCH_MODULE(CausalLm);

// Left-padded batch inputs for prompts of different lengths: ids [B, L] (pad id where empty),
// positions [B, L] (0 at each row's first real token; 0 on padding), and which entries are real.
struct PaddedBatch {
  torch::Tensor ids, positions, valid; // int64, int64, bool; on the requested device
};
PaddedBatch leftPad(const std::vector<std::vector<int32_t>> &rows, int64_t padId, const torch::Device &device);

// The attention mask for queries at absolute positions [offset, offset + Q) over keys [0, K) of a
// left-padded batch, where keyValid [B, K] says which keys are real: causal and real, and always the
// query's own key, so a padding query still has one key (no NaN). Undefined when keyValid is all true.
torch::Tensor paddedCausalMask(const torch::Tensor &keyValid, int64_t offset, int64_t queries);

// Hugging Face checkpoint folders.
struct LoadOptions {
  torch::Device device = torch::kCPU;
  std::optional<torch::Dtype> dtype; // default: float32 on CPU, bfloat16 on CUDA
  bool quiet = false;                // no memory line on stderr
};
// Reads DIR/config.json and the safetensors weights; prints the memory the model will take before
// allocating it. Throws ModelError naming a missing or mis-shaped tensor (ModelConfigError,
// SafetensorsError for the files themselves).
CausalLm loadPretrained(const std::string &dir, const LoadOptions &options = {});
// Copies a checkpoint's tensors into an existing model (same names and shapes).
void loadWeights(CausalLmImpl &model, const std::string &dir);
// Estimated bytes for the weights in a dtype (what loadPretrained prints).
double weightBytes(const ModelConfig &config, torch::Dtype dtype);

struct SaveOptions {
  torch::Dtype dtype = torch::kBFloat16;
  size_t maxShardBytes = size_t(5) << 30; // transformers' default is 5 GB
  bool mergeLora = true;                  // export W + BA (the model itself is not changed)
};
// config.json + model.safetensors (or shards with the index): what transformers' from_pretrained reads.
void savePretrained(CausalLmImpl &model, const std::string &dir, const SaveOptions &options = {});
// PEFT's adapter layout: adapter_config.json + adapter_model.safetensors ("base_model.model.<name>.weight").
void saveLoraAdapter(CausalLmImpl &model, const std::string &dir, const LoraOptions &lora, const std::string &baseModel);
void loadLoraAdapter(CausalLmImpl &model, const std::string &dir);
// Copies the tokenizer files of one folder into another (tokenizer.json, tokenizer_config.json, ...).
void copyTokenizerFiles(const std::string &fromDir, const std::string &toDir);

// A CPU tensor as bytes for safetensors (shared by every writer of torch tensors).
struct CpuTensorBytes {
  torch::Tensor tensor; // contiguous CPU copy that owns the bytes
  TensorDtype dtype;
};
CpuTensorBytes toCpuBytes(const torch::Tensor &t, torch::Dtype dtype);
torch::Tensor tensorFromView(const TensorView &view); // CPU tensor owning a copy of the bytes

} // namespace cudaperf::learn
