// The one place where lib/Learn meets differences between LibTorch versions: Debian's 1.13 (CPU
// machine, CI) and the GPU host's 2.11. Everything else in lib/Learn is written against the API
// both share. Facts in /work/shared/guide/ENVIRONMENT.md ("Measured in turn 2").
#pragma once

#include <torch/torch.h>
#include <torch/version.h>

#include <cstdlib>
#include <string>

#define CUDAPERF_TORCH_AT_LEAST(major, minor)                                                              \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace cudaperf::learn::compat {

// c10::optional is its own class in 1.13 and an alias of std::optional from 2.x; torch's functions
// take c10::optional in both, so lib/Learn passes that.
template <class T> using Optional = c10::optional<T>;
inline constexpr auto kNone = c10::nullopt;

// Fused attention (at::scaled_dot_product_attention, 2.1+ with `scale`) where available, else the
// same arithmetic as transformers' eager attention (scores in the input dtype, softmax in fp32).
// q [B, H, Q, D], k/v [B, H, K, D] (same head count: callers fold grouped-query heads); mask, when
// defined, is bool [B or 1, 1, Q, K] with true = attend; causal (top-left aligned, so only for
// Q == K) when no mask is given.
inline torch::Tensor attention(const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v,
                               const torch::Tensor &mask, bool causal, double scale, bool preferFused = true) {
#if CUDAPERF_TORCH_AT_LEAST(2, 1)
  if (preferFused) {
    Optional<torch::Tensor> m;
    if (mask.defined()) m = mask;
    return at::scaled_dot_product_attention(q, k, v, m, 0.0, causal && !mask.defined(), Optional<double>(scale));
  }
#endif
  (void)preferFused;
  torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) * scale;
  if (mask.defined()) {
    scores = scores.masked_fill(mask.logical_not(), -std::numeric_limits<float>::infinity());
  } else if (causal) {
    int64_t n = q.size(-2);
    torch::Tensor upper = torch::ones({n, k.size(-2)}, q.options().dtype(torch::kBool)).triu(1);
    scores = scores.masked_fill(upper, -std::numeric_limits<float>::infinity());
  }
  torch::Tensor probs = torch::softmax(scores, -1, torch::kFloat32).to(q.scalar_type());
  return torch::matmul(probs, v);
}

// Which fused attention kernels at::scaled_dot_product_attention may pick, set once per process before
// a model runs on a GPU. LibTorch 2.x can pick cuDNN's attention on Hopper, and cuDNN builds an execution
// graph for every new shape (measured on the H200, LibTorch 2.11: ~45 ms; decoding changes the key
// length at every step, so every step of a first-time length paid it: 48 ms per step against 3 ms
// once the shapes had been seen, data/eval-runs/2026-12-01-h200-gen). FlashAttention and the
// memory-efficient kernels have no per-shape set-up, so cuDNN's is off unless CUDAPERF_SDPA_CUDNN=1.
// Returns whether cuDNN attention stays enabled (false where this LibTorch has none).
inline bool configureAttentionBackends() {
#if CUDAPERF_TORCH_AT_LEAST(2, 4)
  static const bool useCudnn = [] {
    const char *v = std::getenv("CUDAPERF_SDPA_CUDNN");
    bool on = v && std::string(v) == "1";
    at::globalContext().setSDPUseCuDNN(on);
    return on;
  }();
  return useCudnn;
#else
  return false;
#endif
}

// Whether the fused kernel path exists in this LibTorch.
constexpr bool kHasFusedAttention = CUDAPERF_TORCH_AT_LEAST(2, 1);

// A CUDA out-of-memory error: c10::OutOfMemoryError from 2.0, a c10::Error whose message says so in 1.13.
inline bool isOutOfMemory(const c10::Error &e) {
  std::string what = e.what();
  return what.find("out of memory") != std::string::npos || what.find("CUDA out of memory") != std::string::npos;
}

// The default generator's state (CPU, or one CUDA device), for exact resume and for replaying
// dropout in gradient checkpointing.
inline torch::Tensor generatorState(const torch::Device &device) {
  auto gen = at::globalContext().defaultGenerator(device);
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}
inline void setGeneratorState(const torch::Device &device, const torch::Tensor &state) {
  auto gen = at::globalContext().defaultGenerator(device);
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

inline std::string versionText() { return TORCH_VERSION; }

// c10d (data parallelism, lib/Learn/DataParallel.cpp only: the headers are heavy, so a translation
// unit asks for them by defining CUDAPERF_COMPAT_C10D). CMake defines CUDAPERF_HAVE_GLOO /
// CUDAPERF_HAVE_NCCL after probing that DataParallel.cpp's calls on each process group compile with this LibTorch
// (USE_C10D_GLOO / USE_C10D_NCCL guard the headers' contents; TorchConfig defines them only for
// some builds: Debian's defines USE_C10D_GLOO, so they are defined here when the probe passed).
// 1.13's ProcessGroupGloo derives from c10d::ProcessGroup, 2.x's (and ProcessGroupNCCL) from
// c10d::Backend; DataParallel.cpp holds the concrete classes and calls only what both versions
// share (allreduce(vector<Tensor>&, AllreduceOptions) -> Work::wait, TCPStoreOptions, FileStore).
#ifdef CUDAPERF_COMPAT_C10D
#if CUDAPERF_HAVE_GLOO && !defined(USE_C10D_GLOO)
#define USE_C10D_GLOO 1
#endif
#if CUDAPERF_HAVE_NCCL && !defined(USE_C10D_NCCL)
#define USE_C10D_NCCL 1
#endif
} // namespace cudaperf::learn::compat
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp> // ReduceOp, AllreduceOptions (2.x: not through the stores)
#if CUDAPERF_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#if CUDAPERF_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
namespace cudaperf::learn::compat {
#endif
#ifndef CUDAPERF_HAVE_GLOO
#define CUDAPERF_HAVE_GLOO 0
#endif
#ifndef CUDAPERF_HAVE_NCCL
#define CUDAPERF_HAVE_NCCL 0
#endif
inline constexpr bool kHaveGloo = CUDAPERF_HAVE_GLOO;
inline constexpr bool kHaveNccl = CUDAPERF_HAVE_NCCL;

} // namespace cudaperf::learn::compat
