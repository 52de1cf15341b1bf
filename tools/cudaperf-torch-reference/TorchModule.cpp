#include "TorchReference.h"

#include "cudaperf/Runtime/TimingStats.h"

#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>

namespace cudaperf::torchref {

using namespace cudaperf::runtime;
using support::Json;

[[noreturn]] void fail(const std::string &msg) {
  std::cerr << "cudaperf-torch-reference: " << msg << "\n";
  std::exit(kExitFailed);
}

// The CUDA path; a CPU-only LibTorch compiles only the failure report.
#ifdef CUDAPERF_TORCH_CUDA
c10::ScalarType torchType(Dtype d, const std::string &arg) {
  switch (d) {
  case Dtype::F32: return torch::kFloat32;
  case Dtype::F64: return torch::kFloat64;
  case Dtype::I32: return torch::kInt32;
  case Dtype::I64: return torch::kInt64;
  case Dtype::U8: return torch::kUInt8;
  case Dtype::U32: break;
  }
  fail("argument '" + arg + "': dtype " + std::string(dtypeName(d)) + " has no PyTorch tensor type");
}

size_t argIndex(const Task &task, const std::string &name) {
  for (size_t i = 0; i < task.args.size(); ++i)
    if (task.args[i].name == name)
      return i;
  fail("task.json names an unknown argument '" + name + "'");
}

std::vector<int64_t> shapeOf(const Task &task, const std::string &name, const Config &c) {
  std::vector<int64_t> dims;
  for (const SizeExpr &e : task.pytorch->shapes.at(name))
    dims.push_back(e.evaluate(c.params));
  return dims;
}


void mapSet(const DeviceSet &set, MappedSet &m) {
  cudaIpcMemHandle_t h;
  if (!hexDecode(set.ipcHandle, &h, sizeof h))
    fail("the holder's manifest has a malformed IPC handle");
  if (cudaError_t e = cudaIpcOpenMemHandle(&m.slab, h, cudaIpcMemLazyEnablePeerAccess))
    fail(std::string("mapping the holder's input set: ") + cudaGetErrorString(e));
  m.meta = &set;
}

std::vector<torch::jit::IValue> forwardInputs(const Task &task, const Config &c, const MappedSet &set) {
  std::vector<torch::jit::IValue> inputs;
  for (const std::string &name : task.pytorch->forwardArgs) {
    size_t i = argIndex(task, name);
    const Argument &a = task.args[i];
    torch::Tensor shared = torch::from_blob(set.at(i, DeviceBuffer::Role::Input), shapeOf(task, name, c),
                                            torch::TensorOptions().dtype(torchType(a.dtype, name)).device(torch::kCUDA));
    inputs.emplace_back(shared.clone());
  }
  return inputs;
}

std::vector<torch::Tensor> outputsOf(const torch::jit::IValue &result, const Task &task) {
  std::vector<torch::Tensor> outs;
  if (result.isTensor())
    outs.push_back(result.toTensor());
  else if (result.isTuple())
    for (const auto &v : result.toTuple()->elements()) {
      if (!v.isTensor())
        fail("the exported module returned a tuple with a non-tensor element");
      outs.push_back(v.toTensor());
    }
  else if (result.isTensorList())
    for (const auto &t : result.toTensorList())
      outs.push_back(t);
  else
    fail("the exported module returned neither a tensor nor a tuple of tensors");
  if (outs.size() != task.pytorch->outputs.size())
    fail("the exported module returned " + std::to_string(outs.size()) + " tensors; task.json lists " +
         std::to_string(task.pytorch->outputs.size()) + " outputs");
  return outs;
}

Json timeModule(torch::jit::script::Module &module, std::vector<torch::jit::IValue> &inputs,
                       const Options &opt) {
  auto stream = at::cuda::getCurrentCUDAStream();
  int64_t l2 = at::cuda::getCurrentDeviceProperties()->l2CacheSize;
  torch::Tensor flush = torch::empty({std::max<int64_t>(2 * l2, 1 << 20)},
                                     torch::TensorOptions().dtype(torch::kUInt8).device(torch::kCUDA));
  for (int i = 0; i < opt.warmup; ++i)
    module.forward(inputs);
  torch::cuda::synchronize();
  std::vector<double> ms;
  auto start = std::chrono::steady_clock::now();
  while (int(ms.size()) < opt.maxRuns) {
    double spent = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (int(ms.size()) >= opt.minRuns && spent > opt.budgetMs)
      break;
    flush.fill_(uint8_t(ms.size() & 0xff));
    at::cuda::CUDAEvent before(cudaEventDefault), after(cudaEventDefault);
    before.record(stream);
    module.forward(inputs);
    after.record(stream);
    after.synchronize();
    ms.push_back(double(before.elapsed_time(after)));
  }
  return timingJson(summarizeTimes(ms));
}
#endif

std::string deviceName() {
#ifdef CUDAPERF_TORCH_CUDA
  return at::cuda::getCurrentDeviceProperties()->name;
#else
  return "";
#endif
}

} // namespace cudaperf::torchref
