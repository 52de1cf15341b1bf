// The elementwise skeleton: out[i] = f(a[i], b[i], ..., scalars) for i < n, and the
// implementations every elementwise family shares (one thread per element, grid-stride,
// vectorized, unrolled, thread-per-chunk, occupancy-starved). Used by the elementwise,
// BLAS-1 and activation families of both kinds.
#pragma once

#include "Common.h"

namespace cudaperf::dataset {

struct MapOperand {
  std::string name;
  std::string dtype;
  // Which element is read for output i: empty for [i]; else an expression over ${i}, e.g.
  // "${i} % cols" (a per-column vector broadcast over rows); its names must be kernel scalars.
  std::string index;
};

struct MapSpec {
  std::vector<MapOperand> inputs; // read at [i]
  MapOperand output;              // written at [i]
  bool outputIsRead = false;      // inout: the expression reads ${<output>} too
  // The element expression: ${name} of an operand is its value at i; scalar arguments are used
  // by name. Its type converts to the output's dtype.
  std::string expr;
  // Statements in the entry that define `int n` (the element count) from the size arguments.
  std::string countCode = "";
  std::string countName = "n";
  // Extra scalar arguments the kernels take (names, with C types), e.g. "float alpha".
  std::vector<std::pair<std::string, std::string>> scalars;
  // Extra device code the expression calls (helper functions), placed before the kernels.
  std::string deviceHelpers;
  // The same helpers for reference.c (plain C).
  std::string hostHelpers;
};

// reference.c: a loop over i.
std::string mapReference(const TaskSpec &t, const MapSpec &m);
// Implementations: the baseline (one thread per element) and three other strategies chosen by
// rng among those that apply, at least one deliberately slow.
std::vector<ImplSpec> mapImplementations(const TaskSpec &t, const MapSpec &m, Rng &rng);

} // namespace cudaperf::dataset
