// The shape of a decoder-only transformer of the Llama / Qwen2 / Qwen3 family, read from and written
// to a Hugging Face config.json (transformers 4 and 5 forms). No LibTorch: parameter counts and
// memory estimates are arithmetic on this struct, so tools can print them before loading anything.
#pragma once

#include "cudaperf/Learn/Error.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudaperf::learn {

// Rotary position embedding. Supported rope_type values: "default", "linear" (positions divided by
// factor) and "llama3" (frequency-dependent scaling of Llama 3.1). Others are refused by name.
struct RopeParameters {
  std::string type = "default";
  double theta = 10000.0;
  double factor = 1.0;
  double lowFreqFactor = 1.0;           // llama3
  double highFreqFactor = 4.0;          // llama3
  int64_t originalMaxPositions = 8192;  // llama3
  double partialRotaryFactor = 1.0;     // must be 1 (all of head_dim rotated)
};

struct ModelConfig {
  std::string modelType = "qwen2"; // "llama", "qwen2" or "qwen3"
  int64_t vocabSize = 0;
  int64_t hiddenSize = 0;
  int64_t intermediateSize = 0;
  int64_t numLayers = 0;
  int64_t numHeads = 0;
  int64_t numKvHeads = 0;   // grouped-query attention when < numHeads
  int64_t headDim = 0;      // config head_dim, else hiddenSize / numHeads
  int64_t maxPositions = 32768;
  double rmsNormEps = 1e-6;
  RopeParameters rope;
  bool tieWordEmbeddings = false;
  bool qkvBias = false;     // biases of q/k/v_proj (Qwen2: always; Llama/Qwen3: attention_bias)
  bool outputBias = false;  // bias of o_proj (Llama/Qwen3: attention_bias)
  bool mlpBias = false;     // Llama's mlp_bias
  bool qkNorm = false;      // Qwen3: RMSNorm over head_dim of q and k before the rotation
  std::string hiddenAct = "silu";
  double initializerRange = 0.02;
  std::string dtype = "float32"; // the checkpoint's torch dtype name ("bfloat16", ...)
  std::optional<int64_t> bosTokenId;
  std::vector<int64_t> eosTokenIds;
  std::optional<int64_t> padTokenId;

  // Parses config.json text; `source` names the file in errors. Refuses what the model cannot run
  // (sliding windows, other activations, unsupported rope types, tensor-parallel pretraining_tp > 1).
  static ModelConfig fromJson(const std::string &text, const std::string &source = "config.json");
  static ModelConfig fromFile(const std::string &path);
  static ModelConfig fromFolder(const std::string &dir) { return fromFile(dir + "/config.json"); }

  // config.json that transformers 5 loads (rope_parameters) and older readers too (rope_theta,
  // rope_scaling), with architectures and model_type.
  std::string toJson() const;
  void validate(const std::string &source) const; // throws ModelConfigError naming the field

  std::string architecture() const; // "Qwen2ForCausalLM", ...
  int64_t parameterCount() const;
  int64_t kvCacheBytesPerToken(int64_t bytesPerElement) const; // all layers, keys and values
};

int64_t bytesPerElement(const std::string &torchDtypeName); // "float32" 4, "bfloat16" 2, "float16" 2
std::string humanBytes(double bytes);                         // "48.6 MB", "14.2 GB"
std::string humanCount(double count);                         // "112.7K", "23.1M", "1.54B"

} // namespace cudaperf::learn
