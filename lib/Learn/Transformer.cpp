// The policy model, top to bottom: projections (with optional LoRA), RMSNorm, rotary attention,
// MLP, decoder layer, backbone, causal LM; then masks for left-padded batches; then Hugging Face
// checkpoint loading and saving. The arithmetic follows transformers' Llama/Qwen2/Qwen3 modeling
// code (casts included), so fp32 logits agree to ~1e-5.
#include "cudaperf/Learn/Transformer.h"

#include "cudaperf/Learn/Safetensors.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

namespace cudaperf::learn {

namespace fs = std::filesystem;

torch::Dtype parseTorchDtype(const std::string &name) {
  if (name == "float32" || name == "fp32" || name == "float") return torch::kFloat32;
  if (name == "bfloat16" || name == "bf16") return torch::kBFloat16;
  if (name == "float16" || name == "fp16" || name == "half") return torch::kFloat16;
  throw ModelError("unknown dtype '" + name + "' (float32, bfloat16, float16)");
}

std::string torchDtypeName(torch::Dtype dtype) {
  if (dtype == torch::kFloat32) return "float32";
  if (dtype == torch::kBFloat16) return "bfloat16";
  if (dtype == torch::kFloat16) return "float16";
  throw ModelError("unsupported model dtype");
}

torch::Device parseDevice(const std::string &name) {
  torch::Device device = torch::kCPU;
  try {
    device = torch::Device(name);
  } catch (const c10::Error &) {
    throw ModelError("unknown device '" + name + "' (cpu, cuda, cuda:N)");
  }
  if (device.is_cuda() && !torch::cuda::is_available())
    throw ModelError("device '" + name + "' asked for, but this LibTorch has no CUDA device available");
  if (!device.is_cpu() && !device.is_cuda()) throw ModelError("device '" + name + "' is not supported (cpu, cuda)");
  return device;
}

// ---------------------------------------------------------------------------------------------
// Projection: a linear map with an optional LoRA adapter (A: [r, in], B: [out, r], PEFT's init:
// A Kaiming-uniform as nn.Linear, B zero, so an attached adapter starts as the identity change).

ProjectionImpl::ProjectionImpl(int64_t in, int64_t out, bool withBias, const torch::TensorOptions &options) {
  weight = register_parameter("weight", torch::empty({out, in}, options));
  if (withBias) bias = register_parameter("bias", torch::zeros({out}, options));
}

torch::Tensor ProjectionImpl::forward(const torch::Tensor &x) {
  if (merged.defined() && loraEnabled) return torch::linear(x, merged, bias);
  torch::Tensor y = torch::linear(x, weight, bias);
  if (loraA.defined() && loraEnabled) {
    torch::Tensor input = (loraDropout > 0 && is_training()) ? torch::dropout(x, loraDropout, true) : x;
    y = y + torch::linear(torch::linear(input, loraA), loraB) * loraScaling;
  }
  return y;
}

void ProjectionImpl::attachLora(int64_t rank, double alpha, double dropout) {
  if (loraA.defined()) throw ModelError("LoRA adapter attached twice");
  if (rank <= 0) throw ModelError("LoRA rank must be positive, got " + std::to_string(rank));
  int64_t in = weight.size(1), out = weight.size(0);
  auto holderA = std::make_shared<torch::nn::Module>();
  auto holderB = std::make_shared<torch::nn::Module>();
  torch::NoGradGuard noGrad;
  double bound = 1.0 / std::sqrt(double(in));
  loraA = holderA->register_parameter("weight", torch::empty({rank, in}, weight.options()).uniform_(-bound, bound));
  loraB = holderB->register_parameter("weight", torch::zeros({out, rank}, weight.options()));
  register_module("lora_A", holderA);
  register_module("lora_B", holderB);
  loraScaling = alpha / double(rank);
  loraDropout = dropout;
}

void ProjectionImpl::setMergedCopy(bool on) {
  merged = torch::Tensor();
  if (!on || !loraA.defined()) return;
  torch::NoGradGuard noGrad;
  merged = (weight.to(torch::kFloat32) + torch::matmul(loraB.to(torch::kFloat32), loraA.to(torch::kFloat32)) * loraScaling)
               .to(weight.scalar_type());
}

void ProjectionImpl::mergeLora() {
  merged = torch::Tensor();
  if (!loraA.defined()) return;
  torch::NoGradGuard noGrad;
  weight.add_((torch::matmul(loraB.to(torch::kFloat32), loraA.to(torch::kFloat32)) * loraScaling).to(weight.scalar_type()));
  unregister_module("lora_A");
  unregister_module("lora_B");
  loraA = torch::Tensor();
  loraB = torch::Tensor();
}

// ---------------------------------------------------------------------------------------------
// RMSNorm as transformers computes it: in fp32, cast back to the input dtype before the weight.

RmsNormImpl::RmsNormImpl(int64_t size, double eps_, const torch::TensorOptions &options) : eps(eps_) {
  weight = register_parameter("weight", torch::ones({size}, options));
}

torch::Tensor RmsNormImpl::forward(const torch::Tensor &x) {
  torch::Tensor h = x.to(torch::kFloat32);
  torch::Tensor variance = h.pow(2).mean(-1, true);
  h = h * torch::rsqrt(variance + eps);
  return weight * h.to(x.scalar_type());
}

// ---------------------------------------------------------------------------------------------
// Attention with rotary positions and grouped-query heads.

static torch::Tensor rotateHalf(const torch::Tensor &x) {
  int64_t half = x.size(-1) / 2;
  return torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

AttentionImpl::AttentionImpl(const ModelConfig &c, const torch::TensorOptions &options)
    : numHeads(c.numHeads), numKvHeads(c.numKvHeads), headDim(c.headDim) {
  int64_t d = c.hiddenSize;
  q_proj = register_module("q_proj", Projection(d, c.numHeads * c.headDim, c.qkvBias, options));
  k_proj = register_module("k_proj", Projection(d, c.numKvHeads * c.headDim, c.qkvBias, options));
  v_proj = register_module("v_proj", Projection(d, c.numKvHeads * c.headDim, c.qkvBias, options));
  o_proj = register_module("o_proj", Projection(c.numHeads * c.headDim, d, c.outputBias, options));
  if (c.qkNorm) {
    q_norm = register_module("q_norm", RmsNorm(c.headDim, c.rmsNormEps, options));
    k_norm = register_module("k_norm", RmsNorm(c.headDim, c.rmsNormEps, options));
  }
}

torch::Tensor AttentionImpl::forward(const torch::Tensor &x, const torch::Tensor &cos, const torch::Tensor &sin,
                                     const AttentionInputs &attention, KvCache *cache, int64_t layer) {
  int64_t B = x.size(0), T = x.size(1);
  torch::Tensor q = q_proj->forward(x).view({B, T, numHeads, headDim});
  torch::Tensor k = k_proj->forward(x).view({B, T, numKvHeads, headDim});
  torch::Tensor v = v_proj->forward(x).view({B, T, numKvHeads, headDim});
  if (!q_norm.is_empty()) { // Qwen3: per-head RMSNorm before the rotation
    q = q_norm->forward(q);
    k = k_norm->forward(k);
  }
  q = q.transpose(1, 2);
  k = k.transpose(1, 2);
  v = v.transpose(1, 2);
  torch::Tensor c = cos.unsqueeze(1), s = sin.unsqueeze(1);
  q = q * c + rotateHalf(q) * s;
  k = k * c + rotateHalf(k) * s;

  if (cache && cache->writeIndex.defined()) { // static mode (KvCache::writeIndex): one query, the whole capacity
    if (T != 1) throw ModelError("static KV cache: one position per step, got " + std::to_string(T));
    if (!attention.mask.defined()) throw ModelError("static KV cache: needs the mask of the written positions");
    cache->keys[layer].index_copy_(2, cache->writeIndex, k);
    cache->values[layer].index_copy_(2, cache->writeIndex, v);
    k = cache->keys[layer];
    v = cache->values[layer];
  } else if (cache) {
    int64_t start = cache->length;
    cache->keys[layer].narrow(2, start, T).copy_(k);
    cache->values[layer].narrow(2, start, T).copy_(v);
    k = cache->keys[layer].narrow(2, 0, start + T);
    v = cache->values[layer].narrow(2, 0, start + T);
  }
  int64_t K = k.size(2), groups = numHeads / numKvHeads;
  double scale = 1.0 / std::sqrt(double(headDim));
  torch::Tensor out;
  if (attention.mask.defined() || T == 1) {
    // Fold each group of query heads that shares a key head into the query axis, so keys and values
    // are never copied per head: [B, H, T, D] -> [B, KV, groups * T, D], the mask repeated per group.
    // Exact whenever visibility is given by the mask, or there is one query (decoding without padding).
    torch::Tensor folded = q.reshape({B, numKvHeads, groups * T, headDim});
    torch::Tensor mask = attention.mask;
    if (mask.defined() && groups > 1) mask = mask.repeat({1, 1, groups, 1});
    // reshape, not view: CUDA's fused kernels may return the folded result in another memory layout.
    out = compat::attention(folded, k, v, mask, false, scale, preferFused).reshape({B, numHeads, T, headDim});
  } else {
    if (groups > 1) {
      k = k.unsqueeze(2).expand({B, numKvHeads, groups, K, headDim}).reshape({B, numHeads, K, headDim});
      v = v.unsqueeze(2).expand({B, numKvHeads, groups, K, headDim}).reshape({B, numHeads, K, headDim});
    }
    // Without a mask every key is visible except later ones; with one query there are none.
    out = compat::attention(q, k, v, torch::Tensor(), attention.causal && T > 1, scale, preferFused);
  }
  return o_proj->forward(out.transpose(1, 2).reshape({B, T, numHeads * headDim}));
}

// ---------------------------------------------------------------------------------------------
// MLP (SwiGLU) and the decoder layer (pre-norm residual blocks).

MlpImpl::MlpImpl(const ModelConfig &c, const torch::TensorOptions &options) {
  gate_proj = register_module("gate_proj", Projection(c.hiddenSize, c.intermediateSize, c.mlpBias, options));
  up_proj = register_module("up_proj", Projection(c.hiddenSize, c.intermediateSize, c.mlpBias, options));
  down_proj = register_module("down_proj", Projection(c.intermediateSize, c.hiddenSize, c.mlpBias, options));
}

torch::Tensor MlpImpl::forward(const torch::Tensor &x) {
  return down_proj->forward(torch::silu(gate_proj->forward(x)) * up_proj->forward(x));
}

DecoderLayerImpl::DecoderLayerImpl(const ModelConfig &c, const torch::TensorOptions &options) {
  self_attn = register_module("self_attn", Attention(c, options));
  mlp = register_module("mlp", Mlp(c, options));
  input_layernorm = register_module("input_layernorm", RmsNorm(c.hiddenSize, c.rmsNormEps, options));
  post_attention_layernorm = register_module("post_attention_layernorm", RmsNorm(c.hiddenSize, c.rmsNormEps, options));
}

torch::Tensor DecoderLayerImpl::forward(const torch::Tensor &x, const torch::Tensor &cos, const torch::Tensor &sin,
                                        const AttentionInputs &attention, KvCache *cache, int64_t layer) {
  torch::Tensor h = x + self_attn->forward(input_layernorm->forward(x), cos, sin, attention, cache, layer);
  return h + mlp->forward(post_attention_layernorm->forward(h));
}

EmbeddingImpl::EmbeddingImpl(int64_t vocab, int64_t dim, const torch::TensorOptions &options) {
  weight = register_parameter("weight", torch::empty({vocab, dim}, options));
}

BackboneImpl::BackboneImpl(const ModelConfig &c, const torch::TensorOptions &options) {
  embed_tokens = register_module("embed_tokens", Embedding(c.vocabSize, c.hiddenSize, options));
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.numLayers; ++i) layers->push_back(DecoderLayer(c, options));
  norm = register_module("norm", RmsNorm(c.hiddenSize, c.rmsNormEps, options));
}

// ---------------------------------------------------------------------------------------------
// The causal LM.

// Inverse frequencies of the rotation, in fp32 on the CPU as transformers computes them.
static torch::Tensor rotaryInverseFrequencies(const ModelConfig &c) {
  int64_t dim = c.headDim;
  torch::Tensor exponents = torch::arange(0, dim, 2, torch::kInt64).to(torch::kFloat32) / dim;
  // Python's `1.0 / t` is t.reciprocal() * 1.0: the same roundings here.
  torch::Tensor invFreq = torch::pow(c.rope.theta, exponents).reciprocal();
  const RopeParameters &r = c.rope;
  if (r.type == "linear") return invFreq / r.factor;
  if (r.type == "llama3") { // Llama 3.1: low frequencies scaled by factor, high kept, a smooth ramp between
    double oldContext = double(r.originalMaxPositions);
    double lowFreqWavelen = oldContext / r.lowFreqFactor, highFreqWavelen = oldContext / r.highFreqFactor;
    torch::Tensor wavelen = invFreq.reciprocal() * (2 * M_PI);
    torch::Tensor scaled = torch::where(wavelen > lowFreqWavelen, invFreq / r.factor, invFreq);
    torch::Tensor smooth = (wavelen.reciprocal() * oldContext - r.lowFreqFactor) / (r.highFreqFactor - r.lowFreqFactor);
    torch::Tensor smoothed = (1 - smooth) * scaled / r.factor + smooth * scaled;
    torch::Tensor medium = (wavelen < highFreqWavelen).logical_not() & (wavelen > lowFreqWavelen).logical_not();
    return torch::where(medium, smoothed, scaled);
  }
  return invFreq;
}

CausalLmImpl::CausalLmImpl(const ModelConfig &c, const torch::TensorOptions &opts) : config(c), options(opts) {
  config.validate("model configuration");
  if (opts.device().is_cuda()) compat::configureAttentionBackends();
  model = register_module("model", Backbone(c, options));
  if (!c.tieWordEmbeddings) lm_head = register_module("lm_head", Projection(c.hiddenSize, c.vocabSize, false, options));
  invFreq = rotaryInverseFrequencies(c).to(options.device());
}

std::pair<torch::Tensor, torch::Tensor> CausalLmImpl::rotary(const torch::Tensor &positions, torch::Dtype dtype) const {
  torch::Tensor freqs = positions.to(torch::kFloat32).unsqueeze(-1) * invFreq;
  torch::Tensor emb = torch::cat({freqs, freqs}, -1);
  return {emb.cos().to(dtype), emb.sin().to(dtype)};
}

torch::Tensor CausalLmImpl::hiddenStates(const torch::Tensor &ids, const torch::Tensor &positions,
                                         const AttentionInputs &attention, KvCache *cache, const LayerRunner &runner) {
  if (ids.dim() != 2 || positions.sizes() != ids.sizes())
    throw ModelError("hiddenStates: ids and positions must both be [batch, length]");
  if (cache && runner) throw ModelError("hiddenStates: a layer runner cannot be combined with a KV cache");
  bool staticCache = cache && cache->writeIndex.defined();
  if (cache && !staticCache && cache->length + ids.size(1) > cache->capacity)
    throw ModelError("KV cache full: " + std::to_string(cache->length) + " + " + std::to_string(ids.size(1)) +
                     " positions exceed its capacity " + std::to_string(cache->capacity));
  torch::Tensor x = model->embed_tokens->forward(ids);
  auto [cos, sin] = rotary(positions, x.scalar_type());
  for (size_t i = 0; i < model->layers->size(); ++i) {
    DecoderLayerImpl &layer = *model->layers[i]->as<DecoderLayerImpl>();
    x = runner ? runner(layer, x, cos, sin, attention) : layer.forward(x, cos, sin, attention, cache, int64_t(i));
  }
  if (cache && !staticCache) cache->length += ids.size(1);
  return model->norm->forward(x);
}

torch::Tensor CausalLmImpl::outputWeight() const {
  return config.tieWordEmbeddings ? model->embed_tokens->weight : lm_head->weight;
}

torch::Tensor CausalLmImpl::logits(const torch::Tensor &hidden) {
  return config.tieWordEmbeddings ? torch::linear(hidden, model->embed_tokens->weight) : lm_head->forward(hidden);
}

void CausalLmImpl::initializeRandom(uint64_t seed) {
  torch::NoGradGuard noGrad;
  torch::manual_seed(seed);
  for (auto &p : named_parameters(true)) {
    const std::string &name = p.key();
    torch::Tensor &t = p.value();
    if (name.find("norm.weight") != std::string::npos) t.fill_(1.0);
    else if (name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0) t.zero_();
    else if (name.find(".lora_B.") != std::string::npos) t.zero_();
    else if (name.find(".lora_A.") == std::string::npos) t.normal_(0.0, config.initializerRange);
  }
}

// Every projection of the model with its module name ("q_proj", ...) and full HF prefix.
static void forEachProjection(CausalLmImpl &m, const std::function<void(const std::string &, const std::string &,
                                                                        ProjectionImpl &)> &visit) {
  for (auto &child : m.named_modules("", false)) {
    if (auto *proj = child.value()->as<ProjectionImpl>()) {
      const std::string &full = child.key();
      size_t dot = full.rfind('.');
      visit(dot == std::string::npos ? full : full.substr(dot + 1), full, *proj);
    }
  }
}

void CausalLmImpl::attachLora(const LoraOptions &lora) {
  for (const std::string &t : lora.targetModules)
    if (std::find(kProjectionNames.begin(), kProjectionNames.end(), t) == kProjectionNames.end()) {
      std::string names;
      for (const std::string &n : kProjectionNames) names += (names.empty() ? "" : ", ") + n;
      throw ModelError("LoRA target module '" + t + "' does not exist (" + names + ")");
    }
  for (auto &p : parameters(true)) p.set_requires_grad(false);
  int attached = 0;
  forEachProjection(*this, [&](const std::string &name, const std::string &, ProjectionImpl &proj) {
    if (std::find(lora.targetModules.begin(), lora.targetModules.end(), name) != lora.targetModules.end()) {
      proj.attachLora(lora.rank, lora.alpha, lora.dropout);
      ++attached;
    }
  });
  if (attached == 0) throw ModelError("LoRA: no projection matches the target modules");
}

void CausalLmImpl::setLoraEnabled(bool enabled) {
  forEachProjection(*this, [&](const std::string &, const std::string &, ProjectionImpl &p) { p.loraEnabled = enabled; });
}

void CausalLmImpl::mergeLora() {
  forEachProjection(*this, [&](const std::string &, const std::string &, ProjectionImpl &p) { p.mergeLora(); });
}

void CausalLmImpl::setMergedLoraCopies(bool on) {
  forEachProjection(*this, [&](const std::string &, const std::string &, ProjectionImpl &p) { p.setMergedCopy(on); });
}

bool CausalLmImpl::hasLora() const {
  for (auto &child : modules(false))
    if (auto *proj = child->as<ProjectionImpl>(); proj && proj->hasLora()) return true;
  return false;
}

static bool isLoraName(const std::string &name) {
  return name.find(".lora_A.") != std::string::npos || name.find(".lora_B.") != std::string::npos;
}

std::vector<std::pair<std::string, torch::Tensor>> CausalLmImpl::namedLoraParameters() {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (auto &p : named_parameters(true))
    if (isLoraName(p.key())) out.emplace_back(p.key(), p.value());
  return out;
}

std::vector<torch::Tensor> CausalLmImpl::loraParameters() {
  std::vector<torch::Tensor> out;
  for (auto &p : namedLoraParameters()) out.push_back(p.second);
  return out;
}

std::vector<std::pair<std::string, torch::Tensor>> CausalLmImpl::namedBaseParameters() {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (auto &p : named_parameters(true))
    if (!isLoraName(p.key())) out.emplace_back(p.key(), p.value());
  return out;
}

void CausalLmImpl::setFusedAttention(bool on) {
  for (auto &child : modules(false))
    if (auto *a = child->as<AttentionImpl>()) a->preferFused = on;
}

KvCache KvCache::allocate(const ModelConfig &c, int64_t batch, int64_t capacity, const torch::TensorOptions &options) {
  KvCache cache;
  cache.capacity = capacity;
  for (int64_t i = 0; i < c.numLayers; ++i) {
    cache.keys.push_back(torch::empty({batch, c.numKvHeads, capacity, c.headDim}, options));
    cache.values.push_back(torch::empty({batch, c.numKvHeads, capacity, c.headDim}, options));
  }
  return cache;
}

void KvCache::selectRows(const torch::Tensor &rows) {
  for (auto &k : keys) k = k.index_select(0, rows);
  for (auto &v : values) v = v.index_select(0, rows);
}

// ---------------------------------------------------------------------------------------------
// Left-padded batches and their masks.

PaddedBatch leftPad(const std::vector<std::vector<int32_t>> &rows, int64_t padId, const torch::Device &device) {
  int64_t B = int64_t(rows.size()), L = 0;
  for (const auto &r : rows) L = std::max<int64_t>(L, int64_t(r.size()));
  torch::Tensor ids = torch::full({B, L}, padId, torch::kInt64);
  torch::Tensor positions = torch::zeros({B, L}, torch::kInt64);
  torch::Tensor valid = torch::zeros({B, L}, torch::kBool);
  auto idsA = ids.accessor<int64_t, 2>();
  auto posA = positions.accessor<int64_t, 2>();
  auto validA = valid.accessor<bool, 2>();
  for (int64_t b = 0; b < B; ++b) {
    int64_t n = int64_t(rows[b].size()), offset = L - n;
    for (int64_t i = 0; i < n; ++i) {
      idsA[b][offset + i] = rows[b][i];
      posA[b][offset + i] = i;
      validA[b][offset + i] = true;
    }
  }
  return {ids.to(device), positions.to(device), valid.to(device)};
}

torch::Tensor paddedCausalMask(const torch::Tensor &keyValid, int64_t offset, int64_t queries) {
  int64_t K = keyValid.size(1);
  auto longOptions = torch::TensorOptions().dtype(torch::kInt64).device(keyValid.device());
  torch::Tensor queryPos = torch::arange(offset, offset + queries, longOptions).unsqueeze(1); // [Q, 1]
  torch::Tensor keyPos = torch::arange(0, K, longOptions).unsqueeze(0);                        // [1, K]
  torch::Tensor allowed = (keyPos <= queryPos).unsqueeze(0) & keyValid.unsqueeze(1);          // [B, Q, K]
  allowed = allowed | (keyPos == queryPos).unsqueeze(0);
  return allowed.unsqueeze(1);
}

// ---------------------------------------------------------------------------------------------
// Hugging Face checkpoints.

static torch::Dtype torchDtypeOf(TensorDtype d) {
  switch (d) {
  case TensorDtype::F64: return torch::kFloat64;
  case TensorDtype::F32: return torch::kFloat32;
  case TensorDtype::F16: return torch::kFloat16;
  case TensorDtype::BF16: return torch::kBFloat16;
  case TensorDtype::I64: return torch::kInt64;
  case TensorDtype::I32: return torch::kInt32;
  case TensorDtype::I16: return torch::kInt16;
  case TensorDtype::I8: return torch::kInt8;
  case TensorDtype::U8: return torch::kUInt8;
  case TensorDtype::Bool: return torch::kBool;
  }
  throw ModelError("unsupported tensor dtype");
}

static TensorDtype tensorDtypeOf(torch::Dtype d) {
  if (d == torch::kFloat64) return TensorDtype::F64;
  if (d == torch::kFloat32) return TensorDtype::F32;
  if (d == torch::kFloat16) return TensorDtype::F16;
  if (d == torch::kBFloat16) return TensorDtype::BF16;
  if (d == torch::kInt64) return TensorDtype::I64;
  if (d == torch::kInt32) return TensorDtype::I32;
  if (d == torch::kInt16) return TensorDtype::I16;
  if (d == torch::kInt8) return TensorDtype::I8;
  if (d == torch::kUInt8) return TensorDtype::U8;
  if (d == torch::kBool) return TensorDtype::Bool;
  throw ModelError("tensor dtype has no safetensors name");
}

torch::Tensor tensorFromView(const TensorView &view) {
  torch::Tensor t = torch::empty(view.shape, torch::TensorOptions().dtype(torchDtypeOf(view.dtype)));
  if (view.bytes) std::memcpy(t.data_ptr(), view.data, view.bytes);
  return t;
}

CpuTensorBytes toCpuBytes(const torch::Tensor &t, torch::Dtype dtype) {
  torch::Tensor cpu = t.detach().to(torch::kCPU, dtype).contiguous();
  return {cpu, tensorDtypeOf(dtype)};
}

double weightBytes(const ModelConfig &config, torch::Dtype dtype) {
  return double(config.parameterCount()) * double(torch::elementSize(dtype));
}

static std::string describe(const ModelConfig &c, torch::Dtype dtype, const torch::Device &device) {
  std::ostringstream s;
  s << c.architecture() << ", " << c.numLayers << " layers, hidden " << c.hiddenSize << ", heads " << c.numHeads << "/"
    << c.numKvHeads << ", vocab " << c.vocabSize << ": ";
  s << humanCount(double(c.parameterCount())) << " parameters, " << humanBytes(weightBytes(c, dtype)) << " in "
    << torchDtypeName(dtype) << " on " << device.str();
  return s.str();
}

// Every tensor of `model` against the checkpoint's (names, shapes, dtypes; no data read); throws
// ModelError naming the tensors that do not fit. `model` may live on the meta device.
static void checkCheckpointFits(CausalLmImpl &model, const SafetensorsCheckpoint &ckpt, const std::string &dir,
                                bool copy) {
  std::vector<std::string> problems;
  std::set<std::string> used;
  torch::NoGradGuard noGrad;
  for (auto &[name, param] : model.namedBaseParameters()) {
    const TensorView *view = ckpt.find(name);
    if (!view) {
      problems.push_back(name + ": missing (expected shape " + shapeText(param.sizes().vec()) + ")");
      continue;
    }
    used.insert(name);
    if (view->shape != param.sizes().vec()) {
      problems.push_back(name + ": shape " + shapeText(view->shape) + " in the checkpoint, the configuration needs " +
                         shapeText(param.sizes().vec()));
      continue;
    }
    if (view->dtype != TensorDtype::F32 && view->dtype != TensorDtype::BF16 && view->dtype != TensorDtype::F16 &&
        view->dtype != TensorDtype::F64) {
      problems.push_back(name + ": dtype " + dtypeName(view->dtype) + " is not a floating-point weight");
      continue;
    }
    if (copy) param.copy_(tensorFromView(*view));
  }
  for (const std::string &name : ckpt.names()) {
    if (used.count(name)) continue;
    bool harmless = (name == "lm_head.weight" && model.config.tieWordEmbeddings) ||
                    name.find("rotary_emb.inv_freq") != std::string::npos;
    if (!harmless) problems.push_back(name + ": in the checkpoint but not part of this model (wrong config.json?)");
  }
  if (!problems.empty()) {
    std::string text = dir + ": the checkpoint does not fit the model (" + model.config.architecture() + "):";
    size_t shown = 0;
    for (const std::string &p : problems) {
      if (++shown > 12) {
        text += "\n  ... and " + std::to_string(problems.size() - 12) + " more";
        break;
      }
      text += "\n  " + p;
    }
    throw ModelError(text);
  }
}

void loadWeights(CausalLmImpl &model, const std::string &dir) {
  checkCheckpointFits(model, SafetensorsCheckpoint::openFolder(dir), dir, true);
}

CausalLm loadPretrained(const std::string &dir, const LoadOptions &options) {
  ModelConfig config = ModelConfig::fromFolder(dir);
  torch::Dtype dtype = options.dtype ? *options.dtype : (options.device.is_cuda() ? torch::kBFloat16 : torch::kFloat32);
  {
    // The config against the checkpoint's tensors first, on the meta device (nothing allocated): a
    // config.json that does not describe these weights is refused before gigabytes are reserved.
    CausalLm shape(config, torch::TensorOptions().dtype(dtype).device(torch::kMeta));
    checkCheckpointFits(*shape, SafetensorsCheckpoint::openFolder(dir), dir, false);
  }
  if (!options.quiet) std::cerr << "cudaperf: loading " << dir << ": " << describe(config, dtype, options.device) << "\n";
  CausalLm model(config, torch::TensorOptions().dtype(dtype).device(options.device));
  loadWeights(*model, dir);
  model->eval();
  return model;
}

void savePretrained(CausalLmImpl &model, const std::string &dir, const SaveOptions &options) {
  fs::create_directories(dir);
  std::vector<CpuTensorBytes> keep;
  std::vector<TensorToWrite> tensors;
  std::map<std::string, ProjectionImpl *> adapted;
  if (options.mergeLora)
    forEachProjection(model, [&](const std::string &, const std::string &full, ProjectionImpl &p) {
      if (p.hasLora()) adapted[full + ".weight"] = &p;
    });
  auto base = model.namedBaseParameters();
  keep.reserve(base.size());
  for (auto &[name, param] : base) {
    torch::Tensor value = param;
    if (auto it = adapted.find(name); it != adapted.end()) {
      ProjectionImpl &p = *it->second;
      torch::NoGradGuard noGrad;
      value = param.to(torch::kFloat32) +
              torch::matmul(p.loraB.to(torch::kFloat32), p.loraA.to(torch::kFloat32)) * p.loraScaling;
    }
    keep.push_back(toCpuBytes(value, options.dtype));
    const CpuTensorBytes &b = keep.back();
    tensors.push_back({name, b.dtype, b.tensor.sizes().vec(), b.tensor.data_ptr(), size_t(b.tensor.nbytes())});
  }
  writeSafetensorsSharded(dir, tensors, options.maxShardBytes);
  ModelConfig config = model.config;
  config.dtype = torchDtypeName(options.dtype);
  std::ofstream out(fs::path(dir) / "config.json");
  out << config.toJson();
  if (!out) throw ModelError(dir + "/config.json: write failed");
}

void saveLoraAdapter(CausalLmImpl &model, const std::string &dir, const LoraOptions &lora, const std::string &baseModel) {
  fs::create_directories(dir);
  std::vector<CpuTensorBytes> keep;
  std::vector<TensorToWrite> tensors;
  auto named = model.namedLoraParameters();
  if (named.empty()) throw ModelError("saveLoraAdapter: the model has no LoRA adapters");
  keep.reserve(named.size());
  for (auto &[name, param] : named) {
    keep.push_back(toCpuBytes(param, param.scalar_type()));
    const CpuTensorBytes &b = keep.back();
    tensors.push_back({"base_model.model." + name, b.dtype, b.tensor.sizes().vec(), b.tensor.data_ptr(),
                       size_t(b.tensor.nbytes())});
  }
  writeSafetensors((fs::path(dir) / "adapter_model.safetensors").string(), tensors);
  nlohmann::ordered_json config = {
      {"peft_type", "LORA"},         {"task_type", "CAUSAL_LM"},     {"base_model_name_or_path", baseModel},
      {"r", lora.rank},              {"lora_alpha", lora.alpha},     {"lora_dropout", lora.dropout},
      {"target_modules", lora.targetModules}, {"bias", "none"},      {"fan_in_fan_out", false},
      {"inference_mode", true},      {"init_lora_weights", true},    {"use_rslora", false},
      {"use_dora", false},           {"modules_to_save", nullptr}};
  std::ofstream out(fs::path(dir) / "adapter_config.json");
  out << config.dump(2) << "\n";
  if (!out) throw ModelError(dir + "/adapter_config.json: write failed");
}

void loadLoraAdapter(CausalLmImpl &model, const std::string &dir) {
  std::string configPath = (fs::path(dir) / "adapter_config.json").string();
  std::ifstream in(configPath);
  if (!in) throw ModelError(configPath + ": cannot open");
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception &e) {
    throw ModelError(configPath + ": not JSON: " + e.what());
  }
  LoraOptions lora;
  try {
    if (config.value("peft_type", std::string("LORA")) != "LORA") throw ModelError(configPath + ": peft_type is not LORA");
    lora.rank = config.at("r").get<int64_t>();
    lora.alpha = config.at("lora_alpha").get<double>();
    lora.dropout = config.value("lora_dropout", 0.0);
    lora.targetModules = config.at("target_modules").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception &e) {
    throw ModelError(configPath + ": " + e.what());
  }
  if (!model.hasLora()) model.attachLora(lora);
  SafetensorsFile file = SafetensorsFile::open((fs::path(dir) / "adapter_model.safetensors").string());
  torch::NoGradGuard noGrad;
  for (auto &[name, param] : model.namedLoraParameters()) {
    const TensorView *view = file.find("base_model.model." + name);
    if (!view) throw ModelError(file.path() + ": adapter tensor base_model.model." + name + " missing");
    if (view->shape != param.sizes().vec())
      throw ModelError(file.path() + ": base_model.model." + name + " has shape " + shapeText(view->shape) +
                       ", the model needs " + shapeText(param.sizes().vec()));
    param.copy_(tensorFromView(*view));
  }
}

void copyTokenizerFiles(const std::string &fromDir, const std::string &toDir) {
  static const char *files[] = {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                                "generation_config.json", "vocab.json", "merges.txt", "chat_template.jinja"};
  fs::create_directories(toDir);
  for (const char *f : files) {
    fs::path from = fs::path(fromDir) / f;
    if (fs::exists(from) && fs::absolute(from) != fs::absolute(fs::path(toDir) / f))
      fs::copy_file(from, fs::path(toDir) / f, fs::copy_options::overwrite_existing);
  }
}

} // namespace cudaperf::learn
