// Transposes and permutations, both kinds: out[b][c][r] = in[b][r][c] for a batch of (R x C)
// matrices, which covers a 2D transpose and the 3D permutations (0,2,1), (1,2,0), (2,0,1).
// Implementations: naive with coalesced reads (baseline), naive with coalesced writes, a
// 32x32 shared-memory tile without padding (bank conflicts) and with padding.
#include "PyModel.h"

#include "cudaperf/Dataset/Family.h"

#include <fmt/format.h>

namespace cudaperf::dataset {

namespace {

struct TransposeShape {
  std::string batch, rows, cols; // C expressions over the size arguments
};

// The launch lives in a helper taking batch, rows and cols, so they never clash with the entry's arguments.
std::string entryOf(const TaskSpec &t, const TransposeShape &s, const std::string &T, const std::string &in,
                    const std::string &launch) {
  return "static void launchTranspose(const " + T + " *in, " + T + " *out, int batch, int rows, int cols, cudaStream_t stream) {\n"
         "  if (batch <= 0 || rows <= 0 || cols <= 0)\n    return;\n" + launch + "}\n\nextern \"C\" void " + t.name + "(" +
         entryParams(t) + ", cudaStream_t stream) {\n  launchTranspose(" + in + ", out, " + s.batch + ", " + s.rows + ", " +
         s.cols + ", stream);\n}\n";
}

std::vector<ImplSpec> transposeImplementations(const TaskSpec &t, const TransposeShape &shape, const std::string &T,
                                               const std::string &inName, Rng &rng) {
  Vars v{{"T", T}};
  Vars names{{"in", "in"}};
  auto entryNamed = [&](const TaskSpec &task, const TransposeShape &sh, const std::string &launch) {
    return entryOf(task, sh, T, inName, render(launch, names));
  };
  std::vector<ImplSpec> impls;
  impls.push_back(implementation("baseline", {"one_thread_per_element", "coalesced_reads", "uncoalesced_writes"},
                                 Expected::Neutral,
                                 "// One thread per input element: reads are coalesced, writes a row apart.\n" +
                                     cudaPrelude() + render(R"(
__global__ void transposeNaive(const ${T} *__restrict__ in, ${T} *__restrict__ out, int rows, int cols) {
  size_t plane = (size_t)rows * cols;
  const ${T} *src = in + blockIdx.y * plane;
  ${T} *dst = out + blockIdx.y * plane;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < plane; i += (size_t)gridDim.x * blockDim.x) {
    int r = (int)(i / cols), c = (int)(i % cols);
    dst[(size_t)c * rows + r] = src[i];
  }
}

)", v) + entryNamed(t, shape, R"(  size_t plane = (size_t)rows * cols;
  unsigned blocks = (unsigned)((plane + 255) / 256);
  if (blocks > 65535u)
    blocks = 65535u;
  transposeNaive<<<dim3(blocks, batch), 256, 0, stream>>>(${in}, out, rows, cols);
)")));
  impls.push_back(implementation("write_coalesced", {"one_thread_per_element", "coalesced_writes", "uncoalesced_reads"},
                                 Expected::Neutral,
                                 "// One thread per output element: writes are coalesced, reads a row apart.\n" +
                                     cudaPrelude() + render(R"(
__global__ void transposeByOutput(const ${T} *__restrict__ in, ${T} *__restrict__ out, int rows, int cols) {
  size_t plane = (size_t)rows * cols;
  const ${T} *src = in + blockIdx.y * plane;
  ${T} *dst = out + blockIdx.y * plane;
  for (size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x; o < plane; o += (size_t)gridDim.x * blockDim.x) {
    int c = (int)(o / rows), r = (int)(o % rows);
    dst[o] = src[(size_t)r * cols + c];
  }
}

)", v) + entryNamed(t, shape, R"(  size_t plane = (size_t)rows * cols;
  unsigned blocks = (unsigned)((plane + 255) / 256);
  if (blocks > 65535u)
    blocks = 65535u;
  transposeByOutput<<<dim3(blocks, batch), 256, 0, stream>>>(${in}, out, rows, cols);
)")));
  auto tiled = [&](bool padded) {
    Vars tv{{"T", T}, {"pad", padded ? "1" : "0"}};
    std::string comment = padded ? "// 32x32 tiles through shared memory padded to 33 columns: coalesced reads and writes, no\n"
                                   "// bank conflicts (blocks of 32x8 threads, 4 elements each).\n"
                                 : "// 32x32 tiles through shared memory without padding: coalesced global accesses, but the\n"
                                   "// column reads of the tile hit one bank 32 times (bank conflicts).\n";
    return implementation(padded ? "tiled_padded" : "tiled_shared",
                          padded ? std::vector<std::string>{"shared_memory_tiling", "padding", "coalesced"}
                                 : std::vector<std::string>{"shared_memory_tiling", "bank_conflicts", "coalesced"},
                          padded ? Expected::Fast : Expected::Neutral, comment + cudaPrelude() + render(R"(
#define TILE 32
__global__ void transposeTiled(const ${T} *__restrict__ in, ${T} *__restrict__ out, int rows, int cols) {
  __shared__ ${T} tile[TILE][TILE + ${pad}];
  size_t plane = (size_t)rows * cols;
  const ${T} *src = in + blockIdx.z * plane;
  ${T} *dst = out + blockIdx.z * plane;
  int c = blockIdx.x * TILE + threadIdx.x;
  for (int k = threadIdx.y; k < TILE; k += blockDim.y) {
    int r = blockIdx.y * TILE + k;
    if (r < rows && c < cols)
      tile[k][threadIdx.x] = src[(size_t)r * cols + c];
  }
  __syncthreads();
  int r = blockIdx.y * TILE + threadIdx.x;
  for (int k = threadIdx.y; k < TILE; k += blockDim.y) {
    int oc = blockIdx.x * TILE + k;
    if (r < rows && oc < cols)
      dst[(size_t)oc * rows + r] = tile[threadIdx.x][k];
  }
}

)", tv) + entryNamed(t, shape, R"(  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE, batch);
  transposeTiled<<<grid, dim3(TILE, 8), 0, stream>>>(${in}, out, rows, cols);
)"));
  };
  impls.push_back(tiled(true));
  impls.push_back(tiled(false));
  (void)rng;
  return impls;
}

std::string transposeReference(const TaskSpec &t, const TransposeShape &s, const std::string &T,
                               const std::string &in = "in") {
  return referencePrelude() + render(R"(
static void transposeReference(const ${T} *in, ${T} *out, int batch, int rows, int cols) {
  for (int b = 0; b < batch; ++b)
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        out[(size_t)b * rows * cols + (size_t)c * rows + r] = in[(size_t)b * rows * cols + (size_t)r * cols + c];
}

)", {{"T", T}}) + "void " + t.name + "(" + entryParams(t) + ") {\n  transposeReference(" + in + ", out, " + s.batch + ", " +
         s.rows + ", " + s.cols + ");\n}\n";
}

// Sizes: small odd, large ~1-8 M elements of odd shape classes (wide, tall, square).
std::pair<int, int> largeMatrix(Rng &rng, long long elements) {
  int shape = rng.uniformInt(0, 2);
  int cols = shape == 0 ? rng.pick(std::vector<int>{4096, 8192, 6000}) : shape == 1 ? rng.pick(std::vector<int>{64, 100, 256})
                                                                                      : rng.pick(std::vector<int>{1024, 2048, 1500});
  return {int(std::max(1ll, elements / cols)), cols};
}

void makeTranspose2D(TaskSpec &t, Rng &rng) {
  std::string dtype = rng.pick(std::vector<std::string>{"f32", "f64", "i32", "u8"});
  int bytes = dtype == "f64" ? 8 : dtype == "u8" ? 1 : 4;
  auto [rows, cols] = largeMatrix(rng, (16ll << 20) / bytes / rng.uniformInt(1, 4));
  Json d = isFloatDtype(dtype) ? uniformDist(-1, 1) : dtype == "u8" ? uniformDist(0, 255) : uniformDist(-100000, 100000);
  t.args = {pointerArg("in", dtype, "in", "rows * cols", d), pointerArg("out", dtype, "out", "rows * cols"),
            sizeArg("rows"), sizeArg("cols")};
  t.configs = {config("small", {{"rows", rng.uniformInt(20, 90) * 2 + 1}, {"cols", rng.uniformInt(20, 90) * 2 + 1}}),
               config("large", {{"rows", rows}, {"cols", cols}})};
  t.description = "out (cols x rows) = the transpose of in (rows x cols), row-major " + cType(dtype) + ".";
  t.params = Json{{"dtype", dtype}, {"large_rows", rows}, {"large_cols", cols}};
  t.variant = dtype + fmt::format("/{}", cols >= 4096 ? "wide" : cols <= 256 ? "tall" : "square");
  TransposeShape s{"1", "rows", "cols"};
  t.reference = transposeReference(t, s, cType(dtype));
  t.impls = transposeImplementations(t, s, cType(dtype), "in", rng);
}

struct Permutation {
  const char *name, *torch;
  TransposeShape shape; // over a, b, c
  std::vector<std::string> outShape;
};
const std::vector<Permutation> kPermutations = {
    {"0,2,1", "x.transpose(1, 2).contiguous()", {"a", "b", "c"}, {"a", "c", "b"}},
    {"1,2,0", "x.permute(1, 2, 0).contiguous()", {"1", "a", "b * c"}, {"b", "c", "a"}},
    {"2,0,1", "x.permute(2, 0, 1).contiguous()", {"1", "a * b", "c"}, {"c", "a", "b"}},
};

void makePermute3D(TaskSpec &t, Rng &rng) {
  const Permutation &p = rng.pick(kPermutations);
  bool py = t.kind == Kind::PyTorch;
  std::string dtype = py ? "f32" : rng.pick(std::vector<std::string>{"f32", "f64", "i32"});
  int bytes = dtype == "f64" ? 8 : 4;
  std::vector<std::string> dims = py ? std::vector<std::string>{"dim0", "dim1", "dim2"} : std::vector<std::string>{"a", "b", "c"};
  Vars rename{{"a", dims[0]}, {"b", dims[1]}, {"c", dims[2]}};
  auto ren = [&](const std::string &e) {
    std::string s;
    for (char ch : e)
      s += ch == 'a' ? dims[0] : ch == 'b' ? dims[1] : ch == 'c' ? dims[2] : std::string(1, ch);
    return s;
  };
  std::string count = dims[0] + " * " + dims[1] + " * " + dims[2];
  Json d = dtype == "i32" ? uniformDist(-1000, 1000) : uniformDist(-1, 1);
  t.args = {pointerArg("x", dtype, "in", count, d), pointerArg("out", dtype, "out", count)};
  t.args[0].shape = dims;
  for (const auto &o : p.outShape)
    t.args[1].shape.push_back(ren(o));
  for (const auto &n : dims)
    t.args.push_back(sizeArg(n));
  long long elements = (16ll << 20) / bytes / rng.uniformInt(1, 3);
  int a = rng.pick(std::vector<int>{8, 16, 32, 64, 128}), c = rng.pick(std::vector<int>{32, 64, 256, 1024, 3});
  int b = int(std::max(2ll, elements / ((long long)a * c)));
  t.configs = {config("small", {{dims[0], 3}, {dims[1], rng.uniformInt(10, 40) * 2 + 1}, {dims[2], rng.uniformInt(5, 30) * 2 + 1}}),
               config("large", {{dims[0], a}, {dims[1], b}, {dims[2], c}})};
  t.description = std::string("out = x.permute(") + p.name + ") of a (" + dims[0] + ", " + dims[1] + ", " + dims[2] +
                  ") tensor, made contiguous (" + cType(dtype) + ").";
  t.params = Json{{"permutation", p.name}, {"dtype", dtype}, {"large", {a, b, c}}};
  t.variant = std::string(p.name) + "/" + dtype;
  TransposeShape s{ren(p.shape.batch), ren(p.shape.rows), ren(p.shape.cols)};
  t.impls = transposeImplementations(t, s, cType(dtype), "x", rng);
  if (!py) {
    t.reference = transposeReference(t, s, cType(dtype), "x");
    return;
  }
  PyModel m;
  m.doc = t.description;
  m.forwardBody = {std::string("return ") + p.torch};
  m.inputs = {"x = torch.randn(dim0, dim1, dim2)"};
  setModel(t, m);
}

} // namespace

void addTransposeFamilies(std::vector<Family> &out) {
  out.push_back({"transpose", Kind::C, "2D transposes of wide, tall and square matrices (f32, f64, i32, u8)", false,
                 75, [](TaskSpec &t, Rng &r, int) { makeTranspose2D(t, r); }});
  out.push_back({"permute3d", Kind::C, "3D permutations (0,2,1), (1,2,0), (2,0,1) made contiguous", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makePermute3D(t, r); }});
}

void addPyTorchTransposeFamilies(std::vector<Family> &out) {
  out.push_back({"pt_permute", Kind::PyTorch, "x.transpose / x.permute(...).contiguous() of 3D tensors", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makePermute3D(t, r); }});
}

} // namespace cudaperf::dataset
