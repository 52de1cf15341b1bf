// cudaperf-torch-reference's pieces (TorchModule.cpp): the options, the failure report, and on a CUDA
// LibTorch the holder's input sets mapped through CUDA IPC, the exported module's inputs and outputs
// and its eager timing. TorchReference.cpp holds the command line and the run.
#pragma once

#include "cudaperf/Runtime/DeviceData.h"
#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Support/Json.h"

#include <ATen/Context.h>
// A LibTorch built with CUDA (the GPU host's) has its CUDA headers; a CPU-only one (Debian's, used
// here to compile-check) does not, and the program then only reports that it cannot run.
#if __has_include(<c10/cuda/impl/cuda_cmake_macros.h>)
#define CUDAPERF_TORCH_CUDA 1
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#endif
#include <torch/script.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf::torchref {

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitInvalidTask = 3;

struct Options {
  std::string taskDir, deviceData, timingOut;
  uint64_t seed = 1;
  int sets = 3;
  int warmup = 3, minRuns = 20, maxRuns = 1000;
  double budgetMs = 100;
  bool timing = true;
  std::vector<std::string> configs;
};

// "cudaperf-torch-reference: MSG" on stderr, exit 1.
[[noreturn]] void fail(const std::string &msg);

#ifdef CUDAPERF_TORCH_CUDA
c10::ScalarType torchType(runtime::Dtype d, const std::string &arg);
size_t argIndex(const runtime::Task &task, const std::string &name);
std::vector<int64_t> shapeOf(const runtime::Task &task, const std::string &name, const runtime::Config &c);

// One input set of the holder, mapped into this process (closed with it).
struct MappedSet {
  void *slab = nullptr;
  const runtime::DeviceSet *meta = nullptr;
  ~MappedSet() {
    if (slab)
      cudaIpcCloseMemHandle(slab);
  }
  unsigned char *at(size_t arg, runtime::DeviceBuffer::Role role) const {
    const runtime::DeviceBuffer *b = meta->find(arg, role);
    if (!b)
      fail("the holder's manifest has no buffer for argument " + std::to_string(arg));
    return static_cast<unsigned char *>(slab) + b->offset;
  }
};
void mapSet(const runtime::DeviceSet &set, MappedSet &m);

// The forward's inputs: copies of the holder's buffers (a module that works in place must not
// change the inputs every candidate will get).
std::vector<torch::jit::IValue> forwardInputs(const runtime::Task &task, const runtime::Config &c, const MappedSet &set);
std::vector<torch::Tensor> outputsOf(const torch::jit::IValue &result, const runtime::Task &task);
// Eager time of one call: flush L2 (write a buffer twice its size), then events around forward.
support::Json timeModule(torch::jit::script::Module &module, std::vector<torch::jit::IValue> &inputs, const Options &opt);
#endif

std::string deviceName();

} // namespace cudaperf::torchref
