// The row skeleton: a (rows x cols) float matrix processed row by row, in passes that each
// reduce the row to one value (sum, max or min of a per-element expression), then an output per
// row (reductions) or per element (softmax, normalizations). Implementations: one thread per
// row, one warp per row, one block per row (shuffles), and one block per row with an interleaved
// shared-memory tree (divergent). Used by the row families of both kinds.
#pragma once

#include "Common.h"

namespace cudaperf::dataset {

enum class Combine { Sum, Max, Min };

struct RowPass {
  std::string name;    // the C variable holding the pass's result (later expressions use it)
  std::string element; // per element: over ${x} (the element; RowSpec::elementVar) and earlier pass names
  Combine combine = Combine::Sum;
  std::string finish;  // the result from the combined ${acc}, e.g. "${acc} / (float)cols"
};

struct RowSpec {
  std::vector<RowPass> passes;
  bool perElement = false;         // out has rows*cols elements (else rows)
  std::string output;              // over ${x} (per element), ${j} column, pass names, column vectors
  std::vector<std::string> columnVectors; // inputs of `cols` floats, used as ${name} (read at [j])
  // The placeholder of the row's element (${x}, read as row[j]). A column vector must not have the
  // name of a placeholder (this one or j): its ${name} would be taken for the other (issue 15:
  // pt_matvec's vector x made ${x} * ${x} read x[j] * x[j], and A was never read). Throws if it does.
  std::string elementVar = "x";
  std::string rowsName = "rows", colsName = "cols";
  std::string input = "x", out = "out";
};

std::string rowReference(const TaskSpec &t, const RowSpec &r);
std::vector<ImplSpec> rowImplementations(const TaskSpec &t, const RowSpec &r, Rng &rng);

} // namespace cudaperf::dataset
