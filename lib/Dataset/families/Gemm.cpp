#include "Gemm.h"

#include <fmt/format.h>

namespace cudaperf::dataset {

namespace {

Vars gemmVars(const GemmSpec &g) {
  Vars v{{"T", g.T}, {"A", g.a}, {"B", g.b}, {"C", g.out}, {"m", g.m}, {"n", g.n}, {"k", g.k}, {"batch", g.batch},
         {"extra_params", g.extraParams.empty() ? "" : ", " + g.extraParams},
         {"extra_args", g.extraArgs.empty() ? "" : ", " + g.extraArgs}, {"out_const", ""}};
  // Element accessors of one batch entry (a, b point at it).
  v["a_at"] = g.transA ? "a[(size_t)(p) * m + (i)]" : "a[(size_t)(i) * k + (p)]";
  v["b_at"] = g.transB ? "b[(size_t)(j) * k + (p)]" : "b[(size_t)(p) * n + (j)]";
  v["store"] = "c[(size_t)(i) * n + (j)] = " +
               render(g.epilogue, {{"acc", "acc"}, {"i", "i"}, {"j", "j"}, {"c", "c[(size_t)(i) * n + (j)]"}}) + ";";
  return v;
}

// The names inside launchGemm, whose parameters are A, B and C whatever the task calls them.
Vars launchVars(Vars v) {
  v["A"] = "A";
  v["B"] = "B";
  v["C"] = "C";
  return v;
}

const char *kCommon = R"(
#define A_AT(i, p) ${a_at}
#define B_AT(p, j) ${b_at}
#define STORE(i, j, acc) ${store}
)";

// The launch lives in a helper taking the sizes as parameters, so the entry's own argument
// names (m, n, k or others) never clash with its locals.
std::string entry(const TaskSpec &t, const GemmSpec &g, const std::string &launch) {
  Vars v = gemmVars(g);
  Vars inner = v;
  inner["A"] = "A";
  inner["B"] = "B";
  inner["C"] = "C";
  return render(R"(static void launchGemm(const ${T} *A, const ${T} *B, ${T} *C, int m, int n, int k, int batch${extra_params},
                       cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0)
    return;
)", v) + render(launch, inner) + "}\n\nextern \"C\" void " + t.name + "(" + entryParams(t) + render(R"(, cudaStream_t stream) {
  launchGemm(${A}, ${B}, ${C}, ${m}, ${n}, ${k}, ${batch}${extra_args}, stream);
}
)", v);
}

const char *kKernelHead = R"(const ${T} *__restrict__ A, const ${T} *__restrict__ B, ${T} *__restrict__ C, int m, int n, int k${extra_params}) {
  const ${T} *a = A + (size_t)blockIdx.z * m * k;
  const ${T} *b = B + (size_t)blockIdx.z * k * n;
  ${T} *c = C + (size_t)blockIdx.z * m * n;
)";

