#include "Map.h"

#include <fmt/format.h>

namespace cudaperf::dataset {

namespace {

struct MapText {
  std::string kernelParams; // const float *__restrict__ x, float *__restrict__ out, int n, float alpha
  std::string kernelArgs;   // x, out, n, alpha
  std::string scalarParams; // ", float alpha"
  std::string scalarArgs;   // ", alpha"
  std::string outType;
};

MapText mapText(const MapSpec &m) {
  MapText t;
  for (const auto &in : m.inputs) {
    t.kernelParams += "const " + cType(in.dtype) + " *__restrict__ " + in.name + ", ";
    t.kernelArgs += in.name + ", ";
  }
  t.outType = cType(m.output.dtype);
  t.kernelParams += t.outType + " *__restrict__ " + m.output.name + ", int n";
  t.kernelArgs += m.output.name + ", " + m.countName;
  for (const auto &[name, type] : m.scalars) {
    t.scalarParams += ", " + type + " " + name;
    t.scalarArgs += ", " + name;
  }
  t.kernelParams += t.scalarParams;
  t.kernelArgs += t.scalarArgs;
  return t;
}

// The expression with every operand read through `access` (name -> text); broadcast operands
// (with an index expression) are read at their index of element `element`.
template <class F> std::string exprWith(const MapSpec &m, F access, const std::string &element = "") {
  Vars v;
  for (const auto &in : m.inputs)
    v[in.name] = in.index.empty() ? access(in.name) : in.name + "[" + render(in.index, {{"i", element}}) + "]";
  if (m.outputIsRead)
    v[m.output.name] = access(m.output.name);
  return render(m.expr, v);
}

std::string storeAt(const MapSpec &m, const MapText &t, const std::string &index) {
  return m.output.name + "[" + index + "] = (" + t.outType + ")(" +
         exprWith(m, [&](const std::string &n) { return n + "[" + index + "]"; }, index) + ");";
}

std::string vectorType(const std::string &dtype, int width) {
  std::string base = dtype == "f32" ? "float" : dtype == "f64" ? "double" : dtype == "i32" ? "int"
                     : dtype == "u32" ? "uint" : dtype == "u8" ? "uchar" : dtype == "i64" ? "longlong" : "";
  if (base.empty())
    throw DatasetError("no vector type for " + dtype);
  return base + std::to_string(width);
}

int elementBytes(const std::string &dtype) {
  return dtype == "f64" || dtype == "i64" ? 8 : dtype == "u8" ? 1 : 4;
}

const char *kLanes[] = {"x", "y", "z", "w"};

std::string entryHead(const TaskSpec &t, const MapSpec &m) {
  return "extern \"C\" void " + t.name + "(" + entryParams(t) + ", cudaStream_t stream) {\n" + m.countCode +
         "  if (" + m.countName + " <= 0)\n    return;\n";
}

std::string header(const MapSpec &m, const std::string &comment) {
  return "// " + comment + "\n" + cudaPrelude() + (m.deviceHelpers.empty() ? "" : "\n" + m.deviceHelpers) + "\n";
}

ImplSpec oneThreadPerElement(const TaskSpec &t, const MapSpec &m) {
  MapText x = mapText(m);
  Vars v{{"params", x.kernelParams}, {"args", x.kernelArgs}, {"store", storeAt(m, x, "i")}, {"n", m.countName}};
  std::string src = header(m, "One thread per element.") + render(R"(__global__ void mapOnePerElement(${params}) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    ${store}
}

)", v) + entryHead(t, m) + render("  mapOnePerElement<<<(${n} + 255) / 256, 256, 0, stream>>>(${args});\n}\n", v);
  return implementation("baseline", {"one_thread_per_element"}, Expected::Neutral, src);
}

ImplSpec gridStride(const TaskSpec &t, const MapSpec &m, int blocksPerSm) {
  MapText x = mapText(m);
  Vars v{{"params", x.kernelParams}, {"args", x.kernelArgs}, {"store", storeAt(m, x, "i")}, {"n", m.countName},
         {"per_sm", std::to_string(blocksPerSm)}};
  std::string src = header(m, "A grid sized to the GPU; each thread strides over the array.") +
                    render(R"(__global__ void mapGridStride(${params}) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    ${store}
}

)", v) + entryHead(t, m) + render(R"(  int blocks = (${n} + 255) / 256;
  if (blocks > smCount() * ${per_sm})
    blocks = smCount() * ${per_sm};
  mapGridStride<<<blocks, 256, 0, stream>>>(${args});
}
)", v);
  return implementation("grid_stride", {"grid_stride"}, Expected::Neutral, src);
}

