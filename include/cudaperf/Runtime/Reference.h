// Runs the task's reference.c (built by buildReference) on host memory to produce the expected
// outputs of one input set (the data holder, tools/cudaperf-eval/worker/Holder.cpp, copies the
// set from the GPU for it). Trusted code: it runs in the calling process.
#pragma once

#include "cudaperf/Runtime/Inputs.h"
#include "cudaperf/Runtime/Task.h"

#include <string>

namespace cudaperf::runtime {

class ReferenceLibrary {
public:
  ReferenceLibrary() = default;
  ReferenceLibrary(const ReferenceLibrary &) = delete;
  ReferenceLibrary &operator=(const ReferenceLibrary &) = delete;
  ~ReferenceLibrary();

  bool load(const std::string &soPath, std::string &error);
  void invoke(const Task &task, HostArgs &args) const; // runs in place on args

private:
  void *handle_ = nullptr;
  void (*invoke_)(void *const *) = nullptr;
};

} // namespace cudaperf::runtime
