// Compute-heavy matrix products, N = 1024. FLOPs count a fused multiply-add as 2: 2 * N^3 per product.
// Expected SASS counters: N^3 thread-level FFMA (or DFMA) instructions, no separate FADD/FMUL in the inner loop.
#include "corpus_util.h"

// @kernel pattern=broadcast; flops=2*1024*1024*1024; note=naive, 32x8 block: a[row][k] is one address per warp (1 sector), b[k][col] 32 consecutive floats (4 sectors)
__global__ void gemm_naive_f32(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];  // @ld.global 4B exp=1 @ld.global 4B exp=4
  c[row * n + col] = sum;  // @st.global 4B exp=4
}

// @kernel pattern=coalesced; flops=2*1024*1024*1024; note=32x32 shared tiles, 32x32 block
__global__ void gemm_tiled_f32(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  __shared__ float as[32][32];
  __shared__ float bs[32][32];
  int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * 32 + tx;
  int row = blockIdx.y * 32 + ty;
  float sum = 0.0f;
  for (int t = 0; t < n; t += 32) {
    as[ty][tx] = a[row * n + t + tx];  // @ld.global 4B exp=4 @st.shared 4B exp=1
    bs[ty][tx] = b[(t + ty) * n + col];  // @ld.global 4B exp=4 @st.shared 4B exp=1
    __syncthreads();
    for (int k = 0; k < 32; ++k) sum += as[ty][k] * bs[k][tx];  // @ld.shared 4B exp=1 @ld.shared 4B exp=1
    __syncthreads();
  }
  c[row * n + col] = sum;  // @st.global 4B exp=4
}

// @kernel pattern=coalesced; flops=2*1024*1024*1024; note=64x64 block tile, 16x16 threads, 4x4 outputs per thread held in registers. The as store is transposed (as[k][r], 16 lanes per bank: 16-way). The compiler is expected to widen the 4 consecutive as/bs reads to 128-bit loads: then as is a 2-address broadcast (1 wavefront) and bs 16 distinct 16-byte words (2 wavefronts); the 4-byte expectations (1, 1) hold only if it does not. The c store writes 4 consecutive floats per thread, 16 bytes apart per lane (16 sectors per request)
__global__ void gemm_regtile_f32(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  __shared__ float as[16][64];  // as[k][row]
  __shared__ float bs[16][64];  // bs[k][col]
  int tx = threadIdx.x, ty = threadIdx.y;
  int tid = ty * 16 + tx;
  int rowBase = blockIdx.y * 64;
  int colBase = blockIdx.x * 64;
  float acc[4][4] = {};
  for (int t = 0; t < n; t += 16) {
    for (int l = tid; l < 16 * 64; l += 256) {
      int r = l / 16, k = l % 16;
      as[k][r] = a[(rowBase + r) * n + t + k];  // @ld.global 4B exp=4 @st.shared 4B exp=16
      int kk = l / 64, cc = l % 64;
      bs[kk][cc] = b[(t + kk) * n + colBase + cc];  // @ld.global 4B exp=4 @st.shared 4B exp=1
    }
    __syncthreads();
    for (int k = 0; k < 16; ++k) {
      float av[4], bv[4];
      for (int i = 0; i < 4; ++i) av[i] = as[k][ty * 4 + i];  // @ld.shared 4B exp=1
      for (int j = 0; j < 4; ++j) bv[j] = bs[k][tx * 4 + j];  // @ld.shared 4B exp=1
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) c[(rowBase + ty * 4 + i) * n + colBase + tx * 4 + j] = acc[i][j];  // @st.global 4B exp=16
}

// @kernel pattern=broadcast; flops=2*1024*1024*1024; note=fp64 naive, 32x8 block
__global__ void gemm_naive_f64(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  double sum = 0.0;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];  // @ld.global 8B exp=1 @ld.global 8B exp=8
  c[row * n + col] = sum;  // @st.global 8B exp=8
}

// @kernel pattern=coalesced; flops=2*1024*1024*1024; note=fp64 16x16 shared tiles
__global__ void gemm_tiled_f64(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c, int n) {
  __shared__ double as[16][16];
  __shared__ double bs[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * 16 + tx;
  int row = blockIdx.y * 16 + ty;
  double sum = 0.0;
  for (int t = 0; t < n; t += 16) {
    as[ty][tx] = a[row * n + t + tx];  // @ld.global 8B exp=8 @st.shared 8B exp=2
    bs[ty][tx] = b[(t + ty) * n + col];  // @ld.global 8B exp=8 @st.shared 8B exp=2
    __syncthreads();
    for (int k = 0; k < 16; ++k) sum += as[ty][k] * bs[k][tx];  // @ld.shared 8B exp=2 @ld.shared 8B exp=2
    __syncthreads();
  }
  c[row * n + col] = sum;  // @st.global 8B exp=8
}

int main() {
  const int n = 1024;
  float* a = deviceRandomFloats(n * n, 141);
  float* b = deviceRandomFloats(n * n, 142);
  float* c = deviceAlloc<float>(n * n);
  {
    dim3 block(32, 8);
    dim3 grid(n / 32, n / 8);
    gemm_naive_f32<<<grid, block>>>(a, b, c, n);
    CHECK_LAUNCH();
  }
  {
    dim3 block(32, 32);
    dim3 grid(n / 32, n / 32);
    gemm_tiled_f32<<<grid, block>>>(a, b, c, n);
    CHECK_LAUNCH();
  }
  {
    dim3 block(16, 16);
    dim3 grid(n / 64, n / 64);
    gemm_regtile_f32<<<grid, block>>>(a, b, c, n);
    CHECK_LAUNCH();
  }
  double* ad = deviceRandomDoubles(n * n, 143);
  double* bd = deviceRandomDoubles(n * n, 144);
  double* cd = deviceAlloc<double>(n * n);
  {
    dim3 block(32, 8);
    dim3 grid(n / 32, n / 8);
    gemm_naive_f64<<<grid, block>>>(ad, bd, cd, n);
    CHECK_LAUNCH();
  }
  {
    dim3 block(16, 16);
    dim3 grid(n / 16, n / 16);
    gemm_tiled_f64<<<grid, block>>>(ad, bd, cd, n);
    CHECK_LAUNCH();
  }
  printf("compute_gemm: ok\n");
  return 0;
}
