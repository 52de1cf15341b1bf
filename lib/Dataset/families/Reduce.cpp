#include "Reduce.h"

#include <fmt/format.h>

namespace cudaperf::dataset {

namespace {

std::string identityOf(const ReduceSpec &r) {
  if (r.combine == Combine::Sum)
    return "(" + r.accType + ")0";
  bool isInt = r.accType == "int";
  if (r.combine == Combine::Max)
    return isInt ? "(-2147483647 - 1)" : "-INFINITY";
  return isInt ? "2147483647" : "INFINITY";
}

std::string combineOf(const ReduceSpec &r, const std::string &a, const std::string &b) {
  if (r.combine == Combine::Sum)
    return a + " + " + b;
  return "(" + a + (r.combine == Combine::Max ? " > " : " < ") + b + " ? " + a + " : " + b + ")";
}

std::string elementAt(const ReduceSpec &r, const std::string &i) {
  Vars v;
  for (const auto &in : r.inputs)
    v[in.name] = in.name + "[" + i + "]";
  return "(" + r.accType + ")(" + render(r.element, v) + ")";
}

std::string kernelParams(const ReduceSpec &r) {
  std::string s;
  for (const auto &in : r.inputs)
    s += "const " + cType(in.dtype) + " *__restrict__ " + in.name + ", ";
  return s + "int n";
}
std::string kernelArgs(const ReduceSpec &r) {
  std::string s;
  for (const auto &in : r.inputs)
    s += in.name + ", ";
  return s + "n";
}

std::string entry(const TaskSpec &t, const ReduceSpec &r, const std::string &body) {
  return "extern \"C\" void " + t.name + "(" + entryParams(t) + ", cudaStream_t stream) {\n" + r.countCode + body + "}\n";
}

// Common device code: the combine, the identity, a warp reduction and the partials buffer.
std::string common(const ReduceSpec &r) {
  Vars v{{"T", r.accType}, {"identity", identityOf(r)}, {"combine", combineOf(r, "a", "b")},
         {"out_t", cType(r.output.dtype)}, {"finish", render(r.finish, {{"acc", "acc"}})}};
  return render(R"(
#define MAX_BLOCKS 1024
__device__ ${T} blockPartials[MAX_BLOCKS]; // one value per block of the first pass

__device__ inline ${T} combine(${T} a, ${T} b) { return ${combine}; }

__device__ inline ${T} warpReduce(${T} v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v = combine(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

__device__ inline ${out_t} finishReduction(${T} acc, int n) { return (${out_t})(${finish}); }
)", v);
}

// The second pass: one block of 1024 threads reduces the first pass's partials.
std::string finalKernel(const ReduceSpec &r, const std::string &style) {
  Vars v{{"T", r.accType}, {"identity", identityOf(r)}, {"out", r.output.name}, {"out_t", cType(r.output.dtype)}};
  std::string tree = style == "shuffle" ? R"(  v = warpReduce(v);
  if ((threadIdx.x & 31) == 0)
    shared[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < (blockDim.x >> 5) ? shared[threadIdx.x] : ${identity};
    v = warpReduce(v);
  }
)" : R"(  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      shared[threadIdx.x] = combine(shared[threadIdx.x], shared[threadIdx.x + s]);
    __syncthreads();
  }
  v = shared[0];
)";
  return render(R"(
__global__ void reduceFinal(int partials, ${out_t} *out, int n) {
  __shared__ ${T} shared[1024];
  ${T} v = ${identity};
  for (int i = threadIdx.x; i < partials; i += blockDim.x)
    v = combine(v, blockPartials[i]);
)" + tree + R"(  if (threadIdx.x == 0)
    out[0] = finishReduction(v, n);
}
)", v);
}

// First pass: grid-stride accumulation, then the block's reduction of the given style.
std::string firstKernel(const ReduceSpec &r, const std::string &style) {
  Vars v{{"T", r.accType}, {"identity", identityOf(r)}, {"params", kernelParams(r)}, {"element", elementAt(r, "i")}};
  std::string tree;
  if (style == "shuffle")
    tree = R"(  __shared__ ${T} warpValues[32];
  acc = warpReduce(acc);
  if ((threadIdx.x & 31) == 0)
    warpValues[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = threadIdx.x < (blockDim.x >> 5) ? warpValues[threadIdx.x] : ${identity};
    acc = warpReduce(acc);
  }
)";
  else if (style == "sequential")
    tree = R"(  __shared__ ${T} shared[256];
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) { // sequential addressing: no divergence within warps
    if (threadIdx.x < s)
      shared[threadIdx.x] = combine(shared[threadIdx.x], shared[threadIdx.x + s]);
    __syncthreads();
  }
  acc = shared[0];
)";
  else if (style == "interleaved")
    tree = R"(  __shared__ ${T} shared[256];
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int s = 1; s < blockDim.x; s *= 2) { // interleaved: half the warp idles at each step (divergent)
    if (threadIdx.x % (2 * s) == 0)
      shared[threadIdx.x] = combine(shared[threadIdx.x], shared[threadIdx.x + s]);
    __syncthreads();
  }
  acc = shared[0];
)";
  else // strided
    tree = R"(  __shared__ ${T} shared[256];
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int s = 1; s < blockDim.x; s *= 2) { // strided index 2*s*tid: shared-memory bank conflicts
    int index = 2 * s * threadIdx.x;
    if (index < blockDim.x)
      shared[index] = combine(shared[index], shared[index + s]);
    __syncthreads();
  }
  acc = shared[0];
)";
  return render(R"(
__global__ void reduceBlocks(${params}) {
  ${T} acc = ${identity};
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc = combine(acc, ${element});
)" + tree + R"(  if (threadIdx.x == 0)
    blockPartials[blockIdx.x] = acc;
}
)", v);
}

