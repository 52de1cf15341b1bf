// A copy of the shipped pytorch-to-cuda relu task without impls/baseline.cu (as KernelBench's
// problems come: PyTorch eager is what a candidate is measured against), removed afterwards.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

struct TaskWithoutBaseline {
  TaskWithoutBaseline() {
    namespace fs = std::filesystem;
    std::string pattern = (fs::temp_directory_path() / "cudaperf-no-baseline-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      std::abort();
    root = pattern;
    dir = root + "/relu"; // the directory name is the task's name
    fs::copy(std::string(CUDAPERF_SOURCE_DIR) + "/data/tasks/pytorch/relu", dir, fs::copy_options::recursive);
    fs::remove(dir + "/impls/baseline.cu");
    candidate = std::string(CUDAPERF_SOURCE_DIR) + "/data/tasks/pytorch/relu/impls/baseline.cu";
  }
  ~TaskWithoutBaseline() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
  std::string root, dir;
  std::string candidate; // a correct implementation of it (the shipped task's baseline)
};
