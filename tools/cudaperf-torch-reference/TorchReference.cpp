// cudaperf-torch-reference: the reference of a pytorch-to-cuda task. The evaluator's data holder
// (cudaperf-eval-worker --holder) has generated the input sets on the GPU; this program maps them
// through CUDA IPC (the manifest of --device-data), runs each configuration's TorchScript export
// on a copy of every set and writes the outputs straight into the holder's expected buffers, so
// even a KernelBench-size set never passes through the host; then it times the module in eager
// mode (CUDA events, L2 flushed before every run) and writes the timing document (--timing-out).
// Trusted code (the task's own reference), but a separate process all the same: LibTorch stays
// out of the evaluator and the worker, and a failure here cannot take them down.
#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/DeviceData.h"
#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Runtime/TimingStats.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Json.h"

#include <ATen/Context.h>
// A LibTorch built with CUDA (the GPU host's) has its CUDA headers; a CPU-only one (Debian's, used
// here to compile-check) does not, and the program then only reports that it cannot run.
#if __has_include(<c10/cuda/impl/cuda_cmake_macros.h>)
#define CUDAPERF_TORCH_CUDA 1
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#endif
#include <torch/cuda.h>
#include <torch/script.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace cudaperf;
using namespace cudaperf::runtime;
using cudaperf::support::Json;

namespace {

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

support::ArgParser referenceArgs(Options &opt) {
  using support::parseInteger;
  using support::parseNumber;
  support::ArgParser p("cudaperf-torch-reference", {"--task DIR --device-data MANIFEST --timing-out FILE [options]"},
                       "Started by cudaperf-eval's data holder for pytorch-to-cuda tasks (docs/pytorch-tasks.md):\n"
                       "writes the expected outputs of every input set into the holder's buffers on the GPU,\n"
                       "their times to MANIFEST.times, and the eager timings to FILE.");
  p.option("--task", "DIR", "the pytorch-to-cuda task (required)", opt.taskDir)
      .option("--device-data", "MANIFEST", "the holder's input sets on the GPU (required)", opt.deviceData)
      .option("--timing-out", "FILE", "where the eager timing document goes (required unless --no-timing)",
              opt.timingOut)
      .option("--seed", "N", "base seed of the input sets (default 1)",
              [&](const std::string &v) { opt.seed = support::parseUnsigned(v); })
      .option("--sets", "N", "input sets per configuration (default 3)",
              [&](const std::string &v) { opt.sets = int(parseInteger(v, 1, 1000000)); })
      .option("--warmup", "N", "untimed calls before timing (default 3)",
              [&](const std::string &v) { opt.warmup = int(parseInteger(v, 0, 1000000)); })
      .option("--min-runs", "N", "timed calls, at least (default 20)",
              [&](const std::string &v) { opt.minRuns = int(parseInteger(v, 1, 100000000)); })
      .option("--max-runs", "N", "timed calls, at most (default 1000)",
              [&](const std::string &v) { opt.maxRuns = int(parseInteger(v, 1, 100000000)); })
      .option("--budget-ms", "X", "time budget of the timing loop (default 100)",
              [&](const std::string &v) { opt.budgetMs = parseNumber(v, 0); })
      .flag("--no-timing", "expected outputs only", [&] { opt.timing = false; })
      .option("--configs", "A,B", "only these configurations",
              [&](const std::string &v) { opt.configs = parseConfigList(v); });
  return p;
}

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

// One input set of the holder, mapped into this process (closed with it).
struct MappedSet {
  void *slab = nullptr;
  const DeviceSet *meta = nullptr;
  ~MappedSet() {
    if (slab)
      cudaIpcCloseMemHandle(slab);
  }
  unsigned char *at(size_t arg, DeviceBuffer::Role role) const {
    const DeviceBuffer *b = meta->find(arg, role);
    if (!b)
      fail("the holder's manifest has no buffer for argument " + std::to_string(arg));
    return static_cast<unsigned char *>(slab) + b->offset;
  }
};

void mapSet(const DeviceSet &set, MappedSet &m) {
  cudaIpcMemHandle_t h;
  if (!hexDecode(set.ipcHandle, &h, sizeof h))
    fail("the holder's manifest has a malformed IPC handle");
  if (cudaError_t e = cudaIpcOpenMemHandle(&m.slab, h, cudaIpcMemLazyEnablePeerAccess))
    fail(std::string("mapping the holder's input set: ") + cudaGetErrorString(e));
  m.meta = &set;
}

// The forward's inputs: copies of the holder's buffers (a module that works in place must not
// change the inputs every candidate will get).
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

// Eager time of one call: flush L2 (write a buffer twice its size), then events around forward.
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

} // namespace