bool vectorizable(const MapSpec &m) {
  for (const auto &in : m.inputs)
    if (in.dtype == "i64") return false;
  return m.output.dtype != "i64";
}

bool broadcast(const MapOperand &o) { return !o.index.empty(); }

ImplSpec vectorized(const TaskSpec &t, const MapSpec &m) {
  MapText x = mapText(m);
  bool wide = elementBytes(m.output.dtype) == 8;
  for (const auto &in : m.inputs)
    wide = wide || elementBytes(in.dtype) == 8;
  int width = wide ? 2 : 4;
  std::string vparams, vargs, loads, lanes;
  // An operand read at its own index (a permutation, a broadcast) may name the element count in that index, so the
  // vector kernel takes the count as n, as the scalar kernels do.
  bool anyIndexed = false;
  auto addOperand = [&](const std::string &name, const std::string &dtype, bool isConst) {
    std::string vt = vectorType(dtype, width);
    vparams += (isConst ? "const " : "") + vt + " *__restrict__ " + name + "V, ";
    vargs += "(" + std::string(isConst ? "const " : "") + vt + " *)" + name + ", ";
  };
  for (const auto &in : m.inputs) {
    if (broadcast(in)) { // read element by element at its index
      anyIndexed = true;
      vparams += "const " + cType(in.dtype) + " *__restrict__ " + in.name + ", ";
      vargs += in.name + ", ";
      continue;
    }
    addOperand(in.name, in.dtype, true);
    loads += "    " + vectorType(in.dtype, width) + " " + in.name + "v = " + in.name + "V[vec];\n";
  }
  addOperand(m.output.name, m.output.dtype, false);
  if (m.outputIsRead)
    loads += "    " + vectorType(m.output.dtype, width) + " " + m.output.name + "v = " + m.output.name + "V[vec];\n";
  for (int l = 0; l < width; ++l)
    lanes += "    r." + std::string(kLanes[l]) + " = (" + x.outType + ")(" +
             exprWith(m, [&](const std::string &n) { return n + "v." + kLanes[l]; },
                      fmt::format("(vec * {} + {})", width, l)) + ");\n";
  Vars v{{"vparams", vparams}, {"vargs", vargs}, {"loads", loads}, {"lanes", lanes},
         {"vt_out", vectorType(m.output.dtype, width)}, {"w", std::to_string(width)}, {"params", x.kernelParams},
         {"args", x.kernelArgs}, {"store", storeAt(m, x, "i")}, {"n", m.countName},
         {"scalar_params", x.scalarParams}, {"scalar_args", x.scalarArgs}, {"out", m.output.name},
         {"count_param", anyIndexed ? ", int n" : ""}, {"count_arg", anyIndexed ? ", " + m.countName : ""}};
  std::string src = header(m, fmt::format("{}-wide vector loads and stores over the body (grid-stride), a scalar "
                                          "kernel for the last n % {} elements.", width, width)) +
                    render(R"(__global__ void mapVector(${vparams}int nv${count_param}${scalar_params}) {
  for (int vec = blockIdx.x * blockDim.x + threadIdx.x; vec < nv; vec += gridDim.x * blockDim.x) {
${loads}    ${vt_out} r;
${lanes}    ${out}V[vec] = r;
  }
}

__global__ void mapTail(${params}, int start) {
  int i = start + threadIdx.x;
  if (i < n)
    ${store}
}

)", v) + entryHead(t, m) + render(R"(  int nv = ${n} / ${w};
  if (nv > 0) {
    int blocks = (nv + 255) / 256;
    if (blocks > smCount() * 8)
      blocks = smCount() * 8;
    mapVector<<<blocks, 256, 0, stream>>>(${vargs}nv${count_arg}${scalar_args});
  }
  if (nv * ${w} < ${n})
    mapTail<<<1, ${w}, 0, stream>>>(${args}, nv * ${w});
}
)", v);
  return implementation("vectorized", {"vectorized_loads", "grid_stride"}, Expected::Fast, src);
}