std::string twoPassEntry(const ReduceSpec &r, const std::string &blocksExpr, int finalThreads) {
  return fmt::format("  if (n <= 0)\n    return;\n  int blocks = {};\n  if (blocks > MAX_BLOCKS)\n    blocks = MAX_BLOCKS;\n"
                     "  if (blocks < 1)\n    blocks = 1;\n"
                     "  reduceBlocks<<<blocks, 256, 0, stream>>>({});\n"
                     "  reduceFinal<<<1, {}, 0, stream>>>(blocks, {}, n);\n",
                     blocksExpr, kernelArgs(r), finalThreads, r.output.name);
}

ImplSpec twoPass(const TaskSpec &t, const ReduceSpec &r, const std::string &name, const std::string &style,
                 std::vector<std::string> labels, Expected e, const std::string &comment, const std::string &blocks) {
  std::string src = "// " + comment + "\n" + cudaPrelude() + common(r) + firstKernel(r, style) +
                    finalKernel(r, style == "shuffle" ? "shuffle" : "tree") + "\n" +
                    entry(t, r, twoPassEntry(r, blocks, style == "shuffle" ? 1024 : 1024));
  return implementation(name, std::move(labels), e, src);
}

bool atomicCapable(const ReduceSpec &r) {
  if (r.finish != "${acc}" || r.accType != cType(r.output.dtype))
    return false;
  if (r.combine == Combine::Sum)
    return r.accType == "float" || r.accType == "double" || r.accType == "int";
  return r.accType == "int";
}

std::string atomicOp(const ReduceSpec &r) {
  return r.combine == Combine::Sum ? "atomicAdd" : r.combine == Combine::Max ? "atomicMax" : "atomicMin";
}

std::string initOutput(const ReduceSpec &r) {
  if (r.combine == Combine::Sum)
    return "  cudaMemsetAsync(" + r.output.name + ", 0, sizeof(*" + r.output.name + "), stream);\n";
  return "  initOutput<<<1, 1, 0, stream>>>(" + r.output.name + ");\n";
}

std::string initKernel(const ReduceSpec &r) {
  if (r.combine == Combine::Sum)
    return "";
  return "\n__global__ void initOutput(" + r.accType + " *out) { out[0] = " + identityOf(r) + "; }\n";
}

ImplSpec atomicPerWarp(const TaskSpec &t, const ReduceSpec &r) {
  Vars v{{"T", r.accType}, {"params", kernelParams(r)}, {"element", elementAt(r, "i")}, {"identity", identityOf(r)},
         {"atomic", atomicOp(r)}, {"out", r.output.name}, {"args", kernelArgs(r)}};
  std::string src = "// Grid-stride partials, a warp-shuffle reduction, then one atomic per warp.\n" + cudaPrelude() +
                    common(r) + initKernel(r) + render(R"(
__global__ void reduceAtomic(${params}, ${T} *out) {
  ${T} acc = ${identity};
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc = combine(acc, ${element});
  acc = warpReduce(acc);
  if ((threadIdx.x & 31) == 0)
    ${atomic}(out, acc);
}

)", v) + entry(t, r, initOutput(r) + render(R"(  if (n <= 0)
    return;
  int blocks = (n + 255) / 256;
  if (blocks > smCount() * 4)
    blocks = smCount() * 4;
  reduceAtomic<<<blocks, 256, 0, stream>>>(${args}, ${out});
)", v));
  return implementation("atomic_per_warp", {"warp_shuffle", "grid_stride", "atomics_per_warp"}, Expected::Fast, src);
}

