// The matrix-product skeleton: out[b] = epilogue(sum_p A(i, p) B(p, j)) for a batch of
// products, A (m x k) stored as m x k ("N") or k x m ("T"), B (k x n) as k x n or n x k.
// Implementations: one thread per output (baseline), the same with rows on threadIdx.x
// (uncoalesced), 16x16 shared-memory tiles, 64x64 tiles with 4x4 outputs per thread (register
// blocking), and 32x32 tiles read across banks (bank conflicts).
#pragma once

#include "Common.h"

namespace cudaperf::dataset {

struct GemmSpec {
  std::string T = "float";       // element and accumulator type
  bool transA = false, transB = false;
  std::string a = "A", b = "B", out = "C";
  std::string m = "m", n = "n", k = "k", batch = "1"; // C expressions over the entry's arguments
  // The stored value from the sum ${acc}, row ${i}, column ${j}: "${acc}", "alpha * ${acc} + beta * ${c}"
  // (${c}: the old out value when out is inout), "fmaxf(${acc} + bias[${j}], 0.0f)".
  std::string epilogue = "${acc}";
  bool outIsRead = false;
  // Extra kernel parameters the epilogue uses ("const float *bias, float alpha") and their arguments.
  std::string extraParams, extraArgs;
};

std::string gemmReference(const TaskSpec &t, const GemmSpec &g);
std::vector<ImplSpec> gemmImplementations(const TaskSpec &t, const GemmSpec &g, Rng &rng);

} // namespace cudaperf::dataset
