// The evaluator's input generator on the host: a counter-based generator (SplitMix64 addressed
// by element index), so the device kernel that fills input sets on the GPU
// (lib/DeviceKernels) and this reference give the same bits for every element. The formula is
// documented in docs/task-format.md and written once in CounterRngFormula.h.
#pragma once

#include "cudaperf/Runtime/Task.h"

#include <cstdint>

namespace cudaperf::runtime {

// Bumped whenever the formula changes: it is part of every cache key of generated data.
constexpr const char *kGeneratorVersion = "splitmix64-counter/1";

// What decides the elements of one pointer argument in one input set.
struct ElementStream {
  Dtype dtype = Dtype::F32;
  Distribution::Kind kind = Distribution::Kind::Uniform;
  double a = 0, b = 0;  // as in Distribution
  uint64_t key = 0;     // streamKey(set seed, argument index)
};

ElementStream elementStream(const Argument &arg, size_t argIndex, uint64_t setSeed);

// Elements [first, first + count) of the stream, written to `out` in the argument's type.
void drawElements(const ElementStream &stream, uint64_t first, uint64_t count, void *out);

// The formula's building blocks, exposed for tests.
uint64_t generatorMix64(uint64_t z);
uint64_t generatorDraw(uint64_t key, uint64_t n);
double generatorLn(double x);
double generatorCos2Pi(double u);

} // namespace cudaperf::runtime
