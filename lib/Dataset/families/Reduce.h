// The full-reduction skeleton: out[0] = finish(combine over i < n of element(inputs[i])).
// Implementations: two-pass shared-memory tree (baseline), warp shuffles, one atomic per warp,
// and the deliberately slow ones: interleaved (divergent) tree, strided (bank-conflicted) tree,
// a single block, an atomic per element. Used by the reduction, norm, dot and loss families.
#pragma once

#include "Map.h"
#include "Rows.h"

namespace cudaperf::dataset {

struct ReduceSpec {
  std::vector<MapOperand> inputs; // read at [i]
  std::string element;            // over ${name}; converts to accType
  std::string accType = "float";  // float | double | int
  Combine combine = Combine::Sum;
  std::string finish = "${acc}";  // the output from the combined ${acc} (and n)
  MapOperand output;              // one element
  std::string countCode;          // defines `int n` in the entry when n is not an argument
};

std::string reduceReference(const TaskSpec &t, const ReduceSpec &r);
std::vector<ImplSpec> reduceImplementations(const TaskSpec &t, const ReduceSpec &r, Rng &rng);

} // namespace cudaperf::dataset