ImplSpec unrolled(const TaskSpec &t, const MapSpec &m) {
  MapText x = mapText(m);
  Vars v{{"params", x.kernelParams}, {"args", x.kernelArgs}, {"store", storeAt(m, x, "i")}, {"n", m.countName}};
  std::string src = header(m, "Four elements per thread, a block's accesses still consecutive (unrolled).") +
                    render(R"(__global__ void mapUnrolled(${params}) {
  int base = blockIdx.x * (blockDim.x * 4) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    int i = base + k * blockDim.x;
    if (i < n)
      ${store}
  }
}

)", v) + entryHead(t, m) + render("  mapUnrolled<<<(${n} + 1023) / 1024, 256, 0, stream>>>(${args});\n}\n", v);
  return implementation("unrolled", {"unrolled", "coalesced"}, Expected::Neutral, src);
}

ImplSpec threadPerChunk(const TaskSpec &t, const MapSpec &m, int chunk) {
  MapText x = mapText(m);
  Vars v{{"params", x.kernelParams}, {"args", x.kernelArgs}, {"store", storeAt(m, x, "i")}, {"n", m.countName},
         {"chunk", std::to_string(chunk)}};
  std::string src =
      header(m, fmt::format("Each thread handles {} consecutive elements: a warp's accesses are {} elements apart "
                            "(uncoalesced, deliberately slow).", chunk, chunk)) +
      render(R"(__global__ void mapChunked(${params}) {
  int start = (blockIdx.x * blockDim.x + threadIdx.x) * ${chunk};
  for (int k = 0; k < ${chunk}; ++k) {
    int i = start + k;
    if (i < n)
      ${store}
  }
}

)", v) + entryHead(t, m) + render(R"(  int threads = (${n} + ${chunk} - 1) / ${chunk};
  mapChunked<<<(threads + 255) / 256, 256, 0, stream>>>(${args});
}
)", v);
  return implementation("thread_per_chunk", {"uncoalesced", "thread_per_chunk"}, Expected::Slow, src);
}

ImplSpec starved(const TaskSpec &t, const MapSpec &m, int blocks, int threads) {
  MapText x = mapText(m);
  Vars v{{"params", x.kernelParams}, {"args", x.kernelArgs}, {"store", storeAt(m, x, "i")},
         {"blocks", std::to_string(blocks)}, {"threads", std::to_string(threads)}};
  std::string src = header(m, fmt::format("{} blocks of {} threads stride over the whole array: most of the GPU "
                                          "idles (occupancy-starved, deliberately slow).", blocks, threads)) +
                    render(R"(__global__ void mapStarved(${params}) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    ${store}
}

)", v) + entryHead(t, m) + render("  mapStarved<<<${blocks}, ${threads}, 0, stream>>>(${args});\n}\n", v);
  return implementation("starved", {"occupancy_starved", "grid_stride"}, Expected::Slow, src);
}

} // namespace

std::string mapReference(const TaskSpec &t, const MapSpec &m) {
  MapText x = mapText(m);
  return referencePrelude() + (m.hostHelpers.empty() ? "" : "\n" + m.hostHelpers) + "\nvoid " + t.name + "(" +
         entryParams(t) + ") {\n" + m.countCode + "  for (int i = 0; i < " + m.countName + "; ++i)\n    " +
         storeAt(m, x, "i") + "\n}\n";
}

std::vector<ImplSpec> mapImplementations(const TaskSpec &t, const MapSpec &m, Rng &rng) {
  std::vector<ImplSpec> impls{oneThreadPerElement(t, m)};
  // One that should be faster, one deliberately slow, one more of either kind.
  std::vector<ImplSpec> fast, slow;
  if (vectorizable(m))
    fast.push_back(vectorized(t, m));
  fast.push_back(unrolled(t, m));
  fast.push_back(gridStride(t, m, rng.pick(std::vector<int>{4, 8, 16})));
  slow.push_back(threadPerChunk(t, m, rng.pick(std::vector<int>{8, 16, 32})));
  slow.push_back(starved(t, m, rng.pick(std::vector<int>{1, 2, 4}), rng.pick(std::vector<int>{32, 64})));
  impls.push_back(fast[0]);
  size_t s = size_t(rng.uniformInt(0, 1));
  impls.push_back(slow[s]);
  std::vector<ImplSpec> rest;
  for (size_t i = 1; i < fast.size(); ++i)
    rest.push_back(fast[i]);
  rest.push_back(slow[1 - s]);
  impls.push_back(rest[size_t(rng.uniformInt(0, int(rest.size()) - 1))]);
  return impls;
}

} // namespace cudaperf::dataset