ImplSpec naive(const TaskSpec &t, const GemmSpec &g, bool rowsOnX) {
  Vars v = gemmVars(g);
  v["i_of"] = rowsOnX ? "blockIdx.x * blockDim.x + threadIdx.x" : "blockIdx.y * blockDim.y + threadIdx.y";
  v["j_of"] = rowsOnX ? "blockIdx.y * blockDim.y + threadIdx.y" : "blockIdx.x * blockDim.x + threadIdx.x";
  v["grid"] = rowsOnX ? "dim3((m + 15) / 16, (n + 15) / 16, batch)" : "dim3((n + 15) / 16, (m + 15) / 16, batch)";
  std::string src = (rowsOnX ? std::string("// One thread per output with the row index on threadIdx.x: a warp's loads of B and\n"
                                           "// stores of C are a row apart (uncoalesced, deliberately slow).\n")
                             : std::string("// One thread per output element, 16x16 blocks, the sum over k from global memory.\n")) +
                    cudaPrelude() + render(kCommon, v) + render(std::string(R"(
__global__ void gemmNaive()") + kKernelHead + R"(  int i = ${i_of};
  int j = ${j_of};
  if (i >= m || j >= n)
    return;
  ${T} acc = 0;
  for (int p = 0; p < k; ++p)
    acc += A_AT(i, p) * B_AT(p, j);
  STORE(i, j, acc);
}

)", v) + entry(t, g, render("  gemmNaive<<<${grid}, dim3(16, 16), 0, stream>>>(${A}, ${B}, ${C}, m, n, k${extra_args});\n", launchVars(v)));
  return rowsOnX ? implementation("naive_uncoalesced", {"one_thread_per_element", "uncoalesced"}, Expected::Slow, src)
                 : implementation("baseline", {"one_thread_per_element"}, Expected::Neutral, src);
}

ImplSpec tiled16(const TaskSpec &t, const GemmSpec &g) {
  Vars v = gemmVars(g);
  std::string src = std::string("// 16x16 tiles of A and B staged in shared memory; each thread one output.\n") +
                    cudaPrelude() + render(kCommon, v) + render(std::string(R"(
#define TILE 16
__global__ void gemmTiled()") + kKernelHead + R"(  __shared__ ${T} As[TILE][TILE + 1];
  __shared__ ${T} Bs[TILE][TILE + 1];
  int i = blockIdx.y * TILE + threadIdx.y;
  int j = blockIdx.x * TILE + threadIdx.x;
  ${T} acc = 0;
  for (int p0 = 0; p0 < k; p0 += TILE) {
    int pa = p0 + threadIdx.x, pb = p0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = i < m && pa < k ? A_AT(i, pa) : (${T})0;
    Bs[threadIdx.y][threadIdx.x] = pb < k && j < n ? B_AT(pb, j) : (${T})0;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < TILE; ++p)
      acc += As[threadIdx.y][p] * Bs[p][threadIdx.x];
    __syncthreads();
  }
  if (i < m && j < n)
    STORE(i, j, acc);
}

)", v) + entry(t, g, render("  gemmTiled<<<dim3((n + TILE - 1) / TILE, (m + TILE - 1) / TILE, batch), dim3(TILE, TILE), 0, stream>>>(${A}, ${B}, ${C}, m, n, k${extra_args});\n", launchVars(v)));
  return implementation("tiled16", {"shared_memory_tiling", "padding"}, Expected::Fast, src);
}

ImplSpec registerBlocked(const TaskSpec &t, const GemmSpec &g) {
  Vars v = gemmVars(g);
  std::string src = std::string("// 64x64 output tiles per block of 16x16 threads, each thread 4x4 outputs in registers;\n"
                                "// 64x16 and 16x64 slices of A and B staged in padded shared memory.\n") +
                    cudaPrelude() + render(kCommon, v) + render(std::string(R"(
#define BM 64
#define BN 64
#define BK 16
__global__ void gemmRegisterBlocked()") + kKernelHead + R"(  __shared__ ${T} As[BK][BM + 1];
  __shared__ ${T} Bs[BK][BN + 1];
  int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
  ${T} acc[4][4];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int q = 0; q < 4; ++q)
      acc[r][q] = 0;
  for (int p0 = 0; p0 < k; p0 += BK) {
    for (int l = tid; l < BM * BK; l += 256) {
      int r = l / BK, p = l % BK, i = rowBase + r, pp = p0 + p;
      As[p][r] = i < m && pp < k ? A_AT(i, pp) : (${T})0;
    }
    for (int l = tid; l < BK * BN; l += 256) {
      int p = l / BN, q = l % BN, j = colBase + q, pp = p0 + p;
      Bs[p][q] = pp < k && j < n ? B_AT(pp, j) : (${T})0;
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      ${T} av[4], bv[4];
#pragma unroll
      for (int r = 0; r < 4; ++r)
        av[r] = As[p][ty + 16 * r];
#pragma unroll
      for (int q = 0; q < 4; ++q)
        bv[q] = Bs[p][tx + 16 * q];
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int q = 0; q < 4; ++q)
          acc[r][q] += av[r] * bv[q];
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      int i = rowBase + ty + 16 * r, j = colBase + tx + 16 * q;
      if (i < m && j < n)
        STORE(i, j, acc[r][q]);
    }
}

)", v) + entry(t, g, render("  gemmRegisterBlocked<<<dim3((n + BN - 1) / BN, (m + BM - 1) / BM, batch), dim3(16, 16), 0, stream>>>(${A}, ${B}, ${C}, m, n, k${extra_args});\n", launchVars(v)));
  return implementation("register_blocked", {"shared_memory_tiling", "register_blocking", "unrolled", "padding"},
                        Expected::Fast, src);
}

ImplSpec bankConflicted(const TaskSpec &t, const GemmSpec &g) {
  Vars v = gemmVars(g);
  std::string src = std::string("// 32x32 tiles in shared memory without padding, the A tile read down a column by the\n"
                                "// warp: 32-way bank conflicts (deliberately slow).\n") +
                    cudaPrelude() + render(kCommon, v) + render(std::string(R"(
#define TILE 32
__global__ void gemmConflicted()") + kKernelHead + R"(  __shared__ ${T} As[TILE][TILE];
  __shared__ ${T} Bs[TILE][TILE];
  // threadIdx.x walks rows of the output, so As[threadIdx.x][p] is a column access.
  int i = blockIdx.x * TILE + threadIdx.x;
  int j = blockIdx.y * TILE + threadIdx.y;
  ${T} acc = 0;
  for (int p0 = 0; p0 < k; p0 += TILE) {
    for (int y = threadIdx.y; y < TILE; y += blockDim.y) {
      int pa = p0 + y, ia = blockIdx.x * TILE + threadIdx.x;
      As[threadIdx.x][y] = ia < m && pa < k ? A_AT(ia, pa) : (${T})0;
      int pb = p0 + threadIdx.x, jb = blockIdx.y * TILE + y;
      Bs[threadIdx.x][y] = pb < k && jb < n ? B_AT(pb, jb) : (${T})0;
    }
    __syncthreads();
    for (int p = 0; p < TILE; ++p)
      acc += As[threadIdx.x][p] * Bs[p][threadIdx.y];
    __syncthreads();
  }
  if (i < m && j < n)
    STORE(i, j, acc);
}

)", v) + entry(t, g, render("  gemmConflicted<<<dim3((m + TILE - 1) / TILE, (n + TILE - 1) / TILE, batch), dim3(TILE, TILE), 0, stream>>>(${A}, ${B}, ${C}, m, n, k${extra_args});\n", launchVars(v)));
  return implementation("bank_conflicts", {"shared_memory_tiling", "bank_conflicts", "uncoalesced"}, Expected::Slow, src);
}

} // namespace

std::string gemmReference(const TaskSpec &t, const GemmSpec &g) {
  Vars v = gemmVars(g);
  v["store"] = "c[(size_t)i * n + j] = " +
               render(g.epilogue, {{"acc", "(" + g.T + ")acc"}, {"i", "i"}, {"j", "j"}, {"c", "c[(size_t)i * n + j]"}}) + ";";
  return referencePrelude() + render(kCommon, v) + render(R"(
static void gemmReference(const ${T} *A, const ${T} *B, ${T} *C, int m, int n, int k, int batch${extra_params}) {
  for (int z = 0; z < batch; ++z) {
    const ${T} *a = A + (size_t)z * m * k;
    const ${T} *b = B + (size_t)z * k * n;
    ${T} *c = C + (size_t)z * m * n;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double acc = 0;
        for (int p = 0; p < k; ++p)
          acc += (double)A_AT(i, p) * (double)B_AT(p, j);
        ${store}
      }
  }
}

void )", v) + t.name + "(" + entryParams(t) + render(R"() {
  gemmReference(${A}, ${B}, ${C}, ${m}, ${n}, ${k}, ${batch}${extra_args});
}
)", v);
}

std::vector<ImplSpec> gemmImplementations(const TaskSpec &t, const GemmSpec &g, Rng &rng) {
  std::vector<ImplSpec> impls{naive(t, g, false)};
  impls.push_back(rng.chance(0.5) ? registerBlocked(t, g) : tiled16(t, g));
  impls.push_back(rng.chance(0.5) ? naive(t, g, true) : bankConflicted(t, g));
  impls.push_back(impls[1].name == "tiled16" ? registerBlocked(t, g) : tiled16(t, g));
  return impls;
}

} // namespace cudaperf::dataset