int main(int argc, char **argv) {
  Options opt;
  support::ArgParser args = referenceArgs(opt);
  if (support::ParsedArgs parsed = args.parseOrExit(argc, argv, kExitUsage); !parsed.positional.empty())
    args.usageError("unexpected argument '" + parsed.positional[0] + "'", kExitUsage);
  if (opt.taskDir.empty() || opt.deviceData.empty() || (opt.timing && opt.timingOut.empty()))
    args.usageError("--task, --device-data and --timing-out are required", kExitUsage);
  opt.maxRuns = std::max(opt.maxRuns, opt.minRuns);

  Task task;
  try {
    task = loadTask(opt.taskDir);
    selectConfigs(task, opt.configs);
  } catch (const TaskError &e) {
    std::cerr << e.what() << "\n";
    return kExitInvalidTask;
  }
  if (task.kind != TaskKind::PyTorchToCuda || !task.pytorch)
    fail(task.dir + " is not a pytorch-to-cuda task");
  for (const Argument &a : task.args)
    if (a.isPointer() && a.access == Argument::Access::InOut)
      fail("argument '" + a.name + "' is both read and written; pytorch-to-cuda tasks keep inputs and outputs apart");
  if (!torch::cuda::is_available())
    fail("LibTorch sees no CUDA device (torch::cuda::is_available() is false)");

  // Reference numerics: full fp32 (no TF32 in matmuls or convolutions), deterministic algorithms
  // where cuDNN offers them, and the TorchScript interpreter without its optimising executor, so
  // what runs is the eager sequence of ATen calls (no fusion).
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setAllowTF32CuDNN(false);
  at::globalContext().setBenchmarkCuDNN(false);
  at::globalContext().setDeterministicCuDNN(true);
  torch::jit::setGraphExecutorOptimize(false);
  torch::NoGradGuard noGrad;

  DeviceData data;
  try {
    std::string text;
    if (!readFile(opt.deviceData, text))
      fail(opt.deviceData + ": cannot be read");
    data = deviceDataFromJson(support::parseJson(text, opt.deviceData));
  } catch (const std::exception &e) {
    fail(e.what());
  }
  Json timings = Json::object();
  Json referenceMs = Json::object();
#ifndef CUDAPERF_TORCH_CUDA
  fail("built against a LibTorch without CUDA: the holder's data on the GPU cannot be mapped");
#else
  try {
    for (size_t c = 0; c < task.configs.size(); ++c) {
      const Config &cfg = task.configs[c];
      const DeviceConfigData *dc = data.config(cfg.name);
      if (!dc || dc->sets.size() != size_t(opt.sets))
        fail(opt.deviceData + ": no data for config " + cfg.name);
      std::string path = task.pytorch->exportedPath(task.dir, cfg.name);
      torch::jit::script::Module module = torch::jit::load(path, torch::Device(torch::kCUDA));
      module.eval();
      std::vector<torch::jit::IValue> firstInputs;
      std::vector<int64_t> counts = task.counts(cfg);
      referenceMs[cfg.name] = Json::array();
      for (int s = 0; s < opt.sets; ++s) {
        MappedSet set;
        mapSet(dc->sets[size_t(s)], set);
        std::vector<torch::jit::IValue> inputs = forwardInputs(task, cfg, set);
        torch::cuda::synchronize();
        auto t0 = std::chrono::steady_clock::now();
        torch::jit::IValue result = module.forward(inputs);
        torch::cuda::synchronize();
        referenceMs[cfg.name].push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        std::vector<torch::Tensor> outs = outputsOf(result, task);
        for (size_t k = 0; k < outs.size(); ++k) {
          const std::string &name = task.pytorch->outputs[k];
          size_t i = argIndex(task, name);
          const Argument &a = task.args[i];
          if (outs[k].scalar_type() != torchType(a.dtype, name))
            fail(path + ": output '" + name + "' is " + std::string(c10::toString(outs[k].scalar_type())) +
                 ", task.json says " + dtypeName(a.dtype));
          if (outs[k].numel() != counts[i])
            fail(path + ": output '" + name + "' has " + std::to_string(outs[k].numel()) + " elements in config " +
                 cfg.name + ", task.json says " + std::to_string(counts[i]));
          torch::Tensor expected =
              torch::from_blob(set.at(i, DeviceBuffer::Role::Expected), {counts[i]},
                               torch::TensorOptions().dtype(torchType(a.dtype, name)).device(torch::kCUDA));
          expected.copy_(outs[k].contiguous().reshape({counts[i]}));
        }
        torch::cuda::synchronize();
        if (s == 0)
          firstInputs = std::move(inputs);
      }
      if (opt.timing) {
        Json t = timeModule(module, firstInputs, opt);
        timings[cfg.name] = t;
        std::fprintf(stderr, "%s %s: eager median %.4f ms\n", task.name.c_str(), cfg.name.c_str(),
                     t["median_ms"].get<double>());
      }
    }
  } catch (const c10::Error &e) {
    fail(std::string("LibTorch: ") + e.what_without_backtrace());
  } catch (const std::exception &e) {
    fail(e.what());
  }
#endif
  if (!writeFile(opt.deviceData + ".times", support::writeJson(referenceMs)))
    fail("cannot write " + opt.deviceData + ".times");
  if (!opt.timing)
    return kExitOk;

  Json doc = Json::object();
  doc["schema"] = "cudaperf-torch-reference/1";
  doc["task"] = task.name;
  doc["torch_version"] = TORCH_VERSION;
  doc["device"] = deviceName();
  doc["tf32"] = false;
  doc["seed"] = (long long)opt.seed;
  doc["sets"] = opt.sets;
  doc["configs"] = std::move(timings);
  // Published whole or not at all: a concurrent evaluator may read it.
  std::string tmp = opt.timingOut + ".tmp" + std::to_string(getpid());
  if (!writeFile(tmp, support::writeJson(doc) + "\n") || rename(tmp.c_str(), opt.timingOut.c_str()) != 0)
    fail("cannot write " + opt.timingOut);
  return kExitOk;
}
