// Random elementwise expressions, written both as C/CUDA (f32 or f64 math functions) and as
// PyTorch, so one tree gives a C task and a PyTorch problem. Every node keeps values of inputs
// in about [-3, 3] bounded and well conditioned (no division by a value near 0, no log).
#pragma once

#include "cudaperf/Dataset/Rng.h"

#include <string>
#include <vector>

namespace cudaperf::dataset {

struct ExprText {
  std::string c;     // operands as ${name}
  std::string torch; // operands as plain names
  int nodes = 0;
};

ExprText randomExpr(Rng &rng, const std::vector<std::string> &operands, const std::string &dtype, int depth);

} // namespace cudaperf::dataset
