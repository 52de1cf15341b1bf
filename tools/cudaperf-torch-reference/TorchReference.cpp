// cudaperf-torch-reference: the reference of a pytorch-to-cuda task. The evaluator's data holder
// (cudaperf-eval-worker --holder) has generated the input sets on the GPU; this program maps them
// through CUDA IPC (the manifest of --device-data), runs each configuration's TorchScript export
// on a copy of every set and writes the outputs straight into the holder's expected buffers, so
// even a KernelBench-size set never passes through the host; then it times the module in eager
// mode (CUDA events, L2 flushed before every run) and writes the timing document (--timing-out).
// Trusted code (the task's own reference), but a separate process all the same: LibTorch stays
// out of the evaluator and the worker, and a failure here cannot take them down.
#include "TorchReference.h"

#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/DeviceData.h"
#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Runtime/TimingStats.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Json.h"

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
using namespace cudaperf::torchref;

namespace {

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
