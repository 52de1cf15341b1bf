// config.json of the Llama / Qwen2 / Qwen3 families. Field meanings follow transformers'
// LlamaConfig, Qwen2Config and Qwen3Config; transformers 5 keeps the rotary settings in
// `rope_parameters` ({"rope_type", "rope_theta", ...}), transformers 4 in `rope_theta` + `rope_scaling`.
#include "cudaperf/Learn/ModelConfig.h"

#include "cudaperf/Support/Json.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace cudaperf::learn {

using json = support::Json;
using ordered_json = support::Json;

namespace {

struct Reader {
  const json &doc;
  const std::string &source;

  [[noreturn]] void fail(const std::string &field, const std::string &why) const {
    throw ModelConfigError(source + ": " + field + ": " + why);
  }
  bool has(const char *key) const { return doc.contains(key) && !doc[key].is_null(); }
  int64_t integer(const char *key) const {
    if (!has(key)) fail(key, "missing");
    if (!doc[key].is_number_integer()) fail(key, "expected an integer, got " + doc[key].dump());
    return doc[key].get<int64_t>();
  }
  int64_t integer(const char *key, int64_t fallback) const { return has(key) ? integer(key) : fallback; }
  double number(const json &obj, const char *key, double fallback, const std::string &where) const {
    if (!obj.contains(key) || obj[key].is_null()) return fallback;
    if (!obj[key].is_number()) fail(where + key, "expected a number, got " + obj[key].dump());
    return obj[key].get<double>();
  }
  double number(const char *key, double fallback) const { return number(doc, key, fallback, ""); }
  bool boolean(const char *key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!doc[key].is_boolean()) fail(key, "expected true or false, got " + doc[key].dump());
    return doc[key].get<bool>();
  }
  std::string text(const char *key, const std::string &fallback) const {
    if (!has(key)) return fallback;
    if (!doc[key].is_string()) fail(key, "expected a string, got " + doc[key].dump());
    return doc[key].get<std::string>();
  }
  std::optional<int64_t> optionalInteger(const char *key) const {
    if (!has(key)) return std::nullopt;
    if (doc[key].is_array()) { // some configs list several ids; the first is the one used
      if (doc[key].empty()) return std::nullopt;
      if (!doc[key][0].is_number_integer()) fail(key, "expected integers");
      return doc[key][0].get<int64_t>();
    }
    return integer(key);
  }
};

RopeParameters readRope(const Reader &r) {
  RopeParameters rope;
  rope.theta = r.number("rope_theta", rope.theta);
  rope.partialRotaryFactor = r.number("partial_rotary_factor", 1.0);
  // transformers 5: rope_parameters; 4: rope_scaling (null for the default rotation).
  const char *key = r.has("rope_parameters") ? "rope_parameters" : r.has("rope_scaling") ? "rope_scaling" : nullptr;
  if (!key) return rope;
  const json &p = r.doc[key];
  std::string where = std::string(key) + ".";
  if (!p.is_object()) r.fail(key, "expected an object");
  if (p.contains("full_attention") || p.contains("sliding_attention"))
    r.fail(key, "per-layer-type rotary parameters are not supported");
  if (p.contains("rope_type") && p["rope_type"].is_string()) rope.type = p["rope_type"].get<std::string>();
  else if (p.contains("type") && p["type"].is_string()) rope.type = p["type"].get<std::string>();
  rope.theta = r.number(p, "rope_theta", rope.theta, where);
  rope.factor = r.number(p, "factor", 1.0, where);
  rope.lowFreqFactor = r.number(p, "low_freq_factor", rope.lowFreqFactor, where);
  rope.highFreqFactor = r.number(p, "high_freq_factor", rope.highFreqFactor, where);
  rope.partialRotaryFactor = r.number(p, "partial_rotary_factor", rope.partialRotaryFactor, where);
  if (p.contains("original_max_position_embeddings") && p["original_max_position_embeddings"].is_number_integer())
    rope.originalMaxPositions = p["original_max_position_embeddings"].get<int64_t>();
  if (rope.type != "default" && rope.type != "linear" && rope.type != "llama3")
    r.fail(where + "rope_type", "'" + rope.type + "' is not supported (supported: default, linear, llama3)");
  return rope;
}

} // namespace

