// Seeded host-side data for one call: argument buffers drawn from the task's distributions,
// output poisoning, and the element-wise check against the reference. Shared by the worker
// (on the GPU host) and the CPU tests, so both see exactly the same inputs for a seed.
#pragma once

#include "cudaperf/Runtime/Task.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf::runtime {

// One buffer per argument (empty for scalars) plus the scalar values, in argument order.
struct HostArgs {
  std::vector<std::vector<unsigned char>> buffers;
  std::vector<double> scalars;
};

// Seed of input set `set` of configuration `config`, derived from the run's base seed.
uint64_t inputSeed(uint64_t baseSeed, size_t config, size_t set);

// Fills every argument: inputs from their distributions; outputs poisoned (see poisonBuffer).
HostArgs makeHostArgs(const Task &task, const Config &config, uint64_t seed);

// Floats become NaN so an unwritten element can never pass; integers become 0xA5 bytes, a
// value no example task produces.
void poisonBuffer(std::vector<unsigned char> &buf, Dtype dtype);

// Pointers into `args` in the shape the generated shims take: for a pointer argument, the
// buffer's data; for a scalar, a pointer to storage of the argument's C type.
struct PackedArgs {
  std::vector<void *> pointers;
  std::vector<std::vector<unsigned char>> scalarStorage;
};
// With devicePointers, host buffers are not referenced (only the scalars are read).
PackedArgs packArgs(const Task &task, const HostArgs &args, const std::vector<void *> *devicePointers = nullptr);

struct Mismatch {
  bool pass = true;
  std::string argument;     // first failing output
  int64_t index = -1;       // its worst element
  double got = 0, expected = 0;
  int64_t badElements = 0;  // over all outputs
  int64_t nanElements = 0;  // NaN (or inf where the reference is finite) in the output
};

// |got - expected| <= atol + rtol * |expected|; NaN never passes.
Mismatch compareOutputs(const Task &task, const std::vector<std::vector<unsigned char>> &got,
                        const std::vector<std::vector<unsigned char>> &expected);

double elementAsDouble(const unsigned char *data, Dtype dtype, int64_t index);

} // namespace cudaperf::runtime
