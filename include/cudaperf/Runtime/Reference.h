// Runs the task's reference.c (built by buildReference) on host memory to produce the expected
// outputs for one seeded input set. Trusted code: it runs in the calling process.
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

struct ExpectedSet {
  uint64_t seed = 0;
  HostArgs inputs;                                // as given to the implementation
  std::vector<std::vector<unsigned char>> expected; // every argument after the reference ran
  double referenceMs = 0;
};

ExpectedSet computeExpected(const Task &task, const Config &config, uint64_t seed,
                            const ReferenceLibrary &reference);

// A computed set on disk, so the next worker for the same task, reference build and seed reads
// it instead of drawing the inputs and running the reference again (written atomically). Only
// what the worker uses is stored: inputs of arguments the entry reads, expected values of the
// ones it writes; after loadExpected the other buffers are empty.
bool saveExpected(const std::string &path, const Task &task, const ExpectedSet &set);
// False (and `set` untouched) unless the file holds a set of exactly this task's shapes.
bool loadExpected(const std::string &path, const Task &task, const Config &config, ExpectedSet &set);

} // namespace cudaperf::runtime