ModelConfig ModelConfig::fromJson(const std::string &text, const std::string &source) {
  json doc;
  try {
    doc = support::parseJson(text, source);
  } catch (const support::SupportError &e) {
    throw ModelConfigError(std::string("not JSON: ") + e.what());
  }
  if (!doc.is_object()) throw ModelConfigError(source + ": expected a JSON object");
  Reader r{doc, source};
  ModelConfig c;
  c.modelType = r.text("model_type", "");
  if (c.modelType != "llama" && c.modelType != "qwen2" && c.modelType != "qwen3")
    r.fail("model_type", "'" + c.modelType + "' is not supported (supported: llama, qwen2, qwen3)");
  c.vocabSize = r.integer("vocab_size");
  c.hiddenSize = r.integer("hidden_size");
  c.intermediateSize = r.integer("intermediate_size");
  c.numLayers = r.integer("num_hidden_layers");
  c.numHeads = r.integer("num_attention_heads");
  c.numKvHeads = r.integer("num_key_value_heads", c.numHeads);
  c.headDim = r.integer("head_dim", c.numHeads > 0 ? c.hiddenSize / c.numHeads : 0);
  c.maxPositions = r.integer("max_position_embeddings", c.maxPositions);
  c.rmsNormEps = r.number("rms_norm_eps", 1e-6);
  c.rope = readRope(r);
  c.tieWordEmbeddings = r.boolean("tie_word_embeddings", false);
  c.hiddenAct = r.text("hidden_act", "silu");
  c.initializerRange = r.number("initializer_range", 0.02);
  c.dtype = r.text("dtype", r.text("torch_dtype", "float32"));
  bool attentionBias = r.boolean("attention_bias", false);
  if (c.modelType == "qwen2") {
    c.qkvBias = true; // Qwen2's q/k/v projections always carry biases, o_proj never
    c.outputBias = false;
  } else {
    c.qkvBias = attentionBias;
    c.outputBias = attentionBias;
  }
  c.mlpBias = r.boolean("mlp_bias", false);
  c.qkNorm = c.modelType == "qwen3";
  c.bosTokenId = r.optionalInteger("bos_token_id");
  c.padTokenId = r.optionalInteger("pad_token_id");
  if (r.has("eos_token_id")) {
    const json &e = doc["eos_token_id"];
    if (e.is_array()) {
      for (const json &id : e) {
        if (!id.is_number_integer()) r.fail("eos_token_id", "expected integers");
        c.eosTokenIds.push_back(id.get<int64_t>());
      }
    } else {
      c.eosTokenIds.push_back(r.integer("eos_token_id"));
    }
  }
  if (r.boolean("use_sliding_window", false))
    r.fail("use_sliding_window", "sliding-window attention is not supported");
  if (r.integer("pretraining_tp", 1) != 1) r.fail("pretraining_tp", "only 1 is supported");
  if (doc.contains("layer_types") && doc["layer_types"].is_array())
    for (const json &t : doc["layer_types"])
      if (!t.is_string() || t.get<std::string>() != "full_attention")
        r.fail("layer_types", "only full_attention layers are supported, found " + t.dump());
  c.validate(source);
  return c;
}

ModelConfig ModelConfig::fromFile(const std::string &path) {
  std::string text;
  try {
    text = support::readRegularFile(path, size_t(16) << 20); // a FIFO or /dev/zero is an error at once
  } catch (const support::SupportError &e) {
    throw ModelConfigError(e.what());
  }
  return fromJson(text, path);
}

void ModelConfig::validate(const std::string &source) const {
  auto fail = [&](const std::string &field, const std::string &why) {
    throw ModelConfigError(source + ": " + field + ": " + why);
  };
  auto positive = [&](const char *field, int64_t v) {
    if (v <= 0) fail(field, "must be positive, got " + std::to_string(v));
  };
  // Upper bounds far above any model of this family (Llama 3 405B: 126 layers, hidden 16384, vocab
  // 128256), so that a config.json with `num_hidden_layers: 1000000000000` is an error before a
  // model is built and allocated (issue 35), and the parameter arithmetic cannot overflow.
  auto within = [&](const char *field, int64_t v, int64_t most) {
    positive(field, v);
    if (v > most) fail(field, std::to_string(v) + " is larger than the limit of " + std::to_string(most));
  };
  within("vocab_size", vocabSize, int64_t(1) << 24);
  within("hidden_size", hiddenSize, int64_t(1) << 16);
  within("intermediate_size", intermediateSize, int64_t(1) << 18);
  within("num_hidden_layers", numLayers, 1024);
  within("num_attention_heads", numHeads, 1024);
  within("num_key_value_heads", numKvHeads, 1024);
  within("head_dim", headDim, 4096);
  within("max_position_embeddings", maxPositions, int64_t(1) << 24);
  if (numHeads % numKvHeads != 0)
    fail("num_key_value_heads", std::to_string(numKvHeads) + " does not divide num_attention_heads " +
                                    std::to_string(numHeads));
  if (headDim % 2 != 0) fail("head_dim", "must be even for the rotary embedding, got " + std::to_string(headDim));
  if (hiddenAct != "silu") fail("hidden_act", "'" + hiddenAct + "' is not supported (supported: silu)");
  if (rope.partialRotaryFactor != 1.0) fail("partial_rotary_factor", "only 1.0 is supported");
  if (!(rope.theta > 0)) fail("rope_theta", "must be positive");
  if (rope.type != "default" && !(rope.factor > 0)) fail("rope_parameters.factor", "must be positive");
  if (!(rmsNormEps > 0)) fail("rms_norm_eps", "must be positive");
  if (modelType != "llama" && modelType != "qwen2" && modelType != "qwen3")
    fail("model_type", "'" + modelType + "' is not supported");
  if (modelType == "qwen2" && !qkvBias) fail("attention_bias", "Qwen2 always has q/k/v biases");
}

