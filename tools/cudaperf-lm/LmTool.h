// cudaperf-lm's pieces shared by its subcommands (cudaperf-lm.cpp; LmGenerate.cpp: generate): the model
// options every model-using subcommand declares, and small readers.
#pragma once

#include "cudaperf/Learn/ToolMain.h"
#include "cudaperf/Learn/Tokenizer.h"
#include "cudaperf/Learn/Transformer.h"
#include "cudaperf/Support/ArgParser.h"

#include <chrono>
#include <climits>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace cudaperf::lmtool {

using namespace cudaperf::learn;
namespace fs = std::filesystem;

inline const char *kProgram = "cudaperf-lm";

inline std::string readFile(const std::string &path) {
  std::ostringstream s;
  if (path == "-") {
    s << std::cin.rdbuf();
    return s.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path + ": cannot open");
  s << in.rdbuf();
  return s.str();
}

inline std::vector<int32_t> parseIds(const std::string &text) {
  std::vector<int32_t> ids;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    ids.push_back(int32_t(support::parseInteger(item, 0, INT32_MAX)));
  }
  if (ids.empty()) throw support::UsageError("--ids: no token ids in '" + text + "'");
  return ids;
}

// What every model-using subcommand shares: where the model comes from, device, dtype, threads.
struct ModelArgs {
  std::string model, randomInit, device = "cpu", dtype, tokenizer;
  uint64_t seed = 0;
  int64_t threads = 1;
  bool eagerAttention = false;

  void declare(support::ArgParser &p, bool allowRandom) {
    p.option("--model", "DIR", "Hugging Face checkpoint folder (config.json, safetensors, tokenizer.json)", model);
    if (allowRandom)
      p.option("--random-init", "CONFIG", "no checkpoint: random weights of this config.json shape (benchmarks)",
               randomInit);
    p.option("--device", "DEV", "cpu (default), cuda or cuda:N", device);
    p.option("--dtype", "TYPE", "float32, bfloat16 or float16 (default: float32 on cpu, bfloat16 on cuda)", dtype);
    p.option("--tokenizer", "DIR", "folder with tokenizer.json (default: the model folder)", tokenizer);
    p.option("--seed", "N", "random seed (weights of --random-init; sampling)",
             [this](const std::string &v) { seed = support::parseUnsigned(v); });
    p.option("--threads", "N", "CPU threads for LibTorch (default 1)",
             [this](const std::string &v) { threads = support::parseInteger(v, 1, 256); });
    p.flag("--eager-attention", "the plain attention arithmetic even where LibTorch has the fused kernel",
           eagerAttention);
  }

  CausalLm load() const {
    if (model.empty() == randomInit.empty())
      throw support::UsageError(randomInit.empty() ? "--model DIR is required" : "give --model or --random-init, not both");
    torch::set_num_threads(int(threads));
    torch::Device dev = parseDevice(device);
    torch::Dtype type = dtype.empty() ? (dev.is_cuda() ? torch::kBFloat16 : torch::kFloat32) : parseTorchDtype(dtype);
    CausalLm m(nullptr);
    if (!randomInit.empty()) {
      ModelConfig config = ModelConfig::fromFile(randomInit);
      std::cerr << kProgram << ": random " << config.architecture() << ", " << humanCount(double(config.parameterCount()))
                << " parameters, " << humanBytes(weightBytes(config, type)) << " in " << torchDtypeName(type) << " on "
                << dev.str() << "\n";
      m = CausalLm(config, torch::TensorOptions().dtype(type).device(dev));
      m->initializeRandom(seed);
      m->eval();
    } else {
      m = loadPretrained(model, LoadOptions{dev, type, false});
    }
    if (eagerAttention) m->setFusedAttention(false);
    return m;
  }

  std::optional<Tokenizer> tokenizerIfAny() const {
    std::string dir = !tokenizer.empty() ? tokenizer : model;
    if (dir.empty() || !fs::exists(fs::path(dir) / "tokenizer.json")) return std::nullopt;
    return Tokenizer::fromFile((fs::path(dir) / "tokenizer.json").string());
  }
  Tokenizer requireTokenizer(const std::string &why) const {
    auto t = tokenizerIfAny();
    if (!t) throw ModelError("no tokenizer.json in " + (!tokenizer.empty() ? tokenizer : model.empty() ? "(none)" : model) +
                             " (needed for " + why + "; --tokenizer DIR names another folder)");
    return *t;
  }
};

inline std::vector<float> toVector(const torch::Tensor &t) {
  torch::Tensor c = t.to(torch::kCPU, torch::kFloat32).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

inline double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

inline void synchronize(const torch::Device &device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

int runGenerate(const std::vector<std::string> &args); // LmGenerate.cpp

} // namespace cudaperf::lmtool