ImplSpec atomicPerElement(const TaskSpec &t, const ReduceSpec &r) {
  Vars v{{"T", r.accType}, {"params", kernelParams(r)}, {"element", elementAt(r, "i")}, {"atomic", atomicOp(r)},
         {"out", r.output.name}, {"args", kernelArgs(r)}};
  std::string src = "// Every element goes to the result with its own global atomic: all of them serialize on one\n"
                    "// address (deliberately slow).\n" + cudaPrelude() + initKernel(r) + render(R"(
__global__ void reduceGlobalAtomic(${params}, ${T} *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    ${atomic}(out, ${element});
}

)", v) + entry(t, r, initOutput(r) + render(R"(  if (n <= 0)
    return;
  reduceGlobalAtomic<<<(n + 255) / 256, 256, 0, stream>>>(${args}, ${out});
)", v));
  return implementation("global_atomics", {"global_atomics", "one_thread_per_element"}, Expected::Slow, src);
}

} // namespace

std::string reduceReference(const TaskSpec &t, const ReduceSpec &r) {
  // Float sums accumulate in double: closer to exact than any GPU ordering.
  std::string acc = r.combine == Combine::Sum && r.accType == "float" ? "double" : r.accType;
  Vars v{{"acc_t", acc}, {"T", r.accType}, {"identity", identityOf(r)},
         {"combine", combineOf(r, "acc", "(" + acc + ")" + elementAt(r, "i"))}, {"out", r.output.name},
         {"out_t", cType(r.output.dtype)}, {"finish", render(r.finish, {{"acc", "((" + r.accType + ")acc)"}})}};
  return referencePrelude() + "\nvoid " + t.name + "(" + entryParams(t) + ") {\n" + r.countCode + render(R"(  ${acc_t} acc = ${identity};
  for (int i = 0; i < n; ++i)
    acc = ${combine};
  ${out}[0] = (${out_t})(${finish});
}
)", v);
}

std::vector<ImplSpec> reduceImplementations(const TaskSpec &t, const ReduceSpec &r, Rng &rng) {
  std::vector<ImplSpec> impls;
  impls.push_back(twoPass(t, r, "baseline", "sequential", {"two_pass", "shared_memory_tree"}, Expected::Neutral,
                          "Two passes: per block, partial results then a shared-memory tree; one block combines the "
                          "blocks' results.", "(n + 255) / 256"));
  impls.push_back(twoPass(t, r, "warp_shuffle", "shuffle", {"two_pass", "warp_shuffle", "grid_stride"}, Expected::Fast,
                          "Two passes with warp-shuffle reductions and a grid sized to the GPU.", "smCount() * 4"));
  std::vector<ImplSpec> slow;
  slow.push_back(twoPass(t, r, "divergent_tree", "interleaved", {"two_pass", "shared_memory_tree", "divergent"},
                         Expected::Slow, "Two passes; the blocks reduce with the interleaved tree "
                         "(threadIdx.x % (2 * s) == 0): divergent warps.", "(n + 255) / 256"));
  slow.push_back(twoPass(t, r, "strided_tree", "strided", {"two_pass", "shared_memory_tree", "bank_conflicts"},
                         Expected::Slow, "Two passes; the blocks reduce with a strided index (2 * s * tid): shared-"
                         "memory bank conflicts.", "(n + 255) / 256"));
  slow.push_back(twoPass(t, r, "single_block", "sequential", {"occupancy_starved", "shared_memory_tree"},
                         Expected::Slow, "One block of 256 threads does all the work: one multiprocessor busy "
                         "(occupancy-starved).", "1"));
  if (atomicCapable(r) && r.accType == "int")
    slow.push_back(atomicPerElement(t, r));
  impls.push_back(slow[size_t(rng.uniformInt(0, int(slow.size()) - 1))]);
  if (atomicCapable(r))
    impls.push_back(atomicPerWarp(t, r));
  else {
    std::vector<ImplSpec> rest;
    for (auto &s : slow)
      if (s.name != impls.back().name)
        rest.push_back(s);
    impls.push_back(rest[size_t(rng.uniformInt(0, int(rest.size()) - 1))]);
  }
  return impls;
}

} // namespace cudaperf::dataset