std::string ModelConfig::architecture() const {
  if (modelType == "llama") return "LlamaForCausalLM";
  if (modelType == "qwen3") return "Qwen3ForCausalLM";
  return "Qwen2ForCausalLM";
}

std::string ModelConfig::toJson() const {
  ordered_json j;
  j["architectures"] = {architecture()};
  j["model_type"] = modelType;
  j["vocab_size"] = vocabSize;
  j["hidden_size"] = hiddenSize;
  j["intermediate_size"] = intermediateSize;
  j["num_hidden_layers"] = numLayers;
  j["num_attention_heads"] = numHeads;
  j["num_key_value_heads"] = numKvHeads;
  j["head_dim"] = headDim;
  j["max_position_embeddings"] = maxPositions;
  j["rms_norm_eps"] = rmsNormEps;
  j["hidden_act"] = hiddenAct;
  j["initializer_range"] = initializerRange;
  j["tie_word_embeddings"] = tieWordEmbeddings;
  ordered_json ropeJson = {{"rope_type", rope.type}, {"rope_theta", rope.theta}};
  if (rope.type != "default") ropeJson["factor"] = rope.factor;
  if (rope.type == "llama3") {
    ropeJson["low_freq_factor"] = rope.lowFreqFactor;
    ropeJson["high_freq_factor"] = rope.highFreqFactor;
    ropeJson["original_max_position_embeddings"] = rope.originalMaxPositions;
  }
  j["rope_parameters"] = ropeJson; // transformers 5
  j["rope_theta"] = rope.theta;    // transformers 4 and readers that predate rope_parameters
  if (rope.type != "default") j["rope_scaling"] = ropeJson;
  if (modelType == "llama") {
    j["attention_bias"] = qkvBias;
    j["mlp_bias"] = mlpBias;
    j["pretraining_tp"] = 1;
  } else if (modelType == "qwen3") {
    j["attention_bias"] = qkvBias;
    j["use_sliding_window"] = false;
  } else {
    j["use_sliding_window"] = false;
    j["max_window_layers"] = numLayers;
  }
  j["attention_dropout"] = 0.0;
  j["bos_token_id"] = bosTokenId ? json(*bosTokenId) : json(nullptr);
  if (eosTokenIds.empty()) j["eos_token_id"] = nullptr;
  else if (eosTokenIds.size() == 1) j["eos_token_id"] = eosTokenIds[0];
  else j["eos_token_id"] = eosTokenIds;
  j["pad_token_id"] = padTokenId ? json(*padTokenId) : json(nullptr);
  j["dtype"] = dtype;       // transformers 5
  j["torch_dtype"] = dtype; // transformers 4
  j["use_cache"] = true;
  return j.dump(2) + "\n";
}

int64_t ModelConfig::parameterCount() const {
  int64_t d = hiddenSize, q = numHeads * headDim, kv = numKvHeads * headDim;
  int64_t attention = d * q + 2 * d * kv + q * d + (qkvBias ? q + 2 * kv : 0) + (outputBias ? d : 0) +
                      (qkNorm ? 2 * headDim : 0);
  int64_t mlp = 3 * d * intermediateSize + (mlpBias ? 2 * intermediateSize + d : 0);
  int64_t layer = attention + mlp + 2 * d;
  return vocabSize * d * (tieWordEmbeddings ? 1 : 2) + numLayers * layer + d;
}

int64_t ModelConfig::kvCacheBytesPerToken(int64_t bytes) const {
  return 2 * numLayers * numKvHeads * headDim * bytes;
}

int64_t bytesPerElement(const std::string &name) {
  if (name == "float32" || name == "fp32" || name == "float") return 4;
  if (name == "bfloat16" || name == "bf16" || name == "float16" || name == "fp16" || name == "half") return 2;
  throw ModelConfigError("unknown dtype '" + name + "' (float32, bfloat16, float16)");
}

// value / 1000^k with the k-th unit, k as large as keeps value >= 1.
static std::string scaled(double value, const char *const (&units)[5], const char *separator) {
  int u = 0;
  while (value >= 1000 && u < 4) {
    value /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f%s%s" : value < 10 ? "%.2f%s%s" : "%.1f%s%s", value, separator, units[u]);
  return buf;
}

std::string humanBytes(double bytes) {
  static const char *const units[5] = {"B", "KB", "MB", "GB", "TB"};
  return scaled(bytes, units, " ");
}

std::string humanCount(double count) {
  static const char *const units[5] = {"", "K", "M", "B", "T"};
  return scaled(count, units, "");
}

} // namespace cudaperf::learn
