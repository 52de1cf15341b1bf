// Tiny random models of each family for the LibTorch tests (seconds each on one CPU thread).
#pragma once

#include "cudaperf/Learn/Transformer.h"

#include <filesystem>
#include <string>
#include <unistd.h>

namespace cudaperf::learn::test {

// vocab 97, hidden 32, 2 layers, 4 query heads sharing 2 key/value heads (grouped-query attention).
inline ModelConfig tinyConfig(const std::string &family, bool tied = false) {
  ModelConfig c;
  c.modelType = family;
  c.vocabSize = 97;
  c.hiddenSize = 32;
  c.intermediateSize = 48;
  c.numLayers = 2;
  c.numHeads = 4;
  c.numKvHeads = 2;
  c.headDim = family == "qwen3" ? 16 : 8; // Qwen3 sets head_dim apart from hidden / heads
  c.maxPositions = 512;
  c.rope.theta = 10000.0;
  c.tieWordEmbeddings = tied;
  c.qkvBias = family == "qwen2";
  c.qkNorm = family == "qwen3";
  c.initializerRange = 0.2; // peaked logits, so greedy paths have clear winners
  return c;
}

inline CausalLm tinyModel(const std::string &family, uint64_t seed = 1, bool tied = false,
                          torch::Dtype dtype = torch::kFloat32) {
  CausalLm m(tinyConfig(family, tied), torch::TensorOptions().dtype(dtype));
  m->initializeRandom(seed);
  {
    // Non-trivial norm weights and biases, so a loader or a formula that ignores them shows.
    torch::NoGradGuard noGrad;
    for (auto &p : m->named_parameters())
      if (p.key().find("norm") != std::string::npos || p.key().find(".bias") != std::string::npos)
        p.value().uniform_(0.5, 1.5);
  }
  m->eval();
  return m;
}

inline std::filesystem::path freshDir(const std::string &name) {
  auto dir = std::filesystem::temp_directory_path() / ("cudaperf-lm-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline double maxAbsDiff(const torch::Tensor &a, const torch::Tensor &b) {
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

} // namespace cudaperf::learn::test
