#include "Rows.h"

#include <fmt/format.h>

#include <functional>
#include <set>

namespace cudaperf::dataset {

namespace {

const char *identity(Combine c) { return c == Combine::Sum ? "0.0f" : c == Combine::Max ? "-INFINITY" : "INFINITY"; }
std::string combine(Combine c, const std::string &a, const std::string &b) {
  return c == Combine::Sum ? a + " + " + b : c == Combine::Max ? "fmaxf(" + a + ", " + b + ")" : "fminf(" + a + ", " + b + ")";
}
const char *combineName(Combine c) { return c == Combine::Sum ? "Sum" : c == Combine::Max ? "Max" : "Min"; }

// ${x} (RowSpec::elementVar) -> the element text, ${j} -> the column, ${v} of a column vector -> v[j].
std::string elementExpr(const RowSpec &r, const std::string &expr, const std::string &x, const std::string &j) {
  Vars v{{r.elementVar, x}, {"j", j}};
  for (const auto &c : r.columnVectors)
    if (!v.emplace(c, c + "[" + j + "]").second)
      throw DatasetError("row skeleton: the column vector `" + c + "` has the name of the placeholder ${" + c +
                         "} (the row's element or its column): set RowSpec::elementVar to another name");
  return render(expr, v);
}

std::string finishExpr(const RowPass &p, const std::string &acc) { return render(p.finish, {{"acc", acc}}); }

// Kernel parameters: x, column vectors, out, rows, cols.
std::string kernelParams(const RowSpec &r) {
  std::string s = "const float *__restrict__ " + r.input + ", ";
  for (const auto &c : r.columnVectors)
    s += "const float *__restrict__ " + c + ", ";
  return s + "float *__restrict__ " + r.out + ", int rows, int cols";
}
std::string kernelArgs(const RowSpec &r) {
  std::string s = r.input + ", ";
  for (const auto &c : r.columnVectors)
    s += c + ", ";
  return s + r.out + ", " + r.rowsName + ", " + r.colsName;
}

// The per-row body for a thread range: `start`, `step` over columns; reduce(acc) makes the
// combined value visible to every participating thread.
std::string rowBody(const RowSpec &r, const std::string &start, const std::string &step,
                    const std::function<std::string(Combine, const std::string &)> &reduce) {
  std::string s;
  std::string loop = "for (int j = " + start + "; j < cols; j += " + step + ")";
  for (const auto &p : r.passes) {
    std::string acc = p.name + "Acc";
    s += "  float " + acc + " = " + identity(p.combine) + ";\n";
    s += "  " + loop + "\n    " + acc + " = " + combine(p.combine, acc, elementExpr(r, p.element, "row[j]", "j")) + ";\n";
    s += reduce(p.combine, acc);
    s += "  float " + p.name + " = " + finishExpr(p, acc) + ";\n";
  }
  return s;
}

std::string outputCode(const RowSpec &r, const std::string &start, const std::string &step, const std::string &rowVar,
                       const std::string &guard) {
  if (r.perElement)
    return "  for (int j = " + start + "; j < cols; j += " + step + ")\n    " + r.out + "[(size_t)" +
           rowVar + " * cols + j] = " + elementExpr(r, r.output, "row[j]", "j") + ";\n";
  return "  if (" + guard + ")\n    " + r.out + "[" + rowVar + "] = " + r.output + ";\n";
}

std::string helpers(const RowSpec &r, bool block) {
  std::set<Combine> used;
  for (const auto &p : r.passes)
    used.insert(p.combine);
  std::string s;
  for (Combine c : used) {
    s += fmt::format("__device__ inline float warpAll{0}(float v) {{\n"
                     "  for (int offset = 16; offset > 0; offset >>= 1)\n"
                     "    v = {1};\n  return v;\n}}\n\n",
                     combineName(c), combine(c, "v", "__shfl_xor_sync(0xffffffffu, v, offset)"));
    if (block)
      s += fmt::format("// Every thread of the block gets the combined value (blockDim.x a multiple of 32).\n"
                       "__device__ inline float blockAll{0}(float v, float *warpValues) {{\n"
                       "  v = warpAll{0}(v);\n"
                       "  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;\n"
                       "  if (lane == 0)\n    warpValues[warp] = v;\n"
                       "  __syncthreads();\n"
                       "  v = lane < (int)(blockDim.x >> 5) ? warpValues[lane] : {1};\n"
                       "  v = warpAll{0}(v);\n"
                       "  __syncthreads();\n  return v;\n}}\n\n",
                       combineName(c), identity(c));
  }
  return s;
}

std::string entry(const TaskSpec &t, const RowSpec &r, const std::string &launch) {
  return "extern \"C\" void " + t.name + "(" + entryParams(t) + ", cudaStream_t stream) {\n  if ((" + r.rowsName +
         ") <= 0 || (" + r.colsName + ") <= 0)\n    return;\n" + launch + "}\n";
}

ImplSpec threadPerRow(const TaskSpec &t, const RowSpec &r) {
  std::string body = rowBody(r, "0", "1", [](Combine, const std::string &) { return std::string(); });
  std::string src = "// One thread per row: simple, but a warp's loads are a row apart (uncoalesced).\n" + cudaPrelude() +
                    "\n__global__ void rowsThreadPerRow(" + kernelParams(r) + ") {\n  int r = blockIdx.x * blockDim.x + threadIdx.x;\n  if (r >= rows)\n    return;\n  const float *row = " + r.input + " + (size_t)r * cols;\n" + body +
                    outputCode(r, "0", "1", "r", "true") + "}\n\n" +
                    entry(t, r, "  rowsThreadPerRow<<<((" + r.rowsName + ") + 127) / 128, 128, 0, stream>>>(" + kernelArgs(r) + ");\n");
  return implementation("baseline", {"thread_per_row"}, Expected::Neutral, src);
}

ImplSpec warpPerRow(const TaskSpec &t, const RowSpec &r) {
  std::string body = rowBody(r, "lane", "32", [](Combine c, const std::string &acc) {
    return "  " + acc + " = warpAll" + combineName(c) + "(" + acc + ");\n";
  });
  std::string src = "// One warp per row: lanes read consecutive columns, a shuffle reduction combines them.\n" +
                    cudaPrelude() + "\n" + helpers(r, false) + "__global__ void rowsWarpPerRow(" + kernelParams(r) +
                    ") {\n  int lane = threadIdx.x & 31;\n  int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;\n  if (r >= rows)\n    return; // the whole warp leaves together\n  const float *row = " + r.input +
                    " + (size_t)r * cols;\n" + body + outputCode(r, "lane", "32", "r", "lane == 0") + "}\n\n" +
                    entry(t, r, "  rowsWarpPerRow<<<((" + r.rowsName + ") + 7) / 8, 256, 0, stream>>>(" + kernelArgs(r) + ");\n");
  return implementation("warp_per_row", {"warp_per_row", "warp_shuffle"}, Expected::Fast, src);
}

ImplSpec blockPerRow(const TaskSpec &t, const RowSpec &r, int threads) {
  std::string body = rowBody(r, "(int)threadIdx.x", "(int)blockDim.x", [](Combine c, const std::string &acc) {
    return "  " + acc + " = blockAll" + combineName(c) + "(" + acc + ", warpValues);\n";
  });
  std::string src = fmt::format("// One block of {} threads per row: a warp-shuffle then shared-memory reduction.\n",
                                threads) +
                    cudaPrelude() + "\n" + helpers(r, true) + "__global__ void rowsBlockPerRow(" + kernelParams(r) +
                    ") {\n  __shared__ float warpValues[32];\n  int r = blockIdx.x;\n  const float *row = " + r.input +
                    " + (size_t)r * cols;\n" + body +
                    outputCode(r, "(int)threadIdx.x", "(int)blockDim.x", "r", "threadIdx.x == 0") + "}\n\n" +
                    entry(t, r, fmt::format("  rowsBlockPerRow<<<{}, {}, 0, stream>>>({});\n", r.rowsName, threads,
                                            kernelArgs(r)));
  return implementation("block_per_row", {"block_per_row", "block_reduction", "warp_shuffle"}, Expected::Fast, src);
}

ImplSpec divergentTree(const TaskSpec &t, const RowSpec &r) {
  std::string body = rowBody(r, "(int)threadIdx.x", "(int)blockDim.x", [](Combine c, const std::string &acc) {
    return "  partial[threadIdx.x] = " + acc + ";\n  __syncthreads();\n"
           "  for (int s = 1; s < (int)blockDim.x; s *= 2) {\n"
           "    if (threadIdx.x % (2 * s) == 0) // interleaved: divergent warps, strided banks\n"
           "      partial[threadIdx.x] = " + combine(c, "partial[threadIdx.x]", "partial[threadIdx.x + s]") + ";\n"
           "    __syncthreads();\n  }\n  " + acc + " = partial[0];\n  __syncthreads();\n";
  });
  std::string src = "// One block of 256 threads per row, reduced with the interleaved shared-memory tree\n"
                    "// (threadIdx.x % (2 * s) == 0): divergent warps and bank conflicts, deliberately slow.\n" +
                    cudaPrelude() + "\n__global__ void rowsTree(" + kernelParams(r) +
                    ") {\n  __shared__ float partial[256];\n  int r = blockIdx.x;\n  const float *row = " + r.input +
                    " + (size_t)r * cols;\n" + body +
                    outputCode(r, "(int)threadIdx.x", "(int)blockDim.x", "r", "threadIdx.x == 0") + "}\n\n" +
                    entry(t, r, "  rowsTree<<<" + r.rowsName + ", 256, 0, stream>>>(" + kernelArgs(r) + ");\n");
  return implementation("divergent_tree", {"block_per_row", "divergent", "bank_conflicts", "shared_memory_tree"},
                        Expected::Slow, src);
}

} // namespace

std::string rowReference(const TaskSpec &t, const RowSpec &r) {
  std::string s = referencePrelude() + "\nvoid " + t.name + "(" + entryParams(t) + ") {\n";
  if (r.rowsName != "rows")
    s += "  const int rows = " + r.rowsName + ";\n";
  if (r.colsName != "cols")
    s += "  const int cols = " + r.colsName + ";\n";
  s += "  for (int r = 0; r < rows; ++r) {\n    const float *row = " + r.input + " + (size_t)r * cols;\n";
  for (const auto &p : r.passes) {
    // Sums in double, so the reference is closer to exact than any float ordering.
    bool sum = p.combine == Combine::Sum;
    std::string acc = p.name + "Acc";
    s += std::string("    ") + (sum ? "double " : "float ") + acc + " = " + identity(p.combine) + ";\n";
    s += "    for (int j = 0; j < cols; ++j)\n      " + acc + " = " +
         combine(p.combine, acc, elementExpr(r, p.element, "row[j]", "j")) + ";\n";
    s += "    float " + p.name + " = " + finishExpr(p, sum ? "(float)" + acc : acc) + ";\n";
  }
  if (r.perElement)
    s += "    for (int j = 0; j < cols; ++j)\n      " + r.out + "[(size_t)r * cols + j] = " + elementExpr(r, r.output, "row[j]", "j") + ";\n";
  else
    s += "    " + r.out + "[r] = " + r.output + ";\n";
  return s + "  }\n}\n";
}

std::vector<ImplSpec> rowImplementations(const TaskSpec &t, const RowSpec &r, Rng &rng) {
  std::vector<ImplSpec> impls{threadPerRow(t, r), warpPerRow(t, r), blockPerRow(t, r, rng.pick(std::vector<int>{128, 256, 512}))};
  impls.push_back(divergentTree(t, r));
  return impls;
}

} // namespace cudaperf::dataset
